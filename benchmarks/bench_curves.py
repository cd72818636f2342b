"""Score curves: speed of a curve with its break point, and coverage of the break, halving and valley intervals.

    python benchmarks/bench_curves.py            # speed + coverage, 200 simulations per setting (~3 min)
    python benchmarks/bench_curves.py --quick    # smoke run: 100,000 rows, 40 simulations
    python benchmarks/bench_curves.py --sims 300 --sim-resamples 10000    # coverage at full resampling (~15 min)

Speed: 1,000,000 rows x 50 bins, 0/1 scores, 10,000 resamples (target < 5 s); also 0/1 scores in
10 quantile bins of a continuous axis, and scores with few distinct values (counts resampling).

Coverage (target >= 0.9 at nominal 0.95): data simulated from a known curve, the interval
recomputed on each draw, and the share of draws whose interval holds the truth printed:

- break point: in-range score 0.9 on levels 1-5, levels 6-10 below it (sharp: 0.6 at level 6;
  gentle: 0.84; subtle: 0.87). The truth is level 6, the first level whose true score is lower.
- halving point: where the true (non-increasing) curve, linear between levels, reaches half of
  the in-range score.
- critical complexity: a valley whose true gap peaks at level 4 (clear: gaps .05 .2 .35 .5 .3 .15;
  close second: .05 .2 .42 .47 .3 .15).
- clustered curves (``--clustered``): the same break curves with the rows of each level in passages of
  20 whose rates vary (beta, intraclass correlation 0.2), and a flat curve (no break: the share of
  draws that name one is the false-break rate); the curve with the passages as clusters (whole passages
  resampled) next to the same call taking rows as independent.

    python benchmarks/bench_curves.py --clustered --sims 200    # only the clustered coverage (~5 min loaded)
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from gengap.analysis._monotone import first_crossing
from gengap.analysis.curves import score_curve
from gengap.analysis.valley import generalization_valley

LEVELS = np.arange(1, 11)


def speed(n: int, n_bins: int, n_resamples: int) -> None:
    rng = np.random.default_rng(0)
    axis = rng.integers(1, n_bins + 1, n)
    p = np.where(axis <= n_bins // 2, 0.9, np.maximum(0.9 - 0.05 * (axis - n_bins // 2), 0.05))
    scores = (rng.random(n) < p).astype(np.float64)
    cont_axis = rng.gamma(3.0, 10.0, n)
    few = np.round(scores * rng.random(n), 1)  # 11 distinct values: token-F1-like
    print(f"Speed ({n:,} rows, {n_resamples:,} resamples; each the best of 3)")
    for label, s, a, bins in [(f"0/1 scores, {n_bins} bins (distinct values)", scores, axis, n_bins),
                              ("0/1 scores, continuous axis, 10 quantile bins", scores, cont_axis, "auto"),
                              (f"scores with 11 distinct values, {n_bins} bins", few, axis, n_bins)]:
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            c = score_curve(s, a, bins=bins, train_range=(1, n_bins // 2) if bins != "auto" else None,
                            n_resamples=n_resamples, seed=0)
            times.append(time.perf_counter() - t0)
        print(f"  {label:<52} {min(times):6.2f} s   ({len(c.bins)} bins, break at {c.break_value}, "
              f"half at {c.half_value if c.half_value is None else round(c.half_value, 2)})")


def _truth_half(p: np.ndarray, in_range: np.ndarray) -> float:
    ref = p[in_range].mean()
    return float(first_crossing(LEVELS.astype(float), p[None, :], np.array([ref / 2]))[0])


def coverage_break(name: str, p: np.ndarray, n_bin: int, sims: int, n_resamples: int) -> None:
    rng = np.random.default_rng(1)
    in_range = LEVELS <= 5
    true_break = 6.0
    true_half = _truth_half(p, in_range)
    axis = np.repeat(LEVELS, n_bin)
    hit_break = hit_half = found = right = 0
    widths = []
    t0 = time.perf_counter()
    for i in range(sims):
        s = (rng.random(axis.size) < p[axis - 1]).astype(float)
        c = score_curve(s, axis, train_range=(1, 5), n_resamples=n_resamples, seed=i)
        if c.break_value is not None:
            found += 1
            right += c.break_value == true_break
            hi = np.inf if c.break_high is None else c.break_high
            hit_break += c.break_low <= true_break <= hi
        if c.half_value is not None:
            lo = c.half_low if c.half_low is not None else -np.inf
            hi = c.half_high if c.half_high is not None else np.inf
            hit_half += lo <= true_half <= hi
            widths.append(hi - lo)
    took = time.perf_counter() - t0
    print(f"  {name:<34} break found {found / sims:6.1%}, at 6 {right / sims:6.1%}, coverage {hit_break / sims:6.1%}  "
          f"halving ({true_half:.2f}) coverage {hit_half / sims:5.1%}, median width {np.median(widths):.2f}  "
          f"[{sims} sims, {took:.0f} s]")


def coverage_break_clustered(name: str, p: np.ndarray, n_bin: int, m: int, icc: float, sims: int, n_resamples: int,
                             seed: int = 3) -> None:
    """Break and halving coverage on rows in clusters of ``m`` within each level, with and without clusters."""
    rng = np.random.default_rng([seed, n_bin, m, int(100 * icc), int(1000 * p[5])])
    in_range = LEVELS <= 5
    flat = bool(np.all(p == p[0]))
    # the curve names a whole-number axis's halving point as the first level at or past the crossing
    true_half = None if flat else float(np.ceil(_truth_half(p, in_range) - 1e-9))
    axis = np.repeat(LEVELS, n_bin)
    per_level = n_bin // m
    codes = np.repeat(np.arange(LEVELS.size * per_level), m)
    k = (1 - icc) / icc
    stats = {kind: {"found": 0, "hit": 0, "half": 0, "n_half": 0} for kind in ("clusters", "rows")}
    t0 = time.perf_counter()
    for i in range(sims):
        mean = np.repeat(p, per_level)
        rates = rng.beta(np.maximum(mean * k, 1e-3), np.maximum((1 - mean) * k, 1e-3))
        s = (rng.random(axis.size) < np.repeat(rates, m)).astype(float)
        for kind, clusters in (("clusters", codes), ("rows", None)):
            c = score_curve(s, axis, train_range=(1, 5), n_resamples=n_resamples, seed=i, clusters=clusters)
            st = stats[kind]
            if c.break_value is not None:
                st["found"] += 1
                hi = np.inf if c.break_high is None else c.break_high
                st["hit"] += (not flat) and c.break_low <= 6.0 <= hi
            if true_half is not None and c.half_value is not None:
                lo = c.half_low if c.half_low is not None else -np.inf
                hi = c.half_high if c.half_high is not None else np.inf
                st["n_half"] += 1
                st["half"] += lo <= true_half <= hi
    took = time.perf_counter() - t0
    parts = []
    for kind, st in stats.items():
        if flat:
            parts.append(f"{kind}: false break {st['found'] / sims:6.1%}")
        else:
            half = st["half"] / st["n_half"] if st["n_half"] else float("nan")
            parts.append(f"{kind}: break coverage {st['hit'] / sims:6.1%} (found {st['found'] / sims:6.1%}), "
                         f"halving {half:6.1%}")
    print(f"  {name:<34} " + " | ".join(parts) + f"  [{sims} sims, {took:.0f} s]")


def coverage_valley(name: str, gaps: np.ndarray, n_cell: int, sims: int, n_resamples: int) -> None:
    rng = np.random.default_rng(2)
    levels = np.arange(1, 7)
    p_id = np.array([0.98, 0.95, 0.9, 0.85, 0.5, 0.25])
    p_ood = p_id - gaps
    true = float(levels[np.argmax(p_id - p_ood)])
    level = np.repeat(levels, 2 * n_cell)
    part = np.tile(np.repeat(["id", "ood"], n_cell), levels.size)
    prob = np.where(part == "id", p_id[level - 1], p_ood[level - 1])
    hit = exact = 0
    t0 = time.perf_counter()
    for i in range(sims):
        v = generalization_valley(rng.random(level.size) < prob, level, part, n_resamples=n_resamples, seed=i)
        hit += v.critical_low <= true <= v.critical_high
        exact += v.critical == true
    print(f"  {name + f', {n_cell} per level and part':<34} critical complexity ({true:g}) coverage {hit / sims:6.1%}, "
          f"point estimate right {exact / sims:5.1%}  [{sims} sims, {time.perf_counter() - t0:.0f} s]")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="smoke run: fewer rows, simulations and resamples")
    ap.add_argument("--sims", type=int, default=None, help="simulations per coverage setting (default 300)")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--bins", type=int, default=50)
    ap.add_argument("--resamples", type=int, default=10_000, help="resamples of the speed runs")
    ap.add_argument("--sim-resamples", type=int, default=2000, help="resamples per interval in the coverage runs")
    ap.add_argument("--clustered", action="store_true", help="only the coverage of clustered curves")
    args = ap.parse_args()
    sims = args.sims or (40 if args.quick else 200)
    sim_resamples = args.sim_resamples
    sharp = np.r_[np.full(5, 0.9), [0.6, 0.45, 0.3, 0.15, 0.05]]
    gentle = np.r_[np.full(5, 0.9), [0.84, 0.7, 0.5, 0.3, 0.15]]
    if args.clustered:
        print(f"Clustered curves: passages of 20 rows within each level, intraclass correlation 0.2; nominal 95% "
              f"({sim_resamples:,} resamples per interval); whole passages resampled vs rows taken as independent")
        for n_bin in (200, 1000):
            coverage_break_clustered(f"flat (no break), {n_bin} per level", np.full(10, 0.9), n_bin, 20, 0.2, sims,
                                     sim_resamples)
            coverage_break_clustered(f"sharp break, {n_bin} per level", sharp, n_bin, 20, 0.2, sims, sim_resamples)
            coverage_break_clustered(f"gentle break, {n_bin} per level", gentle, n_bin, 20, 0.2, sims, sim_resamples)
        return
    speed(100_000 if args.quick else args.rows, args.bins, 2000 if args.quick else args.resamples)
    print(f"\nCoverage at nominal 95% ({sim_resamples:,} resamples per interval; target >= 90%)")
    subtle = np.r_[np.full(5, 0.9), [0.87, 0.7, 0.5, 0.3, 0.15]]
    for n_bin in (100, 400):
        coverage_break(f"sharp break, {n_bin} per level", sharp, n_bin, sims, sim_resamples)
        coverage_break(f"gentle break, {n_bin} per level", gentle, n_bin, sims, sim_resamples)
        coverage_break(f"subtle break, {n_bin} per level", subtle, n_bin, sims, sim_resamples)
    clear = np.array([0.05, 0.2, 0.35, 0.5, 0.3, 0.15])
    close = np.array([0.05, 0.2, 0.42, 0.47, 0.3, 0.15])
    for n_cell in (100, 400):
        coverage_valley("valley, clear peak", clear, n_cell, sims, sim_resamples)
        coverage_valley("valley, close second", close, n_cell, sims, sim_resamples)


if __name__ == "__main__":
    main()
