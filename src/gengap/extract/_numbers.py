"""Numeric answers: how numbers are written (digits, separators, fractions, LaTeX, scientific
notation, number words, percentages) and the cascade that finds which number is the answer.

Besides the cascade's order, a careful reader takes the quantity in the unit the question asks for over its
conversion, the value the reply gives the very thing asked by its name, number words of other languages in
a reply without digits, and reads "and" between number words as a link unless a scale word comes first."""

from __future__ import annotations

import math
import re
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

from gengap.extract import _commitment, _markers
from gengap.extract._base import (
    ABSTAIN,
    HEDGE_RE,
    WEAK_MARK_RE,
    Context,
    Rule,
    clean,
    content_stems,
    first_part,
    last_match,
    open_sum,
    sentences,
    stem,
    without_preamble,
    words,
)
from gengap.extract._markers import Markers, read_region


class Num(NamedTuple):
    """A number found in a text: where it starts and ends, its exact value, and whether it had a ``%``."""

    start: int
    end: int
    value: Fraction
    pct: bool
    #: the scale word after the digits ("2.1 million": 10**6), already multiplied into ``value``
    scale: int = 1


_SMALL = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split())}
_TENS = {w: 10 * (i + 2) for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9, "dozen": 12}
_ORDINAL_FRACTIONS = {"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4,
                      "fifth": 5, "fifths": 5, "sixth": 6, "sixths": 6, "seventh": 7, "sevenths": 7, "eighth": 8,
                      "eighths": 8, "ninth": 9, "ninths": 9, "tenth": 10, "tenths": 10}
_FRACTION_WORDS_RE = re.compile(
    rf"\b(a|an|one|two|three|four|five|six|seven|eight|nine)[\s-]+({'|'.join(_ORDINAL_FRACTIONS)})\b", re.IGNORECASE)
_FRACTION_HINT_RE = re.compile(r"hal(?:f|ves)|third|quarter|fifth|sixth|seventh|eighth|ninth|tenth", re.IGNORECASE)
_MIXED_WORDS_RE = re.compile(rf"\b(\d+|{'|'.join([*_SMALL, *_TENS])})\s+and\s+(a|an|one|two|three|four|five|six|seven|eight|nine)[\s-]+"
                             rf"({'|'.join(_ORDINAL_FRACTIONS)})\b", re.IGNORECASE)
_BC_RE = re.compile(r"\s?(?:BC|BCE|B\.C\.(?:E\.)?)(?![A-Za-z])")
_AND_A_HALF_RE = re.compile(rf"\b(\d+|an?|{'|'.join([*_SMALL, *_TENS])})\s+(?:[a-z]+\s+)?and\s+a\s+half\b", re.IGNORECASE)
_MONEY_PARTS_RE = re.compile(r"(?<![\d.,])(\d+)\s+(?:dollars?|euros?|pounds?|bucks|francs?)\s+and\s+(\d{1,2})\s+(?:cents?|pence|p|centimes?)\b", re.IGNORECASE)
_WORD_SCALE_AFTER_RE = re.compile(r"\s+(?:of\s+an?\s+)?(hundred|thousand|million|billion|trillion)\b", re.IGNORECASE)
_HALF_SCALES = {"dozen": 12, "hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
_HALF_SCALE_RE = re.compile(r"\bhalf\s+an?\s+(dozen|hundred|thousand|million|billion)\b", re.IGNORECASE)
_SUPERSCRIPT_DIGITS = str.maketrans("\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207b\u207a", "0123456789-+")
_SUPERSCRIPT_POWER_RE = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s?(?:\u00d7|x|\*|\u00b7|\\times)\s?10([\u207b\u207a]?[\u2070\u00b9\u00b2\u00b3\u2074-\u2079]+)")
_WORD = "|".join(sorted([*_SMALL, *_TENS, *_SCALES, "a", "and"], key=len, reverse=True))
# the letters a number phrase can open with, looked at first: a cheap test that spares the word list elsewhere
_WORD_OPENERS = "".join(sorted({w[0] for w in _WORD.split("|")} | {"m", "n"}))  # "minus", "negative"
_WORDS_RE = re.compile(rf"(?=[{_WORD_OPENERS}])\b(?:minus\s+|negative\s+)?(?:{_WORD})(?:[\s-]+(?:{_WORD}))*\b", re.IGNORECASE)

_NUM = r"(?:\d{1,3}(?:,\d{3})+|\d{1,3}(?:[ \u2009]\d{3})+(?!\d)|\d+)(?:\.\d+)?|\.\d+"
_NUMBER_RE = re.compile(
    r"(?=[-+$€£¥UER.\d])"  # what a number can open with (a sign, a currency, a digit), looked at first: a cheap test
    r"(?:(?P<sign>[-+])\s?)?(?P<cur>[$€£¥]|USD\s?|EUR\s?|Rs\.?\s?)?(?P<sign2>-)?"
    rf"(?:(?P<whole>\d+)\s+(?P<mn>\d+)/(?P<md>\d+)|(?P<fn>{_NUM})\s*/\s*(?P<fd>{_NUM})"
    rf"|(?P<num>{_NUM})(?:\s*(?:[eE](?P<exp>[-+]?\d+)|\s?(?:x|×|\*|\\times|\\cdot)\s?10\s?\^\s?\{{?(?P<exp2>[-+]?\d+)\}}?))?)"
    r"(?P<pct>\s?%|\s(?:percent|per\s?cent)\b)?"
)
_SCALE_AFTER_RE = re.compile(r"\s*(thousand|million|billion|trillion)\b(?!\s*(?:th|ths)\b)|(k|K|M|bn|mn)(?![\w/²³])", re.IGNORECASE)
_SCALE = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12,
          "k": 10**3, "m": 10**6, "mn": 10**6, "bn": 10**9}
_SCALE_NAME = {10**3: "thousand", 10**6: "million", 10**9: "billion", 10**12: "trillion"}
_VULGAR = {"½": Fraction(1, 2), "⅓": Fraction(1, 3), "⅔": Fraction(2, 3), "¼": Fraction(1, 4), "¾": Fraction(3, 4),
           "⅕": Fraction(1, 5), "⅖": Fraction(2, 5), "⅗": Fraction(3, 5), "⅘": Fraction(4, 5), "⅙": Fraction(1, 6),
           "⅚": Fraction(5, 6), "⅛": Fraction(1, 8), "⅜": Fraction(3, 8), "⅝": Fraction(5, 8), "⅞": Fraction(7, 8)}
_VULGAR_RE = re.compile(rf"(?:(\d+)\s?)?([{''.join(_VULGAR)}])")
_DECIMAL_COMMA_RE = re.compile(r",(\d{2})(?![\d,])")
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
    if raw.isdecimal():
        return Fraction(int(raw))  # most numbers are plain digits: no need for Fraction's string parser
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
            continue  # "a hundred", "a dozen": the scale word counts it; "a six" is six
        elif t in _SMALL:
            current += _SMALL[t]
            seen = True
        elif t in _TENS:
            current += _TENS[t]
            seen = True
        elif t in ("hundred", "dozen"):
            current = max(current, 1) * _SCALES[t]
            seen = True
        elif t in _SCALES:
            total += max(current, 1) * _SCALES[t]
            current, seen = 0, True
    return sign * (total + current) if seen else None


_PRONOUN_ONE_RE = re.compile(r"\b(?:this|that|which|each|every|any|another|right|correct|wrong|easy|tricky|fun|good|great|nice|simple|hard|tough"
                             r"|fair|interesting|classic|common|popular|obvious|likely|best|last|other|the\s+(?:right|correct|first|last|other|same|only))\s+$",
                             re.IGNORECASE)


def _inside(at: int, spans: list[tuple[int, int]]) -> bool:
    """Whether ``at`` falls inside one of ``spans`` (where a number was already read)."""
    return bool(spans) and any(a <= at < b for a, b in spans)


def numbers_in(text: str) -> list[Num]:
    """Every number in ``text`` with its place (digits, LaTeX fractions and number words), in order."""
    found: list[Num] = []
    covered: list[tuple[int, int]] = []
    _written_forms(text, found, covered)
    for m in _NUMBER_RE.finditer(text):
        if not _inside(m.start(), covered):
            num, covers = _digits(text, m)
            if num is not None:
                found.append(num)
                if covers:
                    covered.append((num.start, num.end))
    _number_words(text, found, covered)
    found.sort(key=lambda n: n.start)
    return found


def _written_forms(text: str, found: list[Num], covered: list[tuple[int, int]]) -> None:
    """The numbers written in forms other than plain digits and words (LaTeX and vulgar fractions, "and a half",
    dollars and cents, superscript powers, fractions in words, a scale word after them), added to ``found``."""
    for m in _LATEX_FRAC_RE.finditer(text):
        try:
            value = _to_fraction(m.group(2)) / _to_fraction(m.group(3))
        except (ValueError, ZeroDivisionError):
            continue
        found.append(Num(m.start(), m.end(), -value if m.group(1) else value, False))
        covered.append(m.span())
    if not text.isascii():
        for m in _VULGAR_RE.finditer(text):  # "¾", "1½"
            found.append(Num(m.start(), m.end(), int(m.group(1) or 0) + _VULGAR[m.group(2)], False))
            covered.append(m.span())
    if "half" in text:  # "two and a half", "an hour and a half", "3 and a half"
        for m in _AND_A_HALF_RE.finditer(text):
            word = m.group(1).lower()
            whole = int(word) if word.isdigit() else 1 if word in ("a", "an") else _SMALL.get(word, _TENS.get(word, 0))
            found.append(Num(m.start(), m.end(), whole + Fraction(1, 2), False))
            covered.append(m.span())
    if " and " in text and ("cent" in text or "pence" in text):  # "6 dollars and 25 cents": one amount
        for m in _MONEY_PARTS_RE.finditer(text):
            found.append(Num(m.start(), m.end(), int(m.group(1)) + Fraction(int(m.group(2)), 100), False))
            covered.append(m.span())
    if "alf" in text:  # "half a dozen", "Half a million": half the scale
        for m in _HALF_SCALE_RE.finditer(text):
            if not _inside(m.start(), covered):
                found.append(Num(m.start(), m.end(), Fraction(_HALF_SCALES[m.group(1).lower()], 2), False))
                covered.append(m.span())
    if not text.isascii():  # "6.02 × 10²³": a power of ten written in superscript digits
        for m in _SUPERSCRIPT_POWER_RE.finditer(text):
            exponent = int(m.group(2).translate(_SUPERSCRIPT_DIGITS))
            found.append(Num(m.start(), m.end(), _to_fraction(m.group(1)) * Fraction(10) ** exponent, False))
            covered.append(m.span())
    if " and " in text and _FRACTION_HINT_RE.search(text):  # "four and three quarters": a whole and a fraction in words
        for m in _MIXED_WORDS_RE.finditer(text):
            if _inside(m.start(), covered):
                continue
            word = m.group(1).lower()
            whole = int(word) if word.isdigit() else _SMALL.get(word, _TENS.get(word, 0))
            numerator = 1 if m.group(2).lower() in ("a", "an") else _SMALL[m.group(2).lower()]
            found.append(Num(m.start(), m.end(), whole + Fraction(numerator, _ORDINAL_FRACTIONS[m.group(3).lower()]), False))
            covered.append(m.span())
    for m in _FRACTION_WORDS_RE.finditer(text):
        if _inside(m.start(), covered):
            continue
        numerator = 1 if m.group(1).lower() in ("a", "an") else _SMALL[m.group(1).lower()]
        found.append(Num(m.start(), m.end(), Fraction(numerator, _ORDINAL_FRACTIONS[m.group(2).lower()]), False))
        covered.append(m.span())
    if found and ("illion" in text or "thousand" in text or "hundred" in text):  # "two and a half million", "a quarter of a million"
        for i, n in enumerate(found):
            scale = _WORD_SCALE_AFTER_RE.match(text, n.end)
            if scale and n.scale == 1:
                factor = _SCALE[scale.group(1).lower()] if scale.group(1).lower() in _SCALE else 100
                found[i] = Num(n.start, scale.end(), n.value * factor, n.pct, factor)
                covered.append((n.start, scale.end()))


