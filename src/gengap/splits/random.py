"""The i.i.d. baseline: a uniformly random train/test partition."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from gengap.dataset import Dataset
from gengap.splits._base import SplitDetails, Splitter, TaxonomyCard, register_splitter, resolve_test_size

__all__ = ["RandomSplit"]


@register_splitter
class RandomSplit(Splitter):
    """A uniformly random split: the i.i.d. reference every other split's gap is measured from.

    Parameters
    ----------
    test_fraction : fraction in (0, 1) or count of test examples.
    seed : the same seed gives the same split.

    >>> import gengap
    >>> ds = gengap.load([{"input": str(i), "target": str(i)} for i in range(5)])
    >>> gengap.RandomSplit(test_fraction=0.4, seed=0).split_dataset(ds).test.tolist()
    [2, 4]
    """

    method = "random"
    dedupe_moves_groups = True
    card = TaxonomyCard(
        motivation="practical", generalisation_type="none", shift_type="none", shift_source="none",
        description="Train and test drawn i.i.d. from the same pool: the reference score every gap is measured from.",
    )

    def __init__(self, *, test_fraction: float | int = 0.2, seed: int | None = 0) -> None:
        self.test_fraction = test_fraction
        self.seed = seed
        resolve_test_size(test_fraction, 10**9)  # validate the type and range now

    def _iter_indices(self, dataset: Dataset, rng: np.random.Generator) -> Iterator[tuple[np.ndarray, np.ndarray, SplitDetails]]:
        n = len(dataset)
        n_test = resolve_test_size(self.test_fraction, n)
        order = rng.permutation(n)
        yield order[n_test:], order[:n_test], SplitDetails(held_out=f"a uniformly random {n_test} of {n} examples")
