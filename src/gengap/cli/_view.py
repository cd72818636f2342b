"""``gengap view``: a local web viewer of every per-example row of one or more runs, with A/B between them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from gengap.cli._app import app
from gengap.cli._common import stderr, stdout


@app.command("view")
def view_command(
    paths: Annotated[list[Path], typer.Argument(help="The --out folder of a gengap run (or its gengap.duckdb); a second one to compare (A/B).")],
    port: Annotated[int, typer.Option(help="Port to serve on.")] = 8765,
    host: Annotated[str, typer.Option(help="Address to serve on (default: this machine only).")] = "127.0.0.1",
    no_browser: Annotated[bool, typer.Option("--no-browser", help="Do not open a browser; print the address only.")] = False,
    run: Annotated[Optional[list[str]], typer.Option("--run", help="Run id per store, in order (default: each store's latest finished run).")] = None,
) -> None:
    """See every row: filter, search and page through per-example results, open one row, compare two runs.

    Reads the stores once, read-only (a store a running evaluation is writing is read as it was committed), and serves on 127.0.0.1. The JSON API (GET /api/rows?split=...) is described in docs/viewer-api.md.
    Example: gengap view gengap-report/   or   gengap view run-a/ run-b/
    """
    from gengap._optional import require
    from gengap.view import serve

    require("starlette", extra="view", purpose="The viewer")
    require("uvicorn", extra="view", purpose="The viewer")
    runs = list(run) if run else None
    if runs is not None and len(runs) != len(paths):
        from gengap._errors import ConfigError

        raise ConfigError(f"--run was given {len(runs)} time(s) for {len(paths)} store(s); give one run id per store, in order.")
    serve(paths, host=host, port=port, open_browser=not no_browser, run_ids=runs,
          say=lambda text: (stderr if text.startswith("warning") else stdout).print(text, markup=False, soft_wrap=True))
