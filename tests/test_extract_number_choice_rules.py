"""Number and choice rules that read what a person reads (issue 18): each rule has cases written here
by hand in its shape, a counter-example it must leave alone, and a check that switching it off loses
the reading (so the rule, not another one, reads the case)."""

from __future__ import annotations

import pytest

from _readers import ch, num
from gengap.extract import extract


# ------------------------------------------------------------------------------------------- numbers
@pytest.mark.parametrize("output, question, expected", [
    # the first sentence names what is asked and gives its value; the working after it has other numbers
    ("The final cost is $45. Each of the 3 tickets was $15, which is $45 before the $5 fee is waived.",
     "Three tickets cost $15 each. What is the final cost in dollars?", "45"),
    ("The median is 7.\n\nSorted: 2, 5, 7, 9, 11; the middle value sits at position 3.", "What is the median of 9, 2, 11, 7 and 5?", "7"),
    # counter-example: a first sentence that restates a given fact is not the answer
    ("The jacket costs $60. With 10% off that is $54.", "A jacket costs $60 and is 10% off. What is the sale price in dollars?", "54"),
])
def test_stated_first(output, question, expected):
    assert num(output, question) == expected


def test_stated_first_is_the_reading():
    output, question = "The median is 7.\n\nSorted: 2, 5, 7, 9, 11; the middle value sits at position 3.", "What is the median of 9, 2, 11, 7 and 5?"
    assert extract(output, "number", question=question).rule == "stated_first"
    assert num(output, question, disable=("stated_first", "named_value")) != "7"  # both read the value named first


@pytest.mark.parametrize("output, question, expected", [
    # the number that counts what a "how many" question asks, among numbers that count other things
    ("A triangular prism has 5 faces, 6 vertices and 9 edges.", "How many edges does a triangular prism have?", "9"),
    ("In 2019 the club had 40 members; now 3 teams play with 55 players.", "How many players does the club have?", "55"),
    ("Chopin died in Paris in 1849 at the age of 39.", "How old was Chopin when he died?", "39"),
    ("She was 27 years old when the album came out in 1971.", "How old was she when the album came out?", "27"),
    # counter-examples: working with several counts of the asked noun, and an answer stated first
    ("3 bags × 4 apples = 12 apples, and 12 - 5 = 7 apples.", "Tom has 3 bags of 4 apples and eats 5. How many apples are left?", "7"),
    ("Nine per row, so 36 seats in the hall.", "How many seats are in each row?", "9"),
])
def test_counted(output, question, expected):
    assert num(output, question) == expected


def test_counted_switched_off():
    output, question = "A triangular prism has 5 faces, 6 vertices and 9 edges.", "How many edges does a triangular prism have?"
    assert extract(output, "number", question=question).rule == "counted"
    assert num(output, question, disable=("answer_inside_sentence",)) == "5"


@pytest.mark.parametrize("output, question, expected", [
    # a ramble that never speaks of what is counted
    ("Jupiter is the fifth planet from the Sun, about 5.2 AU out, and Galileo observed it in 1610.",
     "How many rings does Jupiter have?", None),
    # counter-examples: the counted noun is there, or the answer opens the output
    ("Jupiter has 4 main rings, which are faint and were found by Voyager 1 in 1979.", "How many rings does Jupiter have?", "4"),
    ("Four.\n\nThey are faint, dusty, and were first seen by the Voyager 1 probe in 1979.", "How many rings does Jupiter have?", "4"),
])
def test_off_topic(output, question, expected):
    assert num(output, question) == expected


@pytest.mark.parametrize("output, question, expected", [
    # the corrected value stated first, then its working
    ("18 + 25 = 33. Hmm, no, that should be 43: 10 + 20 = 30 and 8 + 5 = 13.", "What is 18 + 25?", "43"),
    # the count asked for, after a correction that first names another count
    ("An octagon has 6 sides. Wait, 6 is a hexagon; an octagon has 8 sides (and 8 corners).", "How many sides does an octagon have?", "8"),
    # counter-example: a correction that reworks the sum reads its result
    ("12 × 4 = 46. Wait, let me redo it: 12 × 4 = 48.", "What is 12 × 4?", "48"),
])
def test_correction_restates(output, question, expected):
    assert num(output, question) == expected


