"""Atom and compound divergence: hand-computed values and properties (hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from gengap._errors import ConfigError
from gengap.structure.divergence import (
    IncrementalDivergence,
    atom_divergence,
    chernoff_coefficient,
    compound_divergence,
    divergence,
)


def test_hand_computed_values():
    # P = (1/2, 1/2, 0), Q = (1/4, 1/4, 1/2): C_0.5 = 2 * sqrt(1/8); C_0.1 = 2 * (1/2)^0.1 (1/4)^0.9
    p, q = [2, 2, 0], [1, 1, 2]
    assert atom_divergence(p, q) == pytest.approx(1 - 2 * np.sqrt(1 / 8))
    assert compound_divergence(p, q) == pytest.approx(1 - 2 * 0.5 ** 0.1 * 0.25 ** 0.9)
    assert chernoff_coefficient([1, 3], [3, 1], alpha=0.5) == pytest.approx(2 * np.sqrt(3) / 4)


def test_repeated_occurrences_count():
    # an n-gram twice in one example weighs twice: (2, 1) vs (1, 1) differ
    assert compound_divergence([2, 1], [1, 1]) > 0
    assert compound_divergence([2, 2], [1, 1]) == pytest.approx(0.0, abs=1e-12)


def test_empty_conventions_and_bad_input():
    assert divergence([0, 0], [0, 0], alpha=0.5) == 0.0
    assert divergence([0, 0], [1, 0], alpha=0.5) == 1.0
    with pytest.raises(ConfigError, match="alpha"):
        divergence([1], [1], alpha=1.0)
    with pytest.raises(ConfigError, match="non-negative"):
        divergence([-1, 2], [1, 1], alpha=0.5)
    with pytest.raises(ConfigError, match="same types"):
        divergence([1, 2], [1, 1, 1], alpha=0.5)


counts = st.lists(st.integers(0, 20), min_size=1, max_size=12)


@settings(max_examples=200, deadline=None)
@given(counts, counts, st.sampled_from([0.1, 0.5, 0.9]))
def test_divergence_in_unit_interval(p, q, alpha):
    k = min(len(p), len(q))
    d = divergence(p[:k], q[:k], alpha=alpha)
    assert 0.0 <= d <= 1.0


@settings(max_examples=200, deadline=None)
@given(counts, st.integers(1, 5))
def test_zero_for_identical_distributions(p, scale):
    if sum(p) == 0:
        p = p + [1]
    assert atom_divergence(p, [scale * x for x in p]) == pytest.approx(0.0, abs=1e-9)
    assert compound_divergence(p, [scale * x for x in p]) == pytest.approx(0.0, abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 9), min_size=1, max_size=6), st.lists(st.integers(1, 9), min_size=1, max_size=6))
def test_one_for_disjoint_supports(a, b):
    p = a + [0] * len(b)
    q = [0] * len(a) + b
    assert atom_divergence(p, q) == 1.0
    assert compound_divergence(p, q) == 1.0


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_incremental_updates_equal_recomputation(data):
    n = data.draw(st.integers(2, 12))
    k = data.draw(st.integers(1, 6))
    dense = np.array(data.draw(st.lists(st.lists(st.integers(0, 3), min_size=k, max_size=k), min_size=n, max_size=n)))
    in_test = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    alpha = data.draw(st.sampled_from([0.1, 0.5]))
    inc = IncrementalDivergence(sp.csr_matrix(dense), in_test, alpha=alpha)
    for _ in range(data.draw(st.integers(1, 6))):
        rows = np.unique(np.array(data.draw(st.lists(st.integers(0, n - 1), max_size=4)), dtype=np.int64))
        to_test = data.draw(st.booleans())
        rows = rows[in_test[rows] != to_test]  # the search moves examples from the other side only
        inc.move(to_test=rows) if to_test else inc.move(to_train=rows)
        in_test[rows] = to_test
        fresh = divergence(dense[~in_test].sum(axis=0), dense[in_test].sum(axis=0), alpha=alpha)
        assert inc.value == pytest.approx(fresh, abs=1e-9)
