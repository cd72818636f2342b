"""The viewer's API over real runs, served by uvicorn on loopback: counts against the store's own rows,
paging, filters, one row, A/B flip tables against scipy's exact binomial test, export, and bad input."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import urllib.parse
from pathlib import Path

import pandas as pd
import pytest
import scipy.stats

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from _view_runs import IMG, SCRIPT, get, make_run, serving
from gengap._errors import ConfigError, StoreError
from gengap.store import Store
from gengap.view import check_port
from gengap.view._load import load_runs


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("view")
    return make_run(base / "a", reach=3), make_run(base / "b", reach=4)


@pytest.fixture(scope="module")
def truth(runs) -> list[pd.DataFrame]:
    out = []
    for path in runs:
        with Store(path / "gengap.duckdb", read_only=True) as store:
            out.append(store.rows(store.latest_run()))
    return out


@pytest.fixture(scope="module")
def url(runs):
    with serving(list(runs)) as base:
        yield base


def _q(**params) -> str:
    return urllib.parse.urlencode(params, doseq=True)


def test_counts_match_the_store_for_every_split_model_and_perturbation(url, truth):
    for run, rows in enumerate(truth):
        for (model, split, pert), g in rows.groupby(["model", "split", "perturbation"]):
            status, page = get(f"{url}/api/rows?" + _q(run=run, model=model, split=split, perturbation=pert, limit=0))
            assert status == 200
            assert page["total"] == len(g), (run, model, split, pert)
    status, page = get(f"{url}/api/rows?limit=1")
    assert page["total"] == sum(len(t) for t in truth)  # one metric: every row once


def test_outcome_text_metadata_and_range_filters(url, truth):
    rows = truth[0]
    meta = rows["metadata"].map(json.loads)
    length = rows[(rows["split"] == "length")]
    status, page = get(f"{url}/api/rows?" + _q(run=0, split="length", outcome="wrong", limit=0))
    assert page["total"] == int((length["score"] < 1).sum()) > 0
    status, page = get(f"{url}/api/rows?" + _q(run=0, split="length", outcome="correct", limit=0))
    assert page["total"] == int((length["score"] >= 1).sum())
    status, page = get(f"{url}/api/rows?" + _q(run=0, q="SCRIPT>WINDOW", limit=1000))
    expected = rows["input"].str.lower().str.contains("script>window", regex=False) | \
        rows["output"].str.lower().str.contains("script>window", regex=False)
    assert page["total"] == int(expected.sum()) > 0
    assert all(SCRIPT.lower() in (r["input"] + r["output"]).lower() for r in page["rows"])
    topic = f"c{IMG}"
    status, page = get(f"{url}/api/rows?" + _q(run=0, **{"meta.topic": topic, "min.size": 2, "max.size": 4}, limit=0))
    want = meta.map(lambda m: m["topic"] == topic and 2 <= m["size"] <= 4)
    assert page["total"] == int(want.sum()) > 0
    status, page = get(f"{url}/api/rows?" + _q(run=0, split="random", sort="-input_length", limit=5))
    lengths = [len(r["input"].split()) for r in page["rows"]]
    assert lengths == sorted(lengths, reverse=True)


def test_pages_cover_every_row_once_in_stored_order_and_keyset_agrees(url, truth):
    total = len(truth[0]) + len(truth[1])
    seen, offset = [], 0
    while True:
        status, page = get(f"{url}/api/rows?" + _q(limit=1000, offset=offset))
        seen += [r["rid"] for r in page["rows"]]
        offset += 1000
        if offset >= page["total"]:
            break
    assert seen == list(range(total))
    status, by_offset = get(f"{url}/api/rows?" + _q(split="length", limit=7, offset=7))
    status, first = get(f"{url}/api/rows?" + _q(split="length", limit=7))
    status, by_key = get(f"{url}/api/rows?" + _q(split="length", limit=7, after=first["rows"][-1]["rid"]))
    assert [r["rid"] for r in by_key["rows"]] == [r["rid"] for r in by_offset["rows"]]


def test_every_summary_figure_links_to_exactly_its_n_rows(url):
    status, summary = get(f"{url}/api/summary?run=0")
    assert status == 200
    figures = [*summary["scores"], *summary["held_out"], *summary["groups"], *summary["perturbations"],
               *(b for c in summary["curves"] for b in c["bins"])]
    assert len(summary["scores"]) == 10 and summary["groups"] and summary["perturbations"] and summary["curves"]
    assert all(f["rows"] is not None for f in figures)
    for f in figures:
        status, page = get(f"{url}/api/rows?" + _q(**f["rows"], limit=0))
        assert page["total"] == f["n"], f


def test_one_row_has_every_metric_its_variants_marked_and_the_other_models(url, truth):
    status, page = get(f"{url}/api/rows?" + _q(run=0, model="m1", split="length", outcome="wrong", limit=1))
    rid = page["rows"][0]["rid"]
    status, row = get(f"{url}/api/row/{rid}")
    assert row["metrics"] == {"exact_match": 0.0}
    assert [v["perturbation"] for v in row["variants"]] == ["none", "casing:mode=upper"]
    upper = row["variants"][1]
    assert any(changed for _, changed in upper["input_diff"])  # the upper-cased words are marked
    assert "".join(t for t, _ in upper["input_diff"]) == upper["input"]
    assert {(o["run"], o["model"]) for o in row["other_models"]} == {(0, "m2"), (1, "m1"), (1, "m2")}
    assert get(f"{url}/api/row/999999999")[0] == 404


def _flips(a: pd.DataFrame, b: pd.DataFrame, split: str) -> tuple[int, int, int, int]:
    x = a[(a["split"] == split) & (a["perturbation"] == "none")].set_index("example_id")["score"] >= 1
    y = b[(b["split"] == split) & (b["perturbation"] == "none")].set_index("example_id")["score"] >= 1
    y = y.reindex(x.index)
    return int((x & y).sum()), int((x & ~y).sum()), int((~x & y).sum()), int((~x & ~y).sum())


def test_ab_flip_table_per_split_with_exact_mcnemar(url, truth):
    a, b = (t[t["model"] == "m1"] for t in truth)
    status, ab = get(f"{url}/api/ab?" + _q(a="0:m1", b="1:m1"))
    assert status == 200 and ab["n_only_a"] == ab["n_only_b"] == 0
    assert sorted(s["split"] for s in ab["splits"]) == sorted(set(a["split"]))
    for s in ab["splits"]:
        both, only_a, only_b, neither = _flips(a, b, s["split"])
        assert (s["both"], s["only_a"], s["only_b"], s["neither"]) == (both, only_a, only_b, neither)
        p = 1.0 if only_a + only_b == 0 else scipy.stats.binomtest(only_a, only_a + only_b, 0.5).pvalue
        assert s["p_value"] == pytest.approx(p) and s["test"] == "mcnemar-exact"
    flipped = [s for s in ab["splits"] if s["only_b"]]
    assert flipped  # reach 4 beats reach 3 somewhere
    s = flipped[0]
    status, items = get(f"{url}/api/ab/flips?" + _q(a="0:m1", b="1:m1", split=s["split"], direction="b_only", limit=1000))
    assert items["total"] == len(items["rows"]) == s["only_b"]
    assert all(r["score_a"] < 1 <= r["score_b"] for r in items["rows"])
    # two models of one run by default when there is one run; bad sides are named
    status, err = get(f"{url}/api/ab?" + _q(a="0:nope", b="1:m1"))
    assert status == 400 and "nope" in err["error"]


def test_ab_of_different_datasets_compares_the_common_ids_and_says_how_many(tmp_path):
    a = make_run(tmp_path / "a", reach=3, n=240)
    b = make_run(tmp_path / "b", reach=4, n=300)  # 60 more examples: random/length/group splits differ too
    with serving([a, b]) as base:
        status, ab = get(f"{base}/api/ab")
    assert ab["a"] == {"run": 0, "model": "m1"} and ab["b"] == {"run": 1, "model": "m1"}
    assert ab["n_only_a"] + ab["n_only_b"] > 0
    assert ab["n_common"] == sum(s["n"] for s in ab["splits"])
    assert all(s["both"] + s["only_a"] + s["only_b"] + s["neither"] == s["n"] for s in ab["splits"])


def test_export_holds_exactly_the_selection(url, truth):
    query = _q(run=0, split="length", outcome="wrong")
    status, page = get(f"{url}/api/rows?{query}&limit=0")
    status, text = get(f"{url}/api/export/rows.jsonl?{query}")
    lines = [json.loads(line) for line in text.splitlines()]
    assert len(lines) == page["total"] > 0 and all(r["split"] == "length" and r["score"] < 1 for r in lines)
    status, text = get(f"{url}/api/export/rows.csv?{query}")
    table = list(csv.DictReader(io.StringIO(text)))
    assert len(table) == page["total"] and table[0]["input"] == lines[0]["input"]


def test_bad_queries_get_one_clear_message(url):
    for query, words in [("bogus=1", "Unknown filter 'bogus'"), ("outcome=maybe", "outcome='maybe'"),
                         ("min.topic=1", "ranges apply to"), ("sort=nope", "sort='nope'"), ("limit=x", "not a whole number"),
                         ("meta.nope=1", "No metadata field 'nope'")]:
        status, body = get(f"{url}/api/rows?{query}")
        assert status == 400 and words in body["error"], (query, body)


def test_pages_are_served_with_a_strict_policy_and_only_to_loopback_names(url):
    import urllib.request

    with urllib.request.urlopen(url + "/", timeout=10) as r:
        policy = r.headers["Content-Security-Policy"]
        assert "script-src 'self'" in policy and "connect-src 'self'" in policy
    status, _ = get(url + "/api/runs", headers={"Host": "attacker.example"})
    assert status == 400  # a page of another site cannot reach the viewer through a rebound name


def test_a_folder_that_is_not_a_run_and_a_foreign_duckdb_file(tmp_path):
    with pytest.raises(StoreError, match="is not a gengap run: it holds no results store"):
        load_runs([tmp_path])
    import duckdb

    other = tmp_path / "other.duckdb"
    con = duckdb.connect(str(other))
    con.execute("CREATE TABLE t (x INT)")
    con.close()
    before = other.read_bytes()
    with pytest.raises(StoreError, match="not a gengap results store"):
        load_runs([other])
    assert other.read_bytes() == before


def test_a_port_in_use_is_named_with_a_free_one(tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        with pytest.raises(ConfigError, match=rf"Port {port} on 127.0.0.1 is in use.*Try --port \d+"):
            check_port("127.0.0.1", port)


def test_the_command_says_what_is_wrong_without_a_traceback(tmp_path):
    done = subprocess.run([sys.executable, "-m", "gengap.cli", "view", str(tmp_path), "--no-browser"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "is not a gengap run" in done.stderr and "Traceback" not in done.stderr


_WRITER = """
import sys, time
from gengap.store import Store
store = Store(sys.argv[1])
run = store.start_run("live", {})
store.add_examples(run, "s", "random", {"method": "random"}, example_ids=["a", "b"], inputs=["x", "y"], targets=["X", "Y"],
                   metadata=[None, None])
