"""Rule families for short text answers and yes/no verdicts added for outputs written after the rules
(extraction_v6dev): each case is written here by hand in the shape of its family, with a counter-example
that must keep its reading, and the family switched off once to show that its rule is what reads it."""

from __future__ import annotations

from _readers import tx, yn
from gengap.extract import extract
from gengap.extract._base import closing_hedge, own_answer


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


def test_a_heading_or_list_opening_the_answer():
    assert tx("### Short answer\nJupiter\n\n### Details\nJupiter has 95 moons; Saturn has more by some counts.",
              "Which planet is the most massive?") == "Jupiter"
    assert tx("1. Pacific\n2. Atlantic\n3. Indian\n\nThe Pacific is by far the largest.", "Which ocean is the largest?") == "Pacific"
    # counter-example: a heading that is no answer label leaves the prose to answer
    assert tx("### Background\nThe largest ocean is the Pacific.", "Which ocean is the largest?") == "Pacific"


def test_a_guess_asked_back_then_corrected():
    assert tx("Sydney? No - the capital is Canberra. Sydney is the biggest city.", "What is the capital of Australia?") == "Canberra"
    assert tx("Sydney? No - the capital is Canberra.", "What is the capital of Australia?", disable=("answer_inside_sentence",)) is None


def test_unsure_but_committed():
    assert tx("I'm not 100% sure, but I believe it's the Nile.", "What is the longest river?") == "Nile"
    # counter-example: unsure between two answers commits to neither
    assert tx("I'm not sure, it's either the Nile or the Amazon.", "What is the longest river?") is None


def test_subject_forms():
    assert tx("The lungs take in oxygen with every breath.", "Which organ takes in oxygen?") == "lungs"
    assert tx("The River Seine runs through Paris.", "Which river runs through Paris?") == "River Seine"
    assert tx("Marie Curie and Pierre Curie shared the 1903 prize with Becquerel.", "Who discovered radium?") == "Marie Curie and Pierre Curie"
    # counter-example: two countries named for a "which country" question are not joined
    assert tx("Norway and Sweden both claim it.", "Which country invented skiing?") != "Norway and Sweden"


def test_elliptical_verdicts_with_a_noun_subject():
    assert yn("The bark isn't; the berries are, though.", "Is yew bark poisonous?") == "no"
    assert yn("Emperor penguins do: they huddle for warmth.", "Do emperor penguins huddle?") == "yes"
    # counter-example: a marked answer still decides
    assert yn("The answer is: no", "Is lead a noble metal?") == "no"


def test_quantities_and_adverbs_as_verdicts():
    assert yn("Plenty. The reef is home to hundreds of species.", "Does the reef have fish?") == "yes"
    assert yn("Not directly. Viruses cause colds.", "Does cold weather cause colds?") == "no"
    assert yn("Some do, but not all.", "Do all birds migrate?") == "no"
    # counter-examples: "not only" adds; "some do" answers yes when the question is not about all
    assert yn("Some do.", "Do bats use echolocation?") == "yes"


def test_another_place_than_the_question_names():
    assert yn("It's actually in Tanzania, near the Kenyan border.", "Is Mount Kilimanjaro in Kenya?") == "no"
    assert yn("It's actually in Tanzania.", "Is Mount Kilimanjaro in Kenya?", disable=("negation",)) != "no"
    # counter-example: the place the question names
    assert yn("It's in Kenya, north of Nairobi.", "Is Mount Kenya in Kenya?") != "no"


def test_the_one_full_name_for_who():
    assert tx("The Persistence of Memory is among Salvador Dali's best-known paintings.", "Who painted 'The Persistence of Memory'?") == "Salvador Dali"
    # counter-example: a name with its title and numeral stays whole
    assert tx("King George V\n\nHe reigned from 1910 to 1936.", "Who was the British monarch in 1920?") == "King George V"


def test_the_owner_of_the_questions_thing():
    assert tx("Saturn's rings are made mostly of ice.", "Which planet has the most visible rings?") != "ice"
    assert tx("Neptune's Great Dark Spot was a storm seen by Voyager 2.", "Which planet had the Great Dark Spot?") == "Neptune"
    # counter-example: the owner is the question's own word
    assert tx("Jupiter's largest moon is Ganymede.", "What is Jupiter's largest moon?") == "Ganymede"


