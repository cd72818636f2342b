"""The slice benchmark's power bound: the exact power of the one-sided Fisher test of a slice (what
no search of 0/1 scores can beat at its level) agrees with a brute-force sum over scipy's
hypergeometric and binomial laws, the randomized test uses its level exactly, and the search's own
p-values are those the benchmark's error controls read."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import bench_slices


def brute_force_power(n_slice: int, n: int, base: float, effect: float, level: float) -> float:
    """Sum P(x hits inside) P(y hits outside) over every (x, y) whose Fisher p-value is <= level."""
    x = np.arange(n_slice + 1)[:, None]
    y = np.arange(n - n_slice + 1)[None, :]
    p = scipy.stats.hypergeom.cdf(x, n, x + y, n_slice)
    prob = scipy.stats.binom.pmf(x, n_slice, base - effect) * scipy.stats.binom.pmf(y, n - n_slice, base)
    return float(np.sum(prob * (p <= level)))


@pytest.mark.parametrize(("n_slice", "n", "base", "level"), [(40, 300, 0.7, 0.01), (60, 240, 0.9, 0.05)])
def test_exact_power_is_the_brute_force_sum(n_slice: int, n: int, base: float, level: float) -> None:
    ours = bench_slices.exact_power(n_slice, n, base, 0.10, level)
    assert ours == pytest.approx(brute_force_power(n_slice, n, base, 0.10, level), abs=1e-9)
    # and a Monte Carlo of scipy's own Fisher test lands on it
    rng = np.random.default_rng(3)
    inside, outside = rng.binomial(n_slice, base - 0.10, 4000), rng.binomial(n - n_slice, base, 4000)
    hits = [scipy.stats.fisher_exact([[a, n_slice - a], [b, n - n_slice - b]], alternative="less")[1] <= level
            for a, b in zip(inside, outside)]
    assert abs(np.mean(hits) - ours) < 4 * np.sqrt(ours * (1 - ours) / 4000) + 1e-3


def test_the_randomized_test_uses_its_level_exactly_and_beats_fisher() -> None:
    level = 0.05 / 196
    assert bench_slices.exact_power(200, 6000, 0.7, 0.0, level, randomized=True) == pytest.approx(level, rel=1e-6)
    assert bench_slices.exact_power(200, 6000, 0.7, 0.0, level) <= level
    fisher = bench_slices.exact_power(200, 6000, 0.7, 0.10, level)
    best = bench_slices.exact_power(200, 6000, 0.7, 0.10, level, randomized=True)
    assert fisher < best < 0.35  # a 200-row slice 10 points down at 70%: no test of it reaches 0.9 in the search


def test_slice_pvalues_are_the_searchs() -> None:
    rng = np.random.default_rng(5)
    frame = bench_slices.table(2000, rng)
    y = bench_slices.draw_scores(np.full(2000, 0.7), rng, "binary")
    names, p, order, promising = bench_slices.slice_pvalues(frame, y)
    found = bench_slices.find_slices(frame, y, order=2, control="none", top=len(names))
    assert found.n_tested == len(names)
    for row in found.table.itertuples():
        assert p[names.index(row.description)] == pytest.approx(row.p_value, rel=1e-12)
    assert set(order) == {1, 2} and promising[order == 1].all()
    chosen = bench_slices.procedures(p, order, promising)
    assert (chosen["bonferroni"] <= chosen["bh"]).all()  # Bonferroni never finds what BH does not
