"""The report's section for runs imported from lm-evaluation-harness: lm_eval's own printed figures
(value and standard error) next to gengap's score and bootstrap interval from the same rows."""

from __future__ import annotations

import pandas as pd
from markupsafe import Markup

from gengap.analysis.imported import group_scores, model_differences
from gengap.report._blocks import html_fragment
from gengap.report._format import ScoreFormat, md_escape
from gengap.report._sections import ReportContext, Section, register_section
from gengap.report._tables import table_html, table_markdown

__all__ = ["lm_eval_figures", "reported_table", "imported_comparisons", "model_difference_table", "group_table"]

INTRO = ("These rows were imported from lm-evaluation-harness logs. lm_eval's value is the mean of the same per-document "
         "scores, so it equals gengap's; its ± is a standard error (sample standard deviation over the square root of n), "
         "which a reader turns into value ± 1.96 × stderr. gengap's interval is exact (Clopper–Pearson) for 0/1 scores and a "
         "bootstrap over the documents otherwise: it stays inside the range the scores can take, is lopsided near 0 and 1 "
         "where the normal interval is not, and keeps a width above zero when every score is 0 or 1.")


def reported_table(ctx: ReportContext) -> pd.DataFrame | None:
    """model, task, metric, n, lm_eval value and stderr, gengap's score and interval (None unless an lm-eval import)."""
    source = ctx.run.get("config", {}).get("import") or {}
    if source.get("kind") != "lm-eval":
        return None
    records = []
    summary = ctx.summary.set_index(["model", "split", "metric"])
    for task, info in ctx.split_info.items():
        for model, figures in (info.get("reported") or {}).items():
            for key, value in figures.items():
                metric, _, filt = key.partition(",")
                if metric.endswith("_stderr") or (model, task, key) not in summary.index:
                    continue
                mine = summary.loc[(model, task, key)]
                stderr = figures.get(f"{metric}_stderr,{filt}")
                records.append({"model": model, "task": task, "metric": key, "n": int(mine["n"]),
                                "lm_eval": value, "stderr": stderr if isinstance(stderr, (int, float)) else None,
                                "gengap": float(mine["score"]), "low": float(mine["score_low"]),
                                "high": float(mine["score_high"])})
    return pd.DataFrame.from_records(records, columns=["model", "task", "metric", "n", "lm_eval", "stderr", "gengap",
                                                       "low", "high"]) if records else None


@register_section("lm_eval", order=40)
def lm_eval_figures(ctx: ReportContext) -> Section | None:
    """lm_eval's printed figures next to gengap's, for an lm-eval import."""
    table = reported_table(ctx)
    if table is None:
        return None
    shown = pd.DataFrame({
        "Model": table["model"], "Task": table["task"], "Metric": table["metric"], "n": table["n"],
        "lm_eval": [f"{v:.4f}" + ("" if s is None or pd.isna(s) else f" ± {s:.4f}") for v, s in zip(table["lm_eval"], table["stderr"])],
        "gengap (95% bootstrap)": [f"{g:.4f} [{lo:.4f}, {hi:.4f}]" for g, lo, hi in zip(table["gengap"], table["low"], table["high"])],
    })
    html = html_fragment("<p>{{ intro }}</p>{{ table }}", intro=INTRO, table=table_html(shown))
    markdown = f"{INTRO}\n\n{table_markdown(shown)}\n"
    return Section("lm_eval's figures and gengap's", html, markdown, data=table.to_dict("records"))


def _signed(v: float, fmt: ScoreFormat) -> str:
    return "–" if pd.isna(v) else (f"{100 * v:+.1f}" if fmt.percent else f"{v:+.3f}")


def _p(v: float) -> str:
    return "–" if pd.isna(v) else ("<0.001" if v < 0.001 else f"{v:.3f}")


def model_difference_table(diffs: pd.DataFrame, fmt: ScoreFormat) -> pd.DataFrame:
    """The paired comparison as people read it: both scores, the difference (points) with its interval, the test."""
    unit = " pts" if fmt.percent else ""
    return pd.DataFrame({
        "Split": diffs["split"], "Model A": diffs["model_a"], "Model B": diffs["model_b"], "n (both)": diffs["n"],
        "A": [fmt.score(v) for v in diffs["score_a"]], "B": [fmt.score(v) for v in diffs["score_b"]],
        "A − B [95% CI]": [f"{_signed(d, fmt)}{unit} [{_signed(lo, fmt)}, {_signed(hi, fmt)}]"
                           for d, lo, hi in zip(diffs["difference"], diffs["low"], diffs["high"])],
        "Test": diffs["test"], "p adj. (Holm)": [_p(v) for v in diffs["p_adjusted"]],
    })


def group_table(groups: pd.DataFrame, fmt: ScoreFormat) -> pd.DataFrame:
    """Per model, split and group: n and the score with its interval, the worst group marked."""
    return pd.DataFrame({
        "Model": groups["model"], "Split": groups["split"], "Group": groups["group"], "n": groups["n"],
        "Score [95% CI]": [f"{fmt.score(v)} {fmt.interval(lo, hi)}" for v, lo, hi in
                           zip(groups["score"], groups["score_low"], groups["score_high"])],
        "Worst": ["◀ worst" if w else "" for w in groups["worst"]],
    })


@register_section("imported", order=41)
def imported_comparisons(ctx: ReportContext) -> Section | None:
    """For imported rows: every pair of models on the examples both answered (paired), and the groups asked for."""
    if not ctx.imported or ctx.primary_metric is None:
        return None
    metric = ctx.primary_metric
    fmt = ctx.score_format(metric)
    rows = ctx.clean_rows[ctx.clean_rows["metric"] == metric]
    html, md, data = [], [], {}
    diffs = model_differences(rows, metric=metric, n_resamples=min(ctx.n_resamples, 4000)) if rows["model"].nunique() > 1 else None
    if diffs is not None and len(diffs):
        intro = (f"Models compared on the same examples ({metric}): each pair's difference over the examples both "
                 "answered, with a paired interval and test (exact McNemar for 0/1 scores, sign-flip otherwise), "
                 "Holm-adjusted over the pairs. Paired, so it is narrower than the two scores' intervals suggest.")
        table = model_difference_table(diffs, fmt)
        html.append(html_fragment("<h3>Models compared</h3><p>{{ intro }}</p>{{ table }}", intro=intro, table=table_html(table)))
        md += ["### Models compared", md_escape(intro), table_markdown(table)]
        data["model_differences"] = diffs.to_dict("records")
    for field in ctx.group_fields:
        groups = group_scores(rows, field, metric=metric, n_resamples=min(ctx.n_resamples, 4000))
        intro = (f"Score per group of '{field}' ({metric}), with {int(ctx.confidence * 100)}% intervals; the worst "
                 "group of each model and split is marked.")
        table = group_table(groups, fmt)
        html.append(html_fragment("<h3>Groups by {{ field }}</h3><p>{{ intro }}</p>{{ table }}", field=field, intro=intro,
                                  table=table_html(table)))
        md += [f"### Groups by {md_escape(field)}", md_escape(intro), table_markdown(table)]
        data.setdefault("groups", {})[field] = groups.drop(columns=["worst_low", "worst_high"]).to_dict("records")
    if not html:
        return None
    return Section("Imported rows compared", Markup("").join(html), "\n\n".join(md), data=data)
