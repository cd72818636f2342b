"""The verifier's cost per reading: ``features()`` of this checkout beside that of an earlier revision, timed
in alternation on the same readings in one process (so a shared machine's load falls on both alike), and
checked to give bit-identical rows (the shipped model's inputs must not change).

The readings are those the rules make (``verify=False``) of the tuning outputs of ``bench_extract.py`` (the
v2 and v3 development sets); the rules' own time is not counted.

    python benchmarks/bench_verify_features.py                    # against the revision before the speed-up
    python benchmarks/bench_verify_features.py --before REV --rounds 7
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_extract import DATA, read_files, read_rows, v3_files

from gengap.extract import _verify as now
from gengap.extract import extract

ROOT = Path(__file__).resolve().parents[1]
#: The last revision whose features() is the one the shipped model was trained with, unchanged.
BEFORE = "891c5f225d750aa1bb4d90e665d27a6b71c67a92"


def module_at(revision: str) -> Any:
    """``gengap.extract._verify`` as it was at ``revision`` (imported from its text, beside this checkout's)."""
    text = subprocess.run(["git", "show", f"{revision}:src/gengap/extract/_verify.py"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp(prefix="gengap-verify-")) / "verify_before.py"
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("gengap.extract._verify_before", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


def readings() -> list[tuple[Any, ...]]:
    """(output, kind, reading, question, choices) of every output of the tuning sets the rules read."""
    rows = read_rows(DATA / "dev.jsonl") + read_rows(DATA / "heldout.jsonl") + read_files(v3_files("dev"))
    found = []
    for r in rows:
        got = extract(r["output"], r["kind"], question=r.get("question"), choices=r.get("choices"), verify=False)
        if got.value is not None:
            found.append((r["output"], r["kind"], got, r.get("question"), r.get("choices")))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", default=BEFORE, help="the revision to compare with (default: before the speed-up)")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds of each, in alternation")
    args = parser.parse_args()
    old = module_at(args.before)
    items = readings()
    differ = sum(old.features(*item) != now.features(*item) for item in items)
    times: dict[str, list[float]] = {"before": [], "now": []}
    for _ in range(args.rounds):
        for name, features in (("before", old.features), ("now", now.features)):
            start = time.process_time()
            for item in items:
                features(*item)
            times[name].append((time.process_time() - start) / len(items) * 1e6)
    print(f"features() per reading, {len(items):,} readings of the tuning outputs, {args.rounds} rounds in alternation "
          "(CPU microseconds; one process; the machine may be shared)")
    print(f"  {'':<22} {'median':>8} {'min':>8} {'max':>8}")
    for name, label in (("before", f"before ({args.before[:10]})"), ("now", "this checkout")):
        print(f"  {label:<22} {statistics.median(times[name]):8.1f} {min(times[name]):8.1f} {max(times[name]):8.1f}")
    print(f"  speed-up (medians): {statistics.median(times['before']) / statistics.median(times['now']):.2f}x; "
          f"rows that differ: {differ} of {len(items):,}" + ("" if differ == 0 else "  <- the shipped model's inputs CHANGED"))


if __name__ == "__main__":
    main()
