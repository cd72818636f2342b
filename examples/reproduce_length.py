"""Length generalization: train on short additions (or parities), test on longer ones.

Zhou et al. (2023) report that Transformers trained on short inputs of addition and parity fail on
longer ones. Here a seq2seq learner (``Seq2SeqLearner``, GRU with attention by default) is trained
on inputs up to ``--train-max`` digits (bits for parity); gengap scores it on held-out examples of
the training lengths (in-length) and on every longer length (out-of-length), with 95% bootstrap
intervals, and per-length accuracy, for several seeds. Expected: in-length accuracy
high, out-of-length accuracy collapsing.

    python examples/reproduce_length.py --out length-repro              # addition, 3 seeds
    python examples/reproduce_length.py --task parity --out parity-repro
    python examples/reproduce_length.py --quick                         # smoke run

Writes ``summary.csv`` (in- and out-of-length accuracy per seed with intervals), ``by_length.csv``
(accuracy per input length) and ``figure.html``; prints both tables.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

import gengap
from gengap.learners import Seq2SeqLearner
from gengap.splits import Split, SplitDetails, SplitDiagnostics, TaxonomyCard
from gengap.tasks import generate

LENGTH_COLUMN = {"addition": "n_digits", "parity": "length"}


def make_data(task: str, n: int, max_length: int, seed: int) -> gengap.Dataset:
    """The task's examples, one per distinct input (so no test input is also a training input)."""
    params = {"addition": {"max_digits": max_length}, "parity": {"max_length": max_length}}[task]
    ds = generate(task, seed=seed, n=n, **params)
    keep = ~ds.frame["input"].duplicated().to_numpy()
    return ds.take(np.flatnonzero(keep))


def length_splits(ds: gengap.Dataset, column: str, train_max: int, in_length_test: float, seed: int) -> list[Split]:
    """One training part (short inputs, minus a held-out share) and two test parts: in-length and out-of-length."""
    lengths = ds.column(column).to_numpy()
    short = np.flatnonzero(lengths <= train_max)
    rng = np.random.default_rng(seed)
    held = rng.random(len(short)) < in_length_test
    train, in_test = short[~held], short[held]
    out_test = np.flatnonzero(lengths > train_max)
    card = gengap.LengthSplit.card
    iid = TaxonomyCard(motivation="practical", generalisation_type="none", shift_type="none", shift_source="none",
                       description="Held-out examples of the training lengths.")
    return [
        Split("in-length", "length", train, in_test, seed, {"train_max": train_max}, SplitDiagnostics.of_parts(
            len(train), len(in_test), len(ds), SplitDetails(held_out=f"a random share of lengths <= {train_max}")), iid, ds),
        Split("out-of-length", "length", train, out_test, seed, {"train_max": train_max}, SplitDiagnostics.of_parts(
            len(train), len(out_test), len(ds), SplitDetails(held_out=f"lengths > {train_max}")), card, ds),
    ]


def run_seed(args: argparse.Namespace, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    column = LENGTH_COLUMN[args.task]
    ds = make_data(args.task, args.n, args.max_length, seed)
    splits = length_splits(ds, column, args.train_max, 0.15, seed)
    train = splits[0].train_part
    learner = Seq2SeqLearner(arch=args.arch, embedding_size=args.embedding, hidden_size=args.hidden, epochs=args.epochs,
                             batch_size=args.batch_size, learning_rate=args.learning_rate, dropout=0.0,
                             seed=seed, progress=False)
    t0 = time.perf_counter()
    fitted = learner.fit(train.inputs, train.targets)
    fit_seconds = time.perf_counter() - t0
    ev = gengap.evaluate(gengap.models.EstimatorModel(fitted, name=f"{args.arch}-seed{seed}", refit=False), ds, splits,
                         out=args.out / "runs" / f"seed{seed}", name=f"{args.task}-length-{seed}",
                         reference="in-length", progress=False)
    summary = ev.summary()
    summary["seed"], summary["fit_seconds"] = seed, round(fit_seconds, 1)
    rows = ev.rows()
    lengths = pd.Series(ds.column(column).to_numpy(), index=ds.ids, name="length")
    rows = rows.join(lengths, on="example_id")
    by_length = rows.groupby("length").score.agg(["mean", "size"]).reset_index()
    by_length["seed"] = seed
    return summary, by_length


def figure(by_length: pd.DataFrame, train_max: int, task: str, path: Path) -> None:
    import plotly.graph_objects as go

    fig = go.Figure()
    for seed, g in by_length.groupby("seed"):
        fig.add_scatter(x=g.length, y=100 * g["mean"], mode="lines+markers", name=f"seed {seed}")
    fig.add_vline(x=train_max + 0.5, line_dash="dash", annotation_text="longest training length")
    fig.update_layout(title=f"{task}: exact match by input length (trained on lengths <= {train_max})",
                      xaxis_title="digits of the longer operand" if task == "addition" else "bits",
                      yaxis_title="exact match (%)", yaxis_range=[-2, 102])
    fig.write_html(path, include_plotlyjs=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", default="addition", choices=sorted(LENGTH_COLUMN))
    parser.add_argument("--out", type=Path, default=Path("length-repro"))
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--n", type=int, default=16_000, help="examples generated (before removing repeats)")
    parser.add_argument("--max-length", type=int, default=8, help="longest input generated (digits or bits)")
    parser.add_argument("--train-max", type=int, default=4, help="longest input trained on")
    parser.add_argument("--arch", default="gru", choices=["gru", "transformer"])
    parser.add_argument("--embedding", type=int, default=32)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--learning-rate", type=float, default=3e-3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="1 seed, small data, few epochs")
    args = parser.parse_args()
    if args.quick:
        args.seeds, args.n, args.epochs, args.hidden = 1, 2000, 3, 32
    import torch

    torch.set_num_threads(args.threads)
    args.out.mkdir(parents=True, exist_ok=True)
    summaries, curves = [], []
    for seed in range(args.seeds):
        summary, by_length = run_seed(args, seed)
        summaries.append(summary)
        curves.append(by_length)
        for r in summary.itertuples():
            print(f"seed {seed} {r.split:>14}: {100 * r.score:5.1f}% [{100 * r.score_low:.1f}, {100 * r.score_high:.1f}] "
                  f"n={r.n}", flush=True)
        pd.concat(summaries).to_csv(args.out / "summary.csv", index=False)
    summary = pd.concat(summaries, ignore_index=True)
    by_length = pd.concat(curves, ignore_index=True)
    by_length.to_csv(args.out / "by_length.csv", index=False)
    figure(by_length, args.train_max, args.task, args.out / "figure.html")
    table = by_length.pivot(index="length", columns="seed", values="mean")
    with pd.option_context("display.width", 160, "display.float_format", "{:.3f}".format):
        print(summary[["seed", "split", "n", "score", "score_low", "score_high", "gap", "gap_low", "gap_high",
                       "fit_seconds"]].to_string(index=False))
        print("accuracy by length (rows) and seed (columns):")
        print(table.to_string())
    print(f"Wrote {args.out / 'summary.csv'}, {args.out / 'by_length.csv'}, {args.out / 'figure.html'}")


if __name__ == "__main__":
    main()
