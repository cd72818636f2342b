"""How many examples a comparison needs, and the smallest gap a run could have detected.

:func:`n_for_gap` answers before a run: the examples each of two splits needs so that a gap of
``gap`` below a score of ``score`` is detected with probability ``power`` by the test gengap runs
on it, at the two-sided level ``alpha``:

- two independent splits (Fisher's exact test): Fleiss, Tytun and Ury's (1980) sample size with its
  continuity correction, which tracks the exact test's power;
- the same examples in both (``paired=True``, exact McNemar): the smallest n whose exact power,
  summed over the binomial number of discordant pairs, reaches ``power`` (starting from Connor's
  1987 normal formula); ``discordant`` is the share of examples the two conditions score differently;
- rows in clusters of ``cluster_size`` with intraclass correlation ``icc``: the normal-theory n
  times the design effect ``1 + (cluster_size - 1) * icc``, with t quantiles on the clusters'
  degrees of freedom (the clustered tests refer their statistic to t).

:func:`detectable_gap` answers after a run: from a gap's interval, the smallest gap the run had
``power`` to detect (the minimum detectable effect, ``(z_{1-alpha/2} + z_power) * SE``), and
:func:`n_needed` the examples needed for a gap of a given size.

>>> n_for_gap(0.70, 0.05)
1417
>>> n_for_gap(0.70, 0.05, paired=True, discordant=0.2)
658
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import scipy.stats
from scipy.special import ndtri

from gengap._errors import ConfigError

__all__ = ["Plan", "plan", "n_for_gap", "detectable_gap", "n_needed", "paired_power"]


def _check(score: float, gap: float, power: float, alpha: float, discordant: float | None, icc: float,
           cluster_size: int) -> None:
    if not 0 < score <= 1:
        raise ConfigError(f"score={score!r} must be a rate in (0, 1] (0.70 for 70%).")
    if gap == 0:
        raise ConfigError("gap=0: no number of examples detects a gap of 0; ask for the smallest gap that matters.")
    if not 0 <= score - gap <= 1:
        raise ConfigError(f"A gap of {gap * 100:g} points from a score of {score * 100:g}% would put the other split at "
                          f"{(score - gap) * 100:g}%, outside 0-100%; the largest gap this score allows is "
                          f"{score * 100:g} points.")
    if not 0 < power < 1 or not 0 < alpha < 1:
        raise ConfigError(f"power={power!r} and alpha={alpha!r} must both be in (0, 1), e.g. 0.8 and 0.05.")
    if discordant is not None and not abs(gap) <= discordant <= 1:
        raise ConfigError(f"discordant={discordant!r} must be in [gap, 1]: a paired gap of {abs(gap):g} needs at least "
                          f"that share of examples scored differently.")
    if not 0 <= icc < 1:
        raise ConfigError(f"icc={icc!r} must be in [0, 1).")
    if cluster_size < 1:
        raise ConfigError(f"cluster_size={cluster_size!r} must be at least 1.")


def paired_power(n: int, discordant: float, gap: float, alpha: float = 0.05) -> float:
    """Exact power of the two-sided exact McNemar test on ``n`` pairs with discordance ``discordant``
    and paired gap ``gap`` (the rate only ``a`` gets right minus the rate only ``b`` does).

    >>> round(paired_power(658, 0.2, 0.05), 3)
    0.801
    """
    d = np.arange(n + 1)
    theta = (discordant + abs(gap)) / (2 * discordant)
    # largest k with 2 * P(X <= k | D, 1/2) <= alpha: the exact test rejects at k <= c or k >= D - c
    c = scipy.stats.binom.ppf(alpha / 2, d, 0.5)
    c = np.where(scipy.stats.binom.cdf(c, d, 0.5) * 2 <= alpha, c, c - 1)
    reject = np.where(c >= 0, scipy.stats.binom.cdf(c, d, theta) + scipy.stats.binom.sf(d - c - 1, d, theta), 0.0)
    return float(np.dot(scipy.stats.binom.pmf(d, n, discordant), reject))


def n_for_gap(score: float, gap: float, *, power: float = 0.8, alpha: float = 0.05, paired: bool = False,
              discordant: float | None = None, icc: float = 0.0, cluster_size: int = 1) -> int:
    """Examples per split for ``power`` to detect a gap of ``gap`` (a rate: 0.05 is 5 points) below ``score``.

    >>> n_for_gap(0.70, 0.05, icc=0.1, cluster_size=30)
    5400
    """
    if paired and discordant is None:
        raise ConfigError("A paired plan needs the share of examples the two conditions score differently "
                          "(discordant=0.2, --discordant 0.2), or a pilot run to read it from.")
    _check(score, gap, power, alpha, discordant if paired else None, icc, cluster_size)
    d = abs(gap)
    za, zb = float(ndtri(1 - alpha / 2)), float(ndtri(power))
    deff = 1 + (cluster_size - 1) * icc
    if paired:
        assert discordant is not None
        n0 = (za * math.sqrt(discordant) + zb * math.sqrt(discordant - d * d)) ** 2 / (d * d)
        if deff > 1 or cluster_size > 1:
            return _clustered_n(n0, deff, cluster_size, alpha, power, 1)
        n = max(2, int(n0 * 0.9))
        while paired_power(n, discordant, d, alpha) < power:
            n += max(1, n // 200)
        while n > 2 and paired_power(n - 1, discordant, d, alpha) >= power:
            n -= 1
        return n
    p1, p2 = score, score - gap
    pbar = (p1 + p2) / 2
    n0 = (za * math.sqrt(2 * pbar * (1 - pbar)) + zb * math.sqrt(p1 * (1 - p1) + p2 * (1 - p2))) ** 2 / (d * d)
    if cluster_size > 1:
        return _clustered_n(n0, deff, cluster_size, alpha, power, 2)
    return int(math.ceil(n0 / 4 * (1 + math.sqrt(1 + 4 / (n0 * d))) ** 2))


def _clustered_n(n0: float, deff: float, m: int, alpha: float, power: float, sides: int) -> int:
    """``n0 * deff`` with z replaced by t on the clusters' degrees of freedom (a few fixed-point steps)."""
    za, zb = float(ndtri(1 - alpha / 2)), float(ndtri(power))
    n = n0 * deff
    for _ in range(20):
        g = max(2.0, n / m)
        df = max(1.0, sides * (g - 1))
        ta, tb = scipy.stats.t.ppf(1 - alpha / 2, df), scipy.stats.t.ppf(power, df)
        n = n0 * deff * ((ta + tb) / (za + zb)) ** 2
    return int(math.ceil(math.ceil(n / m) * m))


