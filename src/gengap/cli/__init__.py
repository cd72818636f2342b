"""The ``gengap`` command. Each module registers its commands on the shared typer app.

User mistakes (a GengapError) print one paragraph naming the problem and the fix, and exit 1;
they never show a traceback.
"""

from __future__ import annotations

import sys

from gengap._errors import GengapError

# Command modules: importing one registers its commands.
from gengap.cli import _demo, _eval, _extract, _import, _leakage, _plan, _report, _split, _tasks, _view  # noqa: F401
from gengap.cli._app import app

__all__ = ["app", "main"]


def main() -> None:
    """Entry point of the ``gengap`` console script."""
    try:
        app()
    except GengapError as e:
        from rich.text import Text

        from gengap.cli._common import stderr

        # The message is plain text: paths, columns and exception texts may hold '[ray]' or '[/x]'.
        stderr.print(Text.assemble(("error:", "bold red"), " ", str(e)))
        sys.exit(1)
    except KeyboardInterrupt:
        _interrupted()
    except SystemExit as e:
        if e.code == 130:  # typer turns Ctrl-C into exit code 130 before it reaches us
            _interrupted()
        raise


def _interrupted() -> None:
    """After Ctrl-C: say what was kept and the command that carries on; exit 130 as shells expect."""
    from gengap.cli._common import stderr
    from gengap.cli._interrupt import interrupted_message

    stderr.print(interrupted_message(sys.argv[1:]))
    sys.exit(130)
