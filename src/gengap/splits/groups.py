"""Held-out groups: leave one group out, a named group out, or group k-fold.

Groups are the combinations of values of one or more metadata columns (see
:func:`gengap.analysis.group_scores.group_by`). With ``group=["site", "year"]``:

====  ======  ======  ===========  ===============================
row   site    year    group        fold of LeaveOneGroupOut
====  ======  ======  ===========  ===============================
0     a       2020    a/2020       test in split 0
1     b       2020    b/2020       test in split 1
2     a       2021    a/2021       test in split 2
3     a       2020    a/2020       test in split 0
====  ======  ======  ===========  ===============================

``holdout="b/2020"`` makes a single split with that group as test; ``n_folds=k`` assigns whole
groups to k folds of balanced size (largest group first into the smallest fold, as scikit-learn's
GroupKFold does, after a seeded shuffle of ties).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd

from gengap._errors import ConfigError, DataError
from gengap.analysis.group_scores import Groups, _as_columns, group_by
from gengap.dataset import Dataset
from gengap.splits._base import SplitDetails, Splitter, TaxonomyCard, as_dataset, register_splitter

__all__ = ["GroupSplit"]


@register_splitter
class GroupSplit(Splitter):
    """Hold out whole groups (sites, domains, sources): leave-one-group-out or group k-fold.

    Parameters
    ----------
    group : the metadata column(s) whose value combinations form the groups (``"site"``,
        ``["site", "year"]`` or ``"site,year"``). The default ``"group"`` is the column scikit-learn's
        ``groups=`` argument fills.
    holdout : a group name (or list of names) to hold out as the single test part.
    n_folds : make k folds of whole groups instead of one split per group.
    min_group_size : groups smaller than this are never a test part on their own (they stay in
        training, with a warning); leave-one-group-out skips them.
    seed : seed for the order of equal-sized groups in k-fold.

    >>> import gengap
    >>> ds = gengap.load([{"input": f"x{i}", "target": "y", "site": "abc"[i % 3]} for i in range(9)])
    >>> splitter = gengap.splits.GroupSplit(group="site")
    >>> splitter.get_n_splits(ds), [s.name for s in splitter.split_datasets(ds)]
    (3, ['group:site=a', 'group:site=b', 'group:site=c'])
    >>> gengap.splits.GroupSplit(group="site", holdout="c").split_dataset(ds).test.tolist()
    [2, 5, 8]
    """

    method = "group"
    card = TaxonomyCard(
        motivation="practical", generalisation_type="cross_domain", shift_type="covariate", shift_source="naturally_occurring",
        description="Whole groups (sites, domains, sources) are held out: does the model work on a group it never saw?",
    )

    def __init__(
        self,
        *,
        group: str | Sequence[str] = "group",
        holdout: str | Sequence[str] | None = None,
        n_folds: int | None = None,
        min_group_size: int = 2,
        seed: int | None = 0,
    ) -> None:
        self.group = group
        self.holdout = holdout
        self.n_folds = n_folds
        self.min_group_size = min_group_size
        self.seed = seed
        self._columns = _as_columns(group)
        if holdout is not None and n_folds is not None:
            raise ConfigError("GroupSplit: give either holdout (one split) or n_folds (k folds), not both.")
        if n_folds is not None and (not isinstance(n_folds, (int, np.integer)) or isinstance(n_folds, bool) or n_folds < 2):
            raise ConfigError(f"n_folds={n_folds!r} must be an integer >= 2 (or None for leave-one-group-out).")
        if not isinstance(min_group_size, (int, np.integer)) or min_group_size < 1:
            raise ConfigError(f"min_group_size={min_group_size!r} must be a positive integer.")

    @property
    def _holdouts(self) -> list[str] | None:
        if self.holdout is None:
            return None
        return [str(self.holdout)] if isinstance(self.holdout, (str, int, float)) else [str(h) for h in self.holdout]

    def groups(self, dataset: Dataset) -> Groups:
        """The groups of ``dataset``, checked: at least two groups, not every group a single example."""
        groups = group_by(dataset, self._columns)
        cols = ", ".join(self._columns)
        if groups.n_groups < 2:
            raise DataError(
                f"The group column(s) '{cols}' of '{dataset.name}' hold a single group ('{groups.names[0]}'); holding "
                "out a group needs at least two. Choose a column with several values, or use --method random."
            )
        if groups.sizes.max() == 1:
            raise DataError(
                f"Every group of column(s) '{cols}' in '{dataset.name}' is a single example ({groups.n_groups} groups), "
                "so the column looks like an id. Group by a coarser column (site, domain, source)."
            )
        return groups

    def _name(self, held: list[str]) -> str:
        col = "+".join(self._columns)
        return f"group:{col}={'+'.join(held)}"

    def _iter_indices(self, dataset: Dataset, rng: np.random.Generator) -> Iterator[tuple[np.ndarray, np.ndarray, SplitDetails]]:
        groups = self.groups(dataset)
        names, sizes = groups.names, groups.sizes
        small = [n for n, s in zip(names, sizes) if s < self.min_group_size]
        if small and self._holdouts is None:
            warnings.warn(
                f"{len(small)} group(s) of '{'+'.join(self._columns)}' have fewer than min_group_size={self.min_group_size} "
                f"examples and stay in training only: {small[:10]}{' ...' if len(small) > 10 else ''}.",
                UserWarning, stacklevel=3,
            )
        everyone = {"n_groups": groups.n_groups, "group_columns": list(self._columns),
                    "group_sizes": dict(zip(names, sizes.tolist()))}
        if self._holdouts is not None:
            test = np.concatenate([groups.indices(h) for h in self._holdouts])
            tiny = [h for h in self._holdouts if sizes[names.index(h)] < self.min_group_size]
            if tiny:
                warnings.warn(f"Held-out group(s) {tiny} have fewer than {self.min_group_size} examples: scores on "
                              "them will have very wide intervals.", UserWarning, stacklevel=3)
            train = np.setdiff1d(np.arange(len(dataset)), test)
            yield train, test, SplitDetails(name=self._name(self._holdouts), held_out=f"group(s) {self._holdouts} of "
                                            f"{'+'.join(self._columns)}", figures={"test_groups": self._holdouts, **everyone})
            return
        eligible = [g for g in range(groups.n_groups) if sizes[g] >= self.min_group_size]
        if self.n_folds is None:
            if not eligible:
                raise DataError(f"No group of '{'+'.join(self._columns)}' has min_group_size={self.min_group_size} examples.")
            for g in eligible:
                test = np.flatnonzero(groups.codes == g)
                train = np.flatnonzero(groups.codes != g)
                yield train, test, SplitDetails(name=self._name([names[g]]), held_out=f"group '{names[g]}' of "
                                                f"{'+'.join(self._columns)}", figures={"test_groups": [names[g]], **everyone})
            return
        fold_of = self._assign_folds(sizes, eligible, rng, dataset)
        for k in range(self.n_folds):
            in_fold = [names[g] for g in eligible if fold_of[g] == k]
            test = np.flatnonzero(fold_of[groups.codes] == k)
            train = np.setdiff1d(np.arange(len(dataset)), test)
            yield train, test, SplitDetails(name=f"group:{'+'.join(self._columns)}:fold{k}", held_out=f"{len(in_fold)} "
                                            f"group(s) of {'+'.join(self._columns)}: {in_fold[:10]}",
                                            figures={"test_groups": in_fold, "fold": k, **everyone})

    def _assign_folds(self, sizes: np.ndarray, eligible: list[int], rng: np.random.Generator, dataset: Dataset) -> np.ndarray:
        if len(eligible) < self.n_folds:
            raise DataError(
                f"n_folds={self.n_folds} but '{dataset.name}' has only {len(eligible)} group(s) of "
                f"'{'+'.join(self._columns)}' with at least {self.min_group_size} examples. Use fewer folds."
            )
        fold_of = np.full(len(sizes), -1)
        shuffled = rng.permutation(np.asarray(eligible))
        order = shuffled[np.argsort(-sizes[shuffled], kind="stable")]
        load = np.zeros(self.n_folds, dtype=np.int64)
        for g in order:
            k = int(np.argmin(load))
            fold_of[g] = k
            load[k] += sizes[g]
        return fold_of

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        """1 with ``holdout``, ``n_folds`` for k-fold, else the number of groups (which needs the data)."""
        if self._holdouts is not None:
            return 1
        if self.n_folds is not None:
            return int(self.n_folds)
        if X is None and groups is None:
            raise ConfigError("Leave-one-group-out makes one split per group: pass the data (X, or groups=) to get_n_splits.")
        if X is None:  # only the groups: a frame of them is all that is needed
            dataset = Dataset.from_frame(pd.DataFrame({"input": np.zeros(len(groups)), "group": list(groups)}), target=None)
        else:
            dataset = as_dataset(X, y)
            if groups is not None:
                dataset = dataset.with_columns(group=list(groups))
        g = self.groups(dataset)
        return int(np.sum(g.sizes >= self.min_group_size))
