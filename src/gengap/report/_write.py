"""Writing a run's report: ``index.html``, ``report.md`` and ``results.json`` from the store's rows."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd
from markupsafe import Markup

from gengap._errors import ConfigError, StoreError, did_you_mean
from gengap.analysis.gaps import find_reference, summarize
from gengap.analysis.samples import default_cluster
from gengap.report._blocks import TEMPLATES, render_template
from gengap.report._format import count, md_escape
from gengap.report._results import dumps, results_document
from gengap.report._sections import ReportContext, Section, build_sections
from gengap.store import REPORT_SETTINGS, Store

__all__ = ["write_report", "load_context", "check_formats", "FORMATS", "FILE_NAMES"]

#: Report formats and the file each one writes.
FILE_NAMES = {"html": "index.html", "md": "report.md", "json": "results.json"}
FORMATS = tuple(FILE_NAMES)


@lru_cache(maxsize=1)
def _plotlyjs() -> Markup:
    from plotly.offline import get_plotlyjs

    return Markup(get_plotlyjs())


def check_formats(formats: Sequence[str]) -> list[str]:
    """Report formats normalized (``markdown`` -> ``md``), in order, without repeats; unknown ones raise."""
    if isinstance(formats, str):
        formats = [formats]
    out = []
    for f in formats:
        key = str(f).lower().lstrip(".")
        key = {"markdown": "md", "htm": "html"}.get(key, key)
        if key not in FILE_NAMES:
            raise ConfigError(f"Unknown report format {f!r}; choose from {', '.join(FORMATS)}.{did_you_mean(str(f), FORMATS)}")
        if key not in out:
            out.append(key)
    if not out:
        raise ConfigError(f"No report format given; choose one or more of {', '.join(FORMATS)}.")
    return out


def _run_record(store: Store, run_id: str) -> dict[str, Any]:
    runs = store.runs()
    match = runs[runs["run_id"] == run_id]
    if match.empty:
        ids = runs["run_id"].astype(str).tolist()
        listed = ", ".join(ids[-10:]) if ids else "none"
        raise StoreError(f"Run '{run_id}' is not in the store '{store.path}' (its runs: {listed}).{did_you_mean(run_id, ids)}")
    rec = match.iloc[0].to_dict()
    try:
        config = json.loads(rec.get("config") or "{}")
    except json.JSONDecodeError:
        config = {"unparsed": rec.get("config")}
    created = rec.get("created_at")
    return {
        "name": str(rec.get("name") or ""), "status": str(rec.get("status") or ""),
        "created_at": pd.Timestamp(created).isoformat() if created is not None and not pd.isna(created) else None,
        "config": config, "gengap_version": str(rec.get("gengap_version") or ""),
    }


def load_context(store: Store, run_id: str, *, reference: str | None = None, n_resamples: int = 10_000,
                 curves: Sequence[str] = (), groups: Sequence[str] = (), cluster: str | None = None,
                 find_slices: bool | None = None, slice_order: int | None = None,
                 slice_control: str | None = None) -> ReportContext:
    """Read one run from an open store and compute its summary: what every section works from.

    ``cluster`` (default: the run's own ``cluster`` setting) names the column whose rows are not independent;
    ``find_slices``, ``slice_order`` and ``slice_control`` default to the report settings the run was
    started with (off, 2, ``"bh"``)."""
    run = _run_record(store, run_id)
    remembered = run["config"].get(REPORT_SETTINGS) if isinstance(run.get("config"), dict) else None
    remembered = remembered if isinstance(remembered, dict) else {}
    if find_slices is None:
        find_slices = bool(remembered.get("find_slices", False))
    if slice_order is None:
        slice_order = int(remembered.get("slice_order", 2))
    if slice_control is None:
        slice_control = str(remembered.get("slice_control", "bh"))
    if cluster is None:
        settings = run["config"].get("settings") if isinstance(run.get("config"), dict) else None
        scoring = settings.get("scoring") if isinstance(settings, dict) else None
        cluster = scoring.get("cluster") if isinstance(scoring, dict) else None
    rows = store.rows(run_id)
    cluster = default_cluster(rows, cluster)  # several samples per example: clustered by example
    split_info = store.split_info(run_id)
    if reference is not None and reference not in split_info:
        raise ConfigError(
            f"reference={reference!r} is not a split of run '{run_id}' (its splits: {', '.join(split_info) or 'none'})."
            f"{did_you_mean(reference, split_info)}"
        )
    ref = find_reference(split_info, reference)
    summary = summarize(rows, split_info, reference=ref, n_resamples=n_resamples, cluster=cluster)
    return ReportContext(store=store, run_id=run_id, run=run, rows=rows, summary=summary, split_info=split_info,
                         reference=ref, measures=store.measures(run_id), events=store.events(run_id),
                         n_resamples=n_resamples, curve_axes=tuple(curves), group_fields=tuple(groups),
                         cluster=cluster, find_slices=find_slices, slice_order=slice_order,
                         slice_control=slice_control)


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8", newline="\n")
    os.replace(tmp, path)


def _page_facts(ctx: ReportContext) -> tuple[str, list[str], str, str]:
    cfg = ctx.run.get("config", {})
    ds = cfg.get("dataset") if isinstance(cfg.get("dataset"), dict) else {}
    models = [str(m) for m in ctx.rows["model"].unique()] if len(ctx.rows) else list(cfg.get("models") or [])
    meta = [f"run {ctx.run_id}" + (f" ({ctx.run['name']})" if ctx.run.get("name") else "")]
    if ds.get("name"):
        meta.append(f"dataset {ds['name']}" + (f" ({count(ds['n'])} examples)" if ds.get("n") is not None else ""))
    if models:
        meta.append(("model " if len(models) == 1 else "models ") + ", ".join(map(str, models)))
    if ctx.split_info:
        meta.append(f"{len(ctx.split_info)} split{'s' if len(ctx.split_info) != 1 else ''}")
    if ctx.run.get("created_at"):
        meta.append(f"run started {ctx.run['created_at'][:19].replace('T', ' ')} UTC")
    status = ctx.run.get("status", "")
    notice = "" if status == "done" else (
        f"This run did not finish (status: {status}). The figures cover the examples stored so far; "
        "run it again to complete it.")
    provenance = (f"Every figure in this report is computed from the {len(ctx.rows):,} per-example rows of run "
                  f"{ctx.run_id} in {Path(ctx.store.path).name}; re-render it with: gengap report {Path(ctx.store.path).name} --run {ctx.run_id}")
    if models and ds.get("name"):
        title = f"{', '.join(map(str, models))} on {ds['name']}"
    else:
        title = ctx.run.get("name") or ctx.run_id
    return title, meta, notice, provenance


def write_report(
    store_path: str | Path,
    run_id: str,
    out: str | Path,
    *,
    formats: Sequence[str] = FORMATS,
    reference: str | None = None,
    generated_at: datetime | None = None,
    curves: Sequence[str] = (),
    groups: Sequence[str] = (),
    cluster: str | None = None,
    find_slices: bool | None = None,
    slice_order: int | None = None,
    slice_control: str | None = None,
) -> Path:
    """Write the report of run ``run_id`` of a results store into the folder ``out``.

    Every figure is computed from the store's per-example rows. Writing twice from the same rows
    gives byte-identical files except for the one line that holds ``generated_at``.

    Parameters
    ----------
    store_path : the ``gengap.duckdb`` file.
    run_id : the run to report (``Store.latest_run()`` gives the latest finished one).
    out : the folder for ``index.html``, ``report.md`` and ``results.json`` (created if needed).
    formats : any of ``"html"``, ``"md"``, ``"json"``.
    reference : the split gaps are measured from (default: the run's random split).
    generated_at : the time stamped on the report (default: now, in UTC).
    curves : axes to draw score curves along (metadata columns, ``input_length``, ``target_length``);
        each length split gets its curve without being named.
    groups : metadata fields whose groups an imported run's report scores (``gengap import ... --group``).
    cluster : a metadata column whose rows are not independent (default: the run's ``cluster`` setting).
    find_slices : search for slices that score below the rest ("Where it fails"; ``results.json``'s
        ``slices``); ``slice_order`` is the most conditions in a slice; ``slice_control`` how false
        discoveries are controlled (``"bh"``: Benjamini-Hochberg over every slice tested; ``"split"``:
        discovered on one half of the rows, confirmed on the other). All default to the report settings
        the run was started with (``gengap eval --find-slices``; else off, 2 and ``"bh"``).

    Returns
    -------
    The folder ``out``.

    Examples
    --------
    >>> import gengap, tempfile
    >>> ds = gengap.load([{"input": "a " * k, "target": "a " * k} for k in range(1, 30)])
    >>> ev = gengap.evaluate(lambda xs: xs, ds, ["random", "length"], out=tempfile.mkdtemp(), progress=False)
    >>> folder = write_report(ev.store_path, ev.run_id, ev.out)
    >>> sorted(p.name for p in folder.glob("*.*") if p.suffix != ".duckdb")
    ['index.html', 'report.md', 'results.json']
    """
    chosen = check_formats(formats)
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"The report folder '{out}' is a file; choose a folder for --out.")
    stamp = (generated_at or datetime.now(timezone.utc)).astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    with Store(store_path, read_only=True) as store:
        ctx = load_context(store, run_id, reference=reference, curves=curves, groups=groups, cluster=cluster,
                           find_slices=find_slices, slice_order=slice_order, slice_control=slice_control)
        sections = build_sections(ctx)
        out.mkdir(parents=True, exist_ok=True)
        title, meta, notice, provenance = _page_facts(ctx)
        if "json" in chosen:
            _atomic_write(out / FILE_NAMES["json"], dumps(results_document(ctx, sections, generated_at=stamp)))
        if "md" in chosen:
            md_sections = [(key, {"title": md_escape(s.title), "markdown": s.markdown.strip()}) for key, s in sections]
            text = render_template("page.md", title=md_escape(f"Generalization report: {title}"),
                                   meta=" · ".join(md_escape(m) for m in meta), status_notice=md_escape(notice),
                                   sections=md_sections, provenance=md_escape(provenance), generated_at=stamp,
                                   version=_version())
            _atomic_write(out / FILE_NAMES["md"], text)
        if "html" in chosen:
            _atomic_write(out / FILE_NAMES["html"], _html_page(ctx, sections, title, meta, notice, provenance, stamp))
    return out


def _version() -> str:
    from gengap._version import __version__

    return __version__


def _html_page(ctx: ReportContext, sections: list[tuple[str, Section]], title: str, meta: list[str], notice: str,
               provenance: str, stamp: str) -> str:
    has_charts = any("Plotly.newPlot" in s.html for _, s in sections)
    css = Markup((TEMPLATES / "style.css").read_text(encoding="utf-8").strip())
    return render_template("page.html", title=title, meta=meta, status_notice=notice, sections=sections,
                           provenance=provenance, generated_at=stamp, version=_version(), css=css,
                           plotlyjs=_plotlyjs() if has_charts else None)
