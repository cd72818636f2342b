"""Where a corpus metric fails: the slice search of :mod:`gengap.analysis.slices` for figures that are
not means of per-example scores (AUROC, F1, MCC, calibration error, ...).

A slice's figure is the metric computed on its own rows; its gap is that figure minus the metric of
the rest of the split. Such gaps have no exact test, and their null distribution depends on the
slice's size (ECE of 40 rows is biased upward; the AUROC of a small slice swings widely), so each
slice is tested by **permutation**: under "this slice is like any other set of its size", the gap of
a random set of rows of the same size (with clusters, of whole clusters) is drawn many times, and
the one-sided p-value is the share of random sets that do at least as badly ("worse": lower for a
score, higher for a loss or an error). Two stages keep that affordable over hundreds of slices:

1. a screen: the null's mean and spread are measured at :data:`N_SIZES` sizes spread over the
   candidates' sizes (:data:`N_PERMUTATIONS` random sets each), read off at each slice's size
   (linear in log size), and the normal tail at ``(gap - null mean) / null sd`` gives an
   approximate p-value. It is not trusted in the tail (a small slice's AUROC near 1 is skewed);
2. every slice whose approximate p is below :data:`SCREEN` gets a Monte Carlo permutation p-value
   at its own size, drawn until :data:`STOP_AFTER` random sets do as badly (Besag and Clifford's
   sequential p-value) or until ``2 x slices / (alpha x R)`` sets are drawn, where R is the count
   of slices the screen would call significant (at least 1): fine enough for Benjamini-Hochberg
   to confirm half of them, and for its first threshold when the screen finds one or none.

With ``control="split"`` the same test runs on one half of the rows (slices of at least ``min_n / 2``
rows there) and again, for those below ``alpha``, on the other half, as the mean-score search does.

``benchmarks/bench_slices.py --corpus`` measures the false discoveries on null data and the recall
of planted slices, beside the naive search.

Metrics whose figure on a subset equals the figure of the whole part with the other rows weighted 0
(binary AUROC and average precision, Brier, log loss, ECE, AURC, selective accuracy, micro-F1, MCC,
balanced accuracy, BLEU, chrF: :data:`WEIGHT_EXACT`) compute every slice and every permutation at
once through the metric's weighted statistic; the others (macro-F1, whose labels are those present
in the slice, adaptive ECE, several-label AUROC) are computed on each subset's rows.

The intervals of a reported slice are those of :func:`gengap.analysis.corpus.corpus_score` (its
figure) and :func:`gengap.analysis.corpus.corpus_gap` (independent parts: the gap); the rule that lets
a conjunction stand for its parts compares rows with the one-sided :func:`corpus_gap` test.

>>> import numpy as np, pandas as pd
>>> rng = np.random.default_rng(0)
>>> n = 3000
>>> meta = pd.DataFrame({"site": rng.choice(["a", "b", "c"], n), "lang": rng.choice(["en", "es"], n)})
>>> y = rng.integers(0, 2, n)
>>> noise = np.where((meta["site"] == "b") & (meta["lang"] == "es"), 0.6, 0.2)  # a blurred slice
>>> p = np.clip(0.5 + (y - 0.5) * 0.4 + rng.normal(0, noise), 0.01, 0.99)
>>> rows = pd.DataFrame({"target": y.astype(str), "output": (p > 0.5).astype(int).astype(str),
...                      "confidence": np.where(p > 0.5, p, 1 - p)})
>>> found = find_corpus_slices(meta, rows, "auroc", n_resamples=500)
>>> found.significant["description"].tolist()
['site = b and lang = es']
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import scipy.stats

from gengap._errors import ConfigError, DataError
from gengap._random import check_random_state
from gengap.analysis._slice_core import (
    MAX_VALUES,
    MIN_SLICE_N,
    N_BINS,
    SLICE_COLUMNS,
    SMALL_RUN,
    SliceSearch,
    _check_options,
    _enumerate,
    _explain,
    _features,
    _mask,
    detection_z,
    discovery_half,
    what_it_can_detect,
)
from gengap.analysis.corpus import corpus_data, corpus_gap, corpus_score
from gengap.analysis.intervals import adjust_pvalues
from gengap.metrics import get_metric
from gengap.metrics_corpus import CorpusData, CorpusMetric, positive_label

__all__ = ["find_corpus_slices", "is_corpus_metric", "N_PERMUTATIONS", "N_SIZES", "WEIGHT_EXACT"]

#: Random sets drawn at each size to measure the null distribution of a slice's gap.
N_PERMUTATIONS = 200
#: Sizes at which the null is measured (spread over the candidates' sizes, log scale).
N_SIZES = 10
#: Random sets behind the smallest gap a run under SMALL_RUN rows can find (its note's figure).
DETECT_DRAWS = 2_000
#: Slices whose approximate p-value is below this get a Monte Carlo permutation p-value of their own.
SCREEN = 0.1
#: Exceedances that stop a slice's permutations early (Besag and Clifford's sequential p-value).
STOP_AFTER = 10
#: Metrics whose figure on a subset is the whole part's weighted figure with weight 0 elsewhere
#: (AUROC and average precision only with two labels or a named positive one).
WEIGHT_EXACT = frozenset({"auroc", "pr_auc", "brier", "log_loss", "ece", "aurc", "selective_accuracy", "micro_f1",
                          "mcc", "balanced_accuracy", "bleu", "chrf"})
#: Cells of a weight matrix evaluated at once (rows x candidates).
_CHUNK = 1 << 22


def is_corpus_metric(metric: str) -> bool:
    """True when ``metric`` names a corpus metric (its slices need :func:`find_corpus_slices`).

    >>> is_corpus_metric("auroc"), is_corpus_metric("exact_match")
    (True, False)
    """
    try:
        return isinstance(get_metric(metric), CorpusMetric)
    except Exception:  # an unknown name: not ours to judge here
        return False


def _subset(data: CorpusData, idx: np.ndarray) -> CorpusData:
    return CorpusData(data.y_true[idx], data.y_pred[idx], data.correct[idx], data.confidence[idx],
                      [data.probabilities[i] for i in idx], [data.row_names[i] for i in idx] if data.row_names else [])


def _fixed_positive(m: CorpusMetric, data: CorpusData) -> CorpusMetric:
    """The split's positive class named in the metric, so every slice ranks the same class."""
    if m.name in ("auroc", "pr_auc", "brier", "log_loss") and m.options.get("positive") is None:
        labels = data.labels()
        if len(labels) == 2:
            return m.with_options(positive=positive_label(labels, metric=m.spec))
    return m


