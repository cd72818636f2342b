"""Score curves along an ordinal axis, and where they break.

A length or difficulty split says whether there is a gap; a curve says where it starts and how
fast the score falls. :func:`score_curve` bins the test rows along an axis (a metadata column such
as ``n_digits``, or the input or target length in tokens), and gives per bin the score with an
interval and the number of examples; the training range is marked. Two readings of the decline:

* **break point**: the first bin above the training range whose score is significantly below the
  in-range score (one-sided test per bin, Holm's correction over the bins tested);
* **drop inside the range**: the first in-range bin whose score is significantly below the first
  in-range bin's (the same test), so a curve that falls before the end of the training range says so
  instead of implying the model holds up until the break point;
* **halving point**: the axis value where a non-increasing (isotonic) fit of the curve falls to
  half the in-range score.

Both come with a bootstrap interval over examples (resampled within each bin, so every resample
keeps the bins' sizes).

Worked example: four digit counts, trained on 1-2 digits.

==========  ====  =====  =====  ======
 n_digits    n    score  in     below
==========  ====  =====  =====  ======
 1           100  0.95   yes
 2           100  0.93   yes
 3           100  0.90          no
 4           100  0.20          yes  <- break point
==========  ====  =====  =====  ======

>>> import numpy as np
>>> digits = np.repeat([1, 2, 3, 4], 100)
>>> scores = np.concatenate([np.r_[np.ones(95), np.zeros(5)], np.r_[np.ones(93), np.zeros(7)],
...                          np.r_[np.ones(90), np.zeros(10)], np.r_[np.ones(20), np.zeros(80)]])
>>> c = score_curve(scores, digits, axis_name="n_digits", train_range=(1, 2), n_resamples=2000)
>>> c.break_value, c.to_table()["n"].tolist()
(4.0, [100, 100, 100, 100])
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import ndtr
from scipy.stats import hypergeom
from scipy.stats import t as student_t

from gengap._errors import ConfigError, DataError
from gengap._random import check_random_state
from gengap.analysis._monotone import decreasing_isotonic, first_crossing
from gengap.analysis.intervals import bootstrap_means, proportion_ci

__all__ = ["Curve", "score_curve", "curve_from_rows", "run_curves", "curve_plan", "default_axes", "length_axis", "check_axis",
           "axis_values", "holm", "bin_axis", "CURVE_COLUMNS", "LENGTH_AXES", "IRT_AXIS"]

#: Columns of :meth:`Curve.to_table`, in order (the ``bins`` records of results.json use the same names).
CURVE_COLUMNS = ["value", "low_edge", "high_edge", "n", "score", "score_low", "score_high", "in_range",
                 "tested", "p_value", "p_holm", "below", "fit"]
#: Derived axes: the number of whitespace tokens of the input or the target.
LENGTH_AXES = {"input_length": "input", "target_length": "target"}
#: Derived axis: each example's 1PL IRT difficulty, fitted on the correctness of every model in the rows.
IRT_AXIS = "irt_difficulty"
#: With at most this many distinct axis values (and no bins given), each value is its own bin.
MAX_UNIQUE_BINS = 20
#: Quantile bins when the axis has more distinct values than :data:`MAX_UNIQUE_BINS`.
DEFAULT_QUANTILE_BINS = 10


@dataclass(frozen=True)
class Curve:
    """A score curve along one axis, with its break point and halving point.

    Attributes
    ----------
    axis : what the x axis is (a metadata column, ``input_length``, ``target_length``, ...).
    bins : one row per bin, columns :data:`CURVE_COLUMNS`: the bin's axis ``value`` (the value
        itself, or the mean axis value of a quantile bin) and edges, ``n``, ``score`` with its
        interval, ``in_range`` (inside the training range), ``tested`` (above it: compared with
        the in-range score; with no training range, above the first bin), the one-sided ``p_value`` and
        its Holm-adjusted ``p_holm``,
        ``below`` (significantly below at level ``alpha``) and the isotonic ``fit``.
    train_range : (low, high) of the training range on the axis, or None (then the first bin is
        the reference).
    reference_score : the in-range score (rows of every in-range bin pooled).
    break_value, break_low, break_high : the first significantly lower bin's axis value and its
        bootstrap interval (None: no bin is significantly lower; ``break_high`` None: beyond the
        tested range in more than the interval's share of resamples). On an integer axis, the
        bin's lowest value (an integer); otherwise the bin's mean axis value.
    half_value, half_low, half_high : where the isotonic fit reaches half the reference score,
        with its bootstrap interval (None: it does not within the tested range); rounded up to an
        integer on an integer axis.
    drop_value, drop_from : inside the training range, the first bin significantly below the first
        in-range bin (one-sided, Holm over the other in-range bins) and the bin before it, as axis
        values like ``break_value`` (None: no such drop, or fewer than two in-range bins).
    integer : the axis holds whole numbers only (edges, break and halving points are integers).
    interval : how the per-bin intervals were computed (``clopper-pearson`` for 0/1 scores, as everywhere in gengap, else
        ``bootstrap``; with clusters ``korn-graubard`` or ``cluster-bootstrap``).
    test : the per-bin test (``fisher`` for 0/1 scores, else ``welch``).
    """

    axis: str
    bins: pd.DataFrame = field(repr=False)
    train_range: tuple[float, float] | None
    reference_score: float
    n_reference: int
    break_value: float | None
    break_low: float | None
    break_high: float | None
    half_value: float | None
    half_low: float | None
    half_high: float | None
    interval: str
    test: str
    confidence: float = 0.95
    alpha: float = 0.05
    n_resamples: int = 10_000
    model: str | None = None
    split: str | None = None
    metric: str | None = None
    drop_value: float | None = None
    drop_from: float | None = None
    integer: bool = False

    def to_table(self) -> pd.DataFrame:
        """The bins as a table (columns :data:`CURVE_COLUMNS`)."""
        return self.bins.copy()

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able values: the scalars, and ``bins`` as a list of records (NaN -> None)."""
        out: dict[str, Any] = {k: getattr(self, k) for k in (
            "axis", "model", "split", "metric", "train_range", "reference_score", "n_reference", "break_value",
            "break_low", "break_high", "half_value", "half_low", "half_high", "interval", "test", "confidence",
            "alpha", "n_resamples", "drop_value", "drop_from", "integer")}
        out["train_range"] = list(self.train_range) if self.train_range is not None else None
        records = self.bins.astype(object).where(self.bins.notna(), None).to_dict("records")
        out["bins"] = [{k: _plain(v) for k, v in r.items()} for r in records]
        return {k: _plain(v) for k, v in out.items()}

    def __str__(self) -> str:
        where = "no bin significantly below" if self.break_value is None else (
            f"breaks at {self.axis} = {self.break_value:g} [{_fmt(self.break_low)}, {_fmt(self.break_high)}]")
        half = "does not halve in range" if self.half_value is None else (
            f"halves at {self.half_value:.3g} [{_fmt(self.half_low)}, {_fmt(self.half_high)}]")
        drop = "" if self.drop_value is None else f"; falls inside the training range at {self.drop_value:g}"
        return f"Curve over {self.axis}: {len(self.bins)} bins, in-range score {self.reference_score:.3f}{drop}; {where}; {half}"


def _fmt(v: float | None) -> str:
    return "beyond" if v is None else f"{v:.3g}"


def _plain(v: Any) -> Any:
    if isinstance(v, (np.bool_,)):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return None if not np.isfinite(v) else float(v)
    return v


# ------------------------------------------------------------------------------------------- pieces
def holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values along the last axis (NaN entries are not tests).

    >>> holm(np.array([0.01, 0.04, 0.03])).round(2).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p, dtype=np.float64)
    flat = np.atleast_2d(p)
    m = np.sum(~np.isnan(flat), axis=1, keepdims=True)
    order = np.argsort(np.where(np.isnan(flat), np.inf, flat), axis=1, kind="stable")
    sorted_p = np.take_along_axis(flat, order, axis=1)
    rank = np.arange(flat.shape[1])[None, :]
    adj = np.maximum.accumulate(np.nan_to_num((m - rank) * sorted_p, nan=-np.inf), axis=1)
    adj = np.where(np.isnan(sorted_p), np.nan, np.minimum(adj, 1.0))
    out = np.empty_like(flat)
    np.put_along_axis(out, order, adj, axis=1)
    return out.reshape(p.shape)


