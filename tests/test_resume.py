"""Never lose work: the prediction cache, resuming an unfinished run, and kill -9 at random points."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import gengap
from gengap.splits import LengthSplit

WEIGHTS_MODEL = """
import json, pathlib
WEIGHTS = pathlib.Path(__file__).with_name("weights.json")

def predict(batch):
    w = json.loads(WEIGHTS.read_text())  # state the function's code does not show
    return [w["prefix"] + x for x in batch]
"""


def _weights_model(tmp_path, prefix):
    import importlib.util

    (tmp_path / "weights.json").write_text(json.dumps({"prefix": prefix}))
    path = tmp_path / "weights_model.py"
    if not path.exists():
        path.write_text(WEIGHTS_MODEL)
    spec = importlib.util.spec_from_file_location("weights_model", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.predict


def test_a_function_model_is_not_cached_without_a_version_so_new_weights_show(tmp_path):
    ds = _dataset(60)
    fn = _weights_model(tmp_path, "A:")
    first = gengap.evaluate(fn, ds, ["random"], out=tmp_path / "out")
    assert first.rows()["output"].str.startswith("A:").all()
    (tmp_path / "weights.json").write_text(json.dumps({"prefix": "B:"}))
    again = gengap.evaluate(fn, ds, ["random"], out=tmp_path / "out")
    assert again.rows()["output"].str.startswith("B:").all()  # the re-run reflects the new weights
    assert again.model_calls == first.model_calls > 0
    use = again.cache_use()
    assert use["fingerprint"].tolist() == [""] and use["n_cached"].sum() == 0
    assert "--model-version" in use["note"].iloc[0]


def test_a_function_model_with_its_weights_file_named_is_cached_until_the_file_changes(tmp_path):
    ds = _dataset(60)
    fn = _weights_model(tmp_path, "A:")
    model = gengap.models.FunctionModel(fn, name="weights", files=[tmp_path / "weights.json"])
    first = gengap.evaluate(model, ds, ["random"], out=tmp_path / "out")
    same = gengap.evaluate(model, ds, ["random"], out=tmp_path / "out")
    assert first.model_calls > 0 and same.model_calls == 0
    assert same.cache_use()["n_cached"].sum() == first.model_calls
    (tmp_path / "weights.json").write_text(json.dumps({"prefix": "B:"}))
    changed = gengap.evaluate(model, ds, ["random"], out=tmp_path / "out")
    assert changed.model_calls == first.model_calls
    assert changed.rows()["output"].str.startswith("B:").all()
    assert changed.cache_use()["fingerprint"].iloc[0] != first.cache_use()["fingerprint"].iloc[0]


def test_a_version_caches_and_a_new_version_recomputes(tmp_path):
    ds, counter = _dataset(60), Counting()
    v1 = gengap.as_model(counter, name="rev", version="1")
    gengap.evaluate(v1, ds, ["random"], out=tmp_path)
    assert gengap.evaluate(v1, ds, ["random"], out=tmp_path).model_calls == 0
    v2 = gengap.as_model(counter, name="rev", version="2")
    assert gengap.evaluate(v2, ds, ["random"], out=tmp_path).model_calls > 0


def test_a_fitted_estimator_is_cached_by_its_fitted_state(tmp_path):
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    ds = _dataset(80)
    texts = [f"{'ab' * (i % 9)} {i}" for i in range(80)]
    fitted = make_pipeline(CountVectorizer(), LogisticRegression()).fit(texts, [str(i % 3) for i in range(80)])
    model = gengap.as_model(fitted)
    assert model.cacheable and not model.needs_fit
    first = gengap.evaluate(model, ds, ["random"], out=tmp_path)
    assert gengap.evaluate(model, ds, ["random"], out=tmp_path).model_calls == 0
    fitted.fit(texts, [str(i % 2) for i in range(80)])  # refit in place: new state, new fingerprint
    again = gengap.evaluate(model, ds, ["random"], out=tmp_path)
    assert again.model_calls == first.model_calls > 0


class Counting:
    """A model that counts how many inputs it was asked about."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, batch):
        self.calls += len(batch)
        return [x[::-1] for x in batch]


def _dataset(n: int = 200) -> gengap.Dataset:
    return gengap.load([{"input": f"{'ab' * (i % 9)} {i}", "target": f"{i} {'ba' * (i % 9)}"} for i in range(n)])


def test_rerun_of_a_finished_evaluation_calls_the_model_zero_times(tmp_path):
    ds, counter = _dataset(), Counting()
    model = gengap.as_model(counter, version="1")  # the caller vouches for the function's state
    first = gengap.evaluate(model, ds, ["random", "length:by=input"], out=tmp_path)
    assert first.model_calls == counter.calls > 0
    again = gengap.evaluate(model, ds, ["random", "length:by=input"], out=tmp_path)
    assert again.model_calls == 0 and counter.calls == first.model_calls
    use = again.cache_use()
    assert use["n_computed"].sum() == 0 and use["n_cached"].sum() == len(again.rows()) // 1
    assert use["fingerprint"].tolist() == [model.fingerprint()]
    assert again.run_id != first.run_id
    assert again.summary()[["score", "n"]].equals(first.summary()[["score", "n"]])


