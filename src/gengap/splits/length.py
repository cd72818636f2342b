"""Length generalization: train on short examples, test on long ones."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from gengap._errors import ConfigError, DataError
from gengap.dataset import Dataset
from gengap.splits._base import SplitDetails, Splitter, TaxonomyCard, register_splitter, resolve_test_size
from gengap.structure.atoms import length

__all__ = ["LengthSplit"]


@register_splitter
class LengthSplit(Splitter):
    """Train on examples up to a length, test on the longer ones (SCAN's length split).

    The length is the number of whitespace tokens of the target (``by="target"``, SCAN's action
    sequences) or of the input, or a numeric metadata column. Without ``max_train_length`` the
    threshold is the one whose test share is closest to ``test_fraction``; examples of one length
    are never divided between the parts.

    Parameters
    ----------
    by : ``"target"``, ``"input"`` or the name of a numeric metadata column.
    test_fraction : the share of examples wanted in test (used when no threshold is given).
    max_train_length : train on lengths <= this, test on the rest.

    >>> import gengap
    >>> ds = gengap.load([{"input": "x", "target": "a " * k} for k in range(1, 11)])
    >>> s = gengap.LengthSplit(test_fraction=0.3).split_dataset(ds)
    >>> s.diagnostics.figures["max_train_length"], s.diagnostics.n_test
    (7, 3)
    """

    method = "length"
    card = TaxonomyCard(
        motivation="cognitive", generalisation_type="structural", shift_type="full", shift_source="partitioned_natural",
        description="Test examples are longer than any seen in training: can the model extrapolate to longer inputs or outputs?",
    )

    def __init__(self, *, by: str = "target", test_fraction: float = 0.2, max_train_length: int | None = None) -> None:
        self.by = by
        self.test_fraction = test_fraction
        self.max_train_length = max_train_length
        if max_train_length is None:
            resolve_test_size(test_fraction, 10**9)
        elif not isinstance(max_train_length, (int, np.integer)) or max_train_length < 0:
            raise ConfigError(f"max_train_length={max_train_length!r} must be a non-negative integer.")

    def lengths(self, dataset: Dataset) -> np.ndarray:
        if self.by in ("target", "input"):
            return np.fromiter((length(v) for v in dataset.column(self.by)), dtype=np.int64, count=len(dataset))
        col = dataset.column(self.by)
        try:
            return col.astype(float).to_numpy()
        except (TypeError, ValueError):
            raise DataError(f"LengthSplit(by={self.by!r}): column '{self.by}' is not numeric.") from None

    def _iter_indices(self, dataset: Dataset, rng: np.random.Generator) -> Iterator[tuple[np.ndarray, np.ndarray, SplitDetails]]:
        lengths = self.lengths(dataset)
        threshold = self.max_train_length
        if threshold is None:
            values = np.unique(lengths)[:-1]
            if len(values) == 0:
                other = ""
                if self.by == "target":
                    inputs = np.unique(np.fromiter((length(v) for v in dataset.column("input")), dtype=np.int64, count=len(dataset)))
                    if len(inputs) > 1:
                        other = (f" The inputs' lengths vary ({inputs.min()} to {inputs.max()} tokens): split by them with "
                                 "-o by=input (LengthSplit(by='input'), --split length:by=input).")
                raise DataError(f"Every example of '{dataset.name}' has the same {self.by} length ({lengths[0]}); a length "
                                f"split needs at least two lengths.{other}")
            frac = self.test_fraction
            want = frac if 0 < frac < 1 else min(frac, len(dataset)) / len(dataset)
            shares = np.array([(lengths > v).mean() for v in values])
            threshold = values[int(np.argmin(np.abs(shares - want)))]
        train = np.flatnonzero(lengths <= threshold)
        test = np.flatnonzero(lengths > threshold)
        yield train, test, SplitDetails(held_out=f"examples whose {self.by} length is over {threshold}", figures={
            "max_train_length": threshold.item() if hasattr(threshold, "item") else threshold,
            "train_length_range": [lengths[train].min().item(), lengths[train].max().item()] if len(train) else None,
            "test_length_range": [lengths[test].min().item(), lengths[test].max().item()] if len(test) else None,
        })
