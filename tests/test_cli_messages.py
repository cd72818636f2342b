"""What a user reads from the gengap command: exact messages, plain text, checked outputs, Ctrl-C.

Text from data, paths and exceptions is printed as it is (never as rich markup), install hints name
extras that exist, a wrong --out fails before any work, and Ctrl-C says what was kept and how to
carry on.
"""

from __future__ import annotations

import ast
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import tomllib

import gengap
from gengap.store import Store

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "gengap"


def _write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _bracketed_data(folder: Path, n: int = 30) -> Path:
    recs = [{"qid": f"q{i}", "question": " ".join(["a"] * (1 + i % 5)), "[label]": "a " * (1 + i % 5)} for i in range(n)]
    return _write_jsonl(folder / "d.jsonl", recs)


def _module(folder: Path, code: str) -> str:
    name = f"usermodel_{uuid.uuid4().hex[:10]}"
    (folder / f"{name}.py").write_text(code, encoding="utf-8")
    return name


# ------------------------------------------------------------------------- plain text, never markup
def test_a_column_named_in_brackets_is_printed_as_it_is(tmp_path, cli):
    _bracketed_data(tmp_path)
    mod = _module(tmp_path, "def predict(batch):\n    return batch\n")
    code, out, err = cli("eval", "--data", "d.jsonl", "--input", "question", "--target", "label",
                         "--model", f"{mod}:predict")
    assert code == 1 and out == ""
    assert err == ("error: 'd.jsonl' has no column 'label' for the target role. Did you mean '[label]'? Columns there "
                   "are: ['qid', 'question', '[label]']. Pass --target COLUMN (or target='COLUMN') to map it.\n")


def test_an_exception_text_with_ray_and_closing_tag_is_printed_whole(tmp_path, cli):
    _bracketed_data(tmp_path)
    mod = _module(tmp_path, "def predict(batch):\n    raise RuntimeError(\"needs pip install 'gengap[ray]' from a[/x]b\")\n")
    code, out, err = cli("eval", "--data", "d.jsonl", "--input", "question", "--target", "[label]",
                         "--model", f"{mod}:predict", "--no-progress")
    assert code == 1
    assert err == ("error: Model 'predict' raised RuntimeError: needs pip install 'gengap[ray]' from a[/x]b — on "
                   "predict/random/none/0, rows 0..5 of the test part. Results of earlier shards are kept in the store.\n")


def test_a_path_holding_a_closing_tag_does_not_crash_the_error_handler(tmp_path, cli):
    code, out, err = cli("eval", "--data", "a[/x]b.jsonl", "--model", "m:predict")
    assert code == 1
    assert err == f"error: Data file 'a[/x]b.jsonl' does not exist. Check the path (relative paths start at {tmp_path}).\n"


def test_a_split_spec_in_brackets_is_named_in_the_error(tmp_path, cli):
    _bracketed_data(tmp_path)
    code, _, err = cli("eval", "--data", "d.jsonl", "--input", "question", "--target", "[label]",
                       "--model", "x:predict", "--split", "[random]")
    assert code == 1 and err.startswith("error: Unknown split method '[random]'. Did you mean 'random'? Methods: ")


def test_the_summary_table_prints_split_names_in_brackets(tmp_path, cli):
    recs = [{"id": f"e{i}", "input": " ".join(["a"] * (1 + i % 5)), "target": "a " * (1 + i % 5),
             "grp": "[g]" if i % 2 else "[/h]"} for i in range(40)]
    _write_jsonl(tmp_path / "d.jsonl", recs)
    mod = _module(tmp_path, "def predict(batch):\n    return ['a ' * len(x.split()) for x in batch]\n")
    code, out, err = cli("eval", "--data", "d.jsonl", "--model", f"{mod}:predict", "--split", "random",
                         "--split", "group:group=grp", "--out", "rep[/x]", "--no-progress")
    assert code == 0, err
    assert out.endswith("Report: rep[/x]/index.html  (also report.md, results.json, gengap.duckdb)\n")
    assert "gap to random" in out and "[g]" in out and "[/h]" in out


def test_progress_descriptions_are_plain_text():
    import io

    from rich.console import Console

    from gengap import _progress

    buf = io.StringIO()
    before = _progress.console
    _progress.console = Console(file=buf, width=80, force_terminal=True, color_system=None, markup=False)
    try:
        with _progress.progress("model [m] on [/x]", total=4, enabled=True) as bar:
            bar.advance(4)
    finally:
        _progress.console = before
    assert "model [m] on [/x]" in buf.getvalue()


