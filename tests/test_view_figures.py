"""The viewer's summary computed after it starts serving, its slices linked to their rows, a current
results.json read instead of computing, and A/B on the values of a metric that is not 0/1 — all on
real runs served by uvicorn on loopback, checked against the stores' rows, pandas and scipy."""

from __future__ import annotations

import json
import os
import urllib.parse
from pathlib import Path

import pandas as pd
import pytest
import scipy.stats

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from _view_runs import get, make_run, make_slice_run, serving, with_results_json
from gengap.analysis.slice_conditions import slice_conditions
from gengap.analysis.slices import rows_in_slice
from gengap.store import Store
from gengap.view.figures import Figures


def _q(**params) -> str:
    return urllib.parse.urlencode(params, doseq=True)


def _rows(path: Path) -> pd.DataFrame:
    with Store(path / "gengap.duckdb", read_only=True) as store:
        return store.rows(store.latest_run())


@pytest.fixture(scope="module")
def slice_run(tmp_path_factory) -> Path:
    return make_slice_run(tmp_path_factory.mktemp("view-slices") / "run")


def test_rows_are_served_while_the_figures_are_computed(slice_run):
    made: list[Figures] = []

    def unstarted(loaded):
        made.append(Figures(loaded))
        return made[0]

    truth = _rows(slice_run)
    with serving([slice_run], figures=unstarted) as url:
        status, summary = get(f"{url}/api/summary?run=0")
        assert status == 200 and summary["state"] == "computing" and summary["slices_state"] == "computing"
        assert "scores" not in summary
        status, page = get(f"{url}/api/rows?" + _q(outcome="wrong", limit=5))
        assert status == 200 and page["total"] == int((truth["score"] < 1).sum()) > 0
        made[0].compute()  # what the background thread does
        status, summary = get(f"{url}/api/summary?run=0")
        assert summary["state"] == summary["slices_state"] == "ready" and summary["source"] == "computed from the stored rows"
        assert summary["scores"][0]["n"] == len(truth) and summary["scores"][0]["rows"] is not None
        status, page = get(f"{url}/api/rows?" + _q(**{"min.input_length": 4}, limit=0))
        assert page["total"] == int((truth["input"].str.split().str.len() >= 4).sum()) > 0


def test_every_slice_links_to_exactly_its_rows(slice_run):
    rows = _rows(slice_run)
    with serving([slice_run]) as url:
        status, summary = get(f"{url}/api/summary?run=0")
        slices = summary["slices"]
        assert summary["slices_state"] == "ready" and slices
        planted = [s for s in slices if s["significant"] and s["columns"] == ["topic", "size"]]
        assert planted and planted[0]["conditions"][0] == {"column": "topic", "op": "==", "value": "a"}
        assert planted[0]["conditions"][1]["op"] == ">="
        assert any(c["op"] == "<" for s in slices for c in s["conditions"])  # a bin with both edges
        linked = [s for s in slices if s["rows"]]
        assert len(linked) == len(slices)
        for s in linked:
            status, page = get(f"{url}/api/rows?" + _q(**s["rows"], limit=1000))
            assert status == 200 and page["total"] == s["n"] == len(page["rows"])
            want = set(rows_in_slice(rows, s)["example_id"])  # the slice search's own reading of its conditions
            assert {r["example_id"] for r in page["rows"]} == want, s["description"]


def test_the_viewer_searches_with_the_control_the_run_asked_for(tmp_path):
    # a run started with slice_control="split" but no report search: the viewer's own search confirms on half
    run = make_slice_run(tmp_path / "split", n=1500, slice_control="split")
    with serving([run]) as url:
        status, summary = get(f"{url}/api/summary?run=0")
    assert status == 200 and summary["slices_state"] == "ready" and summary["slices"]
    assert {s["control"] for s in summary["slices"]} == {"split"}


