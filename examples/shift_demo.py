"""Shift and difficulty, end to end, on data with a shift we planted ourselves.

A tabular task: predict whether a patient's marker ``x1`` lies above a curved threshold of their
age score ``x0`` (``x1 > x0**2 / 2 - 1``). Six sites see different ages: five sit near x0 = 0,
where the curve is flat and a linear model does well; site ``F`` sees x0 around 2.5, where the
curve is steep. Age also drifts upward over the months of collection. A scikit-learn logistic
regression should therefore:

1. fail on site F when that site is held out (leave-one-group-out finds it);
2. lose accuracy after a time cutoff;
3. and the shift tests should flag the site-F split but not an i.i.d. split (we count false
   alarms over many seeds of i.i.d. splits: about 5% at the 5% level);
4. finally, IRT recovers item difficulties we generate for a bank of 60 simulated models.

    python examples/shift_demo.py           # 2-3 minutes on 2 shared cores
    python examples/shift_demo.py --quick   # 40 seeds for the false-alarm rate (under a minute)
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from scipy.stats import spearmanr
from sklearn.linear_model import LogisticRegression

import gengap
from gengap.analysis.group_scores import expand_metadata, group_metrics
from gengap.analysis.irt import fit_irt
from gengap.analysis.shift_tests import classifier_test, detect_shift, mmd_test
from gengap.retraining import transfer_matrix
from gengap.splits import GroupSplit, RandomSplit, TimeSplit

SITES = {"A": -0.8, "B": -0.4, "C": 0.0, "D": 0.4, "E": 0.8, "F": 2.5}


def make_patients(n_per_site: int = 200, seed: int = 0) -> gengap.Dataset:
    """Patients of six sites over twelve months; site F and later months are older (larger x0)."""
    rng = np.random.default_rng(seed)
    rows = []
    for site, centre in SITES.items():
        months = rng.integers(0, 12, size=n_per_site)
        x0 = rng.normal(centre + 0.08 * months, 0.5)
        x1 = rng.normal(x0**2 / 2 - 1, 1.0)
        x2 = rng.normal(0, 1, size=n_per_site)  # noise feature
        label = x1 > x0**2 / 2 - 1 + rng.normal(0, 0.3, size=n_per_site)
        for i in range(n_per_site):
            rows.append({
                "input": {"x0": float(x0[i]), "x1": float(x1[i]), "x2": float(x2[i])},
                "target": "high" if label[i] else "low",
                "site": site,
                "date": (pd.Timestamp("2024-01-01") + pd.DateOffset(months=int(months[i]))).strftime("%Y-%m-%d"),
            })
    return gengap.load(rows, name="patients")


def section(title: str) -> None:
    print(f"\n== {title} " + "=" * max(0, 70 - len(title)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="40 seeds for the false-alarm rate instead of 200")
    parser.add_argument("--out", default=None, help="folder for the results store and report")
    args = parser.parse_args()
    started = time.perf_counter()
    ds = make_patients()
    print(ds)

    section("1. Leave one site out (logistic regression)")
    splits = [RandomSplit(test_fraction=0.2, seed=0), GroupSplit(group="site"),
              TimeSplit(time="date", cutoff="2024-10-01")]
    ev = gengap.evaluate(LogisticRegression(), ds, splits, out=args.out, progress=False)
    summary = ev.summary()[["split", "n", "score", "score_low", "score_high", "gap", "gap_low", "gap_high"]]
    print(summary.round(3).to_string(index=False))
    held = summary[summary["split"].str.startswith("group:")]
    worst = held.loc[held["score"].idxmin()]
    print(f"-> the held-out site the model fails on: {worst['split']} "
          f"(accuracy {worst['score']:.3f} [{worst['score_low']:.3f}, {worst['score_high']:.3f}])")

    section("2. Per-site accuracy on the i.i.d. test part: worst group and disparity")
    rows = expand_metadata(ev.rows())
    iid_rows = rows[rows["split"] == "random"]
    rep = group_metrics(iid_rows["score"], iid_rows["site"], seed=0)
    print(rep.table.round(3).to_string(index=False))
    print(f"worst site {rep.worst_group}: {rep.worst}; best-worst disparity {rep.disparity}")

    section("3. Cross-site transfer matrix (rows: trained on, columns: tested on)")
    tm = transfer_matrix(LogisticRegression(), ds, "site", n_resamples=1000)
    print(tm.scores.round(2).to_string())
    print(f"in-group minus transfer, per training site: {tm.transfer_gap().round(2).to_dict()}")

    section("4. Is there a shift? Site F held out, after the time cutoff, and an i.i.d. split")
    site_f = GroupSplit(group="site", holdout="F").split_dataset(ds)
    later = TimeSplit(time="date", cutoff="2024-10-01").split_dataset(ds)
    iid = RandomSplit(test_fraction=0.2, seed=0).split_dataset(ds)
    for name, split in (("site F held out", site_f), ("time cutoff 2024-10-01", later), ("i.i.d.", iid)):
        table = detect_shift(split, n_permutations=999)
        print(f"{name}:")
        print(table[["on", "test", "estimate", "low", "high", "p_value", "shift"]].round(4).to_string(index=False))

    section("5. False alarms of the shift tests on i.i.d. splits (inputs, level 0.05)")
    n_seeds = 40 if args.quick else 200
    alarms = {"classifier": 0, "mmd": 0}
    for seed in range(n_seeds):
        split = RandomSplit(test_fraction=0.5, seed=seed).split_dataset(ds)
        a, b = split.train_part.inputs, split.test_part.inputs
        alarms["classifier"] += classifier_test(a, b, seed=seed).p_value < 0.05
        alarms["mmd"] += mmd_test(a, b, n_permutations=199, max_samples=300, seed=seed).p_value < 0.05
    for test, count in alarms.items():
        rate = count / n_seeds
        half = 1.96 * np.sqrt(rate * (1 - rate) / n_seeds) if 0 < rate < 1 else 0.0
        print(f"{test:>10}: {count}/{n_seeds} i.i.d. splits flagged = {rate:.3f} (+/- {half:.3f}; nominal 0.05)")

    section("6. IRT recovers generated item difficulties")
    rng = np.random.default_rng(0)
    theta = rng.normal(0, 1, size=60)
    difficulty = rng.normal(0, 1, size=5000)
    discrimination = np.exp(rng.normal(0, 0.3, size=5000))
    p = 1 / (1 + np.exp(-discrimination * (theta[:, None] - difficulty[None, :])))
    responses = rng.random(p.shape) < p
    for model in ("1pl", "2pl"):
        t = time.perf_counter()
        fit = fit_irt(responses, model=model)
        rho = spearmanr(fit.difficulty, difficulty).statistic
        rho_theta = spearmanr(fit.ability, theta).statistic
        print(f"{model}: Spearman(difficulty) = {rho:.3f}, Spearman(ability) = {rho_theta:.3f}, "
              f"{fit.n_iter} rounds, {time.perf_counter() - t:.1f} s")
    print(f"\ndone in {time.perf_counter() - started:.0f} s; store: {ev.store_path}")


if __name__ == "__main__":
    main()
