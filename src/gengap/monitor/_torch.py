"""Import torch only when a monitor needs it, with an install hint when it is missing."""

from __future__ import annotations

from typing import Any

from gengap._optional import require

__all__ = ["require_torch"]


def require_torch() -> Any:
    """Return the ``torch`` module, or raise :class:`~gengap.errors.MissingDependency` with the install command."""
    return require("torch", extra="torch", purpose="Watching a training run (gengap.Monitor)")
