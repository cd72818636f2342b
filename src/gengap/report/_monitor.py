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
from gengap.report._headline import Headline
from gengap.report._measure_notes import GROUPS, group_of, note
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


def _last(measures: pd.DataFrame, name: str) -> float | None:
    rows = measures[(measures["name"] == name) & (measures["scope"].fillna("") == "")].sort_values("step")
    return float(rows["value"].iloc[-1]) if len(rows) else None


def training_headline(ctx: ReportContext) -> Headline | None:
    """What the monitor saw, in words: grokked, or memorized without grokking (and why, for a short run)."""
    events, measures = ctx.events, ctx.measures
    kinds = {str(e.kind): int(e.step) for e in events.itertuples()} if len(events) else {}
    last_step = int(measures["step"].max()) if len(measures) else None
    held = _last(measures, "heldout_accuracy")
    held_text = "" if held is None else f"{100 * held:.1f}%"
    demo = ctx.run.get("config", {}).get("demo")
    quick = isinstance(demo, dict) and demo.get("name") == "grokking" and bool(demo.get("quick"))
    if "grokked" in kinds:
        after = f" {kinds['grokked'] - kinds['memorized']:,} steps after it memorized its training set (step {kinds['memorized']:,})" \
            if "memorized" in kinds else ""
        return Headline(f"Grokked at step {kinds['grokked']:,}: held-out accuracy jumped{after}.",
                        f"Held-out accuracy at the last step ({last_step:,}): {held_text}." if held_text else "")
    if "memorized" in kinds:
        lead = (f"Memorized at step {kinds['memorized']:,}: the network fits its training set while held-out accuracy "
                f"stays near chance" + (f" ({held_text} at step {last_step:,})" if held_text else "") + ".")
        if quick:
            full = demo.get("full_max_steps")
            return Headline(lead, f"This is the --quick run: it stops at step {last_step:,}, before grokking.",
                            "Run 'gengap demo grokking' without --quick to see held-out accuracy jump"
                            + (f" (it trains for up to {full:,} steps)." if isinstance(full, int) else "."))
        return Headline(lead, f"The run ended at step {last_step:,} without grokking." if last_step else "")
    return None


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

    # charts grouped (fit, weights, landscape, examples, other), each with a sentence on what it measures
    drawn = sorted(families.items())[:MAX_CHARTS]
    groups: dict[str, list[dict[str, Any]]] = {g: [] for g in GROUPS}
    for j, (family, names) in enumerate(drawn):
        frame = measures[measures["name"].isin(names)]
        chart = figure_html(_family_figure(family, frame, events, log_x), div_id=f"chart-training-{j + 1}", height=340)
        groups[group_of(family)].append({"family": family, "chart": chart, "note": note(family)})
    groups = {g: items for g, items in groups.items() if items}
    head = training_headline(ctx)
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
        '{% if head %}<p class="headline"><strong>{{ head.lead }}</strong>{% if head.detail %} {{ head.detail }}{% endif %}'
        '{% if head.caveat %} <em class="caveat">{{ head.caveat }}</em>{% endif %}</p>{% endif %}'
        '<p class="lede">{{ intro }}</p>'
        '{% for group, items in groups.items() %}<h3>{{ group }}</h3><p class="lede">{{ ledes[group] }}</p>'
        '<div class="charts">{% for c in items %}<div class="measure">{{ c.chart }}'
        '{% if c.note %}<p class="chart-note">{{ c.note }}</p>{% endif %}</div>{% endfor %}</div>{% endfor %}'
        '{% if events %}<h3>Events</h3>{{ events }}{% endif %}{% if table %}<h3>Measures</h3>{{ table }}{% endif %}',
        head=head, intro=intro, groups=groups, ledes=GROUPS,
        events=table_html(ev_table, css_class="compact") if len(ev_table) else None,
        table=table_html(table, align=align) if len(table) else None,
    )
    md = ([f"**{md_escape(head.lead)}** {md_escape(head.detail)}".strip()
           + (f" *{md_escape(head.caveat)}*" if head.caveat else "")] if head else []) + [md_escape(intro)]
    for group, items in groups.items():
        md.append(f"#### {md_escape(group)}\n\n{md_escape(GROUPS[group])}\n\n"
                  + "\n".join(f"- **{md_escape(c['family'].replace('_', ' '))}**" + (f": {md_escape(c['note'])}" if c["note"] else "")
                              for c in items))
    if len(ev_table):
        md += ["#### Events", table_markdown(ev_table)]
    if len(table):
        md += ["#### Measures", table_markdown(table, align=align)]
    data: dict[str, Any] = {
        "headline": head.text if head else None,
        "measures": summary.to_dict("records") if len(summary) else [],
        "events": [{"step": int(e.step), "kind": str(e.kind), "message": str(e.message)} for e in events.itertuples()],
    }
    return Section("Training", Markup(html), "\n\n".join(md), data=data)
