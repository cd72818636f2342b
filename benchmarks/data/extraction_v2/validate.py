"""Check the labelled files of extraction_v2 with the one validator of the labelled sets.

Run: python benchmarks/data/extraction_v2/validate.py [FOLDER]

The checks (JSON parses, fields present, kinds and patterns known, the gold letter within the
options, numbers that parse, ids unique, each id in the part the split rule gives it) live in
``../extraction_v3/validate.py``, which checks both sets the same way.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _validator():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("extraction_validate", HERE.parent / "extraction_v3" / "validate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    sys.exit(_validator().main(sys.argv[1:] or [str(HERE)]))
