"""Honest numbers: confidence intervals, gaps between conditions, paired differences and tests.

Every function takes per-example scores (the store's rows) and returns an :class:`Interval`, which
carries the estimate, the bounds, the number of examples behind it and how it was computed.

Which interval, and why (the coverage figures come from ``benchmarks/bench_coverage.py``):

==========================  ===============================  ========================================
what                        0/1 scores                       other scores
==========================  ===============================  ========================================
a mean (:func:`mean_ci`)    Clopper-Pearson (exact)          bootstrap (percentile or BCa)
two independent samples     Newcombe's hybrid score          bootstrap of each sample
(:func:`gap`)               interval, exact-based
same examples               MOVER on the discordant rates,   bootstrap of the paired differences
(:func:`paired_difference`) exact-based, held to McNemar
paired test                 exact McNemar                    sign-flip permutation test
(:func:`paired_test`)       (binomial on discordant pairs)
==========================  ===============================  ========================================

A bootstrap cannot see beyond its sample: with 3 of 3 correct every resample is 3 of 3 and the
interval is [1, 1]. For 0/1 scores gengap therefore never bootstraps: Clopper-Pearson covers the
true rate at least 95% of the time for every n and rate, including 0/n and n/n, where its interval
still has width. Wilson's interval is shorter but covers only 92% at n = 5, p = 0.1 and at
n = 100, p = 0.01. Bootstrap intervals of other scores carry a warning below
:data:`MIN_BOOTSTRAP_N` examples (:data:`MIN_BOOTSTRAP_N_SKEWED` for strongly skewed scores),
where the percentile bootstrap covers less than 94%.

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
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np
import scipy.special
import scipy.stats
from scipy.special import ndtr

from gengap._errors import ConfigError, DataError
from gengap._random import check_random_state
from gengap.analysis.resample import bca_shifted

__all__ = [
    "Interval", "PairedTest", "MIN_BOOTSTRAP_N", "adjust_pvalues", "bootstrap_ci", "bootstrap_means", "gap",
    "is_binary", "mean_ci", "newcombe_ci", "paired_proportion_ci", "paired_difference", "paired_test", "proportion_ci", "two_sample_test",
]

Method = Literal["percentile", "bca"]

#: Above this many distinct values, resample indices instead of value counts.
_MAX_DISTINCT_FOR_COUNTS = 256
#: Elements drawn per chunk of index resampling (~8 bytes each, per stream: stays in cache).
_CHUNK_ELEMENTS = 1 << 20
#: Independent random streams for index resampling (fixed, so results do not depend on the core count).
_STREAMS = 4
#: Below this many examples a bootstrap interval of non-0/1 scores carries a warning: in
#: ``benchmarks/bench_coverage.py`` (section 5) the percentile bootstrap of the mean covers less
#: than 94% below it for token-F1-like and uniform scores (0.90 at n = 10, 0.93 at n = 20).
MIN_BOOTSTRAP_N = 30
#: Strongly skewed scores (sample skewness above :data:`SKEWED`) need this many examples: a
#: Beta(0.5, 4) sample (skewness 1.7) reaches 94% coverage only at about n = 200.
MIN_BOOTSTRAP_N_SKEWED = 200
SKEWED = 1.0


@dataclass(frozen=True)
class Interval:
    """An estimate with a confidence interval.

    Attributes
    ----------
    estimate : the statistic on the observed data (a mean, or a difference of means).
    low, high : the interval's bounds.
    n : the number of examples behind the estimate (for a gap, the smaller side).
    confidence : the nominal coverage, e.g. 0.95.
    method : how the interval was computed: "clopper-pearson", "newcombe", "mover-paired" (0/1
        scores), "percentile" or "bca" (bootstrap).
    warning : why the interval may say more than the data supports (too few examples for a
        bootstrap, every score equal), or "".
    n_clusters, design_effect : for rows in clusters (:mod:`gengap.analysis.clustered`), how many
        clusters there are and the design effect; None when the rows were taken as independent.
    """

    estimate: float
    low: float
    high: float
    n: int
    confidence: float = 0.95
    method: str = "percentile"
    warning: str = ""
    n_clusters: int | None = None
    design_effect: float | None = None

    def to_dict(self) -> dict[str, float | int | str]:
        """The fields as a dict (``n_clusters`` and ``design_effect`` only when the rows were clustered)."""
        out = asdict(self)
        if self.n_clusters is None:
            del out["n_clusters"], out["design_effect"]
        return out

    def __str__(self) -> str:
        """``0.000 [0.000, 0.0005] (n=7706, clopper-pearson)``: a bound that is not 0 or 1 never prints as one."""
        def fmt(x: float) -> str:
            for d in range(3, 8):
                text = f"{x:.{d}f}"
                if float(text) not in (0.0, 1.0, -1.0) or x in (0.0, 1.0, -1.0):
                    return text
            return text
        return f"{self.estimate:.3f} [{fmt(self.low)}, {fmt(self.high)}] (n={self.n}, {self.method})"


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
    gathered = scores.astype(np.float32)
    return in_streams(n_resamples, rng, lambda part, stream: _resample_means(gathered, part, stream))


def in_streams(n_resamples: int, rng: np.random.Generator,
               fill: Callable[[np.ndarray, np.random.Generator], None]) -> np.ndarray:
    """``n_resamples`` statistics made by ``fill(part, stream)`` over a fixed number of random streams.

    The resamples are cut into ``_STREAMS`` parts, each filled from its own stream spawned from
    ``rng`` on a thread pool: the result depends on the seed only, never on the number of cores.

    >>> a = in_streams(10, np.random.default_rng(0), lambda part, r: part.__setitem__(slice(None), r.random(part.size)))
    >>> b = in_streams(10, np.random.default_rng(0), lambda part, r: part.__setitem__(slice(None), r.random(part.size)))
    >>> bool((a == b).all())
    True
    """
    streams = rng.spawn(_STREAMS)
    bounds = np.linspace(0, n_resamples, _STREAMS + 1).astype(int)
    out = np.empty(n_resamples)

    def work(k: int) -> None:
        fill(out[bounds[k]:bounds[k + 1]], streams[k])

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
    if method not in ("percentile", "bca"):
        raise ConfigError(f"method={method!r} must be 'percentile' or 'bca'.")
    if np.all(boot == boot[0]):
        return float(boot[0]), float(boot[0]), method
    if method == "percentile" or scores is None:
        low, high = np.quantile(boot, [alpha, 1 - alpha])
        return float(low), float(high), "percentile"
    low, high = bca_shifted(estimate, boot, _jackknife_acceleration(scores), confidence)
    return low, high, "bca"


def bootstrap_warning(n: int, boot: np.ndarray | None = None, skewness: float = 0.0) -> str:
    """The caveat a bootstrap interval of ``n`` non-0/1 scores carries ("" when there is none).

    >>> bootstrap_warning(3)
    'n = 3: too few to tell (a bootstrap interval needs about 30 examples to cover 95%)'
    >>> bootstrap_warning(80, skewness=1.7)
    'n = 80: too few to tell for scores this skewed (skewness 1.7; the bootstrap needs about 200 examples)'
    """
    if n < MIN_BOOTSTRAP_N:
        return f"n = {n}: too few to tell (a bootstrap interval needs about {MIN_BOOTSTRAP_N} examples to cover 95%)"
    if n < MIN_BOOTSTRAP_N_SKEWED and abs(skewness) > SKEWED:
        return (f"n = {n}: too few to tell for scores this skewed (skewness {skewness:.1f}; the bootstrap needs about "
                f"{MIN_BOOTSTRAP_N_SKEWED} examples)")
    if boot is not None and boot.size and np.all(boot == boot[0]):
        return "every score is equal: the bootstrap cannot vary, so the interval has no width"
    return ""


def bootstrap_ci(
    scores: Sequence[float] | np.ndarray,
    *,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    method: Method = "percentile",
    seed: int | np.random.Generator | None = 0,
) -> Interval:
    """Bootstrap confidence interval of the mean of per-example scores.

    For 0/1 scores use :func:`mean_ci`, which gives an interval that stays honest at 0/n and n/n.
    Below :data:`MIN_BOOTSTRAP_N` scores the interval carries a ``warning``.

    Parameters
    ----------
    scores : array-like of shape (n_examples,), e.g. token-F1 scores.
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
    return Interval(estimate, low, high, int(arr.size), confidence, used, bootstrap_warning(arr.size, boot, _skewness(arr)))


