"""Ask Gemma 3 270M (llama.cpp server of the test suite) the questions of ``questions.py``; write raw_outputs.jsonl.

Two prompt styles per question: ``Question: ... Answer:`` at temperature 0, and an instruction line with
``Q: ... A:`` at temperature 0.8 (seed 3000 + question number). At most 40 tokens, stopped at the next
question line. Not needed to rebuild dev.jsonl (the outputs are kept); run as
``PYTHONPATH=src .venv/bin/python benchmarks/data/extraction_v9dev/generate.py``.
"""

from __future__ import annotations

import json
import sys
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[2] / "tests")]

from questions import QUESTIONS  # noqa: E402

from _llama_server import LlamaServer  # noqa: E402

INSTRUCTION = {
    "number": "Answer with a number.",
    "yes_no": "Answer yes or no.",
    "choice": "Answer with the letter of the correct option.",
    "text": "Answer in a few words.",
}


def question_text(question: str, choices: list[str] | None) -> str:
    if not choices:
        return question
    return question + "\n" + "\n".join(f"{chr(65 + i)}. {c}" for i, c in enumerate(choices))


def prompts(kind: str, question: str, choices: list[str] | None) -> list[tuple[str, str, float]]:
    text = question_text(question, choices)
    return [("plain-t0", f"Question: {text}\nAnswer:", 0.0),
            ("instruct-t0.8", f"{INSTRUCTION[kind]}\nQ: {text}\nA:", 0.8)]


def complete(base_url: str, prompt: str, temperature: float, seed: int) -> str:
    body = {"model": "gemma", "prompt": prompt, "max_tokens": 40, "temperature": temperature, "seed": seed,
            "stop": ["\nQuestion:", "\nQ:"]}
    request = urllib.request.Request(base_url + "/completions", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=300) as answer:
        return str(json.loads(answer.read())["choices"][0]["text"])


def main() -> None:
    """``generate.py`` asks every question anew; ``generate.py --from N`` asks questions N onward and appends."""
    start = int(sys.argv[sys.argv.index("--from") + 1]) if "--from" in sys.argv else 0
    path = HERE / "raw_outputs.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()][:2 * start] if start else []
    with LlamaServer(n_ctx=512) as server:
        for number, (kind, question, choices, _) in enumerate(QUESTIONS):
            if number < start:
                continue
            for style, prompt, temperature in prompts(kind, question, choices):
                output = complete(server.base_url, prompt, temperature, 3000 + number)
                rows.append({"q": number, "kind": kind, "question": question, "choices": choices,
                             "style": style, "output": output})
                print(len(rows), kind, style, repr(output[:70]), flush=True)
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
