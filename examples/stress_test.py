"""Stress-test two models: which harmless change hurts most, by how much (with CIs), and how often answers flip.

1. A scikit-learn text classifier (TF-IDF + logistic regression) on seeded product reviews,
   under format changes, character noise, a distractor sentence, and all of them together.
2. A small GRU encoder-decoder from gengap's learners on the task suite's SCAN commands, under
   spacing and casing changes, typos, and a user-defined rewrite that keeps the meaning exactly
   ("x and y" -> "y after x": SCAN defines both to produce the same actions).

    python examples/stress_test.py            # both models (the GRU trains for about 2 minutes)
    python examples/stress_test.py --quick    # smaller data, shorter training
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

from gengap import Dataset, evaluate
from gengap.analysis.stress import perturbation_effects, worst_case
from gengap.perturb import make_perturbations, perturbation, with_combinations

POSITIVE = ["great", "excellent", "lovely", "reliable", "sturdy", "comfortable", "fast", "bright", "quiet", "perfect"]
NEGATIVE = ["awful", "broken", "flimsy", "noisy", "slow", "dim", "useless", "cheap", "faulty", "disappointing"]
ITEMS = ["lamp", "kettle", "chair", "phone case", "backpack", "blender", "keyboard", "jacket", "tent", "speaker"]
FRAMES = ["The {item} is {adj}.", "Honestly, a {adj} {item}.", "I found this {item} {adj} after a week.",
          "My new {item} turned out {adj}, and {adj2} too.", "What a {adj} {item}!", "Really {adj}; the {item} works."]


def reviews(n: int, seed: int) -> Dataset:
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n):
        label = int(rng.integers(2))
        words = POSITIVE if label else NEGATIVE
        adj, adj2 = rng.choice(words, size=2, replace=False)
        text = str(rng.choice(FRAMES)).format(item=rng.choice(ITEMS), adj=adj, adj2=adj2)
        rows.append({"input": text, "target": "positive" if label else "negative",
                     "domain": "short" if len(text) < 30 else "long"})
    return Dataset.from_records(rows)


def print_report(title: str, rows: pd.DataFrame, perturbations: list) -> None:
    s = perturbation_effects(rows, perturbations=perturbations, n_resamples=2000)
    print(f"\n== {title}")
    print(f"clean accuracy {s['clean'].iloc[0]:.3f} on {int(s['n'].iloc[0])} test examples; perturbations, most harmful first:")
    print(f"{'rank':>4}  {'perturbation':<34} {'family':<10} {'acc':>6}  {'diff [95% CI]':<26} {'PDR':>6} {'flip':>6}")
    for r in s.itertuples():
        ci = f"{r.difference:+.3f} [{r.low:+.3f}, {r.high:+.3f}]"
        print(f"{r.rank:>4}  {r.perturbation[:34]:<34} {r.family:<10} {r.perturbed:6.3f}  {ci:<26} {r.drop_rate:6.1%} {r.flip_rate:6.1%}")
    worst = s.iloc[0]
    print(f"hurts most: {worst.perturbation} ({worst.difference:+.3f}, 95% CI [{worst.low:+.3f}, {worst.high:+.3f}], "
          f"answers flipped on {worst.flip_rate:.1%} of examples)")
    wc = worst_case(rows, perturbations=perturbations, by="all", n_resamples=2000).iloc[0]
    print(f"worst case over all {wc.variants} variants: {wc.worst_case:.3f} [{wc.low:.3f}, {wc.high:.3f}] "
          f"(correct on the clean item and every variant)")


def text_classifier(quick: bool) -> None:
    data = reviews(1000 if quick else 4000, seed=0)
    model = make_pipeline(TfidfVectorizer(), LogisticRegression(max_iter=1000))  # unfitted: trained per split
    perts = with_combinations(make_perturbations(
        ["casing:mode=upper", "whitespace:rate=0.3", "trailing_punctuation:mode=strip", "typos:rate=0.1",
         "char_delete:rate=0.1", "distractor:position=start"]), include_pairs=False)
    ev = evaluate(model, data, ["random"], perturbations=perts, progress=False, seed=0)
    print_report("scikit-learn TF-IDF + logistic regression, product reviews", ev.rows(), perts)


@perturbation(family="custom", on="input", name="and_to_after")
def and_to_after(command: str, rng: np.random.Generator) -> str:
    """SCAN's "x and y" means "y after x" exactly: the same actions, a different surface form."""
    left, sep, right = command.partition(" and ")
    return f"{right} after {left}" if sep else command


def scan_model(quick: bool) -> None:
    from gengap.learners import Seq2SeqLearner
    from gengap.tasks import generate

    scan = generate("scan", seed=0)
    keep = np.random.default_rng(0).permutation(len(scan))[: 3000 if quick else 8000]
    data = scan.take(np.sort(keep))
    learner = Seq2SeqLearner(hidden_size=96, epochs=30, batch_size=64, learning_rate=5e-3,
                             max_time=45 if quick else 150, seed=0, progress=False)
    perts = [*make_perturbations(["whitespace:rate=0.5", "casing:mode=upper", "typos:rate=0.03"]), and_to_after]
    ev = evaluate(learner, data, ["random"], perturbations=perts, progress=False, seed=0, test_fraction=0.1)
    print_report("GRU seq2seq learner on SCAN commands (random split)", ev.rows(), perts)
    rows = ev.rows()
    clean = rows[rows["perturbation"] == "none"].set_index("example_id")
    moved = rows[rows["perturbation"] == "and_to_after"].set_index("example_id")
    changed = moved.index[moved["input"] != clean.loc[moved.index, "input"]]
    print(f"  'x and y' -> 'y after x' rewrote {len(changed)} of {len(moved)} commands; accuracy on those: "
          f"clean {clean.loc[changed, 'score'].mean():.3f}, rewritten {moved.loc[changed, 'score'].mean():.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller data and shorter training")
    parser.add_argument("--skip-scan", action="store_true", help="only the scikit-learn classifier")
    args = parser.parse_args()
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass
    text_classifier(args.quick)
    if not args.skip_scan:
        scan_model(args.quick)


if __name__ == "__main__":
    main()
