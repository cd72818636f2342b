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

__all__ = ["Summary", "gap_header", "summary_table"]


def _pct(x: Any) -> str:
    return "-" if x is None or pd.isna(x) else f"{100 * x:.1f}"


def gap_header(summary: pd.DataFrame) -> str:
    """The gap column's heading, naming the reference split: 'gap to random', 'gap to mcd:seed=0'.

    >>> gap_header(pd.DataFrame({"reference": ["random", "random"]}))
    'gap to random'
    """
    refs = summary["reference"].dropna().unique() if "reference" in summary else []
    return f"gap to {refs[0]}" if len(refs) == 1 else "gap to reference"


def summary_table(summary: pd.DataFrame, *, title: str = "Summary") -> Table:
    """Per split: score with its 95% interval, and the gap to the reference split with its interval.

    The model column appears only with several models and the metric column only with several
    metrics, so the table fits an 80-column terminal. Every cell is plain text (never rich markup).
    """
    many_models = summary["model"].nunique() > 1
    many_metrics = summary["metric"].nunique() > 1
    metric = "" if many_metrics or summary.empty else f" ({summary['metric'].iloc[0]})"
    has_extraction = "unextracted" in summary and summary["unextracted"].notna().any()
    gap_col = gap_header(summary)
    table = Table(title=f"{title}{metric}", title_justify="left")
    columns = (["model"] if many_models else []) + ["split", "n"] + (["metric"] if many_metrics else []) + \
        ["score %", "95% CI", gap_col, "95% CI "] + (["unextracted"] if has_extraction else [])
    for col in columns:
        table.add_column(col, justify="left" if col in ("model", "split", "metric") else "right",
                         overflow="fold" if col == "split" else "ellipsis")
    for r in summary.itertuples():
        is_ref = r.split == r.reference
        missing_gap = r.gap is None or pd.isna(r.gap)
        cells = {
            "model": str(r.model), "split": str(r.split), "n": f"{r.n:,}", "metric": str(r.metric),
            "score %": _pct(r.score), "95% CI": f"[{_pct(r.score_low)}, {_pct(r.score_high)}]",
            gap_col: "reference" if is_ref else ("-" if missing_gap else f"{_pct(r.gap)} pts"),
            "95% CI ": "" if is_ref or missing_gap else f"[{_pct(r.gap_low)}, {_pct(r.gap_high)}]",
            "unextracted": "" if pd.isna(getattr(r, "unextracted", None)) else f"{_pct(r.unextracted)}%",
        }
        table.add_row(*(cells[c] for c in columns))
    return table


class Summary(pd.DataFrame):
    """The summary DataFrame (:data:`gengap.summary.SUMMARY_COLUMNS`) that a notebook shows as the CLI's table.

    Everything a DataFrame does works as usual and returns plain DataFrames; only the display
    differs: ``display(summary)`` and ``rich.print(summary)`` show the table ``gengap eval`` prints.
    """

    _metadata = ["title"]
    title: str = "Summary"

    @property
    def _constructor(self) -> type[pd.DataFrame]:
        return pd.DataFrame

    def __rich__(self) -> Table:
        return summary_table(pd.DataFrame(self), title=self.title)

    def _repr_html_(self) -> str:
        console = Console(file=io.StringIO(), record=True, width=110, markup=False, highlight=False)
        console.print(self.__rich__())
        return console.export_html(inline_styles=True, code_format=(
            '<pre style="font-family: ui-monospace, Menlo, Consolas, monospace; line-height: 1.25">{code}</pre>'))
