"""Principles a careful reader applies to yes/no replies, each with a counter-example that must keep its
reading (written for outputs scored before the rules were changed: extraction_v6dev/yes_no_r*.jsonl)."""

from __future__ import annotations

from _readers import yn
from gengap.extract import extract


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


def test_the_question_s_own_verb_or_an_emphatic_do_affirms():
    assert yn("It can help a little. Drinking water before meals may make you feel fuller.", "Will drinking water help me lose weight?") == "yes"
    assert yn("It can be. Colour is no reliable sign of doneness.", "Is it safe to eat chicken that's slightly pink?") == "yes"
    assert yn("They do rest - most fish have periods of reduced activity.", "Do fish sleep?") == "yes"
    # counter-examples: another verb after "can", or "do" with a denial, is no affirmation
    assert yn("It can cause headaches in some people.", "Will drinking water help me lose weight?") != "yes"
    assert yn("They do not, strictly speaking.", "Do fish sleep?") == "no"


def test_a_turn_that_corrects_answers_and_a_debated_point_takes_back():
    assert yn("Columbus reached the Americas in 1492, but he wasn't the first: Norse explorers reached North America earlier.",
              "Did Columbus discover America?") == "no"
    # counter-example: a turn about something else leaves the restatement standing
    assert yn("Paris is in France, but it isn't the largest city in Europe.", "Is Paris in France?") == "yes"
    assert yn("Chess is recognized as a sport by the IOC, though whether it counts as one is still debated.", "Is chess a sport?") is None
    assert yn("He was born in Salzburg, then part of the Holy Roman Empire, now Austria.", "Was Mozart Austrian?") == "yes"
    # counter-example: a restatement with no debate affirms
    assert yn("Chess is recognized as a sport by the IOC.", "Is chess a sport?") == "yes"


def test_advice_against_a_prefixed_opposite_and_little_effect_deny():
    assert yn("It's best not to. Expired sunscreen may be less effective.", "Is it OK to use expired sunscreen?") == "no"
    assert yn("It's illegal to own a hedgehog as a pet in California.", "Is it legal to own a hedgehog in California?") == "no"
    assert yn("It's perfectly safe if the pan is dry.", "Is it unsafe to use a cast iron pan?") == "no"
    assert yn("Spanish is considered one of the easiest languages for English speakers.", "Is Spanish hard for English speakers?") == "no"
    assert yn("For most people, eggs have little effect on blood cholesterol.", "Are eggs bad for cholesterol?") == "no"
    # counter-examples: the same word affirms; a prefix that makes no opposite ("discover") is not read as one
    assert yn("It's legal in Texas, though some cities have their own rules.", "Is it legal to own a hedgehog in Texas?") == "yes"
    assert yn("Columbus reached the Americas in 1492, and he is said to have discovered them.", "Did Columbus cover America?") != "no"


def test_counts_of_the_asked_thing_bounds_in_words_and_alternative_questions():
    assert yn("Technically, cows have one stomach with four compartments.", "Do cows have four stomachs?") == "no"
    assert yn("Earth has only one natural satellite, the Moon.", "Does the Earth have more than one moon?") == "no"
    assert yn("Both - Istanbul straddles the Bosphorus, with parts in Europe and in Asia.", "Is Istanbul in Europe or Asia?") is None
    assert yn("It's best avoided. Most adult cats are lactose intolerant.", "Is it okay to give my cat milk?") == "no"
    assert yn("It's actually shrinking, by a few centimetres a year.", "Is the Pacific Ocean getting bigger?") == "no"
    # counter-examples: the asked count said again; an inclusive bound met; "both" for a plain question
    assert yn("Spiders have eight legs and two body parts.", "Do spiders have eight legs?") == "yes"
    assert yn("Mars has two moons, Phobos and Deimos.", "Does Mars have at least two moons?") == "yes"
    assert yn("Both of them do, yes.", "Do cats and dogs dream?") == "yes"


def test_a_condition_on_the_asked_thing_and_a_demoted_kind():
    assert yn("Only if you count hot deserts; counting polar deserts, Antarctica is larger.", "Is the Sahara the largest desert in the world?") is None
    assert yn("Pluto is classified as a dwarf planet.", "Is Pluto a planet?") == "no"
    # counter-examples: "only in" another place denies; a plain kind affirms
    assert yn("Only in zoos.", "Do pandas live in the wild in Europe?") == "no"
    assert yn("Jupiter is classified as a gas giant planet.", "Is Jupiter a planet?") == "yes"


def test_advice_for_or_against():
    q = "Should I use a VPN on public Wi-Fi?"
    assert yn("It's a good idea. Public networks can be insecure.", q) == "yes"
    assert yn("Highly recommended - public networks can be insecure.", q) == "yes"
    assert yn("That would be a bad idea on a slow connection.", "Should I stream 4K video on mobile data?") == "no"
    # counter-examples: a hedged "it does depend" is no emphatic yes
    assert yn("It does depend on how much you drink.", "Does coffee dehydrate you?") != "yes"


def test_a_yes_turned_rare_is_a_no():
    assert yn("Occasionally, during very strong geomagnetic storms, but it's rare.", "Can you see the Northern Lights from London?") == "no"
    # counter-example: an occasional permission stays a yes
    assert yn("Occasionally, as a treat.", "Can cats eat tuna?") == "yes"


def test_an_echoed_predicate_ends_its_clause_and_the_accepted_explanation_affirms():
    assert yn("That's the leading explanation. Most scientists agree an asteroid caused it.", "Did the dinosaurs die out because of an asteroid?") == "yes"
    assert yn('It\'s painted a colour called "International Orange".', "Is the Golden Gate Bridge painted red?") != "yes"
    # counter-example: the question's own predicate, ending its clause, affirms
    assert yn("It's possible, though difficult.", "Is it possible to sneeze with your eyes open?") == "yes"


def test_origin_is_one_relation_in_other_words():
    assert yn("They originated in western South America and reached Europe in the 16th century.", "Are tomatoes native to Italy?") == "no"
    # counter-example: the question's own place affirms or is left to the other rules
    assert yn("They originated in western South America.", "Are tomatoes native to South America?") != "no"


def test_degree_words_that_grant_the_question():
    assert yn("Pretty much.", "Is the Earth round?") == "yes"
    assert yn("More or less - it bulges a little at the equator.", "Is the Earth round?") == "yes"
    assert yn("Brutally so.", "Is it cold in Antarctica?") == "yes"
    # counter-examples: "kind of" hedges; "not quite" denies
    assert yn("Kind of.", "Is the Earth round?") is None
    assert yn("Not quite; it bulges at the equator.", "Is the Earth round?") == "no"


def test_an_either_or_question_and_harmless():
    assert yn("Use metric (SI) units. Almost all journals require them.", "Should I use metric or imperial units in a science paper?") is None
    assert yn("Gentle stretching that makes your back pop is generally harmless.", "Is it bad to crack your back?") == "no"
    # counter-examples: an outright yes/no to an either-or question is read; "true or false" asks a yes/no question
    assert yn("No - the Sahara is in Africa, not Asia.", "Is the Sahara in Asia or in Europe?") == "no"
    assert yn("That statement is false.", "True or false: the Sun orbits the Earth.") == "no"
