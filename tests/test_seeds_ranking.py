"""Seed spread, rank agreement across splits, expected best score by budget."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import SGDClassifier
from sklearn.pipeline import make_pipeline

import gengap
from gengap import ConfigError, DataError
from gengap.analysis.ranking import expected_max_score, rank_agreement
from gengap.retraining import seeds


def test_seeds_with_scores_shows_ood_spread():
    def train_fn(seed):
        rng = np.random.default_rng(seed)
        return {"iid": 0.84 + rng.normal(0, 0.003), "hans": rng.uniform(0.0, 0.66)}

    spread = seeds(train_fn, n=12)
    table = spread.per_split()
    assert spread.in_distribution == "iid" and list(table.index) == ["iid", "hans"]
    assert table.loc["hans", "range"] > 10 * table.loc["iid", "range"]
    assert table.loc["iid", "mean_low"] < table.loc["iid", "mean"] < table.loc["iid", "mean_high"]
    assert spread.spread_ratio()["hans"] > 10
    assert set(spread.correlation().index) == {"hans"}


def test_seeds_with_a_real_model_and_eval_sets():
    train = gengap.load([{"input": f"{w} item", "target": w} for w in ["good", "bad"] * 30])
    ood = gengap.load([{"input": f"item {w} again", "target": w} for w in ["good", "bad"] * 10])

    def train_fn(seed):
        model = make_pipeline(CountVectorizer(), SGDClassifier(random_state=seed, max_iter=5, tol=None))
        return model.fit(train.inputs, train.targets)

    spread = seeds(train_fn, n=3, eval_sets={"iid": train, "ood": ood}, progress_bar=False)
    assert spread.scores.shape == (6, 3) and spread.scores["score"].between(0, 1).all()
    with pytest.raises(ConfigError, match="eval_sets"):
        seeds(train_fn, n=2)
    with pytest.raises(ConfigError, match="at least 2"):
        seeds(train_fn, n=1)


def test_rank_agreement_on_a_table():
    table = pd.DataFrame({"random": [0.95, 0.9, 0.85, 0.8, 0.7], "length": [0.1, 0.2, 0.3, 0.4, 0.5],
                          "group": [0.9, 0.85, 0.8, 0.75, 0.6]}, index=list("abcde"))
    agree = rank_agreement(table)
    assert agree.reference == "random"
    vs = agree.versus_reference.set_index("split")
    assert vs.loc["length", "tau"] == pytest.approx(-1.0) and vs.loc["group", "tau"] == pytest.approx(1.0)
    assert not vs.loc["length", "same_best"] and vs.loc["group", "same_best"]
    assert np.isnan(vs.loc["length", "tau_low"])  # a table has no examples to resample
    assert agree.tau.loc["length", "group"] == pytest.approx(-1.0)
    with pytest.raises(DataError, match="at least 3 models"):
        rank_agreement(table.iloc[:2])


def test_rank_agreement_from_rows_has_intervals():
    rng = np.random.default_rng(0)
    rows = []
    skills = {"m1": (0.9, 0.2), "m2": (0.8, 0.5), "m3": (0.7, 0.6), "m4": (0.6, 0.7)}
    for model, (iid, ood) in skills.items():
        for split, p in (("random", iid), ("length", ood)):
            for i in range(300):
                rows.append({"model": model, "split": split, "perturbation": "none", "example_id": f"{split}{i}",
                             "metric": "exact_match", "score": float(rng.random() < p)})
    agree = rank_agreement(pd.DataFrame(rows), n_resamples=300)
    vs = agree.versus_reference.iloc[0]
    assert vs["tau"] == pytest.approx(-1.0) and vs["tau_low"] <= vs["tau"] <= vs["tau_high"] <= -0.3


def test_expected_max_score_is_unbiased_and_has_intervals():
    scores = np.array([0.61, 0.7, 0.64, 0.82, 0.75, 0.68, 0.79, 0.72])
    table = expected_max_score(scores, n_resamples=500)
    assert table["budget"].tolist() == list(range(1, 9))
    assert table["estimate"].iloc[0] == pytest.approx(scores.mean())
    assert table["estimate"].iloc[-1] == pytest.approx(scores.max())
    # unbiased: the mean of the max over every subset of size 3
    assert table["estimate"].iloc[2] == pytest.approx(np.mean([max(c) for c in combinations(scores, 3)]))
    assert (np.diff(table["estimate"]) >= 0).all() and (table["dodge"] <= table["estimate"] + 1e-12).all()
    assert (table["low"] <= table["estimate"] + 1e-12).all() and table["reliable"].tolist() == [True] * 4 + [False] * 4
    with pytest.raises(ConfigError, match="outside 1..8"):
        expected_max_score(scores, budgets=[10])
    with pytest.raises(DataError, match="at least 2 trials"):
        expected_max_score([0.5])
