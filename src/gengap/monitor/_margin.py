"""Output margin on a sample of training data (cheap: one forward pass of the probe).

``margin``: the 10th percentile over examples of (correct logit - largest other logit), the
robust margin Jiang et al. (2020), "Fantastic generalization measures and where to find them", use in
their margin-based measures (they take a low percentile rather than the minimum, which one
example can decide). Also ``margin_spectral``: the margin divided by the product of spectral norms
would need the whole network's Lipschitz bound; gengap stores the two separately so a user can
combine them.
"""

from __future__ import annotations

from gengap.monitor._base import Measure, MeasureContext, Record, register_measure
from gengap.monitor._evaluate import IGNORE_INDEX, forward, split_batch
from gengap.monitor._torch import require_torch

__all__ = ["Margin", "margins"]


def margins(logits: object, targets: object) -> object:
    """Per-example margin: correct logit minus the best other logit (negative when misclassified).

    >>> import torch
    >>> margins(torch.tensor([[3.0, 1.0], [0.0, 2.0]]), torch.tensor([0, 0])).tolist()
    [2.0, -2.0]
    """
    require_torch()  # a clear error when torch is missing
    logits = logits.reshape(-1, logits.shape[-1]).float()
    targets = targets.reshape(-1)
    keep = targets != IGNORE_INDEX
    logits, targets = logits[keep], targets[keep]
    correct = logits.gather(1, targets[:, None]).squeeze(1)
    others = logits.clone()
    others.scatter_(1, targets[:, None], float("-inf"))
    return correct - others.max(dim=1).values if logits.shape[1] > 1 else correct


@register_measure
class Margin(Measure):
    """``margin``: 10th percentile (``quantile``) of the output margin on the probe sample."""

    name = "margin"
    paper = "Jiang et al. (2020), Fantastic generalization measures and where to find them"
    needs_probe = True

    def __init__(self, *, every: int | None = None, quantile: float = 0.1) -> None:
        super().__init__(every=every)
        self.quantile = quantile

    def compute(self, ctx: MeasureContext) -> list[Record]:
        torch = require_torch()
        if ctx.probe is None:
            return []
        inputs, targets = split_batch(ctx.probe)
        was = ctx.model.training
        ctx.model.eval()
        try:
            with torch.no_grad():
                m = margins(forward(ctx.model, inputs), targets)
        finally:
            ctx.model.train(was)
        return [("margin", "", float(torch.quantile(m, self.quantile)))] if m.numel() else []