def _digits(text: str, m: re.Match[str]) -> tuple[Num | None, bool]:
    """The number a match of the digits pattern writes (None: a name or unit code, "B12"), and whether it spans a
    scale word after it ("2.1 million") that no other reading may take."""
    # a digit glued to letters is a name or a unit code (B12, 3rd, x2), not an answer
    before = text[m.start() - 1] if m.start() else " "
    if (before.isalpha() and before < "\u2e80" and not m.group("cur")) or before == "^":  # CJK scripts put no space before digits
        return None, False
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
        return None, False
    if g["sign"] == "-" or g["sign2"] == "-":
        # a hyphen between two words or numbers is a range or a dash, not a minus sign
        start = m.start()
        prev = text[:start].rstrip()
        if not (g["sign"] == "-" and prev and (prev[-1].isdigit() or prev[-1] in ")")):
            value = -value
    scale = _SCALE_AFTER_RE.match(text, m.end()) if g["pct"] is None and g["exp"] is None and g["exp2"] is None else None
    if scale and scale.group(2) == "m":
        scale = None  # "5m" is metres
    if scale:  # "2.1 million", "2.5k"
        factor = _SCALE[(scale.group(1) or scale.group(2)).lower()]
        return Num(m.start(), scale.end(), value * factor, False, factor), True
    comma = _DECIMAL_COMMA_RE.match(text, m.end()) if g["num"] and "," not in g["num"] and "." not in g["num"] \
        and g["pct"] is None and (g["cur"] or text[m.end() + 3:m.end() + 5].strip()[:1] in ("€", "")) else None
    if comma:  # "€12,50": a decimal comma
        value += Fraction(int(comma.group(1)), 100) * (1 if value >= 0 else -1)
        return Num(m.start(), comma.end(), value, False), False
    if value > 0 and g["pct"] is None and _BC_RE.match(text, m.end()):
        value = -value  # "5400 BC": a year before the common era
    return Num(m.start(), m.end(), value, g["pct"] is not None), False


def _number_words(text: str, found: list[Num], covered: list[tuple[int, int]]) -> None:
    """The numbers written in words ("twenty-one", "a hundred and five"), added to ``found``."""
    for m in _WORDS_RE.finditer(text):
        if m.group(0).lower() in ("a", "and"):
            continue  # "a" or "and" alone counts nothing (the most common match by far)
        if _inside(m.start(), covered) or re.match(r"-[a-z]", text[m.end():m.end() + 2]):
            continue  # "two-digit", "three-year-old": a word, not a number
        if m.group(0).lower() == "one" and _PRONOUN_ONE_RE.search(text[max(0, m.start() - 20):m.start()]):
            continue  # "Easy one!", "the right one": a pronoun, not the number 1
        for start, end in _and_parts(m):
            count = _words_value(text[start:end])
            if count is not None:
                found.append(Num(start, end, Fraction(count), False))


_AND_SPLIT_RE = re.compile(r"\s+and\s+", re.IGNORECASE)
_SCALE_BEFORE_AND_RE = re.compile(r"(?:hundred|thousand|million|billion|dozen)$", re.IGNORECASE)


def _and_parts(m: re.Match[str]) -> list[tuple[int, int]]:
    """The spans of the numbers in a phrase of number words: "and" joins only after a scale word ("one
    hundred and five" is one number), else it links two ("two and three", "four and twenty")."""
    phrase = m.group(0)
    if " and " not in phrase.lower():
        return [m.span()]
    parts, start = [], 0
    for link in _AND_SPLIT_RE.finditer(phrase):
        if not _SCALE_BEFORE_AND_RE.search(phrase[:link.start()]):
            parts.append((m.start() + start, m.start() + link.start()))
            start = link.end()
    parts.append((m.start() + start, m.end()))
    return parts



def parse_number(text: str) -> Fraction | None:
    """The value of the first number in ``text``, exactly (a Fraction), or None.

    >>> parse_number("$1,234.50"), parse_number("\\\\frac{3}{4}"), parse_number("twenty-five")
    (Fraction(2469, 2), Fraction(3, 4), Fraction(25, 1))
    """
    from gengap.extract._base import clean

    nums = numbers_in(clean(text))
    return nums[0].value if nums else None


# ---------------------------------------------------------------------------------------- reading helpers
_PROBABILITY_RE = re.compile(r"\b(?:probabilit(?:y|ies)|chance|likelihood|proportion|fraction|share|decimal(?!\s+(?:places?|digits?|points?)))\b",
                             re.IGNORECASE)
_NEGATED_RE = re.compile(r"\b(?:not|isn't|wasn't|rather\s+than|instead\s+of)\s*\$?$", re.IGNORECASE)


_PLACES_RE = re.compile(r"\b(?:to|with|rounded\s+to|round\s+to)\s+(?:the\s+nearest\s+)?(\d|one|two|three|four)\s+(?:decimal\s+)?(?:places?|decimals?|d\.p\.)"
                        r"|nearest\s+(whole\s+number|integer|tenth|hundredth|thousandth)", re.IGNORECASE)
_PLACES = {"one": 1, "two": 2, "three": 3, "four": 4, "whole number": 0, "integer": 0, "tenth": 1, "hundredth": 2,
           "thousandth": 3}


_WH_RE = re.compile(r"\b(?:what|which|how|find|calculate|compute|give|express|estimate)\b", re.IGNORECASE)


@lru_cache(maxsize=4096)
def asked_part(question: str) -> str:
    """The part of a question that asks (from its last sentence with a "?" on), not the facts it gives first.

    >>> asked_part("The chance of rain is 30%. What is the probability it stays dry? Give a decimal.")
    'What is the probability it stays dry? Give a decimal.'
    """
    mark = question.rfind("?")
    if mark < 0:
        return question
    start = max(question.rfind(". ", 0, mark), question.rfind("\n", 0, mark)) + 1
    wh = list(_WH_RE.finditer(question, start, mark))
    return question[wh[-1].start() if wh else start:].strip()


_YEAR_Q_RE = re.compile(r"^\W*(?:(?:in|during)\s+)?(?:what|which)\s+year\b|^\W*when\b", re.IGNORECASE)


@lru_cache(maxsize=4096)
def _asks(question: str) -> tuple[bool, bool, bool, str | None]:
    """Whether the question asks for a probability (a decimal), a percentage, a year, and the unit of
    time it counts in ("how many minutes"): keyed by the question."""
    asked = asked_part(question)
    percent = bool(_ASKS_PERCENT_RE.search(asked)) and not re.search(r"\bdecimal\b(?!\s+places?)", asked, re.IGNORECASE)
    probability = bool(_PROBABILITY_RE.search(asked) and not _ASKS_PERCENT_RE.search(asked))
    unit = re.search(r"\b(?:how\s+many|in|number\s+of)\s+(hour|minute|second)s?\b", asked, re.IGNORECASE)
    return probability, percent, bool(_YEAR_Q_RE.search(asked)), unit.group(1).lower() if unit else None


def _wants_probability(ctx: Context) -> bool:
    return "percent" not in ctx.disabled and ctx.question is not None and _asks(ctx.question)[0]


#: a percentage asked for ("what percentage", "by what percent", "as a %"), not a percentage given ("20% of 50")
_ASKS_PERCENT_RE = re.compile(r"\bper\s*cent(?:age)?\b|(?<![\d\s])\s*%|\bas\s+a\s+%", re.IGNORECASE)


def _wants_percent(ctx: Context) -> bool:
    return "percent" not in ctx.disabled and ctx.question is not None and _asks(ctx.question)[1]


_FRACTION_LITERAL_RE = re.compile(r"(?<![\d.])(\d+)\s*/\s*(\d+)(?![\d/])")
_RESTATED_AS_RE = re.compile(r"\s*(?:,\s*)?(?:(?:which\s+is|that\s+is|that's|i\.?e\.?|or|so|=)\s*,?\s*)?"
                             r"(?:(?:about|approximately|approx\.?|roughly|around|nearly|close\s+to)\s+|[\u2248~]\s*)"
                             r"|\s*(?:,\s*)?(?:which\s+is|i\.?e\.?|or|=)\s*,?\s*(?=[\d.])")


def _restated_form(n: Num, ctx: Context) -> Num | None:
    """A fraction restated right after it in the form the question asks for ("1/6, which is approximately
    0.167" for a probability as a decimal; "1/4, or 25%" for a percentage): that form, as the output rounds it."""
    if n.value.denominator == 1 or "/" not in ctx.text or not (_wants_probability(ctx) or _wants_percent(ctx)):
        return None
    for m in _FRACTION_LITERAL_RE.finditer(ctx.text):
        if int(m.group(2)) == 0 or Fraction(int(m.group(1)), int(m.group(2))) != n.value:
            continue
        at = m.end()
        while (link := _RESTATED_AS_RE.match(ctx.text, at)) is not None:  # "1/6 ≈ 0.1667, which is about 16.7%"
            nums = numbers_in(ctx.text[link.end():link.end() + 24])
            if not nums or nums[0].start != 0:
                break
            later = nums[0]
            value = later.value / 100 if later.pct else later.value
            if abs(float(value) - float(n.value)) > 0.006:
                break
            if (later.pct and _wants_percent(ctx)) or (not later.pct and not _wants_percent(ctx) and later.value.denominator != 1):
                return later
            at = link.end() + later.end
    return None


def _answer(n: Num, ctx: Context) -> str:
    """The canonical string of ``n``: a percentage read as a decimal when the question asks for a
    probability, rounded to the decimal places the question asks for."""
    restated = _restated_form(n, ctx)
    if restated is not None:
        n = restated
    value = n.value
    if n.pct and _wants_probability(ctx):
        value = value / 100
    elif not n.pct and 0 < value <= 1 and _wants_percent(ctx) and (
            any(m.pct and m.value == value * 100 for m in _nums(ctx, ctx.text))
            or (value < 1 and not any(m.pct for m in _nums(ctx, ctx.text)))):
        value = value * 100  # "0.25, i.e. 25%", or a bare "0.2", for a percentage: the form asked for
    if n.scale > 1 and ctx.question and re.search(rf"\b(?:in|of)\s+{_SCALE_NAME[n.scale]}s\b", ctx.question, re.IGNORECASE):
        value = value / n.scale  # "in millions": the number before the scale word
    if ctx.question and "percent" not in ctx.disabled:
        m = _PLACES_RE.search(ctx.question)
        if m:
            word = (m.group(1) or m.group(2)).lower()
            places = int(word) if word.isdigit() else _PLACES[word]
            return format_number(round(Fraction(value), places))
    return format_number(value)


_ORDINAL_SUFFIX_RE = re.compile(r"(?:st|nd|rd|th)\b")


def _asks_count(ctx: Context) -> bool:
    memo = ctx.__dict__.get("_asks_count")
    if memo is None:
        memo = ctx.__dict__["_asks_count"] = re.search(r"\bhow\s+many\b", ctx.question or "", re.IGNORECASE) is not None
    return memo


