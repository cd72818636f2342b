"""The ``gengap`` command. Each module registers its commands on the shared typer app.

A command runs with only its own module loaded (``gengap view`` does not wait for the modules of
``gengap eval``, nor for what they import); ``gengap --help``, a mistyped command, and :data:`app`
load every command module.

User mistakes (a GengapError) print one paragraph naming the problem and the fix, and exit 1;
they never show a traceback.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

from gengap._errors import GengapError

if TYPE_CHECKING:  # pragma: no cover - for type checkers
    import typer

    app: typer.Typer

__all__ = ["COMMANDS", "app", "load_commands", "main"]

#: The module (in ``gengap.cli``) that registers each command, in the order ``gengap --help`` lists them.
COMMANDS = {
    "demo": "_demo", "eval": "_eval", "run": "_eval", "resume": "_eval", "extract": "_extract", "report": "_report",
    "import": "_import", "leakage": "_leakage", "plan": "_plan", "split": "_split", "methods": "_split",
    "tasks": "_tasks", "view": "_view",
}


def load_commands(names: list[str] | None = None) -> typer.Typer:
    """The typer app with the commands ``names`` registered (every command when None).

    >>> sorted(c.name for c in load_commands(["view"]).registered_commands if c.name == "view")
    ['view']
    """
    modules = COMMANDS.values() if names is None else [COMMANDS[n] for n in names]
    for module in dict.fromkeys(modules):
        importlib.import_module(f"gengap.cli.{module}")
    from gengap.cli._app import app

    if names is None:  # listed in the order of COMMANDS, whichever command loaded first
        rank = {name: k for k, name in enumerate(COMMANDS)}
        app.registered_commands.sort(key=lambda c: rank.get(c.name or "", len(rank)))
        app.registered_groups.sort(key=lambda g: rank.get(g.name or "", len(rank)))
    return app


def __getattr__(name: str) -> Any:
    if name == "app":  # every command: for tests (typer's CliRunner) and for scripts that embed the command line
        return load_commands()
    raise AttributeError(f"module 'gengap.cli' has no attribute '{name}'")


def _command_app(argv: list[str]) -> typer.Typer:
    """The app for this command line: only the command's module when the first word names a command."""
    first = argv[0] if argv else None
    return load_commands([first] if first in COMMANDS else None)


def main() -> None:
    """Entry point of the ``gengap`` console script."""
    try:
        _command_app(sys.argv[1:])()
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
