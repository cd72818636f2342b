"""The summary table as people read it: the CLI prints it, and notebooks show the same table.

:func:`summary_table` turns :meth:`gengap.Evaluation.summary` into a rich table (score with its
95% interval, gap to the reference split with its interval). :class:`Summary` is that DataFrame
with a notebook face: ``_repr_html_`` and ``__rich__`` show the table instead of a truncated frame.
"""

from __future__ import annotations

import io
from typing import Any

import pandas as pd
from rich.console import Console
from rich.table import Table

from gengap.metrics import is_share

__all__ = ["Summary", "effects_table", "gap_header", "summary_methods", "summary_table"]


#: The score column's heading: the score in percent, then its 95% interval.
SCORE_COLUMN = "score %\n[95% CI]"


def _pct(x: Any) -> str:
    return "-" if x is None or pd.isna(x) else f"{100 * x:.1f}"


def _ci(low: Any, high: Any) -> str:
    """``[0.0, 0.05]``: a bound near 0% or 100% keeps the decimals that tell it apart from them."""
    from gengap.report._format import bound

    if low is None or high is None or pd.isna(low) or pd.isna(high):
        return "-"
    return f"[{bound(low)}, {bound(high)}]"


def _p(x: Any) -> str:
    if x is None or pd.isna(x):
        return ""
    return "<0.001" if x < 0.001 else f"{x:.3f}"


def summary_methods(summary: pd.DataFrame) -> str:
    """One plain sentence naming the intervals, tests and adjustment behind a summary table.

    >>> summary_methods(pd.DataFrame({"score_method": ["clopper-pearson"], "gap_method": ["mover-paired"],
    ...     "gap_test": ["mcnemar-exact"], "adjustment": ["holm"], "warning": [""]}))
    'Score CI: clopper-pearson. Gap CI: mover-paired. Test: mcnemar-exact; p adj.: holm over all gaps of a model.'
    """
    if summary.empty or "score_method" not in summary:
        return ""

    def names(col: str) -> str:
        return ", ".join(dict.fromkeys(str(v) for v in summary[col].dropna() if v)) if col in summary else ""

    parts = [f"Score CI: {names('score_method')}."]
    if names("gap_method"):
        parts.append(f"Gap CI: {names('gap_method')}.")
    if names("gap_test"):
        parts.append(f"Test: {names('gap_test')}; p adj.: {names('adjustment')} over all gaps of a model.")
    if "n_clusters" in summary and summary["n_clusters"].notna().any():
        parts.append(f"Rows clustered by '{names('cluster')}': intervals and tests count clusters; n rows are worth about "
                     "n / design effect independent ones.")
    if "warning" in summary and (summary["warning"].fillna("") != "").any():
        parts.append("* too few examples to tell, or undefined (" + "; ".join(dict.fromkeys(w for w in summary["warning"] if w)) + ").")
    return " ".join(parts)


def gap_header(summary: pd.DataFrame) -> str:
    """The gap column's heading, naming the reference split: 'gap to random', 'gap to mcd:seed=0'.

    >>> gap_header(pd.DataFrame({"reference": ["random", "random"]}))
    'gap to random'
    """
    refs = summary["reference"].dropna().unique() if "reference" in summary else []
    return f"gap to {refs[0]}" if len(refs) == 1 else "gap to reference"


def _plain(x: Any) -> str:
    """A figure that is not a share (BLEU, MCC, log loss), as it is."""
    return "-" if x is None or pd.isna(x) else f"{x:.3f}" if abs(x) < 10 else f"{x:.1f}"


def _ci_plain(low: Any, high: Any) -> str:
    if low is None or high is None or pd.isna(low) or pd.isna(high):
        return "-"
    return f"[{_plain(low)}, {_plain(high)}]"


def _with_ci(value: str, low: Any, high: Any, ci_text: Any = _ci) -> str:
    """``95.6 [95.0, 96.2]``: a figure and its interval in one cell (the figure alone when there is none)."""
    ci = ci_text(low, high)
    return value if ci == "-" or value == "-" else f"{value} {ci}"


