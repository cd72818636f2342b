"""Read the answer out of a model's free-text output the way a person would, or say that it cannot be read.

The question and the options are inputs of every extractor: "which span answers this question" and
"which option does this text name" can only be decided with them. Each answer kind has a cascade
of small rules, most specific first; the first rule with an opinion decides, and its name is kept
so a report can show how each answer was read:

==========  ================================================================================
kind        cascade
==========  ================================================================================
number      ``\\boxed{}``, a self-correction ("wait, that should be 47"),
            the last marked answer ("####", "the answer is", "Final answer:"), a table's total
            row, the row the question names or the line under it labelled with what it asks
            (notes, tips and caveats under a table never count), a refusal (unextracted), the answer stated first with an explanation after
            (the first number the question does not already give), a hedge (unextracted), the
            last concluding number ("so", "in total"), the last number when it ends the output.
            A percentage is read as a decimal when the question asks for a probability.
choice      ``\\boxed{}``, a self-correction, a marked letter or option, a letter, option
            number or option text opening the output (" 2", "Number two.", "Second."), a refusal or hedge (unextracted), "B is
            correct", an ordinal ("the third option", "option (iii)"), a trailing letter, the
            one option named by text, paraphrase ("a carnivore" for "Carnivorous") or value
            ("3.14159" for "3.14").
yes_no      ``\\boxed{}``, a self-correction, a marked answer, yes/no/true/false first (not
            "no doubt", "no wonder"; "Yes and no" or a closing "So it depends" is no answer), a
            refusal, a verdict without those words ("Certainly", "That's a myth", "Not at all",
            "It does not", "The fruit isn't;", "Plenty"), a concluding "so, no", a hedge, a table row
            before the notes under it, the last yes/no word, a contrast that denies the question's
            term ("..., not relativity") or names another place, a restatement of the question,
            negated or with another count than the question's.
text        ``\\boxed{}``, a refusal, a self-correction, a marked answer, a bold span, a
            table cell (or the cell under the column the question names), a short answer opening the
            output (a bare phrase keeps the question's words that end it: "white blood cells"), a
            hedge or an unfinished ramble (unextracted), a quoted title or literal, the span of a sentence that
            answers the question (the words the question already says are not the answer; the
            subject when it asks who or what does something; the one full name when it asks who).
==========  ================================================================================

Before any cascade, a structured output is unwrapped (``_structured``, rule family ``structured``):
reasoning blocks (``<think>``, an analysis channel) and markup (fences, quotes, citations, a turn header)
are set aside, and the answer tag, the JSON answer field (or the field the question names), a
transcript's program output, a list's marked line or a record's line the question names is read by the
cascade; an empty or "unknown" answer slot is unextracted.

Every kind reads in the same stages: the structure is unwrapped; the answer a box or a marker states is
read from the kind's table (``_markers``); then the commitment stage (``_commitment.stage``), the same for every kind, decides whether
the output commits to an answer at all (a doubt in another language, a refusal, candidates left open,
a hedge, an unfinished ramble, an output cut off before its conclusion); then the readers of answers in
prose. The phrases those stages match (markers, refusals, hedges, doubts in six languages) are data,
one file per language in ``phrases/`` (its README says how to add one).

Last, the verifier (``_verify``, on by default; ``verify=False`` turns it off) looks at each answer read
and leaves the output unextracted where a small trained model finds the reading more likely wrong than
its threshold allows (rule ``"verifier"``; the answer set aside stays on ``Extraction.withheld``).

An output no rule can read gives ``None`` (:data:`UNEXTRACTED`), its own outcome that reports count
separately; it is never turned into a wrong answer. The rules use no knowledge of the world: where only
knowledge of the words said instead would decide ("Ice floats." for "Does ice sink?", "a dwarf planet"
for "Is Pluto a planet?"), the output is unextracted, or handed to the optional judge.

Example
-------
>>> extract("31 students. Two rooms of 12 and one of 7: 12 + 12 + 7.", "number",
...         question="How many students in total?").value
'31'
>>> extract("The longest river in Europe is the Volga.", "text",
...         question="What is the longest river in Europe?").value
'Volga'
>>> extract("It's a carnivore.", "choice", choices=["Herbivorous", "Carnivorous"]).value
'B'
>>> extract("I cannot tell from the passage.", "yes_no").value is None
True
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Collection, Sequence
from typing import Any

from gengap._errors import ConfigError, DataError
from gengap._registry import Registry
from gengap.extract import _choice, _numbers, _text, _yes_no
from gengap.extract._base import Context, Extraction, Rule
from gengap.extract._cascade import run_cascade
from gengap.extract._choice import choice_letters, normalize_text, options_named
from gengap.extract._judge import JUDGE_APIS, JudgeReport, as_judge, completion_prompt, declines, judge_prompt, supported
from gengap.extract._numbers import format_number, parse_number
from gengap.extract._verify import Verification, check_verify, verify_reading

__all__ = [
    "KINDS",
    "UNEXTRACTED",
    "Extraction",
    "Extractor",
    "JudgeReport",
    "choice_letters",
    "completion_prompt",
    "extract",
    "extract_choice",
    "extract_many",
    "extract_number",
    "extract_text",
    "extract_yes_no",
    "format_number",
    "judge_prompt",
    "normalize_text",
    "options_named",
    "parse_number",
    "register_extractor",
    "rule_families",
    "supported",
]

#: The answer kinds every extractor understands.
KINDS = ("number", "choice", "yes_no", "text")
#: The value of an output that could not be read.
UNEXTRACTED = None

CASCADES: dict[str, tuple[Rule, ...]] = {
    "number": _numbers.RULES,
    "choice": _choice.RULES,
    "yes_no": _yes_no.RULES,
    "text": _text.RULES,
}


def rule_families(kind: str) -> dict[str, list[str]]:
    """The families of the rules of ``kind``'s cascade, each with its rule names, in cascade order
    (``structured`` first: it unwraps JSON, tags and code before the cascade reads).

    >>> rule_families("number")["abstain"][:3], "hedge" in rule_families("number")["abstain"]
    (['echo', 'non_answer', 'foreign_unsure'], True)
    """
    families: dict[str, list[str]] = {"structured": ["structured"]}
    for rule in CASCADES[kind]:
        families.setdefault(rule.family, []).append(rule.name)
    return families


def _read(output: str, kind: str, question: str | None, choices: Sequence[str] | None,
          disable: Collection[str], contest: bool = False, verify: Verification = False) -> Extraction:
    if choices is not None and kind == "choice":
        choices = [str(c) for c in choices]
        choice_letters(len(choices))  # 2 to 26 options
    disabled = frozenset(disable)
    question = None if question is None else str(question)
    ctx = Context(output, kind, question=question, choices=choices, disabled=disabled)
    found = run_cascade(CASCADES[kind], ctx, disabled=disabled, contest=contest)
    return verify_reading(found, output, question, choices, verify) if verify is not False else found


def extract_number(output: str, question: str | None = None, *, disable: Collection[str] = (),
                   verify: Verification = True) -> Extraction:
    """Read a numeric answer.

    >>> extract_number("Total: 3 + 4 = 7. The answer is $1,204.").value
    '1204'
    >>> extract_number("There is a 75% chance of red.", "What is the probability of red?").value
    '0.75'
    """
    return _read(output, "number", question, None, disable, verify=check_verify(verify))


def extract_choice(output: str, choices: Sequence[str] | None = None, question: str | None = None, *,
                   disable: Collection[str] = (), verify: Verification = True) -> Extraction:
    """Read a multiple-choice answer as its letter.

    ``choices`` (the option texts, in order) fixes the valid letters and lets an option's text,
    paraphrase, value or ordinal count as an answer; without it letters A to E are valid.

    >>> extract_choice("**Answer: (b)**").value
    'B'
    >>> extract_choice("The third option.", ["London", "Paris", "Rome"]).value
    'C'
    """
    return _read(output, "choice", question, choices, disable, verify=check_verify(verify))


def extract_yes_no(output: str, question: str | None = None, *, disable: Collection[str] = (),
                   verify: Verification = True) -> Extraction:
    """Read a yes/no (or true/false) answer as ``"yes"`` or ``"no"``.

    >>> extract_yes_no("No, the passage says the bridge opened in 1932.").value
    'no'
    >>> extract_yes_no("There is no denying it: it does.").value, extract_yes_no("That's a myth.").value
    ('yes', 'no')
    """
    return _read(output, "yes_no", question, None, disable, verify=check_verify(verify))


def extract_text(output: str, question: str | None = None, *, disable: Collection[str] = (),
                 verify: Verification = True) -> Extraction:
    """Read a short free-text answer (a name, a word, a short phrase).

    >>> extract_text("Let me think. The city is on the Seine.\\nFinal answer: Paris").value
    'Paris'
    >>> extract_text("The Mona Lisa was painted by Leonardo da Vinci.", "Who painted the Mona Lisa?").value
    'Leonardo da Vinci'
    """
    return _read(output, "text", question, None, disable, verify=check_verify(verify))


# ---------------------------------------------------------------------------------------- dispatch
ExtractFn = Callable[..., "Extraction | str | None"]
_REGISTRY: Registry[tuple[ExtractFn, bool]] = Registry(
    "answer kind", listed_as="Known kinds", hint="Add one with @gengap.extract.register_extractor(kind).")


def register_extractor(kind: str, *, replace: bool = False) -> Callable[[ExtractFn], ExtractFn]:
    """Register a function ``(output, choices=None, question=None) -> str | None | Extraction`` for a new
    kind (``question`` is passed only to functions that take it).

    >>> @register_extractor("date_iso")
    ... def read_date(output, choices=None):
    ...     import re
    ...     m = re.search(r"\\d{4}-\\d{2}-\\d{2}", output)
    ...     return m.group(0) if m else None
    >>> extract("It happened on 1969-07-20.", "date_iso").value
    '1969-07-20'
    """
    if not kind or not isinstance(kind, str):
        raise ConfigError(f"An extractor kind must be a non-empty string; got {kind!r}.")

    def decorate(fn: ExtractFn) -> ExtractFn:
        try:
            params = inspect.signature(fn).parameters
            takes_question = "question" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())
        except (TypeError, ValueError):
            takes_question = False
        _REGISTRY.register(kind, (fn, takes_question), replace=replace)
        return fn

    return decorate


def _check_kind(kind: str) -> None:
    if kind not in CASCADES:
        _REGISTRY.lookup(kind, also=CASCADES)


def _as_extraction(result: Any, kind: str, rule: str) -> Extraction:
    if isinstance(result, Extraction):
        return result
    if result is None:
        return Extraction(None, kind, "unextracted")
    return Extraction(str(result), kind, rule)


def _missing(output: Any) -> bool:
    return output is None or (isinstance(output, float) and math.isnan(output))


def extract(output: Any, kind: str, *, question: str | None = None, choices: Sequence[str] | None = None,
            disable: Collection[str] = (), verify: Verification = True) -> Extraction:
    """Read one output as an answer of ``kind`` (``number``, ``choice``, ``yes_no``, ``text`` or a registered kind).

    ``question`` is the prompt the output answers and ``choices`` the option texts of a
    multiple-choice question; both help decide which part of the output is the answer.
    ``disable`` switches rules off by name or family (see :func:`rule_families`), for ablations.
    ``verify`` (on by default) lets the verifier leave a doubtful reading unextracted (rule ``"verifier"``);
    ``False`` keeps the rules' reading, a path uses another model file (one that cannot be used is
    warned about and the rules' readings stand).

    >>> extract("Yes.", "yes_no")
    Extraction(value='yes', kind='yes_no', rule='first_word', contested=False)
    """
    _check_kind(kind)
    if _missing(output):
        return Extraction(None, kind, "unextracted")
    if kind in _REGISTRY:
        fn, takes_question = _REGISTRY[kind]
        result = fn(str(output), choices=choices, question=question) if takes_question else fn(str(output), choices=choices)
        return _as_extraction(result, kind, "custom")
    return _read(str(output), kind, question, choices, disable, verify=check_verify(verify))


def _contested(output: Any, kind: str, question: str | None, choices: Sequence[str] | None,
               verify: Verification = True) -> Extraction:
    if _missing(output) or kind in _REGISTRY:
        return extract(output, kind, question=question, choices=choices, verify=verify)
    return _read(str(output), kind, question, choices, (), contest=True, verify=verify)


class Extractor:
    """The extraction cascade as a reusable object, with an optional custom rule and model judge.

    Parameters
    ----------
    kind : the answer kind.
    custom : a function ``(output, choices) -> str | None`` tried before the built-in cascade;
        its None falls through to the cascade.
    judge : asked only about outputs the rules leave unextracted or read two ways: the URL of an
        OpenAI-compatible API (``"http://127.0.0.1:8080/v1"``, e.g. a llama.cpp server), a gengap
        Model, or a batch callable. Off by default. Its reply is read again by the rules, so it
        cannot invent a form the kind forbids; where the rules read two answers, it can only pick
        one of them; where they read none, its answer is kept only if the output supports it
        (:func:`supported`). :attr:`judge_report` says how it was used.
    judge_api : how the judge is asked: ``"chat"`` (an instruction; instruction-tuned models) or
        ``"completions"`` (a few worked examples; base models, e.g. Gemma 3 270M).
    judge_model : the served model's name at the judge's URL (None: the first the server lists).
    verify : the verifier (on by default) leaves doubtful readings unextracted, and so hands them to the
        judge; ``False`` turns it off, a path uses another model file.

    >>> Extractor("number")(["x = 4", "no idea", "#### 1,000"])
    ['4', None, '1000']
    """

    def __init__(self, kind: str, *, custom: Callable[[str, Sequence[str] | None], str | None] | None = None,
                 judge: Any = None, judge_api: str = "chat", judge_model: str | None = None,
                 verify: Verification = True) -> None:
        _check_kind(kind)
        self.verify = check_verify(verify)
        if custom is not None and not callable(custom):
            raise ConfigError(f"Extractor(custom=...) must be a function (output, choices) -> str | None; got {custom!r}.")
        if judge_api not in JUDGE_APIS:
            raise ConfigError(f"Extractor(judge_api={judge_api!r}): use 'chat' (instruction-tuned models) or "
                              "'completions' (base models).")
        self.kind = kind
        self.custom = custom
        self.judge_api = judge_api
        self.judge = None if judge is None else as_judge(judge, api=judge_api, model_name=judge_model)
        #: How the judge was used on the last batch (None before a judged batch).
        self.judge_report: JudgeReport | None = None
        #: Per output of the last judged batch: the judge's outcome (``JudgeReport.OUTCOMES``), None where not asked.
        self.judge_outcomes: list[str | None] = []
        #: Per output of the last judged batch: the answer the judge read, kept or not (None: not asked, or no answer).
        self.judge_readings: list[str | None] = []

    def __repr__(self) -> str:
        judge = getattr(self.judge, "name", None)
        api = f", judge_api={self.judge_api!r}" if self.judge is not None and self.judge_api != "chat" else ""
        # the verifier named only when it is not the shipped one: the runs stored before it existed still resume
        verify = "" if self.verify is True else f", verify={self.verify if isinstance(self.verify, bool) else str(self.verify)!r}"
        return f"Extractor(kind={self.kind!r}, custom={self.custom is not None}, judge={judge!r}{api}{verify})"

    def extract_all(self, outputs: Sequence[Any], choices: Sequence[Sequence[str] | None] | None = None,
                    questions: Sequence[str | None] | None = None, *, use_judge: bool = True) -> list[Extraction]:
        """One :class:`Extraction` per output (``choices``, ``questions``: one per output, or None).

        ``use_judge=False`` reads with the rules only: gold targets are never shown to the judge.
        """
        for name, given in (("choice lists", choices), ("questions", questions)):
            if given is not None and len(given) != len(outputs):
                raise DataError(f"Extractor got {len(outputs)} outputs but {len(given)} {name}; give one per output.")
        judged = use_judge and self.judge is not None
        results = []
        for i, output in enumerate(outputs):
            opts = choices[i] if choices is not None else None
            question = questions[i] if questions is not None else None
            found = None
            if self.custom is not None and not _missing(output):
                value = self.custom(str(output), opts)
                if value is not None:
                    found = Extraction(str(value), self.kind, "custom")
            if found is None:
                found = (_contested if judged else lambda o, k, q, c, v: extract(o, k, question=q, choices=c, verify=v))(
                    output, self.kind, question, opts, self.verify)
            results.append(found)
        if judged:
            self._judge(outputs, choices, questions, results)
        return results

    def _prompt(self, output: str, question: str | None, choices: Sequence[str] | None) -> str:
        build = completion_prompt if self.judge_api == "completions" else judge_prompt
        return build(output, self.kind, question=question, choices=choices)

    def _judge(self, outputs: Sequence[Any], choices: Any, questions: Any, results: list[Extraction]) -> None:
        todo = [i for i, r in enumerate(results) if not _missing(outputs[i]) and (not r.ok or r.contested)]
        counts = {"asked": len(todo), "abstained": sum(not results[i].ok for i in todo),
                  "contested": sum(results[i].ok for i in todo), **dict.fromkeys(JudgeReport.OUTCOMES, 0)}
        outcomes: list[str | None] = [None] * len(outputs)
        self.judge_readings = [None] * len(outputs)
        if todo:
            prompts = [self._prompt(str(outputs[i]), questions[i] if questions is not None else None,
                                    choices[i] if choices is not None else None) for i in todo]
            replies = list(self.judge.predict(prompts))  # type: ignore[union-attr]
            for i, reply in zip(todo, replies):
                outcomes[i] = outcome = self._settle(i, reply, outputs, choices, questions, results)
                counts[outcome] += 1
        self.judge_report = JudgeReport(**counts)
        self.judge_outcomes = outcomes

    def _settle(self, i: int, reply: Any, outputs: Sequence[Any], choices: Any, questions: Any,
                results: list[Extraction]) -> str:
        """One judged output's outcome; ``results[i]`` becomes the judge's reading where it is kept."""
        before = results[i]
        opts = choices[i] if choices is not None else None
        if declines(reply):
            return "declined"
        again = extract(str(reply), self.kind, choices=opts, verify=False)  # the reply is the answer itself
        if not again.ok:
            return "declined"
        self.judge_readings[i] = again.value
        if before.ok:
            if again.value == before.value:
                return "agreed"
            if again.value != before.alternative:
                return "declined"  # a third answer settles nothing: the rules' reading stays
            outcome = "overruled"  # the judge sides with the other reading of the rules
        elif not supported(again.value, str(outputs[i]), self.kind, choices=opts,
                           question=questions[i] if questions is not None else None):
            return "unsupported"  # an answer the output does not contain: it stays unextracted
        else:
            outcome = "filled"
        results[i] = Extraction(again.value, self.kind, "judge")
        return outcome

    def __call__(self, outputs: Sequence[Any], choices: Sequence[Sequence[str] | None] | None = None,
                 questions: Sequence[str | None] | None = None, *, use_judge: bool = True) -> list[str | None]:
        """The extracted values (None where unextracted)."""
        return [r.value for r in self.extract_all(outputs, choices, questions, use_judge=use_judge)]


def extract_many(outputs: Sequence[Any], kind: str, *, choices: Sequence[Sequence[str] | None] | None = None,
                 questions: Sequence[str | None] | None = None) -> list[str | None]:
    """Extract every output with the built-in cascade; None marks the unextracted ones.

    >>> extract_many(["A", "(c)", "hmm"], "choice")
    ['A', 'C', None]
    """
    return Extractor(kind)(outputs, choices, questions)
