"""Progress when stderr is not a terminal: plain lines at a calm interval, unless GENGAP_NO_PROGRESS=1."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = """
import time
import gengap
ds = gengap.load([{"input": str(i), "target": str(i)} for i in range(40)])
def slow(xs):
    time.sleep(0.05 * len(xs))
    return xs
ev = gengap.evaluate(slow, ds, ["random"], batch_size=1)
print("score", ev.summary()["score"].iloc[0])
"""


def _run(**env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k not in ("GENGAP_NO_PROGRESS", "GENGAP_PROGRESS_EVERY")}
    environ["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), environ.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300,
                          env={**environ, **env}, check=True)


def test_piped_stderr_gets_plain_progress_lines():
    done = _run(GENGAP_PROGRESS_EVERY="0.1")
    lines = [line for line in done.stderr.splitlines() if line.startswith("[gengap] ")]
    assert len(lines) >= 2, done.stderr
    # what is running (the split, the model), done/total, the rate, the time left; then a last line
    running = r"\[gengap\] random \(1/1\) · slow on random: \d+/8 \(\d+%\), [\d.,]+/s, about \d+ s left"
    assert any(re.fullmatch(running, line) for line in lines[:-1]), lines
    assert re.fullmatch(r"\[gengap\] random \(1/1\) · slow on random: 8/8 \(100%\), [\d.,]+/s, done in \d+ s", lines[-1]), lines
    assert "\x1b[" not in done.stderr  # no terminal control codes in a log
    assert "score 1.0" in done.stdout


def test_no_lines_when_switched_off_or_when_the_step_is_shorter_than_the_interval():
    assert "[gengap]" not in _run(GENGAP_PROGRESS_EVERY="0.1", GENGAP_NO_PROGRESS="1").stderr
    assert "[gengap]" not in _run().stderr  # 0.4 s of work, lines every 15 s: nothing to say
