"""How a reader trims a short text answer: articles of other languages, clefts, dates after the answer,
code spans, reference marks, titles and opening adverbs. Each principle with a case read through the
real extractor and a counter-example that keeps its reading."""

from __future__ import annotations

from _readers import tx
from gengap.extract import extract
from gengap.extract._text_span import reply_language


# ------------------------------------------------------------------ an article is no part of the answer, in any language
def test_an_article_of_the_reply_language_is_not_part_of_the_answer():
    assert tx("Der Rhein ist mit rund 865 km der längste Fluss Deutschlands.", "Wie heißt der längste Fluss Deutschlands?") == "Rhein"
    assert tx("Der Blauwal.", "Welches Tier ist das größte Säugetier der Welt?") == "Blauwal"
    assert tx("A moeda oficial do Brasil é o real (R$).", "Qual é a moeda oficial do Brasil?") == "real"
    assert tx("La France a remporté la Coupe du monde 2018.", "Quel pays a remporté la Coupe du monde 2018 ?") == "France"


def test_a_name_that_carries_its_article_and_an_english_reply_keep_it():
    assert tx("La Paz es la sede del gobierno de Bolivia.", "¿Cuál es la sede del gobierno de Bolivia?") == "La Paz"
    assert tx("O negative is the universal donor.", "Which blood type is the universal donor?") == "O negative"
    assert tx("Los Angeles.", "Which US city hosted the 1984 Summer Olympics?") == "Los Angeles"


def test_reply_language_needs_function_words_of_its_own():
    assert reply_language("A baby kangaroo is called a joey.") is None
    assert reply_language("El océano Pacífico es el más grande del mundo.") == "es"


# ------------------------------------------------------------------ a cleft names its answer in other languages too
def test_a_cleft_in_another_language_names_the_answer():
    assert tx("C'est Léonard de Vinci qui a peint la Joconde.", "Qui a peint la Joconde ?") == "Léonard de Vinci"
    assert tx("Fue Cristóbal Colón quien llegó a América en 1492.", "¿Quién llegó a América en 1492?") == "Cristóbal Colón"
    assert tx("Foi Pedro Álvares Cabral quem chegou ao Brasil em 1500.", "Quem descobriu o Brasil?") == "Pedro Álvares Cabral"


def test_an_english_sentence_opening_with_es_is_no_cleft():
    assert tx("It was Michelangelo who painted the ceiling.", "Who painted the Sistine Chapel ceiling?") == "Michelangelo"


# ------------------------------------------------------------------ a date after the answer says when, not what
def test_a_date_after_the_answer_is_not_part_of_it():
    assert tx("Alexander Fleming in 1928.", "Who discovered penicillin?") == "Alexander Fleming"
    assert tx(" Alexander Fleming in 1928.\nQ: Who discovered DNA?\nA: Watson", "Who discovered penicillin?") == "Alexander Fleming"


def test_a_date_stays_when_the_question_asks_when_or_it_is_the_whole_answer():
    assert tx("In 1928.", "When was penicillin discovered?") in ("1928", "In 1928")
    assert tx("Sputnik 1", "What was the first artificial satellite?") == "Sputnik 1"


# ------------------------------------------------------------------ a command in a code span is one token
def test_a_code_span_is_read_whole():
    assert tx("The command is `git status`.", "Which Git command shows which files are modified?") == "git status"


def test_a_keyword_inside_a_longer_code_example_is_not_widened():
    out = "Use `DISTINCT`: for example `SELECT DISTINCT country FROM customers;` returns each country once."
    assert tx(out, "Which SQL keyword removes duplicate rows from a result?") != "SELECT DISTINCT country FROM customers;"


# ------------------------------------------------------------------ reference marks and footnotes are no part of the answer
def test_reference_marks_and_footnotes_are_dropped():
    assert tx("London [1]\n\n[1] The Metropolitan Railway opened in 1863.", "Which city opened the first underground railway?") == "London"
    assert tx("Chinua Achebe [source: Encyclopaedia Britannica]", "Who wrote 'Things Fall Apart'?") == "Chinua Achebe"
    assert tx("Canberra【3†source】", "What is the capital of Australia?") == "Canberra"


