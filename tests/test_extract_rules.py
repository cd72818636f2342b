"""Which rule reads a case, and what switching it off reads instead: the ablation checks that go with
the cases of ``tests/data/extract/`` (``disable=`` names a rule or its family, see ``rule_families``)."""

from __future__ import annotations

from _readers import ch, num, tx, yn
from gengap.extract import extract
from gengap.extract._base import closing_hedge, own_answer


# ------------------------------------------------------------------ shared: echoes, corrections, refusals, hedges
def test_echo_with_its_few_shot_label_is_not_the_answer():
    assert own_answer("Question: Is ice cold?\nAnswer:").strip() == ""


def test_closing_hedge():
    assert closing_hedge("No, not usually. On clear nights, yes, faintly. So it depends.")
    assert yn("No, not usually. On clear nights, yes, faintly. So it depends.", "Can you see Saturn's rings by eye?",
              disable=("abstain",)) == "no"
    # counter-examples: a hedge naming what it depends on qualifies the answer, it does not take it back
    assert not closing_hedge("Yes. It depends on altitude how much.")


# ------------------------------------------------------------------ yes/no


def test_table_row_before_notes():
    out = "| Metal | Magnetic |\n|---|---|\n| Copper | No |\n\nNote: iron is; yes, strongly."
    assert yn(out, "Is copper magnetic?", disable=("table",)) == "yes"


def test_contrast_denies_the_questions_term():
    out = "She won the prize in 1911, but for chemistry, not physics."
    assert yn(out, "Did Marie Curie win the 1911 prize for physics?", disable=("negation",)) is None


# ------------------------------------------------------------------ short text answers


def test_a_correction_reads_the_new_answer_not_the_retracted_one():
    assert tx("Pluto. Wait, no: Pluto is a dwarf planet now. The smallest planet is Mercury.", "What is the smallest planet?",
              disable=("self_correction",)) == "Pluto"


def test_table_cell_under_the_column_the_question_names():
    out = "| Rank | River | Length (km) |\n|---|---|---|\n| 1 | Nile | 6,650 |\n| 2 | Amazon | 6,400 |\n\nNote: the Amazon may be longer."
    assert tx(out, "What is the longest river?", disable=("table",)) == "Amazon"


def test_a_guess_asked_back_then_corrected():
    assert tx("Sydney? No - the capital is Canberra.", "What is the capital of Australia?", disable=("answer_inside_sentence",)) is None


def test_another_place_than_the_question_names():
    assert yn("It's actually in Tanzania.", "Is Mount Kilimanjaro in Kenya?", disable=("negation",)) is None


def test_another_count_than_the_question_gives():
    assert yn("Insects have six legs.", "Do insects have eight legs?", disable=("answer_inside_sentence",)) is None


def test_end_of_turn_tokens_without_underscores():
    assert own_answer("Lisbon<endofturn>\nnext").strip() == "Lisbon"


def test_exceptions_to_all_and_another_name_with_more():
    assert yn("The Volga is longer.", "Is the Danube the longest river in Europe?", disable=("negation",)) is None


def test_a_choice_left_open_in_so_many_words_is_no_pick():
    options, question = ["Enthusiastic", "Opposed", "Indifferent"], "How does the author feel about the new policy?"

    def ch(output: str) -> str | None:
        return extract(output, "choice", question=question, choices=options).value

    assert ch("Hard to tell; maybe against it, maybe not.") is None
    assert ch("I could not say whether she is for or against it.") is None
    assert ch("Maybe opposed, maybe not.") is None
    # counter-examples: a pick stays a pick ("against it" alone names no option: that gloss is knowledge, not read)
    assert ch("She is opposed to it.") == "B"
    assert ch("Opposed. She calls it a mistake twice.") == "B"


# ------------------------------------------------------------------ numbers
def test_a_unit_equivalence_answers_with_the_unit_asked():
    q = "How many teaspoons are in a tablespoon?"
    # counter-examples: the working of a conversion reads its result; a switched-off rule reads the last number
    assert num("3 teaspoons = 1 tablespoon.", q, disable=("conversion", "in_asked_unit")) == "1"  # both unit rules off


# ------------------------------------------------------------------ other scripts, notes, enumerations


def test_courtesies_around_the_fresh_batches_keep_every_reading():
    """Every number and choice output of the fresh batches, wrapped in an opening courtesy or a closing
    offer, keeps the reading it has bare (a preamble or an offer states no answer)."""
    import json
    from pathlib import Path

    folder = Path(__file__).resolve().parent.parent / "benchmarks" / "data" / "extraction_v6dev"
    rows = [json.loads(line) for name in ("number_choice_r1.jsonl", "number_choice_r2.jsonl")
            for line in (folder / name).read_text(encoding="utf-8").splitlines()]
    wraps = (lambda o: "Sure! Here's the answer.\n\n" + o, lambda o: o + "\n\nLet me know if you have any other questions!",
             lambda o: "Great question! " + o + "\n\nI hope this helps!")
    changed = []
    for r in rows:
        bare = extract(r["output"], r["kind"], question=r["question"], choices=r["choices"]).value
        for wrap in wraps:
            got = extract(wrap(r["output"]), r["kind"], question=r["question"], choices=r["choices"]).value
            if got != bare:
                changed.append((r["id"], bare, got))
    assert len(rows) == 140 and not changed


