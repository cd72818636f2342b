"""Speed beside other work: each workload alone, then beside one process that keeps a core busy, side by side.

Laptops, shared servers and CI runners are never idle. A workload should slow down in proportion
to the cores it loses, never worse: beside one busy core the wall time should stay within 1.6x of
the time without it, and the CPU seconds within 1.2x (more CPU means threads burned cycles waiting
for each other). Workloads, each run as its own process, the way a user starts it:

1. ``gengap demo --quick`` (with ``--limit``/``--epochs`` for a shorter, still representative run);
2. the training-time monitor's small-model benchmark (``benchmarks/bench_monitor.py --quick``);
3. for contrast, the demo's network trained the way it was before: torch on 2 intra-op threads whose
   waiting OpenMP threads spin (``OMP_WAIT_POLICY=ACTIVE``), against gengap's one thread per learner.

Each workload runs without the busy process, then beside it (a ``while True`` loop this script
starts and stops). The machine this runs on may be loaded by others: the load average is printed
before each run, and "alone" then means "without *our* busy process".

    python benchmarks/bench_contention.py                         # full --quick demo (~5-10 min)
    python benchmarks/bench_contention.py --limit 6000 --epochs 2 # reduced demo (~1-2 min)
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

ROOT = Path(__file__).resolve().parents[1]
WALL_TARGET, CPU_TARGET = 1.6, 1.2

_NAIVE = """
import contextlib, sys
import torch
torch.set_num_threads(int(sys.argv[1]))
import gengap.learners.seq2seq as s2s
from gengap.tasks.scan import scan_dataset
if sys.argv[3] == "torch-threads":  # before: the learner trained on whatever threads torch had
    s2s.one_torch_thread = lambda torch: contextlib.nullcontext()
ds, n = scan_dataset(), int(sys.argv[2])
s2s.Seq2SeqLearner(embedding_size=32, hidden_size=64, epochs=1, batch_size=128, learning_rate=5e-3, dropout=0.0,
                   progress=False).fit(ds.inputs[:n], ds.targets[:n])
"""


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Wall and CPU seconds (user + system, all threads and children) of one command, and its stdout."""
    started, cpu = time.perf_counter(), children_cpu()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    wall, cpu = time.perf_counter() - started, children_cpu() - cpu
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return wall, cpu, done.stdout


class BusyCore:
    """A process that keeps one core busy while the ``with`` block runs."""

    def __enter__(self) -> BusyCore:
        self.proc = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        time.sleep(1.0)  # let it reach the run queue
        return self

    def __exit__(self, *exc: object) -> None:
        self.proc.kill()
        self.proc.wait()


def demo(args: argparse.Namespace, env: dict[str, str]) -> tuple[float, float, str]:
    out = Path(tempfile.mkdtemp(prefix="gengap-bench-contention-"))
    cmd = [sys.executable, "-m", "gengap.cli", "demo", "--quick", "--out", str(out), "--no-progress"]
    if args.limit:
        cmd += ["--limit", str(args.limit)]
    if args.epochs:
        cmd += ["--epochs", str(args.epochs)]
    wall, cpu, _ = timed(cmd, env)
    from gengap.store import Store

    with Store(out / "gengap.duckdb", read_only=True) as store:
        used = store.run_config(store.latest_run()).get("ran_with", {})
    return wall, cpu, (f"{used.get('learners_at_once')} learner(s) at once x {used.get('torch_threads_per_learner')} "
                       f"torch thread; OMP_WAIT_POLICY={used.get('omp_wait_policy') or 'unset'}")


def monitor(args: argparse.Namespace, env: dict[str, str]) -> tuple[float, float, str]:
    wall, cpu, text = timed([sys.executable, str(ROOT / "benchmarks" / "bench_monitor.py"), "--quick"], env)
    threads = next((line.split("repeats, ")[1].split(";")[0] for line in text.splitlines() if "repeats, " in line), "?")
    return wall, cpu, f"{threads} (torch)"


def naive(args: argparse.Namespace, env: dict[str, str], how: str) -> tuple[float, float, str]:
    env = {**env, "OMP_WAIT_POLICY": "ACTIVE" if how == "torch-threads" else "PASSIVE"}
    threads = "2" if how == "torch-threads" else "1"
    wall, cpu, text = timed([sys.executable, "-c", _NAIVE, threads, str(args.naive_examples), how], env)
    what = ("2 torch threads, OpenMP spinning (before)" if how == "torch-threads"
            else "1 torch thread per learner, OpenMP sleeping (now)")
    return wall, cpu, what


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=None, help="SCAN commands the demo uses (default: all 20,910)")
    parser.add_argument("--epochs", type=int, default=None, help="demo training epochs (default: --quick's 4)")
    parser.add_argument("--naive-examples", type=int, default=3000, help="examples of the before/now training contrast")
    parser.add_argument("--skip", action="append", default=[], choices=["demo", "monitor", "naive"])
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    args = parser.parse_args()
    env = {**os.environ, "GENGAP_NO_PROGRESS": "1"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.pop("OMP_WAIT_POLICY", None)  # as a user's shell has it
    workloads = []
    if "demo" not in args.skip:
        size = "all commands" if not args.limit else f"--limit {args.limit}"
        workloads.append((f"gengap demo --quick ({size}{', --epochs ' + str(args.epochs) if args.epochs else ''})",
                          lambda: demo(args, env)))
    if "monitor" not in args.skip:
        workloads.append(("monitor small-model benchmark (--quick)", lambda: monitor(args, env)))
    if "naive" not in args.skip:
        workloads.append((f"demo network, {args.naive_examples:,} ex., 1 epoch: before",
                          lambda: naive(args, env, "torch-threads")))
        workloads.append((f"demo network, {args.naive_examples:,} ex., 1 epoch: now",
                          lambda: naive(args, env, "one-thread")))
    print(f"{os.cpu_count()} CPU core(s); targets beside one busy core: wall <= {WALL_TARGET}x, CPU <= {CPU_TARGET}x "
          "of the run without it")
    print(f"{'workload':58s} {'case':>7s} {'load':>5s} {'wall s':>8s} {'CPU s':>8s} {'wall x':>7s} {'CPU x':>6s}  threads")
    figures = {}
    for name, work in workloads:
        load = os.getloadavg()[0]
        wall0, cpu0, used = work()
        print(f"{name:58s} {'alone':>7s} {load:5.2f} {wall0:8.1f} {cpu0:8.1f} {'':>7s} {'':>6s}  {used}", flush=True)
        with BusyCore():
            load = os.getloadavg()[0]
            wall1, cpu1, used = work()
        ok = "" if "before" in name else ("  ok" if wall1 <= WALL_TARGET * wall0 and cpu1 <= CPU_TARGET * cpu0 else "  MISSED")
        print(f"{'':58s} {'busy':>7s} {load:5.2f} {wall1:8.1f} {cpu1:8.1f} {wall1 / wall0:7.2f} {cpu1 / cpu0:6.2f}  {used}{ok}",
              flush=True)
        figures[name] = {"alone": {"wall": wall0, "cpu": cpu0}, "busy": {"wall": wall1, "cpu": cpu1}, "threads": used}
    print(f"load average after: {os.getloadavg()[0]:.2f}. On a machine other people share, 'alone' is not idle: "
          "re-run on an idle machine for the reference figures.")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
