"""Gradient coherence of per-example gradients on a sample (expensive).

Chatterjee (2020), "Coherent gradients: an approach to understanding generalization in gradient
descent-based optimization", and Chatterjee and Zielinski (2022), "On the generalization mystery in
deep learning": generalization follows from per-example gradients that agree. With ``g_i`` the
gradient of example ``i``'s loss over a sample of ``m`` examples,

    alpha = ||mean_i g_i||^2 / mean_i ||g_i||^2      (1/m for orthogonal gradients, 1 for identical ones)

gengap stores ``gradient_coherence`` (alpha) and ``gradient_coherence_ratio`` (``m * alpha``, the
ratio to the orthogonal case, alpha / alpha_perp, comparable across sample sizes).
Cost: ``m`` per-example backward passes (vectorized with ``torch.func``) and an ``m x n_weights`` matrix.
"""

from __future__ import annotations

from gengap.monitor._base import MeasureContext, ProbeMeasure, Record, register_measure
from gengap.monitor._pergrad import per_example_gradients

__all__ = ["GradientCoherence", "coherence"]


def coherence(gradients: object) -> float:
    """alpha of a ``(m, n_weights)`` matrix of per-example gradients.

    >>> import torch
    >>> coherence(torch.eye(4)), coherence(torch.ones(4, 3))
    (0.25, 1.0)
    """
    g = gradients.double()
    mean_sq = float(g.mean(dim=0).pow(2).sum())
    sq_mean = float(g.pow(2).sum(dim=1).mean())
    return mean_sq / sq_mean if sq_mean > 0 else float("nan")


@register_measure
class GradientCoherence(ProbeMeasure):
    """``gradient_coherence`` and ``gradient_coherence_ratio`` on the first ``sample`` probe examples."""

    name = "coherence"
    paper = "Chatterjee (2020); Chatterjee and Zielinski (2022)"

    def compute(self, ctx: MeasureContext) -> list[Record]:
        sample = self.probe(ctx)
        if sample is None:
            return []
        x, y = sample
        g = per_example_gradients(ctx.model, ctx.params, x, y, ctx.loss_fn)
        alpha = coherence(g)
        return [("gradient_coherence", "", alpha), ("gradient_coherence_ratio", "", int(y.shape[0]) * alpha)]
