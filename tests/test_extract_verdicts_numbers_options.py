"""Reading yes/no, number and choice answers in everyday chat shapes: one test per principle a careful
reader uses, each with cases and counter-examples, through the public ``extract``."""

from __future__ import annotations

from _readers import ch, num, yn
from gengap.extract import extract


# ---------------------------------------------------------------------------------------- numbers
def test_number_words_of_another_language_anywhere_in_a_reply_without_digits():
    q = "How many legs does an insect have?"
    assert num("Ein Insekt hat sechs Beine.", q) == "6"
    assert num("Los insectos tienen seis patas.", q) == "6"
    assert num("Un pentagone a cinq côtés.", "How many sides does a pentagon have?") == "5"
    assert num("Sechzig.", "What is 25 + 35?") == "60"
    assert num("Vingt et un.", "What is 7 × 3?") == "21"
    assert num("Einundzwanzig.", "What is 7 × 3?") == "21"
    assert num("Treinta y dos.", "What is 4 × 8?") == "32"
    # counter-examples: two different values commit to none; English look-alikes are English
    assert num("Creo que dos o tres.", "How many moons does Mars have?") is None
    assert num("Once upon a time there was a spider.", q) is None
    assert num("Due to the rain, I can't say.", q) is None


def test_a_before_a_number_word_is_an_article_or_a_verb_not_one_more():
    assert num("Un hexagone a six côtés.", "Combien de côtés a un hexagone ?") == "6"
    assert num("A hundred.", "How many years are in a century?") == "100"
    assert num("A dozen eggs.", "How many eggs are in a dozen?") == "12"


def test_half_a_scale_word_is_half_of_it():
    assert num("Half a dozen.", "How many legs does an insect have?") == "6"
    assert num("About half a million people.", "What is the population of the city?") == "500000"
    # counter-example: "a dozen" alone is twelve
    assert num("A dozen.", "How many months are in a year?") == "12"


def test_a_power_of_ten_in_superscript_digits():
    assert num("6.02 × 10²³ per mole", "What is Avogadro's number?") == "6.02e+23"
    assert num("About 1.6 × 10⁻¹⁹ C.", "What is the charge of an electron in coulombs?") == "1.6e-19"
    # counter-example: a plain power with a caret is read as before
    assert num("6.02 x 10^23", "What is Avogadro's number?") == "6.02e+23"


def test_the_asked_unit_named_by_its_symbol_keeps_the_reply_on_topic():
    q = "How many kilometers is a marathon? Round to one decimal place."
    assert num("A marathon is 42.195 km, which rounds to 42.2 km (26.2 miles).", q) == "42.2"
    # counter-example: a ramble that never speaks of kilometres, in words or symbols, stays unread
    ramble = "The marathon commemorates the run of the messenger Pheidippides in 490 BC, a legend retold for centuries."
    assert num(ramble, "How many kilometers is a marathon?") is None


# ---------------------------------------------------------------------------------------- yes/no
def test_verdict_words_of_another_language():
    q = "Is the Pacific the largest ocean?"
    for out in ("Natürlich.", "Claro.", "Claro que sí, es el más grande.", "Bien sûr !", "Por supuesto.", "Certo."):
        assert yn(out, q) == "yes", out
    for out in ("Pas du tout.", "Keineswegs.", "De ningún modo.", "Auf keinen Fall.", "Claro que no.", "Natürlich nicht."):
        assert yn(out, "Is the Atlantic the largest ocean?") == "no", out
    # counter-example: a word inside a sentence is no opening verdict
    assert yn("Der Pazifik ist klar größer, aber das ist eine andere Frage?", q) != "no"


