"""Coverage of the intervals gengap prints, side by side with the plain percentile bootstrap and scipy.

For 0/1 scores the coverage of an interval that depends on the count of successes only is computed
exactly: the binomial probabilities of the counts whose interval holds the true rate, summed (no
Monte Carlo noise). The percentile bootstrap is random, so for each count it is run once with
``--boot`` resamples and weighted the same way. Paired and unpaired differences are simulated.

Sections (targets in brackets):

1. one rate, n x p: coverage of gengap (Clopper-Pearson), scipy's Wilson and the percentile
   bootstrap [>= 0.94; at p = 0 and 1 the interval holds the truth with width > 0], and gengap's
   median width over Wilson's [<= 1.10 where Wilson covers].
2. paired differences at several discordance rates (gengap: Newcombe's paired interval held to the
   exact McNemar interval), against the bootstrap of the -1/0/1 differences.
3. unpaired differences (gengap: Newcombe's hybrid interval), against the two-sample bootstrap.
4. false-positive rate at the 5% level of the paired tests on nulls with sparse discordance: exact
   McNemar, the "interval excludes 0" rule of the bootstrap, and the sign-flip permutation test [<= 0.05].
5. the percentile bootstrap of continuous scores by n (where gengap's MIN_BOOTSTRAP_N comes from).
6. cost: the new intervals next to the bootstrap figures of bench_bootstrap (1M 0/1 scores under
   1 s, 100k continuous under 5 s).

    python benchmarks/bench_coverage.py           # default: about two minutes on a loaded 2-core machine
    python benchmarks/bench_coverage.py --reps 20000 --boot 2000   # tighter Monte Carlo figures
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.stats

from gengap.analysis.intervals import (
    MIN_BOOTSTRAP_N,
    MIN_BOOTSTRAP_N_SKEWED,
    bootstrap_ci,
    mean_ci,
    newcombe_ci,
    paired_difference,
    paired_proportion_ci,
    paired_test,
    proportion_ci,
)

NS = [5, 20, 100, 1_000, 10_000]
PS = [0.0, 0.01, 0.1, 0.5, 0.9, 0.99, 1.0]
Z = scipy.stats.norm.ppf(0.975)


def wilson(k: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """scipy's Wilson interval (binomtest(...).proportion_ci(method="wilson")), one count at a time."""
    out = np.array([scipy.stats.binomtest(int(x), n).proportion_ci(method="wilson") for x in k])
    return out[:, 0], out[:, 1]


def support(n: int, p: float) -> tuple[np.ndarray, np.ndarray]:
    """Counts with binomial probability above 1e-12 and their probabilities."""
    k = np.arange(n + 1)
    pmf = scipy.stats.binom.pmf(k, n, p)
    keep = pmf > 1e-12
    return k[keep], pmf[keep] / pmf[keep].sum()


def weighted_median(values: np.ndarray, weights: np.ndarray) -> float:
    order = np.argsort(values)
    cum = np.cumsum(weights[order])
    return float(values[order][np.searchsorted(cum, 0.5)])