def summary_table(summary: pd.DataFrame, *, title: str = "Summary") -> Table:
    """Per split: score with its 95% interval, and the gap to the reference split with its interval.

    Each figure shares a cell with its interval, the model column appears only with several models and
    the metric column only with several metrics, and the methods behind the intervals and tests are
    named in the caption, so the demo's table fits an 80-column terminal. Every cell is plain text
    (never rich markup).

    >>> import io
    >>> from rich.console import Console
    >>> row = dict(model="m", split="length", reference="random", n=3920, metric="em", score=0.124,
    ...            score_low=0.114, score_high=0.135, gap=0.832, gap_low=0.82, gap_high=0.844)
    >>> console = Console(file=io.StringIO(), width=80)
    >>> console.print(summary_table(pd.DataFrame([row])))
    >>> print(console.file.getvalue().splitlines()[5])
    │ length │ 3,920 │ 12.4 [11.4, 13.5] │  83.2 [82.0, 84.4] │
    """
    many_models = summary["model"].nunique() > 1
    many_metrics = summary["metric"].nunique() > 1
    metric = "" if many_metrics or summary.empty else f" ({summary['metric'].iloc[0]})"
    has_extraction = "unextracted" in summary and summary["unextracted"].notna().any()
    gap_col = f"{gap_header(summary)}, pts\n[95% CI]"
    table = Table(title=f"{title}{metric}", title_justify="left")
    has_p = "gap_p_adjusted" in summary and summary["gap_p_adjusted"].notna().any()
    clustered = "n_clusters" in summary and summary["n_clusters"].notna().any()
    clusters_col = f"{summary['cluster'].dropna().iloc[0]}s\n(design effect)" if clustered else ""
    columns = (["model"] if many_models else []) + ["split", "n"] + ([clusters_col] if clustered else []) + \
        (["metric"] if many_metrics else []) + \
        [SCORE_COLUMN, gap_col] + (["p adj."] if has_p else []) + (["unextracted"] if has_extraction else [])
    for col in columns:
        table.add_column(col, justify="left" if col in ("model", "split", "metric") else "right",
                         overflow="fold" if col == "split" else "ellipsis")
    for r in summary.itertuples():
        is_ref = r.split == r.reference
        missing_gap = r.gap is None or pd.isna(r.gap)
        fmt, ci = (_pct, _ci) if is_share(str(r.metric)) else (_plain, _ci_plain)
        score = fmt(r.score)
        if score == "-" and bool(getattr(r, "warning", None)):
            score = "undefined"  # a corpus metric that cannot be computed here; the caption says why
        cells = {
            "model": str(r.model), "split": str(r.split), "n": f"{r.n:,}", "metric": str(r.metric),
            SCORE_COLUMN: _with_ci(score, r.score_low, r.score_high, ci),
            gap_col: "reference" if is_ref else ("-" if missing_gap else _with_ci(fmt(r.gap), r.gap_low, r.gap_high, ci)),
            "unextracted": "" if pd.isna(getattr(r, "unextracted", None)) else f"{_pct(r.unextracted)}%",
            "p adj.": _p(getattr(r, "gap_p_adjusted", None)),
        }
        if clustered:
            n_clusters: Any = getattr(r, "n_clusters", None)
            cells[clusters_col] = "-" if pd.isna(n_clusters) else f"{int(n_clusters):,} ({float(r.design_effect):.1f})"
        if getattr(r, "warning", ""):
            cells["n"] += "*"
        table.add_row(*(cells[c] for c in columns))
    table.caption = summary_methods(summary)
    table.caption_justify = "left"
    return table


