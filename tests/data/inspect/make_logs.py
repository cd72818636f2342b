"""Make the inspect_ai logs of tests/data/inspect/ with the real inspect_ai package and its mock model.

Run with an interpreter that has inspect_ai installed (not gengap's environment), from this folder:

    python3 -m venv /tmp/inspect-venv && /tmp/inspect-venv/bin/pip install inspect_ai
    /tmp/inspect-venv/bin/python make_logs.py

It evaluates a tiny local task (six arithmetic questions, each with metadata, a few-shot system prompt,
two epochs) with the ``mockllm/model`` provider, whose answers are scripted below (right, wrong, or
unreadable, different per epoch), scored by ``match()`` and ``includes()``. Nothing is downloaded.
It writes one log in each of inspect_ai's formats: ``arith.eval`` (zip) and ``arith.json``.
"""

from __future__ import annotations

import shutil
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


def _output(k: int, text: str) -> ModelOutput:
    # usage given, so the mock model needs no tokenizer (which inspect_ai would download)
    out = ModelOutput.from_content(model="mockllm/model", content=text)
    out.usage = ModelUsage(input_tokens=20 + k, output_tokens=len(text.split()), total_tokens=20 + k + len(text.split()))
    return out


def main() -> None:
    out = HERE / "_logs"
    shutil.rmtree(out, ignore_errors=True)
    for fmt in ("eval", "json"):
        model = get_model("mockllm/model", custom_outputs=[_output(k, a) for k, a in enumerate(ANSWERS)])
        [log] = eval(arith(), model=model, log_dir=str(out), log_format=fmt, max_connections=1, max_samples=1,
                     display="none")
        assert log.status == "success", log.error
        target = HERE / f"arith.{fmt}"
        shutil.copyfile(log.location, target)
        print(f"wrote {target} ({target.stat().st_size:,} bytes)")
    shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
