"""The viewer's summary: the report's figures (``results.json``) of a run, each with the rows behind it.

The figures are the report's own (:func:`gengap.report._results.results_document`), computed from the
same stored rows. Each figure that counts examples gets ``rows``: the filters of ``/api/rows`` that
select exactly the rows it was computed from. A link is kept only when that selection holds as many
rows as the figure's ``n`` (checked here, on the loaded rows), so the count a reader sees after a click
is the ``n`` the summary printed; a figure whose rows cannot be selected by filters is shown without one.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["report_document", "linked_figures"]


def report_document(store_path: Path, run_id: str) -> dict[str, Any]:
    """The report's ``results.json`` content for a run (a section that fails leaves its error, as in the report)."""
    from gengap.report._results import results_document
    from gengap.report._sections import build_sections
    from gengap.report._write import load_context
    from gengap.store import Store

    with Store(store_path, read_only=True) as store:
        ctx = load_context(store, run_id)
        sections = build_sections(ctx)
        return results_document(ctx, sections, generated_at="")


def _count(con: Any, rows: Mapping[str, Any], meta: Mapping[str, str]) -> int:
    from gengap.view.queries import parse_filters

    query = {k: [str(x) for x in v] if isinstance(v, list) else [str(v)] for k, v in rows.items()}
    where, params = parse_filters(query, meta).where()
    cur = con.cursor()
    try:
        return int(cur.execute(f"SELECT count(*) FROM rows WHERE {where}", params).fetchone()[0])
    finally:
        cur.close()


def _first_match(con: Any, candidates: list[dict[str, Any]], n: Any, meta: Mapping[str, str]) -> dict[str, Any] | None:
    """The first filter set that selects exactly ``n`` rows, or None (always, while ``con`` is None: no rows yet)."""
    if n is None or con is None:
        return None
    for rows in candidates:
        try:
            if _count(con, rows, meta) == int(n):
                return rows
        except Exception:  # a candidate naming a field these rows lack: try the next
            continue
    return None


def _number(v: Any) -> str:
    f = float(v)
    return str(int(f)) if f.is_integer() else repr(f)


def linked_figures(doc: dict[str, Any], run: int, con: Any, meta: Mapping[str, str]) -> dict[str, Any]:
    """The figures of one run's document, each with ``rows`` (filters) where they can be selected exactly
    (``con`` None: none linked yet, for the figures shown while the rows are read)."""
    split_info = {s["name"]: {**(s.get("diagnostics") or {}), **s} for s in doc.get("splits", [])}
    reference = doc.get("reference")
    scores = []
    for r in doc.get("summary", []):
        base = {"run": run, "model": r["model"], "split": r["split"], "metric": r["metric"], "perturbation": "none"}
        scores.append({**r, "rows": _first_match(con, [base], r["n"], meta)})
    held_out = []
    groups_doc = (doc.get("sections") or {}).get("groups") or {}
    metric = groups_doc.get("metric")
    for r in groups_doc.get("held_out", []) if isinstance(groups_doc, dict) else []:
        base = {"run": run, "model": r["model"], "split": r["split"], "metric": metric, "perturbation": "none"}
        held_out.append({**r, "rows": _first_match(con, [base], r.get("n"), meta)})
    within = []
    # the fields the run's group splits hold out come first: a field of the same counts is no stand-in
    named = [str(f) for info in split_info.values() if info.get("method") in ("group", "transfer")
             for f in ([(info.get("params") or {}).get("group")] if isinstance((info.get("params") or {}).get("group"), str)
                       else (info.get("params") or {}).get("group") or [])]
    fields = [f for f in dict.fromkeys(named) if f in meta] + [f for f in meta if f not in named]
    for block in groups_doc.get("within_reference", []) if isinstance(groups_doc, dict) else []:
        for g in block.get("groups", []):
            cands = [{"run": run, "model": block["model"], "split": reference, "metric": metric, "perturbation": "none",
                      f"meta.{field}": g["group"]} for field in fields]
            within.append({"model": block["model"], **g, "worst": g["group"] == block.get("worst_group"),
                           "rows": _first_match(con, cands, g.get("n"), meta) if reference else None})
    transfer = []
    for block in groups_doc.get("transfer", []) if isinstance(groups_doc, dict) else []:
        for cell in block.get("cells", []):
            # the split trained on the cell's group (its info names it), tested rows of the cell's group
            names = [s for s, info in split_info.items() if info.get("method") == "transfer"
                     and str(info.get("train_group")) == str(cell.get("train_group"))]
            columns = [str(c) for c in block.get("group_columns") or []]
            cands = [{"run": run, "model": block["model"], "split": s, "metric": block.get("metric"), "perturbation": "none",
                      f"meta.{field}": cell.get("test_group")} for s in names for field in [*columns, *fields]
                     if field in meta]
            transfer.append({"model": block["model"], "group_columns": block.get("group_columns"), **cell,
                             "rows": _first_match(con, cands, cell.get("n"), meta)})
    effects = []
    pert = (doc.get("sections") or {}).get("perturbations") or {}
    for e in pert.get("effects", []) if isinstance(pert, dict) else []:
        base = {"run": run, "model": e["model"], "split": e["split"], "metric": e["metric"], "perturbation": e["perturbation"]}
        effects.append({**e, "rows": _first_match(con, [base], e.get("n"), meta)})
    curves = []
    length_splits = [s for s, info in split_info.items() if info.get("method") == "length"]
    for c in doc.get("curves", []):
        axis = c["axis"]
        field = axis if axis in ("input_length", "target_length", "output_length") else f"meta.{axis}"
        bins = []
        for b in c.get("bins", []):
            rng = {f"min.{field[5:] if field.startswith('meta.') else field}": _number(b["low_edge"]),
                   f"max.{field[5:] if field.startswith('meta.') else field}": _number(b["high_edge"])}
            base = {"run": run, "model": c["model"], "metric": c["metric"], "perturbation": "none", **rng}
            splits = [c["split"]] if c.get("split") else []
            if reference:
                splits += [[reference]] if b.get("in_range") else [[s] for s in length_splits]
                splits.append([reference, *length_splits])
            cands = [{**base, "split": s} for s in splits] if splits else [base]
            bins.append({**b, "rows": _first_match(con, cands, b.get("n"), meta)})
        curves.append({**{k: v for k, v in c.items() if k != "bins"}, "bins": bins})
    return {"headline": doc.get("headline"), "reference": reference, "run": doc.get("run"), "n_rows": doc.get("n_rows"),
            "scores": scores, "held_out": held_out, "groups": within, "transfer": transfer, "perturbations": effects,
            "curves": curves, "splits": doc.get("splits", []),
            "sections": sorted((doc.get("sections") or {}).keys())}


