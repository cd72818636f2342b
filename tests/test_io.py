"""Loading the user's data from every supported source, and the errors for broken files."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import gengap
from gengap import DataError
from gengap.io import read_jsonl, to_jsonable, write_jsonl

RECORDS = [
    {"question": "What is 2 + 2?", "answer": "4", "topic": "add", "qid": "q1"},
    {"question": "What is 3 * 3?", "answer": "9", "topic": "mul", "qid": "q2"},
    {"question": "Spell 'été'", "answer": "é t é", "topic": "text", "qid": "q3"},
]
ROLES = dict(input="question", target="answer", id="qid")


def _write_all_formats(folder):
    """The same table as JSONL, JSON, CSV, TSV, Parquet and a Hugging Face dataset folder."""
    import datasets

    frame = pd.DataFrame(RECORDS)
    paths = {"jsonl": folder / "data.jsonl", "json": folder / "data.json", "csv": folder / "data.csv",
             "tsv": folder / "data.tsv", "parquet": folder / "data.parquet", "hf": folder / "hf_data"}
    write_jsonl(RECORDS, paths["jsonl"])
    paths["json"].write_text(json.dumps(RECORDS, ensure_ascii=False), encoding="utf-8")
    frame.to_csv(paths["csv"], index=False)
    frame.to_csv(paths["tsv"], index=False, sep="\t")
    frame.to_parquet(paths["parquet"])
    datasets.Dataset.from_dict({k: [r[k] for r in RECORDS] for k in RECORDS[0]}).save_to_disk(str(paths["hf"]))
    return paths


def test_every_format_loads_to_the_same_dataset(tmp_path):
    paths = _write_all_formats(tmp_path)
    loaded = {fmt: gengap.load(path, **ROLES) for fmt, path in paths.items()}
    loaded["dataframe"] = gengap.load(pd.DataFrame(RECORDS), **ROLES)
    loaded["records"] = gengap.load(RECORDS, **ROLES)
    for fmt, ds in loaded.items():
        assert ds.ids == ["q1", "q2", "q3"], fmt
        assert ds.inputs == [r["question"] for r in RECORDS], fmt
        assert ds.targets == ["4", "9", "é t é"], fmt
        assert ds.metadata_columns == ["topic"] and ds.column("topic").tolist() == ["add", "mul", "text"], fmt
    fingerprints = {fmt: ds.fingerprint() for fmt, ds in loaded.items()}
    assert len(set(fingerprints.values())) == 1, fingerprints
    assert loaded["jsonl"].name == "data" and loaded["hf"].name == "hf_data"


def test_in_memory_hugging_face_dataset():
    import datasets

    hf = datasets.Dataset.from_dict({"text": ["a", "b"], "label": ["x", "y"]})
    ds = gengap.load(hf, input="text", target="label")
    assert ds.inputs == ["a", "b"] and ds.targets == ["x", "y"] and ds.ids == ["0", "1"]


def test_format_can_be_forced(tmp_path):
    path = tmp_path / "data.txt"
    write_jsonl(RECORDS, tmp_path / "tmp.jsonl").rename(path)
    with pytest.raises(DataError, match="Cannot tell the format"):
        gengap.load(path, **ROLES)
    assert len(gengap.load(path, format="jsonl", **ROLES)) == 3


def test_hugging_face_dataset_dict_asks_for_one_split(tmp_path):
    import datasets

    part = datasets.Dataset.from_dict({"input": ["a"], "target": ["b"]})
    datasets.DatasetDict({"train": part, "test": part}).save_to_disk(str(tmp_path / "dd"))
    with pytest.raises(DataError, match=r"several splits \['train', 'test'\].*dd/train"):
        gengap.load(tmp_path / "dd")
    assert gengap.load(tmp_path / "dd" / "test").targets == ["b"]


def test_malformed_jsonl_line_is_named(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"input": "a", "target": "b"}\n\n{"input": "c", "target": \n{"input": "e", "target": "f"}\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"bad\.jsonl' line 3, column \d+: invalid JSON"):
        gengap.load(path)
    path.write_text('{"input": "a", "target": "b"}\n["not", "an", "object"]\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"line 2: expected a JSON object, got list"):
        read_jsonl(path)


def test_non_utf8_bytes_name_the_line_and_the_fix(tmp_path):
    for suffix in (".jsonl", ".csv"):
        path = tmp_path / f"latin1{suffix}"
        header = b"input,target\n" if suffix == ".csv" else b""
        row1 = b'{"input": "ok", "target": "ok"}\n' if suffix == ".jsonl" else b"ok,ok\n"
        row2 = '{"input": "caf\u00e9", "target": "x"}\n' if suffix == ".jsonl" else "caf\u00e9,x\n"
        path.write_bytes(header + row1 + row2.encode("latin-1"))
        line = 2 if suffix == ".jsonl" else 3
        with pytest.raises(DataError, match=rf"line {line}: bytes .* are not UTF-8.*iconv"):
            gengap.load(path)


def test_empty_files_and_missing_paths(tmp_path):
    for name, content in (("empty.jsonl", ""), ("blank.jsonl", "\n  \n"), ("empty.csv", ""), ("header.csv", "input,target\n")):
        (tmp_path / name).write_text(content, encoding="utf-8")
        with pytest.raises(DataError, match=r"empty|no examples"):
            gengap.load(tmp_path / name)
    with pytest.raises(DataError, match=r"does not exist"):
        gengap.load(tmp_path / "nope.jsonl")
    with pytest.raises(DataError, match=r"Cannot load a int"):
        gengap.load(42)


def test_split_folder_passed_as_data_points_to_split_option(tmp_path):
    ds = gengap.load([{"input": f"x{i}", "target": "y"} for i in range(10)])
    gengap.RandomSplit(test_fraction=0.2).split_dataset(ds).save(tmp_path / "split")
    with pytest.raises(DataError, match=r"--split"):
        gengap.load(tmp_path / "split")


def test_parquet_that_is_not_parquet(tmp_path):
    path = tmp_path / "fake.parquet"
    path.write_text("not parquet")
    with pytest.raises(DataError, match=r"fake\.parquet' could not be read as Parquet"):
        gengap.load(path)


def test_write_jsonl_round_trip_and_jsonable_values(tmp_path):
    import numpy as np

    records = [{"a": np.int64(3), "b": float("nan"), "c": np.array([1, 2]), "d": pd.Timestamp("2024-01-02"), "e": "ü"}]
    path = write_jsonl(records, tmp_path / "sub" / "out.jsonl")
    assert path.read_text(encoding="utf-8") == '{"a": 3, "b": null, "c": [1, 2], "d": "2024-01-02T00:00:00", "e": "ü"}\n'
    assert read_jsonl(path) == [{"a": 3, "b": None, "c": [1, 2], "d": "2024-01-02T00:00:00", "e": "ü"}]
    assert to_jsonable({"k": (np.float32(0.5), None)}) == {"k": [0.5, None]}
