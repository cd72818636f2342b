"""The verifier in a run: ``gengap eval --no-verify`` / ``--verifier PATH``, the run file's ``[scoring] verify``
and ``verifier``, ``evaluate(verify=...)``; the setting is stored with the run (a resume and the run's record
say which reading was used), and cached model outputs are read again with the run's own setting."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pandas as pd
import pytest

import gengap
from gengap._errors import ConfigError
from gengap.extract import Extractor
from gengap.extract._verify import MODEL_FILE
from gengap.store import Store

#: Odd questions get a plain answer; even ones a hedged guess the rules read and the verifier withholds.
MODEL_CODE = '''
def predict(batch):
    out = []
    for q in batch:
        n = int(q.split()[2])
        out.append(f"The answer is {n + 11}." if n % 2 else f"I don't know, but my best guess is {n + 11}.")
    return out
'''


def _setup(folder: Path) -> tuple[Path, str]:
    data = folder / "data.jsonl"
    data.write_text("".join(json.dumps({"question": f"What is {i} plus 11?", "answer": str(i + 11)}) + "\n"
                            for i in range(40)), encoding="utf-8")
    name = f"hedging_{uuid.uuid4().hex[:10]}"
    (folder / f"{name}.py").write_text(MODEL_CODE, encoding="utf-8")
    return data, f"{name}:predict"


def _args(data: Path, spec: str, name: str) -> list[str]:
    return ["eval", "--data", str(data), "--input", "question", "--target", "answer", "--model", spec, "--extract",
            "number", "--model-version", "1", "--out", "out", "--name", name]


def _stored(folder: Path, name: str) -> tuple[dict, list]:
    with Store(folder / "out" / "gengap.duckdb", read_only=True) as store:
        runs = store.runs()
        run_id = str(runs[runs["name"] == name]["run_id"].iloc[-1])
        rows = store.rows(run_id).sort_values("example_id")
        return store.run_config(run_id), [None if pd.isna(v) else v for v in rows["extracted"]]


def test_no_verify_turns_withheld_readings_back_into_readings_from_the_same_cached_outputs(tmp_path, cli):
    data, spec = _setup(tmp_path)
    code, out, err = cli(*_args(data, spec, "verified"))
    assert code == 0, err
    config, verified = _stored(tmp_path, "verified")
    assert "verify" not in config["settings"]["scoring"] and "verify=" not in config["extract"]  # the default: as before
    assert sum(v is None for v in verified) == 4 and ", 8 computed." in out  # the 4 hedged guesses of 8 are withheld

    code, out, err = cli(*_args(data, spec, "unverified"), "--no-verify")
    assert code == 0, err
    assert ": 8 of 8 outputs from the cache" in out  # the model's outputs are cached, never the readings
    config, unverified = _stored(tmp_path, "unverified")
    assert config["settings"]["scoring"]["verify"] is False and "verify=False" in config["extract"]
    assert None not in unverified and [v for v in verified if v is not None] == [
        u for v, u in zip(verified, unverified) if v is not None]

    code, out, err = cli(*_args(data, spec, "verified"))  # the same run again: nothing new is read or asked
    assert code == 0, err
    assert _stored(tmp_path, "verified")[1] == verified


def test_the_run_file_keys_give_the_same_rows_as_the_options(tmp_path, cli):
    data, spec = _setup(tmp_path)
    model_file = shutil.copy(MODEL_FILE, tmp_path / "my-verifier.json")
    for name, keys, flags in (("off", "verify = false", ["--no-verify"]),
                              ("mine", f'verifier = "{model_file}"', ["--verifier", str(model_file)])):
        (tmp_path / f"{name}.toml").write_text(
            f'[data]\npath = "{data}"\ninput = "question"\ntarget = "answer"\n\n[model]\nspec = "{spec}"\nversion = "1"\n\n'
            f'[scoring]\nextract = "number"\n{keys}\n\n[eval]\nout = "out"\nname = "{name}-file"\n', encoding="utf-8")
        code, _, err = cli("run", f"{name}.toml")
        assert code == 0, err
        code, _, err = cli(*_args(data, spec, f"{name}-options"), *flags)
        assert code == 0, err
        from_file, from_options = _stored(tmp_path, f"{name}-file"), _stored(tmp_path, f"{name}-options")
        assert from_file[1] == from_options[1] and from_file[0]["settings"] == from_options[0]["settings"]
        assert from_file[0]["extract"] == from_options[0]["extract"]
    assert None not in _stored(tmp_path, "off-file")[1]
    config, mine = _stored(tmp_path, "mine-file")
    assert sum(v is None for v in mine) == 4 and config["settings"]["scoring"]["verifier"] == str(model_file)


def test_a_verifier_file_that_cannot_be_read_is_named_and_the_rules_readings_stand(tmp_path, cli):
    data, spec = _setup(tmp_path)
    missing = tmp_path / f"no-such-verifier-{uuid.uuid4().hex[:6]}.json"
    with pytest.warns(UserWarning, match=f"{missing.name}: cannot read the verifier file .*train_extract_verifier"):
        code, _, err = cli(*_args(data, spec, "missing"), "--verifier", str(missing))
    assert code == 0, err
    assert None not in _stored(tmp_path, "missing")[1]


def test_evaluate_takes_verify_and_an_extractor_carries_its_own(tmp_path):
    ds = gengap.load([{"input": f"What is {i} plus 11?", "target": str(i + 11)} for i in range(20)])
    hedged = lambda xs: [f"My best guess, though I don't know, is {int(x.split()[2]) + 11}." for x in xs]
    on = gengap.evaluate(hedged, ds, extract="number", out=tmp_path / "on", progress=False)
    off = gengap.evaluate(hedged, ds, extract="number", verify=False, out=tmp_path / "off", progress=False)
    given = gengap.evaluate(hedged, ds, extract=Extractor("number", verify=False), out=tmp_path / "given", progress=False)
    assert on.rows()["extracted"].isna().all() and off.settings.scoring.verify is False
    assert list(off.rows()["extracted"]) == list(given.rows()["extracted"]) and off.rows()["extracted"].notna().all()
    with pytest.raises(ConfigError, match="given twice"):
        gengap.evaluate(hedged, ds, extract=Extractor("number"), verify=False, out=tmp_path / "twice", progress=False)