def test_an_intensifying_idiom_stresses_the_clause_it_introduces():
    assert yn("Make no mistake: it is.", "Is the Pacific the largest ocean?") == "yes"
    assert yn("No doubt about it.", "Will a cast-iron pan last for decades?") == "yes"
    assert yn("No doubt about it: penguins can't fly.", "Can penguins fly?") == "no"
    assert yn("Make no mistake, it isn't safe to eat.", "Is it safe to eat raw cookie dough?") == "no"
    # counter-example: "not just" qualifies, it does not deny
    assert yn("No question, it's the best one, not just the cheapest.", "Is it a good phone?") == "yes"


def test_short_verdicts_sure_is_afraid_not_not_so():
    assert yn("Sure is!", "Is the Pacific the largest ocean?") == "yes"
    assert yn("Afraid not.", "Is the Atlantic the largest ocean?") == "no"
    assert yn("Not so.", "Is the Atlantic the largest ocean?") == "no"
    # counter-example: a name that is the elliptic subject still names another thing
    assert yn("Canberra is.", "Is Sydney the capital of Australia?") == "no"


def test_another_rank_denies_a_superlative():
    assert yn("It's the second largest; the Pacific is bigger.", "Is the Atlantic the largest ocean?") == "no"
    assert yn("It's the third most populous, after India and China.", "Is the US the most populous country?") == "no"
    # counter-example: the superlative also said unranked is no denial
    assert yn("It is the highest; K2 is the second highest.", "Is Everest the highest mountain?") != "no"


# ---------------------------------------------------------------------------------------- choice
GASES = ["Oxygen", "Nitrogen", "Carbon dioxide", "Helium"]


def test_an_ordinal_of_another_language_names_an_option():
    q = "Which gas do plants absorb?"
    assert ch("La tercera opción.", q, GASES) == "C"
    assert ch("Die zweite.", q, GASES) == "B"
    assert ch("La première.", q, GASES) == "A"
    assert ch("La respuesta correcta es la última opción.", q, GASES) == "D"
    # counter-example: an English sentence with "a second" is no foreign ordinal
    assert ch("Plants absorb it within a second or two of light.", q, GASES) is None


def test_the_option_before_the_last():
    q = "Which instrument has 88 keys?"
    opts = ["Organ", "Harpsichord", "Piano", "Accordion"]
    assert ch("The last-but-one option: the piano.", q, opts) == "C"
    assert ch("The one before last.", q, opts) == "C"
    assert ch("The next-to-last option.", q, opts) == "C"
    # counter-example: the last one is the last
    assert ch("The last one.", q, opts) == "D"


def test_a_reply_that_speaks_in_letters_picks_by_letter_not_by_an_option_named_as_a_reason():
    q = "Which of these novels was written by Virginia Woolf?"
    opts = ["Middlemarch", "Mrs Dalloway", "Jane Eyre", "Emma"]
    assert ch("Hmm, B or C. Probably B, since Jane Eyre is Charlotte Brontë's.", q, opts) == "B"
    # counter-example: a reply without letters is read by the option it names
    assert ch("Mrs Dalloway, published in 1925.", q, opts) == "B"


def test_an_option_word_for_word_before_a_break_is_the_pick():
    q = "What do bees make?"
    opts = ["Milk", "Honey", "Silk", "Wool"]
    assert ch("Honey — silk comes from silkworms and wool from sheep.", q, opts) == "B"
    # counter-example: a clause that only mentions an option before the break is no pick
    assert ch("Many people guess Sydney, but the capital is Canberra.", "Which is the capital of Australia?",
              ["Sydney", "Melbourne", "Canberra", "Perth"]) == "C"


def test_a_qualified_answer_denies_an_absolute_question():
    q = "Do cats always land on their feet?"
    assert yn("Usually, but not always.", q) == "no"
    assert yn("Usually.", q) == "no"
    # counter-examples: the same words answer a question without an absolute; an explicit yes stays yes
    assert yn("Usually, but not always.", "Does it rain in London in winter?") == "yes"
    assert yn("Mostly, yes.", q) == "yes"


