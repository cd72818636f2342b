"""The report: figures match the store's rows, results.json follows its schema, Markdown and HTML
say the same thing, texts from data are escaped, and two renders differ only in the timestamp."""

from __future__ import annotations

import json
import re
import sys
from datetime import datetime, timezone
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest
from markdown_it import MarkdownIt
from markupsafe import Markup

import gengap
from gengap._errors import ConfigError, StoreError
from gengap.analysis.gaps import SUMMARY_COLUMNS, summarize
from gengap.report import (
    Section,
    html_fragment,
    register_section,
    registered_sections,
    results_schema,
    table_html,
    table_markdown,
    unregister_section,
    write_report,
)
from gengap.store import Store

jsonschema = pytest.importorskip("jsonschema")

PAYLOAD = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=1">'
T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
T1 = datetime(2026, 6, 7, 8, 9, 10, tzinfo=timezone.utc)


def _records(payload: bool = False) -> list[dict]:
    """A small SCAN-like dataset: primitives repeated k times, 'twice'/'thrice' suffixes."""
    prims = ["walk", "run", "look", "jump"]
    recs = []
    for i in range(240):
        p, k = prims[i % 4], 1 + (i * 7) % 6
        suffix = " twice" if i % 3 else " thrice"
        reps = k * (2 if i % 3 else 3)
        recs.append({"id": f"ex{i:03d}", "input": " ".join([p] * k) + suffix, "target": " ".join(["I_" + p.upper()] * reps)})
    recs.append({"id": "solo", "input": "jump", "target": "I_JUMP"})
    if payload:
        for r in recs[:40]:
            r["input"] = f"{r['input']} {PAYLOAD}"
            r["target"] = f"{PAYLOAD} | `x` *y* [z](javascript:alert(1)) {r['target']}"
    return recs


def _model(truth: dict[str, str], payload: bool = False):
    """Right on short examples, wrong on most compositions of 'jump' and on some long ones."""
    def predict(inputs):
        out = []
        for x in inputs:
            target = truth[x]
            h = sum(map(ord, x)) % 10
            if "jump" in x and x != "jump" and h < 8:
                out.append("I_JUMP" + (f" {PAYLOAD}" if payload else ""))
            elif len(target.split()) > 10 and h < 5:
                out.append(target + " I_WALK")
            else:
                out.append(target)
        return out
    return predict


def _evaluate(out: Path, *, payload: bool = False, splits=("random", "length", "primitive:jump"), models=None):
    recs = _records(payload)
    truth = {r["input"]: r["target"] for r in recs}
    model = models(truth) if models else _model(truth, payload)
    return gengap.evaluate(model, gengap.load(recs), list(splits), out=out, progress=False)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    ev = _evaluate(out)
    with Store(ev.store_path) as store:
        steps = range(0, 1001, 50)
        store.add_measures(ev.run_id, [(s, "train_accuracy", "", min(1.0, s / 200)) for s in steps]
                           + [(s, "heldout_accuracy", "", 0.1 + 0.8 * (s > 700)) for s in steps]
                           + [(s, "layer_rotation", layer, s / 1000) for s in steps for layer in ("enc", "dec")])
        store.add_event(ev.run_id, 200, "memorized", "train accuracy reached 100% at step 200")
        store.add_event(ev.run_id, 750, "grokked", "held-out accuracy rose at step 750")
    write_report(ev.store_path, ev.run_id, out, generated_at=T0)
    return ev, out


def _read(folder: Path) -> tuple[str, str, dict]:
    return ((folder / "index.html").read_text("utf-8"), (folder / "report.md").read_text("utf-8"),
            json.loads((folder / "results.json").read_text("utf-8")))


def _store_summary(ev) -> pd.DataFrame:
    with Store(ev.store_path, read_only=True) as store:
        return summarize(store.rows(ev.run_id), store.split_info(ev.run_id))


