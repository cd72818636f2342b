"""Report section "language model": how prompts were built, and what the model's answers cost.

It appears when the run built prompts (``prompt=``), scored choices by log-likelihood, or stored
token counts and latencies (HTTP endpoints). Figures, all from the stored predictions:

- the prompt: template, few-shot k, and where the shots came from (each split's train part; the
  ``all`` split tests every row and has no pool);
- per model: requests, prompt and completion tokens, summed request seconds, the run's wall seconds,
  completion tokens per second of wall time, and how many requests were in flight on average (request
  seconds over wall seconds: more than the server runs at once means requests waited in its queue,
  and each request's seconds include that wait); the slowest rows (outputs from the cache cost
  nothing and are left out).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from gengap.report._blocks import html_fragment
from gengap.report._format import md_escape
from gengap.report._sections import ReportContext, Section, register_section
from gengap.report._tables import table_html, table_markdown

__all__ = ["cost_section", "SLOWEST"]

#: How many of the slowest rows the section lists.
SLOWEST = 5


def _prompt_lines(ctx: ReportContext) -> list[str]:
    config = ctx.run.get("config", {})
    prompt, by = config.get("prompt"), config.get("choices_by", "generate")
    lines = []
    if prompt:
        pools = {s: int(info.get("diagnostics", info).get("n_train", 0)) for s, info in ctx.split_info.items()}
        where = ("drawn (seeded per example) from each split's train part, the few-shot pool: "
                 + ", ".join(f"{s} {n} rows" for s, n in pools.items())) if prompt.get("k") else "no few-shot examples"
        lines.append(f"Prompt template {prompt['template']!r}, k = {prompt.get('k', 0)} shots {where}.")
        lines.append(f"Perturbations change: {prompt.get('perturb', 'question').replace('+', ', ')}.")
    every = [s for s, info in ctx.split_info.items() if info.get("method") == "all"]
    if every:
        lines.append(f"Split(s) {', '.join(every)}: every row is tested and nothing is trained on.")
    if by != "generate":
        lines.append("Multiple choice by log-likelihood: the option with the highest "
                     + ("summed" if by == "loglik" else "per-token") + " log-probability after the prompt; "
                     "each option's log-likelihood is stored with the prediction.")
    return lines


def _costs(ctx: ReportContext) -> tuple[pd.DataFrame, pd.DataFrame]:
    preds = ctx.store.predictions(ctx.run_id)
    paid = preds[preds["latency_s"].notna()]
    if paid.empty:
        return pd.DataFrame(), pd.DataFrame()
    wall = _wall_seconds(ctx)
    totals = []
    for model, g in paid.groupby("model", sort=True):
        seconds = float(g["latency_s"].sum())
        completion = g["completion_tokens"].sum(min_count=1)
        totals.append({"Model": model, "Requests": len(g), "Cached rows": int((preds["model"] == model).sum() - len(g)),
                       "Prompt tokens": _int(g["prompt_tokens"].sum(min_count=1)), "Completion tokens": _int(completion),
                       "Request seconds": round(seconds, 1),
                       "Wall seconds (run)": "–" if wall is None else round(wall, 1),
                       "Completion tokens / wall second": "–" if pd.isna(completion) or not wall
                       else round(float(completion) / wall, 1),
                       "Requests in flight (mean)": "–" if not wall else round(seconds / wall, 1)})
    slow = paid.sort_values("latency_s", ascending=False).head(SLOWEST)
    slowest = pd.DataFrame({"Model": slow["model"], "Split": slow["split"], "Perturbation": slow["perturbation"],
                            "Example": slow["example_id"], "Seconds": slow["latency_s"].round(2),
                            "Prompt tokens": slow["prompt_tokens"].map(_int),
                            "Completion tokens": slow["completion_tokens"].map(_int)})
    return pd.DataFrame(totals), slowest


def _wall_seconds(ctx: ReportContext) -> float | None:
    """Seconds from the run's start to its last stored shard (None when unknown)."""
    try:
        found = ctx.store.sql("SELECT max(finished_at) AS last FROM shards WHERE run_id = ?", [ctx.run_id])["last"].iloc[0]
        start = pd.Timestamp(ctx.run.get("created_at"))
        seconds = (pd.Timestamp(found) - start).total_seconds()
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    return seconds if seconds > 0 and pd.notna(seconds) else None


def _int(value: Any) -> Any:
    return "–" if value is None or pd.isna(value) else int(value)


@register_section("language_model", order=60)
def cost_section(ctx: ReportContext) -> Section | None:
    lines = _prompt_lines(ctx)
    totals, slowest = _costs(ctx)
    if not lines and totals.empty:
        return None
    html = html_fragment("{% for line in lines %}<p>{{ line }}</p>{% endfor %}", lines=lines)
    md = "".join(md_escape(line) + "\n\n" for line in lines)
    if not totals.empty:
        note = ("Request seconds add up every request's time, waits in the server's queue included; wall seconds run "
                "from the run's start to its last stored shard (all models together). Requests in flight (mean): request "
                "seconds over wall seconds; more than the server serves at once means requests waited in its queue (a resumed run counts its pause too).")
        html += html_fragment("<h3>Cost</h3><p class=\"note\">{{ note }}</p>", note=note) + table_html(totals)
        md += f"*{md_escape(note)}*\n\n"
        html += html_fragment("<h3>Slowest rows</h3>") + table_html(slowest)
        md += "**Cost**\n\n" + table_markdown(totals) + "\n\n**Slowest rows**\n\n" + table_markdown(slowest) + "\n"
    data = {"prompt": lines, "totals": totals.to_dict("records"), "slowest": slowest.to_dict("records")}
    return Section("Language model: prompts and cost", html, md, data=data)