def detectable_gap(low: float, high: float, *, confidence: float = 0.95, power: float = 0.8, alpha: float = 0.05) -> float:
    """The smallest gap a comparison with the interval ``[low, high]`` had ``power`` to detect:
    ``(z_{1-alpha/2} + z_power) * SE``, with SE read off the interval (half its width over z).

    >>> round(detectable_gap(-0.05, 0.05), 4)
    0.0715
    """
    se = (high - low) / (2 * float(ndtri(1 - (1 - confidence) / 2)))
    return float((ndtri(1 - alpha / 2) + ndtri(power)) * se)


def n_needed(n: int, detectable: float, gap: float) -> int:
    """Examples (or clusters) needed for ``gap`` when ``n`` of them detect ``detectable``:
    the standard error shrinks as one over the root of n.

    >>> n_needed(400, 0.07, 0.035)
    1600
    """
    if gap <= 0:
        raise ConfigError(f"gap={gap!r} must be positive (in points: --gap 3 is three points).")
    return int(math.ceil(n * (detectable / gap) ** 2 - 1e-9))


@dataclass(frozen=True)
class Plan:
    """A sample-size plan: the design asked and the examples (and clusters) each split needs."""

    n_per_split: int
    n_clusters_per_split: int | None
    score: float
    gap: float
    power: float
    alpha: float
    paired: bool
    discordant: float | None
    icc: float
    cluster_size: int
    design_effect: float
    test: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def describe(self) -> str:
        """One plain sentence: ``'1,417 examples per split detect a 5-point gap below 70% ...'``."""
        what = "examples, each scored in both conditions," if self.paired else "examples per split"
        clusters = (f" ({self.n_clusters_per_split:,} clusters of {self.cluster_size}; design effect "
                    f"{self.design_effect:.2f})" if self.n_clusters_per_split else "")
        return (f"{self.n_per_split:,} {what}{clusters} detect a {self.gap * 100:g}-point gap below {self.score:.0%} "
                f"with {self.power:.0%} power at the {self.alpha:.0%} level, two-sided ({self.test}).")


def plan(score: float, gap: float, *, power: float = 0.8, alpha: float = 0.05, paired: bool = False,
         discordant: float | None = None, icc: float = 0.0, cluster_size: int = 1) -> Plan:
    """:func:`n_for_gap` with the design it assumed, for printing or JSON.

    >>> plan(0.70, 0.05).describe()
    '1,417 examples per split detect a 5-point gap below 70% with 80% power at the 5% level, two-sided (fisher-exact).'
    """
    n = n_for_gap(score, gap, power=power, alpha=alpha, paired=paired, discordant=discordant, icc=icc,
                  cluster_size=cluster_size)
    clustered = cluster_size > 1
    test = ("cluster-sign-flip" if paired else "cluster-score") if clustered else ("mcnemar-exact" if paired else "fisher-exact")
    return Plan(n, n // cluster_size if clustered else None, score, gap, power, alpha, paired, discordant if paired else None,
                icc, cluster_size, 1 + (cluster_size - 1) * icc, test)