def slice_filters(conditions: list[Any], meta: Mapping[str, str]) -> dict[str, Any] | None:
    """The ``/api/rows`` filters of a slice's conditions (results.json's ``{"column", "op", "value"}``
    objects), or None when a condition names a column the rows lack or a comparison the filters
    cannot make.

    >>> slice_filters([{"column": "topic", "op": "==", "value": "algebra"}, {"column": "size", "op": ">=", "value": 20},
    ...                {"column": "size", "op": "<", "value": 40.5}], {"topic": "text", "size": "number"})
    {'meta.topic': 'algebra', 'min.size': '20', 'lt.size': '40.5'}
    >>> slice_filters([{"column": "input_length", "op": "==", "value": 3}, {"column": "topic", "op": "is_missing", "value": None}],
    ...               {"topic": "text"})
    {'min.input_length': '3', 'max.input_length': '3', 'missing.topic': 'true'}
    """
    from gengap.view.queries import LENGTH_COLUMNS

    out: dict[str, Any] = {}
    for condition in conditions:
        if not isinstance(condition, Mapping):
            return None
        column, op, value = str(condition.get("column")), condition.get("op"), condition.get("value")
        length = column in LENGTH_COLUMNS
        if not length and column not in meta:
            return None
        numeric = length or meta.get(column) == "number"
        if op in ("is_missing", "is missing"):
            if length:
                return None
            out[f"missing.{column}"] = "true"
        elif op in ("=", "=="):
            if numeric:
                try:
                    text = _number(float(str(value).replace(",", "")))
                except ValueError:
                    return None
                if length:
                    out[f"min.{column}"] = out[f"max.{column}"] = text
                else:
                    out[f"meta.{column}"] = text
            elif isinstance(value, bool) or value in ("True", "False"):  # the viewer reads JSON's true / false
                out[f"meta.{column}"] = str(value).lower()
            else:
                out[f"meta.{column}"] = str(value)
        elif op in (">=", "<", "<=") and numeric:
            key = {">=": "min", "<": "lt", "<=": "max"}[op]
            try:
                out[f"{key}.{column}"] = _number(float(str(value)))
            except (TypeError, ValueError):
                return None
        else:
            return None
    return out


def linked_slices(records: list[dict[str, Any]], run: int, con: Any, meta: Mapping[str, str]) -> list[dict[str, Any]]:
    """The report's ``slices`` records of one run, each with ``conditions`` (read back from its
    description where the record has none) and ``rows``: the filters that select exactly its ``n``
    clean rows of its model, split and metric (None when no filter set does)."""
    from gengap.analysis.slice_conditions import slice_conditions

    out = []
    for rec in records:
        conditions = rec.get("conditions")
        if not isinstance(conditions, list):  # a results.json before 1.8: read them back from the description
            try:
                conditions = slice_conditions(str(rec.get("description", "")), rec.get("columns") or [])
            except Exception:  # a description this version cannot read: shown without a link
                conditions = None
        found = slice_filters(conditions, meta) if conditions else None
        base = {"run": run, "model": rec.get("model"), "split": rec.get("split"), "metric": rec.get("metric"),
                "perturbation": "none"}
        rows = _first_match(con, [{**base, **found}], rec.get("n"), meta) if found is not None else None
        out.append({**rec, "conditions": conditions, "rows": rows})
    return out
