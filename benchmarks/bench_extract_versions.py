"""Throughput of this checkout's answer reader beside another revision's, timed in alternation so that a shared
machine's load falls on both alike.

Two worker processes, one per version (the other revision's ``src`` taken with ``git archive``), read the same
outputs: the throughput mix of ``bench_extract.py`` (the v2 and tuning sets, a quarter of the outputs per kind;
question and option readings cached, as in a real evaluation, no cache keyed on the output). After one untimed
pass each, they read the same chunks in turn, with the verifier (the default) and with the rules alone, the
version that goes first alternating from chunk to chunk. Each figure is outputs per CPU second of its process;
the ratio of the two is what a change bought, the absolute figures are what the machine gave at the time.

    python benchmarks/bench_extract_versions.py --against fe66a7a            # 20,000 outputs
    python benchmarks/bench_extract_versions.py --against main --outputs 200000 --chunk 1000
    python benchmarks/bench_extract_versions.py --revision a858b15 --against fe66a7a   # two revisions
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_extract import DATA, DATA_V4, DATA_V5, DATA_V6DEV, DATA_V7, KINDS, heldout_files, read_files, read_rows, v3_files

ROOT = Path(__file__).resolve().parents[1]
#: The revision before the session that made the reader faster (issue 33, 29 November): the default to compare with.
BEFORE = "fe66a7a"

WORKER = r"""
import json, sys, time
from gengap.extract import extract
rows = json.loads(sys.stdin.readline())
for r in {json.dumps(r, sort_keys=True): r for r in rows}.values():  # each distinct output once
    extract(r["output"], r["kind"], question=r.get("question"), choices=r.get("choices"), verify=False)
    extract(r["output"], r["kind"], question=r.get("question"), choices=r.get("choices"))
print("ready", flush=True)
for line in sys.stdin:
    start, stop, verify = json.loads(line)
    cpu = time.process_time()
    for r in rows[start:stop]:
        extract(r["output"], r["kind"], question=r.get("question"), choices=r.get("choices"), verify=verify)
    print(time.process_time() - cpu, flush=True)
"""


def mix(n: int) -> list[dict]:
    """The outputs ``bench_extract.py --throughput-only`` reads: a quarter of ``n`` per kind, its pool repeated."""
    rows = read_rows(DATA / "dev.jsonl") + read_rows(DATA / "heldout.jsonl") + read_files(v3_files("dev"))
    rows += read_files(v3_files("heldout")) + [r for folder in (DATA_V4, DATA_V5, DATA_V7) if folder.is_dir()
                                                for r in read_files(heldout_files(folder))]
    rows += read_files([DATA_V6DEV]) if DATA_V6DEV.is_dir() else []
    items = []
    for kind in KINDS:
        pool = [{k: r.get(k) for k in ("output", "kind", "question", "choices")} for r in rows if r["kind"] == kind]
        items += [pool[i % len(pool)] for i in range(n // 4)]
    return items


def source(revision: str, folder: Path) -> Path:
    """The ``src`` folder of ``revision``, written under ``folder`` (``git archive``)."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision, "src"], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(folder, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))  # type: ignore[arg-type]
    return folder / "src"


def start(src: Path, rows: list[dict]) -> subprocess.Popen[str]:
    """A worker reading with the gengap of ``src``, given the outputs and warmed up on them."""
    worker = subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": str(src)}, cwd=tempfile.gettempdir())
    assert worker.stdin is not None
    worker.stdin.write(json.dumps(rows) + "\n")
    worker.stdin.flush()
    return worker


def ask(worker: subprocess.Popen[str], message: Any) -> str:
    """Send one request to a worker and read its one-line answer."""
    assert worker.stdin is not None and worker.stdout is not None
    worker.stdin.write(json.dumps(message) + "\n")
    worker.stdin.flush()
    return worker.stdout.readline().strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--against", default=BEFORE, help="the git revision to compare with")
    parser.add_argument("--revision", help="a git revision to measure instead of this checkout's working tree")
    parser.add_argument("--outputs", type=int, default=20_000, help="outputs read by each version, each way")
    parser.add_argument("--chunk", type=int, default=500, help="outputs per timed chunk")
    args = parser.parse_args()
    rows = mix(args.outputs)
    with tempfile.TemporaryDirectory() as tmp:
        ours = source(args.revision, Path(tmp) / "ours") if args.revision else ROOT / "src"
        workers = {args.revision or "this checkout": start(ours, rows), args.against: start(source(args.against, Path(tmp) / "theirs"), rows)}
        for worker in workers.values():
            assert worker.stdout is not None and worker.stdout.readline().strip() == "ready"
        cpu = {(name, verify, kind): 0.0 for name in workers for verify in (True, False) for kind in KINDS}
        edges = sorted({*range(0, len(rows), args.chunk), *(i for i in range(1, len(rows)) if rows[i]["kind"] != rows[i - 1]["kind"]),
                        len(rows)})  # every chunk holds one kind
        for number, (first, stop) in enumerate(zip(edges, edges[1:])):
            kind = rows[first]["kind"]
            for verify in (True, False):
                order = list(workers) if (number + verify) % 2 == 0 else list(workers)[::-1]  # each goes first half the time
                for name in order:
                    cpu[name, verify, kind] += float(ask(workers[name], [first, stop, verify]))
        for worker in workers.values():
            assert worker.stdin is not None
            worker.stdin.close()
            worker.wait()
    per_kind = {kind: sum(r["kind"] == kind for r in rows) for kind in KINDS}
    print(f"Outputs per CPU second, {len(rows):,} outputs each way, chunks of {args.chunk:,} in alternation "
          "(one process per version; the machine may be shared)")
    names = list(workers)
    print(f"  {'':8} {'with the verifier':>40}   {'rules alone':>40}")
    print(f"  {'kind':8} " + "   ".join(f"{names[0]:>14} {names[1][:12]:>14} {'ratio':>8}" for _ in range(2)))
    for kind in [*KINDS, "all"]:
        kinds = KINDS if kind == "all" else [kind]
        n = sum(per_kind[k] for k in kinds)
        cells = []
        for verify in (True, False):
            a, b = (n / sum(cpu[name, verify, k] for k in kinds) for name in names)
            cells.append(f"{a:14,.0f} {b:14,.0f} {a / b:7.2f}x")
        print(f"  {kind:8} " + "   ".join(cells))


if __name__ == "__main__":
    main()
