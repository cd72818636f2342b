"""An optional model judge for what the rules cannot read: any OpenAI-compatible endpoint (a local
llama.cpp server, vLLM, Ollama, a hosted API) or any gengap model is shown the question, the options
and the output, and asked which answer the output commits to.

The judge is asked only about outputs the rules leave unextracted or read in two ways (contested).
Two prompt styles: ``"chat"`` (an instruction, for instruction-tuned models) and ``"completions"``
(a few worked examples ending in ``Answer:``, for base models; the reply stops at a newline).

Its reply is read again by the rules, so it cannot invent a form the kind forbids, and an answer
it reads into an unextracted output is kept only when :func:`supported` finds it in the output (a
number the output contains, a span of its text, an option it names); otherwise the judge's answer
is *unsupported* and the output stays unextracted. A :class:`JudgeReport` counts each outcome.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from gengap._errors import ConfigError

#: The prompt styles a judge can be asked in.
JUDGE_APIS = ("chat", "completions")
JudgeAPI = Literal["chat", "completions"]

_INSTRUCTIONS = {
    "number": "Reply with the number only.",
    "choice": "Reply with the letter of the option only.",
    "yes_no": "Reply with yes or no only.",
    "text": "Reply with the short answer only (a word or a name), no sentence.",
}

PROMPT = (
    "You read answers. Below are a question and a reply someone wrote. Which final answer does the reply commit to? "
    "{instruction} If the reply refuses, hedges between answers or gives no answer, reply NONE.\n\n"
    "Question: {question}{options}\n\nReply:\n<<<\n{output}\n>>>\n\nFinal answer:"
)

#: The completions prompt's opening line; worked examples follow, then the output to read.
FEW_SHOT_HEAD = "Each reply answers the question before it. Write the final answer the reply gives, or NONE if it gives none."

#: Worked examples of the completions prompt, per kind: (question, options, reply, answer). Each
#: kind has answers stated first, last and in a sentence, and one reply that gives no answer.
FEW_SHOT: dict[str, tuple[tuple[str, tuple[str, ...], str, str], ...]] = {
    "number": (
        ("How many legs do 3 spiders have?", (), "Each spider has 8 legs, so 3 spiders have 24 legs in total.", "24"),
        ("What is 9 squared?", (), "81. That is 9 x 9, or 9 added nine times.", "81"),
        ("A $20 shirt is 15% off. What is the sale price?", (), "The discount is $3, so you pay seventeen dollars.", "17"),
        ("How many moons does the planet Kepler-22b have?", (), "I don't know; no moons have been confirmed or ruled out.",
         "NONE"),
    ),
    "choice": (
        ("Which gas do plants take in for photosynthesis?", ("Oxygen", "Carbon dioxide", "Nitrogen"),
         "Plants take in carbon dioxide and release oxygen.", "B"),
        ("Which animal is a mammal?", ("Shark", "Trout", "Dolphin", "Octopus"),
         "The answer is (c): dolphins breathe air and feed their young milk.", "C"),
        ("Which planet is the largest?", ("Jupiter", "Mars", "Earth"), "Jupiter, by far; Earth is much smaller.", "A"),
        ("In which year was the treaty signed?", ("1648", "1713", "1815"),
         "It could be 1648 or 1713; I am not sure which.", "NONE"),
    ),
    "yes_no": (
        ("Is the Pacific the largest ocean?", (), "Certainly, it covers about a third of the Earth.", "yes"),
        ("Can penguins fly?", (), "Not at all; their wings are flippers for swimming.", "no"),
        ("Do bats use echolocation?", (), "No doubt about it: most of them do.", "yes"),
        ("Will it rain in Paris next Tuesday?", (), "I can't know that from here.", "NONE"),
    ),
    "text": (
        ("What is the capital of Australia?", (), "The capital of Australia is Canberra, not Sydney.", "Canberra"),
        ("Who wrote Hamlet?", (), "William Shakespeare wrote it around 1600.", "William Shakespeare"),
        ("Which metal is liquid at room temperature?", (), "Mercury. It melts at -39 degrees Celsius.", "Mercury"),
        ("What was the name of Caesar's first teacher?", (), "Sources do not record it, so I can't say.", "NONE"),
    ),
}

#: Longest output shown to a completions judge (its start and its end are kept): a small model's context is short.
MAX_OUTPUT_CHARS = 1200
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _options(choices: Sequence[str] | None, sep: str) -> str:
    return sep.join(f"{_LETTERS[i]}) {c}" for i, c in enumerate(choices or ()))


def judge_prompt(output: str, kind: str, *, question: str | None = None, choices: Sequence[str] | None = None) -> str:
    """The prompt a chat judge reads for one output.

    >>> print(judge_prompt("It's a carnivore.", "choice", question="Diet of a lion?",
    ...                    choices=["Herbivorous", "Carnivorous"]).splitlines()[2])
    Question: Diet of a lion?
    """
    options = "\nOptions:\n" + _options(choices, "\n") if choices else ""
    return PROMPT.format(instruction=_INSTRUCTIONS.get(kind, "Reply with the answer only."),
                         question=question or "(not given)", options=options, output=str(output).strip())


def _one_line(text: str, limit: int = MAX_OUTPUT_CHARS) -> str:
    """Whitespace (newlines too) as single spaces; a long text keeps its start and its end."""
    text = " ".join(str(text).split())
    if len(text) > limit:
        half = limit // 2
        text = text[:half].rstrip() + " ... " + text[-half:].lstrip()
    return text


def _block(question: str | None, choices: Sequence[str] | None, output: str) -> str:
    options = f"\nOptions: {_options(choices, '  ')}" if choices else ""
    return f"Question: {_one_line(question or '(not given)', 600)}{options}\nReply: {_one_line(output)}\nAnswer:"


def completion_prompt(output: str, kind: str, *, question: str | None = None,
                      choices: Sequence[str] | None = None) -> str:
    """The few-shot prompt a base model (completions API) reads for one output; it answers on one line.

    >>> p = completion_prompt("So the total is 12 apples.", "number", question="How many apples?")
    >>> p.splitlines()[-3:]
    ['Question: How many apples?', 'Reply: So the total is 12 apples.', 'Answer:']
    """
    shots = FEW_SHOT.get(kind, FEW_SHOT["text"])
    parts = [FEW_SHOT_HEAD] + [f"{_block(q, opts or None, reply)} {answer}" for q, opts, reply, answer in shots]
    parts.append(_block(question, choices, output))
    return "\n\n".join(parts)


def declines(reply: Any) -> bool:
    """Whether a judge's reply says the output gives no answer."""
    text = str(reply or "").strip().strip(".*`\"' ").upper()
    return not text or text in {"NONE", "UNREADABLE", "N/A", "NO ANSWER", "UNKNOWN"} or text.startswith("NONE")


