"""Reading principles for numbers and options, added for outputs written after the rules
(extraction_v6dev ``number_choice_r*``): each case is written here by hand in the shape of its
principle, with a counter-example that must keep its reading, and the rule switched off once where
a rule of its own reads it."""

from __future__ import annotations

from _readers import ch, num
from gengap.extract import extract


# ------------------------------------------------------------------ options named by a common equivalent
def test_a_formula_names_the_option_of_its_name_and_back():
    gases = ["Oxygen", "Nitrogen", "Carbon dioxide", "Hydrogen"]
    assert ch("They absorb CO2 from the air.", "Which gas do plants absorb?", gases) == "C"
    assert ch("CO₂.", "Which gas do plants absorb?", gases) == "C"
    assert ch("Water, H2O.", "What is ice made of?", ["H2O", "CO2", "NaCl", "O2"]) == "A"
    # counter-examples: a formula inside another is not named ("O2" in "CO2"), nor one that is negated
    assert ch("Not CO2 - they release oxygen.", "Which gas do plants release?", gases) == "A"
    assert ch("H2O", "Which is water?", ["H2", "H2O", "O2", "HO"]) == "B"


def test_a_stance_in_other_words_names_the_stance_option():
    stances = ["In favor", "Opposed", "Neutral", "Undecided"]
    q = "What is the author's stance on the policy?"
    assert ch("She is against it.", q, stances) == "B"
    assert ch("The author clearly supports the plan.", q, stances) == "A"
    assert ch("She is neither for nor against it.", q, stances) == "C"
    # counter-example: "not against it" rules the option out rather than naming it
    assert ch("She is not against it, but she has doubts.", q, stances) != "B"
    # counter-example: two options share the concept, so the wording names neither
    assert ch("She is against it.", q, ["Strongly opposed", "Mildly opposed", "Neutral", "In favor"]) is None


def test_a_change_of_state_names_the_verb_option():
    q = "What happens to ice left at 5°C?"
    opts = ["It melts", "It freezes harder", "It evaporates instantly", "Nothing"]
    assert ch("It turns into liquid water.", q, opts) == "A"
    assert ch("It becomes ice.", "What happens to water at -5°C?", ["It boils", "It freezes", "It evaporates", "Nothing"]) == "B"
    # counter-example: liquid named where two options could turn into it is not read
    assert ch("It turns into liquid.", q, ["It melts", "It liquefies", "It boils", "Nothing"]) is None


def test_a_diet_and_a_measured_quantity_name_their_option():
    assert ch("Lions are carnivores.", "What do lions eat?", ["Plants", "Meat", "Fruit", "Seeds"]) == "B"
    assert ch("Lions eat meat.", "What kind of animal is a lion?", ["Herbivorous", "Carnivorous", "Omnivorous", "Insectivorous"]) == "B"
    assert ch("It measures how hot or cold something is.", "What does a thermometer measure?",
              ["Pressure", "Humidity", "Temperature", "Wind speed"]) == "C"


def test_after_an_answer_marker_the_reason_names_other_options():
    opts = ["Frog", "Snake", "Salamander", "Newt"]
    out = "The answer would be the snake, since frogs, salamanders and newts are amphibians."
    assert ch(out, "Which is a reptile?", opts) == "B"
    # counter-example: two options named before the reason are no pick
    assert ch("The answer would be the snake or the frog, since both are cold-blooded.", "Which is a reptile?", opts) is None


# ------------------------------------------------------------------ numbers
def test_a_unit_equivalence_answers_with_the_unit_asked():
    q = "How many teaspoons are in a tablespoon?"
    assert num("3 teaspoons = 1 tablespoon.", q) == "3"
    assert num("3 teaspoons = 1 tablespoon, and 2 tablespoons = 1 fluid ounce.", q) == "3"
    assert num("100 cm = 1 m", "How many centimetres are in a metre?") == "100"
    assert num("1 quart = 4 cups (and 2 pints = 1 quart).", "How many cups are in a quart?") == "4"
    # counter-examples: the working of a conversion reads its result; a switched-off rule reads the last number
    assert num("20 mm, since 1 cm = 10 mm.", "How many millimeters are in 2 centimeters?") == "20"
    assert num("3 teaspoons = 1 tablespoon.", q, disable=("conversion", "in_asked_unit")) == "1"  # both unit rules off


def test_a_fraction_restated_in_the_form_asked_is_read_in_that_form():
    q = "What is the probability of rolling a 6 on a fair die? Give your answer as a decimal."
    assert num("The probability is 1/6, which is approximately 0.167.", q) == "0.167"
    assert num("4 out of 52, i.e. 1/13 ≈ 0.077", "What is the probability of drawing an ace?") == "0.077"
    assert num("1/6 ≈ 0.1667, which is about 16.7%.", "What is the chance of a 6, as a percentage?") == "16.7"
    # counter-examples: a restatement of another value is not the fraction's; no form asked, no change
    assert num("The probability is 1/6, which is more than 0.1.", q) == "0.166666666667"
    assert num("1/4, or about 0.25.", "What is 1 divided by 4?") == "0.25"


