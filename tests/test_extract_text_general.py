"""General reading principles for short text answers, each with counter-examples that keep their
reading, and the rule switched off once to show that it is what reads the case."""

from __future__ import annotations

from gengap.extract import extract


def tx(output: str, question: str, **kw) -> str | None:
    return extract(output, "text", question=question, **kw).value


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
