"""The exact truths of the corpus-metrics benchmark: against scikit-learn on a weighted grid of the
score, and against simulated rows scored by gengap's own metrics."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from benchmarks.bench_corpus_metrics import METRICS, as_data, draw
from benchmarks.corpus_truth import TEMPER, exact_truths
from scipy.special import expit, ndtr
from scipy.stats import norm

from gengap.metrics import get_metric


def _weighted_grid(prev: float, step: float = 2e-4) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every score on a fine grid twice, once per class, weighted by its population density: scikit-learn's
    metrics with these weights are Riemann sums of the population values."""
    s = np.arange(-12.0, 13.0, step) + step / 2
    y = np.concatenate([np.ones_like(s), np.zeros_like(s)]).astype(int)
    w = np.concatenate([prev * norm.pdf(s - 1), (1 - prev) * norm.pdf(s)]) * step
    z = np.log(prev / (1 - prev)) + np.concatenate([s, s]) - 0.5
    return y, expit(TEMPER * z), w


@pytest.mark.parametrize("prev", [0.01, 0.1, 0.5])
def test_the_exact_truths_equal_scikit_learns_metrics_on_a_density_weighted_grid(prev: float) -> None:
    truth = exact_truths(prev)
    y, p, w = _weighted_grid(prev)
    pred = (p > 0.5).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        peer = {"auroc": skm.roc_auc_score(y, p, sample_weight=w),
                "pr_auc": skm.average_precision_score(y, p, sample_weight=w),
                "macro_f1": skm.f1_score(y, pred, average="macro", sample_weight=w),
                "micro_f1": skm.f1_score(y, pred, average="micro", sample_weight=w),
                "mcc": skm.matthews_corrcoef(y, pred, sample_weight=w),
                "balanced_accuracy": skm.balanced_accuracy_score(y, pred, sample_weight=w),
                "brier": skm.brier_score_loss(y, p, sample_weight=w),
                "log_loss": skm.log_loss(y, p, sample_weight=w)}
        # scikit-learn's step-wise average precision on a grid errs by O(step): Richardson's extrapolation to step 0
        y2, p2, w2 = _weighted_grid(prev, step=4e-4)
        peer["pr_auc"] = 2 * peer["pr_auc"] - skm.average_precision_score(y2, p2, sample_weight=w2)
    for metric, value in peer.items():
        # the grid's cut at p = 1/2 falls within a step of the exact one: the label metrics agree to about a step's mass
        tol = 2e-4 if metric in ("macro_f1", "micro_f1", "mcc", "balanced_accuracy") else 1e-6
        assert truth[metric] == pytest.approx(value, abs=tol), metric
    # calibration: the right rate at each score is expit(|z|), the confidence expit(1.5 |z|)
    conf = np.maximum(p, 1 - p)
    right = expit(np.abs(np.log(prev / (1 - prev)) + np.arange(-12.0, 13.0, 2e-4) + 1e-4 - 0.5))
    gap = np.sum(w * (conf - np.concatenate([right, right])))
    assert truth["ece_unbinned"] == pytest.approx(gap, abs=1e-8)


def test_the_closed_forms_agree_with_their_integrals() -> None:
    for prev in (0.01, 0.1, 0.5):
        t = exact_truths(prev)
        assert t["auroc"] == pytest.approx(float(ndtr(1 / math.sqrt(2))), abs=1e-14)
        assert t["auroc_quadrature"] == pytest.approx(t["auroc"], abs=1e-10)
        # overconfident at every confidence: every bin's gap has one sign, so binned L1 = unbinned, whatever the bins
        assert t["ece"] == pytest.approx(t["ece_unbinned"], abs=1e-10)
        assert t["ece_adaptive"] == pytest.approx(t["ece_unbinned"], abs=1e-10)
        # the L2 error of 15 equal-mass bins sits between the L1 error and the unbinned L2 error
        assert t["ece"] < t["ece_debiased"]
        assert 0 < t["aurc"] < 1 - t["micro_f1"]  # the most confident rows err less than all of them
        assert t["selective_accuracy"] > t["micro_f1"]
    balanced = exact_truths(0.5)  # symmetric classes: accuracy, balanced accuracy and macro-F1 coincide
    assert balanced["micro_f1"] == pytest.approx(float(ndtr(0.5)), abs=1e-14)
    assert balanced["macro_f1"] == pytest.approx(balanced["balanced_accuracy"], abs=1e-14)


@pytest.mark.parametrize("prev", [0.1, 0.5])
def test_the_exact_truths_lie_within_the_monte_carlo_error_of_simulated_rows(prev: float) -> None:
    truth = exact_truths(prev)
    rng = np.random.default_rng([7, int(prev * 100)])
    values: dict[str, list[float]] = {m: [] for m in METRICS}
    for _ in range(12):
        data = as_data(*draw(75_000, prev, rng))
        for m in METRICS:
            values[m].append(get_metric(m).point(data))  # type: ignore[attr-defined]
    for m in METRICS:
        v = np.asarray(values[m])
        se = v.std(ddof=1) / math.sqrt(v.size)
        assert abs(v.mean() - truth[m]) < 4.5 * se + 1e-6, (m, v.mean(), truth[m], se)


def test_the_old_monte_carlo_truth_was_off_by_a_fifth_of_an_interval_at_100000_rows() -> None:
    """What the exact truths fix: the 2,000,000-draw truth of the Brier score at prevalence 0.5 is off by
    a visible share of the standard error of a 100,000-row estimate."""
    from benchmarks.bench_corpus_metrics import truth_mc

    exact = exact_truths(0.5)["brier"]
    old = truth_mc(0.5)["brier"]
    y, p = draw(400_000, 0.5, np.random.default_rng(3))
    se_100k = np.std((p - y) ** 2) / math.sqrt(100_000)
    assert 0.02 < abs(old - exact) / se_100k < 1.0
    assert abs(old - exact) < 4 * np.std((p - y) ** 2) / math.sqrt(2_000_000)
