"""The report's built-in sections: overview, splits (taxonomy cards), sample failures, the run.

Each is an ordinary registered section (see ``_sections.py``), so they follow the same path as
every section other parts of gengap add.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from markupsafe import Markup

from gengap.report._blocks import render_template
from gengap.report._diff import first_difference, highlight
from gengap.report._figures import COLORS, REFERENCE_COLOR, figure_html, label
from gengap.report._format import ScoreFormat, count, is_missing, md_escape, truncate
from gengap.report._sections import ReportContext, Section, register_section
from gengap.report._tables import table_html, table_markdown
from gengap.report._usage import cache_lines, judge_lines
from gengap.splits._diagnostics import COMMON_KEYS, SPLIT_KEYS

__all__ = ["select_failures", "N_FAILURES"]

#: Sample failures shown per model and split.
N_FAILURES = 5
#: Characters of an input, target or output shown in HTML / Markdown / results.json.
TEXT_LIMIT_HTML, TEXT_LIMIT_MD, TEXT_LIMIT_JSON = 500, 160, 2000

#: Characters of a split name shown on a chart axis (the tables show it whole).
_TICK = 28

_AXES = [("motivation", "Motivation"), ("generalisation_type", "Generalisation type"), ("shift_type", "Shift type"),
         ("shift_source", "Shift source"), ("shift_locus", "Shift locus")]
#: Keys of a split's record the card shows in their own rows; every other key gets a row of its own.
_KNOWN = {*SPLIT_KEYS, *COMMON_KEYS, "held_out", "unseen_test_atoms", "n_unseen_test_atoms", "trajectory"}


def _slug(text: str) -> str:
    """A stable id fragment for a chart (letters, digits and dashes)."""
    out = "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")
    return out or "x"


def _metric_title(metric: str) -> str:
    return metric.replace("_", " ")


# --------------------------------------------------------------------------------------------- overview
def _scores_figure(rows: pd.DataFrame, fmt: ScoreFormat, metric: str, reference: str | None, split_order: list[str],
                   iid: bool = True) -> go.Figure:
    """One horizontal bar per split (and model), with its interval: the splits read top to bottom, so
    their names and value labels have a row each however narrow the window (a phone's 420 px too)."""
    scale = 100.0 if fmt.percent else 1.0
    models = list(dict.fromkeys(rows["model"]))
    ns = rows.groupby("split", sort=False)["n"].nunique()
    one_n = bool((ns == 1).all())
    ticks = {}
    for split in split_order:
        sub = rows[rows["split"] == split]
        if sub.empty:
            continue
        name = label(split, _TICK) + ((" (i.i.d.)" if iid else " (reference)") if split == reference else "")
        ticks[split] = f"{name}<br>n = {count(sub['n'].iloc[0])}" if one_n else name
    fig = go.Figure()
    for i, model in enumerate(models):
        sub = rows[rows["model"] == model].set_index("split").reindex([s for s in split_order if s in ticks]).dropna(subset=["score"])
        color = COLORS[i % len(COLORS)]
        colors = [REFERENCE_COLOR if (len(models) == 1 and s == reference) else color for s in sub.index]
        score = sub["score"].astype(float).to_numpy() * scale
        low = sub["score_low"].astype(float).to_numpy() * scale
        high = sub["score_high"].astype(float).to_numpy() * scale
        fig.add_trace(go.Bar(
            name=label(model), y=[ticks[s] for s in sub.index], x=score, orientation="h", marker=dict(color=colors),
            error_x=dict(type="data", symmetric=False, array=high - score, arrayminus=score - low,
                         color="#2B3440", thickness=1.4, width=7),
            customdata=np.stack([sub["n"].astype(int).to_numpy(), low, high], axis=1),
            hovertemplate=(f"<b>%{{y}}</b><br>{label(model)}<br>score %{{x:.1f}}{'%' if fmt.percent else ''}"
                           " [%{customdata[1]:.1f}, %{customdata[2]:.1f}]<br>n = %{customdata[0]:,}<extra></extra>")
            if fmt.percent else
            (f"<b>%{{y}}</b><br>{label(model)}<br>score %{{x:.3f}} [%{{customdata[1]:.3f}}, %{{customdata[2]:.3f}}]"
             "<br>n = %{customdata[0]:,}<extra></extra>"),
        ))
        if len(models) == 1:  # one model: each score written after its whisker, readable even for a bar at 0
            for split, top, value in zip(sub.index, high, sub["score"]):
                fig.add_annotation(x=top, y=ticks[split], text=fmt.score(value), showarrow=False, xanchor="left",
                                   xshift=5, font=dict(size=12, color="#2B3440"))
    fig.update_layout(
        title=f"{_metric_title(metric).capitalize()} per split, with 95% confidence intervals",
        barmode="group", bargap=0.3, bargroupgap=0.08, showlegend=len(models) > 1,
        margin=dict(r=64),  # the value label after a whisker at 100%
        xaxis=dict(title=f"{_metric_title(metric)} ({'%' if fmt.percent else 'score'})",
                   range=[0, 100] if fmt.percent else None, rangemode="tozero"),
        yaxis=dict(autorange="reversed", type="category"),
    )
    return fig


def _scores_height(n_splits: int, n_models: int) -> int:
    """The scores chart's height: a row per split, tall enough for a two-line name or a bar per model."""
    return 130 + n_splits * max(48, 18 * n_models + 26)


def _gap_figure(rows: pd.DataFrame, fmt: ScoreFormat, metric: str, reference: str, split_order: list[str],
                iid: bool = True) -> go.Figure:
    scale = 100.0 if fmt.percent else 1.0
    d = ".1f" if fmt.percent else ".3f"
    models = list(dict.fromkeys(rows["model"]))
    order = [s for s in split_order if s != reference and s in set(rows["split"])]
    ns = rows[rows["split"].isin(order)].groupby("split", sort=False)["n"].nunique()
    one_n = bool((ns == 1).all())
    ticks = {s: label(s, _TICK) + (f"<br>n = {count(rows.loc[rows['split'] == s, 'n'].iloc[0])}" if one_n else "") for s in order}
    fig = go.Figure()
    lows, highs = [0.0], [0.0]
    for i, model in enumerate(models):
        sub = rows[rows["model"] == model].set_index("split").reindex(order).dropna(subset=["gap"])
        g = sub["gap"].astype(float).to_numpy() * scale
        lo = sub["gap_low"].astype(float).to_numpy() * scale
        hi = sub["gap_high"].astype(float).to_numpy() * scale
        lows += lo.tolist()
        highs += hi.tolist()
        color = COLORS[i % len(COLORS)]
        fig.add_trace(go.Scatter(
            name=label(model), x=g, y=[ticks[s] for s in sub.index], mode="markers", orientation="h",
            marker=dict(size=11, color=color, symbol="diamond"),
            error_x=dict(type="data", symmetric=False, array=hi - g, arrayminus=g - lo, color=color, thickness=2, width=6),
            customdata=np.stack([lo, hi, sub["n"].astype(int).to_numpy()], axis=1),
            hovertemplate=(f"<b>%{{y}}</b><br>{label(model)}<br>gap %{{x:{d}}} {fmt.unit} [%{{customdata[0]:{d}}}, "
                           f"%{{customdata[1]:{d}}}]<br>n = %{{customdata[2]:,}}<extra></extra>"),
        ))
        if len(models) == 1:  # one model: each gap and its interval written above its row, from the plot's left
            for split, value, low, high in zip(sub.index, sub["gap"], sub["gap_low"], sub["gap_high"]):
                fig.add_annotation(xref="x domain", x=0, xanchor="left", y=ticks[split], yshift=19,
                                   text=f"{fmt.gap(value)} {fmt.interval(low, high)}",
                                   showarrow=False, font=dict(size=12, color="#2B3440"))
    span = max(highs) - min(lows) or 1.0
    right_pad = 0.12
    fig.add_vline(x=0, line=dict(color=REFERENCE_COLOR, width=1.5, dash="dash"))
    fig.update_layout(
        title=f"Gap to the {'i.i.d.' if iid else 'reference'} split '{label(reference)}'{' (points)' if fmt.percent else ''}",
        showlegend=len(models) > 1, scattermode="group",
        xaxis=dict(title=f"{'i.i.d.' if iid else 'reference'} minus split<br>(> 0: worse than {'i.i.d.' if iid else 'the reference'})",
                   zeroline=False,
                   range=[min(lows) - 0.12 * span, max(highs) + right_pad * span]),
        yaxis=dict(autorange="reversed", type="category"),
    )
    return fig


def fmt_share(value: float) -> str:
    """A share of outputs as a percentage with one decimal: '12.5%'."""
    return f"{100 * value:.1f}%"


def _summary_table(rows: pd.DataFrame, fmt: ScoreFormat, n_models: int) -> pd.DataFrame:
    table: dict[str, list[Any]] = {"Model": [], "Split": [], "Method": [], "n": [], "Score": [], "95% CI": [],
                                   "CI method": [], "Gap to reference": [], "Gap 95% CI": [], "Gap from": [], "p adj.": []}
    could: dict[int, str] = {}
    for r in rows.itertuples():
        table["Model"].append(r.model)
        table["Split"].append(r.split)
        table["Method"].append(r.method)
        warning = getattr(r, "warning", "") or ""
        n_text = f"{int(r.n):,}"
        if not is_missing(getattr(r, "n_clusters", None)):
            n_text += f" in {int(r.n_clusters):,} {r.cluster} clusters"
            if not is_missing(getattr(r, "design_effect", None)):  # corpus metrics resample clusters: no design effect
                n_text += f"; design effect {float(r.design_effect):.1f}"
        table["n"].append(n_text + (" (too few to tell)" if "too few to tell" in warning else ""))
        table["Score"].append(fmt.score(r.score))
        table["95% CI"].append(fmt.interval(r.score_low, r.score_high))
        table["CI method"].append(getattr(r, "score_method", "") or "")
        p_adj = ""
        if r.split == r.reference:
            gap, gap_ci, how = "reference", "", ""
        elif is_missing(r.gap):
            gap, gap_ci, how = "–", "", ""
        else:
            gap, gap_ci = fmt.gap(r.gap), fmt.interval(r.gap_low, r.gap_high)
            how = "paired examples" if r.gap_paired else "independent samples"
            if getattr(r, "gap_method", None):
                how += f" ({r.gap_method}; {r.gap_test})"
            p = getattr(r, "gap_p_adjusted", None)
            p_adj = "" if is_missing(p) else ("<0.001" if float(p) < 0.001 else f"{float(p):.3f}")
            detectable = getattr(r, "gap_detectable", None)
            if not is_missing(p) and float(p) >= 0.05 and not is_missing(detectable):
                could[len(table["Split"]) - 1] = fmt.gap(detectable)
        table["Gap to reference"].append(gap)
        table["Gap 95% CI"].append(gap_ci)
        table["Gap from"].append(how)
        table["p adj."].append(p_adj)
        table.setdefault("Unextracted", []).append("" if is_missing(getattr(r, "unextracted", None)) else fmt_share(r.unextracted))
    frame = pd.DataFrame(table)
    if could:  # a gap that is not significant: the smallest this run could have detected (80% power)
        frame["Could detect"] = [could.get(i, "") for i in range(len(frame))]
    if not (frame["Unextracted"] != "").any():
        frame = frame.drop(columns="Unextracted")
    if n_models == 1:
        frame = frame.drop(columns="Model")
    if not (frame["Gap to reference"] != "–").any():
        frame = frame.drop(columns=["Gap to reference", "Gap 95% CI", "Gap from", "p adj."])
    return frame


_ALIGN = {"Score": "right", "95% CI": "right", "Gap to reference": "right", "Gap 95% CI": "right"}


@register_section("overview", order=10)
def overview(ctx: ReportContext) -> Section | None:
    """Headline, score and gap charts, and the summary table, per metric (none for a training-only run)."""
    if ctx.summary.empty and not ctx.measures.empty:
        return None
    split_order = list(ctx.split_info)
    models = list(dict.fromkeys(ctx.summary["model"])) if len(ctx.summary) else []
    head = ctx.headline
    blocks, md = [], [f"**{md_escape(head.lead)}** {md_escape(head.detail)}".strip()]
    if head.caveat:
        md[0] += f" *{md_escape(head.caveat)}*"
    for metric in ctx.metrics:
        rows = ctx.summary[ctx.summary["metric"] == metric]
        if rows.empty:
            continue
        fmt = ctx.score_format(metric)
        charts = [figure_html(_scores_figure(rows, fmt, metric, ctx.reference, split_order, ctx.reference_is_iid),
                              div_id=f"chart-scores-{_slug(metric)}",
                              height=_scores_height(rows["split"].nunique(), rows["model"].nunique()))]
        has_gaps = ctx.reference is not None and rows["gap"].notna().any() and (rows["split"] != ctx.reference).any()
        if has_gaps:
            n_other = rows.loc[rows["split"] != ctx.reference, "split"].nunique()
            charts.append(figure_html(_gap_figure(rows, fmt, metric, ctx.reference, split_order, ctx.reference_is_iid),
                                      div_id=f"chart-gaps-{_slug(metric)}", height=170 + 64 * n_other))
        table = _summary_table(rows, fmt, len(models))
        blocks.append(dict(metric=metric, charts=charts, table=table_html(table, align=_ALIGN),
                           heading=len(ctx.metrics) > 1))
        if len(ctx.metrics) > 1:
            md.append(f"### {md_escape(metric)}")
        md.append(table_markdown(table, align=_ALIGN))
    note = (
        f"Scores are means over the test examples, with {int(100 * ctx.confidence)}% intervals: Clopper-Pearson "
        "(exact) for 0/1 scores, which never claims certainty at 0% or 100%, and the percentile bootstrap "
        f"({ctx.n_resamples:,} resamples, seed 0) for other scores. The gap is the score on {ctx.reference_words} minus "
        "the split's score, "
        "so a positive gap is a loss. When both splits hold the same examples it is a paired difference (0/1 scores: "
        "an exact-based MOVER interval and the exact McNemar test; other scores: a bootstrap of the differences and a "
        "sign-flip permutation test); otherwise the two test sets are independent samples (Newcombe's interval and "
        "Fisher's exact test; other scores: bootstrap and Welch's test). p adj. is the p-value of the gap adjusted "
        "with Holm's method over every gap of a model (all splits and metrics), so it controls the chance of any "
        "false alarm. n is the number of test examples behind each figure; \"too few to tell\" marks a bootstrap "
        "interval on fewer than 30 examples, which covers less than 95%."
    ) if len(ctx.summary) else ""
    if note and ctx.cluster is not None:
        note += (f" Rows are not taken as independent: they are clustered by '{ctx.cluster}', and every interval and test "
                 "counts clusters (0/1 scores: Korn-Graubard intervals, Clopper-Pearson at the effective sample size, "
                 "and Newcombe / MOVER built from them; other scores: cluster-robust t intervals; paired gaps: a "
                 "sign-flip test of the clusters' totals; independent gaps: a cluster-robust score test; metrics of a "
                 "whole test part such as AUROC, F1 or ECE: bootstraps that draw whole clusters, 'bootstrap-clusters'). "
                 "n says how many "
                 "clusters the rows fall into and the design effect: the variance of the score over what independent "
                 "rows would give, so n rows are worth about n / design effect independent ones.")
    if note and "gap_detectable" in ctx.summary and ctx.summary["gap_detectable"].notna().any():
        note += (" Could detect, for a gap that is not significant, is the smallest gap this run had 80% power to "
                 "detect at the 5% level: a smaller true gap may be there unseen (gengap plan --pilot says how many "
                 "examples would find it).")
    if note and "unextracted" in ctx.summary and ctx.summary["unextracted"].notna().any():
        note += (" Unextracted is the share of outputs with no readable answer: they score 0 and are counted apart "
                 "from wrong answers.")
    if note:
        md.append(f"*{md_escape(note)}*")
    html = Markup(render_template("overview.html", head=head, blocks=blocks, note=note))
    return Section("Overview", html, "\n\n".join(md))


# --------------------------------------------------------------------------------------------- splits
def _human(value: Any, limit: int = 12) -> str:
    """A diagnostic value in a few words: numbers rounded, ranges as 'a – b', long lists cut."""
    if is_missing(value):
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list):
        if len(value) == 2 and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
            return _human(value[0]) if value[0] == value[1] else f"{_human(value[0])} – {_human(value[1])}"
        shown = ", ".join(_human(v, limit) for v in value[:limit])
        return shown + (f", … ({len(value):,} in all)" if len(value) > limit else "") if value else "none"
    if isinstance(value, dict):
        if not value:
            return "none"
        items = list(value.items())
        shown = ", ".join(f"{k}={_human(v, limit)}" for k, v in items[:limit])
        return shown + (f", … ({len(items):,} in all)" if len(items) > limit else "")
    return truncate(value, 300)