@pytest.mark.parametrize("output, question, expected", [
    # a time's colon does not end the lead ("from 8:15"), and the form asked for comes later in the sentence
    ("From 8:15 to 9:15 is 60 minutes, and from 9:15 to 9:50 is 35 more, so the lesson takes 95 minutes.",
     "A lesson runs from 8:15 to 9:50. How many minutes is it?", "95"),
    ("The saving is $12, which is 15% of $80.", "A lamp drops from $80 to $68. What is the saving as a decimal fraction of the old price?", "0.15"),
    # "It runs 5 times: ..." - the lead before the colon, whatever follows
    ("It runs 5 times: k = 1, 3, 5, 7, 9. At k = 11 it stops.", "A loop starts at k = 1, adds 2 each time and stops once k > 10. How many times does it run?", "5"),
])
def test_answer_first_leads(output, question, expected):
    assert num(output, question) == expected


@pytest.mark.parametrize("output, question, expected", [
    # a later step that takes the concluded value as input supersedes it
    ("For 3 mugs: $12, so one mug is 12 / 3 = $4. For 7 mugs: 4 × 7 = $28.", "Three mugs cost $12. What do 7 mugs cost in dollars?", "28"),
    # counter-example: a later line explaining a part (its inputs do not include the conclusion) does not
    ("Total = $63. Tip is 0.05 × 60 = 3.", "A meal is $60 plus a 5% tip. What is the total in dollars?", "63"),
    # an aside in parentheses, a check cut off, a check mark, and "total N" at the end
    ("So the new price is 40 × 1.25 = $50.\n\n(A common slip is to add 25 to 40, which gives $65.)", "A $40 item rises by 25%. What is the new price in dollars?", "50"),
    ("Each box holds 6, so 9 boxes hold 9 × 6 = 54 eggs. To double-check, 10 × 6 is", "How many eggs do 9 boxes of 6 hold?", "54"),
    ("x² − 1 = (x + 1)(x − 1) = 5 × 3 = 15.\n\nOr: 16 − 1 = 15. ✓", "If x = 4, what is x² − 1?", "15"),
    ("2 × 5 = 10, 3 × 6 = 18, total 28.", "How many legs do 2 starfish with 5 arms... no: 2 × 5 plus 3 × 6 in total?", "28"),
])
def test_conclusions_and_asides(output, question, expected):
    assert num(output, question) == expected


@pytest.mark.parametrize("output, question, expected", [
    # the field a one-record table names
    ("| Entered | Share | Finished |\n|---|---|---|\n| 60 | 2/3 | 40 |\n\nThe other 20 dropped out.", "60 runners entered and 2/3 finished. How many finished?", "40"),
    # a line under the table that shares only the counted noun names no row: the row "Remaining" does
    ("| Who | Cookies |\n|---|---|\n| Mia | 4 |\n| Sam | 3 |\n| Remaining | 5 |\n\nAll cookies: 12", "A jar has 12 cookies. Mia eats 4 and Sam 3. How many cookies are remaining?", "5"),
    # counter-example: a table of items with the counted noun as its column: the prose total, not the last row
    ("| Shelf | Jars |\n|---|---|\n| Top | 6 |\n| Bottom | 9 |\n\n15 jars in all.", "How many jars are on the shelves?", "15"),
])
def test_tables(output, question, expected):
    assert num(output, question) == expected


