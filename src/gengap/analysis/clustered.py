"""Intervals and tests for rows that are not independent: several rows of one passage, item or source.

Questions that share a passage, the variants gengap makes of one example and the k answers sampled
for one prompt are *clusters*: their scores move together, so n rows carry less information than n
independent ones. Every function here takes the per-row scores and a cluster id per row, and
returns the same :class:`~gengap.analysis.intervals.Interval` / :class:`~gengap.analysis.intervals.PairedTest`
as :mod:`gengap.analysis.intervals`, with ``n_clusters`` and ``design_effect`` filled in.

Which method, and why (coverage from ``benchmarks/bench_dependence.py``):

============================  ===============================  ========================================
what                          0/1 scores                       other scores
============================  ===============================  ========================================
a mean                        Korn-Graubard: Clopper-Pearson   cluster-robust t: the mean +- t on
(:func:`clustered_mean_ci`)   at the effective n, with         G - 1 degrees of freedom times its
                              degrees of freedom from the      cluster-robust standard error
                              clusters ("korn-graubard")       ("cluster-t")
two independent samples       Newcombe from the two            cluster-robust t, Satterthwaite's
(:func:`clustered_gap`)       Korn-Graubard intervals          degrees of freedom ("cluster-t")
                              ("newcombe-kg")
same examples                 MOVER-paired at the effective    cluster-robust t of the paired
(:func:`clustered_paired_     n of the paired differences      differences ("cluster-t")
difference`)                  ("mover-paired-kg")
paired test                   sign-flip test of the cluster totals of the paired differences:
(:func:`clustered_paired_     the two conditions of a whole cluster swap together ("cluster-sign-flip")
test`)
independent test              cluster-robust score test, t with Satterthwaite degrees of freedom
(:func:`clustered_two_        from the clusters ("cluster-score")
sample_test`)
============================  ===============================  ========================================

The *design effect* is the variance of the mean under the clusters (the cluster-robust, or
"sandwich", variance that statsmodels' ``cov_type="cluster"`` computes) over its variance were the
rows independent: with m rows a cluster and intraclass correlation rho it is about
``1 + (m - 1) * rho``; n rows are worth about ``n / design_effect`` independent ones.

When every cluster holds one row, every function returns exactly what its counterpart in
:mod:`gengap.analysis.intervals` returns (same method, same bounds). With fewer than
:data:`MIN_CLUSTERS` clusters an interval carries a warning: it cannot be trusted to cover 95%.

>>> import numpy as np
>>> scores = np.repeat([1, 1, 0, 1, 0, 1, 1, 1, 0, 1] * 4, 30)       # 40 passages of 30 questions
>>> passage = np.repeat(np.arange(40), 30)
>>> ci = clustered_mean_ci(scores, passage)
>>> ci.method, ci.n, ci.n_clusters, round(ci.design_effect, 1)
('korn-graubard', 1200, 40, 30.7)
>>> naive = mean_ci(scores)
>>> round((ci.high - ci.low) / (naive.high - naive.low), 1)
5.9
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
import scipy.stats

from gengap._errors import DataError
from gengap._random import check_random_state
from gengap.analysis.intervals import (
    _CHUNK_ELEMENTS,
    _MAX_DISTINCT_FOR_COUNTS,
    Interval,
    Method,
    PairedTest,
    _as_scores,
    _check,
    _sign_flip_p,
    bootstrap_means,
    gap,
    in_streams,
    is_binary,
    mean_ci,
    paired_difference,
    paired_proportion_ci,
    paired_test,
    proportion_ci,
    two_sample_test,
)

__all__ = [
    "ClusterDesign", "MIN_CLUSTERS", "cluster_codes", "cluster_ids", "cluster_design", "cluster_bootstrap_means",
    "cluster_bootstrap_bins", "clustered_mean_ci",
    "clustered_gap", "clustered_paired_difference", "clustered_paired_test", "clustered_two_sample_test",
    "clustered_variance", "effective_n",
]

#: Below this many clusters a clustered interval carries a warning ("too few to tell"). Set on the
#: tuning seed of ``benchmarks/bench_dependence.py`` and checked on its held-out seed (1,000 runs a
#: cell): from 100 clusters every interval covers 94.3% or more at every correlation and cluster size;
#: below, coverage falls to 92.5% (Korn-Graubard, 5 clusters of 100 at a correlation of 0.5) and 93.5%
#: (cluster-robust t, 20 clusters of 10 at 0.05), and the design effect itself rests on a handful of clusters.
MIN_CLUSTERS = 30


def cluster_codes(clusters: Sequence[Any] | np.ndarray, n: int | None = None, *, what: str = "cluster ids") -> np.ndarray:
    """Integer codes 0..G-1 of the clusters: integer ids that already run without a hole from their
    smallest are shifted to start at 0 (no hashing: the fast path for a million rows); other ids are
    numbered in order of first appearance.

    Missing ids are an error naming how many rows lack one.

    >>> cluster_codes(["p2", "p1", "p2"]).tolist(), cluster_codes(np.array([7, 5, 6, 7])).tolist()
    ([0, 1, 0], [2, 0, 1, 2])
    """
    if isinstance(clusters, np.ndarray) and clusters.dtype.kind in "iu" and clusters.ndim == 1 and clusters.size:
        if n is not None and clusters.size != n:
            raise DataError(f"Got {n} scores but {clusters.size} {what}: give one cluster id per row.")
        shifted = clusters.astype(np.int64) - int(clusters.min())
        if int(shifted.max()) < 4 * shifted.size + 16 and np.bincount(shifted).all():
            return shifted
    labels = pd.Series(clusters if isinstance(clusters, np.ndarray) else list(clusters))
    if n is not None and len(labels) != n:
        raise DataError(f"Got {n} scores but {len(labels)} {what}: give one cluster id per row.")
    missing = labels.isna()
    if missing.any():
        raise DataError(f"The {what} are missing in {int(missing.sum())} of {len(labels)} row(s); fill them (each row "
                        "its own id makes it a cluster of one) or drop those rows.")
    codes, _ = pd.factorize(labels, sort=False)
    return codes.astype(np.int64)


def cluster_ids(rows: pd.DataFrame, column: str, *, where: str = "the rows") -> np.ndarray:
    """The cluster id of every row: the column ``column`` of ``rows``, or that field of their JSON
    ``metadata`` (store rows). Ids are read as text, so 7 and "7" are one cluster.

    A column that is not there, or is empty in some rows, is an error naming it, how many rows,
    and the columns there are.

    >>> rows = pd.DataFrame({"score": [1, 0], "metadata": ['{"passage": "p1"}', '{"passage": "p1"}']})
    >>> cluster_ids(rows, "passage").tolist()
    ['p1', 'p1']
    """
    if column in rows.columns:
        values = rows[column]
        known = list(rows.columns)
    else:
        import json

        meta = [json.loads(m) if isinstance(m, str) and m else {} for m in rows.get("metadata", pd.Series([None] * len(rows)))]
        known = sorted({k for m in meta[:1000] for k in m}) + [c for c in rows.columns if c != "metadata"]
        if not any(column in m for m in meta):
            from gengap._errors import did_you_mean

            raise DataError(f"The cluster column '{column}' is not in {where}.{did_you_mean(column, known)} Columns: "
                            f"{', '.join(map(str, known[:30]))}. Name a metadata column whose rows share a passage, "
                            "item or source (--cluster COLUMN).")
        values = pd.Series([m.get(column) for m in meta], index=rows.index, dtype=object)
    missing = values.isna()
    if missing.any():
        raise DataError(f"The cluster column '{column}' is empty in {int(missing.sum()):,} of {len(values):,} rows of "
                        f"{where}; give every row a cluster id (a row alone in its cluster can have its own), or drop "
                        "those rows.")
    return values.astype(str).to_numpy()


@dataclass(frozen=True)
class ClusterDesign:
    """How the rows of a sample fall into clusters, and what that costs.

    Attributes
    ----------
    n : rows.
    n_clusters : clusters (distinct ids).
    design_effect : variance of the mean under the clusters over its variance for independent
        rows (1.0 for clusters of one row; 1.0 when every score is equal).
    icc : intraclass correlation implied by the design effect, ``(deff - 1) / (m - 1)`` with
        ``m`` the size-weighted mean cluster size, at most 1 (0 for clusters of one row).
    mean_size : rows per cluster on average.
    """

    n: int
    n_clusters: int
    design_effect: float
    icc: float
    mean_size: float

    @property
    def effective_n(self) -> float:
        """Rows' worth of independent examples: ``n / max(1, design_effect)``."""
        return self.n / max(1.0, self.design_effect)

    def describe(self, unit: str = "clusters") -> str:
        """``'1,800 rows in 60 passages; design effect 12.6'``."""
        return f"{self.n:,} rows in {self.n_clusters:,} {unit}; design effect {self.design_effect:.1f}"


