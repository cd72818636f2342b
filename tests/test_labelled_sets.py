"""The extraction_v3 labelled sets validate, and the validator names the file, line and field of a bad label."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from _files import import_file

V3 = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "extraction_v3"
validate = import_file(V3 / "validate.py", "extraction_v3_validate")

GOOD = {
    "id": "choice-t01-001", "kind": "choice", "question": "Which planet is known as the Red Planet?",
    "choices": ["Venus", "Mars"], "output": "Mars", "gold": "B", "pattern": "option_by_text_or_paraphrase",
    "difficulty": "hard", "source": "written",
}


def write_set(folder: Path, rows: list[dict]) -> Path:
    """Write ``rows`` into the split files the frozen rule gives them (both files always exist)."""
    folder.mkdir(parents=True, exist_ok=True)
    for split in ("dev", "heldout"):
        lines = [json.dumps(r) for r in rows if validate.split_of(r["id"]) == split]
        (folder / f"{split}.jsonl").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return folder


def test_every_extraction_v3_set_validates(capsys):
    assert validate.main([]) == 0
    out = capsys.readouterr().out
    assert "chat" in out and "items valid" in out


def test_the_chat_set_is_split_by_the_id_rule_and_covers_every_kind():
    rows = {}
    for split in ("dev", "heldout"):
        for line in (V3 / "chat" / f"{split}.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            assert validate.split_of(row["id"]) == split
            rows[row["id"]] = row
    kinds = {r["kind"] for r in rows.values()}
    assert kinds == set(validate.KINDS)
    assert len(rows) >= 380
    assert any(r["gold"] is None for r in rows.values())  # abstentions are part of the set


def test_split_rule_is_the_parity_of_the_ids_sha256():
    import hashlib

    for item_id in ("text-w1b01-001", "yes_no-w1b02-016", "number-x-1", "choice-y-2"):
        odd = int(hashlib.sha256(item_id.encode()).hexdigest(), 16) % 2 == 1
        assert validate.split_of(item_id) == ("heldout" if odd else "dev")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"gold": "C"}, "field 'gold' 'C' is not a letter within the 2 choices"),
        ({"kind": "number", "id": "number-t01-001", "choices": None, "gold": "1,000"}, "not plain digits"),
        ({"kind": "number", "id": "number-t01-001", "choices": None, "gold": "ten"}, "does not parse as a number"),
        ({"kind": "yes_no", "id": "yes_no-t01-001", "choices": None, "gold": "true"}, "must be 'yes' or 'no'"),
        ({"pattern": "made_up_family"}, "field 'pattern' is 'made_up_family'"),
        ({"difficulty": "medium"}, "field 'difficulty'"),
        ({"aliases": ["Mars"]}, "'aliases' is only for text items"),
        ({"choices": None}, "field 'choices' must list 2-5 options"),
        ({"id": "text-t01-001"}, "must be a string starting with the kind"),
    ],
)
def test_a_bad_label_is_named_by_file_line_and_field(tmp_path, capsys, change, message):
    folder = write_set(tmp_path / "bad", [{**GOOD, **change}])
    assert validate.main([str(folder)]) == 1
    err = capsys.readouterr().err
    assert message in err
    assert ".jsonl:1:" in err


def test_a_missing_field_is_named(tmp_path, capsys):
    row = dict(GOOD)
    del row["source"]
    assert validate.main([str(write_set(tmp_path / "bad", [row]))]) == 1
    assert "field 'source' is missing" in capsys.readouterr().err


def test_a_line_in_the_wrong_part_is_reported(tmp_path, capsys):
    folder = write_set(tmp_path / "bad", [GOOD])
    right = validate.split_of(GOOD["id"])
    wrong = "dev" if right == "heldout" else "heldout"
    (folder / f"{wrong}.jsonl").write_text((folder / f"{right}.jsonl").read_text(encoding="utf-8"), encoding="utf-8")
    (folder / f"{right}.jsonl").write_text("", encoding="utf-8")
    assert validate.main([str(folder)]) == 1
    assert f"belongs to {right} by the split rule" in capsys.readouterr().err


def test_an_id_used_twice_across_sets_is_reported(tmp_path, capsys):
    first = write_set(tmp_path / "one", [GOOD])
    second = write_set(tmp_path / "two", [GOOD])
    assert validate.main([str(first), str(second)]) == 1
    assert "appears twice" in capsys.readouterr().err


def test_broken_json_is_reported_with_its_line(tmp_path, capsys):
    folder = write_set(tmp_path / "bad", [GOOD])
    split = validate.split_of(GOOD["id"])
    path = folder / f"{split}.jsonl"
    path.write_text(path.read_text(encoding="utf-8") + '{"id": \n', encoding="utf-8")
    assert validate.main([str(folder)]) == 1
    assert f"{split}.jsonl:2: not valid JSON" in capsys.readouterr().err


def test_a_set_without_its_heldout_file_is_reported(tmp_path, capsys):
    folder = write_set(tmp_path / "bad", [GOOD])
    (folder / "heldout.jsonl").unlink()
    assert validate.main([str(folder)]) == 1
    assert "heldout.jsonl: missing" in capsys.readouterr().err


def test_a_held_out_only_set_validates_without_the_split_rule(tmp_path, capsys):
    folder = tmp_path / "fresh"
    folder.mkdir()
    rows = [dict(GOOD, id=f"choice-t09-{i:03d}") for i in range(6)]  # ids of both parities
    assert {validate.split_of(r["id"]) for r in rows} == {"dev", "heldout"}
    (folder / "heldout.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert validate.main([str(folder)]) == 0
    assert "all 6 items valid" in capsys.readouterr().out


def test_the_fresh_extraction_v4_set_validates(capsys):
    v4 = V3.parent / "extraction_v4"
    assert validate.main([str(v4)]) == 0
    assert "heldout" in capsys.readouterr().out
