"""The public surface: every exported name exists, the list is sorted, and the core stays light."""

from __future__ import annotations

import subprocess
import sys

import gengap


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
