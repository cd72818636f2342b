"""Slice search: recall of planted slices, false discoveries on null data, and speed.

    python benchmarks/bench_slices.py            # the figures of the README and the notes (~3 min, 2 cores)
    python benchmarks/bench_slices.py --quick    # smoke run: 100 simulations, 100,000 rows for speed
    python benchmarks/bench_slices.py --only-similarity --similarity 1000000 100000   # train_similarity at scale
    python benchmarks/bench_slices.py --corpus   # slices on corpus metrics (AUROC, ECE): null and recall (~15 min loaded)
    python benchmarks/bench_slices.py --conjunction-at-scale 5   # the planted pair at 1,000,000 rows, 5 seeds
    python benchmarks/bench_slices.py --power    # 0/1 slices: recall by size and base accuracy beside the exact
                                                 # power of any test; other error controls (~25 min loaded)

Every simulation draws a fresh table: four text columns (3, 4, 4 and 5 values) and one numeric
column (cut into quantile bins by the search), and 0/1 scores at 70% (or, where named,
token-F1-like scores: 0.7 plus noise of sd 0.25, clipped to [0, 1]). The search runs at order 2
(every value and every pair of values of two columns), ``min_n`` 30, alpha 0.05, with

- ``bh``: Benjamini-Hochberg over every slice tested (the default),
- ``split``: discovered on one half of the rows, confirmed on the other,
- ``naive``: every slice with an uncorrected p < 0.05.

Null data (no slice differs): the share of searches with any significant slice (the family-wise
error; with no true slice it is also the false-discovery rate), over 1,000 simulations; the
promise is <= 0.05. The simulations are split: seeds 0-499 were looked at while choosing the
default control and ``min_n``, seeds 500-999 were not, and are printed first.

Planted slices: one value of one column (``single``), or one pair of values of two columns
(``pair``: the pair scores 10 points lower, each of its two values alone only by the pair's share),
with a 10-point effect; recall is the share of simulations that report exactly the planted slice
as significant (for ``pair``: the conjunction, not its parts), at several slice sizes. Speed:
1,000,000 rows x 6 columns at order 2.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from gengap.analysis.slices import find_slices

LEVELS = {"channel": 3, "language": 4, "source": 4, "topic": 5}


def table(n: int, rng: np.random.Generator, share: float | None = None) -> pd.DataFrame:
    """The simulated metadata; ``share``: the probability of ``channel = c0`` and of ``language = l0``
    (the other values share the rest equally); None: every value equally likely."""
    cols = {}
    for name, k in LEVELS.items():
        p = np.full(k, 1 / k)
        if share is not None and name in ("channel", "language"):
            p = np.r_[share, np.full(k - 1, (1 - share) / (k - 1))]
        cols[name] = np.char.add(name[0], rng.choice(k, n, p=p).astype(str))
    frame = pd.DataFrame(cols)
    frame["length"] = rng.gamma(3.0, 10.0, n).round()
    return frame


def draw_scores(p: np.ndarray, rng: np.random.Generator, kind: str) -> np.ndarray:
    if kind == "binary":
        return (rng.random(p.size) < p).astype(np.float64)
    return np.clip(p + rng.normal(0, 0.25, p.size), 0, 1)


def search(frame: pd.DataFrame, y: np.ndarray, control: str, min_n: int = 30, seed: int = 0) -> tuple[int, set[str]]:
    """Slices significant (all of them, explained parts included), and the descriptions reported."""
    found = find_slices(frame, y, order=2, min_n=min_n, control="none" if control == "naive" else control,  # type: ignore[arg-type]
                        seed=seed, top=0)
    return found.n_significant, set(found.significant["description"])


def null_rates(sims: range, n: int, controls: list[str], min_n: int = 30, kind: str = "binary") -> dict[str, float]:
    any_false = dict.fromkeys(controls, 0)
    for s in sims:
        rng = np.random.default_rng(s)
        frame = table(n, rng)
        y = draw_scores(np.full(n, 0.7), rng, kind)
        for c in controls:
            any_false[c] += search(frame, y, c, min_n, seed=s)[0] > 0
    return {c: v / len(sims) for c, v in any_false.items()}


def planted(sims: range, n_slice: int, shape: str, controls: list[str], kind: str = "binary",
            effect: float = 0.10, n: int = 6000) -> dict[str, float]:
    """Recall of a planted slice of about ``n_slice`` of ``n`` rows.

    single: ``channel = c0`` (share n_slice / n) scores ``effect`` lower. pair: ``channel = c0 and
    language = l0`` does (each value has share sqrt(n_slice / n)), so each value alone is lower only
    by the pair's share of it (1.8 points for 200 of 6,000 rows)."""
    hits = dict.fromkeys(controls, 0)
    share = n_slice / n if shape == "single" else float(np.sqrt(n_slice / n))
    truth = "channel = c0" if shape == "single" else "channel = c0 and language = l0"
    for s in sims:
        rng = np.random.default_rng(10_000 + s)
        frame = table(n, rng, share)
        bad = (frame["channel"] == "c0").to_numpy()
        if shape == "pair":
            bad = bad & (frame["language"] == "l0").to_numpy()
        y = draw_scores(np.where(bad, 0.7 - effect, 0.7), rng, kind)
        for c in controls:
            hits[c] += truth in search(frame, y, c, seed=s)[1]
    return {c: v / len(sims) for c, v in hits.items()}


