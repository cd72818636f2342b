"""Seeds of split methods as splits of one stored run, and the spread over seeds read from its rows."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

import gengap
from gengap.analysis.seed_spread import SeedSpread, seed_spread_from_rows, seeded_splits
from gengap.errors import ConfigError
from gengap.report import write_report
from gengap.splits import RandomSplit
from gengap.store import Store


def _data(n: int = 120, *, noise: float = 0.8) -> gengap.Dataset:
    rng = np.random.default_rng(7)
    x = rng.normal(size=(n, 2))
    label = x[:, 0] + noise * rng.normal(size=n) > 0
    return gengap.load([{"input": {"a": float(p), "b": float(q)}, "target": "yes" if y else "no", "size": int(i % 4)}
                        for i, (p, q, y) in enumerate(zip(x[:, 0], x[:, 1], label))])


def test_seeds_of_a_split_are_splits_of_one_run_and_the_spread_equals_training_directly(tmp_path):
    ds = _data()
    seeds = [0, 1, 2, 3, 4]
    ev = gengap.evaluate(LogisticRegression(), ds, seeded_splits(ds, ["random"], seeds, test_fraction=0.25),
                         out=tmp_path, progress=False)
    info = ev.split_info()
    assert list(info) == [f"random@seed={s}" for s in seeds]
    assert [i["seed"] for i in info.values()] == seeds  # each split's seed is in the store
    with Store(ev.store_path, read_only=True) as store:
        assert len(store.runs()) == 1
    X = np.array([[x["a"], x["b"]] for x in ds.inputs])
    y = np.array(ds.targets, dtype=object)
    expected = []
    for s in seeds:
        split = RandomSplit(test_fraction=0.25, seed=s).split_dataset(ds)
        fitted = LogisticRegression().fit(X[split.train], y[split.train])
        expected.append({"seed": s, "split": "random", "score": float((fitted.predict(X[split.test]) == y[split.test]).mean())})
    spread = ev.seed_spread()
    assert spread.model == "LogisticRegression" and spread.metric == "exact_match" and spread.in_distribution == "random"
    pd.testing.assert_frame_equal(spread.scores, pd.DataFrame.from_records(expected))
    by_hand = SeedSpread(scores=pd.DataFrame.from_records(expected), in_distribution="random").per_split()
    pd.testing.assert_frame_equal(spread.per_split(), by_hand)
    assert spread.per_split().loc["random", "range"] > 0  # different seeds, different test parts


def test_report_shows_each_seeded_split_spread_from_the_runs_rows(tmp_path):
    ds = _data(160)
    splits = seeded_splits(ds, ["random", "cluster:n_clusters=2"], [0, 1, 2])
    seeds_of: dict[str, set[int]] = {}
    for split in splits:
        seeds_of.setdefault(split.name.removesuffix(f"@seed={split.seed}"), set()).add(split.seed)
    ev = gengap.evaluate(LogisticRegression(), ds, splits, out=tmp_path, progress=False)
    spread = ev.seed_spread()
    assert "random" in seeds_of and any(name.startswith("cluster") for name in seeds_of)
    assert set(spread.scores["split"]) == {name for name, seeds in seeds_of.items() if len(seeds) > 1}
    folder = write_report(ev.store_path, ev.run_id, tmp_path / "report")
    section = json.loads((folder / "results.json").read_text(encoding="utf-8"))["sections"]["seeds"]
    [model] = section["models"]
    assert model["model"] == "LogisticRegression" and model["in_distribution"] == "random"
    assert pd.DataFrame.from_records(model["scores"]).equals(spread.scores)
    per = {r["split"]: r for r in model["splits"]}
    assert per["random"]["sd"] == pytest.approx(spread.per_split().loc["random", "sd"])
    md = (folder / "report.md").read_text(encoding="utf-8")
    assert "## Seeds" in md and "random (in-distribution)" in md


def test_seeded_splits_with_a_splitter_object_and_a_run_of_two_models(tmp_path):
    ds = _data()
    splits = seeded_splits(ds, [RandomSplit(test_fraction=0.5)], [3, 4])
    assert [(s.name, s.seed, len(s.test)) for s in splits] == [("random@seed=3", 3, 60), ("random@seed=4", 4, 60)]
    ev = gengap.evaluate({"lr": LogisticRegression(), "weak": LogisticRegression(C=1e-4)}, ds, splits, out=tmp_path,
                         progress=False)
    with pytest.raises(ConfigError, match="several models"):
        ev.seed_spread()
    rows = ev.rows()
    weak = seed_spread_from_rows(rows, ev.split_info(), model="weak")
    lr = seed_spread_from_rows(rows, ev.split_info(), model="lr")
    for spread, name in ((weak, "weak"), (lr, "lr")):
        mine = rows[rows["model"] == name]
        assert spread.scores["score"].tolist() == [mine.loc[mine["split"] == f"random@seed={s}", "score"].mean() for s in (3, 4)]


def test_bad_seed_spread_input(tmp_path):
    ds = _data(40)
    with pytest.raises(ConfigError, match="two or more different seeds"):
        seeded_splits(ds, ["random"], [1, 1])
    with pytest.raises(ConfigError, match="takes no seed"):
        seeded_splits(ds, ["length"], [0, 1])
    ev = gengap.evaluate(LogisticRegression(), ds, ["random"], out=tmp_path, progress=False)
    with pytest.raises(ConfigError, match="no split made with several seeds"):
        ev.seed_spread()
    seeded = gengap.evaluate(LogisticRegression(), ds, seeded_splits(ds, ["random"], [0, 1]), out=tmp_path / "s",
                             progress=False)
    with pytest.raises(ConfigError, match="in_distribution='ood' is not one of"):
        seeded.seed_spread(in_distribution="ood")
    with pytest.raises(ConfigError, match="metric='token_f1' is not in this run"):
        seeded.seed_spread(metric="token_f1")
