"""Checks shared by the tests of the labelled answer-reading sets (v8 held out, v9dev for tuning)."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from pathlib import Path

from gengap.extract import KINDS


def read_rows(path: Path) -> list[dict]:
    """The rows of a JSONL answer set, in order."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def check_labels(data: list[dict], name: str, *, min_rows: int, abstain: tuple[float, float],
                 family_aliases: bool = False) -> None:
    """Every label of ``data`` is well formed for its kind; the set has its promised size, sources and
    share of outputs that commit to nothing (gold null) between ``abstain[0]`` and ``abstain[1]``. With
    ``family_aliases`` a row that abstains may keep its family's aliases (v8 writes them on every row)."""
    assert len(data) >= min_rows and len({r["id"] for r in data}) == len(data)
    by_source = Counter(r["source"] for r in data)
    assert by_source["gemma-3-270m"] >= 200 and by_source["paraphrase"] >= 300
    assert {r["kind"] for r in data} == set(KINDS)
    low, high = abstain
    assert low <= sum(r["gold"] is None for r in data) / len(data) <= high
    for r in data:
        where = f"{name} {r['id']}"
        assert r["output"] is not None and r["question"], where
        gold = r["gold"]
        if r["kind"] == "choice":
            assert len(r["choices"]) >= 2, where
            assert gold is None or gold in "ABCDEFGH"[:len(r["choices"])], where
        else:
            assert r["choices"] is None, where
        if gold is None:
            assert family_aliases or "aliases" not in r, where
        elif r["kind"] == "number":
            Fraction(gold)  # a plain number a grader wrote down
        elif r["kind"] == "yes_no":
            assert gold in ("yes", "no"), where
        elif r["kind"] == "text":
            assert gold.strip() and all(a.strip() for a in r.get("aliases", [])), where
