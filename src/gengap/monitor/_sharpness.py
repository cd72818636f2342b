"""Sharpness: how much the training loss rises when the weights move a little (expensive).

Both figures use the relative box of Keskar et al. (2017), "On large-batch training for deep
learning: generalization gap and sharp minima": each weight may move by at most
``rho * (|w| + 1)``; the loss is that of the probe sample.

- ``sharpness``: the worst-case loss increase in the box, found by ``n_steps`` steps of projected
  (sign-)gradient ascent, as in the sharpness measures of Jiang et al. (2020). Cost: ``n_steps + 1``
  forward and backward passes on the probe.
- ``flatness_random``: the mean loss increase over ``n_directions`` random points of the box, the
  random-direction estimate Jiang et al. (2020) contrast with the worst case. Cost: ``n_directions``
  forward passes.

The weights are restored exactly afterwards (and the model's train/eval mode too).
"""

from __future__ import annotations

from gengap.monitor._base import Measure, MeasureContext, Record, register_measure
from gengap.monitor._evaluate import IGNORE_INDEX, forward, split_batch
from gengap.monitor._torch import require_torch

__all__ = ["Sharpness"]


def _probe_loss(ctx: MeasureContext) -> object:
    inputs, targets = split_batch(ctx.probe)
    logits = forward(ctx.model, inputs)
    flat, t = logits.reshape(-1, logits.shape[-1]), targets.reshape(-1)
    keep = t != IGNORE_INDEX
    return ctx.loss_fn(flat[keep], t[keep])


@register_measure
class Sharpness(Measure):
    """``sharpness`` (worst case, projected gradient ascent) and ``flatness_random`` in a relative box."""

    name = "sharpness"
    cost = "expensive"
    paper = "Keskar et al. (2017); Jiang et al. (2020)"
    needs_probe = True

    def __init__(self, *, every: int | None = None, rho: float = 1e-3, n_steps: int = 5, n_directions: int = 5,
                 seed: int = 0) -> None:
        super().__init__(every=every)
        self.rho, self.n_steps, self.n_directions, self.seed = rho, n_steps, n_directions, seed

    def compute(self, ctx: MeasureContext) -> list[Record]:
        torch = require_torch()
        if ctx.probe is None:
            return []
        params = list(ctx.params.values())
        saved = [p.detach().clone() for p in params]
        bounds = [self.rho * (s.abs() + 1.0) for s in saved]
        was = ctx.model.training
        ctx.model.eval()
        gen = torch.Generator().manual_seed(self.seed)
        try:
            with torch.no_grad():
                base = float(_probe_loss(ctx))
            worst = base
            step_size = [2.5 * b / max(1, self.n_steps) for b in bounds]
            for _ in range(self.n_steps):
                loss = _probe_loss(ctx)
                grads = torch.autograd.grad(loss, params, allow_unused=True)
                with torch.no_grad():
                    worst = max(worst, float(loss))
                    for p, g, s, b, h in zip(params, grads, saved, bounds, step_size):
                        if g is None:
                            continue
                        moved = (p + h * g.sign() - s).clamp(-b, b)
                        p.copy_(s + moved)
            with torch.no_grad():
                worst = max(worst, float(_probe_loss(ctx)))
                rises = []
                for _ in range(self.n_directions):
                    for p, s, b in zip(params, saved, bounds):
                        noise = (torch.rand(s.shape, generator=gen, dtype=torch.float32) * 2 - 1).to(s.dtype)
                        p.copy_(s + noise * b)
                    rises.append(float(_probe_loss(ctx)) - base)
        finally:
            with torch.no_grad():
                for p, s in zip(params, saved):
                    p.copy_(s)
            ctx.model.train(was)
        return [("sharpness", "", worst - base), ("flatness_random", "", sum(rises) / max(1, len(rises)))]
