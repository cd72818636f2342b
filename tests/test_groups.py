"""Grouper, per-group metrics with the worst group and disparity, and the cross-group transfer matrix."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression

import gengap
from gengap import ConfigError, DataError
from gengap.analysis.group_scores import expand_metadata, group_by, group_metrics
from gengap.retraining import transfer_matrix


def test_group_by_numbers_combinations_in_order_of_appearance():
    frame = pd.DataFrame({"site": ["a", "b", "a", "a", "b"], "year": [2020, 2020, 2021, 2020, 2020]})
    g = group_by(frame, "site,year")
    assert g.codes.tolist() == [0, 1, 2, 0, 1]
    assert g.names == ["a/2020", "b/2020", "a/2021"]
    assert g.sizes.tolist() == [2, 2, 1]
    assert g.indices("b/2020").tolist() == [1, 4]
    with pytest.raises(ConfigError, match="No group 'c/2020'"):
        g.indices("c/2020")
    with pytest.raises(DataError, match=r"empty in 1 row\(s\), first \(0-based\) \[1\]"):
        group_by(pd.DataFrame({"site": ["a", None]}), "site")


def test_group_metrics_scores_worst_and_disparity():
    rng = np.random.default_rng(0)
    groups = np.repeat(["good", "mid", "bad"], 400)
    p = np.repeat([0.9, 0.7, 0.4], 400)
    scores = (rng.random(1200) < p).astype(float)
    rep = group_metrics(scores, groups, n_resamples=2000, seed=0)
    assert rep.worst_group == "bad" and rep.best_group == "good"
    assert rep.table["group"].tolist() == ["bad", "mid", "good"]
    row = rep.table.set_index("group").loc["bad"]
    assert row["score_low"] < row["score"] < row["score_high"]
    assert rep.worst.low <= rep.worst.estimate <= rep.worst.high and abs(rep.worst.estimate - 0.4) < 0.06
    assert (rep.worst.low, rep.worst.high) == (row["score_low"], row["score_high"]) and rep.worst.n == 400
    assert rep.worst.method == "clopper-pearson"
    assert rep.worst_min.estimate == rep.worst.estimate and rep.worst_min.n == 400
    assert rep.disparity.low < 0.5 < rep.disparity.high
    assert rep.to_dict()["worst_group"] == "bad"


def test_empty_and_small_groups_are_left_out_explicitly():
    frame = pd.DataFrame({"site": ["a"] * 10 + ["b"] * 10 + ["c"]})
    g = group_by(frame, "site")
    scored = np.r_[np.arange(10), [20]]  # site b has no scored example here; site c has one
    scores = np.r_[np.ones(9), 0.0, 0.0]
    sub = type(g)(columns=g.columns, codes=g.codes[scored], table=g.table)
    rep = group_metrics(scores, sub, min_size=2, n_resamples=500)
    assert rep.left_out == {"b": "empty: no scored example", "c": "n = 1: too few to tell (fewer than min_size = 2)"}
    assert rep.worst_group == "a" and rep.disparity.estimate == 0.0
    assert rep.table["left_out"].tolist() == [False, True, True]
    small = rep.table.set_index("group").loc["c"]  # scored and flagged, not hidden
    assert small["n"] == 1 and small["score"] == 0.0 and small["small"] and small["score_high"] > 0.9
    asked = group_metrics(scores, sub, min_size=2, include_small=True, n_resamples=500)
    assert asked.worst_group == "c" and asked.worst.n == 1 and asked.worst.high > 0.9
    with pytest.raises(DataError, match="min_size=20.*include_small=True"):
        group_metrics(scores, sub, min_size=20)
    with pytest.raises(DataError, match="11 scores but 3"):
        group_metrics(scores, ["a", "b", "c"])


def test_group_metrics_from_stored_rows():
    ds = gengap.load([{"input": f"x{i}", "target": "y" if i % 4 else "n", "site": "ab"[i % 2]} for i in range(80)])
    ev = gengap.evaluate(lambda xs: ["y"] * len(xs), ds, [gengap.RandomSplit(test_fraction=0.5)], progress=False)
    rows = expand_metadata(ev.rows())
    rep = group_metrics(rows["score"], rows["site"], include_small=True, n_resamples=500)
    assert rep.table["small"].all()  # 20 examples a site: flagged, and compared because we asked
    expected = rows.groupby("site")["score"].mean()
    assert rep.table.set_index("group")["score"].sort_index().round(9).tolist() == expected.round(9).tolist()


def _sites(n_sites: int = 4, n: int = 60) -> gengap.Dataset:
    """Tabular data where site 'site0' has the opposite rule from the rest."""
    rng = np.random.default_rng(0)
    rows = []
    for s in range(n_sites):
        for _ in range(n):
            x = rng.normal(size=2)
            label = "pos" if (x[0] > 0) == (s > 0) else "neg"
            rows.append({"input": {"x0": float(x[0]), "x1": float(x[1])}, "target": label, "site": f"site{s}"})
    return gengap.load(rows)


def test_transfer_matrix_finds_the_odd_group():
    ds = _sites()
    tm = transfer_matrix(LogisticRegression(), ds, "site", n_resamples=500)
    assert tm.scores.shape == (4, 4) and (tm.n.to_numpy() > 0).all()
    diag = np.diag(tm.scores.to_numpy())
    assert diag.min() > 0.8  # in-group held-out is easy everywhere
    assert tm.scores.loc["site0", ["site1", "site2", "site3"]].max() < 0.2  # opposite rule does not transfer
    assert tm.scores.loc["site1", "site2"] > 0.8
    assert tm.transfer_gap()["site0"] > 0.6
    long = tm.to_frame()
    assert len(long) == 16 and (long["score_low"] <= long["score"]).all() and (long["score"] <= long["score_high"]).all()
    assert tm.fit_seconds > 0 and tm.total_seconds >= tm.fit_seconds + tm.predict_seconds
    # diagonal n is the held-out share of the group; off-diagonal n is the whole other group
    assert tm.n.loc["site1", "site1"] == 12 and tm.n.loc["site1", "site2"] == 60


def test_transfer_matrix_bad_input():
    ds = _sites(2)
    with pytest.raises(ConfigError, match="already fitted"):
        transfer_matrix(DummyClassifier().fit([[0]], [0]), ds, "site")
    tiny = gengap.load([{"input": str(i), "target": "t", "site": "a" if i < 9 else "b"} for i in range(10)])
    with pytest.raises(DataError, match="min_group_size=5"):
        transfer_matrix(DummyClassifier(), tiny, "site")
    with pytest.raises(DataError, match="hold one"):
        transfer_matrix(DummyClassifier(), gengap.load([{"input": "x", "target": "t", "site": "a"}] * 10), "site")


def test_report_section_shows_held_out_groups_and_the_transfer_heatmap(tmp_path):
    import json

    import gengap.report.section_groups
    from gengap.report import write_report

    ds = _sites(3, 40)
    ev = gengap.evaluate(LogisticRegression(), ds, ["random", gengap.splits.GroupSplit(group="site"), "transfer:site"],
                         out=tmp_path, progress=False)
    folder = write_report(ev.store_path, ev.run_id, tmp_path)
    md = (folder / "report.md").read_text(encoding="utf-8")
    assert "### Held-out groups" in md and "◀ worst" in md and "### Cross-group transfer" in md
    section = json.loads((folder / "results.json").read_text(encoding="utf-8"))["sections"]["groups"]
    worst = [r for r in section["held_out"] if r["worst"]][0]
    assert worst["held_out"] == "site0"  # the site with the opposite rule
    assert len(section["transfer"][0]["cells"]) == 9
    assert 'id="chart-groups-transfer"' in (folder / "index.html").read_text(encoding="utf-8")


def test_worst_group_n_and_interval_are_its_own_not_the_smallest_groups():
    """The issue's case: a big bad group and a tiny group; worst.n used to be the tiny group's size."""
    rng = np.random.default_rng(1)
    scores = np.r_[(rng.random(500) < 0.5), (rng.random(200) < 0.9), np.ones(7)].astype(float)
    labels = ["big"] * 500 + ["mid"] * 200 + ["tiny"] * 7
    rep = group_metrics(scores, labels, n_resamples=500)
    assert rep.worst_group == "big" and rep.worst.n == 500
    assert "tiny" in rep.left_out and rep.left_out["tiny"].startswith("n = 7: too few to tell")
    ref = scipy.stats.binomtest(int(scores[:500].sum()), 500).proportion_ci(method="exact")
    assert (rep.worst.low, rep.worst.high) == pytest.approx((ref.low, ref.high))
    assert rep.disparity.n == 200
