"""Plotly figures for report sections: one look for every chart, and a figure -> HTML ``<div>``.

The page inlines plotly.js once; :func:`figure_html` emits only the figure's ``<div>`` and the
``Plotly.newPlot`` call. Its JSON comes from plotly's encoder, which writes ``<``, ``>`` and ``/``
as ``\\u`` escapes, so no text inside a figure can close the ``<script>`` element. The ``div_id``
is given by the section, so the same data always gives the same HTML.

Texts from data (split names, group values) shown in a chart should go through :func:`label`:
plotly reads a few HTML tags in chart texts, and escaping shows them literally instead.

>>> import plotly.graph_objects as go
>>> html = figure_html(go.Figure(go.Bar(x=["a"], y=[1])), div_id="demo-chart")
>>> 'id="demo-chart"' in html and "Plotly.newPlot" in html
True
"""

from __future__ import annotations

import html as html_lib
import re
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio
from markupsafe import Markup, escape

__all__ = ["COLORS", "REFERENCE_COLOR", "figure_html", "label", "gengap_template"]

#: Colour-blind-safe palette (Okabe & Ito), one colour per model or series.
COLORS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]
#: The i.i.d. reference split is drawn in a neutral grey.
REFERENCE_COLOR = "#8C96A3"

_DIV_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
_CONFIG = {"displaylogo": False, "responsive": True,
           "modeBarButtonsToRemove": ["select2d", "lasso2d", "autoScale2d"]}


def gengap_template() -> go.layout.Template:
    """The charts' shared look: quiet grid, readable font, the colour-blind-safe palette."""
    axis = dict(gridcolor="#E6E9ED", linecolor="#B8C0CA", zerolinecolor="#B8C0CA", ticks="outside",
                tickcolor="#B8C0CA", automargin=True, title=dict(standoff=8))
    return go.layout.Template(layout=dict(
        font=dict(family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif", size=13, color="#2B3440"),
        colorway=COLORS, paper_bgcolor="white", plot_bgcolor="white",
        margin=dict(l=60, r=24, t=64, b=48), xaxis=axis, yaxis=axis,
        hoverlabel=dict(font=dict(family="ui-monospace, SFMono-Regular, Menlo, monospace", size=12)),
        legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="right", x=1, font=dict(size=12)),
        title=dict(x=0, xanchor="left", y=0.98, yanchor="top", font=dict(size=15)),
    ))


def label(text: Any, limit: int | None = None) -> str:
    """A text from data made safe and literal for a plotly chart (escaped ``<``, ``>``, ``&``).

    ``limit`` cuts a long text (an axis label) to that many characters with an ellipsis.

    >>> label("<b>x</b>"), label("a very long split name", 10)
    ('&lt;b&gt;x&lt;/b&gt;', 'a very lo…')
    """
    s = "" if text is None else str(text)
    if limit is not None and len(s) > limit:
        s = s[: limit - 1] + "…"
    return str(escape(s))


def figure_html(fig: go.Figure, *, div_id: str, height: int = 380) -> Markup:
    """The HTML ``<div>`` that draws ``fig`` (plotly.js must be on the page, which the report ensures).

    Parameters
    ----------
    fig : a plotly figure; it gets the report's template.
    div_id : a unique, fixed id for the chart, such as ``"perturbation-heatmap"`` (letters,
        digits, ``-`` and ``_``); fixed ids keep reports byte-identical from run to run.
    height : the chart's height in pixels.
    """
    if not _DIV_ID.match(div_id):
        raise ValueError(f"div_id={div_id!r} must start with a letter and hold only letters, digits, '-' and '_'.")
    fig = go.Figure(fig)
    fig.update_layout(template=gengap_template())
    # The title goes above the chart as HTML, so plotly's toolbar (shown on hover, top right) never covers it.
    title = _plain_title(fig.layout.title.text)
    if title:
        fig.update_layout(title=None, margin=dict(t=36))
        height = max(height - 28, 120)
    html = pio.to_html(fig, include_plotlyjs=False, full_html=False, div_id=div_id, config=_CONFIG,
                       default_height=f"{height}px", default_width="100%", validate=True)
    caption = Markup('<figcaption>{}</figcaption>').format(title) if title else Markup("")
    return Markup('<figure class="chart">{}{}</figure>').format(caption, Markup(html.strip()))


def _plain_title(text: str | None) -> str:
    """A chart title as plain text: plotly's tags (``<br>``, ``<b>``) dropped, entities made from :func:`label` undone.

    >>> _plain_title("Gap to &lt;b&gt;x&lt;/b&gt;<br>(points)")
    'Gap to <b>x</b> (points)'
    """
    if not text:
        return ""
    text = re.sub(r"<br\s*/?>", " ", text, flags=re.IGNORECASE)
    return html_lib.unescape(re.sub(r"<[^>]*>", "", text)).strip()
