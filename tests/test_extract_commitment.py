"""Whether an output commits to an answer: refusals, candidates left open, tentative picks, corrections,
outputs cut off or answering another question. One case per principle and its counter-examples, read
with the real cascade (``gengap.extract.extract``)."""

from __future__ import annotations

from _readers import ch, num, tx, yn


# ------------------------------------------------------------------ an apology that opens a refusal
def test_an_apology_for_not_answering_is_no_correction():
    out = ("I'm sorry, but I can't predict exchange rates. They depend on interest rates and trade flows; "
           "as of my last update one euro bought about 1.08 dollars.")
    assert num(out, "What will the euro-dollar exchange rate be next June?") is None
    # counter-example: "sorry" that takes a figure back is a correction
    assert num("9 × 6 = 56. Sorry, 9 × 6 = 54.", "What is 9 × 6?") == "54"


# ------------------------------------------------------------------ what it knew at its last update
def test_what_the_model_knew_at_its_last_update_answers_a_question_about_the_present():
    out = "I can't check live sources, so I can't confirm who leads it now. As of my last update, Satya Nadella was the CEO of Microsoft."
    assert tx(out, "Who is the CEO of Microsoft?") == "Satya Nadella"
    # counter-example: a refusal to foresee is not undone by what it knew
    out = "I can't predict the future, so I can't say who will win. As of my last update, Denmark was the reigning champion."
    assert tx(out, "Who will win the next handball world championship?") is None


# ------------------------------------------------------------------ candidates left open, and a pick among them
def test_candidates_left_open_are_no_answer():
    opts = ["Copper", "Iron", "Silver", "Gold"]
    assert ch("A, C", "Which metal is the best electrical conductor?", opts) is None
    assert ch("Hmm, A or C.", None, opts) is None
    assert tx("Ankara or Istanbul - I always mix these two up.", "What is the capital of Turkey?") is None
    assert num("13 or 14.", "How many stripes are on the US flag?") is None


def test_a_pick_after_the_candidates_is_the_answer():
    opts = ["Copper", "Iron", "Silver", "Gold"]
    assert ch("A or C. Probably C, since silver conducts slightly better.", None, opts) == "C"
    assert num("12 or 13. I'd go with 13, counting the first.", "How many stripes are red?") == "13"
    # counter-examples: one answer with a reason is no list of candidates; a fraction is one number
    assert ch("C, because silver has the lowest resistivity.", None, opts) == "C"
    assert num("1/4", "What is 1/4 of 1?") == "0.25"


def test_every_option_rejected_is_no_pick():
    opts = ["Sydney", "Melbourne", "Perth", "Brisbane"]
    assert ch("None of the options is right - the capital is Canberra. Sydney (A) is only the largest city.", None, opts) is None
    # counter-example: an option that itself says "none"
    assert ch("None of the above.", None, ["2", "3", "None of the above"]) == "C"


def test_the_matter_left_disputed_is_no_answer():
    q = "Who invented the telescope?"
    assert tx("It's disputed. Hans Lippershey applied for a patent in 1608, but Zacharias Janssen and Jacob Metius made similar claims.", q) is None
    # counter-example: what most sources give settles it
    assert tx("This is debated. Most sources name Hans Lippershey, who applied for a patent in 1608.", q) == "Hans Lippershey"


def test_an_answer_slot_that_says_there_is_none():
    assert tx("Answer: not sure\n\nQuestion: What is the capital of Peru?\nAnswer: Lima", "What is the capital of Bolivia?") is None
    assert yn("It straddles the border of two countries, so the answer is yes and no.", "Is Mont Blanc in France?") is None
    # counter-example: a real answer in the slot
    assert tx("Answer: Sucre\n\nQuestion: What is the capital of Peru?\nAnswer: Lima", "What is the capital of Bolivia?") == "Sucre"


def test_a_doubt_about_precision_only_qualifies_the_figure():
    assert num("I'm fairly sure it's 1,083 °C, but I don't remember the exact decimal.", "What is the melting point of copper in °C?") == "1083"
    # counter-example: not remembering at all is no answer
    assert num("I don't remember the melting point of copper.", "What is the melting point of copper in °C?") is None


