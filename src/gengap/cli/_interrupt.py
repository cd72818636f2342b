"""What ``gengap`` says after Ctrl-C: what was kept, and the exact command that carries on.

Each shard of work is stored atomically as soon as it is done, so an interrupted ``eval``, ``run``,
``demo`` or ``resume`` loses at most the shard in flight. The message names the store and how many
per-example rows of the interrupted run it holds, and gives the command to finish the run.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from gengap._settings import DEFAULT_OUT

__all__ = ["interrupted_message", "out_folder"]

#: Commands whose work is kept in a results store, with their default output folder.
_STORE_COMMANDS = {"eval": DEFAULT_OUT, "demo": DEFAULT_OUT, "run": None, "resume": None}


def out_folder(argv: list[str]) -> Path | None:
    """The ``--out`` folder of a command line, the command's default, or None when it has neither.

    >>> out_folder(["eval", "--data", "d.jsonl", "--out", "rep"]), out_folder(["demo", "--out=x"])
    (PosixPath('rep'), PosixPath('x'))
    >>> out_folder(["demo", "--quick"]), out_folder(["resume", "rep/"])
    (PosixPath('gengap-report'), PosixPath('rep'))
    """
    command = argv[0] if argv else ""
    for i, arg in enumerate(argv):
        if arg == "--out" and i + 1 < len(argv):
            return Path(argv[i + 1])
        if arg.startswith("--out="):
            return Path(arg.split("=", 1)[1])
    if command == "resume":
        given = next((a for a in argv[1:] if not a.startswith("-")), None)
        if given is not None:
            path = Path(given)
            return path.parent if path.suffix == ".duckdb" else path
    if command == "run":
        return _run_file_out(argv)
    default = _STORE_COMMANDS.get(command)
    return Path(default) if default else None


def _run_file_out(argv: list[str]) -> Path | None:
    run_file = next((a for a in argv[1:] if not a.startswith("-")), None)
    if run_file is None:
        return None
    try:
        from gengap.config import load_run_file

        return Path(load_run_file(Path(run_file)).eval.out)
    except Exception:
        return None


def _kept_rows(store: Path) -> str:
    """'1,234 per-example rows of run r0001' from the interrupted run, or '' when the store cannot be read."""
    try:
        from gengap.store import Store

        with Store(store, read_only=True) as s:
            runs = s.runs()
            if runs.empty:
                return ""
            run_id = str(runs["run_id"].iloc[-1])
            n = int(s.sql("SELECT count(*) AS n FROM shards WHERE run_id = ?", [run_id])["n"].iloc[0])
            rows = int(s.sql("SELECT count(*) AS n FROM predictions WHERE run_id = ?", [run_id])["n"].iloc[0])
        return f"{rows:,} per-example rows ({n:,} finished shards) of run {run_id}"
    except Exception:
        return ""


def interrupted_message(argv: list[str]) -> str:
    """The lines printed after Ctrl-C for the command line ``argv`` (without the program name).

    >>> print(interrupted_message(["split", "d.jsonl", "--out", "s"]))
    Interrupted. Nothing was written: run the same command again.
    """
    command = argv[0] if argv else ""
    if command not in _STORE_COMMANDS:
        return "Interrupted. Nothing was written: run the same command again."
    out = out_folder(argv)
    if out is None:
        return ("Interrupted. Finished shards are kept in the results store of the run's --out folder; "
                "run the same command again to finish the run.")
    store = out / "gengap.duckdb"
    if not store.exists():
        return "Interrupted before any result was stored. Run the same command again to start over."
    kept = _kept_rows(store)
    what = f"Kept: {kept} in {store}." if kept else f"Finished shards are kept in {store}."
    again = "gengap " + " ".join(shlex.quote(a) for a in argv)
    resume = f"gengap resume {shlex.quote(str(out))}"
    return (f"Interrupted. {what}\nTo finish the run (only the missing shards are computed): {resume}\n"
            f"(or run the same command again: {again})")
