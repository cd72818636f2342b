"""Held-out combinations: every part is seen in training, some combinations of parts are not."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from gengap._errors import ConfigError, DataError
from gengap.dataset import Dataset
from gengap.splits._base import SplitDetails, Splitter, TaxonomyCard, register_splitter, resolve_test_size
from gengap.structure.atoms import StructureExtractor, make_extractor

__all__ = ["HeldOutPrimitive", "HeldOutCombinations", "PartCountSplit"]


@register_splitter
class HeldOutPrimitive(Splitter):
    """A primitive is seen only on its own in training and tested in every composition (SCAN add-primitive).

    Training keeps every example without the primitive plus the examples whose input is the primitive
    alone; test is every other example that contains it. A model that composes should handle
    "jump twice" having seen "jump" and "walk twice".

    Parameters
    ----------
    primitive : the atom (a word of the input) to hold out of compositions.

    >>> import gengap
    >>> ds = gengap.load([{"input": s, "target": "-"} for s in ["jump", "walk", "walk twice", "jump twice"]])
    >>> gengap.HeldOutPrimitive(primitive="jump").split_dataset(ds).test.tolist()
    [3]
    """

    method = "primitive"
    card = TaxonomyCard.compositional(
        "A primitive seen only alone in training is tested in every composition: systematic compositionality.")

    def __init__(self, *, primitive: str = "jump") -> None:
        if not isinstance(primitive, str) or not primitive.strip() or len(primitive.split()) != 1:
            raise ConfigError(f"primitive={primitive!r} must be a single word of the input, such as 'jump'.")
        self.primitive = primitive

    def _iter_indices(self, dataset: Dataset, rng: np.random.Generator) -> Iterator[tuple[np.ndarray, np.ndarray, SplitDetails]]:
        tokens = [self.atoms(x) for x in dataset.inputs]
        has = np.fromiter((self.primitive in t for t in tokens), dtype=bool, count=len(tokens))
        alone = np.fromiter((t == [self.primitive] for t in tokens), dtype=bool, count=len(tokens))
        if not has.any():
            raise DataError(
                f"No input of '{dataset.name}' contains the primitive '{self.primitive}'. Choose a word that occurs, "
                f"e.g. {sorted({w for t in tokens[:200] for w in t})[:8]}."
            )
        if not alone.any():
            raise DataError(
                f"'{dataset.name}' has no example whose input is '{self.primitive}' alone, so the model could never "
                "learn it. Add one, or use a held-out combination split."
            )
        test = np.flatnonzero(has & ~alone)
        train = np.flatnonzero(~has | alone)
        yield train, test, SplitDetails(
            name=f"primitive:{self.primitive}",
            held_out=f"every composition of '{self.primitive}' (seen alone in {int(alone.sum())} training example(s))",
            figures={"primitive": self.primitive},
        )


def _parts(dataset: Dataset, columns: tuple[str, ...], atoms: Any) -> list[list[str]]:
    """Each example's parts: ``column=value`` for attribute columns, else its atoms."""
    extractor = (StructureExtractor(spec="attributes:" + ",".join(columns), columns=columns, role="atoms") if columns
                 else make_extractor(atoms, role="atoms"))
    return list(extractor.per_example(dataset))