# ------------------------------------------------------------------ other scripts, notes, enumerations
def test_accents_and_other_languages_name_the_option():
    planets = ["Mars", "Jupiter", "Earth", "Venus"]
    q = "Which planet is largest?"
    assert ch("Júpiter.", q, planets) == "B"
    assert ch("La respuesta es B, Júpiter.", q, planets) == "B"
    assert ch("答案：B", q, planets) == "B"
    assert ch("La réponse est C.", q, planets) == "C"
    # counter-example: a word that only looks like a marker is no answer marker
    assert ch("Respuestas varían.", q, planets) is None


def test_digits_after_cjk_text_are_a_number():
    assert num("答案是10。", "What is 5 + 5?") == "10"
    # counter-example: a digit glued to Latin letters is a code, not an answer
    assert num("Take vitamin B12 daily.", "How many vitamins?") is None


def test_a_note_after_the_answer_is_not_the_answer():
    out = "3 hours × 60 minutes/hour = **180 minutes**\n\nNote: 1 hour = 60 minutes."
    assert num(out, "How many minutes are in 3 hours?") == "180"
    assert num("She has 12 left.\n\nTip: 3 × 4 = 12 is a quick check.", "How many are left?") == "12"
    # counter-example: a note that is the only place with a number is still read
    assert num("Let me think.\n\nNote: the total is 14.", "How many in total?") == "14"


def test_parallel_clauses_describing_options_pick_none():
    planets = ["Mars", "Jupiter", "Earth", "Venus"]
    out = "Mars is red, Earth has life, Venus is hot. The largest is the gas giant."
    assert ch(out, "Which planet is largest?", planets) is None
    # counter-example: the subject compared with the others is the pick
    out = "Jupiter is the largest, far bigger than Earth, Mars or Venus."
    assert ch(out, "Which planet is largest?", planets) == "B"


def test_a_tone_in_other_words_names_the_tone_option():
    tones = ["Optimistic", "Pessimistic", "Angry", "Humorous"]
    assert ch("The tone is hopeful and upbeat.", "What is the tone of the passage?", tones) == "A"
    assert ch("Gloomy - the writer expects things to get worse.", "What is the tone of the passage?", tones) == "B"
    # counter-example: a negated tone word names nothing
    assert ch("It is not funny at all.", "What is the tone of the passage?", tones) is None


def test_an_acronym_of_an_option_names_it():
    wars = ["World War I", "World War II", "The Cold War", "The Vietnam War"]
    assert ch("WWI (1914-1918).", "Which event happened first?", wars) == "A"
    assert ch("WWII.", "Which war ended in 1945?", wars) == "B"
    # counter-example: capitals that are no option's initials name nothing
    assert ch("NATO was founded later.", "Which event happened first?", wars) is None


def test_a_check_after_the_answer_is_not_the_answer():
    assert num("48 ÷ 6 = 8\n\nYou can verify: 8 × 6 = 48 ✓", "What is 48 divided by 6?") == "8"
    assert num("The total is 27.\n\nCheck: 27 - 12 = 15.", "What is 12 + 15?") == "27"
    # counter-example: a sentence after the answer that only mentions checking is read as usual
    assert num("12 + 15 = 26. I checked again: it is 27.", "What is 12 + 15?") == "27"


def test_an_acronym_the_question_uses_is_not_an_answer():
    opts = ["Deoxyribonucleic acid", "Dinitrogen acid", "Dynamic nucleic acid"]
    assert ch("DNA stands for deoxyribonucleic acid.", "What does DNA stand for?", opts) == "A"


def test_yes_no_options_are_read_as_a_verdict():
    assert ch("Absolutely not.", "Is the Earth flat?", ["Yes", "No"]) == "B"
    assert ch("No, the Earth is roughly spherical.", "Is the Earth flat?", ["Yes", "No"]) == "B"
    assert ch("That's right.", "Water boils at 100 °C at sea level.", ["True", "False"]) == "A"
    # counter-example: other two-option sets are not verdicts
    assert ch("Absolutely not.", "Which is heavier?", ["Lead", "Iron"]) is None


def test_an_option_named_in_passing_in_a_reply_about_something_else_is_no_pick():
    planets = ["Venus", "Mercury", "Earth", "Mars"]
    q = "Which planet is closest to the Sun?"
    assert ch("I love astronomy! Mars is my favorite planet because of its red color.", q, planets) is None
    # counter-examples: the reply speaks of what is asked, or states the option first
    assert ch("I love astronomy! Mercury is the closest, just 58 million km from the Sun.", q, planets) == "B"
    assert ch("Mercury. It orbits in just 88 days, faster than any other world.", q, planets) == "B"