_LOCI = {"train_test": "train–test", "finetune_train_test": "finetune train–test", "pretrain_train": "pretrain–train",
          "pretrain_test": "pretrain–test"}


def _axis_value(value: Any) -> str:
    if value is None:
        return "–"
    return _LOCI.get(str(value), str(value).replace("_", " "))


def _trajectory(name: str, steps: list[dict[str, Any]]) -> tuple[str, Markup]:
    """A divergence search's trajectory: a one-line summary and a chart of D_C and D_A over its steps."""
    frame = pd.DataFrame(steps)
    x = np.arange(1, len(frame) + 1)
    phase = frame["phase"].astype(str).map(label) if "phase" in frame else pd.Series([""] * len(frame))
    fig = go.Figure()
    for i, (key, title) in enumerate([("compound_divergence", "compound divergence D_C"),
                                      ("atom_divergence", "atom divergence D_A")]):
        if key in frame:
            fig.add_trace(go.Scatter(x=x, y=frame[key], name=title, mode="lines+markers", marker=dict(size=5),
                                     line=dict(color=COLORS[i]), customdata=phase, yaxis="y" if i == 0 else "y2",
                                     hovertemplate=f"step %{{x}} (%{{customdata}})<br>{title}: %{{y:.4f}}<extra></extra>"))
    fig.update_layout(title=f"{label(name, _TICK)}: divergence over the search", xaxis_title="search step (hold-outs, rebuilds, swap rounds)",
                      yaxis=dict(title="D_C", tickformat=".3~g"),
                      yaxis2=dict(title="D_A", overlaying="y", side="right", showgrid=False, tickformat=".3~g"))
    first, last = frame.iloc[0], frame.iloc[-1]
    summary = (f"{len(frame):,} steps: D_C {first.get('compound_divergence', float('nan')):.4g} → "
               f"{last.get('compound_divergence', float('nan')):.4g}, D_A {first.get('atom_divergence', float('nan')):.4g} → "
               f"{last.get('atom_divergence', float('nan')):.4g} (the best state after each step)")
    return summary, figure_html(fig, div_id=f"trajectory-{_slug(name)}", height=320)


