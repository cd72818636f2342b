"""Reading one or more results stores into the viewer's table of rows (read-only, once, at start).

:func:`open_runs` reads what each run is (its splits, models, metrics, how many rows it stored): quick,
so the viewer serves at once. :func:`read_rows` then joins the rows into memory (the viewer does that in
a background thread; :attr:`Loaded.ready` is set when it is done), first reading the first rows in
stored order straight from the store (:attr:`Loaded.head`), so the first page of rows is answered
before the join is done. :func:`load_runs` does both, in order.

Each store is read into an in-memory DuckDB database and then let go, so the viewer never holds a
lock that would stop ``gengap eval`` from writing the store. A store that a running evaluation holds
is copied first (its committed transactions: the file and its write-ahead log) and the copy is read;
the run is then marked as a snapshot and the pages say so.

The table ``rows`` (a view of ``_rows`` that adds the row id) holds one row per (run, model, split, perturbation, example, metric), in the order a
reader expects (split order of the run, clean rows before perturbed ones, examples in stored order),
with a global row id ``rid`` and the example's metadata fields as typed columns ``m_<name>``. Reading
is only the join: the input, target and output lengths in whitespace words (``input_length``, ...)
are NULL until :func:`fill_lengths` has counted them (the viewer does that after it starts serving),
and the report's figures are computed later too (:mod:`gengap.view.figures`).
"""

from __future__ import annotations

import json
import shutil
import tempfile
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from gengap._errors import StoreError
from gengap._store_file import resolve_store

__all__ = ["Run", "Loaded", "open_runs", "read_rows", "load_runs", "fill_lengths"]

#: At most this many metadata fields become filterable columns (the first ones seen).
MAX_META_COLUMNS = 60
#: How many rows (in stored order) are read from the store before the join, for the first pages.
HEAD_ROWS = 1000
#: ... from at most this many (model, split, perturbation) groups.
HEAD_GROUPS = 20


@dataclass
class Run:
    """One run the viewer shows: where it came from and what the pages should say about it."""

    index: int
    label: str
    path: Path
    run_id: str
    name: str
    status: str
    snapshot: bool
    splits: list[str]
    split_info: dict[str, dict[str, Any]]
    models: list[str]
    metrics: list[str]
    notes: list[str] = field(default_factory=list)
    source: Path | None = None  # the file the rows were read from (a snapshot copy when the store was in use)
    config: dict[str, Any] = field(default_factory=dict, repr=False)  # the run's stored configuration

    @property
    def primary_metric(self) -> str | None:
        return self.metrics[0] if self.metrics else None

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "label": self.label, "path": str(self.path), "run_id": self.run_id,
                "name": self.name, "status": self.status, "snapshot": self.snapshot, "splits": self.splits,
                "models": self.models, "metrics": self.metrics, "primary_metric": self.primary_metric,
                "notes": self.notes}


@dataclass
class _Source:
    """How to read one store's rows: the attached alias, its file, and the SELECT of its rows."""

    index: int
    alias: str
    path: Path
    run_id: str
    split_order: list[str]
    metrics: list[str]
    has_details: bool
    has_sample: bool
    first: list[tuple[str, str, str]]  # the (model, split, perturbation) groups whose rows come first (the head's)

    def select(self, where: dict[str, str] | None = None) -> str:
        """The SELECT of the rows, with the columns :func:`_insert` orders by; ``where``: a condition
        on the store's table of that name (scores, predictions, examples)."""
        tables = _tables(self.alias, where)
        return _select(self.index, self.run_id, self.metrics, self.has_details, self.has_sample, tables)


