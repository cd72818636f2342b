"""Seeds in, numpy Generators out: the one place randomness is normalized."""

from __future__ import annotations

import numpy as np

from gengap._errors import ConfigError

__all__ = ["check_random_state"]


def check_random_state(seed: int | np.random.Generator | None) -> np.random.Generator:
    """None, an int or a Generator in; a numpy Generator out.

    >>> bool(check_random_state(0).integers(10) == check_random_state(0).integers(10))
    True
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or isinstance(seed, (int, np.integer)):
        return np.random.default_rng(seed)
    raise ConfigError(f"seed must be an int, None or a numpy Generator, got {seed!r}.")
