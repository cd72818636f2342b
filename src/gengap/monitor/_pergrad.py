"""Per-example gradients with ``torch.func`` (``vmap`` over ``grad`` of one example's loss)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from gengap.monitor._evaluate import IGNORE_INDEX, logits_of
from gengap.monitor._torch import require_torch

__all__ = ["per_example_gradients"]


def per_example_gradients(model: Any, params: Mapping[str, Any], inputs: Any, targets: Any,
                          loss_fn: Callable[..., Any] | None = None, *, batch_size: int = 64) -> Any:
    """A ``(n_examples, n_weights)`` tensor: each row the flattened gradient of one example's loss.

    >>> import torch
    >>> net = torch.nn.Linear(3, 2)
    >>> g = per_example_gradients(net, dict(net.named_parameters()), torch.randn(5, 3), torch.tensor([0, 1, 0, 1, 1]))
    >>> tuple(g.shape)
    (5, 8)
    """
    torch = require_torch()
    from torch.func import functional_call, grad, vmap

    loss_fn = loss_fn or torch.nn.functional.cross_entropy
    names = list(params)
    detached = {n: params[n].detach() for n in names}

    def one(p: dict[str, Any], x: Any, y: Any) -> Any:
        x1 = {k: v.unsqueeze(0) for k, v in x.items()} if isinstance(x, Mapping) else x.unsqueeze(0)
        out = functional_call(model, p, kwargs=x1) if isinstance(x1, Mapping) else functional_call(model, p, (x1,))
        logits = logits_of(out)
        flat, t = logits.reshape(-1, logits.shape[-1]), y.reshape(-1)
        weight = (t != IGNORE_INDEX).to(flat.dtype)
        losses = loss_fn(flat, t.clamp(min=0), reduction="none") if loss_fn is torch.nn.functional.cross_entropy \
            else loss_fn(flat, t)
        return (losses * weight).sum() / weight.sum().clamp(min=1) if losses.ndim else losses

    per_batch = vmap(grad(one), in_dims=(None, 0, 0), randomness="different")
    n = int(targets.shape[0])
    was = model.training
    model.eval()
    rows = []
    try:
        for start in range(0, n, batch_size):
            sl = slice(start, start + batch_size)
            x = {k: v[sl] for k, v in inputs.items()} if isinstance(inputs, Mapping) else inputs[sl]
            grads = per_batch(detached, x, targets[sl])
            rows.append(torch.cat([grads[k].reshape(grads[k].shape[0], -1) for k in names], dim=1))
    finally:
        model.train(was)
    return torch.cat(rows, dim=0)