def test_yes_and_no_and_not_yet():
    assert yn("Yes and no - it depends on how you measure it.", "Is the Nile the longest river?") is None
    assert yn("Not yet. Only probes have been there.", "Have people walked on Venus?") == "no"
    # counter-example: "yes, and ..." adds to a yes
    assert yn("Yes, and not only that: it is the capital.", "Is Oslo in Norway?") == "yes"


def test_another_count_than_the_question_gives():
    assert yn("Insects have six legs.", "Do insects have eight legs?") == "no"
    assert yn("Insects have six legs.", "Do insects have eight legs?", disable=("answer_inside_sentence",)) is None
    # counter-examples: the same count, and a bound rather than a count
    assert yn("All insects have six legs and three body parts.", "Do insects have six legs?") == "yes"
    assert yn("It's possible: one student folded paper 12 times.", "Can paper be folded more than 7 times?") == "yes"


def test_pleasantry_exclamation_and_numbered_names():
    assert tx("Well, that's a classic! Johannes Vermeer painted it around 1665.", "Who painted 'Girl with a Pearl Earring'?") == "Johannes Vermeer"
    assert tx("Voyager 1 carried the Golden Record out of the solar system first.", "Which probe first carried a record out of the solar system?") == "Voyager 1"
    # counter-example: a one-word exclamation that answers
    assert tx("Mars! It's the fourth planet.", "Which planet is red?") == "Mars"


def test_exaggerations_not_only_and_adverbs_before_not():
    assert yn("That's an exaggeration. They sense blood at close range only.", "Can sharks smell blood miles away?") == "no"
    assert yn("Not only allowed, it's encouraged.", "Is cycling allowed in the park?") == "yes"
    assert yn("It's generally not harmful, though it may sting.", "Is a nettle sting dangerous?") == "no"
    # counter-example: an adverb before a plain affirmation
    assert yn("It's generally safe, though it may sting.", "Is a nettle sting safe?") == "yes"


def test_latex_around_a_short_answer_and_owner_needs_a_cue():
    assert tx("$\\text{Madrid}$", "What is the capital of Spain?") == "Madrid"
    # counter-example: the dog's owner is not the dog's name
    assert tx("Alice's cat is called Dinah.", "What is the name of the cat in 'Alice in Wonderland'?") == "Dinah"


def test_negative_subjects_and_adverb_not():
    assert yn("Hardly anyone can; the reflex is too strong.", "Can people lick their elbow?") == "no"
    assert yn("Sadly not.", "Can pigs fly?") == "no"
    # counter-example: an adverb and yes
    assert yn("Sadly, yes.", "Is the glacier shrinking?") == "yes"


def test_the_first_bold_when_it_opens_the_answer():
    out = "**Edmund Hillary** and Tenzing Norgay reached it in 1953, decades after **George Mallory** vanished."
    assert tx(out, "Who first climbed Everest with Tenzing Norgay?") == "Edmund Hillary"
    # counter-example: reasoning first, the bold answer last
    assert tx("Mallory tried in 1924 and vanished. The first to succeed was **Edmund Hillary**.",
              "Who first climbed Everest with Tenzing Norgay?") == "Edmund Hillary"


def test_loops_adverbs_and_clauses_about_the_answer():
    assert tx("Lima Lima Lima Lima Lima", "What is the capital of Peru?") == "Lima"
    assert tx("Toronto narrowly, though Montreal was larger until the 1970s.", "What is the largest city in Canada?") == "Toronto"
    assert tx("The Caspian is often cited, but strictly it's a lake.", "Which sea is the largest?") != "it's a lake"
    # counter-example: a word ending in -ly that is part of the answer
    assert tx("Italy", "Which country is shaped like a boot?") == "Italy"