def test_slice_conditions_read_back_every_form_of_description():
    def read(description: str, columns: list[str]) -> list[tuple]:
        return [(c["column"], c["op"], c["value"]) for c in slice_conditions(description, columns)]

    assert read("size < 10", ["size"]) == [("size", "<", 10.0)]
    assert read("topic is missing and 1,200 <= n < 1,500", ["topic", "n"]) == [
        ("topic", "is_missing", None), ("n", ">=", 1200.0), ("n", "<", 1500.0)]
    assert read("b = x and a = y", ["a", "b"]) == [("b", "==", "x"), ("a", "==", "y")]
    with pytest.raises(Exception, match="Cannot read the conditions of the slice 'size ~ 3'"):
        slice_conditions("size ~ 3", ["size"])


def test_lt_and_missing_filters_against_pandas(slice_run):
    rows = _rows(slice_run)
    meta = pd.DataFrame(list(rows["metadata"].map(json.loads)))
    with serving([slice_run]) as url:
        status, page = get(f"{url}/api/rows?" + _q(**{"min.size": 10, "lt.size": 20}, limit=0))
        assert page["total"] == int(((meta["size"] >= 10) & (meta["size"] < 20)).sum())
        status, page = get(f"{url}/api/rows?" + _q(**{"missing.topic": "false"}, limit=0))
        assert page["total"] == len(rows)
        status, page = get(f"{url}/api/rows?" + _q(**{"missing.topic": "true"}, limit=0))
        assert page["total"] == 0
        status, err = get(f"{url}/api/rows?" + _q(**{"missing.topic": "maybe"}))
        assert status == 400 and "missing.topic='maybe'" in err["error"]
        status, err = get(f"{url}/api/rows?" + _q(**{"lt.topic": "3"}))
        assert status == 400 and "lt.topic" in err["error"]


def test_a_current_results_json_is_read_and_a_stale_one_is_not(tmp_path):
    run = with_results_json(make_slice_run(tmp_path / "run", n=600))
    before = {p.name: p.read_bytes() for p in run.iterdir()}
    doc = json.loads((run / "results.json").read_text())
    with serving([run]) as url:
        status, summary = get(f"{url}/api/summary?run=0")
    assert summary["source"].startswith("results.json beside the store")
    assert [s["description"] for s in summary["slices"]] == [s["description"] for s in doc["slices"]]
    assert [s["n"] for s in summary["scores"]] == [s["n"] for s in doc["summary"]]
    # a results.json of a gengap before 1.8 has no conditions: they are read back from the descriptions
    old = {**doc, "slices": [{k: v for k, v in s.items() if k != "conditions"} for s in doc["slices"]]}
    (run / "results.json").write_text(json.dumps(old))
    before["results.json"] = (run / "results.json").read_bytes()
    with serving([run]) as url:
        status, summary = get(f"{url}/api/summary?run=0")
        assert summary["source"].startswith("results.json beside the store")
        exact = {s["description"]: s["n"] for s in doc["slices"]}
        for s in summary["slices"]:
            assert s["conditions"] and s["rows"] is not None, s["description"]
            status, page = get(f"{url}/api/rows?" + _q(**s["rows"], limit=0))
            assert page["total"] == exact[s["description"]]
    later = (run / "results.json").stat().st_mtime + 5
    os.utime(run / "gengap.duckdb", (later, later))  # the store changed after the report was written
    with serving([run]) as url:
        status, summary = get(f"{url}/api/summary?run=0")
    assert summary["source"] == "computed from the stored rows"
    assert [s["n"] for s in summary["scores"]] == [s["n"] for s in doc["summary"]]
    assert {p.name: p.read_bytes() for p in run.iterdir()} == before  # nothing written beside the store


