"""SCAN generator, interpreter and the official split files."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import gengap
from gengap.tasks.scan import (
    OFFICIAL_SPLITS,
    interpret,
    official_split,
    read_scan_file,
    scan_commands,
    scan_dataset,
)


@pytest.fixture(scope="module")
def ds() -> gengap.Dataset:
    return scan_dataset()


def _pairs(path: Path) -> set[tuple[str, str]]:
    out = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"IN: (.*) OUT: (.*)", line)
        assert m, line
        out.add((m[1].strip(), m[2].strip()))
    return out


def test_generated_set_equals_official_tasks_file(ds, scan_dir):
    generated = set(zip(ds.inputs, ds.targets))
    assert len(generated) == len(ds) == 20_910
    assert generated == _pairs(scan_dir / "tasks.txt")


def test_ids_are_unique_stable_and_in_generation_order(ds):
    assert ds.ids == [f"scan-{i:05d}" for i in range(20_910)]
    again = scan_dataset()
    assert again.fingerprint() == ds.fingerprint()
    assert ds.inputs[:4] == ["walk", "look", "run", "jump"]


def test_interpreter_semantics():
    assert interpret("jump") == "I_JUMP"
    assert interpret("turn left") == "I_TURN_LEFT"
    assert interpret("walk right") == "I_TURN_RIGHT I_WALK"
    assert interpret("look opposite left") == "I_TURN_LEFT I_TURN_LEFT I_LOOK"
    assert interpret("turn opposite right") == "I_TURN_RIGHT I_TURN_RIGHT"
    assert interpret("run around right") == " ".join(["I_TURN_RIGHT I_RUN"] * 4)
    assert interpret("turn around left twice") == " ".join(["I_TURN_LEFT"] * 8)
    assert interpret("walk thrice and jump") == "I_WALK I_WALK I_WALK I_JUMP"
    assert interpret("walk thrice after jump") == "I_JUMP I_WALK I_WALK I_WALK"


def test_interpreter_properties_over_all_commands(ds):
    # 'a after b' is 'b and a'; 'x twice' repeats x; lengths add up.
    for command, actions in scan_commands()[::97]:
        if " and " in command:
            a, b = command.split(" and ")
            assert actions == f"{interpret(a)} {interpret(b)}"
            assert interpret(f"{b} after {a}") == actions
        elif command.endswith(" thrice") and " after " not in command:
            assert actions == " ".join([interpret(command[: -len(" thrice")])] * 3)
    n_actions = ds.column("n_actions").to_numpy()
    assert n_actions.min() == 1 and n_actions.max() == 48
    assert (n_actions == np.array([len(t.split()) for t in ds.targets])).all()


def test_metadata_columns(ds):
    frame = ds.frame
    assert set(ds.metadata_columns) >= {"n_words", "n_actions", "conjunction", "primitives", "has_jump",
                                        "has_turn_left", "has_around_right"}
    assert frame["has_jump"].sum() == 7_707  # 7,706 official add-jump test commands + 'jump' alone
    assert frame["has_turn_left"].sum() == 1_209
    assert frame.loc[frame.input == "jump twice after turn left", "primitives"].item() == "jump turn"
    assert frame["conjunction"].value_counts().to_dict() == {"and": 10_404, "after": 10_404, "none": 102}


@pytest.mark.parametrize("bad, why", [
    ("jump jump", "not a direction"),
    ("turn", "not a primitive"),
    ("walk and run and look", "at most one"),
    ("walk and", "both sides"),
    ("fly left", "'fly' is not a primitive"),
    ("walk sideways left", "cannot read"),
])
def test_interpreter_rejects_non_commands(bad, why):
    with pytest.raises(gengap.DataError, match=why):
        interpret(bad)


def test_read_scan_file_merges_or_keeps_repeats(scan_dir):
    merged = read_scan_file(scan_dir / "tasks_train_addprim_jump.txt")
    assert len(merged) == 13_204
    row = merged.frame.set_index("input").loc["jump"]
    assert row["n_copies"] == 1_467 and row["id"] == "scan-00003"
    kept = read_scan_file(scan_dir / "tasks_train_addprim_jump.txt", duplicates="keep")
    assert len(kept) == 14_670 and len(set(kept.ids)) == 14_670
    assert sum(i.startswith("scan-00003") for i in kept.ids) == 1_467
    # the same command gets the same id as in gengap's own dataset
    ids = dict(zip(scan_dataset().inputs, scan_dataset().ids))
    assert all(ids[x] == i for x, i in zip(merged.inputs, merged.ids))


def test_read_scan_file_bad_input(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("IN: jump OUT: I_JUMP\nINPUT jump twice\n", encoding="utf-8")
    with pytest.raises(gengap.DataError, match=r"bad.txt', line 2: expected 'IN:"):
        read_scan_file(bad)
    clash = tmp_path / "clash.txt"
    clash.write_text("IN: jump OUT: I_JUMP\nIN: jump OUT: I_WALK\n", encoding="utf-8")
    with pytest.raises(gengap.DataError, match="line 1 and line 2"):
        read_scan_file(clash)
    binary = tmp_path / "latin.txt"
    binary.write_bytes(b"IN: jump OUT: I_JUMP\nIN: caf\xe9 OUT: X\n")
    with pytest.raises(gengap.DataError, match="line 2: bytes that are not UTF-8"):
        read_scan_file(binary)
    with pytest.raises(gengap.DataError, match="does not exist"):
        read_scan_file(tmp_path / "missing.txt")
    with pytest.raises(gengap.ConfigError, match="duplicates="):
        read_scan_file(bad, duplicates="drop")  # type: ignore[arg-type]
    other = tmp_path / "other.txt"
    other.write_text("IN: hop OUT: I_HOP\n", encoding="utf-8")
    assert read_scan_file(other).ids == ["other:1"]


EXPECTED_SIZES = {
    "simple": (16_728, 4_182), "length": (16_990, 3_920), "addprim_jump": (13_204, 7_706),
    "addprim_turn_left": (19_702, 1_208), "template_around_right": (15_225, 4_476),
}


@pytest.mark.parametrize("name", OFFICIAL_SPLITS)
def test_official_splits(name, scan_dir, ds):
    split = official_split(name, scan_dir)
    assert (split.diagnostics.n_train, split.diagnostics.n_test) == EXPECTED_SIZES[name]
    assert split.name == f"official:{name}" and split.method == "scan-official"
    assert not set(split.train_part.inputs) & set(split.test_part.inputs)
    assert split.diagnostics.structure.n_unseen_test_atoms == 0
    # the same split of gengap's own dataset, by command
    on_ours = official_split(name, scan_dir, dataset=ds)
    assert set(on_ours.test_part.ids) == set(split.test_part.ids)
    assert set(on_ours.train_part.ids) == set(split.train_part.ids)
    if name == "length":
        assert max(split.train_part.column("n_actions")) == 22
        assert min(split.test_part.column("n_actions")) == 24
        assert split.card.generalisation_type == "structural"
    if name == "addprim_jump":
        assert split.diagnostics.figures["repeated_train_commands"] == {"jump": 1_467}
        assert split.test_part.column("has_jump").all()


def test_gengap_primitive_split_matches_official_add_jump(scan_dir, ds):
    ours = gengap.HeldOutPrimitive(primitive="jump").split_dataset(ds)
    official = official_split("addprim_jump", scan_dir, dataset=ds)
    assert ours.test.tolist() == official.test.tolist()
    assert ours.train.tolist() == official.train.tolist()


def test_official_split_bad_name_and_folder(scan_dir, tmp_path):
    with pytest.raises(gengap.ConfigError, match="Did you mean 'addprim_jump'"):
        official_split("addprim_jmp", scan_dir)
    with pytest.raises(gengap.DataError, match="does not exist"):
        official_split("simple", tmp_path / "nowhere")
    (tmp_path / "tasks_train_x.txt").write_text("IN: jump OUT: I_JUMP\nIN: walk OUT: I_WALK\n", encoding="utf-8")
    (tmp_path / "tasks_test_x.txt").write_text("IN: walk OUT: I_WALK\n", encoding="utf-8")
    with pytest.raises(gengap.DataError, match="in both"):
        official_split("x", tmp_path)
