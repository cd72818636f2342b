"""Seq2SeqLearner: learns small tasks, is deterministic for a seed, clones, and fits gengap's model contract."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from sklearn.base import clone

import gengap
from gengap.learners import Seq2SeqLearner

pytest.importorskip("torch")

LETTERS = "abcde"


def _strings(n: int, seed: int, lengths: tuple[int, int] = (2, 5)) -> list[str]:
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(list(LETTERS), size=rng.integers(*lengths))) for _ in range(n)]


def _reverse(s: str) -> str:
    return " ".join(reversed(s.split()))


def _accuracy(predictions: list[str], targets: list[str]) -> float:
    return float(np.mean([p == t for p, t in zip(predictions, targets)]))


SMALL = dict(embedding_size=16, hidden_size=48, batch_size=32, learning_rate=1e-2, progress=False)


def test_gru_learns_to_reverse():
    train, test = _strings(400, 0), _strings(100, 1)
    learner = Seq2SeqLearner("gru", epochs=15, **SMALL).fit(train, [_reverse(s) for s in train])
    assert _accuracy(learner.predict(test), [_reverse(s) for s in test]) >= 0.9
    assert learner.losses_[-1] < learner.losses_[0] / 10


def test_transformer_learns_to_copy():
    train, test = _strings(400, 2), _strings(100, 3)
    learner = Seq2SeqLearner("transformer", epochs=15, num_layers=1, num_heads=2, dropout=0.0,
                             **{**SMALL, "hidden_size": 32, "learning_rate": 3e-3}).fit(train, train)
    assert _accuracy(learner.predict(test), test) >= 0.9


@pytest.mark.parametrize("arch", ["gru", "transformer"])
def test_same_seed_same_predictions(arch):
    train, test = _strings(200, 4), _strings(50, 5)
    targets = [_reverse(s) for s in train]
    fit = lambda seed: Seq2SeqLearner(arch, epochs=2, seed=seed, **SMALL).fit(train, targets)
    a, b, c = fit(7), fit(7), fit(8)
    assert a.losses_ == b.losses_
    assert a.predict(test) == b.predict(test)
    assert a.losses_ != c.losses_


def test_seeding_leaves_the_global_torch_generator_alone():
    import torch

    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    Seq2SeqLearner(epochs=1, **SMALL).fit(["a b"], ["b a"])
    assert torch.equal(torch.rand(3), expected)


def test_clone_and_model_contract():
    learner = Seq2SeqLearner("transformer", hidden_size=32, epochs=3, seed=5)
    copy = clone(learner)
    assert copy is not learner and copy.get_params() == learner.get_params()
    assert repr(copy) == "Seq2SeqLearner(arch='transformer', hidden_size=32, epochs=3, seed=5)"
    model = gengap.as_model(learner)
    assert isinstance(model, gengap.models.EstimatorModel) and model.needs_fit
    fitted = model.fit(["a b", "b a"], ["b a", "a b"])
    assert not fitted.needs_fit and len(fitted.predict(["a b", "a a"])) == 2
    assert not hasattr(learner, "network_")  # the runner trains a clone, never the user's object
    assert learner.set_params(epochs=4) is learner and learner.epochs == 4


def test_learner_through_evaluate(tmp_path):
    rows = [{"input": s, "target": _reverse(s)} for s in _strings(300, 6, (1, 6))]
    ds = gengap.load(rows)
    ev = gengap.evaluate({"rev": Seq2SeqLearner(epochs=10, **SMALL)}, ds, ["random", "length:by=input"],
                         out=tmp_path, progress=False)
    summary = ev.summary().set_index("split")
    assert summary.loc["random", "score"] > 0.6
    assert summary.loc["random", "score"] > summary.loc["length", "score"]


def test_max_steps_and_unknown_tokens():
    learner = Seq2SeqLearner(epochs=50, max_steps=7, **SMALL).fit(_strings(100, 7), _strings(100, 8))
    assert learner.n_steps_ == 7
    out = learner.predict(["zzz unseen words", ""])
    assert len(out) == 2 and all(isinstance(o, str) for o in out)
    limited = Seq2SeqLearner(epochs=1, max_output_length=3, **SMALL).fit(["a"], ["a b c d e f"])
    assert all(len(o.split()) <= 3 for o in limited.predict(["a", "b"]))


@pytest.mark.parametrize("params, match", [
    (dict(arch="lstm"), "arch='lstm'"),
    (dict(hidden_size=0), "hidden_size=0"),
    (dict(dropout=1.5), "dropout=1.5"),
    (dict(max_time=-1), "max_time=-1"),
    (dict(arch="transformer", hidden_size=30, num_heads=4), "multiple of num_heads"),
])
def test_bad_parameters(params, match):
    with pytest.raises(gengap.ConfigError, match=match):
        Seq2SeqLearner(**params).fit(["a"], ["b"])


def test_bad_data_and_misuse():
    with pytest.raises(gengap.ConfigError, match="not fitted"):
        Seq2SeqLearner().predict(["a"])
    with pytest.raises(gengap.DataError, match="2 inputs and 1 targets"):
        Seq2SeqLearner().fit(["a", "b"], ["c"])
    with pytest.raises(gengap.DataError, match="input 1 is a int"):
        Seq2SeqLearner().fit(["a", 3], ["c", "d"])
    with pytest.raises(gengap.ConfigError, match="no parameter 'epoch'. Did you mean 'epochs'"):
        Seq2SeqLearner().set_params(epoch=3)


def test_torch_is_optional():
    code = (
        "import sys; import gengap, gengap.errors, gengap.learners, gengap.demo, gengap.tasks.scan; "
        "assert 'torch' not in sys.modules, 'importing gengap imported torch'; "
        "sys.modules['torch'] = None; "
        "from gengap.learners import Seq2SeqLearner\n"
        "try:\n    Seq2SeqLearner().fit(['a'], ['b'])\n"
        "except gengap.errors.MissingDependency as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "The seq2seq learner needs the optional package 'torch'" in out.stdout
    assert "pip install torch==2.13.0" in out.stdout
