"""Generation speed of every built-in task: examples per second to a finished gengap Dataset.

Target: 1,000,000 examples in under 10 s for each generator whose task space allows a million
(SCAN has 20,910 commands in all; it is timed at its full size). The verdict uses wall time; the
CPU column is the process's own time, a steadier figure on a shared machine.

    python benchmarks/bench_generators.py           # 1,000,000 examples per task
    python benchmarks/bench_generators.py --quick   # 50,000 examples per task (smoke run)
    python benchmarks/bench_generators.py --only addition,dyck
"""

from __future__ import annotations

import argparse
import time

from gengap.tasks import generate, get_task, tasks

TARGET_SECONDS = 10.0


def sized(name: str, n: int) -> dict:
    """Parameters that make task ``name`` produce about ``n`` examples."""
    if name == "modular":
        return {"p": int(round(n ** 0.5))}
    if name == "facts":
        return {"n_entities": 1000, "n_relations": 10, "hops": 3, "n_queries": n - 10_000}
    if name == "xor":
        return {"n": n, "dim": 32}
    if name == "scan":
        return {}
    return {"n": n} if any(p.name == "n" for p in get_task(name).params) else {}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="50,000 examples per task")
    parser.add_argument("--n", type=int, default=None, help="examples per task (default 1,000,000)")
    parser.add_argument("--only", default="", help="comma-separated task names")
    args = parser.parse_args()
    n = args.n or (50_000 if args.quick else 1_000_000)
    names = [x for x in args.only.split(",") if x] or list(tasks())
    print(f"{'task':<20} {'examples':>10} {'wall s':>8} {'CPU s':>8} {'examples/s':>12}  {'under 10 s per 1M':>17}")
    for name in names:
        t0, c0 = time.perf_counter(), time.process_time()
        ds = generate(name, seed=0, **sized(name, n))
        seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
        per_million = seconds * 1_000_000 / len(ds)
        whole_space = len(ds) < 0.9 * n
        verdict = "n/a" if whole_space else "yes" if per_million < TARGET_SECONDS else "NO"
        note = "  (whole task space)" if whole_space else ""
        print(f"{name:<20} {len(ds):>10,} {seconds:>8.2f} {cpu:>8.2f} {len(ds) / seconds:>12,.0f}  {verdict:>17}{note}",
              flush=True)


if __name__ == "__main__":
    main()
