"""Ask Gemma 3 270M (the packaged base model on a local llama.cpp server) the questions of ``questions.py``.

Writes ``raw_outputs.jsonl`` (question, kind, gold, prompt style, temperature, seed, output): the
unlabelled material of the real-output part of the v8 held-out set. Each output was then read and
labelled by hand into ``heldout.jsonl``; this script only documents how the outputs came about.

    PYTHONPATH=src .venv/bin/python benchmarks/data/extraction_v8/generate.py
"""

from __future__ import annotations

import json
import sys
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[2] / "tests"))

import questions  # noqa: E402

from _llama_server import LlamaServer  # noqa: E402

LETTERS = "ABCD"


def prompt(style: str, kind: str, question: str, choices: list[str] | None) -> str:
    options = "".join(f"\n{LETTERS[i]}. {c}" for i, c in enumerate(choices or []))
    if style == "qa":
        return f"Question: {question}{options}\nAnswer:"
    hint = {"number": "Answer with a number.", "yes_no": "Answer yes or no.",
            "choice": "Answer with the letter of the correct option.", "text": "Answer in a few words."}[kind]
    return f"{hint}\n\nQ: {question}{options}\nA:"


def complete(url: str, text: str, temperature: float, seed: int) -> str:
    body = {"model": "gemma", "prompt": text, "max_tokens": 48, "temperature": temperature, "seed": seed,
            "stop": ["\nQuestion:", "\nQ:"]}
    request = urllib.request.Request(url + "/completions", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=300) as answer:
        return json.loads(answer.read())["choices"][0]["text"]


def items() -> list[dict]:
    out: list[dict] = []
    for q, gold in questions.NUMBER:
        out.append({"kind": "number", "question": q, "choices": None, "gold": gold})
    for q, gold in questions.YES_NO:
        out.append({"kind": "yes_no", "question": q, "choices": None, "gold": gold})
    for q, choices, gold in questions.CHOICE:
        out.append({"kind": "choice", "question": q, "choices": choices, "gold": gold})
    for q, gold, aliases in questions.TEXT:
        out.append({"kind": "text", "question": q, "choices": None, "gold": gold, "aliases": aliases})
    return out


def main() -> None:
    target = HERE / "raw_outputs.jsonl"
    with LlamaServer(n_threads=1) as server, target.open("w", encoding="utf-8") as sink:
        for i, item in enumerate(items()):
            for style, temperature, seed in (("qa", 0.0, 0), ("hint", 0.8, 1000 + i)):
                text = complete(server.base_url, prompt(style, item["kind"], item["question"], item["choices"]),
                                temperature, seed)
                sink.write(json.dumps({**item, "style": style, "temperature": temperature, "seed": seed,
                                       "output": text}, ensure_ascii=False) + "\n")
                sink.flush()


if __name__ == "__main__":
    main()