def _nums(ctx: Context, text: str) -> list[Num]:
    """The numbers of ``text`` that are not negated ("4, not 6": the 6 is no answer); remembered per
    output, since several rules look at the same sentence."""
    memo = ctx.__dict__.setdefault("_nums", {})
    if text not in memo:
        plain = text.replace("\\$", "$")
        if _wants_probability(ctx):  # "1 in 4", "3 out of 10": a probability (same length, places kept)
            plain = _ODDS_RE.sub(lambda m: f"{_count(m.group(1))}/{_count(m.group(2))}".ljust(len(m.group(0))), plain)
        unit = _asks(ctx.question)[3] if ctx.question and "percent" not in ctx.disabled else None
        if unit:  # "1 h 45 min" for "how many minutes": one number in the unit asked for (same length)
            plain = _DURATION_RE.sub(lambda m: _duration(m, unit).ljust(len(m.group(0))), plain)
        found = [n for n in numbers_in(plain) if not _NEGATED_RE.search(plain[max(0, n.start - 14):n.start])]
        if _asks_count(ctx) and any(_ORDINAL_SUFFIX_RE.match(plain, n.end) for n in found):
            found = [n for n in found if not _ORDINAL_SUFFIX_RE.match(plain, n.end)]  # "the 47th president" ranks, it does not count
        memo[text] = found
    return memo[text]


_DURATION_RE = re.compile(r"\b(\d+)\s*(?:h|hrs?|hours?)\s*(?:and\s+|,\s*)?(\d+)\s*(?:m|mins?|minutes?)\b"
                          r"|\b(\d+)\s*(?:m|mins?|minutes?)\s*(?:and\s+|,\s*)?(\d+)\s*(?:s|secs?|seconds?)\b", re.IGNORECASE)


def _duration(m: re.Match[str], unit: str) -> str:
    if m.group(1):  # hours and minutes
        minutes = int(m.group(1)) * 60 + int(m.group(2))
        return str(minutes) if unit == "minute" else format_number(Fraction(minutes, 60)) if unit == "hour" else m.group(0)
    seconds = int(m.group(3)) * 60 + int(m.group(4))
    return str(seconds) if unit == "second" else format_number(Fraction(seconds, 60)) if unit == "minute" else m.group(0)


_COUNT_WORD = "|".join([*_SMALL, *_TENS])
# "1 in 4", "3 out of 10", "one-in-three": a probability when one is asked for (same length, places kept)
_ODDS_RE = re.compile(rf"\b(\d+|{_COUNT_WORD})[\s-]+(?:in|out[\s-]+of)[\s-]+(\d+|{_COUNT_WORD})\b", re.IGNORECASE)


def _count(word: str) -> str:
    return word if word.isdigit() else str(_SMALL.get(word.lower(), _TENS.get(word.lower(), 0)))


@lru_cache(maxsize=4096)
def _given_in_question(question: str) -> frozenset[tuple[Fraction, bool]]:
    return frozenset((n.value, n.pct) for n in numbers_in(question))


def _given(ctx: Context, n: Num) -> bool:
    """Whether the question gives ``n`` (a percentage only as a percentage: "$20" is not the "20%" it gives)."""
    return ctx.question is not None and (n.value, n.pct) in _given_in_question(ctx.question)


def _result(ctx: Context, segment: str) -> Num | None:
    """The number a stretch of text arrives at: the one after its last "=", else its first."""
    if "\u2248" in segment:  # "≈": the value before it when that is a bare number ("1/6 ≈ 16.7%"), else the one after
        before = segment.split("\u2248", 1)[0]
        exact = re.search(r"(?:^|[=\s])([-$€£]?\d[\d.,/]*%?)\s*$", before)
        if exact and not re.search(r"[×x*+\u00f7/-]\s*$", before[:exact.start(1)]) and _nums(ctx, exact.group(1)):
            return _nums(ctx, exact.group(1))[0]
        segment = segment.replace("\u2248", "=")
    for sep in ("=", " is "):
        if sep in segment:
            nums = _nums(ctx, segment.rsplit(sep, 1)[1])
            if nums:
                return nums[0]
    nums = _nums(ctx, segment)
    fresh = [n for n in nums if not _given(ctx, n)]  # "so 5 spiders have 40 legs"
    return (fresh or nums)[0] if nums else None


_CONFIRMED_RE = re.compile(r"=[^=]*?(?:\byes\b|\byep\b|\bcorrect\b|\bthat'?s\s+right\b|[\u2713\u2714])\W{0,3}\s*(?:so\s+|it'?s\s+|the\s+answer\s+is\s+)?"
                           r"([-$]?\d[\d,]*(?:\.\d+)?)\s*\W*$", re.IGNORECASE)


def _read_region(ctx: Context, region: str) -> str | None:
    """The answer in a stretch of text, at the table's positions (a pleasantry after it is no part of it)."""
    kept = [p for p in sentences(region) if not _PLEASANTRY_RE.match(p)]
    return read_region(MARKERS, ctx, " ".join(kept) if kept else region)


def _resulting(ctx: Context, text: str) -> str | None:
    """The number the first sentence of ``text`` arrives at (after its last "=")."""
    found = _result(ctx, sentences(text)[0] if sentences(text) else text)
    return _answer(found, ctx) if found else None


_RESTATED_BEFORE_RE = re.compile(r"^\W*(?:(?:no|nope|wait|so|then|ok(?:ay)?|actually|sorry|i\s+mean|rather)\W+)*"
                                 r"(?:(?:that|it|this|the\s+(?:answer|total|result|sum|number))\s+)?"
                                 r"(?:(?:should|must|would|will)\s+(?:have\s+)?be(?:en)?|is|'s|are|equals|=|was)?\s*[$€£]?$", re.IGNORECASE)
_RESTATED_AFTER_RE = re.compile(r"^(?!\s+(?:is|are|was|were|=)\b)\s*%?\s*(?:[A-Za-z°²³]+\s*){0,2}(?:[.,:;!()]|$|\n)")


_NO_OPENING_RE = re.compile(r"(?<=[.!?])\s+(?:no|nope)\s*(?:[,;:!.]|\s-)\s*(?=\w)"
                            r"|\b(?:just\s+kidding|j/k|i\s+take\s+(?:that|it)\s+back)\b[\s,.:;!-]*(?=\w)", re.IGNORECASE)


def correction_region(ctx: Context) -> str | None:
    """The text after a self-correction: the shared cues ("wait", "sorry", ...), or a later sentence that
    opens with "No," and takes back what came before ("Insects have 8 legs. No, that's spiders; insects
    have 6."): for a number or an option, a sentence-initial "No" is no answer of its own."""
    if ctx.correction is not None or "self_correction" in ctx.disabled:
        return ctx.correction
    low = ctx.text.lower()
    if "no" not in low and "kidding" not in low and "j/k" not in low and "back" not in low:
        return None
    found = last_match(_NO_OPENING_RE, ctx.text)
    return ctx.text[found.end():].strip() or None if found else None


def _correction(ctx: Context) -> str | None:
    """After a self-correction: the value it restates first ("Wait, that should be 47: 20 + 20 = 40 and
    3 + 4 = 7."), or the count of what is asked, else the region's marked or last number."""
    region = correction_region(ctx)
    if region is None:
        return None
    nums = _nums(ctx, region)
    if nums and _RESTATED_BEFORE_RE.match(region[:nums[0].start]) and _RESTATED_AFTER_RE.match(region[nums[0].end:]):
        return _answer(nums[0], ctx)
    counted = "answer_inside_sentence" not in ctx.disabled and _counted_in(ctx, region)
    return _answer(counted, ctx) if counted else _read_region(ctx, region)


def _opening(ctx: Context, tail: str) -> str | None:
    """The number opening what follows a marker; the first bound of a range is none ("I'd guess between 30 and 45,
    most likely 38": the pick is read by a later rule; a range alone: unextracted)."""
    nums = _nums(ctx, tail)
    if nums and _first_bound(tail, nums):
        return None if _PICK_AFTER_RE.search(tail, nums[0].end) else ABSTAIN
    return _answer(nums[0], ctx) if nums else None


def _first_bound(source: str, nums: list[Num]) -> bool:
    """Whether the first number of ``source`` opens a range ("40 to 50", "between 400 and 550")."""
    return bool(_RANGE_AFTER_RE.match(source, nums[0].end) or (_BETWEEN_AND_RE.search(source[:nums[0].start])
                                                                and _AND_AFTER_RE.match(source, nums[0].end)))


_TOTAL_ROW_RE = re.compile(r"^\W*(?:grand\s+)?(?:total|sum|answer|result|overall|altogether|in\s+total|average|mean|median"
                           r"|net|final|remaining|left|balance|difference|profit)\b.*$",
                           re.IGNORECASE | re.MULTILINE)


def _table(ctx: Context) -> str | None:
    """A Markdown table's total row (or a total line under it); notes after the table do not count."""
    if "|" not in ctx.text or not re.search(r"^\s*\|?\s*:?-+:?\s*\|", ctx.text, re.MULTILINE):
        return None
    lines = ctx.text.split("\n")
    for line in lines:  # "Change from $20: $11.25" under the table: a line labelled with what the question asks
        label = re.match(r"^\s*([^|:\n]{1,40}):\s*(\S.*)$", line)
        if label and not _NOTE_RE.match(line) and ctx.question_stems & content_stems(label.group(1)) - _counted_noun(ctx):
            nums = _nums(ctx, label.group(2))
            if len(nums) == 1:
                return _answer(nums[0], ctx)
    for line in lines:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and _TOTAL_ROW_RE.match(cells[0]):
            rest = " ".join(cells[1:]) if len(cells) > 1 else cells[0]
            if "(" in rest and _nums(ctx, re.sub(r"\([^()]*\)", " ", rest)):
                rest = re.sub(r"\([^()]*\)", " ", rest)  # "Total: $10.00 (before a 5% discount)"
            nums = _nums(ctx, rest)
            if nums:
                return _answer(nums[-1], ctx)
    rows = [[c.strip() for c in ln.strip().strip("|").split("|")] for ln in lines if ln.strip().startswith("|")]
    rows = [r for r in rows if not re.match(r"^:?-+:?$", r[0] if r else "")]
    if len(rows) == 2 and ctx.question:  # one record "| Total | Fraction | Passed |" for "How many passed?": the field asked for
        asked = content_stems(asked_part(ctx.question)) - {"many", "much"} - _counted_noun(ctx)
        named_columns = [i for i, c in enumerate(rows[0]) if i and content_stems(c) & asked]
        if len(named_columns) == 1 and named_columns[0] < len(rows[-1]):
            nums = _nums(ctx, rows[-1][named_columns[0]])
            if len(nums) == 1 and not _given(ctx, nums[0]):
                return _answer(nums[0], ctx)
    if len(rows) >= 2:
        column = next((i for i, c in enumerate(rows[0]) if _TOTAL_ROW_RE.match(c)), None)
        if column is not None and column < len(rows[-1]):
            nums = _nums(ctx, rows[-1][column])
            if nums:
                return _answer(nums[-1], ctx)
    named = [r for r in rows[1:] if len(r) > 1 and ctx.question_stems & content_stems(r[0])]
    if len(named) == 1:  # "| Red | 14 |" for "How many red cars are there?"
        nums = _nums(ctx, " ".join(named[0][1:]))
        if len(nums) == 1:
            return _answer(nums[0], ctx)
    return _table_prose(ctx, rows)


