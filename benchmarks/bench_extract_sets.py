"""Extraction accuracy per labelled set and answer kind, for comparing two versions of the rules.

Reads the tuning sets only (extraction_v2, v3, v4, v5 and every ``extraction_v6dev/*.jsonl`` batch),
never the frozen held-out ``extraction_v7``. Each output is read with the question and options it answers
and judged by ``bench_extract.is_correct``, the same judge as ``bench_extract.py``.

    python benchmarks/bench_extract_sets.py --kinds text yes_no
    python benchmarks/bench_extract_sets.py --kinds number choice --show-errors

To compare with other rules, point ``PYTHONPATH`` at another checkout's ``src``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from gengap.extract import extract

try:
    from benchmarks.bench_extract import KINDS, is_correct, read_files, read_rows, v3_files
except ImportError:  # run as a script from the benchmarks folder
    from bench_extract import KINDS, is_correct, read_files, read_rows, v3_files

DATA = Path(__file__).resolve().parent / "data"


def tuning_sets(root: Path = DATA) -> dict[str, list[dict]]:
    """The labelled tuning sets by name: v2, v3 (development and held-out parts), v4, v5 and each v6dev batch."""
    sets = {
        "v2": read_rows(root / "extraction_v2" / "dev.jsonl") + read_rows(root / "extraction_v2" / "heldout.jsonl"),
        "v3": read_files(v3_files("dev", root / "extraction_v3") + v3_files("heldout", root / "extraction_v3")),
        "v4": read_rows(root / "extraction_v4" / "heldout.jsonl"),
        "v5": read_rows(root / "extraction_v5" / "heldout.jsonl"),
    }
    for path in sorted((root / "extraction_v6dev").glob("*.jsonl"), key=lambda p: (len(p.stem), p.stem)):
        sets[f"v6dev/{path.stem}"] = read_rows(path)
    return sets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=KINDS, help="answer kinds to score")
    parser.add_argument("--show-errors", action="store_true", help="print each misreading with its rule")
    args = parser.parse_args()
    for name, rows in tuning_sets().items():
        for kind in args.kinds:
            picked = [r for r in rows if r["kind"] == kind]
            if not picked:
                continue
            right = 0
            for r in picked:
                found = extract(r["output"], kind, question=r.get("question"), choices=r.get("choices"))
                ok = is_correct(kind, found.value, r["gold"], r.get("aliases"))
                right += ok
                if not ok and args.show_errors:
                    print(f"  MISS {name} {r.get('id')} [{found.rule}] gold={r['gold']!r} got={found.value!r} <- {r['output'][:100]!r}")
            print(f"{name:28s} {kind:7s} {right:4d}/{len(picked):<4d} {right / len(picked):6.1%}")


if __name__ == "__main__":
    main()