def test_an_amount_in_units_and_hundredths_is_one_number():
    q = "How much change do you get from $20 if you spend $13.75?"
    assert num("6 dollars and 25 cents.", q) == "6.25"
    assert num("3 pounds and 5 pence", "How much is left?") == "3.05"
    # counter-example: two separate counts joined by "and" stay two
    assert num("6 dollars and 25 cents make 6.25 dollars, so $6.25.", q) == "6.25"


def test_a_comparative_reply_to_a_comparative_question():
    q = "Is one fluid ounce (US) more than 30 millilitres?"
    assert yn("Slightly less, actually: 29.57 mL.", q) == "no"
    assert yn("Slightly more.", q) == "yes"
    assert yn("A bit bigger.", "Is Jupiter bigger than Saturn?") == "yes"
    assert yn("Much smaller.", "Is the Moon bigger than Mars?") == "no"
    assert yn("Slightly less.", "Is a US fluid ounce exactly 30 millilitres?") == "no"
    # counter-example: a comparative inside the reply, after its verdict, does not decide
    assert yn("Yes, though only slightly less than a UK one.", "Is a US fluid ounce about 30 millilitres?") == "yes"


def test_a_no_brainer_is_a_yes():
    q = "Should you back up important files regularly?"
    assert yn("That's a no-brainer: absolutely, keep at least one off-site copy.", q) == "yes"
    # counter-example: the clause after the idiom can still deny
    assert yn("That's a no-brainer: you shouldn't skip it.", "Is it fine to skip backups?") == "no"


def test_a_count_glued_to_the_asked_unit_when_no_plain_count_is_given():
    q = "How many years is a US Senate term?"
    assert num("Senators serve six-year terms; about one-third of the 100 seats are up every 2 years.", q) == "6"
    assert num("It's a 30-year mortgage at 6%.", "How many years is the mortgage?") == "30"
    # counter-examples: a plain count wins over a kind named by a count; a multiplied term is no count
    assert num("A standard guitar has 6 strings, although 12-string guitars also exist.",
               "How many strings does a standard guitar have?") == "6"
    assert num("He served two four-year terms.", "How many years did he serve?") is None


def test_a_step_of_the_working_before_a_colon_is_not_the_answer_stated_first():
    q = "A train leaves at 09:40 and arrives at 13:15. How many minutes is the journey?"
    assert num("From 09:40 to 13:40 is 4 hours, minus 25 minutes: 215 minutes.", q) == "215"
    # counter-example: a count stated first with its reason after the colon stays the answer
    assert num("215 minutes: from 09:40 to 13:40 is 4 hours, minus 25 minutes.", q) == "215"


def test_the_opposite_property_denies_the_one_asked():
    assert yn("The Earth is round — more precisely, an oblate spheroid.", "Is the Earth flat?") == "no"
    assert yn("21 = 3 × 7, so it's composite.", "Is 21 a prime number?") == "no"
    assert yn("Glass is an amorphous solid.", "Is glass a liquid?") == "no"
    # counter-example: the property asked said too affirms
    assert yn("Water is liquid at room temperature and solid below 0 °C.", "Is water a liquid at room temperature?") == "yes"


def test_harm_answers_whether_something_may_be_done():
    q = "Can dogs eat chocolate?"
    assert yn("Chocolate is toxic to dogs and should be avoided.", q) == "no"
    assert yn("It's dangerous for them: theobromine is toxic to dogs.", q) == "no"
    assert yn("Looking directly at the sun is dangerous and can damage your retina.", "Is it safe to look at the sun?") == "no"
    assert yn("Carrots are not toxic to dogs and make a healthy snack.", "Can dogs eat carrots?") == "yes"
    # counter-examples: a question about the harm itself, and a reply that calls it safe in some measure
    assert yn("The leaves are toxic.", "Are tomatoes poisonous?") is None
    assert yn("In small amounts it's rarely fatal, but it's toxic.", q) is None


