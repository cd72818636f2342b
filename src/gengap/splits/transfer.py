"""Cross-group transfer: train on one group, test on every group.

One split per training group. Its train part is that group minus a held-out share of it; its test
part is that held-out share (the in-group i.i.d. reference, the matrix's diagonal) and every
example of every other group. With ``group="site"``, sites ``a`` (rows 0, 2, 4, 6) and ``b``
(rows 1, 3, 5, 7) and ``test_fraction=0.25``, one row of each site is held out (say rows 4 and 3):

===================  =========  ==============  ===================
split                train      test            tested groups
===================  =========  ==============  ===================
``transfer:site=a``  0, 2, 6    4; 1, 3, 5, 7   a (held out); b
``transfer:site=b``  1, 5, 7    3; 0, 2, 4, 6   b (held out); a
===================  =========  ==============  ===================

So the runner fits one model per group and tests it on every group in one pass, and the rows it
stores carry each example's group (its metadata). The matrix is an analysis of those rows:
:func:`gengap.analysis.transfer.transfer_matrix_from_rows` (or ``Evaluation.transfer()``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from gengap._errors import ConfigError, DataError
from gengap.analysis.group_scores import Groups, _as_columns, group_by
from gengap.dataset import Dataset
from gengap.splits._base import SPLIT_METHODS, Splitter, TaxonomyCard, as_dataset, register_splitter
from gengap.splits._diagnostics import SplitDetails, StructureFigures

__all__ = ["TransferSplit", "held_out_draws", "transfer_split_name"]


def held_out_draws(sizes: Sequence[int], fraction: float, rng: np.random.Generator) -> list[np.ndarray]:
    """Per group (in order), the positions within the group held out for the in-group test part.

    ``max(1, round(fraction * size))`` of each group, drawn without replacement from ``rng`` one
    group after another; the draws use the generator the same way whatever the group's members
    are, so a reader of the stored split can continue the same random stream.

    >>> [d.size for d in held_out_draws([10, 4], 0.2, np.random.default_rng(0))]
    [2, 1]
    """
    return [rng.choice(int(size), max(1, int(round(fraction * int(size)))), replace=False) for size in sizes]


def transfer_split_name(columns: Sequence[str], train_group: str) -> str:
    """The name of the split trained on ``train_group``.

    >>> transfer_split_name(["site"], "a")
    'transfer:site=a'
    """
    return f"transfer:{'+'.join(columns)}={train_group}"


@register_splitter
class TransferSplit(Splitter):
    """Train on each group and test on every group: one split per training group.

    Parameters
    ----------
    group : the metadata column(s) whose value combinations form the groups (``"site"`` or
        ``["site", "year"]``). The default ``"group"`` is the column scikit-learn's ``groups=`` fills.
    test_fraction : share of each group held out as its in-group test part (the diagonal).
    min_group_size : a group smaller than this is an error (too few to train on and hold out).
    seed : seed of the held-out draws.

    >>> import gengap
    >>> ds = gengap.load([{"input": f"x{i}", "target": "y", "site": "ab"[i % 2]} for i in range(20)])
    >>> splits = gengap.splits.TransferSplit(group="site").split_datasets(ds)
    >>> [(s.name, len(s.train), len(s.test)) for s in splits]
    [('transfer:site=a', 8, 12), ('transfer:site=b', 8, 12)]
    """

    method = "transfer"
    card = TaxonomyCard(
        motivation="practical", generalisation_type="cross_domain", shift_type="covariate",
        shift_source="naturally_occurring",
        description="Trained on one group (site, domain, source) and tested on each group: which groups transfer to which?",
    )

    def __init__(
        self,
        *,
        group: str | Sequence[str] = "group",
        test_fraction: float = 0.2,
        min_group_size: int = 5,
        seed: int | None = 0,
    ) -> None:
        self.group = group
        self.test_fraction = test_fraction
        self.min_group_size = min_group_size
        self.seed = seed
        self._columns = _as_columns(group)
        if isinstance(test_fraction, bool) or not isinstance(test_fraction, (float, np.floating)) or not 0 < test_fraction < 1:
            raise ConfigError(f"TransferSplit: test_fraction={test_fraction!r} (the held-out share of each group) must be "
                              "a fraction in (0, 1).")
        if isinstance(min_group_size, bool) or not isinstance(min_group_size, (int, np.integer)) or min_group_size < 2:
            raise ConfigError(f"TransferSplit: min_group_size={min_group_size!r} must be an integer >= 2 (a group needs "
                              "examples to train on and to hold out).")

    def groups(self, dataset: Dataset) -> Groups:
        """The groups of ``dataset``, checked: two or more, none under ``min_group_size``."""
        groups = group_by(dataset, self._columns)
        if groups.n_groups < 2:
            raise DataError(f"The transfer matrix needs two or more groups; column(s) {list(groups.columns)} hold one "
                            f"('{groups.names[0]}').")
        small = [(n, int(s)) for n, s in zip(groups.names, groups.sizes) if s < self.min_group_size]
        if small:
            raise DataError(f"Group(s) {small[:10]} of {list(groups.columns)} have fewer than min_group_size="
                            f"{self.min_group_size} examples: too few to train on and hold out. Merge or drop them, or "
                            "lower min_group_size.")
        return groups

    def _iter_indices(self, dataset: Dataset, rng: np.random.Generator) -> Iterator[tuple[np.ndarray, np.ndarray, SplitDetails]]:
        from gengap.structure.counts import count_structure, split_structure

        groups = self.groups(dataset)
        names = list(groups.names)
        members = [np.flatnonzero(groups.codes == g) for g in range(groups.n_groups)]
        held = [m[d] for m, d in zip(members, held_out_draws(groups.sizes.tolist(), self.test_fraction, rng))]
        cols = "+".join(self._columns)
        shared = {"group_columns": list(self._columns), "groups": names, "group_sizes": groups.sizes.tolist()}
        # the structural diagnostics of every split from one count of the data
        compounds = (split_structure.__kwdefaults__ or {})["compounds"]
        atom_counts = count_structure(dataset, self.atoms, role="atoms")
        compound_counts = count_structure(dataset, compounds, role="compounds")
        for i, train_group in enumerate(names):
            train = np.setdiff1d(members[i], held[i])
            test = np.union1d(held[i], np.flatnonzero(groups.codes != i))
            measured = StructureFigures.measure(dataset, train, test, atom_counts=atom_counts,
                                                compound_counts=compound_counts)
            yield train, test, SplitDetails(
                name=transfer_split_name(self._columns, train_group),
                held_out=(f"trained on group '{train_group}' of {cols} less {len(held[i])} held-out examples; tested "
                          "on those and on every other group"),
                structure=measured,
                figures={"train_group": train_group, "n_in_group_test": int(len(held[i])), **shared})

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        """The number of groups (which needs the data)."""
        if X is None and groups is None:
            raise ConfigError("The transfer split makes one split per group: pass the data (X, or groups=) to get_n_splits.")
        if X is None:
            import pandas as pd

            dataset = Dataset.from_frame(pd.DataFrame({"input": np.zeros(len(groups)), "group": list(groups)}), target=None)
        else:
            dataset = as_dataset(X, y)
            if groups is not None:
                dataset = dataset.with_columns(group=list(groups))
        return int(self.groups(dataset).n_groups)


SPLIT_METHODS.main_options["transfer"] = "group"  # "transfer:site" holds the group column(s)
