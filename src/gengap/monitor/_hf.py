"""Hugging Face ``Trainer`` callback: ``Trainer(..., callbacks=[HFMonitorCallback(store=...)])``.

The Trainer's logged training loss is recorded as ``batch_loss`` and its evaluation figures
(``eval_loss``, ``eval_accuracy`` when ``compute_metrics`` returns ``accuracy``) as ``heldout_loss`` and
``heldout_accuracy``; ``train_eval=``/``heldout_eval=`` (dict batches with ``labels``) make the monitor
evaluate by itself on its own schedule.
"""

from __future__ import annotations

from typing import Any

from gengap._errors import MissingDependency
from gengap.monitor._monitor import Monitor

try:
    from transformers import TrainerCallback
except ImportError:
    raise MissingDependency("transformers", "hf", "The Hugging Face Trainer callback (HFMonitorCallback)") from None

__all__ = ["HFMonitorCallback", "EVAL_NAMES"]

#: Trainer metric names -> the monitor's names.
EVAL_NAMES = {"eval_loss": "heldout_loss", "eval_accuracy": "heldout_accuracy", "eval_acc": "heldout_accuracy"}


class HFMonitorCallback(TrainerCallback):
    """A :class:`gengap.monitor.Monitor` driven by ``Trainer`` events; keyword arguments go to the Monitor."""

    def __init__(self, **monitor_options: Any) -> None:
        self.monitor_options = monitor_options
        self.monitor: Monitor | None = None

    def on_train_begin(self, args: Any, state: Any, control: Any, model: Any = None, **kwargs: Any) -> None:
        self.monitor = Monitor(model, **self.monitor_options)

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self.monitor.step(step=state.global_step)

    def on_log(self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None, **kwargs: Any) -> None:
        if self.monitor is not None and logs and "loss" in logs:
            self.monitor.log(step=state.global_step, batch_loss=logs["loss"])

    def on_evaluate(self, args: Any, state: Any, control: Any, metrics: dict[str, Any] | None = None,
                    **kwargs: Any) -> None:
        found = {EVAL_NAMES[k]: float(v) for k, v in (metrics or {}).items() if k in EVAL_NAMES}
        if self.monitor is not None and found:
            self.monitor.log(step=state.global_step, **found)

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if self.monitor is not None:
            self.monitor.close()
