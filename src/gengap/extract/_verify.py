"""The verifier: a small logistic model that decides, for each answer the rules read, whether to keep it or
leave the output unextracted.

The rules read an answer with confidence or not at all; some of their readings are wrong all the same (a
first number where a later one answers, a clause that answers another question). The verifier looks at
what a reading's reliability depends on, in words no question owns: the kind, the rule that read it,
where in the output the answer sits, how long the output is, how many other candidates it holds,
hedges, contrasts and negations, whether it is cut off. Its weights are trained with scikit-learn on the
project's labelled tuning rows (``benchmarks/train_extract_verifier.py``) and shipped as a JSON file
(``verifier.json``) stamped with the feature schema; reading it needs numpy only.

A reading the model doubts (probability of being wrong above the file's threshold) becomes an abstention
whose rule is ``"verifier"``, with the withheld value kept on :attr:`Extraction.withheld` so a report can
say what was set aside. A model file written for another feature schema is not used: a warning names the
file and the fix, and the rules' readings stand.

>>> from gengap.extract import extract
>>> extract("The answer is 42.", "number").value
'42'
>>> names = feature_names(); len(names) == len(set(names)), names[:2]
(True, ('kind_number', 'kind_choice'))
"""

from __future__ import annotations

import json
import math
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from operator import mul
from pathlib import Path
from typing import Any

import numpy as np

from gengap._errors import ConfigError
from gengap.extract._base import Extraction
from gengap.extract._phrases import _loaded, opening_lookahead

__all__ = ["MODEL_FILE", "SCHEMA", "Verification", "Verifier", "check_verify", "feature_names", "features", "load_verifier",
           "verify_reading"]

#: How a caller asks for verification: True (the shipped model), False (off) or a model file's path.
Verification = bool | str | Path
#: The version of the feature definitions below; a model file trained for another one is not used.
SCHEMA = 1
#: The model shipped with gengap.
MODEL_FILE = Path(__file__).resolve().parent / "verifier.json"

KINDS = ("number", "choice", "yes_no", "text")
#: The rules whose name is a feature of its own; any other rule counts as ``rule_other``.
RULES = (
    "answer_first", "first_word", "marked", "verdict", "in_sentence", "last_number", "correction", "title",
    "concluding", "restatement", "counted", "table", "bold", "no_idiom", "boxed", "option_text", "courtesy",
    "named_value", "by_value", "last_word", "trailing_letter", "letter_is_correct", "in_asked_unit",
)
_KIND_AT = {k: i for i, k in enumerate(KINDS)}
_RULE_AT = {r: len(KINDS) + i for i, r in enumerate(RULES)}
_ONE_HOT = len(KINDS) + len(RULES) + 1  # the kinds, the rules by name, any other rule
_COUNTS = ("hedge", "refusal")
_SHAPE = (
    "structured", "log_chars", "log_words", "log_lines", "markup", "value_missing", "value_position", "value_at_start",
    "value_at_end", "value_repeats", "value_words", "value_in_question", "log_candidates", "negation", "short",
    "others_before", "others_after", "output_in_question", "value_sentence_in_question", "best_sentence_in_question",
    "options_named",
)


def feature_names() -> tuple[str, ...]:
    """The model's inputs, in order (the schema a model file is stamped with)."""
    return (*(f"kind_{k}" for k in KINDS), *(f"rule_{r}" for r in RULES), "rule_other",
            *(f"phrase_{p}" for p in _COUNTS), *_SHAPE)


@lru_cache(maxsize=1)
def _phrase_pattern() -> re.Pattern[str]:
    """One pattern for every counted phrase list of every language, a named group per list (the phrase files
    write their patterns in lower case; the pattern reads lower-cased text, faster than ignoring case)."""
    groups, every = [], []
    for name in _COUNTS:
        items: list[str] = []
        for lists in _loaded().values():
            items += [p for p in lists.get(name, ()) if p not in items]
        if items:
            groups.append(f"(?P<{name}>" + "|".join(f"(?:{p})" for p in items) + ")")
            every += items
    return re.compile(opening_lookahead(every) + r"\b(?:" + "|".join(groups) + ")")  # read on lower-cased text


def _phrase_counts(text: str) -> list[float]:
    found = [m.lastgroup for m in _phrase_pattern().finditer(text)]  # the group closed last: the list's own
    return [float(min(found.count(name), 3)) for name in _COUNTS]


