"""How a reader trims a short text answer: articles of other languages, clefts, dates after the answer,
code spans, reference marks, titles and opening adverbs. Each principle with a case read through the
real extractor and a counter-example that keeps its reading."""

from __future__ import annotations

from gengap.extract import extract
from gengap.extract._text_span import reply_language

# ------------------------------------------------------------------ an article is no part of the answer, in any language


def test_reply_language_needs_function_words_of_its_own():
    assert reply_language("A baby kangaroo is called a joey.") is None
    assert reply_language("El océano Pacífico es el más grande del mundo.") == "es"


# ------------------------------------------------------------------ a cleft names its answer in other languages too


# ------------------------------------------------------------------ a date after the answer says when, not what


# ------------------------------------------------------------------ a command in a code span is one token


# ------------------------------------------------------------------ reference marks and footnotes are no part of the answer


# ------------------------------------------------------------------ an initial's period before a sentence adverb ends the sentence


# ------------------------------------------------------------------ a title written alone is read whole


# ------------------------------------------------------------------ an opening adverb or frame is not the answer


# ------------------------------------------------------------------ a reply naming what the asker describes


# ------------------------------------------------------------------ a question and answer pair of the model's own


# ------------------------------------------------------------------ a literal written alone is read as written


# ------------------------------------------------------------------ the subject may hold a relative clause


# ------------------------------------------------------------------ a scope opening a clause is not the answer


# ------------------------------------------------------------------ the speaker and a quantity are not answers


# ------------------------------------------------------------------ an answer marker in another language


# ------------------------------------------------------------------ an English cleft puts a name in focus


def test_it_is_a_noun_that_is_a_relative_clause_not_a_cleft():
    for out, q in (("It is a fruit that grows on trees.", "What kind of food is a mango?"),
                   ("C'est une ville qui a beaucoup d'histoire.", "Quelle est la capitale de l'Italie ?")):
        assert extract(out, "text", question=q, verify=False).rule == "in_sentence"


# ------------------------------------------------------------------ "it is", "I think" in other languages lead to the answer


# ------------------------------------------------------------------ the alternative turned down after the answer


# ------------------------------------------------------------------ what the speaker remembers frames the answer


# ------------------------------------------------------------------ an honour handed to the answer, a role before a name, a place


# ------------------------------------------------------------------ the agent of a passive in another language


def test_a_foreign_passive_does_not_answer_a_question_about_something_else():
    assert extract("El puente fue construido por los romanos.", "text", question="¿Cuándo se construyó el puente?", verify=False).rule == "in_sentence"


# ------------------------------------------------------------------ the one listed candidate a clause names with what is asked


# ------------------------------------------------------------------ "I don't know" in other languages states no answer


def test_switching_the_other_language_family_off_loses_its_readings():
    q = "¿Cuál es la capital de Perú?"
    assert extract("Bogotá... no, espera, es Lima.", "text", question=q, disable=["other_language"]).value == "espera"
    assert extract("Las Meninas fue pintada por Diego Velázquez.", "text", question="¿Quién pintó Las Meninas?",
                   disable=["other_language"]).value == "fue pintada por Diego Velázquez"


# ------------------------------------------------------------------ a second predicate, a preposition, a name after "aboard"


# ------------------------------------------------------------------ a place does not answer "who"


# ------------------------------------------------------------------ chat decorations around the answer


# ------------------------------------------------------------------ a keyword in capitals is a name, not a function word


