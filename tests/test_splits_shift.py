"""Group, time, cluster and difficulty splitters: partitions, scikit-learn protocol, CLI options, bad input."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline

import gengap
from gengap import ConfigError, DataError
from gengap.splits import ClusterSplit, DifficultySplit, GroupSplit, TimeSplit, make_splitter
from gengap.splits.difficulty import difficulty_bins, reference_loss


def check_partition(split, n):
    train, test = split.train, split.test
    assert len(np.intersect1d(train, test)) == 0
    assert np.all(np.diff(train) > 0) and np.all(np.diff(test) > 0)
    d = split.diagnostics
    assert d.n_train == len(train) and d.n_test == len(test)
    assert d.n_train + d.n_test + d.n_unused == n
    assert split.diagnostics.held_out
    json.dumps(split.to_dict())  # diagnostics are plain JSON


def _tickets(n: int = 120) -> gengap.Dataset:
    """Support tickets from three sites over six months; billing vs login topics."""
    rng = np.random.default_rng(0)
    topics = {"billing": ["refund", "invoice", "charge", "card"], "login": ["password", "reset", "account", "locked"]}
    rows = []
    for i in range(n):
        topic = "billing" if i % 2 else "login"
        words = rng.choice(topics[topic], size=3)
        rows.append({"input": " ".join(words), "target": topic, "site": "abc"[i % 3], "tier": "xy"[(i // 3) % 2],
                     "date": (pd.Timestamp("2024-04-01") + pd.Timedelta(days=int(i * 1.5))).strftime("%Y-%m-%d"),
                     "hardness": float(i % 10)})
    return gengap.load(rows)


# -- groups -------------------------------------------------------------------------------------

def test_leave_one_group_out_covers_every_group_once():
    ds = _tickets()
    splitter = GroupSplit(group="site")
    splits = splitter.split_datasets(ds)
    assert splitter.get_n_splits(ds) == len(splits) == 3
    sites = ds.column("site").to_numpy()
    for split in splits:
        check_partition(split, len(ds))
        assert len(set(sites[split.test])) == 1 and set(sites[split.test]).isdisjoint(sites[split.train])
    assert sorted(np.concatenate([s.test for s in splits]).tolist()) == list(range(len(ds)))


def test_combinations_of_columns_form_groups_and_holdout_names_one():
    ds = _tickets()
    splits = GroupSplit(group=["site", "tier"]).split_datasets(ds)
    assert len(splits) == 6
    held = GroupSplit(group="site,tier", holdout="b/y").split_dataset(ds)
    frame = ds.frame
    assert set(zip(frame["site"][held.test], frame["tier"][held.test])) == {("b", "y")}
    assert held.name == "group:site+tier=b/y" and held.diagnostics.figures["test_groups"] == ["b/y"]


def test_group_k_fold_balances_and_works_with_sklearn_groups():
    ds = _tickets()
    folds = GroupSplit(group="site", n_folds=2).split_datasets(ds)
    assert len(folds) == 2
    assert sorted(np.concatenate([f.test for f in folds]).tolist()) == list(range(len(ds)))
    # scikit-learn passes groups=; the default column 'group' receives them
    model = make_pipeline(CountVectorizer(), LogisticRegression())
    cv = GroupSplit()
    scores = cross_val_score(model, ds.inputs, ds.targets, groups=ds.column("site").tolist(), cv=cv)
    assert scores.shape == (3,) and cv.get_n_splits(groups=ds.column("site").tolist()) == 3


def test_group_options_from_the_cli_spec():
    splitter = make_splitter("group", options={"group": "site", "holdout": "c"}, seed=0, test_fraction=0.2)
    assert isinstance(splitter, GroupSplit) and splitter.get_n_splits() == 1
    with pytest.raises(ConfigError, match="n_folds"):
        GroupSplit(group="site", n_folds=1)
    with pytest.raises(ConfigError, match="No group 'zz'"):
        GroupSplit(group="site", holdout="zz").split_dataset(_tickets())


def test_group_bad_input():
    one = gengap.load([{"input": str(i), "target": "t", "site": "a"} for i in range(10)])
    with pytest.raises(DataError, match="single group"):
        GroupSplit(group="site").split_dataset(one)
    singletons = gengap.load([{"input": str(i), "target": "t", "site": f"s{i}"} for i in range(10)])
    with pytest.raises(DataError, match="looks like an id"):
        GroupSplit(group="site").split_dataset(singletons)
    mixed = gengap.load([{"input": str(i), "target": "t", "site": "a" if i < 8 else f"lone{i}"} for i in range(10)])
    with pytest.warns(UserWarning, match="lone8"):
        splits = GroupSplit(group="site").split_datasets(mixed)
    assert [s.diagnostics.figures["test_groups"] for s in splits] == [["a"]]
    with pytest.raises(DataError, match="no column 'sitee'"):
        GroupSplit(group="sitee").split_dataset(mixed)


# -- time ---------------------------------------------------------------------------------------

def test_time_cutoff_puts_the_past_in_train():
    ds = _tickets()
    split = TimeSplit(time="date", cutoff="2024-09-01").split_dataset(ds)
    check_partition(split, len(ds))
    dates = pd.to_datetime(ds.column("date"))
    assert dates[split.train].max() < pd.Timestamp("2024-09-01") <= dates[split.test].min()
    assert split.diagnostics.figures["cutoff"].startswith("2024-09-01")


def test_time_without_cutoff_takes_the_latest_share_and_windows_roll():
    ds = _tickets()
    split = TimeSplit(time="date", test_fraction=0.25).split_dataset(ds)
    assert split.diagnostics.n_test == 30
    windows = TimeSplit(time="date", windows=3).split_datasets(ds)
    assert len(windows) == 3 == TimeSplit(time="date", windows=3).get_n_splits()
    for w in windows:
        check_partition(w, len(ds))
        assert w.diagnostics.figures["train_time_range"][1] < w.diagnostics.figures["test_time_range"][0]
    # expanding training window: each later window trains on more of the past
    assert [w.diagnostics.n_train for w in windows] == sorted(w.diagnostics.n_train for w in windows)
    limited = TimeSplit(time="date", windows=3, train_window="30D").split_datasets(ds)
    assert all(lim.diagnostics.n_train <= 21 for lim in limited)


def test_time_numeric_column():
    ds = gengap.load([{"input": str(i), "target": "t", "year": 2000 + i % 10} for i in range(50)])
    split = TimeSplit(time="year", cutoff=2008).split_dataset(ds)
    assert split.diagnostics.n_test == 10


def test_time_unparseable_values_name_rows():
    rows = [{"input": str(i), "target": "t", "date": f"2024-01-{i + 1:02d}"} for i in range(10)]
    rows[3]["date"] = "last tuesday"
    rows[7]["date"] = "2024-13-45"
    with pytest.raises(DataError, match=r"row 3 \('last tuesday'\), row 7 \('2024-13-45'\)"):
        TimeSplit(time="date", cutoff="2024-01-05").split_dataset(gengap.load(rows))
    with pytest.raises(DataError, match="leaves the test part"):
        TimeSplit(time="date", cutoff="2030-01-01").split_dataset(gengap.load(rows[:3]))
    with pytest.raises(ConfigError, match="not a date"):
        TimeSplit(time="date", cutoff="someday").split_dataset(gengap.load(rows[:3]))


# -- clusters -----------------------------------------------------------------------------------

def test_clusters_hold_out_whole_topics_and_describe_them():
    ds = _tickets()
    split = ClusterSplit(n_clusters=2, test_fraction=0.5, seed=0).split_dataset(ds)
    check_partition(split, len(ds))
    # the two topics share no word, so each cluster is one topic
    assert len(set(split.test_part.targets)) == 1 and set(split.test_part.targets).isdisjoint(split.train_part.targets)
    clusters = split.diagnostics.figures["clusters"]
    assert sum(c["size"] for c in clusters) == len(ds)
    held = [c for c in clusters if c["held_out"]][0]
    topic = split.test_part.targets[0]
    vocab = {"billing": {"refund", "invoice", "charge", "card"}, "login": {"password", "reset", "account", "locked"}}[topic]
    assert set(held["top_terms"]) <= vocab and len(held["examples"]) == 3


def test_clusters_from_an_embedding_column_and_reproducible():
    rng = np.random.default_rng(1)
    vectors = np.r_[rng.normal(0, 0.1, (30, 4)), rng.normal(3, 0.1, (30, 4))]
    ds = gengap.load([{"input": f"item {i}", "target": "t", "vec": v.tolist()} for i, v in enumerate(vectors)])
    a = ClusterSplit(n_clusters=2, embedding="vec", holdout=1).split_dataset(ds)
    b = ClusterSplit(n_clusters=2, embedding="vec", holdout=1).split_dataset(ds)
    assert a.test.tolist() == b.test.tolist()
    assert set(a.test.tolist()) in (set(range(30)), set(range(30, 60)))
    with pytest.raises(ConfigError, match="cluster numbers run from 0 to 1"):
        ClusterSplit(n_clusters=2, holdout=5)
    with pytest.raises(DataError, match="distinct"):
        ClusterSplit(n_clusters=3).split_dataset(gengap.load([{"input": "same words", "target": "t"}] * 10))


# -- difficulty ---------------------------------------------------------------------------------

def test_difficulty_column_easy_to_hard_and_back():
    ds = _tickets()
    split = DifficultySplit(difficulty="hardness", test_fraction=0.2).split_dataset(ds)
    check_partition(split, len(ds))
    h = ds.column("hardness").to_numpy()
    assert h[split.train].max() < h[split.test].min()
    assert split.diagnostics.n_test == 24  # hardness 8 and 9: ties stay together
    reverse = DifficultySplit(difficulty="hardness", test_fraction=0.2, direction="hard_to_easy").split_dataset(ds)
    assert h[reverse.test].max() < h[reverse.train].min()
    assert sum(split.diagnostics.figures["difficulty_bins"].values()) == len(ds)


def test_difficulty_proxies_and_reference_loss():
    ds = gengap.load([{"input": "w " * (1 + i % 9), "target": "t" if i % 3 else "u"} for i in range(60)])
    split = DifficultySplit(difficulty="input_length", test_fraction=0.3).split_dataset(ds)
    lengths = np.array([len(x.split()) for x in ds.inputs])
    assert lengths[split.train].max() < lengths[split.test].min()
    clf = make_pipeline(CountVectorizer(token_pattern=r"\S+"), LogisticRegression()).fit(ds.inputs, ds.targets)
    loss = reference_loss(clf, ds)
    assert loss.shape == (60,) and np.all(loss > 0)
    by_loss = DifficultySplit(difficulty=lambda d: reference_loss(clf, d)).split_dataset(ds)
    assert loss[by_loss.test].min() > loss[by_loss.train].max()
    assert difficulty_bins(np.arange(10), 5).tolist() == ["q1", "q1", "q2", "q2", "q3", "q3", "q4", "q4", "q5", "q5"]


def test_difficulty_bad_input():
    same = gengap.load([{"input": str(i), "target": "t", "d": 1.0} for i in range(10)])
    with pytest.raises(DataError, match="same difficulty"):
        DifficultySplit(difficulty="d").split_dataset(same)
    text = gengap.load([{"input": str(i), "target": "t", "d": "hard" if i else "easy"} for i in range(10)])
    with pytest.raises(DataError, match="not numeric"):
        DifficultySplit(difficulty="d").split_dataset(text)
    with pytest.raises(ConfigError, match="store=PATH"):
        DifficultySplit(difficulty="irt")
    with pytest.raises(ConfigError, match="direction"):
        DifficultySplit(direction="sideways")


def test_cli_split_with_new_methods(tmp_path):
    from typer.testing import CliRunner

    from gengap.cli import app

    data = tmp_path / "tickets.jsonl"
    from gengap.io import write_jsonl

    write_jsonl(_tickets().to_records(), data)
    runner = CliRunner()
    for args in (["--method", "group", "--group", "site", "--holdout", "c"],
                 ["--method", "time", "--time", "date", "--cutoff", "2024-09-01"],
                 ["--method", "cluster", "--n-clusters", "2"],
                 ["--method", "difficulty", "--difficulty", "hardness", "--test-fraction", "0.2"]):
        out = tmp_path / args[1]
        result = runner.invoke(app, ["split", str(data), *args, "--out", str(out)])
        assert result.exit_code == 0, result.output
        info = json.loads((out / "split.json").read_text())
        assert info["method"] == args[1] and info["n_test"] > 0
