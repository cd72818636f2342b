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
    extract_choice,
    extract_many,
    extract_number,
    extract_text,
    extract_yes_no,
    normalize_text,
    parse_number,
    register_extractor,
    rule_families,
)
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


# ------------------------------------------------------------------ the question and options as inputs
# Outputs of each failure class named in the issue, written from its text (not items of a labelled set).
@pytest.mark.parametrize("output, question, expected", [
    # answer first, explanation after (the explanation has other numbers)
    ("31 students. Two rooms of 12 and one of 7: 12 + 12 + 7.", "How many students are in the three rooms?", "31"),
    ("48\n\nEach of the 6 boxes holds 8, so 6 x 8.", "How many pencils are in 6 boxes of 8?", "48"),
    ("The bus needs 14 seats. With 3 rows of 4 plus a bench of 2 that is 12 + 2.", "How many seats does the bus need?", "14"),
    # inside a sentence, a clause before it
    ("Before tax of $2, the meal costs $18.", "How much is the meal?", "18"),
    # self-correction
    ("The answer is 45. Wait, that should be 47 since I dropped a carry.", "What is 19 + 28?", "47"),
    ("12 x 4 = 46... actually no, 12 x 4 = 48.", "What is 12 times 4?", "48"),
    # a table's total, notes with other numbers after it
    ("| item | cost |\n|---|---|\n| pen | $2 |\n| book | $9 |\n| Total | $11 |\n\nNote: a second pen would add $2.",
     "What is the total cost?", "11"),
    # number words next to digits; percent vs decimal for a probability; places asked for
    ("Nineteen (that is 20 - 1).", "What is twenty minus one?", "19"),
    ("There is a 40% chance of rain.", "What is the probability of rain?", "0.4"),
    ("About 33.3%.", "What is the probability, to two decimal places, of drawing the one red ball of three?", "0.33"),
    ("It rose by 40%.", "By what percentage did it rise?", "40"),
    # a base model writing its next few-shot question
    (" 7\n\nQuestion: What is 2 + 2?\nAnswer: 4", "What is 3 + 4?", "7"),
])
def test_numbers_read_as_a_person_reads_them(output, question, expected):
    assert extract(output, "number", question=question).value == expected


@pytest.mark.parametrize("output, question", [
    ("I don't have access to the shop's records, so I can't say how many it sold.", "How many did the shop sell?"),
    ("Somewhere between 300 and 400, I can't pin it down.", "How many bones does a baby have?"),
    ("To find the speed we divide the distance by the time. The distance is 120 km and the time", "How fast is the car?"),
    ("Could you tell me which year you mean?", "What was the population?"),
])
def test_numbers_abstain_rather_than_guess(output, question):
    assert extract(output, "number", question=question).value is None


DIETS = ["Herbivorous", "Carnivorous", "Omnivorous"]


@pytest.mark.parametrize("output, choices, expected", [
    ("It's a carnivore: wolves hunt.", DIETS, "B"),
    ("The ratio is 3/2.", ["0.5", "1.5", "2", "3"], "B"),
    ("The third option.", DIETS, "C"),
    ("I'd pick option 2.", DIETS, "B"),
    ("B. A is wrong since it ignores friction, and C and D misread the graph.", ["x", "y", "z", "w"], "B"),
    ("C\n\nA and B are both common mistakes.", ["x", "y", "z"], "C"),
    ("A. Hmm, no: the capital moved in 1923. The answer is B.", ["Istanbul", "Ankara"], "B"),
    ("Omnivorous, not herbivorous as often claimed.", DIETS, "C"),
    ("| option | value |\n|---|---|\n| A | 3 |\n| B | 9 |\n\nSo B is the largest.", ["3", "9"], "B"),
])
def test_options_named_by_text_paraphrase_value_or_ordinal(output, choices, expected):
    assert extract(output, "choice", choices=choices).value == expected


@pytest.mark.parametrize("output, expected", [
    ("Certainly.", "yes"), ("Not at all.", "no"), ("Right.", "yes"), ("That is a common misconception.", "no"),
    ("There is no denying it: the data agree.", "yes"), ("No wonder it does; it is built for it.", "yes"),
    ("No doubt about it.", "yes"), ("Only in captivity.", "no"), ("True.", "yes"), ("It does not.", "no"),
    ("Yes, no question about it.", "yes"), ("No. Yes, some people think so, but it is wrong.", "no"),
    ("Yes... wait, no. It melts at 0 degrees, so it is not solid at 5.", "no"),
])
def test_verdicts_with_and_without_yes_no_words(output, expected):
    assert extract(output, "yes_no", question="Is it so?").value == expected


def test_yes_no_restatement_reads_its_polarity():
    q = "Does Portugal border France?"
    assert extract("Portugal does not border France; Spain lies between them.", "yes_no", question=q).value == "no"
    assert extract("Portugal borders only Spain, rather than France.", "yes_no", question=q).value == "no"


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


@pytest.mark.parametrize("output", [
    "I don't know.", "I'm not sure who that was.", "Either Lyon or Marseille, I can't remember which.",
    "That's an interesting question! Historians disagree about it a lot.",
])
def test_text_abstains_rather_than_guess(output):
    assert extract(output, "text", question="Which city was it?").value is None


def test_old_positional_calls_still_work():
    assert extract_choice("Paris", ["London", "Paris"]).value == "B"
    assert extract("B", "choice", choices=["x", "y"]).value == "B"
    assert extract_number("7").value == "7" and extract_yes_no("yes").value == "yes" and extract_text("Paris").value == "Paris"


def test_rules_can_be_switched_off_by_family():
    output, q = "31 students. Two rooms of 12 and one of 7: 12 + 12 + 7.", "How many students?"
    assert extract(output, "number", question=q).rule == "answer_first"
    assert extract(output, "number", question=q, disable={"answer_first"}).value != "31"
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


def test_outputs_written_to_probe_generalization():
    """Outputs in several models' styles, written after the rules to find where they did not generalize
    (each miss found here was fixed by a general rule, and the output kept as a regression case)."""
    import sys

    sys.path.insert(0, str(LABELLED.parents[2]))
    from benchmarks.bench_extract import is_correct

    rows = [json.loads(line) for line in (Path(__file__).parent / "data" / "extract_cases.jsonl").read_text().splitlines()]
    wrong = [(r["id"], r["gold"], got) for r in rows
             if not is_correct(r["kind"], got := extract(r["output"], r["kind"], question=r["question"],
                                                          choices=r["choices"]).value, r["gold"])]
    assert len(rows) >= 100 and not wrong


def test_evaluation_reads_answers_with_the_examples_question(tmp_path):
    """The example's input is the question: "12 boxes hold 48 pencils." answers 48 only given the question."""
    import gengap

    ds = gengap.load([{"input": f"How many pencils are in {n} boxes of 4?", "target": str(4 * n)} for n in range(2, 22)])

    def chatty(batch):
        return [f"{q.split()[5]} boxes hold {4 * int(q.split()[5])} pencils." for q in batch]

    assert extract("12 boxes hold 48 pencils.", "number").value == "12"  # without the question
    ev = gengap.evaluate(chatty, ds, ["random"], out=tmp_path, extract="number", test_fraction=0.5)
    rows = ev.rows()
    assert len(rows) == 10 and rows["score"].eq(1.0).all()
