"""``gengap demo``: the whole pipeline on built-in data, with no network and nothing to prepare."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from gengap._settings import DEFAULT_OUT
from gengap.cli._app import app
from gengap.cli._common import print_summary, stdout


@app.command("demo")
def demo_command(
    name: Annotated[str, typer.Argument(help="Which demo: 'scan' (splits and a trained baseline) or 'grokking' (training-time monitoring).")] = "scan",
    out: Annotated[Path, typer.Option(help="Output folder: index.html, report.md, results.json and the gengap.duckdb store.")] = Path(DEFAULT_OUT),
    quick: Annotated[bool, typer.Option("--quick", help="A smaller network and fewer epochs (about half the time); the figures are lower.")] = False,
    seed: Annotated[int, typer.Option(help="Seed of the random split and of training.")] = 0,
    epochs: Annotated[Optional[int], typer.Option(help="Training epochs per split (overrides the default).", hidden=True)] = None,
    limit: Annotated[Optional[int], typer.Option(help="Use only this many SCAN commands (smoke tests).", hidden=True)] = None,
    threads: Annotated[Optional[int], typer.Option(min=1, help="CPU cores to train on (the SCAN demo): that many networks train side by side, one torch thread each [default: the cores gengap may use]. The figures do not depend on it.")] = None,
    progress: Annotated[bool, typer.Option(help="Show progress bars.")] = True,
) -> None:
    """Run gengap end to end on built-in data and write a report (offline; a few minutes on a CPU).

    'gengap demo' generates all 20,910 SCAN commands, splits them three ways (random, length, held-out
    primitive 'jump'), trains a small GRU-with-attention baseline on each train part, and prints the
    exact-match accuracy per split with 95% intervals and the gap to the random split.
    """
    from gengap.demo import run_demo

    options = {} if name != "scan" else {"epochs": epochs, "limit": limit, "threads": threads,
                                          "progress": None if progress else False}
    result = run_demo(name, out=out, quick=quick, seed=seed, **options)
    print_demo_result(result, limit=limit)


def print_demo_result(result: Any, *, limit: int | None = None) -> None:
    """The summary table, the published figures and where the report is (also after ``gengap resume``)."""
    from gengap.tasks.scan import PUBLISHED

    if result.evaluation is not None:
        summary = result.evaluation.summary()
        print_summary(summary, title=f"SCAN demo: {summary['model'].iloc[0]} trained on each split's train part")
        published = ", ".join(f"{split} {100 * acc:.1f}%" for split, acc in PUBLISHED.items())
        stdout.print(f"Published for comparison (Lake & Baroni 2018): {published}.")
        if limit is not None:
            stdout.print(f"Only about {limit} of the 20,910 commands were used (--limit): these figures are a smoke test.")
    if result.name == "grokking" and result.figures:
        stdout.print(grokking_summary(result.figures, quick=bool(result.settings.get("quick"))), soft_wrap=True)
    stdout.print(f"Wall time: {result.seconds:.1f} s. Report: {result.out / 'index.html'}  (also report.md, results.json, gengap.duckdb)")


def grokking_summary(figures: dict[str, Any], *, quick: bool) -> str:
    """The grokking demo's outcome in a sentence or two (the report's headline says the same).

    >>> print(grokking_summary({"memorized_at_step": 75, "grokked_at_step": None, "steps": 600,
    ...                         "final_heldout_accuracy": 0.01}, quick=True))
    Memorized at step 75; held-out accuracy 1.0% at step 600. --quick stops before grokking: run 'gengap demo grokking' to see held-out accuracy jump.
    """
    held = figures.get("final_heldout_accuracy")
    at = f"held-out accuracy {100 * held:.1f}% at step {figures.get('steps', 0):,}" if held is not None else ""
    if figures.get("grokked_at_step") is not None:
        return f"Grokked at step {figures['grokked_at_step']:,} (memorized at step {figures.get('memorized_at_step')}); {at}."
    text = (f"Memorized at step {figures['memorized_at_step']:,}; " if figures.get("memorized_at_step") is not None
            else "No memorization flagged; ") + f"{at}."
    if quick:
        text += " --quick stops before grokking: run 'gengap demo grokking' to see held-out accuracy jump."
    return text
