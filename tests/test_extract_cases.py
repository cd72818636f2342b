"""The extraction cases as data: one parametrised test per answer kind reads every case of
``tests/data/extract/<kind>.jsonl`` and expects its reading, or its abstention (``"expected": null``).

Each line holds ``output``, optionally ``question`` and ``choices``, the ``expected`` value and the
``principle`` the case shows (a careful reader's rule, not a rule's name). Add a case by adding a line.

The cases state what the rules read, so they are read with the verifier off (``verify=False``); the verifier
that runs after the rules has its own cases (``tests/data/extract/verifier.jsonl``, ``test_extract_verifier.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gengap.extract import KINDS, extract

CASES = Path(__file__).parent / "data" / "extract"
FIELDS = {"output", "question", "choices", "expected", "principle"}


def _cases(kind: str) -> list[Any]:
    path = CASES / f"{kind}.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [pytest.param(row, id=f"{kind}:{line_no}") for line_no, row in enumerate(rows, start=1)]


def _check(case: dict[str, Any], kind: str) -> None:
    got = extract(case["output"], kind, question=case.get("question"), choices=case.get("choices"), verify=False)
    assert got.value == case["expected"], f"{case['principle']} (read by {got.rule})"


@pytest.mark.parametrize("case", _cases("number"))
def test_number(case: dict[str, Any]) -> None:
    _check(case, "number")


@pytest.mark.parametrize("case", _cases("choice"))
def test_choice(case: dict[str, Any]) -> None:
    _check(case, "choice")


@pytest.mark.parametrize("case", _cases("yes_no"))
def test_yes_no(case: dict[str, Any]) -> None:
    _check(case, "yes_no")


@pytest.mark.parametrize("case", _cases("text"))
def test_text(case: dict[str, Any]) -> None:
    _check(case, "text")


def test_every_case_is_well_formed_and_appears_once() -> None:
    for kind in KINDS:
        seen = set()
        for param in _cases(kind):
            case = param.values[0]
            assert set(case) <= FIELDS and {"output", "expected", "principle"} <= set(case), param.id
            assert case["principle"].strip(), f"{param.id}: a case says which principle it shows"
            key = (case["output"], case.get("question"), json.dumps(case.get("choices")))
            assert key not in seen, f"{param.id} repeats an earlier case"
            seen.add(key)