def clustered_variance(scores: np.ndarray, codes: np.ndarray, center: float | None = None) -> float:
    """Cluster-robust variance of the mean of ``scores``: ``G/(G-1) * sum_g (sum_i (y_i - c))^2 / n^2``
    with ``c`` the mean (or ``center``): what statsmodels' OLS of the mean with ``cov_type="cluster"``
    gives. With every cluster one row it is ``s^2 / n`` (``s^2`` the sample variance).

    >>> round(clustered_variance(np.array([1.0, 0.0, 1.0, 0.0]), np.array([0, 1, 2, 3])), 4)
    0.0833
    """
    n = scores.size
    c = float(scores.mean()) if center is None else center
    totals = np.bincount(codes, weights=scores - c)
    g = totals.size
    if g < 2:
        return float("nan")
    return float(g / (g - 1) * np.dot(totals, totals) / (n * n))


def _design(scores: np.ndarray, codes: np.ndarray) -> ClusterDesign:
    n = scores.size
    sizes = np.bincount(codes)
    g = int(sizes.size)
    mean_size = n / g
    if g == n:
        return ClusterDesign(n, g, 1.0, 0.0, 1.0)
    naive = float(np.var(scores, ddof=1)) / n if n > 1 else 0.0
    robust = clustered_variance(scores, codes)
    deff = robust / naive if naive > 0 and np.isfinite(robust) else 1.0
    m = float(np.sum(sizes.astype(np.float64) ** 2) / n)  # size-weighted mean size: what 1 + (m - 1) rho uses
    icc = min(1.0, (deff - 1) / (m - 1)) if m > 1 else 0.0
    return ClusterDesign(n, g, float(deff), float(icc), float(mean_size))


