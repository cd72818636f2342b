"""Corpus-level metrics: figures of a whole test part that are not means of per-example scores.

AUROC, average precision, macro-F1, MCC, calibration error and selective accuracy are computed from
every row at once: the labels, the outputs and the confidence a model gave each output. Each is a
:class:`CorpusMetric` registered in the one metric registry (:data:`gengap.metrics.METRICS`), so
``--metric auroc`` works like ``--metric exact_match``. Per row the store keeps whether the output
equals the target (the score a corpus metric's rows carry) and the row's confidence; the corpus
figure, its interval and its gaps come from :mod:`gengap.analysis.corpus`.

Every statistic here takes row weights (``w``; all ones for the point value, bootstrap counts for
a resample), so the point value and the resamples run the same code. The point values equal
scikit-learn's (sacrebleu's for ``bleu`` and ``chrf``) to 1e-9: ``tests/test_metrics_corpus.py``.

==================  ===========================================================================
name                what it is
==================  ===========================================================================
auroc               area under the ROC curve; several classes: one-vs-rest, macro average
pr_auc              average precision (scikit-learn's step-wise area under precision-recall)
macro_f1, micro_f1  F1 per label averaged over labels (every label in targets or outputs) / pooled
mcc                 Matthews correlation coefficient (multi-class form)
balanced_accuracy   recall per target label, averaged
brier               mean squared error of the probabilities (binary: of the positive class)
log_loss            mean negative log-probability of the target label
ece                 expected calibration error, 15 equal-width confidence bins, L1
ece_adaptive        the same with 15 equal-mass bins (bin edges at confidence quantiles)
ece_debiased        L2 calibration error, 15 equal-mass bins, each bin's squared gap less the
                    variance of its accuracy (Kumar et al. 2019's debiased estimator)
aurc                area under the risk-coverage curve (error rate of the most confident k rows)
selective_accuracy  accuracy of the 80% most confident rows (``selective_accuracy:coverage=0.5``)
bleu, chrf          sacrebleu's corpus BLEU and chrF (0-100) of outputs against targets
==================  ===========================================================================

>>> data = CorpusData.from_lists(["1", "0", "1", "0"], ["1", "1", "1", "0"], confidence=[0.9, 0.6, 0.8, 0.7])
>>> round(METRIC_CLASSES["macro_f1"].point(data), 4), METRIC_CLASSES["auroc"].point(data)
(0.7333, 1.0)
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from gengap._errors import DataError

__all__ = ["CorpusMetric", "CorpusData", "METRIC_CLASSES", "positive_label", "ECE_BINS", "SELECTIVE_COVERAGE",
           "PROBABILITY_TOLERANCE"]

#: Confidence bins of ``ece`` and ``ece_adaptive``.
ECE_BINS = 15
#: Coverage of ``selective_accuracy`` unless the spec names another.
SELECTIVE_COVERAGE = 0.8
#: How far a row's probabilities may sum from 1.
PROBABILITY_TOLERANCE = 1e-3
#: Label pairs whose positive label is clear (compared lower-cased).
_POSITIVE = {frozenset({"0", "1"}): "1", frozenset({"-1", "1"}): "1", frozenset({"false", "true"}): "true",
             frozenset({"no", "yes"}): "yes", frozenset({"negative", "positive"}): "positive",
             frozenset({"0.0", "1.0"}): "1.0"}

#: What a model must give for a metric to be computed, and how (the message of a missing confidence).
HOW_TO_GIVE_CONFIDENCES = (
    "Models that give one: a scikit-learn classifier with predict_proba (automatic); a Python function returning "
    "{'output': label, 'probabilities': {label: p, ...}} or {'output': label, 'confidence': p} per input; an endpoint "
    "choosing options by log-likelihood (choices_by='loglik') or asked for logprobs (logprobs=True); outputs that "
    "state it ('I am 80% sure'); imported rows with a confidence column (gengap import table --confidence COLUMN).")


@dataclass
class CorpusData:
    """The rows of one test part as a corpus metric reads them.

    Attributes
    ----------
    y_true, y_pred : target and output labels as text (stripped).
    correct : 1.0 where the output counts as right (the stored per-row score), else 0.0.
    confidence : the model's confidence in each output (NaN where it gave none).
    probabilities : per row, a mapping label -> probability (None where the model gave only a confidence).
    row_names : what messages call each row (example ids).
    """

    y_true: np.ndarray
    y_pred: np.ndarray
    correct: np.ndarray
    confidence: np.ndarray
    probabilities: list[dict[str, float] | None]
    row_names: list[str] = field(default_factory=list)

    @classmethod
    def from_lists(cls, y_true: Sequence[Any], y_pred: Sequence[Any], *, confidence: Sequence[float] | None = None,
                   probabilities: Sequence[Mapping[Any, float] | str | None] | None = None,
                   correct: Sequence[float] | None = None, row_names: Sequence[Any] | None = None) -> CorpusData:
        """Build from plain lists; ``correct`` defaults to output == target, ``confidence`` to the
        probability of the output when probabilities are given."""
        t = np.array(["" if v is None else str(v).strip() for v in y_true], dtype=object)
        p = np.array(["" if v is None else str(v).strip() for v in y_pred], dtype=object)
        n = len(t)
        probs = [_as_probabilities(x) for x in (probabilities if probabilities is not None else [None] * n)]
        conf = np.full(n, np.nan) if confidence is None else np.array(
            [np.nan if c is None else float(c) for c in confidence], dtype=np.float64)
        for i, pr in enumerate(probs):
            if pr is not None and np.isnan(conf[i]):
                conf[i] = pr.get(p[i], max(pr.values(), default=np.nan))
        ok = (t == p).astype(np.float64) if correct is None else np.asarray(correct, dtype=np.float64)
        names = [str(r) for r in row_names] if row_names is not None else [f"row {i}" for i in range(n)]
        return cls(t, p, ok, conf, probs, names)

    def __len__(self) -> int:
        return len(self.y_true)

    def labels(self) -> list[str]:
        """Every label in targets, outputs and probability keys, sorted as scikit-learn sorts them."""
        seen = set(self.y_true.tolist()) | set(self.y_pred.tolist())
        for pr in self.probabilities:
            if pr is not None:
                seen |= set(pr)
        seen.discard("")
        return sorted(seen)


def _as_probabilities(value: Any) -> dict[str, float] | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, str):
        value = json.loads(value) if value.strip() else None
        if value is None:
            return None
    return {str(k).strip(): float(v) for k, v in dict(value).items()}


def positive_label(labels: Sequence[str], positive: str | None = None, *, metric: str = "auroc") -> str:
    """The positive class of a two-label problem: the one named, else one that is clear (1, yes, true, positive).

    >>> positive_label(["no", "yes"]), positive_label(["cat", "dog"], "dog")
    ('yes', 'dog')
    >>> positive_label(["cat", "dog"])
    Traceback (most recent call last):
    ...
    gengap._errors.DataError: auroc: which label is the positive class, 'cat' or 'dog'? Name it: --metric 'auroc:positive=cat'.
    """
    if positive is not None:
        return str(positive).strip()
    lowered = {str(lab).lower(): str(lab) for lab in labels}
    found = _POSITIVE.get(frozenset(lowered))
    if found is not None and len(labels) == 2:
        return lowered[found]
    if len(labels) == 2:
        a, b = labels
        raise DataError(f"{metric}: which label is the positive class, '{a}' or '{b}'? Name it: --metric '{metric}:positive={a}'.")
    raise DataError(f"{metric}: a positive class is asked for but the rows hold {len(labels)} labels "
                    f"({', '.join(map(repr, labels[:6]))}).")


# ---------------------------------------------------------------------------------------------
# Checks shared by the metrics that read confidences


def check_confidences(data: CorpusData, metric: str) -> None:
    """Every row has a confidence in [0, 1] and probabilities that sum to 1; else a DataError naming rows."""
    missing = np.flatnonzero(np.isnan(data.confidence))
    if len(missing) == len(data):
        raise DataError(f"{metric} needs a confidence per output and these rows have none. {HOW_TO_GIVE_CONFIDENCES}")
    if len(missing):
        raise DataError(f"{metric} needs a confidence per output; {len(missing)} of {len(data)} rows have none "
                        f"({_names(data, missing)}).")
    bad = np.flatnonzero((data.confidence < 0) | (data.confidence > 1))
    if len(bad):
        raise DataError(f"{metric}: confidences must lie in [0, 1]; {len(bad)} rows do not ({_names(data, bad)}, "
                        f"e.g. {data.confidence[bad[0]]:g}). Give probabilities, not scores or percentages.")
    off = [i for i, pr in enumerate(data.probabilities)
           if pr is not None and (abs(sum(pr.values()) - 1) > PROBABILITY_TOLERANCE or min(pr.values(), default=0) < 0)
           ] if any(pr is not None for pr in data.probabilities) else []
    if off:
        total = sum(data.probabilities[off[0]].values())  # type: ignore[union-attr]
        raise DataError(f"{metric}: the probabilities of {len(off)} rows do not sum to 1 within {PROBABILITY_TOLERANCE:g} "
                        f"({_names(data, off)}; the first sums to {total:.4g}). Normalize them (softmax of scores).")


def _names(data: CorpusData, idx: Sequence[int] | np.ndarray, k: int = 3) -> str:
    shown = ", ".join(data.row_names[int(i)] for i in list(idx)[:k])
    return shown + (f" and {len(idx) - k} more" if len(idx) > k else "")


def positive_scores(data: CorpusData, positive: str) -> np.ndarray:
    """Each row's probability of the positive label: from its probabilities, else from the confidence in its output."""
    out = np.where(data.y_pred == positive, data.confidence, 1.0 - data.confidence).astype(np.float64)
    if all(pr is None for pr in data.probabilities):
        return out
    for i, pr in enumerate(data.probabilities):
        if pr is not None:
            out[i] = pr[positive] if positive in pr else 1.0 - sum(pr.values())
    return out


