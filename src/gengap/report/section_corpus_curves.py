"""Report section "corpus_curves": a corpus metric (AUROC, ECE, macro-F1, ...) along each curve axis.

The score-curve section draws means of per-example scores; a corpus metric is a figure of many rows
at once, so here each bin of the axis gets its own figure with its interval
(:func:`gengap.analysis.corpus.corpus_curve`), and every bin past the reference (the training
range's bins pooled, else the first bin) is tested one-sided for being worse, with Holm's
correction; the break point is the first bin significantly worse. Per corpus metric and axis: one
chart with a line per model, a sentence per model and the bins as a table. The figures go to
``results.json`` under ``sections.corpus_curves``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from markupsafe import Markup

from gengap._errors import GengapError
from gengap.analysis.corpus import corpus_break, corpus_curve
from gengap.analysis.curves import axis_values, curve_plan
from gengap.report._blocks import html_fragment
from gengap.report._figures import COLORS, figure_html, label
from gengap.report._format import ScoreFormat, md_escape
from gengap.report._sections import ReportContext, Section, register_section
from gengap.report._tables import table_html, table_markdown
from gengap.report.section_curves import curve_axes, trained_models

__all__ = ["corpus_curves_section", "corpus_curve_rows"]

#: Resamples per bin (each bin's interval and its gap to the reference).
CURVE_RESAMPLES = 1_000


def corpus_curve_rows(ctx: ReportContext, metric: str, axis: str) -> tuple[pd.DataFrame, tuple[float, float] | None]:
    """The clean rows of ``metric`` a curve along ``axis`` pools (the same splits as the score curves), and
    the training range of a length split on the axis (None: the first bin is the reference)."""
    chosen, planned = curve_plan(ctx.split_info, axis, ctx.reference)
    rows = ctx.clean_rows[(ctx.clean_rows["metric"] == metric) & ctx.clean_rows["split"].isin(chosen)]
    if planned is not None and ctx.reference in chosen and len(chosen) > 1:
        v = pd.Series(axis_values(rows, axis), index=rows.index)
        rows = rows[(rows["split"] != ctx.reference) | ((v >= planned[0]) & (v <= planned[1]))]
    if "example_id" in rows:
        rows = rows.drop_duplicates(["model", "example_id"])
    return rows, planned


def _plain(v: Any) -> Any:
    if isinstance(v, (float, np.floating)):
        return None if math.isnan(float(v)) else float(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.bool_):
        return bool(v)
    return v


def _sentence(model: str, metric: str, axis: str, t: pd.DataFrame, fmt: ScoreFormat, train_range: Any) -> str:
    ref = t[t["in_range"].astype(bool)]
    if ref.empty:
        return f"{model}: {metric} is undefined in every bin of {axis} (see the table)."
    where = (f"in the training range ({train_range[0]:g}–{train_range[1]:g})" if train_range is not None
             else f"in the first bin ({axis} {ref['low_edge'].iloc[0]:g}–{ref['high_edge'].iloc[0]:g}), the reference")
    brk = corpus_break(t)
    if brk is None:
        tail = f"no later bin is significantly worse (one-sided tests, Holm, α = 0.05; {int(t['tested'].sum())} bins tested)"
    else:
        b = t[t["below"].astype(bool)].iloc[0]
        tail = (f"it breaks at {axis} = {brk:g}: {metric} {fmt.score(b['score'])} "
                f"[{fmt.score(b['score_low'])}, {fmt.score(b['score_high'])}], gap {fmt.score(b['gap'])} to the reference "
                f"(Holm p = {b['p_holm']:.3g})")
    undefined = t[t["score"].isna() & (t["n"] > 0)]
    none = f"; undefined in {len(undefined)} bin(s) (see the table)" if len(undefined) else ""
    return f"{model}: {metric} per bin of {axis}, reference {where}; {tail}{none}."


def _figure(metric: str, axis: str, tables: dict[str, pd.DataFrame], fmt: ScoreFormat) -> go.Figure:
    scale = 100.0 if fmt.percent else 1.0
    fig = go.Figure()
    for i, (model, t) in enumerate(tables.items()):
        ok = t[t["score"].notna()]
        color = COLORS[i % len(COLORS)]
        x = ((ok["low_edge"] + ok["high_edge"]) / 2).to_numpy()
        y = ok["score"].to_numpy(dtype=float) * scale
        lo, hi = ok["score_low"].to_numpy(dtype=float) * scale, ok["score_high"].to_numpy(dtype=float) * scale
        fig.add_trace(go.Scatter(
            x=x, y=y, mode="lines+markers", name=label(model), line=dict(color=color, width=2),
            marker=dict(size=7, color=color, symbol=np.where(ok["below"].astype(bool), "x", "circle").tolist()),
            error_y=dict(type="data", symmetric=False, array=hi - y, arrayminus=y - lo, color=color, thickness=1.2, width=4),
            text=[f"n = {int(n):,}" for n in ok["n"]],
            hovertemplate=f"{label(model)}<br>{label(axis)} %{{x:.4g}}<br>{label(metric)} %{{y:.3g}}<br>%{{text}}<extra></extra>"))
        brk = corpus_break(t)
        if brk is not None:
            fig.add_vline(x=brk, line=dict(color=color, width=1.5, dash="dash"))
    fig.update_layout(title=label(f"{metric} along {axis}: per bin with 95% intervals (× significantly worse than the "
                                  "reference, dashed: break point)"),
                      xaxis=dict(title=label(axis)), yaxis=dict(title=label(metric) + (" (%)" if fmt.percent else "")),
                      showlegend=len(tables) > 1)
    return fig


def _table(model: str, t: pd.DataFrame, fmt: ScoreFormat, many: bool, axis: str) -> pd.DataFrame:
    def p(v: Any) -> str:
        return "" if v is None or pd.isna(v) else ("<0.001" if v < 0.001 else f"{v:.3f}")

    out = pd.DataFrame({
        axis: [f"{a:g}" if a == b else f"{a:g}–{b:g}" for a, b in zip(t["low_edge"], t["high_edge"])],
        "n": t["n"].astype(int),
        "Score [95% CI]": ["undefined" if pd.isna(s) else f"{fmt.score(s)} [{fmt.score(lo)}, {fmt.score(hi)}]"
                           for s, lo, hi in zip(t["score"], t["score_low"], t["score_high"])],
        "Gap to reference": ["reference" if r else ("" if pd.isna(g) else fmt.score(g))
                             for r, g in zip(t["in_range"], t["gap"])],
        "p (Holm)": [p(v) for v in t["p_holm"]],
        "Worse": ["◀ yes" if b else "" for b in t["below"]],
        "Note": t["note"].fillna(""),
    })
    if many:
        out.insert(0, "Model", model)
    return out


@register_section("corpus_curves", order=41)
def corpus_curves_section(ctx: ReportContext) -> Section | None:
    """Each corpus metric of the run along each curve axis, per model, with its break point."""
    from gengap.metrics import is_corpus_metric

    metrics = [m for m in ctx.metrics if is_corpus_metric(m)]
    axes = curve_axes(ctx)
    if not metrics or not axes or ctx.clean_rows.empty:
        return None
    trained = set(trained_models(ctx.run))
    html: list[Markup] = []
    md: list[str] = []
    data: list[dict[str, Any]] = []
    key = 0
    for metric in metrics:
        fmt = ctx.score_format(metric)
        for axis in axes:
            title = f"{metric} along {axis}"
            html.append(html_fragment("<h3>{{ t }}</h3>", t=title))
            md.append(f"### {md_escape(title)}")
            try:
                rows, planned = corpus_curve_rows(ctx, metric, axis)
                tables: dict[str, pd.DataFrame] = {}
                ranges: dict[str, Any] = {}
                for model, g in rows.groupby("model", sort=True):
                    own = planned if (not trained or str(model) in trained) else None
                    values = np.asarray(axis_values(g, axis), dtype=float)
                    if own is not None and not np.any((values >= own[0]) & (values <= own[1])):
                        own = None
                    clusters = None
                    if ctx.cluster is not None and ctx.cluster in g and g[ctx.cluster].notna().all():
                        clusters = g[ctx.cluster].astype(str).to_numpy()
                    tables[str(model)] = corpus_curve(metric, g, axis, train_range=own, confidence=ctx.confidence,
                                                      n_resamples=min(ctx.n_resamples, CURVE_RESAMPLES), seed=0,
                                                      clusters=clusters)
                    ranges[str(model)] = own
            except GengapError as e:
                html.append(html_fragment('<p class="notice">No {{ t }}: {{ why }}</p>', t=title, why=str(e)))
                md.append(f"> No {md_escape(title)}: {md_escape(str(e))}")
                continue
            if not tables:
                continue
            sentences = [_sentence(m, metric, axis, t, fmt, ranges[m]) for m, t in tables.items()]
            html.append(figure_html(_figure(metric, axis, tables, fmt), div_id=f"chart-corpus-curve-{key}", height=400))
            key += 1
            html.append(html_fragment("{% for s in sentences %}<p>{{ s }}</p>{% endfor %}", sentences=sentences))
            table = pd.concat([_table(m, t, fmt, len(tables) > 1, axis) for m, t in tables.items()], ignore_index=True)
            html.append(table_html(table))
            md += [md_escape(s) for s in sentences] + [table_markdown(table)]
            for m, t in tables.items():
                data.append({"metric": metric, "axis": axis, "model": m,
                             "train_range": None if ranges[m] is None else [float(ranges[m][0]), float(ranges[m][1])],
                             "break_value": corpus_break(t),
                             "bins": [{k: _plain(v) for k, v in r.items()} for r in t.to_dict("records")]})
    if not data and not html:
        return None
    note = ("Each bin's figure and interval come from that bin's rows alone (DeLong for AUROC, else the bootstrap the "
            "metric's summary uses). Every bin past the reference (the training range's bins pooled; without one, the "
            "first bin) is tested one-sided for being worse than the reference (DeLong's test for AUROC of two labels, "
            "else a permutation test of the bin's rows against the reference's; with clusters named, the cluster bootstrap "
            "of the difference), with Holm's correction over the tested bins; the break "
            "point is the first bin significantly worse. For losses and errors (Brier, log loss, ECE, AURC) worse is higher.")
    html.append(html_fragment('<p class="note">{{ note }}</p>', note=note))
    md.append(f"*{md_escape(note)}*")
    return Section("Corpus metrics along curves", Markup("").join(html), "\n\n".join(md), data=data)
