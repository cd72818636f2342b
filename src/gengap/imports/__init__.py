"""Bring the runs you already have: per-example logs of other tools into a gengap results store.

- :func:`import_lm_eval`: the output folder of ``lm_eval ... --log_samples`` (lm-evaluation-harness).
- :func:`import_table`: any JSONL / CSV / Parquet file of per-example predictions, columns named.
- :func:`import_inspect`: inspect_ai evaluation logs (``.eval`` and ``.json``), the epochs of a sample as the k samples of one example.

Both write one run to ``out/gengap.duckdb``; importing the same files again writes nothing. Every
analysis that needs no model call then works on the rows (``gengap report``, groups, splits that
select rows, re-extraction, rank agreement: see :mod:`gengap.analysis.imported`).
"""

from gengap.imports._inspect import import_inspect, read_inspect
from gengap.imports._lmeval import import_lm_eval, read_lm_eval
from gengap.imports._parts import ImportedPart, ImportResult, ModelRows, write_import
from gengap.imports._table import import_table, read_table

__all__ = ["ImportResult", "ImportedPart", "ModelRows", "import_inspect", "import_lm_eval", "import_table", "read_inspect",
           "read_lm_eval", "read_table", "write_import"]