# ------------------------------------------------------------------------------------------- content
def test_summary_in_results_json_equals_summarize_of_the_stored_rows(run):
    ev, out = run
    _, _, results = _read(out)
    expected = _store_summary(ev)
    got = pd.DataFrame(results["summary"], columns=SUMMARY_COLUMNS)
    assert got[["model", "split", "method", "metric", "reference"]].equals(
        expected[["model", "split", "method", "metric", "reference"]])
    assert got["n"].tolist() == expected["n"].tolist()
    for col in ("score", "score_low", "score_high", "gap", "gap_low", "gap_high"):
        np.testing.assert_allclose(got[col].astype(float), expected[col].astype(float), rtol=0, atol=1e-12)
    # the three splits score differently, so the test can tell a wrong join from a right one
    assert expected["score"].nunique() == 3
    assert results["n_rows"] == len(ev.rows())


def test_results_json_validates_against_its_schema(run):
    _, out = run
    _, _, results = _read(out)
    schema = results_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(results, schema, cls=jsonschema.Draft202012Validator)
    assert [s["name"] for s in results["splits"]] == ["random", "length", "primitive:jump"]
    assert results["splits"][1]["taxonomy"]["generalisation_type"] == "structural"
    assert results["splits"][1]["diagnostics"]["n_test"] > 0
    assert "training" in set(results["sections"])  # and a length split gets its score curve (results["curves"])
    bad = dict(results, summary=[{**results["summary"][0], "n": "forty"}])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema, cls=jsonschema.Draft202012Validator)


def test_headline_names_the_biggest_gap_with_its_interval(run):
    ev, out = run
    html, md, results = _read(out)
    s = _store_summary(ev)
    top = s[s["split"] != "random"].sort_values("gap").iloc[-1]
    assert top["split"] == "primitive:jump"
    words = results["headline"]
    assert f"split '{top['split']}'" in words
    assert f"{100 * top['gap']:.1f} points below the i.i.d. split 'random'" in words
    assert f"95% CI is {100 * top['gap_low']:.1f} to {100 * top['gap_high']:.1f} points" in words
    assert f"n = {top['n']}" in words
    assert "The biggest gap is on the split &#39;primitive:jump&#39;" in html
    assert "**The biggest gap is on the split 'primitive:jump'" in md


def test_markdown_has_the_summary_table_with_every_split(run):
    ev, out = run
    _, md, _ = _read(out)
    s = _store_summary(ev)
    assert "| Split | Method | n | Score | 95% CI | CI method | Gap to reference | Gap 95% CI | Gap from | p adj. |" in md
    for r in s.itertuples():
        n = f"{r.n:,}" + (" (too few to tell)" if "too few" in r.warning else "")
        cells = (f"| {r.split} | {r.method} | {n} | {100 * r.score:.1f}% | [{100 * r.score_low:.1f}, {100 * r.score_high:.1f}] "
                 "| clopper-pearson |")
        assert cells in md, cells
    assert "Clopper-Pearson" in md and "Holm" in md
    for title in ("## Overview", "## Splits: what each one tests", "## Sample failures", "## Training", "## Run"):
        assert title in md
    assert "<script" not in md and "Plotly" not in md


def test_html_is_self_contained_with_charts_cards_failures_and_config(run):
    ev, out = run
    html, _, results = _read(out)
    assert html.count("* plotly.js v") == 1  # plotly.js inlined exactly once
    page = re.sub(r"<script>/\*\*\n\* plotly\.js v.*?</script>", "", html, count=1, flags=re.S)
    assert len(page) < len(html) // 10
    assert " src=" not in page and "href=\"http" not in page and "<link" not in page
    for div in ("chart-scores-exact-match", "chart-gaps-exact-match", "chart-training-1", "chart-training-2"):
        assert f'id="{div}"' in html
    for name in ("random", "length", "primitive:jump"):
        assert f"<h3>{name}</h3>" in html
    assert html.count("<h4>GenBench axes</h4>") == 3
    assert "compositional" in html and "partitioned natural" in html and "train–test" in html
    for group in results["failures"]:
        for ex in group["examples"]:
            assert f"<td class=\"left\">{ex['example_id']}</td>" in html
    assert "&#34;seed&#34;: 0" in html  # the run's configuration, escaped
    assert f"{results['n_rows']:,} per-example rows" in html


