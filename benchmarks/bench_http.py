"""The OpenAI-compatible adapter against a local server that answers after 50 ms.

Requests per second at concurrency 1, 8, 32, 128 and 256, side by side: the ideal (concurrency /
latency: what the server allows), gengap's HTTP model (``OpenAIModel.predict``, on httpx), the same
model on gengap's earlier hand-written HTTP/1.1 transport (``_http1.py`` here: asyncio + httptools, kept
only for this comparison), the whole
``gengap.evaluate`` path (shards, scoring, the DuckDB store) as it runs (the next shard's requests
sent while a shard is stored) and one shard at a time (``gengap.runner.PIPELINE = False``: the
server idles while a shard is stored), a minimal direct asyncio client (aiohttp, no retries,
no bookkeeping) sending the same requests, and, when ``wrk`` is installed (``apt-get install wrk``),
wrk's C client with one thread and one request in flight per connection: what the server and this
machine allow at all (the server's own timer and loopback cost a few percent at every level). Each level is
warmed up, then measured ``--repeats`` times with the clients taking turns; the table shows
medians, and the client's CPU time per request (all threads of this process). The load average before and after is printed: on a busy machine every client falls
short of the ideal, and only the comparison with the direct client says whether gengap is the
limit.

The server runs in its own process on 127.0.0.1: ``_latency_server.js`` (Node.js, when ``node``
is on the PATH: it takes little CPU from the client) or ``_latency_server.py`` (Python asyncio,
which competes with the client for the cores at high concurrency). ``--server`` picks one.

    python benchmarks/bench_http.py            # 20 x concurrency requests per level (at least 200), 3 repeats
    python benchmarks/bench_http.py --quick    # 5 x concurrency (at least 50), 1 repeat
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _handwritten import HandWrittenModel

import gengap
import gengap.runner
from gengap.models.http import OpenAIModel

HERE = Path(__file__).resolve().parent


async def _direct(url: str, prompts: list[str], concurrency: int) -> tuple[float, float]:
    """Wall and CPU seconds of the same requests from a bare aiohttp client, ``concurrency`` in
    flight, after a warm-up round that opens the connections."""
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
        wall, cpu = time.perf_counter(), time.process_time()
        out = await asyncio.gather(*(one(p) for p in prompts))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    assert out == [p.upper() for p in prompts]
    return wall, cpu


_WRK_SCRIPT = """wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"model": "bench-model", "max_tokens": 8, "messages": [{"role": "user", "content": "prompt 1"}]}'
"""


def _wrk(url: str, concurrency: int, seconds: float) -> float | None:
    """Requests/s of wrk (one thread, ``concurrency`` connections, one request in flight on each); None without wrk."""
    if shutil.which("wrk") is None:
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(_WRK_SCRIPT)
    try:
        done = subprocess.run(["wrk", "-t1", f"-c{concurrency}", f"-d{max(1, round(seconds))}s", "-s", script.name, url],
                              capture_output=True, text=True, timeout=seconds + 60, check=True)
    finally:
        os.unlink(script.name)
    line = next(x for x in done.stdout.splitlines() if x.startswith("Requests/sec:"))
    return float(line.split()[1])


def _start_server(kind: str, delay: float) -> tuple[subprocess.Popen[str], str]:
    if kind == "node":
        command = ["node", str(HERE / "_latency_server.js"), "--delay", str(delay)]
    else:
        command = [sys.executable, str(HERE / "_latency_server.py"), "--delay", str(delay)]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    return server, f"http://127.0.0.1:{int(server.stdout.readline())}/v1"


def _evaluate(model: OpenAIModel, dataset: gengap.Dataset, pipeline: bool = True) -> tuple[float, float]:
    """Wall and CPU seconds of ``gengap.evaluate`` (a new store, every row, no cache); checked after."""
    with tempfile.TemporaryDirectory() as tmp:
        gengap.runner.PIPELINE = pipeline
        try:
            wall, cpu = time.perf_counter(), time.process_time()
            ev = gengap.evaluate(model, dataset, ["all"], out=tmp, progress=False, cache=False)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        finally:
            gengap.runner.PIPELINE = True
        rows = ev.rows()
        assert len(rows) == len(dataset) and rows["score"].mean() == 1.0
    return wall, cpu


def _level(base: str, concurrency: int, n: int, repeats: int) -> tuple[dict[str, float], dict[str, float]]:
    """Median requests/s and CPU microseconds per request of each client at one concurrency."""
    prompts = [f"prompt {i}" for i in range(n)]
    dataset = gengap.load([{"input": p, "target": p.upper()} for p in prompts])
    model = OpenAIModel(base, model_name="bench-model", concurrency=concurrency, timeout=30, max_tokens=8)
    asyncio.run(_direct(base + "/chat/completions", prompts[:concurrency], concurrency))  # the server warmed up

    def ours() -> tuple[float, float]:
        model.predict(["warm up"] * concurrency)  # connections open (evaluate closes the model when done)
        wall, cpu = time.perf_counter(), time.process_time()
        out = model.predict(prompts)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        assert out == [p.upper() for p in prompts]
        return wall, cpu

    handwritten = HandWrittenModel(base, model_name="bench-model", concurrency=concurrency, timeout=30, max_tokens=8)

    def earlier() -> tuple[float, float]:
        handwritten.predict(["warm up"] * concurrency)
        wall, cpu = time.perf_counter(), time.process_time()
        out = handwritten.predict(prompts)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        assert out == [p.upper() for p in prompts]
        return wall, cpu

    def whole() -> tuple[float, float]:
        return _evaluate(model, dataset)

    def serial() -> tuple[float, float]:
        return _evaluate(model, dataset, pipeline=False)

    def direct() -> tuple[float, float]:
        return asyncio.run(_direct(base + "/chat/completions", prompts, concurrency))

    times: dict[str, list[tuple[float, float]]] = {"gengap": [], "earlier": [], "evaluate": [], "serial": [], "direct": []}
    for r in range(repeats):  # the clients take turns, in a rotating order: a busy machine drifts
        order = [("gengap", ours), ("earlier", earlier), ("evaluate", whole), ("serial", serial), ("direct", direct)]
        for name, run in order[r % 5:] + order[: r % 5]:
            times[name].append(run())
    model.close()
    handwritten.close()
    rate = {k: n / statistics.median(w for w, _ in v) for k, v in times.items()}
    cpu = {k: statistics.median(c for _, c in v) / n * 1e6 for k, v in times.items()}
    wrk = _wrk(base + "/chat/completions", concurrency, n / (concurrency / 0.05))
    rate["wrk"] = float("nan") if wrk is None else wrk
    return rate, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--delay", type=float, default=0.05)
    parser.add_argument("--repeats", type=int, help="measurements per level and client (default 3, --quick 1)")
    parser.add_argument("--levels", default="1,8,32,128,256", help="concurrency levels, comma-separated")
    parser.add_argument("--server", choices=("auto", "node", "python"), default="auto",
                        help="the latency server: Node.js when available (auto), or the Python one")
    args = parser.parse_args()
    repeats = args.repeats or (1 if args.quick else 3)
    kind = args.server if args.server != "auto" else ("node" if shutil.which("node") else "python")
    server, base = _start_server(kind, args.delay)
    load_before = os.getloadavg()
    try:
        print(f"server: {'_latency_server.js (Node.js)' if kind == 'node' else '_latency_server.py (Python asyncio)'}, "
              f"latency {args.delay * 1000:.0f} ms, chat completions; {repeats} repeat(s), medians; load average "
              f"{load_before[0]:.1f} (1 min) {load_before[1]:.1f} (5 min) on {os.cpu_count()} cores")
        one = gengap.load([{"input": "one", "target": "ONE"}])
        fixed = [_evaluate(OpenAIModel(base, model_name="bench-model", max_tokens=8), one)[0] for _ in range(3)]
        print(f"gengap.evaluate on one row (a new store, the run's records): {statistics.median(fixed):.2f} s, of which "
              f"{args.delay:.2f} s the request; the evaluate column includes this fixed cost")
        print("evaluate: the next shard's requests sent while a shard is stored; one-at-a-time: "
              "gengap.runner.PIPELINE = False (as before)")
        print("gengap: OpenAIModel on httpx; hand-written: the same model on the earlier asyncio + httptools transport")
        print(f"{'in flight':>9} {'requests':>8} {'ideal/s':>8} {'gengap/s':>9} {'hand-wr./s':>10} {'evaluate/s':>10} "
              f"{'one-at-a-time/s':>15} {'direct/s':>9} {'wrk/s':>7} {'gengap':>7} {'hand-wr.':>8} {'evaluate':>8} "
              f"{'one-at-a':>8} {'direct':>7} {'wrk':>5} {'CPU us/request':>22}")
        print(f"{'':>9} {'':>8} {'':>8} {'':>9} {'':>10} {'':>10} {'':>15} {'':>9} {'':>7} {'(% of ideal)':>48} "
              f"{'gengap / hand-wr. / direct':>27}")
        for concurrency in (int(c) for c in args.levels.split(",")):
            n = max(50 if args.quick else 200, (5 if args.quick else 20) * concurrency)
            rate, cpu = _level(base, concurrency, n, repeats)
            ideal = concurrency / args.delay
            print(f"{concurrency:9d} {n:8d} {ideal:8.0f} {rate['gengap']:9.1f} {rate['earlier']:10.1f} {rate['evaluate']:10.1f} "
                  f"{rate['serial']:15.1f} {rate['direct']:9.1f} {rate['wrk']:7.1f} {rate['gengap'] / ideal:7.0%} "
                  f"{rate['earlier'] / ideal:8.0%} {rate['evaluate'] / ideal:8.0%} {rate['serial'] / ideal:8.0%} "
                  f"{rate['direct'] / ideal:7.0%} {rate['wrk'] / ideal:5.0%} {cpu['gengap']:7.0f} /{cpu['earlier']:6.0f} "
                  f"/{cpu['direct']:6.0f}")
        if shutil.which("wrk") is None:
            print("wrk: not installed (apt-get install wrk), so the server's own ceiling is not shown")
    finally:
        server.terminate()
        server.wait()
    load_after = os.getloadavg()
    print(f"load average after: {load_after[0]:.1f} (1 min) {load_after[1]:.1f} (5 min)")


if __name__ == "__main__":
    main()
