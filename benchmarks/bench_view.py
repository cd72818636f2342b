"""How fast the viewer answers, measured from a real browser (headless Chromium via Playwright).

A results store of ``--rows`` per-example rows (one model, three splits, metadata ``topic`` and
``size``; default 1,000,000) and two stores of ``--ab-rows`` rows each (default 100,000; the same
examples, 30% answered differently) are written with gengap's Store.

First, from process start: ``gengap view BIG --no-browser`` is started as a new process, Chromium
opens its address as soon as the port accepts, and the figure is the wall-clock time from starting
the process to the first page drawn (the summary; then, in another process, a rows page), and to the
summary complete with the report's figures and slices; beside them, the CPU seconds the viewer's
process had used when its first page was drawn, and the time (and CPU) to import what ``gengap
view`` imports before it serves, which the machine's load stretches less than wall-clock. The
viewer as it was before its figures moved to the background (``--before``, a git commit, default
60b076e; its ``src`` is taken with ``git archive``) is measured the same way and printed beside it.

Then, served by ``gengap view``'s app on loopback with its figures computed, each figure is the time
from the action to the page drawn (the fetch, the JSON and the DOM), median of ``--repeat`` tries:

- first paint: navigation start to the first page drawn (the summary), and to a rows page;
- a filter change (outcome, split, a metadata field, a number range, a text search) and a page change
  (next page, a page 900,000 rows in);
- the A/B flip table of the two 100,000-row runs, and a page of their flipped examples.

The targets (issue 30) are printed beside each figure: first paint < 2 s, a filter or page change
< 300 ms, the A/B flip table < 1 s.

    python benchmarks/bench_view.py                    # 1,000,000 rows (a few minutes: writing the store)
    python benchmarks/bench_view.py --rows 100000      # quicker
    python benchmarks/bench_view.py --before ''        # without the old viewer
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

CHROMIUM = Path("/usr/bin/chromium")
#: What ``gengap view`` imports before it serves (the same statement for the viewer of --before).
VIEW_IMPORTS = "import gengap.cli, gengap.cli._view, gengap.view._load, gengap.view.app, uvicorn, duckdb"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TOPICS = np.array(["algebra", "geometry", "counting", "probability", "number theory"])


def write_store(folder: Path, n: int, *, seed: int, flip: float = 0.0, splits: tuple[str, ...] = ("random", "length", "group")) -> Path:
    """A store of ``n`` rows of model 'm': the same examples for every seed, answers right with
    probability 0.7 (``flip``: the share of rows whose correctness is drawn again)."""
    from gengap.store import Store

    rng = np.random.default_rng(seed)
    base = np.random.default_rng(0)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "gengap.duckdb"
    per = n // len(splits)
    with Store(path) as store:
        run = store.start_run("bench", {"metrics": ["exact_match"], "models": ["m"], "dataset": {"name": "bench", "n": n}})
        for k, split in enumerate(splits):
            size = per if k < len(splits) - 1 else n - per * (len(splits) - 1)
            ids = np.char.add(f"{split[0]}", np.arange(size).astype(str))
            words = base.integers(1, 40, size)
            inputs = [f"question {i}: " + "walk " * int(w) for i, w in zip(ids, words)]
            targets = [str(int(w)) for w in words]
            topics = TOPICS[base.integers(0, len(TOPICS), size)]
            sizes = base.integers(0, 100, size)
            metadata = [f'{{"topic": "{t}", "size": {int(s)}}}' for t, s in zip(topics, sizes)]
            store.add_examples(run, split, split, {"method": split, "n_test": size}, example_ids=pa.array(ids),
                               inputs=pa.array(inputs), targets=pa.array(targets), metadata=pa.array(metadata))
            right = base.random(size) < 0.7
            if flip:
                redo = rng.random(size) < flip
                right = np.where(redo, rng.random(size) < 0.7, right)
            outputs = [t if r else str(int(t) + 1) for t, r in zip(targets, right)]
            for start in range(0, size, 200_000):
                sl = slice(start, start + 200_000)
                store.add_predictions(run, model="m", split=split, example_ids=pa.array(ids[sl]), outputs=outputs[sl],
                                      scores={"exact_match": right[sl].astype(float)}, extracted=outputs[sl],
                                      shard=f"m/{split}/none/{start}")
        store.finish_run(run)
    return folder


class Served:
    """The viewer's app over some stores, on a free loopback port, in a thread."""

    def __init__(self, paths: list[Path]) -> None:
        import socket
        import threading

        import uvicorn

        from gengap.view._load import load_runs
        from gengap.view.app import make_app

        t = time.perf_counter()
        self.loaded = load_runs(paths)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        app = make_app(self.loaded, port=self.port)
        self.load_s = time.perf_counter() - t
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="off"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        while not self.server.started:
            time.sleep(0.02)
        self.url = f"http://127.0.0.1:{self.port}"

        self.figures = app.state.figures

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        if self.figures.stop(60):
            self.loaded.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def old_source(ref: str, into: Path) -> Path | None:
    """The ``src`` folder of the viewer at git commit ``ref`` (None when git or the commit is missing)."""
    root = Path(__file__).resolve().parent.parent
    into.mkdir(parents=True, exist_ok=True)
    try:
        archive = subprocess.run(["git", "-C", str(root), "archive", ref, "src"], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"(the viewer of {ref} is not measured: {e})")
        return None
    return into / "src"


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system, every thread) a process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def from_process_start(page, store: Path, src: Path, route: str, *, complete: bool = False) -> tuple[float, float | None, float]:
    """Seconds from starting ``gengap view STORE`` (gengap imported from ``src``) to the first ``route``
    page drawn in Chromium, and (``complete``) to the summary drawn with every figure; and the CPU
    seconds the viewer's process had used when the first page was drawn (what the machine's load does
    not stretch)."""
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(src)}
    start = time.time()
    proc = subprocess.Popen([sys.executable, "-c", "from gengap.cli import main; main()", "view", str(store), "--no-browser",
                             "--port", str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"gengap view ended: {proc.stderr.read().decode() if proc.stderr else ''}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.01)
        page.goto("about:blank")
        page.goto(f"http://127.0.0.1:{port}/#/{route}")
        page.wait_for_function("() => window.__gengap && window.__gengap.renders >= 1", timeout=600_000)
        wall = "() => performance.timeOrigin + window.__gengap.at"  # the viewer of --before has no .wall
        first = float(page.evaluate(wall)) / 1000 - start
        cpu = _cpu_s(proc.pid)
        done = None
        if complete:
            page.wait_for_function("() => window.__gengap && !window.__gengap.pending", timeout=600_000, polling=50)
            done = float(page.evaluate(wall)) / 1000 - start
        return first, done, cpu
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


_CHANGE = """async (hash) => {
  const n = window.__gengap.renders; const t = performance.now();
  location.hash = hash;
  while (window.__gengap.renders === n) {
    if (performance.now() - t > 60000) throw new Error('no page drawn after ' + hash);
    await new Promise(r => setTimeout(r, 1));
  }
  return window.__gengap.at - t;
}"""

_SELECT = """async (value) => {
  const n = window.__gengap.renders; const t = performance.now();
  const s = document.querySelector('select[name=outcome]'); s.value = value; s.dispatchEvent(new Event('change'));
  while (window.__gengap.renders === n) await new Promise(r => setTimeout(r, 1));
  return window.__gengap.at - t;
}"""


def first_paint(page, url: str) -> float:
    page.goto("about:blank")
    page.goto(url)
    page.wait_for_function("() => window.__gengap && window.__gengap.renders >= 1", timeout=60_000)
    return float(page.evaluate("() => window.__gengap.at"))  # ms since navigation start


def median_ms(values: list[float]) -> str:
    return f"{statistics.median(values):7.0f} ms (min {min(values):.0f}, max {max(values):.0f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--ab-rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--before", default="60b076e", help="git commit of the viewer to compare with ('' for none)")
    args = parser.parse_args()
    if not CHROMIUM.exists():
        sys.exit("Debian's chromium is needed at /usr/bin/chromium (apt-get install chromium).")
    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="bench-view-"))
    try:
        t = time.perf_counter()
        big = write_store(tmp / "big", args.rows, seed=1)
        a = write_store(tmp / "a", args.ab_rows, seed=1, splits=("random", "length"))
        b = write_store(tmp / "b", args.ab_rows, seed=2, flip=0.3, splits=("random", "length"))
        print(f"stores written: {args.rows:,} rows + 2 x {args.ab_rows:,} rows in {time.perf_counter() - t:.1f} s "
              f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
        r = args.repeat
        results: list[tuple[str, str, str]] = []
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            versions = [("after", Path(__file__).resolve().parent.parent / "src")]
            if args.before:
                old = old_source(args.before, tmp / "before")
                if old is not None:
                    versions.insert(0, (f"before ({args.before})", old))
            starts: dict[str, list[str]] = {}
            for label, src in versions:
                imported = subprocess.run([sys.executable, "-c", f"import time; t = time.perf_counter(); {VIEW_IMPORTS}; "
                                           "print(time.perf_counter() - t, time.process_time())"],
                                          env={**os.environ, "PYTHONPATH": str(src)}, capture_output=True, text=True,
                                          check=True).stdout.split()
                starts.setdefault("import", []).append(f"{float(imported[0]):.2f} s")
                starts.setdefault("import cpu", []).append(f"{float(imported[1]):.2f} s")
                summary_first, summary_done, summary_cpu = from_process_start(page, big, src, "summary", complete=True)
                rows_first, _, rows_cpu = from_process_start(page, big, src, "rows")
                starts[label] = [f"{summary_first:.2f} s", f"{rows_first:.2f} s", f"{summary_done:.2f} s",
                                 f"{summary_cpu:.2f} s", f"{rows_cpu:.2f} s"]
            names = ["first page drawn (summary)", "first page drawn (rows)", "summary complete (figures, slices)",
                     "CPU of the viewer at the first page (summary)", "CPU of the viewer at the first page (rows)",
                     "importing what gengap view loads", "  its CPU (with Python's own start)"]
            for k, (label, _) in enumerate(versions):
                starts[label] += [starts["import"][k], starts["import cpu"][k]]
            width = max(len(n) for n in names)
            print(f"\nfrom process start ({args.rows:,} rows; gengap view BIG --no-browser, then Chromium)")
            print(f"{'':<{width}}  " + "  ".join(f"{label:>20}" for label, _ in versions) + "  target")
            for k, name in enumerate(names):
                print(f"{name:<{width}}  " + "  ".join(f"{starts[label][k]:>20}" for label, _ in versions)
                      + ("  < 2 s" if k < 2 else ""))
            print(f"(load average {os.getloadavg()[0]:.1f})")
            served = Served([big])
            print(f"\nviewer serving {args.rows:,} rows {served.load_s:.1f} s after load_runs started (in this process)")
            t = time.perf_counter()
            busy: list[float] = []  # filter changes while the lengths, figures and slices are being computed
            page.goto(served.url + "/#/rows?limit=50")
            page.wait_for_function("() => window.__gengap && window.__gengap.renders >= 1", timeout=60_000)
            for k in range(r):
                if served.figures.ready():
                    break
                busy.append(float(page.evaluate(_CHANGE, ["#/rows?split=length", "#/rows?split=group"][k % 2])))
            served.figures.wait(600)
            print(f"its figures and slices computed {time.perf_counter() - t:.1f} s later; the timings below start then")
            if busy:
                print(f"(meanwhile, a filter change (split) took {median_ms(busy).strip()})")
            pair = Served([a, b])
            pair.figures.wait(600)
            results.append(("first paint: summary", median_ms([first_paint(page, served.url + "/#/summary") for _ in range(r)]), "< 2 s"))
            results.append(("first paint: rows page", median_ms([first_paint(page, served.url + "/#/rows") for _ in range(r)]), "< 2 s"))
            change = lambda h: float(page.evaluate(_CHANGE, h))
            cases = [
                ("filter: outcome (select in the form)", None),
                ("filter: split", ["#/rows?split=length", "#/rows?split=group"]),
                ("filter: metadata field", ["#/rows?meta.topic=geometry", "#/rows?meta.topic=counting"]),
                ("filter: number range", ["#/rows?min.size=10&max.size=20", "#/rows?min.size=30&max.size=60"]),
                ("filter: text search (a new text each time)", [f"#/rows?q=question+r{12345 + 1111 * k}" for k in range(r)]),
                ("page: next page of a text search", [f"#/rows?q=walk+walk&offset={50 * (k + 1)}" for k in range(r)]),
                ("filter: sort by score", ["#/rows?sort=-score", "#/rows?sort=score"]),
                ("page: next page", [f"#/rows?offset={50 * k}" for k in range(1, 3)]),
                ("page: 900,000 rows in", [f"#/rows?offset={min(900_000, args.rows - 100) + 50 * k}" for k in range(2)]),
            ]
            change("#/rows?limit=50")  # the rows page with the form (a new hash: the first paint was #/rows)
            change("#/rows?q=walk+walk")  # the search whose next pages are timed below (its first page is not)
            change("#/rows?limit=50")
            for name, hashes in cases:
                times = []
                for k in range(r):
                    if hashes is None:  # the form sets the hash: outcome=wrong, then correct, ...
                        times.append(float(page.evaluate(_SELECT, ["wrong", "correct"][k % 2])))
                    else:
                        times.append(change(hashes[k % len(hashes)]))
                results.append((name, median_ms(times), "< 300 ms"))
            page.goto(pair.url + "/#/summary")
            page.wait_for_function("() => window.__gengap && window.__gengap.renders >= 1", timeout=60_000)
            ab = []
            for k in range(r):
                change("#/summary" if k % 2 else "#/rows")
                ab.append(change("#/ab"))
            results.append((f"A/B flip table, 2 x {args.ab_rows:,} rows", median_ms(ab), "< 1 s"))
            flips = [change(f"#/flips?a=0:m&b=1:m&split=random&direction={d}") for d in ["a_only", "b_only"] * ((r + 1) // 2)]
            results.append(("A/B flipped examples, one page", median_ms(flips), "< 300 ms"))
            browser.close()
        pair.close()
        served.close()
        width = max(len(n) for n, _, _ in results)
        print(f"\n{'measured in Chromium, median of ' + str(r):<{width}}  {'time':>34}  target")
        for name, value, target in results:
            print(f"{name:<{width}}  {value:>34}  {target}")
        print(f"(load average {os.getloadavg()[0]:.1f} at the end)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
