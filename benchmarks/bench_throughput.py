"""Rows per second from model output to stored, scored rows, with a trivial callable model.

Target: at least 200,000 rows/s on 1,000,000 examples; the store must not be the bottleneck. Prints
each stage side by side (model calls, scoring, DuckDB insert) and the whole ``gengap.evaluate``.

    python benchmarks/bench_throughput.py            # 1,000,000 examples
    python benchmarks/bench_throughput.py --quick    # 100,000 examples
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

import gengap
from gengap.backends import predict_batched
from gengap.metrics import score
from gengap.models import as_model
from gengap.splits import Split, SplitDiagnostics
from gengap.store import Store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--n", type=int, default=None)
    args = parser.parse_args()
    n = args.n or (100_000 if args.quick else 1_000_000)
    records = [{"input": f"question {i}", "target": f"answer {i % 7}"} for i in range(n)]
    dataset = gengap.load(records, name="synthetic")
    split = Split(name="all", method="file", train=np.array([0]), test=np.arange(1, n), seed=None, params={},
                  diagnostics=SplitDiagnostics.of_parts(1, n - 1, n), card=gengap.RandomSplit.card,
                  dataset=dataset)
    model = as_model(lambda xs: [f"answer {len(x) % 7}" for x in xs], name="trivial")
    test = split.test_part
    ids, inputs, targets = test.ids, test.inputs, test.targets
    rows = len(ids)

    out = Path(tempfile.mkdtemp())
    with Store(out / "stages.duckdb") as store:
        run = store.start_run("bench", {})
        t0 = time.perf_counter()
        outputs = predict_batched(model, inputs, batch_size=512, where="bench")
        t1 = time.perf_counter()
        scores = {"exact_match": score("exact_match", outputs, targets)}
        t2 = time.perf_counter()
        shard = 100_000
        for s in range(0, rows, shard):
            store.add_predictions(run, model="trivial", split="all", example_ids=ids[s:s + shard],
                                  outputs=outputs[s:s + shard], scores={k: v[s:s + shard] for k, v in scores.items()},
                                  shard=f"{s}")
        t3 = time.perf_counter()
    model_s, score_s, store_s = t1 - t0, t2 - t1, t3 - t2
    path_s = score_s + store_s

    t = time.perf_counter()
    ev = gengap.evaluate(model, dataset, [split], out=out / "full", progress=False, batch_size=512)
    full_s = time.perf_counter() - t
    t = time.perf_counter()
    summary = ev.summary()
    summary_s = time.perf_counter() - t

    print(f"{rows:,} examples, trivial callable model")
    print(f"{'stage':44} {'seconds':>8} {'rows/s':>12}")
    for label, seconds in (("model calls (batches of 512)", model_s), ("scoring (exact match)", score_s),
                           ("DuckDB insert (predictions + scores)", store_s),
                           ("model output -> stored, scored rows", path_s),
                           ("whole gengap.evaluate (split, store, model)", full_s),
                           ("summary from stored rows (10,000 resamples)", summary_s)):
        print(f"{label:44} {seconds:8.2f} {rows / seconds:12,.0f}")
    print(f"target: >= 200,000 rows/s from model output to stored rows -> {'met' if rows / path_s >= 200_000 else 'NOT met'}")
    print(f"score check: {summary['score'].iloc[0]:.4f} over n={int(summary['n'].iloc[0]):,}")


if __name__ == "__main__":
    main()
