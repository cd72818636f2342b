"""Several sampled answers per item: pass@k, maj@k, agreement, and how much of the spread is sampling noise.

When a model answers each item k times at a temperature above 0, the k rows of an item are one
cluster: their mean is an item's rate, and items, not rows, are the independent units. From rows with
an item id, a sample index, a 0/1 (or other) score and optionally the answer:

* ``pass@k``: the chance that at least one of k samples is right, estimated without bias from
  n >= k samples with c right as ``1 - C(n - c, k) / C(n, k)`` (Chen et al. 2021), averaged over items;
* ``maj@k``: the share of items whose most frequent answer (ties: the one met first) scores 1;
* ``agreement``: per item, the share of its samples that give its most frequent answer, averaged;
* ``within`` and ``between``: the within-item variance of the score (sampling noise: what another draw
  would change) and the between-item variance of the items' mean scores (what the items differ by);
  ``noise_share`` is ``within / (within + between)``;
* the mean score with its interval clustered by item (:func:`gengap.analysis.clustered.clustered_mean_ci`).

>>> import pandas as pd
>>> rows = pd.DataFrame({"example_id": list("aaabbb"), "sample": [0, 1, 2] * 2, "score": [1, 0, 1, 0, 0, 0],
...                      "answer": ["4", "5", "4", "7", "8", "8"]})
>>> s = sample_summary(rows)
>>> s["k"], round(s["pass@1"], 3), s["pass@3"], s["maj@3"], round(s["agreement"], 3)
(3, 0.333, 0.5, 0.5, 0.667)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from gengap._errors import ConfigError, DataError
from gengap.analysis.clustered import clustered_mean_ci

__all__ = ["pass_at_k", "sample_summary", "sample_table", "default_cluster", "ITEM", "SAMPLE_COLUMNS"]


def pass_at_k(n: int | Sequence[int] | np.ndarray, c: int | Sequence[int] | np.ndarray, k: int) -> np.ndarray:
    """Unbiased pass@k per item from ``n`` samples of which ``c`` are right: ``1 - C(n-c, k) / C(n, k)``,
    computed as ``1 - prod_{i=n-c+1}^{n} (1 - k / i)`` (no large binomials). Vectorized over items.

    >>> pass_at_k([10, 10, 10], [0, 1, 10], 5).round(3).tolist()
    [0.0, 0.5, 1.0]
    """
    n_arr = np.atleast_1d(np.asarray(n, dtype=np.int64))
    c_arr = np.atleast_1d(np.asarray(c, dtype=np.int64))
    if k < 1:
        raise ConfigError(f"k={k!r} must be at least 1.")
    if (n_arr < k).any():
        raise DataError(f"pass@{k} needs at least {k} samples of every item; the fewest an item has is {int(n_arr.min())}.")
    if ((c_arr < 0) | (c_arr > n_arr)).any():
        raise DataError("Every item's count of right samples must be between 0 and its number of samples.")
    out = np.empty(n_arr.size)
    for j, (nn, cc) in enumerate(zip(n_arr.tolist(), c_arr.tolist())):
        if nn - cc < k:
            out[j] = 1.0
        else:
            out[j] = 1.0 - float(np.prod(1.0 - k / np.arange(nn - cc + 1, nn + 1)))
    return out


def sample_summary(rows: pd.DataFrame, *, item: str = "example_id", sample: str = "sample", score: str = "score",
                   answer: str | None = "answer", ks: Sequence[int] = (1,), confidence: float = 0.95) -> dict[str, Any]:
    """pass@k (for each of ``ks`` and for k = the samples per item), maj@k, agreement, within- and
    between-item variance and the item-clustered interval of the mean score, from one row per (item, sample).

    ``answer`` names the column of answers maj@k and agreement read (None, or a column not there:
    they are left out). Items with fewer samples than the most are an error naming them.
    """
    need = [c for c in (item, sample, score) if c not in rows.columns]
    if need:
        raise DataError(f"Sample rows need the columns {[item, sample, score]}; missing {need}.")
    if rows.empty:
        raise DataError("No sample rows to summarize.")
    per = rows.groupby(item, sort=False)
    counts = per[sample].nunique()
    k = int(counts.max())
    short = counts[counts < k]
    if len(short):
        raise DataError(f"{len(short)} item(s) have fewer than {k} samples (first: {short.index[0]!r} with "
                        f"{int(short.iloc[0])}); finish or resume the run so every item has all its samples.")
    s = rows[score].to_numpy(dtype=np.float64)
    out: dict[str, Any] = {"k": k, "n_items": int(counts.size), "n_rows": int(len(rows))}
    if np.isin(s, (0.0, 1.0)).all():
        right = per[score].sum().to_numpy(dtype=np.int64)
        n = counts.reindex(per[score].sum().index).to_numpy(dtype=np.int64)
        for kk in sorted(set(ks) | {k}):
            if kk <= k:
                out[f"pass@{kk}"] = float(pass_at_k(n, right, kk).mean())
    if answer is not None and answer in rows.columns:
        maj, agree = [], []
        for _, g in per:
            answers = g[answer].astype(str).tolist()
            values, first, freq = np.unique(answers, return_index=True, return_counts=True)
            top = freq.max()
            modal = values[np.flatnonzero(freq == top)]
            chosen = min(modal, key=lambda v: first[list(values).index(v)])  # ties: the answer met first
            maj.append(float(g[score].to_numpy(dtype=np.float64)[answers.index(chosen)]))
            agree.append(top / len(answers))
        out[f"maj@{k}"] = float(np.mean(maj))
        out["agreement"] = float(np.mean(agree))
    item_means = per[score].mean().to_numpy(dtype=np.float64)
    within = float(per[score].var(ddof=1).mean()) if k > 1 else 0.0
    between = max(0.0, float(np.var(item_means, ddof=1)) - within / k) if item_means.size > 1 else 0.0
    out.update(within=within, between=between,
               noise_share=within / (within + between) if within + between > 0 else 0.0)
    ci = clustered_mean_ci(s, rows[item].astype(str).to_numpy(), confidence=confidence) if counts.size > 1 else None
    out["score"] = None if ci is None else ci.to_dict()
    return out


#: The cluster a run's rows fall into without being told when its models answered each example several
#: times: the example (``Store.rows`` names it in the column ``item``).
ITEM = "item"


def default_cluster(rows: pd.DataFrame, cluster: str | None) -> str | None:
    """The clustering every interval and test of ``rows`` uses: ``cluster`` when named, else ``"item"``
    when the rows hold several samples per example (the samples of one example are one cluster), else None.

    >>> rows = pd.DataFrame({"example_id": ["a", "a#1"], "item": ["a", "a"], "sample": [0, 1]})
    >>> default_cluster(rows, None), default_cluster(rows, "passage"), default_cluster(rows.drop(columns="item"), None)
    ('item', 'passage', None)
    """
    if cluster is not None:
        return cluster
    return ITEM if ITEM in rows.columns and "sample" in rows.columns and bool((rows["sample"] > 0).any()) else None


#: Columns of :func:`sample_table`, in order (the ``sections.samples`` records of results.json use the same names).
SAMPLE_COLUMNS = ["model", "split", "metric", "k", "n_items", "n_rows", "pass_at_1", "pass_at_k", "maj_at_k",
                  "agreement", "within", "between", "noise_share", "score", "score_low", "score_high", "score_method",
                  "cluster", "n_clusters", "design_effect"]


def sample_table(rows: pd.DataFrame, *, confidence: float = 0.95) -> pd.DataFrame:
    """Per model, split and per-example metric of a run that asked each example several times
    (``Store.rows``: columns ``item`` and ``sample``): :func:`sample_summary` of its clean rows, with
    pass@1, pass@k and maj@k for k = the samples asked (None for scores that are not 0/1), agreement,
    the within- and between-item variances, and the mean score with its interval clustered by item.
    Models answered once per example (baselines) and corpus metrics are left out; empty without samples.

    maj@k and agreement read the extracted answer when the run extracted answers, else the output.

    >>> rows = pd.DataFrame({"model": "m", "split": "random", "perturbation": "none", "metric": "exact_match",
    ...     "item": list("aabbcc"), "sample": [0, 1] * 3, "score": [1, 0, 1, 1, 0, 0],
    ...     "output": ["4", "5", "7", "7", "1", "2"], "extracted": None})
    >>> t = sample_table(rows)
    >>> t[["k", "pass_at_1", "pass_at_k", "maj_at_k", "agreement"]].round(3).values.tolist()
    [[2.0, 0.5, 0.667, 0.667, 0.667]]
    """
    from gengap.metrics import is_corpus_metric

    if ITEM not in rows.columns or "sample" not in rows.columns:
        return pd.DataFrame(columns=SAMPLE_COLUMNS)
    clean = rows[rows["perturbation"] == "none"] if "perturbation" in rows.columns else rows
    records = []
    for (model, split, metric), g in clean.groupby(["model", "split", "metric"], sort=False):
        if is_corpus_metric(str(metric)) or int(g["sample"].max()) < 1:
            continue
        answer = "extracted" if "extracted" in g.columns and g["extracted"].notna().any() else "output"
        s = sample_summary(g, item=ITEM, answer=answer if answer in g.columns else None, confidence=confidence)
        k = s["k"]
        ci = s["score"] or {}
        records.append({
            "model": model, "split": split, "metric": metric, "k": k, "n_items": s["n_items"], "n_rows": s["n_rows"],
            "pass_at_1": s.get("pass@1"), "pass_at_k": s.get(f"pass@{k}"), "maj_at_k": s.get(f"maj@{k}"),
            "agreement": s.get("agreement"), "within": s["within"], "between": s["between"],
            "noise_share": s["noise_share"], "score": ci.get("estimate"), "score_low": ci.get("low"),
            "score_high": ci.get("high"), "score_method": ci.get("method"), "cluster": ITEM,
            "n_clusters": ci.get("n_clusters"), "design_effect": ci.get("design_effect"),
        })
    return pd.DataFrame.from_records(records, columns=SAMPLE_COLUMNS)
