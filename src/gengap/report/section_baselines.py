"""Report section "baselines": the shortcut baselines' scores beside the models', split by split.

It appears when the run scored baselines (``--baseline majority``, ``--baseline partial:fields=question``;
:mod:`gengap.learners.baselines`). Per split, on the primary metric: each model's and each
baseline's score with its interval (from the run's summary), and, for every partial-input baseline,
its share of each model's score. When a partial-input baseline reaches :data:`MOST` of a model's
score the section says so plainly: the split can be largely solved without the rest of the input.
Figures: ``sections.baselines``.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from markupsafe import Markup

from gengap.learners.baselines import BASELINE_PREFIX
from gengap.report._blocks import html_fragment
from gengap.report._format import md_escape
from gengap.report._sections import ReportContext, Section, register_section
from gengap.report._tables import table_html, table_markdown

__all__ = ["baselines_section", "shortcut_findings", "MOST"]

#: A partial-input baseline at or above this share of a model's score "reaches most of it".
MOST = 0.8


def shortcut_findings(summary: pd.DataFrame, metric: str) -> list[dict[str, Any]]:
    """Per split, model and partial-input baseline: both scores and the baseline's share of the model's.

    >>> s = pd.DataFrame({"model": ["m", "baseline:partial(q)"], "split": "random", "metric": "acc",
    ...     "score": [0.8, 0.72], "score_low": [0.7, 0.6], "score_high": [0.9, 0.8]})
    >>> [(f["baseline"], round(f["share"], 2), f["most"]) for f in shortcut_findings(s, "acc")]
    [('baseline:partial(q)', 0.9, True)]
    """
    rows = summary[summary["metric"] == metric]
    out = []
    for split, group in rows.groupby("split", sort=False):
        models = group[~group["model"].astype(str).str.startswith(BASELINE_PREFIX)]
        partial = group[group["model"].astype(str).str.startswith(BASELINE_PREFIX + "partial")]
        for m in models.itertuples():
            for b in partial.itertuples():
                share = float(b.score) / float(m.score) if m.score and m.score > 0 else float("nan")
                out.append({"split": str(split), "model": str(m.model), "baseline": str(b.model),
                            "model_score": float(m.score), "baseline_score": float(b.score),
                            "baseline_low": float(b.score_low), "baseline_high": float(b.score_high),
                            "share": share, "most": bool(share >= MOST)})
    return out


@register_section("baselines", order=35)
def baselines_section(ctx: ReportContext) -> Section | None:
    """The baselines beside the models on every split, and whether a partial input is enough."""
    metric = ctx.primary_metric
    if metric is None or ctx.summary.empty:
        return None
    summary = ctx.summary[ctx.summary["metric"] == metric]
    names = list(dict.fromkeys(summary["model"].astype(str)))
    if not any(n.startswith(BASELINE_PREFIX) for n in names):
        return None
    fmt = ctx.score_format(metric)
    order = [n for n in names if not n.startswith(BASELINE_PREFIX)] + [n for n in names if n.startswith(BASELINE_PREFIX)]
    table = []
    for split, group in summary.groupby("split", sort=False):
        by_model = group.set_index(group["model"].astype(str))
        row: dict[str, Any] = {"Split": str(split)}
        for name in order:
            if name in by_model.index:
                r = by_model.loc[name]
                row[name] = f"{fmt.score(r['score'])} {fmt.interval(r['score_low'], r['score_high'])}"
        table.append(row)
    findings = shortcut_findings(ctx.summary, metric)
    sentences = []
    for f in findings:
        if f["most"]:
            sentences.append(f"On split '{f['split']}', the baseline '{f['baseline']}' scores "
                             f"{fmt.score(f['baseline_score'])} {fmt.interval(f['baseline_low'], f['baseline_high'])}: "
                             f"{100 * f['share']:.0f}% of model '{f['model']}''s {fmt.score(f['model_score'])}. Most of "
                             "what the model scores there can be had from that part of the input alone (a shortcut).")
    if findings and not sentences:
        best = max(findings, key=lambda f: f["share"] if f["share"] == f["share"] else -1)
        sentences.append(f"No partial-input baseline reaches {100 * MOST:.0f}% of a model's score; the closest, "
                         f"'{best['baseline']}' on '{best['split']}', scores {100 * best['share']:.0f}% of "
                         f"'{best['model']}''s.")
    intro = ("Shortcut baselines, each trained on every split's train part and scored on its test part: majority "
             "(the most frequent target), length (the input's length only), partial (only the named fields). "
             "Scores with 95% intervals.")
    frame = pd.DataFrame(table)
    html = Markup("").join([html_fragment("<p>{{ t }}</p>", t=intro), table_html(frame),
                           *[html_fragment("<p><strong>{{ s }}</strong></p>", s=s) for s in sentences]])
    md = "\n\n".join([md_escape(intro), table_markdown(frame), *[f"**{md_escape(s)}**" for s in sentences]])
    return Section("Shortcut baselines", html, md, data={"metric": metric, "most": MOST, "findings": findings,
                                                         "sentences": sentences})