def _weight_exact(m: CorpusMetric, data: CorpusData) -> bool:
    if m.name not in WEIGHT_EXACT:
        return False
    return m.name not in ("auroc", "pr_auc") or m.options.get("positive") is not None


class _Gaps:
    """The metric of many row sets and of their complements, each set given as row positions or a mask."""

    def __init__(self, m: CorpusMetric, data: CorpusData) -> None:
        self.m, self.data, self.n = m, data, len(data)
        self.stat = m.statistic(data) if _weight_exact(m, data) else None

    def of_masks(self, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(metric inside, metric outside) for each row of the (k, n) boolean ``masks``; NaN where undefined."""
        inside, outside = np.full(len(masks), np.nan), np.full(len(masks), np.nan)
        if self.stat is not None:
            step = max(1, _CHUNK // max(self.n, 1))
            for start in range(0, len(masks), step):
                w = masks[start:start + step].astype(np.float64)
                with np.errstate(invalid="ignore", divide="ignore"):
                    inside[start:start + step] = self.stat(w)
                    outside[start:start + step] = self.stat(1.0 - w)
            return inside, outside
        for i, mask in enumerate(masks):
            inside[i], outside[i] = self._point(np.flatnonzero(mask)), self._point(np.flatnonzero(~mask))
        return inside, outside

    def _point(self, idx: np.ndarray) -> float:
        try:
            return float(self.m.point(_subset(self.data, idx)))
        except DataError:  # one class only, too few labels: undefined on these rows
            return float("nan")


def _random_sets(n: int, size: int, count: int, rng: np.random.Generator, clusters: np.ndarray | None) -> np.ndarray:
    """``count`` random row sets of about ``size`` rows as a (count, n) mask (whole clusters with ``clusters``)."""
    masks = np.zeros((count, n), dtype=bool)
    if clusters is None:
        for b in range(count):
            masks[b, rng.choice(n, size, replace=False)] = True
        return masks
    sizes = np.bincount(clusters)
    for b in range(count):
        order = rng.permutation(len(sizes))
        take = order[: int(np.searchsorted(np.cumsum(sizes[order]), size)) + 1]
        masks[b] = np.isin(clusters, take)
    return masks


def _null(gaps: _Gaps, sizes: np.ndarray, n_permutations: int, n_sizes: int, rng: np.random.Generator,
          clusters: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Null mean and sd of the gap of a random set of each of ``sizes`` (measured on a log grid)."""
    n = gaps.n
    lo, hi = float(sizes.min()), float(sizes.max())
    grid = np.unique(np.round(np.geomspace(lo, hi, n_sizes) if hi > lo else np.array([lo])).astype(int))
    at, means, sds = [], [], []
    for size in grid:
        masks = _random_sets(n, int(size), n_permutations, rng, clusters)
        inside, outside = gaps.of_masks(masks)
        d = inside - outside
        ok = np.isfinite(d)
        if ok.sum() < 10:
            continue
        at.append(math.log(float(masks[ok].sum(axis=1).mean())))
        means.append(float(d[ok].mean()))
        sds.append(math.log(max(float(d[ok].std(ddof=1)), 1e-12)))
    if not at:
        return np.full(len(sizes), np.nan), np.full(len(sizes), np.nan)
    order = np.argsort(at)
    x, mu, ls = np.asarray(at)[order], np.asarray(means)[order], np.asarray(sds)[order]
    where = np.log(sizes.astype(np.float64))
    return np.interp(where, x, mu), np.exp(np.interp(where, x, ls))


def _permutation_p(m: CorpusMetric, rows: pd.DataFrame, part: np.ndarray | None, masks: np.ndarray, least: int,
                   alpha: float, worse: float, n_permutations: int, n_sizes: int, rng: np.random.Generator,
                   clusters: np.ndarray | None, *, gaps: _Gaps | None = None, sizes: np.ndarray | None = None,
                   observed: np.ndarray | None = None) -> np.ndarray:
    """One-sided permutation p-value of each slice (row of ``masks``) among the rows ``part`` (all
    when None); NaN for a slice with fewer than ``least`` rows there (or outside it) or whose metric
    is undefined there."""
    if gaps is None or sizes is None or observed is None:
        sub = rows if part is None else rows[part].reset_index(drop=True)
        gaps = _Gaps(m, corpus_data(sub))
        masks = masks if part is None else masks[:, part]
        clusters = clusters if clusters is None or part is None else clusters[part]
        sizes = masks.sum(axis=1).astype(np.int64)
        inside, outside = gaps.of_masks(masks)
        observed = inside - outside
        observed[(sizes < least) | (gaps.n - sizes < least)] = np.nan
    p = np.full(len(masks), np.nan)
    use = np.isfinite(observed) if part is not None else np.ones(len(sizes), dtype=bool)
    if not use.any():
        return p
    mu, sd = _null(gaps, sizes[use], n_permutations, n_sizes, rng, clusters)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = worse * (observed[use] - mu) / sd
    p[use] = np.where(np.isfinite(z), scipy.stats.norm.sf(z), np.nan)
    # the normal tail is only a screen (AUROC near 1 and ECE are skewed): the slices it flags get
    # a permutation p-value fine enough for Benjamini-Hochberg's threshold at half the screen's
    # count of discoveries (alpha / slices when the screen finds one or none)
    finite = np.isfinite(p)
    screened = int(np.sum(adjust_pvalues(p[finite], "bh") <= alpha)) if finite.any() else 0
    most = int(math.ceil(2 * max(int(finite.sum()), 1) / (alpha * max(screened, 1))))
    for i in np.flatnonzero(finite & (p < SCREEN)):
        p[i] = _sequential_p(gaps, int(sizes[i]), float(observed[i]), worse, most, rng, clusters)
    return p


def _what_it_can_detect(gaps: _Gaps, n_tested: int, min_n: int, alpha: float, worse: float, name: str,
                        n_permutations: int, rng: np.random.Generator,
                        clusters: np.ndarray | None) -> tuple[dict[str, float] | None, str | None]:
    """The gap a slice of ``min_n`` rows (and one of a tenth of the rows) must reach to be found: the
    permutation null's mean plus :func:`detection_z` of its spreads at that size, on the worse side."""
    z = detection_z(n_tested, alpha=alpha)
    # the spread of a small slice's AUROC near 1 is skewed: 200 draws leave it some 15% off, so the
    # figure a small run prints rests on DETECT_DRAWS (drawn in batches of n_permutations)
    draws = max(n_permutations, DETECT_DRAWS) if gaps.n < SMALL_RUN else n_permutations
    measured: dict[int, float] = {}

    def gap_at(size: int) -> float:
        if size not in measured:
            d = []
            for start in range(0, draws, n_permutations):
                inside, outside = gaps.of_masks(_random_sets(gaps.n, size, min(n_permutations, draws - start), rng, clusters))
                d.append(inside - outside)
            both = np.concatenate(d)
            both = both[np.isfinite(both)]
            measured[size] = float(both.mean() + worse * z * both.std(ddof=1)) if len(both) >= 10 else float("nan")
        return measured[size]

    def describe(g: float) -> str:
        return f"its {name} is about {abs(g):.3g} {'above' if g > 0 else 'below'}"

    detectable, note = what_it_can_detect(gaps.n, n_tested, min_n, gap_at, describe)
    if not all(math.isfinite(v) for v in detectable.values()):
        return None, None
    return detectable, note


def _sequential_p(gaps: _Gaps, size: int, observed: float, worse: float, most: int, rng: np.random.Generator,
                  clusters: np.ndarray | None, batch: int = 200) -> float:
    """Monte Carlo permutation p-value of a slice's gap ``observed``: random sets of ``size`` rows
    are drawn until :data:`STOP_AFTER` of them do at least as badly (p = exceedances / draws; Besag
    and Clifford 1991) or ``most`` are drawn (p = (exceedances + 1) / (draws + 1))."""
    drawn = hits = 0
    while drawn < most:
        k = min(batch, most - drawn)
        inside, outside = gaps.of_masks(_random_sets(gaps.n, size, k, rng, clusters))
        d = inside - outside
        d = d[np.isfinite(d)]
        if len(d) == 0:
            break
        drawn += len(d)
        hits += int(np.sum(worse * d >= worse * observed - 1e-12))
        if hits >= STOP_AFTER:
            return hits / drawn
    return (hits + 1) / (drawn + 1)


def find_corpus_slices(
    data: pd.DataFrame,
    rows: pd.DataFrame,
    metric: str | CorpusMetric,
    *,
    columns: Sequence[str] | None = None,
    order: int = 2,
    min_n: int = MIN_SLICE_N,
    alpha: float = 0.05,
    control: str = "bh",
    confidence: float = 0.95,
    n_permutations: int = N_PERMUTATIONS,
    n_sizes: int = N_SIZES,
    n_resamples: int = 2_000,
    max_values: int = MAX_VALUES,
    n_bins: int = N_BINS,
    top: int = 10,
    seed: int | np.random.Generator | None = 0,
    clusters: Sequence[Any] | np.ndarray | None = None,
) -> SliceSearch:
    """Search the columns of ``data`` for slices whose corpus ``metric`` is significantly worse than the rest's.

    Parameters
    ----------
    data : one row per example: the columns to search (metadata, ``input_length``, ...).
    rows : the same examples in the same order as a corpus metric reads them (``target``,
        ``output`` or ``extracted``, ``confidence``, ``probabilities``, ``score``, ``example_id``).
    metric : a corpus metric (``"auroc"``, ``"macro_f1"``, ``"ece"``, ...).
    control : ``"bh"`` (Benjamini-Hochberg over every slice tested), ``"split"`` (slices with
        permutation p < alpha on one half of the rows, halves of whole clusters with ``clusters``,
        are tested again on the other half, Benjamini-Hochberg over those candidates; the figures
        reported are those of every row) or ``"none"`` (naive).
    n_permutations, n_sizes : random sets per size and sizes of the permutation null.
    n_resamples : bootstrap resamples of the reported slices' intervals.
    clusters : one id per row when rows are not independent: the null draws whole clusters and
        the intervals resample them.
    Other options as :func:`gengap.analysis.slices.find_slices`.

    The table's ``gap`` is the slice's figure minus the rest's (for a loss or an error, a positive
    gap is worse); the slices are ranked worst first.
    """
    _check_options(order, min_n, alpha, control, confidence)
    m = get_metric(metric) if isinstance(metric, str) else metric
    if not isinstance(m, CorpusMetric):
        raise ConfigError(f"'{metric}' is a mean of per-example scores; search it with gengap.analysis.slices.find_slices.")
    frame = data.reset_index(drop=True)
    rows = rows.reset_index(drop=True)
    if len(rows) != len(frame):
        raise DataError(f"find_corpus_slices got {len(rows):,} rows of outputs for {len(frame):,} rows to search; "
                        "give one of each per example, in the same order.")
    full = corpus_data(rows)
    m = _fixed_positive(m, full)
    m.check(full)
    n = len(frame)
    cols = [str(c) for c in frame.columns] if columns is None else list(columns)
    features, skipped = _features(frame, cols, max_values=max_values, n_bins=n_bins)
    codes = None if clusters is None else pd.factorize(np.asarray(clusters))[0]
    rng = check_random_state(seed)
    found = _enumerate(features, np.zeros(n), order, min_n) if features and n else None
    conditions = list(found.conditions) if found else []
    descriptions = list(found.descriptions) if found else []
    sizes = np.concatenate(found.n).astype(np.int64) if found and found.n else np.zeros(0, dtype=np.int64)
    gaps = _Gaps(m, full)
    worse = -1.0 if m.higher_is_better else 1.0  # sign of a gap that is worse than the rest
    n_candidates = 0
    if conditions:
        masks = np.stack([_mask(c, features) for c in conditions])
        inside, outside = gaps.of_masks(masks)
        if control == "split":  # discover on one half (of whole clusters), confirm on the other
            half = discovery_half(n, codes, rng)
            p_found = _permutation_p(m, rows, half, masks, max(2, min_n // 2), alpha, worse, n_permutations, n_sizes, rng, codes)
            chosen = np.isfinite(p_found) & (p_found < alpha)
            n_candidates = int(np.isfinite(p_found).sum())
            p = np.full(len(masks), np.nan)
            if chosen.any():
                p[chosen] = _permutation_p(m, rows, ~half, masks[chosen], 2, alpha, worse, n_permutations, n_sizes, rng,
                                           codes)
                p[chosen & ~np.isfinite(p)] = 1.0
        else:
            p = _permutation_p(m, rows, None, masks, min_n, alpha, worse, n_permutations, n_sizes, rng, codes,
                               gaps=gaps, sizes=sizes, observed=inside - outside)
    else:
        inside = outside = p = np.zeros(0)
    testable = np.isfinite(p)
    untestable = int((~testable).sum()) if control != "split" else 0
    p_tested = p[testable]
    adjusted = np.full(len(p), np.nan)
    adjusted[testable] = adjust_pvalues(p_tested, "bh") if control != "none" else p_tested
    significant = np.where(testable, adjusted <= alpha, False)

    def below(a: np.ndarray, b: np.ndarray) -> float:
        test = corpus_gap(m, rows[a], rows[b], paired=False, n_resamples=n_resamples, seed=0,
                          clusters=None if codes is None else codes[a], clusters_b=None if codes is None else codes[b])
        se = (test.effect.high - test.effect.low) / (2 * float(scipy.stats.norm.ppf(0.975)))
        if not se > 0:
            return 0.0 if worse * test.effect.estimate > 0 else 1.0
        return float(scipy.stats.norm.sf(worse * test.effect.estimate / se))

    kept, replaces = _explain(conditions, significant, features, alpha, below) if len(conditions) else (np.zeros(0, bool), {})
    gap = inside - outside
    ranked = sorted(np.flatnonzero(testable), key=lambda i: (not significant[i], worse * -gap[i], descriptions[i]))
    records, members = [], {}
    n_plain = 0
    for i in ranked:
        if not kept[i]:
            continue
        if not significant[i]:
            if n_plain >= top or worse * gap[i] <= 0:
                continue
            n_plain += 1
        mask = masks[i]
        ci = corpus_score(m, rows[mask], confidence=confidence, n_resamples=n_resamples, seed=0,
                          clusters=None if codes is None else codes[mask])
        test = corpus_gap(m, rows[mask], rows[~mask], paired=False, confidence=confidence, n_resamples=n_resamples,
                          seed=0, clusters=None if codes is None else codes[mask],
                          clusters_b=None if codes is None else codes[~mask])
        cond = conditions[i]
        records.append({"description": descriptions[i], "columns": [features[f].name for f, _ in cond], "order": len(cond),
                        "n": int(sizes[i]), "score": float(inside[i]), "score_low": ci.low, "score_high": ci.high,
                        "gap": float(gap[i]), "gap_low": test.effect.low, "gap_high": test.effect.high,
                        "p_value": float(p[i]), "p_adjusted": float(adjusted[i]), "significant": bool(significant[i]),
                        "replaces": replaces.get(int(i), []),
                        "conditions": [c for f, lv in cond for c in features[f].conditions[lv]]})
        members[descriptions[i]] = np.flatnonzero(mask)
    table = pd.DataFrame(records, columns=SLICE_COLUMNS)
    notes = [f"Column '{name}' was not searched: {why}." for name, why in skipped.items()]
    if untestable:
        notes.append(f"{untestable:,} slice(s) were not tested: {m.spec} is undefined on their rows or on the rest "
                     "(one class only, or no label to rank).")
    n_tested = n_candidates if control == "split" else int(testable.sum())
    detectable = None
    if n < 2 * min_n:
        notes.append(f"With {n:,} rows no slice can be tested: a slice needs at least min_n = {min_n} rows and as "
                     "many outside it.")
    else:
        detectable, note = _what_it_can_detect(gaps, n_tested, min_n, alpha, worse, m.name, n_permutations, rng, codes)
        if note:
            notes.append(note)
    search = SliceSearch(table=table, n_rows=n, n_tested=n_tested, control=control, alpha=alpha,
                         min_n=min_n, order=order, columns=[f.name for f in features], skipped=skipped, detectable=detectable,
                         notes=notes, members=members, binary=False, n_significant=int(significant.sum()),
                         test="permutation", higher_is_better=m.higher_is_better)
    return search
