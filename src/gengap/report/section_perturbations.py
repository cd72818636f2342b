"""The report's stress-test section: each perturbation's paired effect with its interval, the flip
rate, and a heatmap of the mean effect per perturbation family and split."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import plotly.graph_objects as go
from markupsafe import Markup

from gengap.analysis.stress import family_split_table, perturbation_effects, template_spread
from gengap.metrics import get_metric
from gengap.report._blocks import html_fragment
from gengap.report._figures import figure_html, label
from gengap.report._format import ScoreFormat, md_escape
from gengap.report._sections import ReportContext, Section, register_section
from gengap.report._tables import table_html, table_markdown

__all__ = ["perturbations"]

MAX_ROWS = 60


def _effect_text(fmt: ScoreFormat) -> Callable[[float], str]:
    """Effects in the unit of the gaps: signed points for percent metrics ('-12.5'), else 3 decimals."""
    if fmt.percent:
        return lambda v: "–" if v is None or np.isnan(v) else f"{100 * v:+.1f}"
    return lambda v: "–" if v is None or np.isnan(v) else f"{v:+.3f}"


def _nice_step(limit: float) -> float:
    """A tick step of 1, 2 or 5 times a power of ten giving at most two ticks on each side of zero.

    >>> _nice_step(9.8), _nice_step(1.0), _nice_step(0.03)
    (5.0, 0.5, 0.02)
    """
    raw = limit / 2
    power = 10 ** np.floor(np.log10(raw))
    return float(next(m * power for m in (1, 2, 5, 10) if m * power >= raw - 1e-12))


def _heatmap_height(table: Any) -> int:
    """The heatmap's height: a row per family, and room for the split names under it when a narrow
    window turns them upright (about 7 px a character, as :func:`label` cuts them to 30).

    >>> import pandas as pd
    >>> _heatmap_height(pd.DataFrame([[0.1, 0.2]], index=["noise"], columns=["random", "group:depth=0"]))
    351
    """
    longest = max((len(str(c)) for c in table.columns), default=0)
    return max(260, 60 * len(table) + 160) + 7 * min(longest, 30)


def _heatmap(table: Any, fmt: ScoreFormat, effects: Any = None) -> go.Figure:
    """Mean effect per family x split, in points (percent metrics) on a symmetric red-blue scale.

    The scale covers every single effect of ``effects`` (not only the family means shown), so a
    colour never reads as the worst effect when a worse one is in the table below; it spans at least
    1 point (0.01 for other metrics), so a table of zeros gets a readable colour bar. Three ticks
    (the round bounds and zero), so the labels do not overlap even on a short bar (a phone's window
    turns the split names, which leaves the plot little height).
    """
    scale = 100.0 if fmt.percent else 1.0
    z = table.to_numpy(dtype=float) * scale
    floor = 1.0 if fmt.percent else 0.01
    values = [float(np.nanmax(np.abs(z)))] if np.isfinite(z).any() else []
    if effects is not None and len(effects):
        single = np.abs(np.asarray(effects, dtype=float) * scale)
        values += [float(np.nanmax(single))] if np.isfinite(single).any() else []
    limit = max([*values, floor])
    step = _nice_step(limit)
    limit = float(np.ceil(limit / step - 1e-9) * step)
    ticks = np.array([-limit, 0.0, limit])
    digits = 1 if fmt.percent else 3
    unit = "points" if fmt.percent else ""
    fig = go.Figure(go.Heatmap(
        z=z, x=[label(c, 30) for c in table.columns], y=[label(i, 30) for i in table.index],
        zmin=-limit, zmax=limit, colorscale="RdBu", zmid=0,
        text=[[("" if np.isnan(v) else f"{v:+.{digits}f}") for v in row] for row in z],
        texttemplate="%{text}",
        hovertemplate=f"family %{{y}}<br>split %{{x}}<br>mean effect %{{z:+.{digits}f}} {unit}<extra></extra>",
        colorbar={"title": {"text": f"perturbed − clean{'<br>(points)' if fmt.percent else ''}", "side": "right"},
                  "tickmode": "array", "tickvals": ticks.tolist(),
                  "ticktext": [f"{t:+g}" if t else "0" for t in np.round(ticks, 6)], "len": 1.0, "thickness": 14},
    ))
    fig.update_layout(xaxis_title="split", yaxis_title="perturbation family")
    return fig


def _p(v: float) -> str:
    return "–" if np.isnan(v) else ("<0.001" if v < 0.001 else f"{v:.3f}")


def _plural(n: int, word: str) -> str:
    """'1 perturbation', '3 perturbations'."""
    return f"{n:,} {word}" + ("" if n == 1 else "s")


@register_section("perturbations", order=45)
def perturbations(ctx: ReportContext) -> Section | None:
    """Stress tests: effect of each perturbation on every metric (paired with the clean examples),
    flips, and a heatmap of the primary metric."""
    rows = ctx.rows
    if "perturbation" not in rows.columns or not (rows["perturbation"] != "none").any() or ctx.primary_metric is None:
        return None
    s_all = perturbation_effects(rows, confidence=ctx.confidence, n_resamples=min(ctx.n_resamples, 4000), cluster=ctx.cluster)
    metrics = [m for m in ctx.metrics if m in set(s_all["metric"])] or list(dict.fromkeys(s_all["metric"]))
    primary = ctx.primary_metric if ctx.primary_metric in metrics else metrics[0]
    blocks_html, md, tables = [], [], {}
    models = s_all["model"].nunique() > 1
    for metric in metrics:
        s = s_all[s_all["metric"] == metric].reset_index(drop=True)
        s["rank"] = np.arange(1, len(s) + 1)
        fmt = ctx.score_format(metric)
        eff = _effect_text(fmt)
        unit = " pts" if fmt.percent else ""
        points = " points" if fmt.percent else ""
        shown = s.head(MAX_ROWS)
        table = shown.assign(
            Effect=[f"{eff(d)}{unit} [{eff(lo)}, {eff(hi)}]" for d, lo, hi in zip(shown["difference"], shown["low"], shown["high"])],
            Clean=shown["clean"].map(fmt.score), Perturbed=shown["perturbed"].map(fmt.score),
            PDR=shown["drop_rate"].map(lambda v: "–" if np.isnan(v) else f"{v:.1%}"),
            Flips=shown["flip_rate"].map(lambda v: "–" if np.isnan(v) else f"{v:.1%}"),
            P=shown["p_adjusted"].map(_p),
        )[["rank", *(["model"] if models else []), "split", "perturbation", "family", "n", "Clean", "Perturbed", "Effect",
           "P", "PDR", "Flips"]].rename(columns={"rank": "Rank", "model": "Model", "split": "Split", "perturbation": "Perturbation",
                                                 "family": "Family", "n": "n", "P": f"p adj. ({s['adjustment'].iloc[0]})"})
        worst = s.iloc[0]
        lower_better = not getattr(get_metric(metric), "higher_is_better", True)  # ECE, Brier: a rise is harm
        harmful = s["difference"].astype(float) > 0 if lower_better else s["difference"].astype(float) < 0
        n_sig = int((s["significant"] & harmful).sum())
        basis = "extracted answers" if (s["flip_basis"] == "extracted").all() else "the metric's score"
        methods = ", ".join(dict.fromkeys(s["interval"]))
        tests = ", ".join(dict.fromkeys(s["test"]))
        intro = (f"{metric}: {_plural(s['perturbation'].nunique(), 'perturbation')} of the test inputs, each paired with "
                 f"the same clean examples. Most harmful: {worst['perturbation']} on {worst['split']}, "
                 f"{eff(worst['difference'])}{points} ({int(ctx.confidence * 100)}% CI [{eff(worst['low'])}, "
                 f"{eff(worst['high'])}]), answers changed on {worst['flip_rate']:.1%} of examples. {n_sig} of "
                 f"{_plural(len(s), 'effect')} {'is' if n_sig == 1 else 'are'} significantly "
                 f"{'positive (worse)' if lower_better else 'negative'} after adjusting for "
                 f"{_plural(len(s), 'comparison')} ({'Holm' if s['adjustment'].iloc[0] == 'holm' else 'Benjamini-Hochberg'}). "
                 f"Effect: perturbed − clean{' in percentage points (like the gaps)' if fmt.percent else ''}, with a paired "
                 f"interval ({methods}); p adj.: {tests} test, adjusted; PDR: performance drop rate; Flips: share of "
                 f"examples whose answer changed, on {basis}.")
        if ctx.cluster is not None and s["n_clusters"].notna().any():
            intro += (f" Examples are clustered by '{ctx.cluster}' ({int(s['n_clusters'].max()):,} clusters; design effect "
                      f"up to {float(s['design_effect'].max()):.1f}): intervals and tests count clusters.")
        blocks_html.append(html_fragment('{% if h %}<h3>{{ h }}</h3>{% endif %}<p class="lede">{{ intro }}</p>',
                                         h=metric if len(metrics) > 1 else "", intro=intro))
        if metric == primary:
            heat = family_split_table(s)
            blocks_html.append(figure_html(_heatmap(heat, fmt, s["difference"]), div_id="chart-perturbations",
                                           height=_heatmap_height(heat)))
            spread = template_spread(s)
            spread_text = "" if spread.empty else " ".join(
                f"Prompt templates on {r.split}: best {r.best} ({fmt.score(r.best_score)}), worst {r.worst} "
                f"({fmt.score(r.worst_score)}), spread {eff(r.spread).lstrip('+')}{points}." for r in spread.itertuples())
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
            md += [f"#### Mean effect by family and split{' (points)' if fmt.percent else ''}",
                   table_markdown(heat.map(eff).reset_index())]
        md += ["#### Effects", table_markdown(table)]
        tables[metric] = s
    html = Markup("".join(str(b) for b in blocks_html))
    heat = family_split_table(tables[primary])
    data = {"metric": primary, "effects": s_all.to_dict("records"),
            "family_split": {str(f): {str(k): float(v) for k, v in r.items()} for f, r in heat.iterrows()},
            "template_spread": template_spread(tables[primary]).to_dict("records")}
    return Section("Stress tests", html, "\n\n".join(md), data=data)
