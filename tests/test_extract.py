"""Answer extraction: each rule of the cascade, the unextracted outcome, the labelled set, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gengap._errors import ConfigError, DataError
from gengap.cli import app
from gengap.extract import Extractor, extract, extract_many, parse_number, register_extractor
from gengap.models import FunctionModel

LABELLED = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "extraction_labelled.jsonl"


@pytest.mark.parametrize("output, expected", [
    ("#### 1,234", "1234"),
    ("The total is $1,234.50.", "1234.5"),
    ("\\boxed{\\frac{3}{4}}", "0.75"),
    ("about 6.02e23 molecules", "6.02e+23"),
    ("roughly 3.2 × 10^5 people", "320000"),
    ("She needs 1 1/2 cups.", "1.5"),
    ("The answer is twenty-five.", "25"),
    ("The answer is one half.", "0.5"),
    ("It fell to -5 degrees.", "-5"),
    ("16 - 3 - 4 = 9", "9"),
    ("g = 9.81 m/s^2", "9.81"),
    ('{"answer": "104"}', "104"),
    ("The answer is 4 hours, not 6.", "4"),
    ("6 × 6 = 36.\nSo there are 36 chairs. Ask me 2 more questions!", "36"),
    ("45% of voters", "45"),
])
def test_numbers(output, expected):
    assert extract(output, "number").value == expected


@pytest.mark.parametrize("output", ["I cannot determine the answer.", "It could be either 12 or 15.", "", "N/A"])
def test_unreadable_numbers_are_unextracted(output):
    found = extract(output, "number")
    assert found.value is None and found.rule == "unextracted" and not found.ok


CHOICES = ["London", "Paris", "Rome", "Berlin"]


@pytest.mark.parametrize("output, expected", [
    ("B", "B"), ("(b)", "B"), ("B) Paris", "B"), ("Answer: [C]", "C"), ("**D**", "D"),
    ('{"answer": "B"}', "B"), ('{"answer": "Rome"}', "C"), ("\\boxed{A}", "A"),
    ("I believe the answer is Paris.", "B"), ("Berlin", "D"),
    ("It's not A. The answer is not C either. The answer is B.", "B"),
    ("We can eliminate (B), (C) and (D). Therefore the answer is (A).", "A"),
    ("I'd go with D.", "D"), ("B is correct.", "B"), ("The city is not listed, so: C.", "C"),
])
def test_choices(output, expected):
    assert extract(output, "choice", choices=CHOICES).value == expected


def test_choice_unextracted_and_letter_range():
    assert extract("I'm not sure; maybe A or B.", "choice", choices=CHOICES).value is None
    assert extract("As an AI, I have no opinion.", "choice", choices=CHOICES).value is None
    # E is not an option of a four-option question
    assert extract("The answer is E.", "choice", choices=CHOICES).value is None


@pytest.mark.parametrize("output, expected", [
    ("Yes", "yes"), ("No.", "no"), ("true", "yes"), ("Final Answer: False", "no"), ('{"answer": true}', "yes"),
    ("There is no evidence for it. Therefore, the answer is no.", "no"),
    ("Is 17 prime? It has no divisors other than 1 and itself, so yes.", "yes"),
    ("The claim is false because the study had no control group.", "no"),
    ("No. Yes, she visited Rome, but never Venice.", "no"),
])
def test_yes_no(output, expected):
    assert extract(output, "yes_no").value == expected


@pytest.mark.parametrize("output", ["Maybe.", "It depends on the context.", "I'm not sure."])
def test_yes_no_unextracted(output):
    assert extract(output, "yes_no").value is None


@pytest.mark.parametrize("output, expected", [
    ("Final answer: Paris", "Paris"), ("**Marie Curie** was the first.", "Marie Curie"),
    ("The answer is Canberra, not Sydney.", "Canberra"), ("Mount Everest (8,849 m)", "Mount Everest"),
    ('{"answer": "oxygen"}', "oxygen"), ("It was William Shakespeare.", "William Shakespeare"),
])
def test_text(output, expected):
    assert extract(output, "text").value == expected


def test_text_unextracted():
    assert extract("Sorry, I cannot answer that question.", "text").value is None
    long = "That's an interesting question! There are many perspectives, and historians disagree about it a lot."
    assert extract(long, "text").value is None


def test_parse_number_is_exact():
    from fractions import Fraction

    assert parse_number("\\frac{1}{3}") == Fraction(1, 3)
    assert parse_number("no digits here") is None


def test_unknown_kind_names_the_nearest():
    with pytest.raises(ConfigError, match="Did you mean 'number'"):
        extract("4", "numbr")


def test_custom_extractor_and_registered_kind():
    ex = Extractor("number", custom=lambda out, choices: "7" if "seven-ish" in out else None)
    assert ex(["seven-ish", "#### 3"]) == ["7", "3"]

    @register_extractor("roman")
    def roman(output, choices=None):
        return {"IV": "4", "IX": "9"}.get(output.strip())

    assert extract_many(["IV", "XL"], "roman") == ["4", None]


def test_llm_judge_reads_only_what_the_cascade_missed():
    asked = []

    def judge(prompts):
        asked.extend(prompts)
        return ["B" if "capital of France" in p else "UNREADABLE" for p in prompts]

    ex = Extractor("choice", judge=FunctionModel(judge, name="judge"))
    got = ex(["(A)", "Hmm, the capital of France, I suppose the second city", "no idea at all"],
             choices=[CHOICES] * 3)
    assert got == ["A", "B", None]
    assert len(asked) == 2  # the first output never reached the judge
    assert ex.extract_all(["Hmm, the capital of France ..."], [CHOICES])[0].rule == "judge"
    with pytest.raises(DataError, match="choice lists"):
        ex(["A", "B"], choices=[CHOICES])


def test_labelled_set_is_read_correctly():
    rows = [json.loads(line) for line in LABELLED.read_text(encoding="utf-8").splitlines()]
    assert len(rows) >= 300 and {r["kind"] for r in rows} == {"number", "choice", "yes_no", "text"}
    import sys

    sys.path.insert(0, str(LABELLED.parents[2]))
    from benchmarks.bench_extract import is_correct

    correct = [is_correct(r["kind"], extract(r["output"], r["kind"], choices=r["choices"]).value, r["gold"]) for r in rows]
    assert sum(correct) / len(rows) >= 0.95


def test_cli_extract(tmp_path):
    src = tmp_path / "outputs.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in [
        {"kind": "number", "response": "so #### 12"},
        {"kind": "choice", "response": "I pick (b)", "opts": ["x", "y"]},
        {"kind": "yes_no", "response": "hmm, hard to say"},
    ]) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(app, ["extract", str(src), "--kind-field", "kind", "--output-field", "response",
                                      "--choices-field", "opts", "--out", str(out)])
    assert result.exit_code == 0, result.output
    got = [json.loads(line)["extracted"] for line in out.read_text().splitlines()]
    assert got == ["12", "B", None]
    assert "yes_no" in result.output and "100.0%" in result.output

    bad = CliRunner().invoke(app, ["extract", str(src), "--kind", "number", "--out", str(out)])
    assert bad.exit_code != 0 and "output" in str(bad.exception)
