"""``gengap import inspect`` on logs written by the real inspect_ai (tests/data/inspect/, see its README):
samples, epochs, scores, outputs, prompts and usage land in the store; malformed logs are named."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from gengap._errors import DataError
from gengap.imports import import_inspect, read_inspect
from gengap.store import Store

DATA = Path(__file__).parent / "data" / "inspect"
EVAL, JSON = DATA / "arith.eval", DATA / "arith.json"

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
    assert sorted(set(rows_a["example_id"])) == [f"q{i}#{e}" for i in range(6) for e in (1, 2)]
    meta = json.loads(rows_a.loc[rows_a["example_id"] == "q3#2", "metadata"].iloc[0])
    assert meta == {"level": "medium", "n_ops": 3, "sample_id": "q3", "epoch": 2}
    # each scorer's mean equals the accuracy inspect_ai itself reported for the log
    log = json.loads(JSON.read_text())
    reported = {s["name"]: s["metrics"]["accuracy"]["value"] for s in log["results"]["scores"]}
    for metric, value in reported.items():
        assert rows_a.loc[rows_a["metric"] == metric, "score"].mean() == pytest.approx(value)
    # the scripted answers: q3 epoch 1 hedges (wrong), epoch 2 answers 12 (right)
    match = rows_a[rows_a["metric"] == "match"].set_index("example_id")
    assert match.loc["q3#1", "score"] == 0.0 and match.loc["q3#2", "score"] == 1.0
    assert match.loc["q5#1", "output"] == "<script>alert(1)</script> 1000"  # kept as the data, escaped by readers
    assert match.loc["q0#1", "extracted"] == "5"  # the answer match() read
    one = preds[preds["example_id"] == "q2#1"].iloc[0]
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
        assert page(loaded.con, {"metric": ["*"], "meta.epoch": ["2"], "limit": ["0"]}, loaded.meta_columns)["total"] == 12
        row = one_row(loaded.con, 0)
        assert row["metrics"] == {"match": 1.0, "includes": 1.0} and row["prompt"][1]["role"] == "user"
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