def test_a_range_is_no_single_number():
    assert num("It varies, usually between 8 and 12.", "How many eggs does a hen lay per week?") is None
    # counter-examples: a count stated beside a span of years; a figure beside the range
    assert num("Five, between 1996 and 2004.", "How many albums did the band release?") == "5"
    assert num("About 105. It varies with size (90-120), but 105 is typical.", "How many calories are in a banana?") == "105"


def test_a_tentative_verdict_is_a_verdict():
    assert yn("Technically I'd say yes - it grows from the flower and holds the seeds. (Cooks call it a vegetable.)", "Is a pepper a fruit?") == "yes"


# ------------------------------------------------------------------ corrections: the answer restated first
def test_the_corrected_answer_is_restated_first():
    q = "In which country is the city of Porto?"
    assert tx("Porto is in Spain. Actually, no - it's in Portugal. Porto is Portugal's second-largest city.", q) == "Portugal"
    assert tx("Nominal GDP. Wait - more precisely it's real GDP; nominal GDP is not adjusted for inflation.",
              "Which GDP measure is adjusted for inflation?") == "real GDP"
    # counter-example: "that's ..." after the cue explains the retracted answer, it is not the new one
    assert tx("Zurich. Hmm, actually that's the largest city - Switzerland's federal city is Bern.", "What is the capital of Switzerland?") == "Bern"


def test_a_correction_that_concludes_with_a_negated_restatement():
    q = "Was 2100 going to be a leap year?"
    assert yn("2100 is divisible by 4, so yes - wait, it's divisible by 100 but not by 400, so it is not a leap year.", q) == "no"
    # counter-example: the conclusion affirms
    assert yn("It's divisible by 4... hmm, wait, 2024 is not divisible by 100, so it is a leap year.", "Is 2024 a leap year?") == "yes"


# ------------------------------------------------------------------ cut off before the conclusion
def test_an_output_cut_off_while_working_answers_nothing():
    assert num("Let's solve this step by step.\n\nStep 1: Find the total.\nShe buys 4 boxes of 6 eggs, so", "How many eggs are left?") is None
    opts = ["Bubble sort", "Heapsort", "Insertion sort", "Selection sort"]
    assert ch("Let's go through the options one by one:\n\n- A) Bubble sort: O(n^2) in the worst case, because each", None, opts) is None
    assert yn("To compare the two metals, we need to look at how easily each one gives up its outer", "Is caesium more reactive than lithium?") is None
    # counter-examples: an answer line after the setup, and a conclusion before the cut
    assert num("Let's solve this step by step.\n\n24 eggs", "How many eggs?") == "24"
    assert num("Let's solve it. 24 - 5 = 19, so 19 are left. She could also give", "How many eggs are left?") == "19"


# ------------------------------------------------------------------ answering another question
def test_a_base_model_that_opens_with_the_next_question_answers_that_one():
    q = "Q: What is the largest ocean?\nA:"
    assert tx(" Q: What is the smallest ocean?\nA: Arctic\nQ: What is the deepest ocean?\nA:", q) is None
    assert num(" Q: How many legs does a spider have?\nA: 8", "Q: How many legs does an ant have?\nA:") is None
    # counter-example: the asked question echoed, then its answer
    assert tx("Q: What is the largest ocean?\nA: Pacific", q) == "Pacific"


def test_a_span_that_answers_another_question():
    assert tx("'Guernica' was painted in 1937 and hangs in the Reina Sofia in Madrid.", "Who painted 'Guernica'?") is None
    assert tx("The skin is the heaviest organ of the body.", "What is the longest organ of the body?") is None
    assert tx("Australia's largest city is Sydney.", "What is the capital of Australia?") is None
    assert tx("As an AI language model, I have no opinions, but opera is a rich art form.", "Who wrote the opera 'Tosca'?") is None
    # counter-examples: the same measure in other words; a person for "who"
    assert tx("Africa's highest peak is Mount Kilimanjaro, in Tanzania.", "What is the tallest mountain in Africa?") == "Mount Kilimanjaro"
    assert tx("'Guernica' was painted by Pablo Picasso in 1937.", "Who painted 'Guernica'?") == "Pablo Picasso"


