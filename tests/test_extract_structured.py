"""Structured outputs (JSON, answer tags, reasoning blocks, code transcripts, bulleted records): the reader
unwraps the structure, then reads the part it marks as the answer. One case and one counter-example per
principle, through the public ``extract``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from _readers import read
from gengap.extract import extract

ORDINARY = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "extraction_v6dev" / "ordinary.jsonl"
ROWS = [json.loads(line) for line in ORDINARY.read_text(encoding="utf-8").splitlines() if line.strip()]
# wrappers that mark the whole output as the answer, or only add markup: reading the wrapped output must read the same
WRAPPERS = {
    "answer tag": lambda o: f"<answer>{o.strip()}</answer>",
    "reasoning block": lambda o: f"<think>\nLet me work through this carefully before answering.\n</think>\n\n{o.strip()}",
    "reasoning and answer tags": lambda o: f"<reasoning>\nI check the facts.\n</reasoning>\n<answer>\n{o.strip()}\n</answer>",
    "JSON answer field": lambda o: json.dumps({"answer": o.strip()}),
    "fenced JSON with a reasoning field": lambda o: "```json\n" + json.dumps({"reasoning": "Checked.", "answer": o.strip()}, indent=2) + "\n```",
    "citation and footnote": lambda o: f"{o.strip()} [1]\n\n[1] Source: Wikipedia.",
    "Markdown quote": lambda o: "\n".join("> " + line for line in o.strip().split("\n")),
    "chat turn header": lambda o: f"<|im_start|>assistant\n{o.strip()}<|im_end|>",
    "final channel": lambda o: f"<|channel|>analysis<|message|>Need to answer.<|end|><|start|>assistant<|channel|>final<|message|>{o.strip()}<|return|>",
}


# ------------------------------------------------------------------ reasoning blocks are the way, not the answer


# ------------------------------------------------------------------ answer tags


# ------------------------------------------------------------------ JSON fields


# ------------------------------------------------------------------ code: the program's output answers "what does it print"


# ------------------------------------------------------------------ bulleted records


def test_plain_outputs_are_not_read_as_structured() -> None:
    assert extract("The answer is 42.", "number").rule == "marked"


# ------------------------------------------------------------------ reasoning channels, and a JSON record's one fitting field


# ------------------------------------------------------------------ a command is read as written; a value as printed


# ------------------------------------------------------------------ unwrapping keeps every reading of ordinary outputs
@pytest.mark.parametrize("wrapper", sorted(WRAPPERS))
def test_wrapping_an_ordinary_output_as_the_answer_keeps_its_reading(wrapper: str) -> None:
    wrap = WRAPPERS[wrapper]
    changed = []
    for row in ROWS:
        output = row["output"].split("</s>")[0]  # an end-of-text token ends the output, not the wrapper
        plain = read(output, row["kind"], row["question"], row["choices"])
        wrapped = read(wrap(output), row["kind"], row["question"], row["choices"])
        if wrapped != plain:
            changed.append((row["id"], plain, wrapped))
    assert not changed, changed[:5]


