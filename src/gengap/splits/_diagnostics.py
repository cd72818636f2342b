"""What a split says about itself, as typed records: :class:`SplitDiagnostics` (``Split.diagnostics``),
:class:`StructureFigures` (how the test part's atoms and compounds compare to training's) and
:class:`SplitDetails` (what a splitter's hook reports beside the indices).

A hook yields ``(train_idx, test_idx, SplitDetails(...))``; the base class measures the sizes (and
the structure, unless the hook did) and builds the :class:`SplitDiagnostics`. Method-specific
figures (a length threshold, the held-out groups, the search of an MCD split) go in ``figures``,
under names the splitter chooses; names the record already has are refused.

``split.json`` and the store hold the record flat, as :meth:`SplitDiagnostics.to_dict` writes it:

===============================  ======================================================
key                              from
===============================  ======================================================
n_train, n_test, test_fraction,  the record's fields
n_unused, held_out
unseen_test_atoms, ...,          ``structure`` (:class:`StructureFigures`' fields), when
atoms, compounds                 measured
anything else                    ``figures``
===============================  ======================================================

>>> d = SplitDiagnostics(n_train=8, n_test=2, test_fraction=0.2, n_unused=0, held_out="2 of 10",
...                      figures={"max_train_length": 7})
>>> d.n_test, d.figures["max_train_length"]
(2, 7)
>>> SplitDiagnostics.from_dict(d.to_dict()) == d
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

import numpy as np

__all__ = ["SplitDetails", "SplitDiagnostics", "StructureFigures"]


@dataclass(frozen=True)
class StructureFigures:
    """How the test part's structure compares to training's (:func:`gengap.structure.counts.split_structure`).

    Attributes
    ----------
    unseen_test_atoms : test atoms never seen in training (the first 100, sorted).
    n_unseen_test_atoms : how many there are in all.
    atom_divergence, compound_divergence : D_A and D_C of train vs test (0: same distribution, 1: disjoint).
    unseen_test_compound_share : share of test compound occurrences whose type never occurs in training.
    atoms, compounds : the extractor specs the figures were measured with.
    """

    unseen_test_atoms: tuple[str, ...]
    n_unseen_test_atoms: int
    atom_divergence: float
    compound_divergence: float
    unseen_test_compound_share: float
    atoms: str
    compounds: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "unseen_test_atoms", tuple(self.unseen_test_atoms))

    @classmethod
    def measure(cls, dataset: Any, train: np.ndarray, test: np.ndarray, **counts: Any) -> StructureFigures:
        """Measure a partition (``counts``: ``atoms=``, ``compounds=``, or precomputed ``atom_counts=``,
        ``compound_counts=``, as :func:`~gengap.structure.counts.split_structure` takes them)."""
        from gengap.structure.counts import split_structure

        return cls(**split_structure(dataset, train, test, **counts))

    def to_dict(self) -> dict[str, Any]:
        return {f.name: list(self.unseen_test_atoms) if f.name == "unseen_test_atoms" else getattr(self, f.name)
                for f in fields(self)}


#: The keys ``split.json`` holds beside the diagnostics (``Split.to_dict``).
SPLIT_KEYS = ("name", "method", "seed", "params", "dataset", "taxonomy")
#: The record's own keys in ``split.json``, in the order they are written.
COMMON_KEYS = ("n_train", "n_test", "test_fraction", "n_unused")
STRUCTURE_KEYS = tuple(f.name for f in fields(StructureFigures))
RESERVED_KEYS = frozenset((*COMMON_KEYS, *STRUCTURE_KEYS, "held_out", "name"))


def _check_figures(figures: Mapping[str, Any], owner: str) -> Mapping[str, Any]:
    taken = sorted(RESERVED_KEYS.intersection(figures))
    if taken:
        raise ValueError(f"{owner}: figures {taken} have names the record already has; give them their own field "
                         f"(name, held_out, structure) or another name.")
    return MappingProxyType(dict(figures))


@dataclass(frozen=True)
class SplitDetails:
    """What a splitter's ``_iter_indices`` reports about one partition, beside its indices.

    Attributes
    ----------
    name : the split's name (None: the method's name, e.g. ``"random"``).
    held_out : one sentence saying what the test part holds that training does not.
    structure : figures the splitter measured itself (None: the base class measures them).
    figures : method-specific figures (JSON values) under names of the splitter's choosing.
    """

    name: str | None = None
    held_out: str = ""
    structure: StructureFigures | None = None
    figures: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "figures", _check_figures(self.figures, "SplitDetails"))

    def __reduce__(self) -> tuple[Any, ...]:  # pickle and deepcopy: a read-only view has no state of its own
        return (type(self), (self.name, self.held_out, self.structure, dict(self.figures)))


@dataclass(frozen=True)
class SplitDiagnostics:
    """What a reader needs to trust a split: its sizes, what was held out, its structure and method figures.

    Attributes
    ----------
    n_train, n_test : sizes of the parts.
    test_fraction : ``n_test`` over the dataset's size (6 decimals).
    n_unused : examples in neither part.
    held_out : one sentence saying what the test part holds that training does not.
    structure : unseen test atoms and divergences (None when not measured: an empty train part).
    figures : method-specific figures, by name (read-only).

    :meth:`to_dict` gives the flat dict ``split.json`` holds.
    """

    n_train: int
    n_test: int
    test_fraction: float
    n_unused: int
    held_out: str = ""
    structure: StructureFigures | None = None
    figures: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "figures", _check_figures(self.figures, "SplitDiagnostics"))

    def __reduce__(self) -> tuple[Any, ...]:  # pickle and deepcopy: a read-only view has no state of its own
        return (type(self), (self.n_train, self.n_test, self.test_fraction, self.n_unused, self.held_out,
                             self.structure, dict(self.figures)))

    @classmethod
    def of_parts(cls, n_train: int, n_test: int, n: int, details: SplitDetails | None = None) -> SplitDiagnostics:
        """The record of a partition of ``n`` examples into ``n_train`` and ``n_test``, with a hook's details.

        >>> SplitDiagnostics.of_parts(3, 1, 5, SplitDetails(held_out="one")).to_dict()
        {'n_train': 3, 'n_test': 1, 'test_fraction': 0.2, 'n_unused': 1, 'held_out': 'one'}
        """
        details = details or SplitDetails()
        return cls(n_train=int(n_train), n_test=int(n_test), test_fraction=round(n_test / n, 6) if n else 0.0,
                   n_unused=int(n - n_train - n_test), held_out=details.held_out, structure=details.structure,
                   figures=details.figures)

    def to_dict(self) -> dict[str, Any]:
        """The flat dict ``split.json`` holds: the common figures, the structure, ``held_out``, then ``figures``."""
        out: dict[str, Any] = {k: getattr(self, k) for k in COMMON_KEYS}
        if self.structure is not None:
            out.update(self.structure.to_dict())
        out["held_out"] = self.held_out
        out.update(self.figures)
        return out

    @classmethod
    def from_dict(cls, record: Mapping[str, Any]) -> SplitDiagnostics:
        """The record from the flat dict :meth:`to_dict` writes (``split.json`` less its name, method, seed,
        params and taxonomy); keys it does not know are kept as ``figures``."""
        rest = dict(record)
        missing = [k for k in ("n_train", "n_test") if k not in rest]
        if missing:
            raise KeyError(f"split diagnostics lack {missing}; they hold {sorted(rest)[:20]}")
        n_train, n_test = rest.pop("n_train"), rest.pop("n_test")
        total = n_train + n_test
        test_fraction = rest.pop("test_fraction", round(n_test / total, 6) if total else 0.0)
        n_unused = rest.pop("n_unused", 0)
        held_out = rest.pop("held_out", "")
        structure = None
        if all(k in rest for k in STRUCTURE_KEYS):
            structure = StructureFigures(**{k: rest.pop(k) for k in STRUCTURE_KEYS})
        return cls(n_train=n_train, n_test=n_test, test_fraction=test_fraction, n_unused=n_unused,
                   held_out=held_out, structure=structure, figures=rest)

    __hash__ = None  # type: ignore[assignment]  # figures is a dict
