"""Check the extraction_v3 labelled sets: every line parses and every label is usable.

Run: python benchmarks/data/extraction_v3/validate.py [FOLDER ...]

With no argument it checks every subfolder of extraction_v3 that holds a ``dev.jsonl`` or a
``heldout.jsonl`` (``chat/``, and any other writer's folder). Ids must be unique across all of them.
Prints counts per folder, kind and split, and exits non-zero naming the file, line and field of the
first problem with what to do about it.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

KINDS = ("number", "choice", "yes_no", "text")
SPLITS = ("dev", "heldout")
SOURCES = ("written", "gemma-270m")
# The pattern families of extraction_v2 (its README describes them); a new family is added here
# only together with a line in the README of the folder that uses it.
PATTERNS = frozenset({
    "answer_first_then_explanation", "bare_answer_then_blank_line", "answer_inside_sentence",
    "verdict_without_yes_no_words", "idiom_with_no_in_yes_answer", "option_by_text_or_paraphrase",
    "option_by_number_or_ordinal", "letter_then_other_letters_discussed", "self_correction",
    "markdown_table_then_notes", "number_words", "percent_vs_decimal", "articles_quotes_around_answer",
    "final_answer_marker", "chain_of_thought_last", "base_model_continuation", "refusal_or_no_answer",
    "hedged_answer", "plain_short",
    # added by base/ (base/README.md describes them)
    "truncated_output", "prompt_echo", "number_format", "repeated_lines",
    # added by ../extraction_v5 (its README describes them)
    "structured_answer_format", "answer_in_other_language",
})
REQUIRED = ("id", "kind", "question", "choices", "output", "gold", "pattern", "difficulty", "source")


class LabelError(ValueError):
    """A line of a labelled file that cannot be used as it is."""


def split_of(item_id: str) -> str:
    """The frozen split rule: odd sha256 of the id -> heldout, even -> dev.

    >>> split_of("text-w1b01-001") in ("dev", "heldout")
    True
    """
    return "heldout" if int(hashlib.sha256(item_id.encode("utf-8")).hexdigest(), 16) % 2 else "dev"


def check_row(row: object, where: str) -> None:
    """Raise LabelError naming ``where`` and the field when ``row`` is not a usable labelled item."""
    if not isinstance(row, dict):
        raise LabelError(f"{where}: the line is not a JSON object; write one object per line")
    for field in REQUIRED:
        if field not in row:
            raise LabelError(f"{where}: field '{field}' is missing; add it")
    unknown = set(row) - set(REQUIRED) - {"aliases"}
    if unknown:
        raise LabelError(f"{where}: unknown field(s) {sorted(unknown)}; remove them or document them")
    item_id, kind, gold, choices = row["id"], row["kind"], row["gold"], row["choices"]
    if not isinstance(item_id, str) or not item_id.startswith(f"{kind}-"):
        raise LabelError(f"{where}: field 'id' {item_id!r} must be a string starting with the kind ('{kind}-')")
    if kind not in KINDS:
        raise LabelError(f"{where}: field 'kind' is {kind!r}; use one of {list(KINDS)}")
    if row["pattern"] not in PATTERNS:
        raise LabelError(f"{where}: field 'pattern' is {row['pattern']!r}; not a known family (see PATTERNS)")
    if row["difficulty"] not in ("easy", "hard"):
        raise LabelError(f"{where}: field 'difficulty' is {row['difficulty']!r}; use easy or hard")
    if row["source"] not in SOURCES:
        raise LabelError(f"{where}: field 'source' is {row['source']!r}; use one of {list(SOURCES)}")
    for field in ("question", "output"):
        if not isinstance(row[field], str) or (field == "question" and not row[field].strip()):
            raise LabelError(f"{where}: field '{field}' must be a string (the question non-empty)")
    if kind == "choice":
        if not isinstance(choices, list) or not 2 <= len(choices) <= 5:
            raise LabelError(f"{where}: field 'choices' must list 2-5 options for a choice item")
        if not all(isinstance(c, str) and c.strip() for c in choices) or len(set(choices)) != len(choices):
            raise LabelError(f"{where}: field 'choices' must hold distinct non-empty strings")
        if gold is not None and (not isinstance(gold, str) or len(gold) != 1 or gold not in "ABCDE"[: len(choices)]):
            raise LabelError(f"{where}: field 'gold' {gold!r} is not a letter within the {len(choices)} choices")
    elif choices is not None:
        raise LabelError(f"{where}: field 'choices' must be null for kind {kind}")
    aliases = row.get("aliases")
    if aliases is not None:
        if kind != "text" or not isinstance(aliases, list) or not all(isinstance(a, str) and a.strip() for a in aliases):
            raise LabelError(f"{where}: field 'aliases' is only for text items and must list non-empty strings")
        if gold is None:
            raise LabelError(f"{where}: field 'aliases' given for a null gold; remove it")
    if gold is None:
        return
    if not isinstance(gold, str) or not gold.strip() or gold != gold.strip():
        raise LabelError(f"{where}: field 'gold' {gold!r} must be a non-empty string without outer spaces, or null")
    if kind == "number":
        if "," in gold or "_" in gold:
            raise LabelError(f"{where}: field 'gold' {gold!r} is not plain digits; drop the separators")
        try:
            Fraction(gold)
        except (ValueError, ZeroDivisionError):
            raise LabelError(f"{where}: field 'gold' {gold!r} does not parse as a number") from None
    if kind == "yes_no" and gold not in ("yes", "no"):
        raise LabelError(f"{where}: field 'gold' {gold!r} must be 'yes' or 'no'")


def check_file(path: Path, split: str, seen: dict[str, str], *, by_rule: bool = True) -> Counter:
    """Check one split file; ``seen`` maps ids to where they were first met. Returns counts per kind.
    ``by_rule=False``: a held-out-only set (every item held out), not split by the id rule."""
    counts: Counter = Counter()
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        where = f"{path}:{n}"
        if not line.strip():
            raise LabelError(f"{where}: blank line; remove it")
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise LabelError(f"{where}: not valid JSON ({err})") from None
        check_row(row, where)
        if row["id"] in seen:
            raise LabelError(f"{where}: id {row['id']!r} appears twice (first at {seen[row['id']]}); rename one")
        seen[row["id"]] = where
        if by_rule and split_of(row["id"]) != split:
            raise LabelError(f"{where}: id {row['id']!r} belongs to {split_of(row['id'])} by the split rule; move it")
        counts[row["kind"]] += 1
    return counts


def folders_under(root: Path) -> list[Path]:
    """The subfolders of ``root`` that hold a split file, sorted by name."""
    return sorted(p for p in root.iterdir() if p.is_dir() and any((p / f"{s}.jsonl").exists() for s in SPLITS))


def main(argv: list[str]) -> int:
    """Check the folders named in ``argv`` (default: every set under extraction_v3); 0 when all pass."""
    here = Path(__file__).resolve().parent
    fresh = here.parent / "extraction_v4"  # a held-out-only set written after v3 was tuned on
    folders = [Path(a) for a in argv] or [*folders_under(here), *([fresh] if fresh.is_dir() else [])]
    if not folders:
        print("no folder with dev.jsonl or heldout.jsonl found", file=sys.stderr)
        return 1
    seen: dict[str, str] = {}
    try:
        for folder in folders:
            for split in SPLITS:
                path = folder / f"{split}.jsonl"
                held_out_only = not (folder / "dev.jsonl").exists() and (folder / "heldout.jsonl").exists()
                if not path.exists():
                    if held_out_only:
                        continue
                    raise LabelError(f"{path}: missing; every set has heldout.jsonl, and dev.jsonl unless all of it is "
                                     "held out")
                counts = check_file(path, split, seen, by_rule=not held_out_only)
                line = "  ".join(f"{k} {counts[k]:4d}" for k in KINDS)
                print(f"{folder.name:10s} {split:8s} {line}  total {sum(counts.values()):4d}")
    except LabelError as err:
        print(err, file=sys.stderr)
        return 1
    print(f"all {len(seen)} items valid")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
