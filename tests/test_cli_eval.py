"""The user's own data and model through the command line: gengap eval, gengap run, gengap split.

One test runs the real console script in a subprocess (the README's command, then the equivalent
run file); the rest call the same entry point in this process, which is faster. Every user
mistake must end with exit code 1 and one paragraph on stderr, never a traceback.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pandas as pd
import pytest

import gengap
import gengap.config
from gengap.store import Store

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "own_data"

MODEL_CODE = '''
def predict(batch):
    """Reverses up to six words: right on short questions, wrong on long ones."""
    return [" ".join(q.split()[:6][::-1]) for q in batch]
'''


def _records(n: int = 100) -> list[dict[str, str]]:
    vocab = ["red", "green", "blue", "cat", "dog", "sun", "moon", "tree"]
    out = []
    for i in range(n):
        words = [vocab[(i * 7 + j * 3) % len(vocab)] for j in range(1 + i % 10)]
        out.append({"qid": f"q{i:03d}", "question": " ".join(words), "answer": " ".join(words[::-1]),
                    "site": "a" if i % 3 else "b"})
    return out


def _write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _model_module(folder: Path, code: str = MODEL_CODE) -> str:
    """Write a model module with a unique name into ``folder``; returns its spec ``module:predict``."""
    name = f"usermodel_{uuid.uuid4().hex[:10]}"
    (folder / f"{name}.py").write_text(code, encoding="utf-8")
    return f"{name}:predict"



def _one_paragraph_error(code: int, err: str) -> str:
    assert code == 1, err
    assert "Traceback" not in err and err.startswith("error: ")
    assert len(err.strip().splitlines()) == 1, err  # one paragraph, not a stack of lines
    return err


def _gengap_command() -> list[str]:
    script = Path(sys.executable).with_name("gengap")
    return [str(script)] if script.exists() else [sys.executable, "-m", "gengap.cli"]


# ---------------------------------------------------------------------------- the README's commands
@pytest.mark.slow
def test_eval_command_and_the_equivalent_run_file_end_to_end(tmp_path):
    _write_jsonl(tmp_path / "data.jsonl", _records())
    (tmp_path / "mypkg").mkdir()
    (tmp_path / "mypkg" / "__init__.py").write_text("")
    (tmp_path / "mypkg" / "mymodule.py").write_text(MODEL_CODE)
    env = {"PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin", "GENGAP_NO_PROGRESS": "1", "HOME": str(tmp_path)}
    done = subprocess.run([*_gengap_command(), "eval", "--data", "data.jsonl", "--input", "question", "--target", "answer",
                           "--model", "mypkg.mymodule:predict", "--split", "random", "--split", "length:by=target", "--out", "report/"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    assert "random" in done.stdout and "length" in done.stdout and "reference" in done.stdout
    for name in ("index.html", "report.md", "results.json", "gengap.duckdb"):
        assert (tmp_path / "report" / name).exists(), name

    # the run file documented in gengap.config means the same as the command above
    documented = textwrap.dedent(gengap.config.__doc__.split("Example run file::", 1)[1])
    assert 'out = "report"' in documented
    (tmp_path / "gengap.toml").write_text(documented.replace('out = "report"', 'out = "report-run"'), encoding="utf-8")
    done = subprocess.run([*_gengap_command(), "run", "gengap.toml"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    from_eval = json.loads((tmp_path / "report" / "results.json").read_text())["summary"]
    from_run = json.loads((tmp_path / "report-run" / "results.json").read_text())["summary"]
    key = lambda s: (s["split"], s["metric"])
    assert [(key(s), s["n"], s["score"]) for s in from_eval] == [(key(s), s["n"], s["score"]) for s in from_run]
    scores = {s["split"]: s["score"] for s in from_run}
    assert scores["length"] == 0.0 and scores["random"] > 0.3  # the model cuts long answers


def test_the_example_folder_runs_as_a_newcomer_copies_it(tmp_path, cli):
    project = tmp_path / "copied"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("report*", "splits", "__pycache__"))
    code, out, err = cli("run", str(project / "gengap.toml"), "--no-progress")  # run from another folder
    assert code == 0, err
    assert (project / "report" / "index.html").exists() and "length" in out
    with Store(project / "report" / "gengap.duckdb", read_only=True) as store:
        rows = store.rows(store.latest_run(), metric="exact_match")
    assert set(rows["split"]) == {"random", "length"} and rows.loc[rows["split"] == "length", "score"].sum() == 0
    assert rows["example_id"].str.startswith("q").all()  # the id column was mapped


@pytest.mark.parametrize("fmt", ["csv", "parquet", "hf"])
def test_other_data_formats_through_the_cli(tmp_path, cli, fmt):
    frame = pd.DataFrame(_records(60))
    if fmt == "csv":
        data = tmp_path / "data.csv"
        frame.to_csv(data, index=False)
    elif fmt == "parquet":
        data = tmp_path / "data.parquet"
        frame.to_parquet(data)
    else:
        import datasets

        data = tmp_path / "hf_data"
        datasets.Dataset.from_dict({c: frame[c].tolist() for c in frame.columns}).save_to_disk(str(data))
    spec = _model_module(tmp_path)
    code, out, err = cli("eval", "--data", str(data), "--input", "question", "--target", "answer", "--id", "qid",
                         "--model", spec, "--split", "random", "--out", "out", "--no-progress")
    assert code == 0, err
    with Store(tmp_path / "out" / "gengap.duckdb", read_only=True) as store:
        rows = store.rows(store.latest_run())
    truth = frame.set_index("qid")
    assert len(rows) == 12 and rows["example_id"].isin(truth.index).all()
    assert (rows["target"].to_numpy() == truth.loc[rows["example_id"], "answer"].to_numpy()).all()


# ---------------------------------------------------------------------------- gengap split
@pytest.mark.parametrize("method", ["random", "length"])
def test_split_files_are_byte_identical_for_a_seed_and_feed_eval(tmp_path, cli, method):
    data = _write_jsonl(tmp_path / "data.jsonl", _records())
    common = ["split", str(data), "--input", "question", "--target", "answer", "--id", "qid", "--method", method,
              "--test-fraction", "0.2"]
    for folder in ("s1", "s2"):
        code, out, err = cli(*common, "--seed", "0", "--out", folder)
        assert code == 0, err
    for name in ("train.jsonl", "test.jsonl", "split.json"):
        assert (tmp_path / "s1" / name).read_bytes() == (tmp_path / "s2" / name).read_bytes(), name
    info = json.loads((tmp_path / "s1" / "split.json").read_text())
    test_ids = [json.loads(line)["id"] for line in (tmp_path / "s1" / "test.jsonl").read_text().splitlines()]
    train_ids = [json.loads(line)["id"] for line in (tmp_path / "s1" / "train.jsonl").read_text().splitlines()]
    assert not set(test_ids) & set(train_ids) and len(test_ids) + len(train_ids) == 100
    assert info["method"] == method and info["n_test"] == len(test_ids) and info["n_train"] == len(train_ids)
    assert {"motivation", "generalisation_type", "shift_type", "shift_source", "shift_locus"} <= set(info["taxonomy"])
    if method == "random":
        code, _, err = cli(*common, "--seed", "1", "--out", "s3")
        assert code == 0 and (tmp_path / "s3" / "test.jsonl").read_bytes() != (tmp_path / "s1" / "test.jsonl").read_bytes()

    spec = _model_module(tmp_path)
    code, out, err = cli("eval", "--split", "s1", "--model", spec, "--out", "out", "--no-progress")
    assert code == 0, err
    with Store(tmp_path / "out" / "gengap.duckdb", read_only=True) as store:
        rows = store.rows(store.latest_run())
    assert sorted(rows["example_id"]) == sorted(test_ids)


def test_split_prints_its_diagnostics_even_with_no_train_part(tmp_path, cli):
    data = _write_jsonl(tmp_path / "data.jsonl", _records())
    common = ["split", str(data), "--input", "question", "--target", "answer", "--id", "qid"]
    code, out, err = cli(*common, "--method", "random", "--out", "r")
    assert code == 0, err
    assert out.startswith("random: 80 train, 20 test (20.0%), ") and "unseen test atom(s). Held out: a uniformly random 20 of 100" in out
    code, out, err = cli(*common, "--method", "all", "--out", "a")  # nothing trained: no structure to compare
    assert code == 0, err
    assert out.startswith("all: 0 train, 100 test (100.0%), no train part to compare. Held out: all 100 examples")


# ---------------------------------------------------------------------------- bad input, each one
def _good_args(data: Path, spec: str) -> list[str]:
    return ["eval", "--data", str(data), "--input", "question", "--target", "answer", "--model", spec,
            "--out", "out", "--no-progress"]


def test_malformed_jsonl_line(tmp_path, cli):
    data = _write_jsonl(tmp_path / "data.jsonl", _records(10))
    lines = data.read_text().splitlines()
    lines[6] = lines[6][:-5]
    data.write_text("\n".join(lines) + "\n")
    err = _one_paragraph_error(*cli(*_good_args(data, _model_module(tmp_path)))[::2])
    assert "data.jsonl' line 7" in err and "invalid JSON" in err


def test_misnamed_column(tmp_path, cli):
    data = _write_jsonl(tmp_path / "data.jsonl", _records(10))
    args = _good_args(data, _model_module(tmp_path))
    args[args.index("question")] = "qestion"
    err = _one_paragraph_error(*cli(*args)[::2])
    assert "no column 'qestion'" in err and "Did you mean 'question'?" in err
    assert "['qid', 'question', 'answer', 'site']" in err


def test_empty_dataset(tmp_path, cli):
    data = tmp_path / "data.jsonl"
    data.write_text("\n\n")
    err = _one_paragraph_error(*cli(*_good_args(data, _model_module(tmp_path)))[::2])
    assert "data.jsonl' has no examples" in err


def test_duplicate_ids(tmp_path, cli):
    records = _records(10)
    records[8]["qid"] = records[2]["qid"]
    data = _write_jsonl(tmp_path / "data.jsonl", records)
    err = _one_paragraph_error(*cli(*_good_args(data, _model_module(tmp_path)), "--id", "qid")[::2])
    assert "duplicate ids ['q002'] (rows [3, 9])" in err


def test_non_utf8_bytes(tmp_path, cli):
    data = _write_jsonl(tmp_path / "data.jsonl", _records(10))
    data.write_bytes(data.read_bytes() + '{"qid": "x", "question": "caf\u00e9", "answer": "b"}\n'.encode("cp1252"))
    err = _one_paragraph_error(*cli(*_good_args(data, _model_module(tmp_path)))[::2])
    assert "line 11" in err and "not UTF-8" in err


def test_run_file_with_an_unknown_key(tmp_path, cli):
    _write_jsonl(tmp_path / "data.jsonl", _records(10))
    run_file = tmp_path / "gengap.toml"
    run_file.write_text(f'[data]\npath = "data.jsonl"\ninput = "question"\ntraget = "answer"\n\n'
                        f'[model]\nspec = "{_model_module(tmp_path)}"\n')
    err = _one_paragraph_error(*cli("run", str(run_file))[::2])
    assert "unknown key 'data.traget'" in err and "Did you mean 'target'?" in err


def test_unknown_split_method_and_option(tmp_path, cli):
    data = _write_jsonl(tmp_path / "data.jsonl", _records(10))
    err = _one_paragraph_error(*cli(*_good_args(data, _model_module(tmp_path)), "--split", "lenght")[::2])
    assert "Unknown split method 'lenght'" in err and "Did you mean 'length'?" in err


def test_a_model_that_raises_names_the_shard_and_finished_shards_stay(tmp_path, cli):
    data = _write_jsonl(tmp_path / "data.jsonl", _records())
    spec = _model_module(tmp_path, '''
calls = 0

def predict(batch):
    global calls
    calls += 1
    if calls > 2:
        raise ValueError("out of memory on the third batch")
    return [q[::-1] for q in batch]
''')
    code, _, err = cli(*_good_args(data, spec), "--split", "random", "--split", "length", "--batch-size", "5",
                       "--shard-size", "5")
    _one_paragraph_error(code, err)
    model = spec.split(":")[1]
    assert f"{model}/random/none/10" in err and "out of memory on the third batch" in err
    with Store(tmp_path / "out" / "gengap.duckdb", read_only=True) as store:
        run = store.runs()["run_id"].iloc[-1]
        assert store.runs()["status"].iloc[-1] == "failed"
        rows = store.rows(run)
        assert len(rows) == 10 and set(rows["split"]) == {"random"}
        assert store.finished_shards(run) == {f"{model}/random/none/0", f"{model}/random/none/5"}


def test_a_model_returning_the_wrong_number_of_outputs(tmp_path, cli):
    data = _write_jsonl(tmp_path / "data.jsonl", _records(30))
    spec = _model_module(tmp_path, "def predict(batch):\n    return batch[:-1]\n")
    err = _one_paragraph_error(*cli(*_good_args(data, spec))[::2])
    assert "returned 5 outputs for a batch of 6 inputs" in err and "/random/none/0" in err


def test_an_endpoint_that_is_down(tmp_path, cli):
    data = _write_jsonl(tmp_path / "data.jsonl", _records(10))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    err = _one_paragraph_error(*cli(*_good_args(data, url), "--model-name", "m", "--max-retries", "1")[::2])
    assert f"{url}/chat/completions failed after 2 attempt(s): could not connect" in err


def test_missing_data_file_and_model_module(tmp_path, cli):
    err = _one_paragraph_error(*cli(*_good_args(tmp_path / "nope.jsonl", _model_module(tmp_path)))[::2])
    assert "nope.jsonl' does not exist" in err
    data = _write_jsonl(tmp_path / "data.jsonl", _records(10))
    err = _one_paragraph_error(*cli(*_good_args(data, "not_a_module_abc:predict"))[::2])
    assert "cannot import module 'not_a_module_abc'" in err


def test_python_api_gives_the_same_rows_as_the_cli(tmp_path, cli):
    data = _write_jsonl(tmp_path / "data.jsonl", _records())
    spec = _model_module(tmp_path)
    code, _, err = cli(*_good_args(data, spec), "--split", "random", "--split", "length")
    assert code == 0, err
    ds = gengap.load(data, input="question", target="answer")
    ev = gengap.evaluate(gengap.models.load_model(spec), ds, ["random", "length"], out=tmp_path / "py", progress=False)
    with Store(tmp_path / "out" / "gengap.duckdb", read_only=True) as store:
        from_cli = store.rows(store.latest_run())
    cols = ["split", "example_id", "output", "score"]
    assert from_cli[cols].reset_index(drop=True).equals(ev.rows()[cols].reset_index(drop=True))


def test_model_version_caches_a_function_model_and_every_run_says_where_outputs_came_from(tmp_path, cli):
    data = _write_jsonl(tmp_path / "data.jsonl", _records(40))
    spec = _model_module(tmp_path)
    code, out, err = cli(*_good_args(data, spec))
    assert code == 0, err
    assert "outputs computed; not cached" in out and "--model-version" in out
    code, out, err = cli(*_good_args(data, spec), "--model-version", "2026-05")
    assert code == 0, err
    assert "Model '" in out and ": 0 of 8 outputs from the cache (fingerprint " in out and ", 8 computed." in out
    code, out, err = cli(*_good_args(data, spec), "--model-version", "2026-05")
    assert code == 0, err
    assert ": 8 of 8 outputs from the cache (fingerprint " in out and ", 0 computed." in out
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["cache"][0]["n_cached"] == 8 and len(results["cache"][0]["fingerprint"]) == 16
    assert "8 of 8 outputs from the cache" in (tmp_path / "out" / "report.md").read_text()
    code, out, err = cli(*_good_args(data, spec), "--model-version", "2026-06")  # a new version: asked again
    assert code == 0, err
    assert ": 0 of 8 outputs from the cache" in out
