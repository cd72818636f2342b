"""Corpus-level metrics from rows: the figure, its interval, and the gap between two conditions.

:func:`corpus_score` is the one call: ``corpus_score("auroc", rows)`` gives an
:class:`~gengap.analysis.intervals.Interval` (``estimate``, ``low``, ``high``, ``n``, ``method``,
``warning``) from the rows of one test part, as :mod:`gengap.analysis.gaps` does for means. Rows
are the store's (``target``, ``output``, ``extracted``, ``score``, ``confidence``,
``probabilities``, ``example_id``) or any frame with those columns.

Which interval, and why (coverage of each beside the others, on simulated data with a known
truth: ``benchmarks/bench_corpus_metrics.py``; ``method=`` picks another, :func:`corpus_intervals`
gives several from the same resamples):

===========================  ================================================================
metric                       default interval
===========================  ================================================================
auroc (two labels)           DeLong's standard error on the logit scale ("delong-logit"); the
                             paired DeLong test for two conditions on the same rows
brier, log_loss              BCa bootstrap of the mean of the per-row losses ("bootstrap-bca":
                             the losses are skewed; with 5 positives in 50 rows Student's t and
                             the percentile interval cover 0.90-0.92, BCa 0.94-0.96)
macro_f1, micro_f1, mcc,     percentile interval of the exact bootstrap of the confusion matrix,
balanced_accuracy            a multinomial draw of its cells per resample
                             ("bootstrap-cells-percentile"; BCa was no better)
ece, ece_adaptive            the "span" of the normal intervals about the estimate and about the
                             bootstrap's bias-corrected estimate (2 x estimate - mean of the
                             resamples), joined ("bootstrap-span"): the plug-in is biased upward
                             by an amount the resamples estimate unreliably, and every interval
                             about one centre covered 0.80-0.93 at n = 500; above
                             :data:`ECE_EXACT_BUDGET` row draws, each bin's count drawn exactly
                             and its confidence sum from its normal limit ("bootstrap-bins-span")
ece_debiased                 the normal interval of the debiased squared error (before its floor
                             and root; unbiased), its SE from the resamples, mapped through the
                             square root ("bootstrap-normal-squared"; the percentile covered
                             0.82 at n = 500)
selective_accuracy           percentile bootstrap of the rows
auroc (several labels),      BCa bootstrap of the rows ("bootstrap-bca"; the jackknife behind its
pr_auc, aurc, bleu, chrf     acceleration leaves out one row, or one of 200 groups of rows)
===========================  ================================================================

Row bootstraps (and the means') draw at most :data:`MAX_ROW_RESAMPLES` resamples and
:data:`ROW_BUDGET` row draws; each resample is a row of weights (:mod:`gengap.analysis.resample`).

With ``clusters`` (one id per row), every bootstrap draws whole clusters instead of rows, and
AUROC's interval is a cluster bootstrap too. Gaps (:func:`corpus_gap`): the difference ``a - b``
with an interval and a two-sided p-value, paired (the same examples: both resampled with the same
weights) or independent, chosen by coverage against a known true gap
(``bench_corpus_metrics.py --gaps`` and ``--paired-gaps``, :data:`DEFAULT_GAP_INTERVAL`): AUROC of
two labels DeLong's test (its paired form on the same rows); Brier score and log loss Welch's t of
the per-row losses (paired: the t of their differences); ECE the "span" of the normal intervals
about the estimate and about the bootstrap's bias-corrected estimate (the plug-in's bias differs
between parts and the bootstrap's estimate of it is unreliable: the percentile interval covered
0.72 between a 200- and a 600-row split), adaptive and debiased ECE the same (the debiased ECE's
percentile interval covered 0.89-0.915, the normal one about the estimate 0.93-0.965, the span
0.95-0.995; on paired rows its percentile interval, :data:`DEFAULT_PAIRED_GAP_INTERVAL`); the
others the percentile interval of the resampled differences. A gap whose side has too few rows of a class or of right
predictions warns, as that side's interval does.

>>> import pandas as pd
>>> rng = np.random.default_rng(0)
>>> y = rng.integers(0, 2, 400)
>>> p = np.clip(0.5 + (y - 0.5) * 0.4 + rng.normal(0, 0.2, 400), 0.01, 0.99)
>>> rows = pd.DataFrame({"target": y.astype(str), "output": (p > 0.5).astype(int).astype(str),
...                      "confidence": np.where(p > 0.5, p, 1 - p)})
>>> ci = corpus_score("auroc", rows)
>>> ci.method, ci.low < ci.estimate < ci.high
('delong-logit', True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import expit, logit, ndtr, ndtri
from scipy.stats import t as student_t
from scipy.stats import ttest_ind, ttest_rel

from gengap._errors import ConfigError, DataError
from gengap._random import check_random_state
from gengap.analysis.intervals import Interval, PairedTest, bootstrap_means
from gengap.analysis.resample import bca_bounds, bca_shifted, bootstrap_weights, jackknife_statistic, percentile_bounds, resample_statistic
from gengap.metrics import get_metric
from gengap.metrics_corpus import CorpusData, CorpusMetric, positive_label, positive_scores

__all__ = ["corpus_data", "corpus_score", "corpus_intervals", "corpus_gap", "corpus_gaps", "corpus_curve", "corpus_break", "reliability", "risk_coverage", "ece_noise_floor", "MIN_CORPUS_N",
           "MAX_ROW_RESAMPLES", "ROW_BUDGET"]

#: Fewer rows than this and a corpus metric is not computed (a clear message says so).
MIN_CORPUS_N = 10
#: Below this many rows a corpus metric's interval carries a warning (``benchmarks/bench_corpus_metrics.py``:
#: at n = 50 and balanced classes PR-AUC, F1 and MCC cover 0.92-0.93, ECE 0.84).
WARN_CORPUS_N = 100
#: Fewer rows of the rarer target class than this and a corpus metric's interval carries a warning
#: (``benchmarks/bench_corpus_metrics.py``: AUROC covers 0.84 with about 5 positives, 0.95 with 50).
MIN_CLASS_ROWS = 20
#: Fewer rows of a target label predicted right than this, and a label metric's interval carries a
#: warning (the same benchmark: about 2 right of the rarer label at n = 500, 10% prevalence, covers
#: 0.88-0.90 by every method; about 23 at n = 5,000 covers 0.95).
MIN_RIGHT_PER_LABEL = 10
#: Below this many rows a calibration error's interval carries a warning, with the coverage measured
#: there (``bench_corpus_metrics.py --ece-intervals``, held-out seed base 5311, prevalence 50%); the
#: debiased ECE's interval covers at every n measured, 50 included.
#: These replace :data:`WARN_CORPUS_N` for the three calibration errors.
ECE_WARN_N = {"ece": 200, "ece_adaptive": 500, "ece_debiased": 0}
#: What the warning quotes: the coverage measured below :data:`ECE_WARN_N`.
ECE_SHORT = {"ece": "0.84 at n = 50 and 0.92 at n = 100", "ece_adaptive": "0.54 at n = 50, 0.75 at n = 100 and 0.90 at n = 200"}
#: An ``ece`` or ``ece_adaptive`` under this many times its noise floor (:func:`ece_noise_floor`: the
#: plug-in a perfectly calibrated model would show at these rows' bins and confidences) warns: the
#: model may be nearly calibrated, where the span interval covers 0.61-0.95 (``bench_corpus_metrics.py
#: --ece-warning``: the smallest threshold at which the parts missing unwarned were at most 5% of every cell
#: of a nearly calibrated model on seed base 31; held out on 5311, 1.5-2.5%).
ECE_FLOOR_RATIO = {"ece": 3.0, "ece_adaptive": 1.75}
#: What the noise-floor warning quotes: the coverage measured for a nearly calibrated model (held out).
ECE_FLOOR_SHORT = {"ece": "0.89", "ece_adaptive": "0.61"}
#: Row-bootstrap resamples at most (ranking metrics cost O(n) per resample).
MAX_ROW_RESAMPLES = 2_000
#: Row draws (resamples x rows) a row bootstrap may make; fewer resamples above it (never under 200).
ROW_BUDGET = 200_000_000
#: Above this many row draws, ECE's bootstrap draws bin sums from their normal limit (10,000
#: resamples of 1,000 rows or more: every (bin, right/wrong) cell then holds enough rows for it).
ECE_EXACT_BUDGET = 10_000_000


def _metric(metric: str | CorpusMetric) -> CorpusMetric:
    m = get_metric(metric) if isinstance(metric, str) else metric
    if not isinstance(m, CorpusMetric):
        raise DataError(f"'{metric}' is a mean of per-example scores, not a corpus metric; use gengap.analysis.intervals.mean_ci.")
    return m


def corpus_data(rows: pd.DataFrame) -> CorpusData:
    """The rows of one test part as corpus metrics read them: extracted answer (else output) vs target.

    >>> corpus_data(pd.DataFrame({"target": ["a", "b"], "output": [" a", "a"]})).y_pred.tolist()
    ['a', 'a']
    """
    out = rows["output"] if "output" in rows else pd.Series([""] * len(rows))
    if "extracted" in rows:
        out = rows["extracted"].where(rows["extracted"].notna(), out)
    names = rows["example_id"].astype(str).tolist() if "example_id" in rows else None
    return CorpusData.from_lists(
        rows["target"].tolist(), out.tolist(),
        confidence=rows["confidence"].astype(float).tolist() if "confidence" in rows else None,
        probabilities=rows["probabilities"].tolist() if "probabilities" in rows else None,
        correct=rows["score"].astype(float).tolist() if "score" in rows else None,
        row_names=[f"example id '{n}'" for n in names] if names is not None else None)


def _check_size(m: CorpusMetric, data: CorpusData) -> None:
    if len(data) < MIN_CORPUS_N:
        raise DataError(f"{m.spec} needs at least {MIN_CORPUS_N} rows and this test part has {len(data)}: too few to "
                        "say anything about a figure of the whole part. Use a larger test part.")


def _label_warnings(m: CorpusMetric, data: CorpusData, *, counts_only: bool = False) -> list[str]:
    """Why this part's interval may cover less than 94%. ``counts_only``: the notes on too few rows of a
    class, of right predictions, or (calibration errors) rows alone: what makes a gap's interval short too
    (``bench_corpus_metrics.py --gaps``)."""
    return [note for of_counts, note in _interval_notes(m, data) if of_counts or not counts_only]


def _interval_notes(m: CorpusMetric, data: CorpusData) -> list[tuple[bool, str]]:
    """The notes of :func:`_label_warnings` in order, each marked whether it is about counts."""
    notes: list[tuple[bool, str]] = []
    if m.needs == "labels":
        never = sorted(set(data.y_true.tolist()) - set(data.y_pred.tolist()) - {""})
        if never:
            shown = ", ".join(f"'{x}'" for x in never[:3]) + (f" and {len(never) - 3} more" if len(never) > 3 else "")
            notes.append((False, f"label {shown} never predicted: its F1 and recall count as 0"))
    if len(data) < WARN_CORPUS_N and m.name not in ECE_WARN_N:
        notes.append((False, f"n = {len(data)}: the interval of a corpus metric is rough below {WARN_CORPUS_N} rows (it may "
                     "cover less than 94%)"))
    if m.needs != "text":
        targets = pd.Series(data.y_true).value_counts()
        if len(targets) >= 2 and int(targets.min()) < MIN_CLASS_ROWS:
            notes.append((True, f"the rarer target '{targets.idxmin()}' has {int(targets.min())} rows: too few for the interval "
                         f"to cover 95% (it needs about {MIN_CLASS_ROWS} of each class)"))
        if m.needs == "labels" and len(set(data.y_pred.tolist())) > 1:
            right = pd.Series(data.y_true[data.y_true == data.y_pred]).value_counts()
            few = [(lab, int(right.get(lab, 0))) for lab in targets.index if right.get(lab, 0) < MIN_RIGHT_PER_LABEL]
            if few:
                lab, k = min(few, key=lambda x: x[1])
                notes.append((True, f"label '{lab}' is predicted right only {k} times: with fewer than {MIN_RIGHT_PER_LABEL} "
                             "per label the interval covers about 90% (benchmarks/bench_corpus_metrics.py)"))
        if m.needs == "labels" and len(set(data.y_pred.tolist())) == 1:
            notes.append((False, f"every output is '{data.y_pred[0]}': label metrics cannot vary, so their interval has no width"))
    if len(data) < ECE_WARN_N.get(m.name, 0):
        notes.append((True, f"n = {len(data):,}: the interval of {m.name} covers less than 94% below {ECE_WARN_N[m.name]:,} rows "
                     f"({ECE_SHORT[m.name]} with balanced classes in benchmarks/bench_corpus_metrics.py)"))
    return notes


def ece_noise_floor(confidence: np.ndarray, bins: np.ndarray) -> float:
    """The plug-in ECE a perfectly calibrated model would show, in expectation, at these confidences and
    bins: the sum over bins of (bin rows / n) x E|accuracy - mean confidence| with each row right with
    probability its confidence, the bin's accuracy taken as normal (E|N(0, s^2)| = s sqrt(2/pi), s^2 the
    sum of p(1 - p) over the bin's rows / its rows squared).

    >>> conf = np.full(400, 0.8)
    >>> round(ece_noise_floor(conf, np.zeros(400, dtype=np.int64)), 4)  # 0.4 / 20 x 0.798
    0.016
    """
    n = len(confidence)
    spread = np.bincount(bins, confidence * (1 - confidence))
    return float(np.sqrt(spread).sum() * np.sqrt(2 / np.pi) / n)


def _floor_warning(m: CorpusMetric, data: CorpusData, stat: Any, estimate: float) -> str:
    """The note of an ECE close to its noise floor: where its interval is short (a nearly calibrated model)."""
    ratio = ECE_FLOOR_RATIO.get(m.name)
    bins = getattr(stat, "bins", None)
    if ratio is None or bins is None:
        return ""
    floor = ece_noise_floor(data.confidence, bins)
    if not estimate < ratio * floor:
        return ""
    return (f"{m.name} = {estimate:.3f} is under {ratio:g} times the {floor:.3f} that a perfectly calibrated model "
            f"would show at these rows and bins: the model may be nearly calibrated, and there this interval covers "
            f"as little as {ECE_FLOOR_SHORT[m.name]} (benchmarks/bench_corpus_metrics.py --ece-warning); read ece_debiased "
            "and its interval instead")


def _z(confidence: float) -> float:
    return float(ndtri(0.5 + confidence / 2))


def _midranks(sorted_values: np.ndarray) -> np.ndarray:
    """Midranks (1-based, ties share their mean rank) of values already in ascending order."""
    n = sorted_values.size
    starts = np.flatnonzero(np.concatenate([[True], sorted_values[1:] != sorted_values[:-1]]))
    ends = np.concatenate([starts[1:], [n]])
    return np.repeat((starts + ends + 1) / 2.0, ends - starts)


def _delong_components(y: np.ndarray, scores: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """AUC and DeLong's structural components (V10 over positives, V01 over negatives), each in the
    rows' own order (so two conditions' components pair up row by row); midranks for ties. One sort:
    the positives' and the negatives' own ranks are read off the joint order."""
    y = np.asarray(y, dtype=bool)
    order = np.argsort(scores, kind="stable")
    s, yo = scores[order], y[order]
    both = _midranks(s)
    m, n = int(yo.sum()), int((~yo).sum())
    by_row = np.empty(y.size)
    by_row[order[yo]] = (both[yo] - _midranks(s[yo])) / n
    by_row[order[~yo]] = 1.0 - (both[~yo] - _midranks(s[~yo])) / m
    v10, v01 = by_row[y], by_row[~y]
    return float(v10.mean()), v10, v01


def _auroc_binary(m: CorpusMetric, data: CorpusData) -> tuple[np.ndarray, np.ndarray] | None:
    """(positives, scores) when AUROC is of two labels, else None (several labels: one-vs-rest)."""
    labels = data.labels()
    if m.name != "auroc" or (len(labels) > 2 and m.options.get("positive") is None):
        return None
    pos = positive_label(labels, m.options.get("positive"), metric=m.spec)
    return data.y_true == pos, positive_scores(data, pos)


def _delong_interval(auc: float, v10: np.ndarray, v01: np.ndarray, confidence: float, *,
                     logit_scale: bool = True) -> tuple[float, float, float]:
    se = float(np.sqrt(v10.var(ddof=1) / v10.size + v01.var(ddof=1) / v01.size)) if min(v10.size, v01.size) > 1 else 0.0
    if not 0 < auc < 1 or se == 0:
        return auc, auc, se
    if not logit_scale:  # Wald: symmetric about the AUC (may cross 0 or 1)
        return auc - _z(confidence) * se, auc + _z(confidence) * se, se
    half = _z(confidence) * se / (auc * (1 - auc))
    return float(expit(logit(auc) - half)), float(expit(logit(auc) + half)), se


def _row_resamples(n_resamples: int, n: int) -> int:
    return int(min(n_resamples, MAX_ROW_RESAMPLES, max(200, ROW_BUDGET // max(n, 1))))


def _boot_cells(stat: Any, b: int, rng: np.random.Generator) -> np.ndarray:
    k = stat.n_labels
    counts = np.bincount(stat.cells, minlength=k * k).astype(np.float64)
    n = int(counts.sum())
    draws = rng.multinomial(n, counts / n, size=b).astype(np.float64)
    return np.asarray(stat.reduce(draws.reshape(b, k, k)))


def _jack_cells(stat: Any) -> np.ndarray:
    """Delete-one jackknife of a confusion-matrix metric: a row's value depends on its cell only."""
    k = stat.n_labels
    counts = np.bincount(stat.cells, minlength=k * k).astype(np.float64)
    loo = np.asarray(stat.reduce((counts[None, :] - np.eye(k * k)).reshape(k * k, k, k)))
    return loo[stat.cells]


