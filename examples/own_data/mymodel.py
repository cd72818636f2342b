"""A stand-in for your model: gengap calls ``predict`` with a list of inputs and wants a list back.

Replace the body with your own model (a call to your network, a scikit-learn pipeline, a
request to a server). This one reverses the words of a question correctly only up to six
words, so the length split shows what a generalization gap looks like.
"""

PREFIX = "Reverse the words: "


def predict(batch: list[str]) -> list[str]:
    """One answer per question, in the same order."""
    answers = []
    for question in batch:
        words = question.removeprefix(PREFIX).split()
        answers.append(" ".join(reversed(words[:6])))
    return answers
