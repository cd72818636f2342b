"""Every row as the test part: for a model that needs no training (a served language model)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from gengap.dataset import Dataset
from gengap.splits._base import SplitDetails, Splitter, TaxonomyCard, register_splitter

__all__ = ["AllRows"]


@register_splitter
class AllRows(Splitter):
    """Test on every row; the train part is empty, so nothing is trained and no few-shot pool exists.

    Use it to score a pretrained model on all of a dataset (with a zero-shot prompt). For few-shot
    prompts, use a split whose train part is the pool the shots are drawn from (``random``, ``length``).

    >>> import gengap
    >>> ds = gengap.load([{"input": str(i), "target": str(i)} for i in range(4)])
    >>> s = gengap.splits.AllRows().split_dataset(ds)
    >>> s.test.tolist(), s.diagnostics.n_train
    ([0, 1, 2, 3], 0)
    """

    method = "all"
    allows_empty_train = True
    card = TaxonomyCard(
        motivation="practical", generalisation_type="none", shift_type="none", shift_source="none",
        description="Every example is tested and none is trained on: the model's score on the whole data set.",
    )

    def _iter_indices(self, dataset: Dataset, rng: np.random.Generator) -> Iterator[tuple[np.ndarray, np.ndarray, SplitDetails]]:
        n = len(dataset)
        yield np.empty(0, dtype=np.int64), np.arange(n), SplitDetails(held_out=f"all {n} examples (nothing is trained)")
