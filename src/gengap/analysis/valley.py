"""The generalization valley: the ID-OOD gap per complexity level, and the critical complexity.

Scylla (Qi et al. 2024, "Quantifying Generalization Complexity for Large Language Models") scores
a model at rising complexity levels on an in-distribution (ID) part and an out-of-distribution
(OOD) part of the same task; the gap ID minus OOD first grows, then shrinks as both fall, and the
level where it peaks — the *critical complexity* — marks where the model leans most on what it has
seen. :func:`generalization_valley` computes the gap per level with intervals and the critical
complexity with a bootstrap interval (examples resampled within each level and part);
:func:`valleys_from_rows` does it per model for a run's rows, so the peaks of several models can
be compared (does the peak move up with size?).

The ID and OOD parts are taken as independent samples (different items).

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> level = np.repeat([1, 2, 3, 4, 5], 400)
>>> part = np.tile(np.repeat(["id", "ood"], 200), 5)
>>> p_id, p_ood = np.array([0.99, 0.95, 0.9, 0.6, 0.2]), np.array([0.95, 0.7, 0.3, 0.2, 0.1])
>>> p = np.where(part == "id", p_id[level - 1], p_ood[level - 1])
>>> v = generalization_valley(rng.random(2000) < p, level, part, n_resamples=2000)
>>> v.critical, v.to_table()["n_id"].tolist()
(3.0, [200, 200, 200, 200, 200])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from gengap._errors import ConfigError, DataError
from gengap._random import check_random_state
from gengap.analysis.curves import _plain, axis_values
from gengap.analysis.intervals import bootstrap_means, proportion_ci

__all__ = ["Valley", "generalization_valley", "valleys_from_rows", "VALLEY_COLUMNS"]

#: Columns of :meth:`Valley.to_table`, in order.
VALLEY_COLUMNS = ["level", "n_id", "id_score", "id_low", "id_high", "n_ood", "ood_score", "ood_low", "ood_high",
                  "gap", "gap_low", "gap_high", "peak_share"]


@dataclass(frozen=True)
class Valley:
    """ID and OOD scores and their gap per complexity level, and the level where the gap peaks.

    Attributes
    ----------
    levels : one row per level, columns :data:`VALLEY_COLUMNS` (``gap`` = ID score - OOD score;
        ``peak_share``: the share of bootstrap resamples whose gap peaks at that level).
    critical : the level with the largest gap (the first of equals).
    critical_low, critical_high : its bootstrap percentile interval (levels).
    peak_gap : the gap at the critical level.
    """

    levels: pd.DataFrame = field(repr=False)
    critical: float
    critical_low: float
    critical_high: float
    peak_gap: float
    interval: str
    confidence: float = 0.95
    n_resamples: int = 10_000
    model: str | None = None
    metric: str | None = None

    def to_table(self) -> pd.DataFrame:
        """The levels as a table (columns :data:`VALLEY_COLUMNS`)."""
        return self.levels.copy()

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able values, with ``levels`` as a list of records."""
        out = {k: _plain(getattr(self, k)) for k in ("model", "metric", "critical", "critical_low", "critical_high",
                                                     "peak_gap", "interval", "confidence", "n_resamples")}
        out["levels"] = [{k: _plain(v) for k, v in r.items()} for r in self.levels.to_dict("records")]
        return out

    def __str__(self) -> str:
        return (f"Valley over {len(self.levels)} levels: the ID-OOD gap peaks at level {self.critical:g} "
                f"[{self.critical_low:g}, {self.critical_high:g}] with {self.peak_gap:.3f}")