def test_none_opening_a_how_many_reply_is_zero():
    q = "How many bones does a shark have?"
    assert num("None - sharks have cartilage instead of bones.", q) == "0"
    assert num("Zero. Their skeletons are cartilage.", q) == "0"
    # counter-examples: "none of" speaks of something else; a question that counts nothing
    assert num("None of the 206 bones of a human are in a shark.", q) != "0"
    assert num("None - sharks have cartilage.", "What is the shark's top speed?") is None


def test_a_range_commits_to_no_one_number():
    q = "How many hours of sleep do adults need?"
    assert num("Most adults need 7 to 9 hours per night.", q) is None
    # counter-example: one number stated, the range given as context
    assert num("I'd say about 8 hours, though anywhere from 7 to 9 is healthy.", q) == "8"
    assert num("1 mile ≈ 1.609 km", "How many kilometers are in a mile?") == "1.609"


def test_an_offer_after_the_answer_is_not_the_answer():
    out = "9 × 3 = 27\n\nIs there anything else you'd like to know? For example, the 9 times table: 9, 18, 27, 36, 45."
    assert num(out, "What is 9 × 3?") == "27"
    # counter-example: working that goes on after a conditional is still working
    assert num("First 3 + 4 = 7. If we double it, we get 14.", "What is (3 + 4) × 2?") == "14"


def test_a_reply_cut_off_after_its_first_sentence_answered_is_read():
    out = "A bicycle has two wheels. A tricycle has three wheels. A car has four wheels. A truck has"
    assert num(out, "How many wheels does a bicycle have?") == "2"
    # counter-example: reasoning cut off before any count of what is asked
    assert num("To find the wheels we first count the bikes. There are three bikes and each has", "How many wheels?") is None


def test_options_written_out_on_one_line_are_no_pick():
    gases = ["Helium", "Hydrogen", "Oxygen", "Nitrogen"]
    assert ch("A) Helium B) Hydrogen C) Oxygen D) Nitrogen", "Which is a noble gas?", gases) is None
    assert ch("A) Helium B) Hydrogen C) Oxygen D) Nitrogen\nAnswer: A", "Which is a noble gas?", gases) == "A"  # counter-example


def test_a_line_per_option_picks_the_one_that_has_what_is_asked():
    gases = ["Helium", "Hydrogen", "Oxygen", "Nitrogen"]
    out = ("Let's analyze each option:\n\nA) Helium - This is a noble gas (Group 18).\nB) Hydrogen - This is not a noble gas.\n"
           "C) Oxygen - This is a reactive nonmetal.\nD) Nitrogen - This is a nonmetal.")
    assert ch(out, "Which is a noble gas?", gases) == "A"
    # counter-example: two lines say it, so the analysis picks none
    out = "A) Helium - a noble gas.\nB) Hydrogen - a light gas, maybe noble too.\nC) Oxygen - reactive.\nD) Nitrogen - inert-ish."
    assert ch(out, "Which is a noble gas?", gases) is None


def test_a_value_the_question_gives_for_other_things_can_count_what_is_asked():
    q = "If 5 workers build a wall in 10 days, how many days would 10 workers take?"
    assert num("Assuming they work at the same rate, 10 workers would take 5 days.", q) == "5"
    # counter-example: the value given for the asked thing itself is not an answer
    assert num("Assuming they work at the same rate, it took them 10 days before.", q) is None


def test_the_count_of_the_asked_verb_is_no_ramble():
    q = "How many Oscars did Titanic win?"
    assert num("Titanic won 11 Academy Awards in 1998, tying the record set by Ben-Hur (1959).", q) == "11"
    assert num("Titanic won 11 Academy Awards in 1998, tying the record set by Ben-Hur (1959).", q + " Answer with a number.") == "11"
    # counter-example: a ramble about the film with numbers that the asked verb does not count
    out = "Titanic was released in 1997 and ran for 195 minutes, a very long film for its time in cinemas."
    assert num(out, q) is None


def test_a_retracted_earlier_answer_gives_way_to_what_follows():
    q = "What is 17 + 25?"
    assert num("I said 32 earlier, but that was wrong: 17 + 25 = 42.", q) == "42"
    # counter-example: a retraction in an aside after the answer leaves the answer
    assert num("42 (I initially wrote 32 by mistake).", q) == "42"


def test_an_ordinal_ranks_and_does_not_count():
    out = "As of 2025, Donald Trump is the 47th president, but only 45 different people have served."
    assert num(out, "How many US presidents have there been?") == "45"
    # counter-example: a question that asks for a place reads the ordinal
    assert num("She finished 3rd.", "In what place did she finish?") == "3"


