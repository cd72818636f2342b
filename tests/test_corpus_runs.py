"""Corpus metrics through a whole run: confidences from each kind of model stored per row, the
figures and their intervals in the summary, the table, results.json and the report, and each bad
input answered by one message while the rest of the run is still reported."""

from __future__ import annotations

import io
import json
import warnings

import duckdb
import numpy as np
import pandas as pd
import pytest
import sklearn.metrics as skm
from rich.console import Console
from sklearn.linear_model import LogisticRegression

import gengap
from gengap._summary_table import summary_table
from gengap.analysis.corpus import corpus_curve, corpus_gap, corpus_score, reliability, risk_coverage
from gengap.store import Store


def _tabular(n: int = 450, seed: int = 0) -> gengap.Dataset:
    rng = np.random.default_rng(seed)
    records = []
    for i in range(n):
        site = "abc"[i % 3]
        x = rng.normal(size=2) + (1.0 if site == "c" else 0.0)
        y = int(x[0] + 0.5 * x[1] + rng.normal(0, 1) > (1.0 if site == "c" else 0.0))
        records.append({"input": {"x0": float(x[0]), "x1": float(x[1])}, "target": str(y), "site": site})
    return gengap.load(records)


def _table_text(summary: pd.DataFrame) -> str:
    console = Console(file=io.StringIO(), width=200)
    console.print(summary_table(summary))
    return console.file.getvalue()


def test_a_scikit_learn_classifier_gives_confidences_and_auroc_equals_sklearn(tmp_path) -> None:
    ev = gengap.evaluate(LogisticRegression(), _tabular(), ["random", "group:group=site"],
                         metrics=["exact_match", "auroc", "ece", "macro_f1", "brier"], out=tmp_path, progress=False)
    rows = ev.rows("auroc")
    assert rows["confidence"].between(0.5, 1).all()
    probs = [json.loads(p) for p in rows["probabilities"]]
    assert all(abs(sum(p.values()) - 1) < 1e-9 for p in probs)
    summary = ev.summary(n_resamples=1000)
    for split, g in rows.groupby("split"):
        p1 = [json.loads(p)["1"] for p in g["probabilities"]]
        expected = skm.roc_auc_score(g["target"].astype(int), p1)
        got = summary[(summary["split"] == split) & (summary["metric"] == "auroc")].iloc[0]
        assert got["score"] == pytest.approx(expected, abs=1e-9)
        assert got["score_method"] == "delong-logit" and got["score_low"] < got["score"] < got["score_high"]
    ece = summary[summary["metric"] == "ece"]
    assert (ece["gap_test"].dropna() == "bootstrap").all() and ece["gap_p_adjusted"].notna().sum() == 3
    # the gap of a loss is how much worse the split is: split - reference
    ref = ece[ece["split"] == "random"]["score"].iloc[0]
    other = ece[ece["split"] != "random"].iloc[0]
    assert other["gap"] == pytest.approx(other["score"] - ref, abs=1e-12)
    report = ev.report(tmp_path / "report")
    results = json.loads((report / "results.json").read_text())
    auroc = [r for r in results["summary"] if r["metric"] == "auroc"]
    assert len(auroc) == 4 and all(r["score_method"] == "delong-logit" for r in auroc)
    md = (report / "report.md").read_text()
    assert "### auroc" in md and "delong-logit" in md and "nan" not in md.lower()
    assert results["schema_version"] == "1.10"
    import jsonschema

    from gengap.report._results import results_schema

    schema = results_schema()  # what this run adds: the summary records and the calibration section
    for record in results["summary"]:
        jsonschema.validate(record, schema["properties"]["summary"]["items"])
    jsonschema.validate(results["sections"]["calibration"], schema["properties"]["sections"]["properties"]["calibration"])
    calibration = results["sections"]["calibration"][0]
    assert {r["split"] for r in calibration["splits"]} == set(rows["split"])
    for split, bins in calibration["reliability"].items():  # every row in one bin, counted
        assert sum(b["n"] for b in bins) == (rows["split"] == split).sum()
        assert all(b["accuracy_low"] <= b["accuracy"] <= b["accuracy_high"] for b in bins)
    assert all(c[-1]["coverage"] == 1.0 for c in calibration["risk_coverage"].values())
    assert "Calibration and selective prediction" in md and "Reliability diagram" in md
    assert "calibration-reliability-0" in (report / "index.html").read_text()


