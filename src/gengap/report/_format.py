"""How numbers and texts read in a report: scores, intervals, gaps, counts, escaped Markdown.

Scores of a metric whose values all lie in [0, 1] (accuracy, exact match, F1) read as percentages
and their gaps as percentage points; any other metric reads as plain numbers.

>>> fmt = ScoreFormat(percent=True)
>>> fmt.score(0.8125), fmt.interval(0.75, 0.875), fmt.gap(0.125)
('81.2%', '[75.0, 87.5]', '12.5 pts')
>>> ScoreFormat(percent=False).score(3.14159)
'3.142'
>>> print(md_escape("a | b <i>*x*</i> Pipeline(A>B) &amp;"))
a \\| b \\<i>\\*x\\*\\</i> Pipeline(A>B) \\&amp;
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

__all__ = ["ScoreFormat", "bound", "count", "is_missing", "md_escape", "truncate"]

#: What Markdown could read as formatting, escaped with a backslash: backslashes, backticks, emphasis
#: stars and tildes, pipes (table cells), underscores at a word boundary (GitHub ignores them inside
#: words), a ']' that would close a link ("](", "][", "]:"), a '#' or '>' that starts the text, a '<'
#: that could open an HTML tag or autolink, and an '&' that could start an entity. Everything else
#: stays as typed, so ``a > b`` and ``Pipeline(A>B)`` read as they are.
_MD_SPECIAL = re.compile(r"([\\`*~|])|((?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))|(\](?=[(\[:]))|(^[#>])"
                         r"|(<(?=[A-Za-z/!?]))|(&(?=#?[A-Za-z0-9]+;))")


def is_missing(value: Any) -> bool:
    """True for None and NaN (what a summary holds where a figure does not exist)."""
    if value is None:
        return True
    try:
        return bool(math.isnan(value))
    except TypeError:
        return False


def bound(value: float, digits: int = 1, scale: float = 100.0) -> str:
    """An interval bound with ``digits`` decimals, or more where fewer would round a bound that is
    not 0 (or not 1) to ``0.0`` (``100.0``): an honest interval must not read as a certain 0%.

    >>> bound(0.000479), bound(0.0), bound(0.99995), bound(0.75)
    ('0.05', '0.0', '99.995', '75.0')
    """
    x = scale * float(value)
    for d in range(digits, digits + 5):
        text = f"{x:.{d}f}"
        edge = float(text) in (0.0, scale)
        if not edge or x in (0.0, scale):
            return text
    return text


def count(n: Any) -> str:
    """An integer with thousands separators: ``count(20910) == '20,910'``."""
    return "–" if is_missing(n) else f"{int(n):,}"


@dataclass(frozen=True)
class ScoreFormat:
    """Formats the scores of one metric: as percentages (``percent=True``) or plain numbers.

    Attributes
    ----------
    percent : scores are fractions in [0, 1]; show them as % and their differences as points.
    digits : decimals shown.
    """

    percent: bool
    digits: int = 1

    @property
    def unit(self) -> str:
        """The unit of a gap: ``pts`` (percentage points) or an empty string."""
        return "pts" if self.percent else ""

    def _num(self, value: Any, digits: int | None = None) -> str:
        if is_missing(value):
            return "–"
        d = self.digits if digits is None else digits
        if self.percent:
            return f"{100 * float(value):.{d}f}"
        return f"{float(value):.{d + 2}f}"

    def score(self, value: Any) -> str:
        """``81.2%`` (percent) or ``0.812``."""
        text = self._num(value)
        return text + "%" if self.percent and text != "–" else text

    def interval(self, low: Any, high: Any) -> str:
        """``[75.0, 87.5]``: the bounds in the same unit as the score, without the % sign; a bound
        near 0% or 100% gets the decimals it needs to differ from them (``[0.0, 0.05]``)."""
        if self.percent and not is_missing(low) and not is_missing(high):
            return f"[{bound(low, self.digits)}, {bound(high, self.digits)}]"
        return f"[{self._num(low)}, {self._num(high)}]"

    def gap(self, value: Any) -> str:
        """``12.5 pts`` (percent) or ``0.125``; the sign is kept (negative: better than the reference)."""
        text = self._num(value)
        return f"{text} {self.unit}".strip() if text != "–" else text


def truncate(text: Any, limit: int = 300) -> str:
    """A text cut to ``limit`` characters with an ellipsis and the full length, so a reader knows it was cut.

    >>> truncate("abcdef", 3)
    'abc… (6 characters)'
    """
    s = "" if text is None else str(text)
    if len(s) <= limit:
        return s
    return f"{s[:limit]}… ({len(s):,} characters)"


def md_escape(text: Any) -> str:
    """Text that reads literally inside Markdown (and a Markdown table cell on GitHub).

    Markdown's own escaping, not HTML's: a character Markdown could read as formatting, an HTML tag
    or an entity gets a backslash (``<b>`` becomes ``\\<b>``), the rest stays as typed, and line
    breaks become ``<br>`` so a table cell stays on one line.
    """
    s = "" if text is None else str(text)
    s = _MD_SPECIAL.sub(lambda m: "\\" + m.group(0), s)
    return s.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "<br>")