def test_the_quantity_in_the_unit_asked_beside_its_conversion():
    assert num("Water boils at 212 degrees Fahrenheit, which is 100 degrees Celsius.",
               "What is the boiling point of water in Fahrenheit?") == "212"
    assert num("Water boils at 212 degrees Fahrenheit, which is 100 degrees Celsius.",
               "What is the boiling point of water in Celsius?") == "100"
    assert num("A marathon is 26.2 miles, which is about 42.2 km.", "How many kilometers is a marathon?") == "42.2"
    # counter-examples: two values in the asked unit, or the asked unit only in what the question gives
    assert num("There are 12 inches in a foot, so 36 inches in 3 feet.", "How many inches are in 3 feet?") == "36"
    assert num("35 km in 7 days (5 km × 7).", "Max runs 5 km a day for 7 days. How many km does he run?") == "35"


def test_an_operand_of_the_working_is_no_quantity_in_the_asked_unit():
    assert num("3,600 (60 minutes × 60 seconds).", "How many seconds are in an hour?") == "3600"
    assert num("60 min × 60 = 3600 seconds.", "How many seconds are in an hour?") == "3600"


def test_a_setting_before_the_subject_keeps_the_subject_the_pick():
    q = "Which planet has the most moons?"
    opts = ["Earth", "Mars", "Jupiter", "Saturn"]
    assert ch("As of 2023, Saturn has the most confirmed moons (146), overtaking Jupiter.", q, opts) == "D"
    # counter-example: a subject that is not an option leaves the options only mentioned
    assert ch("As of 2023, astronomers count more moons for Saturn than for Jupiter, Mars or Earth, but the tally keeps changing.",
              q, opts) is None


def test_and_joins_number_words_only_after_a_scale_word():
    assert num("Four and three quarters.", "What is 3 1/2 + 1 1/4?") == "4.75"
    assert num("One hundred and five.", "What is 100 + 5?") == "105"
    # counter-examples: two small numbers joined by "and" are two numbers, not their sum
    assert num("Between five and ten, depending on the breed.", "How many puppies are in a litter?") is None
    assert num("Two and two make four.", "What is 2 + 2?") == "4"


def test_a_unit_symbol_for_the_asked_unit_keeps_the_reply_on_topic():
    q = "How many calories are in a gram of fat?"
    assert num("Fat has 9 kcal/g, more than twice the 4 kcal/g of carbs.", q) == "9"


def test_an_adjective_form_of_an_option_names_it():
    opts = ["Fish", "Mammal", "Reptile", "Amphibian"]
    assert ch("Whales are mammalian.", "What kind of animal is a whale?", opts) == "B"
    assert ch("Frogs are amphibious.", "What kind of animal is a frog?", opts) == "D"
    # counter-example: a word that merely starts like an option names nothing
    assert ch("Fishermen see them often.", "What kind of animal is a whale?", opts) is None


def test_a_verdict_reported_by_most_sources():
    assert yn("Most evidence suggests they do.", "Do fish feel pain?") == "yes"
    assert yn("Most sources say so.", "Is the Nile longer than the Amazon?") == "yes"
    assert yn("Most experts think not.", "Is coffee bad for your heart?") == "no"
    # counter-examples: a doubting frame, and a report the reply then rejects
    assert yn("Few scientists think they do.", "Do fish feel pain?") is None
    assert yn("Most people say so, but they are wrong.", "Do bulls hate the colour red?") != "yes"


def test_the_value_given_to_the_thing_asked_by_its_name():
    q = "A $200 jacket is 30% off. What is the sale price in dollars?"
    assert num("The discount is $60, making the sale price $140.", q) == "140"
    assert num("Sum: 12 + 15 + 18 + 21 + 24 = 90\nCount: 5\nAverage: 90 ÷ 5 = 18", "What is the average of 12, 15, 18, 21 and 24?") == "18"
    assert num("The median is 9 (the middle value of the five sorted numbers).", "What is the median of 3, 7, 9, 12, 15?") == "9"
    # counter-examples: "of" after the name introduces what it is of; two values given to it commit to none
    assert num("The square root of 144 is 12, since 12 × 12 = 144.", "What is the square root of 144?") == "12"
    assert extract("In store the sale price is $140; online the sale price is $135.", "number", question=q).rule != "named_value"


