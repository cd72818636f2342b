"""Several samples per item: the unbiased pass@k against its closed form and brute force, maj@k,
agreement, the within/between variance split and the item-clustered interval."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gengap._errors import DataError
from gengap.analysis.samples import pass_at_k, sample_summary


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 40), st.data())
def test_pass_at_k_is_the_closed_form(n, data):
    c = data.draw(st.integers(0, n))
    k = data.draw(st.integers(1, n))
    closed = 1 - math.comb(n - c, k) / math.comb(n, k)
    assert pass_at_k(n, c, k)[0] == pytest.approx(closed, abs=1e-12)


def test_pass_at_k_is_the_share_of_k_subsets_with_a_right_sample():
    right = [1, 0, 0, 1, 0, 0, 0]
    for k in range(1, 8):
        subsets = list(itertools.combinations(right, k))
        assert pass_at_k(7, 2, k)[0] == pytest.approx(np.mean([max(s) for s in subsets]))


def test_pass_at_1_is_the_mean_and_pass_at_n_any_right():
    assert pass_at_k([5, 5], [2, 0], 1).tolist() == pytest.approx([0.4, 0.0])
    assert pass_at_k([5, 5], [1, 0], 5).tolist() == [1.0, 0.0]
    with pytest.raises(DataError, match="at least 6 samples"):
        pass_at_k([5], [1], 6)


def test_sample_summary_splits_sampling_noise_from_item_differences():
    rng = np.random.default_rng(0)
    n_items, k = 300, 8
    rate = rng.beta(2, 2, size=n_items)
    score = (rng.random((n_items, k)) < rate[:, None]).astype(float)
    rows = pd.DataFrame({"example_id": np.repeat(np.arange(n_items), k), "sample": np.tile(np.arange(k), n_items),
                         "score": score.ravel(), "answer": np.where(score.ravel() == 1, "right", "wrong")})
    s = sample_summary(rows, ks=(1, 4))
    assert s["pass@1"] == pytest.approx(score.mean())
    assert s["pass@1"] < s["pass@4"] < s["pass@8"] <= 1
    # Beta(2, 2) rates: within = E[p(1 - p)] = 0.2, between = Var(p) = 0.05
    assert s["within"] == pytest.approx(0.2, abs=0.02) and s["between"] == pytest.approx(0.05, abs=0.015)
    assert s["noise_share"] == pytest.approx(0.8, abs=0.05)
    assert s["maj@8"] == pytest.approx(np.mean(score.sum(1) > 4) + 0.0, abs=np.mean(score.sum(1) == 4))
    assert s["score"]["n_clusters"] == n_items and s["score"]["method"] == "korn-graubard"


def test_items_with_missing_samples_are_named():
    rows = pd.DataFrame({"example_id": ["a", "a", "b"], "sample": [0, 1, 0], "score": [1, 0, 1]})
    with pytest.raises(DataError, match="1 item.*fewer than 2 samples.*'b'"):
        sample_summary(rows)
