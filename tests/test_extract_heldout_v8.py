"""The frozen v8 held-out set of answer readings: its digest is the one its README records, it is
rebuilt byte for byte from its sources, and every label is well formed. Nothing here reads the set
with the extraction rules: it is measured only by ``benchmarks/compare_extract_rules.py --heldout``."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from _answer_sets import check_labels, read_rows
from _files import import_file

V8 = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "extraction_v8"
HELDOUT = V8 / "heldout.jsonl"


def rows() -> list[dict]:
    return read_rows(HELDOUT)


def test_the_set_is_the_one_frozen_in_its_readme():
    recorded = re.search(r"sha256 ([0-9a-f]{64})  heldout\.jsonl", (V8 / "README.md").read_text(encoding="utf-8"))
    assert recorded, "README.md must record the set's sha256"
    assert hashlib.sha256(HELDOUT.read_bytes()).hexdigest() == recorded.group(1), (
        "heldout.jsonl changed after it was frozen: a held-out set is never edited; write a new one")


def test_the_set_is_rebuilt_byte_for_byte_from_its_sources():
    build = import_file(V8 / "build.py", "extraction_v8_build")
    rebuilt = build.paraphrase_rows() + build.gemma_rows()
    assert "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rebuilt) == HELDOUT.read_text(encoding="utf-8")


def test_every_label_is_well_formed_and_the_set_has_its_promised_size():
    check_labels(rows(), HELDOUT.name, min_rows=600, abstain=(0.1, 0.3), family_aliases=True)



def test_the_four_misreadings_of_issue_33_are_in_the_set():
    outputs = {(r["output"], r["kind"]): r["gold"] for r in rows()}
    assert outputs[("Roughly four fifths of it lies under an ice sheet.", "yes_no")] == "yes"
    assert outputs[("Sydney is the largest city; the capital is Canberra.", "text")] == "Canberra"
    assert outputs[("Sydney is the largest city; the capital is Canberra.", "choice")] == "C"
    assert outputs[("I'd estimate roughly 40 to 50, probably 45.", "number")] == "45"
    assert outputs[("Hepatitis mainly damages the liver.", "text")] == "liver"