def test_a_count_of_the_asked_unit_stated_first_even_when_the_question_gives_that_number_for_other_things():
    q = "If 3 workers build a wall in 12 days, how many days would 6 workers take?"
    assert num("6 days — twice the workers, half the time.", q) == "6"
    # counter-example: the question's own count of workers, restated first, is no answer
    assert num("6 workers, so 36 worker-days / 6 = 6 days.", q) == "6"


def test_a_plural_names_the_same_kind_as_its_singular():
    assert yn("Dolphins are mammals; they breathe air and nurse their young.", "Is a dolphin a mammal?") == "yes"
    assert yn("Bats are mammals, the only ones capable of true flight.", "Is a bat a bird?") == "no"
    # counter-example: a hedge word opening the reply is no restatement of the question's verb
    assert yn("Partially: glass blocks most UVB, but UVA still gets through.", "Can you get a tan through a window?") is None


def test_evidence_found_lacking_denies():
    assert yn("Studies have found no such link.", "Does sugar make kids hyperactive?") == "no"
    assert yn("There's no good evidence that it causes arthritis.", "Is it bad to crack your knuckles?") == "no"
    # counter-example: evidence found affirms as before
    assert yn("Studies have found a clear link.", "Does smoking cause cancer?") != "no"


def test_another_date_for_the_same_event_denies():
    assert yn("It was completed in 1889.", "Was the Eiffel Tower built in 1900?") == "no"
    # counter-example: the asked year said affirms; a different event's year says nothing
    assert yn("It was completed in 1889.", "Was the Eiffel Tower built in 1889?") == "yes"
    assert yn("It was painted in 1968.", "Was the Eiffel Tower built in 1900?") is None


def test_a_denied_negative_prefix_answers_for_the_plain_word():
    assert yn("It's not illegal, but you must be able to control the car safely.", "Is it legal to drive barefoot in the UK?") == "yes"
    assert yn("It's not illegal, but you must be able to control the car safely.", "Is it illegal to drive barefoot in the UK?") == "no"
    assert yn("It's not uncommon.", "Is it common to feel tired after flying?") == "yes"
    # counter-example: a plain denial stays a denial
    assert yn("It's not legal.", "Is it legal to drive barefoot in the UK?") == "no"


def test_another_colour_denies_and_a_share_answers_mostly():
    assert yn("It's actually white; the atmosphere makes it look yellow.", "Is the sun yellow?") == "no"
    assert yn("About 80% of it is covered by an ice sheet.", "Is Greenland mostly ice?") == "yes"
    assert yn("Only about 30% of it is forest.", "Is Finland mostly forest?") == "no"
    # counter-examples: the colour asked said too, and a share near half
    assert yn("It's white and yellow.", "Is the sun yellow?") != "no"
    assert yn("About 50% of it is forest.", "Is the island mostly forest?") is None


def test_the_question_subject_with_a_bare_auxiliary():
    assert yn("Botanically, bananas are berries, while strawberries are not.", "Are strawberries berries?") == "no"
    assert yn("Botanically, bananas are berries, while strawberries are not.", "Are bananas berries?") == "yes"
    # counter-example: an output cut off after the auxiliary is no elliptic verdict
    assert yn("Fire is", "Is fire hot?") is None


def test_a_sign_written_as_a_word_names_a_signed_option():
    opts = ["A+", "AB+", "O-", "B-"]
    q = "Which blood type is the universal donor?"
    assert ch("O negative.", q, opts) == "C"
    assert ch("AB positive", "Which blood type is the universal recipient?", opts) == "B"
    # counter-example: the base with the other sign names no option
    assert ch("B positive", q, opts) is None