def _card(name: str, info: dict[str, Any], ctx: ReportContext) -> dict[str, Any]:
    tax = info.get("taxonomy") or {}
    scored = ctx.summary[ctx.summary["split"] == name]["n"]
    diag: list[tuple[str, str]] = [
        ("Train examples", _human(info.get("n_train"))),
        ("Test examples", f"{_human(info.get('n_test'))}"
         + (f" ({100 * info['test_fraction']:.1f}% of the data)" if not is_missing(info.get("test_fraction")) else "")),
    ]
    if len(scored):
        diag.append(("Scored test examples", _human(int(scored.max()))))
    if info.get("n_unused"):
        diag.append(("Unused examples", _human(info.get("n_unused"))))
    if info.get("held_out"):
        diag.append(("Held out", str(info["held_out"])))
    n_unseen = info.get("n_unseen_test_atoms")
    if n_unseen is not None:
        atoms = info.get("unseen_test_atoms") or []
        text = _human(int(n_unseen))
        if atoms:
            text += ": " + ", ".join(truncate(a, 40) for a in atoms[:10]) + (", …" if int(n_unseen) > 10 else "")
        diag.append(("Unseen test atoms", text))
    diag.append(("Seed", "none (deterministic)" if info.get("seed") is None else _human(info.get("seed"))))
    for key in info:
        if key not in _KNOWN:
            diag.append((key.replace("_", " ").capitalize(), _human(info[key])))
    if info.get("params"):
        diag.append(("Parameters", _human(info["params"])))
    ds = info.get("dataset")
    if isinstance(ds, dict):
        diag.append(("Dataset", f"{ds.get('name', '')} ({_human(ds.get('n'))} examples, fingerprint {ds.get('fingerprint', '')})"))
    chart = None
    steps = info.get("trajectory")
    if isinstance(steps, list) and steps and all(isinstance(t, dict) for t in steps):
        summary, chart = _trajectory(name, steps)
        diag.append(("Search trajectory", summary))
    axes = [(title, _axis_value(tax.get(key))) for key, title in _AXES]
    method = str(info.get("method", ""))
    return dict(name=name, method=method if method != name else "", reference=name == ctx.reference,
                reference_badge="i.i.d. reference" if ctx.reference_is_iid else "reference",
                description=tax.get("description", ""), axes=axes, diagnostics=diag, chart=chart)


