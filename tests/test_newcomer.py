"""What a new user tripped on, each reproduced through the surface they used (CLI, report, Python)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pandas as pd

from gengap.tasks import generate


def _write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _module(folder: Path, code: str) -> str:
    name = f"usermodel_{uuid.uuid4().hex[:10]}"
    (folder / f"{name}.py").write_text(code, encoding="utf-8")
    return name


def _addition(folder: Path, n: int = 300) -> Path:
    records = generate("addition", seed=0, n=n, max_digits=5).to_records()
    for r in records:
        r["source"] = "ab"[len(r["input"]) % 2]
    pd.DataFrame(records).to_json(folder / "add.jsonl", orient="records", lines=True)
    return folder / "add.jsonl"


# ------------------------------------------------------------------------- --curve is checked before running
def test_curve_on_a_missing_column_is_refused_before_running(tmp_path, cli):
    _addition(tmp_path)
    mod = _module(tmp_path, "CALLS = []\ndef predict(batch):\n    CALLS.append(1)\n    return batch\n")
    code, out, err = cli("eval", "--data", "add.jsonl", "--model", f"{mod}:predict", "--curve", "n_digit", "--out", "o",
                         "--no-progress")
    assert code == 1 and out == ""
    assert "--curve n_digit: the data has no column 'n_digit'" in err and "Did you mean 'n_digits'?" in err
    assert not (tmp_path / "o").exists()  # nothing ran, nothing written


def test_curve_on_a_text_column_is_refused_before_running(tmp_path, cli):
    _addition(tmp_path)
    mod = _module(tmp_path, "def predict(batch):\n    return batch\n")
    code, out, err = cli("eval", "--data", "add.jsonl", "--model", f"{mod}:predict", "--curve", "source", "--out", "o",
                         "--no-progress")
    assert code == 1 and "--curve source: the column 'source' is not numeric (e.g. '" in err
    assert not (tmp_path / "o").exists()


# ------------------------------------------------------------------------- a split folder that is not there
def test_a_missing_split_folder_says_it_does_not_exist(tmp_path, cli):
    _addition(tmp_path)
    mod = _module(tmp_path, "def predict(batch):\n    return batch\n")
    code, out, err = cli("split", "add.jsonl", "--method", "random", "--out", "splits/random")
    assert code == 0, err
    code, out, err = cli("eval", "--model", f"{mod}:predict", "--split", "splits/random", "--split", "splits/length",
                         "--no-progress")
    assert code == 1
    assert "the split folder 'splits/length' does not exist" in err and "cannot be mixed" not in err


# ------------------------------------------------------------------------- resume counts what it computed
def test_resume_says_how_many_outputs_this_session_computed(tmp_path, cli):
    _addition(tmp_path, n=400)
    mod = _module(tmp_path, "import os\nSEEN = [0]\ndef predict(batch):\n    SEEN[0] += len(batch)\n"
                            "    if os.path.exists('stop') and SEEN[0] > 60:\n        raise RuntimeError('stopped')\n"
                            "    return batch\n")
    (tmp_path / "stop").write_text("")
    code, out, err = cli("eval", "--data", "add.jsonl", "--model", f"{mod}:predict", "--out", "o", "--no-progress",
                         "--shard-size", "20", "--batch-size", "20")
    assert code != 0
    (tmp_path / "stop").unlink()
    code, out, err = cli("resume", "o", "--no-progress")
    assert code == 0, err
    line = next(x for x in out.splitlines() if x.startswith("Model 'predict'"))
    assert line.startswith("Model 'predict': 80 outputs computed, 20 of them in this session (60 kept from before it was "
                           "interrupted); not cached"), line


# ------------------------------------------------------------------------- the terminal shows the stress test
def test_perturb_prints_the_ranked_effects_on_the_terminal(tmp_path, cli):
    _addition(tmp_path)
    mod = _module(tmp_path, "def predict(batch):\n    return [x.replace(' ', '') for x in batch]\n")
    code, out, err = cli("eval", "--data", "add.jsonl", "--model", f"{mod}:predict", "--perturb", "typos",
                         "--perturb", "whitespace", "--out", "o", "--no-progress")
    assert code == 0, err
    assert "Stress test (exact_match): most harmful first" in out
    table = out[out.index("Stress test"):]
    assert "typos" in table and "whitespace" in table and "effect, pts" in table
