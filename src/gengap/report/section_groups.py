"""Report section "groups": held-out groups, the worst group, and the cross-group transfer matrix.

It appears when the run holds group splits (``--split group``) or transfer splits (``--split
transfer:site``). Every figure comes from the run's own rows; a ``transfer.json`` that an older
gengap saved beside the store is not read (the section says so in one line). Figures:

- per held-out group (one split each): score with its interval and the gap to the i.i.d. split,
  the worst group marked;
- on the i.i.d. test part, the score of every group of the same column(s), the worst group and
  the best-minus-worst disparity, with intervals (:func:`gengap.analysis.group_scores.group_metrics`);
- per model, the transfer matrix as a heatmap (rows: trained on; columns: tested on), from the rows
  of the run's ``transfer`` splits (:func:`gengap.analysis.transfer.run_transfer`).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from gengap._errors import DataError
from gengap.analysis.group_scores import MIN_GROUP_SIZE, corpus_group_metrics, expand_metadata, group_metrics
from gengap.analysis.transfer import TRANSFER_FILE, TransferMatrix, run_transfer, transfer_families
from gengap.metrics import get_metric, is_corpus_metric
from gengap.report._blocks import html_fragment
from gengap.report._figures import figure_html, label
from gengap.report._format import md_escape
from gengap.report._sections import ReportContext, Section, register_section
from gengap.report._tables import table_html, table_markdown

__all__ = ["groups_section"]


def _pct(v: float, percent: bool) -> str:
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return "–"
    return f"{100 * v:.1f}%" if percent else f"{v:.3g}"


def _interval(est: float, low: float, high: float, percent: bool) -> str:
    return f"{_pct(est, percent)} [{_pct(low, percent)}, {_pct(high, percent)}]"


def _held_out_table(ctx: ReportContext, metric: str, percent: bool) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    group_splits = [s for s, info in ctx.split_info.items() if info.get("method") == "group"]
    summary = ctx.summary[(ctx.summary["metric"] == metric) & ctx.summary["split"].isin(group_splits)]
    rows, data = [], []
    lower_better = not getattr(get_metric(metric), "higher_is_better", True)  # ECE, Brier: the worst is the highest
    for model, g in summary.groupby("model", sort=True):
        scored = g["score"].astype(float)
        if scored.isna().all():
            worst = None
        else:
            worst = scored.idxmax() if lower_better else scored.idxmin()
        for idx, r in g.iterrows():
            held = ", ".join(map(str, ctx.split_info[r["split"]].get("test_groups", []))) or r["split"]
            rows.append({"Model": model, "Held-out group": held, "n": int(r["n"]),
                         "Score [95% CI]": _interval(r["score"], r["score_low"], r["score_high"], percent),
                         "Gap to reference": "–" if pd.isna(r["gap"]) else _interval(r["gap"], r["gap_low"], r["gap_high"], percent),
                         "Worst": "◀ worst" if idx == worst and len(g) > 1 else ""})
            data.append({"model": model, "split": r["split"], "held_out": held, "n": int(r["n"]), "score": r["score"],
                         "score_low": r["score_low"], "score_high": r["score_high"], "gap": r["gap"],
                         "worst": bool(idx == worst)})
    return pd.DataFrame(rows), data


def _within_reference(ctx: ReportContext, metric: str, percent: bool) -> tuple[list[Any], list[dict[str, Any]]]:
    columns = []
    for info in ctx.split_info.values():
        if info.get("method") == "group":
            for c in info.get("group_columns", []):
                if c not in columns:
                    columns.append(c)
    if not columns or ctx.reference is None:
        return [], []
    rows = ctx.clean_rows[(ctx.clean_rows["split"] == ctx.reference) & (ctx.clean_rows["metric"] == metric)]
    if rows.empty:
        return [], []
    rows = expand_metadata(rows)
    if any(c not in rows.columns for c in columns):
        return [], []
    clustered = ctx.cluster is not None and ctx.cluster in rows.columns and rows[ctx.cluster].notna().all()
    key = rows[columns].astype(str).agg("/".join, axis=1)
    parts, data = [], []
    for model, idx in rows.groupby("model", sort=True).groups.items():
        scores, labels = rows.loc[idx, "score"], key.loc[idx]
        clusters = rows.loc[idx, ctx.cluster].astype(str).to_numpy() if clustered else None
        corpus = is_corpus_metric(metric)  # AUROC, ECE, ... per group: from each group's rows
        measure: Any = (partial(corpus_group_metrics, metric, rows.loc[idx], labels.to_numpy()) if corpus
                        else partial(group_metrics, scores, labels, clusters=clusters))
        try:
            rep = measure(n_resamples=min(ctx.n_resamples, 2000 if corpus else 5000), seed=0)
            all_small = ""
        except DataError:  # every group is under the minimum size: compare them all, and say so
            try:
                rep = measure(include_small=True, n_resamples=min(ctx.n_resamples, 2000 if corpus else 5000), seed=0)
            except DataError:  # the metric is undefined in every group
                continue
            all_small = f" Every group has fewer than {MIN_GROUP_SIZE} examples: too few to tell which is worst."
        table = pd.DataFrame({
            "Group": rep.table["group"],
            "n": [f"{n:,}" + (" (too few to tell)" if small and n else "") for n, small in zip(rep.table["n"], rep.table["small"])],
            "Score [95% CI]": [_interval(s, lo, hi, percent) for s, lo, hi in
                               zip(rep.table["score"], rep.table["score_low"], rep.table["score_high"])],
            "CI method": rep.table["method"],
        })
        small = [g for g, why in rep.left_out.items() if why.startswith("n = ")]
        empty = [g for g, why in rep.left_out.items() if why.startswith("empty")]
        sentence = (f"{model}: worst group {rep.worst_group} at {_interval(rep.worst.estimate, rep.worst.low, rep.worst.high, percent)} "
                    f"(n = {rep.worst.n:,}); best minus worst {_interval(rep.disparity.estimate, rep.disparity.low, rep.disparity.high, percent)}"
                    + (f"; not counted for the worst group, under {MIN_GROUP_SIZE} examples: {', '.join(small)}" if small else "")
                    + (f"; empty: {', '.join(empty)}" if empty else "")
                    + "".join(f"; {g}: {why}" for g, why in rep.left_out.items()
                              if not why.startswith(("n = ", "empty"))) + "." + all_small)
        parts.append((sentence, table))
        data.append({"model": model, **rep.to_dict()})
    return parts, data


def _heatmap(tm: TransferMatrix, percent: bool) -> go.Figure:
    names = [label(n, 24) for n in tm.scores.index]
    z = tm.scores.to_numpy(dtype=float)
    text = [[_interval(z[i, j], tm.low.iat[i, j], tm.high.iat[i, j], percent) for j in range(z.shape[1])]
            for i in range(z.shape[0])]
    fig = go.Figure(go.Heatmap(
        z=z, x=names, y=names, text=text, colorscale="RdYlBu", zmin=0 if percent else None, zmax=1 if percent else None,
        hovertemplate="trained on %{y}<br>tested on %{x}<br>%{text}<extra></extra>", colorbar=dict(title=label(tm.metric)),
    ))
    fig.update_layout(title=label(f"Transfer matrix of {tm.model} ({tm.metric}): trained on rows, tested on columns"),
                      xaxis_title="tested on", yaxis_title="trained on", yaxis_autorange="reversed")
    return fig


def _matrices(ctx: ReportContext, metric: str) -> list[tuple[list[str], TransferMatrix]]:
    """One transfer matrix per model and group column(s) of the run's transfer splits, from its rows."""
    out = []
    for columns, names in transfer_families(ctx.split_info).items():
        rows = ctx.clean_rows[ctx.clean_rows["split"].isin(names) & (ctx.clean_rows["metric"] == metric)]
        for model in sorted(set(rows["model"].astype(str))):
            out.append((list(columns), run_transfer(ctx.store, ctx.run_id, model=model, metric=metric, group=list(columns),
                                                    n_resamples=ctx.n_resamples)))
    return out


