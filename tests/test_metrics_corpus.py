"""Corpus metrics: point values equal scikit-learn's and sacrebleu's; bad input gets one clear message."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics as skm

from gengap._errors import ConfigError, DataError
from gengap.metrics import METRICS, get_metric, is_corpus_metric
from gengap.metrics_corpus import ECE_BINS, CorpusData


def _binary(n: int = 300, seed: int = 1, ties: bool = False) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    p = np.clip(0.5 + (y - 0.5) * 0.3 + rng.normal(0, 0.25, n), 0.001, 0.999)
    if ties:
        p = np.round(p, 1).clip(0.05, 0.95)
    return y, p


def _binary_data(y: np.ndarray, p: np.ndarray) -> CorpusData:
    pred = (p > 0.5).astype(int)
    return CorpusData.from_lists(y.astype(str), pred.astype(str),
                                 probabilities=[{"1": float(q), "0": float(1 - q)} for q in p])


def _multi(n: int = 400, k: int = 4, seed: int = 2) -> tuple[np.ndarray, np.ndarray, list[str]]:
    rng = np.random.default_rng(seed)
    labels = [f"c{j}" for j in range(k)]
    y = rng.integers(0, k, n)
    logits = rng.normal(0, 1, (n, k)) + 1.5 * np.eye(k)[y]
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    return y, p, labels


def _multi_data(y: np.ndarray, p: np.ndarray, labels: list[str]) -> CorpusData:
    pred = p.argmax(axis=1)
    return CorpusData.from_lists([labels[i] for i in y], [labels[i] for i in pred],
                                 probabilities=[dict(zip(labels, row.tolist())) for row in p])


@pytest.mark.parametrize("ties", [False, True])
def test_binary_point_values_equal_scikit_learn(ties: bool) -> None:
    y, p = _binary(ties=ties)
    data = _binary_data(y, p)
    pred = (p > 0.5).astype(int)
    expected = {
        "auroc": skm.roc_auc_score(y, p),
        "pr_auc": skm.average_precision_score(y, p),
        "macro_f1": skm.f1_score(y, pred, average="macro"),
        "micro_f1": skm.f1_score(y, pred, average="micro"),
        "mcc": skm.matthews_corrcoef(y, pred),
        "balanced_accuracy": skm.balanced_accuracy_score(y, pred),
        "brier": skm.brier_score_loss(y, p),
        "log_loss": skm.log_loss(y, p),
    }
    for name, value in expected.items():
        assert METRICS[name].point(data) == pytest.approx(value, abs=1e-9), name


def test_multiclass_point_values_equal_scikit_learn() -> None:
    y, p, labels = _multi()
    data = _multi_data(y, p, labels)
    pred = p.argmax(axis=1)
    onehot = np.eye(len(labels))[y]
    expected = {
        "auroc": skm.roc_auc_score(y, p, multi_class="ovr", average="macro"),
        "pr_auc": skm.average_precision_score(onehot, p, average="macro"),
        "macro_f1": skm.f1_score(y, pred, average="macro"),
        "micro_f1": skm.f1_score(y, pred, average="micro"),
        "mcc": skm.matthews_corrcoef(y, pred),
        "balanced_accuracy": skm.balanced_accuracy_score(y, pred),
        "log_loss": skm.log_loss(y, p),
        "brier": float(np.mean(np.sum((p - onehot) ** 2, axis=1))),
    }
    for name, value in expected.items():
        assert METRICS[name].point(data) == pytest.approx(value, abs=1e-9), name


def test_confidence_only_binary_gives_the_positive_class_probability() -> None:
    """A model that gives only its confidence in its output: p(positive) = conf or 1 - conf."""
    y, p = _binary()
    pred = (p > 0.5).astype(int)
    data = CorpusData.from_lists(y.astype(str), pred.astype(str), confidence=np.where(pred == 1, p, 1 - p).tolist())
    assert METRICS["auroc"].point(data) == pytest.approx(skm.roc_auc_score(y, p), abs=1e-9)


def test_ece_matches_the_binned_definition() -> None:
    rng = np.random.default_rng(3)
    conf = rng.uniform(0.3, 1.0, 1000)
    correct = (rng.uniform(size=1000) < conf * 0.9).astype(float)
    data = CorpusData.from_lists(["a"] * 1000, ["a"] * 1000, confidence=conf.tolist(), correct=correct.tolist())
    expected = 0.0
    for k in range(ECE_BINS):
        hit = (conf > k / ECE_BINS) & (conf <= (k + 1) / ECE_BINS)
        if hit.any():
            expected += hit.mean() * abs(conf[hit].mean() - correct[hit].mean())
    assert METRICS["ece"].point(data) == pytest.approx(expected, abs=1e-12)
    edges = np.quantile(conf, np.linspace(0, 1, ECE_BINS + 1))
    adaptive = 0.0
    for k in range(ECE_BINS):
        hit = (conf > edges[k]) & (conf <= edges[k + 1]) if k else (conf <= edges[1])
        adaptive += hit.mean() * abs(conf[hit].mean() - correct[hit].mean())
    assert METRICS["ece_adaptive"].point(data) == pytest.approx(adaptive, abs=1e-12)


def test_aurc_and_selective_accuracy_match_their_definitions() -> None:
    rng = np.random.default_rng(4)
    conf = rng.uniform(size=500)  # no ties
    correct = (rng.uniform(size=500) < conf).astype(float)
    data = CorpusData.from_lists(["a"] * 500, ["a"] * 500, confidence=conf.tolist(), correct=correct.tolist())
    order = np.argsort(-conf)
    risks = np.cumsum(1 - correct[order]) / np.arange(1, 501)
    assert METRICS["aurc"].point(data) == pytest.approx(risks.mean(), abs=1e-12)
    top = order[:250]
    assert get_metric("selective_accuracy:coverage=0.5").point(data) == pytest.approx(correct[top].mean(), abs=1e-12)


def test_bleu_and_chrf_equal_sacrebleu() -> None:
    sacrebleu = pytest.importorskip("sacrebleu")
    refs = ["the cat sat on the mat", "a quick brown fox jumps", "hello world", "we go to the park today"] * 5
    hyps = ["the cat sat on a mat", "a fast brown fox jumped", "hello there world", "we went to the park"] * 5
    data = CorpusData.from_lists(refs, hyps)
    assert METRICS["bleu"].point(data) == pytest.approx(sacrebleu.corpus_bleu(hyps, [refs]).score, abs=1e-9)
    assert METRICS["chrf"].point(data) == pytest.approx(sacrebleu.corpus_chrf(hyps, [refs]).score, abs=1e-9)


def test_corpus_metrics_are_in_the_one_registry() -> None:
    for name in ("auroc", "pr_auc", "macro_f1", "micro_f1", "mcc", "balanced_accuracy", "brier", "log_loss", "ece",
                 "ece_adaptive", "aurc", "selective_accuracy", "bleu", "chrf"):
        assert name in METRICS and is_corpus_metric(name)
    assert not is_corpus_metric("exact_match")
    assert get_metric("auroc:positive=yes").spec == "auroc:positive=yes"
    with pytest.raises(ConfigError, match="takes no option coverage"):
        get_metric("auroc:coverage=0.5")
    with pytest.raises(ConfigError, match="takes no options"):
        get_metric("exact_match:x=1")


# ------------------------------------------------------------------ bad input: one clear message each


def test_an_unclear_positive_label_is_asked_for() -> None:
    data = CorpusData.from_lists(["cat", "dog"] * 10, ["cat"] * 20, confidence=[0.7] * 20)
    with pytest.raises(DataError, match="which label is the positive class, 'cat' or 'dog'.*auroc:positive=cat"):
        METRICS["auroc"].point(data)
    assert 0 <= get_metric("auroc:positive=dog").point(data) <= 1


def test_one_class_only_makes_auroc_undefined() -> None:
    data = CorpusData.from_lists(["1"] * 20, ["1"] * 10 + ["0"] * 10, confidence=[0.8] * 20)
    with pytest.raises(DataError, match="undefined here: every target is '1'"):
        METRICS["auroc"].point(data)


def test_probabilities_not_summing_to_one_name_the_rows() -> None:
    probs = [{"1": 0.6, "0": 0.4}] * 10 + [{"1": 0.6, "0": 0.6}] * 2
    data = CorpusData.from_lists(["1", "0"] * 6, ["1"] * 12, probabilities=probs, row_names=[f"id{i}" for i in range(12)])
    with pytest.raises(DataError, match=r"2 rows do not sum to 1 within 0.001 \(id10, id11; the first sums to 1.2\)"):
        METRICS["brier"].point(data)


def test_confidences_outside_0_1_are_refused() -> None:
    data = CorpusData.from_lists(["1", "0"] * 6, ["1"] * 12, confidence=[0.5] * 11 + [80.0])
    with pytest.raises(DataError, match=r"must lie in \[0, 1\]; 1 rows do not \(row 11, e.g. 80\)"):
        METRICS["ece"].point(data)


def test_no_confidences_say_which_models_can_give_them() -> None:
    data = CorpusData.from_lists(["1", "0"] * 6, ["1"] * 12)
    with pytest.raises(DataError, match="needs a confidence per output.*predict_proba.*--confidence COLUMN"):
        METRICS["auroc"].point(data)
    assert METRICS["macro_f1"].point(data) == pytest.approx(skm.f1_score([1, 0] * 6, [1] * 12, average="macro"))


def test_multiclass_auroc_needs_probabilities_per_label() -> None:
    data = CorpusData.from_lists(["a", "b", "c"] * 4, ["a"] * 12, confidence=[0.5] * 12)
    with pytest.raises(DataError, match="auroc on 3 labels needs a probability per label"):
        METRICS["auroc"].point(data)
