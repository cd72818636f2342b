"""The hot regexes of the extraction cascade open with a lookahead of the characters a match can start
with, a cheap test that spares the rest of the pattern elsewhere. The lookahead must list every such
character, or a match would be lost: each pattern finds the same matches with its lookahead removed,
on every output of the extraction cases and the first labelled set (as written and lower-cased)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gengap.extract import _base, _choice, _commitment, _numbers, _text, _verify, _yes_no

ROOT = Path(__file__).resolve().parents[1]
_LOOKAHEAD = re.compile(r"^\(\?=\[(?:\\.|[^\]\\])+\]\)")


def _texts() -> list[str]:
    paths = [*sorted((ROOT / "tests" / "data" / "extract").glob("*.jsonl")), ROOT / "benchmarks" / "data" / "extraction_labelled.jsonl"]
    outputs = [json.loads(line)["output"] for path in paths for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return outputs + [o.lower() for o in outputs]


TEXTS = _texts()


def without_lookahead(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """``pattern`` with its opening lookahead of characters taken off."""
    stripped, found = _LOOKAHEAD.subn("", pattern.pattern)
    assert found == 1, "the pattern opens with a lookahead of characters"
    return re.compile(stripped, pattern.flags)


@pytest.mark.parametrize("pattern", [
    _base._SENTENCE_RE, _base.STRONG_MARK_RE, _base.HEDGE_RE, _base.REFUSAL_RE, _base.CORRECTION_RE,
    _base._OPEN_RE, _numbers._NUMBER_RE, _numbers._WORDS_RE, _choice.MARKERS.marker, _yes_no.MARKERS.marker, _text._TEXT_MARK_RE,
    _commitment._FOREIGN_CUE_RE, _text._GARBLED_RE, _base._MD_RE, _base.WEAK_MARK_RE,
    _verify._NEGATION, _verify._CAPITAL, _verify._LETTER, _verify._YES_NO, _verify._phrase_pattern(),
], ids=lambda p: p.pattern[:30])
def test_the_opening_lookahead_lists_every_character_a_match_can_open_with(pattern: re.Pattern[str]) -> None:
    plain = without_lookahead(pattern)
    lost = [t for t in TEXTS if [m.span() for m in pattern.finditer(t)] != [m.span() for m in plain.finditer(t)]]
    assert not lost, f"the lookahead loses matches in {lost[:3]}"


def test_a_character_left_out_of_the_lookahead_is_caught() -> None:
    pattern = re.compile(r"(?=[ab])(?:ab|cd)")
    texts = ["xx cd ab"]
    assert [m.group() for m in without_lookahead(pattern).finditer(texts[0])] == ["cd", "ab"]
    assert [m.group() for m in pattern.finditer(texts[0])] == ["ab"]