def _boot_ece_bins(data: CorpusData, bins: np.ndarray, b: int, rng: np.random.Generator) -> np.ndarray:
    """ECE resamples with each (bin, right/wrong) cell's count drawn exactly and its confidence sum
    from the normal limit of a sum of that many draws from the cell (for very many rows)."""
    n = len(data)
    cell = bins * 2 + data.correct.astype(np.int64)
    size = int(cell.max()) + 1
    counts = np.bincount(cell, minlength=size).astype(np.float64)
    mean = np.bincount(cell, data.confidence, minlength=size) / np.maximum(counts, 1)
    sq = np.bincount(cell, data.confidence**2, minlength=size) / np.maximum(counts, 1)
    sd = np.sqrt(np.maximum(sq - mean**2, 0))
    k = rng.multinomial(n, counts / n, size=b).astype(np.float64)
    conf_sum = k * mean + np.sqrt(k) * sd * rng.standard_normal((b, size))
    right = k * (np.arange(size) % 2)
    per_bin_gap = (conf_sum - right).reshape(b, -1, 2).sum(axis=2)
    return np.abs(per_bin_gap).sum(axis=1) / n


def _jack_ece(data: CorpusData, bins: np.ndarray) -> np.ndarray:
    """Delete-one jackknife of ECE with the bins held: leaving a row out changes its own bin's gap only."""
    n = len(data)
    diff = data.confidence - data.correct
    gap = np.bincount(bins, diff, minlength=int(bins.max()) + 1)
    total = np.abs(gap).sum()
    return (total - np.abs(gap[bins]) + np.abs(gap[bins] - diff)) / (n - 1)


