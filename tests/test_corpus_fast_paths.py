"""The faster weighted statistics of corpus metrics give the same values as the straightforward forms
they replaced (a reduce per tie group, ``np.diff`` of a padded copy, ``np.interp`` row by row, precision
read at every row): bit for bit for AUROC, AURC and selective accuracy; for average precision, which now
sums over the positives' thresholds alone, to the last bits of a float (the sum adds no zeros), with and
without ties and with rows of zero weight."""

from __future__ import annotations

import numpy as np
import pytest

from gengap.analysis.resample import bootstrap_weights
from gengap.metrics_corpus import _tie_groups, weighted_auc, weighted_aurc, weighted_average_precision, weighted_selective_accuracy


def _auc_written_out(y: np.ndarray, scores: np.ndarray, W: np.ndarray) -> np.ndarray:
    order, starts = _tie_groups(scores)
    Wo = W[:, order]
    Wp = np.add.reduceat(Wo * y[order], starts, axis=1)
    Wn = np.add.reduceat(Wo, starts, axis=1) - Wp
    below = np.cumsum(Wn, axis=1) - Wn
    num = np.sum(Wp * (below + 0.5 * Wn), axis=1)
    den = Wp.sum(axis=1) * Wn.sum(axis=1)
    return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def _ap_written_out(y: np.ndarray, scores: np.ndarray, W: np.ndarray) -> np.ndarray:
    order, starts = _tie_groups(scores, descending=True)
    Wo = W[:, order]
    tp_g = np.add.reduceat(Wo * y[order], starts, axis=1)
    tp = np.cumsum(tp_g, axis=1)
    fp = np.cumsum(np.add.reduceat(Wo, starts, axis=1) - tp_g, axis=1)
    total = tp[:, -1:]
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(tp + fp > 0, tp / np.where(tp + fp > 0, tp + fp, 1), 1.0)
        recall = tp / np.where(total > 0, total, 1)
    step = np.diff(np.concatenate([np.zeros((len(W), 1)), recall], axis=1), axis=1)
    return np.where(total[:, 0] > 0, np.sum(step * precision, axis=1), np.nan)


def _risk_written_out(correct: np.ndarray, confidence: np.ndarray, W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    order, starts = _tie_groups(confidence, descending=True)
    Wo = W[:, order]
    cov = np.cumsum(np.add.reduceat(Wo, starts, axis=1), axis=1)
    err = np.cumsum(np.add.reduceat(Wo * (1.0 - correct[order]), starts, axis=1), axis=1)
    return cov, err


def _aurc_written_out(correct: np.ndarray, confidence: np.ndarray, W: np.ndarray) -> np.ndarray:
    cov, err = _risk_written_out(correct, confidence, W)
    step = np.diff(np.concatenate([np.zeros((len(W), 1)), cov], axis=1), axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        risk = np.where(cov > 0, err / np.where(cov > 0, cov, 1), 0.0)
    return np.sum(step * risk, axis=1) / cov[:, -1]


def _selective_written_out(correct: np.ndarray, confidence: np.ndarray, W: np.ndarray, coverage: float) -> np.ndarray:
    cov, err = _risk_written_out(correct, confidence, W)
    out = np.empty(len(W))
    for b in range(len(W)):
        total = cov[b, -1]
        e = np.interp(coverage * total, np.concatenate([[0.0], cov[b]]), np.concatenate([[0.0], err[b]]))
        out[b] = 1.0 - e / (coverage * total)
    return out


@pytest.mark.parametrize("ties", [False, True])
def test_the_fast_weighted_statistics_equal_their_written_out_forms_bit_for_bit(ties: bool) -> None:
    rng = np.random.default_rng(5)
    n = 3_000
    y = rng.uniform(size=n) < 0.3
    scores = np.round(rng.uniform(size=n), 2) if ties else rng.uniform(size=n)
    correct = (rng.uniform(size=n) < scores).astype(float)
    boot = bootstrap_weights(n, 60, rng)
    jack = np.ones((4, n))
    jack[np.arange(4), rng.integers(0, n, 4)] = 0.0
    few = np.zeros((3, n))  # most rows weigh nothing: long runs of equal coverage
    few[:, :40] = rng.integers(0, 3, size=(3, 40))
    few[:, 0] = 1.0
    for W in (np.ones((1, n)), boot, jack, few):
        assert np.array_equal(weighted_auc(y, scores, W), _auc_written_out(y, scores, W), equal_nan=True)
        np.testing.assert_allclose(weighted_average_precision(y, scores, W), _ap_written_out(y, scores, W), rtol=1e-13)
        assert np.array_equal(weighted_aurc(correct, scores, W), _aurc_written_out(correct, scores, W))
        for coverage in (0.8, 0.5, 1.0, 0.013):
            assert np.array_equal(weighted_selective_accuracy(correct, scores, W, coverage),
                                  _selective_written_out(correct, scores, W, coverage))


def test_selective_accuracy_at_a_coverage_that_lands_on_a_point_or_inside_a_tie_group() -> None:
    correct = np.array([1.0, 0.0, 1.0, 1.0, 0.0])
    confidence = np.array([0.9, 0.8, 0.8, 0.6, 0.5])  # the 0.8s enter together
    W = np.ones((1, 5))
    assert weighted_selective_accuracy(correct, confidence, W, 0.2)[0] == 1.0  # the most confident row, right
    # 40% of rows: one and a half of the tied group's... its two rows enter in part: 1 row + half of 2 (1 error)
    assert weighted_selective_accuracy(correct, confidence, W, 0.4)[0] == pytest.approx(1 - 0.5 / 2)
    assert weighted_selective_accuracy(correct, confidence, W, 1.0)[0] == pytest.approx(3 / 5)