@register_splitter
class HeldOutCombinations(Splitter):
    """Hold out combinations of parts while every single part stays in training.

    A *combination* is a set of parts that occur together in an example: values of metadata
    columns (``columns=["modality", "anatomy"]``: ``modality=CT & anatomy=brain``) or atoms of the
    input (``size`` atoms that co-occur, e.g. ``jump & twice``). Test is every example that contains
    a held-out combination; the combinations are given (``combinations``) or drawn at random until
    the test part reaches ``test_fraction``, skipping any draw that would leave a part unseen in
    training (SCAN's template splits, Med-MAT, Compositional-ARC).

    ==========================  ===================================
    example parts               held out {CT, brain}
    ==========================  ===================================
    CT, brain                   test
    CT, chest / MRI, brain      train (each part seen in training)
    ==========================  ===================================

    Parameters
    ----------
    columns : metadata columns whose values are the parts (None: the input's atoms).
    combinations : combinations to hold out, each a list of parts or a string ``"a&b"``
        (``"column=value"`` parts with ``columns``); None: drawn at random.
    size : parts per drawn combination.
    test_fraction : share of examples wanted in test when drawing.
    atoms : atom extractor when ``columns`` is None.
    seed : seed of the draws.

    >>> import gengap
    >>> rows = [{"input": f"{v} {m}", "target": "-"} for v in ["walk", "jump", "run"] for m in ["left", "twice"]]
    >>> s = gengap.splits.HeldOutCombinations(combinations=["jump&twice"]).split_dataset(gengap.load(rows))
    >>> s.test_part.inputs, s.diagnostics.structure.n_unseen_test_atoms
    (['jump twice'], 0)
    """

    method = "combination"
    card = TaxonomyCard.compositional(
        "Combinations of parts never seen together in training are tested, every single part is familiar: "
        "systematic compositionality.")

    def __init__(self, *, columns: list[str] | str | None = None, combinations: list[Any] | str | None = None,
                 size: int = 2, test_fraction: float | int = 0.2, atoms: Any = "words",
                 seed: int | None = 0) -> None:
        self.columns = columns
        self.combinations = combinations
        self.size = size
        self.test_fraction = test_fraction
        self.atoms = atoms  # type: ignore[assignment]
        self.seed = seed
        if not isinstance(size, (int, np.integer)) or size < 2:
            raise ConfigError(f"size={size!r} must be an integer >= 2: a combination joins at least two parts.")
        if combinations is None:
            resolve_test_size(test_fraction, 10**9)
        make_extractor(atoms, role="atoms")

    atoms = "words"  # type: ignore[assignment]  # the extractor spec (Splitter.atoms is a property)

    def _columns(self) -> tuple[str, ...]:
        if self.columns is None:
            return ()
        cols = self.columns.split(",") if isinstance(self.columns, str) else list(self.columns)
        return tuple(c.strip() for c in cols if c.strip())

    def _given(self) -> list[frozenset[str]]:
        combos = self.combinations
        if isinstance(combos, str):
            combos = combos.split(";")
        out = []
        for c in combos or []:
            parts = c.split("&") if isinstance(c, str) else list(c)
            parts = frozenset(str(p).strip() for p in parts if str(p).strip())
            if len(parts) < 2:
                raise ConfigError(f"Held-out combination {c!r} needs at least two parts, e.g. 'jump&twice'.")
            out.append(parts)
        return out

    def _iter_indices(self, dataset: Dataset, rng: np.random.Generator) -> Iterator[tuple[np.ndarray, np.ndarray, SplitDetails]]:
        parts = [frozenset(p) for p in _parts(dataset, self._columns(), self.atoms)]
        n = len(dataset)
        part_count: dict[str, int] = {}
        for p in parts:
            for a in p:
                part_count[a] = part_count.get(a, 0) + 1
        if self.combinations is not None:
            held = self._given()
            for combo in held:
                missing = sorted(combo - part_count.keys())
                if missing:
                    raise DataError(f"Held-out combination {sorted(combo)}: the part(s) {missing} never occur in "
                                    f"'{dataset.name}'. Parts look like {sorted(part_count)[:8]}.")
        else:
            n_test = resolve_test_size(self.test_fraction, n)
            held = self._draw(parts, part_count, n_test, rng)
        in_test = np.fromiter((any(c <= p for c in held) for p in parts), dtype=bool, count=n)
        if not in_test.any():
            raise DataError(f"No example of '{dataset.name}' contains a held-out combination {[sorted(c) for c in held]}.")
        train_parts = set().union(*(parts[i] for i in np.flatnonzero(~in_test))) if (~in_test).any() else set()
        lost = sorted(set().union(*(parts[i] for i in np.flatnonzero(in_test))) - train_parts)
        if lost:
            raise DataError(
                f"Holding out {[sorted(c) for c in held]} leaves the part(s) {lost[:5]} with no training example. "
                "Hold out fewer combinations, or ones whose parts occur elsewhere."
            )
        yield np.flatnonzero(~in_test), np.flatnonzero(in_test), SplitDetails(
            name="combination:" + ";".join("&".join(sorted(c)) for c in held[:5]) + ("..." if len(held) > 5 else ""),
            held_out=f"{len(held)} combination(s) of parts never seen together in training",
            figures={"held_out_combinations": [sorted(c) for c in held]},  # each a list of its parts
        )

    def _draw(self, parts: list[frozenset[str]], part_count: dict[str, int], n_test: int,
              rng: np.random.Generator) -> list[frozenset[str]]:
        import itertools

        combo_rows: dict[frozenset[str], list[int]] = {}
        for i, p in enumerate(parts):
            for combo in itertools.combinations(sorted(p), self.size):
                combo_rows.setdefault(frozenset(combo), []).append(i)
        keys = sorted(combo_rows, key=lambda c: sorted(c))
        order = rng.permutation(len(keys))
        in_test = np.zeros(len(parts), dtype=bool)
        left = dict(part_count)
        held: list[frozenset[str]] = []
        for j in order:
            if in_test.sum() >= n_test:
                break
            rows = [i for i in combo_rows[keys[j]] if not in_test[i]]
            if not rows or in_test.sum() + len(rows) > n_test * 1.05:
                continue
            need: dict[str, int] = {}
            for i in rows:
                for a in parts[i]:
                    need[a] = need.get(a, 0) + 1
            if any(left[a] - k < 1 for a, k in need.items()):
                continue  # a part would leave training
            for a, k in need.items():
                left[a] -= k
            in_test[rows] = True
            held.append(keys[j])
        if not held:
            raise DataError(f"No combination of {self.size} parts can be held out with every part kept in training; "
                            "use a larger dataset or size=2.")
        return held


