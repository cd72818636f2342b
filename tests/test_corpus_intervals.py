"""Corpus metrics' intervals, debiased calibration error and break points along curves.

The resampling helpers are checked against scipy's BCa and scikit-learn's AUROC; the debiased ECE
against scikit-learn's calibration curve; the break-point test on rows with a planted break.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.stats
import sklearn.metrics as skm
from sklearn.calibration import calibration_curve

from gengap._errors import ConfigError, DataError
from gengap.analysis.corpus import (
    _jack_cells,
    _jack_ece,
    corpus_break,
    corpus_curve,
    corpus_data,
    corpus_gap,
    corpus_intervals,
    corpus_score,
    ece_noise_floor,
)
from gengap.analysis.resample import bca_bounds, bootstrap_weights, jackknife_statistic, resample_statistic
from gengap.metrics import get_metric
from gengap.metrics_corpus import CorpusData, ece_bins, weighted_ece, weighted_l2_calibration_error


def _rows(n: int, seed: int, *, sharp: float = 1.0, overconfident: float = 1.5) -> pd.DataFrame:
    """Binary rows: scores N(sharp * y, 1), probabilities the posterior made overconfident."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = rng.normal(size=n) + sharp * y
    post = 1 / (1 + np.exp(-(sharp * s - sharp**2 / 2)))
    logit = np.log(post / (1 - post)) * overconfident
    p = 1 / (1 + np.exp(-logit))
    pred = (p > 0.5).astype(int)
    return pd.DataFrame({"example_id": [f"e{i}" for i in range(n)], "target": y.astype(str), "output": pred.astype(str),
                         "confidence": np.where(pred == 1, p, 1 - p), "p1": p})


def test_bca_agrees_with_scipy_on_a_skewed_mean() -> None:
    x = np.random.default_rng(3).lognormal(0, 1, 150)
    mean = lambda W: (W @ x) / W.sum(axis=1)
    boot = resample_statistic(mean, x.size, 20_000, np.random.default_rng(1))
    low, high = bca_bounds(float(x.mean()), boot, jackknife_statistic(mean, x.size), 0.95)
    ref = scipy.stats.bootstrap((x,), np.mean, method="BCa", n_resamples=20_000, random_state=2).confidence_interval
    width = ref.high - ref.low
    assert low == pytest.approx(ref.low, abs=0.03 * width) and high == pytest.approx(ref.high, abs=0.03 * width)
    # BCa moves a right-skewed mean's interval up against the percentile one
    pct = np.quantile(boot, [0.025, 0.975])
    assert low > pct[0] and high > pct[1]


def test_brier_interval_is_scipys_bca_of_the_row_losses() -> None:
    rows = _rows(300, 4)
    y, p = rows["target"].astype(int).to_numpy(), rows["p1"].to_numpy()
    ci = corpus_score("brier", rows, n_resamples=20_000, method="bca")
    assert ci.estimate == pytest.approx(skm.brier_score_loss(y, p), abs=1e-12) and ci.method == "bootstrap-bca"
    ref = scipy.stats.bootstrap(((p - y) ** 2,), np.mean, method="BCa", n_resamples=20_000, random_state=0).confidence_interval
    width = ref.high - ref.low
    assert ci.low == pytest.approx(ref.low, abs=0.03 * width) and ci.high == pytest.approx(ref.high, abs=0.03 * width)
    t = corpus_score("brier", rows, method="t")
    half = scipy.stats.t.ppf(0.975, 299) * np.std((p - y) ** 2, ddof=1) / np.sqrt(300)
    assert (t.low, t.high) == pytest.approx((ci.estimate - half, ci.estimate + half), abs=1e-12)