#: The phrase counts read this many characters of an output (its opening holds the hedges that matter).
_LONGEST = 1500
_WORD = re.compile(r"\w+", re.UNICODE)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
# each scan opens with a lookahead of the characters a match can open with: a cheap test before the others at every place
_NEGATION = re.compile(r"(?=[n])(?:\b(?:no|not|never|none|nor)\b|n't\b)")
_CAPITAL = re.compile(r"(?=[A-Z])(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+")
_LETTER = re.compile(r"(?=[A-J])\b[A-J]\b")
_YES_NO = re.compile(r"(?=[fnty])\b(?:yes|no|true|false)\b", re.IGNORECASE)
_MARKUP = re.compile(r"[{}<>\\#*|`]")
_CANDIDATE = {"number": _NUMBER, "choice": _LETTER, "yes_no": _YES_NO, "text": _CAPITAL}
_TOKEN = re.compile(r"\w+|[.!?;\n]")
_STOPS = frozenset(".!?;\n")
_STOP_LIST = tuple(_STOPS)


def _candidates(output: str, kind: str, value: str, at: int) -> tuple[float, float, float]:
    """How many candidates of the kind the output holds, and how many others stand before and after the value."""
    mine, before, after, words = value.lower(), 0, 0, []
    for m in _CANDIDATE[kind].finditer(output):
        words.append(word := m.group(0).lower())
        if word != mine and word not in mine:
            before, after = before + (m.start() < at), after + (m.start() > at)
    distinct = len(set(words)) if kind != "yes_no" else len(words)
    return math.log1p(distinct), math.log1p(before), math.log1p(after)


@lru_cache(maxsize=4096)
def _question_words(question: str) -> frozenset[str]:
    return frozenset(w.lower() for w in _WORD.findall(question))


def _overlaps(tokens: list[str], stops_before: int, q_words: frozenset[str]) -> tuple[float, float, float]:
    """The share of the output's words the question holds; that of the sentence holding the value (the one after
    ``stops_before`` sentence ends); the best sentence's. ``tokens``: the lower-cased words and sentence ends."""
    if not q_words:
        return 0.0, 0.0, 0.0
    shared = total = here = there = index = 0
    best = mine = 0.0
    asked, stops = q_words.__contains__, _STOPS.__contains__
    for token in (*tokens, "."):
        if stops(token):
            if there:
                score = here / there
                best, shared, total = max(best, score), shared + here, total + there
                mine = score if index == stops_before else mine
            index, here, there = index + 1, 0, 0
        else:
            here, there = here + asked(token), there + 1
    return shared / max(total, 1), mine, best


@lru_cache(maxsize=64)
def _whole_word(word: str) -> re.Pattern[str]:
    return re.compile(rf"\b{re.escape(word)}\b")


def _value_place(text: str, value: str, kind: str) -> tuple[int, tuple[float, ...]]:
    """Where the value first stands verbatim in the lower-cased output ``text`` (-1: nowhere), and (missing,
    relative position, at start, at end, repeats)."""
    needle = value.lower()
    if kind == "yes_no" or (kind == "choice" and len(needle) == 1):
        spots = [m.start() for m in _whole_word(needle).finditer(text)]
    else:
        spots, at = [], text.find(needle) if needle else -1
        while at >= 0:
            spots.append(at)
            at = text.find(needle, at + len(needle))
    if not spots:
        return -1, (1.0, 0.5, 0.0, 0.0, 0.0)
    first, size = spots[0], max(len(text), 1)
    return first, (0.0, first / size, float(first <= 3),
                   float(spots[-1] + len(needle) >= len(text.rstrip(" .!?\n")) - 1), float(min(len(spots) - 1, 3)))


def features(output: str, kind: str, reading: Extraction, question: str | None = None,
             choices: Sequence[str] | None = None) -> list[float]:
    """The verifier's inputs for one reading, in the order of :func:`feature_names`.

    >>> from gengap.extract import extract
    >>> output = "I don't know, but my best guess is 40, not 30."
    >>> row = dict(zip(feature_names(), features(output, "number", extract(output, "number", verify=False))))
    >>> row["phrase_hedge"], row["value_missing"], row["others_after"] > 0, len(row) == len(feature_names())
    (1.0, 0.0, True, True)
    """
    value = reading.value or ""
    rule = reading.rule
    structured = rule.startswith("structured")
    row = [0.0] * _ONE_HOT
    row[_KIND_AT[kind]] = 1.0
    row[_RULE_AT.get(rule, _ONE_HOT - 1)] = float(rule in _RULE_AT or not structured)
    stripped = output.strip()
    lowered = stripped.lower()
    row += _phrase_counts(lowered[:_LONGEST])
    tokens = _TOKEN.findall(lowered)
    n_words = len(tokens) - sum(map(lowered.count, _STOP_LIST))  # every sentence end is a token of its own
    q_words = _question_words(question or "")
    v_words = [w.lower() for w in _WORD.findall(value)]
    at, place = _value_place(lowered, value, kind)
    count, before, after = _candidates(stripped, kind, value, at)
    named = sum(1 for c in choices or () if len(c) > 2 and c.lower() in lowered)
    row += [
        float(structured),
        math.log1p(len(output)),
        math.log1p(n_words),
        math.log1p(stripped.count("\n")),
        float(bool(_MARKUP.search(output))),
        *place,
        math.log1p(len(v_words)),
        sum(map(q_words.__contains__, v_words)) / max(len(v_words), 1),
        count,
        float(min(len(_NEGATION.findall(lowered)), 3)),
        float(n_words <= 3),
        before,
        after,
        *_overlaps(tokens, sum([lowered.count(c, 0, at) for c in _STOP_LIST]) if at > 0 else 0, q_words),
        math.log1p(named),
    ]
    return row


