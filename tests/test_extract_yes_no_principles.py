"""Principles a careful reader applies to yes/no replies, each with a counter-example that must keep its
reading (written for outputs scored before the rules were changed: extraction_v6dev/yes_no_r*.jsonl)."""

from __future__ import annotations

from gengap.extract import extract


def yn(output: str, question: str, **kw) -> str | None:
    return extract(output, "yes_no", question=question, **kw).value


def rule(output: str, question: str) -> str:
    return extract(output, "yes_no", question=question).rule


def test_an_opening_courtesy_is_no_verdict():
    q = "Can penguins fly?"
    assert yn("Great question! No, penguins cannot fly.", q) == "no"
    assert yn("Happy to help.\n\nNot really - their wings are flippers.", q) == "no"
    assert yn("Hi there! Absolutely not.", q) == "no"
    assert yn("Okay, let me think.\n\nYes - in a sense, underwater.", q) == "yes"
    assert yn("Thanks for asking! It depends on what you call flying.", q) is None
    # a compliance word yields to an explicit verdict after it, and "Sure!" to any reading after it
    assert yn("Sure! No, penguins cannot fly.", q) == "no"
    assert yn("Certainly. Not really - their wings are flippers.", q) == "no"
    assert yn("Sure! It depends on what you call flying.", q) is None
    assert yn("Sure! A triangle has three sides, not four.", "Does a triangle have four sides?") == "no"
    # counter-examples: the same words as the verdict itself
    assert yn("Of course. It cannot be written as a ratio of two integers.", "Is the square root of 2 irrational?") == "yes"
    assert yn("Absolutely. Tall buildings are hit many times a year.", "Can lightning strike the same place twice?") == "yes"
    assert yn("Sure! Let it cool quickly and freeze it in portions.", "Can I freeze cooked rice?") == "yes"
    opened = "Great question! Absolutely. At 8,849 m it is the highest."
    assert yn(opened, "Is Everest the highest mountain?") == "yes"
    assert extract(opened, "yes_no", question="Is Everest the highest mountain?", disable=["courtesy"]).value is None


def test_a_pronoun_and_auxiliary_affirm_only_when_the_predicate_is_left_out():
    assert yn("They do, mostly.", "Do cats purr?") == "yes"
    assert yn("It is indeed.", "Is Cardiff the capital of Wales?") == "yes"
    assert yn("Since 2023 it has been, overtaking China.", "Is India the most populous country?") == "yes"
    # counter-examples: a predicate of its own is a statement, not "yes"
    assert yn("This is a famously contentious question! Some say it is a sandwich.", "Is a hot dog a sandwich?") is None
    assert yn("He was actually of average height for his time.", "Was Napoleon unusually short?") is None
    # the negated form still denies: the pronoun stands for the question's subject
    assert yn("It isn't illegal, but you must control the car safely.", "Is it illegal to drive barefoot in the UK?") == "no"


def test_the_pair_an_instruction_offers_is_no_verdict():
    q = "Is the Amazon the longest river in the world? Answer yes or no."
    out = " Is the Amazon the longest river in the world? Answer yes or no.\nIs the Nile the longest river in the world? Answer yes or no.\nIs the"
    assert yn(out, q) is None
    assert rule(out, q) == "unextracted"
    # counter-example: an answer after the echoed prompt is read
    assert yn(" Is the Amazon the longest river in the world? Answer yes or no.\nNo, the Nile is longer.", q) == "no"
    assert yn("The Nile is usually listed as longer, so the answer is no.", q) == "no"


def test_a_verdict_reported_in_a_frame():
    assert yn("The scientific consensus is increasingly that they do. Fish have nociceptors.", "Do fish feel pain?") == "yes"
    assert yn("Most researchers now agree that it does not.", "Does sugar cause hyperactivity?") == "no"
    # counter-example: a doubting frame reports no verdict
    assert yn("Few scientists still think that they do.", "Do goldfish have a three-second memory?") is None
    assert yn("It is unclear whether they do.", "Do plants feel pain?") is None


def test_yes_and_no_in_other_scripts():
    assert yn("是的，马德里是西班牙的首都。", "Is Madrid the capital of Spain?") == "yes"
    assert yn("不是。悉尼不是澳大利亚的首都。", "Is Sydney the capital of Australia?") == "no"
    assert yn("Нет, это не так.", "Is the Sun a planet?") == "no"
    assert yn("はい、そうです。", "Is Tokyo in Japan?") == "yes"
    # counter-example: a word that only starts with the same characters
    assert yn("不错的问题", "Is Tokyo in Japan?") is None


