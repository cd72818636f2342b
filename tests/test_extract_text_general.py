"""General reading principles for short text answers, each with counter-examples that keep their
reading, and the rule switched off once to show that it is what reads the case."""

from __future__ import annotations

from _readers import tx
from gengap.extract import extract


# ------------------------------------------------------------------ a courtesy around the reply states nothing
def test_a_courtesy_opener_or_closer_is_not_the_answer():
    q = "What is the capital of Italy?"
    for out in ("Thanks for asking! Rome", "Okay, let me think.\n\nRome", "Hi there! Rome.", "Sure, here you go:\n\nRome",
                "Good question! Let me explain.\n\nThe capital of Italy is Rome.", "Rome. Hope that helps!",
                "Rome\n\nLet me know if you have any other questions.", "Sure thing! **Rome** Happy learning!"):
        assert tx(out, q) == "Rome", out
    assert extract("Thanks for asking! Rome", "text", question=q, disable=["courtesy"]).value != "Rome"


def test_a_courtesy_alone_answers_nothing_but_a_one_word_reply_stays():
    assert tx("Happy to help.", "What is the capital of Italy?") is None
    assert tx("Of course! Here's the answer:\n\n", "What is the capital of Italy?") is None
    assert tx("OK.", "What is the postal abbreviation of Oklahoma?") == "OK"  # counter-example: the answer itself


def test_a_courtesy_does_not_hide_a_refusal_or_a_hedge():
    q = "What is the name of my neighbour's cat?"
    assert tx("Of course! Here's the answer:\n\nI'm sorry, I don't have any information about your neighbour.", q) is None
    assert tx("Great question! It could be either Athens or Sparta; I can't say.", "Which city won?") is None


# ------------------------------------------------------------------ the question's noun heads a phrase of the answer's own
def test_the_question_noun_after_a_modifier_is_the_head_of_the_answer():
    assert tx("It's the polar bear.", "What is the largest species of bear?") == "polar bear"
    assert tx("I believe it's white blood cells.", "Which blood cells fight infection?") == "white blood cells"
    assert tx("Probably the whale shark.", "What is the largest shark?") == "whale shark"
    # counter-examples: a count is no modifier of a name, and a name keeps only its own words
    assert tx("Saturn has many moons, including Titan and Rhea.", "What is the largest moon of Saturn?") != "many moons"
    assert tx("It's the planet Jupiter.", "Which planet is the largest?") == "Jupiter"


# ------------------------------------------------------------------ "the A of the B": the thing of the asked kind is B
def test_a_part_or_state_of_the_asked_thing_names_the_thing():
    assert tx("Hepatitis is inflammation of the liver.", "Which organ is affected by hepatitis?") == "liver"
    assert tx("Insulin is made by the beta cells of the pancreas.", "Which organ produces insulin?") == "pancreas"
    assert tx("The sky on a clear day is a shade of blue.", "What colour is the sky on a clear day?") == "blue"
    # counter-examples: the question's own noun after "of", a name with "of", a question without a kind
    assert tx("It's called a pride of lions.", "What is a group of lions called?") == "pride"
    assert tx("It is the Gulf of Mexico.", "Which body of water borders Texas?") == "Gulf of Mexico"
    assert extract("Hepatitis is inflammation of the liver.", "text", question="Which organ is affected by hepatitis?",
                   disable=["in_sentence"]).value != "liver"


# ------------------------------------------------------------------ an output cut off after the answer was stated
def test_a_cut_after_a_complete_sentence_that_restates_the_question_reads_that_sentence():
    out = " Greenland is the largest island in the world, with an area of about 2.16 million km2. Australia is"
    assert tx(out, "Q: What is the largest island in the world?\nA:") == "Greenland"
    # counter-examples: a first sentence about the question's subject but not its question, then the cut
    out = " The Sydney Opera House is one of the most famous buildings of the 20th century. It is located on Bennelong Point. It was"
    assert tx(out, "Who designed the Sydney Opera House?") is None
    out = "Cities in Australia are often located along the coast. The country has six states and two territories, each with its own"
    assert tx(out, "What is the name of the largest city in Australia?") is None


# ------------------------------------------------------------------ the question restated around a copula is not the answer
def test_the_question_restated_before_or_after_is_is_set_aside():
    q = "What is the name of the ship on which Darwin sailed around the world?"
    assert tx("The name of the ship on which Darwin sailed around the world is HMS Beagle.", q) == "HMS Beagle"
    q = "What is the largest desert in the world (including cold deserts)?"
    assert tx("I believe the largest desert in the world (including cold deserts) is Antarctica.", q) == "Antarctica"
    q = "What is the name of a scientist who studies rocks?"
    assert tx("The name of a scientist who studies rocks is geologist. It is well known.", q) == "geologist"
    # counter-examples: the answer on the other side keeps its copula; a sentence without one keeps its words
    assert tx("Paris is the capital of France, on the Seine.", "What is the capital of France?") == "Paris"
    assert tx("Iron has the chemical symbol Fe.", "Which element has the chemical symbol Fe?") == "Iron"


