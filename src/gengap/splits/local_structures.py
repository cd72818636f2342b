"""Unobserved local structures (Bogin et al. 2022): test examples holding a structure never seen in training.

A *local structure* is a small connected piece of an example (a word n-gram, a parent-child edge
or one-level subtree of a parse). Bogin et al. found that whether a test example contains a local
structure absent from training predicts a model's failure on it far better than the split's name.
For any split, :func:`unobserved_local_structures` flags such test examples,
:func:`accuracy_by_unobserved` reports the score of flagged and unflagged examples separately, and
:class:`UnobservedStructureSplit` builds a split whose test part is made of flagged examples.

>>> import gengap, numpy as np
>>> ds = gengap.load([{"input": s, "target": "-"} for s in ["walk left", "jump twice", "walk twice", "jump left"]])
>>> table = unobserved_local_structures(ds, np.array([0, 1]), np.array([2, 3]), structures="ngrams:2")
>>> table[["id", "flagged", "unobserved"]].values.tolist()
[['2', True, ['walk twice']], ['3', True, ['jump left']]]
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd

from gengap._errors import ConfigError, DataError
from gengap.analysis.intervals import mean_ci
from gengap.dataset import Dataset
from gengap.splits._base import SplitDetails, Splitter, TaxonomyCard, register_splitter, resolve_test_size
from gengap.splits.divergence import DivergenceSearch, check_sizes, structure_counts
from gengap.structure.atoms import make_extractor
from gengap.structure.counts import count_structure

__all__ = ["unobserved_local_structures", "accuracy_by_unobserved", "UnobservedStructureSplit"]


def unobserved_local_structures(dataset: Dataset, train: np.ndarray, test: np.ndarray, *,
                                structures: Any = "ngrams:2,3") -> pd.DataFrame:
    """One row per test example: ``id``, ``position``, ``n_unobserved``, ``unobserved`` (the structures
    never seen in training, sorted) and ``flagged`` (at least one)."""
    counts = count_structure(dataset, structures, role="compounds")
    seen = counts.totals(np.asarray(train, dtype=np.int64)) > 0
    sub = counts.matrix[np.asarray(test, dtype=np.int64)]
    ids = dataset.ids
    rows = []
    for r, pos in enumerate(np.asarray(test, dtype=np.int64)):
        cols = sub.indices[sub.indptr[r]:sub.indptr[r + 1]]
        missing = sorted(counts.types[cols[~seen[cols]]].tolist())
        rows.append({"id": ids[pos], "position": int(pos), "n_unobserved": len(missing), "unobserved": missing,
                     "flagged": bool(missing)})
    return pd.DataFrame(rows, columns=["id", "position", "n_unobserved", "unobserved", "flagged"])


def accuracy_by_unobserved(scores: Sequence[float] | np.ndarray, flagged: Sequence[bool] | np.ndarray, *,
                           confidence: float = 0.95, seed: int = 0) -> pd.DataFrame:
    """Mean score (with a bootstrap CI) of test examples with and without an unobserved local structure.

    >>> accuracy_by_unobserved([1, 1, 0, 0, 1], [False, False, True, True, True])[["group", "n", "score"]].values.tolist()
    [['unobserved structure', 3, 0.3333333333333333], ['all structures seen', 2, 1.0]]
    """
    s = np.asarray(scores, dtype=np.float64)
    f = np.asarray(flagged, dtype=bool)
    if s.shape != f.shape:
        raise ConfigError(f"scores and flagged must have one value per test example: lengths {s.size} and {f.size}.")
    rows = []
    for name, mask in (("unobserved structure", f), ("all structures seen", ~f)):
        if not mask.any():  # an empty group has no score: left out, as the worst-group figures do
            continue
        ci = mean_ci(s[mask], confidence=confidence, seed=seed)
        rows.append({"group": name, "n": int(mask.sum()), "score": float(ci.estimate), "low": float(ci.low),
                     "high": float(ci.high)})
    return pd.DataFrame(rows, columns=["group", "n", "score", "low", "high"])


@register_splitter
class UnobservedStructureSplit(Splitter):
    """A split whose test examples each hold a local structure never seen in training (Bogin et al. 2022).

    Whole local-structure types are held out in random orders (every example holding one goes to
    test); of ``n_trials`` draws that keep every test atom in training, the one with the most
    flagged test examples is kept.

    Parameters
    ----------
    test_fraction : fraction or count of test examples.
    structures : the local-structure extractor (``"ngrams:2,3"``, ``"tree"``, a callable).
    atoms : the atom extractor; every test atom occurs in training.
    n_trials : hold-out orders drawn.
    seed : seed of the hold-out orders.

    >>> import gengap
    >>> rows = [f"{v} {m}" for v in ["walk", "run", "jump", "look"] for m in ["left", "right", "twice", "thrice"]]
    >>> s = UnobservedStructureSplit(test_fraction=0.25).split_dataset(gengap.load([{"input": r, "target": "-"} for r in rows]))
    >>> s.diagnostics.figures["unobserved_share"], s.diagnostics.structure.n_unseen_test_atoms
    (1.0, 0)
    """

    method = "local_structures"
    card = TaxonomyCard.compositional(
        "Every test example holds a local structure (n-gram, subtree) never seen in training, its atoms all seen.")

    def __init__(self, *, test_fraction: float | int = 0.2, structures: Any = "ngrams:2,3", atoms: Any = "words",
                 n_trials: int = 50, seed: int | None = 0) -> None:
        self.test_fraction = test_fraction
        self.structures = structures
        self.atoms = atoms  # type: ignore[assignment]
        self.n_trials = n_trials
        self.seed = seed
        resolve_test_size(test_fraction, 10**9)
        make_extractor(structures, role="compounds")
        make_extractor(atoms, role="atoms")
        if not isinstance(n_trials, (int, np.integer)) or n_trials < 1:
            raise ConfigError(f"n_trials={n_trials!r} must be an integer >= 1.")

    atoms = "words"  # type: ignore[assignment]

    def _iter_indices(self, dataset: Dataset, rng: np.random.Generator) -> Iterator[tuple[np.ndarray, np.ndarray, SplitDetails]]:
        n = len(dataset)
        n_test = resolve_test_size(self.test_fraction, n)
        a, c = structure_counts(dataset, self.atoms, self.structures)
        search = DivergenceSearch(a.matrix, c.matrix, n_test, max_atom_divergence=None, min_train_atom_count=1,
                                  target=None, rng=rng)
        check_sizes(n, n_test, search.max_feasible_test(), self.test_fraction, type(self).__name__)
        best, best_share = None, -1.0
        binary = (c.matrix > 0).astype(np.float64).tocsr()
        for _ in range(self.n_trials):
            cand = search._repair(search._holdout(~search.pinned))
            if cand is None:
                continue
            seen = np.asarray(binary[~cand].sum(axis=0)).ravel() > 0
            unseen_per_row = binary[cand] @ (~seen).astype(np.float64)
            share = float(np.mean(unseen_per_row > 0))
            if share > best_share:
                best, best_share = cand, share
        if best is None:
            raise DataError(f"No hold-out of local structures keeps every test atom of '{dataset.name}' in training; "
                            "lower test_fraction.")
        yield np.flatnonzero(~best), np.flatnonzero(best), SplitDetails(
            held_out=f"{int(best.sum()):,} examples, {100 * best_share:.1f}% of them with a local structure unseen in training",
            figures={"unobserved_share": round(best_share, 6), "structures": c.spec},
        )