def _part_stats(s: np.ndarray, idx: np.ndarray, k: int, binary: bool, confidence: float, n_resamples: int,
                rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    n = np.bincount(idx, minlength=k).astype(np.float64)
    if (n == 0).any():
        return n, None, None, None, None  # type: ignore[return-value]
    sums = np.bincount(idx, weights=s, minlength=k)
    mean = sums / n
    if binary:
        boot = rng.binomial(n.astype(np.int64), mean, size=(n_resamples, k)) / n
        low, high = proportion_ci(sums, n, confidence=confidence)
    else:
        streams = rng.spawn(k)
        boot = np.stack([bootstrap_means(s[idx == b], n_resamples, streams[b]) for b in range(k)], axis=1)
        a = (1 - confidence) / 2
        low, high = np.quantile(boot, [a, 1 - a], axis=0)
    return n, mean, low, high, boot


def generalization_valley(
    scores: Sequence[float] | np.ndarray,
    level: Sequence[float] | np.ndarray,
    part: Sequence[str] | np.ndarray,
    *,
    id_label: str = "id",
    ood_label: str = "ood",
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int | np.random.Generator | None = 0,
    model: str | None = None,
    metric: str | None = None,
) -> Valley:
    """The ID-OOD gap per complexity level with intervals, and the critical complexity (its argmax).

    Parameters
    ----------
    scores : array-like of shape (n_examples,), per-example scores (0/1 or continuous).
    level : array-like of shape (n_examples,), each example's complexity level (numeric).
    part : array-like of shape (n_examples,), ``id_label`` or ``ood_label`` per example.

    Notes
    -----
    Per-level score intervals: Clopper-Pearson for 0/1 scores, percentile bootstrap otherwise; gap
    intervals and the critical complexity's interval: percentile bootstrap, examples resampled
    within each (level, part) cell, the argmax taken on every resampled gap curve.
    """
    if not 0 < confidence < 1:
        raise ConfigError(f"confidence={confidence!r} must be in (0, 1).")
    if n_resamples < 100:
        raise ConfigError(f"n_resamples={n_resamples!r} is too few; use at least 1,000.")
    s = np.asarray(scores, dtype=np.float64).ravel()
    try:
        lv = np.asarray(level, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        raise DataError("The complexity level is not numeric; give a number per example (1, 2, 3, ...).") from None
    pt = np.asarray(part).astype(str).ravel()
    if not (s.size == lv.size == pt.size):
        raise DataError(f"Got {s.size} scores, {lv.size} levels and {pt.size} parts; give one of each per example.")
    if np.isnan(s).any() or np.isnan(lv).any():
        raise DataError("Scores and levels must not hold NaN; drop those examples first.")
    other = sorted(set(pt) - {id_label, ood_label})
    if other:
        raise DataError(f"part holds {other[:5]}; every example must be '{id_label}' or '{ood_label}' "
                        "(name others with id_label= / ood_label=).")
    levels, idx = np.unique(lv, return_inverse=True)
    k = levels.size
    binary = bool(np.isin(s, (0.0, 1.0)).all())
    rng = check_random_state(seed)
    rid, rood = rng.spawn(2)
    is_id = pt == id_label
    n_id, m_id, lo_id, hi_id, b_id = _part_stats(s[is_id], idx[is_id], k, binary, confidence, n_resamples, rid)
    n_ood, m_ood, lo_ood, hi_ood, b_ood = _part_stats(s[~is_id], idx[~is_id], k, binary, confidence, n_resamples, rood)
    missing = [f"{levels[j]:g} ({name})" for n, name in ((n_id, id_label), (n_ood, ood_label)) for j in np.flatnonzero(n == 0)]
    if missing:
        raise DataError(f"Every level needs both an ID and an OOD part; missing: {', '.join(missing[:8])}.")
    gap = m_id - m_ood
    boot_gap = b_id - b_ood
    a = (1 - confidence) / 2
    g_low, g_high = np.quantile(boot_gap, [a, 1 - a], axis=0)
    argmax = np.argmax(boot_gap, axis=1)
    share = np.bincount(argmax, minlength=k) / n_resamples
    crit_lo, crit_hi = np.quantile(levels[argmax], [a, 1 - a], method="inverted_cdf")
    j = int(np.argmax(gap))
    table = pd.DataFrame({
        "level": levels, "n_id": n_id.astype(np.int64), "id_score": m_id, "id_low": lo_id, "id_high": hi_id,
        "n_ood": n_ood.astype(np.int64), "ood_score": m_ood, "ood_low": lo_ood, "ood_high": hi_ood,
        "gap": gap, "gap_low": g_low, "gap_high": g_high, "peak_share": share,
    }, columns=VALLEY_COLUMNS)
    return Valley(levels=table, critical=float(levels[j]), critical_low=float(crit_lo), critical_high=float(crit_hi),
                  peak_gap=float(gap[j]), interval="clopper-pearson" if binary else "bootstrap", confidence=confidence,
                  n_resamples=n_resamples, model=model, metric=metric)


def valleys_from_rows(
    rows: pd.DataFrame,
    *,
    level: str = "level",
    part: str = "part",
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> list[Valley]:
    """One valley per (model, metric) of per-example rows whose metadata holds ``level`` and ``part``.

    Clean rows of every split are pooled; an example scored in two splits counts once.
    """
    clean = rows[rows["perturbation"] == "none"] if "perturbation" in rows else rows
    if "example_id" in clean:
        clean = clean.drop_duplicates(["model", "metric", "example_id"])
    if clean.empty:
        raise DataError("No scored rows to compute a valley from.")
    lv = pd.Series(axis_values(clean, level), index=clean.index)
    if part in clean.columns:
        pt = clean[part].astype(str)
    else:
        import json

        pt = pd.Series([str((json.loads(m) if isinstance(m, str) else (m or {})).get(part)) for m in clean["metadata"]],
                       index=clean.index)
    out = []
    for (model, metric), g in clean.groupby(["model", "metric"], sort=True):
        out.append(generalization_valley(g["score"].to_numpy(), lv[g.index].to_numpy(), pt[g.index].to_numpy(),
                                         confidence=confidence, n_resamples=n_resamples, seed=seed,
                                         model=str(model), metric=str(metric)))
    return out