def test_ab_on_a_metric_that_is_not_0_1_compares_values(tmp_path):
    a_path = make_run(tmp_path / "a", reach=3, metrics=["token_f1", "exact_match"])
    b_path = make_run(tmp_path / "b", reach=4, metrics=["token_f1", "exact_match"])
    a_rows, b_rows = _rows(a_path), _rows(b_path)
    with serving([a_path, b_path]) as url:
        status, ab = get(f"{url}/api/ab?" + _q(a="0:m1", b="1:m1", metric="token_f1"))
        assert status == 200 and ab["binary"] is False and ab["metric"] == "token_f1"
        compared = 0
        for s in ab["splits"]:
            x, y = (r[(r["model"] == "m1") & (r["split"] == s["split"]) & (r["perturbation"] == "none")
                      & (r["metric"] == "token_f1")].set_index("example_id")["score"] for r in (a_rows, b_rows))
            y = y.reindex(x.index)
            assert s["n"] == len(x)
            d = (x - y).to_numpy()
            assert (s["wins"], s["ties"], s["losses"]) == (int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum()))
            assert s["difference"] == pytest.approx(d.mean()) and s["mean_a"] == pytest.approx(x.mean())
            if s["wins"] + s["losses"]:
                compared += 1
                ci = scipy.stats.ttest_rel(x.to_numpy(), y.to_numpy()).confidence_interval(0.95)
                assert (s["low"], s["high"]) == (pytest.approx(ci.low), pytest.approx(ci.high))
                assert s["p_value"] == pytest.approx(scipy.stats.wilcoxon(x.to_numpy(), y.to_numpy()).pvalue)
                assert s["test"] == "wilcoxon"
                status, items = get(f"{url}/api/ab/flips?" + _q(a="0:m1", b="1:m1", metric="token_f1", split=s["split"],
                                                               direction="b_only", limit=1000))
                assert items["total"] == s["losses"] == len(items["rows"]) and not items["binary"]
                assert all(r["score_a"] < r["score_b"] for r in items["rows"])
                gaps = [r["score_b"] - r["score_a"] for r in items["rows"]]
                assert gaps == sorted(gaps, reverse=True)  # the largest differences first
        assert compared  # reach 4 scores higher than reach 3 somewhere
        status, ab01 = get(f"{url}/api/ab?" + _q(a="0:m1", b="1:m1", metric="exact_match"))
        assert ab01["binary"] is True and {s["test"] for s in ab01["splits"] if s["n"]} == {"mcnemar-exact"}
        status, clustered = get(f"{url}/api/ab?" + _q(a="0:m1", b="1:m1", metric="token_f1", cluster="topic"))
        tests = {s["split"]: (s["test"], s["warning"]) for s in clustered["splits"] if s["n"]}
        assert tests["random"] == ("cluster-sign-flip", "")
        assert all(t == "wilcoxon" and "one cluster" in w for s, (t, w) in tests.items() if s.startswith("group"))


def test_the_command_serves_at_once_and_fills_the_summary_in(slice_run):
    import socket
    import subprocess
    import sys
    import time

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    before = {p.name: p.stat().st_mtime_ns for p in slice_run.iterdir()}
    proc = subprocess.Popen([sys.executable, "-c", "from gengap.cli import main; main()", "view", str(slice_run), "--no-browser",
                             "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.time() + 120
        states = []
        while time.time() < deadline:
            try:
                status, summary = get(f"{url}/api/summary?run=0")
            except OSError:  # not listening yet
                time.sleep(0.05)
                continue
            states.append(summary["state"])
            if summary["state"] != "computing" and summary["slices_state"] != "computing":
                break
            time.sleep(0.05)
        assert states[-1] == "ready" and summary["slices_state"] == "ready" and summary["slices"]
        status, page = get(f"{url}/api/rows?limit=1")
        assert page["total"] == summary["scores"][0]["n"]
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=30)
    assert "The viewer is at http://127.0.0.1:" in out and "Traceback" not in out
    assert {p.name: p.stat().st_mtime_ns for p in slice_run.iterdir()} == before