def _old_file_note(ctx: ReportContext) -> str | None:
    """One line when a transfer.json of an older gengap lies beside the store: it is not this run's."""
    path = Path(ctx.store.path).parent / TRANSFER_FILE if getattr(ctx.store, "path", None) else None
    if path is None or not path.exists():
        return None
    return (f"{path.name} beside the results store was not read: a transfer matrix is drawn from a run's own rows "
            "(evaluate with the split method 'transfer', e.g. --split transfer:site).")


@register_section("groups", order=45)
def groups_section(ctx: ReportContext) -> Section | None:
    """Held-out groups with the worst group, per-group scores on the i.i.d. part, and the transfer heatmaps."""
    metric = ctx.primary_metric
    has_groups = any(info.get("method") == "group" for info in ctx.split_info.values())
    matrices = _matrices(ctx, metric) if metric is not None else []
    note = _old_file_note(ctx)
    if metric is None or (not has_groups and not matrices and note is None):
        return None
    percent = ctx.score_format(metric).percent
    html_parts, md_parts, data = [], [], {"metric": metric}
    if has_groups:
        held, held_data = _held_out_table(ctx, metric, percent)
        data["held_out"] = held_data
        if len(held):
            html_parts += [html_fragment("<h3>Held-out groups</h3><p>Each group is the test part of its own split; "
                                         "the model trained on every other group.</p>"), table_html(held)]
            md_parts += ["### Held-out groups", "", table_markdown(held), ""]
        within, within_data = _within_reference(ctx, metric, percent)
        data["within_reference"] = within_data
        if within:
            html_parts.append(html_fragment("<h3>Groups on the test part of {{ ref }}</h3>", ref=ctx.reference_words))
            md_parts += [f"### Groups on the test part of {md_escape(ctx.reference_words)}", ""]
            for sentence, table in within:
                html_parts += [html_fragment("<p>{{ s }}</p>", s=sentence), table_html(table)]
                md_parts += [md_escape(sentence), "", table_markdown(table), ""]
    if matrices:
        html_parts.append(html_fragment("<h3>Cross-group transfer</h3><p>Diagonal: held-out examples of the training "
                                        "group itself; elsewhere: every example of the tested group.</p>"))
        data["transfer"] = []
    for k, (columns, tm) in enumerate(matrices):
        html_parts.append(figure_html(_heatmap(tm, percent), div_id="chart-groups-transfer" + (f"-{k + 1}" if k else ""),
                                      height=420))
        wide = tm.scores.map(lambda v: _pct(v, percent)).reset_index().rename(columns={"train_group": "trained on"})
        md_parts += [f"### Cross-group transfer of {md_escape(tm.model or '')} by {md_escape('+'.join(columns))} "
                     "(rows: trained on)", "",
                     table_markdown(wide), ""]
        data["transfer"].append({"model": tm.model, "metric": tm.metric, "group_columns": columns,
                                 "cells": tm.to_frame().to_dict(orient="records")})
    if note is not None:
        html_parts.append(html_fragment("<p>{{ note }}</p>", note=note))
        md_parts += [md_escape(note), ""]
        data["ignored_file"] = TRANSFER_FILE
    if not html_parts:
        return None
    from markupsafe import Markup

    return Section("Groups", Markup("").join(html_parts), "\n".join(md_parts).strip(), data=data)
