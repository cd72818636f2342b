"""``results.json``: the report's figures for programs, in the documented schema.

The schema is ``results.schema.json`` beside this module (JSON Schema 2020-12) and is described
for people in ``docs/results-schema.md``. ``schema_version`` changes its major number when a field
is removed or changes meaning, and its minor number when a field is added.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gengap.analysis.gaps import SUMMARY_COLUMNS
from gengap.io import to_jsonable
from gengap.report._core import failure_samples
from gengap.report._headline import metric_gaps
from gengap.report._sections import ReportContext, Section
from gengap.splits._diagnostics import SPLIT_KEYS

__all__ = ["RESULTS_SCHEMA_VERSION", "SCHEMA_PATH", "results_document", "results_schema"]

#: Version of the results.json layout.
RESULTS_SCHEMA_VERSION = "1.10"
#: The JSON Schema file of results.json.
SCHEMA_PATH = Path(__file__).with_name("results.schema.json")

_SPLIT_KEYS = SPLIT_KEYS


def results_schema() -> dict[str, Any]:
    """The JSON Schema of ``results.json`` as a dict (validate with the ``jsonschema`` package).

    >>> results_schema()["properties"]["schema_version"]["const"] == RESULTS_SCHEMA_VERSION
    True
    """
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def _split_record(name: str, info: dict[str, Any]) -> dict[str, Any]:
    record = {"name": name, "method": info.get("method", ""), "seed": info.get("seed"),
              "params": info.get("params") or {}, "dataset": info.get("dataset"), "taxonomy": info.get("taxonomy") or {}}
    record["diagnostics"] = {k: v for k, v in info.items() if k not in _SPLIT_KEYS}
    return record


def results_document(ctx: ReportContext, sections: list[tuple[str, Section]], *, generated_at: str) -> dict[str, Any]:
    """The content of ``results.json`` for a run (plain JSON values; NaN becomes null)."""
    from gengap._version import __version__

    summary = [{col: rec.get(col) for col in SUMMARY_COLUMNS} for rec in ctx.summary.to_dict("records")]
    doc = {
        "schema_version": RESULTS_SCHEMA_VERSION,
        "gengap_version": __version__,
        "generated_at": generated_at,
        "run": {
            "id": ctx.run_id, "name": ctx.run.get("name"), "created_at": ctx.run.get("created_at"),
            "status": ctx.run.get("status"), "gengap_version": ctx.run.get("gengap_version"),
            "config": ctx.run.get("config", {}),
        },
        "headline": ctx.headline.text,
        "headlines": metric_gaps(ctx.summary, ctx.metrics) if len(ctx.summary) else [],
        "reference": ctx.reference,
        "confidence": ctx.confidence,
        "n_resamples": ctx.n_resamples,
        "n_rows": int(len(ctx.rows)),
        "cache": ctx.store.cache_use(ctx.run_id).to_dict("records"),
        "judge": ctx.store.judge_use(ctx.run_id).to_dict("records"),
        "summary": summary,
        "splits": [_split_record(name, info) for name, info in ctx.split_info.items()],
        "failures": failure_samples(ctx),
        "curves": next((s.data for key, s in sections if key == "curves" and isinstance(s.data, list)), []),
        "slices": next((s.data.get("slices", []) for key, s in sections if key == "slices" and isinstance(s.data, dict)), []),
        "sections": {key: _section_data(key, s.data) for key, s in sections if s.data is not None and key != "curves"},
    }
    return to_jsonable(doc)


def _section_data(key: str, data: Any) -> Any:
    """A section's figures under ``sections``; the slices themselves are the top-level ``slices``."""
    if key == "slices" and isinstance(data, dict):
        return {k: v for k, v in data.items() if k != "slices"}
    return data


def dumps(doc: dict[str, Any]) -> str:
    """results.json text: 2-space indent, UTF-8, keys in the documented order, no NaN."""
    return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