def test_not_able_to_is_a_refusal():
    assert yn("I'm not able to give legal advice. Please check the local traffic rules.", "Is it legal to turn right on red in Paris?") is None
    # counter-example: "not able to" about the subject, not the model
    assert yn("No, penguins are not able to fly.", "Can penguins fly?") == "no"


def test_candidates_in_words_and_a_tentative_lead():
    assert num("Three or four, I'm not sure which.", "How many hearts does a squid have?") is None
    opts = ["Oxygen", "Nitrogen", "Argon", "Carbon dioxide"]
    assert ch("I think it's A or B. Most likely B.", "Which gas is most abundant in air?", opts) == "B"
    assert ch("I think it's A or B.", "Which gas is most abundant in air?", opts) is None
    # counter-example: one number in words
    assert num("Three, one for each of its body systems.", "How many hearts does a squid have?") == "3"


def test_an_approximate_range_is_no_single_number():
    assert num("Roughly 200-300 billion; the exact number is uncertain.", "How many stars are in the galaxy?") is None
    # counter-example: an approximate single figure
    assert num("Roughly 250 billion.", "How many stars are in the galaxy?") == "250000000000"


def test_nothing_decided_yet_is_no_answer():
    assert tx("That hasn't been decided yet. The committee usually announces its choice in the spring.", "Which city will host the 2044 Games?") is None
    # counter-example: a decision reported
    assert tx("Brisbane was chosen to host them.", "Which city will host the 2032 Games?") == "Brisbane"


def test_a_doubt_settled_by_a_confirmation_and_an_opening_correction_label():
    q = "What is the chemical symbol for tin?"
    assert tx("The symbol is Sn, from the Latin stannum. Wait, or is it Ti? No - Sn is right.", q) == "Sn"
    assert tx("Madrid - oh, sorry, I meant Lisbon. Madrid is the capital of Spain.", "What is the capital of Portugal?") == "Lisbon"
    assert tx("Correction: the capital is Lisbon, not Porto as I said earlier.", "What is the capital of Portugal?") == "Lisbon"
    # counter-example: "Correction" alone is no answer, and a plain reply is read as it is
    assert tx("Lisbon, on the Tagus.", "What is the capital of Portugal?") == "Lisbon"


def test_a_pick_in_the_same_sentence_as_the_candidates():
    opts = ["1943", "1944", "1945", "1946"]
    assert ch("Either C or D, but I'd lean towards C.", "Which year did the war end?", opts) == "C"
    # counter-example: candidates with a doubt, no pick
    assert ch("C or D, but I really can't remember which.", "Which year did the war end?", opts) is None


def test_opposite_verdicts_from_two_points_of_view():
    assert yn("Botanically no, it's a fruit; culinarily yes.", "Is a cucumber a vegetable?") is None
    assert yn("Legally yes, but morally no.", "Is it acceptable to break a promise to a stranger?") is None
    # counter-example: the same verdict from both points of view
    assert yn("Technically yes, and practically yes too.", "Is a square a rectangle?") == "yes"


def test_an_event_that_has_not_happened_yet():
    assert tx("The 2034 final hasn't happened yet - it will be played in Saudi Arabia.", "Which team won the 2034 World Cup final?") is None


def test_a_pronoun_after_the_correction_speaks_of_the_retracted_answer():
    q = "Who was the first emperor of Rome?"
    assert tx("Julius Caesar. Oops - he was dictator, not emperor. The first emperor was Augustus.", q) == "Augustus"


def test_a_doubt_then_a_pick_in_the_same_sentence():
    assert num("Hard to say without more context, but most likely 24, since eggs come in dozens.", "How many eggs did she buy?") == "24"
    # counter-example: the doubt then two candidates
    assert num("Hard to say, but probably 24 or 36.", "How many eggs did she buy?") is None


def test_the_one_tentative_pick_of_a_short_reply():
    assert tx("I'm not 100% sure - maybe Vaduz?", "What is the capital of Liechtenstein?") == "Vaduz"
    opts = ["Deoxyribonucleic acid", "Dinitrogen acid", "Deoxyribose nitrate", "Dual nucleic acid"]
    assert ch("I'm not completely sure, but A sounds right.", "What does DNA stand for?", opts) == "A"
    # counter-examples: two tentative picks, and a tentative pick between two
    assert tx("Maybe Vaduz? Maybe Schaan?", "What is the capital of Liechtenstein?") is None
    assert tx("I'm not sure - maybe Vaduz or Schaan?", "What is the capital of Liechtenstein?") is None