def effects_table(effects: pd.DataFrame, *, limit: int = 10) -> Table:
    """The stress test as the terminal shows it: the most harmful perturbations first, each effect
    (perturbed − clean, in points for scores in [0, 1]) with its paired interval and adjusted p-value.

    ``effects`` is :func:`gengap.analysis.stress.perturbation_effects` for one metric; at most
    ``limit`` rows are shown (the caption says how many more the report holds).

    >>> import io
    >>> from rich.console import Console
    >>> row = dict(rank=1, model="m", split="random", metric="em", perturbation="typos", n=200, clean=0.9,
    ...            perturbed=0.8, difference=-0.1, low=-0.14, high=-0.06, p_adjusted=0.0001, flip_rate=0.12,
    ...            adjustment="holm")
    >>> console = Console(file=io.StringIO(), width=100)
    >>> console.print(effects_table(pd.DataFrame([row])))
    >>> print(console.file.getvalue().splitlines()[5])
    │ 1 │ random │ typos        │ 200 │  90.0 │      80.0 │ -10.0 [-14.0, -6.0] │ <0.001 │ 12.0% │
    """
    percent = bool(effects[["clean", "perturbed"]].stack().between(0, 1).all()) if len(effects) else True
    many_models = effects["model"].nunique() > 1
    metric = "" if effects.empty else f" ({effects['metric'].iloc[0]})"
    table = Table(title=f"Stress test{metric}: most harmful first", title_justify="left")
    effect_col = "effect, pts\n[95% CI]" if percent else "effect\n[95% CI]"
    columns = ["#", *(["model"] if many_models else []), "split", "perturbation", "n", "clean", "perturbed", effect_col,
               "p adj.", "flips"]
    for col in columns:
        table.add_column(col, justify="left" if col in ("model", "split", "perturbation") else "right",
                         overflow="fold" if col in ("split", "perturbation") else "ellipsis")

    def num(v: Any) -> str:
        return "-" if v is None or pd.isna(v) else (f"{100 * v:.1f}" if percent else f"{v:.3f}")

    def signed(v: Any) -> str:
        return "-" if v is None or pd.isna(v) else (f"{100 * v:+.1f}" if percent else f"{v:+.3f}")

    for r in effects.head(limit).itertuples():
        cells = {"#": str(r.rank), "model": str(r.model), "split": str(r.split), "perturbation": str(r.perturbation),
                 "n": f"{r.n:,}", "clean": num(r.clean), "perturbed": num(r.perturbed),
                 effect_col: f"{signed(r.difference)} [{signed(r.low)}, {signed(r.high)}]",
                 "p adj.": _p(r.p_adjusted), "flips": "-" if pd.isna(r.flip_rate) else f"{100 * r.flip_rate:.1f}%"}
        table.add_row(*(cells[c] for c in columns))
    more = len(effects) - min(limit, len(effects))
    adjust = str(effects["adjustment"].iloc[0]) if len(effects) and "adjustment" in effects else "holm"
    table.caption = (f"Effect: perturbed − clean on the same examples, paired interval; p adj.: {adjust} over the "
                     f"model's effects; flips: answers changed.{f' {more:,} more in the report.' if more else ''}")
    table.caption_justify = "left"
    return table


class Summary(pd.DataFrame):
    """The summary DataFrame (:data:`gengap.analysis.gaps.SUMMARY_COLUMNS`) that a notebook shows as the CLI's table.

    Everything a DataFrame does works as usual and returns plain DataFrames; only the display
    differs: ``print(summary)``, ``display(summary)`` and ``rich.print(summary)`` show the table
    ``gengap eval`` prints (``summary.to_string()`` or ``pd.DataFrame(summary)`` show every column).

    >>> row = dict(model="m", split="length", reference="random", n=3920, metric="em", score=0.124,
    ...            score_low=0.114, score_high=0.135, gap=0.832, gap_low=0.82, gap_high=0.844)
    >>> s = Summary(pd.DataFrame([row]))
    >>> "12.4 [11.4, 13.5]" in str(s), float(s["score"].iloc[0])
    (True, 0.124)
    """

    _metadata = ["title"]
    title: str = "Summary"

    @property
    def _constructor(self) -> type[pd.DataFrame]:
        return pd.DataFrame

    def __rich__(self) -> Table:
        return summary_table(pd.DataFrame(self), title=self.title)

    def __repr__(self) -> str:
        import shutil

        width = min(max(shutil.get_terminal_size((100, 24)).columns, 80), 160)
        console = Console(file=io.StringIO(), width=width, markup=False, highlight=False, color_system=None)
        console.print(self.__rich__())
        return console.file.getvalue().rstrip("\n") + (  # type: ignore[attr-defined]
            "\n(a DataFrame: .to_string() or pd.DataFrame(...) shows every column)")

    __str__ = __repr__

    def _repr_html_(self) -> str:
        console = Console(file=io.StringIO(), record=True, width=110, markup=False, highlight=False)
        console.print(self.__rich__())
        return console.export_html(inline_styles=True, code_format=(
            '<pre style="font-family: ui-monospace, Menlo, Consolas, monospace; line-height: 1.25">{code}</pre>'))
