"""``gengap import inspect`` on logs written by the real inspect_ai (tests/data/inspect/, see its README):
samples, epochs (as the samples of an example), scores, outputs, prompts and usage land in the store;
malformed logs are named."""

from __future__ import annotations

import json
import shutil
import zipfile
from collections import Counter
from math import comb
from pathlib import Path

import pytest

from gengap._errors import DataError
from gengap.imports import import_inspect, read_inspect
from gengap.store import Store

DATA = Path(__file__).parent / "data" / "inspect"
EVAL, JSON = DATA / "arith.eval", DATA / "arith.json"
SAMPLES_EVAL, SAMPLES_JSON = DATA / "samples.eval", DATA / "samples.json"  # four epochs

pytestmark = pytest.mark.skipif(not EVAL.exists(), reason="tests/data/inspect/arith.eval is missing")


def _has_zstd() -> bool:
    try:
        import zstandard  # noqa: F401
    except ImportError:
        try:
            from compression import zstd  # type: ignore[import-not-found]  # noqa: F401
        except ImportError:
            return False
    return True


zstd = pytest.mark.skipif(not _has_zstd(), reason="reading inspect_ai's zstd .eval archives needs zstandard (gengap[inspect])")


def _rows(out: Path):
    with Store(out / "gengap.duckdb", read_only=True) as store:
        run = store.latest_run()
        return store.rows(run).sort_values(["metric", "example_id"]).reset_index(drop=True), store.predictions(run)


@zstd
def test_eval_and_json_logs_give_the_same_rows_with_epochs_as_repeated_samples(tmp_path):
    a = import_inspect([EVAL], tmp_path / "a")
    b = import_inspect([JSON], tmp_path / "b")
    assert a.n_rows == b.n_rows == 12
    rows_a, preds = _rows(tmp_path / "a")
    rows_b, _ = _rows(tmp_path / "b")
    assert rows_a.equals(rows_b)
    assert sorted(set(rows_a["metric"])) == ["includes", "match"]
    # epoch e of sample q is sample e - 1 of example q: "q3" is epoch 1, "q3#1" epoch 2, as a run names samples
    assert sorted(set(rows_a["item"])) == [f"q{i}" for i in range(6)]
    assert sorted(set(rows_a["example_id"])) == sorted(f"q{i}{s}" for i in range(6) for s in ("", "#1"))
    assert rows_a.groupby(["metric", "item"])["sample"].apply(sorted).tolist() == [[0, 1]] * 12
    meta = json.loads(rows_a.loc[rows_a["example_id"] == "q3#1", "metadata"].iloc[0])
    assert meta == {"level": "medium", "n_ops": 3}
    # each scorer's mean equals the accuracy inspect_ai itself reported for the log
    log = json.loads(JSON.read_text())
    reported = {s["name"]: s["metrics"]["accuracy"]["value"] for s in log["results"]["scores"]}
    for metric, value in reported.items():
        assert rows_a.loc[rows_a["metric"] == metric, "score"].mean() == pytest.approx(value)
    # the scripted answers: q3 epoch 1 hedges (wrong), epoch 2 answers 12 (right)
    match = rows_a[rows_a["metric"] == "match"].set_index("example_id")
    assert match.loc["q3", "score"] == 0.0 and match.loc["q3#1", "score"] == 1.0
    assert match.loc["q5", "output"] == "<script>alert(1)</script> 1000"  # kept as the data, escaped by readers
    assert match.loc["q0", "extracted"] == "5"  # the answer match() read
    one = preds[preds["example_id"] == "q2"].iloc[0]
    assert json.loads(one["prompt"])[0] == {"role": "system", "content": "Answer with a number. Example: What is 1 + 1? 2"}
    assert one["prompt_tokens"] > 0 and one["completion_tokens"] == 3 and one["latency_s"] >= 0


@zstd
def test_importing_the_same_logs_again_writes_nothing_and_the_viewer_reads_them(tmp_path):
    first = import_inspect([EVAL], tmp_path)
    again = import_inspect([EVAL], tmp_path)
    assert again.already_imported and again.run_id == first.run_id
    pytest.importorskip("starlette")
    from gengap.view._load import load_runs
    from gengap.view.queries import one_row, page

    loaded = load_runs([tmp_path])
    try:
        assert page(loaded.con, {"limit": ["0"]}, loaded.meta_columns)["total"] == 12  # the primary metric, match
        assert page(loaded.con, {"metric": ["*"], "meta.level": ["medium"], "limit": ["0"]}, loaded.meta_columns)["total"] == 8
        listed = page(loaded.con, {"limit": ["50"]}, loaded.meta_columns)["rows"]
        assert sorted(r["example_id"] for r in listed) == sorted(f"q{i}{s}" for i in range(6) for s in ("", "#1"))
        second = next(r for r in listed if r["example_id"] == "q3#1")  # the second epoch, shown as sample 1
        row = one_row(loaded.con, second["rid"])
        assert row["metrics"] == {"match": 1.0, "includes": 1.0} and row["prompt"][1]["role"] == "user"
        assert row["details"]["epoch"] == 2
    finally:
        loaded.close()


