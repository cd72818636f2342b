"""Multiple-choice answers: a letter, an option number or ordinal, or the option's text or a paraphrase
of it, read as the option's letter.

Principles a careful reader uses besides: an option word for word before a dash or colon is the pick and
the rest discusses others; a reply that speaks in letters picks by letter, not by an option it names as a
reason; ordinals of other languages ("la tercera opción") and "the one before last" name options; a sign
written as a word ("O negative") and a span of time in another unit ("an hour and a half") name an option."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache

from gengap._errors import DataError
from gengap.extract import _commitment, _markers
from gengap.extract._base import (
    ABSTAIN,
    HEDGE_RE,
    STOPWORDS,
    Context,
    Rule,
    clean,
    compiled,
    content_stems,
    first_part,
    last_match,
    open_sum,
    sentences,
    stem,
    without_preamble,
    words,
)
from gengap.extract._markers import Markers, marker_pattern, read_region
from gengap.extract._numbers import CLOSING_RE as _CLOSING_RE
from gengap.extract._numbers import correction_region, guessed_after_hedge, numbers_in


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
    text = clean(str(text)).lower()
    text = re.sub(r"[^\w\s]", " ", text)
    text = re.sub(r"\b(?:a|an|the)\b", " ", text)
    return " ".join(text.split())


@lru_cache(maxsize=64)
def _patterns(letters: str) -> tuple[re.Pattern[str], ...]:
    cls = f"[{letters}{letters.lower()}]"
    up = f"[{letters}]"
    marked = re.compile(
        rf"^(?:\W{{0,3}})(?:the\s+)?(?:option|choice|letter)?\s*[\(\[]?({cls})(?:[\)\]]|\b)(?!['’]\w)(?!\s+(?:\w+\s+)?(?:is|are|was|were|has)\b)",
        re.IGNORECASE,
    )
    bare = re.compile(rf"^\W{{0,3}}(?:option\s+|choice\s+|letter\s+)?[\(\[]?({up})(?:[\)\]]|\.(?!\w)|:|\s*$|\s*\n|\s+[-:]|,|\s+\(|\s*→|\s+(?:because|since)\b)",
                      re.IGNORECASE)
    paren = re.compile(rf"(?:\(|\[)({up})(?:\)|\])|(?:option|choice)\s+({up})\b")
    is_correct = re.compile(
        rf"(?:^|[\s(:])\(?({up})\)?\s+(?:is\s+(?:the\s+)?(?:correct|right|answer|true|best|one)|wins|stands|it\s+is|fits\s+best|is\s+it)\b"
        rf"|\b(?i:so|therefore|thus|hence|it's|it\s+is|i'd\s+say|i'll\s+say|i\s+say|go\s+with|answer\s+to|pick|choose)\s*,?\s*\(?({up})\)?(?![\w'’])"
        rf"|\b(?i:i\s+think|i\s+believe|probably)\s+(?i:it's\s+|it\s+is\s+)?\(?({up})\)?(?![\w'’])")
    trailing = re.compile(rf"(?:^|[\s:>→])[\(\[]?({up})[\)\]]?[.!]?\s*$")
    return marked, bare, paren, is_correct, trailing


# "A" opening a sentence as its article: a capital A, then a lower-case word that is not a connective
_ARTICLE_A_RE = re.compile(r"^\W{0,3}A\s+(?!(?:because|since|as|is|was|seems|looks|or|and|but|for|with|which|given|here|again|too|also"
                           r"|instead|then|though|although|over|rather|not|only|definitely|clearly|obviously|probably|i|it)\b)[a-z]{2,}")
_TABLE_LINE_RE = re.compile(r"^\s*\|.*$\n?", re.MULTILINE)
# a concession opening a sentence names what the answer is not ("Although Mercury is closer, Venus ...")
_CONCESSION_RE = re.compile(r"(?:^|(?<=[.!?]\s))(?:although|though|while|whereas|even\s+though|despite|unlike)\b[^,.]{1,80},\s*",
                            re.IGNORECASE)

_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
             "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
             **{str(i): i for i in range(1, 10)}, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5, "6th": 6,
             "i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8}
_NTH = r"(second[-\s]to[-\s]last|second[-\s]last|next[-\s]to[-\s]last|last[-\s]but[-\s]one|one\s+before\s+(?:the\s+)?last|penultimate|first|second|third|fourth|fifth|sixth|seventh|eighth|last|final|middle|1st|2nd|3rd|4th|5th|6th)"
_ORDINAL_RE = re.compile(
    rf"\b(?:the\s+)?{_NTH}\s+(?:option|choice|answer|one|alternative|item|sentence|statement|fraction|number|word|pair|answer\s+choice)\b"
    r"|(?:\b(?:option|choice|answer|alternative|item|sentence|statement)\s*(?:number\s*|no\.?\s*|#\s*)?|(?<![\w#])#\s*)"
    r"\(?(\d|i{1,3}|iv|vi{0,3}|one|two|three|four|five|six|seven|eight)\)?(?!\w)(?![.,]\d)"
    rf"|\bthe\s+{_NTH}(?=\s*[:\u2014]|\s+(?:is|was|one|fits|matches|applies)\b)"  # "only the third is a reptile"
    rf"|\b(?:say|it's|it\s+is|go\s+with|pick|choose)\s+the\s+{_NTH}(?=\s*[.!]?\s*$)"  # "I'd say the third."
    r"|\b(?:go(?:ing)?\s+with|pick|choose|select)\s+(?:number|no\.|#)\s*\(?(\d)\)?(?!\w)(?![.,]\d)",  # "I'll go with number 3"
    re.IGNORECASE,
)
# an output that opens with an option's number or ordinal alone: " 2", "Number 2 is correct.", "Second."
_OPENING_INDEX_RE = re.compile(rf"^\W*(?:(?:number|no\.|#)\s*)?\(?([1-9]|(?<=number\s)(?:one|two|three|four|five|six|seven|eight))\)?(?:[.:)]?\s*$|[.:)]?\s+(?:is|was)\b|[,;\u2014-])"
                               rf"|^\W*(?:the\s+)?{_NTH}\W*$|^\W*(?:the\s+)?{_NTH}\s*[,;:\u2014-]", re.IGNORECASE)


def _ordinal_letter(m: re.Match[str], n: int) -> str | None:
    word = next(g for g in m.groups() if g).lower()
    if (word.endswith("last") or word.endswith("one")) and word not in ("last", "one") or word == "penultimate":
        return choice_letters(n)[n - 2] if n >= 2 else None
    index = n if word in ("last", "final") else (n + 1) // 2 if word == "middle" and n % 2 else _ORDINALS.get(word)
    if index is None or not 1 <= index <= n:
        return None
    return choice_letters(n)[index - 1]


_LISTING_LINE_RE = re.compile(r"^\s*[\(\[]?[A-Ea-e][.)\]](?:\s+\S|(?=[A-Z]))(?:.*(?:\n(?![ \t]*[\(\[]?[A-Ea-e][.)\]])[a-z].*)*)?$\n?", re.MULTILINE)


_FINAL_NOTE_RE = re.compile(r"\n\s*(?:notes?|tips?|disclaimer|caveat|n\.?b\.?)\s*:[^\n]*$", re.IGNORECASE)


def _unlisted(ctx: Context) -> str:
    """The output without a listing of options ("A. Paris / B. Lyon / ..." on lines of their own):
    a model that writes the options out has not chosen one yet."""
    memo = ctx.__dict__.get("_unlisted")
    if memo is None:
        lines = _LISTING_LINE_RE.findall(ctx.text)
        listing = len(lines) >= 2 and lines[0].strip().lstrip("([")[:1].upper() == "A"  # written out from A
        memo = _LISTING_LINE_RE.sub("", ctx.text).strip() if listing else ctx.text
        closing = _CLOSING_RE.search(memo)
        if closing and closing.start() > 0:
            memo = memo[:closing.start()].rstrip()  # "If I recall correctly, C.\n\nLet me know if ...": the offer closes the reply
        note = _FINAL_NOTE_RE.search(memo)
        if note and note.start() > 0 and not re.search(rf"\b[{_letters(ctx)}]\b", note.group(0)) and not _mentions(ctx, note.group(0)):
            memo = memo[:note.start()].rstrip()  # a closing note that names no option remarks on the answer
        if not listing and ctx.choices and "\n" not in ctx.text.strip() and _LISTING_START_RE.match(ctx.text) \
                and re.fullmatch(_one_line_listing(tuple(ctx.choices)), ctx.text.strip()):
            memo = ""  # "A) Helium B) Hydrogen C) Oxygen D) Nitrogen" on one line
        ctx.__dict__["_unlisted"] = memo
    return memo


_LISTING_START_RE = re.compile(r"\W*[\(\[]?A[.):\]]\s*\S.*\bB[.):\]]", re.IGNORECASE)


@lru_cache(maxsize=4096)
def _one_line_listing(choices: tuple[str, ...]) -> re.Pattern[str]:
    """The options written out in order with their letters, on one line."""
    items = [rf"[\(\[]?{letter}[.):\]]\s*{re.escape(option)}" for letter, option in zip(choice_letters(len(choices)), choices)]
    return re.compile(r"\W*" + r"\s*[,;]?\s*".join(items) + r"\W*", re.IGNORECASE)


def _letters(ctx: Context) -> str:
    return choice_letters(len(ctx.choices)) if ctx.choices else "ABCDE"


# ---------------------------------------------------------------------------------------- option texts
_DERIVED_RE = re.compile(r"(?:wards?|ern|erly|alian|alia|ian|ical|ic|ous|ive)$")  # "eastward", "eastern" from "east"; "mammalian" from "mammal"


def _stem_match(a: str, b: str) -> bool:
    if a == b:
        return True
    if not a or not b or a[0] != b[0]:
        return False
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    if long.startswith(short):
        return len(short) >= 5 or (len(short) >= 3 and len(long) - len(short) <= 2) \
            or (len(short) >= 4 and _DERIVED_RE.fullmatch(long[len(short):]) is not None)  # "eastward", "eastern"
    if len(short) >= 6 and short[:6] == long[:6] and not short.isdigit():
        return True
    return len(a) == len(b) >= 3 and a[:-1] == b[:-1] and {a[-1], b[-1]} == {"v", "f"}  # "wolves" / "wolf", "leaves" / "leaf"


def _option_stems(ctx: Context) -> tuple[frozenset[str], ...]:
    """Per option, the stems that tell it apart: not shared with another option nor with the question."""
    return _distinct_stems(tuple(ctx.choices or ()), ctx.question_stems)


@lru_cache(maxsize=4096)
def _distinct_stems(choices: tuple[str, ...], question_stems: frozenset[str]) -> tuple[frozenset[str], ...]:
    per = [{stem(w) for w in words(c) if w.lower() not in STOPWORDS} for c in choices]
    counts: dict[str, int] = {}
    for s in per:
        for w in s:
            counts[w] = counts.get(w, 0) + 1
    return tuple(frozenset({w for w in s if counts[w] == 1 and w not in question_stems} or s) for s in per)


_NEGATED_MENTION_RE = re.compile(r"\b(?:not|isn't|aren't|never|nor|unlike|rather\s+than|instead\s+of|except)\s+(?:\w+\s+){0,2}$",
                                 re.IGNORECASE)
_WRONG_AFTER_RE = re.compile(r"^\W*(?:\w+\s+){0,2}(?:is|are|was|were)\s+(?:wrong|incorrect|not|false|out|ruled\s+out|the\s+reverse)\b",
                             re.IGNORECASE)


#: the same substance written as a formula or by name ("CO2" for "Carbon dioxide"): two spellings of one name, like
#: an acronym. An option belongs to a group when one of its spellings is in the option's text, and the output names it
#: when it uses any spelling of the group (only where no other option belongs to the same group). Equivalents that only
#: knowledge supplies ("eats meat" for "Carnivorous", "against it" for "Opposed") are not read.
_GLOSS_GROUPS = tuple(tuple(re.compile(p, re.IGNORECASE) for p in group) for group in (
    (r"\bcarbon\s+dioxide\b", r"(?<![A-Za-z])CO[2\u2082](?!\w)"),
    (r"\bwater\b", r"(?<![A-Za-z])H[2\u2082]O(?!\w)"),
    (r"\boxygen\b", r"(?<![A-Za-z])O[2\u2082](?!\w)"),
    (r"\bnitrogen\b", r"(?<![A-Za-z])N[2\u2082](?!\w)"),
    (r"\bhydrogen\b", r"(?<![A-Za-z])H[2\u2082](?![\wO])"),
    (r"\bmethane\b", r"(?<![A-Za-z])CH[4\u2084](?!\w)"),
    (r"\bsodium\s+chloride\b|\btable\s+salt\b", r"(?<![A-Za-z])NaCl(?!\w)"),
))


_GLOSS_JOINED = tuple(re.compile("|".join(f"(?:{p.pattern})" for p in group), re.IGNORECASE) for group in _GLOSS_GROUPS)


@lru_cache(maxsize=4096)
def _glosses(choices: tuple[str, ...]) -> tuple[tuple[str, tuple[re.Pattern[str], ...]], ...]:
    """Per option that is alone in a gloss group: its letter and the group's phrases."""
    members: list[list[str]] = [[letter for letter, c in zip(choice_letters(len(choices)), choices) if joined.search(c)]
                                for joined in _GLOSS_JOINED]
    return tuple((m[0], (joined,)) for m, joined in zip(members, _GLOSS_JOINED) if len(m) == 1)