def test_a_source_that_does_not_say_and_opinions_that_differ():
    assert yn("The passage doesn't say whether the ferry still runs.", "Does the passage say the ferry still runs?") is None
    assert yn("Hmm, tricky. Some say yes, others say no.", "Is a virus alive?") is None
    # counter-example: the passage is said to state the answer
    assert yn("No - the passage says the ferry stopped running in 1998.", "Does the ferry still run?") == "no"


def test_what_the_subject_is_does_not_name_what_is_asked_of_it():
    assert tx("Liechtenstein is a small principality in the Alps, between Switzerland and Austria.", "What is the capital of Liechtenstein?") is None
    # counter-example: the asked noun is in the sentence
    assert tx("Its capital is Vaduz, a town of about 5,000 people.", "What is the capital of Liechtenstein?") == "Vaduz"


def test_a_correction_of_a_detail_leaves_the_answer():
    out = "Gabriel García Márquez wrote it (1965). Correction - it was published in 1967 and translated in 1970."
    assert tx(out, "Who wrote 'One Hundred Years of Solitude'?") == "Gabriel García Márquez"
    # counter-example: the correction names another author
    assert tx("Jorge Luis Borges. Correction - it was Gabriel García Márquez.", "Who wrote 'One Hundred Years of Solitude'?") == "Gabriel García Márquez"


def test_not_knowing_in_other_languages():
    assert tx("No lo sé.", "¿Cuál es la capital de Mongolia?") is None
    assert tx("Je ne sais pas.", "Quelle est la capitale du Bhoutan ?") is None
    assert num("Keine Ahnung, ehrlich gesagt.", "Wie viele Einwohner hat Bern?") is None
    # counter-example: an answer in another language
    assert yn("Ja, Wien ist die Hauptstadt.", "Ist Wien die Hauptstadt von Österreich?") == "yes"


def test_candidates_that_depend_on_a_convention():
    assert num("Six or seven, depending on the model you use.", "How many continents are there?") is None
    # counter-example: one count with a note on the convention
    assert num("Seven - although some models count six.", "How many continents are there?") == "7"


def test_a_no_that_takes_back_the_short_answer_before_it():
    q = "Who was the first person to walk on the Moon?"
    assert tx("Buzz Aldrin. No - Neil Armstrong stepped out first; Aldrin followed him.", q) == "Neil Armstrong"
    # counter-example: "No" opening a phrase that is no retraction
    assert tx("Paris. No other city comes close.", "What is the capital of France?") == "Paris"


def test_a_past_state_does_not_answer_a_question_about_the_present():
    q = "What is the capital of Myanmar?"
    assert tx("Yangon was the capital until 2006; since then it has been Naypyidaw.", q) == "Naypyidaw"
    assert tx("Yangon was the capital until 2006.", q) is None
    # counter-examples: a question about the past; another name of the answer in parentheses
    assert tx("Freddie Mercury was Queen's lead vocalist from 1970 until his death in 1991.", "Who was the lead singer of Queen?") == "Freddie Mercury"
    assert tx("The capital of China is Beijing (formerly Peking).", "What is the capital of China?") == "Beijing"


def test_a_struck_out_answer_is_taken_back():
    assert num("~~41~~ 42", "What is 23 + 19?") == "42"
    assert tx("~~Sydney~~ Canberra", "What is the capital of Australia?") == "Canberra"
    # counter-example: a tilde that strikes nothing
    assert num("~42", "What is 23 + 19?") == "42"


def test_an_answer_slot_of_any_format_that_holds_no_answer():
    assert tx('{"answer": "unknown", "confidence": 0.1}', "Who wrote the letter?") is None
    assert tx("The final answer is $\\boxed{\\text{Cannot be determined}}$.", "Who wrote the letter?") is None
    assert tx("**Answer:** N/A - the text doesn't name one.", "Who wrote the letter?") is None
    # counter-examples: a real answer in the slot, and a symbol that only looks like "n/a"
    assert tx('{"answer": "Rembrandt"}', "Who painted it?") == "Rembrandt"
    assert tx("Na", "What is the chemical symbol for sodium?") == "Na"


