"""Report section "valley": the ID-OOD gap per complexity level and the critical complexity, per model.

It appears when the run's rows carry ``level`` and ``part`` (``id`` / ``ood``) metadata, as the
rows of a complexity sweep (``gengap sweep``, :func:`gengap.tasks.sweep.run_sweep`) do. One chart
of the gap per level with intervals, a line per model and each model's critical complexity
marked; one chart of the ID and OOD scores; a table per model. Figures: ``sections.valley``.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from markupsafe import Markup

from gengap.analysis.valley import Valley, valleys_from_rows
from gengap.report._blocks import html_fragment
from gengap.report._figures import COLORS, figure_html, label
from gengap.report._format import ScoreFormat, md_escape
from gengap.report._sections import ReportContext, Section, register_section
from gengap.report._tables import table_html, table_markdown

__all__ = ["valley_section", "valley_figure"]


def _has_valley_rows(rows: pd.DataFrame) -> bool:
    if rows.empty or "metadata" not in rows:
        return False
    first = rows["metadata"].iloc[0]
    meta = json.loads(first) if isinstance(first, str) else (first or {})
    return "level" in meta and "part" in meta


def valley_figure(valleys: list[Valley], fmt: ScoreFormat) -> go.Figure:
    """The ID-OOD gap per level, a line per model, the critical complexity marked with its interval."""
    scale = 100.0 if fmt.percent else 1.0
    fig = go.Figure()
    for i, v in enumerate(valleys):
        t = v.levels
        color = COLORS[i % len(COLORS)]
        g = t["gap"].to_numpy() * scale
        fig.add_trace(go.Scatter(
            x=t["level"], y=g, mode="lines+markers", name=label(v.model), line=dict(color=color, width=2),
            error_y=dict(type="data", symmetric=False, array=t["gap_high"] * scale - g, arrayminus=g - t["gap_low"] * scale,
                         color=color, thickness=1.2, width=4),
            customdata=np.stack([t["n_id"], t["n_ood"]], axis=1),
            hovertemplate=(f"{label(v.model)}<br>level %{{x}}<br>gap %{{y:.1f}}<br>n ID %{{customdata[0]:,}}, "
                           "OOD %{customdata[1]:,}<extra></extra>"),
        ))
        fig.add_trace(go.Scatter(
            x=[v.critical], y=[v.peak_gap * scale], mode="markers", showlegend=False,
            marker=dict(size=14, color=color, symbol="star"),
            error_x=dict(type="data", symmetric=False, array=[v.critical_high - v.critical],
                         arrayminus=[v.critical - v.critical_low], color=color, thickness=2),
            hovertemplate=(f"{label(v.model)}: critical complexity {v.critical:g} "
                           f"[{v.critical_low:g}, {v.critical_high:g}]<extra></extra>"),
        ))
    fig.add_hline(y=0, line=dict(color="#8C96A3", width=1, dash="dash"))
    fig.update_layout(title="ID minus OOD score per complexity level (★ critical complexity, with its interval)",
                      xaxis=dict(title="complexity level", dtick=1), showlegend=len(valleys) > 1,
                      yaxis=dict(title="gap (points)" if fmt.percent else "gap"))
    return fig


def _scores_figure(valleys: list[Valley], fmt: ScoreFormat) -> go.Figure:
    scale = 100.0 if fmt.percent else 1.0
    fig = go.Figure()
    for i, v in enumerate(valleys):
        t = v.levels
        color = COLORS[i % len(COLORS)]
        for part, dash in (("id", "solid"), ("ood", "dot")):
            y = t[f"{part}_score"].to_numpy() * scale
            fig.add_trace(go.Scatter(
                x=t["level"], y=y, mode="lines+markers", name=label(f"{v.model} {part.upper()}"),
                line=dict(color=color, dash=dash),
                error_y=dict(type="data", symmetric=False, array=t[f"{part}_high"] * scale - y,
                             arrayminus=y - t[f"{part}_low"] * scale, color=color, thickness=1, width=3),
            ))
    fig.update_layout(title="ID (solid) and OOD (dotted) score per level", xaxis=dict(title="complexity level", dtick=1),
                      yaxis=dict(title="score (%)" if fmt.percent else "score"))
    return fig


def _table(v: Valley, fmt: ScoreFormat) -> pd.DataFrame:
    t = v.levels
    return pd.DataFrame({
        "Level": [f"{x:g}" for x in t["level"]],
        "n ID / OOD": [f"{a:,} / {b:,}" for a, b in zip(t["n_id"], t["n_ood"])],
        "ID": [f"{fmt.score(s)} {fmt.interval(lo, hi)}" for s, lo, hi in zip(t["id_score"], t["id_low"], t["id_high"])],
        "OOD": [f"{fmt.score(s)} {fmt.interval(lo, hi)}" for s, lo, hi in zip(t["ood_score"], t["ood_low"], t["ood_high"])],
        "Gap": [f"{fmt.gap(g)} {fmt.interval(lo, hi)}" for g, lo, hi in zip(t["gap"], t["gap_low"], t["gap_high"])],
        "Peak here": [f"{100 * s:.0f}%" for s in t["peak_share"]],
    })


@register_section("valley", order=42)
def valley_section(ctx: ReportContext) -> Section | None:
    """The generalization valley of each model (rows with level and part metadata)."""
    metric = ctx.primary_metric
    if metric is None:
        return None
    rows = ctx.clean_rows[ctx.clean_rows["metric"] == metric]
    if not _has_valley_rows(rows):
        return None
    valleys = valleys_from_rows(rows, n_resamples=ctx.n_resamples, confidence=ctx.confidence)
    fmt = ctx.score_format(metric)
    sweep = ctx.run.get("config", {}).get("sweep") or {}
    intro = ("The gap is the ID score minus the OOD score at each level; the critical complexity is the level where "
             "it peaks (Qi et al. 2024), with a bootstrap interval (examples resampled within each level and part; "
             "'peak here' is the share of resamples whose gap peaks at that level).")
    if sweep:
        intro += f" Task {sweep.get('task')}: level = {sweep.get('knob')}; OOD = {sweep.get('ood')}."
    sentences = [f"{v.model}: critical complexity {v.critical:g} "
                 f"({int(100 * v.confidence)}% interval {v.critical_low:g} to {v.critical_high:g}), gap there "
                 f"{fmt.gap(v.peak_gap)} {fmt.interval(*v.levels.loc[v.levels['level'] == v.critical, ['gap_low', 'gap_high']].iloc[0])}."
                 for v in valleys]
    html: list[Markup] = [html_fragment("<p>{{ intro }}</p>", intro=intro),
                          figure_html(valley_figure(valleys, fmt), div_id="chart-valley-gap", height=400),
                          html_fragment("{% for s in sentences %}<p>{{ s }}</p>{% endfor %}", sentences=sentences),
                          figure_html(_scores_figure(valleys, fmt), div_id="chart-valley-scores", height=380)]
    md = [md_escape(intro)] + [md_escape(s) for s in sentences]
    for v in valleys:
        table = _table(v, fmt)
        html += [html_fragment("<h3>{{ m }}</h3>", m=v.model), table_html(table)]
        md += [f"### {md_escape(v.model)}", table_markdown(table)]
    data: dict[str, Any] = {"metric": metric, "sweep": sweep or None, "models": [v.to_dict() for v in valleys]}
    return Section("Generalization valley", Markup("").join(html), "\n\n".join(md), data=data)
