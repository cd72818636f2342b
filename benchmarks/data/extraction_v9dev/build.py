"""Assemble dev.jsonl (the v9dev tuning set) from paraphrases.txt and the labelled Gemma outputs.

Run as ``python benchmarks/data/extraction_v9dev/build.py``; the file it writes is the same byte for byte
on every run.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
LINE_BREAK = "⏎"


def _gold(field: str) -> tuple[str | None, list[str]]:
    """``-`` is no answer; ``gold|alias|alias`` a gold with the other spellings a grader accepts."""
    if field == "-":
        return None, []
    gold, *aliases = field.split("|")
    return gold, aliases


def _row(row_id: str, kind: str, question: str, choices: list[str] | None, output: str, field: str,
         source: str, family: str) -> dict:
    gold, aliases = _gold(field)
    row = {"id": row_id, "kind": kind, "question": question, "choices": choices, "output": output, "gold": gold}
    if aliases:
        row["aliases"] = aliases
    row.update(source=source, family=family)
    return row


def paraphrase_rows() -> list[dict]:
    rows: list[dict] = []
    family: list[str] = []
    count = 0
    for number, line in enumerate((HERE / "paraphrases.txt").read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("# "):
            continue
        if line.startswith("## "):
            family = [part.strip() for part in line[3:].split(" | ")]
            count = 0
            continue
        field, sep, output = line.partition("\t")
        if not sep or not family:
            raise ValueError(f"paraphrases.txt line {number}: expected 'gold<TAB>output' after a '## family' line")
        name, kind, question = family[:3]
        choices = [c.strip() for c in family[3].split(" ; ")] if len(family) > 3 else None
        count += 1
        rows.append(_row(f"v9p-{name}-{count:02d}", kind, question, choices, output.replace(LINE_BREAK, "\n"),
                         field, "paraphrase", name))
    return rows


def gemma_rows() -> list[dict]:
    raw = [json.loads(line) for line in (HERE / "raw_outputs.jsonl").read_text(encoding="utf-8").splitlines()]
    rows = []
    for line in (HERE / "gemma_labels.tsv").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        index, field = line.split("\t")[:2]
        if field == "skip":  # two careful graders could record it differently: left out
            continue
        r = raw[int(index) - 1]
        rows.append(_row(f"v9g-{int(index):03d}", r["kind"], r["question"], r["choices"], r["output"], field,
                         "gemma-3-270m", r["style"]))
    return rows


def main() -> None:
    rows = paraphrase_rows() + gemma_rows()
    with open(HERE / "dev.jsonl", "w", encoding="utf-8", newline="\n") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(rows)} rows written to {HERE / 'dev.jsonl'}")


if __name__ == "__main__":
    main()
