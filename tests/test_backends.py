"""Backends (serial, thread, process, Ray local) give the same stored rows; failures name the shard."""

from __future__ import annotations

import pytest

import gengap
from gengap.backends import make_backend
from gengap.errors import ModelError


def _dataset(n: int = 300) -> gengap.Dataset:
    return gengap.load([{"input": f"item {i}" + " z" * (i % 5), "target": f"ITEM {i}" + " Z" * (i % 5) if i % 4 else "other"}
                        for i in range(n)])


def _upper(batch):
    return [x.upper() for x in batch]


def _rows(ev):
    return ev.rows().sort_values(["split", "example_id"])[["split", "example_id", "output", "score"]].reset_index(drop=True)


@pytest.mark.parametrize("backend", ["thread", "process"])
def test_pool_backends_match_serial(tmp_path, backend):
    ds = _dataset()
    serial = gengap.evaluate(_upper, ds, ["random", "length:by=input"], out=tmp_path / "s", shard_size=17, cache=False)
    other = gengap.evaluate(lambda xs: [x.upper() for x in xs], ds, ["random", "length:by=input"], out=tmp_path / backend,
                            backend=backend, workers=2, shard_size=17, cache=False)
    assert _rows(serial)["output"].tolist() == _rows(other)["output"].tolist()
    assert _rows(serial)["score"].tolist() == _rows(other)["score"].tolist()
    assert other.model_calls == len(serial.rows())


@pytest.mark.slow
def test_ray_local_backend_matches_serial(tmp_path):
    pytest.importorskip("ray")
    import ray

    ds = _dataset(200)
    serial = gengap.evaluate(_upper, ds, ["random"], out=tmp_path / "s", shard_size=10, cache=False)
    try:
        ray_run = gengap.evaluate(_upper, ds, ["random"], out=tmp_path / "r", backend="ray", workers=2, shard_size=10, cache=False)
    finally:
        if ray.is_initialized():
            ray.shutdown()
    assert _rows(serial).equals(_rows(ray_run))


def _fails_on_item_7(batch):
    if "item 7" in batch:
        raise ValueError("cannot read item 7")
    return _upper(batch)


@pytest.mark.parametrize("backend", ["serial", "thread", "process"])
def test_model_error_names_the_shard_and_keeps_finished_shards(tmp_path, backend):
    ds = gengap.load([{"input": f"item {i}", "target": "x"} for i in range(40)])
    split = gengap.Split(name="all", method="file", train=__import__("numpy").array([0]),
                         test=__import__("numpy").arange(1, 40), seed=None, params={},
                         diagnostics=gengap.splits.SplitDiagnostics.of_parts(1, 39, 40),
                         card=gengap.RandomSplit.card, dataset=ds)
    with pytest.raises(ModelError, match=r"item 7.*shard|all/none/0"):
        gengap.evaluate(_fails_on_item_7, ds, [split], out=tmp_path, backend=backend, workers=2, shard_size=5, batch_size=5)
    with gengap.store.Store(tmp_path / "gengap.duckdb", read_only=True) as store:
        run = store.runs()
        assert run["status"].tolist() == ["failed"]
        stored = store.sql("SELECT example_id FROM predictions")["example_id"]
    if backend == "serial":  # shards before the failing one are kept, in order
        assert sorted(stored.astype(int).tolist()) == list(range(1, 6))
    assert "7" not in set(stored)


def test_wrong_number_of_outputs(tmp_path):
    with pytest.raises(ModelError, match="returned 1 outputs for a batch of"):
        gengap.evaluate(lambda xs: xs[:1], _dataset(30), ["random"], out=tmp_path, backend="thread")


def test_unknown_backend_suggests_the_name():
    with pytest.raises(gengap.ConfigError, match="Did you mean 'thread'"):
        make_backend("threads")
