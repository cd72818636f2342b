"""Importing lm-evaluation-harness logs: speed and memory, and gengap's figures next to lm_eval's own.

1. Speed: a samples file of ``--rows`` documents (default 200,000; the issue's figure uses
   1,000,000) in lm_eval 0.4.13's exact layout, built by repeating the lines of the committed real
   run (``tests/data/lmeval/runs``, task ``gengap_arith`` or ``gengap_mc``) with fresh doc ids, and
   its results file. ``gengap import lm-eval`` runs in a child process; we print rows/s (documents
   stored per second, end to end: hashing, DuckDB's JSON reading, the store's transactions) and
   the child's peak resident memory.
2. Agreement with lm_eval: for every model and task of a real lm_eval run (the committed one, or
   ``--logs DIR`` of your own), lm_eval's printed value and stderr next to gengap's score and 95%
   interval (exact for 0/1 scores) from the imported rows.

    python benchmarks/bench_import.py                  # 200,000 rows + the comparison
    python benchmarks/bench_import.py --rows 1000000   # the issue's size
    python benchmarks/bench_import.py --task gengap_mc --rows 1000000
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNS = ROOT / "tests" / "data" / "lmeval" / "runs"


def make_samples(folder: Path, task: str, n_rows: int) -> Path:
    """Write a ``n_rows``-document samples file (first filter of the task) and its results file."""
    run = RUNS / "3ykv54sv"
    results_path = next(run.glob("results_*.json"))
    results = json.loads(results_path.read_text())
    stamp = results_path.name[len("results_"):-len(".json")]
    source = next(run.glob(f"samples_{task}_*.jsonl")).read_text().splitlines()
    first_filter = json.loads(source[0]).get("filter")
    lines = [line for line in source if json.loads(line).get("filter") == first_filter]
    heads = [len('{"doc_id": ') + len(str(json.loads(line)["doc_id"])) for line in lines]
    tails = [line[h:] for line, h in zip(lines, heads)]
    model = folder / "bench-model"
    model.mkdir(parents=True, exist_ok=True)
    with open(model / f"samples_{task}_{stamp}.jsonl", "w", encoding="utf-8") as f:
        block = []
        for i in range(n_rows):
            block.append(f'{{"doc_id": {i}{tails[i % len(tails)]}\n')
            if len(block) == 50_000:
                f.write("".join(block))
                block = []
        f.write("".join(block))
    reported = {k: v for k, v in results["results"][task].items() if "," not in k or k.endswith("," + first_filter)}
    results["results"] = {task: reported}
    results["configs"] = {task: results["configs"][task]}
    (model / results_path.name).write_text(json.dumps(results))
    return model / f"samples_{task}_{stamp}.jsonl"


CHILD = """
import json, resource, sys, time
from gengap.imports import import_lm_eval
before = resource.getrusage(resource.RUSAGE_SELF)
t0 = time.perf_counter()
result = import_lm_eval(sys.argv[1], sys.argv[2])
seconds = time.perf_counter() - t0
after = resource.getrusage(resource.RUSAGE_SELF)
cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
print(json.dumps({"seconds": seconds, "cpu": cpu, "rows": result.n_rows, "peak_mb": after.ru_maxrss / 1024}))
"""


def speed(task: str, n_rows: int) -> None:
    work = Path(tempfile.mkdtemp(prefix="gengap-bench-import-"))
    try:
        t0 = time.perf_counter()
        samples = make_samples(work / "logs", task, n_rows)
        made = time.perf_counter() - t0
        size_mb = samples.stat().st_size / 2**20
        proc = subprocess.run([sys.executable, "-c", CHILD, str(work / "logs"), str(work / "out")],
                              capture_output=True, text=True, check=True)
        got = json.loads(proc.stdout.strip().splitlines()[-1])
        again = subprocess.run([sys.executable, "-c", CHILD, str(work / "logs"), str(work / "out")],
                               capture_output=True, text=True, check=True)
        second = json.loads(again.stdout.strip().splitlines()[-1])
        store_mb = (work / "out" / "gengap.duckdb").stat().st_size / 2**20
        print(f"== import speed: {task}, {n_rows:,} documents, samples file {size_mb:,.0f} MB (written in {made:.1f} s)")
        print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start")
        print(f"{'':28}{'wall s':>10}{'CPU s':>10}{'rows/s':>12}{'rows/CPU-s':>12}{'peak RSS MB':>13}")
        print(f"{'first import':28}{got['seconds']:>10.2f}{got['cpu']:>10.2f}{n_rows / got['seconds']:>12,.0f}"
              f"{n_rows / got['cpu']:>12,.0f}{got['peak_mb']:>13,.0f}")
        print(f"{'same files again (no-op)':28}{second['seconds']:>10.2f}{second['cpu']:>10.2f}{'':>12}{'':>12}"
              f"{second['peak_mb']:>13,.0f}")
        print(f"target >= 100,000 rows/s; store file {store_mb:,.0f} MB")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def agreement(logs: Path) -> None:
    """lm_eval's printed value and stderr next to gengap's score and interval, per model, task and metric."""
    from gengap.analysis.imported import load_rows
    from gengap.analysis.intervals import mean_ci
    from gengap.imports import import_lm_eval

    out = Path(tempfile.mkdtemp(prefix="gengap-bench-import-"))
    try:
        result = import_lm_eval(logs, out)
        rows = load_rows(result.store_path, result.run_id)
        print(f"\n== gengap's figures next to lm_eval's, from the rows of {logs}")
        print(f"{'model':<14}{'task':<14}{'metric':<30}{'n':>4}{'lm_eval':>9}{'stderr':>8}{'normal 95%':>18}"
              f"{'gengap':>8}{'gengap 95%':>18}")
        worst = 0.0
        for path in sorted(logs.rglob("results_*.json")):
            doc = json.loads(path.read_text())
            for task, figures in doc["results"].items():
                for key, value in figures.items():
                    if "," not in key or "_stderr" in key:
                        continue
                    metric, _, filt = key.partition(",")
                    stderr = figures.get(f"{metric}_stderr,{filt}")
                    mine = rows[(rows["model"] == doc["model_name"]) & (rows["split"] == task) & (rows["metric"] == key)]
                    ci = mean_ci(mine["score"].to_numpy(), seed=0)
                    worst = max(worst, abs(ci.estimate - value))
                    normal = f"[{value - 1.96 * stderr:.3f}, {value + 1.96 * stderr:.3f}]" if isinstance(stderr, float) else "-"
                    print(f"{doc['model_name']:<14}{task:<14}{key:<30}{ci.n:>4}{value:>9.4f}"
                          f"{stderr if isinstance(stderr, str) else f'{stderr:.4f}':>8}{normal:>18}{ci.estimate:>8.4f}"
                          f"{f'[{ci.low:.3f}, {ci.high:.3f}]':>18}")
        print(f"largest |gengap mean - lm_eval value|: {worst:.2e}")
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--task", default="gengap_arith", choices=["gengap_arith", "gengap_mc"])
    parser.add_argument("--logs", type=Path, default=RUNS, help="an lm_eval --output_path folder for the comparison")
    parser.add_argument("--skip-speed", action="store_true")
    args = parser.parse_args()
    if not args.skip_speed:
        speed(args.task, args.rows)
    agreement(args.logs)


if __name__ == "__main__":
    main()
