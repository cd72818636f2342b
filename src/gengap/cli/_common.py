"""Small helpers shared by command modules: printing the summary table, parsing key=value options."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from rich.console import Console

from gengap._errors import ConfigError
from gengap._specs import parse_value

if TYPE_CHECKING:  # pandas loads when a table is printed, not when a command starts
    import pandas as pd

__all__ = ["print_summary", "print_samples", "print_slices", "parse_options", "stderr", "stdout"]

#: Every message is plain text: a column, path or exception text like ``[label]`` or ``[/x]`` prints as it is.
stdout = Console(highlight=False, markup=False, soft_wrap=True, width=None if sys.stdout.isatty() else 110)
#: The same for stderr (errors, interruptions).
stderr = Console(stderr=True, highlight=False, markup=False, soft_wrap=True)




def print_summary(summary: pd.DataFrame, *, title: str = "Summary", console: Console | None = None) -> None:
    """Per split: score with its 95% interval, and the gap to the reference split with its interval."""
    from gengap._summary_table import summary_table

    (console or stdout).print(summary_table(summary, title=title))


def print_effects(rows: pd.DataFrame, *, console: Console | None = None) -> None:
    """The ranked perturbation effects of the first metric, when the run has perturbed inputs (else nothing)."""
    if "perturbation" not in rows or not (rows["perturbation"] != "none").any():
        return
    from gengap._summary_table import effects_table
    from gengap.analysis.stress import perturbation_effects

    metric = str(rows["metric"].iloc[0])
    effects = perturbation_effects(rows, metric=metric, n_resamples=4000)
    (console or stdout).print(effects_table(effects))






def print_samples(table: pd.DataFrame, *, console: Console | None = None) -> None:
    """One line per model, split and metric of a run with several samples per example (else nothing):
    pass@1, pass@k, maj@k, agreement and the share of the variance that is sampling noise."""
    import pandas as pd

    for r in table.itertuples():
        pct = lambda v: "–" if v is None or pd.isna(v) else f"{100 * float(v):.1f}%"
        (console or stdout).print(
            f"{r.model} on {r.split} ({r.metric}, {int(r.n_items):,} examples × {int(r.k)} samples): pass@1 "
            f"{pct(r.pass_at_1)}, pass@{int(r.k)} {pct(r.pass_at_k)}, maj@{int(r.k)} {pct(r.maj_at_k)}, agreement "
            f"{pct(r.agreement)}; sampling noise {100 * float(r.noise_share):.0f}% of the score's variance", markup=False)


def print_slices(store_path: Any, run_id: str) -> None:
    """The top slices the report's "Where it fails" found, read back from its results.json (plain text)."""
    import json
    from pathlib import Path

    import pandas as pd

    from gengap.analysis.slices import slice_lines

    path = Path(store_path).parent / "results.json"
    if not path.exists():
        return
    doc = json.loads(path.read_text(encoding="utf-8"))
    searches = (doc.get("sections") or {}).get("slices", {}).get("searches", [])
    table = pd.DataFrame(doc.get("slices") or [], columns=["model", "split", "metric", "description", "n", "score",
                                                            "score_low", "score_high", "gap", "gap_low", "gap_high",
                                                            "p_adjusted", "significant"])
    table.attrs["searches"] = searches
    percent = bool(len(table)) and bool(table["score"].between(0, 1).all())
    for line in slice_lines(table, percent=percent or table.empty):
        stdout.print(line, markup=False)


def parse_options(pairs: list[str] | None) -> dict[str, Any]:
    """``["by=input", "k=3"]`` -> ``{"by": "input", "k": 3}``."""
    out: dict[str, Any] = {}
    for pair in pairs or []:
        key, eq, value = pair.partition("=")
        if not eq or not key:
            raise ConfigError(f"Option '{pair}' must have the form key=value, e.g. --option by=input.")
        out[key.strip().replace("-", "_")] = parse_value(value.strip())
    return out
