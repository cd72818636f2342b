"""gengap.evaluate end to end from Python: models, splits, stored rows, and models that misbehave."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import gengap
from gengap import ConfigError
from gengap.errors import ModelError
from gengap.store import Store


def _frame(n: int = 120) -> pd.DataFrame:
    """Reverse-the-words questions of 1..12 words; a model that only handles short ones shows a length gap."""
    rng = np.random.default_rng(1)
    vocab = ["red", "green", "blue", "cat", "dog", "sun", "moon", "tree"]
    rows = []
    for i in range(n):
        words = [vocab[j] for j in rng.integers(0, len(vocab), 1 + i % 12)]
        rows.append({"uid": f"u{i:03d}", "question": "reverse: " + " ".join(words), "answer": " ".join(words[::-1]),
                     "source": "even" if i % 2 == 0 else "odd"})
    return pd.DataFrame(rows)


def short_reverser(batch: list[str]) -> list[str]:
    """Reverses up to 6 words; longer questions get only their first 6 words reversed."""
    out = []
    for q in batch:
        words = q.removeprefix("reverse: ").split()
        out.append(" ".join(words[:6][::-1]))
    return out


def test_notebook_flow_from_a_dataframe(tmp_path):
    ds = gengap.load(_frame(), input="question", target="answer", id="uid")
    splits = [gengap.RandomSplit(test_fraction=0.25, seed=0), gengap.LengthSplit(by="target", test_fraction=0.25)]
    ev = gengap.evaluate(short_reverser, ds, splits, out=tmp_path, progress=False)
    summary = ev.summary().set_index("split")
    assert list(summary.index) == ["random", "length"]
    assert summary.loc["length", "score"] == 0.0  # every long answer is cut
    assert 0 < summary.loc["random", "score"] < 1  # short questions right, long ones cut
    assert summary.loc["length", "gap"] == pytest.approx(summary.loc["random", "score"])  # points lost off i.i.d.
    assert summary.loc["length", "gap_low"] > 0
    assert summary.loc["random", "n"] == 30 and summary.loc["length", "n"] == len(splits[1].split_dataset(ds).test)
    rows = ev.rows()
    assert set(rows.columns) >= {"model", "split", "example_id", "input", "target", "output", "metric", "score"}
    expected = dict(zip(ds.ids, short_reverser(ds.inputs)))
    assert all(expected[i] == o for i, o in zip(rows["example_id"], rows["output"]))
    assert (rows["score"] == (rows["output"] == rows["target"])).all()
    folder = ev.report()
    assert (folder / "index.html").exists() and (folder / "report.md").exists()
    results = json.loads((folder / "results.json").read_text())
    assert {s["split"] for s in results["summary"]} == {"random", "length"}


def test_same_inputs_and_seed_give_the_same_rows(tmp_path):
    ds = gengap.load(_frame(), input="question", target="answer", id="uid")
    a = gengap.evaluate(short_reverser, ds, ["random"], seed=5, out=tmp_path / "a", progress=False).rows()
    b = gengap.evaluate(short_reverser, ds, ["random"], seed=5, out=tmp_path / "b", progress=False).rows()
    c = gengap.evaluate(short_reverser, ds, ["random"], seed=6, out=tmp_path / "c", progress=False).rows()
    cols = ["split", "example_id", "output", "score"]
    assert a[cols].equals(b[cols]) and set(a["example_id"]) != set(c["example_id"])


def test_several_models_and_numpy_outputs(tmp_path):
    ds = gengap.load(_frame(40), input="question", target="answer", id="uid")
    models = {"short": short_reverser, "numpy": lambda xs: np.array(short_reverser(xs), dtype=object)}
    ev = gengap.evaluate(models, ds, ["random"], out=tmp_path, progress=False)
    rows = ev.rows()
    assert set(rows["model"]) == {"short", "numpy"}
    by_model = rows.pivot(index="example_id", columns="model", values="output")
    assert (by_model["short"] == by_model["numpy"]).all()
    with pytest.raises(ConfigError, match="distinct names"):
        gengap.evaluate([short_reverser, short_reverser], ds, ["random"], out=tmp_path / "x")
    with pytest.raises(ConfigError, match="Unknown metric 'exact_mach'. Did you mean 'exact_match'"):
        gengap.evaluate(short_reverser, ds, ["random"], metrics=["exact_mach"], out=tmp_path / "y")


class FailsOnCall:
    """Answers its first ``good_calls`` batches, then raises."""

    def __init__(self, good_calls: int) -> None:
        self.calls, self.good_calls = 0, good_calls

    def __call__(self, batch: list[str]) -> list[str]:
        self.calls += 1
        if self.calls > self.good_calls:
            raise RuntimeError("GPU fell off the bus")
        return short_reverser(batch)


def test_a_model_that_raises_stops_the_run_naming_the_shard_and_keeps_finished_ones(tmp_path):
    ds = gengap.load(_frame(), input="question", target="answer", id="uid")
    # 'random' has 24 test rows; shards of 8 and batches of 8: the 2nd split's 2nd shard fails.
    model = FailsOnCall(good_calls=4)
    with pytest.raises(ModelError) as err:
        gengap.evaluate(model, ds, ["random", "length:by=target"], out=tmp_path, shard_size=8, batch_size=8, progress=False)
    msg = str(err.value)
    assert "raised RuntimeError: GPU fell off the bus" in msg and "FailsOnCall/length/none/8" in msg
    assert "kept in the store" in msg
    with Store(tmp_path / "gengap.duckdb", read_only=True) as store:
        assert store.runs()["status"].tolist() == ["failed"]
        run = store.runs()["run_id"].iloc[0]
        rows = store.rows(run)
        assert len(rows[rows["split"] == "random"]) == 24 and len(rows[rows["split"] == "length"]) == 8
        assert store.finished_shards(run) == {"FailsOnCall/random/none/0", "FailsOnCall/random/none/8",
                                              "FailsOnCall/random/none/16", "FailsOnCall/length/none/0"}
    # running again with a model that works finishes only what is missing
    again = gengap.evaluate(FailsOnCall(good_calls=10**6), ds, ["random", "length:by=target"], out=tmp_path,
                            shard_size=8, batch_size=8, progress=False, name="eval")
    rows = again.rows()
    n_length = len(gengap.make_splitter("length:by=target").split_dataset(ds).test)
    assert again.run_id == run and len(rows) == 24 + n_length and not rows.duplicated(["split", "example_id"]).any()
    assert 0 < again.model_calls <= n_length - 8  # only the unfinished shards (repeated inputs come from the cache)


def test_a_model_returning_the_wrong_number_of_outputs_is_named(tmp_path):
    ds = gengap.load(_frame(40), input="question", target="answer", id="uid")
    with pytest.raises(ModelError, match=r"returned 7 outputs for a batch of 8 inputs on drops_one/random/none/0, rows 0\.\.7"):
        gengap.evaluate(gengap.models.FunctionModel(lambda xs: xs[:-1], name="drops_one"), ds, ["random"], out=tmp_path,
                        batch_size=8, progress=False)
    with Store(tmp_path / "gengap.duckdb", read_only=True) as store:
        assert store.runs()["status"].tolist() == ["failed"] and store.rows(store.runs()["run_id"].iloc[0]).empty


def test_a_learner_that_fails_to_train_is_named(tmp_path):
    from sklearn.linear_model import LogisticRegression

    ds = gengap.load(_frame(40), input="question", target="answer", id="uid")
    with pytest.raises(ModelError, match=r"Training 'LogisticRegression' on split 'random' failed"):
        gengap.evaluate(LogisticRegression(), ds, ["random"], out=tmp_path, progress=False)


def test_raw_tables_must_be_loaded_first():
    with pytest.raises(ConfigError, match=r"needs a gengap Dataset, got a DataFrame.*gengap\.load\(data, input="):
        gengap.evaluate(short_reverser, _frame(10), ["random"])


def test_extraction_scores_read_answers_and_counts_unextracted(tmp_path):
    """Free-text outputs are read before scoring; unreadable ones score 0 and are counted apart."""
    ds = gengap.load([{"input": f"q{i}", "target": ["$1,000", "12", "0.5"][i % 3]} for i in range(30)])
    outputs = {0: "The total is 1000 dollars.", 1: "#### 12", 2: "I am not sure."}

    def chatty(batch):
        return [outputs[int(x[1:]) % 3] for x in batch]

    ev = gengap.evaluate(chatty, ds, ["random"], out=tmp_path, extract="number", test_fraction=0.5)
    rows = ev.rows()
    kind = rows["example_id"].astype(int) % 3
    assert rows.loc[kind == 0, "score"].eq(1.0).all()  # "$1,000" and "1000 dollars" agree once read
    assert rows.loc[kind == 1, "score"].eq(1.0).all()
    assert rows.loc[kind == 2, "unextracted"].all() and rows.loc[kind == 2, "score"].eq(0.0).all()
    assert rows.loc[kind != 2, "extracted"].notna().all()
    summary = ev.summary()
    assert summary["unextracted"].iloc[0] == pytest.approx((kind == 2).mean())
    ev.report()
    assert "Unextracted" in (tmp_path / "report.md").read_text()


def test_without_extraction_unextracted_is_empty(tmp_path):
    ds = gengap.load([{"input": f"q{i}", "target": "a"} for i in range(10)])
    ev = gengap.evaluate(lambda xs: ["a"] * len(xs), ds, ["random"], out=tmp_path)
    assert ev.summary()["unextracted"].isna().all()