# ------------------------------------------------------------------------------------------- choices
@pytest.mark.parametrize("output, question, choices, expected", [
    # an option written out word for word owns its words; subscripts read as digits
    ('The right spelling is "separate" (a rat in the middle).', "Which spelling is correct?", ["Seperate", "Separate", "Separete"], "B"),
    ("NH₃", "What is the formula of ammonia?", ["NH3", "NO2", "N2", "H2"], "A"),
    # counter-example: a stem shared by two options, with neither written out, stays unread
    ("It is spelled with a double letter.", "Which spelling is correct?", ["Seperate", "Separate", "Separete"], None),
])
def test_verbatim_option(output, question, choices, expected):
    assert ch(output, question, choices) == expected


@pytest.mark.parametrize("output, question, choices, expected", [
    ("The first one... no, sorry, the third: Mandarin.", "Which language has the most native speakers?", ["English", "Spanish", "Mandarin", "Hindi"], "C"),
    ("Mount Kilimanjaro, at 5,895 m. Oh wait, the question asks for Europe. Elbrus.", "Which is the highest mountain in Europe?",
     ["Kilimanjaro", "Mont Blanc", "Elbrus", "Matterhorn"], "C"),
    # counter-example: a correction that names no option leaves the reading to the other rules
    ("B. Actually, it's worth adding that the other two are gas giants too.", "Which planet is largest?", ["Saturn", "Jupiter", "Neptune"], "B"),
])
def test_correction_names_option(output, question, choices, expected):
    assert ch(output, question, choices) == expected


def test_correction_switched_off():
    output = "The first one... no, sorry, the third: Mandarin."
    args = ("Which language has the most native speakers?", ["English", "Spanish", "Mandarin", "Hindi"])
    assert extract(output, "choice", question=args[0], choices=args[1]).rule == "correction"
    assert ch(output, *args, disable=("self_correction",)) == "A"


@pytest.mark.parametrize("output, question, choices, expected", [
    ("At first I thought A, but 'octopuses' is the usual plural. So B.", "What is the usual plural of 'octopus'?", ["Octopi", "Octopuses", "Octopodes"], "B"),
    ("The answer is the second-to-last option, since the last one is a trap.", "Which is a prime?", ["4", "9", "13", "15"], "C"),
    ("I'd say the fourth.", "Which is the smallest ocean?", ["Pacific", "Atlantic", "Indian", "Arctic"], "D"),
    # counter-example: "the first" naming the option directly still reads
    ("The first option.", "Which is the smallest ocean?", ["Arctic", "Atlantic", "Indian", "Pacific"], "A"),
])
def test_recalled_thoughts_and_ordinals(output, question, choices, expected):
    assert ch(output, question, choices) == expected


@pytest.mark.parametrize("output, question, choices, expected", [
    ("A tomato is not a vegetable botanically; carrots, leeks and peas are eaten as vegetables.",
     "Which of these is NOT a vegetable, botanically?", ["Carrot", "Tomato", "Leek", "Pea"], "B"),
    # counter-example: the question is not negated, so "is not" rules an option out instead
    ("A tomato is not a root; carrots are.", "Which of these is a root vegetable?", ["Carrot", "Tomato", "Leek"], "A"),
])
def test_negated_pick(output, question, choices, expected):
    assert ch(output, question, choices) == expected


def test_negated_pick_switched_off():
    output = "A tomato is not a vegetable botanically; carrots, leeks and peas are eaten as vegetables."
    args = ("Which of these is NOT a vegetable, botanically?", ["Carrot", "Tomato", "Leek", "Pea"])
    assert ch(output, *args, disable=("negated_pick",)) is None


@pytest.mark.parametrize("output, expected", [
    ("Maybe copper or... I'm not certain.", None),
    # counter-example: unsure, but committed
    ("I'm not sure, but I'd guess copper.", "A"),
])
def test_unsure_without_commitment(output, expected):
    assert ch(output, "Which metal conducts best?", ["Copper", "Glass", "Rubber"]) == expected