@dataclass
class Loaded:
    """The in-memory database (table ``rows`` once :attr:`ready`), the runs in it, and the metadata columns found."""

    con: Any
    runs: list[Run]
    meta_columns: dict[str, str]  # field name -> "number" or "text" (filled in by read_rows)
    store_paths: list[Path]  # the files read (a snapshot copy where the store was in use)
    scratch: Path | None = None  # the folder of snapshot copies, removed by :meth:`close`
    perturbations: list[str] = field(default_factory=list)  # in the order the rows first show them
    stored: dict[int, int] = field(default_factory=dict)  # run -> rows it stored (every metric)
    stored_primary: dict[int, int] = field(default_factory=dict)  # run -> rows of its primary metric
    head: list[dict[str, Any]] = field(default_factory=list)  # the first rows in order (list columns, is_primary)
    head_ready: threading.Event = field(default_factory=threading.Event)  # set when :attr:`head` is read (or failed)
    ready: threading.Event = field(default_factory=threading.Event)  # set when ``rows`` is read (or failed)
    error: str | None = None  # why the rows could not be read
    sources: list[_Source] = field(default_factory=list, repr=False)

    def close(self) -> None:
        """Let the in-memory rows go and remove the snapshot copies."""
        if not self.ready.is_set():
            try:
                self.con.interrupt()  # a read still running stops
            except Exception:
                pass
        self.con.close()
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)

    def wait(self, timeout: float | None = None) -> None:
        """Wait until the rows are read; a StoreError when they could not be."""
        self.ready.wait(timeout)
        if self.error is not None:
            raise StoreError(self.error)


def _open_read_only(path: Path, scratch: Path) -> tuple[Any, Path, bool]:
    """A read-only DuckDB connection to ``path``; when another process holds the store, to a copy of
    what it has committed (the file and its write-ahead log), with ``snapshot`` True."""
    import duckdb

    try:
        return duckdb.connect(str(path), read_only=True), path, False
    except duckdb.IOException as e:
        if "lock" not in str(e).lower():
            raise StoreError(f"Cannot read '{path}': {e}. It was left untouched.") from None
    last: Exception | None = None
    for attempt in range(5):  # a checkpoint may run while we copy: copy again until file and log agree
        copy = scratch / f"snapshot{attempt}.duckdb"
        before = path.stat().st_mtime_ns
        shutil.copyfile(path, copy)
        wal = path.with_name(path.name + ".wal")
        if wal.exists():
            shutil.copyfile(wal, copy.with_name(copy.name + ".wal"))
        if path.stat().st_mtime_ns != before:
            continue
        try:
            return duckdb.connect(str(copy), read_only=True), copy, True
        except duckdb.Error as e:
            last = e
    raise StoreError(f"'{path}' is being written by a running gengap process and no consistent copy of it could be read "
                     f"({last}). Wait for the run to finish, or try again.")


def _check_gengap(con: Any, path: Path) -> None:
    tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    missing = {"gengap_meta", "runs", "predictions", "scores"} - tables
    if missing:
        con.close()
        raise StoreError(f"'{path}' is a DuckDB file but not a gengap results store (no {', '.join(sorted(missing))} "
                         "table). Give the --out folder of a gengap run.")


def _pick_run(con: Any, path: Path, run_id: str | None) -> tuple[str, str, str]:
    runs = con.execute("SELECT run_id, name, status FROM runs ORDER BY created_at, run_id").fetchall()
    if not runs:
        raise StoreError(f"The store '{path}' holds no run yet.")
    if run_id is not None:
        found = [r for r in runs if r[0] == run_id]
        if not found:
            raise StoreError(f"No run '{run_id}' in '{path}'; its runs: {', '.join(r[0] for r in runs[-10:])}.")
        return found[0]
    done = [r for r in runs if r[2] == "done"]
    return (done or runs)[-1]


def _metrics(config: dict[str, Any], found: list[str]) -> list[str]:
    configured = [m for m in (config.get("metrics") or []) if isinstance(m, str)]
    return [m for m in configured if m in found] + [m for m in found if m not in configured]


def load_runs(paths: list[str | Path], *, run_ids: list[str | None] | None = None) -> Loaded:
    """Read the runs of ``paths`` (one run per store: ``run_ids`` or the latest finished one) into memory."""
    loaded = open_runs(paths, run_ids=run_ids)
    try:
        read_rows(loaded, head=False)
    except BaseException:
        loaded.close()
        raise
    return loaded