def test_the_marked_pick_a_correction_takes_back():
    q = "In Excel, which function returns the largest value in a range?"
    assert tx("I'd go with LARGEST... actually no, LARGEST isn't a function. The function you want is MAX.", q) == "MAX"


def test_opposite_verdicts_in_some_ways_and_others():
    assert yn("In some ways yes, in others no.", "Was the reform a success?") is None
    # counter-example: a verdict with a qualification
    assert yn("Generally yes, in moderation, but not for everyone.", "Is tea good for you?") == "yes"


def test_a_range_opening_the_reply():
    assert num("7-9 hours per night, according to most sleep experts.", "How many hours of sleep does an adult need?") is None
    # counter-example: one figure opening the reply, a range after it
    assert num("8 hours, though anything from 7 to 9 is fine.", "How many hours of sleep does an adult need?") == "8"


def test_one_candidate_offered_as_a_question_then_a_doubt():
    opts = ["Mars", "Venus", "Jupiter", "Saturn"]
    assert ch("B? I'm not sure.", "Which planet is called the morning star?", opts) == "B"
    # counter-example: two candidates offered as questions
    assert ch("B? Or C? I'm not sure.", "Which planet is called the morning star?", opts) is None


def test_a_number_that_answers_another_question():
    assert num("The tower was completed in 1889 for the World's Fair.", "How tall is the tower in metres?") is None
    assert num("The ship was about 269 metres long and carried some 2,224 people.", "In what year did the ship sink?") is None
    # counter-examples: the asked measure beside a year; a year asked
    assert num("The tower, completed in 1889, is 330 m tall.", "How tall is the tower in metres?") == "330"
    assert num("It sank in 1912.", "In what year did the ship sink?") == "1912"


def test_a_date_does_not_say_where():
    assert tx("Napoleon was born in 1769.", "Where was Napoleon born?") is None
    # counter-example: the place beside the date
    assert tx("Napoleon was born in Ajaccio, Corsica, in 1769.", "Where was Napoleon born?") == "Ajaccio"


def test_one_side_of_a_comparison_compares_nothing():
    assert yn("The Rhine flows through six countries and empties into the North Sea.", "Is the Danube longer than the Rhine?") is None
    # counter-examples: a comparison stated, a pronoun for the subject
    assert yn("Africa is bigger: about 30.4 million km2 vs 24.7 million.", "Is Africa bigger than North America?") == "yes"
    assert yn("It is not; light is far faster.", "Is sound faster than light?") == "no"


def test_candidates_settled_by_a_conclusion():
    opts = ["Hydrogen", "Helium", "Oxygen", "Carbon"]
    assert ch("Hmm, A or B. Hydrogen is about 73% of the Sun's mass, so A.", "Which gas makes up most of the Sun?", opts) == "A"
    # counter-example: the conclusion keeps both
    assert ch("Hmm, A or B. Both are light gases, so I can't decide.", "Which gas makes up most of the Sun?", opts) is None


def test_a_correction_concluding_on_the_questions_subject():
    assert yn("Yes, 1 is prime. Sorry, I misspoke: a prime has exactly two divisors, so 1 is not prime.", "Is 1 a prime number?") == "no"
    # counter-example: a conclusion about something else is no verdict on the question
    assert yn("Yes. Hmm, wait: prices rose, so demand is not high.", "Is 1 a prime number?") == "yes"


def test_a_range_with_an_approximate_end():
    assert num("Scholars attribute anywhere from 41 to about 68 symphonies to him.", "How many symphonies did Mozart write?") is None


def test_a_passage_that_does_not_give_the_answer():
    assert tx("The passage doesn't mention the captain's name.", "What is the captain's name?") is None
    # counter-example: for a yes/no question about the passage, its silence is a "no"
    assert yn("No - the passage doesn't mention a storm.", "Does the passage mention a storm?") == "no"


