"""Shared fixtures: the official SCAN files beside the project, small datasets, quiet progress bars."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("GENGAP_NO_PROGRESS", "1")

ROOT = Path(__file__).resolve().parents[1]
SCAN_DIR = ROOT.parent / "shared" / "data" / "scan"


@pytest.fixture(scope="session")
def scan_dir() -> Path:
    """The official SCAN release files; tests that need them skip when ../shared is absent."""
    if not (SCAN_DIR / "tasks.txt").exists():
        pytest.skip(f"the official SCAN files are not at {SCAN_DIR} (../shared/data/scan beside the project)")
    return SCAN_DIR


@pytest.fixture(autouse=True)
def _torch_threads():
    """Keep torch to one thread in tests: the CI machine has 2 cores and pytest runs 2 workers."""
    try:
        import torch
    except ImportError:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture
def cli(monkeypatch, capsys, tmp_path):
    """Call the gengap entry point in this process from ``tmp_path``: cli(*args) -> (code, stdout, stderr)."""
    from gengap.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))

    def run(*args: str) -> tuple[int, str, str]:
        monkeypatch.setattr(sys, "argv", ["gengap", *args])
        try:
            main()
            code = 0
        except SystemExit as e:
            code = int(e.code or 0)
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run