def test_a_marker_that_closes_its_sentence_is_followed_by_no_letter():
    cities = ["Barcelona", "Madrid", "Seville", "Valencia"]
    assert ch("B is the answer. A, C and D are other Spanish cities.", "What is the capital of Spain?", cities) == "B"
    assert ch("The answer: B. A, C and D are other cities.", "What is the capital of Spain?", cities) == "B"  # counter-example


def test_derived_and_plural_forms_name_the_option():
    assert ch("Wolves are carnivorous.", "Which is a carnivore?", ["Deer", "Rabbit", "Wolf", "Cow"]) == "C"
    assert ch("Eastward.", "Which direction does the Sun rise?", ["North", "South", "East", "West"]) == "C"
    # counter-example: a longer word that merely starts like an option is not it
    assert ch("Eastwood.", "Who directed it?", ["East", "Clint", "Sergio", "Leone"]) is None


def test_options_in_number_words_are_named_by_value():
    assert ch("8", "How many legs does a spider have?", ["Six", "Eight", "Ten", "Four"]) == "B"
    # counter-example: an option with other words is not a number
    assert ch("8", "How many legs does a spider have?", ["Six legs or so", "Eight legs or so", "Ten", "Four"]) is None


def test_an_opening_courtesy_is_not_the_first_sentence_of_the_answer():
    q = "What is the boiling point of water at sea level in °F?"
    out = "212°F. That is the same as 100 °C; at 2,000 m water boils near 93 °C."
    assert num(out, q) == "212"
    assert num("Sure! Here's the answer.\n\n" + out, q) == "212"
    assert num("Great question! four", "How many legs does a dog have?") == "4"
    cities = ["Sydney", "Melbourne", "Canberra", "Perth"]
    assert ch("Sure! Here's the answer.\n\nMany people guess Sydney, but the capital is Canberra.", "What is the capital of Australia?",
              cities) == "C"
    # counter-example: an opening that announces working is followed by working, not an answer stated first
    out = "Let's work through this step by step.\n\n1. Total pencils: 3 × 12 = 36\n2. After giving away 10: 36 − 10 = 26\n\nSarah has 26 left."
    assert num(out, "How many pencils are left?") == "26"


def test_a_closing_offer_or_note_after_the_answer_leaves_the_answer():
    opts = ["Paris", "Lyon", "Nice", "Lille"]
    q = "What is the capital of France?"
    assert ch("If I recall correctly, A.\n\nLet me know if you have any other questions!", q, opts) == "A"
    assert ch("If I recall correctly, A.\n\nNote: answers may vary slightly by source.", q, opts) == "A"
    out = "Probably 2? Phobos and Deimos, if I remember right.\n\nLet me know if you have any other questions!"
    assert num(out, "How many moons does Mars have?") == "2"
    # counter-example: a note that gives the letter is read
    assert ch("Hmm.\n\nNote: the answer is A.", q, opts) == "A"


def test_a_check_that_confirms_gives_the_confirmed_value():
    q = "Two numbers sum to 40. One is 14. What is the other?"
    assert num("The other is 40 − 14 = 26. Hmm wait, 14 + 26 = 40, yes, 26.", q) == "26"
    # counter-example: a correction that finds a new value reads the new value
    assert num("The other is 24. Wait, 40 − 14 = 26.", q) == "26"


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


def test_two_candidate_numbers_commit_to_neither():
    q = "How old is someone born in 1990 in 2024?"
    assert num("They would be 33 or 34, depending on whether their birthday has passed.", q) is None
    # counter-example: the same value said twice is one answer
    assert num("They are 34, or 34 years and a few months.", q) == "34"


def test_a_first_clause_about_what_is_asked_names_the_pick_in_another_word_form():
    opts = ["Rubber", "Copper", "Glass", "Wood"]
    out = "Copper is an excellent conductor; rubber, glass and wood are insulators."
    assert ch(out, "Which of these materials conducts electricity best?", opts) == "B"
    # counter-example: a first clause about something else picks none
    assert ch("Copper is reddish; rubber, glass and wood are not.", "Which of these materials conducts electricity best?", opts) is None


def test_a_number_word_of_another_language_opening_the_reply_is_read():
    q = "How many legs does a spider have?"
    assert num("Acht Beine.", q) == "8"
    assert num("Ocho patas.", q) == "8"
    assert num("Sieben.", "How many days are in a week?") == "7"
    # counter-examples: English words that look alike, and replies with digits, are read as before
    assert num("Um, I'm not sure.", q) is None
    assert num("Once upon a time there was a spider.", q) is None
    assert num("Acht (8) Beine.", q) == "8"