@register_section("splits", order=20)
def splits(ctx: ReportContext) -> Section | None:
    """The taxonomy card and diagnostics of every split."""
    if not ctx.split_info:
        return None
    cards = [_card(name, info, ctx) for name, info in ctx.split_info.items()]
    md = ["Each card places a split on the GenBench taxonomy of generalisation (Hupkes et al. 2023) and lists "
          "what a reader needs to trust it."]
    for c in cards:
        about = ([f"method {md_escape(c['method'])}"] if c["method"] else []) + \
            ([f"the {c['reference_badge']}"] if c["reference"] else [])
        md.append(f"#### {md_escape(c['name'])}" + (f" ({', '.join(about)})" if about else ""))
        if c["description"]:
            md.append(md_escape(c["description"]))
        frame = pd.DataFrame(c["axes"] + c["diagnostics"], columns=["", "value"])
        md.append(table_markdown(frame))
    html = Markup(render_template("splits.html", cards=cards))
    return Section("Splits: what each one tests", html, "\n\n".join(md))


# --------------------------------------------------------------------------------------------- failures
def select_failures(rows: pd.DataFrame, k: int = N_FAILURES) -> pd.DataFrame:
    """Up to ``k`` failures (score below 1) of one model x split x metric, a fixed pseudo-random sample.

    The order comes from a hash of each example id, so the same rows always give the same sample,
    without favouring the first ids.

    >>> rows = pd.DataFrame({"example_id": [str(i) for i in range(10)], "score": [0, 1] * 5})
    >>> sample = select_failures(rows, k=3)
    >>> len(sample), bool((sample["score"] < 1).all())
    (3, True)
    """
    failed = rows[rows["score"].astype(float) < 1]
    if failed.empty:
        return failed
    keys = pd.util.hash_pandas_object(failed["example_id"].astype(str), index=False).to_numpy()
    order = np.lexsort((failed["example_id"].astype(str).to_numpy(), keys))
    return failed.iloc[order[:k]]