@register_splitter
class PartCountSplit(Splitter):
    """Train on examples of k parts or fewer, test on examples with more (Skill-Mix).

    The parts of an example are its distinct atoms, or the values of a list column
    (``column="skills"``: a list or a comma-separated string). Every test part must occur in some
    training example, so the test measures composing more familiar parts at once.

    Parameters
    ----------
    max_train_parts : k; None: the k whose test share is closest to ``test_fraction``.
    column : metadata column listing each example's parts (None: distinct atoms of the input).
    test_fraction : share wanted in test when ``max_train_parts`` is None.
    atoms : atom extractor when ``column`` is None.

    >>> import gengap
    >>> ds = gengap.load([{"input": s, "target": "-"} for s in ["a", "b", "a b", "a b c", "c"]])
    >>> gengap.splits.PartCountSplit(max_train_parts=2).split_dataset(ds).test.tolist()
    [3]
    """

    method = "parts"
    card = TaxonomyCard.compositional(
        "Test examples combine more parts than any training example, each part familiar: composing k+1 skills.")

    def __init__(self, *, max_train_parts: int | None = None, column: str | None = None,
                 test_fraction: float | int = 0.2, atoms: Any = "words") -> None:
        self.max_train_parts = max_train_parts
        self.column = column
        self.test_fraction = test_fraction
        self.atoms = atoms  # type: ignore[assignment]
        if max_train_parts is not None and (not isinstance(max_train_parts, (int, np.integer)) or max_train_parts < 1):
            raise ConfigError(f"max_train_parts={max_train_parts!r} must be an integer >= 1 (or None to pick by test_fraction).")
        if max_train_parts is None:
            resolve_test_size(test_fraction, 10**9)
        make_extractor(atoms, role="atoms")

    atoms = "words"  # type: ignore[assignment]

    def _parts(self, dataset: Dataset) -> list[set[str]]:
        if self.column is None:
            return [set(p) for p in _parts(dataset, (), self.atoms)]
        if self.column not in dataset.metadata_columns:
            raise ConfigError(f"PartCountSplit(column={self.column!r}): no such metadata column; columns: {dataset.metadata_columns}.")
        out = []
        for v in dataset.column(self.column):
            items = v.split(",") if isinstance(v, str) else list(v) if isinstance(v, (list, tuple, np.ndarray)) else [v]
            out.append({str(x).strip() for x in items if str(x).strip()})
        return out

    def _iter_indices(self, dataset: Dataset, rng: np.random.Generator) -> Iterator[tuple[np.ndarray, np.ndarray, SplitDetails]]:
        parts = self._parts(dataset)
        counts = np.array([len(p) for p in parts])
        k = self.max_train_parts
        if k is None:
            values = np.unique(counts)[:-1]
            if values.size == 0:
                raise DataError(f"Every example of '{dataset.name}' has {counts[0]} part(s); nothing to test on more parts.")
            n_test = resolve_test_size(self.test_fraction, len(dataset))
            k = int(values[np.argmin([abs((counts > v).sum() - n_test) for v in values])])
        train, test = np.flatnonzero(counts <= k), np.flatnonzero(counts > k)
        if test.size == 0:
            raise DataError(f"No example of '{dataset.name}' has more than {k} parts (max {counts.max()}). Lower max_train_parts.")
        seen = set().union(*(parts[i] for i in train)) if train.size else set()
        unseen = sorted(set().union(*(parts[i] for i in test)) - seen)
        if unseen:
            raise DataError(f"Parts {unseen[:5]} occur only in examples with more than {k} parts, so the test would hold "
                            "unfamiliar parts. Raise max_train_parts or add simpler examples.")
        yield train, test, SplitDetails(held_out=f"examples with more than {k} parts", figures={
            "max_train_parts": k, "train_parts_range": [int(counts[train].min()), int(counts[train].max())],
            "test_parts_range": [int(counts[test].min()), int(counts[test].max())]})