def test_a_bracket_that_is_the_answer_stays():
    assert tx("[1, 2, 3]", "What does list(range(1, 4)) return in Python?") is not None


# ------------------------------------------------------------------ an initial's period before a sentence adverb ends the sentence
def test_a_sentence_adverb_after_a_one_letter_word_starts_a_new_sentence():
    out = "Vitamin D. Specifically, UVB rays trigger the synthesis of vitamin D3 in the skin."
    assert tx(out, "Which vitamin is produced when skin is exposed to sunlight?") == "Vitamin D"
    assert tx("J. K. Rowling wrote it.", "Who wrote Harry Potter?") in ("J. K. Rowling", "J.K. Rowling", "J. K. Rowling wrote it")


# ------------------------------------------------------------------ a title written alone is read whole
def test_a_title_or_case_name_alone_is_read_whole():
    assert tx("As You Like It", "Which Shakespeare play features the characters Rosalind and Orlando?") == "As You Like It"
    assert tx("Marbury v. Madison", "Which case established judicial review in the United States?") == "Marbury v. Madison"


def test_a_sentence_in_capitals_a_loop_or_a_prepositional_answer_is_no_title():
    assert tx("It's Nairobi", "What is the capital of Kenya?") == "Nairobi"
    assert tx("Cairo Cairo Cairo Cairo", "What is the capital of Egypt?") == "Cairo"
    assert tx("In Rome.", "In which city is the Colosseum?") == "Rome"
    assert tx("Probably Ottawa.", "What is the capital of Canada?") == "Ottawa"  # a lead word, then the answer
    assert tx("Sure! Marbury v. Madison", "Which case established judicial review?") == "Marbury v. Madison"


# ------------------------------------------------------------------ an opening adverb or frame is not the answer
def test_an_opening_sentence_adverb_frames_the_statement():
    out = "Technically, the largest desert in the world is the Antarctic Desert, since a desert is defined by low precipitation."
    assert tx(out, "What is the largest desert in the world?") == "Antarctic Desert"


def test_a_name_ending_in_ly_is_no_adverb():
    assert tx("Italy, of course.", "Which country is shaped like a boot?") == "Italy"
    assert tx("Sicily, the largest island in the Mediterranean.", "What is the largest island in the Mediterranean?") == "Sicily"


def test_the_day_of_the_week_is_not_a_date():
    out = "1 Jan 2000 was a Saturday. (1 Jan 1999 was a Friday.)"
    assert tx(out, "Which day of the week was 1 January 2000?") == "Saturday"
    assert tx("It ended on 2 September 1945.", "On what date did World War II end?") == "2 September 1945"


# ------------------------------------------------------------------ a reply naming what the asker describes
def test_you_are_describing_x_names_x():
    q = "Which spreadsheet feature repeats a formula down a column when you drag the small square at a cell's corner?"
    assert tx("You're describing the fill handle (AutoFill).", q) == "fill handle"
    assert tx("That sounds like the Doppler effect.", "What is the change in pitch of a passing siren called?") == "Doppler effect"
    assert tx("You're thinking of Ada Lovelace.", "Who wrote the first computer program?") == "Ada Lovelace"
    assert tx("Use CONCAT (or the older CONCATENATE); TEXTJOIN adds a delimiter.", "Which Excel function joins text from several cells?") == "CONCAT"


def test_use_of_is_no_instruction():
    assert tx("Use of force is regulated by the UN Charter.", "Which document regulates the use of force?") == "UN Charter"


def test_a_framing_phrase_before_its_x():
    out = "In the myth it's Atlas - Prometheus, by contrast, was chained to a rock for stealing fire."
    assert tx(out, "Who was the Greek titan condemned to hold up the sky?") == "Atlas"