def failure_samples(ctx: ReportContext, k: int = N_FAILURES) -> list[dict[str, Any]]:
    """Per model x split, the failure count and a sample of failures (for the report and results.json)."""
    metric = ctx.primary_metric
    if metric is None:
        return []
    clean = ctx.clean_rows[ctx.clean_rows["metric"] == metric]
    order = {s: i for i, s in enumerate(ctx.split_info)}
    out = []
    for (model, split), g in sorted(clean.groupby(["model", "split"], sort=False),
                                    key=lambda kv: (str(kv[0][0]), order.get(kv[0][1], len(order)), str(kv[0][1]))):
        sample = select_failures(g, k)
        out.append({
            "model": model, "split": split, "metric": metric, "n_examples": int(len(g)),
            "n_failures": int((g["score"].astype(float) < 1).sum()),
            "examples": [
                {"example_id": str(r.example_id), "input": truncate(r.input, TEXT_LIMIT_JSON),
                 "target": truncate(r.target, TEXT_LIMIT_JSON), "output": truncate(r.output, TEXT_LIMIT_JSON),
                 "score": float(r.score)}
                for r in sample.itertuples()
            ],
        })
    return out


@register_section("failures", order=30)
def failures(ctx: ReportContext) -> Section | None:
    """A few failures per model and split, so a reader sees what 'wrong' looks like."""
    groups = failure_samples(ctx)
    if not groups:
        return None
    binary = set(ctx.rows.loc[ctx.rows["metric"] == ctx.primary_metric, "score"].unique()) <= {0.0, 1.0}
    n_models = len({g["model"] for g in groups})
    blocks, md = [], [md_escape(
        f"Up to {N_FAILURES} examples per split whose {ctx.primary_metric} is below 1, a fixed sample chosen by a "
        "hash of the example id (the same rows always give the same sample). Long texts are cut.")]
    for g in groups:
        title = g["split"] if n_models == 1 else f"{g['split']} · {g['model']}"
        counts = (f"{g['n_failures']:,} of {g['n_examples']:,} test examples failed"
                  + (f"; showing {len(g['examples'])}" if g["n_failures"] > len(g["examples"]) else ""))
        cols: dict[str, list[Any]] = {"id": [], "input": [], "target": [], "output": [], "first difference": []}
        md_cols: dict[str, list[Any]] = {"id": [], "input": [], "target": [], "output": [], "first difference": []}
        if not binary:
            cols["score"], md_cols["score"] = [], []
        for ex in g["examples"]:
            for key in ("input", "target", "output"):
                cols[key].append(truncate(ex[key], TEXT_LIMIT_HTML))
                md_cols[key].append(truncate(ex[key], TEXT_LIMIT_MD))
            offset, where = first_difference(ex["output"], ex["target"])
            shown = cols["output"][-1]
            cols["output"][-1] = highlight(shown, offset if offset is not None and offset <= min(len(shown), TEXT_LIMIT_HTML) else None)
            cols["first difference"].append(where)
            md_cols["first difference"].append(where)
            cols["id"].append(ex["example_id"])
            md_cols["id"].append(ex["example_id"])
            if not binary:
                cols["score"].append(round(ex["score"], 3))
                md_cols["score"].append(round(ex["score"], 3))
        table = table_html(pd.DataFrame(cols, dtype=object), css_class="texts") if g["examples"] else None
        blocks.append(dict(title=title, counts=counts, table=table))
        md.append(f"#### {md_escape(title)}\n\n{md_escape(counts)}.")
        if g["examples"]:
            md.append(table_markdown(pd.DataFrame(md_cols)))
    html = Markup(render_template("failures.html", blocks=blocks, metric=ctx.primary_metric, k=N_FAILURES))
    return Section("Sample failures", html, "\n\n".join(md))


