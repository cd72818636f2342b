"""Preset parts: train and test chosen by the data generator and written into a column."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from gengap._errors import ConfigError, DataError
from gengap.dataset import Dataset
from gengap.splits._base import SplitDetails, Splitter, TaxonomyCard, register_splitter

__all__ = ["PresetSplit"]


@register_splitter
class PresetSplit(Splitter):
    """Train and test parts named by the values of a metadata column; rows with other values are unused.

    Generators that decide the parts themselves (held-out grid combinations, out-of-distribution
    fact queries) write the part into a column; this splitter reads it. With ``column="query_set"``,
    ``train="atomic+train"``, ``test="test_ood"``:

    ====  ===========  ==========
    row   query_set    part
    ====  ===========  ==========
    0     atomic       train
    1     train        train
    2     test_id      (unused)
    3     test_ood     test
    ====  ===========  ==========

    Parameters
    ----------
    column : the metadata column holding the part names.
    train, test : the value (or ``+``-separated values) of each part.

    >>> import gengap
    >>> ds = gengap.load([{"input": str(i), "target": "t", "set": s} for i, s in enumerate(["a", "b", "c", "a"])])
    >>> s = PresetSplit(column="set", train="a", test="c").split_dataset(ds)
    >>> s.train.tolist(), s.test.tolist(), s.diagnostics.n_unused
    ([0, 3], [2], 1)
    """

    method = "preset"
    card = TaxonomyCard.compositional(
        "Parts fixed by the data generator: test examples differ from training by construction (held-out combinations "
        "or entities).", shift_source="generated_shift")

    def __init__(self, *, column: str = "part", train: str = "train", test: str = "test") -> None:
        for key, value in (("column", column), ("train", train), ("test", test)):
            if not isinstance(value, str) or not value.strip():
                raise ConfigError(f"PresetSplit: {key}={value!r} must be a non-empty string.")
        self.column, self.train, self.test = column, train, test
        overlap = set(self._values(train)) & set(self._values(test))
        if overlap:
            raise ConfigError(f"PresetSplit: the value(s) {sorted(overlap)} are in both train={train!r} and test={test!r}.")

    @staticmethod
    def _values(spec: str) -> list[str]:
        return [v.strip() for v in spec.split("+") if v.strip()]

    def _iter_indices(self, dataset: Dataset, rng: np.random.Generator) -> Iterator[tuple[np.ndarray, np.ndarray, SplitDetails]]:
        values = dataset.column(self.column).astype(str).to_numpy()
        present = sorted(set(values))
        for part in (self.train, self.test):
            missing = [v for v in self._values(part) if v not in present]
            if missing:
                raise DataError(f"PresetSplit: column '{self.column}' of '{dataset.name}' has no value {missing}; "
                                f"its values are {present[:20]}.")
        train = np.flatnonzero(np.isin(values, self._values(self.train)))
        test = np.flatnonzero(np.isin(values, self._values(self.test)))
        yield train, test, SplitDetails(name=f"preset:{self.column}={self.test}", held_out=f"rows whose {self.column} is {self.test}")