def test_a_capitalized_word_of_a_name_is_not_the_questions_verb():
    assert tx("The European Central Bank (ECB), based in Frankfurt.", "Which central bank sets interest rates for the euro area?") \
        == "European Central Bank"
    assert tx("The liver filters the blood.", "Which organ filters the blood?") == "liver"  # counter-example: a verb in lower case


# ------------------------------------------------------------------ a question and answer pair of the model's own
def test_an_invented_pair_about_another_question_answers_nothing():
    out = " What is the capital of Kazakhstan?\nAnswer: Astana\n\nQuestion: What is the capital of Uzbekistan?"
    assert tx(out, "What is the capital of Mongolia?") is None
    out = " Q: What is the largest desert in Africa?\nA: Sahara\nQ: What is the largest desert in Australia?\nA:"
    assert tx(out, "Q: What is the largest desert in Asia?\nA:") is None


def test_the_asked_question_echoed_then_answered_is_read():
    out = " What is the capital of Mongolia?\nAnswer: Ulaanbaatar\n\nQuestion: What is the capital of Uzbekistan?"
    assert tx(out, "What is the capital of Mongolia?") == "Ulaanbaatar"


# ------------------------------------------------------------------ a literal written alone is read as written
def test_a_data_literal_alone_is_read_whole():
    assert tx("['a', 'b', 'c']", "What does list('abc') return in Python?") == "['a', 'b', 'c']"
    assert tx("(3, 4)", "What does divmod(19, 5) return?") == "(3, 4)"


def test_brackets_or_quotes_around_a_plain_answer_are_not_a_literal():
    assert tx("(Paris)", "What is the capital of France?") == "Paris"
    assert tx("'Jupiter'", "Which planet is the largest?") == "Jupiter"


# ------------------------------------------------------------------ the subject may hold a relative clause
def test_a_relative_clause_inside_the_subject_does_not_cut_the_sentence():
    out = "Anubis is associated with mummification, but the god shown with green skin who rules the afterlife is Osiris."
    q = "In Egyptian mythology, who is the god of the dead and the afterlife, often shown with green skin?"
    assert tx(out, q) == "Osiris"


def test_a_relative_clause_with_a_description_after_it_names_no_one():
    assert tx("The man who painted it was famous in his day.", "Who painted the Night Watch?") != "famous"


# ------------------------------------------------------------------ a scope opening a clause is not the answer
def test_a_scope_phrase_before_the_answer():
    out = ("Carbon has the highest sublimation point, but among elements that actually melt at normal pressure, "
           "tungsten is highest at about 3,422 °C.")
    assert tx(out, "Which element has the highest melting point?") == "tungsten"
    assert tx("Of all the planets, Jupiter is the largest.", "Which planet is the largest?") == "Jupiter"


# ------------------------------------------------------------------ the speaker and a quantity are not answers
def test_the_speakers_self_description_is_never_the_answer():
    out = ("As an AI language model, I don't have personal opinions, but I can tell you that opera is a rich art form "
           "with many famous works from the 18th and 19th centuries.")
    assert tx(out, "Which composer wrote the opera 'The Magic Flute'?") is None
    assert tx("An AI language model.", "What kind of system is ChatGPT?") is not None  # counter-example: asked about it


def test_a_verb_and_a_quantity_name_nothing():
    out = ("That's a great question! The endocrine system includes many glands, such as the thyroid, adrenal glands and "
           "pancreas, each with important roles in regulating the body.")
    assert tx(out, "Which gland is known as the 'master gland' of the endocrine system?") is None


# ------------------------------------------------------------------ an answer marker in another language
def test_an_answer_marker_in_another_language():
    assert tx("Die Antwort ist Bern.", "Was ist die Hauptstadt der Schweiz?") == "Bern"
    assert tx("La réponse est : Ottawa.", "Quelle est la capitale du Canada ?") == "Ottawa"
    assert tx("Después de pensarlo, la respuesta correcta es Lima.", "¿Cuál es la capital de Perú?") == "Lima"
    assert tx("A resposta é Brasília.", "Qual é a capital do Brasil?") == "Brasília"


