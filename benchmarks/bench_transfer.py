"""Cross-group transfer matrix over 20 groups with a scikit-learn model: wall time and overhead.

Each of the 20 groups trains one logistic regression (on its in-group training part) that then
predicts every other group. The work runs through ``gengap.evaluate`` (the ``transfer`` split
method) into a temporary results store, so every per-example row is stored (950,000 rows at the
full size: each example is tested once per other group) with the cache, and the matrix is read
back from those rows. The figure that matters is the share of the wall time spent outside the
model's fit and predict (splitting, storing and caching rows, scoring, 400 intervals).

    python benchmarks/bench_transfer.py           # 20 groups x 2,500 examples (50,000)
    python benchmarks/bench_transfer.py --quick   # 20 groups x 250 examples
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.linear_model import LogisticRegression

import gengap
from gengap.retraining import transfer_matrix


def make_groups(n_groups: int, per_group: int, seed: int = 0) -> gengap.Dataset:
    rng = np.random.default_rng(seed)
    rows = []
    for g in range(n_groups):
        shift = rng.normal(0, 1, size=5)
        weights = np.r_[1.0, rng.normal(0, 0.3, size=4)]
        x = rng.normal(size=(per_group, 5)) + shift
        label = (x - shift) @ weights + rng.normal(0, 0.5, size=per_group) > 0
        for i in range(per_group):
            rows.append({"input": {f"x{k}": float(x[i, k]) for k in range(5)}, "target": "yes" if label[i] else "no",
                         "group": f"g{g:02d}"})
    return gengap.load(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="250 examples per group instead of 2,500")
    parser.add_argument("--groups", type=int, default=20)
    args = parser.parse_args()
    per_group = 250 if args.quick else 2_500
    ds = make_groups(args.groups, per_group)
    t = time.perf_counter()
    tm = transfer_matrix(LogisticRegression(), ds, "group", n_resamples=2000)
    wall = time.perf_counter() - t
    model = tm.fit_seconds + tm.predict_seconds
    print(f"transfer matrix: {args.groups} groups x {per_group:,} examples ({len(ds):,} in all), LogisticRegression")
    print(f"{'wall s':>8} {'fit s':>7} {'predict s':>10} {'outside model s':>16} {'outside share':>14}")
    print(f"{wall:8.2f} {tm.fit_seconds:7.2f} {tm.predict_seconds:10.2f} {wall - model:16.2f} {(wall - model) / wall:14.1%}")
    diag = np.diag(tm.scores.to_numpy()).mean()
    off = tm.scores.to_numpy()[~np.eye(args.groups, dtype=bool)].mean()
    print(f"mean in-group accuracy {diag:.3f}, mean cross-group accuracy {off:.3f}")


if __name__ == "__main__":
    main()
