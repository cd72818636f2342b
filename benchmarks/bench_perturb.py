"""Perturbations per second, per perturbation and per family, on 100,000 inputs.

Each perturbation is applied once with ``Perturbation.apply(dataset, seed)`` (the call the runner
makes), so the figure includes building the perturbed Dataset. Text families run on prompts of
about 40 words, the choice family on 4-option items, the numbers family on templated word problems.

    python benchmarks/bench_perturb.py            # 100,000 inputs
    python benchmarks/bench_perturb.py --quick    # 5,000 inputs
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

import numpy as np
import pandas as pd

from gengap import Dataset
from gengap.perturb import (
    NumberSubstitution,
    make_perturbation,
    multiple_choice_dataset,
    prompt_templates,
    with_combinations,
)
from gengap.perturb.problem_template import ProblemTemplate

WORDS = ("the model reads a short passage about rivers and cities then answers one question about "
         "where the bridge was built and why the town grew quickly after the railway arrived in spring").split()

TEXT = ["whitespace", "casing", "trailing_punctuation", "separator", "quoting", "field_labels", "fewshot_delimiter",
        "typos", "char_swap", "char_delete", "distractor"]
CHOICE = ["shuffle_choices", "lengthen_gold_option", "lengthen_wrong_option", "shorten_gold_option", "mc_to_open",
          "mc_to_true_false", "contamination_probe"]
WORD_PROBLEM = ProblemTemplate("A farm has {a:10..500} sheep and buys {b:5..90} more each week for {w:2..12} weeks. "
                        "It sells {c:1..40} sheep at the end. How many sheep does it have?",
                        answer="a + b * w - c", constraints=["a + b * w > c"], name="sheep")


def text_dataset(n: int, rng: np.random.Generator) -> Dataset:
    lens = rng.integers(25, 55, size=n)
    inputs = [f"Question: {' '.join(rng.choice(WORDS, size=k))}?\n\nAnswer:" for k in lens]
    return Dataset(pd.DataFrame({"id": np.arange(n).astype(str), "input": inputs, "target": ["x"] * n}))


def choice_dataset(n: int, rng: np.random.Generator) -> Dataset:
    answers = [f"answer number {i}" for i in range(n)]
    records = []
    for i in range(n):
        wrong = [f"option {int(j)} of item {i}" for j in rng.integers(0, 1000, size=3)]
        gold = int(rng.integers(4))
        records.append({"question": f"Which statement about item {i} is right?",
                        "choices": wrong[:gold] + [answers[i]] + wrong[gold:], "answer": gold})
    return multiple_choice_dataset(records)


def measure(p, ds: Dataset) -> float:
    start = time.perf_counter()
    out = p.apply(ds, seed=0)
    secs = time.perf_counter() - start
    assert len(out) == len(ds)
    return len(ds) / secs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="5,000 inputs")
    args = parser.parse_args()
    n = 5_000 if args.quick else 100_000
    rng = np.random.default_rng(0)
    text, mc = text_dataset(n, rng), choice_dataset(n, rng)
    numbers = Dataset.from_frame(WORD_PROBLEM.generate(n, seed=0), id="id")
    jobs = [(make_perturbation(s), text) for s in TEXT]
    jobs += [(p, text) for p in prompt_templates()[:3]]
    jobs += [(make_perturbation(s), mc) for s in CHOICE]
    jobs += [(NumberSubstitution(WORD_PROBLEM), numbers)]
    jobs += [(with_combinations(["typos", "casing", "distractor"], include_pairs=False)[-1], text)]
    print(f"Perturbations per second on {n:,} inputs (Perturbation.apply; preliminary on a shared machine)")
    print(f"{'perturbation':<26} {'family':<11} {'per second':>12}")
    by_family: dict[str, list[float]] = defaultdict(list)
    for p, ds in jobs:
        rate = measure(p, ds)
        by_family[p.family].append(rate)
        print(f"{p.name:<26} {p.family:<11} {rate:>12,.0f}")
    print(f"\n{'family':<11} {'perturbations':>13} {'median per s':>13} {'slowest per s':>14}")
    for fam, rates in sorted(by_family.items()):
        print(f"{fam:<11} {len(rates):>13} {np.median(rates):>13,.0f} {min(rates):>14,.0f}")


if __name__ == "__main__":
    main()