def test_failures_are_real_failing_rows_chosen_the_same_way_every_time(run):
    ev, out = run
    _, _, results = _read(out)
    rows = ev.rows("exact_match")
    for group in results["failures"]:
        part = rows[(rows["split"] == group["split"]) & (rows["perturbation"] == "none")]
        assert group["n_examples"] == len(part)
        assert group["n_failures"] == int((part["score"] < 1).sum())
        assert len(group["examples"]) == min(5, group["n_failures"])
        by_id = part.set_index("example_id")
        for ex in group["examples"]:
            assert by_id.loc[ex["example_id"], "score"] == 0
            assert by_id.loc[ex["example_id"], "output"] == ex["output"]
    assert results["failures"][1]["n_failures"] > 5  # the sample is a choice, not every failure


def test_two_renders_differ_only_in_the_generated_at_line(run, tmp_path):
    ev, out = run
    write_report(ev.store_path, ev.run_id, tmp_path, generated_at=T1)
    for name in ("index.html", "report.md", "results.json"):
        a = (out / name).read_text("utf-8").splitlines()
        b = (tmp_path / name).read_text("utf-8").splitlines()
        assert len(a) == len(b)
        diff = [(x, y) for x, y in zip(a, b) if x != y]
        assert len(diff) == 1, name
        assert "2026-01-02 03:04:05 UTC" in diff[0][0] and "2026-06-07 08:09:10 UTC" in diff[0][1]


def test_training_section_plots_measures_and_events(run):
    _, out = run
    html, md, results = _read(out)
    training = results["sections"]["training"]
    names = {(m["name"], m["scope"]) for m in training["measures"]}
    assert names == {("train_accuracy", ""), ("heldout_accuracy", ""), ("layer_rotation", "enc"), ("layer_rotation", "dec")}
    assert [e["kind"] for e in training["events"]] == ["memorized", "grokked"]
    acc = next(m for m in training["measures"] if m["name"] == "heldout_accuracy")
    assert acc["n_points"] == 21 and acc["last"] == pytest.approx(0.9) and acc["first_step"] == 0
    # train_ and heldout_ accuracy share one chart; layer rotation gets its own
    assert 'id="chart-training-1"' in html and 'id="chart-training-2"' in html and 'id="chart-training-3"' not in html
    assert "| 200 | memorized | train accuracy reached 100% at step 200 |" in md


# ------------------------------------------------------------------------------------------- escaping
def test_texts_from_data_and_models_are_escaped_everywhere(tmp_path):
    ev = _evaluate(tmp_path, payload=True)
    write_report(ev.store_path, ev.run_id, tmp_path)
    html, md, results = _read(tmp_path)
    assert "window.__pwned" in html  # the payload is there, as text
    assert "<script>window.__pwned" not in html and "<img src=x" not in html
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in html
    # Markdown's own escapes (a backslash), not HTML's: the text reads as typed in report.md itself ...
    assert "\\<script>window.\\_\\_pwned=1\\</script>\\<img src=x" in md and "&lt;" not in md
    assert "[z\\](javascript:alert(1))" in md  # no live Markdown link
    # ... and a CommonMark renderer (markdown-it, as GitHub's) makes no tag and no link of it
    rendered = MarkdownIt("commonmark").enable("table").render(md)
    assert "<script" not in rendered and "<img" not in rendered and 'href="javascript' not in rendered
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in rendered
    # the raw payload is kept as data in results.json
    assert any(PAYLOAD in ex["output"] for g in results["failures"] for ex in g["examples"])