def probability_matrix(data: CorpusData, labels: Sequence[str], metric: str) -> np.ndarray:
    """Rows x labels probabilities; a DataError when some row gives only a confidence."""
    missing = [i for i, pr in enumerate(data.probabilities) if pr is None]
    if missing:
        raise DataError(f"{metric} on {len(labels)} labels needs a probability per label for every row; {len(missing)} "
                        f"rows give only a confidence in their output ({_names(data, missing)}). Return "
                        "{'output': label, 'probabilities': {label: p, ...}} (scikit-learn: predict_proba).")
    index = {lab: j for j, lab in enumerate(labels)}
    mat = np.zeros((len(data), len(labels)))
    for i, pr in enumerate(data.probabilities):
        for lab, p in pr.items():  # type: ignore[union-attr]
            mat[i, index[lab]] = p
    return mat


# ---------------------------------------------------------------------------------------------
# Weighted statistics: W has shape (B, n), one row of weights per resample


def _tie_groups(scores: np.ndarray, descending: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The sort order of ``scores`` and the start of each run of equal scores in it."""
    order = np.argsort(-scores if descending else scores, kind="stable")
    s = scores[order]
    starts = np.flatnonzero(np.concatenate([[True], s[1:] != s[:-1]]))
    return order, starts


def _group_sums(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Each tie group's sum along axis 1: the values themselves when no two scores tie (the common case,
    and the costly one at 100,000 rows: a reduce per element)."""
    return values if starts.size == values.shape[1] else np.add.reduceat(values, starts, axis=1)


def weighted_auc(y: np.ndarray, scores: np.ndarray, W: np.ndarray) -> np.ndarray:
    """AUC (ties count one half) of ``scores`` for positives ``y`` (bool) under each row of weights."""
    order, starts = _tie_groups(scores)
    yo = y[order]
    Wo = np.take(W, order, axis=1)  # = W[:, order], twice as fast
    Wp = _group_sums(Wo * yo, starts)
    Wn = _group_sums(Wo, starts) - Wp
    below = np.cumsum(Wn, axis=1) - Wn
    num = np.sum(Wp * (below + 0.5 * Wn), axis=1)
    den = Wp.sum(axis=1) * Wn.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def weighted_average_precision(y: np.ndarray, scores: np.ndarray, W: np.ndarray) -> np.ndarray:
    """scikit-learn's average precision (sum over thresholds of recall step x precision), weighted.

    Only thresholds (tie groups) holding a positive add recall, so precision is read at those alone:
    one cumulative sum over every row (the weight seen so far), the rest over the positives' groups."""
    order, starts = _tie_groups(scores, descending=True)
    yo = y[order]
    Wo = np.take(W, order, axis=1)
    if starts.size == yo.size:  # no ties: a group per row
        hit = np.flatnonzero(yo)
        tp_hit = np.take(Wo, hit, axis=1)
    else:
        hit = np.flatnonzero(np.add.reduceat(yo.astype(np.float64), starts) > 0)
        tp_hit = np.take(np.add.reduceat(Wo * yo, starts, axis=1), hit, axis=1)
    seen = np.take(np.cumsum(_group_sums(Wo, starts), axis=1), hit, axis=1)  # true + false positives
    tp = np.cumsum(tp_hit, axis=1)
    if tp.shape[1] == 0:
        return np.full(len(W), np.nan)
    total = tp[:, -1:]
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(seen > 0, tp / np.where(seen > 0, seen, 1), 1.0)
        recall = tp / np.where(total > 0, total, 1)
    ap = np.sum(_steps(recall) * precision, axis=1)
    return np.where(total[:, 0] > 0, ap, np.nan)


def _steps(cumulative: np.ndarray) -> np.ndarray:
    """The increments of each row of a cumulative sum from 0 (``np.diff`` after a column of zeros, without the copy)."""
    out = np.empty_like(cumulative)
    out[:, :1] = cumulative[:, :1]
    np.subtract(cumulative[:, 1:], cumulative[:, :-1], out=out[:, 1:])
    return out


def _risk_points(correct: np.ndarray, confidence: np.ndarray, W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative weight and cumulative errors at the end of each tie group, most confident first."""
    order, starts = _tie_groups(confidence, descending=True)
    Wo = np.take(W, order, axis=1)  # = W[:, order], twice as fast
    cov = np.cumsum(_group_sums(Wo, starts), axis=1)
    err = np.cumsum(_group_sums(Wo * (1.0 - correct[order]), starts), axis=1)
    return cov, err


def weighted_aurc(correct: np.ndarray, confidence: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Area under the risk-coverage curve: the error rate of the rows at least as confident as each
    distinct confidence, weighted by the coverage that confidence adds (tied rows enter together)."""
    cov, err = _risk_points(correct, confidence, W)
    risk = np.divide(err, cov, out=np.zeros_like(err), where=cov > 0)  # 0 before any weight
    risk *= _steps(cov)
    return np.sum(risk, axis=1) / cov[:, -1]


def weighted_selective_accuracy(correct: np.ndarray, confidence: np.ndarray, W: np.ndarray, coverage: float) -> np.ndarray:
    """Accuracy of the most confident ``coverage`` share of the rows (a tie group at the cut enters in part)."""
    cov, err = _risk_points(correct, confidence, W)
    target = coverage * cov[:, -1]
    # np.interp(target, [0, cov...], [0, err...]) row by row, vectorized: the last point at or below the
    # target, and the straight line to the next one (equal points carry equal errors: zero-weight groups)
    j = np.sum(cov <= target[:, None], axis=1) - 1  # index into cov; -1 is the point (0, 0) before it
    rows = np.arange(len(W))
    x0 = np.where(j >= 0, cov[rows, np.maximum(j, 0)], 0.0)
    e0 = np.where(j >= 0, err[rows, np.maximum(j, 0)], 0.0)
    last = j >= cov.shape[1] - 1
    x1, e1 = cov[rows, np.minimum(j + 1, cov.shape[1] - 1)], err[rows, np.minimum(j + 1, cov.shape[1] - 1)]
    with np.errstate(invalid="ignore", divide="ignore"):
        between = (e1 - e0) / (x1 - x0) * (target - x0) + e0
    e = np.where((x0 == target) | last, e0, between)
    return 1.0 - e / target


def ece_bins(confidence: np.ndarray, *, adaptive: bool, n_bins: int = ECE_BINS) -> np.ndarray:
    """Each row's bin: equal-width bins (0, 1/15], (1/15, 2/15], ... (0 in the first), or equal-mass
    bins cut at the confidence quantiles (``adaptive``)."""
    if adaptive:
        edges = np.quantile(confidence, np.linspace(0, 1, n_bins + 1)[1:-1])
        return np.searchsorted(edges, confidence, side="left")
    return np.clip(np.ceil(confidence * n_bins).astype(np.int64) - 1, 0, n_bins - 1)


def weighted_ece(correct: np.ndarray, confidence: np.ndarray, bins: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Sum over bins of (bin weight / total) x |mean confidence - accuracy| in the bin."""
    order = np.argsort(bins, kind="stable")
    b = bins[order]
    starts = np.flatnonzero(np.concatenate([[True], b[1:] != b[:-1]]))
    Wo = np.take(W, order, axis=1)  # = W[:, order], twice as fast
    gap = np.add.reduceat(Wo * (confidence[order] - correct[order]), starts, axis=1)
    return np.abs(gap).sum(axis=1) / Wo.sum(axis=1)


def weighted_l2_calibration_error(correct: np.ndarray, confidence: np.ndarray, bins: np.ndarray, W: np.ndarray, *,
                                  debiased: bool = True, squared: bool = False) -> np.ndarray:
    """The binned L2 calibration error, sqrt of the sum over bins of (bin weight / total) x (mean
    confidence - accuracy)^2; ``debiased`` subtracts from each bin's squared gap the variance of its
    accuracy, acc (1 - acc) / (n_b - 1), which the plug-in adds on average (Kumar, Liang and Ma 2019,
    "Verified uncertainty calibration"), and floors the sum at 0 before the square root.
    ``squared``: the sum itself, neither floored nor rooted (debiased: an estimate of the squared
    error without its bias, which may fall below 0; its interval is read on this scale).
    """
    order = np.argsort(bins, kind="stable")
    b = bins[order]
    starts = np.flatnonzero(np.concatenate([[True], b[1:] != b[:-1]]))
    Wo = np.take(W, order, axis=1)  # = W[:, order], twice as fast
    n_b = np.add.reduceat(Wo, starts, axis=1)
    right = np.add.reduceat(Wo * correct[order], starts, axis=1)
    conf = np.add.reduceat(Wo * confidence[order], starts, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = np.where(n_b > 0, right / np.where(n_b > 0, n_b, 1), 0.0)
        gap2 = np.where(n_b > 0, (conf / np.where(n_b > 0, n_b, 1) - acc) ** 2, 0.0)
        if debiased:
            gap2 = gap2 - np.where(n_b > 1, acc * (1 - acc) / np.where(n_b > 1, n_b - 1, 1), 0.0)
    total = np.sum(n_b * gap2, axis=1) / n_b.sum(axis=1)
    return total if squared else np.sqrt(np.maximum(total, 0.0))


def confusion_from_counts(counts: np.ndarray, k: int) -> np.ndarray:
    """(B, k*k) cell counts -> (B, k, k) confusion matrices (rows: target, columns: output)."""
    return counts.reshape(len(counts), k, k)


def f1_from_confusion(cm: np.ndarray, average: str) -> np.ndarray:
    tp = np.diagonal(cm, axis1=1, axis2=2)
    if average == "micro":
        return tp.sum(axis=1) / cm.sum(axis=(1, 2))
    true, pred = cm.sum(axis=2), cm.sum(axis=1)
    den = true + pred
    f1 = np.where(den > 0, 2 * tp / np.where(den > 0, den, 1), 0.0)
    return f1.mean(axis=1)


def mcc_from_confusion(cm: np.ndarray) -> np.ndarray:
    t, p = cm.sum(axis=2), cm.sum(axis=1)
    c, s = np.trace(cm, axis1=1, axis2=2), cm.sum(axis=(1, 2))
    cov_ytyp = c * s - np.sum(t * p, axis=1)
    cov_ypyp = s**2 - np.sum(p * p, axis=1)
    cov_ytyt = s**2 - np.sum(t * t, axis=1)
    den = cov_ytyt * cov_ypyp
    return np.where(den > 0, cov_ytyp / np.sqrt(np.where(den > 0, den, 1)), 0.0)


def balanced_accuracy_from_confusion(cm: np.ndarray) -> np.ndarray:
    true = cm.sum(axis=2)
    tp = np.diagonal(cm, axis1=1, axis2=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        recall = np.where(true > 0, tp / np.where(true > 0, true, 1), np.nan)
    return np.nanmean(recall, axis=1)


# ---------------------------------------------------------------------------------------------
# The metrics


@dataclass(frozen=True)
class CorpusMetric:
    """A metric of a whole test part, registered beside the per-example scorers.

    Called like a scorer (``metric(outputs, targets)``) it gives each row's stored score: 1.0
    where the output equals the target after stripping whitespace (what confidences are judged
    against). :meth:`point` gives the corpus figure; :meth:`resample` prepares its bootstrap.

    Attributes
    ----------
    name : the registered name (``--metric NAME``).
    needs : ``"labels"``, ``"confidence"`` or ``"text"``: what each row must carry.
    higher_is_better : False for losses and errors (brier, log_loss, ece, aurc).
    share : True when the figure lies in [0, 1] and reads as a percentage (not for mcc, log_loss, bleu, chrf).
    options : the spec's options (``positive``, ``coverage``).
    row_score : the per-example scorer whose value each row stores (exact match, set when registered).
    """

    name: str
    needs: str
    higher_is_better: bool = True
    share: bool = True
    options: Mapping[str, Any] = field(default_factory=dict)
    row_score: Callable[[Sequence[Any], Sequence[Any]], np.ndarray] | None = field(default=None, repr=False, compare=False)

    def __call__(self, outputs: Sequence[Any], targets: Sequence[Any]) -> np.ndarray:
        if self.row_score is None:
            raise DataError(f"Corpus metric '{self.name}' has no per-row score; take it from gengap.metrics.METRICS.")
        return self.row_score(outputs, targets)

    def with_options(self, **options: Any) -> CorpusMetric:
        allowed = _OPTIONS.get(self.name, ())
        unknown = sorted(set(options) - set(allowed))
        if unknown:
            from gengap._errors import ConfigError

            raise ConfigError(f"Metric '{self.name}' takes no option {', '.join(unknown)}; "
                              f"its options: {', '.join(allowed) or 'none'}.")
        return replace(self, options={**self.options, **options})

    @property
    def spec(self) -> str:
        """The name with its options, as ``--metric`` takes it (``auroc:positive=yes``)."""
        if not self.options:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in sorted(self.options.items()))

    def statistic(self, data: CorpusData) -> Callable[[np.ndarray], np.ndarray]:
        """A function of a (B, n) weight matrix giving the metric under each row of weights; checks the data once."""
        self.check(data)
        return _STATISTICS[self.name](self, data)

    def check(self, data: CorpusData) -> None:
        """A DataError naming the rows when the data cannot give this metric (no rows, bad confidences, one class)."""
        if len(data) == 0:
            raise DataError(f"{self.name}: no rows to compute it from.")
        if self.needs == "confidence":
            check_confidences(data, self.name)
        if self.name in ("auroc", "pr_auc"):
            present = set(data.y_true.tolist()) - {""}
            if len(present) < 2:
                only = next(iter(present), "none")
                raise DataError(f"{self.name} is undefined here: every target is '{only}' (one class only), so there "
                                "is nothing to rank against.")

    def point(self, data: CorpusData) -> float:
        """The metric on the rows as they are (every weight 1)."""
        return float(self.statistic(data)(np.ones((1, len(data))))[0])


def _binary_or_ovr(metric: CorpusMetric, data: CorpusData,
                   fn: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    labels = data.labels()
    present = sorted(set(data.y_true.tolist()) - {""})
    if len(labels) <= 2 or metric.options.get("positive") is not None:
        pos = positive_label(labels, metric.options.get("positive"), metric=metric.spec)
        y = data.y_true == pos
        scores = positive_scores(data, pos)
        return lambda W: fn(y, scores, W)
    mat = probability_matrix(data, labels, metric.name)
    targets = [lab for lab in labels if lab in present]
    index = {lab: j for j, lab in enumerate(labels)}

    def ovr(W: np.ndarray) -> np.ndarray:
        return np.mean([fn(data.y_true == lab, mat[:, index[lab]], W) for lab in targets], axis=0)

    return ovr


def _confusion(metric: CorpusMetric, data: CorpusData, reduce: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    labels = data.labels()
    index = {lab: j for j, lab in enumerate(labels)}
    k = len(labels)
    cell = np.array([index.get(t, 0) * k + index.get(p, 0) for t, p in zip(data.y_true, data.y_pred)], dtype=np.int64)

    def stat(W: np.ndarray) -> np.ndarray:
        counts = np.zeros((len(W), k * k))
        for j in range(k * k):  # k*k is small; a column sum per cell
            hit = cell == j
            if hit.any():
                counts[:, j] = W[:, hit].sum(axis=1)
        return reduce(confusion_from_counts(counts, k))

    stat.cells = cell  # type: ignore[attr-defined]  # what the multinomial bootstrap of the cells resamples
    stat.n_labels = k  # type: ignore[attr-defined]
    stat.reduce = reduce  # type: ignore[attr-defined]
    return stat


def _row_losses(metric: CorpusMetric, data: CorpusData) -> np.ndarray:
    """Per-row Brier or log loss (the corpus figure is their mean)."""
    labels = data.labels()
    if len(labels) <= 2:
        pos = positive_label(labels, metric.options.get("positive"), metric=metric.spec) if len(labels) == 2 else labels[0]
        y = (data.y_true == pos).astype(np.float64)
        p = positive_scores(data, pos)
        if metric.name == "brier":
            return (p - y) ** 2
        p_true = np.where(y == 1, p, 1 - p)
    else:
        mat = probability_matrix(data, labels, metric.name)
        onehot = np.array([[t == lab for lab in labels] for t in data.y_true], dtype=np.float64)
        if metric.name == "brier":
            return ((mat - onehot) ** 2).sum(axis=1)
        p_true = (mat * onehot).sum(axis=1)
    eps = np.finfo(np.float64).eps
    return -np.log(np.clip(p_true, eps, 1 - eps))


def _mean_of(losses: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    stat = lambda W: (W @ losses) / W.sum(axis=1)
    stat.per_row = losses  # type: ignore[attr-defined]  # a mean: intervals resample the per-row values
    return stat


def _ece(metric: CorpusMetric, data: CorpusData) -> Callable[[np.ndarray], np.ndarray]:
    bins = ece_bins(data.confidence, adaptive=metric.name == "ece_adaptive")

    def stat(W: np.ndarray) -> np.ndarray:
        return weighted_ece(data.correct, data.confidence, bins, W)

    stat.bins = bins  # type: ignore[attr-defined]
    return stat


def _ece_debiased(metric: CorpusMetric, data: CorpusData) -> Callable[[np.ndarray], np.ndarray]:
    bins = ece_bins(data.confidence, adaptive=True)

    def stat(W: np.ndarray) -> np.ndarray:
        return weighted_l2_calibration_error(data.correct, data.confidence, bins, W)

    def squared(W: np.ndarray) -> np.ndarray:  # the estimate before the floor and the root: its interval's scale
        return weighted_l2_calibration_error(data.correct, data.confidence, bins, W, squared=True)

    stat.squared = squared  # type: ignore[attr-defined]
    return stat


def _selective(metric: CorpusMetric, data: CorpusData) -> Callable[[np.ndarray], np.ndarray]:
    coverage = float(metric.options.get("coverage", SELECTIVE_COVERAGE))
    if not 0 < coverage <= 1:
        raise DataError(f"{metric.spec}: coverage must be in (0, 1], e.g. 0.8.")
    return lambda W: weighted_selective_accuracy(data.correct, data.confidence, W, coverage)


def _sacre(metric: CorpusMetric, data: CorpusData) -> Callable[[np.ndarray], np.ndarray]:
    from gengap._optional import require

    sacrebleu = require("sacrebleu", extra="text-metrics", purpose=f"the {metric.name} metric")
    scorer = sacrebleu.metrics.BLEU() if metric.name == "bleu" else sacrebleu.metrics.CHRF()
    stats = np.asarray(scorer._extract_corpus_statistics(list(data.y_pred), [list(data.y_true)]), dtype=np.float64)

    def stat(W: np.ndarray) -> np.ndarray:
        sums = W @ stats
        return np.array([scorer._compute_score_from_stats(list(_int_if_whole(s))).score for s in sums])

    return stat


def _int_if_whole(values: np.ndarray) -> list[float | int]:
    return [int(v) if float(v).is_integer() else float(v) for v in values]


_STATISTICS: dict[str, Callable[[CorpusMetric, CorpusData], Callable[[np.ndarray], np.ndarray]]] = {
    "auroc": lambda m, d: _binary_or_ovr(m, d, weighted_auc),
    "pr_auc": lambda m, d: _binary_or_ovr(m, d, weighted_average_precision),
    "macro_f1": lambda m, d: _confusion(m, d, lambda cm: f1_from_confusion(cm, "macro")),
    "micro_f1": lambda m, d: _confusion(m, d, lambda cm: f1_from_confusion(cm, "micro")),
    "mcc": lambda m, d: _confusion(m, d, mcc_from_confusion),
    "balanced_accuracy": lambda m, d: _confusion(m, d, balanced_accuracy_from_confusion),
    "brier": lambda m, d: _mean_of(_row_losses(m, d)),
    "log_loss": lambda m, d: _mean_of(_row_losses(m, d)),
    "ece": _ece,
    "ece_adaptive": _ece,
    "ece_debiased": _ece_debiased,
    "aurc": lambda m, d: (lambda W: weighted_aurc(d.correct, d.confidence, W)),
    "selective_accuracy": _selective,
    "bleu": _sacre,
    "chrf": _sacre,
}

_OPTIONS: dict[str, tuple[str, ...]] = {"auroc": ("positive",), "pr_auc": ("positive",), "brier": ("positive",),
                                        "log_loss": ("positive",), "selective_accuracy": ("coverage",)}

#: Every corpus metric by name.
METRIC_CLASSES: dict[str, CorpusMetric] = {
    "auroc": CorpusMetric("auroc", "confidence"),
    "pr_auc": CorpusMetric("pr_auc", "confidence"),
    "macro_f1": CorpusMetric("macro_f1", "labels"),
    "micro_f1": CorpusMetric("micro_f1", "labels"),
    "mcc": CorpusMetric("mcc", "labels", share=False),
    "balanced_accuracy": CorpusMetric("balanced_accuracy", "labels"),
    "brier": CorpusMetric("brier", "confidence", higher_is_better=False),
    "log_loss": CorpusMetric("log_loss", "confidence", higher_is_better=False, share=False),
    "ece": CorpusMetric("ece", "confidence", higher_is_better=False),
    "ece_adaptive": CorpusMetric("ece_adaptive", "confidence", higher_is_better=False),
    "ece_debiased": CorpusMetric("ece_debiased", "confidence", higher_is_better=False),
    "aurc": CorpusMetric("aurc", "confidence", higher_is_better=False),
    "selective_accuracy": CorpusMetric("selective_accuracy", "confidence"),
    "bleu": CorpusMetric("bleu", "text", share=False),
    "chrf": CorpusMetric("chrf", "text", share=False),
}