def test_yes_no_partial_truths_none_and_a_restated_date():
    assert yn("Partly true for adults, partly false for children.", "Is coffee good for you?") is None
    assert yn("None native. The island has no native snakes.", "Are there snakes in Iceland?") == "no"
    assert yn("That's an oversimplification; there are more.", "Are there only three states of matter?") == "no"
    assert yn("It opened on 4 July 1976, after years of work.", "Did the museum open in 1976?") == "yes"
    # counter-example: "Nonetheless" is not "none"
    assert yn("Nonetheless, yes.", "Is the bridge safe?") == "yes"


def test_end_of_turn_tokens_without_underscores():
    assert tx("Lisbon<end_of_turn>\n<start_of_turn>user\nWhat is the capital of Spain?", "What is the capital of Portugal?") == "Lisbon"
    assert own_answer("Lisbon<endofturn>\nnext").strip() == "Lisbon"


def test_answers_in_other_languages():
    assert tx("Die Hauptstadt ist Wien.", "What is the capital of Austria?") == "Wien"
    assert tx("La capitale de l'Italie est Rome.", "What is the capital of Italy?") == "Rome"
    assert yn("Ja, er liegt in Ägypten.", "Is the Nile in Egypt?") == "yes"
    assert yn("Non, c'est une île.", "Is Corsica a country?") == "no"
    # counter-example: "non-" as a prefix is no answer word
    assert yn("Non-stick pans are coated, yes.", "Are non-stick pans coated?") == "yes"


def test_remarks_consensus_and_initials():
    assert tx("This is debated. Most sources list Mount Everest, though Chimborazo is farthest from Earth's centre.",
              "What is the highest mountain?") == "Mount Everest"
    assert tx("This is debated.", "What is the highest mountain?") is None
    assert tx("C.S. Lewis wrote the Narnia books in the 1950s.", "Who wrote the Narnia books?") == "C.S. Lewis"


def test_yes_no_other_kind_appearance_opposite():
    assert yn("Asia is a continent of 48 countries.", "Is Asia a country?") == "no"
    assert yn("The Sun is a G-type main-sequence star.", "Is the Sun a star?") == "yes"  # counter-example: the asked kind is named
    assert yn("Snow looks white, but it's actually clear ice.", "Is snow white?") == "no"
    assert yn("Quite the opposite: it's the wettest.", "Is the Amazon the driest forest?") == "no"
    assert yn("They sure do, all year.", "Do pines keep their needles?") == "yes"
    assert yn("Lagos is in Nigeria.", "Is Lagos in Ghana?") == "no"
    assert yn("Lagos is in Nigeria.", "Is Lagos in Nigeria?") == "yes"  # counter-example: the same place


def test_text_labels_beliefs_comparisons_and_degenerate_outputs():
    assert tx("Mercury: one orbit takes only 88 Earth days, the shortest of all.", "Which planet has the shortest year?") == "Mercury"
    assert tx("- Name: Victoria Falls\n- Country: Zambia", "What is the widest waterfall?") == "Victoria Falls"  # counter-example: a label
    assert tx("Most people guess Sydney. It's actually Canberra.", "What is the capital of Australia?") == "Canberra"
    assert tx("Mandarin narrowly beats English, counting native speakers.", "Which language has the most speakers?") == "Mandarin"
    assert tx("the the the xyz", "What is the capital of Chile?") is None
    assert tx("Oceans are fascinating. They cover most of the planet.", "Which ocean is the deepest?") is None
    assert tx("There is no single capital, but Amsterdam is the constitutional capital.", "What is the capital of the Netherlands?") == "Amsterdam"
    assert tx("Sucre is the constitutional capital.", "What is the capital of Bolivia?") == "Sucre"


def test_yes_no_quantities_antonyms_and_other_names():
    assert yn("One of the best - it's used in cables.", "Is copper a good conductor?") == "yes"
    assert yn("Many: Hamlet, Macbeth and Othello.", "Did Shakespeare write tragedies?") == "yes"
    assert yn("Most do, but not all.", "Do all cats hate water?") == "no"
    assert yn("Quito is the capital of Ecuador.", "Is Quito the capital of Peru?") == "no"
    assert yn("Quito is the capital of Ecuador.", "Is Quito the capital of Ecuador?") == "yes"  # counter-example
    assert yn("Tortoises are among the slowest reptiles.", "Do tortoises move fast?") == "no"
    assert yn("Cheetahs are the fastest land animals.", "Are cheetahs fast?") == "yes"  # counter-example: the quality itself
    assert yn("Trials found no link between chocolate and acne.", "Does chocolate cause acne?") == "no"
    assert yn("No clear answer - the records conflict.", "Was the tower finished in 1350?") is None
    assert yn("Brown bears are bears, obviously.", "Is a brown bear a bear?") == "yes"
    assert yn("Koalas are marsupials.", "Is a koala a bear?") == "no"


