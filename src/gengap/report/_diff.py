"""Where a model's output first departs from the target: what the sample failures highlight.

The comparison is by whitespace-separated words (a sequence of actions, a sentence), so the
highlight starts at a whole word, and the description says which word.

>>> first_difference("I_JUMP I_RUN I_WALK", "I_JUMP I_RUN I_RUN")
(13, 'word 3')
>>> first_difference("I_JUMP", "I_JUMP I_RUN")
(6, 'ends after word 1 of 2')
"""

from __future__ import annotations

import re
from typing import Any

from markupsafe import Markup, escape

__all__ = ["first_difference", "highlight"]

_WORD = re.compile(r"\S+")


def first_difference(output: Any, target: Any) -> tuple[int | None, str]:
    """``(character offset in output, description)`` of the first word where output and target differ.

    The offset is None when they agree word for word; the description reads 'word 3',
    'ends after word 1 of 2' (output too short) or 'longer than the target after word 2'.
    """
    out, tgt = "" if output is None else str(output), "" if target is None else str(target)
    words = list(_WORD.finditer(out))
    target_words = tgt.split()
    for k, m in enumerate(words):
        if k >= len(target_words):
            return m.start(), f"longer than the target after word {k}"
        if m.group() != target_words[k]:
            return m.start(), f"word {k + 1}"
    if len(words) < len(target_words):
        return len(out.rstrip()), f"ends after word {len(words)} of {len(target_words)}"
    return None, "same words" if out != tgt else ""


def highlight(output: str, offset: int | None) -> Markup:
    """The output as HTML with everything from ``offset`` on in a ``<mark>``; a marker when it stops early.

    >>> str(highlight("a <b> c", 2))
    'a <mark class="diff">&lt;b&gt; c</mark>'
    """
    if offset is None:
        return escape(output)
    rest = output[offset:]
    if not rest.strip():
        return Markup('{}<mark class="diff missing" title="the output stops here; the target goes on">…</mark>').format(output)
    return Markup('{}<mark class="diff">{}</mark>').format(output[:offset], rest)
