"""The public surface: exactly the documented names, each loads, the list is sorted, and the core stays light."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import gengap

DOC = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"


def test_all_is_exactly_the_documented_list():
    block = DOC.read_text(encoding="utf-8").split("<!-- public-api -->")[1].split("<!-- /public-api -->")[0]
    assert sorted(gengap.__all__) == sorted(re.findall(r"`([^`]+)`", block))


@pytest.mark.parametrize("name", ["Store", "fit_irt", "OpenAIModel", "stress_summary", "transfer_matrix"])
def test_names_that_left_the_top_level_are_gone(name):
    with pytest.raises(AttributeError, match=f"module 'gengap' has no attribute '{name}'"):
        getattr(gengap, name)


@pytest.mark.parametrize("package", ["analysis", "perturb", "monitor", "report", "splits", "models", "extract"])
def test_each_package_exports_its_own_stage_only(package):
    """A name in a package's __all__ is defined in that package (not re-exported from another stage)."""
    import importlib
    import inspect

    module = importlib.import_module(f"gengap.{package}")
    defined = {name: getattr(module, name) for name in module.__all__}
    foreign = [name for name, value in defined.items() if (inspect.isclass(value) or inspect.isfunction(value))
               and not value.__module__.startswith(f"gengap.{package}")]
    assert foreign == []


def test_the_top_level_names_load_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        for name in gengap.__all__:
            getattr(gengap, name)


def test_all_names_exist_and_are_sorted():
    missing = [name for name in gengap.__all__ if not hasattr(gengap, name)]
    assert not missing
    assert list(gengap.__all__) == sorted(gengap.__all__)


def test_public_callables_have_docstrings():
    undocumented = [n for n in gengap.__all__ if callable(getattr(gengap, n)) and not (getattr(gengap, n).__doc__ or "").strip()]
    assert not undocumented


def test_import_does_not_pull_heavy_packages():
    code = "import sys, gengap; print(','.join(m for m in ('torch', 'ray', 'transformers', 'datasets') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""


def test_cli_help_lists_commands():
    out = subprocess.run([sys.executable, "-m", "gengap.cli", "--help"], capture_output=True, text=True, check=True).stdout
    for command in ("demo", "eval", "run", "split", "report", "resume"):
        assert command in out
