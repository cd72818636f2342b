"""The serial runner with an HTTP model sends the next shard's requests while it stores the current
one (``OpenAIModel.submit``). Against the loopback server of test_models_http: the store ends the
same, byte for byte, as when shards run one at a time (fresh runs, cache hits that skip rows, and a
run that fails midway then resumes), at most one shard runs ahead, and errors name the right rows.
"""

from __future__ import annotations

import json
import random
import re
import threading
import time

import pytest

import gengap
import gengap.runner
from gengap.errors import EndpointError
from gengap.models.http import OpenAIModel
from gengap.store import Store
from test_models_http import FakeOpenAI, server  # noqa: F401  (the loopback server fixture)

#: What a store holds, table by table, in the order the rows were written (run ids and times left out).
TABLES = {
    "predictions": "model, split, perturbation, example_id, output, variant_input, variant_target, extracted, "
                   "unextracted, prompt, details",
    "scores": "model, split, perturbation, example_id, metric, value",
    "shards": "shard, n_rows",
    "cache": "fingerprint, h1, h2, output",
    "cache_use": "shard, model, fingerprint, n_cached, n_computed, note",
    "examples": "split, example_id, input, target, metadata",
}


def _contents(path) -> dict[str, list[tuple]]:
    """Every table's rows in storage order; a row's latency (it varies from run to run) is left out."""
    out = {}
    with Store(path, read_only=True) as store:
        for table, columns in TABLES.items():
            frame = store.sql(f"SELECT {columns} FROM {table} ORDER BY rowid")
            frame = frame.astype(object).where(frame.notna(), None)  # nulls as None (NaN is not equal to itself)
            if "details" in frame:
                frame["details"] = [d if d is None else json.dumps({k: v for k, v in json.loads(d).items()
                                                                    if k != "latency_s"}, sort_keys=True)
                                    for d in frame["details"]]
            out[table] = [tuple(r) for r in frame.itertuples(index=False)]
    return out


def _shuffled_delays(fake: FakeOpenAI) -> None:
    """Answers take 0 to 15 ms, so they come back out of order."""
    rng = random.Random(0)
    lock = threading.Lock()

    def delay(body):
        with lock:
            return rng.random() * 0.015 if body else 0

    fake.delay = delay


def _dataset(n: int = 57) -> gengap.Dataset:
    return gengap.load([{"input": f"item {i} " + "z" * (i % 5), "target": (f"item {i} " + "z" * (i % 5)).upper()}
                        for i in range(n)])


def _both(monkeypatch, run) -> tuple[dict, dict]:
    """Store contents after ``run(out, pipeline)`` with shards pipelined and one at a time."""
    got = []
    for pipeline in (True, False):
        monkeypatch.setattr(gengap.runner, "PIPELINE", pipeline)
        got.append(run(pipeline))
    return got[0], got[1]


def test_pipelined_store_is_identical_to_one_shard_at_a_time(server, tmp_path, monkeypatch):  # noqa: F811
    fake, url = server
    _shuffled_delays(fake)
    ds = _dataset()
    sent = {}

    def run(pipeline):
        out = tmp_path / f"pipeline-{pipeline}"
        before = len(fake.posts())
        model = OpenAIModel(url, model_name="tiny-echo", api="completions", concurrency=4, max_tokens=8)
        # a first run answers some inputs, so the second finds them in the cache and skips those rows
        gengap.evaluate(model, ds.take(list(range(0, 57, 3))), ["all"], out=out, name="warm", progress=False, shard_size=5)
        ev = gengap.evaluate(model, ds, ["random", "length:by=input"], out=out, progress=False, shard_size=7)
        assert ev.rows()["score"].mean() == 1.0
        sent[pipeline] = [r["body"]["prompt"] for r in fake.posts()[before:]]
        return _contents(out / "gengap.duckdb")

    pipelined, serial = _both(monkeypatch, run)
    assert pipelined == serial
    assert sum(1 for r in pipelined["cache_use"] if r[3] > 0) > 0  # some shards did use the cache
    assert sorted(sent[True]) == sorted(sent[False])  # the same requests (in flight together, so in another order)