def open_runs(paths: list[str | Path], *, run_ids: list[str | None] | None = None) -> Loaded:
    """What each run of ``paths`` is (one run per store: ``run_ids`` or the latest finished one), without
    its rows: :func:`read_rows` reads them. Bad input raises here (a StoreError naming the path)."""
    import duckdb

    mem = duckdb.connect()
    mem.execute("SET preserve_insertion_order = true")
    scratch = Path(tempfile.mkdtemp(prefix="gengap-view-"))
    runs: list[Run] = []
    files: list[Path] = []
    sources: list[_Source] = []
    stored: dict[int, int] = {}
    primary: dict[int, int] = {}
    firsts: list[tuple[Any, ...]] = []  # (run, model, split position, split, clean, perturbation) of every row group
    try:
        for i, raw in enumerate(paths):
            path = resolve_store(raw)
            con, read_from, snapshot = _open_read_only(path, scratch)
            try:
                _check_gengap(con, path)
                run_id, name, status = _pick_run(con, path, (run_ids or [None] * len(paths))[i])
                config = json.loads(con.execute("SELECT config FROM runs WHERE run_id = ?", [run_id]).fetchone()[0] or "{}")
                split_rows = con.execute("SELECT split, info FROM splits WHERE run_id = ? ORDER BY rowid", [run_id]).fetchall()
            finally:
                con.close()
            split_info = {s: json.loads(info) for s, info in split_rows}
            alias = f"s{i}"
            mem.execute(f"ATTACH {_lit(str(read_from))} AS {alias} (READ_ONLY)")
            try:
                # rows per (model, split, perturbation, metric): the metrics found, and what each group holds
                counted = mem.execute(f"SELECT model, split, perturbation, metric, count(*) FROM {alias}.scores "
                                      "WHERE run_id = ? GROUP BY ALL", [run_id]).fetchall()
                metrics = _metrics(config, sorted({r[3] for r in counted}))
                models = [r[0] for r in mem.execute(
                    f"SELECT model FROM {alias}.predictions WHERE run_id = ? GROUP BY model ORDER BY min(rowid)", [run_id]).fetchall()]
                has_details = bool(mem.execute(
                    f"SELECT count(*) FROM information_schema.columns WHERE table_catalog = '{alias}' "
                    "AND table_name = 'predictions' AND column_name = 'details'").fetchall()[0][0])
                has_sample = bool(mem.execute(  # several answers per example: each is a row, "id#2" for sample 2
                    f"SELECT count(*) FROM information_schema.columns WHERE table_catalog = '{alias}' "
                    "AND table_name = 'predictions' AND column_name = 'sample'").fetchall()[0][0])
            finally:
                mem.execute(f"DETACH {alias}")
            groups: dict[tuple[str, str, str], int] = {}
            for m, sp, pt, _, n in counted:
                groups[(m, sp, pt)] = groups.get((m, sp, pt), 0) + n
            stored[i] = sum(r[4] for r in counted)
            primary[i] = sum(r[4] for r in counted if metrics and r[3] == metrics[0])
            order = {s: k for k, s in enumerate(split_info)}
            keys = sorted((i, m, order.get(sp, 1000000), sp, 0 if pt == "none" else 1, pt, n) for (m, sp, pt), n in groups.items())
            firsts += keys
            first, held = [], 0
            for key in keys[:HEAD_GROUPS]:  # the groups that hold the first HEAD_ROWS rows
                if held >= HEAD_ROWS:
                    break
                first.append((key[1], key[3], key[5]))
                held += key[6]
            sources.append(_Source(i, alias, read_from, run_id, list(split_info), metrics, has_details, has_sample, first))
            notes = []
            if snapshot:
                stamp = datetime.now(timezone.utc).strftime("%H:%M:%S UTC")
                notes.append(f"The store is being written by a running gengap process: this shows what it had committed "
                             f"at {stamp}. Start the viewer again to see more.")
            if status != "done":
                notes.append(f"Run {run_id} did not finish (status: {status}): the rows are those stored so far.")
            label = Path(raw).name if Path(raw).is_dir() else Path(raw).parent.name or str(raw)
            runs.append(Run(i, label, path, run_id, name or "", status, snapshot, list(split_info), split_info, models,
                            metrics, notes, read_from, config))
            files.append(read_from)
        if len({r.label for r in runs}) < len(runs):
            for r in runs:
                r.label = f"{r.label} ({'AB'[r.index] if r.index < 2 else r.index})"
    except BaseException:
        mem.close()
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    perturbations = list(dict.fromkeys(k[5] for k in sorted(firsts)))  # as the rows first show them (min rid)
    keep = scratch if any(r.snapshot for r in runs) else None  # the copies stay for the report's figures, until close()
    if keep is None:
        shutil.rmtree(scratch, ignore_errors=True)
    return Loaded(mem, runs, {}, files, keep, perturbations, stored, primary, sources=sources)


