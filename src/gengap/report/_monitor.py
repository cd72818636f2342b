"""Training curves: every measure a monitor stored, over steps, with the events it noticed.

Measures named ``train_X`` and ``heldout_X`` (also ``test_``, ``val_``, ``valid_``, ``eval_``,
``held_out_`` prefixes, or ``train/X`` style) share one chart, so the generalization gap and a
late jump in held-out accuracy (grokking) read at a glance. Per-layer measures (a non-empty
``scope``) get one line per layer. Events (memorized, grokked, nan_loss, ...) are dashed vertical
marks on every chart and listed in a table.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from markupsafe import Markup

from gengap.report._blocks import html_fragment
from gengap.report._figures import COLORS, figure_html, label
from gengap.report._format import md_escape, truncate
from gengap.report._sections import ReportContext, Section, register_section
from gengap.report._tables import table_html, table_markdown

__all__ = ["measure_family", "MAX_POINTS", "MAX_CHARTS"]

#: Points drawn per line; longer series are thinned to evenly spaced steps (the table keeps exact figures).
MAX_POINTS = 4000
#: Charts drawn; further measure families are listed in the table only.
MAX_CHARTS = 24
#: Lines per chart for per-layer measures.
MAX_SCOPES = 12
#: Events marked on the charts (all are listed in the table).
MAX_EVENT_MARKS = 12

_PREFIX = re.compile(r"^(train|training|held_?out|test|val|valid|validation|eval)[_/.](.+)$")


def measure_family(name: str) -> str:
    """The chart a measure goes on: ``train_accuracy`` and ``heldout_accuracy`` -> ``accuracy``.

    >>> measure_family("train_loss"), measure_family("heldout_loss"), measure_family("weight_norm")
    ('loss', 'loss', 'weight_norm')
    """
    m = _PREFIX.match(name)
    return m.group(2) if m else name


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _thin(frame: pd.DataFrame) -> pd.DataFrame:
    if len(frame) <= MAX_POINTS:
        return frame
    idx = np.unique(np.linspace(0, len(frame) - 1, MAX_POINTS).round().astype(int))
    return frame.iloc[idx]


def _family_figure(family: str, frame: pd.DataFrame, events: pd.DataFrame, log_x: bool) -> go.Figure:
    fig = go.Figure()
    i = 0
    names = sorted(set(frame["name"]), key=lambda n: (not n.startswith("train"), n))
    for name in names:
        by_name = frame[frame["name"] == name]
        scopes = sorted(set(by_name["scope"].fillna("")))
        for scope in scopes[:MAX_SCOPES]:
            series = _thin(by_name[by_name["scope"].fillna("") == scope].sort_values("step"))
            trace_name = name if not scope else f"{name} · {scope}"
            fig.add_trace(go.Scatter(
                x=series["step"].to_numpy(), y=series["value"].to_numpy(dtype=float), mode="lines",
                name=label(trace_name), line=dict(width=2, color=COLORS[i % len(COLORS)]),
                hovertemplate=f"{label(trace_name)}<br>step %{{x:,}}<br>%{{y:.4g}}<extra></extra>",
            ))
            i += 1
    for ev in events.head(MAX_EVENT_MARKS).itertuples():
        if log_x and ev.step <= 0:
            continue
        fig.add_vline(x=ev.step, line=dict(color="#5F6B7A", width=1, dash="dot"))
        # annotations on a log axis take log10 coordinates (the line above takes data coordinates)
        fig.add_annotation(x=float(np.log10(ev.step)) if log_x else ev.step, y=1, yref="paper", text=label(ev.kind),
                           textangle=-90, showarrow=False, font=dict(size=11, color="#5F6B7A"), yanchor="top",
                           xanchor="left")
    fig.update_layout(
        title=label(family.replace("_", " ").capitalize()), showlegend=True, hovermode="x unified",
        xaxis=dict(title="step" + (" (log scale)" if log_x else ""), type="log" if log_x else "linear"),
        yaxis=dict(title=label(family)),
    )
    return fig


def _summary(measures: pd.DataFrame) -> pd.DataFrame:
    records = []
    for (name, scope), g in measures.groupby(["name", measures["scope"].fillna("")], sort=True):
        g = g.sort_values("step")
        values = g["value"].to_numpy(dtype=float)
        finite = values[np.isfinite(values)]
        records.append({
            "name": name, "scope": scope, "n_points": int(len(g)),
            "first_step": int(g["step"].iloc[0]), "last_step": int(g["step"].iloc[-1]),
            "first": float(values[0]), "last": float(values[-1]),
            "min": float(finite.min()) if finite.size else None, "max": float(finite.max()) if finite.size else None,
            "n_nan": int(np.isnan(values).sum()),
        })
    return pd.DataFrame.from_records(records)


@register_section("training", order=70)
def training(ctx: ReportContext) -> Section | None:
    """Curves of the run's training-time measures, with the monitor's events marked."""
    measures, events = ctx.measures, ctx.events
    if measures.empty and events.empty:
        return None
    families: dict[str, list[str]] = {}
    for name in sorted(set(measures["name"])):
        families.setdefault(measure_family(name), []).append(name)
    steps = measures["step"].to_numpy() if len(measures) else np.array([0])
    positive = steps[steps > 0]
    log_x = bool(positive.size) and positive.max() / max(1, positive.min()) >= 1000

    charts = []
    for j, (family, names) in enumerate(sorted(families.items())[:MAX_CHARTS]):
        frame = measures[measures["name"].isin(names)]
        charts.append(figure_html(_family_figure(family, frame, events, log_x), div_id=f"chart-training-{j + 1}",
                                  height=340))
    summary = _summary(measures) if len(measures) else pd.DataFrame()
    fmt = lambda v: "–" if v is None or (isinstance(v, float) and np.isnan(v)) else f"{v:.4g}"
    table = pd.DataFrame({
        "Measure": summary["name"], "Scope": summary["scope"], "Points": summary["n_points"],
        "Steps": [f"{a:,} – {b:,}" for a, b in zip(summary["first_step"], summary["last_step"])],
        "First": summary["first"].map(fmt), "Last": summary["last"].map(fmt),
        "Min": summary["min"].map(fmt), "Max": summary["max"].map(fmt),
    }) if len(summary) else pd.DataFrame()
    if len(table) and not (table["Scope"] != "").any():
        table = table.drop(columns="Scope")
    ev_table = pd.DataFrame({"Step": events["step"].astype(int), "Event": events["kind"],
                             "Message": [truncate(m, 300) for m in events["message"]]}) if len(events) else pd.DataFrame()
    align = dict.fromkeys(("Steps", "First", "Last", "Min", "Max"), "right")
    extra = len(families) - MAX_CHARTS
    n_names = measures["name"].nunique() if len(measures) else 0
    n_steps = len(set(steps.tolist())) if len(measures) else 0
    thinned = bool(len(measures)) and int(measures.groupby(["name", "scope"]).size().max()) > MAX_POINTS
    intro = (f"{_plural(len(measures), 'measured value')} of {_plural(n_names, 'measure')} over "
             f"{_plural(n_steps, 'step')}; {_plural(len(events), 'event')}."
             + (f" Lines are thinned to {MAX_POINTS:,} points; the table keeps the exact figures." if thinned else "")
             + (f" {extra} more measure families are in the table only." if extra > 0 else ""))
    html = html_fragment(
        '<p class="lede">{{ intro }}</p><div class="charts">{% for c in charts %}{{ c }}{% endfor %}</div>'
        '{% if events %}<h3>Events</h3>{{ events }}{% endif %}{% if table %}<h3>Measures</h3>{{ table }}{% endif %}',
        intro=intro, charts=charts,
        events=table_html(ev_table, css_class="compact") if len(ev_table) else None,
        table=table_html(table, align=align) if len(table) else None,
    )
    md = [md_escape(intro)]
    if len(ev_table):
        md += ["#### Events", table_markdown(ev_table)]
    if len(table):
        md += ["#### Measures", table_markdown(table, align=align)]
    data: dict[str, Any] = {
        "measures": summary.to_dict("records") if len(summary) else [],
        "events": [{"step": int(e.step), "kind": str(e.kind), "message": str(e.message)} for e in events.itertuples()],
    }
    return Section("Training", Markup(html), "\n\n".join(md), data=data)
