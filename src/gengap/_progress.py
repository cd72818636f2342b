"""Progress while long steps run: a live bar on a terminal, plain lines elsewhere.

On a terminal, a rich bar with the rate and the time left. When stderr is not a terminal (CI logs,
``nohup``, a notebook that captures stderr), a plain line every :func:`line_interval` seconds
(15 by default; ``GENGAP_PROGRESS_EVERY`` sets another): what is running, done/total, the rate and
the time left. ``GENGAP_NO_PROGRESS=1`` (or ``progress=False``) switches both off.

>>> _line("length (2/3) · training gru", done=120, total=400, elapsed=30.0, info="loss 0.52")
'[gengap] length (2/3) · training gru: 120/400 (30%), 4.0/s, about 1 min 10 s left · loss 0.52'
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, Task, TextColumn, TimeRemainingColumn
from rich.table import Column
from rich.text import Text

__all__ = ["progress_enabled", "progress", "stage", "console", "line_interval"]

console = Console(stderr=True, markup=False)


def progress_enabled(flag: bool | None = None) -> bool:
    """An explicit flag wins; otherwise on when stderr is a terminal and GENGAP_NO_PROGRESS is unset."""
    if flag is not None:
        return flag
    return sys.stderr.isatty() and not _switched_off()


def _switched_off() -> bool:
    return os.environ.get("GENGAP_NO_PROGRESS", "") not in ("", "0")


def _lines_wanted(flag: bool | None) -> bool:
    """Plain progress lines: not asked for either way, stderr is not a terminal, and not switched off."""
    return flag is None and not sys.stderr.isatty() and not _switched_off()


def line_interval() -> float:
    """Seconds between plain progress lines: ``GENGAP_PROGRESS_EVERY``, else 15."""
    try:
        return max(0.05, float(os.environ.get("GENGAP_PROGRESS_EVERY", "15")))
    except ValueError:
        return 15.0


def _duration(seconds: float) -> str:
    """``'42 s'``, ``'3 min 5 s'``, ``'1 h 2 min'``.

    >>> _duration(42.4), _duration(185), _duration(3725)
    ('42 s', '3 min 5 s', '1 h 2 min')
    """
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    return f"{s // 3600} h {s % 3600 // 60} min"


def _line(description: str, *, done: float, total: float | None, elapsed: float, info: str = "") -> str:
    """One plain progress line (see the module's example)."""
    text = f"[gengap] {description}: "
    rate = done / elapsed if elapsed > 0 else 0.0
    shown = f"{rate:,.1f}/s" if rate < 100 else f"{rate:,.0f}/s"
    if total:
        text += f"{done:,.0f}/{total:,.0f} ({100 * done / total:.0f}%), {shown}"
        if 0 < done < total and rate > 0:
            text += f", about {_duration((total - done) / rate)} left"
        elif done >= total:
            text += f", done in {_duration(elapsed)}"
    elif done:
        text += f"{done:,.0f} done, {shown}, running for {_duration(elapsed)}"
    else:
        text += f"running for {_duration(elapsed)}"
    return text + (f" · {info}" if info else "")


class RateColumn(ProgressColumn):
    """Items per second (examples, steps, requests), or nothing until rich has measured a speed."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("" if speed is None else f"{speed:,.0f}/s", style="progress.data.speed")


class _NullBar:
    def advance(self, n: float = 1) -> None:
        pass

    def update(self, **kwargs: Any) -> None:
        pass


class _Bar:
    def __init__(self, progress: Progress, task: Any) -> None:
        self._p, self._t = progress, task

    def advance(self, n: float = 1) -> None:
        self._p.advance(self._t, n)

    def update(self, **kwargs: Any) -> None:
        self._p.update(self._t, **kwargs)


#: What the work in progress belongs to ("length (2/3)"): set by the runner, shown before every bar's description.
_stage: ContextVar[str] = ContextVar("gengap_progress_stage", default="")


@contextmanager
def stage(text: str) -> Iterator[None]:
    """``with stage("length (2/3)"):`` every bar opened inside says which split it works on and how many there are."""
    token = _stage.set(text)
    try:
        yield
    finally:
        _stage.reset(token)


def _columns() -> tuple[ProgressColumn, ...]:
    """One line that fits 80 columns: every cell is cut with an ellipsis rather than wrapped."""
    def fit(max_width: int | None = None) -> Column:
        return Column(no_wrap=True, overflow="ellipsis", max_width=max_width)

    # Descriptions and infos come from data (model and split names): plain text, never markup.
    return (TextColumn("{task.description}", style="bold", markup=False, table_column=fit(40)),
            BarColumn(bar_width=12), MofNCompleteColumn(table_column=fit()), RateColumn(table_column=fit()),
            TextColumn("eta", markup=False, table_column=fit()), TimeRemainingColumn(table_column=fit()),
            TextColumn("{task.fields[info]}", markup=False, table_column=fit(22)))


class _Lines:
    """Writes a plain progress line to stderr every ``interval`` seconds from a background thread, and
    one when the work ends, so a step that stalls is still reported."""

    def __init__(self, description: str, total: float | None, interval: float) -> None:
        self.description, self.total, self.interval = description, total, interval
        self.done, self.info = 0.0, ""
        self.started = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="gengap-progress", daemon=True)
        self._thread.start()

    def advance(self, n: float = 1) -> None:
        self.done += n

    def update(self, **kwargs: Any) -> None:
        if "info" in kwargs:
            self.info = str(kwargs["info"])
        if kwargs.get("total") is not None:
            self.total = kwargs["total"]
        if kwargs.get("completed") is not None:
            self.done = kwargs["completed"]

    def _write(self) -> None:
        line = _line(self.description, done=self.done, total=self.total, elapsed=time.monotonic() - self.started,
                     info=self.info)
        try:
            print(line, file=sys.stderr, flush=True)
        except (OSError, ValueError):  # stderr closed
            pass

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self._write()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        if time.monotonic() - self.started >= self.interval:  # a step shorter than one interval stays quiet
            self._write()


@contextmanager
def progress(description: str, total: float | None, *, enabled: bool | None = None) -> Iterator[_Bar | _NullBar | _Lines]:
    """``with progress("training", total=steps) as bar: bar.advance()`` — a bar with rate and ETA.

    Inside :func:`stage`, the description starts with the stage: ``length (2/3) · training seq2seq``.
    When stderr is not a terminal, plain lines every :func:`line_interval` seconds instead.
    """
    if _lines_wanted(enabled):
        lines = _Lines(_described(description), total, line_interval())
        try:
            yield lines
        finally:
            lines.close()
        return
    if not progress_enabled(enabled):
        yield _NullBar()
        return
    with Progress(*_columns(), console=console, transient=False) as p:
        yield _Bar(p, p.add_task(_described(description), total=total, info=""))


def _described(description: str) -> str:
    """The description with the current stage in front: ``length (2/3) · scoring m``."""
    where = _stage.get()
    return f"{where} · {description}" if where else description