#: The interval each metric gets by default (``method="auto"``); ``benchmarks/bench_corpus_metrics.py``
#: measures it beside the others.
DEFAULT_INTERVAL = {"auroc": "delong-logit", "macro_f1": "percentile", "micro_f1": "percentile", "mcc": "percentile",
                    "balanced_accuracy": "percentile", "ece": "span", "ece_adaptive": "span",
                    "selective_accuracy": "percentile", "ece_debiased": "normal-squared"}
#: Interval methods :func:`corpus_score` takes.
INTERVAL_METHODS = ("auto", "percentile", "basic", "bca", "span", "normal-squared", "delong", "delong-logit", "t")


def _bounds(method: str, estimate: float, boot: np.ndarray, jack: Any, confidence: float) -> tuple[float, float, str]:
    finite = boot[np.isfinite(boot)]
    note = ""
    if finite.size < boot.size:
        note = f"{boot.size - finite.size} of {boot.size} resamples left the metric undefined and were dropped"
    if finite.size == 0:
        return estimate, estimate, "no resample defined the metric"
    if np.all(finite == finite[0]):
        return float(min(finite[0], estimate)), float(max(finite[0], estimate)), note
    if method == "bca":
        low, high = bca_bounds(estimate, finite, jack(), confidence)
    elif method == "span":
        # the normal intervals about the estimate and about the bootstrap's bias-corrected estimate,
        # joined: a calibration error's plug-in is biased upward by an amount that the resamples
        # estimate unreliably (bins whose true gap is near 0), so the interval spans both
        se, corrected = float(finite.std(ddof=1)), 2 * estimate - float(finite.mean())
        low, high = min(estimate, corrected) - _z(confidence) * se, max(estimate, corrected) + _z(confidence) * se
    elif method == "basic":
        q_low, q_high = percentile_bounds(finite, confidence)
        low, high = 2 * estimate - q_high, 2 * estimate - q_low
    else:
        low, high = percentile_bounds(finite, confidence)
    return float(min(low, estimate)), float(max(high, estimate)), note


