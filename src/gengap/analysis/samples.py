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

__all__ = ["pass_at_k", "sample_summary"]


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
