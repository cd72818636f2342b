"""The splitter protocol, the Split record and the taxonomy card.

A splitter is a scikit-learn CV splitter (``split(X, y=None, groups=None)`` yields
``(train_idx, test_idx)``; ``get_n_splits``), so it drops into ``cross_val_score``. Its richer
``split_dataset(dataset)`` returns a :class:`Split`: the indices plus a :class:`SplitDiagnostics`
record (sizes, unseen test atoms and divergences, what was held out, method figures) and a
:class:`TaxonomyCard`.

Writing a splitter means filling one hook, ``_iter_indices(dataset, rng)``, which yields
``(train_idx, test_idx, SplitDetails(...))``; the base class validates, measures the common
diagnostics and builds the Split.

Every splitter takes ``dedupe=`` (the base class adds it to each constructor): with ``dedupe=True``
the inputs that are normalized or near copies of each other
(:func:`gengap.analysis._copies.copy_groups`) form copy groups, and no partition leaves a group cut
in two. A splitter that draws its sides at random (``dedupe_moves_groups``) moves a cut group whole
to the side of its first example, as a group split would; any other keeps its definition (longer
test examples, held-out compounds, a later date) by setting the group's test examples aside
(unused). The diagnostics' ``dedupe`` figure says how many groups were merged and what moved.

============  ======  ==========  =====================================================
example       input   copy group  RandomSplit(dedupe=True) / LengthSplit(dedupe=True)
============  ======  ==========  =====================================================
0             "a b"   0           drawn train: stays train / train
1             "A b!"  0           drawn test: joins example 0 in train / set aside
2             "c d"   1           as drawn / as drawn
============  ======  ==========  =====================================================
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal, TypeVar

import numpy as np
import pandas as pd

from gengap._errors import ConfigError, DataError
from gengap._random import check_random_state
from gengap._registry import Registry
from gengap.dataset import Dataset
from gengap.splits._diagnostics import SplitDetails, SplitDiagnostics, StructureFigures
from gengap.structure.atoms import AtomFn, words

__all__ = ["Splitter", "Split", "SplitDetails", "SplitDiagnostics", "StructureFigures", "TaxonomyCard", "as_dataset",
           "check_random_state", "resolve_test_size"]

Motivation = Literal["practical", "cognitive", "intrinsic", "fairness"]
GeneralisationType = Literal[
    "none", "compositional", "structural", "cross_task", "cross_language", "cross_domain", "robustness"
]
ShiftType = Literal["none", "covariate", "label", "full", "assumed"]
ShiftSource = Literal["none", "naturally_occurring", "partitioned_natural", "generated_shift", "fully_generated"]
ShiftLocus = Literal["train_test", "finetune_train_test", "pretrain_train", "pretrain_test"]


@dataclass(frozen=True)
class TaxonomyCard:
    """Where a split sits on the GenBench taxonomy (Hupkes et al. 2023), as data.

    Attributes
    ----------
    motivation : why this generalisation matters (practical, cognitive, intrinsic, fairness).
    generalisation_type : what kind (compositional, structural, cross_domain, robustness, ...);
        ``none`` for an i.i.d. baseline.
    shift_type : which distribution differs between train and test (covariate: p(x);
        label: p(y); full: both; assumed: believed but not measured; none).
    shift_source : how the shift arose (partitioned_natural: a split of natural data by a property;
        generated_shift: generated data split by a property; naturally_occurring; fully_generated).
    shift_locus : between which stages (train_test for a model trained and tested here).
    description : one sentence a person reads in the report.
    """

    motivation: Motivation
    generalisation_type: GeneralisationType
    shift_type: ShiftType
    shift_source: ShiftSource
    shift_locus: ShiftLocus = "train_test"
    description: str = ""

    def to_dict(self) -> dict[str, str]:
        return asdict(self)

    @classmethod
    def compositional(cls, description: str, *, shift_source: ShiftSource = "partitioned_natural") -> TaxonomyCard:
        """The card of a compositional split: cognitive motivation, a covariate shift of familiar parts.

        >>> TaxonomyCard.compositional("new pairs of seen words").generalisation_type
        'compositional'
        """
        return cls(motivation="cognitive", generalisation_type="compositional", shift_type="covariate",
                   shift_source=shift_source, description=description)


@dataclass(frozen=True, eq=False)
class Split:
    """One train/test partition of a dataset, with what a reader needs to trust it.

    ``train`` and ``test`` are positions into ``dataset``. ``diagnostics`` is a
    :class:`SplitDiagnostics`: ``n_train``, ``n_test``, ``test_fraction``, ``n_unused``, ``held_out``
    (a sentence), ``structure`` (unseen test atoms, D_A, D_C) and method-specific ``figures``.
    """

    name: str
    method: str
    train: np.ndarray
    test: np.ndarray
    seed: int | None
    params: dict[str, Any]
    diagnostics: SplitDiagnostics
    card: TaxonomyCard
    dataset: Dataset | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.diagnostics, SplitDiagnostics):
            raise ConfigError(f"Split '{self.name}': diagnostics must be a SplitDiagnostics (SplitDiagnostics.of_parts "
                              f"or .from_dict), got {type(self.diagnostics).__name__}.")

    def _require_dataset(self) -> Dataset:
        if self.dataset is None:
            raise ConfigError(f"Split '{self.name}' has no dataset attached; use splitter.split_dataset(dataset).")
        return self.dataset

    @property
    def train_part(self) -> Dataset:
        """The training examples as a Dataset."""
        return self._require_dataset().take(self.train)

    @property
    def test_part(self) -> Dataset:
        """The test examples as a Dataset."""
        return self._require_dataset().take(self.test)

    def to_dict(self) -> dict[str, Any]:
        """Everything but the indices, as plain JSON values (the content of ``split.json``)."""
        from gengap.io import to_jsonable

        return to_jsonable({
            "name": self.name,
            "method": self.method,
            "seed": self.seed,
            "params": self.params,
            "dataset": None if self.dataset is None else {
                "name": self.dataset.name, "n": len(self.dataset), "fingerprint": self.dataset.fingerprint()
            },
            **self.diagnostics.to_dict(),
            "taxonomy": self.card.to_dict(),
        })

    def save(self, out_dir: str | Path) -> Path:
        """Write ``train.jsonl``, ``test.jsonl`` and ``split.json`` to ``out_dir``."""
        from gengap.io import write_jsonl

        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        write_jsonl(self.train_part.to_records(), out / "train.jsonl")
        write_jsonl(self.test_part.to_records(), out / "test.jsonl")
        (out / "split.json").write_text(json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
        return out


def resolve_test_size(test_fraction: float | int, n: int) -> int:
    """A fraction in (0, 1) or a count in [1, n) to a number of test examples."""
    if isinstance(test_fraction, (float, np.floating)) and 0 < test_fraction < 1:
        n_test = int(round(test_fraction * n))
    elif isinstance(test_fraction, (int, np.integer)) and not isinstance(test_fraction, bool) and test_fraction >= 1:
        n_test = int(test_fraction)
    else:
        raise ConfigError(
            f"test_fraction={test_fraction!r} must be a fraction in (0, 1) or a count of examples (>= 1)."
        )
    if not 1 <= n_test < n:
        raise ConfigError(
            f"test_fraction={test_fraction!r} gives {n_test} test examples out of {n}; "
            "both parts need at least one example. Use a larger dataset or another fraction."
        )
    return n_test


def as_dataset(X: Any, y: Any = None) -> Dataset:
    """Turn what scikit-learn passes to ``split`` (a Dataset, DataFrame, or array-like of inputs) into a Dataset."""
    if isinstance(X, Dataset):
        return X
    if isinstance(X, pd.DataFrame) and "input" in X.columns and y is None:
        return Dataset.from_frame(X, target="target" if "target" in X.columns else None)
    inputs = list(X.itertuples(index=False, name=None)) if isinstance(X, pd.DataFrame) else list(X)
    frame = pd.DataFrame({"input": pd.Series(inputs, dtype=object)})
    if y is None:
        return Dataset.from_frame(frame, target=None)
    frame["target"] = list(y)
    return Dataset.from_frame(frame, target="target")


def _check_dedupe(dedupe: Any) -> bool:
    if not isinstance(dedupe, (bool, np.bool_)):
        raise ConfigError(f"dedupe={dedupe!r} must be True (keep copies on one side of every split) or False.")
    return bool(dedupe)


def _with_dedupe(init: Any) -> Any:
    """A splitter's ``__init__`` that also takes ``dedupe=`` (keyword-only, default False) and sets it."""
    sig = inspect.signature(init)
    params = list(sig.parameters.values())
    at = next((i for i, p in enumerate(params) if p.kind is p.VAR_KEYWORD), len(params))
    params.insert(at, inspect.Parameter("dedupe", inspect.Parameter.KEYWORD_ONLY, default=False, annotation="bool"))

    @functools.wraps(init)
    def __init__(self: Splitter, *args: Any, dedupe: bool = False, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        self.dedupe = _check_dedupe(dedupe)

    __init__.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    __init__.__annotations__ = {**getattr(init, "__annotations__", {}), "dedupe": "bool"}
    __init__._adds_dedupe = True  # type: ignore[attr-defined]
    return __init__


class Splitter:
    """Base class of gengap's splitters: validation, diagnostics and the scikit-learn protocol.

    Subclasses set ``method`` and ``card`` and implement ``_iter_indices``.

    Parameters
    ----------
    dedupe : keep inputs that are normalized or near copies of each other on one side of every
        split (their test copies are moved or set aside; the diagnostics' ``dedupe`` figure counts them).
    """

    method: ClassVar[str] = ""
    card: ClassVar[TaxonomyCard]
    #: True for a splitter whose train part may be empty (nothing is trained: every row is tested).
    allows_empty_train: ClassVar[bool] = False
    #: With ``dedupe``: True moves a copy group cut in two whole to the side of its first example (sides
    #: drawn at random); False sets its test examples aside, so the test part keeps its definition.
    dedupe_moves_groups: ClassVar[bool] = False
    #: Keep copies on one side of every split (every splitter's ``dedupe=`` option).
    dedupe: bool = False

    def __init__(self, *, dedupe: bool = False) -> None:
        self.dedupe = _check_dedupe(dedupe)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is not None and "dedupe" not in inspect.signature(init).parameters:
            cls.__init__ = _with_dedupe(init)  # type: ignore[method-assign]

    # -- hook ---------------------------------------------------------------
    def _iter_indices(
        self, dataset: Dataset, rng: np.random.Generator
    ) -> Iterator[tuple[np.ndarray, np.ndarray, SplitDetails]]:
        """Yield ``(train_idx, test_idx, SplitDetails(name=..., held_out=..., figures=...))``."""
        raise NotImplementedError

    # -- scikit-learn protocol ---------------------------------------------
    def split(self, X: Any, y: Any = None, groups: Any = None) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield ``(train_idx, test_idx)`` position arrays, as scikit-learn's CV splitters do."""
        dataset = as_dataset(X, y)
        if groups is not None:
            dataset = dataset.with_columns(group=list(groups))
        for split in self.split_datasets(dataset):
            yield split.train, split.test

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        """Number of train/test partitions ``split`` yields (1 for single-partition splitters)."""
        return 1

    # -- gengap ------------------------------------------------------------
    #: Seed of the splitter's random draws (its ``seed=`` argument); None for splitters that draw nothing.
    seed: int | None = None

    @property
    def atoms(self) -> AtomFn:
        return words

    def split_datasets(self, dataset: Dataset) -> list[Split]:
        """Every partition this splitter makes of ``dataset``, each with diagnostics and a card."""
        rng = check_random_state(self.seed)
        splits = []
        groups = self._copy_groups(dataset) if self.dedupe else None
        for train, test, details in self._iter_indices(dataset, rng):
            if not isinstance(details, SplitDetails):
                raise ConfigError(f"{type(self).__name__}._iter_indices yielded a {type(details).__name__}; yield "
                                  "(train, test, SplitDetails(name=..., held_out=..., figures=...)).")
            if groups is not None:
                train, test, details = self._keep_copies_together(dataset, groups, train, test, details)
            splits.append(self._make_split(dataset, train, test, details))
        if not splits:
            raise DataError(f"{self!r} produced no split of dataset '{dataset.name}'.")
        return splits

    def _copy_groups(self, dataset: Dataset) -> np.ndarray:
        """The copy group of each example's input (:func:`gengap.analysis._copies.copy_groups`)."""
        from gengap.analysis._copies import copy_groups
        from gengap.analysis.leakage import example_texts

        return copy_groups(example_texts(dataset, "input"))

    def _keep_copies_together(self, dataset: Dataset, groups: np.ndarray, train: np.ndarray, test: np.ndarray,
                              details: SplitDetails) -> tuple[np.ndarray, np.ndarray, SplitDetails]:
        """Put back together the copy groups a partition cut in two (see the module docstring)."""
        from dataclasses import replace

        from gengap.analysis._copies import DEFAULT_THRESHOLD, NORMALIZATION

        train, test = np.asarray(train, dtype=np.int64), np.asarray(test, dtype=np.int64)
        sizes = np.bincount(groups)
        cut = np.intersect1d(groups[train], groups[test])
        moved_to_train = moved_to_test = set_aside = 0
        if len(cut):
            in_cut = np.isin(groups, cut)
            if self.dedupe_moves_groups:
                placed = np.concatenate([train, test])
                is_test = np.concatenate([np.zeros(len(train), dtype=bool), np.ones(len(test), dtype=bool)])
                order = np.argsort(placed, kind="stable")
                values, first = np.unique(groups[placed[order]], return_index=True)
                group_in_test = np.zeros(len(sizes), dtype=bool)  # each group's side: its first example's
                group_in_test[values] = is_test[order][first]
                go_test = in_cut[train] & group_in_test[groups[train]]
                go_train = in_cut[test] & ~group_in_test[groups[test]]
                moved_to_test, moved_to_train = int(go_test.sum()), int(go_train.sum())
                train, test = (np.concatenate([train[~go_test], test[go_train]]),
                               np.concatenate([test[~go_train], train[go_test]]))
            else:
                leave = in_cut[test]
                set_aside = int(leave.sum())
                test = test[~leave]
        figures = {"copy_groups_merged": int(np.sum(sizes > 1)), "examples_in_copy_groups": int(sizes[sizes > 1].sum()),
                   "groups_cut": int(len(cut)), "moved_to_train": moved_to_train, "moved_to_test": moved_to_test,
                   "test_set_aside": set_aside, "threshold": DEFAULT_THRESHOLD, "normalization": NORMALIZATION}
        structure = details.structure if not len(cut) else None  # the parts changed: measured again
        return train, test, replace(details, structure=structure, figures={**details.figures, "dedupe": figures})

    def split_dataset(self, dataset: Dataset) -> Split:
        """The (first) partition of ``dataset`` as a :class:`Split`.

        >>> import gengap
        >>> ds = gengap.load([{"input": f"w{i}", "target": "t"} for i in range(10)])
        >>> s = gengap.RandomSplit(test_fraction=0.2, seed=0).split_dataset(ds)
        >>> s.diagnostics.n_train, s.diagnostics.n_test
        (8, 2)
        """
        return self.split_datasets(dataset)[0]

    def _make_split(self, dataset: Dataset, train: np.ndarray, test: np.ndarray, details: SplitDetails) -> Split:
        train = np.sort(np.asarray(train, dtype=np.int64))
        test = np.sort(np.asarray(test, dtype=np.int64))
        if (len(train) == 0 and not self.allows_empty_train) or len(test) == 0:
            raise DataError(
                f"{self!r} left the {'train' if len(train) == 0 else 'test'} part of '{dataset.name}' empty "
                f"({len(train)} train, {len(test)} test). Change the splitter's parameters."
            )
        if np.intersect1d(train, test).size:
            raise AssertionError(f"{self!r} put the same example in train and test")
        if details.structure is None and len(train):  # unseen atoms, D_A and D_C (words, word 2- and 3-grams)
            from dataclasses import replace

            details = replace(details, structure=StructureFigures.measure(dataset, train, test, atoms=self.atoms))
        diagnostics = SplitDiagnostics.of_parts(len(train), len(test), len(dataset), details)
        return Split(name=details.name or self.method, method=self.method, train=train, test=test, seed=self.seed,
                     params=self._params_record(), diagnostics=diagnostics, card=self.card, dataset=dataset)

    @classmethod
    def _parameters(cls) -> list[inspect.Parameter]:
        """The constructor's options."""
        return [p for name, p in inspect.signature(cls.__init__).parameters.items()
                if name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's parameters and their current values (scikit-learn's ``get_params``;
        splitters hold no nested estimators, so ``deep`` changes nothing).

        >>> from gengap.splits import RandomSplit
        >>> RandomSplit(seed=3).get_params()
        {'test_fraction': 0.2, 'seed': 3, 'dedupe': False}
        """
        return {p.name: getattr(self, p.name, p.default) for p in self._parameters()}

    def set_params(self, **params: Any) -> Splitter:
        """Set parameters by name (scikit-learn's ``set_params``); an unknown name is an error.

        >>> from gengap.splits import RandomSplit
        >>> RandomSplit().set_params(seed=7).seed
        7
        """
        from gengap._specs import set_params

        set_params(self, self.get_params(), params)
        return self

    def _params_record(self) -> dict[str, Any]:
        """``get_params`` as plain JSON values (a callable or array becomes its repr), for ``Split.params``."""
        plain = (int, float, str, bool, type(None), list, tuple, dict)
        return {k: v if isinstance(v, plain) else repr(v) for k, v in self.get_params().items()}

    def __repr__(self) -> str:
        sig = inspect.signature(type(self).__init__)
        shown = []
        for key, value in self._params_record().items():
            default = sig.parameters[key].default
            if value != default:
                shown.append(f"{key}={value!r}")
        return f"{type(self).__name__}({', '.join(shown)})"


#: Split methods by name (``"random"``, ``"mcd"``, ...), as the CLI and run files write them.
#: A bare value after the colon sets the method's main option (``"primitive:jump"``).
SPLIT_METHODS: Registry[type[Splitter]] = Registry("split method", listed_as="Methods", main_options={
    "primitive": "primitive", "length": "by", "combination": "combinations", "parts": "max_train_parts",
    "mcd": "target_divergence"})

S = TypeVar("S", bound=type[Splitter])


def register_splitter(cls: S | None = None, *, replace: bool = False) -> Any:
    """Class decorator: make a splitter available under its ``method`` name; a taken name is an error
    unless ``replace=True`` (a subclass never takes its parent's name by accident).

    >>> @register_splitter
    ... class EveryOther(Splitter):
    ...     method, card = "every_other", SPLIT_METHODS["random"].card
    ...     def _iter_indices(self, dataset, rng):
    ...         idx = np.arange(len(dataset))
    ...         yield idx[idx % 2 == 0], idx[idx % 2 == 1], SplitDetails(held_out="every odd row")
    >>> "every_other" in SPLIT_METHODS
    True
    >>> SPLIT_METHODS.unregister("every_other")
    """

    def add(c: S) -> S:
        if not c.method:
            raise ConfigError(f"{c.__name__} needs a class attribute 'method' (its name in specs) to be registered.")
        SPLIT_METHODS.register(c.method, c, replace=replace)
        return c

    return add if cls is None else add(cls)
