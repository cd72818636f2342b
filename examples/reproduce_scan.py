"""Reproduce Lake & Baroni (2018) on SCAN: random versus add-primitive jump versus length.

A GRU encoder-decoder with attention (gengap's ``Seq2SeqLearner``) is trained on each split's
training part and scored by exact match on its test part, for three seeds, on two versions of each
split: the official release files and gengap's own splitters over the generated commands.

=================  ===========================================  ==========================================
split              official files                               gengap
=================  ===========================================  ==========================================
random (simple)    tasks_{train,test}_simple.txt                RandomSplit(test_fraction=0.2)
add-jump           tasks_{train,test}_addprim_jump.txt          HeldOutPrimitive(primitive="jump")
length             tasks_{train,test}_length.txt                LengthSplit(by="n_actions", max_train_length=22)
=================  ===========================================  ==========================================

Published pattern: near-perfect on random, near zero on add-jump, low on length (best models
99.8%, 1.2%, 13.8%; Lake & Baroni 2018). The paper trains for 100,000 steps; the default here is a
CPU budget (a few minutes per model), and ``--max-train`` caps the training examples per split for
a quicker, smaller reproduction (single-word commands are always kept).

    python examples/reproduce_scan.py --out scan-repro                     # full training sets
    python examples/reproduce_scan.py --max-train 4000 --epochs 6 --out scan-repro-small
    python examples/reproduce_scan.py --quick                              # smoke run (minutes)

Writes ``results.csv`` (one row per split, version and seed, with 95% bootstrap intervals),
``summary.csv`` (mean over seeds with a t interval) and ``figure.html``; prints both tables.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path

import numpy as np
import pandas as pd

import gengap
from gengap.analysis.seed_spread import SeedSpread
from gengap.learners import Seq2SeqLearner
from gengap.tasks.scan import PUBLISHED as DEMO_PUBLISHED
from gengap.tasks.scan import official_split, scan_dataset

SCAN_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "scan"
OFFICIAL = {"random": "simple", "add-jump": "addprim_jump", "length": "length"}
# Lake & Baroni (2018), as gengap.tasks.scan.PUBLISHED keeps them, under this script's split names
PUBLISHED = {"random": DEMO_PUBLISHED["random"], "add-jump": DEMO_PUBLISHED["primitive:jump"], "length": DEMO_PUBLISHED["length"]}


def gengap_splits(dataset: gengap.Dataset, seed: int) -> dict[str, gengap.Split]:
    return {
        "random": gengap.RandomSplit(test_fraction=0.2, seed=seed).split_dataset(dataset),
        "add-jump": gengap.HeldOutPrimitive(primitive="jump").split_dataset(dataset),
        "length": gengap.LengthSplit(by="n_actions", max_train_length=22).split_dataset(dataset),
    }


def official_splits(dataset: gengap.Dataset, folder: Path) -> dict[str, gengap.Split]:
    return {name: official_split(file, folder, dataset=dataset) for name, file in OFFICIAL.items()}


def cap_train(split: gengap.Split, max_train: int | None, seed: int) -> gengap.Split:
    """At most ``max_train`` training examples, drawn with ``seed``; single-word commands always stay."""
    if max_train is None or len(split.train) <= max_train:
        return split
    inputs = np.array(split.dataset.inputs, dtype=object)[split.train]
    single = np.array([len(x.split()) == 1 for x in inputs])
    rng = np.random.default_rng(seed)
    rest = rng.choice(np.flatnonzero(~single), size=max_train - int(single.sum()), replace=False)
    train = np.sort(split.train[np.concatenate([np.flatnonzero(single), rest])])
    dropped = len(split.train) - len(train)  # the capped-off training examples are now unused
    diagnostics = dataclasses.replace(split.diagnostics, n_train=len(train), n_unused=split.diagnostics.n_unused + dropped)
    return dataclasses.replace(split, train=train, diagnostics=diagnostics)


def run(args: argparse.Namespace) -> pd.DataFrame:
    dataset = scan_dataset()
    rows = []
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        versions = {"gengap": gengap_splits(dataset, seed)}
        if args.scan_dir.is_dir():
            versions["official"] = official_splits(dataset, args.scan_dir)
        for version, splits in versions.items():
            for name, split in splits.items():
                split = dataclasses.replace(cap_train(split, args.max_train, seed), name=f"{version}:{name}")
                learner = Seq2SeqLearner(arch=args.arch, embedding_size=args.embedding, hidden_size=args.hidden,
                                         epochs=args.epochs, batch_size=args.batch_size, learning_rate=args.learning_rate,
                                         dropout=0.0, seed=seed, progress=False)
                t0 = time.perf_counter()
                ev = gengap.evaluate(learner, dataset, [split], out=args.out / "runs" / f"{version}-{name}-{seed}",
                                     name=f"scan-{version}-{name}-{seed}", progress=False)
                s = ev.summary().iloc[0]
                rows.append({"version": version, "split": name, "seed": seed, "n_train": len(split.train),
                             "n_test": int(s["n"]), "accuracy": s["score"], "low": s["score_low"], "high": s["score_high"],
                             "seconds": round(time.perf_counter() - t0, 1)})
                print(f"seed {seed} {version:>8} {name:>8}: {100 * s['score']:5.1f}% [{100 * s['score_low']:.1f}, "
                      f"{100 * s['score_high']:.1f}]  ({rows[-1]['seconds']} s, {len(split.train)} train)", flush=True)
                pd.DataFrame(rows).to_csv(args.out / "results.csv", index=False)  # partial results survive a stop
    return pd.DataFrame(rows)


def summarize(results: pd.DataFrame) -> pd.DataFrame:
    """Per version and split: mean over seeds with its 95% t interval (SeedSpread.per_split), next to the published figure."""
    out = []
    for version, g in results.groupby("version", sort=False):
        spread = SeedSpread(scores=g.rename(columns={"accuracy": "score"})[["seed", "split", "score"]],
                            in_distribution="random").per_split()
        for split, s in spread.iterrows():
            out.append({"version": version, "split": split, "seeds": int(s["seeds"]), "mean": s["mean"],
                        "low": max(s["mean_low"], 0.0), "high": min(s["mean_high"], 1.0), "published": PUBLISHED[split]})
    return pd.DataFrame(out)


def figure(summary: pd.DataFrame, results: pd.DataFrame, path: Path) -> None:
    import plotly.graph_objects as go

    fig = go.Figure()
    for version, g in summary.groupby("version", sort=False):
        fig.add_bar(name=f"{version} splits (mean of seeds, 95% t interval)", x=g.split, y=100 * g["mean"],
                    error_y={"type": "data", "symmetric": False, "array": 100 * (g.high - g["mean"]),
                             "arrayminus": 100 * (g["mean"] - g.low)})
    pub = summary.drop_duplicates("split")
    fig.add_scatter(name="Lake & Baroni 2018 (best)", x=pub.split, y=100 * pub.published, mode="markers",
                    marker={"symbol": "diamond", "size": 12, "color": "black"})
    fig.update_layout(barmode="group", yaxis_title="exact match on test (%)", yaxis_range=[0, 105],
                      title="SCAN: random vs add-jump vs length (GRU seq2seq with attention)")
    fig.write_html(path, include_plotlyjs=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("scan-repro"))
    parser.add_argument("--scan-dir", type=Path, default=SCAN_DIR, help="folder of the official SCAN files")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--first-seed", type=int, default=0, help="run seeds first-seed .. first-seed + seeds - 1")
    parser.add_argument("--max-train", type=int, default=None, help="cap on training examples per split")
    parser.add_argument("--arch", default="gru", choices=["gru", "transformer"])
    parser.add_argument("--embedding", type=int, default=48)
    parser.add_argument("--hidden", type=int, default=96)
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--learning-rate", type=float, default=5e-3)
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    parser.add_argument("--quick", action="store_true", help="1 seed, 1,000 training examples, 2 epochs")
    args = parser.parse_args()
    if args.quick:
        args.seeds, args.max_train, args.epochs, args.hidden, args.embedding = 1, 1000, 2, 32, 16
    import torch

    torch.set_num_threads(args.threads)
    args.out.mkdir(parents=True, exist_ok=True)
    results = run(args)
    results.to_csv(args.out / "results.csv", index=False)
    summary = summarize(results)
    summary.to_csv(args.out / "summary.csv", index=False)
    figure(summary, results, args.out / "figure.html")
    with pd.option_context("display.width", 160, "display.float_format", "{:.3f}".format):
        print(summary.to_string(index=False))
    print(f"Wrote {args.out / 'results.csv'}, {args.out / 'summary.csv'}, {args.out / 'figure.html'}")


if __name__ == "__main__":
    main()
