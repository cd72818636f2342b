"""A PyTorch module as a gengap model: the user's module plus an encode/decode pair, or a generate function.

Two ways to adapt a network that maps batches of tensors to batches of tensors:

- ``TorchModel(module, encode=..., decode=...)``: ``encode(inputs)`` turns a list of inputs into
  what the module takes (a tensor, a tuple of tensors or a dict of keyword tensors), the module
  runs in evaluation mode without gradients, and ``decode(outputs)`` turns its output into one
  answer per input.
- ``TorchModel(module, generate=...)``: ``generate(module, inputs) -> answers`` does it all (an
  autoregressive decoder, beam search, anything).

Tensors are moved to the module's device. The fingerprint hashes the module's weights, and hashes
them again after any weight changes, so outputs are cached per weights.

>>> import torch
>>> net = torch.nn.Linear(2, 2)
>>> _ = net.weight.data.copy_(torch.tensor([[1.0, 0.0], [0.0, -1.0]])); _ = net.bias.data.zero_()
>>> model = TorchModel(net, encode=lambda xs: torch.tensor(xs, dtype=torch.float32),
...                    decode=lambda out: out.argmax(dim=1).tolist(), name="linear")
>>> model.predict([[1.0, 0.0], [-1.0, 0.5]])
[0, 1]
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

from gengap._errors import ConfigError, ModelError
from gengap._optional import require
from gengap.models._base import Model

__all__ = ["TorchModel"]


def _import_torch() -> Any:
    return require("torch", extra="torch", purpose="The PyTorch module adapter")


def _to_device(value: Any, device: Any, torch: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, dict):
        return {k: _to_device(v, device, torch) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return type(value)(_to_device(v, device, torch) for v in value)
    return value


def weights_state(module: Any) -> tuple[Any, ...]:
    """A cheap key that changes whenever a parameter or buffer is replaced or changed in place
    (PyTorch bumps a tensor's version on every in-place write: optimizer steps, load_state_dict)."""
    return tuple((k, t.data_ptr(), t._version) for k, t in module.state_dict(keep_vars=True).items())


def weights_fingerprint(module: Any, extra: str = "") -> str:
    """A hash of a module's class, parameter and buffer names, shapes and values."""
    torch = _import_torch()
    h = hashlib.sha256(f"{type(module).__module__}.{type(module).__qualname__}:{extra}".encode())
    for key, tensor in module.state_dict().items():
        h.update(f"{key}:{tuple(tensor.shape)}:{tensor.dtype}".encode())
        flat = tensor.detach().cpu().contiguous().reshape(-1)
        h.update(flat.view(torch.uint8).numpy().tobytes() if flat.numel() else b"")
    return h.hexdigest()[:16]


class TorchModel(Model):
    """Adapt a ``torch.nn.Module`` to gengap's batch contract.

    Parameters
    ----------
    module : the network (any ``torch.nn.Module``); it is put in evaluation mode when predicting.
    encode : ``inputs -> tensor | tuple | dict``: a batch of inputs to the module's arguments.
    decode : ``module output -> list``: one answer per input (text, a label, a number).
    generate : ``(module, inputs) -> list``: used instead of encode/decode when given.
    name : how the model appears in reports (default: the module's class name).

    Examples
    --------
    A generate function for a classifier over a fixed label set:

    >>> import torch
    >>> net = torch.nn.Sequential(torch.nn.Linear(3, 2))
    >>> def answer(module, batch):
    ...     logits = module(torch.tensor(batch, dtype=torch.float32))
    ...     return ["yes" if i == 1 else "no" for i in logits.argmax(1).tolist()]
    >>> len(TorchModel(net, generate=answer).predict([[0.0, 1.0, 2.0]] * 3))
    3
    """

    def __init__(
        self,
        module: Any,
        *,
        encode: Callable[[list[Any]], Any] | None = None,
        decode: Callable[[Any], Sequence[Any]] | None = None,
        generate: Callable[[Any, list[Any]], Sequence[Any]] | None = None,
        name: str | None = None,
    ) -> None:
        torch = _import_torch()
        if not isinstance(module, torch.nn.Module):
            raise ConfigError(f"TorchModel: module must be a torch.nn.Module, got {type(module).__name__}.")
        if generate is None and (encode is None or decode is None):
            raise ConfigError("TorchModel needs either generate=fn(module, inputs) or both encode=fn(inputs) and "
                              "decode=fn(outputs).")
        if generate is not None and (encode is not None or decode is not None):
            raise ConfigError("TorchModel: give generate or encode/decode, not both.")
        self.module = module
        self.encode = encode
        self.can_sample = generate is not None  # a generate function may sample; encode/decode in eval mode does not
        self.sample_note = "" if self.can_sample else ("its forward pass in evaluation mode gives the same answer every "
                                                       "time; give a generate function that samples")
        self.decode = decode
        self.generate = generate
        self.name = name or type(module).__name__
        self._fingerprint: str | None = None
        self._state: tuple[Any, ...] | None = None

    @property
    def device(self) -> Any:
        """The device of the module's first parameter or buffer (CPU for a module without any)."""
        torch = _import_torch()
        for tensor in list(self.module.parameters()) + list(self.module.buffers()):
            return tensor.device
        return torch.device("cpu")

    def predict(self, inputs: Sequence[Any]) -> list[Any]:
        torch = _import_torch()
        batch = list(inputs)
        was_training = self.module.training
        self.module.eval()
        try:
            with torch.inference_mode():
                if self.generate is not None:
                    outputs = self.generate(self.module, batch)
                else:
                    encoded = _to_device(self.encode(batch), self.device, torch)  # type: ignore[misc]
                    if isinstance(encoded, dict):
                        raw = self.module(**encoded)
                    elif isinstance(encoded, tuple):
                        raw = self.module(*encoded)
                    else:
                        raw = self.module(encoded)
                    outputs = self.decode(raw)  # type: ignore[misc]
        finally:
            self.module.train(was_training)
        outputs = outputs.tolist() if hasattr(outputs, "tolist") else list(outputs)
        if len(outputs) != len(batch):
            raise ModelError(f"TorchModel '{self.name}': {len(batch)} inputs gave {len(outputs)} outputs; decode/generate "
                             "must return one answer per input.")
        return outputs

    def fingerprint(self) -> str:
        """Weights and the encode/decode/generate functions' names; hashed again whenever a weight
        has changed since the last hash (training the module further invalidates its cached outputs)."""
        state = weights_state(self.module)
        if self._fingerprint is None or state != self._state:
            fns = ",".join(getattr(f, "__qualname__", repr(f)) for f in (self.encode, self.decode, self.generate) if f)
            self._fingerprint = weights_fingerprint(self.module, f"{self.name}:{fns}")
            self._state = state
        return self._fingerprint