def _select(i: int, run_id: str, metrics: list[str], has_details: bool, has_sample: bool, tables: dict[str, str]) -> str:
    """The SELECT of one store's rows from ``tables`` (scores, predictions and examples, each with its
    position as ``_pos``), with the columns :func:`_insert` orders by."""
    extra = "p.prompt, p.details" if has_details else "NULL::VARCHAR AS prompt, NULL::VARCHAR AS details"
    example = ("CASE WHEN s.sample > 0 THEN s.example_id || '#' || s.sample ELSE s.example_id END AS example_id"
               if has_sample else "s.example_id")
    return f"""
        SELECT {i}::INTEGER AS run, s.model, s.split, s.perturbation, {example}, s.metric, s.value AS score,
               COALESCE(p.variant_input, e.input) AS input, COALESCE(p.variant_target, e.target) AS target,
               p.output, p.extracted, p.unextracted, e.metadata, {extra},
               s.metric = {_lit(metrics[0]) if metrics else 'NULL'} AS is_primary,
               COALESCE(so.pos, 1000000) AS _split_pos, CASE WHEN s.perturbation = 'none' THEN 0 ELSE 1 END AS _clean,
               COALESCE(e._pos, 0) AS _ex_pos, COALESCE(mo.pos, 1000) AS _metric_pos, p._pos AS _pred_pos, s._pos AS _score_pos
        FROM {tables["scores"]} s
        JOIN {tables["predictions"]} p USING (run_id, model, split, perturbation, example_id{", sample" if has_sample else ""})
        LEFT JOIN {tables["examples"]} e USING (run_id, split, example_id)
        LEFT JOIN _split_order so ON so.split = s.split
        LEFT JOIN _metric_order mo ON mo.metric = s.metric
        WHERE s.run_id = {_lit(run_id)}
    """


def _tables(alias: str, where: dict[str, str] | None = None) -> dict[str, str]:
    """The store's tables for :func:`_select`, each with its position; ``where``: a condition per table."""
    where = where or {}
    return {t: f"(SELECT *, rowid AS _pos FROM {alias}.{t}{' WHERE ' + where[t] if t in where else ''})"
            for t in ("scores", "predictions", "examples")}


def _orders(mem: Any, split_order: list[str], metrics: list[str]) -> None:
    mem.execute("CREATE OR REPLACE TEMP TABLE _split_order (split VARCHAR, pos INTEGER)")
    mem.executemany("INSERT INTO _split_order VALUES (?, ?)", [[s, k] for k, s in enumerate(split_order)])
    mem.execute("CREATE OR REPLACE TEMP TABLE _metric_order (metric VARCHAR, pos INTEGER)")
    mem.executemany("INSERT INTO _metric_order VALUES (?, ?)", [[m, k] for k, m in enumerate(metrics)])


