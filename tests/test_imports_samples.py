"""Imported rows as samples: ``gengap import table --sample COLUMN`` stores several answers per example as a run does."""

from __future__ import annotations

import json
from math import comb

import pandas as pd
import pytest
from typer.testing import CliRunner

from gengap._errors import DataError
from gengap.cli import app
from gengap.imports import import_table
from gengap.store import Store

# example -> the right/wrong of its 4 samples (sample column 1..4: numbered 0..3 when stored)
RIGHT = {"q0": [1, 1, 1, 1], "q1": [1, 0, 0, 1], "q2": [0, 0, 0, 0], "q3": [0, 1, 0, 0], "q4": [1, 1, 0, 1]}


def _write(path) -> None:
    rows = [{"qid": q, "try": j + 1, "pred": "yes" if r else f"no{j % 2}", "ok": r, "topic": q[-1]}
            for q, rs in RIGHT.items() for j, r in enumerate(rs)]
    pd.DataFrame(rows).to_csv(path, index=False)


def test_sample_column_through_the_cli(tmp_path):
    path = tmp_path / "preds.csv"
    _write(path)
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["import", "table", str(path), "--id", "qid", "--output", "pred", "--score", "ok",
                                   "--sample", "try", "--out", str(out), "--format", "json"])
    assert res.exit_code == 0, res.output
    assert "(ok, 5 examples × 4 samples): pass@1 50.0%, pass@4 80.0%, maj@4 60.0%" in res.output
    with Store(out / "gengap.duckdb", read_only=True) as store:
        run = store.sql("SELECT run_id FROM runs").iloc[0, 0]
        rows = store.rows(run)
    assert len(rows) == 20 and sorted(rows["sample"].unique()) == [0, 1, 2, 3]
    assert (rows.loc[rows["example_id"] == "q1#2", ["item", "score"]].values.tolist() == [["q1", 0.0]])
    assert rows.groupby("item").size().tolist() == [4] * 5
    record = json.loads((out / "results.json").read_text())["sections"]["samples"]
    rec = record[0] if isinstance(record, list) else record["records"][0]
    n, k = 4, 4
    pass1 = sum(sum(r) / n for r in RIGHT.values()) / 5
    passk = sum(1 - comb(n - sum(r), k) / comb(n, k) for r in RIGHT.values()) / 5
    assert rec["k"] == 4 and rec["n_items"] == 5 and rec["n_rows"] == 20
    assert rec["pass_at_1"] == pytest.approx(pass1) and rec["pass_at_k"] == pytest.approx(passk)
    # maj@4: the most frequent answer (ties: first met): q0 yes, q1 yes (tie 2-2, met first), q2 no0, q3 no0, q4 yes
    assert rec["maj_at_k"] == pytest.approx(3 / 5)
    assert rec["n_clusters"] == 5


@pytest.mark.parametrize(("change", "said"), [
    ({"try": [1, 1]}, "sample 1 (column 'try') more than once"),
    ({"try": [None, 2]}, "row 1: sample column 'try' is empty"),
    ({"try": ["a", 2]}, "row 1: sample column 'try' is '\"a\"'"),
    ({"try": [1.5, 2]}, "sample column 'try' is '1.5'"),
])
def test_bad_sample_columns_store_nothing(tmp_path, change, said):
    frame = pd.DataFrame({"qid": ["q0", "q0"], "pred": ["a", "b"], "ok": [1, 0], **change})
    path = tmp_path / "bad.jsonl"
    frame.to_json(path, orient="records", lines=True)
    out = tmp_path / "out"
    with pytest.raises(DataError) as e:
        import_table([path], id="qid", output="pred", scores=["ok"], sample="try", out=out)
    text = " ".join(str(e.value).split())
    assert said in text and "bad.jsonl" in text
    assert not (out / "gengap.duckdb").exists()
