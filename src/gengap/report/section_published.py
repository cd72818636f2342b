"""The report's published-figures section: what the literature reports for the demo's splits.

Only the SCAN demo has published figures to compare with (Lake & Baroni 2018, exact match of their
best models). Other runs have none, and the section is left out.
"""

from __future__ import annotations

import pandas as pd
from markupsafe import Markup

from gengap.report._blocks import html_fragment
from gengap.report._sections import ReportContext, Section, register_section
from gengap.report._tables import table_html, table_markdown
from gengap.tasks.scan import PUBLISHED

__all__ = ["PUBLISHED_SCAN", "CITATION"]

#: Exact-match accuracy Lake & Baroni (2018) report on SCAN's random, length and add-jump splits.
PUBLISHED_SCAN = PUBLISHED
CITATION = ("Lake & Baroni (2018), Generalization without systematicity: on the compositional skills of "
            "sequence-to-sequence recurrent networks, ICML")


@register_section("published", order=40)
def published(ctx: ReportContext) -> Section | None:
    """This run's scores beside the published ones, for the SCAN demo."""
    demo = ctx.run.get("config", {}).get("demo")
    if not isinstance(demo, dict) or demo.get("name") != "scan" or ctx.summary.empty:
        return None
    fmt = ctx.score_format("exact_match")
    rows = ctx.summary[ctx.summary["metric"] == "exact_match"]
    table = pd.DataFrame([
        {"Split": split, "This run": fmt.score(rows.loc[rows["split"] == split, "score"].iloc[0])
         if (rows["split"] == split).any() else "–",
         "95% CI": fmt.interval(*rows.loc[rows["split"] == split, ["score_low", "score_high"]].iloc[0])
         if (rows["split"] == split).any() else "",
         "Published": fmt.score(value)}
        for split, value in PUBLISHED_SCAN.items()
    ])
    small = demo.get("limit") is not None or demo.get("quick")
    lede = (f"Exact match on SCAN's three splits: this run's small GRU baseline beside the figures of {CITATION}. "
            "The published models are larger and trained far longer; the shape to compare is the drop from random "
            "to length and to held-out 'jump', not the level."
            + (" This run used --quick or --limit, so its figures are lower still." if small else ""))
    html = html_fragment('<p class="lede">{{ lede }}</p>{{ table }}', lede=lede,
                         table=table_html(table, align={"This run": "right", "95% CI": "right", "Published": "right"}))
    md = f"{lede}\n\n{table_markdown(table, align={'This run': 'right', '95% CI': 'right', 'Published': 'right'})}"
    return Section("Published figures", Markup(html), md,
                   data={"source": CITATION, "published": PUBLISHED_SCAN})
