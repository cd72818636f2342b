"""Make the inspect_ai logs of tests/data/inspect/ with the real inspect_ai package and its mock model.

Run with an interpreter that has inspect_ai installed (not gengap's environment), from this folder:

    python3 -m venv /tmp/inspect-venv && /tmp/inspect-venv/bin/pip install inspect_ai
    /tmp/inspect-venv/bin/python make_logs.py            # every log
    /tmp/inspect-venv/bin/python make_logs.py samples    # only samples.eval and samples.json

It evaluates tiny local tasks with the ``mockllm/model`` provider, whose answers are scripted below
(right, wrong, or unreadable, different per epoch). Nothing is downloaded. Each task is written in
both of inspect_ai's formats (``.eval`` zip and ``.json``):

- ``arith``: six arithmetic questions, each with metadata, a few-shot system prompt, two epochs,
  scored by ``match()`` and ``includes()``;
- ``samples``: five questions asked in four epochs (the k samples of each example), right 4, 2, 1, 0
  and 3 times out of 4, with answers that repeat or differ between epochs, scored by ``match()``.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from inspect_ai import Task, eval, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import includes, match
from inspect_ai.solver import generate, system_message

HERE = Path(__file__).parent
QUESTIONS = [("2 + 3", "5", "easy", 1), ("7 * 8", "56", "easy", 2), ("12 - 20", "-8", "medium", 2),
             ("144 / 12", "12", "medium", 3), ("17 * 23", "391", "hard", 3), ("2 ** 10", "1024", "hard", 4)]
#: The mock model's answers in the order inspect_ai asks (max_samples=1): every sample of epoch 1, then of epoch 2.
ANSWERS = ["The answer is 5", "56", "It is -8.", "I am not sure.", "The answer is 391", "<script>alert(1)</script> 1000",
           "5", "54", "-8", "12", "The answer is 391", "1024"]


@task
def arith() -> Task:
    samples = [Sample(input=f"What is {q}?", target=a, id=f"q{i}", metadata={"level": level, "n_ops": ops})
               for i, (q, a, level, ops) in enumerate(QUESTIONS)]
    return Task(dataset=samples, solver=[system_message("Answer with a number. Example: What is 1 + 1? 2"), generate()],
                scorer=[match(numeric=True), includes()], epochs=2)


SAMPLE_QUESTIONS = [("3 + 4", "7"), ("9 * 9", "81"), ("100 - 37", "63"), ("6 * 7", "42"), ("2 ** 5", "32")]
#: Epoch 1 for every question, then epoch 2, ... (max_samples=1). Right per question: 4, 2, 1, 0, 3 of 4.
SAMPLE_ANSWERS = ["7", "81", "63", "48", "32",
                  "The answer is 7", "80", "36", "48", "32",
                  "7", "81", "It is 36.", "I cannot tell.", "23",
                  "7.", "80", "36", "40", "The answer is 32"]


@task
def samples() -> Task:
    dataset = [Sample(input=f"What is {q}?", target=a, id=f"s{i}", metadata={"op": q.split()[1]})
               for i, (q, a) in enumerate(SAMPLE_QUESTIONS)]
    return Task(dataset=dataset, solver=[generate()], scorer=match(numeric=True), epochs=4)


#: name -> (the task, the mock model's answers in the order asked)
TASKS = {"arith": (arith, ANSWERS), "samples": (samples, SAMPLE_ANSWERS)}


def _output(k: int, text: str) -> ModelOutput:
    # usage given, so the mock model needs no tokenizer (which inspect_ai would download)
    out = ModelOutput.from_content(model="mockllm/model", content=text)
    out.usage = ModelUsage(input_tokens=20 + k, output_tokens=len(text.split()), total_tokens=20 + k + len(text.split()))
    return out


def main(names: list[str]) -> None:
    out = HERE / "_logs"
    for name in names or list(TASKS):
        make, answers = TASKS[name]
        for fmt in ("eval", "json"):
            shutil.rmtree(out, ignore_errors=True)
            model = get_model("mockllm/model", custom_outputs=[_output(k, a) for k, a in enumerate(answers)])
            [log] = eval(make(), model=model, log_dir=str(out), log_format=fmt, max_connections=1, max_samples=1,
                         display="none")
            assert log.status == "success", log.error
            target = HERE / f"{name}.{fmt}"
            shutil.copyfile(log.location, target)
            print(f"wrote {target} ({target.stat().st_size:,} bytes)")
    shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
