"""gengap against a real language model: Gemma 3 270M on the llama.cpp server (llama-cpp-python).

Prints, side by side:

1. requests/s and completion tokens/s of gengap's HTTP model (on httpx), the same model on gengap's
   earlier hand-written transport (``_http1.py``, asyncio + httptools) and a minimal direct asyncio
   client (aiohttp) sending the same request bodies (the few-shot arithmetic prompts of
   examples/local_llm, the same stops and max_tokens), one request in flight (the server runs one
   at a time), the clients taking turns in rotating order (``--rounds``);
2. the share of arithmetic rows whose extracted answer is what a person reads in the raw output
   (``read_number_by_hand`` of examples/local_llm/run.py), over all splits and perturbations of
   the example's rows, with every row where the two differ;
3. multiple-choice accuracy by log-likelihood (summed, and per token from the same requests) vs
   by generation (the answer read as an option) on the same items, zero-shot, both on one server
   started with logits_all. llama-cpp-python sorts the whole vocabulary in Python for every token
   it echoes, about 150 sorts an item here (seconds each on a busy core), hence 4 items by default;
4. lost work when the server is killed mid-run: requests the server answered (its access log)
   minus rows stored, next to the largest shard.

One llama.cpp server runs at a time (parts 1-2, then 3, then 4).

    python benchmarks/bench_local_llm.py                  # the example's 48 arithmetic rows
    python benchmarks/bench_local_llm.py --quick          # 24 rows
    python benchmarks/bench_local_llm.py --parts 2,3 --mc-items 16
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

import gengap
from gengap.errors import EndpointError
from gengap.models.http import OpenAIModel
from gengap.store import Store

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the test suite's llama.cpp server
from _llama_server import LlamaServer

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "local_llm" / "run.py"


def _example():
    spec = importlib.util.spec_from_file_location("local_llm_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module



async def _direct(url: str, bodies: list[dict]) -> tuple[float, int]:
    """Seconds and completion tokens for the same requests from a bare aiohttp client, one at a time."""
    import aiohttp

    tokens = 0
    async with aiohttp.ClientSession() as session:
        start = time.perf_counter()
        for body in bodies:
            async with session.post(url, json=body) as r:
                tokens += (await r.json())["usage"]["completion_tokens"]
        return time.perf_counter() - start, tokens


def throughput(server: LlamaServer, example, n: int, rounds: int = 2) -> None:
    from _handwritten import HandWrittenModel

    data = gengap.load(EXAMPLE.parent / "arithmetic.jsonl", input="question", target="answer").take(range(n))
    split = gengap.splits.make_splitter("random", test_fraction=0.5, seed=0).split_dataset(data)
    prompts = example.ARITHMETIC_PROMPT.render(split.test_part, split.train_part)
    settings = dict(model_name="gemma", api="completions", max_tokens=8, concurrency=1,
                    stop=example.ARITHMETIC_PROMPT.default_stops())
    model = OpenAIModel(server.base_url, **settings)
    earlier = HandWrittenModel(server.base_url, **settings)
    model.predict(prompts[:2])  # warm: the model is loaded and the prompt cache primed the same way for all
    earlier.predict(prompts[:2])
    bodies = [model._payload(p) for p in prompts]

    def timed(m: OpenAIModel) -> tuple[float, int]:
        start = time.perf_counter()
        outputs = m.predict(prompts)
        return time.perf_counter() - start, sum(o.details["completion_tokens"] or 0 for o in outputs)

    runs = {"gengap": lambda: timed(model), "hand-written": lambda: timed(earlier),
            "direct": lambda: asyncio.run(_direct(server.base_url + "/completions", bodies))}
    seconds = dict.fromkeys(runs, 0.0)
    tokens = dict.fromkeys(runs, 0)
    names = list(runs)
    for r in range(rounds):  # rotating order: a busy machine drifts within a run
        for name in names[r % 3:] + names[: r % 3]:
            s, t = runs[name]()
            seconds[name] += s
            tokens[name] += t
    total = len(prompts) * rounds
    print(f"\n1. throughput, {total} few-shot arithmetic prompts per client ({rounds} rounds), one request in flight")
    print(f"{'client':>12} {'seconds':>8} {'req/s':>7} {'tokens/s':>9}")
    for name in names:
        print(f"{name:>12} {seconds[name]:8.2f} {total / seconds[name]:7.2f} {tokens[name] / seconds[name]:9.1f}")
    print(f"gengap / direct: {seconds['direct'] / seconds['gengap']:.0%} of the direct client's requests/s; "
          f"gengap / hand-written: {seconds['hand-written'] / seconds['gengap']:.0%}")
    model.close()
    earlier.close()


def extraction(server: LlamaServer, example, n: int, out: Path) -> None:
    ev = example.arithmetic(server.base_url, out / "arithmetic", limit=n, progress=False)
    rows = ev.rows()
    read = [(o, None if not isinstance(e, str) else e, example.read_number_by_hand(o))
            for o, e in zip(rows["output"], rows["extracted"])]
    agree = sum(e == h for _, e, h in read)
    print(f"\n2. extraction vs the hand rule: {agree}/{len(rows)} rows agree ({agree / len(rows):.0%}); "
          f"score {rows['score'].mean():.1%} over all splits and perturbations")
    for output, extracted, by_hand in read:
        if extracted != by_hand:
            print(f"   differ: output {output!r}: gengap {extracted!r}, by hand {by_hand!r}")


def choices(server: LlamaServer, example, out: Path, items: int) -> None:
    """Both ways on one server started with logits_all (one llama.cpp server at a time)."""
    import json

    kw = {"shots": 0, "limit": items, "progress": False}  # zero-shot: llama-cpp-python sorts the vocabulary per prompt token
    start = time.perf_counter()
    by_loglik = example.choices(server.base_url, out / "loglik", **kw)
    loglik_seconds = time.perf_counter() - start
    start = time.perf_counter()
    generated = example.choices(server.base_url, out / "generate", by="generate", **kw).rows()
    generate_seconds = time.perf_counter() - start
    rows = by_loglik.rows()
    with Store(by_loglik.store_path, read_only=True) as store:  # per token: from the same log-likelihoods
        preds = store.predictions(by_loglik.run_id)
    listed = {r["id"]: r for r in map(json.loads, (EXAMPLE.parent / "choices.jsonl").read_text().splitlines())}
    norm_right = 0
    for example_id, details in zip(preds["example_id"], preds["details"]):
        norm = json.loads(details)["loglik_norm"]
        item = listed[example_id]
        chosen = item["choices"][max(range(len(norm)), key=norm.__getitem__)]
        norm_right += chosen == item["answer"] or "ABCD"[item["choices"].index(chosen)] == item["answer"]
    print(f"\n3. multiple choice, the same {len(rows)} items, zero-shot")
    print(f"   by log-likelihood (summed)    {rows['score'].mean():6.1%}   {loglik_seconds:6.1f} s")
    print(f"   by log-likelihood (per token) {norm_right / len(rows):6.1%}   (the same requests)")
    print(f"   by generation, read as option {generated['score'].mean():6.1%}   {generate_seconds:6.1f} s "
          f"({int(generated['unextracted'].sum())} unreadable)")


def lost_work(example, n: int, out: Path, kill_after: float) -> None:
    log = out / "killed.log"
    server = LlamaServer(log=log).start()
    model = OpenAIModel(server.base_url, model_name="gemma", api="completions", max_tokens=8, concurrency=1,
                        max_retries=1, backoff=0.1)
    data = gengap.load(EXAMPLE.parent / "arithmetic.jsonl", input="question", target="answer").take(range(n))
    timer = threading.Timer(kill_after, server.kill)
    timer.start()
    try:
        gengap.evaluate(model, data, ["all"], prompt=gengap.Prompt("Question: {input}\nAnswer:"), out=out / "killed",
                        progress=False)
        print("\n4. the run finished before the kill; raise --kill-after or the rows")
        return
    except EndpointError:
        pass
    finally:
        timer.cancel()
        server.stop()
    answered = sum(1 for line in log.read_text(errors="replace").splitlines()
                   if "POST /v1/completions" in line and " 200" in line)
    with Store(out / "killed" / "gengap.duckdb", read_only=True) as store:
        shards = store.sql("SELECT n_rows FROM shards")["n_rows"].tolist()
    stored = sum(shards)
    print(f"\n4. server killed after {kill_after:g} s: {answered} requests answered, {stored} rows stored in "
          f"{len(shards)} shards (largest {max(shards, default=0)}); lost {answered - stored} answered requests")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--kill-after", type=float, default=15.0, help="seconds before the server is killed (part 4)")
    parser.add_argument("--mc-items", type=int, default=4,
                        help="multiple-choice items (part 3; each costs about 150 vocabulary sorts in llama-cpp-python)")
    parser.add_argument("--parts", default="1,2,3,4", help="which parts to run, e.g. 1,4")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of the three clients in part 1")
    args = parser.parse_args()
    parts = {int(p) for p in args.parts.split(",")}
    n = 24 if args.quick else 48
    example = _example()
    print(f"Gemma 3 270M (Q4_K_M) on llama-cpp-python, 1 thread; load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:  # one llama.cpp server at a time
        out = Path(tmp)
        if parts & {1, 2}:
            with LlamaServer() as server:
                if 1 in parts:
                    throughput(server, example, n, args.rounds)
                if 2 in parts:
                    extraction(server, example, n, out)
        if 3 in parts:
            with LlamaServer(n_ctx=512, logits_all=True) as server:
                choices(server, example, out, args.mc_items)
        if 4 in parts:
            lost_work(example, n, out, args.kill_after)

if __name__ == "__main__":
    sys.exit(main())
