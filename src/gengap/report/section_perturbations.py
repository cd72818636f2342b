"""The report's stress-test section: each perturbation's paired effect with its interval, the flip
rate, and a heatmap of the mean effect per perturbation family and split."""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go
from markupsafe import Markup

from gengap.analysis.stress import family_split_table, perturbation_effects, template_spread
from gengap.report._blocks import html_fragment
from gengap.report._figures import figure_html, label
from gengap.report._format import md_escape
from gengap.report._sections import ReportContext, Section, register_section
from gengap.report._tables import table_html, table_markdown

__all__ = ["perturbations"]

MAX_ROWS = 60


def _heatmap(table: Any) -> go.Figure:
    z = table.to_numpy(dtype=float)
    limit = float(np.nanmax(np.abs(z))) if np.isfinite(z).any() else 1.0
    fig = go.Figure(go.Heatmap(
        z=z, x=[label(c, 30) for c in table.columns], y=[label(i, 30) for i in table.index],
        zmin=-max(limit, 1e-9), zmax=max(limit, 1e-9), colorscale="RdBu", zmid=0,
        text=[[("" if np.isnan(v) else f"{v:+.3f}") for v in row] for row in z], texttemplate="%{text}",
        hovertemplate="family %{y}<br>split %{x}<br>mean difference %{z:+.3f}<extra></extra>",
        colorbar={"title": "perturbed − clean"},
    ))
    fig.update_layout(xaxis_title="split", yaxis_title="perturbation family")
    return fig


@register_section("perturbations", order=45)
def perturbations(ctx: ReportContext) -> Section | None:
    """Stress tests: effect of each perturbation (paired with the clean examples), flips, heatmap."""
    rows = ctx.rows
    if "perturbation" not in rows.columns or not (rows["perturbation"] != "none").any() or ctx.primary_metric is None:
        return None
    metric = ctx.primary_metric
    s = perturbation_effects(rows, metric=metric, confidence=ctx.confidence, n_resamples=min(ctx.n_resamples, 4000))
    fmt = ctx.score_format(metric)
    models = s["model"].nunique() > 1
    shown = s.head(MAX_ROWS)
    table = shown.assign(
        Effect=[f"{d:+.3f} [{lo:+.3f}, {hi:+.3f}]" for d, lo, hi in zip(shown["difference"], shown["low"], shown["high"])],
        Clean=shown["clean"].map(fmt.score), Perturbed=shown["perturbed"].map(fmt.score),
        PDR=shown["drop_rate"].map(lambda v: "–" if np.isnan(v) else f"{v:.1%}"),
        Flips=shown["flip_rate"].map(lambda v: "–" if np.isnan(v) else f"{v:.1%}"),
    )[["rank", *(["model"] if models else []), "split", "perturbation", "family", "n", "Clean", "Perturbed", "Effect",
       "PDR", "Flips"]].rename(columns={"rank": "Rank", "model": "Model", "split": "Split", "perturbation": "Perturbation",
                                        "family": "Family", "n": "n"})
    heat = family_split_table(s)
    worst = s.iloc[0]
    n_sig = int((s["significant"] & (s["difference"] < 0)).sum())
    intro = (f"{s['perturbation'].nunique()} perturbations of the test inputs, each paired with the same clean examples "
             f"({metric}). Most harmful: {worst['perturbation']} on {worst['split']}, {worst['difference']:+.3f} "
             f"({int(ctx.confidence * 100)}% CI [{worst['low']:+.3f}, {worst['high']:+.3f}]), answers changed on "
             f"{worst['flip_rate']:.1%} of examples. {n_sig} of {len(s)} effects are significantly negative. "
             "Effect: perturbed − clean with a paired bootstrap interval; PDR: performance drop rate; "
             "Flips: share of examples whose output changed.")
    spread = template_spread(s)
    spread_text = "" if spread.empty else " ".join(
        f"Prompt templates on {r.split}: best {r.best} ({fmt.score(r.best_score)}), worst {r.worst} ({fmt.score(r.worst_score)}), "
        f"spread {r.spread:.3f}." for r in spread.itertuples())
    chart = figure_html(_heatmap(heat), div_id="chart-perturbations", height=max(260, 60 * len(heat) + 120))
    more = len(s) - len(shown)
    html = html_fragment(
        '<p class="lede">{{ intro }}</p>{% if spread %}<p>{{ spread }}</p>{% endif %}{{ chart }}{{ table }}'
        '{% if more %}<p>{{ more }} more rows are in results.json.</p>{% endif %}',
        intro=intro, spread=spread_text, chart=chart, table=table_html(table, css_class="compact"), more=more,
    )
    md = [md_escape(intro)] + ([md_escape(spread_text)] if spread_text else [])
    md += ["#### Mean effect by family and split", table_markdown(heat.map(lambda v: f"{v:+.3f}").reset_index()),
           "#### Effects", table_markdown(table)]
    data = {"metric": metric, "effects": s.to_dict("records"),
            "family_split": {str(f): {str(k): float(v) for k, v in r.items()} for f, r in heat.iterrows()},
            "template_spread": spread.to_dict("records")}
    return Section("Stress tests", Markup(html), "\n\n".join(md), data=data)
