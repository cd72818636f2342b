"""Check the extraction_v2 labelled files: every line parses and every label is usable.

Run: python benchmarks/data/extraction_v2/validate.py [FOLDER]
Prints counts per kind x split and exits non-zero naming file, line and field on the first problem.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

KINDS = {"number", "choice", "yes_no", "text"}
PATTERNS = {
    "answer_first_then_explanation", "bare_answer_then_blank_line", "answer_inside_sentence",
    "verdict_without_yes_no_words", "idiom_with_no_in_yes_answer", "option_by_text_or_paraphrase",
    "option_by_number_or_ordinal", "letter_then_other_letters_discussed", "self_correction",
    "markdown_table_then_notes", "number_words", "percent_vs_decimal", "articles_quotes_around_answer",
    "final_answer_marker", "chain_of_thought_last", "base_model_continuation", "refusal_or_no_answer",
    "hedged_answer", "plain_short",
}
REQUIRED = ("id", "kind", "question", "choices", "output", "gold", "pattern", "difficulty", "source")


def split_of(item_id: str) -> str:
    """The frozen split rule: odd sha256 of the id -> heldout, even -> dev."""
    return "heldout" if int(hashlib.sha256(item_id.encode("utf-8")).hexdigest(), 16) % 2 else "dev"


def check_row(row: dict, where: str) -> None:
    for field in REQUIRED:
        if field not in row:
            raise ValueError(f"{where}: field '{field}' is missing; add it")
    kind, gold, choices = row["kind"], row["gold"], row["choices"]
    if kind not in KINDS:
        raise ValueError(f"{where}: field 'kind' is {kind!r}; use one of {sorted(KINDS)}")
    if row["pattern"] not in PATTERNS:
        raise ValueError(f"{where}: field 'pattern' is {row['pattern']!r}; not a known family")
    if row["difficulty"] not in ("easy", "hard"):
        raise ValueError(f"{where}: field 'difficulty' must be easy or hard")
    if row["source"] not in ("written", "gemma-270m"):
        raise ValueError(f"{where}: field 'source' must be written or gemma-270m")
    if not isinstance(row["output"], str) or not isinstance(row["question"], str) or not row["question"]:
        raise ValueError(f"{where}: fields 'question' and 'output' must be strings")
    if kind == "choice":
        if not isinstance(choices, list) or not 2 <= len(choices) <= 5:
            raise ValueError(f"{where}: field 'choices' must list 2-5 options for a choice item")
        if gold is not None and (gold not in "ABCDE"[: len(choices)] or len(gold) != 1):
            raise ValueError(f"{where}: field 'gold' {gold!r} is not a letter within the {len(choices)} choices")
    elif choices is not None:
        raise ValueError(f"{where}: field 'choices' must be null for kind {kind}")
    if gold is None:
        return
    if not isinstance(gold, str) or not gold.strip():
        raise ValueError(f"{where}: field 'gold' must be a non-empty string or null")
    if kind == "number":
        try:
            value = Fraction(gold)
        except ValueError:
            raise ValueError(f"{where}: field 'gold' {gold!r} does not parse as a number") from None
        if gold != gold.strip() or "," in gold:
            raise ValueError(f"{where}: field 'gold' {gold!r} is not canonical digits")
        del value
    if kind == "yes_no" and gold not in ("yes", "no"):
        raise ValueError(f"{where}: field 'gold' must be yes or no")
    aliases = row.get("aliases")
    if aliases is not None and (kind != "text" or not all(isinstance(a, str) and a for a in aliases)):
        raise ValueError(f"{where}: field 'aliases' is only for text items and must list strings")


def main(folder: Path) -> int:
    seen: set[str] = set()
    counts: Counter = Counter()
    for split in ("dev", "heldout"):
        path = folder / f"{split}.jsonl"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            where = f"{path}:{n}"
            try:
                row = json.loads(line)
            except json.JSONDecodeError as err:
                raise ValueError(f"{where}: not valid JSON ({err})") from None
            check_row(row, where)
            if row["id"] in seen:
                raise ValueError(f"{where}: id {row['id']!r} appears twice")
            seen.add(row["id"])
            if split_of(row["id"]) != split:
                raise ValueError(f"{where}: id {row['id']!r} belongs to {split_of(row['id'])} by the split rule")
            counts[(row["kind"], split)] += 1
    for kind in sorted(KINDS):
        print(f"{kind:8s} dev {counts[(kind, 'dev')]:4d}  heldout {counts[(kind, 'heldout')]:4d}")
    print(f"total    {len(seen)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent))
