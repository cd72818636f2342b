"""Honest numbers: bootstrap confidence intervals, gaps between conditions, paired differences.

Every function takes per-example scores (the store's rows) and returns an :class:`Interval`, which
carries the estimate, the bounds, the number of examples behind it and how it was computed.

Resampling is vectorized in numpy. Scores with few distinct values (0/1 accuracy, Likert, -1/0/1
paired differences) are resampled through the counts of each value — a multinomial draw per
resample instead of n index draws — so a million 0/1 scores take milliseconds.

>>> import numpy as np
>>> from gengap.analysis.intervals import bootstrap_ci
>>> ci = bootstrap_ci(np.array([1, 1, 1, 0] * 250), seed=0)
>>> round(ci.estimate, 3), ci.low < 0.75 < ci.high, ci.n
(0.75, True, 1000)
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Literal

import numpy as np
from scipy.special import ndtr, ndtri

from gengap._errors import ConfigError, DataError
from gengap._random import check_random_state

__all__ = ["Interval", "bootstrap_ci", "bootstrap_means", "gap", "paired_difference"]

Method = Literal["percentile", "bca"]

#: Above this many distinct values, resample indices instead of value counts.
_MAX_DISTINCT_FOR_COUNTS = 256
#: Elements drawn per chunk of index resampling (~8 bytes each, per stream: stays in cache).
_CHUNK_ELEMENTS = 1 << 20
#: Independent random streams for index resampling (fixed, so results do not depend on the core count).
_STREAMS = 4


@dataclass(frozen=True)
class Interval:
    """An estimate with a confidence interval.

    Attributes
    ----------
    estimate : the statistic on the observed data (a mean, or a difference of means).
    low, high : the interval's bounds.
    n : the number of examples behind the estimate (for a gap, the smaller side).
    confidence : the nominal coverage, e.g. 0.95.
    method : how the interval was computed ("percentile", "bca", "exact" when it cannot vary).
    """

    estimate: float
    low: float
    high: float
    n: int
    confidence: float = 0.95
    method: str = "percentile"

    def to_dict(self) -> dict[str, float | int | str]:
        return asdict(self)

    def __str__(self) -> str:
        return f"{self.estimate:.3f} [{self.low:.3f}, {self.high:.3f}] (n={self.n})"


def _as_scores(scores: Sequence[float] | np.ndarray, what: str = "scores") -> np.ndarray:
    arr = np.asarray(scores, dtype=np.float64).ravel()
    if arr.size == 0:
        raise DataError(f"Cannot compute an interval from empty {what}: no examples were scored.")
    if np.isnan(arr).any():
        raise DataError(f"{what} contain {int(np.isnan(arr).sum())} NaN value(s); drop or fill them before computing intervals.")
    return arr


def _check(confidence: float, n_resamples: int) -> None:
    if not 0 < confidence < 1:
        raise ConfigError(f"confidence={confidence!r} must be in (0, 1), e.g. 0.95.")
    if n_resamples < 100:
        raise ConfigError(f"n_resamples={n_resamples!r} is too few for an interval; use at least 1,000 (10,000 is the default).")


def bootstrap_means(scores: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Means of ``n_resamples`` bootstrap resamples of ``scores`` (each of the same size).

    Few distinct values: one multinomial draw of value counts per resample. Otherwise: index
    resampling in cache-sized chunks, split over a fixed number of random streams (so the result
    depends on the seed only, never on the number of cores) run on a thread pool; values are
    gathered as float32 and summed in float64.
    """
    n = scores.size
    values, counts = np.unique(scores, return_counts=True)
    if values.size == 1:
        return np.full(n_resamples, values[0])
    if values.size <= _MAX_DISTINCT_FOR_COUNTS:
        draws = rng.multinomial(n, counts / n, size=n_resamples)
        return draws @ values / n
    streams = rng.spawn(_STREAMS)
    bounds = np.linspace(0, n_resamples, _STREAMS + 1).astype(int)
    out = np.empty(n_resamples)
    gathered = scores.astype(np.float32)

    def work(k: int) -> None:
        _resample_means(gathered, out[bounds[k]:bounds[k + 1]], streams[k])

    workers = max(1, min(_STREAMS, os.cpu_count() or 1))
    if workers == 1:
        for k in range(_STREAMS):
            work(k)
    else:
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(work, range(_STREAMS)))
    return out


