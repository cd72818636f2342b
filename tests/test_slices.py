"""Slice search: where a model fails without being told where to look (analysis/slices.py and its wiring).

The statistics are checked against scipy and statsmodels on the same counts; the search on data
with a planted slice and on null data; every bad input the search can meet gets one clear message;
the CLI (eval, run file, report, import) and ``Evaluation.slices()`` end to end on real stores.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest
import scipy.stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

import gengap
from gengap._errors import ConfigError, DataError
from gengap.analysis.slices import (
    MAX_VALUES,
    conditions_mask,
    find_slices,
    min_detectable_gap,
    rows_in_slice,
    slice_table,
    slices_from_rows,
)
from gengap.report._results import results_schema


def _planted(n: int = 3000, seed: int = 0, pair: bool = True) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    meta = pd.DataFrame({"channel": rng.choice(["forum", "news", "mail"], n), "language": rng.choice(["en", "es"], n),
                         "length": rng.gamma(3, 10, n).round()})
    bad = (meta["channel"] == "forum").to_numpy()
    if pair:
        bad = bad & (meta["language"] == "es").to_numpy()
    return meta, (rng.random(n) < np.where(bad, 0.45, 0.8)).astype(float)


# --------------------------------------------------------------------------------------- statistics
def test_a_slice_p_value_and_intervals_agree_with_scipy_and_statsmodels():
    meta, y = _planted(pair=False)
    found = find_slices(meta, y, order=1, top=50)
    row = found.table.set_index("description").loc["channel = forum"]
    inside = (meta["channel"] == "forum").to_numpy()
    k1, n1, k2, n2 = y[inside].sum(), inside.sum(), y[~inside].sum(), (~inside).sum()
    fisher = scipy.stats.fisher_exact([[k1, n1 - k1], [k2, n2 - k2]], alternative="less")
    assert row["p_value"] == pytest.approx(fisher.pvalue, rel=1e-6)
    low, high = proportion_confint(k1, n1, alpha=0.05, method="beta")
    assert (row["score_low"], row["score_high"]) == pytest.approx((low, high), rel=1e-6)
    assert row["gap"] == pytest.approx(k1 / n1 - k2 / n2)
    assert row["gap_low"] < row["gap"] < row["gap_high"] < 0


def test_continuous_scores_use_welch_and_bh_agrees_with_statsmodels():
    rng = np.random.default_rng(1)
    meta = pd.DataFrame({"site": rng.choice(list("abcd"), 800)})
    y = np.clip(0.7 + rng.normal(0, 0.2, 800) - 0.1 * (meta["site"] == "c").to_numpy(), 0, 1)
    found = find_slices(meta, y, order=1, top=50)
    table = found.table.set_index("description")
    inside = (meta["site"] == "c").to_numpy()
    welch = scipy.stats.ttest_ind(y[inside], y[~inside], equal_var=False, alternative="less")
    assert table.loc["site = c", "p_value"] == pytest.approx(welch.pvalue, rel=1e-6)
    # every slice tested is in the table (4 tested, top=50): BH over them all is statsmodels' fdr_bh
    assert found.n_tested == 4 and len(table) <= 4
    all_p = []
    for level in "abcd":
        m = (meta["site"] == level).to_numpy()
        all_p.append(scipy.stats.ttest_ind(y[m], y[~m], equal_var=False, alternative="less").pvalue)
    bh = dict(zip([f"site = {v}" for v in "abcd"], multipletests(all_p, method="fdr_bh")[1]))
    for description, r in table.iterrows():
        assert r["p_adjusted"] == pytest.approx(bh[description], rel=1e-6)
    assert table.loc["site = c", "significant"]


def test_a_conjunction_is_reported_in_place_of_the_parts_it_explains():
    meta, y = _planted()
    found = find_slices(meta, y)
    sig = found.significant
    assert sig["description"].tolist()[0] == "channel = forum and language = es"
    assert sorted(sig["replaces"].iloc[0]) == ["channel = forum", "language = es"]
    assert "channel = forum" not in set(found.table["description"])
    assert sig.iloc[0]["columns"] == ["channel", "language"] and sig.iloc[0]["order"] == 2
    rows = found.members["channel = forum and language = es"]
    assert ((meta.iloc[rows]["channel"] == "forum") & (meta.iloc[rows]["language"] == "es")).all()


def test_a_part_that_fails_everywhere_is_the_finding_not_its_conjunctions():
    meta, y = _planted(pair=False)
    found = find_slices(meta, y)
    assert found.significant["description"].tolist() == ["channel = forum"]


def test_order_one_does_not_look_for_conjunctions_and_the_controls_are_named():
    meta, y = _planted()
    one = find_slices(meta, y, order=1)
    assert set(one.table["order"]) == {1}
    halves = find_slices(meta, y, control="split")
    assert halves.control == "split" and "confirmed on the other" in halves.control_text
    assert "channel = forum and language = es" in set(halves.significant["description"])
    naive = find_slices(meta, y, control="none")
    assert (naive.table["p_adjusted"] == naive.table["p_value"]).all()


def test_null_data_gives_no_significant_slice_while_the_naive_search_finds_some():
    rng = np.random.default_rng(7)
    meta = pd.DataFrame({c: rng.choice(list("abcde"), 3000) for c in ("a", "b", "c")})
    y = (rng.random(3000) < 0.7).astype(float)
    assert find_slices(meta, y).n_significant == 0
    assert find_slices(meta, y, control="none").n_significant > 0


def test_numeric_columns_by_value_when_few_and_in_quantile_bins_when_many_and_missing_is_a_level():
    rng = np.random.default_rng(2)
    hops = rng.integers(1, 4, 900).astype(float)
    hops[:100] = np.nan
    meta = pd.DataFrame({"hops": hops, "length": rng.gamma(3, 10, 900)})
    y = (rng.random(900) < np.where(np.isnan(hops), 0.2, 0.8)).astype(float)
    found = find_slices(meta, y, order=1, top=100)
    described = set(found.table["description"])
    assert "hops is missing" in found.significant["description"].tolist()
    assert {"hops = 1", "hops = 2"} <= described | {"hops = 1", "hops = 2"}
    assert any(d.startswith("length < ") for d in described) or any("<= length <" in d for d in described)


def test_conditions_select_exactly_the_rows_the_search_counted_after_a_json_round_trip():
    rng = np.random.default_rng(3)
    n = 4000
    frame = pd.DataFrame({"channel": rng.choice(["forum", "news", None], n),
                          "flag": rng.choice([True, False], n),
                          "stars": rng.integers(1, 6, n).astype(float),
                          "length": rng.gamma(3, 10.3, n),
                          "mixed": rng.choice(np.array(["a", 1, 2.5], dtype=object), n)})
    frame.loc[rng.random(n) < 0.05, "length"] = np.nan
    bad = (frame["channel"] == "forum").to_numpy() & frame["length"].between(22, 36).to_numpy()
    y = (rng.random(n) < np.where(bad, 0.5, 0.8)).astype(float)
    found = find_slices(frame, y, order=2, top=1000, alpha=0.5)
    assert len(found.table) > 20
    ops = set()
    for record in json.loads(json.dumps(found.table.to_dict(orient="records"), allow_nan=False)):
        mask = conditions_mask(frame, record["conditions"])
        assert np.array_equal(np.flatnonzero(mask), found.members[record["description"]]), record["description"]
        assert {c["column"] for c in record["conditions"]} == set(record["columns"])
        ops |= {c["op"] for c in record["conditions"]}
    assert ops == {"==", "<", ">=", "is_missing"}
    middle = [c for r in found.table.to_dict(orient="records") for c in r["conditions"] if c["column"] == "length"]
    assert {c["op"] for c in middle} >= {">=", "<"}  # quantile bins by their exact edges
    assert any(" <= length < " in d for d in found.table["description"])


def test_a_malformed_condition_is_one_clear_error():
    frame = pd.DataFrame({"site": ["a", "b"]})
    with pytest.raises(DataError, match="op '!='; gengap writes only"):
        conditions_mask(frame, [{"column": "site", "op": "!=", "value": "a"}])
    with pytest.raises(DataError, match="exactly 'column', 'op' and 'value'"):
        conditions_mask(frame, [{"column": "site", "value": "a"}])
    with pytest.raises(DataError, match="text is compared only by '=='"):
        conditions_mask(frame, [{"column": "site", "op": "<", "value": "a"}])
    assert conditions_mask(frame, [{"column": "absent", "op": "is_missing", "value": None}]).tolist() == [True, True]


def test_min_detectable_gap_shrinks_with_more_rows():
    assert min_detectable_gap(200, 30, n_tests=50) < min_detectable_gap(20_000, 30, n_tests=50) < 0
    assert min_detectable_gap(20_000, 2000, n_tests=50) > min_detectable_gap(20_000, 30, n_tests=50)


# --------------------------------------------------------------------------------------- bad input
def test_a_column_with_100000_distinct_values_is_skipped_with_the_reason():
    rng = np.random.default_rng(3)
    n = 100_000
    meta = pd.DataFrame({"doc_id": [f"d{i}" for i in range(n)], "site": rng.choice(["a", "b"], n)})
    found = find_slices(meta, (rng.random(n) < 0.7).astype(float), order=2)
    assert "doc_id" in found.skipped
    assert "100,000 distinct values" in found.skipped["doc_id"] and f"max_values={MAX_VALUES:,}" in found.skipped["doc_id"]
    assert found.columns == ["site"]
    assert any("Column 'doc_id' was not searched" in n for n in found.notes)


def test_all_null_and_constant_and_list_columns_are_skipped_with_reasons():
    rng = np.random.default_rng(4)
    meta = pd.DataFrame({"empty": [None] * 300, "same": ["x"] * 300, "choices": [["a", "b"]] * 300,
                         "site": rng.choice(["a", "b"], 300)})
    found = find_slices(meta, (rng.random(300) < 0.7).astype(float))
    assert found.skipped["empty"] == "every value is missing"
    assert found.skipped["same"].startswith("one value only")
    assert "lists" in found.skipped["choices"]
    assert found.columns == ["site"]


def test_a_small_run_says_what_it_can_and_cannot_detect():
    rng = np.random.default_rng(5)
    meta = pd.DataFrame({"site": rng.choice(["a", "b", "c"], 150)})
    found = find_slices(meta, (rng.random(150) < 0.7).astype(float))
    note = next(n for n in found.notes if n.startswith("A small run"))
    assert "150 rows" in note and "points below the rest" in note
    assert found.detectable is not None and found.detectable["gap_small"] < found.detectable["gap_large"] < -0.15
    tiny = find_slices(meta.head(40), np.ones(40))
    assert tiny.n_tested == 0 and tiny.detectable is None
    assert any("no slice can be tested" in n for n in tiny.notes)


def test_bad_scores_options_and_columns_are_one_clear_error():
    meta = pd.DataFrame({"site": ["a", "b"] * 50})
    with pytest.raises(DataError, match="2 score"):
        find_slices(meta, [np.nan, np.nan] + [1.0] * 98)
    with pytest.raises(DataError, match="give one score per row"):
        find_slices(meta, [1.0] * 3)
    with pytest.raises(DataError, match="Did you mean 'site'"):
        find_slices(meta, [1.0] * 100, columns=["sitee"])
    with pytest.raises(ConfigError, match="slice_order=4"):
        find_slices(meta, [1.0] * 100, order=4)
    with pytest.raises(ConfigError, match="control='bonferroni'"):
        find_slices(meta, [1.0] * 100, control="bonferroni")  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------- wiring
MODEL_CODE = '''
def predict(batch):
    """Right except on forum posts in Spanish (the question starts with 'es forum')."""
    return ["wrong" if q.startswith("es forum") else q.upper() for q in batch]
'''


def _data(path: Path, n: int = 1200) -> Path:
    rng = np.random.default_rng(0)
    records = []
    for i in range(n):
        lang, channel = rng.choice(["en", "es"]), rng.choice(["forum", "news", "mail"])
        q = f"{lang} {channel} item {i}"
        records.append({"qid": f"q{i}", "question": q, "answer": q.upper(), "channel": channel, "language": lang,
                        "note": "<b>bold</b> & [red]markup[/red]"})
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _model(folder: Path) -> str:
    name = f"slicemodel_{uuid.uuid4().hex[:8]}"
    (folder / f"{name}.py").write_text(MODEL_CODE, encoding="utf-8")
    return f"{name}:predict"


def test_eval_find_slices_writes_results_report_and_prints_the_top(tmp_path, cli):
    data = _data(tmp_path / "d.jsonl")
    code, out, err = cli("eval", "--data", str(data), "--input", "question", "--target", "answer", "--id", "qid",
                         "--model", _model(tmp_path), "--out", "out", "--find-slices", "--no-progress")
    assert code == 0, err
    assert "Where it fails" in out and "channel = forum and language = es" in out
    doc = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    jsonschema.validate(doc, results_schema())
    top = doc["slices"][0]
    assert top["description"] == "channel = forum and language = es" and top["significant"] and top["score"] == 0.0
    assert top["control"] == "bh" and sorted(top["replaces"]) == ["channel = forum", "language = es"]
    assert [s["significant"] for s in doc["slices"]] == sorted((s["significant"] for s in doc["slices"]), reverse=True)
    assert doc["sections"]["slices"]["searches"][0]["n_tested"] > 0
    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert "Where it fails" in html and "Rows behind" in html and "ES FORUM" not in html.split("Rows behind")[0][:0]
    assert "<b>bold</b>" not in html  # text from data is escaped wherever it shows
    md = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "## Where it fails" in md
    # every slice's conditions select exactly its n rows among the run's stored rows, and they fail there
    assert top["conditions"] == [{"column": "channel", "op": "==", "value": "forum"},
                                 {"column": "language", "op": "==", "value": "es"}]
    with gengap.store.Store(tmp_path / "out" / "gengap.duckdb", read_only=True) as store:
        rows = store.rows(doc["run"]["id"])
    for record in doc["slices"]:
        assert len(rows_in_slice(rows, record)) == record["n"], record["description"]
    assert set(rows_in_slice(rows, top)["output"]) == {"wrong"}


def test_the_run_file_report_command_import_and_python_reach_the_same_search(tmp_path, cli):
    data = _data(tmp_path / "d.jsonl")
    spec = _model(tmp_path)
    (tmp_path / "run.toml").write_text(
        f'[data]\npath = "d.jsonl"\ninput = "question"\ntarget = "answer"\nid = "qid"\n\n[model]\nspec = "{spec}"\n\n'
        '[eval]\nout = "out"\n[analysis]\nfind_slices = true\nslice_order = 1\n', encoding="utf-8")
    code, out, err = cli("run", "run.toml", "--no-progress")
    assert code == 0, err
    doc = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert {s["order"] for s in doc["slices"]} == {1} and doc["slices"][0]["significant"]
    # the report again, now with conjunctions
    code, out, err = cli("report", "out", "--find-slices", "--slice-order", "2")
    assert code == 0, err
    doc = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert doc["slices"][0]["description"] == "channel = forum and language = es"
    code, out, err = cli("report", "out", "--find-slices", "--slice-order", "5")
    assert code == 1 and "--slice-order 5 must be 1, 2 or 3" in err
    # Python
    ev = gengap.evaluation.Evaluation(store_path=tmp_path / "out" / "gengap.duckdb", run_id="r0001", out=tmp_path / "out")
    table = ev.slices()
    assert table["description"].iloc[0] == "channel = forum and language = es"
    assert table.attrs["searches"][0]["control"] == "bh"
    # imported rows
    frame = pd.read_json(data, lines=True)
    frame["output"] = [("wrong" if q.startswith("es forum") else q.upper()) for q in frame["question"]]
    frame["correct"] = frame["output"] == frame["answer"]
    frame.to_json(tmp_path / "preds.jsonl", orient="records", lines=True)
    code, out, err = cli("import", "table", "preds.jsonl", "--id", "qid", "--input", "question", "--target", "answer",
                         "--output", "output", "--score", "correct", "--out", "imported", "--find-slices")
    assert code == 0, err
    assert "channel = forum and language = es" in out
    doc = json.loads((tmp_path / "imported" / "results.json").read_text(encoding="utf-8"))
    assert doc["slices"][0]["description"] == "channel = forum and language = es"


def test_resume_and_report_write_the_slices_of_the_finished_eval_with_the_same_settings(tmp_path, cli):
    data = _data(tmp_path / "d.jsonl")
    name = f"slicestop_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{name}.py").write_text(
        "import os\nSEEN = [0]\n" + MODEL_CODE.replace('    """Right', '    SEEN[0] += len(batch)\n'
        '    if os.path.exists("stop") and SEEN[0] > 400:\n        raise RuntimeError("stopped")\n    """Right'),
        encoding="utf-8")
    options = ["--data", str(data), "--input", "question", "--target", "answer", "--id", "qid", "--model",
               f"{name}:predict", "--find-slices", "--slice-order", "2", "--shard-size", "100", "--batch-size", "100",
               "--no-progress"]
    code, _, err = cli("eval", *options, "--out", "whole")
    assert code == 0, err
    (tmp_path / "stop").write_text("")
    code, _, err = cli("eval", *options, "--out", "cut")
    assert code != 0 and not (tmp_path / "cut" / "results.json").exists()
    (tmp_path / "stop").unlink()
    code, out, err = cli("resume", "cut", "--no-progress")
    assert code == 0, err
    assert "Where it fails" in out and "channel = forum and language = es" in out

    def figures(folder: str) -> dict:
        doc = json.loads((tmp_path / folder / "results.json").read_text(encoding="utf-8"))
        return {key: doc[key] for key in ("summary", "slices", "sections", "headline")}

    whole = figures("whole")
    assert whole["slices"] and figures("cut") == whole
    with gengap.store.Store(tmp_path / "cut" / "gengap.duckdb", read_only=True) as store:
        config = store.run_config(store.latest_run())
    assert config["report"] == {"find_slices": True, "slice_order": 2, "slice_control": "bh"}
    assert "find_slices" not in config["eval"]
    # gengap report OUT writes it again as the run was started; --no-find-slices leaves the search out
    (tmp_path / "whole" / "results.json").unlink()
    code, out, err = cli("report", "whole")
    assert code == 0, err
    assert figures("whole") == whole and "Where it fails" in out
    code, out, err = cli("report", "whole", "--no-find-slices")
    assert code == 0 and figures("whole")["slices"] == [] and "Where it fails" not in out
    # an interrupted run finished by gengap eval with other report settings: one run, reported with the latest
    options[options.index("--slice-order") + 1] = "1"
    (tmp_path / "stop").write_text("")
    assert cli("eval", *options, "--out", "cut2")[0] != 0
    (tmp_path / "stop").unlink()
    options[options.index("--slice-order") + 1] = "2"
    code, _, err = cli("eval", *options, "--out", "cut2")
    assert code == 0, err
    with gengap.store.Store(tmp_path / "cut2" / "gengap.duckdb", read_only=True) as store:
        assert len(store.runs()) == 1 and store.run_config("r0001")["report"]["slice_order"] == 2
    assert figures("cut2") == whole


