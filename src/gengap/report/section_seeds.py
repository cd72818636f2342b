"""Report section "seeds": how much each split's score moves over seeds.

It appears when the run holds a split method made with several seeds
(:func:`gengap.analysis.seed_spread.seeded_splits`: ``random@seed=0``, ``random@seed=1``, ...).
Per model, on the primary metric: each split's seeds, mean with its t-interval over seeds, standard
deviation, range, and the ratio of its standard deviation to the in-distribution split's
(:func:`gengap.analysis.seed_spread.seed_spread_from_rows`). Figures: ``sections.seeds``.
"""

from __future__ import annotations

import pandas as pd
from markupsafe import Markup

from gengap.analysis.seed_spread import SeedSpread, _seed_families, seed_spread_from_rows
from gengap.report._blocks import html_fragment
from gengap.report._format import ScoreFormat, md_escape
from gengap.report._sections import ReportContext, Section, register_section
from gengap.report._tables import table_html, table_markdown

__all__ = ["seeds_section"]


def _value(v: float, fmt: ScoreFormat) -> str:
    return f"{100 * v:.1f}%" if fmt.percent else f"{v:.3g}"


def _table(spread: SeedSpread, fmt: ScoreFormat) -> tuple[pd.DataFrame, list[dict]]:
    per = spread.per_split(confidence=0.95)
    ratio = spread.spread_ratio()
    shown, data = [], []
    for split, r in per.iterrows():
        shown.append({"Split": split + (" (in-distribution)" if r["in_distribution"] else ""), "Seeds": int(r["seeds"]),
                      "Mean [95% CI over seeds]": f"{_value(r['mean'], fmt)} [{_value(r['mean_low'], fmt)}, "
                                                  f"{_value(r['mean_high'], fmt)}]",
                      "SD": _value(r["sd"], fmt), "Min": _value(r["min"], fmt), "Max": _value(r["max"], fmt),
                      "Range": _value(r["range"], fmt), "SD ratio": f"{ratio[split]:.2g}"})
        data.append({"split": split, **{k: (bool(v) if k == "in_distribution" else float(v)) for k, v in r.items()},
                     "spread_ratio": float(ratio[split])})
    return pd.DataFrame(shown), data


@register_section("seeds", order=47)
def seeds_section(ctx: ReportContext) -> Section | None:
    """Per model, each seeded split's spread over seeds, next to the in-distribution split's."""
    metric = ctx.primary_metric
    if metric is None or not _seed_families(ctx.split_info):
        return None
    fmt = ctx.score_format(metric)
    rows = ctx.clean_rows[ctx.clean_rows["metric"] == metric]
    html_parts = [html_fragment("<p>Each split made with several seeds: one score per seed; the interval is a t-interval "
                                "of the mean over seeds. SD ratio: the split's seed standard deviation over the "
                                "in-distribution split's.</p>")]
    md_parts: list[str] = []
    data: dict = {"metric": metric, "models": []}
    for model in sorted(set(rows["model"].astype(str))):
        spread = seed_spread_from_rows(rows, ctx.split_info, model=model, metric=metric)
        table, records = _table(spread, fmt)
        html_parts += [html_fragment("<h3>{{ m }}</h3>", m=model), table_html(table)]
        md_parts += [f"### {md_escape(model)}", "", table_markdown(table), ""]
        data["models"].append({"model": model, "in_distribution": spread.in_distribution, "splits": records,
                               "scores": spread.scores.to_dict(orient="records")})
    return Section("Seeds", Markup("").join(html_parts), "\n".join(md_parts).strip(), data=data)
