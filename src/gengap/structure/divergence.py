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
    "compound_divergence", "divergence_from_sum", "IncrementalDivergence",
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


def _terms(train: np.ndarray, test: np.ndarray, alpha: float) -> np.ndarray:
    """train_k^alpha * test_k^(1-alpha), type by type (negative round-off counts as 0)."""
    return np.power(np.maximum(train, 0.0), alpha) * np.power(np.maximum(test, 0.0), 1.0 - alpha)


def _chernoff_sum(train: np.ndarray, test: np.ndarray, alpha: float) -> float:
    """S = sum_k train_k^alpha * test_k^(1-alpha) over the types present on both sides."""
    both = (train > 0) & (test > 0)
    return float(np.sum(_terms(train[both], test[both], alpha)))


def divergence_from_sum(s: Any, train_total: Any, test_total: Any, alpha: float) -> Any:
    """1 - S / (T^alpha * E^(1-alpha)) from the unnormalized sum S and the totals, vectorized.

    Empty parts follow the module's conventions (both empty: 0; one empty: 1).

    >>> float(divergence_from_sum(1.0, 1.0, 1.0, 0.5)), float(divergence_from_sum(0.0, 0.0, 3.0, 0.1))
    (0.0, 1.0)
    """
    t = np.asarray(train_total, dtype=np.float64)
    e = np.asarray(test_total, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        c = np.asarray(s, dtype=np.float64) / (np.power(t, alpha) * np.power(e, 1.0 - alpha))
    c = np.where((t <= 0) | (e <= 0), np.where(t == e, 1.0, 0.0), np.minimum(c, 1.0))
    return 1.0 - c


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
    """A divergence kept up to date while examples move between train and test (the MCD search's state).

    Holds the train and test count vectors of one kind of structure; ``value`` is
    ``1 - S / (T^alpha * E^(1-alpha))`` with ``S = sum_k train_k^alpha * test_k^(1-alpha)`` and T, E
    the totals. :meth:`move` updates the vectors from the moved examples' rows only, and
    :meth:`single_moves` scores every one-example move at once from the sparse counts.

    Parameters
    ----------
    counts : sparse (n_examples, n_types) counts.
    in_test : boolean mask of shape (n_examples,), the starting test part (the rest is train).
    alpha : the Chernoff alpha (0.5 for atoms, 0.1 for compounds).

    >>> import scipy.sparse as sp, numpy as np
    >>> counts = sp.csr_matrix(np.array([[1, 0], [0, 1], [1, 1]]))
    >>> d = IncrementalDivergence(counts, np.array([False, True, False]), alpha=0.1)
    >>> d.move(to_test=[2])
    >>> round(d.value, 6) == round(compound_divergence([1, 0], [1, 2]), 6)
    True
    """

    def __init__(self, counts: Any, in_test: np.ndarray | None = None, *, alpha: float) -> None:
        _check_alpha(alpha)
        self.counts = sp.csr_matrix(counts, dtype=np.float64)
        self.alpha = alpha
        self.reset(np.zeros(self.counts.shape[0], dtype=bool) if in_test is None else in_test)

    def reset(self, in_test: np.ndarray) -> None:
        """Recount both parts from a test mask."""
        self.test = np.asarray(self.counts[np.asarray(in_test, dtype=bool)].sum(axis=0)).ravel()
        self.train = np.asarray(self.counts.sum(axis=0)).ravel() - self.test
        self.train[self.train < 1e-9] = 0.0

    @property
    def value(self) -> float:
        """The current divergence 1 - C_alpha(train || test)."""
        s = _chernoff_sum(self.train, self.test, self.alpha)
        return float(divergence_from_sum(s, self.train.sum(), self.test.sum(), self.alpha))

    @property
    def coefficient(self) -> float:
        """The current Chernoff coefficient C_alpha(train || test)."""
        return 1.0 - self.value

    def move(self, to_test: Any = (), to_train: Any = ()) -> None:
        """Move the examples at positions ``to_test`` to the test part and those at ``to_train`` to train."""
        to_test, to_train = np.asarray(to_test, dtype=np.int64), np.asarray(to_train, dtype=np.int64)
        delta = np.zeros_like(self.train)
        if len(to_test):
            delta += np.asarray(self.counts[to_test].sum(axis=0)).ravel()
        if len(to_train):
            delta -= np.asarray(self.counts[to_train].sum(axis=0)).ravel()
        self.test += delta
        self.train -= delta
        # exact zeros after subtraction, never tiny negatives
        self.test[np.abs(self.test) < 1e-9] = 0.0
        self.train[np.abs(self.train) < 1e-9] = 0.0

    def single_moves(self, rows: np.ndarray, sign: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, float, float]:
        """For each row, the change of S and the row's total if it alone changed side (sign +1: to test, -1: to train).

        Also returns the row index of every stored count, and the current S and totals, so the caller
        can turn changes of S into changes of the divergence with :func:`divergence_from_sum`.
        """
        sub = self.counts[rows]
        rowid = np.repeat(np.arange(len(rows)), np.diff(sub.indptr))
        c = sub.data
        k = sub.indices
        sg = sign[rowid]
        tr0, te0 = self.train[k], self.test[k]
        d = _terms(tr0 - sg * c, te0 + sg * c, self.alpha) - _terms(tr0, te0, self.alpha)
        ds = np.bincount(rowid, weights=d, minlength=len(rows))
        r = np.bincount(rowid, weights=c, minlength=len(rows))
        s_now = _chernoff_sum(self.train, self.test, self.alpha)
        return ds, r, rowid, s_now, float(self.train.sum()), float(self.test.sum())
