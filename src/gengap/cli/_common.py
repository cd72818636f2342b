"""Small helpers shared by command modules: printing the summary table, parsing key=value options."""

from __future__ import annotations

from typing import Any

import pandas as pd
from rich.console import Console
from rich.table import Table

from gengap._errors import ConfigError
from gengap.splits._registry import _coerce

__all__ = ["print_summary", "parse_options", "stdout"]

stdout = Console(highlight=False)


def _pct(x: Any) -> str:
    return "-" if x is None or pd.isna(x) else f"{100 * x:.1f}"


def print_summary(summary: pd.DataFrame, *, title: str = "Summary", console: Console | None = None) -> None:
    """Per split: score with its 95% interval, and the gap to the i.i.d. split with its interval."""
    table = Table(title=title, title_justify="left")
    for col, justify in (("model", "left"), ("split", "left"), ("n", "right"), ("metric", "left"),
                         ("score % [95% CI]", "right"), ("gap to i.i.d. (pts) [95% CI]", "right")):
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    for r in summary.itertuples():
        gap = "-" if r.gap is None or pd.isna(r.gap) or r.split == r.reference else \
            f"{_pct(r.gap)} [{_pct(r.gap_low)}, {_pct(r.gap_high)}]"
        table.add_row(str(r.model), str(r.split), f"{r.n:,}", str(r.metric),
                      f"{_pct(r.score)} [{_pct(r.score_low)}, {_pct(r.score_high)}]",
                      "reference" if r.split == r.reference else gap)
    (console or stdout).print(table)


def parse_options(pairs: list[str] | None) -> dict[str, Any]:
    """``["by=input", "k=3"]`` -> ``{"by": "input", "k": 3}``."""
    out: dict[str, Any] = {}
    for pair in pairs or []:
        key, eq, value = pair.partition("=")
        if not eq or not key:
            raise ConfigError(f"Option '{pair}' must have the form key=value, e.g. --option by=input.")
        out[key.strip().replace("-", "_")] = _coerce(value.strip())
    return out
