"""Report section "leakage": is the test set clean?

It appears once ``gengap leakage OUT`` has audited the run (the audit lives in the store's
``leakage`` and ``leaks`` tables). It shows how the copies were looked for, per split how many test
examples copy a training example (exact, normalized, near) or share an n-gram with a corpus, the
score on the clean and on the flagged parts with their intervals and the test of their difference
(:func:`gengap.analysis.leakage.leakage_scores`), and the closest pairs side by side. Figures:
``sections.leakage`` of ``results.json``.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from markupsafe import Markup

from gengap.analysis.leakage import KINDS, closest_pairs, leakage_scores
from gengap.report._blocks import html_fragment
from gengap.report._format import md_escape, truncate
from gengap.report._sections import ReportContext, Section, register_section
from gengap.report._tables import table_html, table_markdown

__all__ = ["leakage_section"]

#: Closest pairs shown per split and kind.
N_PAIRS = 5


def _value(v: Any, percent: bool) -> str:
    if v is None or pd.isna(v):
        return "–"
    return f"{100 * v:.1f}%" if percent else f"{v:.3g}"


def _scores_table(scores: pd.DataFrame, ctx: ReportContext) -> pd.DataFrame:
    shown = []
    for r in scores.itertuples(index=False):
        pct = ctx.score_format(r.metric).percent
        shown.append({"Model": r.model, "Split": r.split, "Metric": r.metric,
                      "Clean [95% CI]": f"{_value(r.clean, pct)} [{_value(r.clean_low, pct)}, {_value(r.clean_high, pct)}]",
                      "n clean": r.n_clean,
                      "Flagged [95% CI]": f"{_value(r.flagged, pct)} [{_value(r.flagged_low, pct)}, {_value(r.flagged_high, pct)}]",
                      "n flagged": r.n_flagged,
                      "Clean − flagged [95% CI]": "–" if pd.isna(r.difference) else
                      f"{_value(r.difference, pct)} [{_value(r.difference_low, pct)}, {_value(r.difference_high, pct)}]",
                      "p": "–" if pd.isna(r.p_value) else f"{r.p_value:.3g} ({r.test})"})
    return pd.DataFrame(shown)


def _split_table(table: list[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame([{"Split": r["split"], "Train": r["n_train"], "Test": r["n_test"],
                          **{k.capitalize(): r.get(k, 0) for k in KINDS}, "Flagged": r["flagged"],
                          "Share": f"{100 * r['share']:.1f}%"} for r in table])


@register_section("leakage", order=42)
def leakage_section(ctx: ReportContext) -> Section | None:
    """The run's leakage audit, when it has one."""
    reader = getattr(ctx.store, "leakage", None)
    if reader is None:
        return None
    info, leaks = reader(ctx.run_id)
    if info is None:
        return None
    settings = info.get("settings", {})
    how = (f"Each test example's {settings.get('on', 'input')} was compared with its split's training examples: exact "
           f"copies; normalized copies ({settings.get('normalization', '')}); near copies (Jaccard similarity of word "
           f"{settings.get('shingle', 2)}-gram sets at least {settings.get('threshold')}, MinHash LSH candidates "
           "verified on the exact sets)")
    if settings.get("corpus"):
        how += f"; and {settings.get('ngram')}-gram overlap with {', '.join(map(str, settings['corpus']))}"
    how += ". An example flagged twice counts under its strictest kind."
    scores = leakage_scores(ctx.rows, leaks, confidence=ctx.confidence) if len(ctx.rows) else pd.DataFrame()
    pairs = closest_pairs(leaks, N_PAIRS)
    texts = {}
    if len(ctx.clean_rows):
        first = ctx.clean_rows.drop_duplicates(["split", "example_id"])
        texts = {(s, str(i)): t for s, i, t in zip(first["split"], first["example_id"], first["input"])}
    pair_table = pd.DataFrame([{"Split": p.split, "Kind": p.kind, "Similarity": float(p.similarity),
                                "Test example": f"{p.id}: {truncate(texts.get((p.split, str(p.id)), ''), 300)}",
                                "Training example": f"{p.match_id}: {truncate(p.match_text or '', 300)}"}
                               for p in pairs.itertuples(index=False)])
    split_table = _split_table(info.get("splits", []))
    html = [html_fragment("<p>{{ how }}</p>", how=how), table_html(split_table)]
    md = [md_escape(how), "", table_markdown(split_table), ""]
    for note in info.get("notes", []):
        html.append(html_fragment('<p class="notice">{{ note }}</p>', note=note))
        md += [f"> {md_escape(note)}", ""]
    if len(scores):
        shown = _scores_table(scores, ctx)
        intro = ("Score on the clean and on the flagged test examples. A flagged part that scores higher says the "
                 "split's score is inflated by copies; the clean score is the one to trust.")
        html += [html_fragment("<h3>Score on the clean and flagged parts</h3><p>{{ t }}</p>", t=intro), table_html(shown)]
        md += ["### Score on the clean and flagged parts", "", md_escape(intro), "", table_markdown(shown), ""]
    if len(pair_table):
        html += [html_fragment("<h3>Closest pairs</h3>"), table_html(pair_table, css_class="texts")]
        md += ["### Closest pairs", "", table_markdown(pair_table), ""]
    data = {**info, "scores": scores.to_dict(orient="records") if len(scores) else [],
            "closest_pairs": pairs.drop(columns=["text"], errors="ignore").to_dict(orient="records")}
    return Section("Leakage", Markup("").join(html), "\n".join(md).strip(), data=data)