def _controls(folder: Path) -> set[str]:
    """Every control the results.json of ``folder`` records: the run's, each search's and each slice's."""
    doc = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    jsonschema.validate(doc, results_schema())
    section = doc["sections"]["slices"]
    return {section["control"]} | {s["control"] for s in section["searches"]} | {s["control"] for s in doc["slices"]}


def test_slice_control_split_reaches_the_search_from_eval_report_run_file_and_import(tmp_path, cli):
    data = _data(tmp_path / "d.jsonl")
    spec = _model(tmp_path)
    code, out, err = cli("eval", "--data", str(data), "--input", "question", "--target", "answer", "--id", "qid",
                         "--model", spec, "--out", "out", "--find-slices", "--slice-control", "split", "--no-progress")
    assert code == 0, err
    assert _controls(tmp_path / "out") == {"split"}
    said = "discovered on one half of the rows, confirmed on the other"
    assert said in " ".join(out.split())  # the terminal says which control the run used
    assert f"false discoveries controlled at 5% ({said}" in " ".join(
        (tmp_path / "out" / "report.md").read_text(encoding="utf-8").split())
    with gengap.store.Store(tmp_path / "out" / "gengap.duckdb", read_only=True) as store:
        assert store.run_config("r0001")["report"]["slice_control"] == "split"
    # gengap report OUT keeps the control the run was started with, and takes another
    code, out, err = cli("report", "out")
    assert code == 0 and _controls(tmp_path / "out") == {"split"} and said in " ".join(out.split()), err
    code, out, err = cli("report", "out", "--find-slices", "--slice-control", "bh")
    assert code == 0 and _controls(tmp_path / "out") == {"bh"}, err
    assert "Benjamini-Hochberg over every slice tested" in out
    # the run file's [analysis] key
    (tmp_path / "run.toml").write_text(
        f'[data]\npath = "d.jsonl"\ninput = "question"\ntarget = "answer"\nid = "qid"\n\n[model]\nspec = "{spec}"\n\n'
        '[eval]\nout = "by_file"\n[analysis]\nfind_slices = true\nslice_control = "split"\n', encoding="utf-8")
    code, out, err = cli("run", "run.toml", "--no-progress")
    assert code == 0, err
    assert _controls(tmp_path / "by_file") == {"split"}
    # imported rows
    frame = pd.read_json(data, lines=True)
    frame["output"] = [("wrong" if q.startswith("es forum") else q.upper()) for q in frame["question"]]
    frame["correct"] = frame["output"] == frame["answer"]
    frame.to_json(tmp_path / "preds.jsonl", orient="records", lines=True)
    code, out, err = cli("import", "table", "preds.jsonl", "--id", "qid", "--input", "question", "--target", "answer",
                         "--output", "output", "--score", "correct", "--out", "imported", "--find-slices",
                         "--slice-control", "split")
    assert code == 0, err
    assert _controls(tmp_path / "imported") == {"split"} and said in " ".join(out.split())


