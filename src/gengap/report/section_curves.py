"""Report section "curves": the score along an axis, where it breaks and where it halves.

Drawn for every axis named with ``--curve`` (or ``curves`` in a run file's ``[eval]``) and, without
being asked, for every length split (along its length measure). Per axis: one chart with a line per
model (primary metric; per-bin intervals as whiskers, the training range shaded, the break point
and the halving point marked), one sentence per model, and the bins as a table. The figures go to
``results.json`` under ``curves`` (see docs/results-schema.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from markupsafe import Markup

from gengap._errors import GengapError
from gengap.analysis.curves import Curve, default_axes, run_curves
from gengap.report._blocks import html_fragment
from gengap.report._figures import COLORS, figure_html, label
from gengap.report._format import ScoreFormat, md_escape
from gengap.report._sections import ReportContext, Section, register_section
from gengap.report._tables import table_html, table_markdown

__all__ = ["curves_section", "curve_axes", "curve_sentence", "curve_figure", "trained_models"]


def trained_models(run: dict[str, Any]) -> list[str]:
    """The models a run trained on its splits (learners); the others have no training range on any axis."""
    return [str(m) for m in (run.get("config", {}).get("trained") or [])]


def curve_axes(ctx: ReportContext) -> list[str]:
    """Axes to draw: those asked for (report options, then the run's configuration), then length splits'."""
    configured = (ctx.run.get("config", {}).get("eval") or {}).get("curves") or []
    out: list[str] = []
    for axis in [*ctx.curve_axes, *configured, *default_axes(ctx.split_info)]:
        if axis not in out:
            out.append(str(axis))
    return out


def _value(v: float | None, fmt: ScoreFormat | None = None) -> str:
    if v is None:
        return "beyond the tested range"
    return fmt.score(v) if fmt is not None else f"{v:.4g}"


def _bin_label(low: float, high: float) -> str:
    """``17–26`` (a bin of several values) or ``17`` (one value)."""
    return f"{low:g}" if low == high else f"{low:g}–{high:g}"


def _bin_at(c: Curve, value: float) -> pd.Series:
    """The bin a break or drop value names (its first whole number on an integer axis, else its mean value)."""
    t = c.bins
    key = t["low_edge"] if c.integer else t["value"]
    return t.iloc[int(np.argmin(np.abs(key.to_numpy() - value)))]


def curve_sentence(c: Curve, fmt: ScoreFormat) -> str:
    """One sentence per curve: the reference, any drop inside the training range, the break and halving points."""
    first = c.bins.iloc[0]
    if c.train_range is not None:
        ref = f"in the training range ({_bin_label(*c.train_range)})"
    else:
        ref = (f"in the first bin ({c.axis} {_bin_label(first['low_edge'], first['high_edge'])}), the reference: "
               "no model was trained on this axis")
    ref_text = f"{fmt.score(c.reference_score)} {ref} (n = {c.n_reference:,})"
    drop = ""
    if c.drop_value is not None and c.drop_from is not None:
        a, b = _bin_at(c, c.drop_from), _bin_at(c, c.drop_value)
        drop = (f"; inside the training range the score already falls, from {fmt.score(a['score'])} at {c.axis} "
                f"{_bin_label(a['low_edge'], a['high_edge'])} to {fmt.score(b['score'])} at "
                f"{_bin_label(b['low_edge'], b['high_edge'])} (significantly below the first in-range bin)")
    where = "beyond the training range, " if c.train_range is not None else ""
    if c.break_value is None:
        brk = f"{where}no bin is significantly below it (one-sided {c.test} tests, Holm, α = {c.alpha:g})"
    else:
        brk = (f"{where}it breaks at {c.axis} = {c.break_value:.4g} (the first bin significantly below; "
               f"{int(100 * c.confidence)}% bootstrap interval {_value(c.break_low)} to {_value(c.break_high)})")
    if c.half_value is None:
        half = "the monotone fit stays above half of it in the tested range"
    else:
        half = (f"the monotone fit falls to half of it at {c.axis} = {c.half_value:.4g} "
                f"[{_value(c.half_low)}, {_value(c.half_high)}]")
    return f"{c.model}: {ref_text}{drop}; {brk}; {half}."


def curve_figure(curves: list[Curve], fmt: ScoreFormat, axis: str) -> go.Figure:
    """Score per bin along ``axis``, a line per model, with intervals, training range, break and halving points."""
    scale = 100.0 if fmt.percent else 1.0
    fig = go.Figure()
    first = next((c for c in curves if c.train_range is not None), curves[0])
    if first.train_range is not None:
        fig.add_vrect(x0=first.train_range[0] - 0.5 if first.bins["low_edge"].eq(first.bins["high_edge"]).all() else first.train_range[0],
                      x1=first.train_range[1] + 0.5 if first.bins["low_edge"].eq(first.bins["high_edge"]).all() else first.train_range[1],
                      fillcolor="#E6E9ED", opacity=0.6, line_width=0, layer="below",
                      annotation_text="training range", annotation_position="top left")
    for i, c in enumerate(curves):
        t = c.bins
        color = COLORS[i % len(COLORS)]
        y = t["score"].to_numpy() * scale
        lo, hi = t["score_low"].to_numpy() * scale, t["score_high"].to_numpy() * scale
        fig.add_trace(go.Scatter(
            x=t["value"], y=y, mode="lines+markers", name=label(c.model), line=dict(color=color, width=2),
            marker=dict(size=7, color=color, symbol=np.where(t["below"], "x", "circle").tolist()),
            error_y=dict(type="data", symmetric=False, array=hi - y, arrayminus=y - lo, color=color, thickness=1.2, width=4),
            customdata=np.stack([t["n"].to_numpy(), lo, hi], axis=1),
            hovertemplate=(f"{label(c.model)}<br>{label(axis)} %{{x:.4g}}<br>score %{{y:.1f}} [%{{customdata[1]:.1f}}, "
                           "%{customdata[2]:.1f}]<br>n = %{customdata[0]:,}<extra></extra>"),
        ))
        fig.add_trace(go.Scatter(x=t["value"], y=t["fit"] * scale, mode="lines", showlegend=False, hoverinfo="skip",
                                 line=dict(color=color, width=1, dash="dot")))
        if c.break_value is not None:
            fig.add_vline(x=c.break_value, line=dict(color=color, width=1.5, dash="dash"))
        if c.half_value is not None:
            fig.add_trace(go.Scatter(
                x=[c.half_value], y=[c.reference_score / 2 * scale], mode="markers", showlegend=False,
                marker=dict(size=11, color=color, symbol="diamond-open", line=dict(width=2)),
                error_x=dict(type="data", symmetric=False, color=color,
                             array=[(c.half_high - c.half_value) if c.half_high is not None else 0],
                             arrayminus=[(c.half_value - c.half_low) if c.half_low is not None else 0]),
                hovertemplate=f"{label(c.model)}: half the reference score at %{{x:.3g}}<extra></extra>",
            ))
    fig.update_layout(
        title=label(f"Score along {axis}: per bin with {int(100 * first.confidence)}% intervals "
                    "(× significantly below, dashed: break point, ◇: halving point)"),
        xaxis=dict(title=label(axis)), showlegend=len(curves) > 1,
        yaxis=dict(title="score (%)" if fmt.percent else "score", range=[-3, 105] if fmt.percent else None),
    )
    return fig


def _bins_table(c: Curve, fmt: ScoreFormat, many_models: bool) -> pd.DataFrame:
    t = c.bins
    unique = bool(t["low_edge"].eq(t["high_edge"]).all())
    out = pd.DataFrame({
        c.axis: [f"{v:g}" for v in t["value"]] if unique else [_bin_label(a, b) for a, b in zip(t["low_edge"], t["high_edge"])],
        "n": t["n"].astype(int),
        "Score": [fmt.score(v) for v in t["score"]],
        f"{int(100 * c.confidence)}% CI": [fmt.interval(a, b) for a, b in zip(t["score_low"], t["score_high"])],
        "Range": [("training" if c.train_range is not None else "reference") if r else "" for r in t["in_range"]],
        "p (Holm)": ["" if pd.isna(p) else ("<0.001" if p < 0.001 else f"{p:.3f}") for p in t["p_holm"]],
        "Below": ["◀ yes" if b else "" for b in t["below"]],
    })
    if many_models:
        out.insert(0, "Model", c.model)
    return out


@register_section("curves", order=40)
def curves_section(ctx: ReportContext) -> Section | None:
    """Score curves along each asked-for axis and each length split's length."""
    from gengap.metrics import is_corpus_metric

    # a curve's break-point test needs per-example scores: the first metric that is a mean of them
    metric = next((m for m in ctx.metrics if not is_corpus_metric(m)), None)
    axes = curve_axes(ctx)
    if metric is None or not axes or ctx.clean_rows.empty:
        return None
    fmt = ctx.score_format(metric)
    rows = ctx.clean_rows[ctx.clean_rows["metric"] == metric]
    html: list[Markup] = []
    md: list[str] = []
    data: list[dict[str, Any]] = []
    for k, axis in enumerate(axes):
        html.append(html_fragment("<h3>{{ axis }}</h3>", axis=axis))
        md.append(f"### {md_escape(axis)}")
        try:
            curves = run_curves(rows, ctx.split_info, axis, reference=ctx.reference, n_resamples=ctx.n_resamples,
                                confidence=ctx.confidence, trained=trained_models(ctx.run), cluster=ctx.cluster)
        except GengapError as e:
            html.append(html_fragment('<p class="notice">No curve along {{ axis }}: {{ why }}</p>', axis=axis, why=str(e)))
            md.append(f"> No curve along {md_escape(axis)}: {md_escape(str(e))}")
            continue
        for c in curves:
            data.append(c.to_dict())
        sentences = [curve_sentence(c, fmt) for c in curves]
        html.append(figure_html(curve_figure(curves, fmt, axis), div_id=f"chart-curve-{k}", height=400))
        html.append(html_fragment("{% for s in sentences %}<p>{{ s }}</p>{% endfor %}", sentences=sentences))
        table = pd.concat([_bins_table(c, fmt, len(curves) > 1) for c in curves], ignore_index=True)
        html.append(table_html(table))
        md += [md_escape(s) for s in sentences] + [table_markdown(table)]
    note = ("Per-bin intervals: Clopper-Pearson (exact) for 0/1 scores, percentile bootstrap otherwise. Each bin above "
            "the training range is tested one-sided against the pooled in-range rows (Fisher's exact test for 0/1 "
            "scores, Welch's t test otherwise), with Holm's correction over those bins; inside the training range, each bin is "
            "tested the same way against the first in-range bin, so a fall before the end of the range is named. A model "
            "that was not trained on the splits (a function, an endpoint) has no training range: its first bin is the "
            "reference and every later bin is tested against it. The halving point is where a "
            "non-increasing (isotonic) fit of the bins reaches half the in-range score. Both intervals resample "
            "examples within each bin. With a length split, the in-range rows come from the i.i.d. split's test part.")
    html.append(html_fragment('<p class="note">{{ note }}</p>', note=note))
    md.append(f"*{md_escape(note)}*")
    return Section("Score curves", Markup("").join(html), "\n\n".join(md), data=data)
