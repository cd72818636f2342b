"""Report section "calibration": does the model's confidence still mean something under shift?

It appears when the run stored a confidence per output (a classifier's ``predict_proba``, a
function's probabilities, log-likelihood choices, answer log-probabilities, stated confidences).
Figures, per model, from the clean rows of each split (:mod:`gengap.analysis.corpus`):

- the reliability diagram: per equal-width confidence bin, the accuracy against the mean
  confidence, with each bin's Clopper-Pearson interval and its count;
- the calibration gap: ECE (15 equal-width bins) per split with its bootstrap interval, and its
  gap to the reference split (split - reference: how much worse calibrated), with its test;
- the risk-coverage curve: answering only the most confident share of the rows, the error rate
  among them, with the area under it (AURC) per split.

Beside the splits, the same reliability diagram and ECE per group (the group splits' columns and
``--group`` fields, within the reference split's rows) and per bin of each curve axis (``--curve``
and length splits' lengths, on the rows the score curves pool): one chart per model and grouping,
a line per group or bin (the largest :data:`MAX_LINES`), each ECE with its interval in a table.

A split where the model gave no confidence, or that is too small, is named with the reason.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from gengap._errors import DataError, GengapError
from gengap.analysis.clustered import cluster_ids
from gengap.analysis.corpus import corpus_data, corpus_gap, corpus_score, reliability, risk_coverage
from gengap.report._blocks import html_fragment
from gengap.report._figures import figure_html, label
from gengap.report._format import md_escape
from gengap.report._sections import ReportContext, Section, register_section
from gengap.report._tables import table_html, table_markdown

__all__ = ["calibration_section", "RELIABILITY_BINS", "calibration_groupings"]

#: Bins of the reliability diagram (ECE itself uses 15: :data:`gengap.metrics_corpus.ECE_BINS`).
RELIABILITY_BINS = 10
#: Groups or axis bins drawn per chart (the largest); the others are named in the table only.
MAX_LINES = 8
#: Fewer rows than this in a group or axis bin and it gets no reliability line (named in the table).
MIN_LINE_ROWS = 30


def _rows_with_confidence(ctx: ReportContext) -> pd.DataFrame:
    """One row per (model, split, example): the clean rows of a metric whose per-row score is right/wrong."""
    rows = ctx.clean_rows
    if "confidence" not in rows or rows["confidence"].isna().all():
        return rows.iloc[0:0]
    for metric in ctx.metrics:
        scored = rows[rows["metric"] == metric]
        if scored["score"].isin([0.0, 1.0]).all():
            return scored
    return rows.iloc[0:0]


def _pct(v: Any) -> str:
    return "–" if v is None or pd.isna(v) else f"{100 * float(v):.1f}"


def _clusters(ctx: ReportContext, rows: pd.DataFrame) -> Any:
    """The rows' cluster ids when the run names a cluster column (whole clusters are resampled), else None."""
    return None if ctx.cluster is None else cluster_ids(rows, ctx.cluster, where="the calibrated rows")


def _calibration_table(ctx: ReportContext, model: str, by_split: dict[str, pd.DataFrame]) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    ref = ctx.reference if ctx.reference in by_split else None
    shown, data = [], []
    for split, g in by_split.items():
        record: dict[str, Any] = {"model": model, "split": split, "n": len(g), "cluster": ctx.cluster}
        try:
            ece = corpus_score("ece", g, n_resamples=min(ctx.n_resamples, 2000), seed=0, clusters=_clusters(ctx, g))
            aurc = corpus_score("aurc", g, n_resamples=min(ctx.n_resamples, 1000), seed=0, clusters=_clusters(ctx, g))
        except DataError as why:
            record["note"] = str(why)
            shown.append({"Split": split, "n": f"{len(g):,}", "ECE % [95% CI]": "–", "Gap to reference": "–",
                          "AURC % [95% CI]": "–", "Note": str(why)})
            data.append(record)
            continue
        record.update(ece=ece.estimate, ece_low=ece.low, ece_high=ece.high, ece_method=ece.method,
                      aurc=aurc.estimate, aurc_low=aurc.low, aurc_high=aurc.high)
        gap_text = "reference" if split == ref else "–"
        if ref is not None and split != ref:
            try:
                test = corpus_gap("ece", g, by_split[ref], n_resamples=min(ctx.n_resamples, 1000), seed=0,
                                  clusters=_clusters(ctx, g), clusters_b=_clusters(ctx, by_split[ref]))
                e = test.effect
                record.update(gap=e.estimate, gap_low=e.low, gap_high=e.high, gap_p=test.p_value, gap_method=e.method)
                gap_text = f"{_pct(e.estimate)} pts [{_pct(e.low)}, {_pct(e.high)}] (p = {test.p_value:.3g})"
            except DataError as why:
                record["note"] = f"no gap: {why}"
        shown.append({"Split": split, "n": f"{len(g):,}",
                      "ECE % [95% CI]": f"{_pct(ece.estimate)} [{_pct(ece.low)}, {_pct(ece.high)}]",
                      "Gap to reference": gap_text,
                      "AURC % [95% CI]": f"{_pct(aurc.estimate)} [{_pct(aurc.low)}, {_pct(aurc.high)}]",
                      "Note": ece.warning})
        data.append(record)
    return pd.DataFrame(shown), data


