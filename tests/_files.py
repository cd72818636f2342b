"""Import a Python file by its path, as the CLI imports a user's ``module.py:function``."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def import_file(path: Path, name: str | None = None) -> ModuleType:
    """The module in ``path``, registered in ``sys.modules`` under ``name`` (default: its stem + '_under_test')."""
    name = name or path.stem + "_under_test"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