@dataclass(frozen=True)
class Verifier:
    """A trained verifier: one weight per feature, an intercept and the abstention threshold on the
    probability that a reading is wrong."""

    weights: tuple[float, ...]
    intercept: float
    threshold: float
    source: str = "verifier.json"

    def doubt(self, row: list[float]) -> float:
        """The probability that the reading described by ``row`` is wrong."""
        z = sum(map(mul, self.weights, row)) + self.intercept
        return 1.0 / (1.0 + math.exp(-z))


def _parse(data: Any, path: Path) -> Verifier:
    if not isinstance(data, dict) or data.get("kind") != "gengap extraction verifier":
        raise ConfigError(f"{path}: not a gengap extraction verifier file (no 'kind': 'gengap extraction verifier'); "
                          "give a file written by `python benchmarks/train_extract_verifier.py --out PATH`.")
    if data.get("schema") != SCHEMA or list(data.get("features", [])) != list(feature_names()):
        raise ConfigError(
            f"{path}: a verifier trained for feature schema {data.get('schema')!r}, but this gengap reads schema "
            f"{SCHEMA} ({len(feature_names())} features); retrain it with "
            "`python benchmarks/train_extract_verifier.py --out PATH`. The rules' readings stand unverified.")
    weights = np.asarray(data["weights"], dtype=float)
    threshold = float(data["threshold"])
    if weights.shape != (len(feature_names()),) or not np.all(np.isfinite(weights)) or not 0 < threshold <= 1:
        raise ConfigError(f"{path}: 'weights' must hold {len(feature_names())} finite numbers and 'threshold' lie "
                          "in (0, 1]; retrain it with `python benchmarks/train_extract_verifier.py --out PATH`.")
    return Verifier(tuple(float(w) for w in weights), float(data["intercept"]), threshold, str(path))


def load_verifier(path: Path | str = MODEL_FILE) -> Verifier:
    """Read a verifier file; a file that is not one, or one for another feature schema, raises a
    :class:`~gengap.ConfigError` naming the file and the fix."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise ConfigError(f"{path}: cannot read the verifier file ({e}); give a file written by "
                          "`python benchmarks/train_extract_verifier.py --out PATH`.") from None
    return _parse(data, path)


@lru_cache(maxsize=8)
def _usable(path: str) -> Verifier | None:
    """The verifier at ``path``, or None (with one warning) when it cannot be used: the rules then read alone."""
    try:
        return load_verifier(path)
    except ConfigError as e:
        warnings.warn(f"{e}", stacklevel=4)
        return None


def check_verify(verify: Verification) -> Verification:
    """``verify`` as given, if it is one: True (the shipped model), False (off) or the path of a model file."""
    if isinstance(verify, bool | str | Path):
        return verify
    raise ConfigError(f"verify={verify!r}: use True (the verifier shipped with gengap), False (the rules' readings "
                      "unverified) or the path of a verifier file.")


def verify_reading(reading: Extraction, output: str, question: str | None = None,
                   choices: Sequence[str] | None = None, verify: Verification = True) -> Extraction:
    """``reading`` if the verifier keeps it, else an abstention (rule ``"verifier"``, the reading kept on
    ``withheld``); an unread output, ``verify=False`` or an unusable model file leave the reading as it is.

    >>> from gengap.extract import extract
    >>> verify_reading(extract("Paris.", "text", verify=False), "Paris.").value
    'Paris'
    >>> guess = "I don't know, but my best guess is 40."
    >>> extract(guess, "number", verify=False).value, extract(guess, "number").rule, extract(guess, "number").withheld
    ('40', 'verifier', '40')
    """
    if verify is False or reading.value is None or reading.kind not in KINDS:
        return reading
    verifier = _usable(str(MODEL_FILE if verify is True else verify))
    if verifier is None or verifier.doubt(features(output, reading.kind, reading, question, choices)) <= verifier.threshold:
        return reading
    return Extraction(None, reading.kind, "verifier", withheld=reading.value, withheld_rule=reading.rule)