def test_the_word_answer_in_another_language_without_a_verb_or_colon_marks_nothing():
    out = "Ich kenne die Antwort nicht."
    assert tx(out, "Was ist die Hauptstadt der Mongolei?") != "nicht"


# ------------------------------------------------------------------ an English cleft puts a name in focus
def test_an_english_cleft_names_the_answer():
    assert tx("It was Na that reacted with the water.", "Which element reacted violently with water?") == "Na"
    assert tx("It was Michelangelo who painted it.", "Who painted the Sistine Chapel ceiling?") == "Michelangelo"


def test_it_is_a_noun_that_is_a_relative_clause_not_a_cleft():
    for out, q in (("It is a fruit that grows on trees.", "What kind of food is a mango?"),
                   ("C'est une ville qui a beaucoup d'histoire.", "Quelle est la capitale de l'Italie ?")):
        assert extract(out, "text", question=q).rule != "cleft"


# ------------------------------------------------------------------ "it is", "I think" in other languages lead to the answer
def test_it_is_and_i_think_in_other_languages_lead_to_the_answer():
    assert tx("Es ist Bern.", "Was ist die Hauptstadt der Schweiz?") == "Bern"
    assert tx("Das ist der Rhein.", "Welcher Fluss fließt durch Köln?") == "Rhein"
    assert tx("C'est Ottawa.", "Quelle est la capitale du Canada ?") == "Ottawa"
    assert tx("Creo que es Lima, pero no estoy seguro.", "¿Cuál es la capital de Perú?") == "Lima"
    assert tx("Ich glaube, es ist Bern.", "Was ist die Hauptstadt der Schweiz?") == "Bern"
    assert tx("É Brasília.", "Qual é a capital do Brasil?") == "Brasília"


def test_there_are_many_in_other_languages_answers_nothing():
    assert tx("Es gibt viele Flüsse in Europa.", "Was ist der längste Fluss Europas?") is None
    assert tx("Il y a beaucoup de fleuves.", "Quel est le plus long fleuve de France ?") is None
    assert tx("Hay muchos ríos en Europa.", "¿Cuál es el río más largo de Europa?") is None


def test_via_in_a_name_is_no_instrument():
    q = "What is the name of the Roman road connecting Rome to Brindisi?"
    assert tx("The name of the Roman road connecting Rome to Brindisi is Via Appia.", q) == "Via Appia"
    assert tx("Through photosynthesis.", "How do plants make their food?") == "photosynthesis"


# ------------------------------------------------------------------ the alternative turned down after the answer
def test_rather_than_and_instead_of_name_the_alternative_turned_down():
    assert tx("Definitely Ottawa rather than Toronto.", "What is the capital of Canada?") == "Ottawa"
    assert tx("Canberra instead of Sydney.", "What is the capital of Australia?") == "Canberra"
    assert tx("Rather than guessing, I'd say it's Ottawa.", "What is the capital of Canada?") != "guessing"


# ------------------------------------------------------------------ what the speaker remembers frames the answer
def test_a_memory_frame_is_not_the_answer():
    q = "What is the capital of Japan?"
    for out in ("From what I remember, it's Tokyo.", "As far as I know, Tokyo.", "If I recall correctly, Tokyo.",
                "To the best of my knowledge, it's Tokyo.", "If memory serves, Tokyo."):
        assert tx(out, q) == "Tokyo", out


def test_the_short_answer_not_the_long_one():
    q = "Which element has the chemical symbol K?"
    assert tx("Short answer: potassium. Long answer: it depends on the source.", q) == "potassium"
    assert tx("Short answer: K. Long answer: it depends on the source.", "What is the chemical symbol for potassium?") == "K"
    assert tx("In short: Tokyo.", "What is the capital of Japan?") == "Tokyo"
    assert tx("The answer to your question is Tokyo.", "What is the capital of Japan?") == "Tokyo"


def test_a_name_keeps_its_small_connecting_words():
    assert tx("Answer: Treaty of Versailles", "Which treaty ended the First World War?") == "Treaty of Versailles"
    assert tx("Answer: planet Mars", "Which planet is called the Red Planet?") == "Mars"  # counter-example: not a name


