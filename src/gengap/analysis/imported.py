"""Everything that needs no model call, on per-example rows you imported (or any stored run).

Rows are :meth:`gengap.Store.rows` (model, split, example_id, input, target, output, extracted,
metadata, metric, score); for an lm-eval import a split is a task. From them:

- :func:`model_differences`: every pair of models on every task, the paired difference of their
  scores over the documents both answered, with a bootstrap interval.
- :func:`task_gaps`: one model's score on one task minus its score on another (different
  documents: independent resampling).
- :func:`group_scores`: per-group and worst-group scores over any field of the documents.
- :func:`reextract`: gengap's extractor run on the raw outputs, next to the log's own filtered
  answer: how often they agree, and the score each reading gives.
- :func:`subset_scores`: a split that only selects rows (length, group, time, difficulty,
  held-out combination, MCD over the documents' text) applied to a task's documents: each model's
  score on the subset the split would test, against the rest.
- :func:`rank_agreement_across`: Kendall's tau between the model rankings of tasks and subsets,
  with intervals from resampling documents (:func:`gengap.analysis.ranking.rank_agreement`).
- :func:`with_metadata`: the documents' fields as columns, the input of curves along an ordinal
  field (``gengap.analysis.curves``).

>>> import pandas as pd
>>> rows = pd.DataFrame({"model": ["a"] * 4 + ["b"] * 4, "split": "t", "example_id": list("wxyz") * 2,
...     "metric": "acc", "score": [1, 1, 1, 0, 1, 0, 0, 0], "metadata": ['{"k": 1}', '{"k": 2}'] * 4})
>>> model_differences(rows, n_resamples=1000)[["model_a", "model_b", "difference", "n"]].values.tolist()
[['a', 'b', 0.5, 4]]
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gengap._errors import ConfigError, DataError, did_you_mean

__all__ = [
    "DIFFERENCE_COLUMNS",
    "SUBSET_COLUMNS",
    "group_scores",
    "load_rows",
    "model_differences",
    "rank_agreement_across",
    "reextract",
    "subset_scores",
    "task_gaps",
    "with_metadata",
]

#: Columns of :func:`model_differences`.
DIFFERENCE_COLUMNS = ["split", "metric", "model_a", "model_b", "n", "difference", "low", "high", "score_a", "score_b",
                      "test", "p_value", "p_adjusted"]
#: Columns of :func:`subset_scores`.
SUBSET_COLUMNS = ["model", "split", "metric", "subset", "n_subset", "score_subset", "subset_low", "subset_high",
                  "n_rest", "score_rest", "gap", "gap_low", "gap_high"]


def load_rows(path: str | Path, run_id: str | None = None, *, metric: str | None = None) -> pd.DataFrame:
    """The per-example rows of a stored run (default: the latest finished one) of a store or --out folder."""
    from gengap.store import STORE_NAME, Store

    store_path = Path(path) / STORE_NAME if Path(path).is_dir() else Path(path)
    with Store(store_path, read_only=True) as store:
        return store.rows(run_id or store.latest_run(), metric=metric)


def _one_metric(rows: pd.DataFrame, metric: str | None, what: str) -> pd.DataFrame:
    metrics = list(dict.fromkeys(rows["metric"]))
    if metric is None:
        per_split = rows.groupby("split", sort=False)["metric"].nunique()
        if (per_split > 1).any():
            raise ConfigError(f"{what}: the rows hold several metrics per task ({metrics[:8]}); pass metric=NAME.")
        return rows
    if metric not in metrics:
        raise ConfigError(f"{what}: no metric '{metric}' in the rows.{did_you_mean(metric, metrics)} Metrics: {metrics}.")
    return rows[rows["metric"] == metric]


def with_metadata(rows: pd.DataFrame, fields: Sequence[str] | None = None) -> pd.DataFrame:
    """The rows with the documents' metadata fields as columns (all of them, or ``fields``).

    This is the hook for curves along an ordinal field of the documents: pass the result and the
    field's name to ``gengap.analysis.curves``.

    >>> rows = pd.DataFrame({"score": [1.0, 0.0], "metadata": ['{"digits": 1}', '{"digits": 3}']})
    >>> with_metadata(rows, ["digits"])["digits"].tolist()
    [1, 3]
    """
    parsed = pd.DataFrame.from_records([json.loads(m) if isinstance(m, str) else {} for m in rows["metadata"]],
                                       index=rows.index)
    wanted = list(parsed.columns) if fields is None else list(fields)
    for f in wanted:
        if f not in parsed.columns:
            raise ConfigError(f"No field '{f}' in the documents' metadata.{did_you_mean(f, parsed.columns)} "
                              f"Fields: {sorted(map(str, parsed.columns))[:30]}.")
    clash = [f for f in wanted if f in rows.columns]
    if clash:
        raise ConfigError(f"Metadata field(s) {clash} have the names of row columns; pick them out of "
                          "rows['metadata'] under other names.")
    return pd.concat([rows, parsed[wanted]], axis=1)


def model_differences(rows: pd.DataFrame, *, metric: str | None = None, confidence: float = 0.95,
                      n_resamples: int = 10_000, seed: int = 0) -> pd.DataFrame:
    """Every pair of models on every task: mean score of ``model_a`` minus ``model_b`` over the documents
    both were scored on, with a paired interval and test (:func:`gengap.analysis.intervals.paired_test`: exact
    McNemar for 0/1 scores, sign-flip otherwise); ``p_adjusted`` is Holm-adjusted over every pair of a metric."""
    from gengap.analysis.intervals import adjust_pvalues, paired_test

    data = _one_metric(rows, metric, "model_differences")
    records = []
    for (split, met), g in data.groupby(["split", "metric"], sort=False):
        wide = g.pivot_table(index="example_id", columns="model", values="score", aggfunc="first")
        models = list(dict.fromkeys(g["model"]))
        for i, a in enumerate(models):
            for b in models[i + 1:]:
                both = wide[[a, b]].dropna()
                if both.empty:
                    continue
                t = paired_test(both[a].to_numpy(), both[b].to_numpy(), confidence=confidence,
                                n_resamples=n_resamples, seed=seed)
                d = t.effect
                records.append({"split": split, "metric": met, "model_a": a, "model_b": b, "n": d.n,
                                "difference": d.estimate, "low": d.low, "high": d.high,
                                "score_a": float(both[a].mean()), "score_b": float(both[b].mean()),
                                "test": t.test, "p_value": t.p_value, "p_adjusted": np.nan})
    out = pd.DataFrame.from_records(records, columns=DIFFERENCE_COLUMNS)
    for _, idx in out.groupby("metric").groups.items():
        out.loc[idx, "p_adjusted"] = adjust_pvalues(out.loc[idx, "p_value"].to_numpy(float), "holm")
    return out


def task_gaps(rows: pd.DataFrame, metrics: Mapping[str, str] | None = None, *, confidence: float = 0.95,
              n_resamples: int = 10_000, seed: int = 0) -> pd.DataFrame:
    """Per model, its score on each pair of tasks and the difference, with an interval from resampling
    each task's documents independently (:func:`gengap.analysis.intervals.gap`). ``metrics``: task -> metric."""
    from gengap.analysis.intervals import gap

    data = _per_task_metric(rows, metrics)
    records = []
    tasks = list(dict.fromkeys(data["split"]))
    for model, g in data.groupby("model", sort=False):
        for i, a in enumerate(tasks):
            for b in tasks[i + 1:]:
                sa, sb = g.loc[g["split"] == a, "score"].to_numpy(), g.loc[g["split"] == b, "score"].to_numpy()
                if not sa.size or not sb.size:
                    continue
                d = gap(sa, sb, confidence=confidence, n_resamples=n_resamples, seed=seed)
                records.append({"model": model, "task_a": a, "task_b": b, "score_a": float(sa.mean()),
                                "score_b": float(sb.mean()), "gap": d.estimate, "low": d.low, "high": d.high})
    return pd.DataFrame.from_records(records, columns=["model", "task_a", "task_b", "score_a", "score_b", "gap", "low", "high"])


