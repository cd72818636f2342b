"""Old names kept for one release: each use warns with the new name.

>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     warn_renamed("gengap.stress_summary", "gengap.perturbation_effects")
>>> str(caught[0].message)
'gengap.stress_summary is deprecated and will be removed in the next release; use gengap.perturbation_effects.'
"""

from __future__ import annotations

import warnings

__all__ = ["warn_renamed"]


def warn_renamed(old: str, new: str, *, stacklevel: int = 3) -> None:
    """Warn (DeprecationWarning) that ``old`` is now called ``new``."""
    warnings.warn(f"{old} is deprecated and will be removed in the next release; use {new}.",
                  DeprecationWarning, stacklevel=stacklevel)
