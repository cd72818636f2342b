"""Small real runs for the viewer's tests, and the viewer served on loopback by uvicorn in a thread."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import gengap
from gengap.perturb import make_perturbation

SCRIPT = "<script>window.__pwned=1</script>"
IMG = '<img src=x onerror="window.__pwned=1">'


def records(n: int = 240) -> list[dict[str, Any]]:
    """Commands of 1 to 6 words with a topic and a size; some carry script payloads in the input."""
    return [{"id": f"r{i}", "input": " ".join(["walk"] * (1 + i % 6)) + (f" {SCRIPT}" if i % 17 == 0 else ""),
             "target": " ".join(["WALK"] * (1 + i % 6)), "topic": ["a", "b", f"c{IMG}"][i % 3], "size": i % 7}
            for i in range(n)]


def model(reach: int):
    """Right on commands of up to ``reach`` words (payloads echoed when wrong), wrong after."""
    def predict(xs: list[str]) -> list[str]:
        out = []
        for x in xs:
            words = [w for w in x.lower().split() if w == "walk"]
            out.append(" ".join(w.upper() for w in words) if len(words) <= reach else f"WRONG {IMG} " + x)
        return out
    return predict


def make_run(out: Path, reach: int = 3, n: int = 240, metrics: list[str] | None = None) -> Path:
    """A run of two models (m1 with the given reach, m2 upper-casing) on random, length and group splits,
    with a casing perturbation."""
    gengap.evaluate({"m1": model(reach), "m2": lambda xs: [x.upper() for x in xs]}, gengap.load(records(n)),
                    ["random", "length", "group:group=topic"], out=out, progress=False,
                    perturbations=[make_perturbation("casing:mode=upper")], metrics=metrics)
    return out


def slice_records(n: int = 3000) -> list[dict[str, Any]]:
    """Examples with a topic and a size of 0 to 39, for a model that fails on topic 'a' at size 30 and above."""
    return [{"id": f"s{i}", "input": f"item {i} " + "walk " * (1 + i % 5), "target": f"T{i}",
             "topic": ["a", "b", "c"][(i // 7) % 3], "size": i % 40} for i in range(n)]


def make_slice_run(out: Path, n: int = 3000, **options: Any) -> Path:
    """A run whose model fails where topic = a and size >= 30, on a third of sizes 8 to 15, and on
    every eleventh example (``options``: more settings of ``gengap.evaluate``)."""
    truth = {r["input"]: r for r in slice_records(n)}

    def predict(xs: list[str]) -> list[str]:
        out = []
        for x in xs:
            r = truth[x]
            k = int(r["id"][1:])
            bad = (r["topic"] == "a" and r["size"] >= 30) or (8 <= r["size"] < 16 and k % 3 == 0) or k % 11 == 0
            out.append("nope" if bad else r["target"])
        return out

    gengap.evaluate({"m": predict}, gengap.load(slice_records(n)), ["random"], out=out, progress=False, **options)
    return out


def with_results_json(run: Path) -> Path:
    """``run`` with its ``results.json`` written beside the store (with the slices), as ``gengap report`` writes it."""
    from gengap.report import write_report
    from gengap.store import Store

    store = run / "gengap.duckdb"
    with Store(store, read_only=True) as s:
        run_id = s.latest_run()
    write_report(store, run_id, run, formats=["json"], find_slices=True)
    return run


def free_port() -> int:
    """A loopback port free at the time of asking."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def running(app: Any, port: int) -> Iterator[str]:
    """``app`` served by uvicorn on loopback ``port`` in a thread; yields its base URL and stops it after."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 30
    while not server.started:
        if time.time() > deadline or not thread.is_alive():
            raise RuntimeError("the viewer did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@contextmanager
def serving(paths: list[Path], *, wait_figures: bool = True, figures: Any = None) -> Iterator[str]:
    """The viewer over ``paths`` on a free loopback port; yields its base URL. ``wait_figures``: serve
    once the summary's figures are computed (else at once, while they are computed). ``figures``: a
    function of the loaded rows giving the app's :class:`gengap.view.figures.Figures` (not started)."""
    from gengap.view._load import load_runs
    from gengap.view.app import make_app

    loaded = load_runs(list(paths))
    port = free_port()
    app = make_app(loaded, port=port, figures=figures(loaded) if figures is not None else None)
    if wait_figures and figures is None:
        app.state.figures.wait(120)
    try:
        with running(app, port) as url:
            yield url
    finally:
        assert app.state.figures.stop(60), "the viewer's figures did not stop"
        loaded.close()


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    """Status and parsed JSON (or text) of a GET."""
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            body = r.read().decode("utf-8")
            status = r.status
            kind = r.headers.get("content-type", "")
    except urllib.error.HTTPError as e:
        body, status, kind = e.read().decode("utf-8"), e.code, e.headers.get("content-type", "")
    return status, json.loads(body) if "json" in kind and "ndjson" not in kind else body