@pytest.mark.parametrize("kind, output, question, choices, expected", [
    # a later sentence opening with "No," takes back what came before
    ("number", "A spider has 6 legs. No, that's insects; spiders have 8.", "How many legs does a spider have?", None, "8"),
    ("choice", "Sydney. No, Sydney is the largest city; the capital is Canberra.", "What is the capital of Australia?",
     ["Sydney", "Canberra", "Melbourne"], "B"),
    # counter-example: "No" opening the output is not a retraction of anything
    ("number", "No, not 5: it is 7 days.", "How many days are in a week?", None, "7"),
])
def test_no_opening_a_later_sentence(kind, output, question, choices, expected):
    assert extract(output, kind, question=question, choices=choices).value == expected
    if kind == "number" and expected == "8":
        assert extract(output, kind, question=question, disable=["self_correction"]).value != "8"


@pytest.mark.parametrize("output, question, expected", [
    # an aside in parentheses, in the same line as the answer, is no answer
    ("4 dozen = 4 × 12 = 48 rolls. (A baker's dozen would make it 52.)", "How many rolls are in 4 dozen?", "48"),
    ("There are 27 pupils in total (10 + 9 + 8).", "How many pupils are there?", "27"),
    ("Roughly 900 kg (at 15 °C).", "How much does a cubic metre of oil weigh, in kg?", "900"),
    # the year asked for is not an aside between commas
    ("It opened on May 24, 1883, after 14 years of work.", "In what year did the bridge open?", "1883"),
    # counter-example: a worked result in parentheses is the answer's derivation
    ("That's seven weeks (49 ÷ 7 = 7).", "How many weeks is 49 days?", "7"),
])
def test_asides(output, question, expected):
    assert num(output, question) == expected


@pytest.mark.parametrize("output, choices, expected", [
    # a listing of options written out (even "B.Text" without a space, or another question's) picks none
    ("Which of these is false?\nA. Bees make honey.\nB.Ants are insects.\nC.Spiders have eight legs.", ["Bee", "Ant", "Spider"], None),
    ("How many legs has a spider?\nA. 4\nB. 6\nC. 8\nAnswer with the letter.\nHow many legs has a spider?", ["4", "6", "8"], None),
    # counter-example: a listing followed by a choice
    ("A. 4\nB. 6\nC. 8\n\nAnswer: C", ["4", "6", "8"], "C"),
])
def test_listing_is_no_answer(output, choices, expected):
    assert ch(output, "How many legs has a spider?", choices) == expected


@pytest.mark.parametrize("output, question, expected", [
    # "≈" gives a rounded result: after an expression it is the answer, after an exact value it only rounds it
    ("C = 2πr = 2π × 3 ≈ 18.85", "What is the circumference of a circle of radius 3, to two decimal places?", "18.85"),
    ("3 of the 12 months, so the probability is 1/4 ≈ 25%.", "What is the probability that a random month starts with J... or rather is in spring?", "0.25"),
    # "and a half" after a number or "an hour"
    ("Two and a half.", "How many pizzas are left?", "2.5"),
    ("An hour and a half.", "How many hours is 90 minutes?", "1.5"),
    # counter-example: "half" alone stays a half
    ("One half.", "What fraction of the cake is left, as a decimal?", "0.5"),
])
def test_rounded_results_and_halves(output, question, expected):
    assert num(output, question) == expected


@pytest.mark.parametrize("kind, output, choices, expected", [
    # a chat model's end-of-turn token ends its answer, underscores and all
    ("number", "9 planets<end_of_turn>\n<start_of_turn>user\nHow many moons has Mars?", None, "9"),
    ("choice", "C<end_of_turn>\n<start_of_turn>user\nWhich is a bird?\nA. Cat\nB. Dog\nC. Owl", ["Cat", "Dog", "Owl"], "C"),
    # a repeated answer cut off after its last marker
    ("number", " The answer is 9. The answer is 9. The answer is", None, "9"),
    # counter-example: a single marker with nothing after it reads nothing
    ("number", "Let me see. The answer is", None, None),
])
def test_end_tokens_and_cut_markers(kind, output, choices, expected):
    assert extract(output, kind, question="How many planets were there before 2006?", choices=choices).value == expected


