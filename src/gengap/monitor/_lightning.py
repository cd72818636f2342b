"""PyTorch Lightning callback: ``Trainer(callbacks=[LightningMonitor(store=..., heldout_eval=...)])``.

The training loss comes from ``training_step``'s output; held-out figures come either from
``heldout_eval=`` or from what the LightningModule logs in validation (``val_loss``, ``val_acc`` or
``val_accuracy``; also ``train_acc``/``train_accuracy``), so memorization and grokking are detected
from the figures the user already logs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gengap._errors import MissingDependency
from gengap.monitor._monitor import Monitor

try:
    import lightning.pytorch as pl
except ImportError:  # the older package name
    try:
        import pytorch_lightning as pl
    except ImportError:
        raise MissingDependency("lightning", "lightning", "The PyTorch Lightning callback (LightningMonitor)") from None

__all__ = ["LightningMonitor", "LOGGED_NAMES"]

#: Metric names a LightningModule logs -> the monitor's names.
LOGGED_NAMES = {
    "val_loss": "heldout_loss", "val_acc": "heldout_accuracy", "val_accuracy": "heldout_accuracy",
    "train_acc": "train_accuracy", "train_accuracy": "train_accuracy", "train_loss_epoch": "train_loss",
}


class LightningMonitor(pl.Callback):
    """A :class:`gengap.monitor.Monitor` driven by Lightning's hooks; keyword arguments go to the Monitor.

    After ``fit``, ``callback.monitor`` holds the monitor (its ``measures``, ``events`` and ``run_id``).
    """

    def __init__(self, **monitor_options: Any) -> None:
        super().__init__()
        self.monitor_options = monitor_options
        self.monitor: Monitor | None = None

    def on_fit_start(self, trainer: Any, pl_module: Any) -> None:
        self.monitor = Monitor(pl_module, **self.monitor_options)

    def on_train_batch_end(self, trainer: Any, pl_module: Any, outputs: Any, batch: Any, batch_idx: int) -> None:
        loss = outputs.get("loss") if isinstance(outputs, Mapping) else outputs
        self.monitor.step(loss=loss, batch=batch, step=trainer.global_step)

    def on_validation_epoch_end(self, trainer: Any, pl_module: Any) -> None:
        if trainer.sanity_checking or self.monitor is None:
            return
        found = {LOGGED_NAMES[k]: float(v) for k, v in trainer.callback_metrics.items() if k in LOGGED_NAMES}
        if found:
            self.monitor.log(step=trainer.global_step, **found)

    def on_fit_end(self, trainer: Any, pl_module: Any) -> None:
        if self.monitor is not None:
            self.monitor.close()

    def on_exception(self, trainer: Any, pl_module: Any, exception: BaseException) -> None:
        if self.monitor is not None:
            self.monitor.close("failed")
