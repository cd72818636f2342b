"""The DuckDB results store: round trips, parquet export, and refusing files it must not touch."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import time

import duckdb
import numpy as np
import pandas as pd
import pytest

import gengap
from gengap.errors import StoreError
from gengap.store import Store


def _evaluated(tmp_path):
    ds = gengap.load([{"input": f"q{i}", "target": str(i % 3), "site": "ab"[i % 2]} for i in range(40)])
    return gengap.evaluate(lambda xs: [str(int(x[1:]) % 2) for x in xs], ds, ["random"], out=tmp_path, progress=False)


def test_rows_round_trip_and_metadata(tmp_path):
    ev = _evaluated(tmp_path)
    rows = ev.rows()
    assert len(rows) == 8 and set(rows["split"]) == {"random"}
    expected = (rows["output"] == rows["target"]).astype(float)
    assert rows["score"].tolist() == expected.tolist()
    assert rows["metadata"].str.contains('"site"').all()
    with Store(ev.store_path, read_only=True) as store:
        assert store.runs()["status"].tolist() == ["done"]
        assert store.latest_run() == ev.run_id
        assert store.split_info(ev.run_id)["random"]["taxonomy"]["shift_type"] == "none"
        assert store.finished_shards(ev.run_id) == {"function/random/none/0"}


def test_export_parquet(tmp_path):
    ev = _evaluated(tmp_path)
    with Store(ev.store_path, read_only=True) as store:
        folder = store.export_parquet(tmp_path / "pq", run_id=ev.run_id)
    scores = pd.read_parquet(folder / "scores.parquet")
    assert len(scores) == 8 and set(scores.columns) >= {"example_id", "metric", "value"}


def test_measures_and_events(tmp_path):
    with Store(tmp_path / "m.duckdb") as store:
        run = store.start_run("train", {"lr": 1e-3})
        store.add_measures(run, [(0, "loss", "", 2.0), (10, "loss", "", 1.0), (10, "weight_norm", "fc", 3.5)])
        store.add_event(run, 10, "memorized", "train accuracy 1.0, held-out 0.1")
        m = store.measures(run)
        assert m["value"].tolist() == [2.0, 1.0, 3.5]
        assert store.events(run)["kind"].tolist() == ["memorized"]


def test_run_ids_count_up(tmp_path):
    with Store(tmp_path / "s.duckdb") as store:
        assert [store.start_run("a", {}), store.start_run("b", {})] == ["r0001", "r0002"]


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _notes(path):
    path.write_bytes(b"this is somebody's notes, not a database\n" * 10)


def _other_database(path):
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE sales (x INT)")
    con.close()


@pytest.mark.parametrize(("make", "message"), [(_notes, "not a DuckDB file"), (_other_database, "not a gengap results store")])
def test_foreign_file_is_refused_and_untouched(tmp_path, make, message):
    path = tmp_path / "gengap.duckdb"
    make(path)
    before = _digest(path)
    with pytest.raises(StoreError, match=message):
        Store(path)
    assert _digest(path) == before


def test_second_writer_gets_a_clear_message(tmp_path):
    path = tmp_path / "gengap.duckdb"
    Store(path).close()
    holder = subprocess.Popen(
        [sys.executable, "-c", f"import time, gengap; s = gengap.store.Store({str(path)!r}); print('open', flush=True); time.sleep(30)"],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "open"
        with pytest.raises(StoreError, match="in use by another gengap process"):
            Store(path)
    finally:
        holder.kill()
        holder.wait()
    time.sleep(0.1)
    Store(path).close()  # usable again once the other process is gone


def test_missing_store_read_only(tmp_path):
    with pytest.raises(StoreError, match="No results store"):
        Store(tmp_path / "nope.duckdb", read_only=True)


def test_length_mismatch_is_refused(tmp_path):
    with Store(tmp_path / "s.duckdb") as store:
        run = store.start_run("x", {})
        with pytest.raises(StoreError, match="differ"):
            store.add_predictions(run, model="m", split="s", example_ids=["a", "b"], outputs=["x"],
                                  scores={"exact_match": np.array([1.0, 0.0])})
        assert store.sql("SELECT count(*) AS n FROM predictions")["n"].iloc[0] == 0
