"""Easy-to-hard splits: train on the easier items, test on the harder ones.

Difficulty comes from a numeric column the user has (human ratings, pass rates), from a proxy
(``"input_length"``, ``"target_length"``, a reference model's loss via :func:`reference_loss`),
or from item response theory over the models already in a results store (``"irt"`` with
``store=PATH``; Easy2Hard-Bench, "Revisiting Generalization Across Difficulty Levels").

====  ==========  ===================================
row   difficulty  test_fraction=0.25 (easy to hard)
====  ==========  ===================================
0     0.1         train
1     0.9         test
2     0.4         train
3     0.3         train
====  ==========  ===================================

Items of equal difficulty are never divided between the parts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Literal

import numpy as np
import pandas as pd

from gengap._errors import ConfigError, DataError
from gengap.dataset import Dataset
from gengap.splits._base import SplitDetails, Splitter, TaxonomyCard, register_splitter, resolve_test_size
from gengap.structure.atoms import length

__all__ = ["DifficultySplit", "difficulty_bins", "reference_loss"]

#: Difficulty proxies computed from the examples themselves.
PROXIES = ("input_length", "target_length")


def difficulty_bins(values: Any, n_bins: int = 5) -> pd.Series:
    """Quantile bins of difficulty (``"q1"`` easiest ... ``"qk"``), for accuracy by difficulty bin.

    Equal values share a bin, so there may be fewer than ``n_bins`` bins.

    >>> difficulty_bins([0.1, 0.2, 0.3, 0.4], n_bins=2).tolist()
    ['q1', 'q1', 'q2', 'q2']
    """
    arr = pd.Series(np.asarray(values, dtype=np.float64))
    codes = pd.qcut(arr.rank(method="min"), q=n_bins, labels=False, duplicates="drop")
    return codes.map(lambda c: f"q{int(c) + 1}")


def reference_loss(estimator: Any, dataset: Dataset) -> np.ndarray:
    """Per-example cross-entropy of a fitted classifier's ``predict_proba``: a difficulty proxy.

    >>> import gengap
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> ds = gengap.load([{"input": t, "target": y} for t, y in [("good", "pos"), ("bad", "neg")] * 5])
    >>> clf = make_pipeline(CountVectorizer(), LogisticRegression()).fit(ds.inputs, ds.targets)
    >>> reference_loss(clf, ds).shape
    (10,)
    """
    from gengap.models._base import _batch_for_estimator

    if not hasattr(estimator, "predict_proba"):
        raise ConfigError(f"{type(estimator).__name__} has no predict_proba; pass a fitted probabilistic classifier.")
    proba = np.asarray(estimator.predict_proba(_batch_for_estimator(dataset.inputs)))
    classes = list(estimator.classes_)
    position = {c: i for i, c in enumerate(classes)}
    index = np.array([position.get(t, -1) for t in dataset.targets])
    p = np.where(index >= 0, proba[np.arange(len(index)), np.maximum(index, 0)], 0.0)
    return -np.log(np.clip(p, 1e-12, 1.0))


@register_splitter
class DifficultySplit(Splitter):
    """Train on the easiest items, test on the hardest (or the reverse).

    Parameters
    ----------
    difficulty : a numeric metadata column, ``"input_length"``, ``"target_length"``, ``"irt"``
        (difficulty fitted by IRT on the models stored in ``store``), a callable
        ``dataset -> array`` (e.g. ``lambda ds: reference_loss(clf, ds)``), or an array of values.
    test_fraction : share of examples in the test part.
    direction : ``"easy_to_hard"`` (test on the hardest) or ``"hard_to_easy"``.
    n_bins : number of quantile bins reported in the diagnostics.
    store, irt_model, metric : for ``difficulty="irt"``: the results store, "1pl"/"2pl", and the metric.

    >>> import gengap
    >>> ds = gengap.load([{"input": "x", "target": "y", "hardness": h} for h in [0.1, 0.9, 0.4, 0.3]])
    >>> DifficultySplit(difficulty="hardness", test_fraction=0.25).split_dataset(ds).test.tolist()
    [1]
    """

    method = "difficulty"
    card = TaxonomyCard(
        motivation="intrinsic", generalisation_type="structural", shift_type="covariate", shift_source="partitioned_natural",
        description="Trained on easier items, tested on harder ones: does what the model learned extend up the difficulty scale?",
    )

    def __init__(
        self,
        *,
        difficulty: str | Callable[[Dataset], Any] | Any = "input_length",
        test_fraction: float | int = 0.2,
        direction: Literal["easy_to_hard", "hard_to_easy"] = "easy_to_hard",
        n_bins: int = 5,
        store: str | None = None,
        irt_model: Literal["1pl", "2pl"] = "1pl",
        metric: str = "exact_match",
    ) -> None:
        self.difficulty = difficulty
        self.test_fraction = test_fraction
        self.direction = direction
        self.n_bins = n_bins
        self.store = store
        self.irt_model = irt_model
        self.metric = metric
        resolve_test_size(test_fraction, 10**9)
        if direction not in ("easy_to_hard", "hard_to_easy"):
            raise ConfigError(f"direction={direction!r} must be 'easy_to_hard' or 'hard_to_easy'.")
        if not isinstance(n_bins, (int, np.integer)) or n_bins < 2:
            raise ConfigError(f"n_bins={n_bins!r} must be an integer >= 2.")
        if isinstance(difficulty, str) and difficulty == "irt" and store is None:
            raise ConfigError("difficulty='irt' fits item difficulty from several models' stored results: pass store=PATH "
                              "(a gengap.duckdb holding a run with two or more models), e.g. -o store=out/gengap.duckdb.")

    def _label(self) -> str:
        return self.difficulty if isinstance(self.difficulty, str) else getattr(self.difficulty, "__name__", "values")

    def values(self, dataset: Dataset) -> np.ndarray:
        """Difficulty of every example of ``dataset`` (larger is harder)."""
        spec = self.difficulty
        if isinstance(spec, str) and spec in PROXIES:
            column = dataset.inputs if spec == "input_length" else dataset.targets
            raw: Any = [length(v) for v in column]
        elif isinstance(spec, str) and spec == "irt":
            from gengap.analysis.irt import irt_from_store

            fit = irt_from_store(self.store, metric=self.metric, model=self.irt_model)
            raw = fit.difficulty.reindex(dataset.ids).to_numpy()
            missing = np.isnan(raw)
            if missing.any():
                raise DataError(
                    f"IRT from '{self.store}' has no difficulty for {int(missing.sum())} of {len(dataset)} examples of "
                    f"'{dataset.name}' (ids such as {[dataset.ids[i] for i in np.flatnonzero(missing)[:5]]}). Evaluate the "
                    "models on every example (a random split with test_fraction close to 1, or the full dataset) first."
                )
        elif isinstance(spec, str):
            raw = dataset.column(spec)
        elif callable(spec):
            raw = spec(dataset)
        else:
            raw = spec
        try:
            arr = np.asarray(pd.to_numeric(pd.Series(list(raw)), errors="raise"), dtype=np.float64)
        except (TypeError, ValueError):
            raise DataError(f"Difficulty '{self._label()}' of '{dataset.name}' is not numeric; give a column of numbers.") from None
        if arr.shape != (len(dataset),):
            raise DataError(f"Difficulty '{self._label()}' has {arr.size} values for {len(dataset)} examples.")
        bad = ~np.isfinite(arr)
        if bad.any():
            raise DataError(f"Difficulty '{self._label()}' is missing or not finite in {int(bad.sum())} row(s) (0-based) "
                            f"{np.flatnonzero(bad)[:10].tolist()}; fill or drop them.")
        return arr

    def _iter_indices(self, dataset: Dataset, rng: np.random.Generator) -> Iterator[tuple[np.ndarray, np.ndarray, SplitDetails]]:
        values = self.values(dataset)
        hard = values if self.direction == "easy_to_hard" else -values
        distinct = np.unique(hard)
        if len(distinct) < 2:
            raise DataError(
                f"Every example of '{dataset.name}' has the same difficulty '{self._label()}' ({values[0]:g}), so nothing is "
                "easier or harder. Use another difficulty column or proxy (input_length, a reference model's loss, irt)."
            )
        n_test = resolve_test_size(self.test_fraction, len(dataset))
        ordered = np.sort(hard)
        counts = len(ordered) - np.searchsorted(ordered, distinct[1:], side="left")
        threshold = distinct[1:][int(np.argmin(np.abs(counts - n_test)))]
        test = np.flatnonzero(hard >= threshold)
        train = np.flatnonzero(hard < threshold)
        bins = difficulty_bins(values, self.n_bins)
        shown = threshold if self.direction == "easy_to_hard" else -threshold
        word = ">=" if self.direction == "easy_to_hard" else "<="
        yield train, test, SplitDetails(
            name=f"difficulty:{self._label()}" + ("" if self.direction == "easy_to_hard" else ":hard_to_easy"),
            held_out=f"the {'hardest' if self.direction == 'easy_to_hard' else 'easiest'} examples: {self._label()} {word} {shown:g}",
            figures={
                "difficulty": self._label(),
                "threshold": float(shown),
                "train_difficulty_range": [float(values[train].min()), float(values[train].max())],
                "test_difficulty_range": [float(values[test].min()), float(values[test].max())],
                "difficulty_bins": {str(k): int(v) for k, v in bins.value_counts().sort_index().items()},
            },
        )
