"""Two versions of the extraction rules on the same labelled outputs: accuracy, abstention, precision, the paired gain.

Reads every output with the rules of this checkout and with the rules of another git revision
(checked out into a temporary worktree and run in a subprocess with its own ``src``), judges both
with ``bench_extract.is_correct``, and prints for each version, per kind and overall (and per source
when the rows name one: hand-written paraphrases, real model outputs):

- accuracy with its 95% Clopper-Pearson interval (an output whose gold is null or empty commits to no
  answer; leaving it unextracted is the right reading);
- the abstention rate beside it (share of outputs left unextracted);
- the precision of the answers read with its interval (right readings / readings made): a wrong
  reading is a silent scoring error, an abstention is not;

then the paired difference in accuracy (gengap's paired interval, held to the exact McNemar
interval), the outputs fixed and broken, the exact McNemar p-value, and how many readings differ at all
(value or rule: a change meant to keep every reading, such as a speed-up, must show 0).

    python benchmarks/compare_extract_rules.py --against main --heldout     # the fresh held-out set (extraction_v8)
    python benchmarks/compare_extract_rules.py --against 233169a --v7       # the previous one (tuning data now)
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
from gengap.extract import extract

try:
    from benchmarks.bench_extract import DATA_V7, DATA_V8, KINDS, cell, heldout_files, is_correct, read_files, was_read
except ImportError:  # run as a script from the benchmarks folder
    from bench_extract import DATA_V7, DATA_V8, KINDS, cell, heldout_files, is_correct, read_files, was_read

ROOT = Path(__file__).resolve().parent.parent

READ_CODE = r"""
import json, sys
from gengap.extract import extract
rows = json.loads(sys.stdin.read())
print(json.dumps([[e.value, e.rule] for e in (extract(r["output"], r["kind"], question=r.get("question"),
                                                       choices=r.get("choices")) for r in rows)]))
"""


def readings_with(revision: str, rows: list[dict]) -> list[tuple[str | None, str]]:
    """(value, rule) of every row as the rules of ``revision`` read it (a temporary worktree, its own process)."""
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "rules"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(tree), revision], check=True)
        try:
            env = {**os.environ, "PYTHONPATH": str(tree / "src")}
            done = subprocess.run([sys.executable, "-c", READ_CODE], input=json.dumps(rows), env=env,
                                  capture_output=True, text=True, check=True, cwd=tmp)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=True)
    return [(v, r) for v, r in json.loads(done.stdout)]


def version_cells(rows: list[dict], got: list[str | None], idx: list[int]) -> str:
    """One version on the rows ``idx``: accuracy [95% CI], abstention rate, precision of the readings [95% CI] of m."""
    right = sum(is_correct(rows[i]["kind"], got[i], rows[i]["gold"], rows[i].get("aliases")) for i in idx)
    read = [i for i in idx if was_read(got[i])]
    right_read = sum(is_correct(rows[i]["kind"], got[i], rows[i]["gold"], rows[i].get("aliases")) for i in read)
    abstained = 1 - len(read) / len(idx)
    return f"{cell(right, len(idx)):24} {abstained:7.1%}  {cell(right_read, len(read)):24} {len(read):>5}"


def comparison_lines(rows: list[dict], now: list[str | None], before: list[str | None], label: str) -> list[str]:
    """Per kind, overall and per source: both versions' accuracy, abstention and precision; then the
    paired gain in accuracy with McNemar's test."""
    right_now = [is_correct(r["kind"], v, r["gold"], r.get("aliases")) for r, v in zip(rows, now)]
    right_before = [is_correct(r["kind"], v, r["gold"], r.get("aliases")) for r, v in zip(rows, before)]
    block = f"{'accuracy [95% CI]':24} {'abstain':>7}  {'precision [95% CI]':24} {'read':>5}"
    lines = [f"   {'':18} {'':>5}   {'these rules':<{len(block)}}   {label + ' rules'}",
             f"   {'kind / source':18} {'n':>5}   {block}   {block}"]
    groups = [(kind, [i for i, r in enumerate(rows) if kind in ("all", r["kind"])]) for kind in [*KINDS, "all"]]
    sources = sorted({str(r["source"]) for r in rows if r.get("source")})
    if len(sources) > 1:
        groups += [(f"source {s}", [i for i, r in enumerate(rows) if str(r.get("source")) == s]) for s in sources]
    for name, idx in groups:
        if idx:
            lines.append(f"   {name:18} {len(idx):5}   {version_cells(rows, now, idx)}   {version_cells(rows, before, idx)}")
    wrong_now = sum(was_read(v) and not ok for v, ok in zip(now, right_now))
    wrong_before = sum(was_read(v) and not ok for v, ok in zip(before, right_before))
    lines.append(f"   wrong readings (an answer read, not the right one): {wrong_now} with these rules, "
                 f"{wrong_before} with {label}'s")
    test = paired_test([float(x) for x in right_now], [float(x) for x in right_before])
    fixed = sum(a and not b for a, b in zip(right_now, right_before))
    broken = sum(b and not a for a, b in zip(right_now, right_before))
    lines.append(f"   paired gain {test.effect.estimate:+.1%} [{test.effect.low:+.1%}, {test.effect.high:+.1%}]: "
                 f"{fixed} outputs fixed, {broken} broken; exact McNemar p = {test.p_value:.4g}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", type=Path, nargs="*", help="labelled .jsonl files or folders")
    parser.add_argument("--against", required=True, help="git revision whose rules to compare with (e.g. main, 233169a)")
    parser.add_argument("--heldout", "--v8", dest="heldout", action="store_true",
                        help="the fresh held-out set (extraction_v8): after the rules are frozen, never while tuning")
    parser.add_argument("--v7", action="store_true", help="the previous held-out set (extraction_v7; tuning data now)")
    args = parser.parse_args()
    paths = list(args.files) + (heldout_files(DATA_V8) if args.heldout else []) + (heldout_files(DATA_V7) if args.v7 else [])
    if not paths:
        parser.error("name labelled files, or pass --heldout (--v8) or --v7")
    rows = read_files(paths)
    print(f"{len(rows)} outputs from {', '.join(p.name for p in paths)}")
    now = [(e.value, e.rule) for e in (extract(r["output"], r["kind"], question=r.get("question"), choices=r.get("choices"))
                                       for r in rows)]
    before = readings_with(args.against, rows)
    print("\n".join(comparison_lines(rows, [v for v, _ in now], [v for v, _ in before], args.against)))
    differ = sum(a != tuple(b) for a, b in zip(now, before))
    print(f"   readings that differ in value or rule (a reading the verifier withholds has rule 'verifier'): {differ} of {len(rows)}")


if __name__ == "__main__":
    main()
