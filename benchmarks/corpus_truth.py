"""The exact population value of every corpus metric under the simulation of ``bench_corpus_metrics.py``.

The simulation: a row is positive with probability ``prev``; its score ``s`` is N(1, 1) when positive
and N(0, 1) when negative, so the exact posterior log-odds are ``z = logit(prev) + s - 1/2``; the
model gives ``p = expit(k z)`` (``k = 1.5``: overconfident), predicts the positive label where
``p > 1/2`` (``z > 0``) and states the confidence ``max(p, 1 - p) = expit(k |z|)``. Its output is
right with probability ``expit(|z|)`` given ``s``.

Each metric's population value is an integral over ``s`` (one-dimensional), computed by adaptive
quadrature (``scipy.integrate.quad``) to about 1e-10, or in closed form:

==================  ===========================================================================
metric              population value
==================  ===========================================================================
auroc               P(s+ > s-) = Phi(1 / sqrt 2) (p is increasing in s)
pr_auc              average precision: E over positives of the precision at their own score
macro_f1, mcc, ...  the same formulas of the population's confusion cells, P(y, z > 0)
brier, log_loss     E (p - y)^2, E -log p(y)
ece, ece_adaptive   sum over bins of |E (conf - right) in the bin| (15 equal-width bins; 15 bins at
                    the population's confidence quantiles); here the model is overconfident at
                    every confidence, so both equal E(conf - expit |z|) whatever the bins
ece_debiased        sqrt of the sum over 15 equal-mass bins of mass x (mean conf - P(right))^2
aurc                integral over coverage c of the error rate of the c most confident
selective_accuracy  1 - that error rate at coverage 0.8
==================  ===========================================================================

What the finite-n estimators target: each is a plug-in of these (the sample's own bins, quantiles
and confusion cells), consistent for them; the plug-in ECE and average precision are biased upward
at small n by O(1/sqrt n) and O(1/n) respectively, which the coverage grid prints as ``bias/se``.

>>> round(exact_truths(0.5)["auroc"], 10)
0.7602499389
"""

from __future__ import annotations

import math
from collections.abc import Callable

from scipy.integrate import quad
from scipy.optimize import brentq
from scipy.special import expit, log_ndtr, logit, ndtr

__all__ = ["exact_truths", "TEMPER", "SHIFT"]

#: The model's probabilities are the posterior's log-odds times this (overconfident).
TEMPER = 1.5
#: Mean score of the positives (the negatives' is 0; both have unit variance).
SHIFT = 1.0
#: Bins of ece, ece_adaptive and ece_debiased (``gengap.metrics_corpus.ECE_BINS``).
N_BINS = 15
#: The coverage of selective_accuracy (``gengap.metrics_corpus.SELECTIVE_COVERAGE``).
COVERAGE = 0.8
#: Scores beyond this distance from 0 and 1 carry no mass in float64.
_REACH = 40.0


def _phi(x: float) -> float:
    return math.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


def _softplus(x: float) -> float:
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


def _integral(fn: Callable[[float], float], lo: float, hi: float, points: list[float]) -> float:
    """``quad`` of ``fn`` over [lo, hi], split at the given points inside it."""
    cuts = sorted({lo, hi, *[x for x in points if lo < x < hi]})
    return float(sum(quad(fn, a, b, epsabs=1e-14, epsrel=1e-12, limit=400)[0] for a, b in zip(cuts[:-1], cuts[1:])))


class _Model:
    """The simulation at one prevalence, as functions of the score ``s``."""

    def __init__(self, prev: float, temper: float = TEMPER, shift: float = SHIFT) -> None:
        self.prev, self.k, self.mu = prev, temper, shift
        # z = logit(prev) + mu s - mu^2 / 2 (the exact posterior log-odds); the cut z = 0 at s = t
        self.t = (shift**2 / 2 - float(logit(prev))) / shift
        self.points = [0.0, shift, self.t]
        self.lo, self.hi = -_REACH, shift + _REACH

    def z(self, s: float) -> float:
        return float(logit(self.prev)) + self.mu * s - self.mu**2 / 2

    def density(self, s: float) -> float:
        return self.prev * _phi(s - self.mu) + (1 - self.prev) * _phi(s)

    def right(self, s: float) -> float:
        """P(the output is right | s) = expit(|z|)."""
        return float(expit(abs(self.z(s))))

    def conf(self, s: float) -> float:
        return float(expit(self.k * abs(self.z(s))))

    def integral(self, fn: Callable[[float], float], lo: float | None = None, hi: float | None = None) -> float:
        return _integral(fn, self.lo if lo is None else lo, self.hi if hi is None else hi, self.points)

    # the rows more confident than |z| = a lie at s > t + a / mu and s < t - a / mu
    def beyond(self, a: float) -> float:
        """P(|z| > a): the share of rows more confident than expit(k a)."""
        up, down = self.t + a / self.mu, self.t - a / self.mu
        return float(self.prev * (ndtr(self.mu - up) + ndtr(down - self.mu)) + (1 - self.prev) * (ndtr(-up) + ndtr(down)))

    def within(self, a: float, b: float, fn: Callable[[float], float]) -> float:
        """The integral of density x fn over the rows with a < |z| <= b."""
        lo_up, hi_up = self.t + a / self.mu, self.t + b / self.mu
        lo_dn, hi_dn = self.t - b / self.mu, self.t - a / self.mu
        g = lambda s: self.density(s) * fn(s)
        return (self.integral(g, max(lo_up, self.lo), min(hi_up, self.hi)) if lo_up < self.hi else 0.0) + \
               (self.integral(g, max(lo_dn, self.lo), min(hi_dn, self.hi)) if hi_dn > self.lo else 0.0)

    def level(self, share: float) -> float:
        """The |z| above which lie ``share`` of the rows."""
        if share >= 1:
            return 0.0
        return float(brentq(lambda a: self.beyond(a) - share, 0.0, 60.0, xtol=1e-14, rtol=1e-14, maxiter=500))


