"""Read the answer out of a model's free-text output, or say that it cannot be read.

A cascade of small rules per answer kind, most specific first; the first rule that reads an answer
wins, and its name is kept so a report can show how each answer was read:

==========  ================================================================================
kind        cascade
==========  ================================================================================
number      JSON ``answer`` field, LaTeX ``\\boxed{}``, the last marked answer ("####", "the
            answer is", "Answer:", "final answer"), then the last number in the output.
            Reads currency, thousands separators, fractions (``3/4``, ``\\frac{3}{4}``, mixed
            ``1 1/2``), percentages, scientific notation (``6.02e23``, ``3 x 10^5``) and
            number words (``twenty-five``).
choice      JSON, ``\\boxed{}``, a marked letter, a bare letter in any common form (``B``,
            ``(B)``, ``B)``, ``B.``, ``**B**``, ``option B``), the text of one option, the last
            parenthesized letter.
yes_no      JSON, a marked answer, the first word, the last standalone yes/no; true/false too.
text        JSON, ``\\boxed{}``, a marked answer, a bold span, or a short single-line output.
==========  ================================================================================

An output no rule can read gives ``None`` (:data:`UNEXTRACTED`), its own outcome that reports
count separately; it is never turned into a wrong answer. Hedged outputs ("either 4 or 5",
"I'm not sure") are unextracted too.

Example
-------
>>> extract("So she pays 3 x $4.50 = $13.50.\\n#### 13.50", "number").value
'13.5'
>>> extract("The correct option is (c) since ...", "choice", choices=["1", "2", "3"]).value
'C'
>>> extract("I cannot tell from the passage.", "yes_no").value is None
True
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from gengap._errors import ConfigError, DataError, did_you_mean
from gengap._registry import Registry

__all__ = [
    "KINDS",
    "UNEXTRACTED",
    "Extraction",
    "Extractor",
    "extract",
    "extract_many",
    "extract_number",
    "extract_choice",
    "extract_yes_no",
    "extract_text",
    "register_extractor",
    "parse_number",
    "format_number",
    "normalize_text",
    "choice_letters",
]

#: The answer kinds every extractor understands.
KINDS = ("number", "choice", "yes_no", "text")
#: The value of an output that could not be read.
UNEXTRACTED = None


@dataclass(frozen=True)
class Extraction:
    """What was read from one output.

    Attributes
    ----------
    value : the answer in canonical form (a number as its shortest decimal string, a choice as its
        upper-case letter, ``"yes"``/``"no"``, or the answer span), or None when unextracted.
    kind : the answer kind.
    rule : which rule of the cascade read it (``"unextracted"`` when none did).
    """

    value: str | None
    kind: str
    rule: str

    @property
    def ok(self) -> bool:
        """Whether an answer was read."""
        return self.value is not None


# ---------------------------------------------------------------------------------------- shared
_MARKERS = (
    r"####|final\s+answer(?:\s+is)?|(?:correct|right|best)\s+(?:answer|option|choice)(?:\s+(?:is|would\s+be|will\s+be))?"
    r"|(?<![a-z])(?<!cannot )(?<!can't )(?<!not )(?<!to )answer(?:\s+(?:is|would\s+be|will\s+be|should\s+be|must\s+be))?|result(?:\s+is)?|(?:i\s+(?:would\s+)?(?:choose|pick|select|go\s+with))"
    r"|\b(?:therefore|thus|so|hence)\b\s*,?\s*(?:the\s+)?(?:answer|option|choice)?\s*(?:is)?"
)
_MARK_RE = re.compile(rf"(?:{_MARKERS})\s*(?:[:=\-]|\bis\b)?\s*", re.IGNORECASE)
_STRONG_MARK_RE = re.compile(
    r"(?:####|final\s+answer(?:\s+is)?|(?<![a-z])(?<!cannot )(?<!can't )(?<!not )(?<!to )answer(?:\s+(?:is|would\s+be|should\s+be|must\s+be))?"
    r"|(?:correct|right|best)\s+(?:answer|option|choice)(?:\s+(?:is|would\s+be))?)\s*(?:[:=\-]|\bis\b)?\s*",
    re.IGNORECASE,
)
_HEDGE_RE = re.compile(
    r"\b(?:not\s+(?:sure|certain)|cannot\s+(?:be\s+)?(?:determined?|tell|answer|say|know)|can'?t\s+(?:determine|tell|answer|say|know)"
    r"|unable\s+to|insufficient\s+information|not\s+enough\s+information|impossible\s+to\s+(?:say|tell|know|determine)"
    r"|no\s+way\s+to\s+(?:know|tell)|i\s+don'?t\s+know|unclear|ambiguous)\b",
    re.IGNORECASE,
)
_BOXED_RE = re.compile(r"\\(?:boxed|fbox)\s*\{")
_JSON_RE = re.compile(r"\{[^{}]*\}")
_JSON_KEYS = ("answer", "final_answer", "finalAnswer", "choice", "option", "label", "prediction", "result", "value")


def _boxed(text: str) -> str | None:
    """The content of the last ``\\boxed{...}``, braces balanced."""
    found = None
    for m in _BOXED_RE.finditer(text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        if depth == 0:
            found = text[m.end():i - 1]
    return found


def _json_answer(text: str) -> Any:
    """The answer field of the last JSON object in the output, or None."""
    if "{" not in text:
        return None
    for raw in reversed(_JSON_RE.findall(text)):
        try:
            obj = json.loads(raw)
        except ValueError:
            continue
        if isinstance(obj, dict):
            lowered = {str(k).lower(): v for k, v in obj.items()}
            for key in _JSON_KEYS:
                if key.lower() in lowered and lowered[key.lower()] not in (None, ""):
                    return lowered[key.lower()]
    return None


def _after_last_marker(text: str, pattern: re.Pattern[str] = _STRONG_MARK_RE) -> str | None:
    """The text after the last answer marker (up to the end of that line), or None."""
    last = None
    for m in pattern.finditer(text):
        last = m
    if last is None:
        return None
    tail = text[last.end():]
    line = tail.split("\n", 1)[0].strip()
    if not line and "\n" in tail:  # "Answer:\n42"
        line = tail.strip().split("\n", 1)[0].strip()
    return line


_MD_RE = re.compile(r"[*_`]+")
_SENTENCE_END_RE = re.compile(r"(?<!\.)\.(?!\.)(?=\s|$)|[!?](?=\s|$)")


def _clean(text: str) -> str:
    return _MD_RE.sub("", text.replace("\u2212", "-").replace("\u2013", "-").replace("\u00a0", " ").replace("\u202f", " "))


# ---------------------------------------------------------------------------------------- numbers
_SMALL = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split())}
_TENS = {w: 10 * (i + 2) for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
_ORDINAL_FRACTIONS = {"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4,
                      "fifth": 5, "fifths": 5, "tenth": 10, "tenths": 10}
_FRACTION_WORDS_RE = re.compile(
    rf"\b(a|an|one|two|three|four|five|six|seven|eight|nine)[\s-]+({'|'.join(_ORDINAL_FRACTIONS)})\b", re.IGNORECASE)
_WORD = "|".join(sorted([*_SMALL, *_TENS, *_SCALES, "a", "and"], key=len, reverse=True))
_WORDS_RE = re.compile(rf"\b(?:minus\s+|negative\s+)?(?:{_WORD})(?:[\s-]+(?:{_WORD}))*\b", re.IGNORECASE)

_NUM = r"(?:\d{1,3}(?:,\d{3})+|\d{1,3}(?:[ \u2009]\d{3})+(?!\d)|\d+)(?:\.\d+)?|\.\d+"
_NUMBER_RE = re.compile(
    r"(?:(?P<sign>[-+])\s?)?(?P<cur>[$€£¥]|USD\s?|EUR\s?|Rs\.?\s?)?(?P<sign2>-)?"
    rf"(?:(?P<whole>\d+)\s+(?P<mn>\d+)/(?P<md>\d+)|(?P<fn>{_NUM})\s*/\s*(?P<fd>{_NUM})"
    rf"|(?P<num>{_NUM})(?:\s*(?:[eE](?P<exp>[-+]?\d+)|\s?(?:x|×|\*|\\times|\\cdot)\s?10\s?\^\s?\{{?(?P<exp2>[-+]?\d+)\}}?))?)"
    r"(?P<pct>\s?%)?"
)
_LATEX_FRAC_RE = re.compile(r"(-)?\\[dt]?frac\s*\{\s*([^{}]+?)\s*\}\s*\{\s*([^{}]+?)\s*\}")


def format_number(value: Fraction | float) -> str:
    """The canonical string of a number: an integer without ``.0``, else the shortest decimal.

    >>> format_number(Fraction(3, 4)), format_number(1234.0), format_number(Fraction(1, 3))
    ('0.75', '1234', '0.333333333333')
    """
    if isinstance(value, Fraction) and value.denominator == 1 and abs(value) < 10**15:
        return str(value.numerator)
    f = float(value)
    if math.isfinite(f) and f == int(f) and abs(f) < 1e15:
        return str(int(f))
    text = f"{f:.12g}"
    if "e" in text:
        return text
    return text.rstrip("0").rstrip(".") if "." in text else text


def _to_fraction(raw: str) -> Fraction:
    return Fraction(raw.replace(",", "").replace(" ", "").replace("\u2009", ""))


def _words_value(phrase: str) -> int | None:
    tokens = [t for t in re.split(r"[\s-]+", phrase.lower()) if t and t != "and"]
    sign = 1
    if tokens and tokens[0] in ("minus", "negative"):
        sign, tokens = -1, tokens[1:]
    if not tokens or all(t == "a" for t in tokens):
        return None
    total, current, seen = 0, 0, False
    for t in tokens:
        if t == "a":
            current = max(current, 1)
        elif t in _SMALL:
            current += _SMALL[t]
            seen = True
        elif t in _TENS:
            current += _TENS[t]
            seen = True
        elif t == "hundred":
            current = max(current, 1) * 100
            seen = True
        elif t in _SCALES:
            total += max(current, 1) * _SCALES[t]
            current, seen = 0, True
    return sign * (total + current) if seen else None


def _numbers_in(text: str) -> list[tuple[int, Fraction]]:
    """Every number in ``text`` with its position (digits, LaTeX fractions and number words)."""
    found: list[tuple[int, Fraction]] = []
    covered: list[tuple[int, int]] = []
    for m in _LATEX_FRAC_RE.finditer(text):
        try:
            value = _to_fraction(m.group(2)) / _to_fraction(m.group(3))
        except (ValueError, ZeroDivisionError):
            continue
        found.append((m.start(), -value if m.group(1) else value))
        covered.append(m.span())
    for m in _FRACTION_WORDS_RE.finditer(text):
        numerator = 1 if m.group(1).lower() in ("a", "an") else _SMALL[m.group(1).lower()]
        found.append((m.start(), Fraction(numerator, _ORDINAL_FRACTIONS[m.group(2).lower()])))
        covered.append(m.span())
    for m in _NUMBER_RE.finditer(text):
        if any(a <= m.start() < b for a, b in covered):
            continue
        # a digit glued to letters is a name or a unit code (B12, 3rd, x2), not an answer
        before = text[m.start() - 1] if m.start() else " "
        if (before.isalpha() and not m.group("cur")) or before == "^":
            continue
        g = m.groupdict()
        try:
            if g["whole"] is not None:
                value = int(g["whole"]) + Fraction(int(g["mn"]), int(g["md"]))
            elif g["fn"] is not None:
                value = _to_fraction(g["fn"]) / _to_fraction(g["fd"])
            else:
                value = _to_fraction(g["num"])
                exp = g["exp"] or g["exp2"]
                if exp is not None:
                    value *= Fraction(10) ** int(exp)
        except (ValueError, ZeroDivisionError):
            continue
        if g["sign"] == "-" or g["sign2"] == "-":
            # a hyphen between two words or numbers is a range or a dash, not a minus sign
            start = m.start()
            prev = text[:start].rstrip()
            if not (g["sign"] == "-" and prev and (prev[-1].isdigit() or prev[-1] in ")")):
                value = -value
        found.append((m.start(), value))
    for m in _WORDS_RE.finditer(text):
        if any(a <= m.start() < b for a, b in covered):
            continue
        value = _words_value(m.group(0))
        if value is not None:
            found.append((m.start(), Fraction(value)))
    found.sort(key=lambda pair: pair[0])
    return found


def parse_number(text: str) -> Fraction | None:
    """The value of the first number in ``text``, exactly (a Fraction), or None.

    >>> parse_number("$1,234.50"), parse_number("\\\\frac{3}{4}"), parse_number("twenty-five")
    (Fraction(2469, 2), Fraction(3, 4), Fraction(25, 1))
    """
    nums = _numbers_in(_clean(text))
    return nums[0][1] if nums else None


def extract_number(output: str) -> Extraction:
    """Read a numeric answer.

    >>> extract_number("Total: 3 + 4 = 7. The answer is $1,204.").value
    '1204'
    >>> extract_number("\\\\boxed{\\\\frac{3}{4}}").value, extract_number("about 6.02e23").value
    ('0.75', '6.02e+23')
    """
    text = _clean(output)
    answer = _json_answer(text)
    if answer is not None:
        value = parse_number(str(answer))
        if value is not None:
            return Extraction(format_number(value), "number", "json")
    boxed = _boxed(text)
    if boxed is not None:
        value = parse_number(boxed.replace("\\$", "$").replace("\\%", "%").replace("{,}", ","))
        if value is not None:
            return Extraction(format_number(value), "number", "boxed")
    tail = _after_last_marker(text)
    if tail is not None:
        nums = _numbers_in(tail.replace("\\$", "$"))
        if nums:
            return Extraction(format_number(nums[0][1]), "number", "marked")
    if _HEDGE_RE.search(text):
        return Extraction(None, "number", "unextracted")
    weak = None
    for weak in _MARK_RE.finditer(text):
        pass
    if weak is not None:
        sentence = _SENTENCE_END_RE.split(text[weak.end():].split("\n", 1)[0], maxsplit=1)[0]
        nums = _numbers_in(sentence.replace("\\$", "$"))
        if nums:
            return Extraction(format_number(nums[-1][1]), "number", "concluding")
    nums = _numbers_in(text.replace("\\$", "$"))
    if nums:
        last_pos = nums[-1][0]
        # "either 12 or 15" at the end is a hedge, not an answer
        if re.search(r"\b(?:either|or)\s*$", text[max(0, last_pos - 12):last_pos]) and len(nums) > 1:
            return Extraction(None, "number", "unextracted")
        return Extraction(format_number(nums[-1][1]), "number", "last_number")
    return Extraction(None, "number", "unextracted")


# ---------------------------------------------------------------------------------------- choices
def choice_letters(n: int) -> str:
    """The option letters of an ``n``-option question: ``choice_letters(4) == "ABCD"``.

    >>> choice_letters(4)
    'ABCD'
    """
    if not 2 <= n <= 26:
        raise DataError(f"A multiple-choice question needs 2 to 26 options; got {n}.")
    return "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:n]


def normalize_text(text: str) -> str:
    """Lower case, no punctuation, articles or extra spaces: how short answers are compared.

    >>> normalize_text("  The Eiffel-Tower! ")
    'eiffel tower'
    """
    text = _clean(str(text)).lower()
    text = re.sub(r"[^\w\s]", " ", text)
    text = re.sub(r"\b(?:a|an|the)\b", " ", text)
    return " ".join(text.split())


def _letter_patterns(letters: str) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    cls = f"[{letters}{letters.lower()}]"
    up = f"[{letters}]"
    marked = re.compile(
        rf"^(?:\W{{0,3}})(?:the\s+)?(?:option|choice|letter)?\s*[\(\[]?({cls})(?:[\)\]]|\b)(?!['’]\w)(?!\s+(?:\w+\s+)?(?:is|are|was|were|has)\b)",
        re.IGNORECASE,
    )
    bare = re.compile(rf"^\W{{0,3}}(?:option\s+|choice\s+)?[\(\[]?({up})(?:[\)\]]|\.(?!\w)|:|\s*$|\s+[-–:]|,|\s+\()", re.IGNORECASE)
    paren = re.compile(rf"(?:\(|\[)({up})(?:\)|\])|(?:option|choice)\s+({up})\b")
    return marked, bare, paren


_CHOICE_MARK_RE = re.compile(
    r"(?:final\s+answer(?:\s+is)?|(?<![a-z])(?<!cannot )(?<!can't )(?<!not )(?<!to )answer(?:\s+(?:is|would\s+be|should\s+be|must\s+be))?"
    r"|(?:correct|right|best)\s+(?:answer|option|choice|one)(?:\s+(?:is|would\s+be|should\s+be))?"
    r"|\bi(?:\s+would|'d)?\s+(?:choose|pick|select|go\s+with)|my\s+(?:choice|pick)\s+is"
    r"|(?:therefore|thus|hence|so)\s*,?\s*(?:it(?:'s|\s+is)|(?:the\s+)?(?:answer|option|choice)\s+is)|it\s+must\s+be)"
    r"\s*(?:[:=\-]|\bis\b)?\s*(?:(?:option|choice|letter)\s*)?",
    re.IGNORECASE,
)
_NOT_RE = re.compile(r"\bnot\s+$", re.IGNORECASE)


def extract_choice(output: str, choices: Sequence[str] | None = None) -> Extraction:
    """Read a multiple-choice answer as its letter.

    ``choices`` (the option texts, in order) fixes the valid letters and lets the text of an option
    count as an answer; without it letters A to E are valid.

    >>> extract_choice("**Answer: (b)**").value
    'B'
    >>> extract_choice("I believe the answer is Paris.", ["London", "Paris", "Rome"]).value
    'B'
    """
    letters = choice_letters(len(choices)) if choices else "ABCDE"
    marked, bare, paren = _letter_patterns(letters)
    text = _clean(output).strip()

    def from_value(value: Any) -> str | None:
        s = str(value).strip()
        m = bare.match(s) or marked.match(s)
        if m:
            return m.group(1).upper()
        return _match_option(s, choices, exact=True)

    answer = _json_answer(text)
    if answer is not None:
        found = from_value(answer)
        if found:
            return Extraction(found, "choice", "json")
    boxed = _boxed(text)
    if boxed is not None:
        found = from_value(re.sub(r"\\text\{([^{}]*)\}", r"\1", boxed))
        if found:
            return Extraction(found, "choice", "boxed")
    # the last marked answer, skipping "not A"
    marks = list(_CHOICE_MARK_RE.finditer(text))
    for m in reversed(marks):
        tail = text[m.end():m.end() + 200]
        if _NOT_RE.search(text[max(0, m.end() - 5):m.end()]) or re.match(r"not\b", tail, re.IGNORECASE):
            continue
        hit = marked.match(tail)
        if hit and (hit.group(1).isupper() or re.match(r"^\W{0,3}(?:option|choice|letter)?\s*[\(\[]", tail, re.IGNORECASE)
                    or re.match(rf"^{hit.group(1)}(?:\W|$)", tail)):
            letter = hit.group(1).upper()
            if letter.isupper() and (hit.group(1) != "a" or re.match(r"^\W{0,3}[\(\[]?a(?:[\)\]]|\.|\s*$)", tail)):
                return Extraction(letter, "choice", "marked")
        option = _match_option(tail.split("\n", 1)[0], choices, exact=False)
        if option:
            return Extraction(option, "choice", "marked_text")
    if _HEDGE_RE.search(text) and not bare.match(text):
        return Extraction(None, "choice", "unextracted")
    hit = bare.match(text)
    if hit:
        return Extraction(hit.group(1).upper(), "choice", "bare")
    hit = re.search(rf"(?:^|\s|\()\(?([{letters}])\)?\s+is\s+(?:the\s+)?(?:correct|right|answer|true)\b", text)
    if hit:
        return Extraction(hit.group(1), "choice", "letter_is_correct")
    hit = re.search(rf"(?:^|[\s:])[\(\[]?([{letters}])[\)\]]?[.!]?\s*$", text)
    if hit and not re.search(r"\b(?:is|was|a|an|the|of|and|or|to|in)\s*\(?[A-Z]\)?[.!]?\s*$", text[max(0, hit.start() - 6):], re.IGNORECASE):
        return Extraction(hit.group(1), "choice", "trailing_letter")
    last_line = text.rsplit("\n", 1)[-1].strip()
    hit = bare.match(last_line)
    if hit:
        return Extraction(hit.group(1).upper(), "choice", "last_line")
    option = _match_option(text, choices, exact=False, unique=True)
    if option:
        return Extraction(option, "choice", "option_text")
    found = [a or b for a, b in paren.findall(text)]
    if found:
        return Extraction(found[-1].upper(), "choice", "last_letter")
    return Extraction(None, "choice", "unextracted")


def _match_option(text: str, choices: Sequence[str] | None, *, exact: bool, unique: bool = False) -> str | None:
    """The letter of the option whose text ``text`` is (exact) or contains (earliest, or the only one)."""
    if not choices:
        return None
    norm = normalize_text(text)
    if not norm:
        return None
    options = [normalize_text(c) for c in choices]
    letters = choice_letters(len(choices))
    for letter, option in zip(letters, options):
        if option and norm == option:
            return letter
    if exact:
        return None
    padded = f" {norm} "
    hits = []
    for letter, option in zip(letters, options):
        if not option:
            continue
        pos = padded.find(f" {option} ")
        # an option contained in a longer matching option ("5" in "5 apples") does not count twice
        if pos >= 0:
            hits.append((pos, -len(option), letter, option))
    if not hits:
        return None
    hits = [h for h in hits if not any(o[3] != h[3] and h[3] in o[3] and o[0] <= h[0] < o[0] + len(o[3]) + 1 for o in hits)]
    if unique and len({h[2] for h in hits}) != 1:
        return None
    return min(hits)[2]


# ---------------------------------------------------------------------------------------- yes / no
_YES = {"yes", "true", "correct", "right", "yep", "yeah", "affirmative", "indeed", "certainly"}
_NO = {"no", "false", "incorrect", "wrong", "nope", "negative"}
_YN_WORD = r"(yes|no|true|false|correct|incorrect|nope|yep|yeah)"
_YN_FIRST_RE = re.compile(rf"^\W{{0,4}}(?:answer\s*:\s*)?{_YN_WORD}\b(?!\s+(?:one|longer|matter|more|idea|doubt)\b)", re.IGNORECASE)
_YN_LAST_RE = re.compile(rf"\b{_YN_WORD}\b\W{{0,4}}(?=$|\n|[.!,;)]\s)", re.IGNORECASE)


def _yes_no_word(word: str) -> str | None:
    w = word.lower()
    return "yes" if w in _YES else "no" if w in _NO else None


def extract_yes_no(output: str) -> Extraction:
    """Read a yes/no (or true/false) answer as ``"yes"`` or ``"no"``.

    >>> extract_yes_no("No, the passage says the bridge opened in 1932.").value
    'no'
    >>> extract_yes_no("Let me check each clause... so the statement is True.").value
    'yes'
    """
    text = _clean(output).strip()
    answer = _json_answer(text)
    if answer is not None:
        if isinstance(answer, bool):
            return Extraction("yes" if answer else "no", "yes_no", "json")
        m = re.match(rf"\W*{_YN_WORD}\b", str(answer), re.IGNORECASE)
        if m:
            return Extraction(_yes_no_word(m.group(1)), "yes_no", "json")
    boxed = _boxed(text)
    if boxed is not None:
        m = re.search(rf"{_YN_WORD}", re.sub(r"\\text\{([^{}]*)\}", r"\1", boxed), re.IGNORECASE)
        if m:
            return Extraction(_yes_no_word(m.group(1)), "yes_no", "boxed")
    tail = _after_last_marker(text)
    if tail is not None:
        m = re.match(rf"\W*(?:it\s+is\s+|it's\s+)?{_YN_WORD}\b", tail, re.IGNORECASE)
        if m:
            return Extraction(_yes_no_word(m.group(1)), "yes_no", "marked")
    last_claim = None
    for last_claim in re.finditer(rf"\b(?:statement|claim|it|this|that|answer)\s+is\s+(?:therefore\s+|thus\s+|also\s+)?{_YN_WORD}\b", text, re.IGNORECASE):
        pass
    m = _YN_FIRST_RE.match(text)
    if m:
        return Extraction(_yes_no_word(m.group(1)), "yes_no", "first_word")
    if last_claim is not None:
        return Extraction(_yes_no_word(last_claim.group(1)), "yes_no", "claim")
    if _HEDGE_RE.search(text):
        return Extraction(None, "yes_no", "unextracted")
    found = _YN_LAST_RE.findall(text)
    if found:
        return Extraction(_yes_no_word(found[-1]), "yes_no", "last_word")
    return Extraction(None, "yes_no", "unextracted")


# ---------------------------------------------------------------------------------------- short text
_TEXT_MARK_RE = re.compile(
    r"(?:final\s+answer(?:\s+is)?|(?<![a-z])(?<!cannot )(?<!can't )(?<!not )(?<!to )answer(?:\s+(?:is|would\s+be|should\s+be))?|####)\s*(?:[:=\-]|\bis\b)?\s*",
    re.IGNORECASE,
)
_BOLD_RE = re.compile(r"\*\*([^*\n]{1,80})\*\*")
_LEAD_RE = re.compile(
    r"^(?:(?:it(?:'s|\s+is|\s+was)|that(?:'s|\s+is|\s+would\s+be)|this\s+is|i\s+(?:think|believe)(?:\s+(?:it(?:'s|\s+is)|that(?:'s|\s+is)))?"
    r"|probably|definitely|sure[,!]?|the\s+answer\s+is)\s+)+",
    re.IGNORECASE,
)


def _tidy_span(span: str) -> str | None:
    span = span.strip()
    span = re.split(r"(?<=[^\sA-Z])\.(?:\s|$)|[!?](?:\s|$)|\n|;|\s[-–—]\s|\s\(|,\s|\s(?:because|since)\s", span)[0]
    span = _LEAD_RE.sub("", span.strip())
    span = span.strip(" \t\"'“”‘’.,:!?*`")
    return span or None


def extract_text(output: str) -> Extraction:
    """Read a short free-text answer (a name, a word, a short phrase).

    >>> extract_text("Let me think. The city is on the Seine.\\nFinal answer: Paris").value
    'Paris'
    >>> extract_text("**Marie Curie** was the first woman to win a Nobel Prize.").value
    'Marie Curie'
    """
    text = output.replace("\u00a0", " ").strip()
    answer = _json_answer(text)
    if answer is not None and not isinstance(answer, (dict, list)):
        return Extraction(str(answer).strip(), "text", "json")
    boxed = _boxed(text)
    if boxed is not None and boxed.strip():
        return Extraction(re.sub(r"\\text\{([^{}]*)\}", r"\1", boxed).strip(), "text", "boxed")
    marks = list(_TEXT_MARK_RE.finditer(text))
    if marks:
        span = _tidy_span(_MD_RE.sub("", text[marks[-1].end():]))
        if span:
            return Extraction(span, "text", "marked")
    bold = _BOLD_RE.findall(text)
    if bold:
        span = _tidy_span(bold[-1])
        if span:
            return Extraction(span, "text", "bold")
    if _HEDGE_RE.search(text):
        return Extraction(None, "text", "unextracted")
    lines = [ln for ln in text.split("\n") if ln.strip()]
    if len(lines) == 1 and len(lines[0].split()) <= 12:
        first = _tidy_span(_MD_RE.sub("", lines[0]).rsplit(": ", 1)[-1])
        if first and len(first.split()) <= 6:
            return Extraction(first, "text", "short")
    return Extraction(None, "text", "unextracted")


# ---------------------------------------------------------------------------------------- dispatch
ExtractFn = Callable[..., "Extraction | str | None"]
_REGISTRY: Registry[ExtractFn] = Registry("answer kind")


def register_extractor(kind: str, *, replace: bool = False) -> Callable[[ExtractFn], ExtractFn]:
    """Register a function ``(output, choices=None) -> str | None | Extraction`` for a new kind.

    >>> @register_extractor("date_iso")
    ... def read_date(output, choices=None):
    ...     m = re.search(r"\\d{4}-\\d{2}-\\d{2}", output)
    ...     return m.group(0) if m else None
    >>> extract("It happened on 1969-07-20.", "date_iso").value
    '1969-07-20'
    """
    if not kind or not isinstance(kind, str):
        raise ConfigError(f"An extractor kind must be a non-empty string; got {kind!r}.")

    def decorate(fn: ExtractFn) -> ExtractFn:
        return _REGISTRY.register(kind, fn, replace=replace)

    return decorate


_BUILTIN: dict[str, ExtractFn] = {
    "number": lambda output, choices=None: extract_number(output),
    "choice": extract_choice,
    "yes_no": lambda output, choices=None: extract_yes_no(output),
    "text": lambda output, choices=None: extract_text(output),
}


def _lookup(kind: str) -> ExtractFn:
    fn = _REGISTRY.get(kind) or _BUILTIN.get(kind)
    if fn is None:
        known = sorted({*_BUILTIN, *_REGISTRY})
        raise ConfigError(f"Unknown answer kind '{kind}'.{did_you_mean(kind, known)} Known kinds: {known}; "
                          "add one with @gengap.extract.register_extractor(kind).")
    return fn


def _as_extraction(result: Any, kind: str, rule: str) -> Extraction:
    if isinstance(result, Extraction):
        return result
    if result is None:
        return Extraction(None, kind, "unextracted")
    return Extraction(str(result), kind, rule)


def extract(output: Any, kind: str, *, choices: Sequence[str] | None = None) -> Extraction:
    """Read one output as an answer of ``kind`` (``number``, ``choice``, ``yes_no``, ``text`` or a registered kind).

    >>> extract("Yes.", "yes_no")
    Extraction(value='yes', kind='yes_no', rule='first_word')
    """
    fn = _lookup(kind)
    if output is None or (isinstance(output, float) and math.isnan(output)):
        return Extraction(None, kind, "unextracted")
    return _as_extraction(fn(str(output), choices=choices) if kind == "choice" or kind in _REGISTRY
                          else fn(str(output)), kind, "custom")


_JUDGE_PROMPT = (
    "Read the answer a model gave and reply with only the final answer it commits to, in the form asked, "
    "or the single word UNREADABLE if it commits to none.\n"
    "Answer kind: {kind}{options}\nModel output:\n<<<\n{output}\n>>>\nFinal answer:"
)


class Extractor:
    """The extractor cascade as a reusable object, with an optional custom rule and LLM judge.

    Parameters
    ----------
    kind : the answer kind.
    custom : a function ``(output, choices) -> str | None`` tried before the built-in cascade;
        its None falls through to the cascade.
    judge : a gengap Model (or anything :func:`gengap.models.as_model` accepts, such as an HTTP
        endpoint adapter) asked to read only the outputs the cascade could not; off by default.
        Its reply is read again with the cascade, so a judge cannot invent a form the kind forbids.

    >>> Extractor("number")(["x = 4", "no idea", "#### 1,000"])
    ['4', None, '1000']
    """

    def __init__(self, kind: str, *, custom: Callable[[str, Sequence[str] | None], str | None] | None = None,
                 judge: Any = None) -> None:
        _lookup(kind)
        if custom is not None and not callable(custom):
            raise ConfigError(f"Extractor(custom=...) must be a function (output, choices) -> str | None; got {custom!r}.")
        self.kind = kind
        self.custom = custom
        if judge is not None:
            from gengap.models import as_model

            judge = as_model(judge)
        self.judge = judge

    def __repr__(self) -> str:
        return f"Extractor(kind={self.kind!r}, custom={self.custom is not None}, judge={getattr(self.judge, 'name', None)!r})"

    def extract_all(self, outputs: Sequence[Any], choices: Sequence[Sequence[str] | None] | None = None) -> list[Extraction]:
        """One :class:`Extraction` per output (``choices``: one option list per output, or None)."""
        if choices is not None and len(choices) != len(outputs):
            raise DataError(f"Extractor got {len(outputs)} outputs but {len(choices)} choice lists; give one per output.")
        results = []
        for i, output in enumerate(outputs):
            opts = choices[i] if choices is not None else None
            found = None
            if self.custom is not None and output is not None:
                value = self.custom(str(output), opts)
                if value is not None:
                    found = Extraction(str(value), self.kind, "custom")
            results.append(found or extract(output, self.kind, choices=opts))
        if self.judge is not None:
            todo = [i for i, r in enumerate(results) if not r.ok and outputs[i] is not None]
            if todo:
                prompts = []
                for i in todo:
                    opts = choices[i] if choices is not None else None
                    shown = "" if not opts else "\nOptions: " + "; ".join(
                        f"{letter}) {o}" for letter, o in zip(choice_letters(len(opts)), opts))
                    prompts.append(_JUDGE_PROMPT.format(kind=self.kind, options=shown, output=outputs[i]))
                replies = list(self.judge.predict(prompts))
                for i, reply in zip(todo, replies):
                    if reply is None or "UNREADABLE" in str(reply).upper():
                        continue
                    again = extract(str(reply), self.kind, choices=choices[i] if choices is not None else None)
                    if again.ok:
                        results[i] = Extraction(again.value, self.kind, "judge")
        return results

    def __call__(self, outputs: Sequence[Any], choices: Sequence[Sequence[str] | None] | None = None) -> list[str | None]:
        """The extracted values (None where unextracted)."""
        return [r.value for r in self.extract_all(outputs, choices)]


def extract_many(outputs: Sequence[Any], kind: str, *, choices: Sequence[Sequence[str] | None] | None = None) -> list[str | None]:
    """Extract every output with the built-in cascade; None marks the unextracted ones.

    >>> extract_many(["A", "(c)", "hmm"], "choice")
    ['A', 'C', None]
    """
    return Extractor(kind)(outputs, choices)
