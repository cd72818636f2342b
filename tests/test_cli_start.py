"""The command line loads only the command that runs: ``gengap view`` starts without pandas, scipy or the
other commands' modules, and ``import gengap`` loads its names on first use; every command and name
still answers, and ``gengap --help`` lists every command in the same order."""

from __future__ import annotations

import subprocess
import sys

import typer.main

import gengap
from gengap.cli import COMMANDS, load_commands

HEAVY = ("numpy", "pandas", "scipy", "sklearn", "torch", "gengap.runner", "gengap.evaluation", "gengap.cli._eval", "gengap.cli._tasks")


def _loaded_after(code: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", f"import sys\n{code}\nprint(' '.join(sys.modules))"],
                         capture_output=True, text=True, check=True).stdout.split()
    return [m for m in HEAVY if m in out]


def _listed(help_text: str) -> list[str]:
    """The commands of ``gengap --help``, in the order it lists them."""
    import re

    box = help_text.split("Commands")[-1]
    return [m.group(1) for m in re.finditer(r"^│ (\S+) ", box, flags=re.M) if m.group(1) in COMMANDS]


def test_every_command_is_named_with_its_module():
    app = load_commands()
    names = [c.name for c in app.registered_commands] + [g.name for g in app.registered_groups]
    assert sorted(names) == sorted(COMMANDS)
    group = typer.main.get_command(app)
    assert set(group.commands) == set(COMMANDS)  # type: ignore[attr-defined]


def test_gengap_view_starts_without_the_heavy_modules():
    assert _loaded_after("from gengap.cli import _command_app; _command_app(['view', 'x'])\n"
                         "import gengap.view._load, gengap.view._serve, gengap.view.app, gengap.view.figures") == []
    assert _loaded_after("import gengap") == []
    assert "pandas" in _loaded_after("from gengap.cli import app")  # every command: what eval and the rest need


def test_import_gengap_resolves_every_name_and_subpackage_on_use():
    for name in gengap.__all__:
        assert getattr(gengap, name) is not None, name
    assert gengap.splits.RandomSplit is gengap.RandomSplit
    assert gengap.analysis.intervals.bootstrap_ci is gengap.bootstrap_ci
    assert set(gengap.__all__) <= set(dir(gengap))
    try:
        gengap.no_such_name  # noqa: B018
    except AttributeError as e:
        assert "no attribute 'no_such_name'" in str(e)
    else:
        raise AssertionError("an unknown name must raise AttributeError")


def test_one_command_loaded_still_runs_as_a_command_and_help_lists_every_command(cli, tmp_path):
    code, out, err = cli("view", str(tmp_path / "nothing"))  # only gengap view's module needed
    assert code == 1 and "does not exist" in err and "Traceback" not in err
    code, out, _ = cli("--help")
    fresh = subprocess.run([sys.executable, "-m", "gengap.cli", "--help"], capture_output=True, text=True).stdout
    assert code == 0 and _listed(out) == _listed(fresh) and sorted(_listed(out)) == sorted(COMMANDS)
    code, out, err = cli("veiw")
    assert code == 2 and "Did you mean 'view'?" in err


def test_the_console_script_answers_help_and_a_command():
    run = lambda *args: subprocess.run([sys.executable, "-m", "gengap.cli", *args], capture_output=True, text=True)
    top = run("--help")
    assert top.returncode == 0 and all(f" {name} " in top.stdout for name in COMMANDS)
    view = run("view", "--help")
    assert view.returncode == 0 and "--no-browser" in view.stdout
    tasks = run("tasks", "list")
    assert tasks.returncode == 0 and tasks.stdout.strip()
