"""The ``gengap`` command. Each module registers its commands on the shared typer app.

User mistakes (a GengapError) print one paragraph naming the problem and the fix, and exit 1;
they never show a traceback.
"""

from __future__ import annotations

import sys

from gengap._errors import GengapError

# Command modules: importing one registers its commands.
from gengap.cli import _demo, _eval, _extract, _import, _report, _split, _tasks  # noqa: F401
from gengap.cli._app import app

__all__ = ["app", "main"]


def main() -> None:
    """Entry point of the ``gengap`` console script."""
    try:
        app()
    except GengapError as e:
        from rich.console import Console

        Console(stderr=True, highlight=False, soft_wrap=True).print(f"[bold red]error:[/] {e}", markup=True)
        sys.exit(1)
    except KeyboardInterrupt:
        print("interrupted; finished shards are kept in the store", file=sys.stderr)
        sys.exit(130)
