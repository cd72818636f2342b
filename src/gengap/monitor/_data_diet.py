"""Which training examples matter: EL2N and GraNd scores, and pruning a dataset by them.

Paul, Ganguli and Dziugaite (2021), "Deep learning on a data diet: finding important examples early
in training". Early in training (a few epochs), score every training example:

- EL2N: ``||softmax(f(x)) - onehot(y)||_2``, the norm of the error vector. Cost: one forward pass.
- GraNd: ``||grad_w loss(f(x), y)||_2``, the norm of the example's loss gradient. Cost: one
  per-example backward pass (``torch.func``).

The paper averages scores over a few independently initialized models (pass a list) and keeps the
highest-scoring (hardest) examples: pruning the easy ones costs little accuracy.

>>> import numpy as np
>>> prune(np.array([0.1, 0.9, 0.5, 0.7]), keep=0.5).tolist()
[1, 3]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gengap._errors import ConfigError
from gengap.monitor._base import MeasureContext, ProbeMeasure, Record, register_measure
from gengap.monitor._evaluate import IGNORE_INDEX, forward, take_rows
from gengap.monitor._params import watched_parameters
from gengap.monitor._pergrad import per_example_gradients
from gengap.monitor._torch import require_torch

__all__ = ["el2n_scores", "grand_scores", "prune", "prune_dataset", "DataDiet"]


def _models(models: Any) -> list[Any]:
    return list(models) if isinstance(models, (list, tuple)) else [models]


def el2n_scores(models: Any, inputs: Any, targets: Any, *, batch_size: int = 1024) -> np.ndarray:
    """EL2N score of each example, averaged over ``models`` (one model or a list); shape ``(n_examples,)``.

    >>> import torch
    >>> net = torch.nn.Linear(2, 2)
    >>> el2n_scores(net, torch.randn(6, 2), torch.tensor([0, 1, 0, 1, 0, 1])).shape
    (6,)
    """
    torch = require_torch()
    n = int(targets.shape[0])
    total = np.zeros(n)
    for model in _models(models):
        was = model.training
        model.eval()
        parts = []
        with torch.no_grad():
            for start in range(0, n, batch_size):
                sl = slice(start, start + batch_size)
                logits = forward(model, take_rows(inputs, sl)).float()
                t = targets[sl]
                probs = logits.softmax(-1)
                onehot = torch.nn.functional.one_hot(t.clamp(min=0), logits.shape[-1]).to(probs.dtype)
                err = (probs - onehot) * (t != IGNORE_INDEX).unsqueeze(-1)
                parts.append(err.reshape(err.shape[0], -1).norm(dim=1))
        model.train(was)
        total += torch.cat(parts).double().numpy()
    return total / len(_models(models))


def grand_scores(models: Any, inputs: Any, targets: Any, *, loss_fn: Callable[..., Any] | None = None,
                 batch_size: int = 64) -> np.ndarray:
    """GraNd score of each example (the norm of its loss gradient), averaged over ``models``.

    >>> import torch
    >>> net = torch.nn.Linear(2, 2)
    >>> bool((grand_scores(net, torch.randn(4, 2), torch.tensor([0, 1, 0, 1])) > 0).all())
    True
    """
    total = np.zeros(int(targets.shape[0]))
    for model in _models(models):
        g = per_example_gradients(model, watched_parameters(model, warn=False), inputs, targets, loss_fn,
                                  batch_size=batch_size)
        total += g.double().norm(dim=1).numpy()
    return total / len(_models(models))


def _n_keep(keep: float | int, n: int) -> int:
    if isinstance(keep, bool) or not isinstance(keep, (int, float, np.integer, np.floating)):
        raise ConfigError(f"keep={keep!r}: give a fraction in (0, 1] or a count of examples.")
    if isinstance(keep, (float, np.floating)) and 0 < keep <= 1:
        return max(1, int(round(keep * n)))
    if float(keep).is_integer() and 1 <= keep <= n:
        return int(keep)
    raise ConfigError(f"keep={keep!r}: give a fraction in (0, 1] or a whole count between 1 and {n}.")


def prune(scores: Sequence[float] | np.ndarray, keep: float | int, *, hardest: bool = True) -> np.ndarray:
    """Indices (ascending) of the ``keep`` examples with the highest scores (``hardest=False``: lowest).

    ``keep`` is a fraction in (0, 1] or a count. Ties are broken by position, so the result is reproducible.
    """
    s = np.asarray(scores, dtype=float)
    if s.ndim != 1 or not np.isfinite(s).all():
        raise ConfigError("prune(scores): scores must be a 1-d array of finite numbers (one per example).")
    k = _n_keep(keep, s.size)
    order = np.argsort(-s if hardest else s, kind="stable")
    return np.sort(order[:k])


def prune_dataset(dataset: Any, scores: Sequence[float] | np.ndarray, keep: float | int, *, hardest: bool = True) -> Any:
    """The examples of a :class:`gengap.Dataset` (or anything with ``take``/``__len__``) that ``prune`` keeps."""
    if len(scores) != len(dataset):
        raise ConfigError(f"prune_dataset: {len(scores)} scores for a dataset of {len(dataset)} examples; "
                          "score every example, in the dataset's order.")
    return dataset.take(prune(scores, keep, hardest=hardest))


@register_measure
class DataDiet(ProbeMeasure):
    """``el2n_mean`` and ``grand_mean`` over the probe sample (first ``sample`` examples)."""

    name = "el2n"
    paper = "Paul, Ganguli and Dziugaite (2021), Deep learning on a data diet"

    def compute(self, ctx: MeasureContext) -> list[Record]:
        sample = self.probe(ctx)
        if sample is None:
            return []
        x, y = sample
        el2n = el2n_scores(ctx.model, x, y)
        g = per_example_gradients(ctx.model, ctx.params, x, y, ctx.loss_fn)
        return [("el2n_mean", "", float(el2n.mean())), ("grand_mean", "", float(g.double().norm(dim=1).mean()))]
