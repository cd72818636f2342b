"""The viewer serves before its rows are joined into memory: the first rows read straight from the store
are exactly the first rows of the join, the first page is answered from them (said so), and everything
else waits for the join and then answers as always."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from _view_runs import free_port, get, make_run, running
from gengap.view import _load
from gengap.view._load import Loaded, load_runs, open_runs, read_rows
from gengap.view.queries import LIST_COLUMNS


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("start")
    return (make_run(base / "a", reach=3, metrics=["exact_match", "token_f1"]), make_run(base / "b", reach=4))


def _first_rows(loaded: Loaded, n: int) -> list[dict]:
    cols = ", ".join([*LIST_COLUMNS, "is_primary"])
    cur = loaded.con.execute(f"SELECT {cols} FROM rows ORDER BY rid LIMIT {n}")
    return [dict(zip([*LIST_COLUMNS, "is_primary"], r)) for r in cur.fetchall()]


@pytest.mark.parametrize("head_rows", [7, 100, 1000])
def test_the_rows_read_first_are_the_first_rows_of_the_join(runs, monkeypatch, head_rows):
    monkeypatch.setattr(_load, "HEAD_ROWS", head_rows)
    loaded = open_runs(list(runs))
    try:
        read_rows(loaded)
        assert loaded.head and len(loaded.head) <= head_rows
        assert loaded.head == _first_rows(loaded, len(loaded.head))
        # several groups (model, split, perturbation) when the first holds fewer rows than asked for
        groups = {(r["model"], r["split"], r["perturbation"]) for r in loaded.head}
        assert len(groups) == 1 if head_rows == 7 else len(groups) > 1
        con = loaded.con
        assert loaded.perturbations == [r[0] for r in con.execute(
            "SELECT perturbation FROM rows GROUP BY perturbation ORDER BY min(rid)").fetchall()]
        assert len(loaded.perturbations) > 1
        for r in loaded.runs:
            assert loaded.stored[r.index] == con.execute("SELECT count(*) FROM rows WHERE run = ?", [r.index]).fetchone()[0]
            assert loaded.stored_primary[r.index] == con.execute(
                "SELECT count(*) FROM rows WHERE run = ? AND is_primary", [r.index]).fetchone()[0]
        assert loaded.runs[0].metrics == ["exact_match", "token_f1"] and not all(r["is_primary"] for r in loaded.head)
    finally:
        loaded.close()


@contextmanager
def _served(loaded: Loaded) -> Iterator[str]:
    from gengap.view.app import make_app

    port = free_port()
    app = make_app(loaded, port=port, start_figures=False)
    try:
        with running(app, port) as url:
            yield url
    finally:
        assert app.state.figures.stop(60)


def test_the_first_page_is_served_from_the_store_and_the_rest_waits_for_the_rows(runs):
    truth = load_runs(list(runs))
    try:
        want_page = _first_rows(truth, 100_000)
        total = sum(1 for r in want_page if r["is_primary"])
        want_length = truth.con.execute("SELECT count(*) FROM rows WHERE split = 'length' AND is_primary").fetchone()[0]
    finally:
        truth.close()
    loaded = open_runs(list(runs))
    try:
        loaded.head = _load._read_head(loaded.con, loaded.sources[0])
        loaded.head_ready.set()  # the rows are not joined yet
        with _served(loaded) as url:
            status, runs_info = get(f"{url}/api/runs")
            assert status == 200 and runs_info["rows_state"] == "reading" and runs_info["meta"] == {}
            assert runs_info["perturbations"] == ["none", "casing:mode=upper"] and runs_info["runs"][0]["n_rows"] > 0
            status, summary = get(f"{url}/api/summary?run=0")
            assert summary["rows_state"] == "reading" and summary["state"] == "computing"
            primary = [r for r in want_page if r["is_primary"]]
            status, page = get(f"{url}/api/rows?limit=10&offset=5")
            assert status == 200 and page["rows_state"] == "reading" and page["total"] == total
            assert [r["rid"] for r in page["rows"]] == [r["rid"] for r in primary[5:15]]
            assert [r["input"] for r in page["rows"]] == [r["input"] for r in primary[5:15]]
            answers: dict[str, object] = {}

            def ask(name: str, query: str) -> None:
                answers[name] = get(f"{url}/api/rows?{query}")

            waiting = [threading.Thread(target=ask, args=("filtered", "split=length&limit=3")),
                       threading.Thread(target=ask, args=("far", f"limit=5&offset={total - 5}"))]
            for t in waiting:
                t.start()
            time.sleep(0.5)
            assert not answers  # they wait for the rows
            read_rows(loaded, head=False)
            for t in waiting:
                t.join(30)
            status, filtered = answers["filtered"]
            assert status == 200 and filtered["total"] == want_length and "rows_state" not in filtered
            status, far = answers["far"]
            assert [r["rid"] for r in far["rows"]] == [r["rid"] for r in primary[-5:]]
            status, page = get(f"{url}/api/rows?limit=10&offset=5")
            assert "rows_state" not in page and page["total"] == total
            assert [r["rid"] for r in page["rows"]] == [r["rid"] for r in primary[5:15]]
            status, runs_info = get(f"{url}/api/runs")
            assert runs_info["rows_state"] == "ready" and set(runs_info["meta"]) == {"topic", "size"}
    finally:
        loaded.close()


def test_a_read_that_fails_is_said_and_nothing_waits_forever(runs):
    loaded = open_runs([runs[0]])
    loaded.sources[0].path = runs[0] / "no-such.duckdb"  # the store went away after it was opened
    import duckdb

    with pytest.raises(duckdb.Error):
        read_rows(loaded)
    try:
        assert loaded.ready.is_set() and "could not be read" in (loaded.error or "")
        with _served(loaded) as url:
            status, page = get(f"{url}/api/rows?split=length")
            assert status == 400 and "could not be read" in page["error"]
            status, runs_info = get(f"{url}/api/runs")
            assert runs_info["rows_state"] == "failed"
    finally:
        loaded.close()


def test_a_current_results_json_is_shown_while_the_rows_are_read_then_linked(tmp_path):
    from _view_runs import make_slice_run, with_results_json
    from gengap.view.figures import Figures

    run = with_results_json(make_slice_run(tmp_path / "run", n=600))
    loaded = open_runs([run])
    figures = Figures(loaded)
    try:
        figures.start()
        deadline = time.time() + 60
        while figures.summary(0)["state"] != "linking" and time.time() < deadline:
            time.sleep(0.02)
        early = figures.summary(0)
        assert early["state"] == "linking" and early["source"].startswith("results.json beside the store")
        assert early["scores"] and all(s["rows"] is None for s in early["scores"])  # no rows to link to yet
        assert not loaded.ready.is_set() and not figures.ready()
        read_rows(loaded)
        assert figures.wait(120)
        done = figures.summary(0)
        assert done["state"] == "ready" and done["source"] == early["source"]
        assert [s["n"] for s in done["scores"]] == [s["n"] for s in early["scores"]]
        assert all(s["rows"] is not None for s in done["scores"])
    finally:
        assert figures.stop(60)
        loaded.close()


def test_the_first_rows_of_a_run_with_several_answers_per_example(tmp_path):
    """inspect_ai epochs are samples: rows ``id`` and ``id#1``...; the first rows read from the store
    join on the example and the sample, and equal the joined table's."""
    from gengap.imports import import_inspect

    data = Path(__file__).parent / "data" / "inspect"
    import_inspect([data / "samples.eval", data / "arith.eval"], tmp_path / "run")
    loaded = open_runs([tmp_path / "run"])
    try:
        read_rows(loaded)
        assert loaded.head == _first_rows(loaded, len(loaded.head))
        assert any("#" in r["example_id"] for r in loaded.head)
    finally:
        loaded.close()
