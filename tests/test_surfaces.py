"""One table of options through the three surfaces: ``gengap eval``, a run file (``gengap run``) and
``gengap.evaluate``. Each row must give the same run (name, settings, perturbations, scores, curves)
whichever way it is given, and a bad spec must be refused by all three before any work starts."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from typing import Any

import pytest

import gengap
from gengap.errors import ConfigError, DataError
from gengap.store import STORE_NAME, Store

MODEL_CODE = '''
def predict(batch):
    """Right on short inputs, wrong on long ones."""
    return [x.upper() if len(x) < 12 else x for x in batch]
'''

#: Each row: what it sets, as (gengap eval flags, run-file TOML lines by table, evaluate keywords).
ROWS: dict[str, tuple[list[str], dict[str, list[str]], dict[str, Any]]] = {
    "defaults": ([], {}, {}),
    "perturbation specs": (["--perturb", "casing", "--perturb", "typos:rate=0.2"],
                           {"eval": ['perturb = ["casing", "typos:rate=0.2"]']},
                           {"perturbations": ["casing", "typos:rate=0.2"]}),
    "a perturbation family": (["--perturb", "all_noise"], {"eval": ['perturb = ["all_noise"]']},
                              {"perturbations": ["all_noise"]}),
    "curves": (["--curve", "depth", "--curve", "input_length"], {"eval": ['curves = ["depth", "input_length"]']},
               {"curves": ["depth", "input_length"]}),
    "a run name": (["--name", "mine"], {"eval": ['name = "mine"']}, {"name": "mine"}),
    "scoring and splitting": (["--metric", "token_f1", "--seed", "3", "--test-fraction", "0.3", "--reference", "random"],
                              {"scoring": ['metrics = ["token_f1"]', 'reference = "random"'],
                               "splitting": ["seed = 3", "test_fraction = 0.3"]},
                              {"metrics": ["token_f1"], "seed": 3, "test_fraction": 0.3, "reference": "random"}),
    "execution": (["--batch-size", "4", "--shard-size", "5", "--backend", "thread", "--workers", "2"],
                  {"execution": ["batch_size = 4", "shard_size = 5", 'backend = "thread"', "workers = 2"]},
                  {"batch_size": 4, "shard_size": 5, "backend": "thread", "workers": 2}),
    "extraction": (["--extract", "text"], {"scoring": ['extract = "text"']}, {"extract": "text"}),
    "baselines and similarity to training": (
        ["--baseline", "majority", "--baseline", "length", "--train-similarity", "tfidf"],
        {"analysis": ['baselines = ["majority", "length"]', 'train_similarity = "tfidf"']},
        {"baselines": ["majority", "length"], "train_similarity": "tfidf"}),
    "a curve along the similarity to training": (["--curve", "train_similarity"], {"eval": ['curves = ["train_similarity"]']},
                                                 {"curves": ["train_similarity"]}),
    "slice search": (["--find-slices", "--slice-order", "1"], {"analysis": ["find_slices = true", "slice_order = 1"]},
                     {"find_slices": True, "slice_order": 1}),
    "slice search confirmed on half": (["--find-slices", "--slice-control", "split"],
                                       {"analysis": ["find_slices = true", 'slice_control = "split"']},
                                       {"find_slices": True, "slice_control": "split"}),
}

#: Bad specs: each surface refuses them before a store exists, naming the fix.
BAD: dict[str, tuple[list[str], dict[str, list[str]], dict[str, Any], str]] = {
    "unknown perturbation": (["--perturb", "casnig"], {"eval": ['perturb = ["casnig"]']}, {"perturbations": ["casnig"]},
                             r"Unknown perturbation 'casnig'\. Did you mean 'casing'\?"),
    "bad perturbation option": (["--perturb", "typos:rat=0.1"], {"eval": ['perturb = ["typos:rat=0.1"]']},
                                {"perturbations": ["typos:rat=0.1"]}, r"rat"),
    "curve on a missing column": (["--curve", "dept"], {"eval": ['curves = ["dept"]']}, {"curves": ["dept"]},
                                  r"no column 'dept'.*Did you mean 'depth'\?"),
    "curve on a text column": (["--curve", "source"], {"eval": ['curves = ["source"]']}, {"curves": ["source"]},
                               r"'source' is not numeric"),
    "unknown baseline": (["--baseline", "majorty"], {"analysis": ['baselines = ["majorty"]']}, {"baselines": ["majorty"]},
                         r"Did you mean 'majority'\?"),
    "similarity to a missing column": (["--train-similarity", "dept"], {"analysis": ['train_similarity = "dept"']},
                                       {"train_similarity": "dept"}, r"train_similarity='dept'.*Did you mean 'depth'\?"),
    "slice order out of range": (["--slice-order", "5"], {"analysis": ["slice_order = 5"]}, {"slice_order": 5},
                                 r"slice.order.*less than or equal to 3"),
    "unknown slice control": (["--slice-control", "bonferroni"], {"analysis": ['slice_control = "bonferroni"']},
                              {"slice_control": "bonferroni"}, r"(?=.*slice.control)(?=.*'bh' or 'split')(?=.*bonferroni)"),
}


def _records(n: int = 40) -> list[dict[str, Any]]:
    return [{"input": "ab " * (1 + i % 7) + str(i), "target": ("AB " * (1 + i % 7) + str(i)).upper(), "depth": 1 + i % 7,
             "source": "xy"[i % 2]} for i in range(n)]


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    (tmp_path / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in _records()), encoding="utf-8")
    (tmp_path / "surfaces_model.py").write_text(MODEL_CODE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def _run_file(folder: Path, out: Path, tables: dict[str, list[str]]) -> Path:
    body = {"data": ['path = "data.jsonl"'], "model": ['spec = "surfaces_model:predict"'], "eval": [f'out = "{out}"']}
    for table, lines in tables.items():
        body.setdefault(table, []).extend(lines)
    text = "".join(f"[{table}]\n" + "\n".join(lines) + "\n" for table, lines in body.items())
    text += '[[split]]\nmethod = "random"\n[[split]]\nmethod = "length"\n'
    path = folder / f"{out.name}.toml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def _python(folder: Path, out: Path, keywords: dict[str, Any]) -> gengap.Evaluation:
    model = gengap.models.load_model("surfaces_model:predict")
    ev = gengap.evaluate(model, gengap.load(str(folder / "data.jsonl")), ["random", "length"], out=out, progress=False,
                         **keywords)
    ev.report()
    return ev


def _stored(out: Path) -> dict[str, Any]:
    """What a surface left in its folder: the run's name and settings, its rows' scores, the curves drawn."""
    with Store(out / STORE_NAME, read_only=True) as store:
        runs = store.runs()
        assert len(runs) == 1
        run_id = str(runs["run_id"].iloc[0])
        config = store.run_config(run_id)
        rows = store.rows(run_id)
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    curves = sorted({c["axis"] for c in results["curves"]})
    slices = [(s["model"], s["split"], s["description"], s["n"]) for s in results.get("slices") or []]
    return {"name": str(runs["name"].iloc[0]), "settings": config["settings"], "models": config["models"],
            "train_similarity": config.get("train_similarity"), "slices": slices,
            "slice_search": "slices" in results.get("sections", {}),
            "slice_control": (results.get("sections", {}).get("slices") or {}).get("control"),
            "perturbations": config["perturbations"], "splits": [s["n_test"] for s in config["splits"]],
            "scores": sorted(zip(rows["split"], rows["perturbation"], rows["example_id"], rows["metric"], rows["score"])),
            "curves": curves}


@pytest.mark.parametrize("row", list(ROWS))
def test_one_table_of_options_gives_the_same_run_through_cli_run_file_and_python(row, project, cli):
    flags, tables, keywords = ROWS[row]
    code, _, err = cli("eval", "--data", "data.jsonl", "--model", "surfaces_model:predict", "--split", "random",
                       "--split", "length", "--out", str(project / "by_cli"), "--no-progress", *flags)
    assert code == 0, err
    code, _, err = cli("run", str(_run_file(project, project / "by_file", tables)), "--no-progress")
    assert code == 0 and "warning" not in err, err
    ev = _python(project, project / "by_python", keywords)
    by_cli, by_file, by_python = (_stored(project / f) for f in ("by_cli", "by_file", "by_python"))
    assert by_cli == by_file == by_python
    assert ev.settings.stored() == by_python["settings"]
    if "curves" in keywords:
        assert set(keywords["curves"]) <= set(by_python["curves"])
    if "baselines" in keywords:
        assert by_python["models"] == ["predict", "baseline:majority", "baseline:length"]
    if "train_similarity" in keywords or "train_similarity" in keywords.get("curves", ()):
        assert by_python["train_similarity"] == "tfidf" and by_python["settings"]["analysis"]["train_similarity"] == "tfidf"
    assert by_python["slice_search"] == bool(keywords.get("find_slices"))
    if keywords.get("find_slices"):
        assert by_python["slice_control"] == keywords.get("slice_control", "bh")
    if "perturbations" in keywords:
        assert len(by_python["perturbations"]) >= len(keywords["perturbations"]) and \
            {p for _, p, *_ in by_python["scores"]} == {"none", *by_python["perturbations"]}


@pytest.mark.parametrize("row", list(BAD))
def test_a_bad_spec_is_refused_by_every_surface_before_any_work(row, project, cli):
    flags, tables, keywords, message = BAD[row]
    code, _, err = cli("eval", "--data", "data.jsonl", "--model", "surfaces_model:predict", "--split", "random",
                       "--out", str(project / "by_cli"), "--no-progress", *flags)
    assert code == 1 and len(err.strip().splitlines()) <= 2, err
    assert re.search(message, " ".join(err.split())), err
    code, _, err = cli("run", str(_run_file(project, project / "by_file", tables)), "--no-progress")
    assert code == 1 and re.search(message, " ".join(err.split())), err
    with pytest.raises((ConfigError, DataError), match=message):
        _python(project, project / "by_python", keywords)
    for folder in ("by_cli", "by_file", "by_python"):
        assert not (project / folder / STORE_NAME).exists(), f"{folder}: a store was started before the spec was checked"