def _squared_bounds(m: CorpusMetric, resampled: dict[str, Any], confidence: float) -> tuple[float, float, str]:
    """The normal interval of the squared calibration error before its floor (the debiased estimate of the
    square, unbiased where the root is not), its standard error from the resamples, mapped through the
    square root: the root of a bound below 0 is 0."""
    squares = resampled.get("boot_squared")
    if squares is None:
        raise ConfigError(f"{m.spec}: method='normal-squared' is for ece_debiased (an estimate of a squared error); "
                          "use method='span' or 'percentile'.")
    finite = squares[np.isfinite(squares)]
    note = f"{squares.size - finite.size} of {squares.size} resamples left the metric undefined and were dropped" \
        if finite.size < squares.size else ""
    if finite.size < 2:
        return resampled["estimate"], resampled["estimate"], "no resample defined the metric"
    half = _z(confidence) * float(finite.std(ddof=1))
    square = resampled["estimate_squared"]
    return float(np.sqrt(max(square - half, 0.0))), float(np.sqrt(max(square + half, 0.0))), note


def corpus_score(metric: str | CorpusMetric, rows: pd.DataFrame | CorpusData, *, confidence: float = 0.95,
                 n_resamples: int = 10_000, seed: int | np.random.Generator | None = 0,
                 clusters: Sequence[Any] | np.ndarray | None = None, method: str = "auto") -> Interval:
    """A corpus metric of one test part with its interval (see the module's table for which interval).

    ``method``: ``"auto"`` (the metric's default, :data:`DEFAULT_INTERVAL`, else BCa) or one of
    ``"percentile"``, ``"basic"``, ``"bca"`` (bootstrap), ``"delong"``, ``"delong-logit"`` (AUROC
    of two labels) and ``"t"`` (Brier score and log loss: Student's t of the per-row losses).

    Raises :class:`~gengap.errors.DataError` with a message naming the problem when the metric cannot
    be computed (one class only for AUROC, missing confidences, fewer than :data:`MIN_CORPUS_N` rows).
    """
    return corpus_intervals(metric, rows, (method,), confidence=confidence, n_resamples=n_resamples, seed=seed,
                            clusters=clusters)[method]


def corpus_intervals(metric: str | CorpusMetric, rows: pd.DataFrame | CorpusData, methods: Sequence[str], *,
                     confidence: float = 0.95, n_resamples: int = 10_000, seed: int | np.random.Generator | None = 0,
                     clusters: Sequence[Any] | np.ndarray | None = None) -> dict[str, Interval]:
    """Several intervals of one corpus metric from the same resamples, by method (see :func:`corpus_score`):
    what ``benchmarks/bench_corpus_metrics.py`` compares side by side.

    >>> rng = np.random.default_rng(0)
    >>> rows = pd.DataFrame({"target": rng.integers(0, 2, 300).astype(str), "output": rng.integers(0, 2, 300).astype(str)})
    >>> got = corpus_intervals("mcc", rows, ("percentile", "bca"), n_resamples=1000)
    >>> [ci.method for ci in got.values()]
    ['bootstrap-cells-percentile', 'bootstrap-cells-bca']
    """
    m = _metric(metric)
    unknown = [k for k in methods if k not in INTERVAL_METHODS]
    if unknown:
        raise ConfigError(f"method={unknown[0]!r}: choose one of {', '.join(INTERVAL_METHODS)}.")
    data = rows if isinstance(rows, CorpusData) else corpus_data(rows)
    _check_size(m, data)
    n = len(data)
    notes = _label_warnings(m, data)
    rng = check_random_state(seed)
    codes = None if clusters is None else pd.factorize(np.asarray(clusters))[0]
    out: dict[str, Interval] = {}
    resampled: dict[str, Any] = {}
    for method in methods:
        chosen = DEFAULT_INTERVAL.get(m.name, "bca") if method == "auto" else method
        if codes is not None and chosen in ("delong", "delong-logit", "t"):
            chosen = "bca"  # clusters: every interval is a bootstrap of whole clusters
        if chosen in ("delong", "delong-logit"):
            m.check(data)
            binary = _auroc_binary(m, data)
            if binary is None and method != "auto":
                raise ConfigError(f"{m.spec}: DeLong's interval is of AUROC with two labels; use method='bca'.")
            if binary is None:
                chosen = "bca"
            else:  # DeLong: the AUC and its interval from one sort
                auc, v10, v01 = _delong_components(*binary)
                low, high, se = _delong_interval(auc, v10, v01, confidence, logit_scale=chosen == "delong-logit")
                extra = ["the classes are perfectly separated (or tied): DeLong's interval has no width"] if se == 0 else []
                out[method] = Interval(auc, low, high, n, confidence, chosen, "; ".join(notes + extra))
                continue
        if not resampled:
            resampled.update(_resampled(m, data, n_resamples, rng, codes))
            floor_note = _floor_warning(m, data, resampled["stat"], resampled["estimate"])
            if floor_note:
                notes = notes + [floor_note]
        estimate = resampled["estimate"]
        if chosen == "t":
            losses = getattr(resampled["stat"], "per_row", None)
            if losses is None:
                raise ConfigError(f"{m.spec} is not a mean of per-row values; method='t' is for brier and log_loss.")
            half = float(student_t.ppf(0.5 + confidence / 2, n - 1) * losses.std(ddof=1) / np.sqrt(n))
            out[method] = Interval(estimate, estimate - half, estimate + half, n, confidence, "t", "; ".join(notes))
            continue
        if chosen == "normal-squared":
            low, high, note = _squared_bounds(m, resampled, confidence)
        else:
            low, high, note = _bounds(chosen, estimate, resampled["boot"], resampled["jack"], confidence)
        if m.share:
            low, high = max(0.0, low), min(1.0, high)
        out[method] = Interval(estimate, low, high, n, confidence, f"{resampled['unit']}-{chosen}",
                               "; ".join(notes + ([note] if note else [])))
    return out


