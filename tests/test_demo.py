"""``gengap demo``: end to end through the CLI on a reduced SCAN, and its error paths."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import gengap
from gengap.cli import app
from gengap.demo import _subsample
from gengap.store import Store
from gengap.tasks.scan import scan_dataset

pytest.importorskip("torch")
runner = CliRunner()


def test_subsample_keeps_every_single_word_command():
    small = _subsample(scan_dataset(), 300, seed=0)
    assert len(small) == 300 and len(set(small.ids)) == 300
    assert {"walk", "look", "run", "jump"} <= set(small.inputs)
    assert _subsample(scan_dataset(), 300, seed=0).ids == small.ids


@pytest.mark.slow
def test_demo_end_to_end_through_the_cli(tmp_path):
    out = tmp_path / "report"
    result = runner.invoke(app, ["demo", "--out", str(out), "--limit", "500", "--epochs", "1", "--threads", "1",
                                 "--no-progress", "--seed", "3"])
    assert result.exit_code == 0, result.output
    for name in ("index.html", "report.md", "results.json", "gengap.duckdb"):
        assert (out / name).is_file(), name
    text = result.output
    for piece in ("score", "95% CI", "random", "length", "jump", "reference", "Wall time:", "Lake & Baroni", "--limit"):
        assert piece in text, piece
    with gengap.store.Store(out / "gengap.duckdb", read_only=True) as store:
        run = store.latest_run()
        rows = store.rows(run)
    assert set(rows["split"]) == {"random", "length", "primitive:jump"}
    # every split's test part is scored in full: 100 random, all 'jump' compositions of the subset
    counts = rows.groupby("split").size().to_dict()
    assert counts["random"] == 100
    results = json.loads((out / "results.json").read_text())
    assert "summary" in results
    # the report carries the published figures and the score-by-length chart, in HTML and Markdown
    md, html = (out / "report.md").read_text(), (out / "index.html").read_text()
    assert "## Published figures" in md and "| length | " in md and "| 13.8% |" in md and "Lake &amp; Baroni (2018)" in html
    assert "## Score curves" in md and 'id="chart-curve-0"' in html
    assert results["sections"]["published"]["published"] == {"random": 0.998, "length": 0.138, "primitive:jump": 0.012}

    # an interrupted demo resumes as a demo (not "started from Python"): stored splits are kept
    with Store(out / "gengap.duckdb") as store:
        store.finish_run(run, "failed")
    resumed = runner.invoke(app, ["resume", str(out), "--no-progress"])
    assert resumed.exit_code == 0, resumed.output
    assert resumed.output.startswith(f"Resuming the SCAN demo in {out}: the splits already scored are kept.")
    assert "started from Python" not in resumed.output and "Lake & Baroni" in resumed.output
    with Store(out / "gengap.duckdb", read_only=True) as store:
        assert store.runs()["status"].tolist() == ["done"] and len(store.rows(run)) == len(rows)


def test_unknown_demo_name_is_a_clear_error(tmp_path):
    result = runner.invoke(app, ["demo", "scna", "--out", str(tmp_path)])
    assert result.exit_code != 0
    assert isinstance(result.exception, gengap.ConfigError)
    assert "There is no demo 'scna'. Did you mean 'scan'?" in str(result.exception)

