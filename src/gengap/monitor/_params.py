"""Which parameters a measure looks at: the trainable floating-point ones, each counted once.

Shared (tied) parameters appear once (``named_parameters`` drops repeats); frozen parameters
(``requires_grad=False``) and non-float ones (integer buffers registered as parameters) are left
out of the measures and named once in a warning, so a user knows what the figures cover.
"""

from __future__ import annotations

import warnings
from typing import Any

from gengap._errors import ConfigError

__all__ = ["watched_parameters"]


def watched_parameters(model: Any, *, warn: bool = True) -> dict[str, Any]:
    """The parameters the measures follow, by name: trainable, floating point, each shared tensor once.

    >>> import torch
    >>> net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Linear(2, 2))
    >>> net[1].weight = net[0].weight          # tied weights are counted once
    >>> sorted(watched_parameters(net))
    ['0.bias', '0.weight', '1.bias']
    """
    named = getattr(model, "named_parameters", None)
    if named is None:
        raise ConfigError(f"Monitor needs a torch.nn.Module (something with named_parameters()); got {type(model).__name__}.")
    watched, frozen, non_float = {}, [], []
    for name, p in named():
        if not (p.is_floating_point() or p.is_complex()):
            non_float.append(name)
        elif not p.requires_grad:
            frozen.append(name)
        else:
            watched[name] = p
    if warn and (frozen or non_float):
        parts = []
        if frozen:
            parts.append(f"{len(frozen)} frozen (requires_grad=False): {', '.join(frozen[:5])}{' ...' if len(frozen) > 5 else ''}")
        if non_float:
            parts.append(f"{len(non_float)} not floating point: {', '.join(non_float[:5])}{' ...' if len(non_float) > 5 else ''}")
        warnings.warn("The monitor's weight measures leave out " + "; ".join(parts) + ".", stacklevel=3)
    if not watched:
        raise ConfigError(
            f"The model {type(model).__name__} has no trainable floating-point parameters, so there is nothing to "
            "monitor. Unfreeze some parameters (requires_grad=True) before creating the Monitor."
        )
    return watched
