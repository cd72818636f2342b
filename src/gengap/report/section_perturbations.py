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


def _p(v: float) -> str:
    return "–" if np.isnan(v) else ("<0.001" if v < 0.001 else f"{v:.3f}")


@register_section("perturbations", order=45)
def perturbations(ctx: ReportContext) -> Section | None:
    """Stress tests: effect of each perturbation on every metric (paired with the clean examples),
    flips, and a heatmap of the primary metric."""
    rows = ctx.rows
    if "perturbation" not in rows.columns or not (rows["perturbation"] != "none").any() or ctx.primary_metric is None:
        return None
    s_all = perturbation_effects(rows, confidence=ctx.confidence, n_resamples=min(ctx.n_resamples, 4000))
    metrics = [m for m in ctx.metrics if m in set(s_all["metric"])] or list(dict.fromkeys(s_all["metric"]))
    primary = ctx.primary_metric if ctx.primary_metric in metrics else metrics[0]
    blocks_html, md, tables = [], [], {}
    models = s_all["model"].nunique() > 1
    for metric in metrics:
        s = s_all[s_all["metric"] == metric].reset_index(drop=True)
        s["rank"] = np.arange(1, len(s) + 1)
        fmt = ctx.score_format(metric)
        shown = s.head(MAX_ROWS)
        table = shown.assign(
            Effect=[f"{d:+.3f} [{lo:+.3f}, {hi:+.3f}]" for d, lo, hi in zip(shown["difference"], shown["low"], shown["high"])],
            Clean=shown["clean"].map(fmt.score), Perturbed=shown["perturbed"].map(fmt.score),
            PDR=shown["drop_rate"].map(lambda v: "–" if np.isnan(v) else f"{v:.1%}"),
            Flips=shown["flip_rate"].map(lambda v: "–" if np.isnan(v) else f"{v:.1%}"),
            P=shown["p_adjusted"].map(_p),
        )[["rank", *(["model"] if models else []), "split", "perturbation", "family", "n", "Clean", "Perturbed", "Effect",
           "P", "PDR", "Flips"]].rename(columns={"rank": "Rank", "model": "Model", "split": "Split", "perturbation": "Perturbation",
                                                 "family": "Family", "n": "n", "P": f"p adj. ({s['adjustment'].iloc[0]})"})
        worst = s.iloc[0]
        n_sig = int((s["significant"] & (s["difference"] < 0)).sum())
        basis = "extracted answers" if (s["flip_basis"] == "extracted").all() else "the metric's score"
        methods = ", ".join(dict.fromkeys(s["interval"]))
        tests = ", ".join(dict.fromkeys(s["test"]))
        intro = (f"{metric}: {s['perturbation'].nunique()} perturbations of the test inputs, each paired with the same "
                 f"clean examples. Most harmful: {worst['perturbation']} on {worst['split']}, {worst['difference']:+.3f} "
                 f"({int(ctx.confidence * 100)}% CI [{worst['low']:+.3f}, {worst['high']:+.3f}]), answers changed on "
                 f"{worst['flip_rate']:.1%} of examples. {n_sig} of {len(s)} effects are significantly negative after "
                 f"adjusting for {len(s)} comparisons ({'Holm' if s['adjustment'].iloc[0] == 'holm' else 'Benjamini-Hochberg'}). "
                 f"Effect: perturbed − clean with a paired interval ({methods}); p adj.: {tests} test, adjusted; "
                 f"PDR: performance drop rate; Flips: share of examples whose answer changed, on {basis}.")
        blocks_html.append(html_fragment('{% if h %}<h3>{{ h }}</h3>{% endif %}<p class="lede">{{ intro }}</p>',
                                         h=metric if len(metrics) > 1 else "", intro=intro))
        if metric == primary:
            heat = family_split_table(s)
            blocks_html.append(figure_html(_heatmap(heat), div_id="chart-perturbations", height=max(260, 60 * len(heat) + 120)))
            spread = template_spread(s)
            spread_text = "" if spread.empty else " ".join(
                f"Prompt templates on {r.split}: best {r.best} ({fmt.score(r.best_score)}), worst {r.worst} "
                f"({fmt.score(r.worst_score)}), spread {r.spread:.3f}." for r in spread.itertuples())
            if spread_text:
                blocks_html.append(html_fragment("<p>{{ t }}</p>", t=spread_text))
        blocks_html.append(table_html(table, css_class="compact"))
        more = len(s) - len(shown)
        if more:
            blocks_html.append(html_fragment("<p>{{ more }} more rows are in results.json.</p>", more=more))
        if len(metrics) > 1:
            md.append(f"#### {md_escape(metric)}")
        md.append(md_escape(intro))
        if metric == primary:
            md += ([md_escape(spread_text)] if spread_text else [])
            md += ["#### Mean effect by family and split", table_markdown(heat.map(lambda v: f"{v:+.3f}").reset_index())]
        md += ["#### Effects", table_markdown(table)]
        tables[metric] = s
    html = Markup("".join(str(b) for b in blocks_html))
    heat = family_split_table(tables[primary])
    data = {"metric": primary, "effects": s_all.to_dict("records"),
            "family_split": {str(f): {str(k): float(v) for k, v in r.items()} for f, r in heat.iterrows()},
            "template_spread": template_spread(tables[primary]).to_dict("records")}
    return Section("Stress tests", html, "\n\n".join(md), data=data)