def _group_columns(ctx: ReportContext) -> list[str]:
    columns: list[str] = []
    for info in ctx.split_info.values():
        if info.get("method") == "group":
            columns += [str(c) for c in info.get("group_columns", []) if c not in columns]
    return columns + [f for f in ctx.group_fields if f not in columns]


def calibration_groupings(ctx: ReportContext, rows: pd.DataFrame) -> list[tuple[str, pd.DataFrame, pd.Series]]:
    """(title, rows, label per row) for each grouping the section draws beside the splits: per group
    column within the reference split, per bin of each curve axis on the rows its curve pools."""
    from gengap.analysis.curves import axis_values, bin_axis
    from gengap.analysis.group_scores import expand_metadata
    from gengap.report.section_corpus_curves import corpus_curve_rows
    from gengap.report.section_curves import curve_axes

    out: list[tuple[str, pd.DataFrame, pd.Series]] = []
    ref = rows[rows["split"] == ctx.reference] if ctx.reference is not None else rows.iloc[0:0]
    if not ref.empty:
        expanded = expand_metadata(ref)
        for column in _group_columns(ctx):
            if column in expanded and expanded[column].notna().any():
                keep = expanded[column].notna()
                out.append((f"by {column} ({ctx.reference} split)", expanded[keep], expanded.loc[keep, column].astype(str)))
    metric = str(rows["metric"].iloc[0]) if len(rows) else ""
    for axis in curve_axes(ctx):
        try:
            pooled, _ = corpus_curve_rows(ctx, metric, axis)
            values = np.asarray(axis_values(pooled, axis), dtype=float)
        except GengapError:
            continue
        keep = ~np.isnan(values)
        if not keep.any():
            continue
        pooled = pooled[keep]
        idx, edges = bin_axis(values[keep])
        names = [f"{axis} {lo:g}" if lo == hi else f"{axis} {lo:g}–{hi:g}" for lo, hi in edges]
        ordered = pd.Categorical([names[i] for i in idx], categories=list(dict.fromkeys(names)), ordered=True)
        out.append((f"along {axis}", pooled, pd.Series(ordered, index=pooled.index)))
    return out


def _by_grouping(ctx: ReportContext, model: str, title: str, rows: pd.DataFrame, labels: pd.Series,
                 key: str) -> tuple[list[Any], list[str], dict[str, Any]]:
    """Reliability lines and ECE per group of one model's rows."""
    reliab: dict[str, pd.DataFrame] = {}
    shown, records = [], []
    order = labels.value_counts(sort=False)  # axis bins in axis order; groups largest first
    if not isinstance(labels.dtype, pd.CategoricalDtype):
        order = order.sort_values(ascending=False, kind="stable")
    for name in order.index[order.to_numpy() > 0]:
        g = rows[labels == name]
        record: dict[str, Any] = {"group": str(name), "n": len(g)}
        try:
            ece = corpus_score("ece", g, n_resamples=min(ctx.n_resamples, 1000), seed=0, clusters=_clusters(ctx, g))
            record.update(ece=ece.estimate, ece_low=ece.low, ece_high=ece.high, ece_method=ece.method)
            text, note = f"{_pct(ece.estimate)} [{_pct(ece.low)}, {_pct(ece.high)}]", ece.warning
            if len(g) >= MIN_LINE_ROWS and len(reliab) < MAX_LINES:
                reliab[str(name)] = reliability(corpus_data(g), n_bins=RELIABILITY_BINS)
            elif len(g) < MIN_LINE_ROWS:
                note = "; ".join(x for x in (note, f"no line: fewer than {MIN_LINE_ROWS} rows") if x)
        except DataError as why:
            text, note = "–", str(why)
            record["note"] = note
        shown.append({"Group": str(name), "n": f"{len(g):,}", "ECE % [95% CI]": text, "Note": note})
        records.append(record)
    html: list[Any] = [html_fragment("<h4>{{ t }}</h4>", t=f"{model}: {title}")]
    table = pd.DataFrame(shown)
    if reliab:
        html.append(_reliability_figure(f"{model} {title}", reliab, key))
    html.append(table_html(table))
    md = [f"#### {md_escape(f'{model}: {title}')}", "", table_markdown(table), ""]
    return html, md, {"grouping": title, "groups": records,
                      "reliability": {g: t.to_dict("records") for g, t in reliab.items()}}