def _resampled(m: CorpusMetric, data: CorpusData, n_resamples: int, rng: np.random.Generator,
               codes: np.ndarray | None) -> dict[str, Any]:
    """The metric's point value, its bootstrap resamples (the cheapest exact way for the metric) and its
    jackknife (a function: only BCa needs it)."""
    n = len(data)
    stat = m.statistic(data)
    estimate = float(stat(np.ones((1, n)))[0])
    jack: Any = lambda: jackknife_statistic(stat, n, codes)
    extra: dict[str, Any] = {}
    if hasattr(stat, "cells") and codes is None:
        boot, unit = _boot_cells(stat, n_resamples, rng), "bootstrap-cells"
        jack = lambda: _jack_cells(stat)
    elif hasattr(stat, "per_row") and codes is None:
        losses = stat.per_row
        boot, unit = bootstrap_means(losses, _row_resamples(n_resamples, n), rng), "bootstrap"
        jack = lambda: (losses.sum() - losses) / (n - 1)
    elif hasattr(stat, "bins") and codes is None and n * n_resamples > ECE_EXACT_BUDGET:
        boot, unit = _boot_ece_bins(data, stat.bins, n_resamples, rng), "bootstrap-bins"
    else:
        b = n_resamples if hasattr(stat, "bins") else _row_resamples(n_resamples, n)
        if hasattr(stat, "squared"):  # the debiased ECE: resample the square, whose interval is read first
            squares = resample_statistic(stat.squared, n, b, rng, codes)
            extra = {"boot_squared": squares, "estimate_squared": float(stat.squared(np.ones((1, n)))[0])}
            boot = np.sqrt(np.maximum(squares, 0.0))
        else:
            boot = resample_statistic(stat, n, b, rng, codes)
        unit = "bootstrap-clusters" if codes is not None else "bootstrap"
    if hasattr(stat, "bins") and codes is None:
        jack = lambda: _jack_ece(data, stat.bins)
    return {"stat": stat, "estimate": estimate, "boot": boot, "jack": jack, "unit": unit, **extra}


def _p_from_boot(diff: np.ndarray) -> float:
    d = diff[np.isfinite(diff)]
    if d.size == 0:
        return 1.0
    below, above = np.sum(d <= 0), np.sum(d >= 0)
    return float(min(1.0, 2 * (min(below, above) + 1) / (d.size + 1)))


def _p_bca(estimate: float, diffs: np.ndarray, acceleration: float) -> float:
    """The two-sided p-value the BCa interval inverts: the level at which one of its bounds reaches 0."""
    d = diffs[np.isfinite(diffs)]
    if d.size == 0:
        return 1.0
    clip = 1 / (2 * d.size)
    z0 = float(ndtri(np.clip((np.sum(d < estimate) + 0.5 * np.sum(d == estimate)) / d.size, clip, 1 - clip)))
    w = float(ndtri(np.clip((np.sum(d < 0) + 0.5 * np.sum(d == 0)) / d.size, clip, 1 - clip))) - z0
    if 1 + acceleration * w <= 0:
        return float(_p_from_boot(d))
    level = float(ndtr(w / (1 + acceleration * w) - z0))
    return float(min(1.0, 2 * min(level, 1 - level)))


def _normal_p(estimate: float, se: float) -> float:
    if se > 0:
        return float(2 * ndtr(-abs(estimate) / se))
    return 1.0 if estimate == 0 else 0.0


#: The interval each corpus metric's gap gets by default (``method="auto"``; AUROC of two labels:
#: DeLong's test, paired or not), chosen by coverage (``benchmarks/bench_corpus_metrics.py --gaps``,
#: ``--paired-gaps``).
DEFAULT_GAP_INTERVAL: dict[str, str] = {"brier": "t", "log_loss": "t", "ece": "span", "ece_adaptive": "span",
                                        "ece_debiased": "span"}
#: Where a paired gap (two conditions on the same rows) takes another default than independent parts: the
#: debiased ECE's resamples are biased in a way that the span reflects the wrong way on paired rows
#: (``--paired-gaps``, development seed 31: span 0.905 / 0.950 at 200 / 1,000 rows, percentile 0.990 / 0.970).
DEFAULT_PAIRED_GAP_INTERVAL: dict[str, str] = {"ece_debiased": "percentile"}
#: Paired gaps no interval covers (``--paired-gaps``): what the gap's warning quotes.
PAIRED_GAP_SHORT: dict[str, str] = {"ece_adaptive": "the paired gap of ece_adaptive covers about 0.88 at 200 and 1,000 "
                                                    "rows by every interval (benchmarks/bench_corpus_metrics.py)"}
#: Gap interval methods :func:`corpus_gap` takes.
GAP_METHODS = ("auto", "percentile", "basic", "bca", "normal", "span", "t", "delong")


def _jackknife(m: CorpusMetric, stat: Any, data: CorpusData, codes: np.ndarray | None) -> np.ndarray:
    """Delete-one (or delete-group) values of the metric, the closed forms where a row's effect is local."""
    n = len(data)
    if codes is None and hasattr(stat, "cells"):
        return _jack_cells(stat)
    if codes is None and hasattr(stat, "per_row"):
        return (stat.per_row.sum() - stat.per_row) / (n - 1)
    if codes is None and hasattr(stat, "bins"):
        return _jack_ece(data, stat.bins)
    return jackknife_statistic(stat, n, codes)


def _acceleration(*signed_jackknifes: tuple[int, np.ndarray]) -> float:
    """BCa's acceleration of a sum of independent statistics (sign +1 or -1 each), from their jackknifes
    (Efron and Tibshirani 1993, the several-sample form); one pair for a paired difference."""
    third = second = 0.0
    for sign, jack in signed_jackknifes:
        j = jack[np.isfinite(jack)]
        if j.size < 2:
            continue
        d = sign * (j.mean() - j) * (j.size - 1) / j.size
        third += float(np.sum(d**3))
        second += float(np.sum(d**2))
    return third / (6.0 * second**1.5) if second > 0 else 0.0


def corpus_gap(metric: str | CorpusMetric, a: pd.DataFrame, b: pd.DataFrame, *, paired: bool | None = None,
               confidence: float = 0.95, n_resamples: int = 10_000, seed: int | np.random.Generator | None = 0,
               clusters: Sequence[Any] | np.ndarray | None = None,
               clusters_b: Sequence[Any] | np.ndarray | None = None, method: str = "auto") -> PairedTest:
    """The difference ``metric(a) - metric(b)`` with its interval and a two-sided test.

    ``paired`` (default: when both hold the same example ids) compares two conditions on the same
    examples (clean and perturbed, two models): AUROC by DeLong's paired test, the others by
    resampling the examples once for both. Otherwise the two are resampled independently
    (AUROC: DeLong's variances added). ``clusters``: one id per row of ``a`` for a bootstrap over
    clusters (paired: the same examples, so the same clusters); ``clusters_b`` those of ``b`` when
    the two are independent.

    ``method``: ``"auto"`` (DeLong for AUROC of two labels, else :data:`DEFAULT_GAP_INTERVAL`, else
    the percentile interval of the resampled differences) or one of :data:`GAP_METHODS`:
    ``"percentile"``, ``"basic"`` (the differences reflected about the estimate), ``"bca"`` (the
    acceleration from both sides' jackknifes), ``"normal"`` (the estimate plus or minus z times the
    differences' standard deviation), ``"t"`` (Brier score and log loss: Welch's t of the per-row
    losses, or the paired t of their differences) and ``"delong"``.

    >>> rng = np.random.default_rng(0)
    >>> part = lambda n, noise: pd.DataFrame({"target": (y := rng.integers(0, 2, n)).astype(str),
    ...     "output": np.where(rng.uniform(size=n) < noise, 1 - y, y).astype(str), "confidence": np.full(n, 0.8)})
    >>> test = corpus_gap("brier", part(300, 0.4), part(300, 0.1), method="t")
    >>> test.effect.method, test.effect.low > 0
    ('welch', True)
    """
    return corpus_gaps(metric, a, b, (method,), paired=paired, confidence=confidence, n_resamples=n_resamples,
                       seed=seed, clusters=clusters, clusters_b=clusters_b)[method]


