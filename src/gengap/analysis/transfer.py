"""The cross-group transfer matrix: train on each group, test on every group.

Cell (i, j) is the score of a learner trained on group i and tested on group j. Off the diagonal
the test part is all of group j; on the diagonal it is a held-out share of group i (the learner
is trained on the rest of group i, and that same fitted learner scores every other group), so
the diagonal is the in-group i.i.d. reference each row's transfer is compared with.

The matrix is an analysis of a run's stored rows: the ``transfer`` split method
(:class:`gengap.splits.TransferSplit`) makes one split per (train group, test group), ``evaluate``
runs them like any split (one fit per training group, cache, shards, resume), and
:func:`transfer_matrix_from_rows` (or ``Evaluation.transfer()``) reads the cells from the rows.
:func:`gengap.retraining.transfer_matrix` does both in one call.

>>> import gengap
>>> from sklearn.dummy import DummyClassifier
>>> ds = gengap.load([{"input": str(i), "target": "ab"[i % 2 if i < 20 else 0], "site": "xy"[i // 20]} for i in range(40)])
>>> ev = gengap.evaluate(DummyClassifier(strategy="most_frequent"), ds, ["transfer:site"], progress=False)
>>> ev.transfer(n_resamples=200).scores.round(2).values.tolist()
[[0.25, 1.0], [0.5, 1.0]]
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gengap._errors import ConfigError, DataError
from gengap._random import check_random_state
from gengap.analysis.corpus import corpus_score
from gengap.analysis.intervals import mean_ci
from gengap.metrics import is_corpus_metric

__all__ = ["TransferMatrix", "transfer_matrix_from_rows", "run_transfer", "TRANSFER_FILE"]

#: File name :meth:`TransferMatrix.save` writes into a folder. Reports no longer read it: the matrix
#: comes from a run's own rows (a ``transfer.json`` beside a store is noted and ignored).
TRANSFER_FILE = "transfer.json"
#: The split method whose rows make a transfer matrix.
TRANSFER_METHOD = "transfer"
@dataclass(frozen=True)
class TransferMatrix:
    """Scores of a learner trained on each group (rows) and tested on each group (columns).

    Attributes
    ----------
    scores, low, high : DataFrames (train group x test group) of the mean score and its bootstrap interval.
    n : DataFrame of the number of test examples behind each cell.
    metric : the metric scored.
    fit_seconds, predict_seconds, total_seconds : where the time went (fit and predict are the model's;
        NaN for a matrix read from stored rows).
    model, run_id : the model and the run whose rows the matrix was read from (None when unknown).
    """

    scores: pd.DataFrame
    low: pd.DataFrame
    high: pd.DataFrame
    n: pd.DataFrame
    metric: str
    fit_seconds: float
    predict_seconds: float
    total_seconds: float
    model: str | None = None
    run_id: str | None = None

    def to_frame(self) -> pd.DataFrame:
        """Long format: train_group, test_group, n, score, score_low, score_high."""
        out = self.scores.stack().rename("score").to_frame()
        out["score_low"] = self.low.stack()
        out["score_high"] = self.high.stack()
        out["n"] = self.n.stack()
        out.index.names = ["train_group", "test_group"]
        return out.reset_index()[["train_group", "test_group", "n", "score", "score_low", "score_high"]]

    def save(self, path: str | Path) -> Path:
        """Write the matrix as JSON (``transfer.json`` when ``path`` is a folder), to share it or keep it.

        Reports do not read it: they draw the matrix from the run's own rows.
        """
        from gengap.io import to_jsonable

        out = Path(path)
        if out.is_dir():
            out = out / TRANSFER_FILE
        out.write_text(json.dumps(to_jsonable({"metric": self.metric, "model": self.model, "run_id": self.run_id,
                                               "cells": self.to_frame().to_dict(orient="records")}),
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
                   metric=data["metric"], fit_seconds=float("nan"), predict_seconds=float("nan"), total_seconds=float("nan"),
                   model=data.get("model"), run_id=data.get("run_id"))

    def transfer_gap(self) -> pd.Series:
        """Per training group: in-group score minus the mean score on the other groups."""
        diag = pd.Series(np.diag(self.scores.to_numpy()), index=self.scores.index)
        off = self.scores.where(~np.eye(len(self.scores), dtype=bool)).mean(axis=1)
        return (diag - off).rename("transfer_gap")




def _frames(names: list[str], table: Mapping[str, np.ndarray]) -> dict[str, pd.DataFrame]:
    frames = {key: pd.DataFrame(v, index=pd.Index(names, name="train_group"), columns=pd.Index(names, name="test_group"))
              for key, v in table.items()}
    frames["n"] = frames["n"].astype(np.int64)
    return frames


def transfer_families(split_info: Mapping[str, Mapping[str, Any]]) -> dict[tuple[str, ...], list[str]]:
    """The run's transfer splits by their group column(s): ``{("site",): [split names]}``."""
    out: dict[tuple[str, ...], list[str]] = {}
    for name, info in split_info.items():
        if info.get("method") == TRANSFER_METHOD:
            out.setdefault(tuple(info.get("group_columns", ())), []).append(name)
    return out