def test_function_outputs_with_probabilities_or_a_confidence_are_stored(tmp_path) -> None:
    ds = gengap.load([{"input": str(i), "target": "yes" if i % 3 else "no"} for i in range(90)])

    def model(batch):
        out = []
        for x in batch:
            i = int(x)
            p_yes = 0.9 if i % 3 else 0.3
            if i % 2:
                out.append({"output": "yes" if p_yes > 0.5 else "no", "probabilities": {"yes": p_yes, "no": 1 - p_yes}})
            else:
                out.append({"output": "yes" if p_yes > 0.5 else "no", "confidence": max(p_yes, 1 - p_yes)})
        return out

    ev = gengap.evaluate(model, ds, ["random"], metrics=["exact_match", "auroc", "log_loss"], out=tmp_path, progress=False)
    rows = ev.rows("auroc")
    assert set(rows["output"]) == {"yes", "no"}
    assert rows["confidence"].round(6).isin([0.9, 0.7]).all()
    assert rows["probabilities"].notna().sum() == (rows["example_id"].astype(int) % 2).sum()
    summary = ev.summary(n_resamples=1000)
    auroc = summary[summary["metric"] == "auroc"].iloc[0]
    assert auroc["score"] == pytest.approx(1.0)  # the positive label 'yes' is inferred


def test_stated_confidences_are_read_and_a_cached_run_keeps_confidences(tmp_path) -> None:
    ds = gengap.load([{"input": str(i), "target": str(i % 2)} for i in range(60)])
    calls = []

    def model(batch):
        calls.append(len(batch))
        return [f"{int(x) % 2} (I'm {60 + int(x) % 30}% sure)" for x in batch]

    ev = gengap.evaluate(gengap.models.FunctionModel(model, version="v1"), ds, ["random"], extract="number",
                         metrics=["exact_match", "ece"], out=tmp_path, progress=False)
    rows = ev.rows("ece")
    assert rows["confidence"].between(0.6, 0.9).all()
    ece = ev.summary(n_resamples=1000)
    assert ece[ece["metric"] == "ece"]["score"].notna().all()
    # scikit-learn probabilities through the cache: a second run asks the model nothing and keeps them
    clf = LogisticRegression().fit(pd.DataFrame({"x0": [0.0, 1.0, 2.0, 3.0]}), ["0", "0", "1", "1"])
    tab = gengap.load([{"input": {"x0": float(i % 4)}, "target": str(int(i % 4 > 1))} for i in range(40)])
    first = gengap.evaluate(clf, tab, ["random"], metrics=["auroc"], out=tmp_path / "c", progress=False)
    second = gengap.evaluate(clf, tab, ["random"], metrics=["auroc"], out=tmp_path / "c2", progress=False)
    assert first.rows()["confidence"].notna().all() and second.rows()["confidence"].notna().all()