def bin_axis(values: np.ndarray, bins: int | Sequence[float] | str | None = "auto", *,
             boundary: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Assign each axis value to a bin; returns (bin index per value, edges of shape (n_bins, 2)).

    ``bins``: ``"auto"``/None (each distinct value when there are at most 20, else 10 quantile
    bins), ``"unique"`` (each distinct value), an int k (k quantile bins, or each distinct value
    when there are at most k), or a list of edges (bins ``[e_i, e_{i+1})``, the last one closed).
    A quantile bin's edges are the lowest and highest values it holds, so no two bins share an edge.

    >>> idx, edges = bin_axis(np.array([3, 1, 1, 2]))
    >>> idx.tolist(), edges[:, 0].tolist()
    ([2, 0, 0, 1], [1.0, 2.0, 3.0])
    """
    v = np.asarray(values, dtype=np.float64)
    if bins is None or (isinstance(bins, str) and bins == "auto"):
        bins = MAX_UNIQUE_BINS
        quantiles = DEFAULT_QUANTILE_BINS
    else:
        quantiles = None
    if isinstance(bins, str):
        if bins != "unique":
            raise ConfigError(f"bins={bins!r} must be 'auto', 'unique', a number of bins or a list of edges.")
        uniq, idx = np.unique(v, return_inverse=True)
        return idx, np.stack([uniq, uniq], axis=1)
    if isinstance(bins, (int, np.integer)) and not isinstance(bins, bool):
        if bins < 1:
            raise ConfigError(f"bins={bins!r} must be at least 1.")
        uniq, idx = np.unique(v, return_inverse=True)
        if uniq.size <= bins:
            return idx, np.stack([uniq, uniq], axis=1)
        k = quantiles or int(bins)
        cuts = np.unique(np.quantile(v, np.linspace(0, 1, k + 1)[1:-1], method="inverted_cdf"))
        if boundary is not None and (v <= boundary).any() and (v > boundary).any():
            # no quantile bin straddles the end of the training range: the first value beyond it starts a bin
            cuts = np.unique(np.r_[cuts, v[v > boundary].min()])
        idx = np.searchsorted(cuts, v, side="right")
        used, idx = np.unique(idx, return_inverse=True)
        return idx, _held(v, idx, used.size)
    edges = np.asarray(bins, dtype=np.float64)
    if edges.ndim != 1 or edges.size < 2 or np.any(np.diff(edges) <= 0):
        raise ConfigError(f"bins={edges.tolist()!r} must be at least two increasing edges, e.g. [1, 5, 10, 20].")
    outside = (v < edges[0]) | (v > edges[-1])
    if outside.any():
        raise DataError(f"{int(outside.sum())} axis value(s) lie outside the bin edges [{edges[0]:g}, {edges[-1]:g}] "
                        f"(e.g. {v[outside][0]:g}); widen the first or last edge.")
    idx = np.minimum(np.searchsorted(edges, v, side="right") - 1, edges.size - 2)
    used, idx = np.unique(idx, return_inverse=True)
    return idx, np.stack([edges[:-1][used], edges[1:][used]], axis=1)


def _held(v: np.ndarray, idx: np.ndarray, k: int) -> np.ndarray:
    """The lowest and highest value each of ``k`` bins holds, shape (k, 2)."""
    lows = np.full(k, np.inf)
    highs = np.full(k, -np.inf)
    np.minimum.at(lows, idx, v)
    np.maximum.at(highs, idx, v)
    return np.stack([lows, highs], axis=1)


def _one_sided_p(binary: bool, x: np.ndarray, n: np.ndarray, ref_x: float, ref_n: int,
                 mean: np.ndarray, var: np.ndarray, ref_mean: float, ref_var: float) -> np.ndarray:
    """p-value of 'bin score < reference score' per bin: Fisher's exact test (0/1) or Welch's t test."""
    if binary:
        total = n + ref_n
        successes = x + ref_x
        return hypergeom.cdf(np.rint(x), total, np.rint(successes), n)
    se2 = var / n + ref_var / ref_n
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (mean - ref_mean) / np.sqrt(se2)
        df = se2**2 / ((var / n) ** 2 / np.maximum(n - 1, 1) + (ref_var / ref_n) ** 2 / max(ref_n - 1, 1))
    p = student_t.cdf(t, np.where(np.isfinite(df), df, 1.0))
    return np.where(se2 > 0, p, np.where(mean < ref_mean, 0.0, 1.0))


def _z_p(boot: np.ndarray, ref: np.ndarray, n: np.ndarray, ref_n: int, binary: bool, var: np.ndarray,
         ref_var: float) -> np.ndarray:
    """Normal-approximation p-values of the per-bin test on resampled curves (speed; see score_curve)."""
    if binary:
        pooled = (boot * n + ref[:, None] * ref_n) / (n + ref_n)
        se2 = pooled * (1 - pooled) * (1 / n + 1 / ref_n)
    else:
        se2 = np.broadcast_to(var / n + ref_var / ref_n, boot.shape)
    diff = boot - ref[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        p = ndtr(diff / np.sqrt(se2))
    return np.where(se2 > 0, p, np.where(diff < 0, 0.0, 1.0))


def _first_true(mask: np.ndarray, x: np.ndarray) -> np.ndarray:
    hit = mask.any(axis=-1)
    return np.where(hit, x[np.argmax(mask, axis=-1)], np.inf)


def _percentile(values: np.ndarray, confidence: float) -> tuple[float | None, float | None]:
    """Percentile interval of bootstrap values that may hold inf (none found in that resample)."""
    a = (1 - confidence) / 2
    lo, hi = np.quantile(values, [a, 1 - a], method="inverted_cdf")
    return (None if not np.isfinite(lo) else float(lo)), (None if not np.isfinite(hi) else float(hi))


# ------------------------------------------------------------------------------------------- the curve
def score_curve(
    scores: Sequence[float] | np.ndarray,
    axis: Sequence[float] | np.ndarray,
    *,
    axis_name: str | None = None,
    bins: int | Sequence[float] | str | None = "auto",
    train_range: tuple[float, float] | None = None,
    confidence: float = 0.95,
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    seed: int | np.random.Generator | None = 0,
    model: str | None = None,
    split: str | None = None,
    metric: str | None = None,
    clusters: Sequence[Any] | np.ndarray | None = None,
) -> Curve:
    """The score along an axis: per bin the score with an interval and n, the break and halving points.

    Parameters
    ----------
    scores : array-like of shape (n_examples,), per-example scores (0/1 or continuous).
    axis : array-like of shape (n_examples,), the examples' axis values (numeric, ordinal).
    axis_name : what the axis is called in the result (``axis=`` is the values).
    bins : see :func:`bin_axis`.
    train_range : (low, high) axis values seen in training; bins inside it form the reference.
        None: the first bin is the reference.
    confidence : coverage of every interval; ``alpha`` is the level of the per-bin tests.
    n_resamples : bootstrap resamples (examples resampled within each bin).
    clusters : optional cluster id per example (the passage or source rows share). Each bin then
        counts at its effective size, n over the bin's design effect (never below 1; degrees of
        freedom from its clusters for 0/1 scores, as Korn and Graubard's interval): Clopper-Pearson
        and Fisher's test at the effective counts for 0/1 scores ("korn-graubard",
        "fisher-effective"), Welch's test with the variance times the design effect and a bootstrap of
        whole clusters otherwise ("cluster-bootstrap", "welch-clustered"). The break and halving points'
        bootstrap draws whole clusters from all bins at once (a cluster that spans bins moves them together).

    Notes
    -----
    Per-bin intervals: Clopper-Pearson (exact) intervals for 0/1 scores (honest at 0/n and n/n),
    percentile bootstrap intervals otherwise. Per-bin tests against the pooled in-range rows:
    Fisher's exact test for 0/1 scores, Welch's t test otherwise, one-sided, Holm-adjusted over the
    bins above the training range. In the bootstrap of the break point, each resampled curve is
    tested with the normal approximation of the same comparison (exact tests on every resample
    would cost seconds per curve); the point estimate uses the exact test.

    >>> c = score_curve([1, 1, 1, 0, 0, 0], [1, 1, 1, 2, 2, 2], train_range=(1, 1), n_resamples=1000)
    >>> c.to_table()[["value", "n", "score"]].values.tolist()
    [[1.0, 3.0, 1.0], [2.0, 3.0, 0.0]]
    """
    if not 0 < confidence < 1 or not 0 < alpha < 1:
        raise ConfigError(f"confidence={confidence!r} and alpha={alpha!r} must be in (0, 1).")
    if n_resamples < 100:
        raise ConfigError(f"n_resamples={n_resamples!r} is too few; use at least 1,000 (10,000 is the default).")
    name = axis_name or "axis"
    s = np.asarray(scores, dtype=np.float64).ravel()
    try:
        v = np.asarray(axis, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        raise DataError(f"The axis '{name}' is not numeric; a curve needs ordinal numbers (e.g. digits, depth, length).") from None
    if s.size != v.size:
        raise DataError(f"{s.size} scores but {v.size} axis values for '{name}'; give one axis value per example.")
    if s.size == 0:
        raise DataError(f"No examples to draw a curve over '{name}'.")
    if np.isnan(s).any():
        raise DataError(f"The scores hold {int(np.isnan(s).sum())} NaN value(s); drop or fill them first.")
    if np.isnan(v).any():
        raise DataError(f"{int(np.isnan(v).sum())} example(s) have no value of '{name}'; drop them or fill the column.")
    if train_range is not None:
        lo_r, hi_r = float(train_range[0]), float(train_range[1])
        if lo_r > hi_r:
            raise ConfigError(f"train_range={tuple(train_range)!r}: the low end is above the high end.")
    rng = check_random_state(seed)
    idx, edges = bin_axis(v, bins, boundary=None if train_range is None else hi_r)
    k = edges.shape[0]
    n = np.bincount(idx, minlength=k).astype(np.float64)
    sums = np.bincount(idx, weights=s, minlength=k)
    mean = sums / n
    sq = np.bincount(idx, weights=s * s, minlength=k)
    var = np.maximum(sq / n - mean**2, 0.0) * n / np.maximum(n - 1, 1)
    x = np.bincount(idx, weights=v, minlength=k) / n
    binary = bool(np.isin(s, (0.0, 1.0)).all())
    cl = None
    deff = np.ones(k)
    kg = np.ones(k)  # effective n over n per bin (Korn-Graubard, with the bin's clusters' degrees of freedom)
    if clusters is not None:
        from gengap.analysis.clustered import _design, cluster_codes, effective_n

        cl = cluster_codes(clusters, s.size)
        for b in range(k):
            mask = idx == b
            _, local = np.unique(cl[mask], return_inverse=True)
            design = _design(s[mask], local.ravel())
            deff[b] = max(1.0, design.design_effect)
            if design.n_clusters > 1:
                kg[b] = effective_n(int(mask.sum()), design.n_clusters, design.design_effect, confidence) / mask.sum()
        var = var * deff
    held = _held(v, idx, k)  # what each bin holds (a quantile bin's upper cut is the next bin's lower one)
    vmin, vmax = held[:, 0], held[:, 1]
    integer = bool(np.all(v == np.round(v)))
    if integer:  # whole numbers: a bin is the whole numbers it holds, edges never shared
        edges = held
    # where a bin sits on the axis when naming a break: its first whole number, else its mean value
    at = vmin if integer else x

    if train_range is None:
        in_range = np.arange(k) == 0
    else:
        in_range = (vmin >= lo_r) & (vmax <= hi_r)
        if not in_range.any():
            raise DataError(f"No bin of '{name}' lies inside the training range [{lo_r:g}, {hi_r:g}] "
                            f"(the axis runs from {v.min():g} to {v.max():g}); a curve needs in-range rows "
                            "as its reference. Include rows from the training range (e.g. an i.i.d. test part).")
    if train_range is None:
        top = edges[in_range, 1].max()
        tested = ~in_range & (edges[:, 0] >= top) & (x > top)
    else:
        tested = ~in_range & (vmin > vmax[in_range].max())
    ref_n = int(n[in_range].sum())
    ref_x = float(sums[in_range].sum())
    ref_mean = ref_x / ref_n
    # the tests' counts: effective sizes with clusters (Fisher on rounded effective counts)
    n_t, sums_t = (n, sums) if cl is None else (np.maximum(1.0, np.rint(n / deff)), mean * np.maximum(1.0, np.rint(n / deff)))
    ref_n_t = ref_n if cl is None else max(1, int(np.rint(np.sum(n[in_range] / deff[in_range]))))
    ref_x_t = ref_x if cl is None else ref_mean * ref_n_t
    ref_var = float(np.sum(var[in_range] * np.maximum(n[in_range] - 1, 0) + n[in_range] * (mean[in_range] - ref_mean) ** 2)
                    / max(ref_n - 1, 1))

    # bootstrap: resampled bin means; whole clusters drawn from all of them with clusters, else
    # examples resampled within each bin
    if cl is not None:
        from gengap.analysis.clustered import cluster_bootstrap_bins

        boot = cluster_bootstrap_bins(s, idx, k, cl, n_resamples, rng)
    elif binary:
        boot = rng.binomial(n.astype(np.int64), mean, size=(n_resamples, k)) / n
    else:
        streams = rng.spawn(k)
        boot = np.stack([bootstrap_means(s[idx == b], n_resamples, streams[b]) for b in range(k)], axis=1)
    ref_boot = boot[:, in_range] @ n[in_range] / ref_n

    if binary and cl is not None:
        low, high = proportion_ci(mean * n * kg, n * kg, confidence=confidence)
    elif binary:
        low, high = proportion_ci(sums, n, confidence=confidence)
    else:
        a = (1 - confidence) / 2
        low, high = np.quantile(boot, [a, 1 - a], axis=0)

    p = np.full(k, np.nan)
    if tested.any():
        p[tested] = _one_sided_p(binary, sums_t[tested], n_t[tested], ref_x_t, ref_n_t, mean[tested], var[tested], ref_mean,
                                 ref_var)
    p_holm = holm(p)
    below = np.nan_to_num(p_holm, nan=1.0) < alpha
    break_value = float(at[below][0]) if below.any() else None
    boot_break = None
    if tested.any():
        bp = np.full(boot.shape, np.nan)
        bp[:, tested] = _z_p(boot[:, tested], ref_boot, n_t[tested], ref_n_t, binary, var[tested], ref_var)
        boot_break = _first_true(np.nan_to_num(holm(bp), nan=1.0) < alpha, at)
    break_low, break_high = _percentile(boot_break, confidence) if (boot_break is not None and break_value is not None) else (None, None)

    drop_value = drop_from = None
    inside = np.flatnonzero(in_range) if train_range is not None else np.array([], dtype=np.int64)
    if inside.size >= 2:  # inside the range: each in-range bin against the first one
        first, rest = inside[0], inside[1:]
        p_in = np.full(k, np.nan)
        p_in[rest] = _one_sided_p(binary, sums_t[rest], n_t[rest], float(sums_t[first]), int(n_t[first]), mean[rest],
                                  var[rest], float(mean[first]), float(var[first]))
        dropped = np.flatnonzero(np.nan_to_num(holm(p_in), nan=1.0) < alpha)
        if dropped.size:
            drop_value = float(at[dropped[0]])
            drop_from = float(at[inside[inside < dropped[0]][-1]])

    fit = decreasing_isotonic(mean[None, :], n)[0]
    half = first_crossing(x, fit[None, :], np.array([ref_mean / 2]))[0]
    half_value = float(half) if np.isfinite(half) and ref_mean > 0 else None
    half_low = half_high = None
    if half_value is not None:
        boot_half = first_crossing(x, decreasing_isotonic(boot, n), ref_boot / 2)
        half_low, half_high = _percentile(boot_half, confidence)
        if integer:  # the first whole number at or past the crossing
            half_value, half_low, half_high = (None if h is None else float(np.ceil(h - 1e-9))
                                               for h in (half_value, half_low, half_high))

    table = pd.DataFrame({
        "value": x, "low_edge": edges[:, 0], "high_edge": edges[:, 1], "n": n.astype(np.int64), "score": mean,
        "score_low": low, "score_high": high, "in_range": in_range, "tested": tested, "p_value": p,
        "p_holm": p_holm, "below": below, "fit": fit,
    }, columns=CURVE_COLUMNS)
    return Curve(axis=name, bins=table, train_range=None if train_range is None else (lo_r, hi_r),
                 reference_score=float(ref_mean), n_reference=ref_n, break_value=break_value, break_low=break_low,
                 break_high=break_high, half_value=half_value, half_low=half_low, half_high=half_high,
                 interval=("korn-graubard" if binary else "cluster-bootstrap") if cl is not None else
                          ("clopper-pearson" if binary else "bootstrap"),
                 test=("fisher-effective" if binary else "welch-clustered") if cl is not None else ("fisher" if binary else "welch"),
                 confidence=confidence, alpha=alpha, n_resamples=n_resamples, model=model, split=split, metric=metric,
                 drop_value=drop_value, drop_from=drop_from, integer=integer)


# ------------------------------------------------------------------------------------------- from rows
def axis_values(rows: pd.DataFrame, axis: str) -> np.ndarray:
    """The axis values of per-example rows: a metadata column, or ``input_length`` / ``target_length``.

    ``rows`` are the store's rows (``metadata`` a JSON object per row) or a frame holding the
    column directly.

    >>> rows = pd.DataFrame({"input": ["a b", "c"], "target": ["x", "y"], "metadata": ['{"d": 3}', '{"d": 1}']})
    >>> axis_values(rows, "d").tolist(), axis_values(rows, "input_length").tolist()
    ([3.0, 1.0], [2.0, 1.0])
    """
    if axis == IRT_AXIS:
        return _irt_difficulty(rows)
    if axis in LENGTH_AXES:
        from gengap.structure.atoms import length

        col = LENGTH_AXES[axis]
        return np.fromiter((length(t) for t in rows[col]), dtype=np.float64, count=len(rows))
    if axis in rows.columns and axis not in ("metadata",):
        values = rows[axis]
    else:
        meta = [json.loads(m) if isinstance(m, str) else (m or {}) for m in rows.get("metadata", pd.Series([None] * len(rows)))]
        known = sorted({k for m in meta for k in m})
        if not any(axis in m for m in meta):
            from gengap._errors import did_you_mean

            choices = known + list(LENGTH_AXES) + [IRT_AXIS]
            raise DataError(f"No column '{axis}' to draw a curve over. Metadata columns of these rows: "
                            f"{', '.join(known) or 'none'}; derived axes: {', '.join(choices[len(known):])}."
                            f"{did_you_mean(axis, choices)}")
        values = pd.Series([m.get(axis) for m in meta])
    try:
        return pd.to_numeric(values, errors="raise").to_numpy(dtype=np.float64)
    except (TypeError, ValueError):
        bad = next(str(x) for x in values if not _is_number(x))
        raise DataError(f"Column '{axis}' is not numeric (e.g. {bad!r}); a curve needs an ordinal number per example.") from None


def check_axis(columns: dict[str, Sequence[Any]], axis: str, *, option: str = "--curve") -> None:
    """Refuse a curve axis before any model runs: a column the data lacks, or one that is not numeric.

    ``columns`` maps each metadata column of the data to its values. ``input_length``,
    ``target_length`` and ``irt_difficulty`` are always accepted (derived from every dataset), and
    ``train_similarity`` (computed for the run when a curve along it is asked for).

    >>> check_axis({"n_digits": [1, 2]}, "n_digits")
    >>> check_axis({"n_digits": [1, 2]}, "n_digit")
    Traceback (most recent call last):
    ...
    gengap._errors.ConfigError: --curve n_digit: the data has no column 'n_digit' ...
    """
    if axis in LENGTH_AXES or axis in (IRT_AXIS, "train_similarity"):
        return
    if axis not in columns:
        from gengap._errors import did_you_mean

        choices = [*columns, *LENGTH_AXES, IRT_AXIS]
        raise ConfigError(f"{option} {axis}: the data has no column '{axis}' to draw a curve over "
                          f"({'its metadata columns: ' + ', '.join(columns) if columns else 'it has no metadata columns'}; "
                          f"derived axes: {', '.join([*LENGTH_AXES, IRT_AXIS])}).{did_you_mean(axis, choices)}")
    bad = next((x for x in columns[axis] if x is not None and not (isinstance(x, float) and np.isnan(x)) and not _is_number(x)), None)
    if bad is not None:
        raise ConfigError(f"{option} {axis}: the column '{axis}' is not numeric (e.g. {str(bad)!r}); a curve needs an ordinal "
                          "number per example (digits, depth, length). Group by it instead (--split group:group=COLUMN).")


def _irt_difficulty(rows: pd.DataFrame) -> np.ndarray:
    """Per row, the 1PL difficulty of its example, fitted on every model's 0/1 correctness in ``rows``.

    The difficulty comes from the same rows the curve scores, so a curve along it falls by
    construction for the models that were fitted; it is descriptive. Fit it on many models (or on
    other models' rows) before reading a break point off it.
    """
    from gengap.analysis.irt import fit_irt, response_matrix

    if "model" not in rows or rows["model"].nunique() < 2:
        raise DataError(f"The axis '{IRT_AXIS}' needs the rows of at least two models (an IRT fit over one model "
                        "cannot tell item difficulty from ability); evaluate several models in one run.")
    metric = str(rows["metric"].iloc[0]) if "metric" in rows else None
    fit = fit_irt(response_matrix(rows[rows["metric"] == metric] if metric else rows))
    return rows["example_id"].map(fit.difficulty).to_numpy(dtype=np.float64)


def _is_number(x: Any) -> bool:
    try:
        float(x)
    except (TypeError, ValueError):
        return False
    return True


def curve_from_rows(
    rows: pd.DataFrame,
    axis: str,
    *,
    train_range: tuple[float, float] | None = None,
    bins: int | Sequence[float] | str | None = "auto",
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int = 0,
    trained: Collection[str] | None = None,
    cluster: str | None = None,
) -> list[Curve]:
    """One curve per (model, metric) of per-example rows (clean inputs; every split's rows pooled).

    Pooling the splits puts the i.i.d. test part (in range) and the length test part (above it)
    on one axis, which is what a length curve needs; an example in two test parts counts once.
    Rows without a value on the axis are left out. ``trained`` names the models trained on the
    splits (None: every model); the others have no training range (a function or an endpoint was
    never trained on the axis), so their first bin is the reference. ``cluster`` names a column (or
    metadata field) whose rows are not independent: every bin then counts its clusters. Corpus
    metrics (AUROC, ECE, ...) are left out: their figure per bin comes from
    :func:`gengap.analysis.corpus.corpus_curve`, without the break-point test.
    """
    clean = rows[rows["perturbation"] == "none"] if "perturbation" in rows else rows
    if "example_id" in clean:
        clean = clean.drop_duplicates(["model", "metric", "example_id"])
    if clean.empty:
        raise DataError("No scored rows to draw a curve from.")
    values = pd.Series(axis_values(clean, axis), index=clean.index)
    clean = clean[values.notna()]
    if cluster is not None:
        from gengap.analysis.clustered import cluster_ids

        clean = clean.assign(_cluster=cluster_ids(clean, cluster, where="the curve's rows"))
    out = []
    from gengap.metrics import is_corpus_metric

    for (model, metric), group in clean.groupby(["model", "metric"], sort=True):
        if is_corpus_metric(str(metric)):  # not a mean of rows: gengap.analysis.corpus.corpus_curve draws it per bin
            continue
        own_range = train_range if trained is None or str(model) in trained else None
        out.append(score_curve(group["score"].to_numpy(), values[group.index].to_numpy(), axis_name=axis, bins=bins,
                               train_range=own_range, confidence=confidence, n_resamples=n_resamples, seed=seed,
                               model=str(model), metric=str(metric),
                               clusters=group["_cluster"].to_numpy() if cluster is not None else None))
    return out


# ------------------------------------------------------------------------------------------- from a run
def length_axis(info: dict[str, Any]) -> str | None:
    """The curve axis of a length split (``target_length``, ``input_length`` or its column), else None.

    >>> length_axis({"method": "length", "params": {"by": "target"}}), length_axis({"method": "random"})
    ('target_length', None)
    """
    if info.get("method") != "length":
        return None
    by = (info.get("params") or {}).get("by", "target")
    return {"target": "target_length", "input": "input_length"}.get(str(by), str(by))


def default_axes(split_info: dict[str, dict[str, Any]]) -> list[str]:
    """Axes a report draws without being asked: one per length split (its length measure)."""
    out: list[str] = []
    for info in split_info.values():
        axis = length_axis(info)
        if axis is not None and axis not in out:
            out.append(axis)
    return out


def curve_plan(split_info: dict[str, dict[str, Any]], axis: str, reference: str | None,
               splits: Sequence[str] | None = None) -> tuple[list[str], tuple[float, float] | None]:
    """Which splits' rows a curve pools, and the training range, for a run's splits.

    With length splits on ``axis``: the reference (i.i.d.) split's rows inside the training range
    (the length split's train part's range) and the length splits' rows. Otherwise: the reference split
    (else every split) and no training range (the first bin is the reference), unless ``splits``
    names them.
    """
    length_splits = [name for name, info in split_info.items() if length_axis(info) == axis]
    train_range = None
    if length_splits:
        rng = split_info[length_splits[0]].get("train_length_range")
        if rng:
            train_range = (float(rng[0]), float(rng[1]))
    if splits is not None:
        unknown = [s for s in splits if s not in split_info]
        if unknown:
            raise ConfigError(f"Split(s) {unknown} are not in this run (its splits: {', '.join(split_info)}).")
        return list(splits), train_range
    if length_splits:
        return ([reference] if reference in split_info else []) + length_splits, train_range
    return ([reference] if reference in split_info else list(split_info)), None


def run_curves(
    rows: pd.DataFrame,
    split_info: dict[str, dict[str, Any]],
    axis: str,
    *,
    reference: str | None = None,
    splits: Sequence[str] | None = None,
    train_range: tuple[float, float] | None | str = "auto",
    bins: int | Sequence[float] | str | None = "auto",
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int = 0,
    trained: Collection[str] | None = None,
    cluster: str | None = None,
) -> list[Curve]:
    """Curves of a run's rows along ``axis``, one per (model, metric), following :func:`curve_plan`.

    ``train_range="auto"`` takes it from a length split on the axis for the models in ``trained``
    (None: every model); when no row lies in that range (a run without an i.i.d. split), the first
    bin is the reference instead. A range given here applies to every model.
    """
    chosen, planned = curve_plan(split_info, axis, reference, splits)
    rng_ = planned if train_range == "auto" else train_range
    part = rows[rows["split"].isin(chosen)]
    if splits is None and planned is not None and reference in chosen and len(chosen) > 1:
        # the i.i.d. split contributes only its in-range rows: beyond the range, the length splits speak
        ref_rows = part["split"] == reference
        v = pd.Series(axis_values(part, axis), index=part.index)
        part = part[~ref_rows | ((v >= planned[0]) & (v <= planned[1]))]
    if part.empty:
        raise DataError(f"No rows in split(s) {chosen} to draw a curve over '{axis}'.")
    if rng_ is not None:
        values = axis_values(part[part["perturbation"] == "none"] if "perturbation" in part else part, axis)
        if not np.any((values >= rng_[0]) & (values <= rng_[1])):
            rng_ = None
    return curve_from_rows(part, axis, train_range=rng_ if isinstance(rng_, tuple) else None, bins=bins, confidence=confidence, n_resamples=n_resamples,
                           seed=seed, trained=trained if train_range == "auto" else None, cluster=cluster)
