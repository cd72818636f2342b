"""Resampling a statistic of weighted rows: the bootstrap, the jackknife and the BCa interval.

A statistic here is a function of a ``(B, n)`` matrix of row weights that gives one value per row
of weights (all ones: the point value; bootstrap counts: a resample; ones with a group zeroed: a
jackknife value). Every corpus metric (:mod:`gengap.metrics_corpus`) is written that way, so one
function draws their resamples, over rows or over whole clusters:

* :func:`bootstrap_weights` - the ``(B, n)`` counts of B resamples (clusters drawn whole);
* :func:`resample_statistic` - the statistic on B resamples, in memory-sized chunks;
* :func:`jackknife_statistic` - delete-one (or delete-group, for many rows) values;
* :func:`bca_bounds` - Efron's bias-corrected and accelerated interval from the two.

>>> rng = np.random.default_rng(0)
>>> x = rng.exponential(size=200)
>>> mean = lambda W: (W @ x) / W.sum(axis=1)
>>> boot = resample_statistic(mean, 200, 2000, np.random.default_rng(1))
>>> low, high = bca_bounds(float(x.mean()), boot, jackknife_statistic(mean, 200), 0.95)
>>> bool(low < x.mean() < high)
True
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.special import ndtr, ndtri

__all__ = ["Statistic", "bootstrap_weights", "resample_statistic", "jackknife_statistic", "bca_bounds", "bca_shifted",
           "percentile_bounds", "MAX_JACKKNIFE_GROUPS"]

#: A function of a (B, n) weight matrix giving B values.
Statistic = Callable[[np.ndarray], np.ndarray]
#: The jackknife deletes one row (or cluster) at a time up to this many; above it, this many groups.
MAX_JACKKNIFE_GROUPS = 200
#: Weight-matrix elements per chunk (8 bytes each).
_CHUNK_ELEMENTS = 1 << 22


def bootstrap_weights(n: int, n_resamples: int, rng: np.random.Generator,
                      clusters: np.ndarray | None = None) -> np.ndarray:
    """A ``(n_resamples, n)`` matrix of bootstrap counts per row.

    ``clusters`` (integer codes 0..k-1, one per row): k clusters are drawn with replacement and
    every row of a drawn cluster counts once per draw, so rows of one cluster move together.

    >>> w = bootstrap_weights(4, 3, np.random.default_rng(0))
    >>> w.shape, w.sum(axis=1).tolist()
    ((3, 4), [4.0, 4.0, 4.0])
    >>> w = bootstrap_weights(4, 2, np.random.default_rng(0), clusters=np.array([0, 0, 1, 1]))
    >>> bool(np.all(w[:, 0] == w[:, 1]))
    True
    """
    k = n if clusters is None else int(clusters.max()) + 1
    draws = rng.integers(0, k, size=(n_resamples, k)) + (np.arange(n_resamples) * k)[:, None]
    counts = np.bincount(draws.ravel(), minlength=n_resamples * k).reshape(n_resamples, k).astype(np.float64)
    return counts if clusters is None else counts[:, clusters]


def resample_statistic(stat: Statistic, n: int, n_resamples: int, rng: np.random.Generator,
                       clusters: np.ndarray | None = None) -> np.ndarray:
    """``stat`` on ``n_resamples`` bootstrap resamples of ``n`` rows (or of their clusters), chunked.

    The draws depend on the seed only (one stream, chunk by chunk), never on the machine.
    """
    chunk = max(1, _CHUNK_ELEMENTS // max(n, 1))
    out = np.empty(n_resamples)
    for start in range(0, n_resamples, chunk):
        k = min(chunk, n_resamples - start)
        out[start:start + k] = stat(bootstrap_weights(n, k, rng, clusters))
    return out


def _groups(n: int, clusters: np.ndarray | None, max_groups: int) -> tuple[np.ndarray, int]:
    units = np.arange(n) if clusters is None else clusters
    k = int(units.max()) + 1
    if k <= max_groups:
        return units, k
    return units % max_groups, max_groups  # delete-group jackknife: units dealt round-robin into groups


def jackknife_statistic(stat: Statistic, n: int, clusters: np.ndarray | None = None, *,
                        max_groups: int = MAX_JACKKNIFE_GROUPS) -> np.ndarray:
    """``stat`` with each row (or cluster) left out in turn; above ``max_groups`` units, each of
    ``max_groups`` groups of units left out (a delete-group jackknife: enough for BCa's acceleration).

    >>> jackknife_statistic(lambda W: W @ np.arange(4.0) / W.sum(axis=1), 4).tolist()
    [2.0, 1.6666666666666667, 1.3333333333333333, 1.0]
    """
    groups, k = _groups(n, clusters, max_groups)
    chunk = max(1, _CHUNK_ELEMENTS // max(n, 1))
    out = np.empty(k)
    for start in range(0, k, chunk):
        g = np.arange(start, min(k, start + chunk))
        out[start:start + g.size] = stat((groups[None, :] != g[:, None]).astype(np.float64))
    return out


def percentile_bounds(boot: np.ndarray, confidence: float) -> tuple[float, float]:
    """The percentile interval's bounds (finite resamples only)."""
    alpha = (1 - confidence) / 2
    low, high = np.quantile(boot[np.isfinite(boot)], [alpha, 1 - alpha])
    return float(low), float(high)


def bca_bounds(estimate: float, boot: np.ndarray, jackknife: np.ndarray, confidence: float) -> tuple[float, float]:
    """Efron's BCa bounds: the bootstrap quantiles moved by the bias correction ``z0`` (the share of
    resamples below the estimate, ties counting half) and the acceleration ``a`` (the skewness of
    the jackknife values). Falls back to the percentile bounds when either is undefined.
    """
    jack = jackknife[np.isfinite(jackknife)]
    d = jack.mean() - jack if jack.size > 1 else np.zeros(1)
    den = 6.0 * np.sum(d**2) ** 1.5
    return bca_shifted(estimate, boot, float(np.sum(d**3) / den) if den > 0 else 0.0, confidence)


def bca_shifted(estimate: float, boot: np.ndarray, acceleration: float, confidence: float) -> tuple[float, float]:
    """The BCa bounds of ``boot`` (finite resamples only) for a known ``acceleration``: its quantiles
    moved by the bias correction ``z0`` (the share of resamples below ``estimate``, ties counting half)."""
    finite = boot[np.isfinite(boot)]
    alpha = (1 - confidence) / 2
    prop = (np.sum(finite < estimate) + 0.5 * np.sum(finite == estimate)) / finite.size
    z0 = float(ndtri(np.clip(prop, 1 / (2 * finite.size), 1 - 1 / (2 * finite.size))))
    z = ndtri(np.array([alpha, 1 - alpha]))
    shifted = z0 + (z0 + z) / (1 - acceleration * (z0 + z))
    levels = np.clip(ndtr(shifted), 0.0, 1.0)
    low, high = np.quantile(finite, levels)
    return float(low), float(high)
