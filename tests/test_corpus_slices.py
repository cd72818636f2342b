"""Slices on corpus metrics (AUROC, F1, ECE): each slice's figure on its own rows, tested by
permutation against random sets of its size, Benjamini-Hochberg over the slices tested."""

from __future__ import annotations

import json

import jsonschema
import numpy as np
import pandas as pd
import pytest
import scipy.stats
import sklearn.metrics as skm

import gengap
from gengap._errors import ConfigError
from gengap.analysis.corpus import corpus_data
from gengap.analysis.corpus_slices import WEIGHT_EXACT, _fixed_positive, _subset, find_corpus_slices
from gengap.analysis.slices import conditions_mask, slice_table, slices_from_rows
from gengap.metrics import get_metric
from gengap.report._results import results_schema


def _binary(n: int = 3000, seed: int = 0, planted: bool = True) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Confidences that rank the classes well, except on forum posts in Spanish (when planted):
    there the confidence is mostly noise, so AUROC drops from about 0.9 to about 0.65."""
    rng = np.random.default_rng(seed)
    meta = pd.DataFrame({"channel": rng.choice(["forum", "news", "mail"], n), "language": rng.choice(["en", "es"], n),
                         "length": rng.gamma(3, 10, n).round()})
    bad = ((meta["channel"] == "forum") & (meta["language"] == "es")).to_numpy() if planted else np.zeros(n, bool)
    y = rng.integers(0, 2, n)
    p = np.clip(0.5 + (y - 0.5) * 0.5 + rng.normal(0, np.where(bad, 0.6, 0.22)), 0.01, 0.99)
    out = (p > 0.5).astype(int)
    rows = pd.DataFrame({"target": y.astype(str), "output": out.astype(str), "confidence": np.where(out == 1, p, 1 - p),
                         "example_id": [f"e{i}" for i in range(n)]})
    rows["score"] = (rows["target"] == rows["output"]).astype(float)
    return meta, rows


def test_a_planted_slice_where_auroc_drops_is_found_and_its_figures_are_sklearns():
    meta, rows = _binary()
    found = find_corpus_slices(meta, rows, "auroc", n_resamples=500)
    assert found.significant["description"].tolist() == ["channel = forum and language = es"]
    top = found.table.iloc[0]
    assert sorted(top["replaces"]) == ["channel = forum", "language = es"] and found.test == "permutation"
    inside = conditions_mask(meta, top["conditions"])
    p1 = np.where(rows["output"] == "1", rows["confidence"], 1 - rows["confidence"])
    y = rows["target"].astype(int).to_numpy()
    auc_in, auc_out = skm.roc_auc_score(y[inside], p1[inside]), skm.roc_auc_score(y[~inside], p1[~inside])
    assert top["score"] == pytest.approx(auc_in, abs=1e-12) and top["gap"] == pytest.approx(auc_in - auc_out, abs=1e-12)
    assert top["score_low"] < top["score"] < top["score_high"] and top["gap_low"] < top["gap"] < top["gap_high"] < 0
    assert top["n"] == inside.sum() and np.array_equal(found.members[top["description"]], np.flatnonzero(inside))


def test_on_null_data_bh_finds_nothing_while_the_naive_search_finds_something():
    naive = 0
    for seed in range(3):
        meta, rows = _binary(1500, seed=seed + 10, planted=False)
        assert find_corpus_slices(meta, rows, "auroc", n_resamples=200, seed=seed).n_significant == 0
        naive += find_corpus_slices(meta, rows, "auroc", control="none", n_resamples=200, seed=seed).n_significant
    assert naive > 0


@pytest.mark.parametrize("name", sorted(WEIGHT_EXACT - {"bleu", "chrf"}))
def test_weighted_figures_with_zero_weights_are_the_figures_of_the_subset(name):
    meta, rows = _binary(600, seed=3)
    data = corpus_data(rows)
    m = _fixed_positive(get_metric(name), data)
    idx = np.flatnonzero((meta["channel"] == "news").to_numpy())
    w = np.zeros((1, len(data)))
    w[0, idx] = 1.0
    assert m.statistic(data)(w)[0] == pytest.approx(m.point(_subset(data, idx)), abs=1e-12)


def test_ece_is_a_loss_a_miscalibrated_slice_is_worse_above_and_macro_f1_is_computed_on_each_slice():
    rng = np.random.default_rng(5)
    n = 3000
    meta = pd.DataFrame({"site": rng.choice(["a", "b", "c", "d"], n), "lang": rng.choice(["en", "es", "de"], n)})
    conf = rng.uniform(0.5, 1.0, n)
    over = (meta["site"] == "b").to_numpy()  # site b says 90% when it is right 60% of the time
    correct = rng.random(n) < np.where(over, conf - 0.25, conf)
    y = rng.choice(["x", "y", "z"], n)
    out = np.where(correct, y, np.where(y == "x", "y", "x"))
    rows = pd.DataFrame({"target": y, "output": out, "confidence": conf, "score": correct.astype(float)})
    found = find_corpus_slices(meta, rows, "ece", n_resamples=300)
    assert found.significant["description"].tolist() == ["site = b"] and found.higher_is_better is False
    assert found.table.iloc[0]["gap"] > 0.15
    found = find_corpus_slices(meta, rows, "macro_f1", n_resamples=300)  # computed on each subset's own labels
    top = found.table.iloc[0]
    inside = conditions_mask(meta, top["conditions"])
    assert top["description"] == "site = b" and top["significant"]
    assert top["score"] == pytest.approx(skm.f1_score(y[inside], out[inside], average="macro"), abs=1e-12)


def test_clustered_rows_draw_whole_clusters_also_when_one_half_discovers_and_the_other_confirms():
    rng = np.random.default_rng(7)
    g = np.repeat(np.arange(60), 40)
    site = np.array(["a", "b", "c"])[g % 3]  # each passage in one site; passages differ in how well they rank
    y = rng.integers(0, 2, len(g))
    noise = rng.uniform(0.15, 0.6, 60)[g]
    p = np.clip(0.5 + (y - 0.5) * 0.5 + rng.normal(0, noise), 0.01, 0.99)
    rows = pd.DataFrame({"target": y.astype(str), "output": (p > 0.5).astype(int).astype(str),
                         "confidence": np.where(p > 0.5, p, 1 - p)})
    meta = pd.DataFrame({"site": site})
    plain = find_corpus_slices(meta, rows, "auroc", n_resamples=200)
    clustered = find_corpus_slices(meta, rows, "auroc", n_resamples=200, clusters=g)
    assert clustered.n_significant <= plain.n_significant and clustered.n_significant == 0
    halves = find_corpus_slices(meta, rows, "auroc", n_resamples=200, clusters=g, control="split")
    assert halves.control == "split" and halves.n_significant == 0
    with pytest.raises(ConfigError, match="control='halves' must be one of"):
        find_corpus_slices(meta, rows, "auroc", control="halves")


def test_discover_on_one_half_and_confirm_on_the_other_finds_the_planted_auroc_slice_and_nothing_on_null_data():
    meta, rows = _binary()
    found = find_corpus_slices(meta, rows, "auroc", n_resamples=300, control="split")
    assert found.control == "split" and "confirmed on the other" in found.control_text
    assert found.significant["description"].tolist() == ["channel = forum and language = es"]
    top = found.table.iloc[0]
    assert found.n_tested >= len(found.table) and top["p_adjusted"] <= 0.05
    # the figures are those of every row, as with Benjamini-Hochberg over the whole split
    bh = find_corpus_slices(meta, rows, "auroc", n_resamples=300)
    assert top["score"] == pytest.approx(bh.table.iloc[0]["score"]) and top["gap"] == pytest.approx(bh.table.iloc[0]["gap"])
    for seed in range(2):
        meta0, rows0 = _binary(1500, seed=seed + 20, planted=False)
        assert find_corpus_slices(meta0, rows0, "auroc", n_resamples=200, seed=seed, control="split").n_significant == 0


def test_a_run_scored_by_auroc_reports_its_slices_by_auroc(tmp_path):
    meta, rows = _binary(2400, seed=1)
    records = [{"input": f"q{i}", "target": rows["target"][i], "channel": meta["channel"][i],
                "language": meta["language"][i]} for i in range(len(rows))]
    answers = {f"q{i}": {"output": rows["output"][i], "confidence": float(rows["confidence"][i])} for i in range(len(rows))}
    ev = gengap.evaluate(lambda batch: [answers[x] for x in batch], gengap.load(records), ["random"],
                         metrics=["auroc"], test_fraction=0.5, out=tmp_path, progress=False)
    table = ev.slices()
    assert table["metric"].iloc[0] == "auroc" and table.attrs["searches"][0]["test"] == "permutation"
    assert table["description"].iloc[0] == "channel = forum and language = es" and table["significant"].iloc[0]
    ev.report(find_slices=True)
    doc = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    jsonschema.validate(doc, results_schema())
    assert doc["slices"][0]["metric"] == "auroc" and doc["slices"][0]["description"] == table["description"].iloc[0]
    assert "tested by permutation" in (tmp_path / "report.md").read_text(encoding="utf-8")
    assert slice_table(slices_from_rows(ev.rows(), metric="auroc"))["score"].iloc[0] == pytest.approx(table["score"].iloc[0])


def test_a_small_run_says_the_smallest_auroc_gap_it_can_find_and_the_figure_is_the_permutation_nulls():
    meta, rows = _binary(300, seed=3, planted=False)
    found = find_corpus_slices(meta, rows, "auroc")
    note = next(n for n in found.notes if n.startswith("A small run"))
    assert "300 rows" in note and "a slice of 30 rows is found only when its auroc is about" in note
    assert found.detectable is not None and found.detectable["n_slice_small"] == 30
    # directly: random sets of 30 rows, scikit-learn's AUROC inside minus outside; the gap a slice must reach is
    # the null's mean less (z at BH's first threshold + z at 80% power) of its spreads
    y = rows["target"].astype(int).to_numpy()
    p = np.where(rows["output"] == "1", rows["confidence"], 1 - rows["confidence"])
    rng = np.random.default_rng(11)
    gaps = []
    for _ in range(2000):
        inside = np.zeros(300, bool)
        inside[rng.choice(300, 30, replace=False)] = True
        if len(set(y[inside])) == 2:
            gaps.append(skm.roc_auc_score(y[inside], p[inside]) - skm.roc_auc_score(y[~inside], p[~inside]))
    z = scipy.stats.norm.ppf(1 - 0.05 / found.n_tested) + scipy.stats.norm.ppf(0.8)
    direct = float(np.mean(gaps) - z * np.std(gaps, ddof=1))
    assert found.detectable["gap_small"] == pytest.approx(direct, rel=0.15)
    assert direct < found.detectable["gap_large"] < 0
    # a loss: the gap is above the rest
    ece = find_corpus_slices(meta, rows, "ece")
    assert ece.detectable is not None and ece.detectable["gap_small"] > ece.detectable["gap_large"] > 0
    assert any("its ece is about" in n and "above the rest" in n for n in ece.notes)
    # too few rows to test anything: said, and no figure
    tiny = find_corpus_slices(meta.head(50), rows.head(50), "auroc")
    assert tiny.detectable is None and any("no slice can be tested" in n for n in tiny.notes)


def test_a_small_auroc_run_shows_what_it_can_detect_in_the_terminal_report_and_results(tmp_path, cli):
    meta, rows = _binary(600, seed=4, planted=False)
    records = [{"input": f"q{i}", "target": rows["target"][i], "channel": meta["channel"][i],
                "language": meta["language"][i]} for i in range(len(rows))]
    answers = {f"q{i}": {"output": rows["output"][i], "confidence": float(rows["confidence"][i])} for i in range(len(rows))}
    ev = gengap.evaluate(lambda batch: [answers[x] for x in batch], gengap.load(records), ["random"],
                         metrics=["auroc"], test_fraction=0.5, out=tmp_path / "out", progress=False)
    table = ev.slices()
    search = table.attrs["searches"][0]
    note = next(n for n in search["notes"] if n.startswith("A small run"))
    assert f"({search['n_rows']:,} rows" in note and "its auroc is about" in note and search["n_rows"] < 500
    assert search["detectable"]["gap_small"] < search["detectable"]["gap_large"] < 0
    halves = ev.slices(control="split").attrs["searches"][0]
    assert halves["control"] == "split" and halves["test"] == "permutation"
    code, out, err = cli("report", "out", "--find-slices")
    assert code == 0, err
    assert " ".join(note.split()) in " ".join(out.split())  # the same sentence, however the terminal wraps it
    doc = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    jsonschema.validate(doc, results_schema())
    assert note in doc["sections"]["slices"]["searches"][0]["notes"]
    assert note in (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