def group_scores(rows: pd.DataFrame, field: str | Sequence[str], *, metric: str | None = None, min_size: int = 1,
                 confidence: float = 0.95, n_resamples: int = 10_000, seed: int = 0,
                 cluster: str | None = None) -> pd.DataFrame:
    """Per model and task: each group's score (groups: values of a document field, or a combination of
    fields) with its interval, and which group is worst (:func:`gengap.analysis.group_scores.group_metrics`).
    ``cluster`` names a document field, or a column of the rows (``item``: the example, when it was
    answered several times), whose rows are not independent: the intervals count its clusters."""
    from gengap.analysis.group_scores import group_metrics

    fields = [field] if isinstance(field, str) else list(field)
    data = with_metadata(_one_metric(rows, metric, "group_scores"),
                         fields + ([cluster] if cluster and cluster not in rows.columns else []))
    frames = []
    for (model, split, met), g in data.groupby(["model", "split", "metric"], sort=False):
        if g[fields].isna().any().any():
            raise DataError(f"Task '{split}': {int(g[fields].isna().any(axis=1).sum())} document(s) have no {fields}; "
                            "group on a field every document has.")
        labels = g[fields].astype(str).agg("/".join, axis=1)
        clusters = None
        if cluster is not None:
            from gengap.analysis.clustered import cluster_ids

            clusters = cluster_ids(g, cluster, where=f"task '{split}'")
        rep = group_metrics(g["score"].to_numpy(), labels.to_numpy(), min_size=min_size, confidence=confidence,
                            n_resamples=n_resamples, seed=seed, clusters=clusters)
        table = rep.table.assign(model=model, split=split, metric=met, worst=rep.table["group"] == rep.worst_group,
                                 worst_low=rep.worst.low, worst_high=rep.worst.high)
        frames.append(table)
    return pd.concat(frames, ignore_index=True)[["model", "split", "metric", "group", "n", "score", "score_low",
                                                 "score_high", "left_out", "worst", "worst_low", "worst_high"]]