def test_verdict_phrases_of_another_language_with_a_verb():
    assert yn("Así es.", "¿Es Roma la capital de Italia?") == "yes"
    assert yn("Das stimmt.", "Ist Berlin die Hauptstadt von Deutschland?") == "yes"
    assert yn("Das stimmt nicht mehr.", "Ist Bonn die Hauptstadt von Deutschland?") == "no"
    assert yn("Nicht mehr — seit 1990 ist es Berlin.", "Ist Bonn die Hauptstadt von Deutschland?") == "no"
    assert yn("Oui bien sûr.", "Paris est-elle la capitale de la France ?") == "yes"
    assert yn("É sim.", "Brasília é a capital do Brasil?") == "yes"
    assert yn("Não é.", "São Paulo é a capital do Brasil?") == "no"


def test_most_definitely_and_negative_with_a_reason():
    q = "Is the statement in the records accurate?"
    assert yn("Most definitely.", q) == "yes"
    assert yn("Negative — the records show it clearly.", q) == "no"
    # counter-example: "negative" describing something is no verdict
    assert yn("Negative numbers appear in the records, but the total is right.", q) != "no"


PLANETS = ["Mercury", "Venus", "Earth", "Mars"]


def test_the_pick_before_a_reason_that_names_other_options():
    q = "Which planet is known as the Red Planet?"
    assert ch("It's D, since iron oxide makes it red; option A is grey.", q, PLANETS) == "D"
    assert ch("Mars, since iron oxide makes it red; option A is grey.", q, PLANETS) == "D"
    assert ch("D is the right one\n\nA (Mercury) is grey, B (Venus) is yellowish and C (Earth) is blue.", q, PLANETS) == "D"
    assert ch("D because of iron oxide on its surface. Earth and Venus look different.", q, PLANETS) == "D"
    assert ch("Letter D. A, B and C are not red.", q, PLANETS) == "D"
    # counter-examples: an option named in parentheses in the first clause is the pick; a marker before the letter still reads it
    assert ch("The red one (D), since iron oxide colours it.", q, PLANETS) == "D"
    assert ch("The right one is:\n\nD", q, PLANETS) == "D"


def test_a_kind_said_with_an_adverb_or_the_qualifier_the_question_asks():
    assert yn("A tomato is botanically a fruit.", "Is a tomato a vegetable?") == "no"
    assert yn("A tomato is botanically a fruit.", "Is a tomato a fruit?") == "yes"
    assert yn("Pluto is classified as a dwarf planet.", "Is Pluto a dwarf planet?") == "yes"
    # counter-example: the qualifier the question leaves out still demotes the kind
    assert yn("Pluto is classified as a dwarf planet.", "Is Pluto a planet?") == "no"


def test_advice_verdicts():
    q = "Should I microwave food in a metal container?"
    assert yn("Avoid it; use glass or microwave-safe plastic instead.", q) == "no"
    assert yn("Skip it — use a glass dish.", q) == "no"
    assert yn("I'd recommend it — Python's syntax is gentler.", "Should I learn Python before JavaScript?") == "yes"
    assert yn("Go for it: Python is a great first language.", "Should I learn Python before JavaScript?") == "yes"
    assert yn("Generally not worth the money.", "Is it worth buying an extended warranty?") == "no"
    assert yn("100% worth it.", "Is it worth visiting Iceland in winter?") == "yes"
    # counter-example: "avoid" naming something else to avoid is no verdict on the question
    assert yn("Avoid the crowds by going early.", "Is it worth visiting the Louvre?") != "no"


def test_an_answer_stated_first_is_not_overridden_by_its_name_reused_for_a_step():
    q = "What is the probability of getting at least one head in two coin flips?"
    assert num("3/4 (75%). The only way to miss is two tails, with probability 1/4.", q) == "0.75"


