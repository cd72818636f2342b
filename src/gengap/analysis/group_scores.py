"""Groups from metadata columns, and per-group scores with the worst group and the disparity.

A *group* is one combination of values of the grouping columns, as in WILDS' grouper. Given the
metadata below and ``columns=["site", "year"]``, :func:`group_by` numbers the combinations that
occur in order of first appearance:

====  ======  ======  ========  ===========
row   site    year    group id  group name
====  ======  ======  ========  ===========
0     a       2020    0         a/2020
1     b       2020    1         b/2020
2     a       2021    2         a/2021
3     a       2020    0         a/2020
====  ======  ======  ========  ===========

With one column the name is the value itself (``"a"``). Per-group figures come from
:func:`group_metrics`: the score of each group with its interval (Clopper-Pearson for 0/1 scores),
the worst group's own score, interval and n, and the best-minus-worst disparity with an interval
from a stratified bootstrap. Groups with no scored example are left out; groups with fewer than
``min_size`` (:data:`MIN_GROUP_SIZE`) are flagged "too few to tell" and do not count as the worst
group unless the caller asks (``include_small=True``).

>>> import numpy as np
>>> rep = group_metrics([1, 1, 0, 1, 0, 0], ["a", "a", "a", "b", "b", "b"], include_small=True, n_resamples=1000)
>>> rep.worst_group, round(rep.worst.estimate, 3), round(rep.disparity.estimate, 3)
('b', 0.333, 0.333)
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from gengap._errors import ConfigError, DataError
from gengap._random import check_random_state
from gengap.analysis.clustered import cluster_bootstrap_means, cluster_codes, clustered_mean_ci
from gengap.analysis.intervals import Interval, _interval, bootstrap_means, bootstrap_warning, mean_ci
from gengap.dataset import Dataset

__all__ = ["Groups", "GroupReport", "group_by", "group_metrics", "corpus_group_metrics", "expand_metadata", "GROUP_COLUMNS",
           "MIN_GROUP_SIZE"]

#: Columns of :attr:`GroupReport.table`, in order.
GROUP_COLUMNS = ["group", "n", "score", "score_low", "score_high", "method", "small", "left_out"]

#: Groups with fewer scored examples are flagged "too few to tell" and left out of the worst-group
#: figures unless asked (``include_small=True``). At 30 examples an exact 95% interval of a 0/1
#: score is still about +-18 points wide at 50%, and a bootstrap interval of other scores starts
#: to cover 95% (``benchmarks/bench_coverage.py``, section 5).
MIN_GROUP_SIZE = 30

#: Separator between column values in the name of a multi-column group.
NAME_SEPARATOR = "/"


def _as_columns(columns: str | Sequence[str]) -> tuple[str, ...]:
    if isinstance(columns, str):
        cols = tuple(c.strip() for c in columns.split(",") if c.strip())
    else:
        cols = tuple(str(c) for c in columns)
    if not cols:
        raise ConfigError(f"group columns={columns!r} names no column; pass a metadata column such as 'site'.")
    return cols


@dataclass(frozen=True)
class Groups:
    """Every row's group, and what each group is.

    Attributes
    ----------
    columns : the grouping columns.
    codes : int array of shape (n_rows,), the group id of each row.
    table : one row per group id (in id order): ``group_name``, the columns' values, ``group_size``.
    """

    columns: tuple[str, ...]
    codes: np.ndarray
    table: pd.DataFrame = field(repr=False)

    @property
    def names(self) -> list[str]:
        """Group names, indexed by group id."""
        return self.table["group_name"].tolist()

    @property
    def n_groups(self) -> int:
        return len(self.table)

    @property
    def sizes(self) -> np.ndarray:
        return self.table["group_size"].to_numpy()

    def indices(self, name: str) -> np.ndarray:
        """Row positions of the group called ``name``."""
        names = self.names
        if name not in names:
            from gengap._errors import did_you_mean

            raise ConfigError(
                f"No group '{name}' in column(s) {list(self.columns)}.{did_you_mean(str(name), names)} "
                f"Groups: {names[:20]}{' ...' if len(names) > 20 else ''}."
            )
        return np.flatnonzero(self.codes == names.index(name))


def group_by(data: Dataset | pd.DataFrame, columns: str | Sequence[str]) -> Groups:
    """Group rows by the combinations of values of ``columns`` (a name, a list, or ``"a,b"``).

    Missing values are an error naming the rows: fill them (``"unknown"``) or drop those rows.

    >>> import pandas as pd
    >>> g = group_by(pd.DataFrame({"site": list("abaa"), "year": [2020, 2020, 2021, 2020]}), ["site", "year"])
    >>> g.codes.tolist(), g.names
    ([0, 1, 2, 0], ['a/2020', 'b/2020', 'a/2021'])
    """
    cols = _as_columns(columns)
    if isinstance(data, Dataset):
        frame = pd.DataFrame({c: data.column(c) for c in cols})
        where = f"dataset '{data.name}'"
    else:
        missing = [c for c in cols if c not in data.columns]
        if missing:
            from gengap._errors import did_you_mean

            raise DataError(f"The table has no column {missing[0]!r}.{did_you_mean(missing[0], map(str, data.columns))} "
                            f"Columns: {list(data.columns)}.")
        frame = data[list(cols)].reset_index(drop=True)
        where = "the table"
    na = frame.isna().any(axis=1).to_numpy()
    if na.any():
        rows = np.flatnonzero(na)[:10].tolist()
        raise DataError(
            f"The group column(s) {list(cols)} of {where} are empty in {int(na.sum())} row(s), first (0-based) {rows}. "
            "Fill them (e.g. with 'unknown') or drop those rows."
        )
    keys = frame.astype(str)
    combined = keys.iloc[:, 0] if len(cols) == 1 else keys.agg(NAME_SEPARATOR.join, axis=1)
    codes, uniques = pd.factorize(combined, sort=False)
    first = pd.Series(np.arange(len(codes))).groupby(codes).min().to_numpy()
    table = frame.iloc[first].reset_index(drop=True)
    table.insert(0, "group_name", list(uniques))
    table["group_size"] = np.bincount(codes, minlength=len(uniques))
    return Groups(columns=cols, codes=codes.astype(np.int64), table=table)


def expand_metadata(rows: pd.DataFrame) -> pd.DataFrame:
    """Store rows with their JSON ``metadata`` column spread into one column per metadata field.

    >>> rows = pd.DataFrame({"score": [1.0], "metadata": ['{"site": "a"}']})
    >>> expand_metadata(rows)["site"].tolist()
    ['a']
    """
    if "metadata" not in rows.columns:
        return rows
    parsed = [json.loads(m) if isinstance(m, str) and m else {} for m in rows["metadata"]]
    meta = pd.DataFrame.from_records(parsed, index=rows.index)
    keep = [c for c in meta.columns if c not in rows.columns]
    return pd.concat([rows.drop(columns="metadata"), meta[keep]], axis=1)


@dataclass(frozen=True)
class GroupReport:
    """Per-group scores, the worst group and the best-minus-worst disparity.

    Attributes
    ----------
    table : one row per group (columns :data:`GROUP_COLUMNS`), worst first. ``small`` marks groups
        under ``min_size`` examples (scored, with their interval, but too few to tell); ``left_out``
        marks groups that do not count for the worst group and the disparity (empty ones, with NaN
        scores, and small ones unless ``include_small``).
    worst_group, best_group : names of the counted groups with the lowest and highest observed score.
    worst : the worst group's own score, interval and n (Clopper-Pearson for 0/1 scores).
    worst_min : the lowest group score with a stratified-bootstrap interval of the minimum over the
        counted groups (it allows for picking the worst of many noisy groups; ``n`` is the worst group's).
    disparity : best minus worst group score, with a stratified-bootstrap interval of the range;
        ``n`` is the smaller of the two groups.
    left_out : names of the groups left out, with the reason.
    """

    table: pd.DataFrame
    worst_group: str
    best_group: str
    worst: Interval
    worst_min: Interval
    disparity: Interval
    left_out: dict[str, str]

    def to_dict(self) -> dict[str, Any]:
        return {
            "groups": self.table.to_dict(orient="records"), "worst_group": self.worst_group,
            "best_group": self.best_group, "worst": self.worst.to_dict(), "worst_min": self.worst_min.to_dict(),
            "disparity": self.disparity.to_dict(), "left_out": dict(self.left_out),
        }


def group_metrics(
    scores: Sequence[float] | np.ndarray,
    groups: Sequence[Any] | np.ndarray | Groups,
    *,
    min_size: int = MIN_GROUP_SIZE,
    include_small: bool = False,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int | np.random.Generator | None = 0,
    clusters: Sequence[Any] | np.ndarray | None = None,
) -> GroupReport:
    """Score per group with its interval, the worst group and the best-worst disparity.

    Parameters
    ----------
    scores : array-like of shape (n_examples,), per-example scores (e.g. 0/1 exact match).
    groups : array-like of shape (n_examples,) of group labels, or a :class:`Groups` (then groups
        with no example here are reported as empty).
    min_size : groups with fewer scored examples are flagged ``small`` ("too few to tell") and
        left out of the worst-group figures (default :data:`MIN_GROUP_SIZE`).
    include_small : count small groups for the worst group and the disparity all the same.
    confidence, n_resamples, seed : as in :func:`gengap.analysis.intervals.mean_ci`.
    clusters : optional cluster id per example (the passage or source rows share): each group's
        interval is then the clustered one (:func:`gengap.analysis.clustered.clustered_mean_ci`), and
        the worst-group and disparity bootstraps draw whole clusters within each group. A group
        whose rows are all one cluster keeps the unclustered interval and its method says so
        (``"clopper-pearson"``): the table's ``method`` column shows which.

    Notes
    -----
    Each group's interval is :func:`gengap.analysis.intervals.mean_ci` of its own scores (Clopper-Pearson for
    0/1 scores), and ``worst`` is the worst group's own figure. The observed worst group is the
    noisiest choice among many, so with many small groups its score is biased low: ``worst_min``
    gives the interval of the minimum from a stratified bootstrap (examples drawn within every
    group), which allows for that choice.

    >>> rep = group_metrics([1, 1, 1, 0], ["x", "x", "y", "y"], min_size=1, n_resamples=1000)
    >>> rep.table[["group", "n", "score"]].values.tolist()
    [['y', 2, 0.5], ['x', 2, 1.0]]
    >>> rep.worst.n, rep.worst.method
    (2, 'clopper-pearson')
    """
    arr = np.asarray(scores, dtype=np.float64).ravel()
    if isinstance(groups, Groups):
        codes, names = groups.codes, groups.names
    else:
        labels = pd.Series(list(groups) if not isinstance(groups, np.ndarray) else groups)
        if labels.isna().any():
            rows = np.flatnonzero(labels.isna().to_numpy())[:10].tolist()
            raise DataError(f"Group labels are missing at positions {rows}; fill or drop those examples.")
        codes, uniques = pd.factorize(labels.astype(str), sort=True)
        names = list(uniques)
    if len(codes) != arr.size:
        raise DataError(f"group_metrics got {arr.size} scores but {len(codes)} group labels; they must be per example.")
    if np.isnan(arr).any():
        raise DataError(f"scores contain {int(np.isnan(arr).sum())} NaN value(s); drop or fill them first.")
    if not isinstance(min_size, (int, np.integer)) or min_size < 1:
        raise ConfigError(f"min_size={min_size!r} must be a positive integer.")
    rng = check_random_state(seed)
    cl = None if clusters is None else cluster_codes(clusters, arr.size)
    sizes = np.bincount(codes, minlength=len(names))

    def group_ci(g: int) -> Interval:
        mask = codes == g
        if cl is not None and np.unique(cl[mask]).size > 1:
            return clustered_mean_ci(arr[mask], cl[mask], confidence=confidence, n_resamples=n_resamples, seed=seed)
        return mean_ci(arr[mask], confidence=confidence, n_resamples=n_resamples, seed=seed)

    def group_boot(g: int) -> np.ndarray:
        mask = codes == g
        if cl is not None:
            _, local = np.unique(cl[mask], return_inverse=True)
            return cluster_bootstrap_means(arr[mask], local.ravel(), n_resamples, rng)
        return bootstrap_means(arr[mask], n_resamples, rng)

    left_out: dict[str, str] = {}
    kept, records = [], []
    for g, name in enumerate(names):
        if sizes[g] == 0:
            left_out[name] = "empty: no scored example"
            records.append({"group": name, "n": 0, "score": np.nan, "score_low": np.nan, "score_high": np.nan,
                            "method": "", "small": True, "left_out": True})
            continue
        s = arr[codes == g]
        ci = group_ci(g)
        small = bool(sizes[g] < min_size)
        out = small and not include_small
        if out:
            left_out[name] = f"n = {sizes[g]}: too few to tell (fewer than min_size = {min_size})"
        else:
            kept.append(g)
        records.append({"group": name, "n": int(s.size), "score": ci.estimate, "score_low": ci.low,
                        "score_high": ci.high, "method": ci.method, "small": small, "left_out": out})
    if not kept:
        raise DataError(f"No group has at least min_size={min_size} scored examples (sizes {dict(zip(names, sizes.tolist()))}); "
                        "pass include_small=True to compare them all the same, or a smaller min_size.")
    table = pd.DataFrame.from_records(records, columns=GROUP_COLUMNS)
    counted = table[~table["left_out"]]
    order = np.argsort(counted["score"].to_numpy(), kind="stable")
    worst_row, best_row = counted.iloc[order[0]], counted.iloc[order[-1]]
    worst_code = names.index(worst_row["group"])
    worst = group_ci(worst_code)
    boots = np.empty((n_resamples, len(kept)))
    for k, g in enumerate(kept):
        boots[:, k] = group_boot(g)
    lo, hi, used = _interval(float(worst_row["score"]), boots.min(axis=1), confidence, "percentile", None)
    worst_min = Interval(float(worst_row["score"]), lo, hi, int(worst_row["n"]), confidence, used)
    spread = boots.max(axis=1) - boots.min(axis=1)
    dis = float(best_row["score"] - worst_row["score"])
    lo, hi, used = _interval(dis, spread, confidence, "percentile", None)
    n_pair = int(min(worst_row["n"], best_row["n"]))
    disparity = Interval(dis, lo, hi, n_pair, confidence, used, bootstrap_warning(n_pair, spread))
    table = table.sort_values(["left_out", "score", "group"], kind="stable", na_position="last").reset_index(drop=True)
    return GroupReport(table=table, worst_group=str(worst_row["group"]), best_group=str(best_row["group"]), worst=worst,
                       worst_min=worst_min, disparity=disparity, left_out=left_out)


def corpus_group_metrics(
    metric: str,
    rows: pd.DataFrame,
    groups: Sequence[Any] | np.ndarray,
    *,
    min_size: int = MIN_GROUP_SIZE,
    include_small: bool = False,
    confidence: float = 0.95,
    n_resamples: int = 2_000,
    seed: int | np.random.Generator | None = 0,
) -> GroupReport:
    """A corpus metric (``auroc``, ``macro_f1``, ``ece``, ...) per group, the worst group and the disparity.

    ``rows`` are one test part's rows (target, output, confidence, ...; see
    :func:`gengap.analysis.corpus.corpus_score`) and ``groups`` one label per row. Each group's
    figure has its own interval (DeLong for AUROC, a bootstrap otherwise); a group where the
    metric is undefined (one class only, no confidences, too few rows) is left out with the reason.
    The worst group is the lowest (for losses and errors: the highest); ``worst_min`` is its own
    interval (no stratified bootstrap of the minimum for corpus metrics), and ``disparity`` the
    difference best - worst (worst - best for losses) with an independent-samples interval.

    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 200)
    >>> p = np.clip(0.5 + (y - 0.5) * np.repeat([0.6, 0.1], 100) + rng.normal(0, 0.2, 200), 0.01, 0.99)
    >>> rows = pd.DataFrame({"target": y.astype(str), "output": (p > 0.5).astype(int).astype(str),
    ...                      "confidence": np.where(p > 0.5, p, 1 - p)})
    >>> rep = corpus_group_metrics("auroc", rows, np.repeat(["sharp", "blurred"], 100))
    >>> rep.worst_group, rep.worst.method
    ('blurred', 'delong-logit')
    """
    from gengap.analysis.corpus import corpus_gap, corpus_score
    from gengap.metrics import get_metric

    labels = pd.Series(np.asarray(groups, dtype=object)).astype(str)
    if len(labels) != len(rows):
        raise DataError(f"corpus_group_metrics got {len(rows)} rows but {len(labels)} group labels; they must be per row.")
    lower_better = not getattr(get_metric(metric), "higher_is_better", True)
    rows = rows.reset_index(drop=True)
    records, intervals, left_out = [], {}, {}
    for name in sorted(labels.unique()):
        part = rows[(labels == name).to_numpy()]
        small = len(part) < min_size
        try:
            ci = corpus_score(metric, part, confidence=confidence, n_resamples=n_resamples, seed=seed)
        except DataError as e:
            left_out[name] = str(e)
            records.append({"group": name, "n": len(part), "score": np.nan, "score_low": np.nan, "score_high": np.nan,
                            "method": "", "small": small, "left_out": True})
            continue
        out = small and not include_small
        if out:
            left_out[name] = f"n = {len(part)}: too few to tell (fewer than min_size = {min_size})"
        intervals[name] = (ci, part)
        records.append({"group": name, "n": len(part), "score": ci.estimate, "score_low": ci.low, "score_high": ci.high,
                        "method": ci.method, "small": small, "left_out": out})
    table = pd.DataFrame.from_records(records, columns=GROUP_COLUMNS)
    counted = table[~table["left_out"]]
    if counted.empty:
        raise DataError(f"No group has {metric} computed on at least min_size={min_size} rows "
                        f"({'; '.join(f'{k}: {v}' for k, v in left_out.items())}).")
    ranked = counted.sort_values("score", ascending=not lower_better, kind="stable")
    worst_name, best_name = str(ranked.iloc[0]["group"]), str(ranked.iloc[-1]["group"])
    worst = intervals[worst_name][0]
    if worst_name == best_name:
        disparity = Interval(0.0, 0.0, 0.0, worst.n, confidence, "none: one group")
    else:
        a, b = (intervals[worst_name][1], intervals[best_name][1]) if lower_better else (intervals[best_name][1],
                                                                                         intervals[worst_name][1])
        disparity = corpus_gap(metric, a, b, paired=False, confidence=confidence, n_resamples=n_resamples, seed=seed).effect
    table = table.sort_values(["left_out", "score", "group"], ascending=[True, not lower_better, True], kind="stable",
                              na_position="last").reset_index(drop=True)
    return GroupReport(table=table, worst_group=worst_name, best_group=best_name, worst=worst, worst_min=worst,
                       disparity=disparity, left_out=left_out)
