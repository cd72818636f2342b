"""The report's section for runs imported from lm-evaluation-harness: lm_eval's own printed figures
(value and standard error) next to gengap's score and bootstrap interval from the same rows."""

from __future__ import annotations

import pandas as pd

from gengap.report._blocks import html_fragment
from gengap.report._sections import ReportContext, Section, register_section
from gengap.report._tables import table_html, table_markdown

__all__ = ["lm_eval_figures", "reported_table"]

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
