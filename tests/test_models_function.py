"""A Python function model's fingerprint: the same in every process, changed by any edit to what it computes."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

MODULE = """
def predict(batch):
    return [{x}.upper() for x in batch]
"""

FINGERPRINT = """
import sys
sys.path.insert(0, sys.argv[1])
from gengap.models import load_model
print(load_model("predictor:predict", version="v1").fingerprint())
"""


def _fingerprint_in_a_new_process(folder: Path) -> str:
    env = {**os.environ, "PYTHONHASHSEED": "random"}
    done = subprocess.run([sys.executable, "-c", FINGERPRINT, str(folder)], capture_output=True, text=True,
                          check=True, env=env)
    return done.stdout.strip()


def test_a_function_with_a_comprehension_has_one_fingerprint_across_processes(tmp_path):
    module = tmp_path / "predictor.py"
    module.write_text(textwrap.dedent(MODULE.format(x="x")))
    first, second = (_fingerprint_in_a_new_process(tmp_path) for _ in range(2))
    assert len(first) == 16 and first == second  # the comprehension's address is not part of it
    stat = module.stat()
    module.write_text(textwrap.dedent(MODULE.format(x="x.strip()")))
    os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same time; the body alone differs
    assert _fingerprint_in_a_new_process(tmp_path) != first

