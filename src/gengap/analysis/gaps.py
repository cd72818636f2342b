"""From per-example rows to the figures a report shows: score per split with its interval, gap to i.i.d.

The reference split is the i.i.d. one (method ``random``) unless the caller names another. The gap
is ``reference score - split score``: how many points the model loses off the i.i.d. test part.
When the two parts hold the same examples the gap is a paired difference; otherwise the two
samples are resampled independently.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from gengap.analysis.intervals import Interval, bootstrap_ci, gap, paired_difference

__all__ = ["summarize", "find_reference", "SUMMARY_COLUMNS"]

#: Columns of the summary table, in order (the ``summary`` records of results.json use the same names).
SUMMARY_COLUMNS = [
    "model", "split", "method", "metric", "n", "score", "score_low", "score_high",
    "reference", "gap", "gap_low", "gap_high", "gap_paired", "unextracted",
]


def find_reference(split_info: Mapping[str, Mapping[str, Any]], reference: str | None = None) -> str | None:
    """The split every gap is measured from: the one named, else the first i.i.d. (random) split."""
    if reference is not None:
        return reference
    return next((name for name, info in split_info.items() if info.get("method") == "random"), None)


def summarize(
    rows: pd.DataFrame,
    split_info: Mapping[str, Mapping[str, Any]],
    *,
    reference: str | None = None,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> pd.DataFrame:
    """One row per (model, split, metric) of the clean (unperturbed) rows, in split order.

    ``unextracted`` is the share of outputs whose answer could not be read (None without extraction);
    those rows score 0 and are counted here so a reader sees them apart from wrong answers.

    >>> rows = pd.DataFrame({"model": "m", "split": ["random"] * 4 + ["length"] * 4, "perturbation": "none",
    ...     "example_id": list("abcdefgh"), "metric": "exact_match", "score": [1, 1, 1, 0, 0, 0, 1, 0]})
    >>> info = {"random": {"method": "random"}, "length": {"method": "length"}}
    >>> summarize(rows, info)[["split", "score", "gap"]].values.tolist()
    [['random', 0.75, 0.0], ['length', 0.25, 0.5]]
    """
    clean = rows[rows["perturbation"] == "none"] if "perturbation" in rows else rows
    ref = find_reference(split_info, reference)
    order = {name: i for i, name in enumerate(split_info)}
    records = []
    for (model, metric), group in clean.groupby(["model", "metric"], sort=True):
        by_split = {s: g for s, g in group.groupby("split", sort=False)}  # noqa: C416  (dict(groupby) would call its .keys)
        ref_rows = by_split.get(ref) if ref else None
        for split in sorted(by_split, key=lambda s: order.get(s, len(order))):
            g = by_split[split]
            scores = g["score"].to_numpy(dtype=np.float64)
            ci = bootstrap_ci(scores, confidence=confidence, n_resamples=n_resamples, seed=seed)
            record = {
                "model": model, "split": split, "method": split_info.get(split, {}).get("method", ""),
                "metric": metric, "n": ci.n, "score": ci.estimate, "score_low": ci.low, "score_high": ci.high,
                "reference": ref, "gap": None, "gap_low": None, "gap_high": None, "gap_paired": None,
                "unextracted": _unextracted_share(g),
            }
            if ref_rows is not None:
                g_int, paired = _gap(ref_rows, g, confidence, n_resamples, seed)
                record.update(gap=g_int.estimate, gap_low=g_int.low, gap_high=g_int.high, gap_paired=paired)
            records.append(record)
    return pd.DataFrame.from_records(records, columns=SUMMARY_COLUMNS)


def _unextracted_share(rows: pd.DataFrame) -> float | None:
    """Share of outputs with no readable answer, or None when the run did not extract answers."""
    if "unextracted" not in rows or rows["unextracted"].isna().all():
        return None
    return float(rows["unextracted"].fillna(False).astype(bool).mean())


def _gap(ref: pd.DataFrame, other: pd.DataFrame, confidence: float, n_resamples: int, seed: int) -> tuple[Interval, bool]:
    if ref is other or (len(ref) == len(other) and set(ref["example_id"]) == set(other["example_id"])):
        a = ref.set_index("example_id")["score"]
        b = other.set_index("example_id")["score"].reindex(a.index)
        return paired_difference(a.to_numpy(), b.to_numpy(), confidence=confidence, n_resamples=n_resamples, seed=seed), True
    return gap(ref["score"].to_numpy(), other["score"].to_numpy(), confidence=confidence, n_resamples=n_resamples, seed=seed), False