def test_bad_inputs_leave_the_rest_of_the_run_reported(tmp_path) -> None:
    """No confidences; one class only in a part; too few rows: one message each, no NaN printed."""
    records = [{"input": str(i), "target": "1" if i < 40 else str(i % 2), "kind": "one" if i < 40 else "mixed"}
               for i in range(100)]
    ev = gengap.evaluate(lambda xs: ["1"] * len(xs), gengap.load(records), ["random", "group:group=kind"],
                         metrics=["exact_match", "auroc", "macro_f1"], out=tmp_path, progress=False)
    summary = ev.summary(n_resamples=1000)
    auroc = summary[summary["metric"] == "auroc"]
    assert auroc["score"].isna().all()
    assert auroc["warning"].str.contains("needs a confidence per output").all()
    assert auroc["warning"].str.contains("predict_proba").all()
    em = summary[summary["metric"] == "exact_match"]
    assert em["score"].notna().all()
    f1 = summary[summary["metric"] == "macro_f1"]
    assert f1["warning"].str.contains("label '0' never predicted").any()
    text = _table_text(summary)
    assert "undefined" in text and "nan" not in text.lower()

    ds = gengap.load([{"input": str(i), "target": "1" if i < 60 else str(i % 2), "kind": "one" if i < 60 else "mixed"}
                      for i in range(120)])
    ev = gengap.evaluate(lambda xs: [{"output": "1", "confidence": 0.8}] * len(xs), ds, ["group:group=kind"],
                         metrics=["auroc"], out=tmp_path / "one", progress=False)
    summary = ev.summary(n_resamples=1000)
    one = summary[summary["split"].str.contains("one")].iloc[0]
    assert pd.isna(one["score"]) and "undefined here: every target is '1'" in one["warning"]
    assert summary[summary["split"].str.contains("mixed")]["score"].notna().all()
    report = ev.report(tmp_path / "one" / "report")
    assert "nan" not in (report / "report.md").read_text().lower()

    tiny = pd.DataFrame({"target": ["1", "0", "1"], "output": ["1", "1", "0"], "confidence": [0.9, 0.6, 0.7]})
    with pytest.raises(gengap.errors.DataError, match="needs at least 10 rows and this test part has 3"):
        corpus_score("auroc", tiny)


def test_an_old_store_without_confidence_columns_still_reads_and_gains_them(tmp_path) -> None:
    ev = gengap.evaluate(lambda xs: xs, gengap.load([{"input": str(i), "target": str(i)} for i in range(20)]),
                         out=tmp_path, progress=False)
    n_rows = len(ev.rows())
    con = duckdb.connect(str(ev.store_path))
    con.execute("ALTER TABLE predictions DROP COLUMN probabilities")
    con.execute("ALTER TABLE predictions DROP COLUMN confidence")
    con.close()
    with Store(ev.store_path, read_only=True) as store:
        rows = store.rows(ev.run_id)
    assert rows["confidence"].isna().all() and len(rows) == n_rows > 0
    with Store(ev.store_path) as store:  # opened for writing: the columns are added, empty
        cols = set(store.sql("SELECT column_name FROM information_schema.columns WHERE table_name = 'predictions'")["column_name"])
    assert {"confidence", "probabilities"} <= cols