def corpus_rows(n: int, rng: np.random.Generator, bad: np.ndarray | None = None, kind: str = "auroc") -> pd.DataFrame:
    """Binary labels with confidences. auroc: the positive-class probability is the label's side plus
    normal noise of sd 0.22 (AUROC about 0.93), sd 0.6 on ``bad`` rows (about 0.70 there). ece:
    confidences uniform on [0.5, 1], right with that probability, and on ``bad`` rows 15 points less."""
    bad = np.zeros(n, dtype=bool) if bad is None else bad
    y = rng.integers(0, 2, n)
    if kind == "auroc":
        p = np.clip(0.5 + (y - 0.5) * 0.5 + rng.normal(0, np.where(bad, 0.6, 0.22)), 0.01, 0.99)
        out = (p > 0.5).astype(int)
        conf = np.where(out == 1, p, 1 - p)
    else:
        conf = rng.uniform(0.5, 1.0, n)
        out = np.where(rng.random(n) < np.where(bad, conf - 0.15, conf), y, 1 - y)
    return pd.DataFrame({"target": y.astype(str), "output": out.astype(str), "confidence": conf})


def corpus_search(frame: pd.DataFrame, rows: pd.DataFrame, metric: str, control: str, seed: int) -> tuple[int, set[str]]:
    from gengap.analysis.corpus_slices import find_corpus_slices

    found = find_corpus_slices(frame, rows, metric, control="none" if control == "naive" else control, top=0,
                               n_resamples=100, seed=seed)
    return found.n_significant, set(found.significant["description"])


def share(hits: int, sims: int) -> str:
    """``hits / sims`` with its Clopper-Pearson 95% interval."""
    from gengap.analysis.intervals import proportion_ci

    lo, hi = proportion_ci(hits, sims)
    return f"{hits / sims:.3f} [{float(lo):.3f}, {float(hi):.3f}]"