def test_a_doubt_settled_for_the_first_answer():
    q = "Which planet is closest in size to Earth?"
    assert tx("Venus - hmm, or is it Mars? No, Venus: it's about 95% of Earth's diameter, while Mars is about 53%.", q) == "Venus"


def test_a_note_after_an_edit_label_takes_nothing_back():
    assert num("366 days.\n\nEdit: fixed a typo (I originally wrote 365).", "How many days are in a leap year?") == "366"
    # counter-example: an edit that gives another answer
    assert num("365 days.\n\nEdit: it's 366 in a leap year.", "How many days are in a leap year?") == "366"


def test_the_retracted_answer_named_again_in_the_correction_is_not_the_new_one():
    assert tx("Oxygen. Wait, no - we inhale oxygen and exhale carbon dioxide.", "What gas do humans exhale?") == "carbon dioxide"


def test_an_option_named_only_as_an_example_is_not_picked():
    opts = ["Monet", "Van Gogh", "Picasso", "Rembrandt"]
    q = "Which painter cut off part of his ear?"
    assert ch("Many 19th-century painters, from Monet to Cezanne, worked in the south of France.", q, opts) is None
    assert ch("Painters such as Monet often worked outdoors.", q, opts) is None
    # counter-examples: the option singled out, and an example beside the pick
    assert ch("It was Van Gogh, in 1888, after a quarrel with Gauguin.", q, opts) == "B"
    assert ch("Van Gogh - unlike painters such as Monet, he cut off part of his ear in 1888.", q, opts) == "B"


def test_superlatives_of_one_measure_in_other_words():
    assert tx("The cheetah is the quickest land animal, reaching 110 km/h.", "What is the fastest land animal?") == "cheetah"
    # counter-example: another measure
    assert tx("The heart is the hardest-working organ in the body.", "What is the largest organ of the body?") is None


def test_one_of_the_candidates_named_again_is_the_pick():
    assert tx("Paris or Lyon? Paris, of course.", "What is the capital of France?") == "Paris"
    assert tx("Paris / Lyon - definitely Paris.", "What is the capital of France?") == "Paris"
    assert num("Eight or ten? Eight.", "How many legs does a spider have?") == "8"
    assert ch("B, D? No - only B; squid are molluscs.", "Which is a mammal?", ["Shark", "Whale", "Tuna", "Squid"]) == "B"
    # counter-example: a candidate named again inside a remark that picks nothing
    assert tx("Paris or Lyon? Lyon is the bigger food city, Paris the bigger capital... I can't decide.", "What is the gastronomic capital of France?") is None


def test_a_doubt_then_what_is_known_commits():
    assert num("Scientists don't yet know for sure, but the leading estimate is 13.8 billion years.", "How old is the universe, in billions of years?") == "13.8"
    assert num("I don't have live data, but it's roughly 8.1 billion.", "What is the population of Earth, in billions?") == "8.1"
    # counter-examples: the doubt alone; a hedge word is never the answer span
    assert num("Nobody knows exactly.", "How many species are there on Earth, in millions?") is None
    assert tx("It's debated, but the asteroid impact is the leading explanation.", "What caused the extinction of the dinosaurs?") != "debated"


def test_an_opening_hedge_set_aside_by_what_follows():
    assert tx("It's debated by some, but officially it's a dwarf planet.", "What is Pluto classified as?") == "dwarf planet"
    assert tx("It's debated, but the asteroid impact at Chicxulub is the leading explanation.",
              "What caused the extinction of the dinosaurs?") in ("asteroid impact at Chicxulub", "asteroid impact")
    # counter-example: the hedge kept
    assert tx("It's debated, but I really couldn't say.", "What caused the extinction of the dinosaurs?") is None


def test_taking_it_back_and_notes_on_what_was_taken_back():
    q = "Is Sydney the capital of Australia?"
    assert yn("Yes, it is. I take that back: Canberra is the capital.", q) == "no"
    assert tx("Zurich - I take that back, it's Bern.", "What is the capital of Switzerland?") == "Bern"
    # counter-example: a note recalling the retracted answer does not bring it back
    assert yn("No, it's Canberra. (My mistake earlier when I said yes.)", q) == "no"