def reextract(rows: pd.DataFrame, kind: str, *, metric: str | None = None, splits: Sequence[str] | None = None,
              ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read every raw output again with gengap's extractor and compare with the log's own answer.

    Returns ``(per_row, summary)``. ``per_row`` adds ``gengap_answer``, ``gengap_target``,
    ``agree`` (gengap's answer equals the log's filtered answer; both unreadable counts as
    agreement) and ``gengap_score`` (1 when gengap's answer equals the target read the same way).
    ``summary`` has per model and task: ``n``, ``agreement``, ``log_score`` (the log's metric),
    ``gengap_score``, ``log_unextracted`` and ``gengap_unextracted``.
    """
    from gengap.extract import Extractor

    data = _one_metric(rows, metric, "reextract")
    if splits is not None:
        data = data[data["split"].isin(list(splits))]
    if data.empty:
        raise DataError("reextract: no rows to read (check metric= and splits=).")
    extractor = Extractor(kind)
    outputs = data["output"].tolist()
    answers = extractor(outputs)
    targets = [None if pd.isna(v) else v for v in data["target"]]
    read_targets = extractor([t if t is not None else "" for t in targets])
    read_targets = [t if r is None else r for t, r in zip(targets, read_targets)]
    log = [None if pd.isna(v) else v for v in data["extracted"]]
    per_row = data.assign(
        gengap_answer=answers, gengap_target=read_targets,
        agree=[a == b for a, b in zip(answers, log)],
        gengap_score=[float(a is not None and a == t) for a, t in zip(answers, read_targets)],
    )
    summary = per_row.groupby(["model", "split", "metric"], sort=False).agg(
        n=("agree", "size"), agreement=("agree", "mean"), log_score=("score", "mean"),
        gengap_score=("gengap_score", "mean"),
        log_unextracted=("extracted", lambda s: float(s.isna().mean())),
        gengap_unextracted=("gengap_answer", lambda s: float(s.isna().mean())),
    ).reset_index()
    return per_row, summary


def _examples(rows: pd.DataFrame, split: str) -> pd.DataFrame:
    first = rows[rows["split"] == split].drop_duplicates("example_id")
    return with_metadata(first[["example_id", "input", "target", "metadata"]].reset_index(drop=True))


def subset_scores(rows: pd.DataFrame, spec: str, *, metric: str | None = None, splits: Sequence[str] | None = None,
                  options: Mapping[str, Any] | None = None, seed: int = 0, test_fraction: float = 0.2,
                  confidence: float = 0.95, n_resamples: int = 10_000) -> pd.DataFrame:
    """Apply a row-selecting split (``"length"``, ``"group:by=topic"``, ``"mcd"``, ...) to each task's
    documents and score every model on the subset it would test, against the rest it would train on.

    Nothing is trained: the model is the one that was logged, so the figure is "how does this model
    do on the documents a length / compositional / group split holds out", with the difference to
    the documents that split leaves in (independent resampling, :func:`gengap.analysis.intervals.gap`).
    """
    from gengap.analysis.intervals import gap, mean_ci
    from gengap.dataset import Dataset
    from gengap.splits import make_splitter

    data = _one_metric(rows, metric, "subset_scores")
    splitter = make_splitter(spec, options=dict(options or {}), seed=seed, test_fraction=test_fraction)
    records = []
    for split in (splits if splits is not None else list(dict.fromkeys(data["split"]))):
        examples = _examples(data, split)
        meta = [c for c in examples.columns if c not in ("example_id", "input", "target", "metadata")]
        renamed = {c: f"doc_{c}" for c in meta if c in ("id", "input", "target")}  # document fields named like roles
        frame = examples.drop(columns="metadata").rename(columns=renamed)
        dataset = Dataset.from_frame(frame, input="input", target="target", id="example_id",
                                     metadata=[renamed.get(c, c) for c in meta], name=str(split))
        for made in splitter.split_datasets(dataset):
            test_ids = set(examples["example_id"].iloc[made.test])
            rest_ids = set(examples["example_id"].iloc[made.train])
            for (model, met), g in data[data["split"] == split].groupby(["model", "metric"], sort=False):
                sub = g.loc[g["example_id"].isin(test_ids), "score"].to_numpy(dtype=float)
                rest = g.loc[g["example_id"].isin(rest_ids), "score"].to_numpy(dtype=float)
                if not sub.size:
                    continue
                ci = mean_ci(sub, confidence=confidence, n_resamples=n_resamples, seed=seed)
                record = {"model": model, "split": split, "metric": met, "subset": made.name, "n_subset": ci.n,
                          "score_subset": ci.estimate, "subset_low": ci.low, "subset_high": ci.high,
                          "n_rest": int(rest.size), "score_rest": float(rest.mean()) if rest.size else np.nan,
                          "gap": np.nan, "gap_low": np.nan, "gap_high": np.nan}
                if rest.size:
                    d = gap(rest, sub, confidence=confidence, n_resamples=n_resamples, seed=seed)
                    record.update(gap=d.estimate, gap_low=d.low, gap_high=d.high)
                records.append(record)
    return pd.DataFrame.from_records(records, columns=SUBSET_COLUMNS)


def _per_task_metric(rows: pd.DataFrame, metrics: Mapping[str, str] | None) -> pd.DataFrame:
    """One metric per task: the one named in ``metrics``, else the task's first (in the rows' order)."""
    chosen = {}
    for split, g in rows.groupby("split", sort=False):
        have = list(dict.fromkeys(g["metric"]))
        want = (metrics or {}).get(split, have[0])
        if want not in have:
            raise ConfigError(f"Task '{split}' has no metric '{want}'.{did_you_mean(want, have)} Its metrics: {have}.")
        chosen[split] = want
    return rows[rows["metric"] == rows["split"].map(chosen)]


def rank_agreement_across(rows: pd.DataFrame, metrics: Mapping[str, str] | None = None, *,
                          subsets: Mapping[str, pd.DataFrame] | None = None, reference: str | None = None,
                          confidence: float = 0.95, n_resamples: int = 1000, seed: int = 0) -> Any:
    """Do tasks (and subsets of them) rank the models the same way? Kendall's tau for every pair, and
    against ``reference``, with intervals from resampling documents (the same draw for every model).

    ``metrics``: task -> metric (default: each task's first metric). ``subsets``: name -> rows of a
    subset of documents (e.g. ``per_row[per_row.example_id.isin(ids)]``), ranked as one more "task".
    Returns a :class:`gengap.analysis.ranking.RankAgreement`.
    """
    from gengap.analysis.ranking import rank_agreement

    data = _per_task_metric(rows, metrics)
    frames = [data]
    for name, sub in (subsets or {}).items():
        frames.append(_per_task_metric(sub, metrics).assign(split=name))
    table = pd.concat(frames, ignore_index=True)[["model", "split", "example_id", "score"]]
    return rank_agreement(table, reference=reference, confidence=confidence, n_resamples=n_resamples, seed=seed)