# ------------------------------------------------------------------------- install hints
def _extras() -> set[str]:
    return set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])


def _hinted_extras() -> list[tuple[str, int, str]]:
    """(file, line, extra) of every MissingDependency(...) and require(..., extra=...) in the package."""
    found = []
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            if name == "MissingDependency" and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
                found.append((str(path.relative_to(ROOT)), node.lineno, node.args[1].value))
            if name == "require":
                for kw in node.keywords:
                    if kw.arg == "extra" and isinstance(kw.value, ast.Constant):
                        found.append((str(path.relative_to(ROOT)), node.lineno, kw.value.value))
    return found


def test_every_install_hint_names_an_extra_of_pyproject():
    hints = _hinted_extras()
    assert len(hints) >= 8  # the scan found the hints (torch, hf, skops, ray, lightning, ...)
    wrong = [h for h in hints if h[2] not in _extras()]
    assert wrong == [], f"install hints naming extras that pyproject.toml does not define: {wrong}"


def test_the_install_command_in_the_message_is_the_extra_itself():
    e = gengap.errors.MissingDependency("ray", "ray", "The Ray backend")
    assert str(e) == ("The Ray backend needs the optional package 'ray', which is not installed. "
                      "Install it with: pip install 'gengap[ray]'")


def test_the_readme_says_which_extra_the_ray_backend_needs():
    """setup.sh installs gengap[all] (not ray): the README's ray example must name the extra."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    setup = (ROOT / "scripts" / "setup.sh").read_text(encoding="utf-8")
    all_extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["all"][0]
    if "ray" not in all_extras:
        assert "--backend ray" in readme and "gengap[ray]" in readme
        assert ".[all" in setup


# ------------------------------------------------------------------------- --out checked first
def test_eval_with_out_pointing_at_a_file_fails_before_reading_anything(tmp_path, cli):
    (tmp_path / "taken").write_text("mine")
    code, out, err = cli("eval", "--data", "does-not-exist.jsonl", "--model", "x:predict", "--out", "taken")
    assert code == 1 and out == ""
    assert err == ("error: --out 'taken' is a file, not a folder. Give a folder for the output files (it is created "
                   "if missing), e.g. --out taken-out/.\n")
    assert (tmp_path / "taken").read_text() == "mine"


def test_split_with_out_pointing_at_a_file_fails_before_splitting(tmp_path, cli):
    (tmp_path / "taken.json").write_text("mine")
    code, out, err = cli("split", "does-not-exist.jsonl", "--out", "taken.json")
    assert code == 1
    assert err == ("error: --out 'taken.json' is a file, not a folder. Give a folder for the output files (it is "
                   "created if missing), e.g. --out taken-out/.\n")


def test_out_below_a_file_is_refused_too(tmp_path, cli):
    (tmp_path / "f").write_text("")
    code, _, err = cli("demo", "--out", "f/report")
    assert code == 1 and err == ("error: --out 'f/report' cannot be created: 'f' is a file, not a folder. Give a folder "
                                 "path whose parents are folders.\n")


def test_python_evaluate_refuses_a_file_as_out(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "taken").write_text("")
    with pytest.raises(gengap.ConfigError, match="out 'taken' is a file"):
        gengap.evaluate(lambda xs: xs, gengap.load([{"input": "a", "target": "a"}] * 5), out="taken")


# ------------------------------------------------------------------------- gengap methods
def test_methods_explains_every_option_with_default_and_allowed_values(cli):
    code, out, _ = cli("methods", "length")
    assert code == 0
    assert out == (
        "length  Train on examples up to a length, test on the longer ones (SCAN's length split).\n"
        "    by = 'target'  (str)  \"target\", \"input\" or the name of a numeric metadata column.\n"
        "    test_fraction = 0.2  (float)  the share of examples wanted in test (used when no threshold is given).\n"
        "    max_train_length = None  (int or None)  train on lengths <= this, test on the rest.\n"
        "    dedupe = False  (bool)  keep inputs that are normalized or near copies of each other on one side of every split "
        "(their test copies are moved or set aside; the diagnostics' dedupe figure counts them).\n"
        "    e.g. gengap eval --split length ...  or  gengap split DATA --method length -o OPTION=VALUE\n"
    )
    code, out, _ = cli("methods")
    from gengap.cli._split import option_docs
    from gengap.splits import methods

    for name, cls in methods().items():
        assert f"\n{name}  " in "\n" + out
        for option, default, allowed, meaning in option_docs(cls):
            assert meaning, f"{name}: option '{option}' has no explanation in the class docstring"
            assert f"    {option} = {default}  ({allowed})  {meaning}" in out
    code, _, err = cli("methods", "lenght")
    assert code == 1 and "There is no split method 'lenght'. Did you mean 'length'?" in err


# ------------------------------------------------------------------------- several saved split folders
def test_saved_split_folders_of_one_dataset_evaluate_together(tmp_path, cli):
    recs = [{"id": f"e{i}", "input": " ".join(["w"] * (1 + i % 8)), "target": " ".join(["x"] * (1 + i % 8))} for i in range(200)]
    _write_jsonl(tmp_path / "data.jsonl", recs)
    for method in ("random", "length"):
        code, _, err = cli("split", "data.jsonl", "--method", method, "--out", f"splits/{method}")
        assert code == 0, err
    mod = _module(tmp_path, "def predict(batch):\n    return [' '.join(['x'] * len(s.split())) if len(s.split()) < 6 else '' for s in batch]\n")
    code, out, err = cli("eval", "--split", "splits/length", "--split", "splits/random", "--model", f"{mod}:predict",
                         "--out", "rep", "--no-progress")
    assert code == 0, err
    with Store(tmp_path / "rep" / "gengap.duckdb", read_only=True) as store:
        run = store.latest_run()
        info = store.split_info(run)
    assert list(info) == ["length", "random"]
    # both record the data they were cut from: one fingerprint, shown the same on both cards
    assert info["length"]["dataset"] == info["random"]["dataset"] and info["random"]["dataset"]["n"] == 200
    results = json.loads((tmp_path / "rep" / "results.json").read_text())
    assert results["reference"] == "random"
    gaps = {r["split"]: r["gap"] for r in results["summary"]}
    assert gaps["random"] == 0 and gaps["length"] > 0.5
    assert "│ length │" in out and "│ random │" in out and "reference" in out

    # a folder cut from other data is refused, naming both folders and fingerprints
    _write_jsonl(tmp_path / "other.jsonl", recs[:150])
    cli("split", "other.jsonl", "--method", "length", "--out", "splits/other")
    code, _, err = cli("eval", "--split", "splits/random", "--split", "splits/other", "--model", f"{mod}:predict")
    assert code == 1 and "The split folders 'splits/random' and 'splits/other' were made from different data" in err
    # and a folder mixed with a method is refused with the fix
    code, _, err = cli("eval", "--split", "splits/random", "--split", "length", "--model", f"{mod}:predict")
    assert code == 1 and "cannot be mixed with split methods (length)" in err


def test_a_reference_other_than_random_is_named_as_the_reference(tmp_path, cli):
    recs = [{"id": f"e{i}", "input": " ".join(["w"] * (1 + i % 8)), "target": " ".join(["x"] * (1 + i % 8))} for i in range(200)]
    _write_jsonl(tmp_path / "data.jsonl", recs)
    mod = _module(tmp_path, "def predict(batch):\n    return [' '.join(['x'] * len(s.split())) if len(s.split()) < 6 else '' for s in batch]\n")
    code, _, err = cli("eval", "--data", "data.jsonl", "--split", "random", "--split", "length",
                       "--model", f"{mod}:predict", "--out", "rep", "--no-progress")
    assert code == 0, err
    code, out, err = cli("report", "rep", "--reference", "length", "--format", "md")
    assert code == 0, err
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "i.i.d. split 'length'" not in md and "the reference split 'length'" in md
    assert "| Gap to reference |" in md and "Gap to i.i.d." not in md
    assert "#### length (the reference)" in md and "#### random\n" in md


# ------------------------------------------------------------------------- Ctrl-C
SLOW_MODEL = '''
import os, time
from pathlib import Path

def predict(batch):
    folder = Path(os.environ["GENGAP_TEST_FOLDER"])
    n = len(list(folder.glob("batch-*")))
    (folder / f"batch-{n}").write_text("")
    if n >= 3 and (folder / "block").exists():
        time.sleep(120)
    return [x.upper() for x in batch]
'''


def _gengap() -> list[str]:
    script = Path(sys.executable).with_name("gengap")
    return [str(script)] if script.exists() else [sys.executable, "-m", "gengap.cli"]


@pytest.mark.slow
def test_ctrl_c_says_what_was_kept_and_the_command_that_resumes(tmp_path):
    _write_jsonl(tmp_path / "data.jsonl", [{"id": f"e{i}", "input": f"x {i}", "target": f"X {i}"} for i in range(100)])
    (tmp_path / "slowmodel.py").write_text(SLOW_MODEL)
    (tmp_path / "block").write_text("")
    env = {**os.environ, "GENGAP_TEST_FOLDER": str(tmp_path), "PYTHONPATH": os.pathsep.join(
        [str(ROOT / "src"), str(tmp_path), os.environ.get("PYTHONPATH", "")]), "GENGAP_NO_PROGRESS": "1"}
    args = ["eval", "--data", "data.jsonl", "--model", "slowmodel:predict", "--out", "my out", "--shard-size", "10",
            "--batch-size", "10", "--test-fraction", "0.5"]
    # Ctrl-C as in a terminal: a job a non-interactive shell starts in the background ignores SIGINT, and a
    # child inherits that, so the child is given the default disposition back (Python then installs its own).
    proc = subprocess.Popen(_gengap() + args, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while not (tmp_path / "batch-3").exists():
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    store = Path("my out") / "gengap.duckdb"
    assert err == (
        f"Interrupted. Kept: 30 per-example rows (3 finished shards) of run r0001 in {store}.\n"
        "To finish the run (only the missing shards are computed): gengap resume 'my out'\n"
        "(or run the same command again: gengap eval --data data.jsonl --model slowmodel:predict --out 'my out' "
        "--shard-size 10 --batch-size 10 --test-fraction 0.5)\n"
    )
    (tmp_path / "block").unlink()
    done = subprocess.run(_gengap() + ["resume", "my out", "--no-progress"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert len(list(tmp_path.glob("batch-*"))) == 4 + 2  # the blocked batch again, then the last one
    with Store(tmp_path / "my out" / "gengap.duckdb", read_only=True) as s:
        assert s.runs()["status"].tolist() == ["done"]
        assert len(s.rows("r0001")) == 50


def test_ctrl_c_message_of_commands_that_keep_nothing():
    from gengap.cli._interrupt import interrupted_message

    assert interrupted_message(["split", "d.jsonl"]) == "Interrupted. Nothing was written: run the same command again."
    assert interrupted_message(["demo", "--out", "/nonexistent/x"]) == (
        "Interrupted before any result was stored. Run the same command again to start over.")


# ------------------------------------------------------------------------- progress bars
def test_progress_line_fits_80_columns_and_names_the_split_and_how_many():
    import io

    from rich.console import Console
    from rich.progress import Progress

    from gengap import _progress

    console = Console(file=io.StringIO(), width=80, record=True, color_system=None)
    bars = Progress(*_progress._columns(), console=console, auto_refresh=False)
    with _progress.stage("primitive:jump (3/3)"):
        task = bars.add_task(_progress._described("training gru"), total=20910, info="ep 3/8 loss 0.123")
    bars.advance(task, 1234)
    console.print(bars.make_tasks_table(bars.tasks))
    lines = console.export_text().splitlines()
    assert len(lines) == 1 and len(lines[0]) <= 80, lines
    assert lines[0].startswith("primitive:jump (3/3) · training gru") and "1234/20910" in lines[0], lines
    assert "ep 3/8" in lines[0] and _progress._described("x") == "x"


# ------------------------------------------------------------------------- notebooks
def test_summary_in_a_notebook_shows_the_table_the_cli_prints(tmp_path):
    import io

    from rich.console import Console

    from gengap.cli._common import print_summary

    recs = [{"input": " ".join(["a"] * (1 + i % 6)), "target": " ".join(["a"] * (1 + i % 6))} for i in range(120)]
    ev = gengap.evaluate(lambda xs: [x if len(x.split()) < 5 else "" for x in xs], gengap.load(recs),
                         ["random", "length"], out=tmp_path, progress=False)
    summary = ev.summary()
    assert list(summary["split"]) == ["random", "length"] and type(summary.head(1)).__name__ == "DataFrame"

    def text(renderable_or_summary, via_cli: bool) -> str:
        console = Console(file=io.StringIO(), width=100, record=True, color_system=None)
        if via_cli:
            print_summary(summary, console=console)
        else:
            console.print(renderable_or_summary)
        return console.export_text()

    assert text(summary, via_cli=False) == text(summary, via_cli=True)  # rich.print(summary) in a notebook
    html = summary._repr_html_()
    assert html.count("random") >= 1 and "gap to random" in html and "score %" in html and "<pre" in html
    assert "rows x" not in html  # not the truncated DataFrame repr