def as_judge(judge: Any, *, api: str = "chat", model_name: str | None = None) -> Any:
    """A gengap Model from a judge: a Model, a batch callable, or the URL of an OpenAI-compatible API
    (asked through ``api``, ``"chat"`` or ``"completions"``; ``model_name``: the served model's name).

    >>> as_judge("http://127.0.0.1:8080/v1")
    OpenAIModel(base_url='http://127.0.0.1:8080/v1', model_name=None, api='chat')
    """
    if api not in JUDGE_APIS:
        raise ConfigError(f"judge_api={api!r} must be 'chat' (instruction-tuned models) or 'completions' (base models).")
    if isinstance(judge, str) and judge.startswith(("http://", "https://")):
        from gengap.models.http import OpenAIModel

        # a local server (llama.cpp) answers one request at a time: few in flight, time to answer;
        # a base model answers on the line after "Answer:" and stops at its end
        return OpenAIModel(judge, model_name=model_name, api=api,  # type: ignore[arg-type]
                           max_tokens=16 if api == "chat" else 12, temperature=0.0,
                           stop=["\n"] if api == "completions" else None, name="judge", concurrency=2, timeout=180.0)
    if isinstance(judge, str):
        raise ConfigError(f"judge={judge!r} is not an http:// or https:// URL; give the base URL of an OpenAI-compatible "
                          "API, e.g. http://127.0.0.1:8080/v1 (a llama.cpp server).")
    from gengap.models import as_model

    return as_model(judge)


# ------------------------------------------------------------------------------------------ guard
_NO_WORDS_RE = re.compile(r"\b(?:no|not|nope|nah|never|none|neither|nor|false|incorrect|wrong|untrue|myth|misconception|"
                          r"cannot|impossible|unlikely)\b|n't\b|n’t\b", re.IGNORECASE)
_YES_WORDS_RE = re.compile(r"\b(?:yes|yeah|yep|yup|true|correct|right|certainly|indeed|definitely|absolutely|sure|of course|"
                           r"affirmative|agreed|exactly|precisely|undoubtedly|surely)\b", re.IGNORECASE)


