"""A doubt in another language reads the same for every answer kind: alone it is no answer (and its
"No" is never the verdict no), followed by a pick it is the pick, and "I think so / not" is a verdict."""

from __future__ import annotations

import pytest

from gengap.extract import extract


@pytest.mark.parametrize("kind", ["yes_no", "number", "choice", "text"])
@pytest.mark.parametrize("output", ["No estoy seguro.", "No lo sé.", "Je ne sais pas.", "Ich weiß es nicht.", "Não sei."])
def test_a_doubt_alone_states_no_answer_for_any_kind(kind, output):
    choices = ["Bern", "Zürich"] if kind == "choice" else None
    assert extract(output, kind, question="¿Es Berna la capital?", choices=choices).value is None


@pytest.mark.parametrize("output, kind, value", [
    ("No estoy seguro, pero creo que es Ulán Bator.", "text", "Ulán Bator"),
    ("Creo que es Lima, pero no estoy seguro.", "text", "Lima"),  # a tentative pick is a pick, as in English
    ("Ich bin mir nicht sicher, aber ich glaube ja.", "yes_no", "yes"),
    ("Não tenho certeza, mas acho que sim.", "yes_no", "yes"),
    ("No estoy seguro, quizás 12.", "number", "12"),
])
def test_a_doubt_then_a_pick_is_the_pick(output, kind, value):
    assert extract(output, kind, question="?").value == value


@pytest.mark.parametrize("output, value", [
    ("Ich glaube ja.", "yes"), ("Je pense que oui.", "yes"), ("Creo que sí.", "yes"), ("Acho que sim.", "yes"),
    ("Penso di sì.", "yes"), ("Ich glaube nicht.", "no"), ("Je crois que non.", "no"), ("Creo que no.", "no"),
    ("Acho que não.", "no"),
])
def test_i_think_so_and_i_think_not_in_other_languages_are_verdicts(output, value):
    assert extract(output, "yes_no", question="Ist Bern die Hauptstadt der Schweiz?").value == value


def test_two_candidates_after_a_doubt_commit_to_neither():
    assert extract("No estoy seguro, quizás Lima o Cusco.", "text", question="¿Cuál es la capital de Perú?").value is None