def _reliability_figure(model: str, tables: dict[str, pd.DataFrame], key: int | str) -> Any:
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", line=dict(dash="dot", color="grey"), name="calibrated",
                             hoverinfo="skip"))
    for split, t in tables.items():
        fig.add_trace(go.Scatter(
            x=t["confidence"], y=t["accuracy"], mode="lines+markers", name=label(split, 30),
            error_y=dict(type="data", symmetric=False, array=t["accuracy_high"] - t["accuracy"],
                         arrayminus=t["accuracy"] - t["accuracy_low"]),
            text=[f"n = {int(n):,}" for n in t["n"]],
            hovertemplate="confidence %{x:.2f}<br>accuracy %{y:.2f}<br>%{text}<extra>" + label(split, 30) + "</extra>"))
    fig.update_layout(title=label(f"Reliability of {model}: accuracy per confidence bin (95% CI; n per bin on hover)"),
                      xaxis_title="mean confidence in the bin", yaxis_title="accuracy", xaxis_range=[0, 1.02],
                      yaxis_range=[-0.02, 1.02])
    return figure_html(fig, div_id=f"calibration-reliability-{key}", height=420)


def _risk_figure(model: str, curves: dict[str, pd.DataFrame], key: int) -> Any:
    fig = go.Figure()
    for split, c in curves.items():
        fig.add_trace(go.Scatter(x=c["coverage"], y=c["risk"], mode="lines", name=label(split, 30)))
    fig.update_layout(title=label(f"Risk-coverage of {model}: error rate among the most confident share answered"),
                      xaxis_title="coverage (share of rows answered, most confident first)", yaxis_title="risk (error rate)")
    return figure_html(fig, div_id=f"calibration-risk-{key}", height=360)


@register_section("calibration", order=44)
def calibration_section(ctx: ReportContext) -> Section | None:
    """Reliability diagrams, ECE per split with its gap to the reference, and risk-coverage curves."""
    rows = _rows_with_confidence(ctx)
    if rows.empty:
        return None
    order = {s: i for i, s in enumerate(ctx.split_info)}
    html, md, data = [], [], []
    for key, (model, mg) in enumerate(rows.groupby("model", sort=True)):
        by_split = dict(sorted(mg.groupby("split"), key=lambda kv: order.get(kv[0], len(order))))
        table, records = _calibration_table(ctx, str(model), by_split)
        reliab, curves, bins_md = {}, {}, []
        for split, g in by_split.items():
            if g["confidence"].isna().any():
                continue
            try:
                data_ = corpus_data(g)
                reliab[split] = reliability(data_, n_bins=RELIABILITY_BINS)
                curves[split] = risk_coverage(data_)
            except DataError:
                continue
            t = reliab[split]
            bins_md.append(pd.DataFrame({
                "Split": split, "Bin": [f"({lo:.1f}, {hi:.1f}]" for lo, hi in zip(t["bin_low"], t["bin_high"])],
                "n": t["n"].astype(int), "Mean confidence %": t["confidence"].map(_pct),
                "Accuracy % [95% CI]": [f"{_pct(a)} [{_pct(lo)}, {_pct(hi)}]"
                                        for a, lo, hi in zip(t["accuracy"], t["accuracy_low"], t["accuracy_high"])]}))
        html.append(html_fragment("<h3>{{ model }}</h3>", model=str(model)))
        html.append(table_html(table))
        md += [f"### {md_escape(str(model))}", "", table_markdown(table), ""]
        if reliab:
            html.append(_reliability_figure(str(model), reliab, key))
            html.append(_risk_figure(str(model), curves, key))
            bins = pd.concat(bins_md, ignore_index=True)
            md += ["**Reliability diagram** (per confidence bin: n, mean confidence, accuracy with its 95% CI)", "",
                   table_markdown(bins), ""]
        groupings = []
        for j, (title, grows, labels) in enumerate(calibration_groupings(ctx, mg)):
            mine = grows["model"] == model
            if not mine.any() or grows.loc[mine, "confidence"].isna().any():
                continue
            g_html, g_md, g_data = _by_grouping(ctx, str(model), title, grows[mine], labels[mine], f"{key}-{j}")
            html += g_html
            md += g_md
            groupings.append(g_data)
        data.append({"model": str(model), "splits": records,
                     "reliability": {s: t.to_dict("records") for s, t in reliab.items()},
                     "risk_coverage": {s: c.to_dict("records") for s, c in curves.items()},
                     "groupings": groupings})
    intro = ("Whether the model's confidence still means something on each split. ECE: expected calibration error "
             "(15 equal-width confidence bins, bootstrap interval); its gap is split minus reference, so a positive gap "
             "means worse calibrated than on the reference split. AURC: area under the risk-coverage curve (lower is "
             "better). The reliability diagram uses 10 equal-width confidence bins. Beside the splits, the same per "
             "group (within the reference split) and per bin of each curve axis. Other ECE variants a run can ask for: "
             "ece_adaptive (L1, 15 equal-mass bins) and ece_debiased (L2, 15 equal-mass bins, each bin's squared gap "
             "less the variance of its accuracy: nearly unbiased where the plug-in ECE overstates small samples).")
    if ctx.cluster is not None:
        intro += (f" Rows are clustered by '{ctx.cluster}': the ECE and AURC intervals and the gap test resample whole "
                  "clusters.")
    html.insert(0, html_fragment("<p>{{ intro }}</p>", intro=intro))
    md.insert(0, md_escape(intro) + "\n")
    merged = html[0]
    for part in html[1:]:
        merged += part
    return Section("Calibration and selective prediction", merged, "\n".join(md), data=data)