def corpus_gaps(metric: str | CorpusMetric, a: pd.DataFrame, b: pd.DataFrame, methods: Sequence[str], *,
                paired: bool | None = None, confidence: float = 0.95, n_resamples: int = 10_000,
                seed: int | np.random.Generator | None = 0, clusters: Sequence[Any] | np.ndarray | None = None,
                clusters_b: Sequence[Any] | np.ndarray | None = None) -> dict[str, PairedTest]:
    """Several intervals of one gap from the same resamples, by method (see :func:`corpus_gap`): what
    ``benchmarks/bench_corpus_metrics.py --gaps`` compares side by side."""
    m = _metric(metric)
    unknown = [k for k in methods if k not in GAP_METHODS]
    if unknown:
        raise ConfigError(f"method={unknown[0]!r}: choose one of {', '.join(GAP_METHODS)}.")
    if paired is None:
        paired = ("example_id" in a and "example_id" in b and len(a) == len(b)
                  and set(a["example_id"]) == set(b["example_id"]))
    if paired:
        order = np.argsort(a["example_id"].to_numpy(), kind="stable")
        a = a.iloc[order]
        b = b.set_index("example_id").loc[a["example_id"]].reset_index()
        if clusters is not None:
            clusters = np.asarray(clusters)[order]
    da, db = corpus_data(a), corpus_data(b)
    _check_size(m, da)
    _check_size(m, db)
    sa, sb = m.statistic(da), m.statistic(db)
    ea, eb = float(sa(np.ones((1, len(da))))[0]), float(sb(np.ones((1, len(db))))[0])
    estimate = ea - eb
    n = min(len(da), len(db))
    rng = check_random_state(seed)
    codes = None if clusters is None else pd.factorize(np.asarray(clusters))[0]
    codes_b = None if clusters_b is None else pd.factorize(np.asarray(clusters_b))[0]
    if paired:
        codes_b = codes
    ba = _auroc_binary(m, da) if codes is None else None
    bb = _auroc_binary(m, db) if codes is None else None
    delong_ok = ba is not None and bb is not None and (not paired or np.array_equal(ba[0], bb[0]))
    z = _z(confidence)
    # a side with too few rows of a class or of right predictions: its gap's interval is short too (the
    # MCC gap of a 600-row part with about 3 right positives covered 0.90-0.92 by every method, --gaps;
    # the adaptive ECE's gap of a 200-row part 0.90)
    sides = "; ".join(dict.fromkeys([f"one side: {note}" for d in (da, db) for note in _label_warnings(m, d, counts_only=True)]
                                    + ([PAIRED_GAP_SHORT[m.name]] if paired and m.name in PAIRED_GAP_SHORT else [])))
    out: dict[str, PairedTest] = {}
    diffs: np.ndarray | None = None
    unit = ""
    for method in methods:
        chosen = method
        if method == "auto":
            chosen = "delong" if delong_ok else ((DEFAULT_PAIRED_GAP_INTERVAL.get(m.name) if paired else None)
                                                 or DEFAULT_GAP_INTERVAL.get(m.name, "percentile"))
            if chosen == "t" and (codes is not None or codes_b is not None):
                chosen = "percentile"  # clusters: the gap is a bootstrap of whole clusters
        if chosen == "delong":
            if not delong_ok:
                raise ConfigError(f"{m.spec}: DeLong's test is of AUROC with two labels (paired: the same targets) and "
                                  "no clusters; use method='bca'.")
            assert ba is not None and bb is not None
            _, v10a, v01a = _delong_components(*ba)
            _, v10b, v01b = _delong_components(*bb)
            if paired:
                var = (np.var(v10a - v10b, ddof=1) / v10a.size + np.var(v01a - v01b, ddof=1) / v01a.size)
                test = "delong-paired"
            else:
                var = (v10a.var(ddof=1) / v10a.size + v01a.var(ddof=1) / v01a.size
                       + v10b.var(ddof=1) / v10b.size + v01b.var(ddof=1) / v01b.size)
                test = "delong"
            se = float(np.sqrt(max(var, 0.0)))
            effect = Interval(estimate, estimate - z * se, estimate + z * se, n, confidence, test, sides)
            out[method] = PairedTest(effect, _normal_p(estimate, se), test, estimate / se if se > 0 else float("nan"))
            continue
        if chosen == "t":
            la, lb = getattr(sa, "per_row", None), getattr(sb, "per_row", None)
            if la is None or lb is None or codes is not None or codes_b is not None:
                raise ConfigError(f"{m.spec}: method='t' is for brier and log_loss without clusters; use method='bca'.")
            res = ttest_rel(la, lb) if paired else ttest_ind(la, lb, equal_var=False)
            name = "t-paired" if paired else "welch"
            if np.isfinite(res.pvalue):
                ci = res.confidence_interval(confidence)
                low, high, p = float(ci.low), float(ci.high), float(res.pvalue)
            else:  # the losses do not vary: the gap is exact
                low = high = estimate
                p = 1.0 if estimate == 0 else 0.0
            effect = Interval(estimate, low, high, n, confidence, name, sides)
            out[method] = PairedTest(effect, p, name, float(res.statistic) if np.isfinite(res.statistic) else float("nan"))
            continue
        if diffs is None:
            diffs, unit = _gap_resamples(m, sa, sb, da, db, paired, n_resamples, rng, codes, codes_b)
        note = sides
        finite = diffs[np.isfinite(diffs)]
        if finite.size < diffs.size:
            note = "; ".join(filter(None, [sides, f"{diffs.size - finite.size} of {diffs.size} resamples left the metric "
                                                  "undefined and were dropped"]))
        if finite.size == 0:
            out[method] = PairedTest(Interval(estimate, estimate, estimate, n, confidence, unit,
                                              "no resample defined the metric"), 1.0, "bootstrap", estimate)
            continue
        name = unit if chosen == "percentile" else f"{unit}-{chosen}"
        if chosen == "percentile":
            low, high = percentile_bounds(finite, confidence)
            p = _p_from_boot(finite)
        elif chosen == "basic":
            q_low, q_high = percentile_bounds(finite, confidence)
            low, high = 2 * estimate - q_high, 2 * estimate - q_low
            p = _p_from_boot(2 * estimate - finite)
        elif chosen == "normal":
            se = float(finite.std(ddof=1))
            low, high = estimate - z * se, estimate + z * se
            p = _normal_p(estimate, se)
        elif chosen == "span":
            # the normal intervals about the estimate and about the bias-corrected estimate, joined: the
            # bootstrap's bias of a calibration error is itself unreliable, so the interval spans both
            se, corrected = float(finite.std(ddof=1)), 2 * estimate - float(finite.mean())
            low, high = min(estimate, corrected) - z * se, max(estimate, corrected) + z * se
            p = max(_normal_p(estimate, se), _normal_p(corrected, se))
        else:  # bca
            if paired:
                jack = _jackknife(m, sa, da, codes) - _jackknife(m, sb, db, codes)
                acc = _acceleration((1, jack))
            else:
                acc = _acceleration((1, _jackknife(m, sa, da, codes)), (-1, _jackknife(m, sb, db, codes_b)))
            low, high = bca_shifted(estimate, finite, acc, confidence)
            p = _p_bca(estimate, finite, acc)
        effect = Interval(estimate, float(min(low, estimate)), float(max(high, estimate)), n, confidence, name, note)
        out[method] = PairedTest(effect, p, "bootstrap", estimate)
    return out


