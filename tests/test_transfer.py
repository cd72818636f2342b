"""The cross-group transfer matrix as an analysis of a run's stored rows (the 'transfer' split method).

Expected figures are computed here independently: scikit-learn trained directly on each group,
Clopper-Pearson intervals from scipy, the bootstrap from the documented seed stream.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats
from sklearn.linear_model import LogisticRegression

import gengap
from gengap.analysis.intervals import mean_ci
from gengap.analysis.transfer import TRANSFER_FILE, TransferMatrix, transfer_matrix_from_rows
from gengap.errors import ConfigError, DataError, ModelError
from gengap.metrics import score
from gengap.report import cache_lines, write_report
from gengap.retraining import transfer_matrix
from gengap.splits import TransferSplit
from gengap.store import Store


def _sites(n_sites: int = 4, n: int = 40, *, flip: int = 0, suffix: str = "") -> gengap.Dataset:
    """Two numeric features; site ``flip`` has the opposite rule. Ids sort differently from the data's order."""
    rng = np.random.default_rng(0)
    rows = []
    for s in range(n_sites):
        for i in range(n):
            x = rng.normal(size=2)
            label = ("pos" if (x[0] > 0) == (s != flip) else "neg") + suffix
            rows.append({"id": f"e{s}-{i}", "input": {"x0": float(x[0]), "x1": float(x[1])}, "target": label,
                         "site": f"site{s}"})
    return gengap.load(rows)


def _expected(ds: gengap.Dataset, metric: str, seed: int, fraction: float = 0.2, n_resamples: int = 300):
    """The matrix computed without gengap's runner: hold out a share per group, train on the rest of each group,
    score each group; intervals as mean_ci gives them with the generator continued after the held-out draws."""
    sites = ds.column("site").to_numpy()
    names = list(dict.fromkeys(sites))
    rng = np.random.default_rng(seed)
    held = np.zeros(len(ds), dtype=bool)
    for g in names:
        members = np.flatnonzero(sites == g)
        held[rng.choice(members, max(1, int(round(fraction * members.size))), replace=False)] = True
    X = np.array([[x["x0"], x["x1"]] for x in ds.inputs])
    y = np.array(ds.targets, dtype=object)
    k = len(names)
    est, low, high, n = (np.zeros((k, k)) for _ in range(4))
    for i, a in enumerate(names):
        train = (sites == a) & ~held
        fitted = LogisticRegression().fit(X[train], y[train])
        for j, b in enumerate(names):
            cell = (sites == b) & held if i == j else sites == b
            values = score(metric, fitted.predict(X[cell]).tolist(), y[cell].tolist())
            ci = mean_ci(values, n_resamples=n_resamples, seed=rng)
            est[i, j], low[i, j], high[i, j], n[i, j] = values.mean(), ci.low, ci.high, cell.sum()
    return names, est, low, high, n


def test_transfer_matrix_equals_scikit_learn_trained_directly_on_each_group():
    ds = _sites()
    names, est, low, high, n = _expected(ds, "exact_match", seed=3)
    tm = transfer_matrix(LogisticRegression(), ds, "site", n_resamples=300, seed=3)
    assert list(tm.scores.index) == list(tm.scores.columns) == names
    assert np.allclose(tm.scores.to_numpy(), est, atol=1e-12) and (tm.n.to_numpy() == n).all()
    # 0/1 scores: exact Clopper-Pearson intervals
    k = np.rint(est * n)
    with np.errstate(invalid="ignore"):
        cp_low = np.where(k > 0, stats.beta.ppf(0.025, k, n - k + 1), 0.0)
        cp_high = np.where(k < n, stats.beta.ppf(0.975, k + 1, n - k), 1.0)
    assert np.allclose(tm.low.to_numpy(), cp_low, atol=1e-9) and np.allclose(tm.high.to_numpy(), cp_high, atol=1e-9)
    assert np.allclose(tm.low.to_numpy(), low) and np.allclose(tm.high.to_numpy(), high)
    assert tm.scores.loc["site0", "site1"] < 0.2 < 0.8 < tm.scores.loc["site1", "site2"]  # the odd site does not transfer
    assert tm.fit_seconds > 0 and tm.total_seconds >= tm.fit_seconds + tm.predict_seconds