def test_a_bad_slice_control_is_one_clear_error_before_anything_is_written(tmp_path, cli):
    data = _data(tmp_path / "d.jsonl", n=200)
    spec = _model(tmp_path)
    code, out, err = cli("eval", "--data", str(data), "--input", "question", "--target", "answer", "--id", "qid",
                         "--model", spec, "--out", "out", "--find-slices", "--slice-control", "bonferroni", "--no-progress")
    assert code == 1 and "'--slice-control'" in err and "'bh' or 'split'" in err and "bonferroni" in err, err
    assert not (tmp_path / "out" / "gengap.duckdb").exists()
    (tmp_path / "run.toml").write_text(
        f'[data]\npath = "d.jsonl"\ninput = "question"\ntarget = "answer"\nid = "qid"\n\n[model]\nspec = "{spec}"\n\n'
        '[eval]\nout = "by_file"\n[analysis]\nfind_slices = true\nslice_control = "BH-split"\n', encoding="utf-8")
    code, out, err = cli("run", "run.toml", "--no-progress")
    assert code == 1 and "'analysis.slice_control'" in err and "'bh' or 'split'" in err, err
    assert not (tmp_path / "by_file" / "gengap.duckdb").exists()
    # gengap report and gengap import refuse it before touching the stored report
    code, _, err = cli("eval", "--data", str(data), "--input", "question", "--target", "answer", "--id", "qid",
                       "--model", spec, "--out", "out", "--find-slices", "--no-progress")
    assert code == 0, err
    before = (tmp_path / "out" / "results.json").read_bytes()
    code, _, err = cli("report", "out", "--slice-control", "splitt")
    assert code == 1 and "--slice-control 'splitt' is not one of bh, split" in err and "Did you mean 'split'" in err, err
    assert (tmp_path / "out" / "results.json").read_bytes() == before
    frame = pd.read_json(data, lines=True).assign(output="x", correct=False)
    frame.to_json(tmp_path / "preds.jsonl", orient="records", lines=True)
    code, _, err = cli("import", "table", "preds.jsonl", "--id", "qid", "--output", "output", "--score", "correct",
                       "--out", "imported", "--find-slices", "--slice-control", "none")
    assert code == 1 and "--slice-control 'none' is not one of bh, split" in err, err
    assert not (tmp_path / "imported").exists() or not any((tmp_path / "imported").iterdir())