def test_long_names_stay_whole_and_disputed_figures_hedge():
    assert tx("The Statue of Unity, at 182 metres tall.", "What is the name of the tallest statue?") == "Statue of Unity"
    assert tx("The cheetah and the pronghorn are usually named, but measurements are disputed.", "What is the fastest land animal?") is None
    # counter-example: one answer, its figure disputed only in passing
    assert tx("The cheetah; its top speed is often quoted as 110 km/h.", "What is the fastest land animal?") == "cheetah"


def test_conditional_alternatives_parts_and_glosses():
    assert tx("If you count by area, Russia; otherwise Canada.", "What is the largest country?") is None
    assert tx("Greenland, when you count islands; Australia if you count continents.", "What is the largest island?") is None
    assert tx("Lake Titicaca lies in the northern part of the Altiplano.", "Which plateau is Lake Titicaca on?") == "Altiplano"
    assert tx("北京 (Beijing)", "What is the capital of China?") == "Beijing"
    # counter-example: a gloss in parentheses after a Latin answer leaves the answer
    assert tx("Moscow (Москва)", "What is the capital of Russia?") == "Moscow"


def test_which_of_two_is_compared():
    assert yn("It's debated; most atlases list Lake Superior as larger.", "Is Lake Victoria larger than Lake Superior?") == "no"
    assert yn("Most atlases list Superior as larger.", "Is Superior larger than Victoria?") == "yes"
    # counter-example: the comparative negated is left to other rules
    assert yn("Victoria is not larger; Superior is.", "Is Victoria larger than Superior?") != "yes"


def test_superlatives_guesses_instruments_and_apposed_names():
    assert tx("Mercury moves fastest, circling the Sun every 88 days.", "Which planet orbits fastest?") == "Mercury"
    assert tx("Lyon? No - Paris. Lyon is the third-largest city.", "What is the capital of France?") == "Paris"
    assert tx("Whales breathe using their lungs, through a blowhole.", "Which organ do whales use to breathe?") == "lungs"
    assert tx("It's Saturn's moon Titan.", "What is the moon with the thickest atmosphere?") == "Titan"
    # counter-example: the owner is the answer when the question asks for the planet
    assert tx("Jupiter's Great Red Spot is a storm.", "Which planet has the Great Red Spot?") == "Jupiter"


def test_exceptions_to_all_and_another_name_with_more():
    assert yn("Mercury and Venus have none.", "Do all planets have moons?") == "no"
    assert yn("The Volga is longer.", "Is the Danube the longest river in Europe?") == "no"
    assert yn("The Volga is longer.", "Is the Danube the longest river in Europe?", disable=("negation",)) is None
    # counter-examples: a refusal to a question about "all", and the asked name itself
    assert yn("I can't tell you that; please ask an adviser.", "Should I invest all my savings?") is None
    assert yn("The Danube is longer than the Rhine.", "Is the Danube the longest river in Germany?") != "no"


def test_since_then_lowercase_names_and_credited_others():
    assert tx("Calcutta was the capital of British India until 1911; since then it's New Delhi.",
              "What is the capital of India?") == "New Delhi"
    assert tx("lima peru", "What is the capital of Peru?") == "lima"
    assert tx("thirty-two degrees Fahrenheit", "What is the freezing point in Fahrenheit, in words?") == "thirty-two degrees Fahrenheit"
    assert yn("That was Raphael.", "Did Michelangelo paint The School of Athens?") == "no"
    assert yn("That was Michelangelo.", "Did Michelangelo paint the Sistine ceiling?") == "yes"  # counter-example