def test_adaptive_shards_store_the_same_rows_in_the_same_order(server, tmp_path, monkeypatch):  # noqa: F811
    fake, url = server
    _shuffled_delays(fake)
    monkeypatch.setattr(gengap.runner, "SHARD_SECONDS", 0.05)  # many small shards of about 0.05 s of model time
    ds = _dataset(90)

    def run(pipeline):
        out = tmp_path / f"adaptive-{pipeline}"
        model = OpenAIModel(url, model_name="tiny-echo", concurrency=3, max_tokens=8)
        gengap.evaluate(model, ds, ["all"], out=out, progress=False)
        contents = _contents(out / "gengap.duckdb")
        # shard sizes follow the measured speed, so they differ from run to run: compare rows, not shards
        return {k: v for k, v in contents.items() if k in ("predictions", "scores", "cache", "examples")}, \
            [n for _, n in contents["shards"]]

    (pipelined, sizes), (serial, serial_sizes) = _both(monkeypatch, run)
    assert pipelined == serial
    assert len(sizes) > 3 and sizes[0] == 6 and sum(sizes) == 90, sizes  # 2 x concurrency first, then by speed
    assert len(serial_sizes) > 3 and serial_sizes[0] == 6


def test_a_run_that_fails_midway_resumes_to_the_same_store(server, tmp_path, monkeypatch):  # noqa: F811
    fake, url = server
    _shuffled_delays(fake)
    original = fake.answer
    ds = _dataset(60)
    failures = {}

    def run(pipeline):
        out = tmp_path / f"resume-{pipeline}"
        start = len(fake.posts())

        def dies(handler):  # the 31st model request of this run and every one after fail
            if handler.command == "POST" and len(fake.posts()) - start >= 30:
                return fake._send(handler, 503, {"error": {"message": "server stopped"}})
            return original(handler)

        model = OpenAIModel(url, model_name="tiny-echo", concurrency=4, max_tokens=8, max_retries=0)
        fake.answer = dies
        with pytest.raises(EndpointError, match="HTTP 503") as err:
            gengap.evaluate(model, ds, ["all"], out=out, progress=False, shard_size=8)
        failures[pipeline] = str(err.value)
        with Store(out / "gengap.duckdb", read_only=True) as store:
            stored = store.sql("SELECT shard, n_rows FROM shards ORDER BY rowid").values.tolist()
        assert stored == [[f"tiny-echo/all/none/{s}", 8] for s in (0, 8, 16)]  # 30 answers: three whole shards
        fake.answer = original
        again = gengap.evaluate(model, ds, ["all"], out=out, progress=False, shard_size=8)
        assert again.model_calls == 60 - 24 and again.rows()["score"].mean() == 1.0
        return _contents(out / "gengap.duckdb")

    pipelined, serial = _both(monkeypatch, run)
    assert pipelined == serial
    for message in failures.values():  # the failed request is one of rows 24..31 (shard 24), and the id says which
        found = re.search(r"on tiny-echo/all/none/24, rows (\d+)\.\.(\d+) of the test part.* example id '(\d+)'", message)
        assert found and found[1] == found[2] == found[3] and 24 <= int(found[1]) < 32, message


def test_at_most_one_shard_runs_ahead_of_the_store(server, tmp_path, monkeypatch):  # noqa: F811
    fake, url = server
    seen = []
    original = Store.add_predictions

    def slow_store(self, run_id, **kwargs):  # storing takes 0.2 s: time enough for the next shard's requests
        time.sleep(0.2)
        seen.append((kwargs["shard"], len(fake.posts())))
        return original(self, run_id, **kwargs)

    monkeypatch.setattr(Store, "add_predictions", slow_store)
    model = OpenAIModel(url, model_name="tiny-echo", concurrency=4, max_tokens=8)
    gengap.evaluate(model, _dataset(50), ["all"], out=tmp_path, progress=False, shard_size=10, cache=False)
    assert [s for s, _ in seen] == [f"tiny-echo/all/none/{s}" for s in range(0, 50, 10)]
    # while shard k is stored the next shard is answered, never the one after it
    assert [posts for _, posts in seen] == [20, 30, 40, 50, 50], seen


def test_without_pipelining_the_server_waits_while_a_shard_is_stored(server, tmp_path, monkeypatch):  # noqa: F811
    fake, url = server
    seen = []
    original = Store.add_predictions

    def slow_store(self, run_id, **kwargs):
        time.sleep(0.1)
        seen.append(len(fake.posts()))
        return original(self, run_id, **kwargs)

    monkeypatch.setattr(Store, "add_predictions", slow_store)
    monkeypatch.setattr(gengap.runner, "PIPELINE", False)
    model = OpenAIModel(url, model_name="tiny-echo", concurrency=4, max_tokens=8)
    gengap.evaluate(model, _dataset(30), ["all"], out=tmp_path, progress=False, shard_size=10, cache=False)
    assert seen == [10, 20, 30]


