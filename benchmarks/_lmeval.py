"""Run code against lm-evaluation-harness in its own virtual environment (never in gengap's).

The environment lives in benchmarks/.lmeval-venv (git-ignored), or where the environment variable
GENGAP_LMEVAL_VENV points, and is created on first use: python -m venv, then torch==2.13.0 (the
local CPU build), then lm_eval[api]==0.4.13 (pinned; the api extra runs its local-completions model
against an OpenAI-compatible server).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

VENV = Path(os.environ.get("GENGAP_LMEVAL_VENV") or Path(__file__).resolve().parent / ".lmeval-venv")


def lmeval_python() -> Path:
    """The interpreter of the lm_eval environment, creating it if needed."""
    python = VENV / "bin" / "python"
    if not python.exists():
        print(f"creating {VENV} with lm_eval (one-off, a few minutes)...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "torch==2.13.0"], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "lm_eval[api]==0.4.13"], check=True)
    return python


def run_in_lmeval(code: str, payload: dict, timeout: float | None = None) -> dict:
    """Run ``code`` with the lm_eval interpreter; it reads JSON ``payload`` on stdin and prints JSON."""
    proc = subprocess.run([str(lmeval_python()), "-c", code], input=json.dumps(payload), capture_output=True,
                          text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"lm_eval side failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])