def _letter_named(letter: str, text: str) -> bool:
    """Whether ``text`` names option ``letter`` as a letter: "(b)", "B)", "B.", "B:", "option B", a lone "B"."""
    lower = letter.lower()
    if re.search(rf"\(\s*[{letter}{lower}]\s*\)|(?<![\w(]){lower}\)", text):
        return True
    # an upper-case letter standing alone; "A" and "I" also open sentences, so those need a mark after them
    after = r"(?=\s*(?:[).:,;\]*]|$|\s+(?:is|was|seems|looks|would|should|it)\b))" if letter in "AI" else r"(?![\w'’])"
    return re.search(rf"(?<![\w'’-]){letter}{after}", text) is not None


def supported(value: str | None, output: str, kind: str, *, choices: Sequence[str] | None = None,
              question: str | None = None) -> bool:
    """Whether an answer a judge read is found in the output it read it from.

    - ``number``: a number the output contains (digits or words; a percentage also as its decimal);
    - ``text``: a span of the output (compared normalized: case, punctuation and articles aside);
    - ``choice``: a letter in range whose letter, option text or paraphrase the output names;
    - ``yes_no``: "no" needs a negation in the output (no, not, never, false, n't, myth, ...),
      "yes" an affirmation (yes, true, correct, certainly, indeed, of course, ...).

    >>> supported("31", "Thirty-one students. Two rooms of 12 and one of 7.", "number")
    True
    >>> supported("Danube", "The Volga is the longest river in Europe.", "text")
    False
    >>> supported("B", "It's a carnivore.", "choice", choices=["Herbivorous", "Carnivorous"])
    True
    """
    if value is None:
        return False
    text = str(output)
    if kind == "number":
        from fractions import Fraction

        from gengap.extract._base import clean
        from gengap.extract._numbers import numbers_in, parse_number

        target = parse_number(str(value))
        if target is None:
            return False
        values = {n.value for n in numbers_in(clean(text))}
        candidates = values | {v / 100 for v in values} | {v * 100 for v in values}
        return any(abs(float(c - target)) <= 1e-9 * max(1.0, abs(float(target))) for c in candidates
                   if isinstance(c, Fraction))
    if kind == "text":
        from gengap.extract._choice import normalize_text

        wanted = normalize_text(value)
        return bool(wanted) and re.search(rf"(?<!\w){re.escape(wanted)}(?!\w)", normalize_text(text)) is not None
    if kind == "choice":
        from gengap.extract._choice import normalize_text, options_named

        letters = _LETTERS[:len(choices)] if choices else _LETTERS[:5]
        letter = str(value).strip().upper()
        if len(letter) != 1 or letter not in letters:
            return False
        if _letter_named(letter, text):
            return True
        if not choices:
            return False
        option = normalize_text(choices[letters.index(letter)])
        if option and re.search(rf"(?<!\w){re.escape(option)}(?!\w)", normalize_text(text)):
            return True
        return letter in options_named(text, [str(c) for c in choices], question)
    if kind == "yes_no":
        verdict = str(value).strip().lower()
        if verdict == "no":
            return _NO_WORDS_RE.search(text) is not None
        return verdict == "yes" and _YES_WORDS_RE.search(text) is not None
    return True  # a registered kind: nothing to check it against


@dataclass(frozen=True)
class JudgeReport:
    """How the judge was used on one batch.

    Attributes
    ----------
    asked : outputs shown to the judge (the rules abstained or were contested).
    abstained, contested : of those, how many the rules left unextracted, and how many they read two ways.
    filled : unextracted outputs the judge read an answer into (one the output supports).
    agreed : contested outputs where the judge read the rules' answer.
    overruled : contested outputs where the judge read the rules' other reading (the judge's is kept).
    unsupported : unextracted outputs where the judge read an answer the output does not contain
        (see :func:`supported`): the output stays unextracted.
    declined : outputs where the judge said there is no answer, or read a third answer on a contested
        output (the rules' reading is kept).
    """

    asked: int = 0
    abstained: int = 0
    contested: int = 0
    filled: int = 0
    agreed: int = 0
    overruled: int = 0
    unsupported: int = 0
    declined: int = 0

    #: The outcomes of one output shown to the judge, as stored with a run.
    OUTCOMES = ("filled", "agreed", "overruled", "unsupported", "declined")

    @property
    def agreement(self) -> float | None:
        """Share of the contested outputs where the judge agreed with the rules (None when none was)."""
        decided = self.agreed + self.overruled
        return self.agreed / decided if decided else None

    def counts(self) -> dict[str, int]:
        """``asked`` and each outcome, as stored with a run."""
        return {"asked": self.asked, **{k: getattr(self, k) for k in self.OUTCOMES}}