def one_rate(boot: int, rng: np.random.Generator) -> None:
    print("\n1. One rate: coverage of the true p (exact over counts), gengap | percentile bootstrap | scipy Wilson;"
          " width = gengap median width / Wilson's")
    print(f"{'n':>6} " + " ".join(f"{'p=' + format(p, 'g'):>22}" for p in PS))
    worst, ratios, scipy_diff = 1.0, [], 0.0
    for n in NS:
        cells = []
        for p in PS:
            k, w = support(n, p)
            lo, hi = proportion_ci(k, n)
            ref = np.array([scipy.stats.binomtest(int(x), n).proportion_ci(method="exact") for x in k[:50]])
            scipy_diff = max(scipy_diff, float(np.abs(ref[:, 0] - lo[:50]).max()), float(np.abs(ref[:, 1] - hi[:50]).max()))
            wl, wh = wilson(k, n)
            means = rng.binomial(n, np.broadcast_to(k[:, None] / n, (k.size, boot))) / n
            bl, bh = np.quantile(means, [0.025, 0.975], axis=1)
            def cover(a: np.ndarray, b: np.ndarray, w: np.ndarray = w, p: float = p) -> float:
                return float(np.sum(w[(a <= p + 1e-12) & (p - 1e-12 <= b)]))
            ours = cover(lo, hi)
            if p in (0.0, 1.0):
                ours = ours if np.all(hi - lo > 0) else 0.0
            worst = min(worst, ours)
            ratio = weighted_median(hi - lo, w) / weighted_median(wh - wl, w)
            ratios.append(ratio)
            cells.append(f"{ours:.3f}|{cover(bl, bh):.3f}|{cover(wl, wh):.3f} w{ratio:.2f}")
        print(f"{n:>6} " + " ".join(f"{c:>22}" for c in cells))
    print(f"   gengap's lowest coverage {worst:.3f} (target >= 0.94); median width ratio over all cells "
          f"{np.median(ratios):.2f} (target <= 1.10); largest |gengap - scipy exact| bound {scipy_diff:.1e}")


def paired(reps: int, boot: int, rng: np.random.Generator) -> None:
    print("\n2. Paired difference (same examples): coverage of the true difference, gengap | percentile bootstrap;"
          " w = gengap median width / bootstrap's")
    rates = [0.01, 0.05, 0.2]
    print(f"{'n':>6} {'discordance':>11} " + " ".join(f"{'only-a share ' + format(s, 'g'):>24}" for s in (0.5, 0.75, 1.0)))
    worst = 1.0
    for n in (20, 100, 1_000):
        for rate in rates:
            cells = []
            for share in (0.5, 0.75, 1.0):
                probs = np.array([0.6 - rate / 2, rate * share, rate * (1 - share), 0.4 - rate / 2])
                truth = probs[1] - probs[2]
                counts = rng.multinomial(n, probs, size=reps)
                lo, hi = paired_proportion_ci(counts[:, 0], counts[:, 1], counts[:, 2], n)
                ours = float(np.mean((lo <= truth + 1e-12) & (truth - 1e-12 <= hi)))
                worst = min(worst, ours)
                # bootstrap of the -1/0/1 differences: resample the counts of +1 and -1
                sub = counts[: min(reps, 2_000)]
                pv = np.stack([sub[:, 1], sub[:, 2], n - sub[:, 1] - sub[:, 2]], axis=1) / n
                draws = rng.multinomial(n, pv[:, None, :], size=(sub.shape[0], boot))
                means = (draws[..., 0] - draws[..., 1]) / n
                bl, bh = np.quantile(means, [0.025, 0.975], axis=1)
                theirs = float(np.mean((bl <= truth + 1e-12) & (truth - 1e-12 <= bh)))
                bw = np.median(bh - bl)
                width = np.median(hi[: sub.shape[0]] - lo[: sub.shape[0]]) / bw if bw > 0 else float("inf")
                cells.append(f"{ours:.3f}|{theirs:.3f} w{width:.2f}")
            print(f"{n:>6} {rate:>11g} " + " ".join(f"{c:>24}" for c in cells))
    print(f"   gengap's lowest paired coverage {worst:.3f} (target >= 0.94)")


