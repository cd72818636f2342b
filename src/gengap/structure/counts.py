"""Counts of atom and compound types per example, and the structural diagnostics of a split.

Counts are kept sparse (:class:`StructureCounts`: a CSR matrix of example x type), so a million
examples with a hundred thousand compound types fit in memory. A type that occurs twice in an
example counts twice.

>>> import gengap
>>> ds = gengap.load([{"input": "jump twice", "target": "-"}, {"input": "walk twice", "target": "-"}])
>>> count_structure(ds, "words").types.tolist()
['jump', 'twice', 'walk']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from gengap.structure.atoms import Role, StructureExtractor, make_extractor

__all__ = ["StructureCounts", "count_structure", "split_structure"]


@dataclass(frozen=True)
class StructureCounts:
    """Occurrence counts of atom or compound types per example.

    Attributes
    ----------
    matrix : scipy.sparse CSR matrix of shape (n_examples, n_types), float64 counts.
    types : array of the type strings, in column order.
    spec : the extractor's spec.
    """

    matrix: sp.csr_matrix
    types: np.ndarray
    spec: str

    @property
    def n_types(self) -> int:
        return len(self.types)

    def totals(self, rows: np.ndarray | None = None) -> np.ndarray:
        """Count of each type over ``rows`` (all examples when None), a dense vector."""
        m = self.matrix if rows is None else self.matrix[rows]
        return np.asarray(m.sum(axis=0)).ravel()

    def weighted(self, weights: np.ndarray) -> StructureCounts:
        """The same counts with each type's column multiplied by ``weights``."""
        return StructureCounts(sp.csr_matrix(self.matrix @ sp.diags(weights)), self.types, self.spec + "+weights")


def count_structure(dataset: Any, extractor: str | Callable[[Any], list[str]] | StructureExtractor, *,
                    role: Role = "atoms") -> StructureCounts:
    """Extract every example and count types into a sparse example x type matrix.

    >>> import gengap
    >>> ds = gengap.load([{"input": "a b a", "target": "-"}, {"input": "b c", "target": "-"}])
    >>> c = count_structure(ds, "words")
    >>> c.types.tolist(), c.matrix.toarray().tolist()
    (['a', 'b', 'c'], [[2.0, 1.0, 0.0], [0.0, 1.0, 1.0]])
    """
    ex = make_extractor(extractor, role=role)
    vocab: dict[str, int] = {}
    chunks: list[np.ndarray] = []
    indptr = np.zeros(len(dataset) + 1, dtype=np.int64)
    buf: list[int] = []
    setdefault = vocab.setdefault
    n_done = 0
    for i, items in enumerate(ex.per_example(dataset)):
        for t in items:
            buf.append(setdefault(t, len(vocab)))
        indptr[i + 1] = n_done + len(buf)
        if len(buf) >= 1 << 20:  # move ids into compact arrays as we go
            chunks.append(np.asarray(buf, dtype=np.int32))
            n_done += len(buf)
            buf = []
    chunks.append(np.asarray(buf, dtype=np.int32))
    indices = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int32)
    data = np.ones(len(indices), dtype=np.float64)
    matrix = sp.csr_matrix((data, indices, indptr), shape=(len(dataset), len(vocab)))
    matrix.sum_duplicates()
    types = np.empty(len(vocab), dtype=object)
    for t, j in vocab.items():
        types[j] = t
    return StructureCounts(matrix, types, ex.spec)


def split_structure(dataset: Any, train: np.ndarray, test: np.ndarray, *,
                    atoms: Any = "words", compounds: Any = "ngrams:2,3",
                    atom_counts: StructureCounts | None = None,
                    compound_counts: StructureCounts | None = None) -> dict[str, Any]:
    """The structural diagnostics every split reports.

    Keys: ``unseen_test_atoms`` (first 100, sorted), ``n_unseen_test_atoms``, ``atom_divergence``,
    ``compound_divergence``, ``unseen_test_compound_share`` (share of test compound occurrences whose
    type never occurs in training), ``atoms``, ``compounds`` (the extractor specs).

    >>> import gengap, numpy as np
    >>> ds = gengap.load([{"input": s, "target": "-"} for s in ["a b", "b a", "a b"]])
    >>> d = split_structure(ds, np.array([0, 2]), np.array([1]), compounds="ngrams:2")
    >>> d["n_unseen_test_atoms"], d["atom_divergence"], d["compound_divergence"]
    (0, 0.0, 1.0)
    """
    from gengap.structure.divergence import atom_divergence, compound_divergence

    a = atom_counts or count_structure(dataset, atoms, role="atoms")
    c = compound_counts or count_structure(dataset, compounds, role="compounds")
    a_train, a_test = a.totals(train), a.totals(test)
    c_train, c_test = c.totals(train), c.totals(test)
    unseen = sorted(a.types[(a_test > 0) & (a_train == 0)].tolist())
    test_mass = c_test.sum()
    unseen_share = float(c_test[c_train == 0].sum() / test_mass) if test_mass > 0 else 0.0
    return {
        "unseen_test_atoms": unseen[:100],
        "n_unseen_test_atoms": len(unseen),
        "atom_divergence": round(atom_divergence(a_train, a_test), 6),
        "compound_divergence": round(compound_divergence(c_train, c_test), 6),
        "unseen_test_compound_share": round(unseen_share, 6),
        "atoms": a.spec,
        "compounds": c.spec,
    }