def test_jackknife_values_are_the_metric_without_each_row() -> None:
    rows = _rows(40, 5)
    y, p = rows["target"].astype(int).to_numpy(), rows["p1"].to_numpy()
    data = CorpusData.from_lists(rows["target"], rows["output"], confidence=rows["confidence"])
    jack = jackknife_statistic(get_metric("auroc").statistic(data), 40)
    expected = [skm.roc_auc_score(np.delete(y, i), np.delete(p, i)) for i in range(40)]
    assert jack == pytest.approx(expected, abs=1e-12)
    # the closed forms for confusion-matrix metrics and ECE equal the generic jackknife
    for name, closed in (("mcc", lambda st: _jack_cells(st)), ("ece", lambda st: _jack_ece(data, st.bins))):
        stat = get_metric(name).statistic(data)
        assert closed(stat) == pytest.approx(jackknife_statistic(stat, 40), abs=1e-12)
    # above the group limit, groups of rows are left out together
    assert jackknife_statistic(lambda W: W.sum(axis=1), 1000).tolist() == [995.0] * 200


def test_bootstrap_weights_draw_whole_clusters_and_follow_the_seed() -> None:
    clusters = np.repeat(np.arange(5), 3)
    w = bootstrap_weights(15, 50, np.random.default_rng(0), clusters)
    assert np.all(w.reshape(50, 5, 3) == w.reshape(50, 5, 3)[:, :, :1]) and np.all(w.sum(axis=1) == 15)
    again = bootstrap_weights(15, 50, np.random.default_rng(0), clusters)
    assert np.array_equal(w, again)


