"""Where does addition break? A score curve over 1-10 digits, and a generalization valley for two model sizes.

Part 1 (curve): a GRU-with-attention seq2seq learner (``Seq2SeqLearner``) is trained on additions whose
longer operand has at most 5 digits, then scored on held-out additions of 1-10 digits. gengap draws
the exact-match curve over the digit count with Wilson intervals, finds the first digit count
significantly below the in-range score (one-sided Fisher tests, Holm) and where a monotone fit
falls to half of it, each with a bootstrap interval.

Part 2 (valley): a complexity sweep of addition (``gengap tasks sweep``): at each digit count an ID
part and an OOD part (digits written as letters a-j; the OOD encoding trained on only at the two
lowest levels), two learner sizes, and the ID-OOD gap per level with the critical complexity.
Whatever it shows is printed as it is.

    python examples/curves_addition.py                  # see the README's figures for the time it takes
    python examples/curves_addition.py --quick          # smoke run (~1 min)
    python examples/curves_addition.py --skip-valley    # or --skip-curve

Writes ``curves-addition/curve/`` and ``curves-addition/valley/`` (each a gengap report folder).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

import gengap
from gengap.learners import Seq2SeqLearner
from gengap.splits import Split, SplitDetails, SplitDiagnostics
from gengap.tasks import generate
from gengap.tasks.sweep import run_sweep


def addition_data(args: argparse.Namespace) -> tuple[gengap.Dataset, np.ndarray, np.ndarray]:
    """Distinct additions: ``args.n`` of 1-5 digits (85% trained on, 15% held out) and
    ``args.n_long`` of 6-10 digits (all held out)."""
    short = generate("addition", seed=args.seed, n=args.n, max_digits=5).to_records()
    long = generate("addition", seed=args.seed + 1, n=args.n_long, min_digits=6, max_digits=10).to_records()
    frame = pd.DataFrame(short + long).drop_duplicates("input").reset_index(drop=True)
    frame["id"] = [f"add-{i}" for i in range(len(frame))]
    ds = gengap.Dataset.from_frame(frame, input="input", target="target", id="id", name="addition")
    digits = ds.column("n_digits").to_numpy()
    rng = np.random.default_rng(args.seed)
    in_range = np.flatnonzero(digits <= 5)
    held = rng.random(in_range.size) < 0.15
    return ds, in_range[~held], np.sort(np.r_[in_range[held], np.flatnonzero(digits > 5)])


def addition_curve(args: argparse.Namespace) -> None:
    ds, train, test = addition_data(args)
    split = Split("length", "length", train, test, args.seed, {"by": "n_digits", "max_train_length": 5},
                  SplitDiagnostics.of_parts(train.size, test.size, len(ds), SplitDetails(
                      held_out="15% of the additions of 1-5 digits, and every addition of 6-10 digits",
                      figures={"train_length_range": [1, 5]})),
                  gengap.LengthSplit.card, ds)
    learner = Seq2SeqLearner("gru", embedding_size=32, hidden_size=args.hidden, epochs=args.epochs, batch_size=64,
                             learning_rate=3e-3, dropout=0.0, max_time=args.max_time, seed=args.seed,
                             progress=False)
    t0 = time.perf_counter()
    ev = gengap.evaluate({f"gru-{args.hidden}": learner}, ds, [split], out=args.out / "curve", name="addition-curve",
                         progress=False)
    curve = ev.curve("n_digits")
    print(f"Addition, trained on <= 5 digits ({train.size:,} examples), tested on {test.size:,}: "
          f"{time.perf_counter() - t0:.0f} s")
    table = curve.to_table()
    for r in table.itertuples():
        mark = "training" if r.in_range else ("below" if r.below else "")
        print(f"  {r.value:4.0f} digits  n={r.n:5d}  {100 * r.score:5.1f}% [{100 * r.score_low:5.1f}, {100 * r.score_high:5.1f}]  {mark}")
    print(f"  {curve}")
    ev.report()
    print(f"  report: {args.out / 'curve' / 'index.html'}")


def addition_valley(args: argparse.Namespace) -> None:
    models = {f"gru-{h}": Seq2SeqLearner("gru", embedding_size=32, hidden_size=h, epochs=args.epochs, batch_size=64,
                                         learning_rate=3e-3, dropout=0.0, max_time=None if args.max_time is None else args.max_time / 2,
                                         seed=args.seed, progress=False)
              for h in (args.small, args.hidden)}
    t0 = time.perf_counter()
    ev, valleys = run_sweep(models, "addition", levels=list(range(1, args.levels + 1)), n_per_level=args.n_per_level,
                            train_per_level=args.train_per_level, ood_train_levels=2, seed=args.seed,
                            out=args.out / "valley", progress=False)
    print(f"\nAddition sweep, levels 1-{args.levels}, ID vs OOD (digits as letters): {time.perf_counter() - t0:.0f} s")
    for v in valleys:
        t = v.to_table()
        print(f"  {v.model}: {v}")
        for r in t.itertuples():
            print(f"    level {r.level:2.0f}: ID {100 * r.id_score:5.1f}%  OOD {100 * r.ood_score:5.1f}%  gap "
                  f"{100 * r.gap:5.1f} [{100 * r.gap_low:5.1f}, {100 * r.gap_high:5.1f}]  (n {r.n_id}/{r.n_ood})")
    ev.report()
    print(f"  report: {args.out / 'valley' / 'index.html'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path("curves-addition"))
    ap.add_argument("--n", type=int, default=8_000, help="additions of 1-5 digits generated for the curve")
    ap.add_argument("--n-long", type=int, default=2_500, help="additions of 6-10 digits (test only)")
    ap.add_argument("--hidden", type=int, default=96, help="hidden size (the larger model of the valley)")
    ap.add_argument("--small", type=int, default=32, help="hidden size of the smaller model of the valley")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--max-time", type=float, default=None,
                    help="stop training after this many seconds (default: no limit; the epochs decide)")
    ap.add_argument("--levels", type=int, default=6)
    ap.add_argument("--n-per-level", type=int, default=150)
    ap.add_argument("--train-per-level", type=int, default=600)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip-valley", action="store_true")
    ap.add_argument("--skip-curve", action="store_true")
    ap.add_argument("--quick", action="store_true", help="smoke run: little data and training")
    args = ap.parse_args()
    if args.quick:
        args.n, args.n_long, args.epochs, args.max_time, args.hidden, args.small = 3000, 500, 2, 15.0, 32, 16
        args.levels, args.n_per_level, args.train_per_level = 4, 40, 150
    import torch

    torch.set_num_threads(args.threads)
    if not args.skip_curve:
        addition_curve(args)
    if not args.skip_valley:
        addition_valley(args)


if __name__ == "__main__":
    main()