def test_a_question_offering_fact_or_myth_is_a_yes_no_question():
    q = "Fact or myth: you lose most of your body heat through your head?"
    assert yn("Myth.", q) == "no"
    assert yn("It's a myth — you lose heat through any uncovered skin.", q) == "no"
    assert yn("T", "True or false: the Pacific is the largest ocean.") == "yes"
    assert yn("F", "True or false: bats are blind.") == "no"
    # counter-examples: an either-or question between two things has no yes/no answer; a lone "T" without the offer is nothing
    assert yn("Metric, mostly.", "Should I use metric or imperial units?") is None
    assert yn("T", "Is the Pacific the largest ocean?") is None


def test_precision_guards_of_the_new_readings():
    # a list of options before a break picks none of them
    assert ch("Mars, Venus and Earth are rocky; Jupiter is a gas giant.", "Which is a gas giant?", PLANETS[:3] + ["Jupiter"]) != "A"
    assert ch("Ottawa, no Toronto.", "¿Cuál es la capital de Canadá?", ["Toronto", "Ottawa", "Montreal", "Vancouver"]) == "B"
    # harm answers whether something may be done, not what something is able to do
    assert yn("Their sting can be deadly to allergic people.", "Can bees sting?") != "no"


def test_a_span_of_time_in_another_unit_names_the_option():
    opts = ["30 minutes", "1 hour", "90 minutes", "2 hours"]
    q = "How long does the film last?"
    assert ch("An hour and a half.", q, opts) == "C"
    assert ch("1.5 hours", q, opts) == "C"
    assert ch("1 h 30 min", q, opts) == "C"
    # counter-example: a span no option equals names none
    assert ch("About 100 minutes.", q, opts) is None


def test_a_colour_in_a_name_is_no_colour_asked():
    q = "Is the Golden Gate Bridge painted red?"
    assert yn("It's painted a color called \"International Orange,\" which looks reddish-orange.", q) == "no"


def test_a_fraction_in_words_before_a_scale_word():
    q = "What is the population of the city?"
    assert num("About a quarter of a million.", q) == "250000"
    assert num("Roughly two and a half million people.", q) == "2500000"
    # counter-examples: a fraction of something else stays a fraction
    assert num("Two and a half hours.", "How many hours does the trip take?") == "2.5"


def test_a_plural_kind_asked_and_another_said():
    assert yn("Sharks are fish — cartilaginous fish, to be precise.", "Are sharks mammals?") == "no"
    assert yn("Spiders are arachnids.", "Are spiders insects?") == "no"
    assert yn("Whales are mammals.", "Are whales mammals?") == "yes"
    # counter-example: an adjective asked ("dangerous") is no kind another kind could deny
    assert yn("Koalas are marsupials.", "Are koalas dangerous?") is None


def test_the_year_in_an_opening_phrase_answers_when():
    q = "When was the Declaration of Independence signed?"
    assert num("On 4 July 1776, though most delegates signed on August 2.", q) == "1776"
    # counter-example: a question that asks no year keeps the main clause's number
    assert num("In 1990, after two recounts, 14 seats.", "How many seats did the party win?") == "14"


def test_the_answer_is_yes_or_no_in_another_language():
    assert yn("Die Antwort ist nein.", "Ist Bonn die Hauptstadt von Deutschland?") == "no"
    assert yn("Resposta: não.", "O Rio é a capital do Brasil?") == "no"
    assert yn("La réponse est oui.", "Paris est-elle la capitale de la France ?") == "yes"
    # counter-example: "no" inside a longer clause is no verdict
    assert yn("La respuesta no es fácil de dar.", "¿Es el café saludable?") != "no"


def test_an_option_word_for_word_after_a_concluding_word():
    opts = ["Red", "Blue", "Green", "All of the above"]
    q = "Which colours are on the flag?"
    assert ch("Red, blue and green, so all of the above.", q, opts) == "D"
    # counter-example: a concluding word followed by a question is no conclusion
    assert ch("Red is there, blue too; so, Green? No.", q, opts) is None
