"""The v9dev tuning set of answer readings: it is what its build script writes from its sources, byte for
byte, and every label is well formed. (A tuning set: reading its rows and tuning on them is allowed.)"""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from pathlib import Path

from _files import import_file
from gengap.extract import KINDS

V9 = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "extraction_v9dev"
DEV = V9 / "dev.jsonl"


def rows() -> list[dict]:
    return [json.loads(line) for line in DEV.read_text(encoding="utf-8").splitlines()]


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
    data = rows()
    assert len(data) >= 500 and len({r["id"] for r in data}) == len(data)
    by_source = Counter(r["source"] for r in data)
    assert by_source["gemma-3-270m"] >= 200 and by_source["paraphrase"] >= 300
    assert {r["kind"] for r in data} == set(KINDS)
    assert 0.2 <= sum(r["gold"] is None for r in data) / len(data) <= 0.35
    for r in data:
        where = f"{DEV.name} {r['id']}"
        assert r["output"] is not None and r["question"], where
        gold = r["gold"]
        if r["kind"] == "choice":
            assert len(r["choices"]) >= 2, where
            assert gold is None or gold in "ABCDEFGH"[:len(r["choices"])], where
        else:
            assert r["choices"] is None, where
        if gold is None:
            assert "aliases" not in r, where
        elif r["kind"] == "number":
            Fraction(gold)  # a plain number a grader wrote down
        elif r["kind"] == "yes_no":
            assert gold in ("yes", "no"), where
        elif r["kind"] == "text":
            assert gold.strip() and all(a.strip() for a in r.get("aliases", [])), where