def test_without_find_slices_the_results_have_an_empty_slices_array(tmp_path):
    ds = gengap.load([{"input": f"x{i}", "target": f"x{i}", "site": "ab"[i % 2]} for i in range(100)])
    ev = gengap.evaluate(lambda xs: xs, ds, out=tmp_path, progress=False)
    ev.report(formats=["json"])
    doc = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert doc["slices"] == [] and "slices" not in doc["sections"]


def test_slices_from_rows_names_a_wrong_model_or_metric():
    rows = pd.DataFrame({"model": "m", "split": "random", "perturbation": "none", "metric": "exact_match",
                         "input": "q", "target": "a", "metadata": ['{"site": "a"}'] * 10, "score": 1.0})
    with pytest.raises(ConfigError, match="Did you mean 'exact_match'"):
        slices_from_rows(rows, metric="exact_mach")
    assert slice_table([]).empty


def _clustered_data(seed: int = 0) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """60 passages, each wholly in one site, with passage effects: sites differ only by chance of passages."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 60, 3000)
    effect = rng.normal(0, 0.15, 60)
    site = np.array(["a", "b", "c"])[g % 3]
    y = (rng.random(3000) < np.clip(0.7 + effect[g], 0, 1)).astype(float)
    return pd.DataFrame({"site": site, "language": rng.choice(["en", "es"], 3000)}), y, g


def test_clustered_tests_are_statsmodels_cluster_robust_ols_and_keep_passage_effects_from_looking_like_slices():
    import statsmodels.api as sm

    meta, y, g = _clustered_data()
    found = find_slices(meta, y, clusters=g, order=1, control="none", top=50).table.set_index("description")
    x = (meta["site"] == "b").to_numpy(dtype=float)
    fit = sm.OLS(y, sm.add_constant(x)).fit(cov_type="cluster", cov_kwds={"groups": g, "use_correction": False})
    se = fit.bse[1] * np.sqrt(60 / 59)  # CR1: the G / (G - 1) correction
    assert found.loc["site = b", "gap"] == pytest.approx(fit.params[1])
    assert found.loc["site = b", "p_value"] == pytest.approx(scipy.stats.t.cdf(fit.params[1] / se, 59), rel=1e-6)
    # taken as independent rows, a site looks like a failing slice; counted by passage, it does not
    assert find_slices(meta, y).significant["description"].tolist() == ["site = b"]
    assert find_slices(meta, y, clusters=g).n_significant == 0
    assert find_slices(meta, y, clusters=g, control="split").n_significant == 0


def test_a_planted_slice_is_still_found_with_clusters():
    meta, y, g = _clustered_data(1)
    rng = np.random.default_rng(2)
    bad = (meta["language"] == "es").to_numpy()
    y = np.where(bad & (rng.random(len(y)) < 0.4), 0.0, y)
    found = find_slices(meta, y, clusters=g)
    assert found.significant["description"].tolist()[0] == "language = es"


def _passages_with_a_planted_pair(seed: int) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """60 passages of 50 questions, each passage in one channel; forum passages 5 points lower on
    average (a difference among 20 passages that their spread, sd 15 points, cannot tell from chance);
    forum posts in Spanish fail 35 points more: the planted pair."""
    rng = np.random.default_rng(seed)
    g = np.repeat(np.arange(60), 50)
    channel = np.array(["forum", "news", "mail"])[g % 3]
    effect = rng.normal(0, 0.15, 60)
    for c in range(3):
        effect[np.arange(60) % 3 == c] -= effect[np.arange(60) % 3 == c].mean()
    effect[np.arange(60) % 3 == 0] -= 0.05
    language = rng.choice(["en", "es"], len(g))
    p = np.clip(0.75 + effect[g], 0.02, 0.98)
    y = (rng.random(len(g)) < np.where((channel == "forum") & (language == "es"), p - 0.35, p)).astype(float)
    return pd.DataFrame({"channel": channel, "language": language}), y, g


def test_the_conjunction_explains_its_parts_by_clustered_tests_when_rows_are_clustered():
    import statsmodels.api as sm

    from gengap.analysis._slice_core import _below_p_clustered

    meta, y, g = _passages_with_a_planted_pair(2)
    forum, es = (meta["channel"] == "forum").to_numpy(), (meta["language"] == "es").to_numpy()
    # the comparison behind the rule: statsmodels' clustered OLS on the rows of either set
    a, b = forum & ~es, ~forum
    rows = a | b
    fit = sm.OLS(y[rows], sm.add_constant(a[rows].astype(float))).fit(
        cov_type="cluster", cov_kwds={"groups": g[rows], "use_correction": False})
    n_g = len(np.unique(g[rows]))
    t = fit.params[1] / (fit.bse[1] * np.sqrt(n_g / (n_g - 1)))
    assert _below_p_clustered(a, b, y, g) == pytest.approx(scipy.stats.t.cdf(t, n_g - 1), rel=1e-9)
    # counted as independent rows, forum's 5 points outside the pair look like a finding of their own;
    # counted by passage they do not, and the pair is reported in place of both parts
    plain = find_slices(meta, y).significant
    assert plain["description"].tolist() == ["channel = forum and language = es", "channel = forum"]
    clustered = find_slices(meta, y, clusters=g).significant
    assert clustered["description"].tolist() == ["channel = forum and language = es"]
    assert clustered["replaces"].iloc[0] == ["channel = forum", "language = es"]


def test_imported_inspect_logs_are_searched_too(tmp_path, cli):
    logs = Path(__file__).parent / "data" / "inspect"
    first = sorted(logs.glob("*.json"))[0]
    code, out, err = cli("import", "inspect", str(first), "--out", str(tmp_path / "r"), "--format", "json",
                         "--find-slices")
    assert code == 0, err
    assert "Where it fails" in out
    doc = json.loads((tmp_path / "r" / "results.json").read_text(encoding="utf-8"))
    assert isinstance(doc["slices"], list) and doc["sections"]["slices"]["searches"]
