"""Monotone (isotonic) fits of many curves at once, and where a fitted curve crosses a level.

A bootstrap of a curve gives thousands of resampled curves of a few dozen bins each; fitting them
one by one with a pool-adjacent-violators loop costs more than the resampling. Here the
decreasing isotonic fit uses its min-max characterization (Barlow et al. 1972),

    f_i = min_{s <= i} max_{t >= i} mean_w(y_s, ..., y_t),

computed for a block of curves with cumulative sums: O(K^2) per curve, all in numpy.

>>> import numpy as np
>>> decreasing_isotonic(np.array([[0.9, 1.0, 0.5, 0.6, 0.1]]), np.ones(5)).round(2).tolist()
[[0.95, 0.95, 0.55, 0.55, 0.1]]
"""

from __future__ import annotations

import numpy as np

__all__ = ["decreasing_isotonic", "first_crossing"]

#: Curves fitted per block (keeps the K x K intermediate arrays small).
_BLOCK_ELEMENTS = 1 << 22


def decreasing_isotonic(y: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Weighted least-squares non-increasing fit of each row of ``y`` (shape (n_curves, n_bins)).

    ``weights`` has shape (n_bins,), e.g. the examples per bin; it is the same for every row.
    The result equals scikit-learn's ``isotonic_regression(row, sample_weight=weights,
    increasing=False)`` row by row.
    """
    y = np.atleast_2d(np.asarray(y, dtype=np.float64))
    w = np.asarray(weights, dtype=np.float64)
    n_curves, k = y.shape
    if w.shape != (k,):
        raise ValueError(f"weights has shape {w.shape}, expected ({k},).")
    out = np.empty_like(y)
    cw = np.concatenate([[0.0], np.cumsum(w)])
    wsum = cw[None, 1:] - cw[:-1, None]  # (s, t): weight of bins s..t
    upper = np.triu(np.ones((k, k), dtype=bool))
    with np.errstate(invalid="ignore", divide="ignore"):
        inv = np.where(upper, 1.0 / wsum, np.nan)
    block = max(1, _BLOCK_ELEMENTS // (k * k))
    for start in range(0, n_curves, block):
        yb = y[start:start + block]
        cy = np.concatenate([np.zeros((yb.shape[0], 1)), np.cumsum(yb * w, axis=1)], axis=1)
        means = (cy[:, None, 1:] - cy[:, :-1, None]) * inv  # (b, s, t), NaN where t < s
        means = np.where(upper, means, -np.inf)
        # C(s, i) = max_{t >= i} mean(s, t): a running max from the right along t
        c = np.maximum.accumulate(means[:, :, ::-1], axis=2)[:, :, ::-1]
        c = np.where(upper, c, np.inf)  # only s <= i counts
        out[start:start + block] = c.min(axis=1)
    return out


def first_crossing(x: np.ndarray, fit: np.ndarray, level: np.ndarray) -> np.ndarray:
    """Axis value where each non-increasing row of ``fit`` first reaches ``level`` (linear between bins).

    ``x`` holds the bins' axis values (shape (n_bins,), increasing), ``level`` one value per row.
    A row that is at or below its level at the first bin gives ``x[0]``; one that never reaches it
    gives ``inf`` (beyond the tested range).

    >>> import numpy as np
    >>> first_crossing(np.array([1.0, 2.0, 3.0]), np.array([[1.0, 0.6, 0.2]]), np.array([0.4])).tolist()
    [2.5]
    """
    x = np.asarray(x, dtype=np.float64)
    fit = np.atleast_2d(fit)
    level = np.asarray(level, dtype=np.float64).reshape(-1)
    below = fit <= level[:, None]
    hit = below.any(axis=1)
    j = np.argmax(below, axis=1)
    prev = np.maximum(j - 1, 0)
    rows = np.arange(fit.shape[0])
    f0, f1 = fit[rows, prev], fit[rows, j]
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.where(f0 > f1, (f0 - level) / (f0 - f1), 1.0)
    value = x[prev] + np.clip(frac, 0.0, 1.0) * (x[j] - x[prev])
    value = np.where(j == 0, x[0], value)
    return np.where(hit, value, np.inf)