def test_a_main_clause_before_the_cut_stands():
    q = "Question: Is gold a good conductor of electricity?\nAnswer:"
    assert yn(" Gold is an excellent conductor of electricity, which is why it is used in electrical connectors and on the contacts of", q) == "yes"
    # counter-example: a sentence cut off before its main clause says nothing
    assert yn(" Gold is used in connectors because its conductivity and its resistance to corrosion make it the", q) is None


def test_difficulty_or_rarity_is_no_plain_verdict():
    assert yn("It's very hard to overdose on vitamin C because your body excretes the excess.", "Can you overdose on vitamin C?") is None
    # counter-example: the plain restatement affirms
    assert yn("You can overdose on vitamin C if you take very large doses.", "Can you overdose on vitamin C?") == "yes"


def test_the_opposite_predicate_and_a_qualified_pronoun():
    assert yn(" He lost. Wellington and Blücher defeated him.", "Did Napoleon win the Battle of Waterloo?") == "no"
    assert yn("Botanically it's a legume, a relative of peas and beans.", "Is a peanut a nut?") == "no"
    # counter-examples: the question's own predicate affirms
    assert yn("He won, narrowly.", "Did Wellington win the Battle of Waterloo?") == "yes"
    assert yn("Botanically it's a berry.", "Is a banana a berry?") == "yes"


def test_a_myth_named_anywhere_denies_the_question():
    q = "Did Napoleon Bonaparte have an unusually short height?"
    assert yn("He was of average height for his time. The myth comes from a confusion of French and English inches.", q) == "no"
    # counter-example: a question that itself asks about a myth is not denied by the word
    assert yn("He was of average height. The myth comes from British cartoons.", "Is it a myth that Napoleon was short?") is None
    assert yn("The myth of Atlantis comes from Plato.", "Did Plato write about Atlantis?") != "yes"


def test_stance_and_knowledge_frames_keep_the_verdict():
    q = "Do cats like water?"
    assert yn("I'm afraid not.", q) == "no"
    assert yn("Not that I know of.", q) == "no"
    assert yn("Not to my knowledge.", q) == "no"
    assert yn("For the most part, no.", q) == "no"
    assert yn("Nah.", q) == "no"
    assert yn("Not one bit.", q) == "no"
    assert yn("Always.", q) == "yes"
    # counter-examples: a hedge between both stays unread; a stance toward "so" affirms
    assert yn("Maybe, maybe not - the evidence is mixed and I can't say either way.", q) is None
    assert yn("I believe so.", q) == "yes"


def test_the_larger_share_answers_and_a_topic_echo_is_no_verdict():
    q = "Do cats like water?"
    assert yn("Some do, most don't.", q) == "no"
    assert yn("A few do, but most do not.", q) == "no"
    assert yn("Cats? Not really.", q) == "no"
    # counter-example: the larger share affirming
    assert yn("Most do, though a few don't.", q) == "yes"


def test_the_opposite_quality_or_preference_denies():
    q = "Do cats like water?"
    assert yn("Cats generally dislike water.", q) == "no"
    assert yn("Most cats hate water, though some breeds enjoy swimming.", q) == "no"
    assert yn("Pluto is smaller than Earth's Moon.", "Is Pluto bigger than the Moon?") == "no"
    # counter-examples: the same quality in another word affirms
    assert yn("Canada is slightly larger in total area.", "Is Canada bigger than the USA?") == "yes"
    assert yn("Cats generally like water less than dogs do, but many enjoy it.", q) != "no"


def test_a_restatement_affirms_only_what_is_asked_of_the_subject():
    assert yn("Earth is an oblate spheroid, roughly a sphere.", "Is Earth flat?") is None
    assert yn("Cats tend to avoid getting wet.", "Do cats like water?") is None
    # counter-examples: the predicate restated affirms
    assert yn("It sits on the border between Nepal and China.", "Is Mount Everest in Nepal?") == "yes"
    assert yn("Mercury is indeed the closest planet to the Sun.", "Is Mercury the closest planet to the Sun?") == "yes"


