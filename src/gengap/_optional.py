"""Optional packages imported when first needed, with the install command when they are missing."""

from __future__ import annotations

import importlib
from types import ModuleType

from gengap._errors import MissingDependency

__all__ = ["require"]


def require(module: str, *, extra: str, purpose: str) -> ModuleType:
    """Import ``module`` or raise :class:`~gengap.errors.MissingDependency` saying what needs it and how to install it.

    >>> require("json", extra="core", purpose="Reading JSON").__name__
    'json'
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingDependency(module.split(".")[0], extra, purpose) from None
