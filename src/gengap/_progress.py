"""Progress bars for long steps (rich), switched off in tests and when output is not a terminal."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, Task, TextColumn, TimeRemainingColumn
from rich.table import Column
from rich.text import Text

__all__ = ["progress_enabled", "progress", "stage", "console"]

console = Console(stderr=True, markup=False)


def progress_enabled(flag: bool | None = None) -> bool:
    """An explicit flag wins; otherwise on when stderr is a terminal and GENGAP_NO_PROGRESS is unset."""
    if flag is not None:
        return flag
    return sys.stderr.isatty() and not os.environ.get("GENGAP_NO_PROGRESS")


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


@contextmanager
def progress(description: str, total: float | None, *, enabled: bool | None = None) -> Iterator[_Bar | _NullBar]:
    """``with progress("training", total=steps) as bar: bar.advance()`` — a bar with rate and ETA.

    Inside :func:`stage`, the description starts with the stage: ``length (2/3) · training seq2seq``.
    """
    if not progress_enabled(enabled):
        yield _NullBar()
        return
    with Progress(*_columns(), console=console, transient=False) as p:
        yield _Bar(p, p.add_task(_described(description), total=total, info=""))


def _described(description: str) -> str:
    """The description with the current stage in front: ``length (2/3) · scoring m``."""
    where = _stage.get()
    return f"{where} · {description}" if where else description
