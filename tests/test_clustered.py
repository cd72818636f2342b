"""Clustered intervals and tests: statsmodels' cluster-robust OLS of the mean as the oracle, clusters of
one row giving today's figures exactly, and the bad inputs."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st

from gengap._errors import DataError
from gengap.analysis.clustered import (
    cluster_design,
    clustered_gap,
    clustered_mean_ci,
    clustered_paired_difference,
    clustered_paired_test,
    clustered_two_sample_test,
    clustered_variance,
    effective_n,
)
from gengap.analysis.intervals import gap, mean_ci, paired_difference, paired_test, two_sample_test


def _clustered_binary(rng: np.random.Generator, g: int, m: int, icc: float, p: float = 0.6) -> tuple[np.ndarray, np.ndarray]:
    """0/1 scores: each cluster shares its rate (a Beta with the asked intraclass correlation)."""
    if icc == 0:
        rates = np.full(g, p)
    else:
        k = (1 - icc) / icc
        rates = rng.beta(p * k, (1 - p) * k, size=g)
    scores = (rng.random((g, m)) < rates[:, None]).astype(float).ravel()
    return scores, np.repeat(np.arange(g), m)


def _sm_cluster_fit(y: np.ndarray, codes: np.ndarray):
    return sm.OLS(y, np.ones_like(y)).fit(cov_type="cluster", cov_kwds={"groups": codes}, use_t=True)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_clustered_variance_is_statsmodels_cluster_robust_variance(seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 40, size=50)
    codes = np.repeat(np.arange(50), sizes)
    y = rng.normal(size=50)[codes] + rng.normal(size=codes.size)
    fit = _sm_cluster_fit(y, codes)
    assert clustered_variance(y, codes) == pytest.approx(float(fit.bse[0]) ** 2, rel=1e-10)
    design = cluster_design(y, codes)
    assert design.n_clusters == 50
    assert design.design_effect == pytest.approx(float(fit.bse[0]) ** 2 / (np.var(y, ddof=1) / y.size), rel=1e-10)


def test_korn_graubard_matches_the_cluster_robust_t_interval_when_clusters_are_many():
    """With many clusters and p near 1/2 the Korn-Graubard interval is the cluster-robust t interval."""
    y, codes = _clustered_binary(np.random.default_rng(3), 400, 25, 0.2, p=0.5)
    ci = clustered_mean_ci(y, codes)
    low, high = _sm_cluster_fit(y, codes).conf_int(alpha=0.05)[0]
    assert ci.method == "korn-graubard" and ci.n_clusters == 400
    assert (ci.high - ci.low) == pytest.approx(high - low, rel=0.03)
    assert ci.low == pytest.approx(low, abs=0.005) and ci.high == pytest.approx(high, abs=0.005)


def test_continuous_scores_get_statsmodels_cluster_robust_t_interval():
    rng = np.random.default_rng(4)
    codes = np.repeat(np.arange(300), rng.integers(5, 30, size=300))
    y = rng.normal(size=300)[codes] * 0.5 + rng.random(codes.size)
    ci = clustered_mean_ci(y, codes)
    low, high = _sm_cluster_fit(y, codes).conf_int(alpha=0.05)[0]
    assert ci.method == "cluster-t" and ci.warning == ""
    assert (ci.low, ci.high) == (pytest.approx(low, rel=1e-9), pytest.approx(high, rel=1e-9))
    d = clustered_paired_difference(y, y * 0.5, codes)
    low, high = _sm_cluster_fit(y * 0.5, codes).conf_int(alpha=0.05)[0]
    assert (d.low, d.high) == (pytest.approx(low, rel=1e-9), pytest.approx(high, rel=1e-9))


def test_cluster_bootstrap_means_resample_whole_clusters():
    """Unequal clusters: the bootstrap spread of the ratio mean is the cluster-robust standard error."""
    from gengap.analysis.clustered import cluster_bootstrap_means

    rng = np.random.default_rng(6)
    codes = np.repeat(np.arange(400), rng.integers(1, 20, size=400))
    y = rng.normal(size=400)[codes] + rng.normal(size=codes.size)
    boot = cluster_bootstrap_means(y, codes, 4000, np.random.default_rng(0))
    assert boot.std() == pytest.approx(np.sqrt(clustered_variance(y, codes)), rel=0.06)


def test_an_interval_of_clustered_rows_is_wider_by_about_the_root_of_the_design_effect():
    """60 passages x 30 questions, correctness set per passage: the honest interval is far wider."""
    rng = np.random.default_rng(5)
    per_passage = (rng.random(60) < 0.7).astype(float)
    y, codes = np.repeat(per_passage, 30), np.repeat(np.arange(60), 30)
    ci, naive = clustered_mean_ci(y, codes), mean_ci(y)
    ratio = (ci.high - ci.low) / (naive.high - naive.low)
    assert ci.design_effect == pytest.approx(30, rel=0.05)
    assert 4.5 < ratio < 7.0  # about sqrt(30) = 5.5, a little more for 59 degrees of freedom
    assert "1,800 rows in 60 passages; design effect 30" in cluster_design(y, codes).describe("passages")


def test_effective_n_is_n_when_clusters_are_single_rows():
    assert effective_n(500, 500, 1.0) == 500


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([0.0, 1.0]), min_size=1, max_size=80), st.integers(0, 3))
def test_clusters_of_one_row_give_todays_binary_figures_exactly(scores, seed):
    y = np.array(scores)
    ids = [f"row{i}" for i in range(y.size)]
    assert _same(clustered_mean_ci(y, ids, seed=seed), mean_ci(y, seed=seed))
    b = np.roll(y, 1)
    assert _same(clustered_paired_difference(y, b, ids), paired_difference(y, b))
    t, base = clustered_paired_test(y, b, ids), paired_test(y, b)
    assert (t.p_value, t.test) == (base.p_value, base.test) and _same(t.effect, base.effect)
    other = y[::-1].copy()
    assert _same(clustered_gap(y, other, ids, ids), gap(y, other))
    t2, base2 = clustered_two_sample_test(y, other, ids, ids), two_sample_test(y, other)
    assert (t2.p_value, t2.test) == (base2.p_value, base2.test)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=2, max_size=60), st.integers(0, 3))
def test_clusters_of_one_row_give_todays_continuous_figures_exactly(scores, seed):
    y = np.array(scores)
    ids = np.arange(y.size)
    assert _same(clustered_mean_ci(y, ids, seed=seed, n_resamples=500), mean_ci(y, seed=seed, n_resamples=500))
    b = y[::-1].copy()
    assert _same(clustered_paired_difference(y, b, ids, seed=seed, n_resamples=500),
                 paired_difference(y, b, seed=seed, n_resamples=500))
    assert _same(clustered_gap(y, b, ids, ids, seed=seed, n_resamples=500), gap(y, b, seed=seed, n_resamples=500))


def _same(clustered, base) -> bool:
    return (clustered.estimate, clustered.low, clustered.high, clustered.n, clustered.method, clustered.warning) == (
        base.estimate, base.low, base.high, base.n, base.method, base.warning)


def test_clustered_paired_test_permutes_whole_clusters():
    """Six of six passages favour a: the sign-flip of cluster totals gives 2/64, whatever the passage size."""
    a = np.ones(60)
    b = np.zeros(60)
    t = clustered_paired_test(a, b, np.repeat(np.arange(6), 10))
    assert t.test == "cluster-sign-flip" and t.p_value == pytest.approx(2 / 64)
    assert paired_test(a, b).p_value < 1e-15  # rows as independent: absurdly sure
    assert t.effect.method == "mover-paired-kg" and t.effect.low > 0


def test_clustered_two_sample_test_is_calibrated_against_a_t_test_of_cluster_means():
    """Equal-sized clusters: the test is close to Welch's t-test on the cluster means."""
    rng = np.random.default_rng(8)
    ya, ca = _clustered_binary(rng, 40, 10, 0.3)
    yb, cb = _clustered_binary(rng, 40, 10, 0.3, p=0.45)
    t = clustered_two_sample_test(ya, yb, ca, cb + 100)
    import scipy.stats

    ref = scipy.stats.ttest_ind(ya.reshape(40, 10).mean(1), yb.reshape(40, 10).mean(1), equal_var=False)
    assert t.test == "cluster-score"
    assert t.p_value == pytest.approx(ref.pvalue, rel=0.35)


def test_few_clusters_carry_a_warning():
    y, codes = _clustered_binary(np.random.default_rng(9), 8, 50, 0.2)
    ci = clustered_mean_ci(y, codes)
    assert ci.warning.startswith("8 clusters: too few to tell")
    assert clustered_mean_ci(*_clustered_binary(np.random.default_rng(9), 100, 5, 0.2)).warning == ""


def test_bad_cluster_ids_are_clear_errors():
    with pytest.raises(DataError, match="missing in 2 of 4 row"):
        clustered_mean_ci([1, 0, 1, 1], ["a", None, "b", None])
    with pytest.raises(DataError, match="one cluster"):
        clustered_mean_ci([1, 0, 1, 1], ["a"] * 4)
    with pytest.raises(DataError, match="4 scores but 3"):
        clustered_mean_ci([1, 0, 1, 1], ["a", "b", "c"])


def test_interval_to_dict_leaves_cluster_fields_out_when_unclustered():
    assert "n_clusters" not in mean_ci([1, 0]).to_dict()
    d = clustered_mean_ci([1, 0, 1, 1], ["a", "a", "b", "b"]).to_dict()
    assert d["n_clusters"] == 2 and d["design_effect"] > 0