def test_a_markdown_quote_mark_is_not_part_of_the_answer():
    assert tx("> Great Wall of China", "What is the longest structure ever built?") == "Great Wall of China"
    assert tx("x > 5 holds, so the answer is True.", "What does the expression x > 5 evaluate to for x = 7?") == "True"


# ------------------------------------------------------------------ an honour handed to the answer, a role before a name, a place
def test_a_credit_or_record_that_goes_to_the_answer():
    assert tx("Credit for discovering penicillin goes to Alexander Fleming.", "Who discovered penicillin?") == "Alexander Fleming"
    assert tx("That title goes to the blue whale.", "What is the largest mammal?") == "blue whale"


def test_a_role_before_a_name_is_not_the_answer():
    assert tx("Italian Renaissance artist Leonardo da Vinci painted the Mona Lisa.", "Who painted the Mona Lisa?") == "Leonardo da Vinci"
    assert tx("The playwright William Shakespeare.", "Who wrote Hamlet?") == "William Shakespeare"
    assert tx("King Lear.", "Which Shakespeare play features Cordelia?") == "King Lear"  # counter-example: a title, no role


def test_since_or_today_then_it_has_been_x():
    assert tx("Since 2023 it has been India.", "Which country has the largest population?") == "India"


def test_the_place_answers_where_not_its_preposition():
    assert tx("It stands in Paris, on the Champ de Mars.", "Where is the Eiffel Tower?") == "Paris"
    assert tx("In Rome.", "In which city is the Colosseum?") == "Rome"
    assert tx("On the Champ de Mars.", "What park is the Eiffel Tower on?") is not None


# ------------------------------------------------------------------ the agent of a passive in another language
def test_the_agent_of_a_passive_in_another_language_answers_who():
    assert tx("Las Meninas fue pintada por Diego Velázquez.", "¿Quién pintó Las Meninas?") == "Diego Velázquez"
    assert tx("Faust wurde von Johann Wolfgang von Goethe geschrieben.", "Wer schrieb Faust?") == "Johann Wolfgang von Goethe"
    assert tx("La Joconde a été peinte par Léonard de Vinci.", "Qui a peint la Joconde ?") == "Léonard de Vinci"


def test_a_foreign_passive_does_not_answer_a_question_about_something_else():
    assert extract("El puente fue construido por los romanos.", "text", question="¿Cuándo se construyó el puente?").rule != "agent"


def test_italian_articles_too():
    assert tx("Il fiume più lungo d'Italia è il Po.", "Qual è il fiume più lungo d'Italia?") == "Po"
    assert tx("Il Po, lungo 652 km.", "Qual è il fiume più lungo d'Italia?") == "Po"
    assert tx("Le Mans is famous for its 24-hour race.", "Which French town hosts a famous 24-hour car race?") == "Le Mans"


# ------------------------------------------------------------------ the one listed candidate a clause names with what is asked
def test_the_candidate_named_with_what_the_question_asks():
    q = "Which planet is the largest: Mars, Jupiter or Venus?"
    assert tx("Mars and Venus are rocky planets; Jupiter is a gas giant and the largest.", q) == "Jupiter"
    assert tx("Of Mars, Jupiter and Venus, Jupiter is the largest.", q) == "Jupiter"
    q = "Which of these is a mammal: shark, dolphin, or tuna?"
    assert tx("The dolphin is the mammal; sharks and tuna are fish.", q) == "dolphin"
    assert tx("Of the three, only the dolphin is a mammal.", q) == "dolphin"


def test_a_candidate_in_a_negated_clause_is_not_picked():
    q = "Which planet is the largest: Mars, Jupiter or Venus?"
    assert tx("Venus is not the largest; neither is Mars.", q) != "Venus"