def test_paired_delong_is_tighter_than_independent_for_correlated_conditions() -> None:
    rng = np.random.default_rng(5)
    n = 400
    y = rng.integers(0, 2, n)
    base = rng.normal(size=n) + y
    clean = 1 / (1 + np.exp(-base))
    shifted = 1 / (1 + np.exp(-(base + rng.normal(0, 0.8, n))))

    def frame(p):
        pred = (p > 0.5).astype(int)
        return pd.DataFrame({"example_id": np.arange(n).astype(str), "target": y.astype(str), "output": pred.astype(str),
                             "confidence": np.where(pred == 1, p, 1 - p)})

    paired = corpus_gap("auroc", frame(clean), frame(shifted))
    independent = corpus_gap("auroc", frame(clean), frame(shifted), paired=False)
    expected = skm.roc_auc_score(y, clean) - skm.roc_auc_score(y, shifted)
    assert paired.test == "delong-paired" and independent.test == "delong"
    assert paired.effect.estimate == pytest.approx(expected, abs=1e-12)
    assert paired.effect.high - paired.effect.low < 0.8 * (independent.effect.high - independent.effect.low)
    boot = corpus_gap("ece", frame(clean), frame(shifted), n_resamples=500)
    assert boot.test == "bootstrap" and boot.effect.method == "bootstrap-paired-span"
    clustered = corpus_score("macro_f1", frame(clean), clusters=np.arange(n) // 10, n_resamples=500)
    assert clustered.method == "bootstrap-clusters-percentile"


def test_reliability_and_risk_coverage_tables() -> None:
    rng = np.random.default_rng(2)
    conf = rng.uniform(0.5, 1, 500)
    right = rng.uniform(size=500) < conf
    rows = pd.DataFrame({"target": ["a"] * 500, "output": np.where(right, "a", "b"), "confidence": conf})
    table = reliability(rows)
    assert table["n"].sum() == 500 and (table["accuracy_low"] <= table["accuracy"]).all()
    assert (table["accuracy"] <= table["accuracy_high"]).all()
    curve = risk_coverage(rows)
    assert curve["risk"].iloc[-1] == pytest.approx(1 - right.mean())
    assert curve["risk"].iloc[0] <= curve["risk"].iloc[-1]


class _Noise:
    """Adds Gaussian noise to the numbers of an input (a label-preserving perturbation)."""

    name = "noise"
    family = "numbers"
    preserves_label = True

    def apply(self, data: gengap.Dataset, seed: int) -> gengap.Dataset:
        rng = np.random.default_rng(seed)
        frame = data.frame.copy()
        frame["input"] = [" ".join(f"{float(v) + rng.normal(0, 1.5):.3f}" for v in s.split()) for s in data.inputs]
        return gengap.Dataset(frame, name=data.name)


def test_the_effect_of_a_perturbation_on_auroc_and_ece_is_paired(tmp_path) -> None:
    rng = np.random.default_rng(0)
    records = []
    for _ in range(400):
        x = rng.normal(size=2)
        records.append({"input": f"{x[0]:.3f} {x[1]:.3f}", "target": str(int(x[0] + rng.normal(0, 1) > 0))})

    def model(batch):
        out = []
        for s in batch:
            p = 1 / (1 + np.exp(-2 * float(s.split()[0])))
            out.append({"output": str(int(p > 0.5)), "probabilities": {"1": p, "0": 1 - p}})
        return out

    from gengap.analysis.stress import perturbation_effects

    ev = gengap.evaluate(model, gengap.load(records), ["random"], metrics=["exact_match", "auroc", "ece"],
                         perturbations=[_Noise()], out=tmp_path, progress=False)
    rows = ev.rows("auroc")
    effects = perturbation_effects(ev.rows(), n_resamples=1000).set_index("metric")

    def auc(part):
        return skm.roc_auc_score(part["target"].astype(int), [json.loads(p)["1"] for p in part["probabilities"]])

    expected = auc(rows[rows["perturbation"] == "noise"]) - auc(rows[rows["perturbation"] == "none"])
    assert effects.loc["auroc", "difference"] == pytest.approx(expected, abs=1e-12)
    assert effects.loc["auroc", "test"] == "delong-paired" and effects.loc["auroc", "high"] < 0
    assert effects.loc["ece", "interval"] == "bootstrap-paired-span" and effects.loc["ece", "difference"] > 0
    md = ev.report(tmp_path / "report").joinpath("report.md").read_text()
    assert "significantly positive (worse)" in md


def test_worst_group_by_auroc_in_the_report(tmp_path) -> None:
    """Per group on the i.i.d. part, AUROC of each site from its own rows; the worst is the lowest."""
    ev = gengap.evaluate(LogisticRegression(), _tabular(900, seed=3), ["random", "group:group=site"],
                         metrics=["auroc", "exact_match"], out=tmp_path, progress=False)
    report = ev.report(tmp_path / "report")
    groups = json.loads((report / "results.json").read_text())["sections"]["groups"]
    assert groups["metric"] == "auroc"
    within = groups["within_reference"][0]
    scores = {g["group"]: g["score"] for g in within["groups"] if not g["left_out"]}
    assert within["worst_group"] == min(scores, key=scores.get)
    assert all(g["method"] == "delong-logit" for g in within["groups"] if not g["left_out"])
    rows = ev.rows("auroc")
    ref = gengap.analysis.group_scores.expand_metadata(rows[rows["split"] == "random"])
    site = ref[ref["site"] == within["worst_group"]]
    expected = skm.roc_auc_score(site["target"].astype(int), [json.loads(p)["1"] for p in site["probabilities"]])
    assert scores[within["worst_group"]] == pytest.approx(expected, abs=1e-9)


def test_named_clusters_make_corpus_intervals_resample_whole_clusters(tmp_path) -> None:
    """With a cluster column, AUROC and ECE resample whole clusters (the point values do not change),
    and so does the gap to the reference."""
    rng = np.random.default_rng(4)
    records = []
    for doc in range(40):
        shift = rng.normal(0, 1.0)  # every row of a document shares it
        for _ in range(10):
            x = rng.normal() + shift
            records.append({"input": {"x0": float(x)}, "target": str(int(x + rng.normal(0, 1) > shift)), "doc": f"d{doc}",
                            "site": "ab"[doc % 2]})
    ev = gengap.evaluate(LogisticRegression(), gengap.load(records), ["random", "group:group=site,holdout=b"],
                         metrics=["auroc", "ece"], out=tmp_path, progress=False)
    from gengap.analysis.gaps import summarize

    plain = summarize(ev.rows(), ev.split_info(), n_resamples=1000)
    clustered = summarize(ev.rows(), ev.split_info(), n_resamples=1000, cluster="doc")
    for metric in ("auroc", "ece"):
        a = plain[(plain["metric"] == metric) & (plain["split"] == "random")].iloc[0]
        c = clustered[(clustered["metric"] == metric) & (clustered["split"] == "random")].iloc[0]
        assert c["score"] == pytest.approx(a["score"])
        assert c["score_method"].startswith("bootstrap-clusters") and c["n_clusters"] > 10
    gap = clustered[(clustered["metric"] == "auroc") & (clustered["split"] != "random")].iloc[0]
    assert gap["gap_method"] == "bootstrap-clusters-independent" and gap["gap_p_adjusted"] is not None
    # the report names the clustering of every corpus figure, the calibration section's too
    from gengap.report import write_report

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every section draws
        out = write_report(ev.store_path, ev.run_id, tmp_path / "clustered", formats=("json", "md"), cluster="doc")
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert {(r["metric"], r["cluster"]) for r in results["summary"]} == {("auroc", "doc"), ("ece", "doc")}
    splits = results["sections"]["calibration"][0]["splits"]
    assert all(r["cluster"] == "doc" and r["ece_method"] == "bootstrap-clusters-span" for r in splits)
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "clustered by 'doc'" in md and "80 in 35 doc clusters |" in md and "draw whole clusters, 'bootstrap-clusters'" in md


def test_curves_and_transfer_with_a_corpus_metric(tmp_path) -> None:
    """A length curve is drawn from the first mean metric (its break-point test needs per-example
    scores), corpus_curve gives AUROC per bin, and the transfer matrix holds AUROC per cell."""
    rng = np.random.default_rng(0)
    records = []
    for i in range(600):
        n = 1 + i % 30
        y = int(rng.uniform() < 0.5)
        p = float(np.clip(0.5 + (y - 0.5) * (1 - n / 30) + rng.normal(0, 0.2), 0.01, 0.99))
        records.append({"input": f"{i} " + "x " * n, "target": str(y), "p": p, "site": "abc"[i % 3]})
    prob = {r["input"]: r["p"] for r in records}

    def model(batch):
        return [{"output": str(int(prob[x] > 0.5)), "probabilities": {"1": prob[x], "0": 1 - prob[x]}} for x in batch]

    ev = gengap.evaluate(model, gengap.load(records), ["random", "length:by=input", "transfer:group=site"],
                         metrics=["auroc", "exact_match"], out=tmp_path, progress=False)
    with _no_warning():
        report = ev.report(tmp_path / "report")
    assert "## Score curves" in (report / "report.md").read_text()
    with pytest.raises(gengap.errors.ConfigError, match="corpus_curve"):
        ev.curve("input_length", metric="auroc")
    per_bin = corpus_curve("auroc", ev.rows("auroc")[lambda r: r["split"] == "random"], "input_length", bins=3,
                           n_resamples=300)
    assert per_bin["n"].sum() == (ev.rows("auroc")["split"] == "random").sum()
    assert per_bin["score"].iloc[0] > per_bin["score"].iloc[-1]  # separation fades with length
    matrix = ev.transfer(metric="auroc", n_resamples=300)
    assert matrix.metric == "auroc" and np.nanmax(matrix.scores.to_numpy()) <= 1


class _no_warning:
    """Fails when a report section could not be drawn (it warns instead of raising)."""

    def __enter__(self) -> None:
        import warnings

        self._catch = warnings.catch_warnings(record=True)
        self.seen = self._catch.__enter__()
        warnings.simplefilter("always")

    def __exit__(self, *exc: object) -> None:
        self._catch.__exit__(*exc)
        failed = [str(w.message) for w in self.seen if "failed" in str(w.message)]
        assert not failed, failed


def test_report_draws_corpus_metrics_along_curves_and_reliability_per_group_and_axis(tmp_path) -> None:
    """A model that guesses with 95% confidence past length 20: the report's corpus curves of AUROC and ECE
    find the break there, and the calibration section draws reliability per site and per length bin."""
    rng = np.random.default_rng(11)
    records = []
    for i in range(1500):
        n = 1 + i % 30
        y = int(rng.uniform() < 0.5)
        p = float(np.clip(0.5 + (y - 0.5) * 0.9 + rng.normal(0, 0.15), 0.01, 0.99))
        if n > 20:  # a confident guess
            p = 0.95 if rng.uniform() < 0.5 else 0.05
        records.append({"input": f"{i} " + "x " * n, "target": str(y), "p": p, "site": "abc"[i % 3]})
    prob = {r["input"]: r["p"] for r in records}

    def model(batch):
        return [{"output": str(int(prob[x] > 0.5)), "probabilities": {"1": prob[x], "0": 1 - prob[x]}} for x in batch]

    ev = gengap.evaluate(model, gengap.load(records), ["random", "group:group=site"], metrics=["auroc", "ece"],
                         out=tmp_path, progress=False)
    with _no_warning():
        report = ev.report(tmp_path / "report", curves=["input_length"])
    doc = json.loads((report / "results.json").read_text())
    import jsonschema

    from gengap.report._results import results_schema

    jsonschema.validate(doc, results_schema())
    curves = {(c["metric"], c["axis"]): c for c in doc["sections"]["corpus_curves"]}
    auroc = curves[("auroc", "input_length")]
    assert auroc["train_range"] is None and auroc["bins"][0]["in_range"]
    assert 20 <= auroc["break_value"] <= 23  # the first bin holding lengths past 20 is where it breaks
    assert all(not b["below"] for b in auroc["bins"] if b["high_edge"] <= 20)
    ece = curves[("ece", "input_length")]
    assert ece["break_value"] is not None and ece["break_value"] >= 20
    groupings = {g["grouping"]: g for g in doc["sections"]["calibration"][0]["groupings"]}
    by_site = groupings["by site (random split)"]
    assert sorted(by_site["reliability"]) == ["a", "b", "c"]
    assert all(g["n"] > 0 and g["ece_low"] <= g["ece"] <= g["ece_high"] for g in by_site["groups"])
    along = groupings["along input_length"]
    in_random = int((ev.rows("ece")["split"] == "random").sum())  # the curve pools the reference split's rows
    assert len(along["groups"]) >= 3 and sum(g["n"] for g in along["groups"]) == in_random
    lows = [float(g["group"].split()[1].split("–")[0]) for g in along["groups"]]
    assert lows == sorted(lows)
    assert along["groups"][-1]["ece"] > 0.3 > along["groups"][0]["ece"]  # the confident guesses are miscalibrated
    md = (report / "report.md").read_text()
    assert "## Corpus metrics along curves" in md and "it breaks at input_length" in md
    assert "#### model: by site (random split)" in md and "nan" not in md.lower()
