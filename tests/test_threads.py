"""Threads: the same seed gives the same numbers whatever the thread count, and the run records its threads."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import gengap
from gengap import training
from gengap._threads import resolve_threads, usable_cores
from gengap.learners import Seq2SeqLearner
from gengap.store import Store

torch = pytest.importorskip("torch")

SMALL = dict(embedding_size=16, hidden_size=32, batch_size=32, learning_rate=1e-2, epochs=2, progress=False)


def _data(n: int = 240) -> gengap.Dataset:
    rng = np.random.default_rng(0)
    rows = []
    for i in range(n):
        words = rng.choice(list("abcdef"), size=rng.integers(1, 6))
        rows.append({"id": f"e{i}", "input": " ".join(words), "target": " ".join(reversed(words))})
    return gengap.load(rows)


@pytest.mark.parametrize("arch", ["gru", "transformer"])
def test_learner_gives_the_same_weights_whatever_torch_threads_says(arch):
    ds = _data()
    fitted = []
    before = torch.get_num_threads()
    try:
        for n in (1, 2, 4):
            torch.set_num_threads(n)
            learner = Seq2SeqLearner(arch, num_heads=2, **SMALL).fit(ds.inputs, ds.targets)
            fitted.append(learner)
            assert torch.get_num_threads() == n  # the caller's setting is left as it was
    finally:
        torch.set_num_threads(before)
    for other in fitted[1:]:
        assert other.losses_ == fitted[0].losses_
        for (name, a), (_, b) in zip(fitted[0].network_.state_dict().items(), other.network_.state_dict().items()):
            assert torch.equal(a, b), name
        assert other.predict(ds.inputs[:50]) == fitted[0].predict(ds.inputs[:50])


def test_evaluate_gives_the_same_rows_with_one_thread_or_learners_side_by_side(tmp_path, monkeypatch):
    ds = _data()
    other = dataclasses.replace(gengap.RandomSplit(seed=1).split_dataset(ds), name="random-seed-1")
    splits = [gengap.RandomSplit(seed=0), gengap.LengthSplit(by="target"), other]
    learner = Seq2SeqLearner(**SMALL)
    one = gengap.evaluate({"gru": learner}, ds, splits, out=tmp_path / "one", threads=1, progress=False)

    monkeypatch.setattr(training, "WORTH_A_PROCESS", 0.0)  # every training after the first goes to a worker
    used = []
    close = training.Trainer.close
    monkeypatch.setattr(training.Trainer, "close", lambda self: (used.append(self.in_workers), close(self))[1])
    two = gengap.evaluate({"gru": learner}, ds, splits, out=tmp_path / "two", threads=2, progress=False)

    assert used == [2]  # two of the three trainings ran in worker processes
    cols = ["split", "example_id", "output", "score"]
    a, b = one.rows()[cols], two.rows()[cols]
    assert len(a) == len(b) > 0
    assert a.sort_values(cols[:2]).reset_index(drop=True).equals(b.sort_values(cols[:2]).reset_index(drop=True))
    with Store(tmp_path / "two" / "gengap.duckdb", read_only=True) as store:
        record = store.run_config(store.latest_run())["ran_with"]
    assert record["learners_at_once"] == 2 and record["torch_threads_per_learner"] == 1
    assert record["usable_cores"] == usable_cores()


def test_a_run_resumes_whatever_threads_it_ran_with(tmp_path):
    with Store(tmp_path / "s.duckdb") as store:
        config = {"models": ["m"], "seed": 0}
        run_id = store.start_run("eval", {**config, "ran_with": {"learners_at_once": 4}})
        assert store.find_resumable("eval", config) == run_id
        assert store.find_resumable("eval", {**config, "seed": 1}) is None


def test_threads_setting_is_checked_and_defaults_to_the_usable_cores():
    assert resolve_threads(None) == usable_cores() >= 1
    with pytest.raises(gengap.ConfigError, match="threads=0"):
        gengap.evaluate(lambda xs: xs, _data(20), ["random"], threads=0, progress=False)