def _resample_means(values: np.ndarray, out: np.ndarray, rng: np.random.Generator) -> None:
    n = values.size
    per_chunk = max(1, _CHUNK_ELEMENTS // n)
    index_dtype = np.int32 if n < 2**31 else np.int64
    for start in range(0, out.size, per_chunk):
        stop = min(out.size, start + per_chunk)
        idx = rng.integers(0, n, size=(stop - start, n), dtype=index_dtype)
        out[start:stop] = np.take(values, idx).sum(axis=1, dtype=np.float64) / n


def _jackknife_acceleration(scores: np.ndarray) -> float:
    """BCa acceleration of the mean from leave-one-out means (closed form, grouped by distinct value)."""
    n = scores.size
    values, counts = np.unique(scores, return_counts=True)
    loo = (scores.sum() - values) / (n - 1)
    centered = loo.mean() if values.size == n else np.average(loo, weights=counts)
    d = centered - loo
    num = np.sum(counts * d**3)
    den = 6.0 * np.sum(counts * d**2) ** 1.5
    return float(num / den) if den > 0 else 0.0


def _interval(estimate: float, boot: np.ndarray, confidence: float, method: Method, scores: np.ndarray | None) -> tuple[float, float, str]:
    alpha = (1 - confidence) / 2
    if np.all(boot == boot[0]):
        return float(boot[0]), float(boot[0]), "exact"
    if method == "percentile" or scores is None:
        low, high = np.quantile(boot, [alpha, 1 - alpha])
        return float(low), float(high), "percentile"
    if method != "bca":
        raise ConfigError(f"method={method!r} must be 'percentile' or 'bca'.")
    prop = (np.sum(boot < estimate) + 0.5 * np.sum(boot == estimate)) / boot.size
    z0 = ndtri(np.clip(prop, 1e-10, 1 - 1e-10))
    a = _jackknife_acceleration(scores)
    z = ndtri(np.array([alpha, 1 - alpha]))
    adjusted = ndtr(z0 + (z0 + z) / (1 - a * (z0 + z)))
    low, high = np.quantile(boot, np.clip(adjusted, 0, 1))
    return float(low), float(high), "bca"


def bootstrap_ci(
    scores: Sequence[float] | np.ndarray,
    *,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    method: Method = "percentile",
    seed: int | np.random.Generator | None = 0,
) -> Interval:
    """Bootstrap confidence interval of the mean of per-example scores.

    Parameters
    ----------
    scores : array-like of shape (n_examples,), e.g. 0/1 exact-match scores.
    confidence : nominal coverage of the interval.
    n_resamples : number of bootstrap resamples.
    method : ``"percentile"`` or ``"bca"`` (bias-corrected and accelerated; Efron 1987).
    seed : seed or Generator; the same seed gives the same interval.

    >>> bootstrap_ci([0, 1, 1, 1], seed=0).estimate
    0.75
    """
    _check(confidence, n_resamples)
    arr = _as_scores(scores)
    rng = check_random_state(seed)
    estimate = float(arr.mean())
    boot = bootstrap_means(arr, n_resamples, rng)
    low, high, used = _interval(estimate, boot, confidence, method, arr)
    return Interval(estimate, low, high, int(arr.size), confidence, used)


def paired_difference(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    *,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    method: Method = "percentile",
    seed: int | np.random.Generator | None = 0,
) -> Interval:
    """Mean of ``a - b`` over the same examples, with a bootstrap interval of the paired differences.

    Use this when both conditions scored the same examples (two models, clean versus perturbed):
    it is much tighter than two independent intervals because example difficulty cancels.

    >>> paired_difference([1, 1, 0, 1], [1, 0, 0, 1], seed=0).estimate
    0.25
    """
    a_arr, b_arr = _as_scores(a, "a"), _as_scores(b, "b")
    if a_arr.shape != b_arr.shape:
        raise DataError(f"Paired scores need the same examples: got {a_arr.size} and {b_arr.size} scores.")
    return bootstrap_ci(a_arr - b_arr, confidence=confidence, n_resamples=n_resamples, method=method, seed=seed)


def gap(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    *,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int | np.random.Generator | None = 0,
) -> Interval:
    """Difference of means ``mean(a) - mean(b)`` of two independent samples, with a percentile interval.

    Use this when the two conditions scored different examples (the i.i.d. test part versus the
    length test part). ``n`` is the smaller sample.

    >>> round(gap([1, 1, 1, 1], [0, 1, 0, 1], seed=0).estimate, 2)
    0.5
    """
    _check(confidence, n_resamples)
    a_arr, b_arr = _as_scores(a, "a"), _as_scores(b, "b")
    rng = check_random_state(seed)
    boot = bootstrap_means(a_arr, n_resamples, rng) - bootstrap_means(b_arr, n_resamples, rng)
    estimate = float(a_arr.mean() - b_arr.mean())
    low, high, used = _interval(estimate, boot, confidence, "percentile", None)
    return Interval(estimate, low, high, int(min(a_arr.size, b_arr.size)), confidence, used)
