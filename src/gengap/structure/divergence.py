"""Atom and compound divergence between the training and test parts of a split (Keysers et al. 2020).

For two occurrence-count vectors over the same types, normalized to frequencies P (train) and
Q (test), the Chernoff coefficient is

    C_alpha(P || Q) = sum_k P_k^alpha * Q_k^(1 - alpha)

and the divergences are

    D_A = 1 - C_0.5(P_atoms || Q_atoms)        (atom divergence; alpha 0.5 is symmetric)
    D_C = 1 - C_0.1(P_compounds || Q_compounds)  (compound divergence; alpha 0.1 weighs a test
                                                  compound as "seen" as soon as it is seen a little)

Both lie in [0, 1]: 0 for identical distributions, 1 for disjoint supports. A type that occurs
twice in an example counts twice. Conventions for empty parts: two empty count vectors have
divergence 0; one empty and one not, 1.

>>> atom_divergence([1, 1], [1, 1])
0.0
>>> compound_divergence([2, 0], [0, 3])
1.0
>>> round(chernoff_coefficient([3, 1], [1, 1], alpha=0.5), 6)  # sqrt(.75*.5) + sqrt(.25*.5)
0.965926
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from gengap._errors import ConfigError

__all__ = [
    "ATOM_ALPHA", "COMPOUND_ALPHA", "chernoff_coefficient", "divergence", "atom_divergence",
    "compound_divergence", "IncrementalDivergence",
]

#: The alpha of atom divergence (Keysers et al. 2020).
ATOM_ALPHA = 0.5
#: The alpha of compound divergence (Keysers et al. 2020).
COMPOUND_ALPHA = 0.1


def _counts(x: Any, name: str) -> np.ndarray:
    arr = np.asarray(x.toarray() if sp.issparse(x) else x, dtype=np.float64).ravel()
    if arr.size and (not np.isfinite(arr).all() or arr.min() < 0):
        raise ConfigError(f"{name} must hold finite non-negative counts.")
    return arr


def _check_alpha(alpha: float) -> None:
    if not 0 < alpha < 1:
        raise ConfigError(f"alpha={alpha!r} must lie strictly between 0 and 1.")


def _chernoff_sum(p: np.ndarray, q: np.ndarray, alpha: float) -> float:
    both = (p > 0) & (q > 0)
    return float(np.sum(p[both] ** alpha * q[both] ** (1 - alpha)))


def chernoff_coefficient(p: Any, q: Any, *, alpha: float) -> float:
    """C_alpha(P || Q) of two count vectors (normalized here); 1 when both are empty, 0 when one is."""
    _check_alpha(alpha)
    p, q = _counts(p, "p"), _counts(q, "q")
    if p.shape != q.shape:
        raise ConfigError(f"p and q must count the same types: shapes {p.shape} and {q.shape}.")
    tp, tq = p.sum(), q.sum()
    if tp == 0 or tq == 0:
        return 1.0 if tp == tq else 0.0
    return min(1.0, _chernoff_sum(p / tp, q / tq, alpha))


def divergence(p: Any, q: Any, *, alpha: float) -> float:
    """1 - C_alpha(P || Q), clipped to [0, 1] against rounding."""
    return float(min(1.0, max(0.0, 1.0 - chernoff_coefficient(p, q, alpha=alpha))))


def atom_divergence(train_counts: Any, test_counts: Any) -> float:
    """D_A = 1 - C_0.5 of the training and test atom counts.

    >>> round(atom_divergence([2, 2], [1, 3]), 6)  # 1 - (sqrt(.5*.25) + sqrt(.5*.75))
    0.034074
    """
    return divergence(train_counts, test_counts, alpha=ATOM_ALPHA)


def compound_divergence(train_counts: Any, test_counts: Any) -> float:
    """D_C = 1 - C_0.1 of the training and test compound counts.

    >>> round(compound_divergence([9, 1], [0, 1]), 6)  # 1 - 0.1**0.1 * 1**0.9
    0.205672
    """
    return divergence(train_counts, test_counts, alpha=COMPOUND_ALPHA)


class IncrementalDivergence:
    """A divergence kept up to date while examples move between train and test.

    Holds the train and test count vectors and the unnormalized sum
    ``S = sum_k train_k^alpha * test_k^(1-alpha)``; then ``C = S / (T^alpha * E^(1-alpha))``
    with T and E the totals. Moving examples updates only the types they contain.

    Parameters
    ----------
    counts : sparse (n_examples, n_types) counts.
    in_test : boolean mask of shape (n_examples,), the starting test part (the rest is train).
    alpha : the Chernoff alpha (0.5 for atoms, 0.1 for compounds).

    >>> import scipy.sparse as sp, numpy as np
    >>> counts = sp.csr_matrix(np.array([[1, 0], [0, 1], [1, 1]]))
    >>> d = IncrementalDivergence(counts, np.array([False, True, False]), alpha=0.1)
    >>> d.move([2], to_test=True)
    >>> round(d.value, 6) == round(compound_divergence([1, 0], [1, 2]), 6)
    True
    """

    def __init__(self, counts: sp.spmatrix, in_test: np.ndarray, *, alpha: float) -> None:
        _check_alpha(alpha)
        self.counts = sp.csr_matrix(counts, dtype=np.float64)
        self.alpha = alpha
        self.in_test = np.asarray(in_test, dtype=bool).copy()
        self.test = np.asarray(self.counts[self.in_test].sum(axis=0)).ravel()
        self.train = np.asarray(self.counts.sum(axis=0)).ravel() - self.test
        self.train[self.train < 0] = 0.0
        self._sum = float(np.sum(self._terms(self.train, self.test)))

    def _terms(self, train: np.ndarray, test: np.ndarray) -> np.ndarray:
        return np.power(np.maximum(train, 0), self.alpha) * np.power(np.maximum(test, 0), 1 - self.alpha)

    @property
    def coefficient(self) -> float:
        """The current Chernoff coefficient C_alpha(train || test)."""
        t, e = self.train.sum(), self.test.sum()
        if t <= 0 or e <= 0:
            return 1.0 if t == e else 0.0
        return float(min(1.0, self._sum / (t ** self.alpha * e ** (1 - self.alpha))))

    @property
    def value(self) -> float:
        """The current divergence 1 - C."""
        return max(0.0, 1.0 - self.coefficient)

    def move(self, examples: Any, *, to_test: bool) -> None:
        """Move ``examples`` (positions) to the test part (``to_test=True``) or to train."""
        rows = np.unique(np.asarray(examples, dtype=np.int64))
        rows = rows[self.in_test[rows] != to_test]
        if rows.size == 0:
            return
        delta = self.counts[rows].sum(axis=0).A1
        cols = np.flatnonzero(delta)
        before = self._terms(self.train[cols], self.test[cols])
        sign = 1.0 if to_test else -1.0
        self.test[cols] += sign * delta[cols]
        self.train[cols] -= sign * delta[cols]
        # exact zeros after subtraction, never tiny negatives
        self.test[cols] = np.where(np.abs(self.test[cols]) < 1e-9, 0.0, self.test[cols])
        self.train[cols] = np.where(np.abs(self.train[cols]) < 1e-9, 0.0, self.train[cols])
        self._sum += float(np.sum(self._terms(self.train[cols], self.test[cols]) - before))
        self.in_test[rows] = to_test
