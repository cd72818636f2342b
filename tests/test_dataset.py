"""Dataset: mapping the user's columns to roles, and the errors for tables that cannot be used."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from gengap import DataError, Dataset

FRAME = pd.DataFrame({
    "question": ["1+1", "2+2", "3+3", "4+4"],
    "answer": ["2", "4", "6", "8"],
    "uid": ["a", "b", "c", "d"],
    "site": ["x", "x", "y", "y"],
    "year": [2020, 2021, 2022, 2023],
})


def test_roles_are_mapped_by_name_and_other_columns_become_metadata():
    ds = Dataset.from_frame(FRAME, input="question", target="answer", id="uid", name="sums")
    assert ds.ids == ["a", "b", "c", "d"] and ds.inputs == FRAME["question"].tolist() and ds.targets == FRAME["answer"].tolist()
    assert ds.metadata_columns == ["site", "year"]
    assert ds.column("year").tolist() == [2020, 2021, 2022, 2023]
    assert repr(ds) == "Dataset(name='sums', n=4, metadata=['site', 'year'])"
    assert ds[1] == {"id": "b", "input": "2+2", "target": "4", "site": "x", "year": 2021}


def test_ids_default_to_row_numbers_and_metadata_can_be_chosen():
    ds = Dataset.from_frame(FRAME, input="question", target="answer", metadata=["site"])
    assert ds.ids == ["0", "1", "2", "3"] and ds.metadata_columns == ["site"]


def test_several_input_columns_make_dict_inputs_and_target_can_be_absent():
    ds = Dataset.from_frame(FRAME, input=["question", "site"], target=None)
    assert ds.inputs[0] == {"question": "1+1", "site": "x"} and ds.targets == [None] * 4
    assert "question" not in ds.metadata_columns and ds.metadata_columns == ["answer", "uid", "year"]


def test_misnamed_column_lists_columns_and_suggests_the_nearest():
    with pytest.raises(DataError) as err:
        Dataset.from_frame(FRAME, input="questoin", target="answer", source="data.jsonl")
    msg = str(err.value)
    assert "'data.jsonl' has no column 'questoin' for the input role" in msg
    assert "Did you mean 'question'?" in msg and "['question', 'answer', 'uid', 'site', 'year']" in msg
    assert "--input COLUMN" in msg
    with pytest.raises(DataError, match=r"no column 'label' for the target role.*Columns there are"):
        Dataset.from_frame(FRAME, input="question", target="label")
    with pytest.raises(DataError, match=r"no metadata column 'sight'.*Did you mean 'site'"):
        Dataset.from_frame(FRAME, input="question", target="answer", metadata=["sight"])


def test_empty_table_is_refused():
    with pytest.raises(DataError, match=r"'empty.csv' has no examples \(0 rows\)"):
        Dataset.from_frame(FRAME.iloc[:0], input="question", target="answer", source="empty.csv")


def test_duplicate_ids_are_listed_with_their_rows():
    frame = FRAME.assign(uid=["a", "b", "a", "c"])
    with pytest.raises(DataError) as err:
        Dataset.from_frame(frame, input="question", target="answer", id="uid")
    assert "duplicate ids ['a'] (rows [1, 3])" in str(err.value) and "unique" in str(err.value)


def test_missing_values_in_roles_name_the_rows():
    with pytest.raises(DataError, match=r"target column 'answer' is empty or NaN in 1 row\(s\), first \[2\]"):
        Dataset.from_frame(FRAME.assign(answer=["2", None, "6", "8"]), input="question", target="answer")
    with pytest.raises(DataError, match=r"input column 'question' is empty in row\(s\) \[4\]"):
        Dataset.from_frame(FRAME.assign(question=["a", "b", "c", np.nan]), input="question", target="answer")
    with pytest.raises(DataError, match=r"id column 'uid' is empty in row\(s\) \[1\]"):
        Dataset.from_frame(FRAME.assign(uid=[None, "b", "c", "d"]), input="question", target="answer", id="uid")


def test_role_named_columns_left_unmapped_warn_or_are_refused_as_metadata():
    frame = FRAME.rename(columns={"site": "target", "uid": "id"})
    with pytest.warns(UserWarning, match=r"\['target'\] are named like a role but not mapped.*--target target"):
        ds = Dataset.from_frame(frame, input="question", target="answer")
    assert ds.ids == ["a", "b", "c", "d"] and ds.metadata_columns == ["year"]  # a column named id is the id
    with pytest.warns(UserWarning, match=r"\['target'\]"):
        assert Dataset.from_frame(frame, input="question", target="answer", id="id").ids == ["a", "b", "c", "d"]
    with pytest.raises(DataError, match=r"metadata column 'target' clashes with a role name"):
        Dataset.from_frame(frame, input="question", target="answer", id="id", metadata=["target"])


def test_take_with_columns_and_fingerprint():
    ds = Dataset.from_frame(FRAME, input="question", target="answer", id="uid")
    part = ds.take([3, 1])
    assert part.ids == ["d", "b"] and part.name == ds.name
    more = ds.with_columns(length=[1, 1, 1, 1])
    assert more.column("length").tolist() == [1, 1, 1, 1] and "length" not in ds.metadata_columns
    with pytest.raises(DataError, match="cannot replace the role column 'input'"):
        ds.with_columns(input=["x"] * 4)
    with pytest.raises(DataError, match=r"no column 'yaer'.*Did you mean 'year'"):
        ds.column("yaer")
    same = Dataset.from_frame(FRAME.copy(), input="question", target="answer", id="uid")
    assert ds.fingerprint() == same.fingerprint() != part.fingerprint()
    changed = Dataset.from_frame(FRAME.assign(answer=["2", "4", "6", "9"]), input="question", target="answer", id="uid")
    assert changed.fingerprint() != ds.fingerprint()


def test_records_round_trip():
    ds = Dataset.from_frame(FRAME, input="question", target="answer", id="uid")
    again = Dataset.from_records(ds.to_records(), id="id")
    assert again.ids == ds.ids and again.fingerprint() == ds.fingerprint()


def test_frame_without_role_columns_points_to_from_frame():
    with pytest.raises(DataError, match=r"missing the role column\(s\) \['id', 'input', 'target'\].*from_frame"):
        Dataset(FRAME)
