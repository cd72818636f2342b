"""Score curves through every surface: Evaluation.curve, the report section, results.json, CLI, run file."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pandas as pd
import pytest

import gengap
from _files import import_file
from gengap._errors import ConfigError, DataError
from gengap.report import results_schema
from gengap.tasks import generate

MODEL_SOURCE = '''
def predict(inputs):
    """Adds exactly up to 4 digits; beyond that, more often wrong the longer the operands (a fixed rule)."""
    out = []
    for i, x in enumerate(inputs):
        a, b = x.replace(" ", "").split("+")
        digits = max(len(a), len(b))
        s = " ".join(str(int(a) + int(b)))
        wrong = digits > 4 and (sum(map(ord, x)) % 5) < digits - 4
        out.append(s + " 1" if wrong else s)
    return out
'''



def _model(tmp_path: Path):
    (tmp_path / "adder.py").write_text(MODEL_SOURCE, encoding="utf-8")
    return import_file(tmp_path / "adder.py").predict  # the same function the CLI imports


@pytest.fixture
def addition_run(tmp_path):
    ds = generate("addition", seed=0, n=2000, max_digits=8)
    split = gengap.LengthSplit(by="n_digits", max_train_length=4)
    return gengap.evaluate(_model(tmp_path), ds, ["random", split], out=tmp_path / "out", progress=False)


def test_evaluation_curve_marks_training_range_and_break(addition_run):
    untrained = addition_run.curve("n_digits", n_resamples=2000)  # a function was never trained on any range
    assert untrained.train_range is None and untrained.break_value == 5.0
    c = addition_run.curve("n_digits", n_resamples=2000, train_range=(1, 4))
    t = c.to_table()
    assert c.train_range == (1.0, 4.0) and t["value"].tolist() == [1, 2, 3, 4, 5, 6, 7, 8]
    assert t["in_range"].tolist() == [True] * 4 + [False] * 4
    assert c.reference_score == 1.0  # the rule is exact up to 4 digits
    assert c.break_value == 5.0 and c.break_low == 5.0
    rows = addition_run.rows("exact_match")
    length_rows = rows[rows["split"] == "length"]
    # beyond the range every bin comes from the length split's rows, in range from the i.i.d. split's
    assert t.loc[~t["in_range"], "n"].sum() == len(length_rows)
    assert t.loc[t["in_range"], "n"].sum() == int((rows["split"] == "random").sum() - (
        rows.loc[rows["split"] == "random", "metadata"].map(lambda m: json.loads(m)["n_digits"] > 4).sum()))


def test_evaluation_curve_bad_names(addition_run):
    with pytest.raises(DataError, match="n_digits"):
        addition_run.curve("n_digitz")
    with pytest.raises(ConfigError, match="model='other'"):
        addition_run.curve("n_digits", model="other")
    with pytest.raises(ConfigError, match="not in this run"):
        addition_run.curve("n_digits", splits=["nope"])


def test_report_draws_length_curve_by_default_and_asked_axes(addition_run, tmp_path):
    folder = addition_run.report(tmp_path / "rep", curves=["n_carries", "no_such_column"])
    doc = json.loads((folder / "results.json").read_text())
    jsonschema.validate(doc, results_schema())
    axes = [c["axis"] for c in doc["curves"]]
    assert axes == ["n_carries", "n_digits"]  # asked first, then the length split's; the bad one is a notice
    n_digits = doc["curves"][1]
    assert n_digits["break_value"] == 5.0 and n_digits["train_range"] is None  # a function: nothing trained
    assert [b["n"] for b in n_digits["bins"]] == addition_run.curve("n_digits").to_table()["n"].tolist()
    html = (folder / "index.html").read_text()
    assert 'id="chart-curve-0"' in html and 'id="chart-curve-2"' in html
    assert "No curve along no_such_column" in html
    md = (folder / "report.md").read_text()
    assert "## Score curves" in md and "it breaks at n_digits = 5" in md
    assert "in the first bin (n_digits 1), the reference: no model was trained on this axis" in md
    assert "| training |" not in md
    assert "curves" not in doc["sections"]


def test_report_without_curves_has_none(tmp_path):
    ds = generate("addition", seed=1, n=300, max_digits=4)
    ev = gengap.evaluate(_model(tmp_path), ds, ["random"], out=tmp_path / "o", progress=False)
    doc = json.loads((ev.report() / "results.json").read_text())
    assert doc["curves"] == [] and doc["schema_version"] == "1.10"


def test_cli_eval_curve_run_file_and_report_curve(tmp_path, cli):
    _model(tmp_path)
    pd.DataFrame(generate("addition", seed=0, n=800, max_digits=7).to_records()).to_json(tmp_path / "add.jsonl", orient="records", lines=True)
    code, out, err = cli("eval", "--data", "add.jsonl", "--model", "adder:predict", "--split", "random",
                         "--curve", "n_digits", "--out", "ev", "--no-progress")
    assert code == 0, err
    doc = json.loads((tmp_path / "ev" / "results.json").read_text())
    assert [c["axis"] for c in doc["curves"]] == ["n_digits"]
    assert doc["curves"][0]["train_range"] is None  # no length split: the first bin is the reference
    assert doc["run"]["config"]["eval"]["curves"] == ["n_digits"]

    (tmp_path / "g.toml").write_text(
        '[data]\npath = "add.jsonl"\n[model]\nspec = "adder:predict"\n[[split]]\nmethod = "random"\n'
        '[eval]\nout = "rf"\ncurves = ["n_digits", "input_length"]\n', encoding="utf-8")
    code, out, err = cli("run", "g.toml", "--no-progress")
    assert code == 0, err
    doc = json.loads((tmp_path / "rf" / "results.json").read_text())
    assert [c["axis"] for c in doc["curves"]] == ["n_digits", "input_length"]

    code, out, err = cli("report", "rf", "--curve", "n_carries", "--out", "again")
    assert code == 0, err
    doc = json.loads((tmp_path / "again" / "results.json").read_text())
    assert [c["axis"] for c in doc["curves"]] == ["n_carries", "n_digits", "input_length"]

    (tmp_path / "bad.toml").write_text('[data]\npath = "add.jsonl"\n[model]\nspec = "adder:predict"\n'
                                       '[eval]\ncurve = ["n_digits"]\n', encoding="utf-8")
    code, out, err = cli("run", "bad.toml", "--no-progress")
    assert code != 0 and "curves" in (out + err)


def test_irt_difficulty_axis_needs_several_models(tmp_path, addition_run):
    with pytest.raises(DataError, match="at least two models"):
        addition_run.curve("irt_difficulty")
    base = _model(tmp_path)

    def weaker(k):  # wrong on every input whose character sum falls in the k lowest of 7 classes
        return lambda xs: [y if sum(map(ord, x)) % 7 >= k else "0" for x, y in zip(xs, base(xs))]

    ds = generate("addition", seed=3, n=600, max_digits=6)
    ev = gengap.evaluate({"m0": base, "m2": weaker(2), "m4": weaker(4), "m6": weaker(6)}, ds, ["random"],
                         out=tmp_path / "irt", progress=False)
    c = ev.curve("irt_difficulty", model="m2", n_resamples=1000)
    t = c.to_table()
    assert c.axis == "irt_difficulty" and len(t) >= 3 and t["n"].sum() == 120
    assert t["score"].iloc[0] > t["score"].iloc[-1]  # harder items (by the fit over all four models) fail more


def test_learner_curve_marks_only_the_range_it_was_trained_on(tmp_path):
    # a learner trained on inputs of at most 4 digits: the run records it, and its curve marks that range
    from sklearn.dummy import DummyClassifier
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.pipeline import make_pipeline

    ds = generate("addition", seed=0, n=1200, max_digits=6)
    learner = make_pipeline(CountVectorizer(token_pattern=r"\S+"), DummyClassifier(strategy="most_frequent"))
    ev = gengap.evaluate({"dummy": learner, "adder": _model(tmp_path)}, ds,
                         ["random", gengap.LengthSplit(by="n_digits", max_train_length=4)], out=tmp_path / "o", progress=False)
    trained = ev.curve("n_digits", model="dummy", n_resamples=1000)
    assert trained.train_range == (1.0, 4.0) and trained.to_table()["in_range"].sum() == 4
    assert ev.curve("n_digits", model="adder", n_resamples=1000).train_range is None
    md = (ev.report(tmp_path / "rep") / "report.md").read_text()
    assert "dummy: 0.0% in the training range (1–4)" in md or "dummy:" in md and "in the training range (1–4)" in md
    assert md.count("| training |") == 4  # the learner's four in-range bins; the function's first bin is its reference
