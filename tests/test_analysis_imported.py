"""Analyses without a model call on imported rows: the real lm_eval logs of tests/data/lmeval, checked
against figures computed straight from the samples files (not through the store)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from gengap._errors import ConfigError
from gengap.analysis.imported import (
    group_scores,
    load_rows,
    model_differences,
    rank_agreement_across,
    reextract,
    subset_scores,
    task_gaps,
    with_metadata,
)
from gengap.imports import import_lm_eval, import_table

RUNS = Path(__file__).resolve().parent / "data" / "lmeval" / "runs"
N = 2000  # resamples: enough for the checks here


def _samples(task: str) -> pd.DataFrame:
    """model, doc_id, doc, score of every samples file of a task (first filter), read with json."""
    records = []
    for path in sorted(RUNS.rglob(f"samples_{task}_*.jsonl")):
        model = path.parent.name
        for line in path.read_text().splitlines():
            r = json.loads(line)
            if r.get("filter") in ("none", "strict-match"):
                metric = r["metrics"][0]
                records.append({"model": model, "doc_id": str(r["doc_id"]), "doc": r["doc"], "score": r[metric]})
    return pd.DataFrame.from_records(records)


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    result = import_lm_eval(RUNS, tmp_path_factory.mktemp("imp"))
    return load_rows(result.store_path, result.run_id)


def test_paired_differences_between_models(rows):
    table = model_differences(rows, metric="acc,none", n_resamples=N)
    samples = _samples("gengap_mc").pivot(index="doc_id", columns="model", values="score")
    assert len(table) == 3
    for r in table.itertuples():
        assert r.difference == pytest.approx((samples[r.model_a] - samples[r.model_b]).mean())
        assert r.low <= r.difference <= r.high and r.n == 30
    with pytest.raises(ConfigError, match="several metrics per task"):
        model_differences(rows)


def test_gaps_between_tasks(rows):
    table = task_gaps(rows, {"gengap_arith": "exact_match,flexible-extract"}, n_resamples=N)
    mc = _samples("gengap_mc").groupby("model")["score"].mean()
    for r in table.itertuples():
        assert (r.task_a, r.task_b, r.score_a) == ("gengap_arith", "gengap_mc", 0.0)
        assert r.gap == pytest.approx(-mc[r.model]) and r.low <= r.gap <= r.high


def test_worst_group_over_a_document_field(rows):
    table = group_scores(rows, "topic", metric="acc,none", n_resamples=N)
    samples = _samples("gengap_mc")
    samples["topic"] = samples["doc"].map(lambda d: d["topic"])
    expected = samples.groupby(["model", "topic"])["score"].mean()
    for r in table.itertuples():
        assert r.score == pytest.approx(expected[(r.model, r.group)])
    for _model, g in table.groupby("model"):
        assert g.loc[g["worst"], "score"].iloc[0] == g["score"].min()
    with pytest.raises(ConfigError, match="No field 'topik'.*Did you mean 'topic'"):
        group_scores(rows, "topik", metric="acc,none")


def test_metadata_fields_as_columns_for_curves(rows):
    arith = with_metadata(rows[rows["metric"] == "exact_match,strict-match"], ["digits"])
    assert sorted(arith["digits"].unique()) == [1, 2, 3]


def test_reextraction_on_the_logged_generations(rows):
    per_row, summary = reextract(rows, "number", metric="exact_match,strict-match")
    # the dummy model always answered "lol": neither lm_eval's regex nor gengap reads a number
    assert (summary["agreement"] == 1.0).all() and (summary["gengap_unextracted"] == 1.0).all()
    assert (summary["log_score"] == 0).all() and (summary["gengap_score"] == 0).all()
    assert len(per_row) == 3 * 40


def test_reextraction_can_change_the_headline(tmp_path):
    records = [
        {"id": "a", "output": "x = 4", "log_answer": "4", "target": "4", "ok": 1},
        {"id": "b", "output": "no idea", "log_answer": None, "target": "5", "ok": 0},
        {"id": "c", "output": "so the total is #### 1,000", "log_answer": "1", "target": "1000", "ok": 0},
    ]
    path = tmp_path / "m.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    result = import_table([path], id="id", output="output", target="target", extracted="log_answer", scores=["ok"],
                          out=tmp_path / "out")
    per_row, summary = reextract(load_rows(result.store_path), "number")
    answers = per_row.set_index("example_id")["gengap_answer"]
    assert answers[["a", "c"]].tolist() == ["4", "1000"] and pd.isna(answers["b"])
    s = summary.iloc[0]
    assert s["agreement"] == pytest.approx(2 / 3) and s["log_score"] == pytest.approx(1 / 3)
    assert s["gengap_score"] == pytest.approx(2 / 3) and s["log_unextracted"] == pytest.approx(1 / 3)


def test_a_group_split_scores_the_held_out_documents(rows):
    table = subset_scores(rows, "group:group=topic,holdout=large", metric="acc,none", n_resamples=N)
    samples = _samples("gengap_mc")
    samples["topic"] = samples["doc"].map(lambda d: d["topic"])
    large = samples[samples["topic"] == "large"].groupby("model")["score"].mean()
    small = samples[samples["topic"] == "small"].groupby("model")["score"].mean()
    assert len(table) == 3
    for r in table.itertuples():
        assert r.score_subset == pytest.approx(large[r.model]) and r.score_rest == pytest.approx(small[r.model])
        assert r.gap == pytest.approx(small[r.model] - large[r.model])
        assert r.n_subset + r.n_rest == 30


def test_an_mcd_split_over_the_documents_text(rows):
    with pytest.warns(UserWarning):  # 30 short documents: the search reports the divergence it reached
        table = subset_scores(rows, "mcd", metric="acc,none", n_resamples=N, options={"n_trials": 50})
    assert set(table["model"]) == {"3ykv54sv", "qtr7s3m5", "v6y749yf"}
    assert (table["n_subset"] > 0).all() and (table["n_subset"] + table["n_rest"] <= 30).all()
    assert table["n_subset"].nunique() == 1  # the same documents for every model


def test_a_length_split_along_a_numeric_field(rows):
    table = subset_scores(rows, "length:by=digits", metric="exact_match,strict-match", n_resamples=N)
    assert (table["n_subset"] == 13).all()  # the 3-digit questions: 13 of 40


def test_rank_agreement_across_tasks_and_subsets(tmp_path):
    rng = np.random.default_rng(0)
    records = []
    for model, skill in (("a", 0.9), ("b", 0.6), ("c", 0.3), ("d", 0.5)):
        for task, shift in (("t1", 0.0), ("t2", 0.05)):
            for i in range(200):
                records.append({"model": model, "task": task, "id": f"{task}-{i}", "out": "x",
                                "ok": float(rng.random() < skill - shift * (model == "d")), "hard": i % 2})
    path = tmp_path / "all.parquet"
    pd.DataFrame(records).to_parquet(path)
    result = import_table([path], id="id", output="out", scores=["ok"], model="model", task="task", out=tmp_path / "o")
    rows = load_rows(result.store_path)
    hard = with_metadata(rows, ["hard"])
    subset = hard[hard["hard"] == 1].drop(columns="hard")
    agreement = rank_agreement_across(rows, subsets={"t1-hard": subset[subset["split"] == "t1"]}, reference="t1",
                                      n_resamples=300)
    means = rows.pivot_table(index="model", columns="split", values="score")
    expected = sps.kendalltau(means["t1"], means["t2"]).statistic
    vs = agreement.versus_reference.set_index("split")
    assert vs.loc["t2", "tau"] == pytest.approx(expected)
    assert vs.loc["t2", "tau_low"] <= vs.loc["t2", "tau"] <= vs.loc["t2", "tau_high"]
    assert set(vs.index) == {"t2", "t1-hard"}


@pytest.mark.parametrize(("spec", "metric", "n_docs", "n_subset"), [
    ("time:time=digits,cutoff=3", "exact_match,strict-match", 40, 13),  # "later" documents: the 3-digit ones
    ("difficulty:difficulty=digits", "exact_match,strict-match", 40, 13),
    ("combination", "acc,none", 30, None),  # held-out combinations of the questions' words
    ("random", "acc,none", 30, 6),
])
def test_other_row_selecting_splits(rows, spec, metric, n_docs, n_subset):
    table = subset_scores(rows, spec, metric=metric, n_resamples=500)
    assert len(table) == 3 and table["n_subset"].nunique() == 1
    assert (table["n_subset"] + table["n_rest"] <= n_docs).all()
    if n_subset is not None:
        assert table["n_subset"].iloc[0] == n_subset
