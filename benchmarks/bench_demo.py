"""``gengap demo`` (SCAN): wall time and the accuracies it prints, default and --quick, side by side.

Targets (2 CPU cores): default under 5 minutes, --quick under 2 minutes; the random split high
(> 90% default, > 70% quick), add-jump near zero and length low, as Lake & Baroni (2018) report
(99.8%, 1.2%, 13.8%). CPU time (user + system, all threads) is printed too: on a shared machine
it moves less than the wall time. Each demo runs in its own process with the command a user types, so the
time includes start-up, SCAN generation, three trainings, evaluation and the report.

    python benchmarks/bench_demo.py            # default and --quick
    python benchmarks/bench_demo.py --quick    # only the --quick demo (a smoke run)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gengap.tasks.scan import PUBLISHED


def run(quick: bool, seed: int) -> dict:
    out = Path(tempfile.mkdtemp(prefix="gengap-bench-demo-"))
    cmd = [sys.executable, "-m", "gengap.cli", "demo", "--out", str(out), "--seed", str(seed), "--no-progress"]
    if quick:
        cmd.append("--quick")
    env = {**os.environ, "GENGAP_NO_PROGRESS": "1"}
    started, cpu_before = time.perf_counter(), _children_cpu()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    seconds, cpu = time.perf_counter() - started, _children_cpu() - cpu_before
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stdout}\n{done.stderr}")
    from gengap.analysis.gaps import summarize
    from gengap.store import STORE_NAME, Store

    with Store(out / STORE_NAME, read_only=True) as store:
        run_id = store.latest_run()
        summary = summarize(store.rows(run_id), store.split_info(run_id))
    return {"seconds": seconds, "cpu": cpu, "summary": summary, "stdout": done.stdout, "out": out}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="run only the --quick demo")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    args = parser.parse_args()
    modes = ["quick"] if args.quick else ["default", "quick"]
    print(f"gengap demo (SCAN) on {os.cpu_count()} CPU core(s); load average before: {os.getloadavg()[0]:.2f}")
    figures = {}
    for mode in modes:
        result = run(mode == "quick", args.seed)
        s = result["summary"].set_index("split")
        figures[mode] = {"seconds": round(result["seconds"], 1), "cpu_seconds": round(result["cpu"], 1),
                         **{split: {"score": round(float(s.loc[split, "score"]), 4),
                                    "ci": [round(float(s.loc[split, "score_low"]), 4), round(float(s.loc[split, "score_high"]), 4)],
                                    "n": int(s.loc[split, "n"])} for split in s.index}}
    header = f"{'':<16}" + "".join(f"{m:>22}" for m in modes) + f"{'Lake & Baroni 2018':>22}"
    print(header)
    print(f"{'wall time (s)':<16}" + "".join(f"{figures[m]['seconds']:>22.1f}" for m in modes) + f"{'-':>22}")
    print(f"{'CPU time (s)':<16}" + "".join(f"{figures[m]['cpu_seconds']:>22.1f}" for m in modes) + f"{'-':>22}")
    for split, published in PUBLISHED.items():
        cells = []
        for m in modes:
            f = figures[m][split]
            cells.append(f"{100 * f['score']:.1f} [{100 * f['ci'][0]:.1f}, {100 * f['ci'][1]:.1f}]")
        print(f"{split + ' %':<16}" + "".join(f"{c:>22}" for c in cells) + f"{100 * published:>22.1f}")
    print(f"load average after: {os.getloadavg()[0]:.2f} (figures on a shared machine are inflated)")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