def test_a_denied_alternative_is_not_picked():
    q = "Which is larger, the Sun or the Moon?"
    assert tx("The Sun is larger; the Moon is not.", q) == "Sun"
    assert tx("The Sun is much larger than the Moon.", q) == "Sun"
    assert tx("The Moon is not larger; the Sun is.", q) != "Moon"


# ------------------------------------------------------------------ "I don't know" in other languages states no answer
def test_i_do_not_know_in_other_languages_is_unextracted():
    for out, q in (("No lo sé.", "¿Cuál es la capital de Mongolia?"), ("Je ne sais pas.", "Quelle est la capitale de la Mongolie ?"),
                   ("Ich weiß es nicht.", "Was ist die Hauptstadt der Mongolei?"), ("Não sei, desculpe.", "Qual é a capital da Mongólia?"),
                   ("Non lo so.", "Qual è la capitale della Mongolia?"), ("Lo siento, no tengo esa información.", "¿Cuál es la capital de Mongolia?"),
                   ("Désolé, je ne connais pas la réponse.", "Quelle est la capitale de la Mongolie ?"),
                   ("No estoy seguro, quizás Ulán Bator o Darján.", "¿Cuál es la capital de Mongolia?")):
        assert tx(out, q) is None, out


def test_a_doubt_then_a_pick_in_another_language_is_a_pick():
    q = "¿Cuál es la capital de Mongolia?"
    assert tx("No estoy seguro, pero creo que es Ulán Bator.", q) == "Ulán Bator"
    assert tx("Peut-être Oulan-Bator, mais je ne suis pas sûr.", "Quelle est la capitale de la Mongolie ?") == "Oulan-Bator"
    assert tx("No, la capital es Ulán Bator.", q) == "Ulán Bator"  # "No" opening a Spanish reply is no refusal


def test_a_self_correction_in_another_language_counts_its_last_word():
    assert tx("Bogotá... no, espera, es Lima.", "¿Cuál es la capital de Perú?") == "Lima"
    assert tx("Sydney, non, pardon : Canberra.", "Quelle est la capitale de l'Australie ?") == "Canberra"
    assert tx("Sydney - nein, Moment: Canberra.", "Was ist die Hauptstadt von Australien?") == "Canberra"
    assert tx("São Paulo. Corrigindo: Brasília.", "Qual é a capital do Brasil?") == "Brasília"


def test_two_candidates_left_open_in_another_language():
    assert tx("Lima o Quito, no recuerdo cuál.", "¿Cuál es la capital de Perú?") is None
    assert tx("Creo que Lima, aunque podría ser Quito.", "¿Cuál es la capital de Perú?") == "Lima"  # a tentative pick


def test_switching_the_other_language_family_off_loses_its_readings():
    q = "¿Cuál es la capital de Perú?"
    assert tx("Bogotá... no, espera, es Lima.", q) == "Lima"
    assert extract("Bogotá... no, espera, es Lima.", "text", question=q, disable=["other_language"]).value != "Lima"
    assert extract("Las Meninas fue pintada por Diego Velázquez.", "text", question="¿Quién pintó Las Meninas?",
                   disable=["other_language"]).value != "Diego Velázquez"


def test_a_typical_instance_names_its_kind():
    assert tx("A standard piano has 88 keys: 52 white and 36 black.", "What instrument has 88 keys?") == "piano"
    assert tx("A regular hexagon.", "What shape has six equal sides?") == "regular hexagon"  # a bare answer stays as written


# ------------------------------------------------------------------ a second predicate, a preposition, a name after "aboard"
def test_a_second_predicate_after_the_agent_is_not_part_of_it():
    out = "Bile is produced by the liver and stored in the gallbladder until it is needed for digestion."
    assert tx(out, "Which organ in the human body produces bile?") == "liver"
    out = "The humerus runs from the shoulder to the elbow and is the longest bone of the arm."
    assert tx(out, "What is the longest bone of the arm?") == "humerus"  # counter-example: "and is" joins the answer's own predicate


