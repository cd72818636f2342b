"""Report section "slices" ("Where it fails"): slices of the test rows that score below the rest.

It appears when the report is asked for it (``--find-slices``, ``find_slices=True``). One search per
model and split on the primary metric (:func:`gengap.analysis.slices.slices_from_rows`): every value
of each metadata column and of the derived ``input_length`` and ``target_length`` (binned), and
their pairs up to ``slice_order`` conditions, each tested one-sided against the rest with the
false discoveries controlled. Per slice: rows, score with its interval, the gap to the rest with
its interval, adjusted p; below, the failing rows behind each slice (text from data escaped).
The slices go to ``results.json``'s top-level ``slices``; the searches' figures to ``sections.slices``.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from markupsafe import Markup

from gengap.analysis.slices import CONTROLS, SliceSearch, slices_from_rows
from gengap.report._blocks import html_fragment
from gengap.report._format import ScoreFormat, md_escape, truncate
from gengap.report._sections import ReportContext, Section, register_section
from gengap.report._tables import table_html, table_markdown

__all__ = ["slices_section", "slice_records", "ROWS_SHOWN", "SLICES_SHOWN"]

#: Failing rows shown behind each slice, and slices shown with their rows.
ROWS_SHOWN, SLICES_SHOWN = 5, 10


def slice_records(searches: list[tuple[dict[str, str], SliceSearch]]) -> list[dict[str, Any]]:
    """The ``slices`` array of results.json: every reported slice with its model, split and metric,
    significant first, then by gap (most negative first)."""
    records = [({**key, **rec, "control": search.control}, rec["gap"] if search.higher_is_better else -rec["gap"])
               for key, search in searches for rec in search.table.to_dict(orient="records")]
    return [r for r, _ in sorted(records, key=lambda x: (not x[0]["significant"], x[1], x[0]["model"], x[0]["split"],
                                                         x[0]["description"]))]


def _rows_behind(group: pd.DataFrame, search: SliceSearch, description: str, fmt: ScoreFormat) -> pd.DataFrame:
    rows = group.iloc[search.members[description]]
    failing = rows.sort_values(["score", "example_id"], kind="stable").head(ROWS_SHOWN)
    return pd.DataFrame({"Example": failing["example_id"].astype(str).tolist(),
                         "Input": [truncate(x, 160) for x in failing["input"]],
                         "Target": [truncate(x, 80) for x in failing["target"]],
                         "Output": [truncate(x, 160) for x in failing["output"]],
                         "Score": [fmt.score(v) for v in failing["score"]]})


@register_section("slices", order=44)
def slices_section(ctx: ReportContext) -> Section | None:
    """Where it fails: the slices significantly below the rest, per model and split, with their rows."""
    metric = ctx.primary_metric
    if not ctx.find_slices or metric is None:
        return None
    fmt = ctx.score_format(metric)
    clean = ctx.clean_rows
    searches = slices_from_rows(clean, metric=metric, order=ctx.slice_order, cluster=ctx.cluster,
                                control=ctx.slice_control)
    html_parts: list[Markup] = []
    md_parts: list[str] = []
    controls = sorted({CONTROLS[s.control] for _, s in searches})
    intro = (f"Slices of each split's test rows that score significantly below the rest of that split, found "
             f"without being told where to look: every value of each metadata column, input and target length "
             f"and the similarity to training when stored (binned), and conjunctions of up to {ctx.slice_order} of them, each tested one-sided against the rest; "
             f"false discoveries controlled at 5% ({'; '.join(controls)}). A conjunction is shown in place of the "
             "parts it explains."
             + (f" {metric} is a figure of a whole set of rows: each slice's is computed on its own rows and tested by "
                "permutation against random sets of rows of the same size"
                + ("" if all(s.higher_is_better for _, s in searches) else " (higher is worse here)") + "."
                if any(s.test == "permutation" for _, s in searches) else "")
             + (f" Rows of one '{ctx.cluster}' are not independent: every test and interval is cluster-robust."
                if ctx.cluster else ""))
    html_parts.append(html_fragment("<p>{{ t }}</p>", t=intro))
    md_parts += [md_escape(intro), ""]
    shown_rows = 0
    for key, search in searches:
        title = f"{key['model']} on {key['split']}"
        sig = search.significant
        summary = (f"{search.n_rows:,} rows, {search.n_tested:,} slices tested over {len(search.columns)} column(s); "
                   f"{len(sig)} significant.")
        html_parts.append(html_fragment("<h3>{{ t }}</h3><p>{{ s }}</p>", t=title, s=summary))
        md_parts += [f"### {md_escape(title)}", "", md_escape(summary), ""]
        for note in search.notes:
            html_parts.append(html_fragment('<p class="notice">{{ n }}</p>', n=note))
            md_parts += [f"> {md_escape(note)}", ""]
        if search.table.empty:
            continue
        shown = pd.DataFrame({
            "Slice": search.table["description"], "n": search.table["n"].astype(int),
            "Score [95% CI]": [f"{fmt.score(r.score)} {fmt.interval(r.score_low, r.score_high)}" for r in search.table.itertuples()],
            "Gap to the rest [95% CI]": [f"{fmt.gap(r.gap)} {fmt.interval(r.gap_low, r.gap_high)}" for r in search.table.itertuples()],
            "Adjusted p": [f"{p:.2g}" for p in search.table["p_adjusted"]],
            "Significant": search.table["significant"].astype(bool),
            "In place of": ["; ".join(r) for r in search.table["replaces"]]})
        html_parts.append(table_html(shown))
        md_parts += [table_markdown(shown), ""]
        group = clean[(clean["metric"] == metric) & (clean["model"].astype(str) == key["model"])
                      & (clean["split"].astype(str) == key["split"])].reset_index(drop=True)
        for description in sig["description"]:
            if shown_rows >= SLICES_SHOWN:
                break
            shown_rows += 1
            behind = _rows_behind(group, search, description, fmt)
            caption = f"Rows behind '{description}' ({title}), lowest scores first"
            html_parts += [html_fragment("<h4>{{ c }}</h4>", c=caption), table_html(behind)]
            md_parts += [f"#### {md_escape(caption)}", "", table_markdown(behind), ""]
    data = {"metric": metric, "order": ctx.slice_order, "control": ctx.slice_control,
            "searches": [{**key, **{k: v for k, v in s.to_dict().items() if k != "slices"}} for key, s in searches],
            "slices": slice_records(searches)}
    return Section("Where it fails", Markup("").join(html_parts), "\n".join(md_parts).strip(), data=data)
