"""``gengap plan``: how many examples a gap needs, before a run or from a pilot run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from gengap._errors import ConfigError
from gengap.cli._app import app
from gengap.cli._common import stdout


@app.command("plan")
def plan_command(
    gap: Annotated[float, typer.Option(help="The smallest gap that matters, in points (5 = five points of a 0-100% score).")],
    score: Annotated[Optional[float], typer.Option(help="Without --pilot: the expected score of the better split, a share (0.70) or points (70).")] = None,
    power: Annotated[float, typer.Option(help="Chance to detect the gap when it is there.")] = 0.8,
    alpha: Annotated[float, typer.Option(help="Two-sided level of the test.")] = 0.05,
    paired: Annotated[bool, typer.Option("--paired", help="Both conditions score the same examples (two models, clean and perturbed).")] = False,
    discordant: Annotated[Optional[float], typer.Option(help="With --paired: the share of examples the two conditions score differently, e.g. 0.2.")] = None,
    icc: Annotated[float, typer.Option(help="Intraclass correlation of the scores within a cluster (0: independent rows).")] = 0.0,
    cluster_size: Annotated[int, typer.Option(help="Rows per cluster (questions per passage, samples per item).")] = 1,
    pilot: Annotated[Optional[Path], typer.Option(help="A finished run (its output folder or gengap.duckdb): plan from its own rows instead.")] = None,
    run: Annotated[Optional[str], typer.Option("--run", help="With --pilot: the run id (default: the latest finished run).")] = None,
    cluster: Annotated[Optional[str], typer.Option(help="With --pilot: a metadata column whose rows are not independent (default: the run's own).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a sentence or a table.")] = False,
) -> None:
    """How many examples each split needs to tell a gap from noise, or, from a pilot run, the smallest gap it can detect.

    Examples: gengap plan --score 0.70 --gap 5 · gengap plan --score 0.7 --gap 5 --paired --discordant 0.2 ·
    gengap plan --pilot gengap-report/ --gap 3
    """
    if gap <= 0 or gap >= 100:
        raise ConfigError(f"--gap {gap:g} must be in points, between 0 and 100 (5 is five points).")
    if pilot is not None:
        _pilot(pilot, run, gap / 100, power, alpha, cluster, as_json)
        return
    if score is None:
        raise ConfigError("gengap plan needs the expected score (--score 0.70) or a pilot run to read it from (--pilot OUT).")
    from gengap.analysis.power import plan

    share = score / 100 if score > 1 else score
    result = plan(share, gap / 100, power=power, alpha=alpha, paired=paired, discordant=discordant, icc=icc,
                  cluster_size=cluster_size)
    if as_json:
        stdout.print(json.dumps(result.to_dict(), indent=2), markup=False)
    else:
        stdout.print(result.describe(), markup=False)


def _pilot(path: Path, run: str | None, gap: float, power: float, alpha: float, cluster: str | None,
           as_json: bool) -> None:
    from rich.table import Table

    from gengap.analysis.pilot import pilot_plan
    from gengap.report._write import _run_record
    from gengap.store import Store, resolve_store

    store_path = resolve_store(path)
    with Store(store_path, read_only=True) as store:
        run = run or store.latest_run()
        rows, info = store.rows(run), store.split_info(run)
        config = _run_record(store, run)["config"]
    if cluster is None:
        cluster = ((config.get("settings") or {}).get("scoring") or {}).get("cluster")
    table = pilot_plan(rows, info, gap=gap, power=power, alpha=alpha, cluster=cluster)
    if as_json:
        stdout.print(json.dumps({"run": run, "gap": gap, "power": power, "alpha": alpha, "cluster": cluster,
                                 "comparisons": table.to_dict(orient="records")}, indent=2, default=float), markup=False)
        return
    out = Table(title=f"Run {run}: the smallest gap each comparison can detect ({power:.0%} power, {alpha:.0%} level), "
                      f"and the examples a {gap * 100:g}-point gap needs", title_justify="left")
    many_models = table["model"].nunique() > 1 or (table["comparison"] == "models").any()
    for col in (["model"] if many_models else []) + ["split", "n", "gap, pts [95% CI]", "could detect", "n needed"]:
        out.add_column(col, justify="left" if col in ("model", "split") else "right")
    for r in table.itertuples():
        n = f"{r.n:,}" + (f" ({r.n_clusters:,} clusters)" if r.n_clusters else "")
        needed = f"{r.n_needed:,}" + (f" ({r.n_clusters_needed:,} clusters)" if r.n_clusters_needed else "")
        cells = [str(r.split), n, f"{100 * r.gap:.1f} [{100 * r.gap_low:.1f}, {100 * r.gap_high:.1f}]",
                 f"{100 * r.detectable:.1f}", needed]
        who = f"{r.model} - {r.reference}" if r.comparison == "models" else str(r.model)
        if r.comparison == "models":
            cells[0] = f"{r.split} (models, paired)"
        out.add_row(*([who] if many_models else []), *cells)
    stdout.print(out)