def _skewness(x: np.ndarray) -> float:
    """Sample skewness (0 for fewer than 3 values or constant values)."""
    if x.size < 3:
        return 0.0
    d = x - x.mean()
    m2 = float(np.mean(d * d))
    return float(np.mean(d**3) / m2**1.5) if m2 > 0 else 0.0


def is_binary(*arrays: np.ndarray) -> bool:
    """True when every value of every array is 0 or 1 (then intervals for proportions apply).

    >>> is_binary(np.array([0.0, 1.0, 1.0])), is_binary(np.array([0.0, 0.5]))
    (True, False)
    """
    return all(bool(np.isin(a, (0.0, 1.0)).all()) for a in arrays)


def proportion_ci(successes: float | np.ndarray, n: float | np.ndarray, *, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Clopper-Pearson (exact) interval of a proportion, vectorized over ``successes`` and ``n``.

    It inverts two one-sided binomial tests, so it covers the true rate at least ``confidence`` of
    the time for every ``n`` and rate. At 0 successes the lower bound is 0 and the upper bound
    is above 0 (and symmetrically at ``n``): 0 of 7,706 is not a rate of exactly 0.

    >>> low, high = proportion_ci(0, 10)
    >>> float(low), round(float(high), 4)
    (0.0, 0.3085)
    """
    k = np.asarray(successes, dtype=np.float64)
    m = np.asarray(n, dtype=np.float64)
    alpha = 1 - confidence
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(k > 0, scipy.special.betaincinv(k, m - k + 1, alpha / 2), 0.0)
        high = np.where(k < m, scipy.special.betaincinv(k + 1, m - k, 1 - alpha / 2), 1.0)
    return np.nan_to_num(low, nan=0.0), np.nan_to_num(high, nan=1.0)


def mean_ci(
    scores: Sequence[float] | np.ndarray,
    *,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    method: Method = "percentile",
    seed: int | np.random.Generator | None = 0,
) -> Interval:
    """Interval of the mean score: Clopper-Pearson for 0/1 scores, the bootstrap otherwise.

    >>> ci = mean_ci([1, 1, 1])
    >>> ci.estimate, round(ci.low, 3), ci.high, ci.method
    (1.0, 0.292, 1.0, 'clopper-pearson')
    """
    _check(confidence, n_resamples)
    arr = _as_scores(scores)
    if not is_binary(arr):
        return bootstrap_ci(arr, confidence=confidence, n_resamples=n_resamples, method=method, seed=seed)
    k, n = int(arr.sum()), int(arr.size)
    low, high = proportion_ci(k, n, confidence=confidence)
    return Interval(k / n, float(low), float(high), n, confidence, "clopper-pearson")


def paired_proportion_ci(both: Any, only_a: Any, only_b: Any, n: Any, *, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Interval of ``mean(a) - mean(b)`` for paired 0/1 scores from the 2x2 counts (vectorized).

    The difference is the rate of pairs only ``a`` got right minus the rate only ``b`` got right.
    Each rate gets an exact (Clopper-Pearson) interval, and the two are combined by MOVER (Zou and
    Donner 2008, the square-and-add of Newcombe 1998) with the multinomial correlation of the two
    rates. The result is widened where needed to hold the exact conditional interval
    ``(b + c) / n * (2 * theta - 1)`` (``theta``: share of discordant pairs won by ``a``,
    Clopper-Pearson), so it holds 0 whenever the exact McNemar test cannot reject. With no
    discordant pair it is not [0, 0]: it still spans the discordance the data cannot rule out.

    >>> low, high = paired_proportion_ci(50, 4, 0, 100)
    >>> bool(low <= 0 < high)
    True
    """
    both, only_a, only_b, n = (np.asarray(x, dtype=np.float64) for x in (both, only_a, only_b, n))
    pa, pb = only_a / n, only_b / n
    la, ua = proportion_ci(only_a, n, confidence=confidence)
    lb, ub = proportion_ci(only_b, n, confidence=confidence)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.nan_to_num(-np.sqrt(pa * pb / ((1 - pa) * (1 - pb))), nan=0.0)
    d = pa - pb
    dl = np.sqrt(np.maximum((pa - la) ** 2 + (ub - pb) ** 2 - 2 * r * (pa - la) * (ub - pb), 0.0))
    du = np.sqrt(np.maximum((ua - pa) ** 2 + (pb - lb) ** 2 - 2 * r * (ua - pa) * (pb - lb), 0.0))
    discordant = only_a + only_b
    tl, tu = proportion_ci(only_a, np.maximum(discordant, 1), confidence=confidence)
    rate = discordant / n
    low = np.minimum(d - dl, np.where(discordant > 0, rate * (2 * tl - 1), 0.0))
    high = np.maximum(d + du, np.where(discordant > 0, rate * (2 * tu - 1), 0.0))
    return np.clip(low, -1.0, 1.0), np.clip(high, -1.0, 1.0)


def newcombe_ci(k1: Any, n1: Any, k2: Any, n2: Any, *, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe's (1998) hybrid interval of ``k1/n1 - k2/n2`` for independent 0/1 samples
    (vectorized): square-and-add of exact (Clopper-Pearson) intervals of each sample.

    >>> low, high = newcombe_ci(5, 5, 0, 5)
    >>> round(float(low), 3), float(high)
    (0.262, 1.0)
    """
    k1, n1, k2, n2 = (np.asarray(x, dtype=np.float64) for x in (k1, n1, k2, n2))
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = proportion_ci(k1, n1, confidence=confidence)
    l2, u2 = proportion_ci(k2, n2, confidence=confidence)
    d = p1 - p2
    return np.clip(d - np.hypot(p1 - l1, u2 - p2), -1.0, 1.0), np.clip(d + np.hypot(u1 - p1, p2 - l2), -1.0, 1.0)


def _paired_counts(a: np.ndarray, b: np.ndarray) -> tuple[int, int, int]:
    return int(np.sum((a == 1) & (b == 1))), int(np.sum((a == 1) & (b == 0))), int(np.sum((a == 0) & (b == 1)))


def paired_difference(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    *,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    method: Method = "percentile",
    seed: int | np.random.Generator | None = 0,
) -> Interval:
    """Mean of ``a - b`` over the same examples, with an interval of the paired difference.

    Use this when both conditions scored the same examples (two models, clean versus perturbed):
    it is much tighter than two independent intervals because example difficulty cancels. 0/1
    scores get :func:`paired_proportion_ci` (exact intervals of the two discordant rates, combined
    and held to the exact McNemar interval); other scores a bootstrap of the paired differences.

    >>> d = paired_difference([1, 1, 0, 1], [1, 0, 0, 1])
    >>> d.estimate, d.method, d.low < 0 < d.high
    (0.25, 'mover-paired', True)
    """
    a_arr, b_arr = _as_scores(a, "a"), _as_scores(b, "b")
    if a_arr.shape != b_arr.shape:
        raise DataError(f"Paired scores need the same examples: got {a_arr.size} and {b_arr.size} scores.")
    if is_binary(a_arr, b_arr):
        _check(confidence, n_resamples)
        low, high = paired_proportion_ci(*_paired_counts(a_arr, b_arr), a_arr.size, confidence=confidence)
        return Interval(float(a_arr.mean() - b_arr.mean()), float(low), float(high), int(a_arr.size), confidence,
                        "mover-paired")
    return bootstrap_ci(a_arr - b_arr, confidence=confidence, n_resamples=n_resamples, method=method, seed=seed)


def gap(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    *,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int | np.random.Generator | None = 0,
) -> Interval:
    """Difference of means ``mean(a) - mean(b)`` of two independent samples, with an interval.

    Use this when the two conditions scored different examples (the i.i.d. test part versus the
    length test part). ``n`` is the smaller sample. 0/1 scores get Newcombe's hybrid interval;
    other scores a percentile interval from resampling each sample.

    >>> g = gap([1, 1, 1, 1, 1], [0, 0, 0, 0, 0])
    >>> g.estimate, g.method, round(g.low, 3), g.high
    (1.0, 'newcombe', 0.262, 1.0)
    """
    _check(confidence, n_resamples)
    a_arr, b_arr = _as_scores(a, "a"), _as_scores(b, "b")
    estimate = float(a_arr.mean() - b_arr.mean())
    n = int(min(a_arr.size, b_arr.size))
    if is_binary(a_arr, b_arr):
        nc_low, nc_high = newcombe_ci(a_arr.sum(), a_arr.size, b_arr.sum(), b_arr.size, confidence=confidence)
        return Interval(estimate, float(nc_low), float(nc_high), n, confidence, "newcombe")
    rng = check_random_state(seed)
    boot = bootstrap_means(a_arr, n_resamples, rng) - bootstrap_means(b_arr, n_resamples, rng)
    low, high, used = _interval(estimate, boot, confidence, "percentile", None)
    skew = max(abs(_skewness(a_arr)), abs(_skewness(b_arr)))
    return Interval(estimate, low, high, n, confidence, used, bootstrap_warning(n, boot, skew))


# ---------------------------------------------------------------------------------------------
# Tests: is the difference real?


@dataclass(frozen=True)
class PairedTest:
    """A test of "no difference" between two conditions, with the effect and its interval.

    Attributes
    ----------
    effect : the difference ``mean(a) - mean(b)`` with its interval (see :func:`paired_difference`).
    p_value : two-sided p-value of the null "the conditions do not differ".
    test : "mcnemar-exact", "sign-flip" (paired), "fisher-exact" or "welch" (independent samples).
    statistic : the test's statistic (discordant pairs ``a`` wins for McNemar, the mean difference
        for the sign-flip test, the odds ratio for Fisher, t for Welch).
    """

    effect: Interval
    p_value: float
    test: str
    statistic: float

    def to_dict(self) -> dict[str, Any]:
        return {"effect": self.effect.to_dict(), "p_value": self.p_value, "test": self.test, "statistic": self.statistic}


#: Above this many nonzero paired differences the sign-flip test uses the normal limit of its
#: permutation distribution (mean 0, variance sum(d^2)) instead of drawing random flips.
SIGN_FLIP_NORMAL_ABOVE = 5_000


def _sign_flip_p(d: np.ndarray, n_permutations: int, rng: np.random.Generator) -> float:
    """Two-sided p-value of the sign-flip permutation test of mean(d) = 0: exact for up to 16
    nonzero differences, Monte Carlo (the observed assignment counted, so never 0) up to
    :data:`SIGN_FLIP_NORMAL_ABOVE`, and the normal limit of the flip distribution above."""
    d = d[d != 0]
    m = d.size
    if m == 0:
        return 1.0
    observed = abs(d.sum())
    tol = 1e-9 * max(1.0, float(np.abs(d).sum()))
    absd = np.abs(d)
    if m > SIGN_FLIP_NORMAL_ABOVE:
        return float(2 * ndtr(-observed / np.sqrt(np.sum(d * d))))
    if m <= 16:
        signs = 1 - 2 * ((np.arange(2**m)[:, None] >> np.arange(m)) & 1)
        return float(np.mean(np.abs(signs @ absd) >= observed - tol))
    hits, done = 0, 0
    per_chunk = max(1, _CHUNK_ELEMENTS // m)
    while done < n_permutations:
        k = min(per_chunk, n_permutations - done)
        signs = rng.integers(0, 2, size=(k, m), dtype=np.int8) * 2 - 1
        hits += int(np.sum(np.abs(signs @ absd) >= observed - tol))
        done += k
    return (hits + 1) / (n_permutations + 1)


def paired_test(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    *,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int | np.random.Generator | None = 0,
) -> PairedTest:
    """Test whether two conditions scored on the same examples differ, with the effect's interval.

    0/1 scores: exact McNemar test, a binomial test of the discordant pairs (only ``a`` right
    versus only ``b`` right) against 1/2. Other scores: sign-flip permutation test of the mean
    paired difference (exact up to 16 nonzero differences, ``n_resamples`` random flips up to
    5,000, the normal limit of the flip distribution above).

    >>> t = paired_test([1, 1, 1, 1, 0], [0, 0, 0, 0, 0])
    >>> t.test, t.p_value, t.effect.low < 0
    ('mcnemar-exact', 0.125, True)
    """
    effect = paired_difference(a, b, confidence=confidence, n_resamples=n_resamples, seed=seed)
    a_arr, b_arr = _as_scores(a, "a"), _as_scores(b, "b")
    if effect.method == "mover-paired":
        wins, losses = int(np.sum(a_arr > b_arr)), int(np.sum(a_arr < b_arr))
        p = 1.0 if wins + losses == 0 else float(scipy.stats.binomtest(wins, wins + losses, 0.5).pvalue)
        return PairedTest(effect, min(1.0, p), "mcnemar-exact", float(wins))
    rng = check_random_state(seed)
    p = _sign_flip_p(a_arr - b_arr, n_resamples, rng)
    return PairedTest(effect, p, "sign-flip", float(np.mean(a_arr - b_arr)))


def two_sample_test(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    *,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int | np.random.Generator | None = 0,
) -> PairedTest:
    """Test whether two independent samples differ: Fisher's exact test for 0/1 scores, Welch's
    t-test otherwise; the effect is :func:`gap`.

    >>> round(two_sample_test([1] * 10, [0] * 10).p_value, 6)
    1.1e-05
    """
    effect = gap(a, b, confidence=confidence, n_resamples=n_resamples, seed=seed)
    a_arr, b_arr = _as_scores(a, "a"), _as_scores(b, "b")
    if effect.method == "newcombe":
        k1, k2 = int(a_arr.sum()), int(b_arr.sum())
        res = scipy.stats.fisher_exact([[k1, a_arr.size - k1], [k2, b_arr.size - k2]])
        return PairedTest(effect, float(res.pvalue), "fisher-exact", float(res.statistic))
    if a_arr.size < 2 or b_arr.size < 2 or (np.ptp(a_arr) == 0 and np.ptp(b_arr) == 0):
        return PairedTest(effect, 1.0 if effect.estimate == 0 else float("nan"), "welch", float("nan"))
    with warnings.catch_warnings():  # nearly constant samples: scipy warns, the p-value is still usable
        warnings.simplefilter("ignore", RuntimeWarning)
        res = scipy.stats.ttest_ind(a_arr, b_arr, equal_var=False)
    return PairedTest(effect, float(res.pvalue), "welch", float(res.statistic))


#: Corrections for testing several comparisons at once, by the name a report prints.
ADJUSTMENTS = {"holm": "Holm (family-wise error)", "bh": "Benjamini-Hochberg (false discovery rate)"}


def adjust_pvalues(p_values: Sequence[float] | np.ndarray, method: str = "holm") -> np.ndarray:
    """P-values adjusted for testing them all at once: ``"holm"`` controls the family-wise error
    rate, ``"bh"`` (Benjamini-Hochberg) the false discovery rate. NaN stays NaN and is not counted.

    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm").round(3).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_pvalues([0.01, 0.04, 0.03], "bh").round(3).tolist()
    [0.03, 0.04, 0.04]
    """
    if method not in ADJUSTMENTS:
        raise ConfigError(f"adjust={method!r} must be one of {sorted(ADJUSTMENTS)}.")
    p = np.asarray(p_values, dtype=np.float64).ravel()
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    q = p[ok]
    m = q.size
    if m == 0:
        return out
    order = np.argsort(q, kind="stable")
    if method == "holm":
        adj = np.maximum.accumulate((m - np.arange(m)) * q[order])
    else:
        adj = np.minimum.accumulate((m / np.arange(m, 0, -1)) * q[order][::-1])[::-1]
    res = np.empty(m)
    res[order] = np.minimum(adj, 1.0)
    out[ok] = res
    return out