def test_transfer_matrix_bootstrap_continues_the_seed_stream_for_graded_scores():
    ds = _sites(3, 30, suffix=" x")  # token_f1 of 'pos x' against 'neg x' is 0.5: graded scores, bootstrap intervals
    names, est, low, high, n = _expected(ds, "token_f1", seed=5)
    tm = transfer_matrix(LogisticRegression(), ds, "site", metric="token_f1", n_resamples=300, seed=5)
    assert np.allclose(tm.scores.to_numpy(), est) and (tm.n.to_numpy() == n).all()
    assert np.array_equal(tm.low.to_numpy(), low) and np.array_equal(tm.high.to_numpy(), high)


def test_the_matrix_is_read_from_the_runs_rows_with_one_fit_per_group(tmp_path):
    ds = _sites(3, 30)
    fits = []

    class Counted(LogisticRegression):
        def fit(self, X, y):
            fits.append(len(X))
            return super().fit(X, y)

    ev = gengap.evaluate(Counted(), ds, ["transfer:site"], out=tmp_path, progress=False, seed=3)
    assert len(fits) == 3  # one model per training group
    info = ev.split_info()
    assert list(info) == ["transfer:site=site0", "transfer:site=site1", "transfer:site=site2"]
    assert all(i["method"] == "transfer" and i["seed"] == 3 for i in info.values())
    from_run = ev.transfer(n_resamples=300)
    direct = transfer_matrix(LogisticRegression(), ds, "site", n_resamples=300, seed=3)
    assert from_run.scores.equals(direct.scores) and from_run.n.equals(direct.n) and from_run.low.equals(direct.low)
    assert from_run.run_id == ev.run_id and from_run.model == "Counted"
    # the same from the rows as a user would pass them (no positions: 0/1 scores need none)
    again = transfer_matrix_from_rows(ev.rows(), info, n_resamples=300)
    assert again.scores.equals(from_run.scores) and again.high.equals(from_run.high)


def test_resuming_a_failed_transfer_run_gives_the_same_matrix(tmp_path):
    ds = _sites(3, 30)
    state = {"fail": True, "predicted": 0}

    class Flaky(LogisticRegression):
        def predict(self, X):
            state["predicted"] += len(X)
            if state["fail"] and state["predicted"] > 60:
                raise RuntimeError("the machine went away")
            return super().predict(X)

    splitter = TransferSplit(group="site", seed=1)
    with pytest.raises(ModelError, match="the machine went away"):
        gengap.evaluate(Flaky(), ds, [splitter], out=tmp_path / "run", shard_size=10, batch_size=10, progress=False)
    with Store(tmp_path / "run" / "gengap.duckdb", read_only=True) as store:
        assert store.runs()["status"].tolist() == ["failed"]
        stored_before = len(store.sql("SELECT * FROM predictions"))
    assert 0 < stored_before < 3 * 66
    state.update(fail=False, predicted=0)
    resumed = gengap.evaluate(Flaky(), ds, [splitter], out=tmp_path / "run", shard_size=10, batch_size=10, progress=False)
    assert state["predicted"] == 3 * 66 - stored_before  # finished shards were not asked again
    with Store(resumed.store_path, read_only=True) as store:
        assert store.runs()["status"].tolist() == ["done"]
    fresh = gengap.evaluate(LogisticRegression(), ds, [splitter], out=tmp_path / "fresh", progress=False)
    a, b = resumed.transfer(), fresh.transfer()
    assert a.scores.equals(b.scores) and a.n.equals(b.n) and a.low.equals(b.low) and a.high.equals(b.high)


def test_a_second_transfer_run_takes_every_output_from_the_cache_and_says_so(tmp_path):
    ds = _sites(3, 30)
    first = gengap.evaluate(LogisticRegression(), ds, ["transfer:site"], out=tmp_path, progress=False)
    second = gengap.evaluate(LogisticRegression(), ds, ["transfer:site"], out=tmp_path, progress=False)
    assert first.model_calls == 3 * 66 and second.model_calls == 0 and second.run_id != first.run_id
    use = second.cache_use()
    assert use["n_cached"].sum() == 3 * 66 and use["n_computed"].sum() == 0
    lines = cache_lines(use)
    assert len(lines) == 3 and all("66 of 66 outputs from the cache" in line for line in lines)
    assert second.transfer().scores.equals(first.transfer().scores)


