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
@pytest.mark.parametrize("output, question, expected", [
    # "answers" in a closing courtesy is no answer marker
    ("The answer is 12.\n\nHope that answers your question!", "What is 144 divided by 12?", "12"),
    ("It needs 8 × 3.5 = 28 liters.\n\nHope that answers your question!", "How many liters for 350 km at 8 per 100 km?", "28"),
    # a marker on a line of its own announces the worked reply that follows
    ("Of course! Here's the answer:\n\n15 + 27 = 42", "What is 15 + 27?", "42"),
    ("Here's the answer:\n\n9 squared is 81.", "What is 9 squared?", "81"),
    ("Here's the answer:\n\nTo find how many passed, multiply 24 by 3/4:\n\n24 × 3/4 = 18\n\nSo **18 students** passed.",
     "A class has 24 students. If 3/4 of them passed, how many passed?", "18"),
    ("Here's the answer:\n\nNobody knows. Estimates range from zero to 1 million.", "How many people will live on Mars in 2100?", None),
    # counter-examples: a marker followed by its value still reads it
    ("Answer:\n42", "What is 6 times 7?", "42"),
    ("Answer: 12 (3 × 4)", "What is 3 times 4?", "12"),
    ("**Answer:**\n\n35 marbles", "Tom has 52 marbles and gives 17 away. How many are left?", "35"),
    ("The answer is 7, since 12 = 5 + 7.", "What is 12 - 5?", "7"),
    # a result the output arrives at is an answer, also when the question holds the same number
    ("After working it out, I get 12.", "What is 144 divided by 12?", "12"),
    ("A dozen is 12 eggs.", "How many eggs are in a dozen?", "12"),
    # "one" as a pronoun in a closing remark is no number, and the remark no trailing sentence
    ("2 + 2 = 4. Easy one!", "What is 2 + 2?", "4"),
    ("That one is 7.", "What is 3 + 4?", "7"),
    # counter-examples: "one" as the count
    ("Only one.", "How many moons does Earth have?", "1"),
    ("Earth has just one moon.", "How many moons does Earth have?", "1"),
    # counter-example: a remark about the question's own numbers is none
    ("You would need to divide 144 by 12.", "What is 144 divided by 12?", None),
    # a calculation in words states its result last
    ("3 times 60 gives 180.", "How many minutes are in 3 hours?", "180"),
    ("60 times 3 is 180.", "How many minutes are in 3 hours?", "180"),
    ("Multiply 3 by 60 to get 180.", "How many minutes are in 3 hours?", "180"),
    ("144 and 12 give 12.", "What is 144 divided by 12?", "12"),
    # counter-examples: the answer first, then the calculation; a count in a sentence
    ("180 minutes. 3 times 60 gives 180.", "How many minutes are in 3 hours?", "180"),
    ("It has 8 legs and 2 body segments.", "How many legs does a spider have?", "8"),
])
def test_number_markers_in_ordinary_replies(output, question, expected):
    assert extract(output, "number", question=question).value == expected


# -------------------------------------------------------------------------------------------- choices
INSTRUMENTS = ["Guitar", "Piano", "Violin", "Flute"]
SHAPES = ["Square", "Triangle", "Circle"]
STOCKS = ["Company A", "Company B", "Company C", "Company D"]
GASES = ["Oxygen", "Nitrogen", "Carbon dioxide", "Helium"]


@pytest.mark.parametrize("output, question, choices, expected", [
    # after a marker, "A" opening a sentence is its article, "I"/"It" a pronoun, not option A or option i
    ("Of course! Here's the answer:\n\nA standard piano has 88 keys.", "Which instrument has 88 keys?", INSTRUMENTS, "B"),
    ("Here's the answer:\n\nA triangle.", "Which shape has three sides?", SHAPES, "B"),
    ("Here's the answer:\n\nI can't predict which stock will perform best.", "Which stock will do best?", STOCKS, None),
    ("Here's the answer:\n\nIt's impossible to say for sure.", "Which stock will do best?", STOCKS, None),
    # counter-examples: a letter after a marker is still the letter
    ("The answer is A because pianos have 88 keys.", "Which instrument has 88 keys?", ["Piano", "Guitar", "Violin"], "A"),
    ("Answer: A", "Which instrument has 88 keys?", ["Piano", "Guitar", "Violin"], "A"),
    ("The answer is (ii).", "Which shape has three sides?", SHAPES, "B"),
    # an opening courtesy before the letter
    ("Great question! **C) Carbon dioxide**\n\nPlants take in carbon dioxide and release oxygen.",
     "What gas do plants absorb from the air?", GASES, "C"),
    ("Happy to help.\n\nC) Carbon dioxide", "What gas do plants absorb from the air?", GASES, "C"),
    # a doubt after "Hmm" is no correction: the output names two answers
    ("Check the digit sums: 2+3+4 = 9, 5+6+7 = 18.\n\nHmm, both 234 and 567 work. I can't pick just one; the question seems "
     "to have two correct answers (A and D).", "Which of the following numbers is divisible by 9?", ["234", "345", "456", "567"], None),
    # counter-example: a correction that names its option
    ("B. Wait, no: it's D, 567.", "Which of the following numbers is divisible by 9?", ["234", "345", "456", "567"], "D"),
])
def test_choice_in_ordinary_replies(output, question, choices, expected):
    assert extract(output, "choice", question=question, choices=choices).value == expected


VITAMINS = ["Vitamin A", "Vitamin C", "Vitamin D", "Vitamin K"]
CITIES = ["Sydney", "Melbourne", "Canberra", "Perth"]


@pytest.mark.parametrize("output, choices, expected", [
    # a lone letter names the option of that letter, also when an option's text ends in a letter
    ("Definitely C.", VITAMINS, "C"),
    ("It's C.", VITAMINS, "C"),
    # counter-examples: the option's own words name it
    ("Vitamin C.", VITAMINS, "B"),
    ("We get vitamin D from sunlight.", VITAMINS, "C"),
    # someone else's pick is not the output's
    ("I'd say C. Some people pick A, but that's a misconception.", CITIES, "C"),
    ("Many students choose A, but it's C.", CITIES, "C"),
    # counter-example: the output's own pick
    ("I pick C.", CITIES, "C"),
])
def test_letters_in_ordinary_replies(output, choices, expected):
    question = "Which vitamin do we get from sunlight?" if choices is VITAMINS else "What is the capital of Australia?"
    assert extract(output, "choice", question=question, choices=choices).value == expected


def test_without_preamble_keeps_a_bare_word():
    assert without_preamble("Great question! C) Carbon dioxide") == "C) Carbon dioxide"
    assert without_preamble("Sure") == "Sure"
    assert without_preamble("To answer your question: B") == "B"
    assert without_preamble("Good luck with the exam.") == "Good luck with the exam."