def _table_prose(ctx: Context, rows: list[list[str]]) -> str | None:
    """A table with no total row: the prose's emphasis or conclusion states the answer; notes ("Note:", "*...*",
    "> ...", "(...)") do not; else a table that comes first ends on its result (its last row)."""
    statement = "\n".join(ln for ln in ctx.raw.split("\n") if not _NOTE_RE.match(ln) and not ln.strip().startswith("|"))
    for span in reversed(_BOLD_RE.findall(statement)):
        nums = _nums(ctx, span)
        if nums:
            return _answer(nums[-1], ctx)
    statement = clean(statement)
    for sentence in reversed(sentences(statement)):
        for mark in WEAK_MARK_RE.finditer(sentence):
            num = _after_mark(ctx, sentence, mark)
            if num:
                return _answer(num, ctx)
    for sentence in sentences(statement):  # "There are 35 cars in total." speaks of what the question asks
        fresh = [n for n in _nums(ctx, sentence) if not _given(ctx, n)]
        if len(fresh) == 1 and ctx.question_stems & content_stems(sentence):
            return _answer(fresh[0], ctx)
    first = ctx.text.find("|")
    if rows and len(rows) >= 2 and not _nums(ctx, ctx.text[:first]):
        nums = _nums(ctx, " ".join(rows[-1][1:]))
        if nums:
            return _answer(nums[-1], ctx)
    return None


def _counted_noun(ctx: Context) -> set[str]:
    """The noun a "how many" question counts ("slices"), which every line about the count shares (not a
    participle: "How many passed?" counts no noun)."""
    m = re.search(r"\bhow\s+many\s+([A-Za-z]+)", asked_part(ctx.question), re.IGNORECASE) if ctx.question else None
    return {stem(m.group(1))} if m and not m.group(1).lower().endswith("ed") else set()


_NOTE_RE = re.compile(r"^\s*(?:>|\(|\*[^*]|_|\d+[.)]\s|(?:notes?|tips?|hint|reminder|remember|caveat|disclaimer|sources?|assum\w*"
                      r"|n\.?b\.?|p\.?s\.?)\b)", re.IGNORECASE)
_BOLD_RE = re.compile(r"\*\*([^*\n]+)\*\*")


_WORKING_RE = re.compile(r"^\s*(?:first|let|let's|to\s|we\s|step|start|begin|given|since|if\s|suppose|note|check)", re.IGNORECASE)
_EXPRESSION_RE = re.compile(r"\d\s*[a-z]?\s*[-+×x*/÷^]\s*\d|\d\s*%?\s+of\s+\d", re.IGNORECASE)
# a calculation in words: "3 times 60 gives 180", "Multiply 3 by 60 to get 180", "15 and 27 make 42"
_WORDED_SUM_RE = re.compile(r"\d[\d.,/%]*\s*(?:[a-z]+\s+){0,2}?(?:times|plus|minus|multiplied\s+by|divided\s+by|over|by|and|from|to)\s+[$\u20ac\u00a3]?\d[\d.,/%]*"
                            r"\s*(?:[a-z]+\s+){0,2}?(?:gives?|makes?|equals?|is|are|comes\s+to|to\s+get|(?:we|you|i)\s+get|yields?|results?\s+in"
                            r"|adds?\s+up\s+to|sums?\s+to)\s+[-$\u20ac\u00a3]?\d", re.IGNORECASE)
_ASSIGNMENT_RE = re.compile(r"^\s*[a-z]\s*=\s*[-+$]?\s*[\d.,]+\s*[a-z%°]{0,6}\s*[.!]?\s*$", re.IGNORECASE)
_LABEL_RE = re.compile(r"^\s*[A-Za-z][\w ]{0,20}:\s*\S")
_BARE_RE = re.compile(r"^\W*[-+$€£]?\s*[\d.,/]+\s*%?\s*(?:[A-Za-z°²³/]+\s*){0,2}\W*$")
_SUBORDINATE_RE = re.compile(r"^\s*(?:after|since|because|as|if|when|once|while|given|with|without|before|although|though|by|despite|unlike|like|according\s+to|at|in|on|for|from|of|over|under|until|to)\b[^,]{0,80},\s*",
                             re.IGNORECASE)
_APPOSITIVE_RE = re.compile(r",\s[^,]{1,40},\s")


def _preferred(ctx: Context, nums: list[Num]) -> list[Num]:
    """Of several numbers, those in the form the question asks for (a percentage, a probability)."""
    if _wants_probability(ctx) and any(n.pct or 0 < n.value < 1 for n in nums):
        return [n for n in nums if n.pct or 0 < n.value < 1]
    if _wants_percent(ctx) and any(n.pct for n in nums):
        return [n for n in nums if n.pct]
    if ctx.question and _asks(ctx.question)[2] and any(_is_year(n) for n in nums):
        return [n for n in nums if _is_year(n)]  # "on 9 November 1989" for "in what year"
    return nums


def _is_year(n: Num) -> bool:
    return not n.pct and n.value.denominator == 1 and 1000 <= n.value <= 2100


_UNIT_AFTER_RE = re.compile(r"^\s*([A-Za-z]{2,})")


@lru_cache(maxsize=4096)
def _given_units(question: str) -> tuple[frozenset[str], str | None]:
    """The units of the quantities a question gives ("2 hours") and the unit it asks for ("how many kilometres")."""
    given = {stem(m.group(1)) for n in numbers_in(question) if (m := _UNIT_AFTER_RE.match(question[n.end:]))}
    asked = re.search(r"\bhow\s+(?:many|much)\s+([A-Za-z]+)", asked_part(question), re.IGNORECASE)
    return frozenset(given), stem(asked.group(1)) if asked else None


def _of_given_unit(question: str, after: str) -> bool:
    given, asked = _given_units(question)
    m = _UNIT_AFTER_RE.match(after)
    unit = stem(m.group(1)) if m else ""
    return bool(m and asked and unit in given and unit[:1] != asked[:1])  # "km" stands for "kilometres"


#: a closing courtesy or offer and all after it ("\n\nLet me know if you have any other questions!")
CLOSING_RE = re.compile(r"(?:(?<=[.!?])\s+|\n\s*)(?:(?:i\s+)?hope\s+(?:this|that|it)\s+helps|let\s+me\s+know\s+if|feel\s+free\s+to|is\s+there\s+anything\s+else"
                        r"|(?:i'?m\s+)?(?:happy|glad)\s+to\s+help|good\s+luck|(?:do|would)\s+you\s+(?:like|want)\s+me\s+to)\b[^\n]*(?:\n[^\n]*)*$",
                        re.IGNORECASE)


def without_closing(text: str) -> str:
    """``text`` without a closing courtesy or offer after its answer."""
    m = CLOSING_RE.search(text)
    return text[:m.start()].rstrip() if m and m.start() > 0 else text


_ANNOUNCES_WORKING_RE = re.compile(r"\blet(?:'s|\s+me|\s+us)?\b|\bstep\s+by\s+step\b|\bthink\b|\bhow\s+to\b", re.IGNORECASE)


def _courtesy_off(text: str) -> str:
    """``text`` without an opening courtesy ("Sure! Here's the answer.", "Great question! "), which states
    nothing; an opening that announces working ("Let's work through this step by step.") is kept, since
    the lines after it are working, not an answer stated first."""
    rest = without_preamble(text)
    return text if rest is text or _ANNOUNCES_WORKING_RE.search(text[:len(text) - len(rest)]) else rest


def _first(ctx: Context) -> tuple[str, str]:
    """``first_part`` of the output, computed once per output (several rules look at its first sentence)."""
    memo = ctx.__dict__.get("_first")
    if memo is None:
        memo = ctx.__dict__["_first"] = first_part(_courtesy_off(ctx.text))
    return memo


def _later_form(ctx: Context, nums: list[Num], later: str) -> bool:
    """Whether ``nums`` are not in the form the question asks for (a percentage, a probability) and ``later``
    has a number in that form ("The discount is $30, which is 20% of $150." for "as a decimal fraction")."""
    if not nums or not (_wants_percent(ctx) or _wants_probability(ctx)) or any(n.pct or 0 < n.value < 1 for n in nums):
        return False
    if _wants_percent(ctx):
        return any(n.pct for n in _nums(ctx, later))
    return any(n.pct or 0 < n.value < 1 for n in _nums(ctx, later))


def _fresh(ctx: Context, n: Num, text: str) -> bool:
    """Whether ``n`` is not a number the question gives, or counts the asked unit where the question gives
    it only as a count of other things ("6 days" for "... how many days would 6 workers take?")."""
    if not _given(ctx, n):
        return True
    asked = _given_units(ctx.question)[1] if ctx.question else None
    if not asked or not ctx.question:
        return False
    return _unit_of(text, n)[:4] == asked[:4] and _given_of_other_unit(ctx.question, n.value, asked)


_ASKED_PHRASE_RE = re.compile(r"^\W*(?:what|how\s+much)\s+(?:is|was|will\s+be|would\s+be)\s+(?:the|its|his|her|their|your)\s+"
                              r"((?:[a-z]+\s+){0,2}?[a-z]+)\s*(?:\b(?:in|of|for|after|at|on|per)\b|,|\?|$)", re.IGNORECASE)


@lru_cache(maxsize=4096)
def _asked_name(question: str) -> str | None:
    """The name of what a question asks for, lower-cased ("What is the sale price in dollars?" -> "sale price")."""
    m = _ASKED_PHRASE_RE.match(asked_part(question))
    if not m or m.group(1).lower() in ("answer", "result", "value", "number", "total", "sum"):
        return None
    return " ".join(m.group(1).lower().split())


_AFTER_NAME_RE = re.compile(r"\s*(?:is|was|would\s+be|will\s+be|comes\s+to|=|:)?\s*(?:about|approximately|roughly|just|only|exactly)?\s*(?=[-$\u20ac\u00a3]?\d)",
                            re.IGNORECASE)


def _named_value(ctx: Context) -> str | None:
    """The value the output gives the very thing the question asks for, by its name ("What is the sale
    price?" - "The discount is $60, making the sale price $140."), when it gives it one value."""
    name = _asked_name(ctx.question) if ctx.question else None
    if name is None or _opens_with_number(ctx):
        return None  # "3/4 (75%). ... with probability 1/4.": an answer stated first, the name reused for a step
    low = ctx.prose.lower()
    found = set()
    at = low.find(name)
    while at >= 0:
        end = at + len(name)
        said = None if (at and low[at - 1].isalnum()) or (end < len(low) and low[end].isalnum()) else _AFTER_NAME_RE.match(ctx.prose, end)
        if said:
            segment = re.split(r"\n|[.;!?](?:\s|$)|,\s", ctx.prose[said.end():], maxsplit=1)[0]
            nums = _nums(ctx, segment)
            result = _result(ctx, segment) if "=" in segment or "\u2248" in segment else nums[0] if nums and nums[0].start <= 2 else None
            if result is not None:  # "Average: 90 ÷ 5 = 18": the result of the working; else the number right after the name
                found.add(result)
        at = low.find(name, end)
    values = {n.value for n in found}
    return _answer(next(iter(found)), ctx) if len(values) == 1 else None