@lru_cache(maxsize=4096)
def _initials(choices: tuple[str, ...]) -> dict[str, str]:
    """Acronym -> letter, for options of two words or more whose initials no other option shares
    ("World War I" -> "WWI", "United States of America" -> "USA"); an acronym the question itself uses
    ("What does DNA stand for?") is what is asked about, not an answer."""
    out: dict[str, list[str]] = {}
    for letter, c in zip(choice_letters(len(choices)), choices):
        ws = re.findall(r"[A-Za-z]+", c)
        if len(ws) < 2:
            continue
        for kept in (ws, [w for w in ws if w.lower() not in ("of", "the", "and", "for", "a", "an")]):
            acronym = "".join(w if re.fullmatch(r"I{1,3}|IV|VI{0,3}", w) else w[0] for w in kept).upper()
            if len(acronym) >= 2:
                out.setdefault(acronym, []).append(letter)
    return {a: letters[0] for a, letters in out.items() if len(set(letters)) == 1}


def _glossed(ctx: Context, text: str, found: dict[str, int]) -> None:
    """Add to ``found`` the options ``text`` names by a common equivalent ("CO2" for "Carbon dioxide",
    "against it" for "Opposed", "turns into liquid" for "It melts"), leaving out negated ones."""
    if re.search(r"\b[A-Z]{2,6}\b", text):  # an acronym of an option's words ("WWI" for "World War I")
        acronyms = _initials(tuple(ctx.choices or ()))
        for m in re.finditer(r"\b[A-Z]{2,6}\b", text):
            letter = acronyms.get(m.group(0))
            if letter and not any(m.group(0) == c.strip().upper() for c in ctx.choices or ()) \
                    and not re.search(rf"\b{m.group(0)}\b", ctx.question or "") \
                    and not _NEGATED_MENTION_RE.search(text[max(0, m.start() - 30):m.start()]):
                found[letter] = min(found.get(letter, m.start()), m.start())
    for letter, group in _glosses(tuple(ctx.choices or ())):
        for pattern in group:
            for m in pattern.finditer(text):
                if _NEGATED_MENTION_RE.search(text[max(0, m.start() - 30):m.start()]) or _WRONG_AFTER_RE.match(text[m.start():m.start() + 60]):
                    continue
                if letter not in found or m.start() < found[letter]:
                    found[letter] = m.start()
                break