def test_two_clauses_that_answer_otherwise_give_no_verdict():
    assert yn("Botanically, a tomato is a fruit, but it's usually treated as a vegetable in cooking.", "Is a tomato a vegetable?") is None
    assert yn("They have no external ears, but they do have inner ears.", "Do snakes have ears?") is None
    # counter-examples: an appearance, or a first clause that does not answer, yields to the turn
    assert yn("It looks prime at first glance, but 91 = 7 x 13, so it isn't prime.", "Is 91 a prime number?") == "no"
    assert yn("Penguins are birds, but they can't fly.", "Can penguins fly?") == "no"


def test_a_label_line_and_likelihood():
    q = "Is it safe to microwave plastic containers?"
    assert yn("## Short answer\nNot always.\n\n## Details\n- Look for a microwave-safe label", q) == "no"
    assert yn("TL;DR\nYes, if it says microwave-safe.", q) == "yes"
    assert yn("It's extremely unlikely; most people survive only about three days.", "Can a person survive without water for a month?") == "no"
    # counter-example: a label followed by no verdict reads nothing
    assert yn("## Short answer\nIt depends on the plastic.", q) is None


def test_another_number_or_a_bound_compared():
    assert yn("At sea level water boils at 100 °C.", "Does water boil at 90 degrees Celsius at sea level?") == "no"
    assert yn("7 is less than 10.", "Is 7 greater than 10?") == "no"
    assert yn("Including all its branches, it measures about 21,196 km.", "Does the Great Wall of China stretch over 20,000 km?") == "yes"
    assert yn("It is about 6,650 km long.", "Is the Nile more than 7,000 km long?") == "no"
    # counter-examples: the question's own number, or a bound said back, are left to the other rules
    assert yn("At sea level water boils at 100 °C.", "Does water boil at 100 degrees Celsius at sea level?") == "yes"
    assert yn("Just under 20,000 km by most counts.", "Does the Great Wall of China stretch over 20,000 km?") != "yes"


def test_the_opposite_denied_and_one_group_each_way():
    assert yn("Not cheap, that's for sure.", "Is London expensive?") == "yes"
    assert yn("Saltwater fish do; freshwater fish don't need to.", "Do fish drink water?") is None
    # counter-examples: the quality itself denied; a pronoun's verdict with its reason after ";"; the asked part answers
    assert yn("The bark isn't; the berries are, though.", "Is yew bark poisonous?") == "no"
    assert yn("Not expensive at all.", "Is London expensive?") == "no"
    assert yn("They did not; Roman numerals have no symbol for zero.", "Did the Roman Empire use the number zero?") == "no"


def test_a_question_that_denies_or_asks_about_a_myth():
    assert yn("There is gravity in space; astronauts float because they are in free fall.", "Is there no gravity in space?") == "no"
    assert yn("Ireland has no native snakes.", "Are there no snakes in Ireland?") == "yes"
    assert yn("That's a myth - you lose heat from any uncovered body part.", "Is it a myth that we lose most heat through our heads?") == "yes"
    assert yn("It's not a myth; it really happens.", "Is it a myth that cats always land on their feet?") == "no"
    # counter-examples: "True or false:" asks no myth question; a plain question is denied by "myth"
    assert yn(" That is a common myth. Tall buildings are struck many times a year.", "True or false: Lightning never strikes the same place twice.") == "no"
    assert yn("That's a myth.", "Do we lose most heat through our heads?") == "no"


def test_the_question_without_its_instruction_and_another_year_or_place():
    q = "Is the Moon a planet? Answer yes or no."
    assert yn(" The Moon is a natural satellite of the Earth.", q) == "no"
    assert yn("It ended in 1945.", "Did World War II end in 1944?") == "no"
    assert yn("The Eiffel Tower is in Paris.", "Is the Eiffel Tower in London?") == "no"
    assert yn(" Ice floats on water because it is less dense.", "Question: Does ice sink in water?\nAnswer:") == "no"
    # counter-examples: the question's own year, place and kind affirm; another event's year says nothing
    assert yn("It ended in 1945.", "Did World War II end in 1945?") == "yes"
    assert yn("The Eiffel Tower is in Paris.", "Is the Eiffel Tower in Paris?") == "yes"
    assert yn(" The Moon is a natural satellite of the Earth.", "Is the Moon a natural satellite? Answer yes or no.") == "yes"
    assert yn("It ended in 1945.", "Did World War II begin in 1939?") is None
