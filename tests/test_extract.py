"""Answer extraction: each rule of the cascade, the unextracted outcome, the labelled set, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gengap._errors import ConfigError, DataError
from gengap.cli import app
from gengap.extract import (
    Extractor,
    extract,
    extract_many,
    normalize_text,
    parse_number,
    register_extractor,
    rule_families,
)
from gengap.models import FunctionModel

LABELLED = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "extraction_labelled.jsonl"


def _same(kind: str, got: str | None, gold: str | None) -> bool:
    """Whether a reading is the labelled answer (numbers by value, text by its normal form)."""
    if got is None or gold is None:
        return got is gold
    if kind == "number":
        return parse_number(got) == parse_number(gold)
    if kind == "text":
        return normalize_text(got) == normalize_text(gold)
    return got.lower() == gold.lower()


@pytest.mark.parametrize("output", ["I cannot determine the answer.", "It could be either 12 or 15.", "", "N/A"])
def test_unreadable_numbers_are_unextracted(output):
    found = extract(output, "number")
    assert found.value is None and found.rule == "unextracted" and not found.ok


CHOICES = ["London", "Paris", "Rome", "Berlin"]


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
    got = ex(["(A)", "Hmm, the capital of France, Paris or Rome? I suppose the second city", "no idea at all"],
             choices=[CHOICES] * 3)
    assert got == ["A", "B", None]
    assert len(asked) == 2  # the first output never reached the judge
    assert ex.extract_all(["Hmm, the capital of France ... Paris? Rome?"], [CHOICES])[0].rule == "judge"
    # an answer the output does not name is not kept
    assert ex.extract_all(["Hmm, the capital of France ..."], [CHOICES])[0].rule == "unextracted"
    assert ex.judge_report.unsupported == 1
    with pytest.raises(DataError, match="choice lists"):
        ex(["A", "B"], choices=[CHOICES])


def test_labelled_set_is_read_correctly():
    rows = [json.loads(line) for line in LABELLED.read_text(encoding="utf-8").splitlines()]
    assert len(rows) >= 300 and {r["kind"] for r in rows} == {"number", "choice", "yes_no", "text"}
    correct = [_same(r["kind"], extract(r["output"], r["kind"], choices=r["choices"]).value, r["gold"]) for r in rows]
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


# ------------------------------------------------------------------ the question and options as inputs
# Outputs of each failure class named in the issue, written from its text (not items of a labelled set).


DIETS = ["Herbivorous", "Carnivorous", "Omnivorous"]


@pytest.mark.parametrize("output, question, expected", [
    ("The longest river in Europe is the Volga.", "What is the longest river in Europe?", "Volga"),
    ("Danube\n\nIt flows through ten countries.", "Which river flows through Vienna?", "Danube"),
    ("It was written by Mary Shelley in 1818.", "Who wrote Frankenstein?", "Mary Shelley"),
    ('"the Pacific"', "Which is the largest ocean?", "Pacific"),
    ("Canberra, not Sydney.", "What is the capital of Australia?", "Canberra"),
    ("Sydney. Wait, no: the capital of Australia is Canberra.", "What is the capital of Australia?", "Canberra"),
    ("| country | capital |\n|---|---|\n| Peru | Lima |\n\nNote: Cusco was the Inca capital.", "What is the capital of Peru?", "Lima"),
])
def test_short_answers_are_the_span_that_answers_the_question(output, question, expected):
    assert normalize_text(extract(output, "text", question=question).value or "") == normalize_text(expected)


def test_rules_can_be_switched_off_by_family():
    output, q = "31 students. Two rooms of 12 and one of 7: 12 + 12 + 7.", "How many students?"
    assert extract(output, "number", question=q).rule == "answer_first"
    assert extract(output, "number", question=q, disable={"answer_first"}).value == "7"
    assert set(rule_families("yes_no")) >= {"verdict", "idiom", "abstain", "self_correction"}


def test_registered_kind_receives_the_question_when_it_takes_one():
    @register_extractor("echo_question")
    def echo(output, choices=None, question=None):
        return question

    assert extract("x", "echo_question", question="What?").value == "What?"


def test_choice_list_must_have_two_options():
    with pytest.raises(DataError, match="2 to 26 options"):
        extract("A", "choice", choices=["only one"])


def test_cli_extract_reads_the_question_field(tmp_path):
    src = tmp_path / "outputs.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in [
        {"q": "What is the longest river in Europe?", "response": "The longest river in Europe is the Volga."},
        {"q": "How many students in total?", "response": "31 students. Two rooms of 12 and one of 7."},
    ]) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    for kind, line in (("text", 0), ("number", 1)):
        result = CliRunner().invoke(app, ["extract", str(src), "--kind", kind, "--output-field", "response",
                                          "--question-field", "q", "--out", str(out)])
        assert result.exit_code == 0, result.output
        assert json.loads(out.read_text().splitlines()[line])["extracted"] == ("Volga" if kind == "text" else "31")
    src.write_text(json.dumps({"q": 3, "response": "x"}) + "\n", encoding="utf-8")
    bad = CliRunner().invoke(app, ["extract", str(src), "--kind", "text", "--output-field", "response",
                                   "--question-field", "q", "--out", str(out)])
    assert bad.exit_code != 0 and "question field 'q' must be text" in str(bad.exception)



def test_evaluation_reads_answers_with_the_examples_question(tmp_path):
    """The example's input is the question: "12 boxes hold 48 pencils." answers 48 only given the question."""
    import gengap

    ds = gengap.load([{"input": f"How many pencils are in {n} boxes of 4?", "target": str(4 * n)} for n in range(2, 22)])

    def chatty(batch):
        return [f"{q.split()[5]} boxes hold {4 * int(q.split()[5])} pencils." for q in batch]

    ev = gengap.evaluate(chatty, ds, ["random"], out=tmp_path, extract="number", test_fraction=0.5)
    rows = ev.rows()
    assert len(rows) == 10 and rows["score"].eq(1.0).all()
