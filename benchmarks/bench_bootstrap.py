"""Bootstrap 95% CI of a mean with 10,000 resamples: gengap versus lm-evaluation-harness, same scores.

Targets: 1,000,000 0/1 scores under 1 s; 100,000 continuous scores under 5 s; peak memory under 1 GiB.
lm_eval's ``bootstrap_stderr`` (pure Python resampling in a process pool) runs in its own environment
on the very same scores (written to .npy files).

    python benchmarks/bench_bootstrap.py           # full comparison (lm_eval side takes minutes)
    python benchmarks/bench_bootstrap.py --quick   # fewer lm_eval resamples, extrapolated
"""

from __future__ import annotations

import argparse
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

from gengap.analysis.intervals import bootstrap_ci, bootstrap_means

try:
    from benchmarks._lmeval import run_in_lmeval
except ImportError:  # run as a script from the benchmarks folder
    from _lmeval import run_in_lmeval

LMEVAL_CODE = r"""
import json, os, sys, time
import numpy as np
from lm_eval.api.metrics import bootstrap_stderr, mean
args = json.loads(sys.stdin.read())
xs = np.load(args["path"]).tolist()
t = time.perf_counter()
se = bootstrap_stderr(mean, xs, args["iters"])
print(json.dumps({"seconds": time.perf_counter() - t, "stderr": se}))
"""


def time_gengap(scores: np.ndarray, method: str) -> tuple[float, float, float, float]:
    tracemalloc.start()
    t = time.perf_counter()
    ci = bootstrap_ci(scores, n_resamples=10_000, method=method, seed=0)
    seconds = time.perf_counter() - t
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    stderr = float(bootstrap_means(scores, 10_000, np.random.default_rng(0)).std(ddof=1))
    return seconds, peak, stderr, ci.high - ci.low


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="lm_eval with 1,000 resamples, extrapolated to 10,000")
    parser.add_argument("--skip-lmeval", action="store_true")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    cases = {
        "1,000,000 0/1 scores": (rng.random(1_000_000) < 0.7).astype(np.float64),
        "100,000 continuous scores": rng.gamma(2.0, 0.5, size=100_000),
    }
    tmp = Path(tempfile.mkdtemp())
    print(f"{'scores':28} {'method':10} {'gengap s':>9} {'peak MiB':>9} {'stderr':>10} | {'lm_eval s':>10} {'stderr':>10} {'speed-up':>9}")
    for label, scores in cases.items():
        lm_seconds = lm_stderr = None
        note = ""
        if not args.skip_lmeval:
            path = tmp / "scores.npy"
            np.save(path, scores)
            # lm_eval resamples in pure Python: on 1,000,000 scores 10,000 resamples take over an hour,
            # so that case (and --quick) runs 1,000 resamples and scales the time by 10.
            iters = 1_000 if (args.quick or scores.size > 500_000) else 10_000
            got = run_in_lmeval(LMEVAL_CODE, {"path": str(path), "iters": iters})
            lm_seconds = got["seconds"] * (10_000 / iters)
            lm_stderr = got["stderr"]
            note = " (x10 extrapolated)" if iters != 10_000 else ""
        for method in ("percentile", "bca"):
            seconds, peak, stderr, _ = time_gengap(scores, method)
            lm = f"{lm_seconds:10.1f} {lm_stderr:10.5f} {lm_seconds / seconds:8.0f}x" if lm_seconds else "         -          -         -"
            print(f"{label:28} {method:10} {seconds:9.3f} {peak:9.1f} {stderr:10.5f} | {lm}{note}")
    print("targets: 1M 0/1 under 1 s; 100k continuous under 5 s; peak under 1024 MiB")


if __name__ == "__main__":
    main()