def _json_log(tmp_path: Path, change) -> Path:
    log = json.loads(JSON.read_text())
    change(log)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(log))
    return path


def test_a_score_that_is_not_a_number_names_the_file_and_the_sample(tmp_path):
    def bad(log):
        log["samples"][4]["scores"]["match"]["value"] = "maybe"
    path = _json_log(tmp_path, bad)
    with pytest.raises(DataError, match=r"bad\.json, sample 5 \(id 'q4'\): score 'match' is 'maybe'"):
        read_inspect([path])


def test_a_sample_without_an_id_or_a_log_without_a_header(tmp_path):
    def no_id(log):
        del log["samples"][2]["id"]
    with pytest.raises(DataError, match=r"bad\.json, sample 3: a sample without an 'id'"):
        read_inspect([_json_log(tmp_path, no_id)])
    path = tmp_path / "notalog.json"
    path.write_text('{"hello": 1}')
    with pytest.raises(DataError, match="notalog.json: not an inspect_ai log"):
        read_inspect([path])


@zstd
def test_a_cut_off_or_foreign_eval_archive_is_named_and_the_store_is_untouched(tmp_path):
    out = tmp_path / "out"
    import_inspect([JSON], out)
    before, _ = _rows(out)
    cut = tmp_path / "cut.eval"
    cut.write_bytes(EVAL.read_bytes()[:5000])
    with pytest.raises(DataError, match="cut.eval: not a readable .eval log"):
        import_inspect([cut], out)
    foreign = tmp_path / "foreign.eval"
    with zipfile.ZipFile(foreign, "w") as z:
        z.writestr("readme.txt", "hi")
    with pytest.raises(DataError, match="foreign.eval: no header.json"):
        import_inspect([foreign], out)
    broken = tmp_path / "broken.eval"
    shutil.copyfile(EVAL, broken)
    with zipfile.ZipFile(broken, "a") as z:
        z.writestr("samples/zz_epoch_1.json", "{not json")
    with pytest.raises(DataError, match=r"broken.eval: samples/zz_epoch_1.json is not valid JSON"):
        import_inspect([broken], out)
    after, _ = _rows(out)
    assert after.equals(before)


def test_the_command_imports_and_reports(cli, tmp_path):
    code, text, err = cli("import", "inspect", str(JSON), "--out", str(tmp_path / "r"), "--format", "json")
    assert code == 0, err
    assert "Imported 12 rows" in text
    assert (tmp_path / "r" / "results.json").exists()


def _log_samples() -> dict[str, list[tuple[int, float, str]]]:
    """From the four-epoch log itself: sample id -> (epoch, match score, the answer match() read), by epoch."""
    log = json.loads(SAMPLES_JSON.read_text())
    found: dict[str, list[tuple[int, float, str]]] = {}
    for s in log["samples"]:
        score = s["scores"]["match"]
        found.setdefault(s["id"], []).append((s["epoch"], {"C": 1.0, "I": 0.0}[score["value"]], score["answer"]))
    return {sid: sorted(v) for sid, v in found.items()}


@zstd
def test_four_epochs_are_four_samples_with_pass_at_k_maj_at_k_and_clustered_intervals(tmp_path, cli):
    from gengap.analysis.clustered import clustered_mean_ci

    code, text, err = cli("import", "inspect", str(SAMPLES_EVAL), "--out", str(tmp_path / "e"), "--format", "json")
    assert code == 0, err
    assert "each epoch is a sample of its example" in text
    assert "mockllm/model on samples (match, 5 examples × 4 samples): pass@1 50.0%, pass@4 80.0%, maj@4 60.0%" in text
    import_inspect([SAMPLES_JSON], tmp_path / "j")
    rows, preds = _rows(tmp_path / "e")
    assert rows.equals(_rows(tmp_path / "j")[0])  # .eval and .json alike
    log = _log_samples()
    assert len(log) == 5 and {len(v) for v in log.values()} == {4}
    # one row per (example, epoch): sample = epoch - 1, the example's id in item, its score the log's
    assert len(rows) == 20 and rows.groupby("item").size().to_dict() == dict.fromkeys(log, 4)
    for sid, epochs in log.items():
        mine = rows[rows["item"] == sid].sort_values("sample")
        assert mine["sample"].tolist() == [e - 1 for e, _, _ in epochs]
        assert mine["score"].tolist() == [s for _, s, _ in epochs]
        assert mine["example_id"].tolist() == [sid] + [f"{sid}#{j}" for j in (1, 2, 3)]
    assert sorted(preds.loc[preds["example_id"].str.startswith("s2"), "example_id"]) == ["s2", "s2#1", "s2#2", "s2#3"]
    # sections.samples: pass@1, pass@4 against the closed form and maj@4, from the log's own scores and answers
    doc = json.loads((tmp_path / "e" / "results.json").read_text())
    [rec] = doc["sections"]["samples"]
    n = k = 4
    right = [sum(s for _, s, _ in v) for v in log.values()]
    assert sorted(right) == [0.0, 1.0, 2.0, 3.0, 4.0]  # the log is as its README says
    assert rec["k"] == k and rec["n_items"] == 5 and rec["n_rows"] == 20
    assert rec["pass_at_1"] == pytest.approx(sum(c / n for c in right) / 5)
    assert rec["pass_at_k"] == pytest.approx(sum(1 - comb(n - int(c), k) / comb(n, k) for c in right) / 5)
    majority = []
    for epochs in log.values():
        answers = [a for _, _, a in epochs]
        top = max(Counter(answers).values())
        first = next(a for a in answers if Counter(answers)[a] == top)  # ties: the answer met first
        majority.append(next(s for _, s, a in epochs if a == first))
    assert rec["maj_at_k"] == pytest.approx(sum(majority) / 5) and rec["maj_at_k"] == pytest.approx(3 / 5)
    # every interval counts examples: the summary is clustered by item, with the clustered interval
    [summary] = doc["summary"]
    assert (summary["cluster"], summary["n_clusters"], summary["n"]) == ("item", 5, 20)
    ci = clustered_mean_ci(rows["score"].to_numpy(), rows["item"].to_numpy())
    assert (summary["score_low"], summary["score_high"]) == (pytest.approx(ci.low), pytest.approx(ci.high))
    assert (rec["score_low"], rec["score_high"], rec["cluster"]) == (pytest.approx(ci.low), pytest.approx(ci.high), "item")