store.add_predictions(run, model="m", split="s", example_ids=["a", "b"], outputs=["X", "Z"],
                      scores={"exact_match": [1.0, 0.0]}, shard="m/s/none/0")
print("ready", flush=True)
time.sleep(60)
"""


def test_a_store_being_written_is_read_as_committed_and_said_so(tmp_path):
    path = tmp_path / "gengap.duckdb"
    writer = subprocess.Popen([sys.executable, "-c", _WRITER, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout.readline().strip() == "ready"
        with pytest.raises(StoreError, match="in use"):
            Store(path, read_only=True)  # what every other reader meets
        loaded = load_runs([tmp_path])
        run = loaded.runs[0]
        assert run.snapshot and any("being written by a running gengap process" in n for n in run.notes)
        assert any("did not finish (status: running)" in n for n in run.notes)
        assert loaded.con.execute("SELECT example_id, score FROM rows ORDER BY rid").fetchall() == [("a", 1.0), ("b", 0.0)]
        from gengap.view.figures import Figures

        figures = Figures(loaded)
        figures.compute()  # from the copy, while the writer still holds the store
        summary = figures.summary(0)
        assert summary["state"] == "ready" and summary["source"] == "computed from the stored rows", summary["problems"]
        assert summary["scores"][0]["n"] == 2
        loaded.close()
        assert loaded.scratch is not None and not loaded.scratch.exists()  # the copy is removed
    finally:
        writer.kill()
        writer.wait()
    with Store(path, read_only=True) as store:  # the store itself is as the writer left it
        assert len(store.rows(store.runs()["run_id"].iloc[0])) == 2


def test_ab_with_named_clusters_uses_the_clustered_paired_test(url, truth):
    from gengap.analysis.clustered import clustered_paired_test

    a, b = (t[(t["model"] == "m1") & (t["perturbation"] == "none")] for t in truth)
    status, ab = get(f"{url}/api/ab?" + _q(a="0:m1", b="1:m1", cluster="topic"))
    assert status == 200 and ab["cluster"] == "topic"
    random = next(s for s in ab["splits"] if s["split"] == "random")
    x = a[a["split"] == "random"].set_index("example_id")
    y = b[b["split"] == "random"].set_index("example_id").reindex(x.index)
    topics = x["metadata"].map(lambda m: json.loads(m)["topic"]).to_numpy(dtype=object)
    t = clustered_paired_test((x["score"] >= 1).to_numpy(float), (y["score"] >= 1).to_numpy(float), topics)
    assert random["test"] == t.test == "cluster-sign-flip" and random["n_clusters"] == 3
    assert random["p_value"] == pytest.approx(t.p_value) and random["low"] == pytest.approx(t.effect.low)
    status, err = get(f"{url}/api/ab?" + _q(a="0:m1", b="1:m1", cluster="nope"))
    assert status == 400 and "No metadata field 'nope'" in err["error"]


def test_a_text_search_pages_like_any_other_filter(url):
    status, whole = get(f"{url}/api/rows?" + _q(q="wrong", limit=1000))
    status, second = get(f"{url}/api/rows?" + _q(q="wrong", limit=50, offset=50))
    status, keyed = get(f"{url}/api/rows?" + _q(q="wrong", limit=50, after=whole["rows"][49]["rid"]))
    status, by_score = get(f"{url}/api/rows?" + _q(q="wrong", sort="-input_length", limit=5))
    assert second["total"] == keyed["total"] == whole["total"] == len(whole["rows"]) > 100
    assert [r["rid"] for r in second["rows"]] == [r["rid"] for r in whole["rows"][50:100]] == [r["rid"] for r in keyed["rows"]]
    assert [len(r["input"].split()) for r in by_score["rows"]] == sorted((len(r["input"].split()) for r in whole["rows"]), reverse=True)[:5]


def test_binding_beyond_loopback_warns_before_anything_is_served(tmp_path):
    import socket

    from gengap.view import serve

    said: list[str] = []
    with socket.socket() as s:
        s.bind(("0.0.0.0", 0))
        s.listen()
        port = s.getsockname()[1]
        with pytest.raises(ConfigError, match=f"Port {port} on 0.0.0.0 is in use"):
            serve([tmp_path], host="0.0.0.0", port=port, open_browser=False, say=said.append)
    assert said and said[0].startswith("warning: serving on 0.0.0.0, not only on this machine")


def test_transfer_cells_link_to_the_rows_of_the_split_trained_on_their_group(tmp_path):
    import gengap
    from _view_runs import model, records

    gengap.evaluate({"m1": model(3)}, gengap.load(records(240)), ["random", "transfer:group=topic"], out=tmp_path,
                    progress=False)
    with serving([tmp_path]) as base:
        status, summary = get(f"{base}/api/summary?run=0")
        assert len(summary["transfer"]) == 9
        for cell in summary["transfer"]:
            assert cell["rows"]["split"] == f"transfer:topic={cell['train_group']}"
            status, page = get(f"{base}/api/rows?" + _q(**cell["rows"], limit=1000))
            assert page["total"] == cell["n"]
            assert {r["metadata"]["topic"] for r in page["rows"]} == {cell["test_group"]}
