"""Tables for report sections: one DataFrame in, an escaped HTML table or a Markdown table out.

Cells may be strings, numbers, None/NaN (shown as a dash) or :class:`markupsafe.Markup` (HTML a
section built itself, kept as is in HTML and reduced to text in Markdown). Every other text is
escaped, so data and model outputs can go straight into a table.

>>> import pandas as pd
>>> frame = pd.DataFrame({"split": ["random", "<b>length</b>"], "n": [40, 1234]})
>>> print(table_markdown(frame))
| split | n |
| :-- | --: |
| random | 40 |
| \\<b>length\\</b> | 1,234 |
>>> "&lt;b&gt;" in table_html(frame)
True
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any, Literal

import pandas as pd
from markupsafe import Markup, escape

from gengap.report._format import is_missing, md_escape

__all__ = ["table_html", "table_markdown"]

Align = Literal["left", "right"]


def _cell_text(value: Any) -> str:
    if isinstance(value, Markup):
        return value.striptags()
    if is_missing(value):
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, numbers.Integral):
        return f"{int(value):,}"
    if isinstance(value, numbers.Real):
        return f"{float(value):.3f}"
    return str(value)


def _alignments(frame: pd.DataFrame, align: Mapping[str, Align] | None) -> dict[str, Align]:
    out: dict[str, Align] = {}
    for col in frame.columns:
        values = [v for v in frame[col] if not is_missing(v)]
        numeric = bool(values) and all(isinstance(v, numbers.Number) and not isinstance(v, bool) for v in values)
        out[col] = "right" if numeric else "left"
    out.update(align or {})
    return out


def table_html(
    frame: pd.DataFrame,
    *,
    align: Mapping[str, Align] | None = None,
    caption: str | None = None,
    css_class: str = "",
) -> Markup:
    """An HTML ``<table>`` of ``frame`` (column names as headers, index dropped), every text escaped.

    Numeric columns are right-aligned; ``align`` overrides per column. ``css_class`` adds classes
    (``"compact"``, ``"texts"`` for long monospaced texts).
    """
    aligns = _alignments(frame, align)
    parts = [Markup('<div class="table-wrap"><table class="{}">').format(("data " + css_class).strip())]
    if caption:
        parts.append(Markup("<caption>{}</caption>").format(caption))
    parts.append(Markup("<thead><tr>"))
    for col in frame.columns:
        parts.append(Markup('<th class="{}">{}</th>').format(aligns[col], col))
    parts.append(Markup("</tr></thead><tbody>\n"))
    for row in frame.itertuples(index=False, name=None):
        parts.append(Markup("<tr>"))
        for col, value in zip(frame.columns, row):
            text = value if isinstance(value, Markup) else escape(_cell_text(value))
            parts.append(Markup('<td class="{}">{}</td>').format(aligns[col], text))
        parts.append(Markup("</tr>\n"))
    parts.append(Markup("</tbody></table></div>"))
    return Markup("").join(parts)


def table_markdown(frame: pd.DataFrame, *, align: Mapping[str, Align] | None = None) -> str:
    """A GitHub-flavoured Markdown table of ``frame``; cells escaped so they read literally."""
    aligns = _alignments(frame, align)
    header = "| " + " | ".join(md_escape(c) for c in frame.columns) + " |"
    rule = "| " + " | ".join("--:" if aligns[c] == "right" else ":--" for c in frame.columns) + " |"
    lines = [header, rule]
    for row in frame.itertuples(index=False, name=None):
        lines.append("| " + " | ".join(md_escape(_cell_text(v)) for v in row) + " |")
    return "\n".join(lines)
