"""Analyses that train a model several times, then read the result from the rows: the cross-group
transfer matrix (one training per group) and the spread over seeds (one training per seed).

Each runs models (through :func:`gengap.evaluate` or the backends) and hands what it got to the
analysis stage, which computes from rows: :mod:`gengap.analysis.transfer` and
:mod:`gengap.analysis.seed_spread`.

>>> import gengap
>>> from sklearn.dummy import DummyClassifier
>>> ds = gengap.load([{"input": str(i), "target": "ab"[i % 2 if i < 20 else 0], "site": "xy"[i // 20]} for i in range(40)])
>>> tm = transfer_matrix(DummyClassifier(strategy="most_frequent"), ds, "site", n_resamples=200)
>>> tm.scores.round(2).values.tolist()
[[0.25, 1.0], [0.5, 1.0]]

>>> def train_fn(seed):
...     rng = np.random.default_rng(seed)
...     return {"iid": 0.84 + rng.normal(0, 0.002), "ood": rng.uniform(0, 0.6)}
>>> spread = seeds(train_fn, n=10)
>>> bool(spread.per_split().loc["ood", "range"] > spread.per_split().loc["iid", "range"])
True
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from gengap._errors import ConfigError, DataError
from gengap._progress import progress
from gengap._settings import Execution
from gengap.analysis.seed_spread import SeedSpread, spread_from_scores
from gengap.analysis.transfer import TransferMatrix, run_transfer
from gengap.backends import predict_batched
from gengap.dataset import Dataset
from gengap.evaluation import evaluate
from gengap.metrics import get_metric, score
from gengap.models import Model, as_model
from gengap.splits.transfer import TransferSplit
from gengap.store import Store

__all__ = ["transfer_matrix", "seeds"]


class _Timed(Model):
    """A model whose fit and predict seconds are added up (for :func:`transfer_matrix`'s timings)."""

    def __init__(self, inner: Model, seconds: dict[str, float]) -> None:
        self.inner, self.seconds = inner, seconds
        self.name, self.needs_fit = inner.name, inner.needs_fit
        self.cacheable, self.cache_note = inner.cacheable, inner.cache_note

    def fit(self, inputs: Sequence[Any], targets: Sequence[Any]) -> Model:
        start = time.perf_counter()
        fitted = self.inner.fit(inputs, targets)
        self.seconds["fit"] += time.perf_counter() - start
        return _Timed(fitted, self.seconds)

    def predict(self, inputs: Sequence[Any]) -> Sequence[Any]:
        start = time.perf_counter()
        out = self.inner.predict(inputs)
        self.seconds["predict"] += time.perf_counter() - start
        return out

    def fingerprint(self) -> str:
        return self.inner.fingerprint()


def transfer_matrix(
    learner: Any,
    dataset: Dataset,
    group: str | Sequence[str],
    *,
    metric: str = "exact_match",
    in_group_test_fraction: float = 0.2,
    min_group_size: int = 5,
    batch_size: int = Execution().batch_size,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    seed: int | None = 0,
    out: str | Path | None = None,
    shard_size: int | None = None,
    name: str = "transfer",
    progress: bool | None = False,
) -> TransferMatrix:
    """Train on each group and test on every group (the diagonal on held-out in-group examples).

    Runs ``gengap.evaluate`` with the ``transfer`` split method into ``out`` (a temporary folder,
    removed afterwards, when None) and reads the matrix from the stored rows: with ``out``, the run
    (named ``name``) resumes, caches and reuses outputs, and appears in that folder's report.

    Parameters
    ----------
    learner : an unfitted scikit-learn estimator or pipeline, or a gengap learner (``needs_fit``).
    dataset : the examples, with the grouping column(s).
    group : the metadata column(s) that form groups.
    metric : per-example scorer name.
    in_group_test_fraction : share of each group held out for the diagonal.
    min_group_size : groups smaller than this are an error (too few to train and hold out).
    seed : seed of the held-out draws and of the bootstrap that follows them.
    out, name : the folder and run name to store the rows under (a temporary folder when None).
    shard_size : rows per stored unit of work; default a whole split (one training group) per shard,
        since each shard costs a durable commit; give a smaller one for slow models.
    """
    get_metric(metric)
    model = as_model(learner)
    if not model.needs_fit:
        raise ConfigError(f"The transfer matrix trains a model per group: '{model.name}' is already fitted or cannot be "
                          "trained. Pass an unfitted estimator or a gengap learner.")
    if not 0 < in_group_test_fraction < 1:
        raise ConfigError(f"in_group_test_fraction={in_group_test_fraction!r} must be in (0, 1).")
    start = time.perf_counter()
    splitter = TransferSplit(group=group, test_fraction=float(in_group_test_fraction), min_group_size=min_group_size,
                             seed=seed)
    seconds = {"fit": 0.0, "predict": 0.0}
    with tempfile.TemporaryDirectory(prefix="gengap-transfer-") as scratch:
        ev = evaluate(_Timed(model, seconds), dataset, [splitter], metrics=[metric], out=out if out is not None else scratch,
                      name=name, batch_size=batch_size, shard_size=shard_size or max(len(dataset), 1), progress=progress,
                      cache=out is not None)  # a temporary folder's cache is thrown away with it
        with Store(ev.store_path, read_only=True) as store:
            tm = run_transfer(store, ev.run_id, model=model.name, metric=metric, confidence=confidence,
                              n_resamples=n_resamples)
    return replace(tm, fit_seconds=seconds["fit"], predict_seconds=seconds["predict"],
                   total_seconds=time.perf_counter() - start, run_id=tm.run_id if out is not None else None)


def _as_scores(result: Any, seed: int, eval_sets: Mapping[str, Any] | None, metric: str) -> dict[str, float]:
    if isinstance(result, Mapping):
        out = {}
        for split, value in result.items():
            arr = np.asarray(value, dtype=np.float64).ravel()
            if arr.size == 0 or np.isnan(arr).any():
                raise DataError(f"train_fn(seed={seed}) returned an empty or NaN score for split '{split}'.")
            out[str(split)] = float(arr.mean())
        return out
    if eval_sets is None:
        raise ConfigError(
            f"train_fn(seed={seed}) returned a {type(result).__name__}, not a dict of scores. Either return "
            "{split_name: score or per-example scores}, or return a trained model and pass eval_sets={name: Dataset}."
        )
    model = as_model(result)
    out = {}
    for name, dataset in eval_sets.items():
        outputs = predict_batched(model, dataset.inputs, batch_size=Execution().batch_size, where=f"seed {seed}, set '{name}'")
        out[name] = float(score(metric, outputs, dataset.targets).mean())
    return out


def seeds(
    train_fn: Callable[[int], Any],
    n: int = 5,
    *,
    eval_sets: Mapping[str, Any] | None = None,
    in_distribution: str | None = None,
    metric: str = "exact_match",
    first_seed: int = 0,
    progress_bar: bool | None = None,
) -> SeedSpread:
    """Train and evaluate ``n`` seeds and report the spread of each split's score.

    Parameters
    ----------
    train_fn : called as ``train_fn(seed)``; returns either ``{split: score}`` (a number or
        per-example scores), or a trained model that is then scored on ``eval_sets``.
    n : number of seeds (``first_seed`` ... ``first_seed + n - 1``).
    eval_sets : ``{name: Dataset}`` to score returned models on (e.g. the i.i.d. test part and an
        out-of-distribution set).
    in_distribution : the split all others are compared with (default: ``"random"`` or
        ``"iid"`` if present, else the first split).
    metric : scorer for ``eval_sets``.
    """
    if not isinstance(n, (int, np.integer)) or n < 2:
        raise ConfigError(f"n={n!r} seeds: use at least 2 (5 or more to see a spread).")
    records = []
    with progress("seeds", total=n, enabled=progress_bar) as bar:
        for seed in range(first_seed, first_seed + n):
            for split, value in _as_scores(train_fn(seed), seed, eval_sets, metric).items():
                records.append({"seed": seed, "split": split, "score": value})
            bar.advance(1)
    spread = spread_from_scores(records, in_distribution)
    counts = spread.scores.groupby("split")["seed"].nunique()
    if (counts != n).any():
        raise DataError(f"Not every seed returned every split: seeds per split {counts.to_dict()}.")
    return spread
