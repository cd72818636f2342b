"""A guard for precision on ordinary outputs: rules tuned on hard shapes must still read the plain
answers models give most often, also with the courtesies chat models wrap them in.

Reads ``benchmarks/data/extraction_v6dev/ordinary.jsonl`` (160 plain outputs, 40 per kind, written
before their writer read the rules) and hand-written cases, each with a counter-example the rule
must leave alone."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from gengap.extract import extract
from gengap.extract._base import without_preamble

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_extract import is_correct  # noqa: E402

ORDINARY = ROOT / "benchmarks" / "data" / "extraction_v6dev" / "ordinary.jsonl"
ROWS = [json.loads(line) for line in ORDINARY.read_text(encoding="utf-8").splitlines() if line.strip()]

# courtesies that change nothing about the answer
OPENERS = ("Sure! ", "Great question! ", "Certainly. ", "Of course! Here's the answer:\n\n", "Happy to help.\n\n",
           "Okay, let me think.\n\n", "Let's solve this step by step.\n\n", "Good question! Let me explain.\n\n",
           "Here's how to think about it:\n\n", "To answer your question: ", "Hi there! ", "Thanks for asking! ", "Sure, here you go:\n\n")
CLOSERS = ("\n\nI hope this helps!", " Let me know if you have any other questions.", "\n\nIs there anything else you'd like to know?",
           " \U0001f60a", "\n\nFeel free to ask if you need more details.", "</s>", "\n\nHope that answers your question!",
           "\n\nLet me know if you'd like me to explain any step in more detail.", "\n\nWould you like help with another problem?",
           "\n\nGood luck with your studies!", "\n\nIs there anything else I can help you with?", "\n\nHappy learning!",
           "\n\nThanks for the great question!")


def reads(row: dict, output: str) -> bool:
    got = extract(output, row["kind"], question=row["question"], choices=row["choices"]).value
    return is_correct(row["kind"], got, row["gold"], row.get("aliases"))


def wrapped(row: dict) -> list[str]:
    body = row["output"]
    outs = [opener + body for opener in OPENERS]
    for closer in CLOSERS:
        ended = body.rstrip() + "." if closer.startswith(" ") and body.rstrip()[-1:].isalnum() else body
        outs.append(ended + closer)
    return outs


def test_ordinary_batch_is_read():
    assert len(ROWS) == 160
    missed = [r["id"] for r in ROWS if not reads(r, r["output"])]
    assert len(missed) <= 4, missed  # 160/160 when the batch was scored; a drop is a precision loss on plain outputs
    assert not [i for i in missed if i.startswith(("number-", "choice-"))]


@pytest.mark.parametrize("kind", ["number", "choice"])
def test_courtesies_change_no_reading(kind):
    rows = [r for r in ROWS if r["kind"] == kind and r["pattern"] != "base_model_continuation"]
    missed = [(r["id"], out) for r in rows for out in wrapped(r) if not reads(r, out)]
    assert not missed, missed[:5]


# ------------------------------------------------------------------------------------------- numbers


# -------------------------------------------------------------------------------------------- choices
INSTRUMENTS = ["Guitar", "Piano", "Violin", "Flute"]
SHAPES = ["Square", "Triangle", "Circle"]
STOCKS = ["Company A", "Company B", "Company C", "Company D"]
GASES = ["Oxygen", "Nitrogen", "Carbon dioxide", "Helium"]


VITAMINS = ["Vitamin A", "Vitamin C", "Vitamin D", "Vitamin K"]
CITIES = ["Sydney", "Melbourne", "Canberra", "Perth"]


def test_without_preamble_keeps_a_bare_word():
    assert without_preamble("Great question! C) Carbon dioxide") == "C) Carbon dioxide"
    assert without_preamble("Sure") == "Sure"
    assert without_preamble("To answer your question: B") == "B"
    assert without_preamble("Good luck with the exam.") == "Good luck with the exam."
