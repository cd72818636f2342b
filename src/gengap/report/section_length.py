"""The report's length section: score by length for runs with a length split.

A length split says *whether* a model loses on longer examples; this chart shows *where*: the
score of every scored test example grouped by its length (the same measure the length split cut
on, input or target words), one line per split, with the longest length seen in training marked.
The general version for any ordinal axis (break points, valleys) lives in the curves analysis;
this section only draws what the length split already measures.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from markupsafe import Markup

from gengap.analysis.intervals import mean_ci
from gengap.report._blocks import html_fragment
from gengap.report._figures import COLORS, REFERENCE_COLOR, figure_html, label
from gengap.report._format import ScoreFormat, md_escape
from gengap.report._sections import ReportContext, Section, register_section
from gengap.report._tables import table_markdown

__all__ = ["score_by_length"]

#: Bootstrap resamples per (split, length) point: enough for a chart's whiskers.
N_RESAMPLES = 2000


def score_by_length(rows: pd.DataFrame, by: str = "target", *, confidence: float = 0.95) -> pd.DataFrame:
    """Mean score per (split, length) with its interval (exact for 0/1 scores); length = whitespace words of ``by``.

    >>> rows = pd.DataFrame({"split": ["a"] * 4, "target": ["x", "x", "x y", "x y"], "score": [1, 1, 0, 1]})
    >>> score_by_length(rows)[["split", "length", "n", "score"]].values.tolist()
    [['a', 1, 2, 1.0], ['a', 2, 2, 0.5]]
    """
    lengths = rows[by].map(lambda t: len(str(t).split()))
    out = []
    for (split, length), g in rows.assign(length=lengths).groupby(["split", "length"], sort=False):
        ci = mean_ci(g["score"].to_numpy(dtype=float), confidence=confidence, n_resamples=N_RESAMPLES, seed=0)
        out.append({"split": split, "length": int(length), "n": ci.n, "score": ci.estimate, "low": ci.low, "high": ci.high})
    frame = pd.DataFrame(out, columns=["split", "length", "n", "score", "low", "high"])
    return frame.sort_values(["split", "length"], kind="stable").reset_index(drop=True)


def _figure(table: pd.DataFrame, fmt: ScoreFormat, by: str, max_train: int | None, order: list[str],
            reference: str | None) -> go.Figure:
    scale = 100.0 if fmt.percent else 1.0
    fig = go.Figure()
    for i, split in enumerate(s for s in order if s in set(table["split"])):
        sub = table[table["split"] == split]
        color = REFERENCE_COLOR if split == reference else COLORS[i % len(COLORS)]
        y = sub["score"].to_numpy(dtype=float) * scale
        fig.add_trace(go.Scatter(
            x=sub["length"], y=y, name=label(split, 28), mode="lines+markers", line=dict(color=color, width=2),
            marker=dict(size=6), customdata=np.stack([sub["n"], sub["low"] * scale, sub["high"] * scale], axis=1),
            error_y=dict(type="data", symmetric=False, array=sub["high"] * scale - y, arrayminus=y - sub["low"] * scale,
                         color=color, thickness=1, width=3),
            hovertemplate=(f"<b>{label(split)}</b><br>{by} length %{{x}}<br>score %{{y:.1f}}"
                           f"{'%' if fmt.percent else ''} [%{{customdata[1]:.1f}}, %{{customdata[2]:.1f}}]"
                           "<br>n = %{customdata[0]:,}<extra></extra>"),
        ))
    if max_train is not None:
        fig.add_vline(x=max_train + 0.5, line=dict(color="#5f6b7a", width=1.2, dash="dot"),
                      annotation_text=f"longest in training: {max_train}", annotation_position="top left",
                      annotation_font=dict(size=12, color="#5f6b7a"))
    fig.update_layout(
        title=f"Score by {by} length (words), per split, with 95% intervals",
        xaxis=dict(title=f"{by} length (words)", tickformat="d"),
        yaxis=dict(title=f"score ({'%' if fmt.percent else 'mean'})", range=[-3, 105] if fmt.percent else None),
        legend=dict(orientation="h", yanchor="top", y=-0.22, xanchor="left", x=0),
    )
    return fig


def _length_split(ctx: ReportContext) -> tuple[str, dict[str, Any]] | None:
    for name, info in ctx.split_info.items():
        by = (info.get("params") or {}).get("by", "target")
        if info.get("method") == "length" and by in ("target", "input"):
            return name, info
    return None


@register_section("length_curve", order=41)
def length_curve(ctx: ReportContext) -> Section | None:
    """Score by length, one line per split, for runs with a length split over input or target words."""
    found = _length_split(ctx)
    metric = ctx.primary_metric
    if found is None or metric is None:
        return None
    name, info = found
    by = (info.get("params") or {}).get("by", "target")
    rows = ctx.clean_rows[ctx.clean_rows["metric"] == metric]
    if rows.empty or by not in rows:
        return None
    table = score_by_length(rows, by, confidence=ctx.confidence)
    fmt = ctx.score_format(metric)
    max_train = info.get("max_train_length")
    max_train = int(max_train) if isinstance(max_train, (int, float)) else None
    chart = figure_html(_figure(table, fmt, by, max_train, list(ctx.split_info), ctx.reference),
                        div_id="chart-length-curve", height=430)
    lede = (f"Each point is the mean {metric.replace('_', ' ')} of the test examples of one {by} length (in words), "
            "with its 95% interval (exact for 0/1 scores); hover for n. "
            + (f"The split '{name}' trained on lengths up to {max_train} (dotted line) and tests on longer ones, "
               "so its line starts to the right of it; the other splits test on every length."
               if max_train is not None else ""))
    html = html_fragment('<p class="lede">{{ lede }}</p>{{ chart }}', lede=lede, chart=chart)
    brief = table[table["split"].isin([name, ctx.reference])]  # the Markdown table: the length split and the reference
    shown = brief.assign(score=brief["score"].map(fmt.score),
                         interval=[fmt.interval(lo, hi) for lo, hi in zip(brief["low"], brief["high"])])
    shown = shown[["split", "length", "n", "score", "interval"]].rename(columns={"interval": "95% CI", "length": f"{by} length"})
    md = "\n\n".join([md_escape(lede), table_markdown(shown)])
    data = {"split": name, "by": by, "max_train_length": max_train, "points": table.to_dict("records")}
    return Section(f"Score by {by} length", Markup(html), md, data=data)
