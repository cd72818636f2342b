"""Which training-time measures rank runs by their generalization gap? A grokking sweep.

Trains modular-addition runs over a grid of weight decay x train fraction (8 runs by default), each
watched by a gengap Monitor writing to one store, then ranks every measure against the observed gap
(train minus held-out accuracy at the end) with Kendall's tau and Jiang et al. (2020)'s granulated
tau (``gengap.analysis.measures.rank_correlation``).

The default size is reduced to fit a shared CPU in ~10 minutes: p = 59 instead of 97 and a fixed
budget of 1,200 full-batch steps per run (some runs have not grokked by then, which is what spreads
the gaps). ``--p 97 --steps 4000`` gives the full-size sweep.

    python examples/grokking_sweep.py --out sweep-out
    python examples/grokking_sweep.py --out sweep-out --quick     # 8 short runs, a smoke test
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import torch

import gengap.analysis.measures
from gengap.monitor.grokking_demo import SETTINGS, train

#: Figures that need the held-out set (or are the gap itself): not candidate measures.
NOT_MEASURES = {"heldout_accuracy", "heldout_loss", "gap_loss", "train_accuracy"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("grokking-sweep"))
    parser.add_argument("--p", type=int, default=59)
    parser.add_argument("--steps", type=int, default=1200)
    parser.add_argument("--weight-decay", type=float, nargs="+", default=[0.1, 0.3, 1.0, 3.0])
    parser.add_argument("--train-fraction", type=float, nargs="+", default=[0.3, 0.5])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="200 steps per run")
    args = parser.parse_args()
    torch.set_num_threads(1)
    steps = 200 if args.quick else args.steps
    args.out.mkdir(parents=True, exist_ok=True)
    store = args.out / "gengap.duckdb"
    if store.exists():
        sys.exit(f"{store} exists; choose another --out so runs of different sweeps are not mixed.")

    started = time.perf_counter()
    rows = []
    for wd, frac in itertools.product(args.weight_decay, args.train_fraction):
        settings = {**SETTINGS, "p": args.p, "train_fraction": frac, "weight_decay": wd, "max_steps": steps,
                    "every": 50, "expensive_every": 200, "patience": 10**9, "max_seconds": 1e9}
        r = train(args.out, settings=settings, seed=args.seed, run_name=f"wd={wd} frac={frac}", console=None)
        rows.append(r)
        print(f"wd={wd:<4} frac={frac:<4} train {r['final_train_accuracy']:.3f} held-out {r['final_heldout_accuracy']:.3f} "
              f"memorized@{r['memorized_at_step']} grokked@{r['grokked_at_step']} ({r['wall_seconds']:.0f} s)", flush=True)

    runs = gengap.analysis.measures.runs_table(store)
    measures = [c for c in runs.columns if c not in {"run_id", "gap", "weight_decay", "train_fraction", "learning_rate"}
                and c not in NOT_MEASURES]
    table = gengap.analysis.measures.rank_correlation(runs, measures=measures, hyperparameters=["weight_decay", "train_fraction"])
    table.to_csv(args.out / "rank_correlation.csv", index=False)
    runs.to_csv(args.out / "runs.csv", index=False)
    print(f"\n{len(runs)} runs (p = {args.p}, {steps} steps each) in {time.perf_counter() - started:.0f} s; "
          "gap = train - held-out accuracy at the end.")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print(f"\nWrote {args.out / 'rank_correlation.csv'} and {args.out / 'runs.csv'}.")


if __name__ == "__main__":
    main()
