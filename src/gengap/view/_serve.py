"""Starting the viewer: the port, the host, the browser, and uvicorn."""

from __future__ import annotations

import socket
import threading
import webbrowser
from collections.abc import Callable, Sequence
from pathlib import Path

from gengap._errors import ConfigError

__all__ = ["serve", "check_port", "LOOPBACK"]

LOOPBACK = ("127.0.0.1", "localhost", "::1")
#: The background work waits this long at most for the first page to be answered before it starts.
FIRST_PAGE_WAIT_S = 3.0


def _free(host: str, port: int) -> bool:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds: a port in TIME_WAIT is free
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def check_port(host: str, port: int) -> None:
    """Raise a ConfigError naming the port and a free one to use instead when ``port`` is taken.

    >>> import socket
    >>> with socket.socket() as s:
    ...     s.bind(("127.0.0.1", 0)); s.listen()
    ...     taken = s.getsockname()[1]
    ...     try:
    ...         check_port("127.0.0.1", taken)
    ...     except Exception as e:
    ...         print(f"Port {taken} on 127.0.0.1 is in use" in str(e))
    True
    """
    if not 0 < port < 65536:
        raise ConfigError(f"--port {port}: give a port between 1 and 65535, e.g. --port 8765.")
    if _free(host, port):
        return
    other = next((p for p in range(port + 1, min(port + 200, 65536)) if _free(host, p)), None)
    hint = f" Try --port {other}." if other else " Choose another with --port."
    raise ConfigError(f"Port {port} on {host} is in use (another viewer or server holds it).{hint}")


def serve(paths: Sequence[str | Path], *, host: str = "127.0.0.1", port: int = 8765, open_browser: bool = True,
          run_ids: Sequence[str | None] | None = None, say: Callable[[str], None] = print) -> None:
    """Load the runs of ``paths`` and serve the viewer until interrupted (Ctrl-C).

    It serves as soon as it knows what the runs are: their rows are joined into memory meanwhile, in a
    background thread (the first rows in stored order first, for the first page), and the report's
    figures are computed after that (:mod:`gengap.view.figures`)."""
    from gengap.view._load import open_runs, read_rows

    if host not in LOOPBACK:
        say(f"warning: serving on {host}, not only on this machine (loopback): anyone who can reach {host}:{port} "
            "can read every input, output and target of these runs.")
    check_port(host, port)
    say(f"Reading {', '.join(str(p) for p in paths)} ...")
    loaded = open_runs(list(paths), run_ids=list(run_ids) if run_ids else None)

    def read() -> None:
        try:
            read_rows(loaded)
        except Exception:  # said on the pages (and here); the process keeps serving what it can
            say(f"warning: {loaded.error}")

    threading.Thread(target=read, name="gengap-view-read", daemon=True).start()
    for r in loaded.runs:
        n = loaded.stored.get(r.index, 0)
        say(f"run {r.run_id} of {r.path}: {n:,} rows ({', '.join(r.models)} on {len(r.splits)} splits)")
        for note in r.notes:
            say(f"note: {note}")
    import uvicorn

    from gengap.view.app import make_app

    app = make_app(loaded, host=host, port=port, start_figures=False)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/"
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False, lifespan="off")
    server = uvicorn.Server(config)

    def when_started() -> None:
        while not server.started and not server.should_exit:
            threading.Event().wait(0.02)
        if not server.started:
            return
        if open_browser:
            webbrowser.open(url)
        # the lengths, figures and slices once the first page is answered (or 3 s after serving starts)
        app.state.figures.start(after_first_page=FIRST_PAGE_WAIT_S)

    threading.Thread(target=when_started, daemon=True).start()
    say(f"The viewer is at {url} (Ctrl-C stops it).")
    try:
        server.run()
    finally:
        if app.state.figures.stop(timeout=5):  # a figure still being computed is left to the process's exit
            loaded.close()
