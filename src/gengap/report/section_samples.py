"""Report section "samples": several answers per example (``--samples K``), per model and split.

It appears when the run asked its models each example K times (``samples`` > 1). Per model, split and
per-example metric: pass@1 and pass@K (the unbiased estimator of Chen et al. 2021), maj@K (the most
frequent answer's score), how often the K answers agree, and how much of the spread of the score is
sampling noise (within-example variance) rather than a difference between examples; the mean score with
its interval clustered by example (the K answers to an example are one cluster, as in every interval
and test of the report). Figures: ``sections.samples`` (:data:`gengap.analysis.samples.SAMPLE_COLUMNS`).
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import pandas as pd
from markupsafe import Markup

from gengap.analysis.samples import sample_table
from gengap.report._blocks import html_fragment
from gengap.report._format import md_escape
from gengap.report._sections import ReportContext, Section, register_section
from gengap.report._tables import table_html, table_markdown

__all__ = ["samples_section"]


def _share(fmt: Any, value: Any) -> str:
    return "–" if value is None or (isinstance(value, float) and math.isnan(value)) else str(fmt.score(value))


@register_section("samples", order=36)
def samples_section(ctx: ReportContext) -> Section | None:
    """pass@k, maj@k, agreement and the noise share per model and split, when examples were sampled."""
    table = sample_table(ctx.rows, confidence=ctx.confidence)
    if table.empty:
        return None
    k = int(table["k"].max())
    shown = []
    for r in table.itertuples():
        fmt = ctx.score_format(str(r.metric))
        share = partial(_share, fmt)
        shown.append({
            "Model": str(r.model), "Split": str(r.split), "Metric": str(r.metric),
            "n": f"{int(r.n_items):,} examples × {int(r.k)}",
            "Mean score": f"{fmt.score(r.score)} {fmt.interval(r.score_low, r.score_high)}",
            "pass@1": share(r.pass_at_1), f"pass@{int(r.k)}": share(r.pass_at_k), f"maj@{int(r.k)}": share(r.maj_at_k),
            "Agreement": "–" if r.agreement is None or pd.isna(r.agreement) else f"{100 * float(r.agreement):.0f}%",
            "Sampling noise": f"{100 * float(r.noise_share):.0f}% of the variance",
        })
    intro = (f"Each example was answered {k} times. pass@k is the chance that at least one of k answers is right "
             f"(unbiased estimator from the {k} answers, Chen et al. 2021); maj@{k} scores each example's most "
             "frequent answer; agreement is the share of an example's answers that give its most frequent one. "
             "Sampling noise is the within-example share of the score's variance (what asking again would change); "
             f"the rest is how examples differ. The mean score's 95% interval, like every interval and test in "
             f"this report, counts the {k} answers to an example as one cluster ('item').")
    frame = pd.DataFrame(shown)
    html = Markup("").join([html_fragment("<p>{{ t }}</p>", t=intro), table_html(frame)])
    md = "\n\n".join([md_escape(intro), table_markdown(frame)])
    data = [{key: (None if isinstance(v, float) and math.isnan(v) else v) for key, v in rec.items()}
            for rec in table.to_dict("records")]
    return Section(f"{k} samples per example", html, md, data=data)