#: accented Latin letters to their base letter, one character for one
_ACCENTS = {c: unicodedata.normalize("NFKD", chr(c))[0] for c in range(0xC0, 0x250)
            if unicodedata.normalize("NFKD", chr(c))[0].isascii() and unicodedata.normalize("NFKD", chr(c))[0].isalpha()}


def _mentions(ctx: Context, text: str) -> dict[str, int]:
    """Option letter -> position of its first mention in ``text`` (by text, paraphrase or value),
    leaving out negated mentions ("not Paris", "Paris is wrong")."""
    if not ctx.choices:
        return {}
    letters = choice_letters(len(ctx.choices))
    found: dict[str, int] = {}
    if not text.isascii():
        text = text.translate(_ACCENTS)  # "Júpiter" names "Jupiter": accents aside (same length, so places hold)
    tokens = [(m.start(), m.group(0)) for m in re.finditer(r"[A-Za-z][A-Za-z'\-]*|\d+(?:[.,]\d+)*", text)]
    stems = [(pos, stem(w), w) for pos, w in tokens if w.lower() not in STOPWORDS]
    values = _option_values(ctx)
    numeric = all(v is not None for v in values)
    lone = {pos for pos, _, w in stems if len(w) == 1 and w in letters}  # a capital that may be an option letter
    previous = {pos: stem(tokens[i - 1][1]) if i else "" for i, (pos, _) in enumerate(tokens) if pos in lone} if lone else {}
    for letter, option_stems, option in zip(letters, _option_stems(ctx), ctx.choices):
        if numeric:
            break  # options that are numbers are named by value (below), not by their digits
        for pos, s, _ in stems:
            if pos in lone and " " in option.strip() and previous[pos] not in {stem(x) for x in words(option)}:
                continue  # "It's C." names option C, not "Vitamin C" (which "vitamin C" names)
            if any(_stem_match(s, o) for o in option_stems):
                before = text[max(0, pos - 30):pos]
                after = text[pos:pos + 60]
                clause = re.split(r"[,;:.!?]\s|\s-\s|\n", text[max(0, pos - 80):pos])[-1]
                if (_NEGATED_MENTION_RE.search(before) or _WRONG_AFTER_RE.match(after)
                        or re.match(r"\s*(?:not|rather\s+than|instead\s+of|unlike|except|but\s+not)\b", clause, re.IGNORECASE)):
                    continue
                found.setdefault(letter, pos)
                break
    if not numeric:
        _glossed(ctx, text, found)
    if len(found) > 1:
        found = _verbatim_wins(ctx, text, found)
    # an option that is a number, named by an equal value ("3/2" for "1.5", "3.14159" for "3.14")
    if any(v is not None for v in values):
        for n in numbers_in(text):
            for letter, (v, places) in zip(letters, values_with_places(ctx)):
                digits = re.search(r"\.(\d+)", text[n.start:n.end])
                finer = places >= 1 and digits is not None and len(digits.group(1)) > places  # "3.14159" names "3.14"
                for value in ([n.value, n.value / 100] if n.pct else [n.value]):
                    if v is not None and (value == v or (finer and round(float(value), places) == float(v))):
                        found.setdefault(letter, n.start)
    return found


_SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉⁰¹²³⁴⁵⁶⁷⁸⁹", "01234567890123456789")


def _verbatim_wins(ctx: Context, text: str, found: dict[str, int]) -> dict[str, int]:
    """An option written out word for word ("receive", "H₂O") owns the words it covers: another option
    matched by a stem inside them ("Receeve", "O2") is not named there."""
    low = text.translate(_SUBSCRIPTS).lower()
    spans = []
    for letter, option in zip(choice_letters(len(ctx.choices or ())), ctx.choices or ()):
        written = option.translate(_SUBSCRIPTS).lower()
        m = compiled(rf"(?<!\w){re.escape(written)}(?!\w)").search(low) if written in low else None  # a substring test first
        if m:
            spans.append((letter, m.start(), m.end()))
    if not spans:
        return found
    own = {letter for letter, _, _ in spans}
    return {letter: at for letter, at in found.items()
            if letter in own or not any(a <= at < b for _, a, b in spans)}


def _option_values(ctx: Context) -> list[Fraction | None]:
    return [v for v, _ in _values_and_places(tuple(ctx.choices or ()))]


def values_with_places(ctx: Context) -> tuple[tuple[Fraction | None, int], ...]:
    return _values_and_places(tuple(ctx.choices or ()))


@lru_cache(maxsize=4096)
def _values_and_places(choices: tuple[str, ...]) -> tuple[tuple[Fraction | None, int], ...]:
    """Per option, its value when the option is a number (None otherwise) and its decimal places."""
    out = []
    for c in choices:
        nums = numbers_in(c)
        plain = re.sub(r"[\d.,/%$\s-]", "", c)
        m = re.search(r"\.(\d+)", c)
        whole = len(nums) == 1 and not c[:nums[0].start].strip() and not c[nums[0].end:].strip(" .")  # "Eight", "twelve"
        out.append((nums[0].value if len(nums) == 1 and (len(plain) <= 3 or whole) else None, len(m.group(1)) if m else 0))
    return tuple(out)


def _one_option(ctx: Context, text: str) -> str | None:
    """The option ``text`` names, when it names exactly one (else the first named, if it is named before all others
    by a clear margin: the rest are discussed)."""
    text = _CONCESSION_RE.sub(lambda m: " " * len(m.group(0)), text)
    found = _mentions(ctx, re.sub(r"\([^()]*\)", " ", text)) or _mentions(ctx, text)
    if len(found) == 1:
        return next(iter(found))
    return None