def test_split_names_from_data_cannot_close_a_script(tmp_path):
    recs = _records()
    for r in recs:
        r["input"] = r["input"].replace("jump", "</script><b>jump")
    recs = [r for r in recs if r["input"] != "</script><b>jump"] + [{"id": "solo", "input": "</script><b>jump", "target": "I_JUMP"}]
    ev = gengap.evaluate(lambda xs: ["I_JUMP"] * len(xs), gengap.load(recs), ["random", "primitive:</script><b>jump"],
                         out=tmp_path, progress=False)
    write_report(ev.store_path, ev.run_id, tmp_path)
    html = (tmp_path / "index.html").read_text("utf-8")
    # every "</script>" in the page closes a script the page opened itself
    assert html.count("</script>") == html.count("<script>")
    assert "primitive:&lt;/script&gt;&lt;b&gt;jump" in html


# ------------------------------------------------------------------------------------------- variants
def test_without_a_random_split_the_headline_says_no_gap_is_measured(tmp_path):
    ev = _evaluate(tmp_path, splits=("length",))
    write_report(ev.store_path, ev.run_id, tmp_path)
    html, md, results = _read(tmp_path)
    assert results["reference"] is None
    assert results["headline"].startswith("This run has no i.i.d. (random) split, so no gap is measured.")
    assert "Gap to reference" not in md and 'id="chart-gaps-exact-match"' not in html
    assert results["summary"][0]["gap"] is None


def test_another_reference_split_measures_gaps_from_it(run, tmp_path):
    ev, _ = run
    write_report(ev.store_path, ev.run_id, tmp_path, reference="length")
    _, _, results = _read(tmp_path)
    assert {r["reference"] for r in results["summary"]} == {"length"}
    row = next(r for r in results["summary"] if r["split"] == "length")
    assert row["gap"] == 0


def test_two_models_get_a_column_and_a_legend(tmp_path):
    def models(truth):
        return {"copy": _model(truth), "constant": lambda xs: ["I_WALK"] * len(xs)}
    ev = _evaluate(tmp_path, models=models, splits=("random", "length"))
    write_report(ev.store_path, ev.run_id, tmp_path)
    html, md, results = _read(tmp_path)
    assert {r["model"] for r in results["summary"]} == {"copy", "constant"}
    assert "| Model | Split |" in md
    assert {g["model"] for g in results["failures"]} == {"copy", "constant"}
    assert '"name":"constant"' in html and '"name":"copy"' in html


def test_each_metric_gets_its_charts_and_table(tmp_path):
    recs = _records()
    truth = {r["input"]: r["target"] for r in recs}
    ev = gengap.evaluate(_model(truth), gengap.load(recs), ["random", "length"], metrics=["exact_match", "token_f1"],
                         out=tmp_path, progress=False)
    write_report(ev.store_path, ev.run_id, tmp_path)
    html, md, results = _read(tmp_path)
    assert {r["metric"] for r in results["summary"]} == {"exact_match", "token_f1"}
    for div in ("chart-scores-exact-match", "chart-gaps-exact-match", "chart-scores-token-f1", "chart-gaps-token-f1"):
        assert f'id="{div}"' in html
    assert "### exact_match" in md and "### token_f1" in md
    assert {g["metric"] for g in results["failures"]} == {"exact_match"}  # the first metric listed


