"""Assemble ``heldout.jsonl`` from the paraphrase families and the hand-labelled Gemma outputs.

Run once, when the set was frozen; ``README.md`` records the sha256 of the result and a test checks
it, so any later edit of the set shows.

    python benchmarks/data/extraction_v8/build.py
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
ABSTAIN = "-"


def paraphrase_rows(path: Path = HERE / "paraphrases.txt") -> list[dict]:
    """The rows of the paraphrase families (format described at the top of the file)."""
    rows: list[dict] = []
    family: dict = {}
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("> "):
            gold_field, _, output = line[2:].partition(" | ")
            gold = family["gold"] if gold_field.strip() == "=" else gold_field.strip()
            rows.append({"id": f"v8-p-{family['family']}-{sum(r['family'] == family['family'] for r in rows) + 1:02d}",
                         "kind": family["kind"], "question": family["question"], "choices": family.get("choices"),
                         "output": output.replace("\\n", "\n"), "gold": None if gold in (ABSTAIN, "null") else gold,
                         **({"aliases": family["aliases"]} if family.get("aliases") else {}),
                         "source": "paraphrase", "family": family["family"]})
            continue
        key, _, value = line.partition(": ")
        if key == "family":
            family = {"family": value.strip()}
        elif key in ("choices", "aliases"):
            family[key] = [v.strip() for v in value.split(" | ")]
        elif key in ("kind", "question", "gold"):
            family[key] = value.strip()
        else:
            raise ValueError(f"{path}, line {line_no}: unknown header {key!r}")
    return rows


def gemma_rows(raw: Path = HERE / "raw_outputs.jsonl", labels: Path = HERE / "gemma_labels.tsv") -> list[dict]:
    """The Gemma outputs that were read and labelled by hand (``gemma_labels.tsv``: line of the raw file, gold)."""
    outputs = [json.loads(line) for line in raw.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = []
    for line in labels.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        index, gold, *extra = line.split("\t")
        r = outputs[int(index)]
        aliases = (r.get("aliases") or []) if gold.strip() == r["gold"] else []
        aliases += [a.strip() for a in extra[0].split(" | ")] if extra and extra[0].strip() else []
        rows.append({"id": f"v8-g-{int(index):03d}", "kind": r["kind"], "question": r["question"], "choices": r["choices"],
                     "output": r["output"], "gold": None if gold.strip() == ABSTAIN else gold.strip(),
                     **({"aliases": aliases} if aliases else {}),
                     "source": "gemma-3-270m", "family": f"gemma_{r['style']}_t{r['temperature']:g}"})
    return rows


def main() -> None:
    rows = paraphrase_rows() + gemma_rows()
    with (HERE / "heldout.jsonl").open("w", encoding="utf-8") as sink:
        for row in rows:
            sink.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(rows)} rows written to {HERE / 'heldout.jsonl'}")


if __name__ == "__main__":
    main()
