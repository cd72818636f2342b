"""Bootstrap intervals, gaps and paired differences: against scipy, hand values and coverage."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from gengap import ConfigError, DataError
from gengap.analysis import intervals
from gengap.analysis import intervals as stats
from gengap.analysis.intervals import (
    adjust_pvalues,
    bootstrap_ci,
    bootstrap_means,
    gap,
    mean_ci,
    paired_difference,
    paired_proportion_ci,
    paired_test,
    proportion_ci,
    two_sample_test,
)


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


def test_constant_scores_bootstrap_warns_and_mean_ci_stays_honest():
    ci = bootstrap_ci(np.full(50, 0.5))
    assert (ci.low, ci.estimate, ci.high, ci.method) == (0.5, 0.5, 0.5, "percentile")
    assert "cannot vary" in ci.warning
    honest = mean_ci(np.ones(50))
    ref = scipy.stats.binomtest(50, 50).proportion_ci(method="exact")
    assert (honest.estimate, honest.high, honest.method) == (1.0, 1.0, "clopper-pearson")
    assert honest.low == pytest.approx(ref.low, abs=1e-12) and honest.low < 0.95


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


# --- intervals for 0/1 scores: never certain at the extremes (issue: 0 of 7,706 printed [0, 0]) -------------


@pytest.mark.parametrize("k,n", [(0, 7706), (3, 3), (0, 1), (1, 1), (17, 40), (999, 1000), (0, 5)])
def test_mean_ci_of_01_scores_is_clopper_pearson_like_scipy(k, n):
    ci = mean_ci(np.r_[np.ones(k), np.zeros(n - k)])
    ref = scipy.stats.binomtest(k, n).proportion_ci(method="exact", confidence_level=0.95)
    assert ci.method == "clopper-pearson" and ci.n == n and ci.estimate == pytest.approx(k / n)
    assert ci.low == pytest.approx(ref.low, abs=1e-12) and ci.high == pytest.approx(ref.high, abs=1e-12)
    assert ci.high - ci.low > 0


def test_zero_of_many_is_not_exactly_zero():
    ci = mean_ci(np.zeros(7706))
    assert ci.low == 0.0 and ci.high == pytest.approx(1 - 0.025 ** (1 / 7706), rel=1e-9)  # the rule of three, exactly


def test_proportion_ci_vectorized_matches_scalar():
    k = np.array([0, 3, 10])
    n = np.array([10, 10, 10])
    lo, hi = proportion_ci(k, n, confidence=0.9)
    for i in range(3):
        ref = scipy.stats.binomtest(int(k[i]), 10).proportion_ci(method="exact", confidence_level=0.9)
        assert (lo[i], hi[i]) == pytest.approx((ref.low, ref.high), abs=1e-12)


def test_gap_of_all_versus_none_is_not_certain():
    g = gap([1] * 5, [0] * 5)
    assert g.method == "newcombe" and g.estimate == 1.0 and g.high == 1.0 and g.low < 0.5
    # square-and-add of the two exact intervals, by hand
    lo1 = scipy.stats.binomtest(5, 5).proportion_ci(method="exact").low
    hi2 = scipy.stats.binomtest(0, 5).proportion_ci(method="exact").high
    assert g.low == pytest.approx(1 - np.hypot(1 - lo1, hi2))


def test_gap_agrees_with_statsmodels_newcombe_at_large_n():
    from statsmodels.stats.proportion import confint_proportions_2indep

    a = np.r_[np.ones(6_200), np.zeros(3_800)]
    b = np.r_[np.ones(5_900), np.zeros(4_100)]
    g = gap(a, b)
    ref = confint_proportions_2indep(6_200, 10_000, 5_900, 10_000, method="newcomb", compare="diff")
    assert (g.low, g.high) == pytest.approx(ref, abs=2e-3)  # exact and Wilson parts agree at this n


def test_paired_interval_holds_zero_when_exact_mcnemar_cannot_reject():
    a = np.r_[np.ones(4), np.ones(50), np.zeros(46)]
    b = np.r_[np.zeros(4), np.ones(50), np.zeros(46)]
    t = paired_test(a, b)
    assert t.test == "mcnemar-exact" and t.p_value == pytest.approx(0.125)
    assert t.effect.method == "mover-paired" and t.effect.low <= 0 < t.effect.high
    assert t.effect.estimate == pytest.approx(0.04)


def test_paired_interval_with_no_discordance_has_width():
    ci = paired_difference(np.r_[np.ones(60), np.zeros(40)], np.r_[np.ones(60), np.zeros(40)])
    assert ci.estimate == 0 and ci.low < 0 < ci.high


def test_exact_mcnemar_matches_statsmodels():
    from statsmodels.stats.contingency_tables import mcnemar

    rng = np.random.default_rng(4)
    a = (rng.random(300) < 0.7).astype(float)
    b = np.where(rng.random(300) < 0.08, 1 - a, a)
    t = paired_test(a, b)
    table = [[np.sum((a == 1) & (b == 1)), np.sum((a == 1) & (b == 0))], [np.sum((a == 0) & (b == 1)), np.sum((a == 0) & (b == 0))]]
    assert t.p_value == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-9)


def test_paired_proportion_ci_vectorized_equals_scalar_calls():
    lo, hi = paired_proportion_ci([50, 10], [4, 3], [0, 9], [100, 40])
    one = paired_difference(np.r_[np.ones(13), np.zeros(27)], np.r_[np.ones(10), np.zeros(3), np.ones(9), np.zeros(18)])
    assert (lo[1], hi[1]) == pytest.approx((one.low, one.high))


def test_sign_flip_exact_matches_scipy_permutation_test():
    rng = np.random.default_rng(2)
    a, b = rng.random(12), rng.random(12) * 0.8
    ours = paired_test(a, b)
    ref = scipy.stats.permutation_test((a - b,), np.mean, permutation_type="samples", n_resamples=np.inf,
                                       alternative="two-sided")
    assert ours.test == "sign-flip" and ours.p_value == pytest.approx(ref.pvalue, rel=1e-9)
    assert ours.effect.warning.startswith("n = 12: too few to tell")


def test_sign_flip_monte_carlo_is_close_to_exact_distribution():
    rng = np.random.default_rng(3)
    a, b = rng.random(200), rng.random(200)
    b[:150] = a[:150]  # sparse differences
    ours = paired_test(a, b, n_resamples=20_000, seed=0)
    ref = scipy.stats.permutation_test((a - b,), np.mean, permutation_type="samples", n_resamples=20_000,
                                       alternative="two-sided", random_state=1)
    assert ours.p_value == pytest.approx(ref.pvalue, abs=0.02)


def test_two_sample_tests_match_scipy():
    t = two_sample_test([1, 1, 1, 0, 1, 1], [0, 0, 1, 0])
    assert t.test == "fisher-exact" and t.p_value == pytest.approx(scipy.stats.fisher_exact([[5, 1], [1, 3]]).pvalue)
    x, y = np.random.default_rng(0).random(50), np.random.default_rng(1).random(40)
    w = two_sample_test(x, y)
    assert w.test == "welch" and w.p_value == pytest.approx(scipy.stats.ttest_ind(x, y, equal_var=False).pvalue)


@pytest.mark.parametrize("method,sm", [("holm", "holm"), ("bh", "fdr_bh")])
def test_adjusted_pvalues_match_statsmodels(method, sm):
    from statsmodels.stats.multitest import multipletests

    p = np.random.default_rng(5).random(25) ** 3
    assert adjust_pvalues(p, method) == pytest.approx(multipletests(p, method=sm)[1], abs=1e-12)
    with_nan = adjust_pvalues(np.r_[p[:3], np.nan], method)
    assert np.isnan(with_nan[3]) and with_nan[:3] == pytest.approx(multipletests(p[:3], method=sm)[1])


def test_adjust_pvalues_rejects_unknown_method():
    with pytest.raises(ConfigError, match="adjust="):
        adjust_pvalues([0.1], "bonferroni-ish")


def test_sign_flip_normal_limit_for_many_differences_agrees_with_monte_carlo(monkeypatch):
    rng = np.random.default_rng(6)
    a, b = rng.random(3_000), rng.random(3_000)
    b += 0.02
    mc = paired_test(a, b, n_resamples=20_000, seed=0).p_value
    monkeypatch.setattr(stats, "SIGN_FLIP_NORMAL_ABOVE", 1_000)
    normal = paired_test(a, b, seed=0).p_value
    assert normal == pytest.approx(mc, abs=0.01)
