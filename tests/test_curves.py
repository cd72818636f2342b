"""Score curves: bins, intervals, tests, the break point and the halving point."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy.stats import fisher_exact, ttest_ind
from sklearn.isotonic import isotonic_regression

from gengap._errors import ConfigError, DataError
from gengap.analysis._monotone import decreasing_isotonic, first_crossing
from gengap.analysis.curves import (
    CURVE_COLUMNS,
    axis_values,
    bin_axis,
    curve_from_rows,
    holm,
    score_curve,
)


def _addition_like(n: int = 6000, seed: int = 0, flat: bool = False) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    digits = rng.integers(1, 11, n)
    p = np.full(n, 0.9) if flat else np.where(digits <= 5, 0.9, np.maximum(0.9 - 0.25 * (digits - 5), 0.02))
    return (rng.random(n) < p).astype(float), digits


def test_holm_against_hand_computed_values_and_nan() -> None:
    p = np.array([0.01, np.nan, 0.04, 0.03, 0.005])
    # sorted: 0.005*4=0.02, 0.01*3=0.03, 0.03*2=0.06, 0.04*1=0.04 -> monotone 0.06
    assert np.allclose(holm(p), [0.03, np.nan, 0.06, 0.06, 0.02], equal_nan=True)
    rows = holm(np.array([[0.5, 0.9], [0.01, 0.02]]))
    assert np.allclose(rows, [[1.0, 1.0], [0.02, 0.02]])  # 0.5 * 2 capped at 1


def test_isotonic_matches_scikit_learn() -> None:
    rng = np.random.default_rng(3)
    for k in (1, 2, 7, 31):
        y = rng.random((40, k))
        w = rng.integers(1, 100, k).astype(float)
        ref = np.array([isotonic_regression(r, sample_weight=w, increasing=False) for r in y])
        assert np.allclose(decreasing_isotonic(y, w), ref)


def test_first_crossing() -> None:
    x = np.array([1.0, 2.0, 4.0])
    fit = np.array([[1.0, 0.6, 0.2], [0.3, 0.2, 0.1], [0.9, 0.9, 0.8]])
    assert first_crossing(x, fit, np.array([0.4, 0.5, 0.5])).tolist() == [3.0, 1.0, np.inf]


def test_bins_unique_quantile_and_edges() -> None:
    idx, edges = bin_axis(np.array([1, 1, 2, 5]))
    assert edges[:, 0].tolist() == [1, 2, 5] and idx.tolist() == [0, 0, 1, 2]
    v = np.arange(1000.0)
    idx, edges = bin_axis(v)  # many values: 10 quantile bins of ~100 each
    assert len(edges) == 10 and np.bincount(idx).min() >= 99
    idx, edges = bin_axis(v, 4)
    assert len(edges) == 4 and edges[0, 0] == 0 and edges[-1, 1] == 999
    idx, edges = bin_axis(np.array([0, 4.9, 5, 10]), [0, 5, 10])
    assert idx.tolist() == [0, 0, 1, 1] and edges.tolist() == [[0, 5], [5, 10]]
    with pytest.raises(ConfigError, match="increasing edges"):
        bin_axis(v, [5, 1])
    with pytest.raises(DataError, match="outside the bin edges"):
        bin_axis(np.array([0, 11]), [0, 10])
    with pytest.raises(ConfigError, match="bins="):
        bin_axis(v, "deciles")


def test_known_break_is_found_with_interval() -> None:
    s, d = _addition_like()
    c = score_curve(s, d, axis_name="n_digits", train_range=(1, 5), n_resamples=2000)
    t = c.to_table()
    assert list(t.columns) == CURVE_COLUMNS and t["n"].sum() == 6000
    assert t["in_range"].tolist() == [True] * 5 + [False] * 5
    assert c.break_value == 6.0 and c.break_low == 6.0 and c.break_high == 6.0
    # truth: 0.9 -> 0.45 between 6 (0.65) and 7 (0.40): at 6.8; the isotonic fit interpolates near it
    assert 6.4 < c.half_value < 7.2 and c.half_low <= c.half_value <= c.half_high
    assert c.interval == "clopper-pearson" and c.test == "fisher"


def test_flat_curve_has_no_break_and_does_not_halve() -> None:
    s, d = _addition_like(flat=True)
    c = score_curve(s, d, train_range=(1, 5), n_resamples=2000)
    assert c.break_value is None and c.half_value is None
    assert not c.to_table()["below"].any()


def test_fisher_p_values_match_scipy() -> None:
    s, d = _addition_like(n=800, seed=1)
    c = score_curve(s, d, train_range=(1, 5), n_resamples=1000)
    t = c.to_table()
    ref_x, ref_n = int(s[d <= 5].sum()), int((d <= 5).sum())
    for row in t[t["tested"]].itertuples():
        x = round(row.score * row.n)
        expected = fisher_exact([[x, row.n - x], [ref_x, ref_n - ref_x]], alternative="less").pvalue
        assert row.p_value == pytest.approx(expected, rel=1e-9)


def test_continuous_scores_use_welch_and_bootstrap() -> None:
    rng = np.random.default_rng(2)
    d = rng.integers(1, 8, 3000)
    s = np.clip(np.where(d <= 3, 0.8, 0.8 - 0.15 * (d - 3)) + rng.normal(0, 0.1, 3000), 0, 1)
    c = score_curve(s, d, train_range=(1, 3), n_resamples=2000)
    t = c.to_table()
    assert c.interval == "bootstrap" and c.test == "welch"
    row = t[t["value"] == 5].iloc[0]
    expected = ttest_ind(s[d == 5], s[d <= 3], equal_var=False, alternative="less").pvalue
    assert row.p_value == pytest.approx(expected, rel=1e-6, abs=1e-300)
    assert (t["score_low"] <= t["score"]).all() and (t["score"] <= t["score_high"]).all()
    assert c.break_value == 4.0


def test_no_train_range_uses_first_bin_and_same_seed_same_curve() -> None:
    s, d = _addition_like(n=2000, seed=4)
    a = score_curve(s, d, n_resamples=1000, seed=7)
    b = score_curve(s, d, n_resamples=1000, seed=7)
    assert a.to_dict() == b.to_dict()
    assert a.to_table()["in_range"].tolist() == [True] + [False] * 9
    json.dumps(a.to_dict(), allow_nan=False)


def test_bad_inputs_name_the_problem() -> None:
    with pytest.raises(DataError, match="3 scores but 2 axis values"):
        score_curve([1, 0, 1], [1, 2])
    with pytest.raises(DataError, match="not numeric"):
        score_curve([1, 0], ["a", "b"], axis_name="level")
    with pytest.raises(DataError, match="training range"):
        score_curve([1, 0], [5, 6], train_range=(1, 2))
    with pytest.raises(ConfigError, match="low end"):
        score_curve([1, 0], [5, 6], train_range=(3, 2))
    with pytest.raises(DataError, match="no value of 'depth'"):
        score_curve([1, 0], [1, np.nan], axis_name="depth")


def test_axis_values_and_curve_from_rows() -> None:
    rows = pd.DataFrame({
        "model": "m", "metric": "exact_match", "perturbation": "none", "split": ["random"] * 4 + ["length"] * 4,
        "example_id": list("abcdefgh"), "input": ["1+1", "2+2", "3+3", "4+4", "10+10", "11+11", "12+12", "13+13"],
        "target": ["2", "4", "6", "8", "2 0", "2 2", "2 4", "2 6"],
        "metadata": [json.dumps({"n_digits": 1})] * 4 + [json.dumps({"n_digits": 2})] * 4,
        "score": [1, 1, 1, 0, 0, 0, 0, 1],
    })
    assert axis_values(rows, "target_length").tolist() == [1] * 4 + [2] * 4
    curves = curve_from_rows(rows, "n_digits", train_range=(1, 1), n_resamples=1000)
    assert len(curves) == 1 and curves[0].to_table()["score"].tolist() == [0.75, 0.25]
    assert curves[0].model == "m" and curves[0].metric == "exact_match"
    with pytest.raises(DataError, match="n_digits") as err:
        axis_values(rows, "n_digit")
    assert "Did you mean" in str(err.value) or "n_digits" in str(err.value)
    bad = rows.assign(metadata=[json.dumps({"n_digits": "many"})] * 8)
    with pytest.raises(DataError, match="not numeric"):
        axis_values(bad, "n_digits")


def test_no_quantile_bin_straddles_the_end_of_the_training_range() -> None:
    # lengths 1..40 with the training range ending at 22: quantile bins must not mix 20-22 with 23+,
    # and the break can only be found beyond the training range
    rng = np.random.default_rng(0)
    lengths = rng.integers(1, 41, 8_000)
    scores = (rng.random(lengths.size) < np.where(lengths <= 22, 0.95, 0.2)).astype(float)
    c = score_curve(scores, lengths, axis_name="length", train_range=(1, 22), n_resamples=500)
    t = c.to_table()
    assert (t.loc[t["tested"], "low_edge"] > 22).all()
    assert t.loc[t["in_range"], "high_edge"].max() <= 23
    assert c.break_value is not None and c.break_value > 22


def test_drop_inside_the_training_range_is_named() -> None:
    # collapses at 27 words while training covered up to 42: the drop is inside the range, and said so
    from gengap.report._format import ScoreFormat
    from gengap.report.section_curves import curve_sentence

    rng = np.random.default_rng(1)
    words = rng.integers(7, 60, 6_000)
    scores = (rng.random(words.size) < np.where(words < 27, 0.75, 0.23)).astype(float)
    c = score_curve(scores, words, axis_name="input_length", train_range=(7, 42), n_resamples=500, bins=[7, 17, 27, 37, 43, 50, 60])
    t = c.to_table()
    assert t["in_range"].tolist() == [True] * 4 + [False] * 2
    assert c.drop_value == 27 and c.drop_from == 17
    sentence = curve_sentence(c, ScoreFormat(percent=True))
    assert "inside the training range the score already falls, from 7" in sentence and "at input_length 17–26 to 2" in sentence
    assert "at 27–36 (significantly below the first in-range bin)" in sentence
    assert "beyond the training range, it breaks at input_length = 43" in sentence
    flat = score_curve((rng.random(words.size) < 0.8).astype(float), words, train_range=(7, 42), n_resamples=500)
    assert flat.drop_value is None and "inside" not in curve_sentence(flat, ScoreFormat(percent=True))


def test_integer_axis_gets_integer_edges_and_break_points() -> None:
    # target lengths 1..40, trained up to 22, falling from 25 on: "breaks at 24.57 [24.6, 24.6]" and
    # bins "17 - 24" then "24 - 26" were the old reading
    rng = np.random.default_rng(2)
    lengths = rng.integers(1, 41, 8_000)
    scores = (rng.random(lengths.size) < np.where(lengths <= 24, 0.9, 0.1)).astype(float)
    c = score_curve(scores, lengths, axis_name="target_length", train_range=(1, 22), n_resamples=500)
    t = c.to_table()
    assert c.integer and c.break_value in (24.0, 25.0) and float(c.break_low).is_integer() and float(c.break_high).is_integer()
    assert c.half_value is not None and float(c.half_value).is_integer()
    assert (t["low_edge"] % 1 == 0).all() and (t["high_edge"] % 1 == 0).all()
    assert (t["low_edge"].to_numpy()[1:] > t["high_edge"].to_numpy()[:-1]).all()  # no two bins share an edge
    assert t.loc[t["in_range"], "high_edge"].max() == 22  # training marks only what was trained on
    d = c.to_dict()
    assert d["integer"] is True and d["drop_value"] is None


def test_no_training_range_sentence_names_the_first_bin_as_reference() -> None:
    from gengap.report._format import ScoreFormat
    from gengap.report.section_curves import _bins_table, curve_sentence

    s, d = _addition_like(n=2000, seed=4)
    c = score_curve(s, d, axis_name="n_digits", n_resamples=500)
    sentence = curve_sentence(c, ScoreFormat(percent=True))
    assert "in the first bin (n_digits 1), the reference: no model was trained on this axis" in sentence
    assert "beyond the training range" not in sentence
    table = _bins_table(c, ScoreFormat(percent=True), many_models=False)
    assert table["Range"].tolist()[:2] == ["reference", ""]
