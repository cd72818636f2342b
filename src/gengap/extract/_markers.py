"""Where an output states its answer, read the same way for every kind from the kind's table.

A careful reader looks for the answer where the output says it is: in a box, after "Final answer:", after "so"
or "therefore", at the end of the reply. Those places are the same for every kind; only what an answer looks
like differs. So each kind gives one small table (:class:`Markers`): its answer at the start of a stretch of
text (``first``) and at its end (``last``), the phrases that announce it (``marker``: the phrase files'
``marker`` lists of every language, plus the kind's own), the words of a conclusion (``conclusion``), and the
positions a stretch of text is read at, in order (``region``). :func:`rule` makes the cascade's rules of them:
``boxed`` (the last ``\\boxed{}``, read as a region), ``marked`` (the first answer after the last marker
followed by one), ``concluding`` (the same after a conclusion) and ``last``.

>>> table = Markers(first=lambda ctx, text: text.split()[0] if text.split() else None,
...                 last=lambda ctx, text: text.split()[-1] if text.split() else None)
>>> read_marked(table, Context("I thought 3. Final answer: 4 apples", "number"))
'4'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gengap.extract._base import MARKER_OPENS, MARKER_SUFFIX, STRONG_MARK_RE, Context, Rule, echo_rule
from gengap.extract._commitment import marked_non_answer, stage, tentative_rule
from gengap.extract._phrases import alternation, languages_with

__all__ = ["Markers", "cascade", "front", "marker_pattern", "read_marked", "read_region", "rule"]
Reader = Callable[[Context, str], "str | None"]


def marker_pattern(extra: str = "", opens: str = "") -> re.Pattern[str]:
    """The markers of every phrase file and a kind's own (``extra``, opening with one of ``opens``: a cheap first
    test that tests/test_extract_speed.py keeps complete), as one pattern ending where the answer starts."""
    alternatives = alternation("marker", languages_with("marker"))[3:-1] + (f"|{extra}" if extra else "")
    return re.compile(f"(?=[{''.join(sorted(set(MARKER_OPENS + opens)))}])(?:{alternatives})" + MARKER_SUFFIX, re.IGNORECASE)



@dataclass(frozen=True)
class Markers:
    """A kind's table of where an output states its answer and what that answer looks like."""

    first: Reader  #: the kind's answer opening a stretch of text
    last: Reader  #: the kind's answer closing it
    marker: re.Pattern[str] = field(default=STRONG_MARK_RE)  #: every language's markers by default
    conclusion: re.Pattern[str] | None = None
    region: tuple[str, ...] = ("marked", "concluding", "first", "last")
    #: what a marker names, when it reads more than ``first`` ("The answer is the second one."); None: ``first``
    named: Reader | None = None
    #: whether the line under a marker ending its own line ("Here's the answer:\n\n...") is the answer, not the working
    alone: Callable[[Context, str], bool] | None = None


def _after_last(table: Markers, ctx: Context, pattern: re.Pattern[str] | None, text: str, read: Reader | None = None) -> str | None:
    """The first answer after the last match of ``pattern`` in ``text`` that is followed by one, on its line
    (or the next line when the match ends its own)."""
    for m in reversed(list(pattern.finditer(text)) if pattern is not None else ()):
        tail = text[m.end():]
        line = tail.split("\n", 1)[0].strip() or tail.strip().split("\n", 1)[0].strip()
        if table.alone is not None and "\n" in m.group(0) and not table.alone(ctx, line):
            return None
        found = (read or table.first)(ctx, line)
        if found is not None:
            return found
    return None


def read_marked(table: Markers, ctx: Context, text: str | None = None) -> str | None:
    """The first answer after the last marker of ``text`` (the output's) followed by one."""
    return _after_last(table, ctx, table.marker, ctx.text if text is None else text, table.named)


def read_region(table: Markers, ctx: Context, text: str) -> str | None:
    """The answer of a stretch of text (a box, what follows a self-correction): the first found at the table's
    positions, in order."""
    for position in table.region:
        found = (read_marked(table, ctx, text) if position == "marked"
                 else _after_last(table, ctx, table.conclusion, text) if position == "concluding"
                 else table.first(ctx, text) if position == "first"
                 else table.last(ctx, text) if position == "last" else text.strip() or None)  # "whole": the region is the answer
        if found is not None:
            return found
    return None


_READERS: dict[str, tuple[str, Callable[[Markers, Context], str | None]]] = {
    "boxed": ("format", lambda table, ctx: None if ctx.boxed is None else read_region(table, ctx, ctx.boxed)),
    "marked": ("marker", read_marked),
    "concluding": ("marker", lambda table, ctx: _after_last(table, ctx, table.conclusion, ctx.prose)),
    "first": ("answer_first", lambda table, ctx: table.first(ctx, ctx.prose)),
    "last": ("last", lambda table, ctx: table.last(ctx, ctx.prose)),
}


def front(table: Markers, correction: Callable[[Context], str | None], *, before: Sequence[Rule] = ()) -> tuple[Rule, ...]:
    """The rules every cascade opens with, in one order: the kind's own readings of the whole output again
    (``before``: without a courtesy, tidied), the box, an echo of the question (unextracted), a self-correction
    (read by ``correction``), an answer slot that holds no answer (unextracted), the marked answer."""
    return (*before, rule(table, "boxed"), Rule("echo", "abstain", echo_rule), Rule("correction", "self_correction", correction),
            Rule("non_answer", "abstain", marked_non_answer), rule(table, "marked"))


def cascade(table: Markers, rules: Callable[[], Sequence[Rule]], correction: Callable[[Context], str | None], *,
            before: Sequence[Rule] = (), stated: Sequence[Rule] = (), prose: Sequence[Rule] = (),
            pick: Callable[[Context, str], str | None] | None = None, **commitment: Any) -> tuple[Rule, ...]:
    """A kind's cascade, its stages in the one order every kind reads in: the :func:`front`, the kind's readers of an
    answer stated outright (``stated``: a table, bold, a verdict word opening the reply), the commitment stage
    (``_commitment.stage``, with ``commitment``'s options and ``pick``), the kind's readers of answers in prose
    (``prose``), and last the one tentative pick of a short output, read with ``pick``."""
    return (*front(table, correction, before=before), *stated, *stage(rules, pick=pick, **commitment), *prose,
            *((Rule("tentative", "abstain", tentative_rule(pick)),) if pick is not None else ()))


def rule(table: Markers, position: str, name: str | None = None) -> Rule:
    """The cascade rule that reads ``table``'s answer at ``position`` (``boxed``, ``marked``, ``concluding``, ``first``
    or ``last``), named ``name`` (the position by default)."""
    family, read = _READERS[position]
    return Rule(name or position, family, lambda ctx: read(table, ctx))