def _confusion(m: _Model) -> dict[str, float]:
    tp = m.prev * float(ndtr(m.mu - m.t))
    fn = m.prev * float(ndtr(m.t - m.mu))
    fp = (1 - m.prev) * float(ndtr(-m.t))
    tn = (1 - m.prev) * float(ndtr(m.t))
    f1_pos = 2 * tp / (2 * tp + fp + fn)
    f1_neg = 2 * tn / (2 * tn + fp + fn)
    den = (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)
    return {"macro_f1": (f1_pos + f1_neg) / 2, "micro_f1": tp + tn,
            "mcc": (tp * tn - fp * fn) / math.sqrt(den) if den > 0 else 0.0,
            "balanced_accuracy": (tp / (tp + fn) + tn / (tn + fp)) / 2}


def _average_precision(m: _Model) -> float:
    log_odds_prev = math.log(m.prev / (1 - m.prev))

    def precision_at(s: float) -> float:  # P(y = 1 | score >= s), from the two classes' tails in logs
        return float(expit(log_odds_prev + log_ndtr(m.mu - s) - log_ndtr(-s)))

    return m.integral(lambda s: _phi(s - m.mu) * precision_at(s))


def _calibration(m: _Model) -> dict[str, float]:
    gap = lambda s: m.conf(s) - m.right(s)
    # equal-width bins of the confidence (c_{j-1}, c_j], c_j = j / 15; the confidence is expit(k a) at |z| = a
    cuts = [0.0] + [float(logit(j / N_BINS)) / m.k for j in range(N_BINS + 1) if 0.5 < j / N_BINS < 1] + [math.inf]
    width = sum(abs(m.within(a, b, gap)) for a, b in zip(cuts[:-1], cuts[1:]))
    # equal-mass bins: the population's confidence quantiles
    levels = [m.level(1 - j / N_BINS) for j in range(N_BINS + 1)]
    levels[-1] = math.inf
    mass = [m.within(a, b, gap) for a, b in zip(levels[:-1], levels[1:])]
    adaptive = sum(abs(x) for x in mass)
    l2 = math.sqrt(sum(N_BINS * x * x for x in mass))  # each bin holds 1/15: (x / (1/15))^2 x 1/15
    return {"ece": width, "ece_adaptive": adaptive, "ece_debiased": l2,
            "ece_unbinned": m.integral(lambda s: m.density(s) * gap(s))}


def _selective(m: _Model) -> dict[str, float]:
    def errors_beyond(a: float) -> float:  # E[wrong; |z| > a]
        return m.within(a, math.inf, lambda s: 1.0 - m.right(s))

    def error_density(a: float) -> float:  # the density of |z| at a times the error rate of the rows beyond it
        share = m.beyond(a)
        if share <= 0:
            return 0.0
        g = (m.density(m.t + a / m.mu) + m.density(m.t - a / m.mu)) / m.mu
        return g * errors_beyond(a) / share

    aurc = _integral(error_density, 0.0, _REACH, [abs(m.t - x) * m.mu for x in (0.0, m.mu)])
    a80 = m.level(COVERAGE)
    return {"aurc": aurc, "selective_accuracy": 1.0 - errors_beyond(a80) / COVERAGE}


def exact_truths(prev: float, temper: float = TEMPER, shift: float = SHIFT) -> dict[str, float]:
    """Every corpus metric's population value at prevalence ``prev`` (see the module's table).

    >>> t = exact_truths(0.1)
    >>> round(t["micro_f1"], 6), t["ece"] == t["ece"]
    (0.901336, True)
    """
    m = _Model(prev, temper, shift)
    p = lambda s: float(expit(m.k * m.z(s)))
    out = {
        "auroc": float(ndtr(shift / math.sqrt(2))),
        "auroc_quadrature": m.integral(lambda s: _phi(s - shift) * float(ndtr(s))),
        "pr_auc": _average_precision(m),
        "brier": m.integral(lambda s: prev * _phi(s - shift) * (1 - p(s)) ** 2 + (1 - prev) * _phi(s) * p(s) ** 2),
        "log_loss": m.integral(lambda s: prev * _phi(s - shift) * _softplus(-m.k * m.z(s))
                               + (1 - prev) * _phi(s) * _softplus(m.k * m.z(s))),
    }
    out.update(_confusion(m))
    out.update(_calibration(m))
    out.update(_selective(m))
    return out

