"""The OpenAI-compatible adapter against a local server that answers after 50 ms.

Requests per second at concurrency 1, 8, 32 and 128, next to the ideal (concurrency / latency),
until the machine saturates. The server runs in its own process on 127.0.0.1 (asyncio,
keep-alive), started and stopped by this script.

    python benchmarks/bench_http.py            # 10 x concurrency requests per level (at least 100)
    python benchmarks/bench_http.py --quick
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from gengap.models.http import OpenAIModel


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--delay", type=float, default=0.05)
    args = parser.parse_args()
    server = subprocess.Popen([sys.executable, str(Path(__file__).with_name("_latency_server.py")), "--delay", str(args.delay)],
                              stdout=subprocess.PIPE, text=True)
    try:
        port = int(server.stdout.readline())
        base = f"http://127.0.0.1:{port}/v1"
        print(f"server latency {args.delay * 1000:.0f} ms; chat completions")
        print(f"{'concurrency':>11} {'requests':>9} {'seconds':>8} {'req/s':>8} {'ideal':>8} {'of ideal':>9}")
        for concurrency in (1, 8, 32, 128):
            n = max(40 if args.quick else 100, (3 if args.quick else 10) * concurrency)
            model = OpenAIModel(base, model_name="bench-model", concurrency=concurrency, timeout=30)
            model.predict(["warm up"] * min(concurrency, 8))
            prompts = [f"prompt {i}" for i in range(n)]
            t = time.perf_counter()
            out = model.predict(prompts)
            seconds = time.perf_counter() - t
            assert out == [p.upper() for p in prompts]
            model.close()
            ideal = concurrency / args.delay
            print(f"{concurrency:11d} {n:9d} {seconds:8.2f} {n / seconds:8.1f} {ideal:8.0f} {n / seconds / ideal:8.0%}")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
