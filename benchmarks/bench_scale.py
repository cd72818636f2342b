"""Scale-out: a cheap CPU-bound model over 1,000,000 examples on each backend, side by side.

Prints rows/s for the serial backend, the process pool and Ray's local instance (2 workers each),
the driver's share of the wall time (splitting, hashing, scoring, storing: measured as the same
evaluation with a free model), and a re-run of the finished evaluation: its time and its model
calls (must be zero, everything comes from the cache).

    python benchmarks/bench_scale.py            # 1,000,000 examples
    python benchmarks/bench_scale.py --quick    # 100,000 examples
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

import gengap
from gengap.splits import Split, SplitDiagnostics


def cpu_model(batch: list[str]) -> list[str]:
    """About 20 microseconds of pure-Python work per input (a rolling hash of its characters)."""
    out = []
    for text in batch:
        h = 0
        for _ in range(6):
            for ch in text:
                h = (h * 131 + ord(ch)) % 1_000_003
        out.append(f"answer {h % 7}")
    return out


def free_model(batch: list[str]) -> list[str]:
    return ["answer 0"] * len(batch)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    n = 100_000 if args.quick else 1_000_000
    ds = gengap.load([{"input": f"question number {i}", "target": f"answer {i % 7}"} for i in range(n)], name="synthetic")
    split = Split(name="all", method="file", train=np.array([0]), test=np.arange(1, n), seed=None, params={},
                  diagnostics=SplitDiagnostics.of_parts(1, n - 1, n), card=gengap.RandomSplit.card, dataset=ds)
    root = Path(tempfile.mkdtemp())
    rows = n - 1

    def timed(model, backend, out, **kw):
        t = time.perf_counter()
        ev = gengap.evaluate(model, ds, [split], out=root / out, backend=backend, workers=args.workers,
                             progress=False, **kw)
        return time.perf_counter() - t, ev

    driver_s, _ = timed(free_model, "serial", "driver", cache=False)
    print(f"{rows:,} examples; cheap CPU-bound model (~20 us/input); {args.workers} workers")
    print(f"{'backend':22} {'wall s':>8} {'rows/s':>10} {'driver share':>13}")
    results = {}
    # a Python function is cached only under a version the caller gives (gengap cannot see its state)
    versioned = gengap.as_model(cpu_model, name="cpu_model", version="bench-1")
    for backend in ("serial", "process", "ray"):
        try:
            seconds, ev = timed(versioned, backend, backend, cache=True)
        except gengap.errors.MissingDependency as e:
            print(f"{backend:22} skipped: {e}")
            continue
        results[backend] = (seconds, ev)
        print(f"{backend:22} {seconds:8.1f} {rows / seconds:10,.0f} {min(1.0, driver_s / seconds):12.0%}")
    if "ray" in results:
        import ray

        ray.shutdown()
    seconds, ev = timed(versioned, "serial", "serial", cache=True)
    print(f"re-run of the finished serial evaluation: {seconds:.1f} s, model calls: {ev.model_calls}")
    print(f"driver alone (free model, no cache): {driver_s:.1f} s = {rows / driver_s:,.0f} rows/s")


if __name__ == "__main__":
    main()