def test_changing_one_split_recomputes_only_new_inputs(tmp_path):
    ds, model = _dataset(), gengap.as_model(Counting(), version="1")
    gengap.evaluate(model, ds, ["random", LengthSplit(by="input", max_train_length=1)], out=tmp_path)
    seen = set(gengap.store.Store(tmp_path / "gengap.duckdb", read_only=True).sql("SELECT input FROM examples")["input"])
    new_length = LengthSplit(by="target", max_train_length=1)
    second = gengap.evaluate(model, ds, ["random", new_length], out=tmp_path)
    fresh = {x for x in new_length.split_dataset(ds).test_part.inputs if x not in seen}
    assert second.model_calls == len(fresh)


def test_cache_off_and_learners_are_never_cached(tmp_path):
    from sklearn.dummy import DummyClassifier

    ds, model = _dataset(), gengap.as_model(Counting(), version="1")
    gengap.evaluate(model, ds, ["random"], out=tmp_path)
    assert gengap.evaluate(model, ds, ["random"], out=tmp_path, cache=False).model_calls == 40
    learner = gengap.as_model(DummyClassifier(strategy="most_frequent"))
    assert learner.needs_fit and not learner.cacheable
    assert gengap.evaluate(learner, ds, ["random"], out=tmp_path).model_calls == 40


def test_resume_after_a_failure_finishes_the_same_run(tmp_path):
    ds = _dataset()
    state = {"fail": True}

    def flaky(batch):
        if state["fail"] and any(x.endswith(" 150") for x in batch):
            raise RuntimeError("server hiccup")
        return [x[::-1] for x in batch]

    split = gengap.RandomSplit(test_fraction=0.5, seed=1)
    with pytest.raises(gengap.errors.ModelError):
        gengap.evaluate(flaky, ds, [split], out=tmp_path, shard_size=10, batch_size=10, cache=False)
    state["fail"] = False
    done = gengap.evaluate(flaky, ds, [split], out=tmp_path, shard_size=10, batch_size=10, cache=False)
    assert done.model_calls < 100  # finished shards were not recomputed
    with gengap.store.Store(tmp_path / "gengap.duckdb", read_only=True) as store:
        assert store.runs()["status"].tolist() == ["done"]
        counts = store.sql("SELECT example_id, count(*) AS n FROM predictions GROUP BY example_id")
    assert len(counts) == 100 and counts["n"].max() == 1


MODEL = '''
import time

def predict(batch):
    time.sleep(0.15)
    return [x.upper() for x in batch]
'''

RUN_FILE = '''
[data]
path = "data.jsonl"

[model]
spec = "slowmodel:predict"

[[split]]
method = "random"
test_fraction = 0.5

[[split]]
method = "length"

[execution]
shard_size = 8
batch_size = 4

[eval]
out = "out"
'''


@pytest.mark.slow
def test_kill_minus_nine_at_random_points_then_rerun(tmp_path):
    (tmp_path / "slowmodel.py").write_text(MODEL)
    (tmp_path / "gengap.toml").write_text(textwrap.dedent(RUN_FILE))
    n = 240
    gengap.io.write_jsonl([{"input": f"w{i} " + "x " * (i % 12), "target": f"W{i} " + "X " * (i % 12)} for i in range(n)],
                          tmp_path / "data.jsonl")
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "GENGAP_NO_PROGRESS": "1"}
    cmd = [sys.executable, "-m", "gengap.cli", "run", "gengap.toml", "--no-progress"]
    rng = random.Random(0)
    killed = 0
    for _ in range(3):
        proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(rng.uniform(2.0, 4.5))
        if proc.poll() is not None:  # finished before the kill: a fast machine; nothing left to interrupt
            break
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        killed += 1
    assert killed >= 1
    final = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert final.returncode == 0, final.stderr
    with gengap.store.Store(tmp_path / "out" / "gengap.duckdb", read_only=True) as store:
        runs = store.runs()
        # The killed run was resumed each time, never restarted (a later run only if it had already finished).
        assert runs["status"].iloc[0] == "done" and runs["status"].eq("done").all()
        run = runs["run_id"].iloc[0]
        info = store.split_info(run)
        dupes = store.sql("SELECT count(*) AS n FROM (SELECT split, example_id FROM predictions WHERE run_id = ? "
                          "GROUP BY ALL HAVING count(*) > 1)", [run])
        per_split = store.sql("SELECT split, count(*) AS n FROM scores WHERE run_id = ? GROUP BY split", [run])
    assert dupes["n"].iloc[0] == 0
    assert dict(zip(per_split["split"], per_split["n"])) == {name: d["n_test"] for name, d in info.items()}
    assert (tmp_path / "out" / "index.html").exists()