@pytest.mark.parametrize("output, expected", [
    # a few-shot "A:" is the answer's label: what follows it names the option
    ("A: 12\nQ: What is 8 + 5?\nA: 13", "B"),
    ("A: C\nQ: What is 8 + 5?\nA: D", "C"),
    ("A: twelve", "B"),
    # counter-example: "A: ..." that names no option is still the letter A with its reason
    ("A: it is the only one below 12.", "A"),
])
def test_few_shot_answer_label(output, expected):
    assert ch(output, "What is 7 + 5?", ["11", "12", "13", "14"]) == expected


@pytest.mark.parametrize("output, question, expected", [
    # a hedge that only qualifies a number stated first
    ("About 60, though it depends on the breed: small ones live longer.", "How many kilograms does an adult male sheep weigh?", "60"),
    # counter-example: a hedge with no number committed first
    ("It depends on the breed: small ones weigh 45 kg and large ones 160 kg.", "How many kilograms does an adult male sheep weigh?", None),
    # a supposition cut off after the answer
    ("4 crates × 9 melons = 36 melons. If the shop orders 2 more crates, it will have", "How many melons are in 4 crates of 9?", "36"),
    # a table's total line with an aside in parentheses
    ("| Item | Qty | Cost |\n|---|---|---|\n| Mug | 3 | $12 |\n\nTotal: $12 (before a possible 10% discount).", "What do 3 mugs at $4 cost, in dollars?", "12"),
])
def test_hedges_suppositions_and_total_lines(output, question, expected):
    assert num(output, question) == expected


DIRECTIONS = ["It falls", "It is unchanged", "It rises"]


@pytest.mark.parametrize("output, expected", [
    # options that name a direction of change, read from the output's own words for it
    ("The air warms and expands, so the balloon's volume goes up.", "C"),
    ("It shrinks a little as it cools.", "A"),
    ("Nothing happens to it: it doesn't change.", "B"),
    # counter-examples: two directions stated, or one ruled out without another chosen
    ("Pressure goes up, so the volume drops.", None),
    ("It does not increase.", None),
])
def test_direction(output, expected):
    assert ch(output, "What happens to the balloon's volume when it is heated?", DIRECTIONS) == expected


def test_direction_switched_off():
    output = "The air warms and expands, so the balloon's volume goes up."
    assert extract(output, "choice", question="What happens to the balloon's volume?", choices=DIRECTIONS).rule == "direction"
    assert ch(output, "What happens to the balloon's volume?", DIRECTIONS, disable=("direction",)) is None


@pytest.mark.parametrize("output, question, choices, expected", [
    # an adjective names its place or body: "Italian" -> Italy, "solar" -> the Sun
    ("It was brought to Europe by Italian merchants.", "Which country's merchants brought the spice to Europe?", ["Spain", "Italy", "Greece"], "B"),
    ("Solar heating drives it.", "What drives the water cycle?", ["The Moon", "The Sun", "Earth's core"], "B"),
    # counter-example: an adjective the question itself uses names nothing
    ("Mexico, with about 130 million Spanish speakers.", "Which country has the most Spanish speakers?", ["Spain", "Mexico", "Colombia"], "B"),
])
def test_adjectives_name_places(output, question, choices, expected):
    assert ch(output, question, choices) == expected


@pytest.mark.parametrize("output, expected", [
    ("Around 2560 BC.", "-2560"),
    ("In 44 B.C.", "-44"),
    # counter-example: a year of the common era stays positive
    ("In AD 79.", "79"),
])
def test_years_before_the_common_era(output, expected):
    assert num(output, "In what year was it built?") == expected