def read_rows(loaded: Loaded, *, head: bool = True) -> None:
    """Join the rows of ``loaded``'s stores into the table ``rows`` and set :attr:`Loaded.ready`; the
    metadata fields fill :attr:`Loaded.meta_columns`. ``head``: first read the first rows in stored
    order (:attr:`Loaded.head`, :attr:`Loaded.head_ready`) straight from the store. A failure is kept
    in :attr:`Loaded.error` (both events set) and raised."""
    mem = loaded.con
    try:
        if head:
            loaded.head = _read_head(mem, loaded.sources[0]) if loaded.sources else []
            loaded.head_ready.set()
        fields = []
        for src in loaded.sources:
            mem.execute(f"ATTACH {_lit(str(src.path))} AS {src.alias} (READ_ONLY)")
            try:
                fields.append(_meta_fields(mem, src.alias, src.run_id))
            finally:
                mem.execute(f"DETACH {src.alias}")
        meta = _meta_kinds(fields)
        for k, src in enumerate(loaded.sources):
            mem.execute(f"ATTACH {_lit(str(src.path))} AS {src.alias} (READ_ONLY)")
            try:
                _orders(mem, src.split_order, src.metrics)
                _insert(mem, k == 0, src.select(), meta)
            finally:
                mem.execute(f"DETACH {src.alias}")
        mem.execute("CREATE VIEW rows AS SELECT rowid AS rid, * FROM _rows")
        loaded.meta_columns.update(meta)
    except BaseException as e:
        loaded.error = f"The rows of {', '.join(str(r.path) for r in loaded.runs)} could not be read: {e}"
        raise
    finally:
        loaded.head_ready.set()
        loaded.ready.set()


def _read_head(mem: Any, src: _Source) -> list[dict[str, Any]]:
    """The first :data:`HEAD_ROWS` rows of a store in the order of ``rows`` (those of its first model, split
    and perturbation groups), read from the store: the positions of the first ones, then their texts."""
    from gengap.view.queries import LIST_COLUMNS

    if not src.first:
        return []
    run = f"run_id = {_lit(src.run_id)}"
    same = "example_id, sample" if src.has_sample else "example_id"
    order = "ORDER BY model, _split_pos, split, _clean, perturbation, _ex_pos, _pred_pos, _metric_pos, metric"
    mem.execute(f"ATTACH {_lit(str(src.path))} AS {src.alias} (READ_ONLY)")
    try:
        _orders(mem, src.split_order, src.metrics)
        keys: list[tuple[Any, ...]] = []
        for model, split, perturbation in src.first:  # in the order of rows: each group's first rows
            if len(keys) >= HEAD_ROWS:
                break
            group = f"{run} AND model = {_lit(model)} AND split = {_lit(split)} AND perturbation = {_lit(perturbation)}"
            # within one group the other keys are equal: joining on the example alone is the same join, and cheaper
            keys += mem.execute(
                f"SELECT s._pos, p._pos, COALESCE(e._pos, 0) AS _ex_pos FROM "
                f"(SELECT {same}, metric, rowid AS _pos FROM {src.alias}.scores WHERE {group}) s "
                f"JOIN (SELECT {same}, rowid AS _pos FROM {src.alias}.predictions WHERE {group}) p USING ({same}) "
                f"LEFT JOIN (SELECT example_id, rowid AS _pos FROM {src.alias}.examples WHERE {run} AND split = {_lit(split)}) e "
                "USING (example_id) LEFT JOIN _metric_order mo ON mo.metric = s.metric "
                f"ORDER BY _ex_pos, p._pos, COALESCE(mo.pos, 1000), s.metric LIMIT {HEAD_ROWS - len(keys)}").fetchall()
        if not keys:
            return []
        score, pred, ex = (", ".join(sorted({str(int(k[j])) for k in keys})) for j in range(3))
        chosen = {"scores": f"rowid IN ({score})", "predictions": f"rowid IN ({pred})", "examples": f"rowid IN ({ex})"}
        cur = mem.execute(f"SELECT * FROM ({src.select(chosen)}) {order} LIMIT {HEAD_ROWS}")
        names = [d[0] for d in cur.description]
        found = [dict(zip(names, r)) for r in cur.fetchall()]
    finally:
        mem.execute(f"DETACH {src.alias}")
    out = []
    for rid, r in enumerate(found):
        r["rid"], r["correct"] = rid, r["score"] is not None and r["score"] >= 1
        out.append({**{c: r[c] for c in LIST_COLUMNS}, "is_primary": r["is_primary"]})
    return out


