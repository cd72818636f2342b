"""Several answers per example through the runner (``samples=K``): stored as rows with a sample index,
cached and resumed by sample, clustered by example in every figure, pass@k / maj@k in the report.

The endpoint is a real OpenAI-compatible server on 127.0.0.1 whose answers depend on the seed each
request sends; the Python function draws from its own random generator.
"""

from __future__ import annotations

import json
import random
import warnings

import jsonschema
import numpy as np
import pandas as pd
import pytest
from sklearn.dummy import DummyClassifier

import gengap
from gengap._errors import ConfigError
from gengap.analysis.samples import pass_at_k, sample_summary
from gengap.models.http import OpenAIModel
from gengap.report._results import results_schema
from gengap.store import Store
from test_models_http import FakeOpenAI, serve_fake


def _right(text: str, seed: int | None) -> bool:
    """The seeded server's rule: whether its answer to ``text`` under ``seed`` is the right one."""
    return (int(text) * 7 + (seed or 0)) % 3 != 0


class SeededFake(FakeOpenAI):
    """Answers a chat request with its input (right) or "wrong", as the request's seed decides."""

    def answer(self, handler):  # type: ignore[no-untyped-def]
        length = int(handler.headers.get("Content-Length") or 0)
        body = json.loads(handler.rfile.read(length)) if length else None
        with self.lock:
            self.requests.append({"path": handler.path, "headers": dict(handler.headers), "body": body})
        if body is None:
            return self._send(handler, 200, {"object": "list", "data": [{"id": "m", "object": "model"}]})
        text = body["messages"][-1]["content"]
        out = text if _right(text, body.get("seed")) else "wrong"
        return self._send(handler, 200, {"object": "chat.completion", "model": body.get("model"), "choices": [
            {"index": 0, "message": {"role": "assistant", "content": out}, "finish_reason": "stop"}]})


@pytest.fixture
def seeded():
    fake = SeededFake()
    httpd, url = serve_fake(fake)
    yield fake, url
    httpd.shutdown()


def _data(n: int = 40) -> gengap.Dataset:
    return gengap.load([{"input": str(i), "target": str(i), "passage": f"p{i % 8}"} for i in range(n)])


def test_an_endpoint_is_asked_k_times_with_a_seed_per_sample_and_every_figure_clusters_by_example(seeded, tmp_path):
    fake, url = seeded
    model = OpenAIModel(url, model_name="m", temperature=0.7, max_tokens=4)
    ev = gengap.evaluate(model, _data(), ["random"], samples=3, out=tmp_path, progress=False)
    rows = ev.rows()
    n_test = rows["item"].nunique()
    assert len(rows) == 3 * n_test and ev.model_calls == 3 * n_test
    assert sorted(rows.groupby("item")["sample"].apply(sorted).iloc[0]) == [0, 1, 2]
    assert sorted({p["body"]["seed"] for p in fake.posts()}) == [0, 1, 2]  # the run's seed (0) plus the sample index
    # every stored answer is the one the server gives that input under that sample's seed
    expected = [float(_right(i, s)) for i, s in zip(rows["item"], rows["sample"])]
    assert rows["score"].tolist() == expected
    assert rows.loc[rows["sample"] == 1, "example_id"].str.endswith("#1").all()
    summary = ev.summary()
    assert summary["cluster"].tolist() == ["item"] and int(summary["n_clusters"].iloc[0]) == n_test
    assert summary["n"].iloc[0] == 3 * n_test
    table = ev.samples()
    right = rows.groupby("item")["score"].sum().to_numpy(dtype=int)
    assert table["pass_at_k"].iloc[0] == pytest.approx(pass_at_k(np.full(n_test, 3), right, 3).mean())
    assert table["pass_at_1"].iloc[0] == pytest.approx(rows["score"].mean())
    assert table["pass_at_k"].iloc[0] > table["pass_at_1"].iloc[0]
    # the report says so, and results.json carries it, valid
    out = ev.report()
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    jsonschema.validate(doc, results_schema())
    record = doc["sections"]["samples"][0]
    assert record["k"] == 3 and record["cluster"] == "item" and record["pass_at_k"] == pytest.approx(table["pass_at_k"].iloc[0])
    assert doc["summary"][0]["cluster"] == "item"
    assert "3 samples per example" in (out / "report.md").read_text(encoding="utf-8")