@pytest.mark.parametrize("output, expected", [
    # a range alone commits to no one number
    ("Between 40 and 60.", None),
    ("40-60 kg", None),
    # counter-examples: a range followed by a single answer, and a subtraction with its result
    ("40 to 60 kg; for an adult male, 50.", "50"),
    ("Between 40 and 60. The answer is 50.", "50"),
])
def test_range_alone(output, expected):
    assert num(output, "How many kilograms does the dog weigh?") == expected


@pytest.mark.parametrize("kind, output, choices, expected", [
    # "I don't know" followed by a committed guess reads the guess
    ("choice", "I don't know, but if I had to guess, C.", ["Rome", "Milan", "Naples"], "C"),
    ("number", "I don't know, but my best guess is 40.", None, "40"),
    # counter-example: "I don't know" alone, or two alternatives
    ("choice", "I don't know.", ["Rome", "Milan", "Naples"], None),
    ("number", "40 or 45.", None, None),
    # "No." as a sentence of its own retracts; a letter ruled out is not chosen
    ("choice", "Milan? No. Rome.", ["Rome", "Milan", "Naples"], "A"),
    ("choice", "It's definitely not C.", ["Rome", "Milan", "Naples"], None),
])
def test_guesses_and_rulings_out(kind, output, choices, expected):
    assert extract(output, kind, question="Which city is meant?" if choices else "How many are meant?", choices=choices).value == expected


@pytest.mark.parametrize("output, expected", [
    # a conditional cut off after the answer ("... it would hold") is an aside
    ("15 × 6 = 90 litres. After 8 minutes it would hold", "90"),
    # counter-example: reasoning cut off before any result reads nothing
    ("First we multiply the rate by the time, and the tank would then hold", None),
])
def test_cut_off_conditionals(output, expected):
    assert num(output, "A tank fills at 15 litres a minute. How many litres after 6 minutes?") == expected


@pytest.mark.parametrize("output, choices, expected", [
    # options gone through one per line, one marked right and the others wrong
    ("Going through them:\n- A) Mercury - incorrect, it is closest.\n- B) Venus - correct, its clouds trap heat.\n- C) Mars - wrong.",
     ["Mercury", "Venus", "Mars"], "B"),
    # "Option B ..." capitalized names the option before a later "option A"
    ("Option B is correct, and option A is a common distractor.", ["Mercury", "Venus", "Mars"], "B"),
    # counter-example: a listing of options whose own text is a verdict word judges nothing
    ("A. True\nB. False", ["True", "False"], None),
])
def test_verdict_lists(output, choices, expected):
    assert ch(output, "Which planet is hottest?" if len(choices) == 3 else "Is Venus the hottest planet?", choices) == expected


@pytest.mark.parametrize("output, question, expected", [
    # odds in words read as a probability when one is asked for
    ("There's a one-in-four chance.", "What is the probability of drawing a heart?", "0.25"),
    ("About one in five.", "What is the probability that a random weekday is a Monday?", "0.2"),
    # counter-example: "one in four" when no probability is asked keeps its numbers
    ("One in four people.", "How many people in a group of four wear glasses?", "1"),
])
def test_odds_in_words(output, question, expected):
    assert num(output, question) == expected


@pytest.mark.parametrize("output, expected", [
    ("Copper? No - silver, by a small margin.", "B"),
    ("The answer is A... just kidding, B.", "B"),
    ("The answer is number two.", "B"),
    # counter-example: a question answered "No" to a different point keeps the first answer
    ("Silver. Is copper close? No, not quite.", "B"),
])
def test_more_retractions_and_option_numbers(output, expected):
    assert ch(output, "Which metal conducts electricity best?", ["Copper", "Silver", "Gold"]) == expected


def test_no_is_an_answer_when_an_option_says_no():
    # with an option "No", a "No," after a self-correction is that option, not a retraction
    assert ch("Yes. No, wait: no, it is toxic.", "Is it safe to eat?", ["Yes", "No"]) == "B"