def cluster_design(scores: Sequence[float] | np.ndarray, clusters: Sequence[Any] | np.ndarray) -> ClusterDesign:
    """Number of clusters, design effect and intraclass correlation of ``scores`` in ``clusters``.

    >>> d = cluster_design([1, 1, 0, 0, 1, 1], ["a", "a", "b", "b", "c", "c"])
    >>> d.n_clusters, round(d.design_effect, 2), round(d.icc, 2)
    (3, 2.5, 1.0)
    """
    arr = _as_scores(scores)
    return _design(arr, cluster_codes(clusters, arr.size))


def _prepared(scores: Any, clusters: Any, what: str = "scores") -> tuple[np.ndarray, np.ndarray]:
    arr = _as_scores(scores, what)
    codes = cluster_codes(clusters, arr.size, what=f"cluster ids of the {what}")
    if codes.max() == 0 and arr.size > 1:
        raise DataError(f"All {arr.size} {what} are in one cluster: an interval needs at least two clusters to see "
                        "how clusters vary. Name a finer cluster column, or none.")
    return arr, codes


def _t_ratio(n: int, g: int, confidence: float) -> float:
    """Korn and Graubard's degrees-of-freedom factor ``(t_{n-1} / t_{G-1})^2`` (1 when G = n)."""
    if g >= n:
        return 1.0
    q = 1 - (1 - confidence) / 2
    return float((scipy.stats.t.ppf(q, n - 1) / scipy.stats.t.ppf(q, g - 1)) ** 2)


def effective_n(n: int, n_clusters: int, design_effect: float, confidence: float = 0.95) -> float:
    """Korn and Graubard's effective sample size: ``n / max(1, deff) * (t_{n-1} / t_{G-1})^2``.

    >>> round(effective_n(1800, 60, 12.6), 1)
    137.2
    """
    return n / max(1.0, design_effect) * _t_ratio(n, n_clusters, confidence)


def _cluster_warning(g: int, binary: bool) -> str:
    if g >= MIN_CLUSTERS:
        return ""
    how = "a Korn-Graubard interval" if binary else "a cluster-robust t interval"
    return f"{g} clusters: too few to tell ({how} needs about {MIN_CLUSTERS} clusters to cover 95%)"


