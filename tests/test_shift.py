"""Two-sample shift tests: they detect a real shift, stay quiet on i.i.d. parts, handle odd input."""

from __future__ import annotations

import numpy as np
import pytest

import gengap
from gengap import ConfigError, DataError
from gengap.analysis.shift_tests import SHIFT_COLUMNS, classifier_test, detect_shift, mmd_test


def _text(rng, n, shifted):
    common = ["order", "late", "refund", "box", "ship", "help"]
    rare = ["warranty", "broken", "repair"] if shifted else ["thanks", "great", "fast"]
    words = common + rare
    return [" ".join(rng.choice(words, size=6)) for _ in range(n)]


def test_classifier_test_detects_covariate_shift_in_text():
    rng = np.random.default_rng(0)
    result = classifier_test(_text(rng, 150, False), _text(rng, 150, True))
    assert result.test == "classifier" and result.statistic == "auc"
    assert result.estimate > 0.9 and result.low > 0.8 and result.p_value < 1e-6
    assert (result.n_a, result.n_b) == (150, 150)


def test_mmd_detects_a_mean_shift_and_not_noise():
    rng = np.random.default_rng(1)
    a = rng.normal(size=(100, 3)).tolist()
    assert mmd_test(a, (rng.normal(size=(100, 3)) + 0.7).tolist(), n_permutations=299).p_value < 0.01
    assert mmd_test(a, rng.normal(size=(100, 3)).tolist(), n_permutations=299).p_value > 0.05


def test_false_positive_rate_is_near_the_level():
    """i.i.d. halves of one sample, 60 seeds: each test rejects at about the 5% level."""
    rejections = {"classifier": 0, "mmd": 0}
    for seed in range(60):
        x = np.random.default_rng(seed).normal(size=(120, 2))
        a, b = x[:60].tolist(), x[60:].tolist()
        rejections["classifier"] += classifier_test(a, b, seed=seed).p_value < 0.05
        rejections["mmd"] += mmd_test(a, b, n_permutations=199, seed=seed).p_value < 0.05
    # binomial(60, 0.05): 0..8 rejections covers 99.6% of the mass
    assert rejections["classifier"] <= 8 and rejections["mmd"] <= 8


def test_detect_shift_on_a_split_inputs_and_labels():
    rng = np.random.default_rng(2)
    rows = [{"input": t, "target": "complaint" if "broken" in t or "late" in t else "other", "site": site}
            for site, shifted in (("north", False), ("south", True)) for t in _text(rng, 100, shifted)]
    ds = gengap.load(rows)
    by_site = gengap.splits.GroupSplit(group="site", holdout="south").split_dataset(ds)
    table = detect_shift(by_site, n_permutations=299)
    assert list(table.columns) == SHIFT_COLUMNS
    assert table.set_index(["on", "test"]).loc[("inputs", "classifier"), "shift"]
    assert table.set_index(["on", "test"]).loc[("inputs", "mmd"), "shift"]
    iid = gengap.RandomSplit(test_fraction=0.5, seed=0).split_dataset(ds)
    # one i.i.d. draw may fall in the 5% tail by chance (the rate over many seeds is tested above);
    # it must not look anything like the real shift
    iid_p = detect_shift(iid, on=["inputs"], n_permutations=299)["p_value"]
    assert iid_p.min() > 0.01 and table["p_value"].iloc[:2].max() < 0.005


def test_identical_samples_and_bad_input():
    same = ["a b c"] * 20
    result = classifier_test(same, same)
    assert result.estimate == 0.5 and result.p_value == 1.0
    assert mmd_test(same, same, n_permutations=199).p_value == 1.0
    with pytest.raises(DataError, match="at least 4"):
        classifier_test(["a"], ["b", "c", "d", "e"])
    with pytest.raises(ConfigError, match="too few"):
        mmd_test(same, same, n_permutations=10)
    with pytest.raises(ConfigError, match="'inputs' or 'labels'"):
        detect_shift(gengap.RandomSplit().split_dataset(gengap.load([{"input": f"{i}", "target": "t"} for i in range(20)])),
                     on=["outputs"])
