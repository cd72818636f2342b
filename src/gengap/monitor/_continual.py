"""Continual evaluation: accuracy on every earlier task at every evaluation step, and the worst case.

De Lange, van de Ven and Tuytelaars (2023), "Continual evaluation for lifelong learning: identifying
the stability gap". Evaluating earlier tasks only at task boundaries hides a sharp, transient drop in
their accuracy right after a new task starts (the stability gap). Evaluated per iteration:

- ``continual_accuracy`` (scope = task): accuracy on each task seen so far.
- ``min_acc``: the mean over earlier tasks of the lowest accuracy each had since its training ended.
- ``wc_acc``: the worst-case accuracy ``(1/k) a_current + (1 - 1/k) min_acc`` with ``k`` tasks seen.
- ``stability_gap`` (scope = task): accuracy at the end of the task's training minus its lowest since.

Cost: one evaluation of every seen task per scheduled step (``every=1`` for per-iteration figures).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gengap._errors import ConfigError
from gengap.monitor._base import Measure, MeasureContext, Record
from gengap.monitor._evaluate import evaluate_model

__all__ = ["ContinualEval", "worst_case_accuracy"]


def worst_case_accuracy(current: float, min_acc: float | None, k: int) -> float:
    """WC-ACC of De Lange et al. (2023): ``(1/k) current + (1 - 1/k) min_acc`` (``current`` alone when k = 1).

    >>> worst_case_accuracy(0.9, 0.5, 2)
    0.7
    """
    if k <= 1 or min_acc is None:
        return current
    return current / k + (1 - 1 / k) * min_acc


class ContinualEval(Measure):
    """Evaluate every task seen so far; call :meth:`start_task` (or ``Monitor.start_task``) at each switch.

    >>> import torch
    >>> net = torch.nn.Linear(2, 2)
    >>> ce = ContinualEval({"a": (torch.eye(2), torch.tensor([0, 1])), "b": (torch.eye(2), torch.tensor([1, 0]))})
    >>> ce.start_task("a", step=0); ce.start_task("b", step=10)
    >>> ce.seen
    ['a', 'b']
    """

    name = "continual"
    cost = "expensive"
    paper = "De Lange, van de Ven and Tuytelaars (2023), Continual evaluation for lifelong learning"

    def __init__(self, tasks: Mapping[str, Any], *, every: int | None = 1) -> None:
        super().__init__(every=every)
        if not isinstance(tasks, Mapping) or not tasks:
            raise ConfigError("ContinualEval(tasks=...): give a dict of task name -> evaluation data, e.g. "
                              "{'task1': (x1, y1), 'task2': (x2, y2)}.")
        self.tasks = dict(tasks)
        self.seen: list[str] = []
        self._end_acc: dict[str, float] = {}
        self._min_since: dict[str, float] = {}
        self._last: dict[str, float] = {}

    def start_task(self, task: str, *, step: int = 0) -> None:
        """Mark the start of training on ``task``; the previous task's training has ended."""
        if task not in self.tasks:
            raise ConfigError(f"start_task({task!r}): not one of the tasks given to ContinualEval: {sorted(self.tasks)}.")
        if self.seen and self.seen[-1] in self._last:
            done = self.seen[-1]
            self._end_acc[done] = self._last[done]
            self._min_since[done] = self._last[done]
        if task not in self.seen:
            self.seen.append(task)
        else:
            self.seen.remove(task)
            self.seen.append(task)

    def compute(self, ctx: MeasureContext) -> list[Record]:
        if not self.seen:
            return []
        out: list[Record] = []
        for task in self.seen:
            acc = evaluate_model(ctx.model, self.tasks[task], loss_fn=ctx.loss_fn)["accuracy"]
            self._last[task] = acc
            out.append(("continual_accuracy", task, acc))
            if task in self._min_since and task != self.seen[-1]:
                self._min_since[task] = min(self._min_since[task], acc)
        earlier = [t for t in self.seen[:-1] if t in self._min_since]
        if earlier:
            min_acc = sum(self._min_since[t] for t in earlier) / len(earlier)
            out.append(("min_acc", "", min_acc))
            out.append(("wc_acc", "", worst_case_accuracy(self._last[self.seen[-1]], min_acc, len(earlier) + 1)))
            out += [("stability_gap", t, self._end_acc[t] - self._min_since[t]) for t in earlier]
        return out