def _with(ci: Interval, design: ClusterDesign) -> Interval:
    return replace(ci, n_clusters=design.n_clusters, design_effect=design.design_effect)


def clustered_mean_ci(
    scores: Sequence[float] | np.ndarray,
    clusters: Sequence[Any] | np.ndarray | None,
    *,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    method: Method = "percentile",
    seed: int | np.random.Generator | None = 0,
) -> Interval:
    """Interval of the mean score when rows come in clusters.

    0/1 scores: Korn and Graubard's (1998) interval, Clopper-Pearson at the effective sample size
    (:func:`effective_n`; the design effect is never taken below 1). Other scores: the cluster-robust
    t interval (with equal clusters, the t interval of the cluster means).
    Clusters of one row give exactly :func:`gengap.analysis.intervals.mean_ci`; so do ``clusters=None``
    (rows taken as independent), with ``n_clusters`` and ``design_effect`` None.

    >>> ci = clustered_mean_ci([1, 1, 0, 0, 1, 1, 0, 1], ["a", "a", "b", "b", "c", "c", "d", "d"])
    >>> ci.method, ci.n_clusters, ci.warning[:27]
    ('korn-graubard', 4, '4 clusters: too few to tell')
    """
    if clusters is None:
        return mean_ci(scores, confidence=confidence, n_resamples=n_resamples, method=method, seed=seed)
    _check(confidence, n_resamples)
    arr, codes = _prepared(scores, clusters)
    design = _design(arr, codes)
    if design.n_clusters == arr.size:
        return _with(mean_ci(arr, confidence=confidence, n_resamples=n_resamples, method=method, seed=seed), design)
    if is_binary(arr):
        n_eff = effective_n(arr.size, design.n_clusters, design.design_effect, confidence)
        p = float(arr.mean())
        low, high = proportion_ci(p * n_eff, n_eff, confidence=confidence)
        return Interval(p, float(low), float(high), int(arr.size), confidence, "korn-graubard",
                        _cluster_warning(design.n_clusters, True), design.n_clusters, design.design_effect)
    return _cluster_t(arr, codes, design, confidence)


def _cluster_t(arr: np.ndarray, codes: np.ndarray, design: ClusterDesign, confidence: float) -> Interval:
    """Mean +- t_{G-1} times its cluster-robust standard error (the interval of statsmodels' OLS of the
    mean with ``cov_type="cluster"``)."""
    estimate = float(arr.mean())
    half = _t(confidence, design.n_clusters - 1) * np.sqrt(clustered_variance(arr, codes))
    warning = _cluster_warning(design.n_clusters, False)
    if half == 0:
        warning = warning or "every cluster's mean is equal: the interval has no width"
    return Interval(estimate, estimate - half, estimate + half, int(arr.size), confidence, "cluster-t", warning,
                    design.n_clusters, design.design_effect)


def _t(confidence: float, df: float) -> float:
    return float(scipy.stats.t.ppf(1 - (1 - confidence) / 2, df))


def cluster_bootstrap_bins(scores: np.ndarray, bins: np.ndarray, n_bins: int, codes: np.ndarray, n_resamples: int,
                           rng: np.random.Generator) -> np.ndarray:
    """Per resample and bin, the mean score of the bin's rows when whole clusters are drawn with
    replacement from all of them: an (n_resamples, n_bins) array.

    A cluster that reaches into several bins (a passage with questions of several lengths) is drawn
    into all of them at once, so the bins of one resample move together as they do in the data. A
    bin that none of a resample's clusters reaches keeps its observed mean.

    >>> boot = cluster_bootstrap_bins(np.array([1.0, 1, 0, 0]), np.array([0, 1, 0, 1]), 2, np.array([0, 0, 1, 1]),
    ...                               1000, np.random.default_rng(0))
    >>> boot.shape, bool((boot[:, 0] == boot[:, 1]).all())  # each cluster holds one row of each bin
    ((1000, 2), True)
    """
    from scipy import sparse

    g = int(codes.max()) + 1
    cells = sparse.csr_matrix((np.ones(codes.size), (codes, bins)), shape=(g, n_bins))
    sums = sparse.csr_matrix((scores, (codes, bins)), shape=(g, n_bins))
    observed = np.asarray(sums.sum(axis=0)).ravel() / np.maximum(np.asarray(cells.sum(axis=0)).ravel(), 1)
    out = np.empty((n_resamples, n_bins))
    per_chunk = max(1, _CHUNK_ELEMENTS // g)
    for start in range(0, n_resamples, per_chunk):
        stop = min(n_resamples, start + per_chunk)
        r = stop - start
        drawn = rng.integers(0, g, size=(r, g)) + (np.arange(r) * g)[:, None]
        weights = np.bincount(drawn.ravel(), minlength=r * g).reshape(r, g).astype(np.float64)
        total, count = (sums.T @ weights.T).T, (cells.T @ weights.T).T
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start:stop] = np.where(count > 0, total / count, observed)
    return out