def test_single_epoch_logs_keep_one_row_per_sample_and_no_samples(tmp_path):
    def first_epoch(log):
        log["samples"] = [s for s in log["samples"] if s["epoch"] == 1]
        log["eval"]["config"]["epochs"] = 1
    import_inspect([_json_log(tmp_path, first_epoch)], tmp_path / "out")
    rows, _ = _rows(tmp_path / "out")
    assert "sample" not in rows.columns and sorted(set(rows["example_id"])) == [f"q{i}" for i in range(6)]


@pytest.mark.parametrize(("epoch", "said"), [("two", "'two'"), (0, "0"), (-1, "-1"), (1.5, "1.5"), (True, "True"),
                                             ([2], r"\[2\]")])
def test_a_malformed_epoch_names_the_file_and_the_sample_and_stores_nothing(tmp_path, epoch, said):
    def bad(log):
        log["samples"][7]["epoch"] = epoch
    path = _json_log(tmp_path, bad)
    sid = json.loads(path.read_text())["samples"][7]["id"]
    with pytest.raises(DataError, match=rf"bad\.json, sample 8 \(id '{sid}'\): epoch is {said}, not a whole number 1 or more"):
        import_inspect([path], tmp_path / "out")
    assert not (tmp_path / "out" / "gengap.duckdb").exists()


def test_an_epoch_given_twice_names_both_samples(tmp_path):
    def twice(log):
        log["samples"][7]["epoch"] = 1  # q1's second epoch said to be its first again
    with pytest.raises(DataError, match=r"bad\.json, sample 8: sample 'q1' epoch 1 appears twice \(also sample 2\)"):
        read_inspect([_json_log(tmp_path, twice)])


def test_an_example_short_of_epochs_is_left_out_with_a_note(tmp_path):
    def errored(log):
        hit = next(s for s in log["samples"] if s["id"] == "s2" and s["epoch"] == 3)
        hit["error"] = {"message": "timeout", "traceback": "", "traceback_ansi": ""}
    log = json.loads(SAMPLES_JSON.read_text())
    path = tmp_path / "bad.json"
    errored(log)
    path.write_text(json.dumps(log))
    result = import_inspect([path], tmp_path / "out")
    assert any("1 sample(s) ended in an error" in n for n in result.notes)
    assert any("first: 's2', 3 of 4" in n and "left out" in n for n in result.notes)
    rows, _ = _rows(tmp_path / "out")
    assert len(rows) == 16 and "s2" not in set(rows["item"]) and rows.groupby("item").size().tolist() == [4] * 4


def test_logs_imported_before_epochs_were_samples_are_imported_again(tmp_path):
    first = import_inspect([JSON], tmp_path)
    with Store(tmp_path / "gengap.duckdb") as store:  # the run as an earlier gengap recorded it: no "epochs"
        config = json.loads(store.sql("SELECT config FROM runs WHERE run_id = ?", [first.run_id])["config"].iloc[0])
        del config["import"]["epochs"]
        store.sql("UPDATE runs SET config = ? WHERE run_id = ?", [json.dumps(config), first.run_id])
    again = import_inspect([JSON], tmp_path)
    assert not again.already_imported and again.run_id != first.run_id
    assert import_inspect([JSON], tmp_path).already_imported
