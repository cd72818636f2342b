"""Loss and accuracy of a model on evaluation data, whatever shape the user's data comes in.

Evaluation data (``train_eval=`` / ``heldout_eval=`` of :class:`~gengap.monitor.Monitor`) may be:

- a pair ``(inputs, targets)`` of tensors,
- an iterable of such pairs or of dict batches with a ``labels`` key (a ``DataLoader``),
- a callable ``f(model) -> {"loss": ..., "accuracy": ...}`` that evaluates however it likes.

Outputs may be a tensor of logits, or an object with ``.logits`` (Hugging Face), a dict with
``"logits"``, or a tuple whose first item is the logits. Logits of shape ``(..., n_classes)`` are
compared with targets of shape ``(...)``; targets equal to ``ignore_index`` (-100) are left out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from gengap._errors import ConfigError
from gengap.monitor._torch import require_torch

__all__ = ["evaluate_model", "logits_of", "split_batch", "probe_sample", "take_rows", "IGNORE_INDEX"]

IGNORE_INDEX = -100


def logits_of(output: Any) -> Any:
    """The logits tensor inside a model's output (tensor, ``.logits``, ``{"logits": ...}`` or a tuple)."""
    torch = require_torch()
    if isinstance(output, torch.Tensor):
        return output
    if hasattr(output, "logits"):
        return output.logits
    if isinstance(output, Mapping) and "logits" in output:
        return output["logits"]
    if isinstance(output, (tuple, list)) and output and isinstance(output[0], torch.Tensor):
        return output[0]
    raise ConfigError(f"Cannot find logits in the model's output of type {type(output).__name__}; return a tensor, "
                      "an object with .logits, or pass a callable as train_eval=/heldout_eval=.")


def split_batch(batch: Any) -> tuple[Any, Any]:
    """``(inputs, targets)`` from a batch given as a pair or a dict with ``labels``."""
    if isinstance(batch, Mapping):
        if "labels" not in batch:
            raise ConfigError(f"A dict batch needs a 'labels' key to score the model; it has {sorted(batch)}.")
        return {k: v for k, v in batch.items() if k != "labels"}, batch["labels"]
    if isinstance(batch, (tuple, list)) and len(batch) >= 2:
        return batch[0], batch[1]
    raise ConfigError(f"A batch must be (inputs, targets) or a dict with 'labels'; got {type(batch).__name__}.")


def take_rows(inputs: Any, rows: slice) -> Any:
    """The same rows of a tensor input, or of every tensor of a dict input."""
    return {k: v[rows] for k, v in inputs.items()} if isinstance(inputs, Mapping) else inputs[rows]


def probe_sample(probe: Any, sample: int) -> tuple[Any, Any]:
    """``(inputs, targets)`` of the first ``sample`` examples of a probe batch (what expensive measures use)."""
    inputs, targets = split_batch(probe)
    m = min(sample, int(targets.shape[0]))
    return take_rows(inputs, slice(0, m)), targets[:m]


def forward(model: Any, inputs: Any) -> Any:
    """Logits of ``model`` on ``inputs`` (keyword arguments when inputs is a dict)."""
    return logits_of(model(**inputs) if isinstance(inputs, Mapping) else model(inputs))


def _batches(data: Any) -> Iterable[Any]:
    torch = require_torch()
    if isinstance(data, (tuple, list)) and len(data) == 2 and all(isinstance(d, torch.Tensor) for d in data):
        return [data]
    if isinstance(data, Mapping):
        return [data]
    return data


def evaluate_model(model: Any, data: Any, *, loss_fn: Callable[..., Any] | None = None) -> dict[str, float]:
    """Mean loss and accuracy of ``model`` on ``data``, in eval mode and without gradients.

    >>> import torch
    >>> net = torch.nn.Linear(2, 2)
    >>> x = torch.eye(2); y = torch.tensor([0, 1])
    >>> with torch.no_grad(): _ = net.weight.copy_(torch.eye(2) * 5); _ = net.bias.zero_()
    >>> evaluate_model(net, (x, y))["accuracy"]
    1.0
    """
    torch = require_torch()
    if callable(data) and not isinstance(data, torch.nn.Module) and not hasattr(data, "__iter__"):
        result = dict(data(model))
        return {k: float(v) for k, v in result.items()}
    loss_fn = loss_fn or torch.nn.functional.cross_entropy
    was_training = model.training
    model.eval()
    total_loss = total_correct = total_n = 0.0
    try:
        with torch.no_grad():
            for batch in _batches(data):
                inputs, targets = split_batch(batch)
                logits = forward(model, inputs)
                flat = logits.reshape(-1, logits.shape[-1])
                flat_targets = targets.reshape(-1)
                keep = flat_targets != IGNORE_INDEX
                n = int(keep.sum())
                if n == 0:
                    continue
                loss = loss_fn(flat[keep], flat_targets[keep])
                total_loss += float(loss) * n
                total_correct += float((flat[keep].argmax(-1) == flat_targets[keep]).sum())
                total_n += n
    finally:
        model.train(was_training)
    if total_n == 0:
        raise ConfigError("The evaluation data held no scorable example (empty, or every target is -100).")
    return {"loss": total_loss / total_n, "accuracy": total_correct / total_n}
