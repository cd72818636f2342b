"""``gengap report``: render a run's report again from its results store."""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Annotated, Optional

import typer

from gengap._settings import Analysis
from gengap.cli._app import app
from gengap.cli._common import stdout
from gengap.store import resolve_store

#: The slice search's defaults (``gengap report`` and ``gengap import`` take them as options).
ANALYSIS_DEFAULTS = Analysis()


def slices_option(name: str, *flags: str) -> typer.models.OptionInfo:
    """The option of an :class:`gengap.config.Analysis` slice-search setting, its help the field's description."""
    return typer.Option(*flags, help=Analysis.model_fields[name].description)


def check_slice_order(order: int) -> None:
    """``--slice-order`` must be 1, 2 or 3 (checked before any report is written)."""
    from gengap._errors import ConfigError

    if not 1 <= order <= 3:
        raise ConfigError(f"--slice-order {order} must be 1, 2 or 3 (conditions per slice; 2 also finds 'a and b').")


#: The choices of ``--slice-control`` (the run file's ``[analysis] slice_control``).
SLICE_CONTROLS = typing.get_args(Analysis.model_fields["slice_control"].annotation)


def check_slice_control(control: str) -> None:
    """``--slice-control`` must be ``bh`` or ``split`` (checked before anything is written)."""
    from gengap._errors import ConfigError, did_you_mean

    if control not in SLICE_CONTROLS:
        raise ConfigError(f"--slice-control {control!r} is not one of {', '.join(SLICE_CONTROLS)} (bh: Benjamini-Hochberg "
                          f"over every slice tested; split: discovered on one half of the rows, confirmed on the "
                          f"other).{did_you_mean(control, list(SLICE_CONTROLS))}")


@app.command("report")
def report_command(
    path: Annotated[Path, typer.Argument(help="A results store (gengap.duckdb) or the output folder that holds it.")],
    run: Annotated[Optional[str], typer.Option("--run", help="Run id to report (default: the latest finished run).")] = None,
    out: Annotated[Optional[Path], typer.Option(help="Folder for index.html, report.md and results.json (default: beside the store).")] = None,
    reference: Annotated[Optional[str], typer.Option(help="Split that gaps are measured from (default: the random split).")] = None,
    format: Annotated[Optional[list[str]], typer.Option("--format", help="html, md or json (repeat; default: all three).")] = None,
    curve: Annotated[Optional[list[str]], typer.Option("--curve", help="Draw the score along this axis (repeat): a numeric metadata column, input_length or target_length.")] = None,
    cluster: Annotated[Optional[str], typer.Option(help="A metadata column whose rows are not independent (default: the run's own --cluster): every interval and test counts clusters.")] = None,
    find_slices: Annotated[Optional[bool], typer.Option("--find-slices/--no-find-slices", help="Search the metadata and derived columns for slices that score significantly below the rest (\"Where it fails\"; default: as the run was started, e.g. gengap eval --find-slices).")] = None,
    slice_order: Annotated[Optional[int], typer.Option(help="With --find-slices: the most conditions in a slice (1-3; 2 also finds 'a and b'; default: as the run was started, else 2).")] = None,
    slice_control: Annotated[Optional[str], typer.Option(help="With --find-slices: how false discoveries are controlled: bh (Benjamini-Hochberg over every slice tested) or split (discovered on one half of the rows, confirmed on the other); default: as the run was started, else bh.")] = None,
) -> None:
    """Write the report of a stored run again: index.html, report.md and results.json.

    Every figure is recomputed from the run's per-example rows, so a report can be rendered again
    at any time, e.g. with another reference split. Example: gengap report gengap-report/ --run r0002
    """
    from gengap._outputs import check_out_folder
    from gengap.report._write import FILE_NAMES, check_formats, write_report
    from gengap.store import Store

    formats = check_formats(format or list(FILE_NAMES))
    if out is not None:
        check_out_folder(out)
    store_path = resolve_store(path)
    if run is None:
        with Store(store_path, read_only=True) as store:
            run = store.latest_run()
    if slice_order is not None:
        check_slice_order(slice_order)
    if slice_control is not None:
        check_slice_control(slice_control)
    folder = write_report(store_path, run, out if out is not None else store_path.parent, formats=formats,
                          reference=reference, curves=curve or (), cluster=cluster, find_slices=find_slices,
                          slice_order=slice_order, slice_control=slice_control)
    written = [FILE_NAMES[f] for f in formats]
    stdout.print(f"Report of run {run}: {folder / written[0]}" + (f"  (also {', '.join(written[1:])})" if written[1:] else ""))
    if "json" in formats and "slices" in json.loads((folder / FILE_NAMES["json"]).read_text(encoding="utf-8"))["sections"]:
        from gengap.cli._common import print_slices

        print_slices(folder / "gengap.duckdb", run)
