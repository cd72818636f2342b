"""Two versions of the extraction rules on the same labelled outputs: accuracy, and the paired gain.

Reads every output with the rules of this checkout and with the rules of another git revision
(checked out into a temporary worktree and run in a subprocess with its own ``src``), judges both
with ``bench_extract.is_correct``, and prints each version's accuracy with its 95% Clopper-Pearson
interval, per kind and overall, then the paired difference (gengap's paired interval, held to the
exact McNemar interval), the outputs fixed and broken, and the exact McNemar p-value.

    python benchmarks/compare_extract_rules.py --against 233169a --heldout      # once, after the freeze
    python benchmarks/compare_extract_rules.py --against 233169a benchmarks/data/extraction_v5/heldout.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from gengap.analysis.intervals import paired_test

try:
    from benchmarks.bench_extract import DATA_V7, KINDS, cell, heldout_files, is_correct, read_all, read_files
except ImportError:  # run as a script from the benchmarks folder
    from bench_extract import DATA_V7, KINDS, cell, heldout_files, is_correct, read_all, read_files

ROOT = Path(__file__).resolve().parent.parent

READ_CODE = r"""
import json, sys
from gengap.extract import extract
rows = json.loads(sys.stdin.read())
print(json.dumps([extract(r["output"], r["kind"], question=r.get("question"), choices=r.get("choices")).value
                  for r in rows]))
"""


def read_with(revision: str, rows: list[dict]) -> list[str | None]:
    """The values the rules of ``revision`` read from ``rows`` (a temporary worktree, its own process)."""
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "rules"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(tree), revision], check=True)
        try:
            env = {**os.environ, "PYTHONPATH": str(tree / "src")}
            done = subprocess.run([sys.executable, "-c", READ_CODE], input=json.dumps(rows), env=env,
                                  capture_output=True, text=True, check=True)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=True)
    return json.loads(done.stdout)


def comparison_lines(rows: list[dict], now: list[str | None], before: list[str | None], label: str) -> list[str]:
    """Accuracy of both versions per kind and overall, then the paired gain with McNemar's test."""
    right_now = [is_correct(r["kind"], v, r["gold"], r.get("aliases")) for r, v in zip(rows, now)]
    right_before = [is_correct(r["kind"], v, r["gold"], r.get("aliases")) for r, v in zip(rows, before)]
    lines = [f"   {'kind':8} {'n':>5}   {'these rules':24} {label + ' rules':24}"]
    for kind in [*KINDS, "all"]:
        idx = [i for i, r in enumerate(rows) if kind in ("all", r["kind"])]
        if idx:
            k_now, k_before = sum(right_now[i] for i in idx), sum(right_before[i] for i in idx)
            lines.append(f"   {kind:8} {len(idx):5}   {cell(k_now, len(idx)):24} {cell(k_before, len(idx)):24}")
    test = paired_test([float(x) for x in right_now], [float(x) for x in right_before])
    fixed = sum(a and not b for a, b in zip(right_now, right_before))
    broken = sum(b and not a for a, b in zip(right_now, right_before))
    lines.append(f"   paired gain {test.effect.estimate:+.1%} [{test.effect.low:+.1%}, {test.effect.high:+.1%}]: "
                 f"{fixed} outputs fixed, {broken} broken; exact McNemar p = {test.p_value:.4g}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", type=Path, nargs="*", help="labelled .jsonl files or folders")
    parser.add_argument("--against", required=True, help="git revision whose rules to compare with (e.g. 233169a)")
    parser.add_argument("--heldout", action="store_true",
                        help="the fresh held-out set (extraction_v7): once, after the rules are frozen")
    args = parser.parse_args()
    paths = list(args.files) + (heldout_files(DATA_V7) if args.heldout else [])
    if not paths:
        parser.error("name labelled files, or pass --heldout")
    rows = read_files(paths)
    print(f"{len(rows)} outputs from {', '.join(p.name for p in paths)}")
    print("\n".join(comparison_lines(rows, read_all(rows), read_with(args.against, rows), args.against)))


if __name__ == "__main__":
    main()
