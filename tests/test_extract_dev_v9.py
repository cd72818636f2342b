"""The v9dev tuning set of answer readings: it is what its build script writes from its sources, byte for
byte, and every label is well formed. (A tuning set: reading its rows and tuning on them is allowed.)"""

from __future__ import annotations

import json
from pathlib import Path

from _answer_sets import check_labels, read_rows
from _files import import_file

V9 = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "extraction_v9dev"
DEV = V9 / "dev.jsonl"


def rows() -> list[dict]:
    return read_rows(DEV)


def test_the_set_is_rebuilt_byte_for_byte_from_its_sources():
    build = import_file(V9 / "build.py", "extraction_v9dev_build")
    rebuilt = build.paraphrase_rows() + build.gemma_rows()
    assert "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rebuilt) == DEV.read_text(encoding="utf-8")


def test_every_model_output_is_labelled_once_and_the_raw_outputs_match_the_questions():
    questions = import_file(V9 / "questions.py", "extraction_v9dev_questions").QUESTIONS
    raw = [json.loads(line) for line in (V9 / "raw_outputs.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(raw) == 2 * len(questions)
    for r in raw:
        kind, question, choices, _ = questions[r["q"]]
        assert (r["kind"], r["question"], r["choices"]) == (kind, question, choices)
    labelled = [int(line.split("\t")[0]) for line in (V9 / "gemma_labels.tsv").read_text(encoding="utf-8").splitlines()
                if line.strip() and not line.startswith("#")]
    assert sorted(labelled) == list(range(1, len(raw) + 1))


def test_every_label_is_well_formed_and_the_set_has_its_promised_size():
    check_labels(rows(), DEV.name, min_rows=500, abstain=(0.2, 0.35))
