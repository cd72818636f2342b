"""--cluster through every door: evaluate(cluster=...), gengap eval --cluster, the run file's [scoring]
cluster, gengap import table --cluster, gengap report --cluster; results.json's summary records; the
bad inputs (a column that is not there, empty cluster ids, one cluster) as one clear message each."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest

import gengap
from gengap._errors import DataError
from gengap.report import results_schema
from gengap.store import Store

MODEL_CODE = '''
def predict(batch):
    """Right on every question of the even passages, wrong on the odd ones."""
    return [q.split("|")[1] if int(q.split("|")[0]) % 2 == 0 else "no" for q in batch]
'''


def _records(passages: int = 40, per: int = 15) -> list[dict]:
    out = []
    for p in range(passages):
        for q in range(per):
            out.append({"qid": f"p{p}q{q}", "question": f"{p}|a{q}", "answer": f"a{q}", "passage": f"p{p}"})
    return out


def _model(xs: list[str]) -> list[str]:
    return [q.split("|")[1] if int(q.split("|")[0]) % 2 == 0 else "no" for q in xs]


def test_evaluate_with_clusters_counts_passages_in_every_summary_figure(tmp_path):
    ds = gengap.load(_records(), input="question", target="answer", id="qid")
    ev = gengap.evaluate(_model, ds, ["random"], out=tmp_path, cluster="passage", progress=False)
    s = ev.summary()
    row = s.iloc[0]
    assert row["cluster"] == "passage" and row["score_method"] == "korn-graubard"
    assert 20 <= row["n_clusters"] <= 40 and row["design_effect"] > 2.5  # correctness is set per passage
    naive = gengap.evaluate(_model, ds, ["random"], out=tmp_path / "naive", progress=False).summary().iloc[0]
    assert naive["n_clusters"] is None or pd.isna(naive["n_clusters"])
    assert (row["score_high"] - row["score_low"]) > 1.7 * (naive["score_high"] - naive["score_low"])
    folder = ev.report(formats=["json", "md"])
    results = json.loads((folder / "results.json").read_text())
    jsonschema.validate(results, results_schema())
    assert results["summary"][0]["n_clusters"] == row["n_clusters"]
    assert results["summary"][0]["design_effect"] == pytest.approx(row["design_effect"])
    md = (folder / "report.md").read_text()
    assert "passage clusters; design effect" in md and "clustered by 'passage'" in md


def test_a_paired_gap_between_two_models_uses_the_cluster_sign_flip_test(tmp_path):
    from gengap.analysis.gaps import summarize

    rng = np.random.default_rng(0)
    n_passages, per = 30, 10
    passage = np.repeat([f"p{i}" for i in range(n_passages)], per)
    hard = np.repeat(rng.random(n_passages) < 0.5, per)
    rows = pd.DataFrame({"model": "m", "metric": "em", "perturbation": "none", "passage": passage,
                         "example_id": [f"e{i}" for i in range(passage.size)] * 1})
    a = rows.assign(split="random", score=(~hard).astype(float))
    b = rows.assign(split="other", score=np.where(hard, 0.0, (rng.random(passage.size) < 0.8).astype(float)))
    info = {"random": {"method": "random"}, "other": {"method": "random"}}
    s = summarize(pd.concat([a, b]), info, reference="random", cluster="passage", n_resamples=1000)
    other = s[s["split"] == "other"].iloc[0]
    assert other["gap_paired"] and other["gap_test"] == "cluster-sign-flip" and other["gap_method"] == "mover-paired-kg"
    assert other["gap_detectable"] > 0


def test_bad_cluster_columns_fail_before_any_model_runs(tmp_path):
    calls = []

    def model(xs):
        calls.append(len(xs))
        return _model(xs)

    ds = gengap.load(_records(), input="question", target="answer", id="qid")
    with pytest.raises(DataError, match="cluster='pasage' is not a column.*Did you mean 'passage'"):
        gengap.evaluate(model, ds, out=tmp_path, cluster="pasage", progress=False)
    holes = _records()
    for r in holes[:7]:
        r["passage"] = None
    with pytest.raises(DataError, match="'passage' .* empty in 7 of 600 rows"):
        gengap.evaluate(model, gengap.load(holes, input="question", target="answer", id="qid"), out=tmp_path,
                        cluster="passage", progress=False)
    one = [dict(r, passage="all") for r in _records()]
    with pytest.raises(DataError, match="same 'passage'.*one cluster"):
        gengap.evaluate(model, gengap.load(one, input="question", target="answer", id="qid"), out=tmp_path,
                        cluster="passage", progress=False)
    assert calls == []


def _write(tmp_path: Path, records: list[dict]) -> tuple[str, str]:
    (tmp_path / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    (tmp_path / "clustermodel.py").write_text(MODEL_CODE, encoding="utf-8")
    return str(tmp_path / "data.jsonl"), "clustermodel:predict"


def test_cli_eval_cluster_and_its_bad_inputs_keep_what_is_stored(tmp_path, cli):
    data, model = _write(tmp_path, _records())
    base = ["eval", "--data", data, "--input", "question", "--target", "answer", "--id", "qid", "--model", model,
            "--out", str(tmp_path / "rep"), "--no-progress"]
    code, out, err = cli(*base, "--cluster", "passage")
    assert code == 0, err
    assert "passages" in out and "design effect" in out.replace("\n", " ")
    with Store(tmp_path / "rep" / "gengap.duckdb", read_only=True) as store:
        runs_before = len(store.runs())
    code, _, err = cli(*base, "--cluster", "chapter")
    assert code == 1 and "cluster='chapter' is not a column" in err and "passage" in err and "Traceback" not in err
    with Store(tmp_path / "rep" / "gengap.duckdb", read_only=True) as store:
        assert len(store.runs()) == runs_before  # nothing stored lost, nothing half-written
        assert store.runs()["status"].tolist() == ["done"]
    code, out, err = cli("report", str(tmp_path / "rep"), "--format", "json")
    assert code == 0, err
    summary = json.loads((tmp_path / "rep" / "results.json").read_text())["summary"]
    assert summary[0]["cluster"] == "passage" and summary[0]["n_clusters"] >= 20  # the run's own setting


def test_run_file_scoring_cluster(tmp_path, cli):
    data, model = _write(tmp_path, _records())
    (tmp_path / "gengap.toml").write_text(
        f'[data]\npath = "{data}"\ninput = "question"\ntarget = "answer"\nid = "qid"\n\n[model]\nspec = "{model}"\n\n'
        f'[[split]]\nmethod = "random"\n\n[scoring]\ncluster = "passage"\n\n[eval]\nout = "{tmp_path / "rep"}"\n',
        encoding="utf-8")
    code, out, err = cli("run", str(tmp_path / "gengap.toml"), "--no-progress")
    assert code == 0, err
    summary = json.loads((tmp_path / "rep" / "results.json").read_text())["summary"]
    assert summary[0]["score_method"] == "korn-graubard" and summary[0]["design_effect"] > 2.5


def test_import_table_cluster(tmp_path, cli):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(_records())
    frame["output"] = frame["answer"]
    frame["correct"] = np.repeat(rng.random(40) < 0.6, 15)
    frame.to_json(tmp_path / "a.jsonl", orient="records", lines=True)
    args = ["import", "table", str(tmp_path / "a.jsonl"), "--id", "qid", "--output", "output", "--score", "correct",
            "--target", "answer", "--out", str(tmp_path / "rep"), "--format", "json"]
    code, _, err = cli(*args, "--cluster", "passage")
    assert code == 0, err
    s = json.loads((tmp_path / "rep" / "results.json").read_text())["summary"][0]
    assert s["n_clusters"] == 40 and s["design_effect"] == pytest.approx(15, rel=0.1) and s["n"] == 600
    code, _, err = cli(*args, "--cluster", "chapter")
    assert code == 1 and "cluster column 'chapter' is not in" in err


def test_group_metrics_with_clusters_widen_each_group_and_resample_whole_clusters():
    from gengap.analysis.group_scores import group_metrics

    rng = np.random.default_rng(2)
    passage = np.repeat(np.arange(80), 20)
    scores = np.repeat((rng.random(80) < 0.6).astype(float), 20)
    groups = np.where(passage < 40, "news", "fiction")
    plain = group_metrics(scores, groups, n_resamples=2000)
    clustered = group_metrics(scores, groups, n_resamples=2000, clusters=passage)
    width = lambda rep: (rep.table["score_high"] - rep.table["score_low"]).to_numpy()
    assert (width(clustered) > 3 * width(plain)).all()
    assert set(clustered.table["method"]) == {"korn-graubard"}
    assert (clustered.disparity.high - clustered.disparity.low) > 3 * (plain.disparity.high - plain.disparity.low)


def test_perturbation_effects_with_clusters_use_the_cluster_sign_flip_test():
    from gengap.analysis.stress import perturbation_effects

    n = 300
    passage = [f"p{i // 30}" for i in range(n)]
    clean = pd.DataFrame({"model": "m", "split": "s", "metric": "em", "perturbation": "none",
                          "example_id": [f"e{i}" for i in range(n)], "passage": passage, "score": 1.0})
    hit = np.array([int(p[1:]) < 3 for p in passage])  # the perturbation breaks three passages of ten entirely
    pert = clean.assign(perturbation="typos", score=np.where(hit, 0.0, 1.0))
    rows = pd.concat([clean, pert])
    plain = perturbation_effects(rows, n_resamples=1000).iloc[0]
    clustered = perturbation_effects(rows, n_resamples=1000, cluster="passage").iloc[0]
    assert plain["test"] == "mcnemar-exact" and plain["p_value"] < 1e-20
    assert clustered["test"] == "cluster-sign-flip" and clustered["p_value"] == pytest.approx(2 / 8)
    assert clustered["n_clusters"] == 10 and clustered["high"] - clustered["low"] > 2 * (plain["high"] - plain["low"])


def test_imported_group_scores_count_clusters():
    from gengap.analysis.imported import group_scores

    rng = np.random.default_rng(3)
    meta = [json.dumps({"subject": "a" if i < 300 else "b", "passage": f"p{i // 15}"}) for i in range(600)]
    rows = pd.DataFrame({"model": "m", "split": "t", "metric": "acc", "example_id": [str(i) for i in range(600)],
                         "metadata": meta, "score": np.repeat((rng.random(40) < 0.5).astype(float), 15)})
    plain = group_scores(rows, "subject", n_resamples=500)
    clustered = group_scores(rows, "subject", n_resamples=500, cluster="passage")
    assert ((clustered["score_high"] - clustered["score_low"]) > 2.5 * (plain["score_high"] - plain["score_low"])).all()


def test_curves_with_clusters_widen_each_bin_and_name_their_method():
    from gengap.analysis.curves import score_curve

    rng = np.random.default_rng(4)
    passage = np.repeat(np.arange(120), 10)
    digits = np.repeat(rng.integers(1, 5, size=120), 10)
    rate = np.where(digits <= 2, 0.9, np.where(digits == 3, 0.8, 0.2))
    scores = np.repeat((rng.random(120) < rate[::10]).astype(float), 10)
    plain = score_curve(scores, digits, train_range=(1, 2), n_resamples=1000)
    clustered = score_curve(scores, digits, train_range=(1, 2), n_resamples=1000, clusters=passage)
    w = lambda c: (c.bins["score_high"] - c.bins["score_low"]).to_numpy()
    assert (w(clustered) > 2 * w(plain)).all()
    assert (clustered.interval, clustered.test) == ("korn-graubard", "fisher-effective")
    assert clustered.break_value == 4.0  # 20% against 90%: still a break, on far fewer effective examples
    assert (clustered.bins["p_value"].dropna() >= plain.bins["p_value"].dropna()).all()


def test_inspect_epochs_are_clustered_by_example_without_being_told(tmp_path, cli):
    log = Path(__file__).parent / "data" / "inspect" / "arith.json"
    if not log.exists():
        pytest.skip("tests/data/inspect/arith.json is missing")
    code, out, err = cli("import", "inspect", str(log), "--out", str(tmp_path / "rep"), "--format", "json")
    assert code == 0, err
    assert "every interval counts examples, not epochs" in out
    summary = json.loads((tmp_path / "rep" / "results.json").read_text())["summary"]
    assert {s["cluster"] for s in summary} == {"item"} and {s["n_clusters"] for s in summary} == {6}
    assert all(s["n"] == 12 for s in summary)