def test_headline_never_says_no_gap_while_another_metric_shows_one(tmp_path):
    """Exact match is 0 everywhere (no gap), token F1 drops on long inputs: the headline leads with token F1."""
    recs = _records()
    truth = {r["input"]: r["target"] for r in recs}

    def half_right(inputs):  # never exact; keeps a share of the target's tokens that shrinks with length
        out = []
        for x in inputs:
            words = truth[x].split()
            keep = words[: max(1, len(words) // 2)] if len(words) <= 6 else words[:2]
            out.append(" ".join(keep + ["I_LOOK"]))
        return out
    ev = gengap.evaluate(half_right, gengap.load(recs), ["random", "length"], metrics=["exact_match", "token_f1"],
                         out=tmp_path, progress=False)
    write_report(ev.store_path, ev.run_id, tmp_path)
    _, md, results = _read(tmp_path)
    jsonschema.validate(results, results_schema(), cls=jsonschema.Draft202012Validator)
    by_metric = {h["metric"]: h for h in results["headlines"]}
    assert by_metric["exact_match"]["gap"] == 0.0 and by_metric["token_f1"]["gap"] > 0.05
    assert by_metric["token_f1"]["split"] == "length" and by_metric["token_f1"]["gap_low"] > 0
    assert results["headline"].startswith("On token f1, the biggest gap is on the split 'length'")
    assert "On exact match: no split scores below the i.i.d. split" in results["headline"]
    assert not results["headline"].startswith("No split")
    # the stress-free report still names both metrics' figures in the summary
    assert {r["score_method"] for r in results["summary"] if r["metric"] == "exact_match"} == {"clopper-pearson"}
    assert {r["score_method"] for r in results["summary"] if r["metric"] == "token_f1"} == {"percentile"}


def test_a_run_with_only_training_measures_still_gets_a_report(tmp_path):
    with Store(tmp_path / "gengap.duckdb") as store:
        run_id = store.start_run("training", {})
        store.add_measures(run_id, [(s, "train_loss", "", 1 / (s + 1)) for s in range(0, 100, 10)])
        store.finish_run(run_id)
    write_report(tmp_path / "gengap.duckdb", run_id, tmp_path)
    html, md, results = _read(tmp_path)
    assert results["summary"] == [] and results["failures"] == []
    assert results["headline"] == "This run has no scored examples, so there is no score or gap to report."
    assert "chart-training-1" in html and "## Training" in md
    jsonschema.validate(results, results_schema(), cls=jsonschema.Draft202012Validator)


def test_an_unfinished_run_is_reported_as_such(run, tmp_path):
    ev, _ = run
    with Store(ev.store_path) as store:
        store.finish_run(ev.run_id, "failed")
    try:
        write_report(ev.store_path, ev.run_id, tmp_path)
    finally:
        with Store(ev.store_path) as store:
            store.finish_run(ev.run_id, "done")
    assert "This run did not finish (status: failed)" in (tmp_path / "report.md").read_text("utf-8")


def test_formats_choose_the_files(run, tmp_path):
    ev, _ = run
    write_report(ev.store_path, ev.run_id, tmp_path, formats=["markdown", "json"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.md", "results.json"]


# ------------------------------------------------------------------------------------------- sections
def test_a_registered_section_appears_in_every_format_in_its_order(run, tmp_path):
    ev, _ = run

    @register_section("per_length", order=50)
    def per_length(ctx):
        clean = ctx.clean_rows[ctx.clean_rows["split"] == "length"].copy()
        clean["length"] = clean["target"].str.split().str.len()
        table = clean.groupby("length", as_index=False)["score"].mean()
        return Section("Accuracy by length", table_html(table), table_markdown(table), data=table.to_dict("records"))

    try:
        names = list(registered_sections())
        assert names[:3] == ["overview", "splits", "failures"]
        assert names.index("per_length") > names.index("failures")
        assert names.index("per_length") < names.index("run")
        write_report(ev.store_path, ev.run_id, tmp_path)
    finally:
        unregister_section("per_length")
    html, md, results = _read(tmp_path)
    assert md.index("## Sample failures") < md.index("## Accuracy by length") < md.index("## Training")
    assert '<section id="per_length">' in html and '<a href="#per_length">Accuracy by length</a>' in html
    lengths = [r["length"] for r in results["sections"]["per_length"]]
    assert lengths == sorted(lengths) and len(lengths) >= 1


def test_a_failing_section_leaves_a_notice_and_the_rest_of_the_report(run, tmp_path):
    ev, _ = run

    @register_section("broken", order=60)
    def broken(ctx):
        raise RuntimeError("no <data> here")

    try:
        with pytest.warns(UserWarning, match="Report section 'broken' failed"):
            write_report(ev.store_path, ev.run_id, tmp_path)
    finally:
        unregister_section("broken")
    html, md, results = _read(tmp_path)
    assert "This section could not be drawn: RuntimeError: no &lt;data&gt; here" in html
    assert results["sections"]["broken"] == {"error": "RuntimeError: no <data> here"}
    assert "## Overview" in md and "## Run" in md


def test_a_section_must_hand_over_escaped_html():
    with pytest.raises(TypeError, match="markupsafe.Markup"):
        Section("raw", "<p>unescaped</p>", "")  # type: ignore[arg-type]
    assert str(html_fragment("<p>{{ x }}</p>", x="<b>")) == "<p>&lt;b&gt;</p>"
    assert isinstance(table_html(pd.DataFrame({"a": [1]})), Markup)


# ------------------------------------------------------------------------------------------- bad input
def test_bad_arguments_get_clear_errors(run, tmp_path):
    ev, _ = run
    with pytest.raises(StoreError, match=r"Run 'r9999' is not in the store .*its runs: r0001"):
        write_report(ev.store_path, "r9999", tmp_path)
    with pytest.raises(ConfigError, match=r"reference='lenght' is not a split .* Did you mean 'length'\?"):
        write_report(ev.store_path, ev.run_id, tmp_path, reference="lenght")
    with pytest.raises(ConfigError, match=r"Unknown report format 'hmtl'.* Did you mean 'html'\?"):
        write_report(ev.store_path, ev.run_id, tmp_path, formats=["hmtl"])
    (tmp_path / "afile").write_text("x")
    with pytest.raises(ConfigError, match="is a file"):
        write_report(ev.store_path, ev.run_id, tmp_path / "afile")
    with pytest.raises(StoreError, match="No results store"):
        write_report(tmp_path / "missing.duckdb", "r0001", tmp_path)


# ------------------------------------------------------------------------------------------- command line
@pytest.fixture
def gengap_cli(monkeypatch, capsys):
    """Run the ``gengap`` entry point in this process; returns (exit code, stdout, stderr)."""
    from gengap.cli import main

    def call(*args: str) -> tuple[int, str, str]:
        monkeypatch.setattr(sys, "argv", ["gengap", *args])
        monkeypatch.setenv("COLUMNS", "250")
        try:
            main()
            code = 0
        except SystemExit as e:
            code = int(e.code or 0)
        out, err = capsys.readouterr()
        return code, out, err

    return call


def test_cli_report_renders_the_latest_run_of_a_folder(run, tmp_path, gengap_cli):
    ev, out = run
    code, stdout, stderr = gengap_cli("report", str(out), "--out", str(tmp_path))
    assert code == 0, stderr
    assert "index.html" in stdout
    _, _, results = _read(tmp_path)
    assert results["run"]["id"] == ev.run_id
    code, _, stderr = gengap_cli("report", str(ev.store_path), "--run", ev.run_id, "--out", str(tmp_path / "md"),
                                 "--format", "md")
    assert code == 0, stderr
    assert [p.name for p in (tmp_path / "md").iterdir()] == ["report.md"]


def test_cli_report_errors_are_one_clear_paragraph(run, tmp_path, gengap_cli):
    ev, out = run
    code, _, err = gengap_cli("report", str(tmp_path / "nowhere"))
    assert code == 1 and "does not exist" in err and "Traceback" not in err
    code, _, err = gengap_cli("report", str(tmp_path))
    assert code == 1 and "holds no results store (gengap.duckdb)" in err
    code, _, err = gengap_cli("report", str(out), "--run", "r0042")
    assert code == 1 and "Run 'r0042' is not in the store" in err
    code, _, err = gengap_cli("report", str(out), "--format", "pdf")
    assert code == 1 and "Unknown report format 'pdf'" in err
    foreign = tmp_path / "foreign.duckdb"
    con = duckdb.connect(str(foreign))
    con.execute("CREATE TABLE t (x INT)")
    con.close()
    before = foreign.read_bytes()
    code, _, err = gengap_cli("report", str(foreign))
    assert code == 1 and "not a gengap results store" in err and "Traceback" not in err
    assert foreign.read_bytes() == before
    text = tmp_path / "notes.duckdb"
    text.write_text("hello")
    code, _, err = gengap_cli("report", str(text))
    assert code == 1 and "not a DuckDB file" in err
