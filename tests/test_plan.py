"""gengap plan and analysis.power: statsmodels' power functions as the oracle, the CLI before and after a
pilot run, and the bad inputs."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import scipy.stats
from statsmodels.stats.power import NormalIndPower, TTestPower
from statsmodels.stats.proportion import proportion_effectsize

from gengap._errors import ConfigError
from gengap.analysis.power import detectable_gap, n_for_gap, n_needed, paired_power, plan


@pytest.mark.parametrize("score,gap", [(0.70, 0.05), (0.5, 0.1), (0.9, 0.05), (0.3, 0.02)])
def test_independent_n_without_its_continuity_correction_is_statsmodels(score, gap):
    """Fleiss's n before the continuity correction agrees with statsmodels' NormalIndPower (Cohen's h)
    within 1%; the correction (which tracks Fisher's exact test) only adds examples."""
    h = proportion_effectsize(score, score - gap)
    oracle = NormalIndPower().solve_power(effect_size=h, alpha=0.05, power=0.8, ratio=1)
    za, zb = scipy.stats.norm.ppf(0.975), scipy.stats.norm.ppf(0.8)
    p2, pbar = score - gap, score - gap / 2
    n0 = (za * math.sqrt(2 * pbar * (1 - pbar)) + zb * math.sqrt(score * (1 - score) + p2 * (1 - p2))) ** 2 / gap**2
    assert n0 == pytest.approx(oracle, rel=0.01)
    n = n_for_gap(score, gap)
    assert n0 < n < n0 + 2 / gap + 5  # n/4 (1 + sqrt(1 + 4 / (n d)))^2 adds about 2/d


def test_paired_n_is_the_smallest_with_exact_power_and_near_connor():
    n = n_for_gap(0.7, 0.05, paired=True, discordant=0.2)
    assert paired_power(n, 0.2, 0.05) >= 0.8 > paired_power(n - 1, 0.2, 0.05) - 0.01
    connor = (1.959964 * math.sqrt(0.2) + 0.841621 * math.sqrt(0.2 - 0.05**2)) ** 2 / 0.05**2
    assert connor < n < 1.1 * connor


def test_paired_power_agrees_with_a_simulation_of_exact_mcnemar():
    from gengap.analysis.intervals import paired_test

    rng = np.random.default_rng(0)
    n, hits = 300, 0
    for _ in range(400):
        u = rng.random(n)
        a = (u < 0.125).astype(float)
        b = ((u >= 0.125) & (u < 0.2)).astype(float)
        hits += paired_test(a, b).p_value <= 0.05
    assert hits / 400 == pytest.approx(paired_power(n, 0.2, 0.05), abs=0.06)


def test_clustered_n_grows_with_the_design_effect_and_matches_a_t_test_of_cluster_means():
    n1 = n_for_gap(0.7, 0.1)
    nc = n_for_gap(0.7, 0.1, icc=0.1, cluster_size=30)
    assert nc % 30 == 0 and nc > 3.5 * n1  # design effect 3.9
    # equal clusters: the test is a t-test of cluster means, whose power statsmodels computes
    var = (0.7 * 0.3 + 0.6 * 0.4) / 2 * (1 + 29 * 0.1) / 30
    g = nc // 30
    from statsmodels.stats.power import TTestIndPower

    got = TTestIndPower().power(effect_size=0.1 / math.sqrt(var), nobs1=g, alpha=0.05)
    assert got == pytest.approx(0.8, abs=0.04)
    assert TTestPower  # imported for the paired case in the benchmark


def test_detectable_gap_and_n_needed():
    assert detectable_gap(-0.1, 0.1) == pytest.approx((1.959964 + 0.841621) * 0.1 / 1.959964, rel=1e-5)
    assert n_needed(100, 0.1, 0.05) == 400


@pytest.mark.parametrize("kwargs,match", [
    (dict(score=0.03, gap=0.05), "largest gap this score allows is 3 points"),
    (dict(score=0.7, gap=0.05, paired=True), "discordant"),
    (dict(score=0.7, gap=0.3, paired=True, discordant=0.2), r"discordant=0.2 must be in \[gap, 1\]"),
    (dict(score=0.7, gap=0.0), "gap=0"),
    (dict(score=0.7, gap=0.05, icc=1.0), "icc"),
])
def test_impossible_plans_are_clear_errors(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        n_for_gap(**kwargs)


def test_cli_plan_prints_n_per_split_and_json(cli):
    code, out, err = cli("plan", "--score", "0.70", "--gap", "5")
    assert code == 0, err
    assert f"{n_for_gap(0.7, 0.05):,} examples per split" in out
    code, out, err = cli("plan", "--score", "70", "--gap", "5", "--paired", "--discordant", "0.2", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["n_per_split"] == n_for_gap(0.7, 0.05, paired=True, discordant=0.2) and doc["test"] == "mcnemar-exact"
    code, out, err = cli("plan", "--score", "0.7", "--gap", "5", "--icc", "0.1", "--cluster-size", "30", "--json")
    assert code == 0 and json.loads(out)["n_clusters_per_split"] == json.loads(out)["n_per_split"] // 30
    assert plan(0.7, 0.05, icc=0.1, cluster_size=30).design_effect == pytest.approx(3.9)


def test_cli_plan_bad_inputs(cli):
    code, _, err = cli("plan", "--score", "0.03", "--gap", "5")
    assert code == 1 and "largest gap this score allows" in err and "Traceback" not in err
    code, _, err = cli("plan", "--gap", "5")
    assert code == 1 and "--score" in err


def test_cli_plan_from_a_pilot_run(tmp_path, cli):
    import gengap

    rng = np.random.default_rng(0)
    records = [{"input": "w " * (1 + i % 20) + str(i), "target": "y" if rng.random() < 0.7 else "n", "passage": f"p{i // 10}"}
               for i in range(600)]
    ds = gengap.load(records)
    gengap.evaluate(lambda xs: ["y"] * len(xs), ds, ["random", "length:by=input"], out=tmp_path / "rep", progress=False)
    code, out, err = cli("plan", "--pilot", str(tmp_path / "rep"), "--gap", "3", "--json")
    assert code == 0, err
    doc = json.loads(out)
    row = doc["comparisons"][0]
    assert row["detectable"] > 0.03 and row["n_needed"] > row["n"]
    assert row["n_needed"] == n_needed(row["n"], row["detectable"], 0.03)
    code, out, err = cli("plan", "--pilot", str(tmp_path / "rep"), "--gap", "3", "--cluster", "passage")
    assert code == 0, err
    assert "clusters" in out and "could detect" in out


def test_pilot_plan_compares_models_on_the_same_examples():
    import pandas as pd

    from gengap.analysis.pilot import pilot_plan

    rng = np.random.default_rng(5)
    n = 400
    a = (rng.random(n) < 0.7).astype(float)
    b = np.where(rng.random(n) < 0.2, 1 - a, a)  # 20% discordant
    rows = pd.concat([pd.DataFrame({"model": m, "metric": "em", "perturbation": "none", "split": "random",
                                    "example_id": [f"e{i}" for i in range(n)], "score": s}) for m, s in (("a", a), ("b", b))])
    t = pilot_plan(rows, {"random": {"method": "random"}}, gap=0.03)
    row = t[t["comparison"] == "models"].iloc[0]
    assert (row["model"], row["reference"], row["paired"]) == ("a", "b", True)
    # a paired difference with 20% discordance: SE about sqrt(0.2 / n)
    assert row["detectable"] == pytest.approx(2.8 * math.sqrt(0.2 / n), rel=0.25)
    assert row["n_needed"] == n_needed(n, row["detectable"], 0.03)
