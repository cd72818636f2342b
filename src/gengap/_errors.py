"""Exceptions raised by gengap.

Every error a user can cause names the thing at fault (file, line, column, field,
parameter), shows the offending value, and says how to fix it. The CLI prints the
message as one paragraph and exits non-zero; no traceback is shown for these.

    GengapError                 base class; catch this to catch everything below
    ├── DataError               a dataset file or table is malformed (file, line, column)
    ├── ConfigError             a parameter, option or run-file key is wrong
    ├── ModelError              a model raised, timed out or returned the wrong shape
    │   └── EndpointError       an HTTP endpoint was down, refused or kept failing
    ├── StoreError              the results store is missing, corrupt, foreign or locked
    └── MissingDependency       an optional extra is not installed (with the pip command)
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = [
    "ConfigError",
    "DataError",
    "EndpointError",
    "GengapError",
    "MissingDependency",
    "ModelError",
    "StoreError",
    "did_you_mean",
]


class GengapError(Exception):
    """Base class of every error gengap raises on purpose."""


class DataError(GengapError, ValueError):
    """A dataset is malformed: the message names the file, line or column."""


class ConfigError(GengapError, ValueError):
    """A parameter, CLI option or run-file key is invalid."""


class ModelError(GengapError, RuntimeError):
    """A model failed while predicting: the message names the shard (model, split, rows)."""


class EndpointError(ModelError):
    """An HTTP model endpoint was unreachable or kept failing after retries."""


class StoreError(GengapError, RuntimeError):
    """The results store cannot be used as it is; it is never modified when this is raised."""


class MissingDependency(GengapError, ImportError):
    """An optional dependency is missing; the message gives the install command."""

    def __init__(self, package: str, extra: str, purpose: str) -> None:
        hint = (
            "pip install torch==2.13.0" if package == "torch" else f"pip install 'gengap[{extra}]'"
        )
        super().__init__(f"{purpose} needs the optional package '{package}', which is not installed. Install it with: {hint}")
        self.package = package


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """A ' Did you mean ...?' suffix naming the closest valid choice, or '' when none is close.

    >>> did_you_mean("tset_fraction", ["test_fraction", "seed"])
    " Did you mean 'test_fraction'?"
    """
    close = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.6)
    return f" Did you mean '{close[0]}'?" if close else ""
