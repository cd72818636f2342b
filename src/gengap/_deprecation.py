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
from typing import Any, Final

__all__ = ["UNSET", "renamed_argument", "warn_renamed"]


class _Unset:
    """The default of a deprecated argument: tells "not given" apart from every value, None included."""

    def __repr__(self) -> str:
        return "UNSET"


#: Default of a deprecated alias argument; a parameter with this default is not listed as an option.
UNSET: Final = _Unset()


def warn_renamed(old: str, new: str, *, stacklevel: int = 3) -> None:
    """Warn (DeprecationWarning) that ``old`` is now called ``new``."""
    warnings.warn(f"{old} is deprecated and will be removed in the next release; use {new}.",
                  DeprecationWarning, stacklevel=stacklevel)


def renamed_argument(owner: str, old: str, new: str, old_value: Any, new_value: Any, new_default: Any, *,
                     stacklevel: int = 4) -> Any:
    """The value of argument ``new``, or of its deprecated alias ``old`` when that was given (with a warning).

    Giving both (``new`` away from its default) is an error, since one value would be dropped.
    ``stacklevel`` 4 points the warning at the caller of the function that took the arguments.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     renamed_argument("RandomSplit", "random_state", "seed", 3, 0, 0)
    3
    >>> str(caught[0].message)
    'RandomSplit(random_state=...) is deprecated and will be removed in the next release; use RandomSplit(seed=...).'
    >>> renamed_argument("RandomSplit", "random_state", "seed", UNSET, 5, 0)
    5
    """
    if old_value is UNSET:
        return new_value
    if new_value is not new_default and new_value != new_default:
        from gengap._errors import ConfigError

        raise ConfigError(f"{owner}: {old}={old_value!r} and {new}={new_value!r} were both given; {old} is the old "
                          f"name of {new}, give only {new}={old_value!r}.")
    warn_renamed(f"{owner}({old}=...)", f"{owner}({new}=...)", stacklevel=stacklevel)
    return old_value
