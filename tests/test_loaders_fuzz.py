"""Bad input for the loaders (hypothesis): whatever bytes a file holds, loading either works or
raises DataError naming the file; it never crashes with another exception."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gengap
from gengap import DataError

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

record = st.fixed_dictionaries({"input": st.text(max_size=30), "target": st.text(max_size=10)})
garbage = st.one_of(st.text(max_size=40), st.binary(max_size=40).map(lambda b: b.decode("latin-1")))


@SETTINGS
@given(lines=st.lists(st.one_of(record.map(json.dumps), garbage), min_size=0, max_size=12))
def test_jsonl_either_loads_or_names_the_line(tmp_path, lines):
    path = tmp_path / "data.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    try:
        ds = gengap.load(path)
    except DataError as e:
        assert str(path) in str(e)
        return
    assert len(ds) == sum(1 for line in lines if line.strip())


@SETTINGS
@given(data=st.binary(max_size=200))
def test_arbitrary_bytes_never_crash(tmp_path, data):
    for suffix in (".jsonl", ".csv", ".json", ".parquet"):
        path = tmp_path / f"data{suffix}"
        path.write_bytes(data)
        try:
            gengap.load(path)
        except DataError as e:
            assert str(path) in str(e)


@SETTINGS
@given(n=st.integers(1, 40), cut=st.integers(0, 2000))
def test_truncated_jsonl(tmp_path, n, cut):
    full = "\n".join(json.dumps({"input": f"question {i}", "target": str(i)}) for i in range(n))
    path = tmp_path / "cut.jsonl"
    path.write_text(full[: min(cut, len(full))], encoding="utf-8")
    try:
        ds = gengap.load(path)
    except DataError as e:
        assert "cut.jsonl" in str(e)
    else:
        assert 1 <= len(ds) <= n


def test_wrong_encoding_names_the_line(tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes("input,target\nok,1\ncaf\xe9,2\n".encode("latin-1"))
    with pytest.raises(DataError, match=r"line 3.*UTF-8"):
        gengap.load(path)


def test_extra_columns_become_metadata_and_missing_ones_are_listed(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text('{"question": "a", "answer": "b", "site": "x", "year": 2020}\n')
    ds = gengap.load(path, input="question", target="answer")
    assert ds.metadata_columns == ["site", "year"]
    with pytest.raises(DataError, match=r"no column 'answr'.*Did you mean 'answer'.*Columns there are"):
        gengap.load(path, input="question", target="answr")


def test_very_long_field(tmp_path):
    big = "word " * 2_000_000  # 10 MB
    path = tmp_path / "long.jsonl"
    path.write_text(json.dumps({"input": big, "target": "t"}) + "\n" + json.dumps({"input": "short", "target": "t"}) + "\n")
    ds = gengap.load(path)
    assert len(ds.inputs[0]) == len(big)


@pytest.mark.parametrize("target", [None, float("nan")])
def test_nan_and_missing_targets_are_named(tmp_path, target):
    frame = pd.DataFrame({"input": ["a", "b", "c"], "target": ["x", target, "z"]})
    with pytest.raises(DataError, match=r"target column 'target' is empty or NaN in 1 row\(s\), first \[2\]"):
        gengap.load(frame)


def test_empty_csv_cells_are_missing_targets(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("input,target\na,1\nb,\n")
    with pytest.raises(DataError, match=r"first \[2\]"):
        gengap.load(path)


def test_duplicate_ids_are_listed(tmp_path):
    with pytest.raises(DataError, match=r"duplicate ids \['7'\]"):
        gengap.load([{"id": 7, "input": "a", "target": "b"}, {"id": 7, "input": "c", "target": "d"}], id="id")


def test_many_tiny_rows(tmp_path):
    path = tmp_path / "tiny.jsonl"
    n = 1_000_000
    path.write_text("".join('{"input":"a","target":"b"}\n' for _ in range(n)))
    ds = gengap.load(path)
    assert len(ds) == n and ds.ids[-1] == str(n - 1)
