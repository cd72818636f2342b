"""The hot regexes of the extraction cascade open with a lookahead of the characters a match can start
with, a cheap test that spares the rest of the pattern elsewhere. The lookahead must list every such
character, or a match would be lost: these tests derive the set from the pattern itself."""

from __future__ import annotations

import re

import pytest

try:
    from re import _constants as sre
    from re import _parser as sre_parse
except ImportError:  # Python 3.10
    import sre_constants as sre
    import sre_parse

from gengap.extract import _base, _choice, _commitment, _numbers, _text

ANY = None  # a position that may hold any character


def _chars(items: list) -> set[str] | None:
    """The characters a character set (``[...]``) matches (a category such as ``\\d`` by its name), or ANY for a negation."""
    found: set[str] = set()
    for op, av in items:
        if op is sre.LITERAL:
            found.add(chr(av))
        elif op is sre.RANGE:
            found.update(chr(c) for c in range(av[0], av[1] + 1))
        elif op is sre.CATEGORY:
            found.add(str(av))  # "\\d" stands for itself: the lookahead must name it too
        else:
            return ANY
    return found


def _openers(items: list) -> tuple[set[str] | None, bool]:
    """The characters a match of ``items`` (a parsed sequence) can open with, and whether it can be empty."""
    found: set[str] = set()
    for op, av in items:
        if op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
            continue  # takes no character
        if op is sre.LITERAL:
            return found | {chr(av)}, False
        if op is sre.IN:
            chars = _chars(av)
            return (ANY if chars is ANY else found | chars), False
        if op is sre.BRANCH:
            alternatives = [_openers(list(alt)) for alt in av[1]]
            if any(chars is ANY for chars, _ in alternatives):
                return ANY, False
            found |= set().union(*(chars for chars, _ in alternatives))
            if not any(empty for _, empty in alternatives):
                return found, False
        elif op is sre.SUBPATTERN:
            chars, empty = _openers(list(av[-1]))
            if chars is ANY:
                return ANY, False
            found |= chars
            if not empty:
                return found, False
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
            low, _, item = av
            chars, empty = _openers(list(item))
            if chars is ANY:
                return ANY, False
            found |= chars
            if low > 0 and not empty:
                return found, False
        else:
            return ANY, False
    return found, True


@pytest.mark.parametrize("pattern", [
    _base._SENTENCE_RE, _base.STRONG_MARK_RE, _base.HEDGE_RE, _base.REFUSAL_RE, _base.CORRECTION_RE,
    _base._OPEN_RE, _numbers._NUMBER_RE, _numbers._WORDS_RE, _choice._CHOICE_MARK_RE, _text._TEXT_MARK_RE, _text._CUED_MARK_RE,
    _commitment._FOREIGN_CUE_RE, _text._GARBLED_RE,
], ids=lambda p: p.pattern[:30])
def test_the_opening_lookahead_lists_every_character_a_match_can_open_with(pattern: re.Pattern[str]) -> None:
    parsed = list(sre_parse.parse(pattern.pattern, pattern.flags))
    if len(parsed) == 1 and parsed[0][0] is sre.BRANCH:
        parsed = list(parsed[0][1][1][0])  # "(?=[.!?])...|\n\s*": the lookahead opens the first alternative
    (op, (direction, lookahead)), rest = parsed[0], parsed[1:]
    assert op is sre.ASSERT and direction == 1, "the pattern opens with a lookahead"
    listed = _chars(list(lookahead)[0][1])
    needed, empty = _openers(rest)
    assert needed is not ANY and not empty
    missing = {c for c in needed if c not in listed and not (pattern.flags & re.IGNORECASE and c.lower() in listed)}
    assert not missing, f"the lookahead leaves out {sorted(missing)}"


def test_a_character_left_out_of_the_lookahead_is_caught() -> None:
    pattern = re.compile(r"(?=[ab])(?:ab|cd)")
    parsed = list(sre_parse.parse(pattern.pattern))
    needed, _ = _openers(parsed[1:])
    assert needed == {"a", "c"}
