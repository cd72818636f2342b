"""Bootstrap intervals, gaps and paired differences: against scipy, hand values and coverage."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from gengap import ConfigError, DataError
from gengap.analysis import intervals
from gengap.analysis.intervals import bootstrap_ci, bootstrap_means, gap, paired_difference


def test_mean_and_n_are_exact():
    ci = bootstrap_ci([1, 0, 1, 1, 0], seed=1)
    assert ci.estimate == pytest.approx(0.6)
    assert ci.n == 5
    assert ci.low <= ci.estimate <= ci.high


@pytest.mark.parametrize("method,scipy_method", [("percentile", "percentile"), ("bca", "BCa")])
def test_matches_scipy_bootstrap_on_continuous_scores(method, scipy_method):
    rng = np.random.default_rng(0)
    x = rng.gamma(2.0, 1.0, size=400)  # skewed, so BCa differs from percentile
    ours = bootstrap_ci(x, n_resamples=20_000, method=method, seed=1)
    ref = scipy.stats.bootstrap((x,), np.mean, n_resamples=20_000, method=scipy_method, random_state=2).confidence_interval
    assert ours.low == pytest.approx(ref.low, abs=0.02)
    assert ours.high == pytest.approx(ref.high, abs=0.02)


def test_bca_shifts_interval_for_skewed_data():
    x = np.random.default_rng(3).exponential(size=60)
    pct = bootstrap_ci(x, method="bca", seed=0)
    per = bootstrap_ci(x, method="percentile", seed=0)
    assert pct.method == "bca" and per.method == "percentile"
    assert (pct.low, pct.high) != (per.low, per.high)


def test_count_path_and_index_path_agree(monkeypatch):
    """Resampling 0/1 scores through value counts must have the same distribution as index resampling."""
    x = (np.random.default_rng(5).random(2_000) < 0.3).astype(float)
    fast = bootstrap_means(x, 20_000, np.random.default_rng(0))
    monkeypatch.setattr(intervals, "_MAX_DISTINCT_FOR_COUNTS", 0)
    slow = bootstrap_means(x, 20_000, np.random.default_rng(0))
    assert fast.mean() == pytest.approx(slow.mean(), abs=1e-3)
    assert fast.std() == pytest.approx(slow.std(), rel=0.05)
    assert fast.std() == pytest.approx(np.sqrt(0.3 * 0.7 / 2_000), rel=0.1)


def test_coverage_is_near_nominal():
    """Over many samples from a known Bernoulli(0.3), about 95% of intervals contain 0.3."""
    rng = np.random.default_rng(11)
    hits = 0
    trials = 400
    for _ in range(trials):
        x = (rng.random(300) < 0.3).astype(float)
        ci = bootstrap_ci(x, n_resamples=2_000, seed=rng)
        hits += ci.low <= 0.3 <= ci.high
    assert 0.91 <= hits / trials <= 0.985


def test_constant_scores_give_exact_interval():
    ci = bootstrap_ci(np.ones(50))
    assert (ci.low, ci.estimate, ci.high, ci.method) == (1.0, 1.0, 1.0, "exact")


def test_same_seed_same_interval():
    x = np.random.default_rng(0).random(500)
    assert bootstrap_ci(x, seed=7) == bootstrap_ci(x, seed=7)


def test_paired_difference_is_tighter_than_independent_gap():
    rng = np.random.default_rng(1)
    difficulty = rng.random(1_000)
    a = (difficulty < 0.8).astype(float)   # the two conditions share which items are hard
    b = (difficulty < 0.75).astype(float)
    paired = paired_difference(a, b, seed=0)
    independent = gap(a, b, seed=0)
    assert paired.estimate == pytest.approx(0.05, abs=0.03)
    assert paired.estimate == pytest.approx(independent.estimate)
    assert (paired.high - paired.low) < 0.5 * (independent.high - independent.low)


def test_gap_hand_value_and_n():
    g = gap([1, 1, 1, 1, 0], [0, 0, 1], seed=0)
    assert g.estimate == pytest.approx(0.8 - 1 / 3)
    assert g.n == 3


@pytest.mark.parametrize("bad", [[], [0.5, float("nan")]])
def test_bad_scores_raise_data_error(bad):
    with pytest.raises(DataError):
        bootstrap_ci(bad)


def test_paired_needs_same_length():
    with pytest.raises(DataError, match="same examples"):
        paired_difference([1, 0], [1, 0, 1])


@pytest.mark.parametrize("kwargs", [{"confidence": 1.5}, {"n_resamples": 10}, {"method": "studentized"}])
def test_bad_parameters_raise_config_error(kwargs):
    with pytest.raises(ConfigError):
        bootstrap_ci([0.2, 0.4, 0.9, 0.1], **kwargs)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(min_value=-1e3, max_value=1e3, allow_nan=False), min_size=2, max_size=60))
def test_interval_is_ordered_and_within_range(xs):
    ci = bootstrap_ci(xs, n_resamples=500, seed=0)
    lo, hi = min(xs), max(xs)
    assert lo - 1e-9 <= ci.low <= ci.high <= hi + 1e-9
    assert ci.estimate == pytest.approx(float(np.mean(xs)), abs=1e-9)