def test_transfer_matrix_with_out_keeps_the_run_in_that_folder(tmp_path):
    ds = _sites(3, 30)
    tm = transfer_matrix(LogisticRegression(), ds, "site", out=tmp_path, name="transfer")
    with Store(tmp_path / "gengap.duckdb", read_only=True) as store:
        runs = store.runs()
    assert runs["name"].tolist() == ["transfer"] and tm.run_id == runs["run_id"].iloc[0]
    assert not (tmp_path / TRANSFER_FILE).exists()  # no side file: the rows are the record
    again = transfer_matrix(LogisticRegression(), ds, "site", out=tmp_path, name="transfer")
    with Store(tmp_path / "gengap.duckdb", read_only=True) as store:
        use = store.cache_use(again.run_id)
    assert again.run_id != tm.run_id and use["n_cached"].sum() == 3 * 66 and use["n_computed"].sum() == 0
    assert again.scores.equals(tm.scores) and again.high.equals(tm.high)


def test_report_of_a_two_run_folder_draws_each_runs_own_matrix_and_ignores_an_old_transfer_json(tmp_path):
    normal, flipped = _sites(3, 30, flip=0), _sites(3, 30, flip=2)  # a different odd site in each run
    run_a = gengap.evaluate(LogisticRegression(), normal, ["random", "transfer:site"], out=tmp_path, name="a",
                            progress=False)
    run_b = gengap.evaluate(LogisticRegression(), flipped, ["random", "transfer:site"], out=tmp_path, name="b",
                            progress=False)
    stale = transfer_matrix(LogisticRegression(), _sites(4, 30), "site")
    stale.save(tmp_path)  # what an older gengap left beside the store: four sites, from other data
    for ev, odd in ((run_a, "site0"), (run_b, "site2")):
        folder = write_report(ev.store_path, ev.run_id, tmp_path / f"report-{ev.run_id}")
        section = json.loads((folder / "results.json").read_text(encoding="utf-8"))["sections"]["groups"]
        [matrix] = section["transfer"]
        cells = {(c["train_group"], c["test_group"]): c for c in matrix["cells"]}
        own = ev.transfer(n_resamples=10_000).to_frame()
        assert len(cells) == 9 and matrix["model"] == "LogisticRegression" and matrix["group_columns"] == ["site"]
        assert all(cells[(r.train_group, r.test_group)]["score"] == pytest.approx(r.score) for r in own.itertuples())
        worst_row = min(("site0", "site1", "site2"), key=lambda g: np.mean([cells[(g, t)]["score"] for t in
                                                                             ("site0", "site1", "site2") if t != g]))
        assert worst_row == odd
        md = (folder / "report.md").read_text(encoding="utf-8")
        html = (folder / "index.html").read_text(encoding="utf-8")
        assert "### Cross-group transfer of LogisticRegression by site" in md and 'id="chart-groups-transfer"' in html
        assert md.count("transfer.json beside the results store was not read") == 1
        assert "site3" not in md  # nothing of the old file's matrix
    assert not run_a.transfer().scores.equals(run_b.transfer().scores)


def test_an_old_transfer_json_alone_gives_a_one_line_note(tmp_path):
    ev = gengap.evaluate(lambda xs: ["pos"] * len(xs), _sites(2, 10), ["random"], out=tmp_path, progress=False)
    (tmp_path / TRANSFER_FILE).write_text('{"metric": "exact_match", "cells": []}', encoding="utf-8")
    folder = write_report(ev.store_path, ev.run_id, tmp_path / "report")
    md = (folder / "report.md").read_text(encoding="utf-8")
    assert "## Groups" in md and "Cross-group transfer" not in md
    assert "transfer.json beside the results store was not read" in md


def test_a_matrix_made_in_a_temporary_folder_names_no_run():
    tm = transfer_matrix(LogisticRegression(), _sites(3, 20), "site", n_resamples=200)
    assert tm.run_id is None  # its temporary run is gone with its folder


def test_saved_matrix_round_trips_through_json(tmp_path):
    tm = transfer_matrix(LogisticRegression(), _sites(3, 20), "site", n_resamples=200)
    again = TransferMatrix.load(tm.save(tmp_path / "m.json"))
    assert again.scores.round(12).equals(tm.scores.round(12)) and again.n.equals(tm.n) and again.model == tm.model