def _lit(text: str) -> str:
    return "'" + str(text).replace("'", "''") + "'"


def _meta_fields(mem: Any, alias: str, run_id: str) -> dict[str, set[str]]:
    """Metadata field -> the JSON types it holds, in the examples of one run of an attached store (the
    first fields seen first; read from the examples, not the joined rows: as many or fewer)."""
    where = (f"FROM {alias}.examples WHERE run_id = ? AND metadata IS NOT NULL AND json_valid(metadata) "
             "AND json_type(metadata) = 'OBJECT'")
    keys = [r[0] for r in mem.execute(
        f"SELECT k FROM (SELECT unnest(json_keys(metadata)) AS k, min(rowid) AS first FROM (SELECT metadata, rowid {where}) "
        "GROUP BY k) ORDER BY first LIMIT ?", [run_id, MAX_META_COLUMNS]).fetchall()]
    if not keys:
        return {}
    kinds = ", ".join(f"list_distinct(list(json_type(metadata, {_lit('$.' + json.dumps(k))})))" for k in keys)
    found = mem.execute(f"SELECT {kinds} {where}", [run_id]).fetchone()
    return {k: {t for t in (found[j] or []) if t not in (None, "NULL")} for j, k in enumerate(keys)}


def _meta_kinds(fields: list[dict[str, set[str]]]) -> dict[str, str]:
    """Metadata field -> "number" or "text", over the fields of every store (at most MAX_META_COLUMNS)."""
    kinds: dict[str, set[str]] = {}
    for one in fields:
        for key, types in one.items():
            kinds.setdefault(key, set()).update(types)
    return {key: "number" if types and types <= {"BIGINT", "UBIGINT", "DOUBLE"} else "text"
            for key, types in list(kinds.items())[:MAX_META_COLUMNS]}


def _insert(mem: Any, first: bool, select: str, meta: dict[str, str]) -> None:
    """Add one store's rows to ``_rows`` in reading order (its metadata fields as columns), in one pass:
    the row id is the position in ``_rows`` (the view ``rows`` names it ``rid``)."""
    from gengap.view.queries import meta_columns

    names = meta_columns(meta)
    cols = []
    for key, kind in meta.items():
        column = names[key]
        path = _lit("$." + json.dumps(key))
        if kind == "number":
            cols.append(f"TRY_CAST(json_extract(metadata, {path}) AS DOUBLE) AS {column}")
        else:
            cols.append(f"json_extract_string(metadata, {path}) AS {column}")
    extra = (", " + ", ".join(cols)) if cols else ""
    body = f"""
        SELECT run, model, split, perturbation, example_id, metric, score, score >= 1 AS correct, unextracted, is_primary,
               input, target, output, extracted, metadata, prompt, details,
               NULL::BIGINT AS input_length, NULL::BIGINT AS target_length, NULL::BIGINT AS output_length,
               lower(COALESCE(input, '')) || chr(0) || lower(COALESCE(output, '')) AS search_text{extra}
        FROM ({select})
        ORDER BY model, _split_pos, split, _clean, perturbation, _ex_pos, _pred_pos, _metric_pos, metric"""
    mem.execute(f"CREATE TABLE _rows AS {body}" if first else f"INSERT INTO _rows {body}")


def fill_lengths(con: Any) -> None:
    """Count the input, target and output lengths (whitespace words) of every row, in one transaction:
    queries running meanwhile see them all NULL, then all counted. ``con``: a connection or cursor of
    the viewer's database (its own cursor, so that it can be interrupted)."""
    con.execute(f"UPDATE _rows SET input_length = {_words('input')}, target_length = {_words('target')}, "
                f"output_length = {_words('output')}")


def _words(column: str) -> str:
    """SQL for the whitespace-separated words of a text column (0 for an empty or missing text)."""
    return (f"CASE WHEN {column} IS NULL OR trim({column}) = '' THEN 0 "
            f"ELSE len(regexp_split_to_array(trim({column}), '\\s+')) END")