def _answer_first(ctx: Context) -> str | None:
    """The number of the first line or sentence when it states the answer and the rest explains it."""
    arrow = last_match(_ARROW_RE, ctx.text)
    if arrow is not None and len(_nums(ctx, ctx.text[arrow.end():])) == 1 and "\n" not in ctx.text[arrow.end():].strip():
        return _answer(_nums(ctx, ctx.text[arrow.end():])[0], ctx)  # "5h30 -> 5.5": the arrow points to the result
    refined = _REFINED_AFTER_RE.search(ctx.text)
    if refined and any(n.start < refined.start() for n in _nums(ctx, ctx.text)[:1]):
        return None  # "Close to five hundred - 480 to be precise.", "Maybe 500? Actually ... exactly 480.": a later figure refines it
    head, rest = _first(ctx)
    if head and _WORD_RANGE_RE.match(head) and not ctx.strong_marks and not WEAK_MARK_RE.search(ctx.text):
        return ABSTAIN  # "Between five and ten, depending on the breed.": a range, no one number
    if not head or _WORKING_RE.match(head) or _RANGE_RE.match(re.split(r"[;:,(]", head, maxsplit=1)[0]):
        return None  # working, or a range ("40 to 60 kg; ..."): no one number stated first
    plain = re.sub(r"\([^()]*\)", " ", head)
    retracted = last_match(_RETRACTED_RE, plain)
    if retracted:  # "I said 32 earlier, but that was wrong: 17 + 25 = 42.": what follows the retraction
        tail = plain[retracted.end():]
        found = _result(ctx, tail) if "=" in tail else next(iter(_nums(ctx, tail)[-1:]), None)
        return _answer(found, ctx) if found else None
    plain = re.split(r",?\s+(?:since|because|as|given\s+that|so\s+that|which\s+is\s+why)\s", plain, maxsplit=1)[0]
    lead, *after = re.split(r"\s+-\s+(?!\d)|\s*(?:(?<!\d):(?!\d)|[;(])\s*|,\s+(?!\d)", _SUBORDINATE_RE.sub("", head, count=1), maxsplit=1)
    if after and "=" not in lead and (_BARE_RE.match(lead) or (len(lead.split()) <= 4 and len(_nums(ctx, lead)) == 1)) \
            and _nums(ctx, lead) and not _WORKING_RE.match(lead) and not _OPERATION_LEAD_RE.match(lead) and _fresh(ctx, _nums(ctx, lead)[0], lead) \
            and not _later_form(ctx, _nums(ctx, lead), after[0]):
        return _answer(_nums(ctx, lead)[0], ctx)  # "86,400 - that is 24 x 60 x 60.", "Sixteen legs in all: ..."
    bare = bool(_BARE_RE.match(plain))
    if not bare and (_EXPRESSION_RE.search(plain) or "=" in plain or _WORDED_SUM_RE.search(plain)) and not _ASSIGNMENT_RE.match(plain):
        return None  # working, not an answer
    bare = bare or (len(plain.split()) <= 3 and ":" not in plain)
    if not bare:
        if WEAK_MARK_RE.search(plain) or (rest and WEAK_MARK_RE.search(rest)):
            return None  # a conclusion reads the answer
        if _LABEL_RE.match(plain) and ":" in plain and len(ctx.sentences) > 1 and not ctx.question:
            return None
    main = _SUBORDINATE_RE.sub("", plain, count=1)
    if ctx.question and main is not plain and _asks(ctx.question)[2] and not any(map(_is_year, _nums(ctx, main))) \
            and any(map(_is_year, _nums(ctx, plain))):
        main = plain  # "On 4 July 1776, though ... on August 2." for "When ...?": the year is in the opening phrase
    source = next((t for t in (_APPOSITIVE_RE.sub(" ", main), main, plain) if _nums(ctx, t)), plain)
    if source is not main and len(_preferred(ctx, _nums(ctx, main))) < len(_nums(ctx, main)):
        source = main  # "on April 15, 1912, after ..." for "what year": the year is no aside
    return _first_of(ctx, source, plain, rest, bare)


def _first_of(ctx: Context, source: str, plain: str, rest: str, bare: bool) -> str | None:
    """The number an opening sentence states first (``source``, its main clause): not the first bound of a
    range, not a number the question gives, not one a later sentence restates in the asked form."""
    nums = _nums(ctx, source)
    if not nums:
        return None
    if _first_bound(source, nums):
        # the first bound of a range is no answer; a pick after it may be: "roughly 40 to 50, probably 45",
        # "between 400 and 550, most likely 480"
        return None if _PICK_AFTER_RE.search(source, nums[0].end) else ABSTAIN
    if len(nums) > 1 and ctx.question:  # "over 2⅓ hours ... covers 42 km" for "how many kilometres": the hours are given
        kept = [n for n in nums if not _of_given_unit(ctx.question, source[n.end:n.end + 20])]
        nums = kept or nums
    if (_wants_percent(ctx) or _wants_probability(ctx)) and rest and len(_preferred(ctx, nums)) == len(nums) \
            and _later_form(ctx, nums, rest):
        return None  # "It fell by $5,000. ... a 25% decrease.": the percentage asked for comes later
    nums = _preferred(ctx, nums)
    fresh = [n for n in nums if not _given(ctx, n)]
    if fresh:
        if _LABEL_RE.match(plain) and len(fresh) > 1:
            return None
        if len(fresh) == 2 and fresh[0].value != fresh[1].value and _RANGE_START_RE.match(source, fresh[0].end):
            return ABSTAIN  # "Most adults need 7 to 9 hours.", "33 or 34": a range or two candidates, no one number committed to
        return _answer(fresh[0], ctx)
    if len(nums) == 1 and bare:
        return _answer(nums[0], ctx)  # a bare number, even one the question mentions
    return None


# a lead that is a step of the working ("minus 25 minutes: 215 minutes"), not the answer stated first
_OPERATION_LEAD_RE = re.compile(r"^\W*(?:minus|plus|times|less|add(?:ing)?|subtract(?:ing)?|divided|multiplied|then|take\s+away|over)\b", re.IGNORECASE)
_UNIT_WORD_RE = re.compile(r"^\s*(?:(?:more|extra|additional|whole|total|full|other|new|small|large|big|left|remaining|in|of)\s+)*([A-Za-z]{2,})")


def _unit_of(text: str, n: Num) -> str:
    """The stem of the word a number counts ("22 more eggs" -> "egg"), or ""."""
    m = _UNIT_WORD_RE.match(text[n.end:n.end + 40])
    return stem(m.group(1)) if m else ""


def _asked_unit(ctx: Context) -> str | None:
    """When the first sentence's numbers all count something other than the unit the question asks
    for ("how many hours"), and later numbers count that unit: the last of those."""
    if not ctx.question:
        return None
    asked = _given_units(ctx.question)[1]
    head, rest = first_part(_courtesy_off(ctx.prose))
    if not asked or not rest:
        return None
    first = [_unit_of(head, n) for n in _nums(ctx, head)]
    if not first or any(not u or u[:3] == asked[:3] for u in first):
        return None
    later = [n for n in _nums(ctx, rest) if _unit_of(rest, n)[:3] == asked[:3]]
    return _answer(later[-1], ctx) if later else None


_UNIT_ABBREVIATIONS = {"mm": "millimeter", "cm": "centimeter", "m": "meter", "km": "kilometer", "mg": "milligram", "g": "gram",
                       "kg": "kilogram", "lb": "pound", "lbs": "pound", "oz": "ounce", "tsp": "teaspoon", "tbsp": "tablespoon",
                       "ft": "foot", "feet": "foot", "in": "inch", "yd": "yard", "mi": "mile", "h": "hour", "hr": "hour",
                       "min": "minute", "s": "second", "sec": "second", "ml": "milliliter", "l": "liter", "qt": "quart",
                       "pt": "pint", "gal": "gallon", "c": "cup", "kcal": "calorie", "cal": "calorie", "yr": "year", "yrs": "year",
                       "ha": "hectare", "mph": "mile", "kph": "kilometer", "kmh": "kilometer"}
_UNIT_NEXT_RE = re.compile(r"\s*([A-Za-z]+)\.?")
_EQUIVALENT_RE = re.compile(r"\s*(?:=|\u2248|~|equals?|is|are|makes?|make\s+up|in|per|to)\s*(?:exactly|about|approximately|roughly|around)?\s*"
                            r"(?:a|an|one|each|every)?\s*$", re.IGNORECASE)


def _unit_key(word: str) -> str:
    """A unit word in one spelling: abbreviations written out, plurals and British spellings folded ("cm", "centimetres" -> "centimeter")."""
    low = word.lower()
    low = _UNIT_ABBREVIATIONS.get(low, low)
    if len(low) > 3:
        low = low[:-2] if low.endswith(("ches", "shes", "xes", "sses")) else low[:-1] if low.endswith("s") and not low.endswith("ss") else low
    return re.sub(r"tre$", "ter", _UNIT_ABBREVIATIONS.get(low, low))


_EQUIVALENCE_HINT_RE = re.compile(r"[=\u2248~]|\b(?:equals?|is|are|makes?|make\s+up|in|per|to)\b", re.IGNORECASE)


def _conversion(ctx: Context) -> str | None:
    """An equivalence of two units stated first ("3 teaspoons = 1 tablespoon", "100 cm = 1 m") answers "how
    many teaspoons" with the number of the unit asked for, whichever side it is on."""
    if not ctx.question or not _EQUIVALENCE_HINT_RE.search(_first(ctx)[0]):
        return None
    asked = re.search(r"\bhow\s+many\s+([A-Za-z]+)", asked_part(ctx.question), re.IGNORECASE)
    if not asked or len(_nums(ctx, _first(ctx)[0])) < 2:
        return None  # an equivalence has two numbers
    head = re.split(r",\s+(?:and|but|while|whereas)\s|;\s", re.sub(r"\([^()]*\)", " ", _first(ctx)[0]), maxsplit=1)[0]  # its first clause
    if not asked or not head:
        return None
    nums = _nums(ctx, head)
    if len(nums) != 2:
        return None
    first, second = (_UNIT_NEXT_RE.match(head, n.end) for n in nums)
    if first is None or second is None or not _EQUIVALENT_RE.match(head[first.end():nums[1].start]):
        return None
    keys = [_unit_key(first.group(1)), _unit_key(second.group(1))]
    want = _unit_key(asked.group(1))
    hits = [n for n, k in zip(nums, keys) if k == want]
    return _answer(hits[0], ctx) if len(hits) == 1 and keys[0] != keys[1] else None


_RANGE_START_RE = re.compile(r"\s*%?\s*(?:[A-Za-z]+\s+)?(?:to|-|\u2013|or)\s*[-$\u20ac\u00a3]?\d")
_RANGE_END_RE = re.compile(r"(?:\d\s*%?\s*(?:to|-|or)|\bbetween\s+\d[\d.,]*\s*%?\s*and)\s*$", re.IGNORECASE)
#: number words of other languages (German, Spanish, French, Italian, Portuguese), by value
_FOREIGN_WORDS: dict[str, int] = {w: i for i, ws in enumerate((
    "cero zéro null", "eins uno", "zwei dos deux dois due", "drei tres trois três tre", "vier cuatro quatre quattro quatro",
    "fünf cinco cinq cinque", "sechs seis sei", "sieben siete sept sette sete", "acht ocho huit oito otto",
    "neun nueve neuf nove", "zehn diez dix dieci dez", "elf once onze undici", "zwölf doce douze dodici doze",
    "dreizehn trece treize tredici treze", "vierzehn catorce quatorze quattordici catorze", "fünfzehn quince quinze quindici",
    "sechzehn dieciséis dieciseis seize sedici dezesseis dezasseis", "siebzehn diecisiete diciassette dezessete dezassete",
    "achtzehn dieciocho diciotto dezoito", "neunzehn diecinueve diciannove dezenove dezanove")) for w in ws.split()}
_FOREIGN_WORDS.update({w: 10 * (i + 2) for i, ws in enumerate((
    "zwanzig veinte vingt venti vinte", "dreißig dreissig treinta trente trenta trinta",
    "vierzig cuarenta quarante quaranta quarenta", "fünfzig cincuenta cinquante cinquanta cinquenta",
    "sechzig sesenta soixante sessanta sessenta", "siebzig setenta settanta", "achtzig ochenta ottanta oitenta",
    "neunzig noventa novanta")) for w in ws.split()})
