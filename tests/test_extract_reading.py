"""Rule families for short text answers and yes/no verdicts added for outputs written after the rules
(extraction_v6dev): each case is written here by hand in the shape of its family, with a counter-example
that must keep its reading, and the family switched off once to show that its rule is what reads it."""

from __future__ import annotations

from gengap.extract import extract
from gengap.extract._base import closing_hedge, own_answer


def yn(output: str, question: str, **kw) -> str | None:
    return extract(output, "yes_no", question=question, **kw).value


def tx(output: str, question: str, **kw) -> str | None:
    return extract(output, "text", question=question, **kw).value


# ------------------------------------------------------------------ shared: echoes, corrections, refusals, hedges
def test_echo_with_its_few_shot_label_is_not_the_answer():
    out = "Q: Which river flows through Vienna?\nA: The Danube\nQ: Which river flows through Paris?\nA: The Seine"
    assert tx(out, "Which river flows through Vienna?") == "Danube"
    assert own_answer("Question: Is ice cold?\nAnswer:").strip() == ""
    assert yn("Question: Is ice cold? Answer yes or no.\nQuestion: Is fire hot?", "Is ice cold?") is None
    # counter-example: an echo followed by an answer keeps the answer
    assert yn("Question: Is ice cold?\nAnswer: Yes", "Is ice cold?") == "yes"


def test_just_kidding_retracts_but_no_kidding_affirms():
    assert yn("Yes... just kidding. No, sloths are slow.", "Are sloths fast?") == "no"
    assert yn("No kidding - owls hunt at night.", "Do owls hunt at night?") == "yes"  # counter-example


def test_a_hyphen_inside_a_word_is_no_correction():
    out = "That depends on the dose and the person. There isn't a single yes-or-no answer."
    assert yn(out, "Is salt bad for you?") is None
    assert yn("Yes - no question about it.", "Is salt a mineral?") == "yes"  # counter-example: a dash between words


def test_having_no_access_is_a_refusal():
    assert yn("I have no access to live train times.", "Is the 8:15 train late?") is None
    assert tx("I have no information about your account.", "What is my balance called?") is None
    assert yn("I have no doubt: yes.", "Is Rome in Italy?") == "yes"  # counter-example


def test_toss_up_and_no_choice_made_are_hedges():
    assert yn("Studies disagree; it is basically a toss-up.", "Do cats prefer warm rooms?") is None
    assert tx("Both 'octopi' and 'octopuses' are used, so either could be right.", "What is the plural of octopus?") is None
    assert tx("Lake Superior, if you count area; otherwise Baikal. I can't choose without your definition.",
              "What is the largest lake?") is None
    assert tx("Lake Superior, by area.", "What is the largest freshwater lake by area?") == "Lake Superior"  # counter-example


def test_closing_hedge():
    assert closing_hedge("No, not usually. On clear nights, yes, faintly. So it depends.")
    assert yn("No, not usually. On clear nights, yes, faintly. So it depends.", "Can you see Saturn's rings by eye?") is None
    assert yn("No, not usually. On clear nights, yes, faintly. So it depends.", "Can you see Saturn's rings by eye?",
              disable=("abstain",)) == "no"
    # counter-examples: a hedge naming what it depends on qualifies the answer, it does not take it back
    assert not closing_hedge("Yes. It depends on altitude how much.")
    assert yn("Yes. How much depends on the altitude.", "Does water boil lower on mountains?") == "yes"


# ------------------------------------------------------------------ yes/no
def test_idiom_then_the_verdict_said_outright():
    assert yn("No wonder people think so, but no: bulls do not see red.", "Does red make bulls angry?") == "no"
    assert yn("No doubt about it: cheetahs are the fastest.", "Are cheetahs the fastest land animal?") == "yes"  # counter-example
    assert yn("No doubt, but note the caveats: yes.", "Is the Nile long?") == "yes"


def test_there_is_no_way_denies():
    assert yn("There's no way that holds for every bird - kiwis can't fly.", "Can all birds fly?") == "no"
    assert yn("There's no way around it: it is.", "Is tax compulsory?") != "no"  # counter-example


def test_in_a_sense_it_does():
    assert yn("In a sense they do: their leaves turn towards light.", "Do plants move?") == "yes"
    assert yn("In a sense they don't: they never leave their spot.", "Do plants walk?") == "no"


def test_table_row_before_notes():
    out = "| Metal | Magnetic |\n|---|---|\n| Copper | No |\n\nNote: iron is; yes, strongly."
    assert yn(out, "Is copper magnetic?") == "no"
    assert yn(out, "Is copper magnetic?", disable=("table",)) == "yes"
    # counter-example: a table that does not name the question's subject leaves the prose to decide
    assert yn("| Metal | Magnetic |\n|---|---|\n| Iron | Yes |\n\nNo, copper is not.", "Is copper magnetic?") == "no"


def test_contrast_denies_the_questions_term():
    out = "She won the prize in 1911, but for chemistry, not physics."
    assert yn(out, "Did Marie Curie win the 1911 prize for physics?") == "no"
    assert yn(out, "Did Marie Curie win the 1911 prize for physics?", disable=("negation",)) != "no"
    # counter-example: "not only" adds, it does not deny
    assert yn("She won it, not only for physics but also for chemistry.", "Did she win a prize for physics?") != "no"