def test_approximate_numbers_fractions_and_places_by_pronoun():
    assert yn("About 29.5 days, from one new moon to the next.", "Does the Moon's cycle take 29 days?") == "yes"
    assert yn("About 12 days.", "Does the Moon's cycle take 29 days?") != "yes"  # counter-example: another number
    assert yn("Venus is roughly a third of the way... no: Mercury is about a third the size of Earth.", "Is Mercury bigger than Earth?") == "no"
    assert yn("Jupiter is about eleven times the diameter of Earth.", "Is Jupiter bigger than Earth?") == "yes"
    assert yn("It lies off the coast of Belize.", "Is the Blue Hole off the coast of Mexico?") == "no"


def test_stated_noun_phrases_and_common_noun_subjects():
    assert tx("It's the tiger shark, which can reach 5 m.", "What is the most dangerous species of shark?") == "tiger shark"
    assert tx("That'd be the snowy owl.", "What is the largest owl in the Arctic?") == "snowy owl"
    assert tx("The pancreas releases insulin into the blood, while the liver stores glycogen.", "Which organ controls blood sugar?") == "pancreas"
    # counter-example: a sentence whose subject is the question's own noun
    assert tx("The blood carries oxygen to the cells.", "Which organ pumps the blood?") != "blood"


def test_yes_no_manner_adverbs_evidence_majorities_and_pronoun_kinds():
    assert yn("Superbly - they can dive 500 m.", "Can seals swim?") == "yes"
    assert yn("Rarely - only a few species do.", "Do sharks sleep?") == "no"  # counter-example: a frequency adverb denies
    assert yn("Practically impossible without equipment.", "Can you climb it in a day?") == "no"
    assert yn("There's little evidence for it; it's a cartoon trope.", "Do cats hate cucumbers?") == "no"
    assert yn("Most people who practise daily learn to juggle within a week.", "Is it possible to learn to juggle in a week?") == "yes"
    assert yn("It flows into the Mediterranean.", "Does the Nile flow into the Red Sea?") == "no"
    assert yn("Lisbon is Portugal's capital; Spain's is Madrid.", "Is Lisbon the capital of Spain?") == "no"
    assert yn("It's a self-governing territory of Denmark.", "Is the Faroe Islands a country?") == "no"
    assert yn("Since 2010 it has been, overtaking Japan.", "Is China the second-largest economy?") == "yes"


def test_lists_with_no_single_answer_and_compound_predicates():
    assert tx("There isn't one: Dutch, French and German are all official.", "What is the official language of Belgium?") is None
    assert tx("The femur runs from the hip to the knee and is the longest bone in the body.", "What is the name of the longest bone?") == "femur"
    # counter-example: the subject of a simple copula sentence is read as before
    assert tx("The femur is the longest bone in the body.", "What is the name of the longest bone?") == "femur"


def test_yes_no_negated_first_clause_other_subject_and_directions():
    assert yn("Iceland is not an EU member, but it's in the Schengen Area.", "Is Iceland in the EU?") == "no"
    assert yn("Cardiff is.", "Is Swansea the capital of Wales?") == "no"
    assert yn("Indeed it is.", "Is Cardiff the capital of Wales?") == "yes"  # counter-example: an adverb is no other name
    assert yn("Rubber is a poor conductor.", "Is rubber a good conductor?") == "no"
    assert yn("It sets in the west.", "Does the Sun set in the east?") == "no"
    assert yn("Albany is the capital.", "Is New York City the capital of New York State?") == "no"


def test_a_choice_left_open_in_so_many_words_is_no_pick():
    options, question = ["Enthusiastic", "Opposed", "Indifferent"], "How does the author feel about the new policy?"

    def ch(output: str) -> str | None:
        return extract(output, "choice", question=question, choices=options).value

    assert ch("Hard to tell; maybe against it, maybe not.") is None
    assert ch("I could not say whether she is for or against it.") is None
    assert ch("Maybe opposed, maybe not.") is None
    # counter-examples: a pick stays a pick
    assert ch("She is against it.") == "B"
    assert ch("Opposed. She calls it a mistake twice.") == "B"