def corpus_figures(sims: int, rsims: int, parts: tuple[str, ...] = ("auroc", "ece", "recall")) -> None:
    """``parts``: the null runs of ``auroc`` and ``ece``, and ``recall`` (ECE's first: the slowest to settle)."""
    controls = ["bh", "split", "naive"]
    print("Corpus metrics, null data: share of searches with any significant slice (promise: <= 0.05;"
          " Clopper-Pearson 95% intervals)")
    print(f"  {'setting':<34} {'bh':>21} {'split':>21} {'naive':>21}")
    naive_sims = min(sims, 20)  # the naive search finds a slice in every null run; 20 show it
    for metric, n, count in (("auroc", 1500, sims), ("ece", 1500, sims)):
        if metric not in parts:
            continue
        hits = dict.fromkeys(controls, 0)
        for s in range(count):
            rng = np.random.default_rng(20_000 + s)
            frame = table(n, rng)
            rows = corpus_rows(n, rng, kind=metric)
            for c in controls if s < naive_sims else controls[:2]:
                hits[c] += corpus_search(frame, rows, metric, c, s)[0] > 0
        print(f"  {f'{metric}, {n:,} rows ({count} sims)':<34} "
              + " ".join(f"{share(hits[c], count if c != 'naive' else naive_sims):>21}" for c in controls), flush=True)
    print(f"  (naive: the first {naive_sims} simulations only)")
    if "recall" not in parts:
        return
    print(f"\nCorpus metrics, planted slices in 3,000 rows: recall (share of {rsims} simulations reporting exactly it;"
          " the naive search's recall is no test of it)")
    print(f"  {'slice':<34} {'bh':>21} {'split':>21}")
    controls = ["bh", "split"]
    for metric, shape, n_slice in (("ece", "single", 300), ("auroc", "single", 300), ("auroc", "pair", 300)):
        n = 3000
        part = n_slice / n if shape == "single" else float(np.sqrt(n_slice / n))
        truth = "channel = c0" if shape == "single" else "channel = c0 and language = l0"
        hits = dict.fromkeys(controls, 0)
        for s in range(rsims):
            rng = np.random.default_rng(30_000 + s)
            frame = table(n, rng, part)
            bad = (frame["channel"] == "c0").to_numpy()
            if shape == "pair":
                bad = bad & (frame["language"] == "l0").to_numpy()
            rows = corpus_rows(n, rng, bad, kind=metric)
            for c in controls:
                hits[c] += truth in corpus_search(frame, rows, metric, c, s)[1]
        what = "AUROC 0.93 -> 0.70" if metric == "auroc" else "ECE +15 points"
        print(f"  {f'{shape}, {n_slice} rows, {what}':<34} "
              + " ".join(f"{share(hits[c], rsims):>21}" for c in controls), flush=True)


# ------------------------------------------------------------------------------------------- power
def exact_power(n_slice: int, n: int, base: float, effect: float, level: float, *, randomized: bool = False) -> float:
    """Power of the one-sided Fisher exact test (the search's test of 0/1 scores) of a slice of
    ``n_slice`` of ``n`` rows scoring ``base - effect`` against the rest at ``base``, at ``level``.

    ``randomized``: the randomized conditional test that uses its level exactly (uniformly most
    powerful unbiased for "the slice's odds are lower"): no test of this question does better.
    Computed exactly over every (hits inside, hits outside) of non-negligible probability; the
    hypergeometric tails by log-gamma and cumulative sums (checked against scipy below)."""
    from scipy.special import gammaln
    from scipy.stats import binom

    n_rest = n - n_slice

    def support(k: int, p: float) -> np.ndarray:
        lo, hi = binom.ppf([1e-13, 1 - 1e-13], k, p)
        return np.arange(max(int(lo) - 1, 0), min(int(hi) + 2, k + 1))

    x, y = support(n_slice, base - effect), support(n_rest, base)
    px, py = binom.pmf(x, n_slice, base - effect), binom.pmf(y, n_rest, base)

    def lchoose(a: float, b: np.ndarray) -> np.ndarray:
        return gammaln(a + 1) - gammaln(b + 1) - gammaln(a - b + 1)

    power = 0.0
    xs = np.arange(n_slice + 1)
    for t in np.unique(x[:, None] + y[None, :]):  # condition on the total of hits t
        lo = max(0, t - n_rest)
        k = xs[(xs >= lo) & (xs <= min(t, n_slice))]
        logp = lchoose(n_slice, k) + lchoose(n_rest, t - k) - lchoose(n, np.array(t))
        pmf = np.exp(logp - logp.max())
        pmf /= pmf.sum()
        cdf = np.cumsum(pmf)
        reject = np.zeros(n_slice + 1)
        reject[k[cdf <= level]] = 1.0
        if randomized:  # the first value not rejected is rejected with the chance that makes the level exact
            edge = np.flatnonzero(cdf > level)[0]
            reject[k[edge]] = (level - (cdf[edge] - pmf[edge])) / pmf[edge]
        inside = (t - x >= y[0]) & (t - x <= y[-1])
        power += float(np.sum(px[inside] * reject[x[inside]] * py[t - x[inside] - y[0]]))
    return power