_FOREIGN_WORDS.update(dict.fromkeys("hundert cien ciento cento cem".split(), 100))
_FOREIGN_WORDS.update(dict.fromkeys("tausend mil mille".split(), 1000))
#: foreign number words that are also English words or articles: read only when the reply is that word
_FOREIGN_AMBIGUOUS = frozenset("once elf null sept due tre otto mil uno".split())
_FOREIGN_FIRST_RE = re.compile(r"^\W*([^\W\d_]+)\W*(?:$|[.!,;:]|\s+[^\W\d_]+)")
_FOREIGN_UNITS = {"ein": 1, "eins": 1, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9}
_GERMAN_COMPOUND_RE = re.compile(rf"^({'|'.join(_FOREIGN_UNITS)})und([a-zß]+zig)$")
_ITALIAN_UNITS = {"uno": 1, "due": 2, "tre": 3, "tré": 3, "quattro": 4, "cinque": 5, "sei": 6, "sette": 7, "otto": 8, "nove": 9}
_ITALIAN_COMPOUND_RE = re.compile(r"^(vent|trent|quarant|cinquant|sessant|settant|ottant|novant)[ai]?(uno|due|tré|tre|quattro|cinque|sei|sette|otto|nove)$")
_SPANISH_UNITS = {"uno": 1, "ún": 1, "un": 1, "dós": 2, "dos": 2, "trés": 3, "tres": 3, "cuatro": 4, "cinco": 5, "séis": 6, "seis": 6,
                  "siete": 7, "ocho": 8, "nueve": 9}
_FOREIGN_LINK = frozenset("y e et und".split())
_FOREIGN_ONE = frozenset("un une uno una um uma ein eins".split())


def _foreign_token(word: str) -> int | None:
    """The value of one foreign number word, glued compounds included ("einundzwanzig", "veintidós", "ventotto")."""
    w = word.lower()
    if w in _FOREIGN_WORDS:
        return _FOREIGN_WORDS[w]
    if w in ("quatrevingt", "quatrevingts"):
        return 80
    m = _GERMAN_COMPOUND_RE.match(w)
    if m and m.group(2) in _FOREIGN_WORDS:
        return _FOREIGN_UNITS[m.group(1)] + _FOREIGN_WORDS[m.group(2)]
    if w.startswith("veinti") and w[6:] in _SPANISH_UNITS:
        return 20 + _SPANISH_UNITS[w[6:]]
    m = _ITALIAN_COMPOUND_RE.match(w)
    if m:
        tens = _FOREIGN_WORDS[next(t for t in _FOREIGN_WORDS if t.startswith(m.group(1)) and _FOREIGN_WORDS[t] % 10 == 0)]
        return tens + _ITALIAN_UNITS[m.group(2)]
    return None


def foreign_numbers(text: str) -> list[int]:
    """The values of the number phrases written in German, Spanish, French, Italian or Portuguese words
    ("sechs", "treinta y dos", "quatre-vingt-dix", "einundzwanzig"), in order; words that are also
    English ("once", "due") or articles ("un", "ein") are left out.

    >>> foreign_numbers("Ein Insekt hat sechs Beine."), foreign_numbers("Vingt et un, soit trois fois huit.")
    ([6], [21, 3, 8])
    """
    values: list[int] = []
    total, current, seen, last_end = 0, 0, False, -1
    text = re.sub(r"quatre-vingt", "quatrevingt", text, flags=re.IGNORECASE)
    for m in re.finditer(r"[^\W\d_]+(?:-[^\W\d_]+)*", text):
        tokens = m.group(0).split("-")
        glued = seen and text[last_end:m.start()].strip() == ""
        if seen and glued and len(tokens) == 1 and tokens[0].lower() in _FOREIGN_ONE:
            vals: list[int | None] = [1]  # "vingt et un", "vinte e um": one after a link
        else:
            vals = [_foreign_token(t) for t in tokens]
        if all(v is not None for v in vals) and (len(tokens) > 1 or glued or tokens[0].lower() not in _FOREIGN_AMBIGUOUS):
            if seen and not glued:
                values.append(total + current)
                total, current = 0, 0
            for v in vals:
                if v == 100:
                    current = max(current, 1) * 100
                elif v == 1000:
                    total += max(current, 1) * 1000
                    current = 0
                else:
                    current += v or 0
            seen, last_end = True, m.end()
        elif seen and glued and m.group(0).lower() in _FOREIGN_LINK and current >= 20 and current % 10 == 0:
            last_end = m.end()  # "treinta y dos", "vingt et un": a link inside one number ("dos y dos" is two)
        elif seen:
            values.append(total + current)
            total, current, seen = 0, 0, False
    if seen:
        values.append(total + current)
    return values


def _foreign_word(ctx: Context) -> str | None:
    """A reply in another language with no digits and no English number word: its number words when they
    name one value ("Sieben.", "Ein Insekt hat sechs Beine.", "Los insectos tienen seis patas.")."""
    if any(c.isdigit() for c in ctx.text):
        return None
    m = _FOREIGN_FIRST_RE.match(_courtesy_off(ctx.text))
    value = _FOREIGN_WORDS.get(m.group(1).lower()) if m else None
    if m and m.group(1).lower() in _FOREIGN_AMBIGUOUS and re.search(r"\w\W+\w", _courtesy_off(ctx.text)):
        value = None  # "Once upon a time ...": an English word; "Once." alone is the number
    if value is not None:
        whole = foreign_numbers(_courtesy_off(ctx.text)) if "number_words" not in ctx.disabled else []
        return str(whole[0] if whole and whole[0] > value else value)  # "Vingt et un.": the whole number
    if "number_words" in ctx.disabled or numbers_in(ctx.text) or not ctx.text.strip():
        return None
    values = set(foreign_numbers(ctx.text))
    return str(values.pop()) if len(values) == 1 else None


_NONE_RE = re.compile(r"^\W*(?:none|zero|not\s+(?:a\s+single\s+)?one|not\s+any)\b(?!\s+of\b)", re.IGNORECASE)


def _none(ctx: Context) -> str | None:
    """"None", "Zero", "Not one" opening the reply to a "how many" question: the count is 0 ("None - sharks
    have cartilage instead of bones."); not "none of the above" or "none of them are ...", which speak of options."""
    if not ctx.question or not re.search(r"\bhow\s+many\b", asked_part(ctx.question), re.IGNORECASE):
        return None
    head = _first(ctx)[0]
    return "0" if _NONE_RE.match(head) and not any(n.value for n in _nums(ctx, re.split(r"[,;:(]|\s-\s", head, maxsplit=1)[0])) else None


_AGE_BEFORE_RE = re.compile(r"\b(?:at\s+(?:the\s+)?age\s+(?:of\s+)?|aged\s+)$", re.IGNORECASE)
_AGE_AFTER_RE = re.compile(r"^[\s-]+years?[\s-]+old\b", re.IGNORECASE)


@lru_cache(maxsize=4096)
def _question_units(question: str) -> tuple[tuple[Fraction, str], ...]:
    return tuple((n.value, _unit_of(question, n)) for n in numbers_in(question))


def _given_of_other_unit(question: str, value: Fraction, unit: str) -> bool:
    """Whether the question gives ``value`` only as a count of other things ("5 workers ... how many days":
    "5 days" is an answer, not the 5 it gives)."""
    units = [u for v, u in _question_units(question) if v == value]
    return bool(units) and all(u and u[:4] != unit[:4] for u in units)


def _counted_in(ctx: Context, text: str) -> Num | None:
    """The number that counts what the question asks for ("how many edges": "... and 12 edges"; "how
    old": "at the age of 35"), when every such number the question does not give has one value. Not
    in working (an "=" or a sum): there the counts of each step are not the answer."""
    if not ctx.question or "=" in text or _EXPRESSION_RE.search(text):
        return None
    asked = _given_units(ctx.question)[1]
    if asked:
        if asked[:4] not in text.lower():
            return None  # a cheap test first: the counted noun is nowhere in the text
        found = [n for n in _nums(ctx, text) if _unit_of(text, n)[:4] == asked[:4]
                 and (not _given(ctx, n) or _given_of_other_unit(ctx.question, n.value, asked))]
        found = [n for n in found if not _EVERY_BEFORE_RE.search(text[max(0, n.start - 8):n.start])]  # "every 2 years": how often
        found = found or _compound_counts(ctx, text, asked)
    elif re.search(r"\bhow\s+old\b", asked_part(ctx.question), re.IGNORECASE) and ("age" in text.lower() or "old" in text):
        found = [n for n in _nums(ctx, text)
                 if _AGE_BEFORE_RE.search(text[max(0, n.start - 20):n.start]) or _AGE_AFTER_RE.match(text[n.end:n.end + 12])]
    else:
        return None
    if any(_RANGE_END_RE.search(text[max(0, n.start - 30):n.start]) for n in found):
        return None  # "7 to 9 hours": a range, no one number
    return found[0] if found and len({n.value for n in found}) == 1 else None


_TEMPERATURE = {"c": "celsius", "centigrade": "celsius", "celsius": "celsius", "f": "fahrenheit", "fahrenheit": "fahrenheit",
                "k": "kelvin", "kelvin": "kelvin", "kelvins": "kelvin"}
_UNIT_AFTER_NUMBER_RE = re.compile(r"\s?(?:\u00b0\s?([CFK])\b|degrees?\s+(celsius|centigrade|fahrenheit)\b|([A-Za-z]{1,12})\b)", re.IGNORECASE)
_IN_UNIT_RE = re.compile(r"\b(?:in|into|to)\s+(?:degrees\s+)?(\u00b0?[A-Za-z]+)\W*$|\bhow\s+many\s+(?:degrees\s+)?([A-Za-z]+)", re.IGNORECASE)


_OPERATOR_BEFORE_RE = re.compile(r"[\u00d7*+/\u00f7=]\s*$|\sx\s*$")
_OPERATOR_AFTER_RE = re.compile(r"\s*(?:[\u00d7*+/\u00f7=]|x\s)")
_MEASURES = frozenset({*_TEMPERATURE.values(), *_UNIT_ABBREVIATIONS.values(), "mile", "kilometer", "meter"})


def _unit_name(word: str) -> str:
    """A unit in one spelling, temperatures included ("°F", "Fahrenheit" -> "fahrenheit"; "km" -> "kilometer")."""
    low = word.lower().lstrip("\u00b0")
    return _TEMPERATURE.get(low) or _unit_key(low)


@lru_cache(maxsize=4096)
def _measure_asked(question: str) -> str | None:
    """The unit of measurement a question asks its answer in ("in Fahrenheit", "how many kilometres"), or None."""
    asked = _IN_UNIT_RE.search(asked_part(question).rstrip("?. "))
    want = _unit_name(asked.group(1) or asked.group(2)) if asked else None
    return want if want in _MEASURES else None


def _in_asked_unit(ctx: Context) -> str | None:
    """A quantity stated in the unit the question asks for ("in Fahrenheit", "how many kilometres") beside
    its conversion to another unit ("212 degrees Fahrenheit, which is 100 degrees Celsius"): the one in the
    asked unit, when the output gives one value in it and another unit besides."""
    if not ctx.question:
        return None
    want = _measure_asked(ctx.question)
    if want is None:
        return None  # no unit asked, or "how many eggs": a count, not a unit of measurement
    units = []
    nums = _nums(ctx, ctx.prose)
    if not nums or not _UNIT_AFTER_NUMBER_RE.match(ctx.prose, nums[0].end):
        return None  # "3,600 (60 minutes × 60 seconds)": a bare number stated first is the answer
    for n in nums:
        m = _UNIT_AFTER_NUMBER_RE.match(ctx.prose, n.end)
        if m and (_OPERATOR_BEFORE_RE.search(ctx.prose[max(0, n.start - 3):n.start]) or _OPERATOR_AFTER_RE.match(ctx.prose, m.end())):
            continue  # an operand of the working ("60 minutes × 60 seconds"), not a stated quantity
        if m and m.group(3) and m.group(3).lower() in ("in", "s", "m", "c", "h") and re.match(r"\s+[a-z]", ctx.prose[m.end():]):
            continue  # "2 in the bowl": a preposition, not inches
        if m and not n.pct:
            units.append((n, _unit_name(m.group(1) or m.group(2) or m.group(3))))
    units = [(n, u) for n, u in units if not (u == want and _given(ctx, n))]  # "5 km a day": a quantity the question gives
    hits = {n.value for n, u in units if u == want}
    others = {u for _, u in units if u != want and u in _MEASURES}
    if len(hits) != 1 or not others:
        return None
    return _answer(next(n for n, u in units if u == want), ctx)