@pytest.mark.parametrize("how", ["pipelined", "one at a time", "thread"])
def test_errors_name_the_test_part_row_when_the_cache_skipped_rows(server, tmp_path, monkeypatch, how):  # noqa: F811
    fake, url = server
    fake.context_chars = 30
    monkeypatch.setattr(gengap.runner, "PIPELINE", how == "pipelined")
    model = OpenAIModel(url, model_name="m", api="completions", max_tokens=4)
    even = gengap.load([{"input": f"q{i}", "target": f"Q{i}"} for i in range(0, 20, 2)])
    gengap.evaluate(model, even, ["all"], out=tmp_path, progress=False, name="first")  # rows 0, 2, ... are cached
    ds = gengap.load([{"input": f"q{i}" if i != 13 else "x" * 50, "target": f"Q{i}"} for i in range(20)])
    with pytest.raises(EndpointError, match="context window") as err:
        gengap.evaluate(model, ds, ["all"], out=tmp_path, progress=False, name="second", shard_size=20,
                        backend="thread" if how == "thread" else "serial", batch_size=4)
    # the model was sent rows 1, 3, 5, ...: row 13 is the 7th input it saw, but the 14th row of the test part
    assert "rows 13..13 of the test part" in str(err.value) and "example id '13'" in str(err.value), str(err.value)


def test_submit_starts_at_once_and_calls_share_the_concurrency(server):  # noqa: F811
    fake, url = server
    fake.delay = 0.05
    model = OpenAIModel(url, model_name="m", concurrency=4, max_tokens=4)
    first, second = [f"a{i}" for i in range(12)], [f"b{i}" for i in range(12)]
    a, b = model.submit(first), model.submit(second)
    assert not a.done() and not b.done()  # returned at once: the answers take at least 3 x 0.05 s
    assert b.result(timeout=10) == [x.upper() for x in second] and a.result() == [x.upper() for x in first]
    assert fake.max_in_flight == 4  # both calls together: never more than the model's concurrency
    order = [r["body"]["messages"][-1]["content"][0] for r in fake.posts()]
    assert order.index("b") >= 12 - 4  # the second call's requests start as the first call's run out
    assert model.submit([]).result() == []
    model.close()


def test_a_failed_submit_names_the_input_and_a_cancelled_one_stops(server):  # noqa: F811
    fake, url = server
    fake.context_chars = 10
    model = OpenAIModel(url, model_name="m", api="completions", concurrency=2, max_tokens=4)
    with pytest.raises(EndpointError, match="context window") as err:
        model.submit(["ok", "ok", "x" * 20, "ok"]).result(timeout=10)
    assert err.value.row == 2
    fake.delay = 0.2
    before = len(fake.posts())
    future = model.submit([f"q{i}" for i in range(20)])
    time.sleep(0.1)
    future.cancel()
    time.sleep(0.5)
    assert len(fake.posts()) - before <= 4  # the two in flight when cancelled (and none after)
    assert model.predict(["ok"]) == ["OK"]  # the model still answers
    model.close()


def test_the_next_shard_takes_the_slots_the_last_requests_of_a_shard_leave_free(server, tmp_path):  # noqa: F811
    fake, url = server
    fake.delay = 0.1
    ds = gengap.load([{"input": f"r{i}", "target": f"R{i}"} for i in range(20)])
    model = OpenAIModel(url, model_name="m", api="completions", concurrency=4, max_tokens=4)
    gengap.evaluate(model, ds, ["all"], out=tmp_path, progress=False, shard_size=10, cache=False)
    sent = {r["body"]["prompt"]: r["time"] for r in fake.posts()}
    # rows 8 and 9 end the first shard with two of the four slots free: rows 10 and 11 take them at once,
    # not after rows 8 and 9 are answered (the server never waits on the runner between shards)
    assert sent["r10"] - sent["r8"] < 0.08 and sent["r11"] - sent["r8"] < 0.08, sent


def test_a_run_stopped_while_storing_stops_the_next_shards_requests(server, tmp_path, monkeypatch):  # noqa: F811
    fake, url = server
    fake.delay = 0.05

    def full_disk(self, run_id, **kwargs):
        raise OSError("No space left on device")

    monkeypatch.setattr(Store, "add_predictions", full_disk)
    model = OpenAIModel(url, model_name="tiny-echo", concurrency=2, max_tokens=8)
    with pytest.raises(OSError, match="No space left"):
        gengap.evaluate(model, _dataset(100), ["all"], out=tmp_path, progress=False, shard_size=20, cache=False)
    sent = len(fake.posts())
    time.sleep(0.3)
    # the first shard, and the few requests of the next one sent before it was cancelled (two in flight, each
    # 0.05 s: a round or two on a busy machine); none after
    assert 20 <= sent <= 24 and len(fake.posts()) == sent, sent