def test_each_sample_is_cached_by_its_index_and_seed(seeded, tmp_path):
    fake, url = seeded
    model = OpenAIModel(url, model_name="m", temperature=0.7)
    first = gengap.evaluate(model, _data(), ["random"], samples=2, out=tmp_path, progress=False)
    n_test = first.rows()["item"].nunique()
    assert first.model_calls == 2 * n_test
    again = gengap.evaluate(model, _data(), ["random"], samples=3, out=tmp_path, progress=False)
    assert again.model_calls == n_test  # samples 0 and 1 from the cache; sample 2 asked, never served sample 0's answer
    assert sorted({p["body"]["seed"] for p in fake.posts()[-n_test:]}) == [2]
    pd.testing.assert_frame_equal(first.rows()[["example_id", "score"]].reset_index(drop=True),
                                  again.rows().query("sample < 2")[["example_id", "score"]].reset_index(drop=True))


def _noisy(seed: int):
    rng = random.Random(seed)

    def answer(batch: list[str]) -> list[str]:  # right with a chance that depends on the example
        return [x if rng.random() < (0.2 + 0.6 * (int(x) % 2)) else "no" for x in batch]

    return answer


def test_a_python_function_with_randomness_is_called_k_times_and_cached_per_sample(tmp_path):
    fn = _noisy(1)
    ev = gengap.evaluate({"noisy": gengap.models.FunctionModel(fn, name="noisy", version="1")}, _data(120), ["random"],
                         samples=4, out=tmp_path, progress=False)
    rows = ev.rows()
    n_test = rows["item"].nunique()
    assert len(rows) == 4 * n_test and ev.model_calls == 4 * n_test
    per_item = rows.groupby("item")["score"].agg(["min", "max"])
    assert (per_item["min"] != per_item["max"]).any()  # the samples differ: the function was asked again each time
    mine = sample_summary(rows, item="item", answer="output")
    table = ev.samples().iloc[0]
    assert table["pass_at_1"] == pytest.approx(mine["pass@1"]) and table["pass_at_k"] == pytest.approx(mine["pass@4"])
    assert table["maj_at_k"] == pytest.approx(mine["maj@4"]) and table["noise_share"] == pytest.approx(mine["noise_share"])
    s = ev.summary().iloc[0]
    assert s["cluster"] == "item" and s["design_effect"] > 1  # the examples differ: the item interval is wider
    # a fifth sample: only it is asked, the four stored ones come from the cache
    more = gengap.evaluate({"noisy": gengap.models.FunctionModel(fn, name="noisy", version="1")}, _data(120), ["random"],
                           samples=5, out=tmp_path, progress=False)
    assert more.model_calls == n_test


def test_a_killed_run_with_samples_resumes_and_stores_each_answer_once(tmp_path):
    fn, calls = _noisy(2), []

    def flaky(batch: list[str]) -> list[str]:
        calls.append(len(batch))
        if len(calls) == 5 and not getattr(flaky, "recovered", False):
            raise KeyboardInterrupt
        return fn(batch)

    args = dict(samples=3, out=tmp_path, progress=False, shard_size=4, batch_size=4)
    with pytest.raises(KeyboardInterrupt):
        gengap.evaluate(flaky, _data(), ["random"], **args)
    flaky.recovered = True  # type: ignore[attr-defined]
    ev = gengap.evaluate(flaky, _data(), ["random"], **args)
    rows = ev.rows()
    n_test = rows["item"].nunique()
    assert len(rows) == 3 * n_test and not rows.duplicated(["item", "sample"]).any()
    assert ev.model_calls == 3 * n_test - 16  # the four shards stored before the interrupt were not asked again
    assert ev.run_id == "r0001"


