"""The typer application every command module adds its commands to."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="gengap",
    help=(
        "Where does your model stop generalizing, and how sure are we?\n\n"
        "Build splits that test each kind of generalization (i.i.d., length, held-out combinations, ...), "
        "run a model over them, score with bootstrap intervals, and write a report."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)


@app.callback()
def _group() -> None:
    # A group even when one command's module is loaded (gengap.cli loads only the command that runs):
    # typer would otherwise make a lone command the whole program, and "gengap view OUT" would read
    # "view" as OUT.
    pass
