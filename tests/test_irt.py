"""Item response theory: recovery of generated parameters, missing responses, the store path, bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

import gengap
from gengap import ConfigError, DataError
from gengap.analysis.irt import fit_irt, irt_from_store, response_matrix
from gengap.splits import DifficultySplit


def _simulate(n_models=80, n_items=1500, two=False, seed=0):
    rng = np.random.default_rng(seed)
    theta, b = rng.normal(size=n_models), rng.normal(size=n_items)
    a = np.exp(rng.normal(0, 0.4, size=n_items)) if two else np.ones(n_items)
    p = 1 / (1 + np.exp(-a * (theta[:, None] - b[None, :])))
    return rng.random(p.shape) < p, theta, b, a


@pytest.mark.parametrize("model", ["1pl", "2pl"])
def test_recovers_generated_difficulty_and_ability(model):
    y, theta, b, a = _simulate(two=model == "2pl")
    fit = fit_irt(y, model=model)
    assert fit.converged
    assert spearmanr(fit.difficulty, b).statistic > 0.9
    assert spearmanr(fit.ability, theta).statistic > 0.95
    if model == "2pl":
        assert spearmanr(fit.discrimination, a).statistic > 0.4
    else:
        assert np.allclose(fit.discrimination, 1.0)
    assert abs(fit.ability.mean()) < 1e-6  # the location is fixed at mean ability 0


def test_missing_responses_and_labels_are_kept():
    y, theta, b, _ = _simulate(n_models=40, n_items=600, seed=3)
    frame = pd.DataFrame(y.astype(float), index=[f"m{i}" for i in range(40)], columns=[f"q{j}" for j in range(600)])
    holes = np.random.default_rng(0).random(frame.shape) < 0.3
    fit = fit_irt(frame.mask(holes))
    assert list(fit.difficulty.index[:2]) == ["q0", "q1"] and fit.ability.index[0] == "m0"
    assert spearmanr(fit.difficulty, b).statistic > 0.8
    proba = fit.predict_proba()
    assert proba.shape == (40, 600) and ((proba > 0) & (proba < 1)).all().all()


def test_perfect_items_stay_finite_and_bad_input():
    y = np.array([[1, 1, 0], [1, 0, 0], [1, 1, 0]])
    fit = fit_irt(y)
    assert np.isfinite(fit.difficulty).all() and fit.difficulty.iloc[0] < fit.difficulty.iloc[2]
    with pytest.raises(DataError, match="must be 0 or 1"):
        fit_irt([[1, 0.5], [0, 1]])
    with pytest.raises(DataError, match="no response at all"):
        fit_irt([[1, np.nan], [0, np.nan]])
    with pytest.raises(DataError, match="at least 2 models and 2 items"):
        fit_irt([[1, 0, 1]])
    with pytest.raises(ConfigError, match="'1pl' or '2pl'"):
        fit_irt(y, model="3pl")


def test_from_the_results_store_and_into_a_difficulty_split(tmp_path):
    rng = np.random.default_rng(0)
    n = 120
    hardness = np.linspace(-2, 2, n)
    ds = gengap.load([{"input": f"q{i}", "target": "ok"} for i in range(n)])

    def respondent(skill, seed):
        r = np.random.default_rng(seed)
        right = r.random(n) < 1 / (1 + np.exp(-(skill - hardness)))
        answers = dict(zip(ds.inputs, np.where(right, "ok", "no")))
        return lambda xs: [answers[x] for x in xs]

    models = {f"m{k}": respondent(s, k) for k, s in enumerate(rng.normal(0, 1.5, size=12))}
    everything = gengap.RandomSplit(test_fraction=n - 1, seed=0)
    ev = gengap.evaluate(models, ds, [everything], out=tmp_path, progress=False)
    matrix = response_matrix(ev.rows(), metric="exact_match")
    assert matrix.shape == (12, n - 1)
    fit = irt_from_store(tmp_path / "gengap.duckdb")
    ids = fit.difficulty.index.astype(int)
    assert spearmanr(fit.difficulty, hardness[ids]).statistic > 0.7
    assert irt_from_store(ev).difficulty.equals(fit.difficulty)
    # the fitted difficulties drive an easy-to-hard split of the evaluated items
    sub = ds.take(np.sort(ids))
    split = DifficultySplit(difficulty="irt", store=str(tmp_path / "gengap.duckdb"), test_fraction=0.25).split_dataset(sub)
    assert fit.difficulty[sub.ids].to_numpy()[split.test].min() >= fit.difficulty[sub.ids].to_numpy()[split.train].max()
    with pytest.raises(DataError, match="no difficulty for 1 of"):
        DifficultySplit(difficulty="irt", store=str(tmp_path / "gengap.duckdb")).split_dataset(ds)


def test_one_model_in_the_store_is_an_error(tmp_path):
    ds = gengap.load([{"input": f"q{i}", "target": "ok"} for i in range(20)])
    gengap.evaluate(lambda xs: ["ok"] * len(xs), ds, ["random"], out=tmp_path, progress=False)
    with pytest.raises(DataError, match="at least two models"):
        irt_from_store(tmp_path / "gengap.duckdb")