def test_samples_bad_inputs_are_clear_and_store_nothing(seeded, tmp_path):
    _, url = seeded
    for bad in (0, -2):
        with pytest.raises(ConfigError, match=f"samples={bad}: ask each example at least once"):
            gengap.evaluate(lambda xs: xs, _data(), samples=bad, out=tmp_path / "a", progress=False)
    with pytest.raises(ConfigError, match="model 'DummyClassifier' cannot sample: an estimator's predict gives the same"):
        gengap.evaluate(DummyClassifier(), _data(), samples=2, out=tmp_path / "b", progress=False)
    assert not (tmp_path / "b" / "gengap.duckdb").exists()
    with pytest.warns(UserWarning, match="temperature 0 .greedy., so its 2 answers to an example will be the same"):
        gengap.evaluate(OpenAIModel(url, model_name="m"), _data(10), samples=2, out=tmp_path / "c", progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one answer per example: no warning at temperature 0
        gengap.evaluate(OpenAIModel(url, model_name="m", max_tokens=4), _data(10), out=tmp_path / "d", progress=False)


def test_baselines_are_answered_once_beside_a_sampled_model(tmp_path):
    ev = gengap.evaluate(_noisy(3), _data(), ["random"], samples=3, baselines=["majority"], out=tmp_path, progress=False)
    rows = ev.rows()
    counts = rows.groupby("model")["sample"].max().to_dict()
    assert counts == {"baseline:majority": 0, "answer": 2}
    assert ev.samples()["model"].tolist() == ["answer"]


def test_cli_and_run_file_take_samples(seeded, cli, tmp_path):
    _, url = seeded
    (tmp_path / "data.jsonl").write_text("".join(json.dumps({"q": str(i), "a": str(i)}) + "\n" for i in range(30)),
                                         encoding="utf-8")
    code, out, err = cli("eval", "--data", "data.jsonl", "--input", "q", "--target", "a", "--model", url,
                         "--model-name", "m", "--samples", "3", "--temperature", "0.8", "--max-tokens", "4",
                         "--out", "rep", "--no-progress")
    assert code == 0, err
    assert "examples × 3 samples): pass@1" in out and "pass@3" in out and "maj@3" in out
    doc = json.loads((tmp_path / "rep" / "results.json").read_text(encoding="utf-8"))
    assert doc["sections"]["samples"][0]["k"] == 3 and doc["summary"][0]["cluster"] == "item"
    with Store(tmp_path / "rep" / "gengap.duckdb", read_only=True) as store:
        run = store.latest_run()
        assert store.run_config(run)["settings"]["scoring"]["samples"] == 3
        assert sorted(store.sql("SELECT DISTINCT sample FROM predictions")["sample"]) == [0, 1, 2]
        assert sorted(store.predictions(run)["example_id"]) == sorted(store.rows(run)["example_id"])  # "id#j"
    for bad in ("0", "-1"):
        code, _, err = cli("eval", "--data", "data.jsonl", "--input", "q", "--target", "a", "--model", url,
                           "--model-name", "m", "--samples", bad, "--out", "rep", "--no-progress")
        assert code == 1 and f"ask each example at least once (samples 1 or more; {bad} given)" in err and "--samples" in err
    with Store(tmp_path / "rep" / "gengap.duckdb", read_only=True) as store:  # nothing stored was lost
        assert len(store.rows(run)) == 3 * 6
    (tmp_path / "run.toml").write_text(
        f'[data]\npath = "data.jsonl"\ninput = "q"\ntarget = "a"\n[model]\nspec = "{url}"\nmodel_name = "m"\n'
        'temperature = 0.9\nmax_tokens = 4\n[scoring]\nsamples = 2\n[eval]\nout = "rep2"\n', encoding="utf-8")
    code, out, err = cli("run", "run.toml", "--no-progress")
    assert code == 0, err and "pass@2" in out
    assert json.loads((tmp_path / "rep2" / "results.json").read_text(encoding="utf-8"))["sections"]["samples"][0]["k"] == 2


def test_perturbation_effects_curves_and_slices_of_a_sampled_run_count_examples_not_answers(tmp_path):
    data = gengap.load([{"input": "w " * (i % 9 + 1) + str(i), "target": str(i), "topic": "abc"[i % 3]} for i in range(150)])
    rng = random.Random(4)
    ev = gengap.evaluate(lambda xs: [x.split()[-1] if rng.random() < 0.6 else "no" for x in xs], data,
                         ["random", "length:by=input"], samples=3, perturbations=["casing:mode=upper"],
                         curves=["input_length"], out=tmp_path, progress=False)
    n_items = ev.rows().query("split == 'random' and perturbation == 'none'")["item"].nunique()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every section draws
        out = ev.report(find_slices=True)
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    jsonschema.validate(doc, results_schema())
    effect = next(e for e in doc["sections"]["perturbations"]["effects"] if e["split"] == "random")
    assert effect["n"] == 3 * n_items and effect["n_clusters"] == n_items and effect["test"] == "cluster-sign-flip"
    assert ev.curve("input_length").interval == "korn-graubard"  # a clustered curve
    assert all(s["cluster"] == "item" for s in doc["summary"])


def test_the_viewer_reads_each_answer_once(tmp_path):
    from gengap.view._load import load_runs

    ev = gengap.evaluate(_noisy(5), _data(), ["random"], samples=3, out=tmp_path, progress=False)
    loaded = load_runs([tmp_path])
    try:
        seen = loaded.con.execute("SELECT example_id, score FROM rows ORDER BY example_id").fetchall()
    finally:
        loaded.close()
    assert seen == sorted(zip(ev.rows()["example_id"], ev.rows()["score"]))