def _require_families(split_info: Mapping[str, Mapping[str, Any]]) -> dict[tuple[str, ...], list[str]]:
    families = transfer_families(split_info)
    if not families:
        raise ConfigError("This run has no transfer splits: evaluate with the split method 'transfer' "
                          "(e.g. --split transfer:site, or gengap.splits.TransferSplit(group='site')).")
    return families


def _pick(what: str, value: str | None, available: Sequence[str], hint: str) -> str:
    if value is None:
        if len(available) == 1:
            return available[0]
        raise ConfigError(f"The run holds several {what}s ({', '.join(available)}); {hint}.")
    if value not in available:
        raise ConfigError(f"{what}={value!r} is not in this run's transfer rows (its {what}s: {', '.join(available)}).")
    return value


def transfer_matrix_from_rows(
    rows: pd.DataFrame,
    split_info: Mapping[str, Mapping[str, Any]],
    *,
    model: str | None = None,
    metric: str | None = None,
    group: str | Sequence[str] | None = None,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    seed: int | np.random.Generator | None | str = "split",
) -> TransferMatrix:
    """The transfer matrix of one model and metric, read from a run's per-example rows.

    Parameters
    ----------
    rows : per-example rows (``Evaluation.rows()`` or ``Store.rows``): model, split, perturbation,
        example_id, metadata (each example's group is read from it), metric, score; an optional
        ``position`` column orders each split's rows as the data does (else they are taken in the
        order given).
    split_info : split name -> stored split record (``Evaluation.split_info()``); the splits of
        method ``transfer`` say which group each was trained on.
    model, metric, group : which model, metric and group column(s); each may be left out when the
        run holds one.
    seed : the bootstrap's seed (0/1 scores get exact Clopper-Pearson intervals and use none).
        ``"split"``: the split's own seed, continuing the stream after its held-out draws, so the
        figures equal those :func:`transfer_matrix` always gave for that seed.
    """
    families = _require_families(split_info)
    keys = {"+".join(k): k for k in families}
    wanted = None if group is None else "+".join([group] if isinstance(group, str) else group)
    columns = keys[_pick("group column", wanted, list(keys), "name one with group=")]
    info = {n: split_info[n] for n in families[columns]}
    clean = rows[rows["split"].isin(list(info))]
    if "perturbation" in clean.columns:
        clean = clean[clean["perturbation"] == "none"]
    models = [str(m) for m in pd.unique(clean["model"])]
    metrics = [str(m) for m in pd.unique(clean["metric"])]
    if not models:
        raise ConfigError(f"The run's transfer splits over {'+'.join(columns)} have no scored rows yet (is the run finished?).")
    model = _pick("model", model, models, "name one with model=")
    metric = _pick("metric", metric, metrics, "name one with metric=")
    clean = clean[(clean["model"] == model) & (clean["metric"] == metric)]
    if "position" in clean.columns:
        clean = clean.sort_values(["split", "position"], kind="stable")
    first = next(iter(info.values()))
    groups = [str(g) for g in first["groups"]]
    tested = _tested_group(clean, list(columns), groups)
    if seed == "split":
        rng = check_random_state(first.get("seed"))
        # continue after the held-out draws that made the splits
        from gengap.splits.transfer import held_out_draws

        held_out_draws(first["group_sizes"], float(first["params"]["test_fraction"]), rng)
    else:
        rng = check_random_state(seed)  # type: ignore[arg-type]
    split_of = {str(i["train_group"]): n for n, i in info.items()}
    k = len(groups)
    table = {key: np.zeros((k, k)) for key in ("score", "low", "high", "n")}
    scores = clean["score"].to_numpy(dtype=np.float64)
    in_split = clean["split"].to_numpy()
    corpus = is_corpus_metric(metric)  # AUROC, ECE, ...: each cell's figure from its own rows
    for a, train_group in enumerate(groups):
        mine = in_split == split_of.get(train_group)
        for b in range(k):
            cell = scores[mine & (tested == b)]
            est = lo = hi = float("nan")
            if cell.size and corpus:
                try:
                    ci = corpus_score(metric, clean[mine & (tested == b)], confidence=confidence,
                                      n_resamples=n_resamples, seed=rng)
                    est, lo, hi = ci.estimate, ci.low, ci.high
                except DataError:  # undefined in this cell (one class only, too few rows): left blank
                    pass
            elif cell.size:
                ci = mean_ci(cell, confidence=confidence, n_resamples=n_resamples, seed=rng)
                est, lo, hi = ci.estimate, ci.low, ci.high
            table["score"][a, b], table["low"][a, b], table["high"][a, b], table["n"][a, b] = est, lo, hi, cell.size
    frames = _frames(groups, table)
    nan = float("nan")
    return TransferMatrix(scores=frames["score"], low=frames["low"], high=frames["high"], n=frames["n"], metric=metric,
                          fit_seconds=nan, predict_seconds=nan, total_seconds=nan, model=model)


