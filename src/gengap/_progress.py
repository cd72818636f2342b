"""Progress bars for long steps (rich), switched off in tests and when output is not a terminal."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, ProgressColumn, Task, TaskProgressColumn, TextColumn,
                           TimeElapsedColumn, TimeRemainingColumn)
from rich.text import Text

__all__ = ["progress_enabled", "progress", "console"]

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


@contextmanager
def progress(description: str, total: float | None, *, enabled: bool | None = None) -> Iterator[_Bar | _NullBar]:
    """``with progress("training", total=steps) as bar: bar.advance()`` — a bar with rate and ETA."""
    if not progress_enabled(enabled):
        yield _NullBar()
        return
    # Descriptions and infos come from data (model and split names): plain text, never markup.
    columns = (TextColumn("{task.description}", style="bold", markup=False), BarColumn(), MofNCompleteColumn(),
               TaskProgressColumn(), RateColumn(), TimeElapsedColumn(), TextColumn("eta", markup=False),
               TimeRemainingColumn(), TextColumn("{task.fields[info]}", markup=False))
    with Progress(*columns, console=console, transient=False) as p:
        yield _Bar(p, p.add_task(description, total=total, info=""))