def test_cli_eval_with_the_transfer_split(tmp_path, cli):
    rows = []
    for s, words in enumerate([("good", "bad"), ("fine", "awful"), ("great", "poor")]):
        for i in range(12):
            rows.append({"text": f"{words[i % 2]} item {i}", "label": "yes" if i % 2 == 0 else "no", "site": f"s{s}"})
    (tmp_path / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (tmp_path / "textmodel.py").write_text(
        "from sklearn.feature_extraction.text import CountVectorizer\n"
        "from sklearn.linear_model import LogisticRegression\n"
        "from sklearn.pipeline import make_pipeline\n"
        "learner = make_pipeline(CountVectorizer(), LogisticRegression())\n", encoding="utf-8")
    code, out, err = cli("eval", "--data", "data.jsonl", "--input", "text", "--target", "label", "--model",
                         "textmodel:learner", "--split", "transfer:site", "--out", "out", "--no-progress")
    assert code == 0, err
    with Store(tmp_path / "out" / "gengap.duckdb", read_only=True) as store:
        run = store.latest_run()
        info = store.split_info(run)
        rows_stored = store.rows(run)
    assert [i["train_group"] for i in info.values()] == ["s0", "s1", "s2"]
    tm = transfer_matrix_from_rows(rows_stored, info)
    assert tm.n.to_numpy().tolist() == [[2, 12, 12], [12, 2, 12], [12, 12, 2]]
    assert (tm.scores.to_numpy().diagonal() == 1.0).all()  # in-group words are learned
    md = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "### Cross-group transfer of" in md


def test_bad_transfer_input():
    ds = _sites(2, 20)
    from sklearn.dummy import DummyClassifier

    with pytest.raises(ConfigError, match="already fitted"):
        transfer_matrix(DummyClassifier().fit([[0]], [0]), ds, "site")
    with pytest.raises(ConfigError, match="in_group_test_fraction=1.5"):
        transfer_matrix(DummyClassifier(), ds, "site", in_group_test_fraction=1.5)
    tiny = gengap.load([{"input": str(i), "target": "t", "site": "a" if i < 9 else "b"} for i in range(10)])
    with pytest.raises(DataError, match="min_group_size=5"):
        transfer_matrix(DummyClassifier(), tiny, "site")
    with pytest.raises(DataError, match="hold one"):
        transfer_matrix(DummyClassifier(), gengap.load([{"input": "x", "target": "t", "site": "a"}] * 10), "site")
    with pytest.raises(ConfigError, match="test_fraction=0"):
        TransferSplit(group="site", test_fraction=0)
    with pytest.raises(ConfigError, match="min_group_size=1"):
        TransferSplit(group="site", min_group_size=1)
    with pytest.raises(ConfigError, match="pass the data"):
        TransferSplit().get_n_splits()
    assert TransferSplit().get_n_splits(groups=["a", "b", "c"] * 5) == 3


def test_reading_a_matrix_from_a_run_without_transfer_splits_or_with_several_models_says_what_to_do(tmp_path):
    ds = _sites(2, 20)
    plain = gengap.evaluate(LogisticRegression(), ds, ["random"], out=tmp_path / "a", progress=False)
    with pytest.raises(ConfigError, match="split method 'transfer'"):
        plain.transfer()
    both = gengap.evaluate({"lr": LogisticRegression(), "lr2": LogisticRegression(C=0.01)}, ds, ["transfer:site"],
                           out=tmp_path / "b", progress=False)
    with pytest.raises(ConfigError, match="several models .*model="):
        both.transfer()
    with pytest.raises(ConfigError, match="model='nope' is not"):
        both.transfer(model="nope")
    assert both.transfer(model="lr2").model == "lr2"


def test_a_dict_input_is_stored_as_the_same_json_in_every_split_that_tests_it(tmp_path):
    ds = _sites(3, 20)
    ev = gengap.evaluate(LogisticRegression(), ds, ["random", "transfer:site"], out=tmp_path, progress=False)
    with Store(ev.store_path, read_only=True) as store:
        stored = store.sql("SELECT split, example_id, input FROM examples")
    truth = dict(zip(ds.ids, (json.dumps(x, ensure_ascii=False) for x in ds.inputs)))
    assert len(stored) == 12 + 3 * 44 and stored["split"].nunique() == 4
    assert (stored["input"] == stored["example_id"].map(truth)).all()