def unpaired(reps: int, boot: int, rng: np.random.Generator) -> None:
    print("\n3. Unpaired difference (different examples, same n on both sides): gengap | percentile bootstrap")
    pairs = [(0.0, 0.0), (1.0, 1.0), (0.5, 0.5), (0.9, 0.5), (0.99, 0.9), (1.0, 0.9)]
    print(f"{'n':>6} " + " ".join(f"{f'{p1:g} vs {p2:g}':>16}" for p1, p2 in pairs))
    worst = 1.0
    for n in (5, 20, 100, 1_000):
        cells = []
        for p1, p2 in pairs:
            k1, k2 = rng.binomial(n, p1, size=reps), rng.binomial(n, p2, size=reps)
            lo, hi = newcombe_ci(k1, n, k2, n)
            truth = p1 - p2
            ok = (lo <= truth + 1e-12) & (truth - 1e-12 <= hi) & (hi - lo > 0)
            ours = float(np.mean(ok))
            worst = min(worst, ours)
            m = min(reps, 2_000)
            b1 = rng.binomial(n, np.broadcast_to(k1[:m, None] / n, (m, boot)))
            b2 = rng.binomial(n, np.broadcast_to(k2[:m, None] / n, (m, boot)))
            bl, bh = np.quantile((b1 - b2) / n, [0.025, 0.975], axis=1)
            theirs = float(np.mean((bl <= truth + 1e-12) & (truth - 1e-12 <= bh) & (bh - bl > 0)))
            cells.append(f"{ours:.3f}|{theirs:.3f}")
        print(f"{n:>6} " + " ".join(f"{c:>16}" for c in cells))
    print(f"   gengap's lowest unpaired coverage {worst:.3f} (target >= 0.94; width > 0 required)")


def false_positives(reps: int, boot: int, rng: np.random.Generator, sims: int = 400) -> None:
    print("\n4. False-positive rate at the 5% level, paired nulls with sparse discordance (target <= 0.05)")
    print(f"{'n':>6} {'discordance':>11} {'exact McNemar':>14} {'bootstrap CI':>13} {'gengap CI':>10} {'sign-flip':>10}")
    for n in (50, 200, 1_000):
        for rate in (0.01, 0.03, 0.1):
            probs = np.array([0.5 - rate / 2, rate / 2, rate / 2, 0.5 - rate / 2])
            counts = rng.multinomial(n, probs, size=reps)
            b, c = counts[:, 1], counts[:, 2]
            m = b + c
            p = np.ones(reps)
            has = m > 0
            p[has] = np.minimum(1.0, 2 * scipy.stats.binom.cdf(np.minimum(b, c)[has], m[has], 0.5))
            p[has & (b == c)] = 1.0
            mcnemar = float(np.mean(p < 0.05))
            lo, hi = paired_proportion_ci(counts[:, 0], b, c, n)
            ours = float(np.mean((lo > 0) | (hi < 0)))
            sub = counts[: min(reps, 2_000)]
            pv = np.stack([sub[:, 1], sub[:, 2], n - sub[:, 1] - sub[:, 2]], axis=1) / n
            draws = rng.multinomial(n, pv[:, None, :], size=(sub.shape[0], boot))
            means = (draws[..., 0] - draws[..., 1]) / n
            bl, bh = np.quantile(means, [0.025, 0.975], axis=1)
            boot_fp = float(np.mean((bl > 0) | (bh < 0)))
            # sign-flip on continuous sparse differences: most 0, a few +-U(0, 1)
            flips = []
            for _ in range(sims):
                d = np.where(rng.random(n) < rate, rng.uniform(-1, 1, n), 0.0)
                flips.append(paired_test(d, np.zeros(n), n_resamples=999, seed=rng).p_value < 0.05)
            print(f"{n:>6} {rate:>11g} {mcnemar:>14.3f} {boot_fp:>13.3f} {ours:>10.3f} {np.mean(flips):>10.3f}")
    print(f"   (sign-flip: {sims} simulations per row, Monte Carlo error about +-{2 * np.sqrt(0.05 * 0.95 / sims):.3f})")