@lru_cache(maxsize=4096)
def _normalized_options(choices: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(normalize_text(c) for c in choices)


def _exact_option(ctx: Context, text: str) -> str | None:
    """The option ``text`` is, word for word (case, punctuation and articles aside)."""
    if not ctx.choices:
        return None
    norm = normalize_text(text)
    if not norm:
        return None
    for letter, c in zip(choice_letters(len(ctx.choices)), _normalized_options(tuple(ctx.choices))):
        if norm == c:
            return letter
    return _signed_option(ctx, text)


_SIGN_WORD_RE = re.compile(r"^\W*(.+?)\s*(?:(negative|neg|minus)|(positive|pos|plus))\W*$", re.IGNORECASE)


def _signed_option(ctx: Context, text: str) -> str | None:
    """An option that ends in a sign named with the sign as a word ("O negative" for "O-", "AB positive"
    for "AB+"): the base and the sign must both agree."""
    m = _SIGN_WORD_RE.match(text)
    if not m or not ctx.choices:
        return None
    base, sign = normalize_text(m.group(1)), "-" if m.group(2) else "+"
    hits = [letter for letter, c in zip(choice_letters(len(ctx.choices)), ctx.choices)
            if c.strip().endswith(sign) and normalize_text(c.strip()[:-1]) == base]
    return hits[0] if len(hits) == 1 else None


# ---------------------------------------------------------------------------------------- the rules
def _first(ctx: Context, tail: str) -> str | None:
    """The option a marker names: its letter ("(b)", "Option C"), its ordinal or number ("the second", "Answer 2")
    or its text; not what a negated marker names ("The answer is not B") or a sentence the marker closes."""
    if re.match(r"not\b", tail, re.IGNORECASE) or (tail[:1] in ".!?" and tail[1:2].isspace()):
        return None  # "B is the answer. A, C and D are ...": the marker closes its sentence
    hit = _patterns(_letters(ctx))[0].match(tail)
    if hit and _ARTICLE_A_RE.match(tail):
        hit = None  # "Here's the answer:\n\nA standard piano has 88 keys.": the article, not option A
    if hit and (hit.group(1).isupper() or re.match(r"^\W{0,3}(?:option|choice|letter)?\s*[\(\[]", tail, re.IGNORECASE)
                or re.match(rf"^{hit.group(1)}(?:\W|$)", tail)):
        if hit.group(1) != "a" or re.match(r"^\W{0,3}[\(\[]?a(?:[\)\]]|\.|\s*$)", tail):
            return hit.group(1).upper()
    line = tail.split("\n", 1)[0]
    ordinal = None if "ordinal" in ctx.disabled else (_ORDINAL_RE.search(tail[:40]) or next(iter(_ordinal_nouns(ctx, tail[:40])), None))
    if ordinal and ctx.choices and _ordinal_letter(ordinal, len(ctx.choices)):
        return _ordinal_letter(ordinal, len(ctx.choices))
    index = re.match(r"^\W{0,3}(?:#\s*)?\(?(\d|i{1,3}|iv|vi?)\)?(?![\w.,]\w)(?!(?<=[ivIV])(?:[A-Za-z'\u2019]|\s+[a-z]))"
                     r"|^\W{0,3}(?:number|no\.)\s*(\d|one|two|three|four|five|six|seven|eight)\b", line, re.IGNORECASE)
    if index and ctx.choices and "ordinal" not in ctx.disabled and not any(v is not None for v in _option_values(ctx)):
        word = (index.group(1) or index.group(2)).lower()  # "Answer 2", "The answer is number two."
        k = _ORDINALS.get(word) or (int(word) if word.isdigit() else 0)
        if 1 <= k <= len(ctx.choices):
            return choice_letters(len(ctx.choices))[k - 1]
    said = line.split(". ", 1)[0]
    named = re.split(r",?\s+(?:since|because|as|given\s+that|while|whereas)\s|\s-\s|;\s", said, maxsplit=1)[0]
    return _exact_option(ctx, line) or _one_option(ctx, named) or _one_option(ctx, said)  # the reason after it names others


def _bare(ctx: Context, text: str) -> str | None:
    hit = _patterns(_letters(ctx))[1].match(text)
    return hit.group(1).upper() if hit else None


def _last(ctx: Context, text: str) -> str | None:
    """The letter declared the answer ("C stands.", "so B", "B is correct"), else the one closing ``text``."""
    _, _, _, is_correct, trailing = _patterns(_letters(ctx))
    hit = is_correct.search(text)
    if hit:
        return next(g for g in hit.groups() if g).upper()
    hit = trailing.search(text)
    return hit.group(1) if hit else None


# the table of the marker stage: the markers of every language, and the picks that name an option ("I'd choose",
# "it must be", "so it is"); a letter before a "correct answer" marker is its subject, not what follows it
MARKERS = Markers(first=_bare, named=_first, last=_last, region=("marked", "first", "last"), marker=marker_pattern(
    r"(?<![A-E] is the )(?<![A-E]\) is the )(?:correct|right|best)\s+one(?:\s+is)?|\bi(?:\s+would|'d|\s+will|'ll)?\s+(?:choose|pick|select|go\s+with)"
    r"|my\s+(?:choice|pick)\s+is|(?:therefore|thus|hence|so)\s*,?\s*(?:it(?:'s|\s+is)|(?:the\s+)?(?:answer|option|choice)\s+is)|it\s+must\s+be"
    r"|(?<![A-E] is the )(?<![A-E]\) is the )(?:correct|right|best)\s+(?:answer|option|choice)", opens="bcihmrst"))


def _strict_read(ctx: Context, text: str) -> str | None:
    """A letter stated outright in ``text``: marked, at the start, declared or last (the table's positions)."""
    return read_region(MARKERS, ctx, text)


def _correction(ctx: Context) -> str | None:
    """After a self-correction: a letter stated outright, else the option it names by ordinal ("no, sorry,
    the second: Spanish") or by text, in its first clause or alone in its last sentence ("... The Sun.")."""
    says_no = any(c in ("no", "nope") for c in _normalized_options(tuple(ctx.choices or ())))
    region = ctx.correction if says_no else correction_region(ctx)  # with an option "No", "No," is an answer
    if region is None:
        return None
    if not says_no:
        region = re.sub(r"^\W*(?:no|nope)\b\W*", "", region, flags=re.IGNORECASE)
    if HEDGE_RE.search(region):
        return None  # "Hmm, both A and D work. I can't pick just one.": a doubt, not a correction
    found = _strict_read(ctx, region)
    if found or not ctx.choices:
        return found
    first = re.split(r"[,;:.!?]\s|\s-\s|\n", region, maxsplit=1)[0]
    ordinal = None if "ordinal" in ctx.disabled else _ORDINAL_RE.search(region[:len(first) + 2])
    if ordinal and _ordinal_letter(ordinal, len(ctx.choices)):
        return _ordinal_letter(ordinal, len(ctx.choices))
    last = sentences(region)[-1] if sentences(region) else ""
    exact = _exact_option(ctx, last) or _exact_option(ctx, first)  # "... The Sun.", "No - nitrogen, about 78%."
    if exact:
        return exact
    for clause in reversed(re.split(r"[,;:.!?]\s|\s-\s|\n", region)):  # "...; the capital is Ankara."
        if ctx.question_stems & content_stems(clause):
            named = _one_option(ctx, clause)
            if named:
                return named
    return None


def _bold(ctx: Context) -> str | None:
    """The one letter set in bold outside a table ("By the UN's figures, **A**.")."""
    if "**" not in ctx.raw:
        return None
    prose = re.sub(r"^\s*\|.*$", "", ctx.raw, flags=re.MULTILINE)
    found = {m.group(1) for m in re.finditer(rf"\*\*\s*(?:option\s+|choice\s+)?\(?([{_letters(ctx)}])\)?[.:]?\s*\*\*", prose, re.IGNORECASE)}
    return found.pop().upper() if len(found) == 1 else None


@lru_cache(maxsize=64)
def _subject_patterns(letters: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A letter that is the subject of the opening verb ("A gives the most."), and any letter with a copula."""
    subject = re.compile(rf"^\W*(?:(?:the\s+)?(?:option|choice|plan|answer|letter|number|item|statement)\s+)?\(?([{letters}])\)?\s+"
                         r"(?:is|gives|has|wins|comes|offers|yields|provides|was|does|matches|fits|costs|works|makes|would|will|shows|describes"
                         r"|names|lists|contains|holds|leads|beats)\b", re.IGNORECASE)
    return subject, re.compile(rf"\b[{letters}]\s+(?:is|are|was|has|gives)\b")


_RECALLED_RE = re.compile(r"\b(?:i\s+)?(?:initially|at\s+first|first|originally|previously)\s+(?:i\s+)?(?:thought|said|guessed|picked|chose|went\s+with)\b",
                          re.IGNORECASE)


_QA_LABEL_RE = re.compile(r"^\s*A\s*:\s*(\S[^\n]*?)\s*$", re.MULTILINE)


def _answer_label(ctx: Context, text: str) -> str | None:
    """A few-shot "Q: ... / A: ..." answer: "A: 12" names the option 12, not option A, when what follows
    the label is an option's text or value."""
    m = _QA_LABEL_RE.match(text)
    if not m or not ctx.choices:
        return None
    letter = re.fullmatch(rf"[\(\[]?([{_letters(ctx)}])[\)\]]?\.?", m.group(1))
    if letter:
        return letter.group(1)  # "A: C" - the label, then the letter chosen
    exact = _exact_option(ctx, m.group(1).rstrip("."))
    if exact:
        return exact
    said = m.group(1).rstrip(".")
    nums = numbers_in(said)
    if len(nums) == 1 and nums[0].start == 0 and not said[nums[0].end:].strip(" %"):  # "A: 12", "A: twelve"
        same = [letter for letter, (v, _) in zip(choice_letters(len(ctx.choices)), values_with_places(ctx)) if v == nums[0].value]
        return same[0] if len(same) == 1 else None
    return None


def _answer_first(ctx: Context) -> str | None:
    """A letter, option number or option text opening the output, the explanation after it."""
    _, bare, *_ = _patterns(_letters(ctx))
    text = _unlisted(ctx)
    if "|" in text:
        text = _TABLE_LINE_RE.sub("", text).strip() or text  # a table opening the output is data, not the answer
    after_table = text is not _unlisted(ctx)
    text = without_preamble(text)  # "Great question! **C) Carbon dioxide**"
    labelled = _answer_label(ctx, text)
    if labelled:
        return labelled
    hit = bare.match(text)
    if hit:
        return hit.group(1).upper()
    glued = compiled(rf"^\W{{0,3}}([{_letters(ctx)}])(?=[A-Z][a-z]{{2}})").match(text)
    if glued:
        return glued.group(1)  # "CButtonClicked": a letter glued to a stray token
    head, _ = first_part(text)
    if _RECALLED_RE.search(head):
        return None  # "I initially thought A, but ...": a first thought recalled, not the answer
    if ctx.choices and "ordinal" not in ctx.disabled:
        ordinal = _ORDINAL_RE.search(head)
        if ordinal and _ordinal_letter(ordinal, len(ctx.choices)):
            return _ordinal_letter(ordinal, len(ctx.choices))
        index = _OPENING_INDEX_RE.match(head)
        values = _option_values(ctx)
        if index and _ordinal_letter(index, len(ctx.choices)) and (
                not any(v is not None for v in values) or (index.group(1) and index.group(1).isdigit() and Fraction(index.group(1)) not in values)):
            return _ordinal_letter(index, len(ctx.choices))  # "2" names option 2 unless an option is the value 2
    exact = _exact_option(ctx, head)
    if exact:
        return exact
    subject_re, subjects_re = _subject_patterns(_letters(ctx))
    opening = subject_re.match(head)
    if opening and opening.group(1).isupper() and len(subjects_re.findall(head)) == 1 and not (opening.group(1) == "A" and re.match(r"^\W*A\s+(?:is|was|has|does|would|will)\b", head)
                                                       and not re.search(r"\b[B-E]\b", text)):
        return opening.group(1)
    if after_table:  # after a table: the option its first clause names, before a letter remarked on later
        subject = _one_option(ctx, re.split(r",\s|;\s", head, maxsplit=1)[0])
        if subject:
            return subject
    lead = _named_before_a_break(ctx, head)
    if lead:
        return lead
    clause = _REASON_RE.split(head, maxsplit=1)[0]  # "It's D, since ...; option A is grey.": the reason names others
    paren = compiled(rf"\(([{_letters(ctx)}])\)|\b(?i:option|choice)\s+([{_letters(ctx)}])\b").search(clause)
    if paren:
        return (paren.group(1) or paren.group(2)).upper()
    if _speaks_in_letters(ctx, head):
        return None  # "Hmm, B or C. Probably B, since Jane Eyre is Charlotte Brontë's.": the text names a reason
    return _one_option(ctx, head)


_REASON_RE = re.compile(r";\s|,?\s+(?:since|because|as|given\s+that|while|whereas)\s", re.IGNORECASE)
_LEAD_BREAK_RE = re.compile(r"\s[-\u2013]\s|:\s|;\s|,\s")


def _named_before_a_break(ctx: Context, head: str) -> str | None:
    """A lead before a dash, colon, semicolon or comma that is an option word for word, the rest discussing
    others ("Honey - silk comes from silkworms and wool from sheep."); not a clause that only mentions one
    ("Many people guess Sydney, but the capital is Canberra.")."""
    m = _LEAD_BREAK_RE.search(head)
    if not m:
        return None
    picked = _exact_option(ctx, head[:m.start()])
    if picked and m.group(0).startswith(",") and any(at <= 1 for at in _mentions(ctx, head[m.end():m.end() + 40]).values()):
        return None  # "Mars, Venus and Earth are rocky; ...": a list of options, no pick
    return picked


def _speaks_in_letters(ctx: Context, text: str) -> bool:
    """Whether ``text`` names options by their letters ("B or C"; not the article "A"): then the options it
    names by text are reasons and comparisons, and its pick is read from its letters."""
    return any(not (m.group(1) == "A" and re.match(r"\s+[a-z]", text[m.end():]))
               for m in compiled(rf"(?<![\w'\u2019&-])([{_letters(ctx)}])(?![\w'\u2019&-])").finditer(text))


# ordinals of other languages naming an option: "La tercera opción.", "Die zweite.", "La première réponse."
_FOREIGN_NTH = {1: r"primer[oa]?|primeir[oa]|premi[eè]re?|erste[nrs]?|prim[oa]", 2: r"segund[oa]|deuxi[eè]me|seconde|zweite[nrs]?|second[oa]",
                3: r"tercer[oa]?|terceir[oa]|troisi[eè]me|dritte[nrs]?|terz[oa]", 4: r"cuart[oa]|quart[oa]|quatri[eè]me|vierte[nrs]?",
                5: r"quint[oa]|cinqui[eè]me|f[üu]nfte[nrs]?", -1: r"[úu]ltim[oa]|derni[eè]re?|letzte[nrs]?"}
_FOREIGN_ARTICLE = r"(?:la|le|el|lo|il|die|der|das|a|o|l')\s*"
_FOREIGN_OPTION = r"(?:opci[óo]n|option|antwort|m[öo]glichkeit|r[ée]ponse|alternativa|alternative|opzione|op[çc][ãa]o|respuesta|resposta|risposta|wahl|choix)"
_FOREIGN_ORDINAL_RE = re.compile(
    rf"^\W*{_FOREIGN_ARTICLE}(?P<nth>{'|'.join(_FOREIGN_NTH.values())})(?:\s+{_FOREIGN_OPTION})?\s*(?:[.!:,;\u2014-]|$)"
    rf"|\b{_FOREIGN_ARTICLE}(?P<nth2>{'|'.join(_FOREIGN_NTH.values())})\s+{_FOREIGN_OPTION}\b", re.IGNORECASE)


def _foreign_ordinal(ctx: Context) -> str | None:
    """An option named by an ordinal of another language: alone opening the reply ("Die zweite."), or with a
    word for option anywhere ("La respuesta es la tercera opción")."""
    if not ctx.choices:
        return None
    m = _FOREIGN_ORDINAL_RE.search(_unlisted(ctx))
    if not m:
        return None
    word = (m.group("nth") or m.group("nth2")).lower()
    index = next(i for i, pattern in _FOREIGN_NTH.items() if re.fullmatch(pattern, word))
    n = len(ctx.choices)
    index = n if index == -1 else index
    return choice_letters(n)[index - 1] if 1 <= index <= n else None


_SECONDS = {"s": 1, "sec": 1, "second": 1, "m": 60, "min": 60, "minute": 60, "h": 3600, "hr": 3600, "hour": 3600, "day": 86400, "week": 604800}
_TIME_UNIT_RE = re.compile(r"\s*(?:an?\s+)?(s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|days?|weeks?)\b", re.IGNORECASE)


def _durations(text: str) -> list[Fraction]:
    """The spans of time ``text`` states, in seconds ("1 h 30 min" is one span; "an hour and a half" too)."""
    found: list[Fraction] = []
    low = re.sub(r"\ban?\s+(hour|minute|day|week)\s+and\s+a\s+half\b", r"1.5 \1s", text, flags=re.IGNORECASE)
    low = re.sub(r"\ban?\s+(hour|minute|day|week)\b", r"1 \1", low, flags=re.IGNORECASE)
    last_end = -1
    for n in numbers_in(low):
        unit = _TIME_UNIT_RE.match(low, n.end)
        if not unit:
            continue
        key = unit.group(1).lower().rstrip("s") or "s"
        seconds = n.value * _SECONDS.get(key, _SECONDS.get(key[:3], _SECONDS.get(key[:1], 0)))
        if found and 0 <= n.start - last_end <= 5 and low[last_end:n.start].strip(" ,and") == "":
            found[-1] += seconds  # "1 h 30 min": one span
        else:
            found.append(seconds)
        last_end = unit.end()
    return [f for f in found if f]


@lru_cache(maxsize=4096)
def _option_durations(choices: tuple[str, ...]) -> list[Fraction | None]:
    """Each option's span of time in seconds, None where it is not one span of time."""
    spans = [_durations(c) for c in choices]
    return [d[0] if len(d) == 1 else None for d in spans]


def _same_duration(ctx: Context) -> str | None:
    """Options that are spans of time, one named in another unit ("1.5 hours", "an hour and a half" for
    "90 minutes"): the one option equal to the span the reply states first."""
    if not ctx.choices:
        return None
    options = _option_durations(tuple(ctx.choices))
    if sum(o is not None for o in options) < 2:
        return None
    said = _durations(first_part(ctx.text)[0])
    hits = [letter for letter, o in zip(choice_letters(len(ctx.choices)), options) if said and o == said[0]]
    return hits[0] if len(hits) == 1 else None


_SO_RE = re.compile(r"(?:^|[,;:.]\s*|\s)(?:so|therefore|thus|hence|which\s+makes\s+it)\s*,?\s+", re.IGNORECASE)


def _concluded_option(ctx: Context) -> str | None:
    """An option word for word after the last concluding word ("Red, blue and green, so all of the above.")."""
    if not ctx.choices:
        return None
    m = last_match(_SO_RE, ctx.prose)
    return _exact_option(ctx, ctx.prose[m.end():].strip()) if m else None


def _verdict(ctx: Context) -> str | None:
    """Two options that are a verdict ("Yes"/"No", "True"/"False"): the output read as a yes/no answer
    ("Absolutely not.", "No, the Earth is round.")."""
    if not ctx.choices or len(ctx.choices) != 2:
        return None
    options = _normalized_options(tuple(ctx.choices))
    if set(options) not in ({"yes", "no"}, {"true", "false"}):
        return None
    from gengap.extract import _yes_no
    from gengap.extract._cascade import run_cascade

    unlisted = _unlisted(ctx)  # "A. True / B. False" written out is no verdict
    if not unlisted.strip():
        return None
    text = ctx.raw if unlisted is ctx.text else unlisted
    said = run_cascade(_yes_no.RULES, Context(text, "yes_no", ctx.question, disabled=ctx.disabled), disabled=ctx.disabled).value
    if said not in ("yes", "no"):
        return None
    wanted = {"yes": ("yes", "true"), "no": ("no", "false")}[said]
    return next(letter for letter, o in zip(choice_letters(2), options) if o in wanted)


def _by_value(ctx: Context) -> str | None:
    """Options that are all numbers: the output read as a number (its conclusion, its answer stated
    first, ...), then matched to the option of that value."""
    values = values_with_places(ctx)
    if not values or any(v is None for v, _ in values):
        return None
    from gengap.extract import _numbers

    unlisted = _unlisted(ctx)  # a listing of the options written out is no answer ("A. 5 / B. 6 / ...")
    number = _numbers.read(ctx.raw if unlisted is ctx.text else unlisted, ctx.question, ctx.disabled)
    if number is None:
        return None
    got = Fraction(number)
    letters = choice_letters(len(values))
    exact = [letter for letter, (v, _) in zip(letters, values) if v == got]
    if exact:
        return exact[0]
    close = [letter for letter, (v, places) in zip(letters, values)
             if v is not None and places >= 1 and len(number.split(".")[-1]) > places and round(float(got), places) == float(v)]
    return close[0] if len(close) == 1 else None


_UNSURE_RE = re.compile(r"\b(?:i'?m|i\s+am)\s+(?:not\s+(?:certain|sure|positive)|uncertain)\b", re.IGNORECASE)
_COMMITS_RE = re.compile(r"\b(?:but|though|although|i'?d\s+(?:say|guess|go|pick|choose)|i\s+(?:think|believe|guess|lean)|probably|likely"
                         r"|my\s+(?:best\s+)?(?:guess|pick|bet)|answer|i'?ll\s+(?:go|say|pick)|go\s+with)\b", re.IGNORECASE)


def _hedge(ctx: Context) -> str | None:
    """A hedge that names two answers, or "I'm not certain" with nothing committed to ("Either wind or...
    hmm, I'm not certain."): unextracted. "I'm not sure, but I'd guess Ottawa." commits."""
    if ctx.hedged:
        return None if guessed_after_hedge(ctx) else ABSTAIN
    return ABSTAIN if _UNSURE_RE.search(ctx.text) and not _COMMITS_RE.search(ctx.text) else None


_TICK_RE = re.compile(r"^\W{0,2}(?:[\u2713\u2714\u2705\u2611]|correct\b|right\b|true\b|yes\b)", re.IGNORECASE)
_CROSS_RE = re.compile(r"^\W{0,2}(?:[\u2717\u2718\u274c\u2612]|incorrect\b|wrong\b|false\b|no\b)", re.IGNORECASE)


def _ticked_row(ctx: Context) -> str | None:
    """A Markdown table of the options with a verdict cell: the one row ticked, when the other rows are crossed."""
    if "|" not in ctx.text:
        return None
    letters = _letters(ctx)
    ticked, crossed = set(), set()
    for line in ctx.text.split("\n"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2:
            continue
        m = compiled(rf"^\W{{0,2}}([{letters}])\W{{0,2}}(?:$|\s)").match(cells[0])
        letter = m.group(1) if m else _exact_option(ctx, cells[0])
        if letter is None:
            continue
        if any(_TICK_RE.match(c) for c in cells[1:]):
            ticked.add(letter)
        elif any(_CROSS_RE.match(c) for c in cells[1:]):
            crossed.add(letter)
    return next(iter(ticked)) if len(ticked) == 1 and crossed else None


_LIST_OPTION_RE = re.compile(r"^[\s>*\-\u2022]*(?:\*\*)?(?:option\s+)?[\(\[]?([A-Z])[\)\].:]", re.IGNORECASE)
_RIGHT_RE = re.compile(r"(?<!not )(?<!in)\b(?:correct|right|true)\b|[\u2713\u2714\u2705]", re.IGNORECASE)
_WRONG_RE = re.compile(r"\b(?:incorrect|wrong|false|not\s+(?:correct|right|true))\b|[\u2717\u2718\u274c]", re.IGNORECASE)


def _verdict_list(ctx: Context) -> str | None:
    """Options gone through one per line with a verdict ("- A) Alpha - incorrect. / - C) Gamma - correct."):
    the one line marked right, when the others are marked wrong."""
    if "\n" not in ctx.text or not ctx.choices:
        return None
    letters = _letters(ctx)
    right, wrong = set(), set()
    for line in ctx.text.split("\n"):
        m = _LIST_OPTION_RE.match(line)
        if not m or m.group(1).upper() not in letters:
            continue
        option = ctx.choices[letters.index(m.group(1).upper())]
        verdict = compiled(re.escape(option), re.IGNORECASE).sub(" ", line[m.end():])  # "A. True" lists, not judges
        if _WRONG_RE.search(verdict):
            wrong.add(m.group(1).upper())
        elif _RIGHT_RE.search(verdict):
            right.add(m.group(1).upper())
    return next(iter(right)) if len(right) == 1 and wrong and not right & wrong else None


def _unfinished(ctx: Context) -> str | None:
    """A calculation cut off before its result ("180 - 110 ="): no option was reached."""
    return ABSTAIN if open_sum(ctx.text) else None


# someone else's pick, named before the verb: "Some people pick A, but ...", "many students choose B"
_OTHERS_PICK_RE = re.compile(r"\b(?:people|students|folks|many|most|some|others|they|someone|somebody|one|you|readers|guessers)\s+"
                             r"(?:(?:often|usually|might|may|would|tend\s+to|sometimes|mistakenly|wrongly|instinctively)\s+)*$", re.IGNORECASE)


def _declared(ctx: Context) -> str | None:
    text = _TABLE_LINE_RE.sub("", _unlisted(ctx))
    found = [m for m in _patterns(_letters(ctx))[3].finditer(text)
             if not _OTHERS_PICK_RE.search(text[max(0, m.start() - 40):m.start()])]
    return next(g for g in found[-1].groups() if g) if found else None


def _ordinal(ctx: Context) -> str | None:
    if not ctx.choices:
        return None
    for m in [*_ORDINAL_RE.finditer(ctx.text), *_ordinal_nouns(ctx, ctx.text)]:
        letter = _ordinal_letter(m, len(ctx.choices))
        if letter and not _NEGATED_MENTION_RE.search(ctx.text[max(0, m.start() - 20):m.start()]):
            return letter
    return None


_NTH_NOUN_RE = re.compile(rf"\bthe\s+{_NTH}\s+([a-z]+)\b", re.IGNORECASE)


def _ordinal_nouns(ctx: Context, text: str) -> list[re.Match[str]]:
    """An ordinal with a noun the question uses for its options ("the second title" for "the best title")."""
    return [m for m in _NTH_NOUN_RE.finditer(text) if stem(m.group(2)) in ctx.question_stems]


def _trailing(ctx: Context) -> str | None:
    _, bare, _, _, trailing = _patterns(_letters(ctx))
    text = _unlisted(ctx)
    hit = trailing.search(text)
    if hit and not re.search(r"\b(?:a|an|the|of|and|or|to|in|vitamin|plan|type|grade|group)\s*\(?[A-Z]\)?[.!]?\s*$",
                             text[max(0, hit.start() - 8):], re.IGNORECASE) \
            and not re.search(r"\bnot\s+(?:\w+\s+)?$", text[max(0, hit.start() - 20):hit.start() + 1], re.IGNORECASE):  # "definitely not D."
        return hit.group(1)
    last_line = text.rsplit("\n", 1)[-1].strip()
    hit = bare.match(last_line)
    return hit.group(1).upper() if hit else None


_OPTION_LINE_RE = re.compile(r"^[ \t>*\-\u2022]*(?:\*\*)?(?:option\s+)?[\(\[]?([A-E])[\)\].:](.*)$", re.MULTILINE | re.IGNORECASE)
_NEGATION_RE = re.compile(r"\b(?:not|no|never|neither|nor|isn't|aren't|wasn't|doesn't|don't|cannot|can't)\b", re.IGNORECASE)


def _analysis(ctx: Context) -> str | None:
    """A line for each option judging it ("A) Helium - a noble gas. / B) Hydrogen - not a noble gas. / ..."):
    the one option whose line says, without negation, what the question asks for."""
    if not ctx.choices or not ctx.question:
        return None
    lines = [(m.group(1).upper(), m.group(2)) for m in _OPTION_LINE_RE.finditer(ctx.text)]
    if len(lines) != len(ctx.choices) or [letter for letter, _ in lines] != list(choice_letters(len(ctx.choices))) \
            or not all(re.search(r"\s[-\u2013\u2192]\s|:\s|\u2192", body) for _, body in lines):
        return None  # a line per option, each with its judgment after a dash or colon (else a listing of the options)
    asked = _asked_stems(ctx)
    if not asked:
        return None
    have = [letter for letter, body in lines
            if any(_stem_match(a, w) for a in asked for w in content_stems(body)) and not _NEGATION_RE.search(body)]
    return have[0] if len(have) == 1 else None


def _asked_stems(ctx: Context) -> set[str]:
    """The question's words that say what it asks, without the kind of thing asked for ("which planet") and
    the options' own words."""
    asked = set(ctx.question_stems)
    kind = _ASKED_KIND_RE.match(ctx.question or "")
    if kind:
        asked.discard(stem(kind.group(1)))
    asked -= {stem(w) for c in ctx.choices or () for w in words(c)}
    return {a for a in asked if len(a) >= 3}


_ASKED_KIND_RE = re.compile(r"^\W*(?:which|what)\s+(?:(?:one\s+)?of\s+(?:these|the\s+following)\s+)?([A-Za-z]+)", re.IGNORECASE)


def _about_something_else(ctx: Context, text: str) -> bool:
    """A reply of two sentences or more that shares no word with what the question asks (its words aside from
    the kind of thing it asks for, "which planet", and the options' own words) answers another
    question: an option it names is named in passing ("I love astronomy! Mars is my favourite planet.")."""
    if not ctx.question or len(text.split()) < 8 or len(sentences(text)) < 2:
        return False
    found = _mentions(ctx, text)
    if found and len(text[:min(found.values())].split()) <= 2:
        return False  # "Jupiter, by far: ...": an answer stated first, explained in other words
    asked = _asked_stems(ctx)
    said = content_stems(text)
    return bool(asked) and not any(_stem_match(a, w) for a in asked for w in said)


def _option_text(ctx: Context) -> str | None:
    """The option the output names: the only one, or the first of several when the others come in
    a later sentence (discussed, not chosen)."""
    text = _CONCESSION_RE.sub(lambda m: " " * len(m.group(0)), without_preamble(_TABLE_LINE_RE.sub("", _unlisted(ctx)).strip()))
    if _about_something_else(ctx, text):
        return None
    plain = re.sub(r"\([^()]*\)", " ", text)
    found = _mentions(ctx, plain) or _mentions(ctx, text)
    if not found:
        return None
    if len(found) == 1:
        return next(iter(found))
    ordered = sorted(found.items(), key=lambda kv: kv[1])
    head, _ = first_part(plain)
    clause = re.split(r";\s|\s-\s|:\s", head, maxsplit=1)[0]
    if len(clause) < len(head):
        named = [letter for letter, at in ordered if at < len(clause)]
        if len(named) == 1 and any(a == w or (len(a) >= 4 and _stem_match(a, w)) for a in ctx.question_stems for w in content_stems(clause)):
            return named[0]  # "The largest is Jupiter; Earth and Mars are rocky."
    turn = list(re.finditer(r",?\s+but\s+", head))
    if turn:
        after = [letter for letter, at in ordered if at >= turn[-1].end()]
        if len(after) == 1 and len(head) >= ordered[-1][1]:
            return after[0]  # "Many people guess Sydney, but the capital is Canberra."
    if ordered[0][1] < len(head) <= ordered[1][1]:
        return ordered[0][0]  # named first; the others are discussed afterwards
    starts = [0, *(m.end() for m in re.finditer(r",\s+(?:and\s+|or\s+)?|;\s+", head))]
    subjects = {letter for letter, at in ordered if any(0 <= at - s <= 4 for s in starts)}
    if len(subjects) >= 3 and len(starts) > 1 and ":" not in head[:starts[1]]:
        return None  # "Mars is red, Earth has life, Venus is hot.": parallel clauses describe the options, they pick none
    setting = _SETTING_RE.match(plain)  # "As of 2023, Saturn has ...": a setting before the subject
    if len(plain[setting.end() if setting else 0:ordered[0][1]].split()) <= 2 and ordered[1][1] > ordered[0][1] + 12:
        return ordered[0][0]  # the subject of the opening sentence
    return None


# a phrase of time or place opening a sentence before its subject ("As of 2023, ...", "Today, ...")
_SETTING_RE = re.compile(r"^\W*(?:as\s+of|since|currently|today|now|nowadays|at\s+present|in|at|by|according\s+to)\b[^,.;:]{0,40},\s*",
                         re.IGNORECASE)


_NEGATED_QUESTION_RE = re.compile(r"\b(?:not|except|isn't|aren't|doesn't|don't)\b", re.IGNORECASE)
_IS_NOT_AFTER_RE = re.compile(r"^[\w'-]*\W{0,3}(?:\w+\s+){0,2}?(?:is|are|was|does|do)(?:\s+not|n't)\b", re.IGNORECASE)


def _negated_pick(ctx: Context) -> str | None:
    """For a question that asks which is NOT (or EXCEPT): the one option the output says is not
    ("Green is not a primary colour; red, blue and yellow are.")."""
    if not ctx.choices or not ctx.question or not _NEGATED_QUESTION_RE.search(ctx.question):
        return None
    text = _TABLE_LINE_RE.sub("", _unlisted(ctx))
    tokens = [(m.start(), stem(m.group(0))) for m in re.finditer(r"[A-Za-z][A-Za-z'\-]*|\d+(?:[.,]\d+)*", text)]
    picked = set()
    for letter, option_stems in zip(choice_letters(len(ctx.choices)), _option_stems(ctx)):
        for pos, s in tokens:
            if any(_stem_match(s, o) for o in option_stems) and _IS_NOT_AFTER_RE.match(text[pos:pos + 60]):
                picked.add(letter)
    return picked.pop() if len(picked) == 1 else None


_DIRECTIONS = {
    "up": re.compile(r"\b(?:increas\w*|ris(?:e|es|ing)|rose|go(?:es)?\s+up|went\s+up|grows?|growing|expands?|expanding|higher|larger|bigger"
                     r"|greater|doubles?|goes\s+higher)\b", re.IGNORECASE),
    "down": re.compile(r"\b(?:decreas\w*|falls?|falling|fell|drops?|dropping|go(?:es)?\s+down|went\s+down|shrinks?|shrinking|contracts?"
                       r"|lower|smaller|fewer|halves|declines?|declining|reduc\w*)\b", re.IGNORECASE),
    "same": re.compile(r"\b(?:(?:stays?|remains?|is|keeps?)\s+(?:the\s+)?(?:same|constant|unchanged|steady)|unchanged|constant"
                       r"|(?:does\s*n[o']t|doesn't|won't|will\s+not|do\s*n[o']t)\s+change|no\s+change)\b", re.IGNORECASE),
}
_NEGATED_DIRECTION_RE = re.compile(r"\b(?:not|n't|never|neither|nor)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)


def _direction_of(text: str) -> set[str]:
    """The directions of change ``text`` states ("expands", "goes up" -> up); "same" takes "doesn't change"."""
    found = set()
    for name, pattern in _DIRECTIONS.items():
        for m in pattern.finditer(text):
            if name != "same" and _NEGATED_DIRECTION_RE.search(text[max(0, m.start() - 25):m.start()]):
                return {"?"}  # "does not increase": up is ruled out, not down chosen
            found.add(name)
    if "same" in found:  # "stays the same, neither rising nor falling" names one direction
        found = {"same"}
    return found


def _direction(ctx: Context) -> str | None:
    """Options that name directions of change ("It increases" / "It decreases" / "It stays the same"):
    the one direction the output states, in other words ("the gas expands - volume goes up")."""
    if not ctx.choices:
        return None
    per_option = [_direction_of(c) for c in ctx.choices]
    if sum(1 for d in per_option if len(d) == 1) < 2:
        return None
    said = _direction_of(_TABLE_LINE_RE.sub("", _unlisted(ctx)))
    if len(said) != 1 or "?" in said:
        return None
    match = [letter for letter, d in zip(choice_letters(len(ctx.choices)), per_option) if d == said]
    return match[0] if len(match) == 1 else None


_OPTION_LABEL_RE = re.compile(r"(?:^|(?<=\s))([A-Ea-e])[.:)](?=\s|$)")


def _listed_labels(line: str) -> set[str]:
    """The option labels ``line`` lists: one label before a short item ("B: Michelangelo"), or several, each
    before at most three words ("a. Guitar b. Violin c. Piano", "B: A B: C D: E:"); none in a sentence."""
    found = list(_OPTION_LABEL_RE.finditer(line.strip()))
    if not found or found[0].start() != 0:
        return set()
    items = [line.strip()[m.end():n.start() if n else None] for m, n in zip(found, [*found[1:], None])]
    limit = 4 if len(found) == 1 else 3
    return {m.group(1).upper() for m in found} if all(len(item.split()) <= limit for item in items) else set()


def _option_list(ctx: Context) -> str | None:
    """An output whose opening lines list options themselves ("Leonardo da Vinci\\nB: Michelangelo\\nC. Raphael", "B: A B: C
    D: E:") repeats or invents a list instead of picking from it: unextracted. A list after a blank line or a new
    question, once a first line has answered, is the model going on to another question and is left to the readers.

    >>> _option_list(Context("Paris\\nB: London\\nC. Rome", "choice", choices=["Paris", "London", "Rome"]))
    '\\x00abstain'
    >>> _option_list(Context("A\\n\\nQ: Which?\\nA. Pink\\nB. Red", "choice", choices=["Pink", "Red"])) is None
    True
    >>> _option_list(Context("D: 23.\\nA: 1 is not prime by definition. B: 9 = 3 x 3.", "choice", choices=["1", "9", "15", "23"])) is None
    True
    """
    block = re.split(r"\n\s*\n|\n[^\n]*\?", ctx.text.strip(), maxsplit=1)[0]
    labels: set[str] = set()
    for line in block.splitlines():
        labels |= _listed_labels(line)
    return ABSTAIN if len(labels) >= 2 else None


RULES: tuple[Rule, ...] = _markers.cascade(
    MARKERS, lambda: RULES, _correction, pick=_strict_read, hedge=_hedge, unfinished=_unfinished,
    also=(Rule("option_list", "abstain", _option_list), Rule("none_of_them", "abstain", _commitment.rejects_every_option)),
    stated=(Rule("bold", "format", _bold), Rule("ticked_row", "table", _ticked_row), Rule("verdict_list", "marker", _verdict_list)),
    prose=(
    Rule("answer_first", "answer_first", _commitment.choice_on_question(_answer_first)),
    Rule("foreign_ordinal", "other_language", _foreign_ordinal),
    Rule("verdict", "option_text", _verdict),
    Rule("letter_is_correct", "marker", _declared),
    Rule("by_value", "option_text", _by_value),
    Rule("same_duration", "option_text", _same_duration),
    Rule("trailing_letter", "last", _trailing),
    Rule("ordinal", "ordinal", _ordinal),
    Rule("concluded_option", "option_text", _concluded_option),
    Rule("negated_pick", "option_text", _negated_pick),
    Rule("analysis", "option_text", _analysis),
    Rule("option_text", "option_text", _commitment.choice_on_question(_option_text)),
    Rule("direction", "option_text", _direction),
))


def options_named(output: str, choices: Sequence[str], question: str | None = None) -> list[str]:
    """The letters of the options ``output`` names by text, paraphrase or value, in order of mention.

    >>> options_named("It's a carnivore.", ["Herbivorous", "Carnivorous"])
    ['B']
    """
    ctx = Context(output, "choice", question, choices)
    return [letter for letter, _ in sorted(_mentions(ctx, ctx.text).items(), key=lambda kv: kv[1])]