# ------------------------------------------------------------------ short text answers
def test_a_bare_answer_keeps_the_head_noun_the_question_names():
    assert tx("Compound eyes", "What kind of eyes do flies have?") == "Compound eyes"
    assert tx("Final answer: red blood cells (erythrocytes)", "Which blood cells carry oxygen?") == "red blood cells"
    assert tx("Apollo 11", "Which Apollo mission first landed on the Moon?") == "Apollo 11"
    # counter-examples: the question's word opening the phrase, and a sentence, are still trimmed
    assert tx("planet Venus", "Which planet is the hottest?") == "Venus"
    assert tx("Austrians speak German.", "What language is spoken in Austria?") == "German"


def test_a_correction_reads_the_new_answer_not_the_retracted_one():
    q = "What is the largest planet?"
    out = "Saturn... no, that's the one with the rings. The largest planet is Jupiter."
    assert tx(out, q) == "Jupiter"
    assert tx("Pluto. Wait, no: Pluto is a dwarf planet now. The smallest planet is Mercury.", "What is the smallest planet?") == "Mercury"
    assert tx("Sydney is the capital of Australia. Sorry, correction: Sydney is the largest city; today it's Canberra.",
              "What is the capital of Australia?") == "Canberra"
    assert tx("Barcelona... actually no. Barcelona is the biggest Catalan city, but Madrid is the seat of government - so Madrid.",
              "What is the capital of Spain?") == "Madrid"
    assert tx("Pluto. Wait, no: Pluto is a dwarf planet now. The smallest planet is Mercury.", "What is the smallest planet?",
              disable=("self_correction",)) != "Mercury"
    # counter-example: the first clause after the correction names the answer, the next explains the symbol
    assert tx("Natrium... well, in English it's called sodium. The symbol Na comes from its Latin name.",
              "Which element has the symbol 'Na'?") == "sodium"


def test_the_subject_answers_who_or_what_does_something():
    assert tx("The pancreas makes insulin in its beta cells.", "Which organ makes insulin?") == "pancreas"
    assert tx("Japan's flag shows a red disc on a white field.", "Which country's flag shows a red disc?") == "Japan"
    assert tx("Gregor Mendel patiently bred pea plants in his monastery garden.", "Which scientist founded genetics?") == "Gregor Mendel"
    assert tx("Spain sent Columbus west in 1492, hoping to reach the Indies.", "Which country funded Columbus's voyage?") == "Spain"
    # counter-examples: the question's own subject opening the sentence, and a question with an auxiliary
    assert tx("Bile is stored in the gallbladder.", "Which organ stores bile?") == "gallbladder"
    assert tx("People in Brazil speak Portuguese.", "What language do people in Brazil speak?") == "Portuguese"


def test_table_cell_under_the_column_the_question_names():
    out = "| Rank | River | Length (km) |\n|---|---|---|\n| 1 | Nile | 6,650 |\n| 2 | Amazon | 6,400 |\n\nNote: the Amazon may be longer."
    assert tx(out, "What is the longest river?") == "Nile"
    assert tx("| Lake | Depth (m) |\n|---|---|\n| Baikal | 1,642 |\n\nNote: Tanganyika is second.", "Which lake is the deepest?") == "Baikal"
    assert tx(out, "What is the longest river?", disable=("table",)) != "Nile"
    # counter-example: several rows and no rank: the table alone does not say which
    assert tx("| River | Country |\n|---|---|\n| Nile | Egypt |\n| Amazon | Brazil |", "Which river is the longest?") is None


def test_no_answer_words_are_not_answers():
    assert tx("The answer:", "What colour is the sky?") is None
    assert tx("That's a great one! Let me tell you about owls. There are around 250 species, spread over every continent.",
              "What is the largest owl?") is None
    assert tx("Jupiter has many moons, including Io, Europa and Callisto, each with its own features, such as the volcanoes on",
              "What is the largest moon of Jupiter?") is None
    # counter-examples: a number asked for, and a short answer after a pleasantry
    assert tx("The smallest prime number is 2, since 1 is not prime.", "What is the smallest prime number?") == "2"
    assert tx("Great question! Ganymede.", "What is the largest moon of Jupiter?") == "Ganymede"


def test_a_concluding_clause_inside_the_sentence_answers():
    out = "Let's see: Athos was the eldest, Porthos the strongest, so the youngest was d'Artagnan."
    assert tx(out, "Which musketeer was the youngest?") == "d'Artagnan"
    # counter-example: a "so" clause that states no answer leaves the first clause to answer
    assert tx("The capital is Ottawa, so plan a day there.", "What is the capital of Canada?") == "Ottawa"


def test_a_name_is_the_answer_over_a_description():
    assert tx("The Gobi Desert is the coldest large desert in Asia.", "Which desert covers much of Mongolia?") == "Gobi Desert"
    # counter-example: the question's name on the left, the answer described on the right
    assert tx("Mercury is the closest planet to the Sun.", "Which planet is closest to the Sun?") == "Mercury"


def test_a_disclaimer_in_the_first_person_is_not_the_answer():
    out = "As far as I know the tallest building is the Burj Khalifa, but my data may be out of date."
    assert tx(out, "What is the tallest building?") == "Burj Khalifa"
    assert tx("As of my last update it was the Dolphins, but my information may be out of date.",
              "Which team won the most recent title?") == "Dolphins"
    # counter-example: no pronoun, the side that restates the question is still dropped
    assert tx("Ottawa is the capital of Canada.", "What is the capital of Canada?") == "Ottawa"