def continuous(reps: int, boot: int, rng: np.random.Generator) -> None:
    print("\n5. Percentile bootstrap of continuous scores in [0, 1]: coverage of the true mean by n "
          f"({min(reps, 1_000)} samples, {boot} resamples each)")

    def f1_like(size: tuple[int, int]) -> np.ndarray:
        kind = rng.choice(3, size=size, p=[0.40, 0.25, 0.35])
        return np.where(kind == 0, 0.0, np.where(kind == 1, 1.0, rng.beta(2, 2, size)))

    dists = {
        "token-F1-like (40% 0, 25% 1, 35% Beta(2,2))": (f1_like, 0.25 + 0.35 * 0.5),
        "uniform": (lambda size: rng.random(size), 0.5),
        "skewed Beta(0.5, 4) (skewness 1.7)": (lambda size: rng.beta(0.5, 4, size), 0.5 / 4.5),
    }
    sizes = [10, 20, 30, 50, 100, 200]
    r = min(reps, 1_000)
    print(f"{'distribution':46} " + " ".join(f"{'n=' + str(n):>7}" for n in sizes))
    for label, (draw, mean) in dists.items():
        cells = []
        for n in sizes:
            hits, chunk = 0, max(1, 2_000_000 // (boot * n))
            for start in range(0, r, chunk):
                k = min(chunk, r - start)
                x = draw((k, n))
                idx = rng.integers(0, n, size=(k, boot, n))
                means = x[np.arange(k)[:, None, None], idx].mean(axis=2)
                lo, hi = np.quantile(means, [0.025, 0.975], axis=1)
                hits += int(np.sum((lo <= mean) & (mean <= hi)))
            cells.append(f"{hits / r:7.3f}")
        print(f"{label:46} " + " ".join(cells))
    print(f"   gengap warns below MIN_BOOTSTRAP_N = {MIN_BOOTSTRAP_N} examples, and below {MIN_BOOTSTRAP_N_SKEWED} when the "
          "sample skewness exceeds 1 (Monte Carlo error about +-0.007)")


def cost() -> None:
    print("\n6. Cost (one call, seconds)")
    rng = np.random.default_rng(0)
    binary = (rng.random(1_000_000) < 0.7).astype(np.float64)
    cont = rng.gamma(2.0, 0.5, size=100_000)
    other = (rng.random(1_000_000) < 0.69).astype(np.float64)
    rows = [
        ("1,000,000 0/1 scores", "bootstrap_ci (10,000 resamples)", lambda: bootstrap_ci(binary, seed=0), "< 1 s"),
        ("1,000,000 0/1 scores", "mean_ci (Clopper-Pearson)", lambda: mean_ci(binary), ""),
        ("1,000,000 0/1 pairs", "paired_difference (MOVER paired)", lambda: paired_difference(binary, other), ""),
        ("1,000,000 0/1 pairs", "paired_test (exact McNemar)", lambda: paired_test(binary, other), ""),
        ("100,000 continuous scores", "bootstrap_ci (10,000 resamples)", lambda: bootstrap_ci(cont, seed=0), "< 5 s"),
        ("100,000 continuous pairs", "paired_test (sign-flip + bootstrap)", lambda: paired_test(cont, cont[::-1], seed=0), ""),
    ]
    print(f"   {'scores':28} {'call':38} {'wall s':>8} {'cpu s':>8}  target (wall, idle machine)")
    for label, what, fn, target in rows:
        t, c = time.perf_counter(), time.process_time()
        fn()
        print(f"   {label:28} {what:38} {time.perf_counter() - t:8.3f} {time.process_time() - c:8.3f}  {target}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=4_000, help="simulated samples per cell (sections 2-5)")
    parser.add_argument("--boot", type=int, default=500, help="bootstrap resamples per simulated sample")
    parser.add_argument("--only", type=int, nargs="*", help="run only these sections (1-6)")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    sections = [lambda: one_rate(args.boot, rng), lambda: paired(args.reps, args.boot, rng),
                lambda: unpaired(args.reps, args.boot, rng), lambda: false_positives(args.reps, args.boot, rng),
                lambda: continuous(args.reps, args.boot, rng), cost]
    for i, run in enumerate(sections, 1):
        if not args.only or i in args.only:
            t = time.perf_counter()
            run()
            print(f"   ({time.perf_counter() - t:.0f} s)")


if __name__ == "__main__":
    main()