def cluster_bootstrap_means(scores: np.ndarray, codes: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Means of ``n_resamples`` cluster-bootstrap resamples: clusters drawn with replacement, each
    resample's mean its total over its rows.

    Equal-sized clusters are :func:`gengap.analysis.intervals.bootstrap_means` of the cluster means
    (so clusters of one row give the ordinary bootstrap, draw for draw); otherwise (total, size)
    pairs are resampled, through their counts when there are few distinct pairs.

    >>> boot = cluster_bootstrap_means(np.array([1.0, 1, 0, 0]), np.array([0, 0, 1, 1]), 1000, np.random.default_rng(0))
    >>> sorted(set(boot.tolist()))
    [0.0, 0.5, 1.0]
    """
    sizes = np.bincount(codes).astype(np.float64)
    totals = np.bincount(codes, weights=scores)
    if np.all(sizes == sizes[0]):
        return bootstrap_means(totals / sizes, n_resamples, rng)
    g = sizes.size
    pairs, counts = np.unique(np.stack([totals, sizes], axis=1), axis=0, return_counts=True)
    if pairs.shape[0] <= _MAX_DISTINCT_FOR_COUNTS:
        draws = rng.multinomial(g, counts / g, size=n_resamples).astype(np.float64)
        return (draws @ pairs[:, 0]) / (draws @ pairs[:, 1])
    per_chunk = max(1, _CHUNK_ELEMENTS // g)

    def fill(part: np.ndarray, r: np.random.Generator) -> None:
        for start in range(0, part.size, per_chunk):
            stop = min(part.size, start + per_chunk)
            idx = r.integers(0, g, size=(stop - start, g), dtype=np.int32)
            part[start:stop] = np.take(totals, idx).sum(axis=1) / np.take(sizes, idx).sum(axis=1)

    return in_streams(n_resamples, rng, fill)


def clustered_gap(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    clusters_a: Sequence[Any] | np.ndarray | None,
    clusters_b: Sequence[Any] | np.ndarray | None,
    *,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int | np.random.Generator | None = 0,
) -> Interval:
    """``mean(a) - mean(b)`` of two samples of different rows, each in its own clusters, with an interval.

    0/1 scores: Newcombe's square-and-add of the two Korn-Graubard intervals. Other scores: the
    cluster-robust t interval with Satterthwaite's degrees of freedom. Clusters that reach into both samples (one passage with
    questions in both splits) make the two means correlate, usually positively: the interval then
    errs on the wide side. ``n_clusters`` and ``design_effect`` are those of the smaller side.
    ``None`` clusters: :func:`gengap.analysis.intervals.gap`.

    >>> g = clustered_gap([1, 1, 1, 1, 0, 1], [0, 0, 1, 0, 0, 0], [1, 1, 2, 2, 3, 3], [4, 4, 5, 5, 6, 6])
    >>> g.method, round(g.estimate, 3), g.low < g.estimate < g.high
    ('newcombe-kg', 0.667, True)
    """
    if clusters_a is None or clusters_b is None:
        return gap(a, b, confidence=confidence, n_resamples=n_resamples, seed=seed)
    _check(confidence, n_resamples)
    a_arr, ca = _prepared(a, clusters_a, "a")
    b_arr, cb = _prepared(b, clusters_b, "b")
    da, db = _design(a_arr, ca), _design(b_arr, cb)
    small = da if a_arr.size <= b_arr.size else db
    if da.n_clusters == a_arr.size and db.n_clusters == b_arr.size:
        return _with(gap(a_arr, b_arr, confidence=confidence, n_resamples=n_resamples, seed=seed), small)
    estimate = float(a_arr.mean() - b_arr.mean())
    n = int(min(a_arr.size, b_arr.size))
    g = min(da.n_clusters, db.n_clusters)
    if is_binary(a_arr, b_arr):
        na = effective_n(a_arr.size, da.n_clusters, da.design_effect, confidence)
        nb = effective_n(b_arr.size, db.n_clusters, db.design_effect, confidence)
        pa, pb = float(a_arr.mean()), float(b_arr.mean())
        la, ua = proportion_ci(pa * na, na, confidence=confidence)
        lb, ub = proportion_ci(pb * nb, nb, confidence=confidence)
        low = max(-1.0, estimate - float(np.hypot(pa - la, ub - pb)))
        high = min(1.0, estimate + float(np.hypot(ua - pa, pb - lb)))
        return Interval(estimate, low, high, n, confidence, "newcombe-kg", _cluster_warning(g, True), small.n_clusters,
                        small.design_effect)
    va, vb = clustered_variance(a_arr, ca), clustered_variance(b_arr, cb)
    half = _t(confidence, _satterthwaite(va, vb, da.n_clusters, db.n_clusters)) * float(np.sqrt(va + vb))
    return Interval(estimate, estimate - half, estimate + half, n, confidence, "cluster-t", _cluster_warning(g, False),
                    small.n_clusters, small.design_effect)


def _satterthwaite(va: float, vb: float, ga: int, gb: int) -> float:
    """Welch-Satterthwaite degrees of freedom of ``va + vb`` with ``ga - 1`` and ``gb - 1`` of their own."""
    if va <= 0 and vb <= 0:
        return float(ga + gb - 2)
    return float((va + vb) ** 2 / (va**2 / (ga - 1) + vb**2 / (gb - 1)))


def clustered_paired_difference(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    clusters: Sequence[Any] | np.ndarray | None,
    *,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int | np.random.Generator | None = 0,
) -> Interval:
    """Mean of ``a - b`` over the same rows, which come in clusters, with an interval.

    0/1 scores: the paired MOVER interval of :func:`gengap.analysis.intervals.paired_proportion_ci`
    on the 2x2 counts scaled to the effective sample size of the paired differences (Korn-Graubard).
    Other scores: the cluster-robust t interval of the paired differences. ``design_effect`` is that of the
    differences: it is what the clusters cost a paired comparison. ``None`` clusters:
    :func:`gengap.analysis.intervals.paired_difference`.

    >>> d = clustered_paired_difference([1, 1, 0, 1, 1, 1], [1, 0, 0, 1, 0, 1], [1, 1, 2, 2, 3, 3])
    >>> d.method, round(d.estimate, 3), d.low < 0 < d.high
    ('mover-paired-kg', 0.333, True)
    """
    if clusters is None:
        return paired_difference(a, b, confidence=confidence, n_resamples=n_resamples, seed=seed)
    _check(confidence, n_resamples)
    a_arr, b_arr = _as_scores(a, "a"), _as_scores(b, "b")
    if a_arr.shape != b_arr.shape:
        raise DataError(f"Paired scores need the same examples: got {a_arr.size} and {b_arr.size} scores.")
    d, codes = _prepared(a_arr - b_arr, clusters, "paired differences")
    design = _design(d, codes)
    if design.n_clusters == d.size:
        return _with(paired_difference(a_arr, b_arr, confidence=confidence, n_resamples=n_resamples, seed=seed), design)
    if is_binary(a_arr, b_arr):
        scale = effective_n(d.size, design.n_clusters, design.design_effect, confidence) / d.size
        both, only_a, only_b = (float(np.sum(x)) for x in ((a_arr == 1) & (b_arr == 1), d > 0, d < 0))
        low, high = paired_proportion_ci(both * scale, only_a * scale, only_b * scale, d.size * scale, confidence=confidence)
        return Interval(float(d.mean()), float(low), float(high), int(d.size), confidence, "mover-paired-kg",
                        _cluster_warning(design.n_clusters, True), design.n_clusters, design.design_effect)
    return _cluster_t(d, codes, design, confidence)


def clustered_paired_test(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    clusters: Sequence[Any] | np.ndarray | None,
    *,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int | np.random.Generator | None = 0,
) -> PairedTest:
    """Test whether two conditions scored on the same clustered rows differ.

    The sign-flip permutation test of the cluster totals of ``a - b``: under "no difference" the two
    conditions of a whole cluster can swap, so each cluster's total keeps or flips its sign together
    (exact up to 16 clusters with a nonzero total, Monte Carlo up to 5,000, the normal limit above,
    which is the clustered McNemar statistic of Durkalski et al. 2003 for 0/1 scores). Clusters of
    one row (or ``None``) give exactly :func:`gengap.analysis.intervals.paired_test` (exact McNemar for 0/1).

    >>> t = clustered_paired_test([1, 1, 1, 1, 1, 1], [0, 0, 0, 0, 0, 0], [1, 1, 2, 2, 3, 3])
    >>> t.test, t.p_value
    ('cluster-sign-flip', 0.25)
    """
    if clusters is None:
        return paired_test(a, b, confidence=confidence, n_resamples=n_resamples, seed=seed)
    effect = clustered_paired_difference(a, b, clusters, confidence=confidence, n_resamples=n_resamples, seed=seed)
    a_arr, b_arr = _as_scores(a, "a"), _as_scores(b, "b")
    if effect.n_clusters == a_arr.size:
        base = paired_test(a_arr, b_arr, confidence=confidence, n_resamples=n_resamples, seed=seed)
        return PairedTest(effect, base.p_value, base.test, base.statistic)
    codes = cluster_codes(clusters, a_arr.size)
    totals = np.bincount(codes, weights=a_arr - b_arr)
    totals = np.round(totals, 12)  # sums of -1/0/1 stay exact; floating noise must not make a zero nonzero
    p = _sign_flip_p(totals, n_resamples, check_random_state(seed))
    return PairedTest(effect, p, "cluster-sign-flip", float(effect.estimate))


def clustered_two_sample_test(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    clusters_a: Sequence[Any] | np.ndarray | None,
    clusters_b: Sequence[Any] | np.ndarray | None,
    *,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int | np.random.Generator | None = 0,
) -> PairedTest:
    """Test whether two samples of different clustered rows differ: the difference of means over
    its cluster-robust standard error under "no difference" (both samples' variances about the pooled
    mean), referred to t with Satterthwaite's degrees of freedom from the clusters. The effect is
    :func:`clustered_gap`. Clusters of one row (or ``None``) give :func:`gengap.analysis.intervals.two_sample_test`.

    >>> t = clustered_two_sample_test([1] * 40, [0] * 40, np.repeat(np.arange(20), 2), np.repeat(np.arange(20), 2))
    >>> t.test, t.p_value < 1e-6
    ('cluster-score', True)
    """
    if clusters_a is None or clusters_b is None:
        return two_sample_test(a, b, confidence=confidence, n_resamples=n_resamples, seed=seed)
    effect = clustered_gap(a, b, clusters_a, clusters_b, confidence=confidence, n_resamples=n_resamples, seed=seed)
    a_arr, b_arr = _as_scores(a, "a"), _as_scores(b, "b")
    ca, cb = cluster_codes(clusters_a, a_arr.size), cluster_codes(clusters_b, b_arr.size)
    ga, gb = int(ca.max()) + 1, int(cb.max()) + 1
    if ga == a_arr.size and gb == b_arr.size:
        base = two_sample_test(a_arr, b_arr, confidence=confidence, n_resamples=n_resamples, seed=seed)
        return PairedTest(effect, base.p_value, base.test, base.statistic)
    pooled = float((a_arr.sum() + b_arr.sum()) / (a_arr.size + b_arr.size))
    va, vb = clustered_variance(a_arr, ca, pooled), clustered_variance(b_arr, cb, pooled)
    se = float(np.sqrt(va + vb))
    if se == 0:
        return PairedTest(effect, 1.0, "cluster-score", 0.0)
    t = effect.estimate / se
    p = float(2 * scipy.stats.t.sf(abs(t), _satterthwaite(va, vb, ga, gb)))
    return PairedTest(effect, min(1.0, p), "cluster-score", float(t))

