"""The cross-group transfer matrix: train on each group, test on every group.

Cell (i, j) is the score of a learner trained on group i and tested on group j. Off the diagonal
the test part is all of group j; on the diagonal it is a held-out share of group i (the learner
is trained on the rest of group i, and that same fitted learner scores every other group), so
the diagonal is the in-group i.i.d. reference each row's transfer is compared with.

One fit per group; each fitted learner predicts every test example in one batched pass, and
per-group scores are vectorized, so nearly all the time is the model's own.

>>> import gengap
>>> from sklearn.dummy import DummyClassifier
>>> ds = gengap.load([{"input": str(i), "target": "ab"[i % 2 if i < 20 else 0], "site": "xy"[i // 20]} for i in range(40)])
>>> tm = transfer_matrix(DummyClassifier(strategy="most_frequent"), ds, "site", n_resamples=200)
>>> tm.scores.round(2).values.tolist()
[[0.25, 1.0], [0.5, 1.0]]
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gengap._errors import ConfigError, DataError, GengapError, ModelError
from gengap._random import check_random_state
from gengap.analysis.group_scores import group_by
from gengap.analysis.intervals import mean_ci
from gengap.dataset import Dataset
from gengap.metrics import get_metric, score
from gengap.models import as_model
from gengap.runner import predict_batched

__all__ = ["TransferMatrix", "transfer_matrix", "TRANSFER_FILE"]

#: File name of a saved matrix beside the results store; the report's groups section draws it.
TRANSFER_FILE = "transfer.json"


@dataclass(frozen=True)
class TransferMatrix:
    """Scores of a learner trained on each group (rows) and tested on each group (columns).

    Attributes
    ----------
    scores, low, high : DataFrames (train group x test group) of the mean score and its bootstrap interval.
    n : DataFrame of the number of test examples behind each cell.
    metric : the metric scored.
    fit_seconds, predict_seconds, total_seconds : where the time went (fit and predict are the model's).
    """

    scores: pd.DataFrame
    low: pd.DataFrame
    high: pd.DataFrame
    n: pd.DataFrame
    metric: str
    fit_seconds: float
    predict_seconds: float
    total_seconds: float

    def to_frame(self) -> pd.DataFrame:
        """Long format: train_group, test_group, n, score, score_low, score_high."""
        out = self.scores.stack().rename("score").to_frame()
        out["score_low"] = self.low.stack()
        out["score_high"] = self.high.stack()
        out["n"] = self.n.stack()
        out.index.names = ["train_group", "test_group"]
        return out.reset_index()[["train_group", "test_group", "n", "score", "score_low", "score_high"]]

    def save(self, path: str | Path) -> Path:
        """Write the matrix as JSON; saved as ``transfer.json`` beside a run's ``gengap.duckdb``, the report draws it."""
        from gengap.io import to_jsonable

        out = Path(path)
        if out.is_dir():
            out = out / TRANSFER_FILE
        out.write_text(json.dumps(to_jsonable({"metric": self.metric, "cells": self.to_frame().to_dict(orient="records")}),
                                  indent=1, sort_keys=True) + "\n", encoding="utf-8")
        return out

    @classmethod
    def load(cls, path: str | Path) -> TransferMatrix:
        """Read a matrix written by :meth:`save` (timings are not kept)."""
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        cells = pd.DataFrame.from_records(data["cells"])
        order = list(dict.fromkeys(cells["train_group"]))
        wide = {k: cells.pivot(index="train_group", columns="test_group", values=k).reindex(index=order, columns=order)
                for k in ("score", "score_low", "score_high", "n")}
        return cls(scores=wide["score"], low=wide["score_low"], high=wide["score_high"], n=wide["n"].astype(np.int64),
                   metric=data["metric"], fit_seconds=float("nan"), predict_seconds=float("nan"), total_seconds=float("nan"))

    def transfer_gap(self) -> pd.Series:
        """Per training group: in-group score minus the mean score on the other groups."""
        diag = pd.Series(np.diag(self.scores.to_numpy()), index=self.scores.index)
        off = self.scores.where(~np.eye(len(self.scores), dtype=bool)).mean(axis=1)
        return (diag - off).rename("transfer_gap")


def transfer_matrix(
    learner: Any,
    dataset: Dataset,
    group: str | Sequence[str],
    *,
    metric: str = "exact_match",
    in_group_test_fraction: float = 0.2,
    min_group_size: int = 5,
    batch_size: int = 4096,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    seed: int | None = 0,
) -> TransferMatrix:
    """Train on each group and test on every group (the diagonal on held-out in-group examples).

    Parameters
    ----------
    learner : an unfitted scikit-learn estimator or pipeline, or a gengap learner (``needs_fit``).
    dataset : the examples, with the grouping column(s).
    group : the metadata column(s) that form groups.
    metric : per-example scorer name.
    in_group_test_fraction : share of each group held out for the diagonal.
    min_group_size : groups smaller than this are an error (too few to train and hold out).
    """
    get_metric(metric)
    model = as_model(learner)
    if not model.needs_fit:
        raise ConfigError(f"The transfer matrix trains a model per group: '{model.name}' is already fitted or cannot be "
                          "trained. Pass an unfitted estimator or a gengap learner.")
    if not 0 < in_group_test_fraction < 1:
        raise ConfigError(f"in_group_test_fraction={in_group_test_fraction!r} must be in (0, 1).")
    start = time.perf_counter()
    groups = group_by(dataset, group)
    if groups.n_groups < 2:
        raise DataError(f"The transfer matrix needs two or more groups; column(s) {list(groups.columns)} hold one ('{groups.names[0]}').")
    small = [(n, int(s)) for n, s in zip(groups.names, groups.sizes) if s < min_group_size]
    if small:
        raise DataError(f"Group(s) {small[:10]} of {list(groups.columns)} have fewer than min_group_size={min_group_size} "
                        "examples: too few to train on and hold out. Merge or drop them, or lower min_group_size.")
    rng = check_random_state(seed)
    k = groups.n_groups
    names = groups.names
    inputs, targets = dataset.inputs, dataset.targets
    # in-group held-out examples for the diagonal
    held = np.zeros(len(dataset), dtype=bool)
    for g in range(k):
        members = np.flatnonzero(groups.codes == g)
        n_test = max(1, int(round(in_group_test_fraction * members.size)))
        held[rng.choice(members, n_test, replace=False)] = True
    fit_s = predict_s = 0.0
    table = {key: np.zeros((k, k)) for key in ("score", "low", "high", "n")}
    for i in range(k):
        train = np.flatnonzero((groups.codes == i) & ~held)
        test = np.flatnonzero((groups.codes != i) | held)
        t0 = time.perf_counter()
        try:
            fitted = model.fit([inputs[t] for t in train], [targets[t] for t in train])
        except GengapError:
            raise
        except Exception as e:
            raise ModelError(f"Training '{model.name}' on group '{names[i]}' failed: {type(e).__name__}: {e}") from e
        t1 = time.perf_counter()
        outputs = predict_batched(fitted, [inputs[t] for t in test], batch_size=batch_size, where=f"transfer from group '{names[i]}'")
        t2 = time.perf_counter()
        fit_s += t1 - t0
        predict_s += t2 - t1
        values = score(metric, outputs, [targets[t] for t in test])
        codes = groups.codes[test]
        for j in range(k):
            cell = values[codes == j]
            if cell.size == 0:
                est = lo = hi = float("nan")
            else:
                ci = mean_ci(cell, confidence=confidence, n_resamples=n_resamples, seed=rng)
                est, lo, hi = ci.estimate, ci.low, ci.high
            table["score"][i, j], table["low"][i, j], table["high"][i, j], table["n"][i, j] = est, lo, hi, cell.size
    frames = {key: pd.DataFrame(v, index=pd.Index(names, name="train_group"), columns=pd.Index(names, name="test_group"))
              for key, v in table.items()}
    frames["n"] = frames["n"].astype(np.int64)
    return TransferMatrix(scores=frames["score"], low=frames["low"], high=frames["high"], n=frames["n"], metric=metric,
                          fit_seconds=fit_s, predict_seconds=predict_s, total_seconds=time.perf_counter() - start)