def _tested_group(rows: pd.DataFrame, columns: list[str], groups: list[str]) -> np.ndarray:
    """Per row, the position in ``groups`` of the example's group, read from its stored metadata."""
    from gengap.analysis.group_scores import expand_metadata, group_by

    if rows.empty:
        return np.zeros(0, dtype=np.int64)
    if "metadata" not in rows.columns:
        raise ConfigError("The transfer matrix reads each example's group from the rows' 'metadata' column, which these "
                          "rows lack; pass the rows as Evaluation.rows() or Store.rows() return them.")
    once = rows[["example_id", "metadata"]].drop_duplicates("example_id")  # parse each example's metadata once
    found = group_by(expand_metadata(once), columns)
    index = {g: i for i, g in enumerate(groups)}
    unknown = [g for g in found.names if g not in index]
    if unknown:
        raise DataError(f"Stored examples belong to group(s) {unknown[:5]} of {columns}, which the transfer splits do not "
                        f"name (their groups: {groups[:10]}). Group by a column of text or whole numbers.")
    code_of = dict(zip(once["example_id"], np.asarray([index[g] for g in found.names])[found.codes]))
    return rows["example_id"].map(code_of).to_numpy(dtype=np.int64)


def run_transfer(store: Any, run_id: str, **options: Any) -> TransferMatrix:
    """The transfer matrix of a stored run (an open :class:`gengap.store.Store`); options as for
    :func:`transfer_matrix_from_rows`. Each split's rows are taken in the data's order."""
    from dataclasses import replace

    info = store.split_info(run_id)
    names = [n for family in _require_families(info).values() for n in family]
    columns = set(store.sql("SELECT column_name FROM information_schema.columns WHERE table_name = 'predictions'")
                  ["column_name"])
    confidences = ("p.confidence, p.probabilities" if "confidence" in columns  # what a corpus metric reads
                   else "CAST(NULL AS DOUBLE) AS confidence, CAST(NULL AS VARCHAR) AS probabilities")
    rows = store.sql(  # only what the matrix reads: each row's score, group (metadata) and place in its split
        f"""
        WITH e AS (SELECT split, example_id, metadata, target,
                          row_number() OVER (PARTITION BY split ORDER BY rowid) - 1 AS position
                   FROM examples WHERE run_id = $1 AND list_contains($2, split))
        SELECT s.model, s.split, s.perturbation, s.example_id, e.metadata, s.metric, s.value AS score, e.position,
               e.target, p.output, p.extracted, {confidences}
        FROM scores s JOIN e USING (split, example_id)
        JOIN predictions p ON p.run_id = s.run_id AND p.model = s.model AND p.split = s.split
             AND p.perturbation = s.perturbation AND p.example_id = s.example_id
        WHERE s.run_id = $1 AND s.perturbation = 'none' {"AND s.metric = $3" if options.get("metric") else ""}
        """, [run_id, names] + ([options["metric"]] if options.get("metric") else []))
    tm = transfer_matrix_from_rows(rows, info, **options)
    return replace(tm, run_id=run_id)
