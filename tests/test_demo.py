"""``gengap demo``: end to end through the CLI on a reduced SCAN, and its error paths."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import gengap
from gengap.cli import app
from gengap.demo import _subsample
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


def test_unknown_demo_name_is_a_clear_error(tmp_path):
    result = runner.invoke(app, ["demo", "scna", "--out", str(tmp_path)])
    assert result.exit_code != 0
    assert isinstance(result.exception, gengap.ConfigError)
    assert "There is no demo 'scna'. Did you mean 'scan'?" in str(result.exception)

