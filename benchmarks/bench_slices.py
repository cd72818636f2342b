"""Slice search: recall of planted slices, false discoveries on null data, and speed.

    python benchmarks/bench_slices.py            # the figures of the README and the notes (~3 min, 2 cores)
    python benchmarks/bench_slices.py --quick    # smoke run: 100 simulations, 100,000 rows for speed
    python benchmarks/bench_slices.py --only-similarity --similarity 1000000 100000   # train_similarity at scale
    python benchmarks/bench_slices.py --corpus   # slices on corpus metrics (AUROC, ECE): null and recall (~15 min loaded)
    python benchmarks/bench_slices.py --conjunction-at-scale 5   # the planted pair at 1,000,000 rows, 5 seeds

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


def corpus_figures(sims: int, rsims: int) -> None:
    controls = ["bh", "split", "naive"]
    print("Corpus metrics, null data: share of searches with any significant slice (promise: <= 0.05)")
    print(f"  {'setting':<44} {'bh':>7} {'split':>7} {'naive':>7}")
    for metric, n, count in (("auroc", 1500, sims), ("ece", 1500, max(10, sims // 2))):
        hits = dict.fromkeys(controls, 0)
        for s in range(count):
            rng = np.random.default_rng(20_000 + s)
            frame = table(n, rng)
            rows = corpus_rows(n, rng, kind=metric)
            for c in controls:
                hits[c] += corpus_search(frame, rows, metric, c, s)[0] > 0
        print(f"  {f'{metric}, {n:,} rows ({count} sims)':<44} {hits['bh'] / count:7.3f} {hits['split'] / count:7.3f} "
              f"{hits['naive'] / count:7.3f}")
    print(f"\nCorpus metrics, planted slices in 3,000 rows: recall (share of {rsims} simulations reporting exactly it;"
          " the naive search's recall is no test of it)")
    print(f"  {'slice':<44} {'bh':>7} {'split':>7}")
    controls = ["bh", "split"]
    for metric, shape, n_slice in (("auroc", "single", 300), ("auroc", "pair", 300), ("ece", "single", 300)):
        n = 3000
        share = n_slice / n if shape == "single" else float(np.sqrt(n_slice / n))
        truth = "channel = c0" if shape == "single" else "channel = c0 and language = l0"
        hits = dict.fromkeys(controls, 0)
        for s in range(rsims):
            rng = np.random.default_rng(30_000 + s)
            frame = table(n, rng, share)
            bad = (frame["channel"] == "c0").to_numpy()
            if shape == "pair":
                bad = bad & (frame["language"] == "l0").to_numpy()
            rows = corpus_rows(n, rng, bad, kind=metric)
            for c in controls:
                hits[c] += truth in corpus_search(frame, rows, metric, c, s)[1]
        what = "AUROC 0.93 -> 0.70" if metric == "auroc" else "ECE +15 points"
        print(f"  {f'{shape}, {n_slice} rows, {what}':<44} {hits['bh'] / rsims:7.3f} {hits['split'] / rsims:7.3f}")


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
    parser.add_argument("--conjunction-at-scale", type=int, default=0, metavar="SEEDS",
                        help="only: the planted pair at 1,000,000 rows with this many seeds")
    args = parser.parse_args()
    if args.corpus:
        t0 = time.perf_counter()
        corpus_figures(args.corpus_sims, args.corpus_recall_sims)
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