_EVERY_BEFORE_RE = re.compile(r"\bevery\s+$", re.IGNORECASE)
_COMPOUND_COUNT_RE = re.compile(rf"(?<![\w-])(\d+|{_COUNT_WORD})-([a-z]+)\b", re.IGNORECASE)


def _compound_counts(ctx: Context, text: str, asked: str) -> list[Num]:
    """A count glued to the asked unit as a compound adjective ("six-year terms", "a 30-year mortgage" for
    "how many years"), read when no plain count is there ("6 strings, although 12-string guitars exist");
    not one that another count multiplies ("two four-year terms")."""
    if "-" not in text:
        return []
    found = []
    for m in _COMPOUND_COUNT_RE.finditer(text):
        if stem(m.group(2))[:4] != asked[:4] or numbers_in(text[max(0, m.start() - 12):m.start()]):
            continue
        value = Fraction(_count(m.group(1)))
        if m.group(1).isdigit() or value:
            found.append(Num(m.start(), m.end(), value, False))
    return found


_FIRST_WORD_RE = re.compile(r"^[^\w]*(?:(?:about|around|approximately|roughly|nearly|almost|over|under|just|exactly|only|some)\s+)?([^\W_]+)",
                            re.IGNORECASE)


def _opens_with_number(ctx: Context) -> bool:
    """Whether the output opens with a number ("206", "Four.", "About 95,"): the answer, stated first."""
    m = _FIRST_WORD_RE.match(_courtesy_off(ctx.text))
    if m is None:
        return False
    word = m.group(1).lower()
    return word[0].isdigit() or word in _SMALL or word in _TENS


def _counted(ctx: Context) -> str | None:
    """Inside a sentence: the number that counts what the question asks for ("A cube has 6 faces,
    8 vertices and 12 edges." for "How many edges does a cube have?"); not when the output opens
    with its answer ("Five per side, so ten players on the court")."""
    if _opens_with_number(ctx):
        return None
    found = _counted_in(ctx, ctx.prose)
    return _answer(found, ctx) if found else None


def _off_topic(ctx: Context) -> str | None:
    """A ramble that never speaks of what the question counts ("how many moons": a paragraph about the
    planet with its distance and a year, no moon in it) answers nothing: unextracted."""
    if not ctx.question or ctx.strong_marks or "=" in ctx.text or len(without_closing(ctx.text).split()) < 12 or _opens_with_number(ctx):
        return None
    if not re.search(r"\bhow\s+many\b", asked_part(ctx.question), re.IGNORECASE):
        return None
    asked = _given_units(ctx.question)[1]
    if not asked or len(asked) < 3 or WEAK_MARK_RE.search(ctx.text):
        return None
    if any(stem(w)[:4] == asked[:4] for w in words(ctx.text)) or _names_asked_unit(ctx):
        return None
    verb = re.search(r"\bhow\s+many\s+[A-Za-z]+\s+(?:does|did|do|will|would|can|could)\s+(?:[\w'-]+\s+){1,4}?([a-z]+)\s*(?:\?|$)",
                     asked_part(ctx.question), re.IGNORECASE)
    if verb and re.search(rf"\b{_verb_forms(verb.group(1).lower())}\s+(?:(?:about|around|over|nearly|only|just|exactly)\s+)?\d",
                          ctx.text, re.IGNORECASE):
        return None  # "Titanic won 11 Academy Awards ..." for "How many Oscars did Titanic win?": the asked verb's count
    return ABSTAIN


def _names_asked_unit(ctx: Context) -> bool:
    """Whether the output speaks of the unit a "how many" question asks for by its symbol ("42.2 km" for
    "how many kilometers", "250 ml" for "how many millilitres")."""
    asked = re.search(r"\bhow\s+many\s+([A-Za-z]+)", asked_part(ctx.question or ""), re.IGNORECASE)
    if not asked:
        return False
    want = _unit_key(asked.group(1))
    return any(_unit_key(m.group(1)) == want for m in re.finditer(r"\d\s?([A-Za-z]{1,4})\b", ctx.text))


_IRREGULAR_PAST = {"win": "won", "have": "has|had", "get": "got", "make": "made", "take": "took", "sell": "sold", "buy": "bought",
                   "eat": "ate", "give": "gave", "lose": "lost", "write": "wrote", "find": "found", "catch": "caught", "see": "saw",
                   "hold": "held", "lay": "laid", "build": "built", "spend": "spent", "keep": "kept", "run": "ran", "throw": "threw",
                   "drink": "drank", "grow": "grew", "fly": "flew", "bring": "brought", "teach": "taught", "do": "did|does"}


def _verb_forms(verb: str) -> str:
    """A regex alternation of the forms of ``verb`` ("win" -> "win|wins|won|winning|...")."""
    base = verb[:-1] if verb.endswith("e") else verb
    forms = {verb, verb + "s", verb + "es", base + "ed", base + "ing", verb + verb[-1] + "ed", verb + verb[-1] + "ing"}
    if verb.endswith("y"):
        forms |= {verb[:-1] + "ies", verb[:-1] + "ied"}
    return "(?:" + "|".join(sorted(forms)) + (("|" + _IRREGULAR_PAST[verb]) if verb in _IRREGULAR_PAST else "") + ")"


_GUESS_RE = re.compile(r"\b(?:if\s+i\s+(?:had|have)\s+to\s+(?:guess|pick|choose|say|bet)|my\s+(?:best\s+)?guess\s+(?:is|would\s+be)"
                       r"|i'?d\s+(?:guess|go\s+with|say|pick)|i\s+would\s+(?:guess|go\s+with|say|pick)|best\s+guess)\b", re.IGNORECASE)


def guessed_after_hedge(ctx: Context) -> bool:
    """Whether an output that says it does not know goes on to commit to a guess ("I don't know, but if I
    had to guess, B."): the guess is its answer."""
    m = HEDGE_RE.search(ctx.text)
    return m is not None and _GUESS_RE.search(ctx.text, m.end()) is not None


# a number that opens a range: "40 to 50", "40-50"
_RANGE_AFTER_RE = re.compile(r"\s*%?\s*(?:-|\u2013|to)\s*[-$\u20ac\u00a3]?\d")
_ARROW_RE = re.compile(r"\u2192|->|=>|\u21d2")
_BETWEEN_AND_RE = re.compile(r"\bbetween\s+\W*$", re.IGNORECASE)
_AND_AFTER_RE = re.compile(r"\s*%?\s*and\s*[-$\u20ac\u00a3]?\d")
# a later figure that refines the first: "..., 480 to be precise", "Actually ... exactly 480"
_REFINED_AFTER_RE = re.compile(r"\d[\d,.]*\s+to\s+be\s+(?:precise|exact)\b|\b(?:actually|more\s+precisely|to\s+be\s+(?:precise|exact))\b[^.!?]*?"
                               r"\b(?:exactly|precisely)\s+\d", re.IGNORECASE)
_PICK_AFTER_RE = re.compile(r"\b(?:probably|likely|most\s+likely|i'?d\s+(?:say|go\s+with|guess)|my\s+(?:best\s+)?guess\s+is)\s+\D{0,10}\d", re.IGNORECASE)
_RANGE_RE = re.compile(r"^\W*(?:(?:about|around|roughly|approximately|somewhere|anywhere)\s+)?(?:between|from)?\s*[-$€£]?\d[\d.,]*\s*%?\s*"
                       r"(?:-|to|and|or)\s*[-$€£]?\d[\d.,]*\s*%?\s*(?:[A-Za-z°]+\s*){0,2}\W*$", re.IGNORECASE)
#: a range in number words opening the reply ("Between five and ten, depending on the breed.")
_WORD_RANGE_RE = re.compile(rf"^\W*(?:(?:about|around|roughly|approximately|somewhere|anywhere|usually|typically)\s+)?(?:between|from)\s+"
                            rf"(?:{_COUNT_WORD})\s+(?:to|and)\s+(?:{_COUNT_WORD})\b(?!\s*[-\w])", re.IGNORECASE)


def _hedge(ctx: Context) -> str | None:
    """A hedge commits to no number, unless a number was stated first and the hedge only qualifies it
    ("Around 95, though it depends on the size: ...")."""
    if ctx.hedged and guessed_after_hedge(ctx):
        return None
    if not ctx.hedged:
        head = _first(ctx)[0]
        if _RANGE_RE.match(head) and not ctx.strong_marks:
            return ABSTAIN  # "Between 5 and 7.": a range, no one number
        return None
    m = HEDGE_RE.search(ctx.text)
    before = ctx.text[:m.start()] if m else ""
    lead = re.split(r",\s|;\s|:\s|\s-\s", before, maxsplit=1)[0]
    if re.search(r"\b(?:though|although|but)\s+$", before) and len(lead.split()) <= 4 and len(_nums(ctx, lead)) == 1 \
            and len(sentences(before)) == 1:
        return None
    return ABSTAIN


#: An output that is a calculation and nothing else ("263 + 50", "12 × 3 + 4"): the result never came.
#: A fraction or a range ("3/4", "5-10") has no spaces around its sign and is not one.
_BARE_SUM_RE = re.compile(r"^\s*-?\d[\d,.]*(?:\s*(?:[+*×÷]|\s[-/−]\s)\s*-?\d[\d,.]*)+\s*[.…]?\s*$")


def _unfinished(ctx: Context) -> str | None:
    """Reasoning cut off before it reached a number: several sentences, the last one stopping
    mid-clause (no closing punctuation, not a number with its unit)."""
    text = _courtesy_off(ctx.prose)  # "Great question! four" is no reasoning cut off
    if open_sum(ctx.text) or _BARE_SUM_RE.match(ctx.text):
        return ABSTAIN  # "... we divide: 240 / 3 =", "263 + 50": cut off before the result
    if not text or not text[-1].isalpha() or len(sentences(text)) < 2:
        return None
    last = sentences(text)[-1]
    if WEAK_MARK_RE.search(last) or re.search(r"\d[\d,.]*\s*%?\s*[A-Za-z°/²³]{0,12}$", last):
        return None
    if _cut_aside(last) and _nums(ctx, text[:len(text) - len(last)]):
        return None  # "21 sheep. If the farmer buys 4 more sheep, he will have": an aside cut off after the answer
    if _counted_in(ctx, sentences(text)[0]):
        return None  # "A bicycle has two wheels. A tricycle has three wheels. A truck has": answered before the cut
    return ABSTAIN


_HYPOTHETICAL_RE = re.compile(r"^\W*(?:if|suppose|supposing|for\s+example|for\s+instance|imagine|by\s+comparison|in\s+comparison|to\s+(?:check|verify|confirm)"
                              r"|(?:to\s+)?double[-\s]?check\w*)\b", re.IGNORECASE)


