"""The OpenAI-compatible adapter against a local server that answers after 50 ms.

Requests per second at concurrency 1, 8, 32, 128 and 256, next to the ideal (concurrency /
latency) and next to a minimal direct asyncio client (aiohttp, no retries, no bookkeeping) sending
the same requests: the ideal is what the server allows, the direct client what this machine allows
right now (the load average is printed; on a busy machine both fall short of the ideal). The server
runs in its own process on 127.0.0.1 (asyncio, keep-alive), started and stopped by this script.

    python benchmarks/bench_http.py            # 10 x concurrency requests per level (at least 100)
    python benchmarks/bench_http.py --quick
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

from gengap.models.http import OpenAIModel


async def _direct(url: str, prompts: list[str], concurrency: int) -> float:
    """Seconds a bare aiohttp client takes for the same requests, ``concurrency`` in flight."""
    import aiohttp

    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:
        gate = asyncio.Semaphore(concurrency)

        async def one(p: str) -> str:
            async with gate:
                body = {"model": "bench-model", "max_tokens": 8, "messages": [{"role": "user", "content": p}]}
                async with session.post(url, json=body) as r:
                    return (await r.json())["choices"][0]["message"]["content"]

        await asyncio.gather(*(one("warm up") for _ in range(concurrency)))
        t = time.perf_counter()
        out = await asyncio.gather(*(one(p) for p in prompts))
        seconds = time.perf_counter() - t
    assert out == [p.upper() for p in prompts]
    return seconds


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
        print(f"server latency {args.delay * 1000:.0f} ms; chat completions; load average {os.getloadavg()[0]:.1f} "
              f"on {os.cpu_count()} cores")
        print(f"{'concurrency':>11} {'requests':>9} {'gengap/s':>9} {'direct/s':>9} {'ideal':>7} {'of ideal':>9} {'of direct':>10}")
        for concurrency in (1, 8, 32, 128, 256):
            n = max(40 if args.quick else 100, (3 if args.quick else 10) * concurrency)
            model = OpenAIModel(base, model_name="bench-model", concurrency=concurrency, timeout=30, max_tokens=8)
            model.predict(["warm up"] * concurrency)  # open the connections first
            prompts = [f"prompt {i}" for i in range(n)]
            t = time.perf_counter()
            out = model.predict(prompts)
            seconds = time.perf_counter() - t
            assert out == [p.upper() for p in prompts]
            model.close()
            direct = asyncio.run(_direct(base + "/chat/completions", prompts, concurrency))
            ideal = concurrency / args.delay
            print(f"{concurrency:11d} {n:9d} {n / seconds:9.1f} {n / direct:9.1f} {ideal:7.0f} {n / seconds / ideal:9.0%} "
                  f"{direct / seconds:10.0%}")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