# ------------------------------------------------------------------------------------------- numbers


def test_named_value_is_the_reading():
    output, question = "The median is 7.\n\nSorted: 2, 5, 7, 9, 11; the middle value sits at position 3.", "What is the median of 9, 2, 11, 7 and 5?"
    assert extract(output, "number", question=question).rule == "named_value"
    assert num(output, question, disable=("named_value",)) == "3"  # the value the first sentence names


def test_counted_switched_off():
    output, question = "A triangular prism has 5 faces, 6 vertices and 9 edges.", "How many edges does a triangular prism have?"
    assert extract(output, "number", question=question).rule == "counted"
    assert num(output, question, disable=("answer_inside_sentence",)) == "5"


# ------------------------------------------------------------------------------------------- choices


def test_correction_switched_off():
    output = "The first one... no, sorry, the third: Mandarin."
    args = ("Which language has the most native speakers?", ["English", "Spanish", "Mandarin", "Hindi"])
    assert extract(output, "choice", question=args[0], choices=args[1]).rule == "correction"
    assert ch(output, *args, disable=("self_correction",)) == "A"


def test_negated_pick_switched_off():
    output = "A tomato is not a vegetable botanically; carrots, leeks and peas are eaten as vegetables."
    args = ("Which of these is NOT a vegetable, botanically?", ["Carrot", "Tomato", "Leek", "Pea"])
    assert ch(output, *args, disable=("negated_pick",)) is None


DIRECTIONS = ["It falls", "It is unchanged", "It rises"]


def test_direction_switched_off():
    output = "The air warms and expands, so the balloon's volume goes up."
    assert extract(output, "choice", question="What happens to the balloon's volume?", choices=DIRECTIONS).rule == "direction"
    assert ch(output, "What happens to the balloon's volume?", DIRECTIONS, disable=("direction",)) is None


# ---------------------------------------------------------------------------------------- choice
GASES = ["Oxygen", "Nitrogen", "Carbon dioxide", "Helium"]


def test_the_value_given_to_the_thing_asked_by_its_name():
    q = "A $200 jacket is 30% off. What is the sale price in dollars?"
    # counter-examples: "of" after the name introduces what it is of; two values given to it commit to none
    assert extract("In store the sale price is $140; online the sale price is $135.", "number", question=q).rule == "answer_first"


PLANETS = ["Mercury", "Venus", "Earth", "Mars"]


def rule(output: str, question: str) -> str:
    return extract(output, "yes_no", question=question).rule


def test_an_opening_courtesy_is_no_verdict():
    # a compliance word yields to an explicit verdict after it, and "Sure!" to any reading after it
    # counter-examples: the same words as the verdict itself
    opened = "Great question! Absolutely. At 8,849 m it is the highest."
    assert extract(opened, "yes_no", question="Is Everest the highest mountain?", disable=["courtesy"]).value is None


def test_the_pair_an_instruction_offers_is_no_verdict():
    q = "Is the Amazon the longest river in the world? Answer yes or no."
    out = " Is the Amazon the longest river in the world? Answer yes or no.\nIs the Nile the longest river in the world? Answer yes or no.\nIs the"
    assert rule(out, q) == "unextracted"


# ------------------------------------------------------------------ a courtesy around the reply states nothing
def test_a_courtesy_opener_or_closer_is_not_the_answer():
    q = "What is the capital of Italy?"
    assert extract("Thanks for asking! Rome", "text", question=q, disable=["courtesy"]).value == "Thanks"


# ------------------------------------------------------------------ "the A of the B": the thing of the asked kind is B
def test_a_part_or_state_of_the_asked_thing_names_the_thing():
    # counter-examples: the question's own noun after "of", a name with "of", a question without a kind
    assert extract("Hepatitis is inflammation of the liver.", "text", question="Which organ is affected by hepatitis?",
                   disable=["in_sentence"]).value is None


# ------------------------------------------------------------------ a candidate denied at the opening is not the answer
def test_a_denied_candidate_gives_way_to_what_follows():
    q = "What is the capital of Australia?"
    # counter-examples: an unsure opener is no denied candidate, and "not only" denies nothing
    assert extract("Not Sydney — Canberra.", "text", question=q, disable=["answer_first"]).value == "Canberra"