def test_the_question_verb_makes_a_sentence_whose_subject_answers():
    assert tx("Alexander Fleming discovered penicillin.", "Who discovered penicillin?") == "Alexander Fleming"
    assert tx("Piano has 88 keys.", "Which instrument has 88 keys?") == "Piano"
    # counter-example: a bare noun phrase ending in the question's noun stays whole
    assert tx("White blood cells!", "Which blood cells fight infection?") == "White blood cells"


def test_a_single_surname_before_a_past_verb_answers_who():
    assert tx("Beethoven set Schiller's poem in the final movement of his Ninth Symphony.", "Who composed the 'Ode to Joy'?") == "Beethoven"
    assert tx("Fleming noticed the mould in 1928.", "Who discovered penicillin?") == "Fleming"
    # counter-example: a name before a verb in the present tense is not read as the one who did it
    assert tx("Beethoven stays popular.", "Who composed the 'Ode to Joy'?") != "Beethoven"


def test_a_period_after_a_word_ending_in_a_capital_ends_the_sentence():
    assert tx("H2O. It is two hydrogen atoms and one oxygen atom.", "What is the chemical formula of water?") == "H2O"
    assert tx("H2O. Let me know if you have any other questions.", "What is the chemical formula of water?") == "H2O"
    # counter-example: initials stay inside the name
    assert tx("J. R. R. Tolkien wrote it in 1937.", "Who wrote The Hobbit?") == "J. R. R. Tolkien"


# ------------------------------------------------------------------ the answer first, then a remark set off by a dash, parenthesis or colon
def test_a_remark_after_the_answer_does_not_replace_it():
    q = "What is the capital of Japan?"
    assert tx("Tokyo — many people confuse it with Kyoto, but that's wrong.", q) == "Tokyo"
    assert tx("Tokyo — fun fact: Osaka and Kyoto were capitals too.", q) == "Tokyo"
    assert tx("Tokyo (fun fact: Kyoto was the capital until 1868)", q) == "Tokyo"
    assert tx("Sputnik 1: it was launched by the Soviet Union in 1957.", "What was the name of the first artificial satellite?") == "Sputnik 1"
    assert tx("K. It was named from the Latin kalium.", "What is the chemical symbol for potassium?") == "K"
    # counter-examples: a belief opening the reply is still turned by its "but"; a step label is no answer
    assert tx("Most people guess Sydney, but it's Canberra.", "What is the capital of Australia?") == "Canberra"
    assert tx("Step 1: the capital of Japan is Tokyo.", q) == "Tokyo"


# ------------------------------------------------------------------ a candidate denied at the opening is not the answer
def test_a_denied_candidate_gives_way_to_what_follows():
    q = "What is the capital of Australia?"
    assert tx("Not Sydney — Canberra.", q) == "Canberra"
    assert tx("Definitely not Sydney. It's Canberra.", q) == "Canberra"
    assert tx("I initially thought Sydney, but it's Canberra.", q) == "Canberra"
    assert tx("Definitely not J.K. Rowling. It's the giraffe.", "What is the tallest animal?") == "giraffe"  # initials
    # counter-examples: an unsure opener is no denied candidate, and "not only" denies nothing
    assert tx("Not sure, sorry.", "What is the largest reef system in the world?") is None
    assert tx("Not sure, but I think it's Canberra.", q) == "Canberra"
    assert extract("Not Sydney — Canberra.", "text", question=q, disable=["answer_first"]).value != "Sydney"


def test_the_question_preposition_echoed_before_a_bare_answer_is_not_part_of_it():
    assert tx("In Rome.", "In which city is the Colosseum?") == "Rome"
    assert tx("In Peru, high in the Andes.", "In which country is Machu Picchu?") == "Peru"
    # counter-example: a name that opens with the preposition's word stays whole when no preposition is asked
    assert tx("In-N-Out Burger.", "Which burger chain started in California?") == "In-N-Out Burger"