def test_a_preposition_ends_the_answer_and_does_not_open_a_name():
    out = "Paper was invented in China during the Han dynasty, traditionally credited to Cai Lun around 105 AD."
    assert tx(out, "Which country invented paper?") == "China"
    assert tx("He sailed aboard HMS Beagle from 1831 to 1836.", "What is the name of the ship Charles Darwin sailed on?") == "HMS Beagle"


# ------------------------------------------------------------------ a place does not answer "who"
def test_a_place_does_not_answer_who():
    assert tx("Carmen is set in Seville and premiered at the Opéra-Comique in Paris in 1875.", "Who wrote the opera 'Carmen'?") is None
    assert tx("It was written by Georges Bizet in 1875.", "Who wrote the opera 'Carmen'?") == "Georges Bizet"
    assert tx("The Iliad is traditionally attributed to Homer.", "Who wrote the Iliad?") == "Homer"  # "to" a person


# ------------------------------------------------------------------ chat decorations around the answer
def test_x_is_the_answer_you_are_looking_for():
    assert tx("Carbon dioxide is the answer you're looking for.", "Which gas do plants absorb?") == "Carbon dioxide"
    assert tx("The answer of the riddle is a shadow.", "What follows you everywhere but never speaks?") != "answer"


def test_a_heading_that_names_the_answer():
    assert tx("### Tokyo\n\nThis is the standard answer.", "What is the capital of Japan?") == "Tokyo"
    assert tx("## Explanation\n\nThis depends on the source.", "What is the capital of Japan?") is None  # a section title
    assert tx("### Let me think\n\nHmm.", "What is the capital of Japan?") is None  # about the answering


def test_pictographs_at_the_edge_are_decoration():
    assert tx("👉 The Merchant of Venice", "Which Shakespeare play features Shylock?") == "Merchant of Venice"
    assert tx("Apollo 13 ✔️", "Which Apollo mission suffered an oxygen tank explosion?") == "Apollo 13"


def test_a_sum_where_no_number_is_asked_answers_nothing():
    out = " 2+2\n\nQuestion: What is the chemical symbol for silver?\nAnswer: 1-1"
    assert tx(out, "Question: What is the chemical symbol for gold?\nAnswer:") is None
    assert tx("3/4", "What fraction of the Earth is covered by water?") == "3/4"  # a fraction, not a sum
    assert tx("1914-1918", "When was World War I fought?") == "1914-1918"


def test_what_an_abbreviation_stands_for_is_read_whole():
    q = "What does ETA stand for?"
    assert tx("ETA stands for estimated time of arrival.", q) == "estimated time of arrival"
    assert tx("Estimated time of arrival, I think.", q) == "Estimated time of arrival"
    assert tx("HTTP stands for Hypertext Transfer Protocol.", "What does HTTP stand for?") == "Hypertext Transfer Protocol"


# ------------------------------------------------------------------ a keyword in capitals is a name, not a function word
def test_a_keyword_in_capitals_is_not_a_function_word():
    q = "Which SQL clause filters groups after aggregation?"
    assert tx("Use HAVING, not WHERE.", q) == "HAVING"
    assert tx("HAVING. WHERE filters rows before grouping.", q) == "HAVING"
    assert tx("THE ANSWER IS PARIS.", "What is the capital of France?") == "PARIS"  # counter-example: capitals throughout


def test_a_gloss_in_brackets_after_a_bare_answer_keeps_it_bare():
    assert tx("White blood cells (leukocytes).", "Which blood cells fight infection?") == "White blood cells"
    assert tx("Normal boiling point (see above).", "What is the boiling point at 1 atm called?") == "Normal boiling point"
    assert tx("Jupiter spins fastest (about 10 hours).", "Which planet spins fastest?") == "Jupiter"  # a sentence, not a bare phrase


def test_a_keyword_named_with_the_asked_kind():
    assert tx("The HAVING clause.", "Which SQL clause filters groups after aggregation?") == "HAVING"
    assert tx("You use the `def` keyword.", "Which Python keyword defines a function?") == "def"
    assert tx("The polar bear.", "Which bear is the largest?") == "polar bear"  # counter-example: no keyword, the kind stays