def check_exact_tail() -> None:
    """The log-gamma tails of :func:`exact_power` against scipy's hypergeometric at a few points."""
    import scipy.stats
    from scipy.special import gammaln

    for n, n_slice, t, x in ((6000, 200, 4180, 120), (6000, 800, 4100, 500), (2000, 30, 1400, 12)):
        k = np.arange(max(0, t - (n - n_slice)), x + 1)
        lc = gammaln(n_slice + 1) - gammaln(k + 1) - gammaln(n_slice - k + 1)
        lc += gammaln(n - n_slice + 1) - gammaln(t - k + 1) - gammaln(n - n_slice - t + k + 1)
        lc -= gammaln(n + 1) - gammaln(t + 1) - gammaln(n - t + 1)
        ours, theirs = float(np.exp(lc).sum()), float(scipy.stats.hypergeom.cdf(x, n, t, n_slice))
        assert abs(ours - theirs) <= 1e-9 * max(theirs, 1e-300) + 1e-300, (ours, theirs)


def slice_pvalues(frame: pd.DataFrame, y: np.ndarray, min_n: int = 30) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Every slice the search tests (order 2), its one-sided Fisher p-value, its order, and for a
    pair whether one of its parts scores below the rest (the search's own enumeration and test)."""
    from gengap.analysis._slice_core import _below_p, _enumerate, _features, _gather, _Stats

    features, _ = _features(frame, list(frame.columns), max_values=1000, n_bins=5)
    found = _enumerate(features, y, 2, min_n)
    st = _gather(found)
    total = _Stats(np.array([float(len(y))]), np.array([y.sum()]), np.array([(y**2).sum()]))
    p = _below_p(st, total - st, True)
    rest = total - st
    below = st.s / st.n < rest.s / rest.n
    where = {cond: i for i, cond in enumerate(found.conditions)}
    order = np.array([len(c) for c in found.conditions])
    promising = np.array([len(c) == 1 or any(below[where[(part,)]] for part in c if (part,) in where)
                          for c in found.conditions])
    return found.descriptions, p, order, promising


def procedures(p: np.ndarray, order: np.ndarray, promising: np.ndarray, alpha: float = 0.05) -> dict[str, np.ndarray]:
    """Which slices each way of controlling false discoveries calls significant."""
    from gengap.analysis.intervals import adjust_pvalues

    m = len(p)
    out = {"bh": adjust_pvalues(p, "bh") <= alpha, "bonferroni": p <= alpha / m}
    m1, m2 = int((order == 1).sum()), int((order == 2).sum())
    weight = np.where(order == 1, m / (2 * max(m1, 1)), m / (2 * max(m2, 1)))  # each order gets half of alpha
    out["weighted"] = adjust_pvalues(np.minimum(p / weight, 1.0), "bh") <= alpha
    gated = np.zeros(m, dtype=bool)
    if promising.any():
        gated[promising] = adjust_pvalues(p[promising], "bh") <= alpha
    out["gated"] = gated
    return out


POWER_PROCEDURES = ["bh", "bonferroni", "weighted", "gated"]


def power_figures(sims: int, null_sims: int, *, dev: bool) -> None:
    """Recall of a 10-point slice of 0/1 scores against the best any test could do, by slice size and
    base accuracy; other ways of controlling false discoveries on the same p-values; their null rates."""
    check_exact_tail()
    null_seed, recall_seed = (70_000, 80_000) if dev else (40_000, 50_000)
    n, effect, alpha = 6000, 0.10, 0.05
    print(f"Seeds: null {null_seed}+, recall {recall_seed}+ ({'development: looked at' if dev else 'fresh: reported'})")
    # null data at 6,000 rows: the share of searches with any significant slice, for each procedure
    any_false = dict.fromkeys([*POWER_PROCEDURES, "search", "naive"], 0)
    tested = []
    for s in range(null_sims):
        rng = np.random.default_rng(null_seed + s)
        frame = table(n, rng)
        y = draw_scores(np.full(n, 0.7), rng, "binary")
        _, p, order, promising = slice_pvalues(frame, y)
        tested.append(len(p))
        for name, sig in procedures(p, order, promising, alpha).items():
            any_false[name] += bool(sig.any())
        any_false["naive"] += bool((p < alpha).any())
        any_false["search"] += find_slices(frame, y, order=2, top=0).n_significant > 0
    m = int(np.median(tested))
    print(f"\nNull data, 6,000 rows, 0/1 scores at 70%, order 2 (median {m} slices tested): share of {null_sims} "
          "searches with any significant slice (promise: <= 0.05)")
    for name in ["search", *POWER_PROCEDURES, "naive"]:
        label = "find_slices (bh, reported)" if name == "search" else name
        print(f"  {label:<28} {share(any_false[name], null_sims)}")

    level = alpha / m
    print(f"\nPlanted 10-point slice of 0/1 scores in {n:,} rows: recall with Clopper-Pearson 95% intervals "
          f"(simulations per row in brackets)")
    print(f"  exact: power of the one-sided Fisher test of the planted slice alone (no search) at alpha = {alpha}, "
          f"and at BH's first threshold alpha / {m}; UMPU: the randomized exact-level test (the ceiling)")
    print("  search: find_slices (BH) reports exactly the planted slice; bh .. gated: the planted slice is "
          "significant under that procedure (same p-values, before the conjunction rule); weighted: BH with\n"
          "  half of alpha for single values, half for pairs; gated: pairs tested only under a part that scores "
          "below the rest (no proof of error control)")
    head = f"  {'slice (simulations)':<28} {'exact a':>7} {'UMPU a':>7} {'exact a/m':>9} {'UMPU a/m':>8}  {'search':>21}"
    print(head + "".join(f" {name:>10}" for name in POWER_PROCEDURES))
    grid = [(0.7, shape, size) for shape in ("single", "pair") for size in (200, 400, 800)]
    grid += [(base, shape, size) for base in (0.6, 0.8, 0.9) for shape in ("single", "pair") for size in (200, 400, 800)]
    for base, shape, size in grid:
        count = sims if base == 0.7 else max(sims // 2, 1)  # the benchmark's base accuracy gets the most
        hits = dict.fromkeys(["search", *POWER_PROCEDURES], 0)
        part = size / n if shape == "single" else float(np.sqrt(size / n))
        truth = "channel = c0" if shape == "single" else "channel = c0 and language = l0"
        for s in range(count):
            rng = np.random.default_rng(recall_seed + s)
            frame = table(n, rng, part)
            bad = (frame["channel"] == "c0").to_numpy()
            if shape == "pair":
                bad = bad & (frame["language"] == "l0").to_numpy()
            y = draw_scores(np.where(bad, base - effect, base), rng, "binary")
            names, p, order, promising = slice_pvalues(frame, y)
            at = names.index(truth) if truth in names else None
            for name, sig in procedures(p, order, promising, alpha).items():
                hits[name] += at is not None and bool(sig[at])
            hits["search"] += truth in set(find_slices(frame, y, order=2, top=0).significant["description"])
        bounds = [exact_power(size, n, base, effect, a, randomized=r) for a in (alpha, level) for r in (False, True)]
        label = f"{shape}, {size}, {100 * base:.0f}%->{100 * (base - effect):.0f}% ({count})"
        print(f"  {label:<28} {bounds[0]:7.3f} {bounds[1]:7.3f} {bounds[2]:9.3f} {bounds[3]:8.3f}  "
              f"{share(hits['search'], count):>21}" + "".join(f" {hits[k] / count:10.3f}" for k in POWER_PROCEDURES),
              flush=True)

    print(f"\nSmallest slice (rows of {n:,}) whose 10-point drop the exact Fisher test finds with power >= 0.9, "
          f"alone at alpha = {alpha} and at alpha / {m}")
    for base in (0.6, 0.7, 0.8, 0.9, 0.95):
        found = []
        for a in (alpha, level):
            lo, hi = 10, 3000
            while hi - lo > 5:
                mid = (lo + hi) // 2
                lo, hi = (lo, mid) if exact_power(mid, n, base, effect, a) >= 0.9 else (mid, hi)
            found.append(hi)
        print(f"  base {100 * base:.0f}% -> {100 * (base - effect):.0f}%: alone {found[0]:>5} rows, in the search {found[1]:>5} rows")


def conjunction_at_scale(n: int, seeds: int) -> None:
    """The pair planted by :func:`speed` at ``n`` rows, several seeds: what the search reports."""
    kept_extra = 0
    for s in range(seeds):
        rng = np.random.default_rng(100 + s)
        frame = pd.DataFrame({f"c{i}": rng.integers(0, k, n).astype(str) for i, k in enumerate((3, 5, 8, 12))})
        frame["length"] = rng.gamma(3.0, 10.0, n).round()
        bad = ((frame["c0"] == "1") & (frame["c2"] == "3")).to_numpy()
        y = (rng.random(n) < np.where(bad, 0.6, 0.7)).astype(np.float64)
        found = set(find_slices(frame, y, order=2).significant["description"])
        extra = sorted(found - {"c0 = 1 and c2 = 3"})
        kept_extra += bool(extra)
        print(f"  seed {s}: {'planted pair reported' if 'c0 = 1 and c2 = 3' in found else 'planted pair MISSED'}; "
              f"other significant slices: {', '.join(extra) or 'none'}")
    print(f"  searches reporting any slice besides the planted pair: {kept_extra} of {seeds}")


def speed(n: int) -> None:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({f"c{i}": rng.integers(0, k, n).astype(str) for i, k in enumerate((3, 5, 8, 12))})
    frame["length"] = rng.gamma(3.0, 10.0, n).round()
    frame["similarity"] = rng.random(n)
    bad = ((frame["c0"] == "1") & (frame["c2"] == "3")).to_numpy()
    y = (rng.random(n) < np.where(bad, 0.6, 0.7)).astype(np.float64)
    for control in ("bh", "split"):
        t0 = time.perf_counter()
        found = find_slices(frame, y, order=2, control=control)  # type: ignore[arg-type]
        took = time.perf_counter() - t0
        print(f"  {n:,} rows x 6 columns, order 2, {control:<5}: {took:6.2f} s  ({found.n_tested:,} slices tested, "
              f"{len(found.significant)} significant: {', '.join(found.significant['description'][:2])})")


def similarity(n_train: int, n_test: int, exact: bool | None = None) -> None:
    """train_similarity at scale: synthetic texts of 6-16 words drawn from a Zipf law over 50,000
    words (the nearest neighbour found through the rarer terms, its recall against the exact search
    measured on 300 test rows)."""
    from gengap.analysis.similarity import nearest_train

    rng = np.random.default_rng(0)

    def texts(n: int) -> list[str]:
        ranks = rng.zipf(1.3, size=(n, 16)) % 50_000
        lengths = rng.integers(6, 17, n)
        return [" ".join(f"w{x}" for x in r[:k]) for r, k in zip(ranks, lengths)]

    train, test = texts(n_train), texts(n_test)
    t0 = time.perf_counter()
    found = nearest_train(train, test, exact=exact)
    took = time.perf_counter() - t0
    print(f"  {n_train:,} train x {n_test:,} test: {took:6.1f} s  ({found.note()})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--sims", type=int, default=1000, help="null simulations (half held out)")
    parser.add_argument("--recall-sims", type=int, default=100)
    parser.add_argument("--similarity", nargs=2, type=int, metavar=("N_TRAIN", "N_TEST"), default=None,
                        help="also time train_similarity at this size (the issue's: 1000000 100000)")
    parser.add_argument("--only-similarity", action="store_true", help="time train_similarity only")
    parser.add_argument("--corpus", action="store_true", help="slices on corpus metrics only")
    parser.add_argument("--corpus-sims", type=int, default=60, help="null simulations of the corpus search")
    parser.add_argument("--corpus-recall-sims", type=int, default=20)
    parser.add_argument("--corpus-parts", default="auroc,ece,recall",
                        help="with --corpus: which of the null runs (auroc, ece) and the recall runs (recall)")
    parser.add_argument("--power", action="store_true",
                        help="only: recall of 0/1 slices by size and base accuracy beside the exact power of any test")
    parser.add_argument("--power-sims", type=int, default=200, help="recall simulations per row of --power")
    parser.add_argument("--power-null-sims", type=int, default=1000, help="null simulations of --power")
    parser.add_argument("--dev", action="store_true", help="--power on the development seeds (looked at)")
    parser.add_argument("--conjunction-at-scale", type=int, default=0, metavar="SEEDS",
                        help="only: the planted pair at 1,000,000 rows with this many seeds")
    args = parser.parse_args()
    if args.corpus:
        t0 = time.perf_counter()
        corpus_figures(args.corpus_sims, args.corpus_recall_sims, tuple(args.corpus_parts.split(",")))
        print(f"\n(total {time.perf_counter() - t0:.0f} s)")
        return
    if args.power:
        t0 = time.perf_counter()
        power_figures(args.power_sims, args.power_null_sims, dev=args.dev)
        print(f"\n(total {time.perf_counter() - t0:.0f} s)")
        return
    if args.conjunction_at_scale:
        print("A pair planted at 1,000,000 rows (c0 = 1 and c2 = 3, 10 points lower): what BH reports")
        conjunction_at_scale(1_000_000, args.conjunction_at_scale)
        return
    sims = 100 if args.quick else args.sims
    rsims = 40 if args.quick else args.recall_sims
    controls = ["bh", "split", "naive"]
    t_start = time.perf_counter()
    if args.only_similarity:
        print("train_similarity (target: 1,000,000 train x 100,000 test under 5 minutes on 2 cores)")
        similarity(*(args.similarity or (1_000_000, 100_000)))
        return

    print("Null data: share of searches with any significant slice (promise: <= 0.05)")
    print(f"  {'setting':<44} {'bh':>7} {'split':>7} {'naive':>7}")
    half = sims // 2
    for label, sim_range in (("held out, 2,000 rows, 0/1 scores", range(half, sims)),
                             ("tuning, 2,000 rows, 0/1 scores", range(0, half))):
        r = null_rates(sim_range, 2000, controls)
        print(f"  {label + f' ({len(sim_range)} sims)':<44} {r['bh']:7.3f} {r['split']:7.3f} {r['naive']:7.3f}")
    small = max(50, sims // 5)
    r = null_rates(range(2000, 2000 + small), 2000, controls, kind="continuous")
    print(f"  {f'2,000 rows, token-F1-like scores ({small} sims)':<44} {r['bh']:7.3f} {r['split']:7.3f} {r['naive']:7.3f}")
    for min_n in (10, 100):
        r = null_rates(range(3000, 3000 + small), 2000, controls, min_n=min_n)
        print(f"  {f'2,000 rows, min_n = {min_n} ({small} sims)':<44} {r['bh']:7.3f} {r['split']:7.3f} {r['naive']:7.3f}")

    print(f"\nPlanted slices in 6,000 rows, 10-point effect: recall (share of {rsims} simulations reporting exactly it)")
    print(f"  {'slice':<44} {'bh':>7} {'split':>7} {'naive':>7}")
    for shape, n_slice, kind in (("single", 200, "continuous"), ("pair", 200, "continuous"),
                                 ("single", 200, "binary"), ("single", 400, "binary"), ("single", 800, "binary"),
                                 ("pair", 200, "binary"), ("pair", 400, "binary"), ("pair", 800, "binary")):
        r = planted(range(rsims), n_slice, shape, controls, kind)
        what = "0/1 at 70%" if kind == "binary" else "token-F1-like"
        print(f"  {f'{shape}, {n_slice} rows, {what}':<44} {r['bh']:7.3f} {r['split']:7.3f} {r['naive']:7.3f}")

    print("\nSpeed (target: 1,000,000 rows x 6 columns, order 2, under 30 s)")
    speed(100_000 if args.quick else 1_000_000)
    print("\ntrain_similarity (target: 1,000,000 train x 100,000 test under 5 minutes on 2 cores)")
    # the approximate search at a size that takes seconds (the exact one would be used below 2e9 pairs)
    similarity(*(args.similarity or ((20_000, 2_000) if args.quick else (100_000, 10_000))), exact=False)
    print(f"\n(total {time.perf_counter() - t_start:.0f} s)")


if __name__ == "__main__":
    main()