# ------------------------------------------------------------------ a tentative pick is a pick; two candidates unchosen are none
def test_tentative_picks_caveats_and_unchosen_candidates():
    q = "What is the capital of Australia?"
    assert tx("Canberra? I'm not completely sure.", q) == "Canberra"
    assert tx("I believe Canberra, but please verify.", q) == "Canberra"
    assert tx("I think it's Canberra, but I could be wrong.", q) == "Canberra"
    assert tx("Sydney or Canberra, I'm not sure which.", q) is None
    assert tx("Maybe Sydney or Canberra.", q) is None
    # counter-examples: an answer that is itself a disjunction, and others' belief turned by "but"
    assert tx("Butterflies or moths, after the pupa stage.", "What do caterpillars turn into?") == "Butterflies or moths"
    assert tx("Many people think Sydney, but it's Canberra.", q) == "Canberra"
    assert tx("Which city? Canberra.", q) != "Which city"


# ------------------------------------------------------------------ the question's word as a modifier, and quantities in words
def test_a_question_word_modifying_a_new_head_stays_and_a_quantity_keeps_its_unit():
    assert tx("Miso paste (fermented soybean paste), usually with dashi.", "What is the main ingredient in a miso soup?") == "Miso paste"
    q = "What is the boiling point of water at sea level in Celsius, as a phrase?"
    assert tx("One hundred degrees Celsius is the boiling point of water at sea level.", q) == "One hundred degrees Celsius"
    # counter-examples: the kind asked for is an apposition ("the planet Mars"); an adverb is no modifier
    assert tx("The planet Mars, because of its iron oxide.", "Which planet is called the Red Planet?") == "Mars"
    assert tx("Mainly hydrogen (~73%), then helium.", "What is the main component of the Sun?") == "hydrogen"


# ------------------------------------------------------------------ precision: a description of the subject is no answer
def test_a_superlative_description_of_the_subject_is_not_read_as_the_answer():
    assert tx("Wimbledon is the oldest tennis tournament in the world.", "Which sport is played at Wimbledon?") is None
    # counter-examples: the question asks the superlative; a name is no superlative
    assert tx("The Nile is the longest river in Africa.", "What is the longest river in Africa?") == "Nile"
    assert tx("Ernest Hemingway is the answer.", "Who wrote 'The Old Man and the Sea'?") == "Ernest Hemingway"


def test_not_sure_which_of_two_long_candidates_answers_nothing():
    q = "Who wrote the Harry Potter books?"
    assert tx("J.K. Rowling or Leonardo DiCaprio, I'm not sure which.", q) is None
    assert tx("K? I'm not completely sure.", "What is the chemical symbol for potassium?") == "K"
    assert tx("J.K. Rowling, I'm fairly sure.", q) == "J.K. Rowling"  # counter-example: one candidate


def test_another_script_is_an_answer_only_when_the_question_asks_for_it():
    assert tx("It's ありがとう.", "Translate 'thank you' into Japanese.") == "ありがとう"
    assert tx("It's π.", "Which Greek letter stands for the ratio of a circle's circumference to its diameter?") == "π"
    # counter-examples: a small model's stray tokens for a question in English
    assert tx("遷移", "What is the chemical symbol for gold?") is None
    assert tx("遷移model", "What is the capital of France?") != "遷移"


# ------------------------------------------------------------------ precision: a reply about the answering states no answer
def test_a_reply_that_only_speaks_of_the_answering_is_unextracted():
    q = "What is the capital of France?"
    for out in ("Let me look that up.", "Sorry, I'm not sure about that one.", "I would rather not guess.",
                "That's a great question! There are many factors to consider.", "That's beyond what I know."):
        assert tx(out, q) is None, out
    # counter-examples: an apology or a promise to look, then the answer
    assert tx("Sorry, the capital is Paris.", q) == "Paris"
    assert tx("Let me check. It's Paris.", q) == "Paris"
    assert tx("I'm not sure, but I think it's Paris.", q) == "Paris"
    assert tx("Iron (many people confuse it with cobalt, but that's wrong)", "Which element has the chemical symbol Fe?") == "Iron"


def test_several_candidates_then_but_gives_the_answer_after_but():
    q = "What is the capital of France?"
    assert tx("There are many theories, but most say Paris.", q) == "Paris"
    assert tx("There are many theories.", q) is None  # counter-example: no answer follows


def test_a_lowercase_span_is_no_name_for_a_question_that_asks_a_named_kind():
    q = "In which country is Machu Picchu?"
    assert tx("Machu Picchu sits high in the Andes of Peru, above the Urubamba valley.", q) != "high"
    assert tx("It's in Peru.", q) == "Peru"
    # counter-examples: a kind that is not the head noun, and a common-noun answer to a common-noun kind
    assert tx(" Octopus", "Which sea creature has three hearts?") == "Octopus"
    assert tx("octopus is the answer.", "Which sea creature has three hearts?") == "octopus"