def _cut_aside(sentence: str) -> bool:
    """A last sentence cut off mid-clause that only supposes or checks ("If he buys 4 more, he will have")."""
    return bool(sentence) and sentence[-1].isalpha() and bool(_HYPOTHETICAL_RE.match(sentence) or re.search(r"\b(?:would|could)\b", sentence))


_TOTAL_AFTER_RE = re.compile(r"\s*(?:in\s+total|in\s+all|altogether|total)\W*$", re.IGNORECASE)


def _after_mark(ctx: Context, sentence: str, mark: re.Match[str]) -> Num | None:
    """The number a concluding word points to: after it, or just before "in total" ending a clause
    ("There are 8 planets in total; ..."). A sentence that recalls a retracted answer points to none."""
    if _RETRACTED_RE.search(sentence):
        return None
    rest = sentence[mark.end():]
    if re.match(r"^\s*(?:[;,.:(]|$)", rest) and _TOTAL_AFTER_RE.search(sentence[:mark.end()]):
        before = _nums(ctx, sentence[:mark.start()])
        if before:
            return before[-1]
    return _result(ctx, rest)


# a sentence that recalls an answer taken back: "Earlier I said 63 by mistake."
_RETRACTED_RE = re.compile(r"\b(?:(?:earlier|before|first|previously|initially)\s+(?:i\s+)?(?:said|wrote|gave|answered|put|thought)"
                           r"|i\s+(?:first|initially|previously|earlier)\s+(?:said|wrote|gave|answered|put|thought)|by\s+mistake"
                           r"|i\s+(?:said|wrote|gave|answered|put)\s+[^.;:]{0,20}?\b(?:earlier|before|at\s+first|first)\b[^.;:]{0,40}?\b(?:wrong|incorrect|mistake|error)"
                           r"|(?:was|is)\s+(?:wrong|incorrect|a\s+(?:mistake|typo|slip)))\b", re.IGNORECASE)


_ASIDE_LINE_RE = re.compile(r"^[ \t]*\([^\n]*\)[ \t.]*$\n?", re.MULTILINE)


_ASIDE_RE = re.compile(r"^\([^()]*\)\W*$")


def _body(ctx: Context) -> list[str]:
    """The sentences of the prose without asides: a paragraph wholly in parentheses ("(A common mistake
    is to add 20%, which gives $60.)") remarks on the answer, it does not state it."""
    memo = ctx.__dict__.get("_body")
    if memo is None:
        text = _ASIDE_LINE_RE.sub("", ctx.prose).strip() if "(" in ctx.prose else ctx.prose
        parts = sentences(text or ctx.prose)
        if "(" in text:  # "(A baker's dozen would be 13 each, so 39.)" after the answer
            parts = [p for p in parts if not _ASIDE_RE.match(p)] or parts
        memo = ctx.__dict__["_body"] = parts
    return memo


def _computed_later(ctx: Context, later: list[str], value: Fraction) -> bool:
    """Whether a sentence after a conclusion works on from it to another result ("For 10 people:
    75 × 10 = 750 g." after "so per person 300 / 4 = 75 g"): the conclusion was a step, not the answer."""
    for sentence in later:
        if "=" in sentence and not _PLEASANTRY_RE.match(sentence) and not _RETRACTED_RE.search(sentence):
            found = _result(ctx, sentence)
            inputs = _nums(ctx, sentence.rsplit("=", 1)[0])
            if found and found.value != value and any(n.value == value for n in inputs):
                return True  # the conclusion is an input of the later step
    return False


def _concluding(ctx: Context) -> str | None:
    """The number after the concluding word ("so", "therefore", "in total") of the last sentence that
    has one, the result of an equation when the sentence holds one; not when a later sentence works
    out another result."""
    parts = _body(ctx)
    for i in range(len(parts) - 1, -1, -1):
        for mark in WEAK_MARK_RE.finditer(parts[i]):
            num = _after_mark(ctx, parts[i], mark)
            if num:
                return None if _computed_later(ctx, parts[i + 1:], num.value) else _answer(num, ctx)
    return None


_PLEASANTRY_RE = re.compile(r"^(?:i\s+hope|hope\s+(?:this|that|it)\b|glad\s+to\s+help|is\s+there\s+anything\s+else|anything\s+else\b|let\s+me\s+know|feel\s+free|good\s+luck|happy\s+to|thanks|thank\s+you"
                            r"|(?:(?:an?|that\s+was\s+an?|what\s+an?)\s+)?(?:easy|simple|fun|good|great|nice|tricky|neat|classic|interesting)\s+(?:one|question|problem|puzzle)\b[^\d]*$"
                            r"|happy\s+(?:learning|studying|cooking|baking|travel(?:l?ing)?|reading|coding|holidays)\b|enjoy\b|cheers\b|have\s+(?:a|fun)\b|best\s+of\s+luck|keep\s+up\b"
                            r"|(?:would|do)\s+you\s+(?:like|want)\s+(?:me\s+to|help|to\s+(?:see|try|know))|(?:let\s+me\s+know|tell\s+me)\s+if\b|reach\s+out\b"
                            r"|\([^()]*\)\W*$|check\b|checking\b|verif\w*|sanity\s+check|proof\b|if\s+(?:you|we|rounded|rounding)\b"
                            r"|(?:to\s+)?double[-\s]?check\w*|to\s+(?:check|verify|confirm)\b|[^\w]*$)", re.IGNORECASE)


_ARRIVED_RE = re.compile(r"\b(?:(?:i|we|you)\s+(?:get|got|obtain(?:ed)?|arrive(?:d)?\s+at|end(?:ed)?\s+up\s+with|calculated|computed|found)"
                         r"|^\W*(?:an?|one)\s+\w+\s+(?:is|equals|has|makes|contains)(?:\s+exactly)?)\s+[-$\u20ac\u00a3]?$",
                         re.IGNORECASE)
_TOTAL_WORD_RE = re.compile(r"\b(?:total|altogether|in\s+all|overall)\s*:?\s*(?=[-$€£]?\d)", re.IGNORECASE)
_ENDS_IS_NUMBER_RE = re.compile(r"\s(?:is|are|equals|makes)\s+[-$]?\d[\d,.]*\s*%?\s*\W*$")


_TRAILING_NOTE_RE = re.compile(r"^\W*(?:notes?|tips?|hint|reminder|caveat|disclaimer|sources?|n\.?b\.?|p\.?s\.?|fun\s+fact|for\s+reference"
                               r"|(?:by\s+the\s+way|btw))\s*[:,\-]"
                               r"|^\W*(?:(?:you\s+can\s+|let's\s+|to\s+)?(?:check|verify|confirm|double[-\s]check)(?:ing)?|verification|sanity\s+check)\b[^:]{0,20}:"
                               r"|^\W*(?:is\s+there\s+anything\s+else|(?:would|do)\s+you\s+(?:like|want)\s+me\s+to|let\s+me\s+know\s+if|feel\s+free\s+to)\b",
                               re.IGNORECASE)


def _last_number(ctx: Context) -> str | None:
    """The last number, when it sits in the last sentence; an output whose last sentence has no number
    trails off or rambles, and is not read."""
    body = _body(ctx)
    note = next((i for i, s in enumerate(body) if i and _TRAILING_NOTE_RE.match(s)), None)
    if note is not None and any(_nums(ctx, s) for s in body[:note]):
        body = body[:note]  # "... = 180 minutes. Note: 1 hour = 60 minutes.": notes and offers come after the answer
    parts = [s for s in body if not _PLEASANTRY_RE.match(s) and not _RETRACTED_RE.search(s)]
    if len(parts) > 1 and _cut_aside(parts[-1]):
        parts = parts[:-1]
    if not parts:
        return None
    last = parts[-1]
    if "(" in last:  # "About 1 kg (at 4 °C).": the aside's numbers are not the answer (a worked "(60 ÷ 12 = 5)" is no aside)
        outside = re.sub(r"\([^()=]*\)", " ", last)
        last = outside if _nums(ctx, outside) else last
    total = _TOTAL_WORD_RE.search(last)
    if total and _nums(ctx, last[total.end():]):  # "3 × 3 = 9, 2 × 4 = 8, total 17."
        return _answer(_nums(ctx, last[total.end():])[0], ctx)
    wanted = _preferred(ctx, _nums(ctx, last))
    if wanted and len(wanted) < len(_nums(ctx, last)):
        return _answer(wanted[-1], ctx)
    if "=" in last or "\u2248" in last or _ENDS_IS_NUMBER_RE.search(last):  # "144 divided by 12 is 12."
        found = _result(ctx, last)
        if found:
            return _answer(found, ctx)
    nums = _nums(ctx, last)
    if not nums:
        return ABSTAIN
    if (_given(ctx, nums[-1]) and len(ctx.sentences) == 1 and len(last.split()) > 3
            and not _ARRIVED_RE.search(last[:nums[-1].start]) and not _WORDED_SUM_RE.search(last)):
        return ABSTAIN  # a remark about the question's own numbers ("I get 12" arrives at it: an answer)
    return _answer(nums[-1], ctx)


def _first_number(ctx: Context, text: str) -> str | None:
    """The first number of ``text`` (a pick among candidates: "Probably 13, since ...")."""
    nums = _nums(ctx, text)
    return _answer(nums[0], ctx) if nums else None


def _last(ctx: Context, text: str) -> str | None:
    """The number closing ``text``: the value a check confirms ("14 + 26 = 40, yes, 26."), the result of a closing
    sum, else the last number (a check or an aside in parentheses after it is no answer)."""
    last = sentences(text)
    confirmed = _CONFIRMED_RE.search(last[-1]) if last else None
    if confirmed and _nums(ctx, confirmed.group(1)):
        return _answer(_nums(ctx, confirmed.group(1))[0], ctx)
    found = _result(ctx, last[-1]) if last else None
    if found and "=" in last[-1]:
        return _answer(found, ctx)
    nums = _nums(ctx, text)
    return _answer(nums[-1], ctx) if nums else None


# the table of the marker stage: a marker on a line of its own announces the whole reply ("Here's the answer:\n\n15 + 27
# = 42"), read as one unless the line is the number alone
MARKERS = Markers(first=_resulting, named=_opening, last=_last, conclusion=WEAK_MARK_RE, region=("marked", "concluding", "last"),
                  alone=lambda ctx, line: len(_nums(ctx, line)) <= 1 or _BARE_RE.match(line) is not None)

RULES: tuple[Rule, ...] = _markers.cascade(
    MARKERS, lambda: RULES, _correction, pick=_first_number, hedge=_hedge, unfinished=_unfinished,
    also=(Rule("range", "abstain", _commitment.range_only), Rule("off_topic", "abstain", _off_topic)),
    stated=(Rule("table", "table", _table),), prose=(
    Rule("none", "answer_first", _none),
    Rule("foreign_word", "number_words", _foreign_word),
    Rule("conversion", "answer_first", _conversion),
    Rule("in_asked_unit", "answer_inside_sentence", _in_asked_unit),
    Rule("counted", "answer_inside_sentence", _counted),
    Rule("named_value", "answer_inside_sentence", _named_value),
    Rule("asked_unit", "answer_first", _asked_unit),
    Rule("answer_first", "answer_first", _commitment.number_on_question(_answer_first)),
    Rule("concluding", "marker", _concluding),
    Rule("last_number", "last", _last_number),
))


def read(output: str, question: str | None = None, disabled: frozenset[str] = frozenset()) -> str | None:
    """The numeric answer of ``output`` as a canonical string, or None (the number cascade alone)."""
    from gengap.extract._cascade import run_cascade

    ctx = Context(output, "number", question=question, disabled=disabled)
    return run_cascade(RULES, ctx, disabled=disabled).value
