"""Measures computed from the weights alone: no data, one pass over the parameters (cheap).

- ``distance``: L2 distance of the weights from their initialization, and its least-squares fit
  ``distance ~ a + b log(step)``. Hoffer, Hubara and Soudry (2017), "Train longer, generalize better":
  the distance grows logarithmically with the number of updates (an ultra-slow diffusion). Cost: one
  subtraction per parameter.
- ``rotation``: layer rotation, the cosine distance ``1 - cos(w, w0)`` of each weight matrix to its
  initial value. Carbonnelle and De Vleeschouwer (2019), "Layer rotation: a surprisingly simple
  indicator of generalization in deep networks". Cost: one dot product per layer.
- ``norms``: the Frobenius norm of each parameter and of all of them together (``param_norm``), as in
  Jiang et al. (2020), "Fantastic generalization measures and where to find them". Cost: one pass.
- ``spectral``: the largest singular value of each weight matrix and ``log_spectral_product`` (the sum of
  their logs), Jiang et al. (2020) after Bartlett et al. (2017). Cost: one matrix 2-norm per layer.
- ``path_norm``: ``sum f_{w^2}(1)``, the network with squared weights applied to an all-ones input, as
  in Jiang et al. (2020) after Neyshabur et al. (2015). Needs floating-point inputs (not token ids).
  Cost: one forward pass of a copy of the model.
"""

from __future__ import annotations

import copy
import math
import warnings

import numpy as np

from gengap.monitor._base import Measure, MeasureContext, Record, register_measure
from gengap.monitor._torch import require_torch

__all__ = ["Distance", "LayerRotation", "Norms", "SpectralNorms", "PathNorm", "log_step_fit"]


def log_step_fit(steps: np.ndarray, values: np.ndarray) -> tuple[float, float, float]:
    """Least-squares fit ``value ~ a + b log(step)`` over steps >= 1: returns ``(a, b, r2)``.

    >>> s = np.array([1, 10, 100, 1000]); a, b, r2 = log_step_fit(s, 2 + 3 * np.log(s))
    >>> round(a, 6), round(b, 6), round(r2, 6)
    (2.0, 3.0, 1.0)
    """
    steps = np.asarray(steps, dtype=float)
    values = np.asarray(values, dtype=float)
    keep = (steps >= 1) & np.isfinite(values)
    x, y = np.log(steps[keep]), values[keep]
    if x.size < 3 or np.ptp(x) == 0:
        return float("nan"), float("nan"), float("nan")
    b, a = np.polyfit(x, y, 1)
    resid = y - (a + b * x)
    total = float(((y - y.mean()) ** 2).sum())
    r2 = 1.0 - float((resid ** 2).sum()) / total if total > 0 else float("nan")
    return float(a), float(b), r2


def _matrices(ctx: MeasureContext) -> dict[str, object]:
    return {name: p for name, p in ctx.params.items() if p.ndim >= 2}


@register_measure
class Distance(Measure):
    """``distance_from_init`` and, from the third point on, ``distance_log_slope`` and ``distance_log_r2``."""

    name = "distance"
    paper = "Hoffer, Hubara and Soudry (2017), Train longer, generalize better"

    def compute(self, ctx: MeasureContext) -> list[Record]:
        torch = require_torch()
        with torch.no_grad():
            sq = sum(float(((p.detach() - ctx.init[n]) ** 2).sum()) for n, p in ctx.params.items())
        dist = math.sqrt(sq)
        out: list[Record] = [("distance_from_init", "", dist)]
        past = ctx.history.get(("distance_from_init", ""), [])
        steps = np.array([s for s, _ in past] + [ctx.step])
        values = np.array([v for _, v in past] + [dist])
        if (steps >= 1).sum() >= 3:
            _, slope, r2 = log_step_fit(steps, values)
            out += [("distance_log_slope", "", slope), ("distance_log_r2", "", r2)]
        return out


@register_measure
class LayerRotation(Measure):
    """``layer_rotation`` per weight matrix (scope = its name) and their mean (scope ``""``)."""

    name = "rotation"
    paper = "Carbonnelle and De Vleeschouwer (2019), Layer rotation"

    def compute(self, ctx: MeasureContext) -> list[Record]:
        torch = require_torch()
        out: list[Record] = []
        with torch.no_grad():
            for name, p in _matrices(ctx).items():
                cos = torch.nn.functional.cosine_similarity(p.detach().reshape(1, -1).double(),
                                                            ctx.init[name].reshape(1, -1).double(), eps=1e-12)
                out.append(("layer_rotation", name, float(1.0 - cos)))
        if out:
            out.append(("layer_rotation", "", float(np.mean([v for _, _, v in out]))))
        return out


@register_measure
class Norms(Measure):
    """``param_norm`` per parameter (scope = its name) and over all watched parameters (scope ``""``)."""

    name = "norms"
    paper = "Jiang et al. (2020), Fantastic generalization measures and where to find them"

    def compute(self, ctx: MeasureContext) -> list[Record]:
        torch = require_torch()
        with torch.no_grad():
            each = {n: float(torch.linalg.vector_norm(p.detach())) for n, p in ctx.params.items()}
        return [("param_norm", n, v) for n, v in each.items()] + [("param_norm", "", math.sqrt(sum(v * v for v in each.values())))]


@register_measure
class SpectralNorms(Measure):
    """``spectral_norm`` per weight matrix (reshaped to ``(out, -1)``) and ``log_spectral_product``."""

    name = "spectral"
    paper = "Jiang et al. (2020); Bartlett, Foster and Telgarsky (2017)"

    def compute(self, ctx: MeasureContext) -> list[Record]:
        torch = require_torch()
        out: list[Record] = []
        with torch.no_grad():
            for name, p in _matrices(ctx).items():
                sigma = float(torch.linalg.matrix_norm(p.detach().reshape(p.shape[0], -1).float(), ord=2))
                out.append(("spectral_norm", name, sigma))
        if out:
            out.append(("log_spectral_product", "", float(sum(math.log(max(v, 1e-300)) for _, _, v in out))))
        return out


@register_measure
class PathNorm(Measure):
    """``path_norm``: the squared-weight network on an all-ones input shaped like the probe's inputs."""

    name = "path_norm"
    cost = "cheap"
    paper = "Jiang et al. (2020); Neyshabur, Salakhutdinov and Srebro (2015)"
    needs_probe = True

    def __init__(self, *, every: int | None = None) -> None:
        super().__init__(every=every)
        self._warned = False

    def compute(self, ctx: MeasureContext) -> list[Record]:
        torch = require_torch()
        if ctx.probe is None or not isinstance(ctx.probe[0], torch.Tensor) or not ctx.probe[0].is_floating_point():
            if not self._warned:
                warnings.warn("path_norm needs floating-point tensor inputs (a token-id model has none); it is skipped.",
                              stacklevel=2)
                self._warned = True
            return []
        from gengap.monitor._evaluate import forward

        twin = copy.deepcopy(ctx.model).eval()
        with torch.no_grad():
            for p in twin.parameters():
                if p.is_floating_point():
                    p.pow_(2)
            ones = torch.ones((1, *ctx.probe[0].shape[1:]), dtype=ctx.probe[0].dtype)
            value = float(forward(twin, ones).sum())
        return [("path_norm", "", value)]
