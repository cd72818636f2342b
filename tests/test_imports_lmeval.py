"""Importing lm-evaluation-harness logs: the real files lm_eval 0.4.13 wrote (tests/data/lmeval/README.md).

The figures gengap stores must be lm_eval's own: every task's mean of the per-document metric equals
the value in results.json. Bad folders end with one message that names the file and line, and a
failed import leaves a store exactly as it was.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gengap._errors import DataError
from gengap.imports import import_lm_eval, read_lm_eval
from gengap.store import Store

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "lmeval"
RUNS = DATA / "runs"
LMEVAL_BIN = ROOT / "benchmarks" / ".lmeval-venv" / "bin" / "lm_eval"


def _results_files() -> list[Path]:
    return sorted(RUNS.rglob("results_*.json"))


def _copy_runs(tmp_path: Path) -> Path:
    target = tmp_path / "logs"
    shutil.copytree(RUNS, target)
    return target


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    out = tmp_path_factory.mktemp("imported")
    result = import_lm_eval(RUNS, out)
    with Store(result.store_path, read_only=True) as store:
        rows = store.rows(result.run_id)
    return result, rows


def test_means_equal_the_harness_results_for_every_model_task_and_filter(imported):
    _, rows = imported
    checked = 0
    for path in _results_files():
        doc = json.loads(path.read_text())
        model = doc["model_name"]
        for task, figures in doc["results"].items():
            for key, value in figures.items():
                if "," not in key or "_stderr" in key:
                    continue
                mine = rows[(rows["model"] == model) & (rows["split"] == task) & (rows["metric"] == key)]
                assert len(mine) == doc["n-samples"][task]["effective"]
                assert mine["score"].mean() == pytest.approx(value, abs=1e-12)
                checked += 1
    assert checked == 9  # 3 models x (2 filters of gengap_arith + 1 of gengap_mc)


def test_documents_prompts_targets_and_answers_are_stored(imported):
    _, rows = imported
    arith = rows[(rows["split"] == "gengap_arith") & (rows["metric"] == "exact_match,strict-match")]
    first = arith[arith["example_id"] == "0"].iloc[0]
    assert first["input"] == "Question: What is 9 + 7?\nAnswer:"
    assert first["target"] == "16"
    assert json.loads(first["metadata"]) == {"id": "arith-00", "question": "What is 9 + 7?", "answer": "16",
                                             "digits": 1, "op": "+"}
    assert first["output"] == "lol"  # the dummy model's generation
    assert arith["unextracted"].all()  # its regex filter found no number: "[invalid]"
    mc = rows[rows["split"] == "gengap_mc"]
    docs = mc["metadata"].map(json.loads)
    assert (mc["target"] == [d["choices"][d["label"]] for d in docs]).all()
    # the stored answer is the choice of highest log-likelihood, so accuracy is "answer == target"
    lls = mc["output"].map(json.loads)
    assert (mc["extracted"] == [d["choices"][int(np.argmax(ll))] for d, ll in zip(docs, lls)]).all()
    assert ((mc["extracted"] == mc["target"]).astype(float) == mc["score"]).all()


def test_run_configuration_keeps_the_models_settings_and_task_configs(imported):
    result, _ = imported
    with Store(result.store_path, read_only=True) as store:
        config = store.run_config(result.run_id)
        info = store.split_info(result.run_id)
    assert sorted(config["models"]) == ["3ykv54sv", "qtr7s3m5", "v6y749yf"]
    settings = config["import"]["models"]["qtr7s3m5"]
    assert settings["config"]["model"] == "dummy" and settings["lm_eval_version"] == "0.4.13"
    assert info["gengap_arith"]["filters"] == ["strict-match", "flexible-extract"]
    assert info["gengap_mc"]["task_config"]["output_type"] == "multiple_choice"


def test_importing_the_same_folder_again_writes_nothing(tmp_path):
    first = import_lm_eval(RUNS, tmp_path)
    again = import_lm_eval(RUNS, tmp_path)
    assert not first.already_imported and again.already_imported and again.run_id == first.run_id
    with Store(first.store_path, read_only=True) as store:
        assert len(store.runs()) == 1
        assert store.sql("SELECT count(*) AS n FROM predictions")["n"].iloc[0] == 3 * (40 + 30)


def test_an_edited_log_is_a_new_import(tmp_path):
    logs = _copy_runs(tmp_path)
    first = import_lm_eval(logs, tmp_path / "out")
    samples = next(logs.rglob("samples_gengap_mc_*.jsonl"))
    lines = samples.read_text().splitlines(keepends=True)
    samples.write_text("".join(lines[:-1]))  # one document fewer
    second = import_lm_eval(logs, tmp_path / "out")
    assert second.run_id != first.run_id and not second.already_imported


def test_cli_imports_and_writes_the_report(tmp_path, cli):
    code, out, err = cli("import", "lm-eval", str(RUNS), "--out", str(tmp_path / "rep"))
    assert code == 0, err
    assert "Imported 210 rows as run r0001" in out
    results = json.loads((tmp_path / "rep" / "results.json").read_text())
    got = {(r["model"], r["split"], r["metric"]): r["score"] for r in results["summary"]}
    assert got[("qtr7s3m5", "gengap_mc", "acc,none")] == pytest.approx(
        json.loads(next((RUNS / "qtr7s3m5").glob("results_*.json")).read_text())["results"]["gengap_mc"]["acc,none"])
    assert (tmp_path / "rep" / "index.html").exists()
    side_by_side = results["sections"]["lm_eval"]
    assert len(side_by_side) == 9
    for r in side_by_side:  # lm_eval's printed value is gengap's mean; the bootstrap interval holds it
        assert r["gengap"] == pytest.approx(r["lm_eval"], abs=1e-12) and r["low"] <= r["gengap"] <= r["high"]
        assert 0 <= r["low"] and r["high"] <= 1
    assert "lm_eval&#39;s figures and gengap&#39;s" in (tmp_path / "rep" / "index.html").read_text() or \
        "lm_eval's figures and gengap's" in (tmp_path / "rep" / "index.html").read_text()
    code, out, _ = cli("import", "lm-eval", str(RUNS), "--out", str(tmp_path / "rep"))
    assert code == 0 and "Already imported as run r0001" in out


# ---------------------------------------------------------------------------------------------- bad input


def _store_snapshot(path: Path) -> tuple:
    with Store(path, read_only=True) as store:
        return (store.runs()[["run_id", "status", "config"]].values.tolist(),
                store.sql("SELECT count(*) AS n FROM scores")["n"].iloc[0])


def _fails_leaving_store(tmp_path: Path, logs: Path, match: str) -> str:
    good = import_lm_eval(RUNS, tmp_path / "out")
    before = _store_snapshot(good.store_path)
    with pytest.raises(DataError, match=match) as info:
        import_lm_eval(logs, tmp_path / "out")
    assert _store_snapshot(good.store_path) == before
    return str(info.value)


def test_folder_without_samples_files(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(_results_files()[0], logs)
    message = _fails_leaving_store(tmp_path, logs, "holds no lm_eval samples files")
    assert "--log_samples" in message and str(logs) in message


def test_samples_of_an_unknown_harness_version_name_the_missing_fields(tmp_path):
    logs = _copy_runs(tmp_path)
    samples = next(logs.rglob("samples_gengap_arith_*.jsonl"))
    records = [json.loads(line) for line in samples.read_text().splitlines()]
    for r in records:  # an older layout: no prompts, one "response" instead of resps/filtered_resps
        r["response"] = r.pop("resps")
        del r["filtered_resps"], r["arguments"]
    samples.write_text("".join(json.dumps(r) + "\n" for r in records))
    message = _fails_leaving_store(tmp_path, logs, "missing field")
    assert f"{samples}, line 1" in message
    assert "['arguments', 'resps', 'filtered_resps']" in message and "0.4.13" in message


def test_task_names_that_do_not_match_the_results_file(tmp_path):
    logs = _copy_runs(tmp_path)
    samples = next(logs.rglob("samples_gengap_mc_*.jsonl"))
    renamed = samples.with_name(samples.name.replace("gengap_mc", "gengap_mcq"))
    samples.rename(renamed)
    message = _fails_leaving_store(tmp_path, logs, "task 'gengap_mcq' is not in")
    assert str(renamed) in message and "gengap_arith" in message


def test_results_task_without_its_samples_file(tmp_path):
    logs = _copy_runs(tmp_path)
    missing = next(logs.rglob("samples_gengap_mc_*.jsonl"))
    missing.unlink()
    message = _fails_leaving_store(tmp_path, logs, r"tasks \['gengap_mc'\] have no samples")
    assert str(missing.parent) in message


def test_truncated_jsonl_line_names_file_and_line(tmp_path):
    logs = _copy_runs(tmp_path)
    samples = next(logs.rglob("samples_gengap_mc_*.jsonl"))
    text = samples.read_text()
    samples.write_text(text[: len(text) - 200])  # lm_eval stopped while writing the last line
    message = _fails_leaving_store(tmp_path, logs, "not a complete JSON object")
    assert f"{samples}, line 30" in message and "ends in the middle of this line" in message


def test_bad_input_through_the_cli_is_one_paragraph(tmp_path, cli):
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = cli("import", "lm-eval", str(empty), "--out", str(tmp_path / "o"))
    assert code == 1 and "Traceback" not in err and "holds no lm_eval samples files" in err


# ---------------------------------------------------------------------------------------------- format drift


@pytest.mark.slow
def test_the_harness_still_writes_the_committed_format(tmp_path):
    """Run lm_eval again (seed 1) and compare the fields of its files with the committed ones."""
    if not LMEVAL_BIN.exists():
        pytest.skip(f"lm_eval is not installed in {LMEVAL_BIN.parent.parent} (python benchmarks/_lmeval.py creates it)")
    proc = subprocess.run([sys.executable, str(DATA / "make_runs.py"), str(tmp_path / "runs"), "--seed", "1"],
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    fresh = tmp_path / "runs" / "3ykv54sv"
    committed = RUNS / "3ykv54sv"
    new_results = json.loads(next(fresh.glob("results_*.json")).read_text())
    old_results = json.loads(next(committed.glob("results_*.json")).read_text())
    assert set(new_results) == set(old_results)
    assert new_results["results"] == old_results["results"]  # same seed, same tasks: the same scores
    for task in ("gengap_arith", "gengap_mc"):
        new_line = json.loads(next(fresh.glob(f"samples_{task}_*.jsonl")).read_text().splitlines()[0])
        old_line = json.loads(next(committed.glob(f"samples_{task}_*.jsonl")).read_text().splitlines()[0])
        assert set(new_line) == set(old_line)
        assert {k: new_line[k] for k in ("doc", "target", "arguments", "resps", "filtered_resps")} == \
               {k: old_line[k] for k in ("doc", "target", "arguments", "resps", "filtered_resps")}
    parts, _, _ = read_lm_eval(tmp_path / "runs")
    assert {p.split for p in parts} == {"gengap_arith", "gengap_mc"}


def test_cli_analyses_are_printed_and_written(tmp_path, cli):
    code, out, err = cli("import", "lm-eval", str(RUNS), "--out", str(tmp_path / "rep"), "--format", "json",
                         "--metric", "acc,none", "--group", "topic", "--subset", "group:group=topic,holdout=large")
    assert code == 0, err
    groups = __import__("pandas").read_csv(tmp_path / "rep" / "analysis" / "groups_topic.csv")
    assert set(groups["group"]) == {"small", "large"} and groups.groupby("model")["worst"].sum().tolist() == [1, 1, 1]
    subset = __import__("pandas").read_csv(tmp_path / "rep" / "analysis" / "subset_group_group_topic_holdout_large.csv")
    assert (subset["n_subset"] + subset["n_rest"] == 30).all()
    code, out, err = cli("import", "lm-eval", str(RUNS), "--out", str(tmp_path / "rep"), "--format", "json",
                         "--metric", "exact_match,strict-match", "--reextract", "number")
    assert code == 0 and "Already imported" in out
    reread = __import__("pandas").read_csv(tmp_path / "rep" / "analysis" / "reextract.csv")
    assert len(reread) == 3 and (reread["agreement"] == 1.0).all()


def test_the_answer_filter_chooses_which_answers_are_stored(tmp_path):
    logs = _copy_runs(tmp_path)
    samples = next(logs.rglob("samples_gengap_arith_*.jsonl"))
    records = [json.loads(line) for line in samples.read_text().splitlines()]
    for r in records:  # give the two filters different answers, as a real model's output would
        r["filtered_resps"] = ["7"] if r["filter"] == "flexible-extract" else ["[invalid]"]
    samples.write_text("".join(json.dumps(r) + "\n" for r in records))
    model = samples.parent.name
    first = import_lm_eval(logs, tmp_path / "a")
    chosen = import_lm_eval(logs, tmp_path / "b", answer_filter="flexible-extract")
    with Store(first.store_path, read_only=True) as store:
        a = store.rows(first.run_id, metric="exact_match,strict-match")
    with Store(chosen.store_path, read_only=True) as store:
        b = store.rows(chosen.run_id, metric="exact_match,strict-match")
        assert store.split_info(chosen.run_id)["gengap_arith"]["extracted_filter"] == "flexible-extract"
    assert a[(a["model"] == model) & (a["split"] == "gengap_arith")]["extracted"].isna().all()
    assert (b[(b["model"] == model) & (b["split"] == "gengap_arith")]["extracted"] == "7").all()


def test_runs_over_different_documents_of_a_task(tmp_path):
    logs = _copy_runs(tmp_path)
    first = logs / "3ykv54sv"  # the earliest run, read first: it saw only documents 5..29 (as with --limit)
    samples = next(first.glob("samples_gengap_mc_*.jsonl"))
    samples.write_text("".join(samples.read_text().splitlines(keepends=True)[5:]))
    result = import_lm_eval(logs, tmp_path / "out")
    with Store(result.store_path, read_only=True) as store:
        rows = store.rows(result.run_id, metric="acc,none")
        n_examples = store.sql("SELECT count(*) AS n FROM examples WHERE split = 'gengap_mc'")["n"].iloc[0]
    assert rows.groupby("model").size().to_dict() == {"3ykv54sv": 25, "qtr7s3m5": 30, "v6y749yf": 30}
    assert n_examples == 30 and rows["input"].notna().all()


# ---------------------------------------------------------------------------------------------- a real model

LLAMA_RUNS = DATA / "runs_llamacpp"


def test_a_real_model_served_by_llama_cpp(tmp_path):
    """gemma-3-270m behind llama.cpp's OpenAI-compatible server, run by lm_eval's local-completions model."""
    from gengap.analysis.imported import reextract
    from gengap.extract import Extractor

    result = import_lm_eval(LLAMA_RUNS, tmp_path)
    with Store(result.store_path, read_only=True) as store:
        rows = store.rows(result.run_id)
    doc = json.loads(next(LLAMA_RUNS.rglob("results_*.json")).read_text())
    for key in ("exact_match,strict-match", "exact_match,flexible-extract"):
        mine = rows[rows["metric"] == key]
        assert len(mine) == 40 and mine["score"].mean() == pytest.approx(doc["results"]["gengap_arith"][key], abs=1e-12)
    assert rows["output"].nunique() > 5  # the model's own text, not a constant
    per_row, summary = reextract(rows, "number", metric="exact_match,strict-match")
    lines = [json.loads(x) for x in next(LLAMA_RUNS.rglob("samples_*.jsonl")).read_text().splitlines()]
    strict = [r for r in lines if r["filter"] == "strict-match"]
    theirs = [None if r["filtered_resps"][0] == "[invalid]" else r["filtered_resps"][0] for r in strict]
    ours = Extractor("number")([r["resps"][0][0] for r in strict])
    assert summary["agreement"].iloc[0] == pytest.approx(np.mean([a == b for a, b in zip(ours, theirs)]))


def test_multiple_choice_confidences_are_the_softmax_of_the_options_and_feed_corpus_metrics(tmp_path):
    """Each multiple-choice document stores the softmax of its options' log-likelihoods; ECE and Brier
    on the imported rows equal the figures recomputed from the samples files themselves."""
    result = import_lm_eval(RUNS, tmp_path, corpus_metrics=["ece", "brier"])
    with Store(result.store_path, read_only=True) as store:
        rows = store.rows(result.run_id)
    mc = rows[(rows["split"] == "gengap_mc") & (rows["metric"] == "ece")]
    assert len(mc) and mc["confidence"].notna().all()
    for path in RUNS.rglob("samples_gengap_mc_*.jsonl"):
        samples = [json.loads(line) for line in path.read_text().splitlines()]
        model = json.loads(next(path.parent.glob("results_*.json")).read_text())["model_name"]
        mine = mc[mc["model"] == model].set_index("example_id")
        for s in samples:
            lls = np.array([r[0] for r in s["filtered_resps"]], dtype=float)
            p = np.exp(lls - lls.max()) / np.exp(lls - lls.max()).sum()
            row = mine.loc[str(s["doc_id"])]
            assert row["confidence"] == pytest.approx(p.max(), abs=1e-12)
            assert sorted(json.loads(row["probabilities"]).values()) == pytest.approx(sorted(p.tolist()), abs=1e-12)
            assert row["score"] == s["acc"]  # right or wrong, from acc,none
    from gengap.evaluation import Evaluation

    summary = Evaluation(store_path=result.store_path, run_id=result.run_id, out=tmp_path).summary(n_resamples=1000)
    ece = summary[(summary["metric"] == "ece") & (summary["split"] == "gengap_mc")]
    assert ece["score"].notna().all() and (ece["score_method"] == "bootstrap-span").all()
    arith = summary[(summary["metric"] == "ece") & (summary["split"] == "gengap_arith")]
    assert arith["score"].isna().all() and arith["warning"].str.contains("needs a confidence").all()