def test_methods_share_resamples_and_defaults_follow_the_metric() -> None:
    rows = _rows(400, 6)
    got = corpus_intervals("pr_auc", rows, ("auto", "percentile", "bca"), n_resamples=1000)
    assert got["auto"] == got["bca"] and got["percentile"].estimate == got["bca"].estimate
    assert got["percentile"] != got["bca"]
    assert corpus_score("auroc", rows).method == "delong-logit"
    assert corpus_score("auroc", rows, method="delong").method == "delong"
    assert corpus_score("ece", rows, n_resamples=500).method == "bootstrap-span"
    assert corpus_score("ece_debiased", rows, n_resamples=500).method == "bootstrap-normal-squared"
    assert corpus_score("mcc", rows, n_resamples=500).method == "bootstrap-cells-percentile"
    assert corpus_score("log_loss", rows, n_resamples=500).method == "bootstrap-bca"
    assert corpus_score("aurc", rows, n_resamples=500).method == "bootstrap-bca"
    clustered = corpus_score("auroc", rows, n_resamples=500, clusters=np.arange(400) // 8)
    assert clustered.method == "bootstrap-clusters-bca"


def test_bad_interval_methods_are_refused_with_the_choices() -> None:
    rows = _rows(100, 7)
    with pytest.raises(ConfigError, match="choose one of auto, percentile"):
        corpus_score("auroc", rows, method="wilson")
    with pytest.raises(ConfigError, match="method='t' is for brier and log_loss"):
        corpus_score("auroc", rows, method="t")
    with pytest.raises(ConfigError, match="DeLong's interval is of AUROC"):
        corpus_score("pr_auc", rows, method="delong")


def test_few_right_predictions_of_a_label_warn() -> None:
    rows = _rows(400, 8)
    rows["target"] = np.where(np.arange(400) < 30, "1", "0")  # 30 positives, few predicted right
    rows["output"] = np.where(np.arange(400) < 4, "1", np.where(np.arange(400) > 380, "1", "0"))
    ci = corpus_score("macro_f1", rows, n_resamples=500)
    assert "label '1' is predicted right only 4 times" in ci.warning


def test_calibration_errors_equal_scikit_learns_calibration_curve() -> None:
    rows = _rows(2000, 9)
    data = CorpusData.from_lists(rows["target"], rows["output"], confidence=rows["confidence"])
    conf, right = data.confidence, data.correct
    acc, mean_conf = calibration_curve(right, conf, n_bins=15, strategy="quantile")
    counts = np.bincount(ece_bins(conf, adaptive=True))
    counts = counts[counts > 0]
    share = counts / counts.sum()
    plugin = np.sqrt(np.sum(share * (mean_conf - acc) ** 2))
    debiased = np.sqrt(np.sum(share * ((mean_conf - acc) ** 2 - acc * (1 - acc) / (counts - 1))))
    assert get_metric("ece_debiased").point(data) == pytest.approx(debiased, abs=1e-12)  # type: ignore[attr-defined]
    one = np.ones((1, 2000))
    bins = ece_bins(conf, adaptive=True)
    assert weighted_l2_calibration_error(right, conf, bins, one, debiased=False)[0] == pytest.approx(plugin, abs=1e-12)
    assert get_metric("ece_adaptive").point(data) == pytest.approx(np.sum(share * np.abs(mean_conf - acc)), abs=1e-12)  # type: ignore[attr-defined]


def test_debiased_ece_removes_the_plug_ins_upward_bias_on_a_calibrated_model() -> None:
    rng = np.random.default_rng(10)
    plugin, debiased = [], []
    for _ in range(40):
        conf = rng.uniform(0.5, 1.0, 300)
        right = (rng.uniform(size=300) < conf).astype(float)  # calibrated: the true error is 0
        data = CorpusData(np.array(["a"] * 300, dtype=object), np.array(["a"] * 300, dtype=object), right, conf,
                          [None] * 300, [f"row {i}" for i in range(300)])
        bins = ece_bins(conf, adaptive=True)
        plugin.append(weighted_l2_calibration_error(right, conf, bins, np.ones((1, 300)), debiased=False)[0])
        debiased.append(get_metric("ece_debiased").point(data))  # type: ignore[attr-defined]
    assert np.mean(plugin) > 0.08 and np.mean(debiased) < 0.4 * np.mean(plugin)


def _curve_rows(seed: int, worse_from: int | None) -> pd.DataFrame:
    """Rows along 'depth' 1..6; from ``worse_from`` on, the scores separate the classes far less."""
    parts = []
    for depth in range(1, 7):
        sharp = 0.3 if worse_from is not None and depth >= worse_from else 1.6
        part = _rows(250, seed * 10 + depth, sharp=sharp, overconfident=1.0)
        parts.append(part.assign(depth=depth, example_id=[f"d{depth}-{i}" for i in range(250)]))
    return pd.concat(parts, ignore_index=True)


def test_a_planted_break_in_auroc_is_found_where_it_was_planted() -> None:
    rows = _curve_rows(1, worse_from=5)
    table = corpus_curve("auroc", rows, "depth", train_range=(1, 3), n_resamples=500)
    for depth, got in zip(range(1, 7), table["score"]):  # each bin's AUROC is scikit-learn's on its rows
        part = rows[rows["depth"] == depth]
        assert got == pytest.approx(skm.roc_auc_score(part["target"].astype(int), part["p1"]), abs=1e-12)
    assert table["in_range"].tolist() == [True, True, True, False, False, False]
    assert table["tested"].tolist() == [False, False, False, True, True, True]
    assert table["below"].tolist() == [False, False, False, False, True, True]
    assert corpus_break(table) == 5.0
    assert (table.loc[4:, "gap"] < 0).all() and (table.loc[4:, "p_holm"] < 0.001).all()
    flat = corpus_curve("auroc", _curve_rows(2, worse_from=None), "depth", train_range=(1, 3), n_resamples=500)
    assert corpus_break(flat) is None and (flat["p_holm"].dropna() > 0.05).all()


def test_a_break_in_a_loss_is_a_rise_and_undefined_bins_are_named() -> None:
    rows = _curve_rows(3, worse_from=4)
    rows.loc[rows["depth"] >= 4, "confidence"] = rows.loc[rows["depth"] >= 4, "confidence"].clip(lower=0.97)
    table = corpus_curve("ece", rows, "depth", n_resamples=500)  # no training range: the first bin is the reference
    assert table["in_range"].tolist() == [True] + [False] * 5
    assert corpus_break(table) == 4.0 and (table.loc[3:, "gap"] > 0).all()
    one_class = rows.copy()
    one_class.loc[one_class["depth"] == 6, "target"] = "1"
    t = corpus_curve("auroc", one_class, "depth", n_resamples=500)
    assert pd.isna(t.loc[5, "score"]) and "one class only" in t.loc[5, "note"] and not t.loc[5, "tested"]
    with pytest.raises(DataError, match="No bin of 'depth' lies inside the training range"):
        corpus_curve("auroc", rows, "depth", train_range=(10, 12))


def test_the_permutation_break_test_holds_its_level_where_ece_is_biased_by_size() -> None:
    # A 60-row bin against a 600-row reference, equally calibrated: the small bin's plug-in ECE is
    # larger by its bias alone. The permutation test's one-sided p-values stay at or above uniform.
    from gengap.analysis.corpus import _metric, _permutation_p

    rng = np.random.default_rng(11)
    ps = []
    for r in range(120):
        rows = _rows(660, 500 + r, overconfident=1.0)
        ps.append(_permutation_p(_metric("ece"), rows.iloc[:60], rows.iloc[60:], 199, rng))
    ps_arr = np.array(ps)
    assert ps_arr.min() >= 1 / 200
    assert np.mean(ps_arr < 0.10) <= 0.10 + 3 * np.sqrt(0.09 / 120)
    assert np.mean(ps_arr < 0.5) > 0.3  # not a test that never rejects: p spreads over (0, 1)
    # worse calibration in the bin is found
    bad = _rows(660, 7, overconfident=1.0)
    bad.loc[:59, "confidence"] = bad.loc[:59, "confidence"].clip(lower=0.97)
    assert _permutation_p(_metric("ece"), bad.iloc[:60], bad.iloc[60:], 199, rng) < 0.05


def test_an_unknown_break_test_is_refused() -> None:
    with pytest.raises(DataError, match="Unknown break test 'wald'"):
        corpus_curve("ece", _curve_rows(1, worse_from=None), "depth", test="wald")


def _losses(rows: pd.DataFrame) -> np.ndarray:
    y, p = rows["target"].astype(int).to_numpy(), rows["p1"].to_numpy()
    return (p - y) ** 2


def test_the_t_gap_of_brier_is_scipys_welch_and_paired_t() -> None:
    a, b = _rows(150, 11), _rows(400, 12, sharp=0.5)
    welch = corpus_gap("brier", a, b, paired=False, method="t")
    ref = scipy.stats.ttest_ind(_losses(a), _losses(b), equal_var=False)
    ci = ref.confidence_interval(0.95)
    assert welch.effect.method == "welch" and welch.test == "welch"
    assert (welch.effect.low, welch.effect.high) == pytest.approx((ci.low, ci.high), abs=1e-12)
    assert welch.p_value == pytest.approx(ref.pvalue, rel=1e-9)
    c, d = _rows(300, 13), _rows(300, 13, overconfident=3.0)  # the same rows, another model
    paired = corpus_gap("brier", c, d, method="t")
    ref = scipy.stats.ttest_rel(_losses(c), _losses(d))
    ci = ref.confidence_interval(0.95)
    assert paired.effect.method == "t-paired"
    assert (paired.effect.low, paired.effect.high) == pytest.approx((ci.low, ci.high), abs=1e-12)
    assert paired.p_value == pytest.approx(ref.pvalue, rel=1e-9)
    with pytest.raises(ConfigError, match="brier and log_loss"):
        corpus_gap("macro_f1", a, b, method="t")
    with pytest.raises(ConfigError, match="choose one of"):
        corpus_gap("brier", a, b, method="studentised")


def test_the_paired_bca_gap_of_a_mean_is_scipys_bca_of_the_row_differences() -> None:
    c, d = _rows(250, 14), _rows(250, 14, overconfident=2.5)
    gap = corpus_gap("brier", c, d, method="bca", n_resamples=20_000)
    assert gap.effect.method == "bootstrap-paired-bca"
    ref = scipy.stats.bootstrap((_losses(c) - _losses(d),), np.mean, method="BCa", n_resamples=20_000,
                                random_state=0).confidence_interval
    width = ref.high - ref.low
    assert gap.effect.low == pytest.approx(ref.low, abs=0.04 * width)
    assert gap.effect.high == pytest.approx(ref.high, abs=0.04 * width)


def test_a_bca_gaps_p_value_agrees_with_its_interval() -> None:
    for seed, sharp in ((15, 1.0), (16, 0.6), (17, 0.3), (18, 0.8)):
        a, b = _rows(200, seed), _rows(600, seed + 100, sharp=sharp)
        for metric in ("macro_f1", "ece", "log_loss"):
            test = corpus_gap(metric, a, b, paired=False, method="bca", n_resamples=2_000)
            excludes = test.effect.low > 0 or test.effect.high < 0
            assert excludes == (test.p_value < 0.05) or abs(test.p_value - 0.05) < 0.01, (seed, metric, test)


def test_the_paired_delong_test_pairs_the_components_row_by_row() -> None:
    # DeLong's structural components written out pairwise (Sun and Xu's notation), row by row
    rng = np.random.default_rng(19)
    n = 120
    y = rng.integers(0, 2, n).astype(bool)
    x1 = np.round(rng.normal(size=n) + y, 1)  # ties too
    x2 = np.round(0.6 * x1 + rng.normal(size=n) * 0.8 + 0.3 * y, 1)

    def components(s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        psi = (s[y][:, None] > s[~y][None, :]) + 0.5 * (s[y][:, None] == s[~y][None, :])
        return psi.mean(axis=1), psi.mean(axis=0)

    frame = lambda s: pd.DataFrame({"example_id": np.arange(n), "target": y.astype(int).astype(str),
                                    "output": (s > 0.5).astype(int).astype(str), "confidence": 1 / (1 + np.exp(-np.abs(s - 0.5)))})

    def p1(s: np.ndarray) -> np.ndarray:  # the probability of '1' the rows imply
        f = frame(s)
        return np.where(f["output"] == "1", f["confidence"], 1 - f["confidence"])

    (a10, a01), (b10, b01) = components(p1(x1)), components(p1(x2))
    var = np.var(a10 - b10, ddof=1) / a10.size + np.var(a01 - b01, ddof=1) / a01.size
    test = corpus_gap("auroc", frame(x1), frame(x2))
    assert test.test == "delong-paired"
    assert test.effect.estimate == pytest.approx(a10.mean() - b10.mean(), abs=1e-12)
    se = (test.effect.high - test.effect.low) / (2 * scipy.stats.norm.ppf(0.975))
    assert se == pytest.approx(np.sqrt(var), rel=1e-9)


def test_the_span_interval_of_ece_is_both_normal_intervals_joined() -> None:
    # the estimate's and the bias-corrected estimate's normal intervals, from the same resamples
    rows = _rows(300, 41)
    data = corpus_data(rows)
    for metric in ("ece", "ece_adaptive"):
        ci = corpus_score(metric, rows, n_resamples=2_000, seed=5, method="span")
        boot = resample_statistic(get_metric(metric).statistic(data), 300, 2_000, np.random.default_rng(5))
        z, se, corrected = scipy.stats.norm.ppf(0.975), boot.std(ddof=1), 2 * ci.estimate - boot.mean()
        assert corrected < ci.estimate  # the resamples sit above the estimate: the plug-in is biased upward
        assert ci.low == pytest.approx(max(0.0, corrected - z * se), abs=1e-12), metric
        assert ci.high == pytest.approx(ci.estimate + z * se, abs=1e-12), metric
        assert ci.method == "bootstrap-span"
    # many rows and resamples: the bins' counts are drawn exactly, and the interval is still a span
    big = corpus_score("ece", _rows(3_000, 42), n_resamples=5_000, seed=1)
    assert big.method == "bootstrap-bins-span" and big.low < big.estimate < big.high


def test_the_debiased_ece_interval_is_read_on_the_squared_scale() -> None:
    rows = _rows(400, 43)
    data = corpus_data(rows)
    stat = get_metric("ece_debiased").statistic(data)
    square = float(stat.squared(np.ones((1, 400)))[0])  # type: ignore[attr-defined]
    assert np.sqrt(max(square, 0.0)) == pytest.approx(float(stat(np.ones((1, 400)))[0]), abs=1e-15)
    ci = corpus_score("ece_debiased", rows, n_resamples=2_000, seed=3)
    squares = resample_statistic(stat.squared, 400, 2_000, np.random.default_rng(3))  # type: ignore[attr-defined]
    half = scipy.stats.norm.ppf(0.975) * squares.std(ddof=1)
    assert ci.method == "bootstrap-normal-squared"
    assert ci.low == pytest.approx(np.sqrt(max(square - half, 0.0)), abs=1e-12)
    assert ci.high == pytest.approx(np.sqrt(square + half), abs=1e-12)
    # a calibrated model: the squared error's interval reaches below 0, so the interval starts at 0
    calibrated = corpus_score("ece_debiased", _rows(400, 44, overconfident=1.0), n_resamples=1_000)
    assert calibrated.low == 0.0 and calibrated.high > calibrated.estimate
    with pytest.raises(ConfigError, match="normal-squared' is for ece_debiased"):
        corpus_score("ece", rows, method="normal-squared")


def test_every_corpus_interval_warns_where_the_benchmark_finds_it_short() -> None:
    # the grid's short cells: n = 50; about 5 positives (1% of 500); ECE below 200 rows, adaptive ECE below 500
    small = _rows(50, 21)
    for metric in ("auroc", "pr_auc", "macro_f1", "mcc", "brier", "aurc"):
        assert "rough below 100 rows" in corpus_score(metric, small, n_resamples=200).warning, metric
    assert "interval of ece covers less than 94% below 200 rows (0.84 at n = 50" in corpus_score(
        "ece", small, n_resamples=200).warning
    rare = _rows(500, 22)
    rare["target"] = ["1"] * 5 + ["0"] * 495  # 5 positives
    for metric in ("auroc", "pr_auc", "brier", "log_loss"):
        assert "has 5 rows: too few for the interval" in corpus_score(metric, rare, n_resamples=200).warning, metric
    assert "interval of ece covers less than 94% below 200 rows" in corpus_score("ece", _rows(150, 23), n_resamples=200).warning
    adaptive = corpus_score("ece_adaptive", _rows(300, 23), n_resamples=200).warning
    assert "interval of ece_adaptive covers less than 94% below 500 rows" in adaptive
    # where the held-out grid covers, no row-count warning: ECE from 200 rows, adaptive ECE from 500, the debiased
    # ECE at any n; at 300 and 500 rows the grid's ECE of 0.06 is within reach of the noise floor, which warns
    for metric, n in (("ece", 300), ("ece_adaptive", 500)):
        warning = corpus_score(metric, _rows(n, 23), n_resamples=200).warning
        assert "94% below" not in warning and "a perfectly calibrated model would show" in warning, (metric, n)
    for metric, n in (("ece_debiased", 150), ("ece", 2_000), ("auroc", 2_000)):
        assert corpus_score(metric, _rows(n, 23), n_resamples=200).warning == "", (metric, n)


def test_an_ece_near_its_noise_floor_warns_to_read_the_debiased_one() -> None:
    # the floor is the plug-in ECE a calibrated model shows: its mean over rows drawn right with probability
    # their own confidence, at the same bins
    rng = np.random.default_rng(61)
    conf = np.clip(0.5 + np.abs(rng.normal(0, 0.25, 800)), 0.5, 0.999)
    right = (rng.uniform(size=(300, 800)) < conf).astype(float)
    for adaptive in (False, True):
        bins = ece_bins(conf, adaptive=adaptive)
        drawn = [weighted_ece(r, conf, bins, np.ones((1, 800)))[0] for r in right]
        assert ece_noise_floor(conf, bins) == pytest.approx(np.mean(drawn), rel=0.05)
    # a calibrated model (the exact posterior) warns for ece and ece_adaptive and names the fix
    calibrated = _rows(2_000, 62, overconfident=1.0)
    for metric in ("ece", "ece_adaptive"):
        warning = corpus_score(metric, calibrated, n_resamples=300).warning
        assert "a perfectly calibrated model would show" in warning and "read ece_debiased" in warning, metric
    assert "calibrated" not in corpus_score("ece_debiased", calibrated, n_resamples=300).warning
    # a clearly miscalibrated one (logit x 2) does not
    for metric in ("ece", "ece_adaptive"):
        assert corpus_score(metric, _rows(2_000, 62, overconfident=2.0), n_resamples=300).warning == "", metric


def test_a_gap_warns_when_one_side_has_too_few_right_predictions() -> None:
    # the --gaps cell whose MCC gap covered 0.91: a 600-row part at 10% prevalence, 2-3 positives predicted right
    rng = np.random.default_rng(45)
    y = (rng.uniform(size=600) < 0.1).astype(int)
    post = 1 / (1 + np.exp(-(np.log(1 / 9) + rng.normal(size=600) + y - 0.5)))
    rare = pd.DataFrame({"target": y.astype(str), "output": (post > 0.5).astype(int).astype(str),
                         "confidence": np.maximum(post, 1 - post)})
    right = int(((rare["target"] == "1") & (rare["output"] == "1")).sum())
    assert right < 10
    balanced = _rows(200, 46)
    for method in ("auto", "bca"):
        gap = corpus_gap("mcc", balanced, rare, n_resamples=500, method=method).effect
        assert f"one side: label '1' is predicted right only {right} times" in gap.warning, method
    assert corpus_gap("mcc", balanced, _rows(600, 47), n_resamples=500).effect.warning == ""
    brier = corpus_gap("brier", balanced, rare, n_resamples=500).effect  # Welch's t: the rarer class has 20+ rows
    assert brier.method == "welch" and "predicted right" not in brier.warning
    # calibration errors: the adaptive ECE's gap of a 200-row part is short (0.90), ECE's and the debiased one's cover
    big = _rows(600, 48)
    adaptive = corpus_gap("ece_adaptive", balanced, big, n_resamples=500).effect
    assert "one side: n = 200: the interval of ece_adaptive covers less than 94% below 500 rows" in adaptive.warning
    assert corpus_gap("ece", balanced, big, n_resamples=500).effect.warning == ""
    debiased = corpus_gap("ece_debiased", balanced, big, n_resamples=500).effect
    assert debiased.method == "bootstrap-independent-span" and debiased.warning == ""
    # paired (the same examples): the debiased ECE's percentile interval; the adaptive ECE's paired gap warns
    other = big.assign(confidence=np.clip(big["confidence"] * 0.9 + 0.08, 0.5, 1.0))
    paired = corpus_gap("ece_debiased", big, other, n_resamples=500).effect
    assert paired.method == "bootstrap-paired" and paired.warning == ""
    assert "paired gap of ece_adaptive covers about 0.88" in corpus_gap("ece_adaptive", big, other,
                                                                        n_resamples=500).effect.warning


def test_one_predicted_label_is_a_warning_for_label_metrics_only() -> None:
    rows = _rows(2_000, 24)
    rows["output"], rows["confidence"] = "0", 1 - rows["p1"]  # every output '0'; its probabilities still vary
    assert "label metrics cannot vary" in corpus_score("macro_f1", rows, n_resamples=200).warning
    for metric in ("auroc", "brier", "pr_auc"):  # scored on the probabilities, not the predicted label
        assert "cannot vary" not in corpus_score(metric, rows, n_resamples=200).warning, metric