def _gap_resamples(m: CorpusMetric, sa: Any, sb: Any, da: CorpusData, db: CorpusData, paired: bool, n_resamples: int,
                   rng: np.random.Generator, codes: np.ndarray | None,
                   codes_b: np.ndarray | None) -> tuple[np.ndarray, str]:
    """Resampled differences ``a - b``: both sides under the same weights (paired), else each its own
    cheapest exact bootstrap (:func:`_resampled`'s), as many of each."""
    if paired:
        b_count = _row_resamples(n_resamples, len(da))
        diffs = np.empty(b_count)
        chunk = max(1, (1 << 21) // len(da))
        for start in range(0, b_count, chunk):
            k = min(chunk, b_count - start)
            w = bootstrap_weights(len(da), k, rng, codes)
            diffs[start:start + k] = sa(w) - sb(w)
        return diffs, "bootstrap-paired" if codes is None else "bootstrap-clusters-paired"
    side_a = _resampled(m, da, n_resamples, rng, codes)
    side_b = _resampled(m, db, n_resamples, rng, codes_b)
    k = min(side_a["boot"].size, side_b["boot"].size)
    unit = "bootstrap-clusters-independent" if codes is not None or codes_b is not None else "bootstrap-independent"
    return side_a["boot"][:k] - side_b["boot"][:k], unit


# ---------------------------------------------------------------------------------------------
# Calibration and selective prediction, for the report


def reliability(rows: pd.DataFrame | CorpusData, *, n_bins: int = 10, confidence: float = 0.95) -> pd.DataFrame:
    """The reliability diagram's table: per equal-width confidence bin, its ``n``, the mean
    ``confidence``, the ``accuracy`` with its Clopper-Pearson interval (``accuracy_low``, ``accuracy_high``).

    >>> t = reliability(pd.DataFrame({"target": list("aabb"), "output": list("abab"), "confidence": [.9, .9, .6, .6]}))
    >>> t[["bin_low", "bin_high", "n", "accuracy"]].values.tolist()
    [[0.5, 0.6, 2.0, 0.5], [0.8, 0.9, 2.0, 0.5]]
    """
    from gengap.analysis.intervals import proportion_ci
    from gengap.metrics_corpus import check_confidences, ece_bins

    data = rows if isinstance(rows, CorpusData) else corpus_data(rows)
    check_confidences(data, "a reliability diagram")
    bins = ece_bins(data.confidence, adaptive=False, n_bins=n_bins)
    records = []
    for k in np.unique(bins):
        hit = bins == k
        right, total = int(data.correct[hit].sum()), int(hit.sum())
        low, high = proportion_ci(right, total, confidence=confidence)
        records.append({"bin_low": round(k / n_bins, 6), "bin_high": round((k + 1) / n_bins, 6), "n": float(total),
                        "confidence": float(data.confidence[hit].mean()), "accuracy": right / total,
                        "accuracy_low": float(low), "accuracy_high": float(high)})
    return pd.DataFrame.from_records(records, columns=["bin_low", "bin_high", "n", "confidence", "accuracy",
                                                       "accuracy_low", "accuracy_high"])


def risk_coverage(rows: pd.DataFrame | CorpusData, *, points: int = 50) -> pd.DataFrame:
    """The risk-coverage curve: answering only the most confident share ``coverage`` of the rows,
    the error rate ``risk`` among them (at ``points`` coverages from 1/points to 1).

    >>> risk_coverage(pd.DataFrame({"target": list("aabb"), "output": list("abab"), "confidence": [.9, .1, .2, .8]}),
    ...               points=2).values.tolist()
    [[0.5, 0.0], [1.0, 0.5]]
    """
    from gengap.metrics_corpus import check_confidences, weighted_selective_accuracy

    data = rows if isinstance(rows, CorpusData) else corpus_data(rows)
    check_confidences(data, "a risk-coverage curve")
    cover = np.linspace(1 / points, 1, points)
    one = np.ones((1, len(data)))
    risk = [1 - float(weighted_selective_accuracy(data.correct, data.confidence, one, c)[0]) for c in cover]
    return pd.DataFrame({"coverage": cover, "risk": np.round(risk, 12)})


def corpus_curve(metric: str | CorpusMetric, rows: pd.DataFrame, axis: str, *,
                 bins: int | Sequence[float] | str | None = "auto", train_range: tuple[float, float] | None = None,
                 confidence: float = 0.95, alpha: float = 0.05, n_resamples: int = 2_000, seed: int = 0,
                 clusters: Sequence[Any] | np.ndarray | None = None, test: str = "auto") -> pd.DataFrame:
    """A corpus metric per bin of an axis (a metadata column, ``input_length``, ``target_length``),
    and where it breaks.

    Per bin: its edges, ``n``, ``score`` with ``score_low``/``score_high`` and ``score_method``,
    and ``note`` where the metric is undefined in the bin. The reference is the bins inside
    ``train_range`` pooled (None: the first bin where the metric is defined); every later bin has
    its ``gap`` to the reference (worse is negative for a score, positive for a loss or error)
    with ``gap_low``/``gap_high``, the two-sided ``gap_p``, and is tested one-sided for being worse
    (``p_value``: DeLong's test for AUROC of two labels, else a permutation test of the bin's rows
    against the reference's pooled rows, exact when the rows are exchangeable, as on a flat curve;
    ``test="bootstrap"``: the independent bootstrap of the difference, as ``gap_p``, which names too
    many breaks on flat curves at a few hundred rows a bin), Holm-adjusted over the tested bins (``p_holm``); ``below`` marks the bins
    significantly worse at ``alpha``. :func:`corpus_break` reads the break point off the table:
    the first such bin. The rows are one model's clean rows of one test part or several (pooled);
    bins as :func:`gengap.analysis.curves.bin_axis` makes them; ``clusters`` (one id per row)
    resamples whole clusters within each bin.

    >>> rng = np.random.default_rng(1)
    >>> y = rng.integers(0, 2, 600)
    >>> length = np.repeat([5, 10, 20], 200)
    >>> p = np.clip(0.5 + (y - 0.5) * (0.8 - length / 40) + rng.normal(0, 0.15, 600), 0.01, 0.99)
    >>> rows = pd.DataFrame({"target": y.astype(str), "output": (p > 0.5).astype(int).astype(str),
    ...                      "confidence": np.where(p > 0.5, p, 1 - p), "len": length})
    >>> t = corpus_curve("auroc", rows, "len", n_resamples=500)
    >>> t["n"].tolist(), bool(t["score"].is_monotonic_decreasing), corpus_break(t)
    ([200, 200, 200], True, 10.0)
    """
    from gengap.analysis.curves import axis_values, bin_axis, holm

    m = _metric(metric)
    if test not in ("auto", "bootstrap"):
        raise DataError(f"Unknown break test '{test}': use 'auto' (DeLong for AUROC, else a permutation test) or 'bootstrap'.")
    values = np.asarray(axis_values(rows, axis), dtype=np.float64)
    keep = ~np.isnan(values)
    rows, values = rows[keep], values[keep]
    codes = None if clusters is None else pd.factorize(np.asarray(clusters)[keep])[0]
    if rows.empty:
        raise DataError(f"No rows have a value on the axis '{axis}'.")
    idx, edges = bin_axis(values, bins, boundary=None if train_range is None else float(train_range[1]))
    held = np.array([[values[idx == b].min(), values[idx == b].max()] if np.any(idx == b) else [np.nan, np.nan]
                     for b in range(len(edges))])
    if train_range is not None:
        in_range = (held[:, 0] >= float(train_range[0])) & (held[:, 1] <= float(train_range[1]))
        if not in_range.any():
            raise DataError(f"No bin of '{axis}' lies inside the training range [{train_range[0]:g}, {train_range[1]:g}]: "
                            "a curve needs in-range rows as its reference.")
    records = []
    defined = np.zeros(len(edges), dtype=bool)
    for b in range(len(edges)):
        part = rows[idx == b]
        record: dict[str, Any] = {"value": float(held[b, 0]) if len(part) else float("nan"), "low_edge": float(edges[b, 0]),
                                  "high_edge": float(edges[b, 1]), "n": len(part), "score": None, "score_low": None,
                                  "score_high": None, "score_method": None, "in_range": False, "tested": False,
                                  "gap": None, "gap_low": None, "gap_high": None, "gap_p": None, "p_value": None,
                                  "p_holm": None, "below": False, "note": ""}
        try:
            ci = corpus_score(m, part, confidence=confidence, n_resamples=n_resamples, seed=seed,
                              clusters=None if codes is None else codes[idx == b])
            defined[b] = True
            record.update(score=ci.estimate, score_low=ci.low, score_high=ci.high, score_method=ci.method, note=ci.warning)
        except DataError as e:
            record["note"] = str(e)
        records.append(record)
    if train_range is None:
        if not defined.any():
            return pd.DataFrame.from_records(records)
        in_range = np.arange(len(edges)) == int(np.flatnonzero(defined)[0])
    reference = rows[in_range[idx]]
    ref_codes = None if codes is None else codes[in_range[idx]]
    last_in = int(np.flatnonzero(in_range).max())
    p_raw = np.full(len(edges), np.nan)
    for b in range(len(edges)):
        records[b]["in_range"] = bool(in_range[b])
        if in_range[b] or b < last_in or not defined[b]:
            continue
        part = rows[idx == b]
        try:
            gap_test = corpus_gap(m, part, reference, paired=False, confidence=confidence, n_resamples=n_resamples,
                                  seed=seed, clusters=None if codes is None else codes[idx == b], clusters_b=ref_codes)
        except DataError as why:
            records[b]["note"] = "; ".join(x for x in (records[b]["note"], f"no test: {why}") if x)
            continue
        eff = gap_test.effect
        worse = eff.estimate < 0 if m.higher_is_better else eff.estimate > 0
        one_sided = gap_test.p_value / 2 if worse else 1 - gap_test.p_value / 2
        if test == "auto" and not gap_test.test.startswith("delong") and codes is None:
            one_sided = _permutation_p(m, part, reference, n_resamples, np.random.default_rng([seed, b]))
        p_raw[b] = one_sided
        records[b].update(tested=True, gap=eff.estimate, gap_low=eff.low, gap_high=eff.high, gap_p=gap_test.p_value,
                          p_value=one_sided)
    p_adj = holm(p_raw)
    for b in range(len(edges)):
        if np.isfinite(p_adj[b]):
            records[b].update(p_holm=float(p_adj[b]), below=bool(p_adj[b] < alpha))
    return pd.DataFrame.from_records(records)


def _permutation_p(m: CorpusMetric, part: pd.DataFrame, reference: pd.DataFrame, n_resamples: int,
                   rng: np.random.Generator) -> float:
    """One-sided p-value that ``part`` is worse on ``m`` than ``reference``: the bin's rows and the
    reference's are pooled and split at random into parts of the same sizes; p is the share of
    splits (the observed one counted) whose bin is at least as much worse. Exact under exchangeable
    rows, whatever the metric's bias at small n (both sides of every split keep their sizes)."""
    pooled = corpus_data(pd.concat([part, reference], ignore_index=True))
    stat = m.statistic(pooled)
    n_bin, n_all = len(part), len(pooled)
    sign = 1.0 if m.higher_is_better else -1.0

    def worse_by(w: np.ndarray) -> np.ndarray:
        return sign * (stat(1.0 - w) - stat(w))     # reference minus bin, worse positive

    observed = np.zeros((1, n_all))
    observed[0, :n_bin] = 1.0
    obs = float(worse_by(observed)[0])
    if not np.isfinite(obs):
        return 1.0
    exceed, chunk = 0, max(1, (1 << 21) // n_all)
    for start in range(0, n_resamples, chunk):
        k = min(chunk, n_resamples - start)
        order = rng.random((k, n_all)).argsort(axis=1)
        w = (order < n_bin).astype(np.float64)
        perm = worse_by(w)
        exceed += int(np.sum(~np.isfinite(perm) | (perm >= obs - 1e-12)))
    return (exceed + 1) / (n_resamples + 1)


def corpus_break(table: pd.DataFrame) -> float | None:
    """The break point of a :func:`corpus_curve` table: the axis value where the first bin significantly
    worse than the reference starts (None when no bin is)."""
    below = table[table["below"].astype(bool)]
    return None if below.empty else float(below["value"].iloc[0])