# --------------------------------------------------------------------------------------------- run
def _fence(text: str) -> str:
    """A Markdown code fence longer than any run of backticks in ``text``."""
    longest = max((len(run) for run in text.split("\n") for run in _backtick_runs(run)), default=0)
    return "`" * max(3, longest + 1)


def _backtick_runs(line: str) -> list[str]:
    runs, cur = [], ""
    for ch in line:
        if ch == "`":
            cur += ch
        elif cur:
            runs.append(cur)
            cur = ""
    return runs + ([cur] if cur else [])


@register_section("run", order=100)
def run(ctx: ReportContext) -> Section:
    """Where the figures come from: the run, its rows, and its configuration."""
    rows = ctx.rows
    n_clean = int(len(ctx.clean_rows))
    facts = [
        ("Run", f"{ctx.run_id} · {ctx.run.get('name', '')}"),
        ("Started", str(ctx.run.get("created_at") or "–")[:19].replace("T", " ") + " UTC"),
        ("Status", str(ctx.run.get("status", ""))),
        ("gengap version", str(ctx.run.get("gengap_version", ""))),
        ("Per-example rows", f"{len(rows):,} ({n_clean:,} on clean inputs, {len(rows) - n_clean:,} on perturbed ones)"),
        ("Models", ", ".join(map(str, rows["model"].unique())) if len(rows) else "–"),
        ("Metrics", ", ".join(ctx.metrics) or "–"),
        ("Reference split", ctx.reference or "none"),
        ("Intervals", f"{int(100 * ctx.confidence)}%: Clopper-Pearson for 0/1 scores (Newcombe / exact-based MOVER for "
                      f"gaps), percentile bootstrap otherwise ({ctx.n_resamples:,} resamples, seed 0); p-values Holm-adjusted"),
        ("Model outputs", " ".join(cache_lines(ctx.store.cache_use(ctx.run_id))) or "–"),
        *([("Answer judge", " ".join(judged))] if (judged := judge_lines(ctx.store.judge_use(ctx.run_id))) else []),
        ("Results store", f"{Path(str(ctx.store.path)).name} (every figure here is computed from its rows)"),
        ("Training measures", f"{len(ctx.measures):,} values, {len(ctx.events):,} events"),
    ]
    config = json.dumps(ctx.run.get("config", {}), indent=2, sort_keys=True, ensure_ascii=False, default=str)
    fence = _fence(config)
    md = [table_markdown(pd.DataFrame(facts, columns=["", "value"])),
          "<details><summary>Configuration</summary>\n\n" + f"{fence}json\n{config}\n{fence}\n\n</details>"]
    html = Markup(render_template("run.html", facts=facts, config=config))
    return Section("Run", html, "\n\n".join(md))
