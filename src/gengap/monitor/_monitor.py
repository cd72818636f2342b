"""``Monitor``: watch a training run with two added lines, and store what it sees.

>>> import torch, gengap.monitor as gm
>>> torch.manual_seed(0) and None
>>> x = torch.randn(64, 4); y = (x[:, 0] > 0).long()
>>> net = torch.nn.Linear(4, 2); opt = torch.optim.SGD(net.parameters(), lr=0.5)
>>> mon = gm.Monitor(net, train_eval=(x, y), heldout_eval=(x, y), every=10, console=None)
>>> for _ in range(30):
...     loss = torch.nn.functional.cross_entropy(net(x), y)
...     opt.zero_grad(); loss.backward(); opt.step()
...     _ = mon.step(loss=loss, batch=(x, y))
>>> mon.close()
>>> sorted(set(mon.measures["name"]))[:4]
['batch_loss', 'distance_from_init', 'distance_log_r2', 'distance_log_slope']
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

import pandas as pd

from gengap._errors import ConfigError
from gengap.monitor._base import Measure, MeasureContext, make_measure
from gengap.monitor._continual import ContinualEval
from gengap.monitor._detect import Event, GrokkingDetector
from gengap.monitor._evaluate import evaluate_model, split_batch
from gengap.monitor._params import watched_parameters
from gengap.monitor._torch import require_torch

__all__ = ["Monitor", "DEFAULT_MEASURES"]

#: Measures a Monitor takes unless told otherwise: all cheap (a pass over the weights, one probe forward).
DEFAULT_MEASURES: tuple[str, ...] = ("distance", "rotation", "norms", "margin")


def _first_n(batch: Any, n: int) -> Any:
    inputs, targets = split_batch(batch)
    x = {k: v[:n] for k, v in inputs.items()} if isinstance(inputs, Mapping) else inputs[:n]
    return (x, targets[:n])


def _as_float(value: Any) -> float:
    if value is None:
        return float("nan")
    try:
        return float(value.detach()) if hasattr(value, "detach") else float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"Monitor.step(loss=...): expected a number or a one-element tensor, got {type(value).__name__}.") from None


class Monitor:
    """Watch a PyTorch training run: measures on a schedule, memorization and grokking as they happen.

    Parameters
    ----------
    model : the ``torch.nn.Module`` being trained.
    store : None (keep everything in memory), a path to a ``gengap.duckdb`` file, or an open :class:`gengap.store.Store`.
    run_name : the run's name in the store.
    train_eval, heldout_eval : evaluation data: ``(inputs, targets)``, an iterable of batches, or a callable
        ``f(model) -> {"loss": ..., "accuracy": ...}``; evaluated every ``every`` steps as ``train_*``,
        ``heldout_*`` and their ``gap_*`` (train minus held-out accuracy, held-out minus train loss).
    every : steps between evaluations and cheap measures.
    measures : names (see ``gengap.monitor.MEASURES``) or :class:`Measure` objects; expensive ones run every
        ``expensive_every`` steps unless they carry their own ``every``.
    expensive_every : default schedule of expensive measures (``10 * every``).
    loss_fn : ``loss_fn(logits, targets)``; cross-entropy by default.
    probe : a fixed ``(inputs, targets)`` sample for margin, sharpness, coherence and EL2N; default: the
        first ``probe_size`` examples of ``train_eval`` or else of the first batch given to :meth:`step`.
    chance : accuracy of guessing, for "near chance"; default 1 / (number of logits) when first seen.
    console : where events are printed (None: silent).
    config : extra settings recorded with the run.
    """

    def __init__(
        self,
        model: Any,
        *,
        store: Any = None,
        run_name: str = "train",
        train_eval: Any = None,
        heldout_eval: Any = None,
        every: int = 100,
        measures: Sequence[str | Measure] = DEFAULT_MEASURES,
        expensive_every: int | None = None,
        loss_fn: Callable[..., Any] | None = None,
        probe: Any = None,
        probe_size: int = 256,
        chance: float | None = None,
        detector: GrokkingDetector | None = None,
        console: TextIO | None = sys.stderr,
        config: Mapping[str, Any] | None = None,
    ) -> None:
        torch = require_torch()
        if not isinstance(every, int) or isinstance(every, bool) or every < 1:
            raise ConfigError(f"Monitor(every={every!r}): every must be a positive whole number of steps.")
        if expensive_every is not None and (not isinstance(expensive_every, int) or expensive_every < 1):
            raise ConfigError(f"Monitor(expensive_every={expensive_every!r}): must be a positive whole number of steps.")
        if isinstance(measures, str):
            raise ConfigError(f"Monitor(measures={measures!r}): give a list of names, e.g. measures=[{measures!r}].")
        self.model = model
        self.params = watched_parameters(model)
        self.init = {n: p.detach().clone() for n, p in self.params.items()}
        self.measure_list: list[Measure] = [make_measure(m) for m in measures]
        self.every = every
        self.expensive_every = expensive_every or 10 * every
        self.loss_fn = loss_fn or torch.nn.functional.cross_entropy
        self.train_eval, self.heldout_eval = train_eval, heldout_eval
        self.probe_size = probe_size
        self.probe = _first_n(probe, probe_size) if probe is not None else None
        if self.probe is None and isinstance(train_eval, (tuple, list)) and len(train_eval) == 2 \
                and all(isinstance(t, torch.Tensor) for t in train_eval):
            self.probe = _first_n(train_eval, probe_size)
        self.detector = detector or GrokkingDetector(chance=chance)
        self.console = console
        self.current_step = 0
        self.events: list[Event] = []
        self.costs: dict[str, list[float]] = {}
        self._records: list[tuple[int, str, str, float]] = []
        self._unflushed: list[tuple[int, str, str, float]] = []
        self._history: dict[tuple[str, str], list[tuple[int, float]]] = {}
        self._last_eval_step: int | None = None
        self._n_nan = 0
        self._closed = False
        self._own_store = False
        self.store = None
        self.run_id: str | None = None
        if store is not None:
            from gengap.store import Store

            if isinstance(store, (str, Path)):
                self.store, self._own_store = Store(store), True
            elif isinstance(store, Store):
                self.store = store
            else:
                raise ConfigError(f"Monitor(store={store!r}): give a path to a .duckdb file or a gengap.store.Store.")
            settings = {"every": every, "expensive_every": self.expensive_every,
                        "measures": [repr(m) for m in self.measure_list], "model": type(model).__name__,
                        "n_parameters": int(sum(p.numel() for p in self.params.values())), **dict(config or {})}
            self.run_id = self.store.start_run(run_name, {"kind": "monitor", **settings})

    # ------------------------------------------------------------------ recording
    def _record(self, step: int, name: str, scope: str, value: float) -> None:
        rec = (int(step), name, scope, float(value))
        self._records.append(rec)
        self._unflushed.append(rec)
        self._history.setdefault((name, scope), []).append((int(step), float(value)))

    def _record_loss(self, s: int, value: float) -> None:
        self._record(s, "batch_loss", "", value)
        if not math.isfinite(value):
            self._n_nan += 1
            if self._n_nan == 1:
                self._emit(Event(s, "nan_loss", f"The training loss is {value} at step {s:,}; it is recorded and "
                                 "training goes on. Check the learning rate, the inputs and the loss for overflow."))

    def _emit(self, event: Event) -> None:
        self.events.append(event)
        if self.store is not None:
            self.store.add_event(self.run_id, event.step, event.kind, event.message)
        if self.console is not None:
            print(f"[gengap] step {event.step:,} · {event.kind}: {event.message}", file=self.console, flush=True)

    def flush(self) -> None:
        """Write buffered measures to the store (done at each evaluation and at :meth:`close`)."""
        if self.store is not None and self._unflushed:
            self.store.add_measures(self.run_id, self._unflushed)
        self._unflushed = []

    # ------------------------------------------------------------------ the loop's side
    def step(self, loss: Any = None, batch: Any = None, *, step: int | None = None) -> list[Event]:
        """Call once per optimizer step (after ``optimizer.step()``); returns the events noticed now.

        ``loss`` is recorded as ``batch_loss`` (a NaN or infinite loss is recorded and flagged, and
        training goes on); ``batch`` = ``(inputs, targets)`` supplies the probe sample if none was given.
        """
        if self._closed:
            raise ConfigError("Monitor.step() after close(): create a new Monitor for a new run.")
        self.current_step = self.current_step + 1 if step is None else int(step)
        s = self.current_step
        before = len(self.events)
        if self.probe is None and batch is not None:
            self.probe = _first_n(batch, self.probe_size)
        if loss is not None:
            self._record_loss(s, _as_float(loss))
        if s % self.every == 0:
            self.evaluate()
        else:
            self._run_measures(s)
        return self.events[before:]

    def log(self, *, step: int | None = None, **values: float) -> list[Event]:
        """Record figures computed elsewhere (``train_accuracy=``, ``heldout_loss=``, any name) at ``step``."""
        s = self.current_step if step is None else int(step)
        for name, value in values.items():
            if name == "batch_loss":
                self._record_loss(s, _as_float(value))
            else:
                self._record(s, name, "", _as_float(value))
        before = len(self.events)
        self._detect(s, values.get("train_accuracy"), values.get("heldout_accuracy"))
        return self.events[before:]

    def start_task(self, task: str) -> None:
        """Tell every :class:`ContinualEval` measure that training on ``task`` starts now."""
        found = [m for m in self.measure_list if isinstance(m, ContinualEval)]
        if not found:
            raise ConfigError("Monitor.start_task(): add a ContinualEval(tasks={...}) to measures= first.")
        for m in found:
            m.start_task(task, step=self.current_step)
        self._emit(Event(self.current_step, "task_start", f"Training on task '{task}' starts."))

    # ------------------------------------------------------------------ evaluation
    def _detect(self, s: int, train_acc: float | None, heldout_acc: float | None) -> None:
        if self.detector.chance is None and heldout_acc is not None and self._n_classes:
            self.detector.chance = 1.0 / self._n_classes
        for ev in self.detector.update(s, train_accuracy=train_acc, heldout_accuracy=heldout_acc):
            self._emit(ev)

    @property
    def _n_classes(self) -> int | None:
        if self.probe is None:
            return None
        try:
            from gengap.monitor._evaluate import forward

            torch = require_torch()
            with torch.no_grad():
                return int(forward(self.model, _first_n(self.probe, 1)[0]).shape[-1])
        except Exception:  # the probe may not fit the model; chance then stays unknown
            return None

    def _timed(self, key: str, fn: Callable[[], Any]) -> Any:
        t0 = time.perf_counter()
        try:
            return fn()
        finally:
            self.costs.setdefault(key, []).append(time.perf_counter() - t0)

    def _run_measures(self, s: int, *, force: bool = False) -> None:
        """Compute the measures due at step ``s`` on their schedules (every one of them when ``force``)."""
        ctx = None
        for m in self.measure_list:
            every = m.every or (self.expensive_every if m.cost == "expensive" else self.every)
            if s % every != 0 and not force:
                continue
            if m.needs_probe and self.probe is None:
                continue
            if ctx is None:
                ctx = MeasureContext(self.model, s, self.params, self.init, self.probe, self.loss_fn, self._history)
            for name, scope, value in self._timed(m.name, lambda: m.compute(ctx)):  # noqa: B023  (called at once)
                self._record(s, name, scope, value)

    def evaluate(self, *, all_measures: bool = False) -> dict[str, float]:
        """Evaluate now: train/held-out loss and accuracy, their gaps, and the measures due (or all of them)."""
        s = self.current_step
        figures: dict[str, float] = {}
        for prefix, data in (("train", self.train_eval), ("heldout", self.heldout_eval)):
            if data is not None:
                result = self._timed(f"{prefix}_eval", lambda: evaluate_model(self.model, data, loss_fn=self.loss_fn))  # noqa: B023
                figures.update({f"{prefix}_{k}": v for k, v in result.items()})
        if "train_accuracy" in figures and "heldout_accuracy" in figures:
            figures["gap_accuracy"] = figures["train_accuracy"] - figures["heldout_accuracy"]
        if "train_loss" in figures and "heldout_loss" in figures:
            figures["gap_loss"] = figures["heldout_loss"] - figures["train_loss"]
        for name, value in figures.items():
            self._record(s, name, "", value)
        self._run_measures(s, force=all_measures)
        if figures:
            self._detect(s, figures.get("train_accuracy"), figures.get("heldout_accuracy"))
        self._last_eval_step = s
        self.flush()
        return figures

    # ------------------------------------------------------------------ results
    @property
    def measures(self) -> pd.DataFrame:
        """Every recorded value: ``step``, ``name``, ``scope``, ``value`` (also after close)."""
        return pd.DataFrame(self._records, columns=["step", "name", "scope", "value"])

    def latest(self, name: str, scope: str = "") -> tuple[int, float] | None:
        """``(step, value)`` of the last recorded value of a measure, or None when it was never recorded."""
        values = self._history.get((name, scope))
        return values[-1] if values else None

    def decision(self) -> tuple[str, str]:
        """What the grokking detector concludes so far: ``(verdict, reason)``."""
        return self.detector.decision()

    def close(self, status: str = "done") -> None:
        """Evaluate a last time (if steps passed since the last evaluation), state the verdict, finish the run."""
        if self._closed:
            return
        if self.current_step and self._last_eval_step != self.current_step:
            self.evaluate(all_measures=True)
        verdict, reason = self.decision()
        if verdict == "undecided":
            self._emit(Event(self.current_step, "undecided", reason))
        if self._n_nan:
            self._emit(Event(self.current_step, "nan_summary",
                             f"{self._n_nan:,} of the recorded losses were NaN or infinite."))
        self.flush()
        if self.store is not None:
            self.store.finish_run(self.run_id, status)
            if self._own_store:
                self.store.close()
        self._closed = True

    def __enter__(self) -> Monitor:
        return self

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        self.close("failed" if exc_type is not None else "done")
