"""The verifier after the rules: which readings it keeps and withholds, that it never changes a reading, the
model file's stamp (a file from another version is named, warned about and the rules' readings stand), and
that one model file gives the same readings every time."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from gengap._errors import ConfigError
from gengap.extract import KINDS, Extractor, extract
from gengap.extract._base import Extraction
from gengap.extract._verify import MODEL_FILE, SCHEMA, Verifier, feature_names, features, load_verifier

CASES = Path(__file__).parent / "data" / "extract"


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _fixture_cases() -> list[tuple[str, dict[str, Any]]]:
    return [(kind, case) for kind in KINDS for case in _rows(CASES / f"{kind}.jsonl")]


@pytest.mark.parametrize("case", _rows(CASES / "verifier.jsonl"), ids=lambda c: c["principle"][:50])
def test_verifier_cases(case: dict[str, Any]) -> None:
    got = extract(case["output"], case["kind"], question=case.get("question"), choices=case.get("choices"))
    rules = extract(case["output"], case["kind"], question=case.get("question"), choices=case.get("choices"), verify=False)
    assert got.value == case["expected"], case["principle"]
    if "withheld" in case:  # the rules read it; the verifier set it aside, and says so
        assert rules.value == case["withheld"] and got.rule == "verifier"
        assert got.withheld == case["withheld"] and got.withheld_rule == rules.rule
    else:
        assert got == rules and got.withheld is None


def test_the_verifier_only_withholds_never_changes_a_reading() -> None:
    withheld = 0
    for kind, case in _fixture_cases():
        args = dict(question=case.get("question"), choices=case.get("choices"))
        rules, got = extract(case["output"], kind, verify=False, **args), extract(case["output"], kind, **args)
        if got.rule == "verifier":
            withheld += 1
            assert got.value is None and got.withheld == rules.value is not None
        else:
            assert got == rules
    assert 0 < withheld < 0.05 * len(_fixture_cases())  # it doubts a few readings, not the rules wholesale


def test_the_shipped_model_is_stamped_with_this_version() -> None:
    data = json.loads(MODEL_FILE.read_text(encoding="utf-8"))
    assert data["schema"] == SCHEMA and data["features"] == list(feature_names())
    verifier = load_verifier()
    assert len(verifier.weights) == len(feature_names()) and 0 < verifier.threshold < 1
    assert sum(s["readings"] for s in data["trained_on"].values()) > 3000  # trained on the fresh readings of four sets


def _write_model(tmp_path: Path, name: str, change: dict[str, Any]) -> Path:
    data = json.loads(MODEL_FILE.read_text(encoding="utf-8"))
    data.update(change)
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


OUTPUT = ("I don't know, but my best guess is 40.", "number")


@pytest.mark.parametrize("name, change, says", [
    ("other_schema.json", {"schema": SCHEMA + 1}, "feature schema"),
    ("other_features.json", {"features": ["kind_number"]}, "feature schema"),
    ("short_weights.json", {"weights": [0.5, 1.0]}, "'weights' must hold"),
    ("not_a_verifier.json", {"kind": "something else"}, "not a gengap extraction verifier file"),
])
def test_a_model_file_from_another_version_is_named_and_the_rules_stand(tmp_path: Path, name: str, change: dict[str, Any],
                                                                       says: str) -> None:
    path = _write_model(tmp_path, name, change)
    with pytest.raises(ConfigError, match=says) as error:
        load_verifier(path)
    assert str(path) in str(error.value) and "train_extract_verifier.py" in str(error.value)
    rules = extract(*OUTPUT, verify=False)
    with pytest.warns(UserWarning, match=says) as warned:
        got = extract(*OUTPUT, verify=path)
    assert got == rules and got.value == "40"  # the shipped model withholds it; without a usable model the rules' reading stands
    assert str(path) in str(warned[0].message)
    extract(*OUTPUT, verify=path)  # warned once per file, not once per output


def test_a_file_that_is_not_json_is_named(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"kind": "gengap extraction verifier", ', encoding="utf-8")
    with pytest.raises(ConfigError, match="cannot read the verifier file"):
        load_verifier(path)
    with pytest.warns(UserWarning, match="broken.json"):
        assert extract(*OUTPUT, verify=path).value == "40"


def test_verify_takes_true_false_or_a_path() -> None:
    with pytest.raises(ConfigError, match="verify=42"):
        extract("7", "number", verify=42)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="verify=0.5"):
        Extractor("number", verify=0.5)  # type: ignore[arg-type]
    assert extract(*OUTPUT).rule == "verifier" and extract(*OUTPUT, verify=False).value == "40"
    assert Extractor("number")([OUTPUT[0], "42"]) == [None, "42"]
    assert Extractor("number", verify=False)([OUTPUT[0], "42"]) == ["40", "42"]


def test_same_model_file_same_readings(tmp_path: Path) -> None:
    copy = tmp_path / "copy.json"
    shutil.copy(MODEL_FILE, copy)
    cases = _fixture_cases()[::7]
    shipped = [extract(c["output"], k, question=c.get("question"), choices=c.get("choices")) for k, c in cases]
    copied = [extract(c["output"], k, question=c.get("question"), choices=c.get("choices"), verify=copy) for k, c in cases]
    assert [(r.value, r.rule) for r in shipped] == [(r.value, r.rule) for r in copied]
    code = ("import json, sys; from gengap.extract import extract; rows = json.loads(sys.stdin.read()); "
            "print(json.dumps([extract(o, k, question=q, choices=c).rule for k, o, q, c in rows]))")
    rows = [[k, c["output"], c.get("question"), c.get("choices")] for k, c in cases]
    again = subprocess.run([sys.executable, "-c", code], input=json.dumps(rows), capture_output=True, text=True, check=True)
    assert json.loads(again.stdout) == [r.rule for r in shipped]  # a fresh process reads the same


def test_the_doubt_is_scikit_learns_logistic_probability() -> None:
    cases = _fixture_cases()[::3]
    readings = [(k, c, extract(c["output"], k, question=c.get("question"), choices=c.get("choices"), verify=False))
                for k, c in cases]
    X = np.array([features(c["output"], k, r, c.get("question"), c.get("choices")) for k, c, r in readings if r.ok])
    y = np.array([int(r.rule != "answer_first") for _, _, r in readings if r.ok])
    model = LogisticRegression(C=1.0, max_iter=5000).fit(X, y)
    verifier = Verifier(tuple(model.coef_[0]), float(model.intercept_[0]), 0.5)
    ours = np.array([verifier.doubt(list(row)) for row in X])
    assert np.allclose(ours, model.predict_proba(X)[:, 1], atol=1e-9)


def test_features_are_finite_and_named() -> None:
    reading = Extraction("14", "number", "answer_first")
    row = features("", "number", reading)
    assert len(row) == len(feature_names()) and all(np.isfinite(row))
    assert dict(zip(feature_names(), row))["value_missing"] == 1.0


def test_cli_counts_the_withheld_readings_and_no_verify_keeps_them(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from gengap.cli import app

    src, out = tmp_path / "outputs.jsonl", tmp_path / "out.jsonl"
    src.write_text("\n".join(json.dumps({"response": r}) for r in [OUTPUT[0], "#### 12"]) + "\n", encoding="utf-8")
    base = ["extract", str(src), "--kind", "number", "--output-field", "response", "--out", str(out)]
    result = CliRunner().invoke(app, base)
    assert result.exit_code == 0, result.output
    assert [json.loads(line)["extracted"] for line in out.read_text().splitlines()] == [None, "12"]
    assert "1 of them read by the rules and withheld by the verifier" in " ".join(result.output.split())
    result = CliRunner().invoke(app, [*base, "--no-verify"])
    assert result.exit_code == 0, result.output
    assert [json.loads(line)["extracted"] for line in out.read_text().splitlines()] == ["40", "12"]
    assert "by the verifier" not in result.output


def test_features_are_those_the_shipped_model_was_trained_on() -> None:
    """Every input of the shipped model, for readings frozen with their features (sampled from the kinds' cases,
    and shapes they lack: a structured reading, a value the output does not hold, a long output, an empty
    question), is the same float as when it was trained: a faster ``features`` must give bit-identical rows."""
    for row in _rows(CASES / "verifier_features.jsonl"):
        reading = Extraction(row["value"], row["kind"], row["rule"])
        got = features(row["output"], row["kind"], reading, row["question"], row["choices"])
        assert got == row["features"], (row["output"][:80], [(n, a, b) for n, a, b in
                                                             zip(feature_names(), got, row["features"]) if a != b])
