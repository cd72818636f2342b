"""Read per-example predictions from any table (JSONL, JSON, CSV, TSV, Parquet), columns named by the user.

Each row is one model's output on one example. The model is a column (``model=``) or the file:
one file per model, named after the file. The task (gengap: the split) is a column (``task=``)
or one name for every row. Every column not given a role is kept as the example's metadata, so
groups, splits and curves can use it.

>>> import json, tempfile, os
>>> folder = tempfile.mkdtemp()
>>> path = os.path.join(folder, "preds.jsonl")
>>> with open(path, "w") as f:
...     for i in range(4):
...         print(json.dumps({"qid": i, "q": f"{i}+1", "gold": str(i + 1), "pred": str(i + 1 - i % 2),
...                           "ok": i % 2 == 0, "src": "a" if i < 2 else "b"}), file=f)
>>> parts, source, notes = read_table([path], id="qid", output="pred", scores=["ok"], input="q", target="gold")
>>> parts[0].split, list(parts[0].models), parts[0].models["preds"].scores["ok"].tolist()
('imported', ['preds'], [1.0, 0.0, 1.0, 0.0])
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np

from gengap._errors import ConfigError, DataError, did_you_mean
from gengap.imports._parts import (
    ImportedPart,
    ImportResult,
    ModelRows,
    add_corpus_metrics,
    file_digest,
    find_import,
    write_import,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

#: The columns a table's roles name, in the order the import's record lists them.
ROLES = ("id", "output", "input", "target", "model", "task", "extracted")


class TableColumns(TypedDict, total=False):
    """The column options of :func:`read_table`, which :func:`import_table` passes on (``id``, ``output``
    and ``scores`` are required)."""

    id: str
    output: str
    scores: Sequence[str]
    input: str | None
    target: str | None
    model: str | None
    task: str | None
    extracted: str | None
    metadata: Sequence[str] | None
    split_name: str
    confidence: str | None
    corpus_metrics: Sequence[str]
    sample: str | None

__all__ = ["TableColumns", "import_table", "read_table"]

_READERS = {
    "jsonl": "read_json(?, format='newline_delimited')", "ndjson": "read_json(?, format='newline_delimited')",
    "json": "read_json(?, format='auto')", "csv": "read_csv(?, header=true)",
    "tsv": "read_csv(?, header=true, delim='\t')", "parquet": "read_parquet(?)",
}


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _reader(path: Path) -> str:
    suffix = path.suffix.lower().lstrip(".")
    if suffix not in _READERS:
        raise DataError(f"'{path}': unknown file type '.{suffix}'. Give JSONL, JSON, CSV, TSV or Parquet files.")
    return _READERS[suffix]


def _check_columns(path: Path, have: list[str], roles: dict[str, str | None], scores: Sequence[str]) -> None:
    wanted = [(role, col) for role, col in roles.items() if col is not None] + [("score", s) for s in scores]
    for role, col in wanted:
        if col not in have:
            raise DataError(f"{path}: no column '{col}' (given as --{role}).{did_you_mean(col, have)} "
                            f"Its columns: {have[:30]}.")


def read_table(
    files: Sequence[str | Path],
    *,
    id: str,
    output: str,
    scores: Sequence[str],
    input: str | None = None,
    target: str | None = None,
    model: str | None = None,
    task: str | None = None,
    extracted: str | None = None,
    metadata: Sequence[str] | None = None,
    split_name: str = "imported",
    confidence: str | None = None,
    corpus_metrics: Sequence[str] = (),
    sample: str | None = None,
) -> tuple[list[ImportedPart], dict[str, Any], list[str]]:
    """Read the files into parts (one per task), with the source description and notes.

    ``confidence`` names a column with the model's confidence in each output (a probability in
    [0, 1]); ``corpus_metrics`` (``auroc``, ``ece``, ...) are added with the first score column
    telling right from wrong. ``sample`` names a column with the sample index (whole numbers, 0 or
    more): the rows of one id with different indices are the samples of one example, stored as a run
    with ``samples`` stores them (the indices met, in order, become 0, 1, ...; every example of a
    model and task must have as many samples as the others)."""
    import duckdb

    if not files:
        raise ConfigError("No file given; name one or more JSONL, CSV or Parquet files of per-example predictions.")
    if not scores:
        raise ConfigError("Name at least one score column (--score COLUMN): the per-example metric, e.g. correct.")
    paths = [Path(f) for f in files]
    for p in paths:
        if not p.is_file():
            raise DataError(f"'{p}' is not a file. Give JSONL, JSON, CSV, TSV or Parquet files of per-example predictions.")
    if model is None:
        stems = [p.stem for p in paths]
        names = stems if len(set(stems)) == len(stems) else [str(p) for p in paths]
    roles = dict(zip(ROLES, (id, output, input, target, model, task, extracted)))
    taken = ({c for c in roles.values() if c is not None} | set(scores) | ({confidence} if confidence else set())
             | ({sample} if sample else set()))
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    selects = []
    try:
        for k, p in enumerate(paths):
            try:
                rel = con.sql(f"SELECT * FROM {_reader(p)}", params=[str(p)])
                have = list(rel.columns)
            except duckdb.Error as e:
                raise DataError(f"{p}: cannot be read as {p.suffix.lstrip('.').upper()}: {str(e).splitlines()[0]}") from None
            _check_columns(p, have, {**roles, "confidence": confidence, "sample": sample}, scores)
            meta_cols = [c for c in have if c not in taken] if metadata is None else list(metadata)
            for c in meta_cols:
                if c not in have:
                    raise DataError(f"{p}: no metadata column '{c}'.{did_you_mean(c, have)} Its columns: {have[:30]}.")
            meta_sql = (f"to_json(struct_pack({', '.join(f'{_q(c)} := {_q(c)}' for c in meta_cols)}))::VARCHAR"
                        if meta_cols else "NULL::VARCHAR")

            def text(col: str | None) -> str:
                return "NULL::VARCHAR" if col is None else f"CAST({_q(col)} AS VARCHAR)"

            score_sql = ", ".join(
                f"{_q(s)} AS \"raw_{i}\", CASE WHEN typeof({_q(s)}) = 'BOOLEAN' THEN {_q(s)}::BOOLEAN::DOUBLE "
                f"ELSE TRY_CAST(CASE lower(CAST({_q(s)} AS VARCHAR)) WHEN 'true' THEN '1' WHEN 'false' THEN '0' "
                f"ELSE CAST({_q(s)} AS VARCHAR) END AS DOUBLE) END AS \"score_{i}\"" for i, s in enumerate(scores))
            conf_sql = (f"{text(confidence)} AS raw_confidence, TRY_CAST({_q(confidence)} AS DOUBLE) AS confidence"
                        if confidence else "NULL::VARCHAR AS raw_confidence, NULL::DOUBLE AS confidence")
            conf_sql += (f", {text(sample)} AS raw_sample, TRY_CAST({_q(sample)} AS DOUBLE) AS sample_value" if sample
                         else ", NULL::VARCHAR AS raw_sample, 0::DOUBLE AS sample_value")
            model_sql = text(model) if model is not None else f"'{names[k].replace(chr(39), chr(39) * 2)}'"
            task_sql = text(task) if task is not None else f"'{split_name.replace(chr(39), chr(39) * 2)}'"
            con.execute(
                f"CREATE TEMP TABLE f{k} AS SELECT {k} AS file, row_number() OVER () AS row, {model_sql} AS model, "
                f"{task_sql} AS split, {text(id)} AS example_id, {text(input)} AS input, {text(target)} AS target, "
                f"{text(output)} AS output, {text(extracted)} AS extracted, {meta_sql} AS metadata, {score_sql}, "
                f"{conf_sql} "
                f"FROM {_reader(p)}", [str(p)])
            selects.append(f"SELECT * FROM f{k}")
        con.execute(f"CREATE TEMP TABLE rows AS {' UNION ALL '.join(selects)}")
        if sample:
            _check_samples(con, paths, sample)
        _check_rows(con, paths, scores, roles, sample)
        if confidence:
            _check_confidence(con, paths, confidence)
        parts, notes = _parts(con, scores, extracted is not None, confidence is not None, sample is not None)
    finally:
        con.close()
    if corpus_metrics:
        add_corpus_metrics(parts, corpus_metrics)
    return parts, _source(paths, roles, scores, metadata, split_name, confidence, corpus_metrics, sample), notes


def _check_samples(con: Any, paths: list[Path], column: str) -> None:
    """A sample index that is empty or not a whole number 0 or more is an error naming the file and row;
    then the indices met are numbered 0, 1, ... (``sample``), as a run numbers its samples."""
    bad = con.execute("SELECT file, row, raw_sample FROM rows WHERE sample_value IS NULL OR sample_value < 0 OR "
                      "sample_value <> floor(sample_value) ORDER BY file, row LIMIT 1").fetchone()
    if bad:
        shown = "empty" if bad[2] is None else repr(bad[2])
        raise DataError(f"{paths[bad[0]]}, row {bad[1]}: sample column '{column}' is {shown}, not a whole number 0 or "
                        "more. Give every row its sample index (0, 1, ... or 1, 2, ...), or drop the row.")
    con.execute("CREATE TEMP TABLE numbered AS SELECT * REPLACE (dense_rank() OVER (ORDER BY sample_value) - 1 "
                "AS sample_value) FROM rows")
    con.execute("DROP TABLE rows")
    con.execute("ALTER TABLE numbered RENAME TO rows")

def _check_confidence(con: Any, paths: list[Path], column: str) -> None:
    """A confidence that is not a number, or outside [0, 1], is an error naming the file and row."""
    bad = con.execute("SELECT file, row, raw_confidence FROM rows WHERE raw_confidence IS NOT NULL AND "
                      "(confidence IS NULL OR confidence < 0 OR confidence > 1) ORDER BY file, row LIMIT 1").fetchone()
    if bad:
        raise DataError(f"{paths[bad[0]]}, row {bad[1]}: confidence column '{column}' is {bad[2]!r}, not a probability "
                        "in [0, 1]. Give probabilities (not percentages or raw scores), or leave the cell empty.")


def _source(paths: Sequence[Path], roles: dict[str, Any], scores: Sequence[str], metadata: Sequence[str] | None,
            split_name: str, confidence: str | None = None, corpus_metrics: Sequence[str] = (),
            sample: str | None = None) -> dict[str, Any]:
    columns = {**roles, "scores": list(scores), "metadata": None if metadata is None else list(metadata),
               "split_name": split_name}
    if confidence or corpus_metrics:  # absent otherwise: earlier imports are still found
        columns.update(confidence=confidence, corpus_metrics=list(corpus_metrics))
    if sample:
        columns["sample"] = sample
    return {"kind": "table", "files": {str(p): file_digest(p) for p in paths}, "columns": columns}


def _check_rows(con: Any, paths: list[Path], scores: Sequence[str], roles: dict[str, str | None],
                sample: str | None = None) -> None:
    for role in ("id", "model", "task"):
        if roles[role] is None:
            continue
        col = "example_id" if role == "id" else ("model" if role == "model" else "split")
        bad = con.execute(f"SELECT file, row FROM rows WHERE {col} IS NULL ORDER BY file, row LIMIT 1").fetchone()
        if bad:
            raise DataError(f"{paths[bad[0]]}, row {bad[1]}: the {role} column '{roles[role]}' is empty. "
                            "Every row needs one; fill it or drop the row.")
    for i, s in enumerate(scores):
        bad = con.execute(f"SELECT file, row, CAST(\"raw_{i}\" AS VARCHAR) FROM rows WHERE \"score_{i}\" IS NULL "
                          "ORDER BY file, row LIMIT 1").fetchone()
        if bad:
            shown = "empty" if bad[2] is None else repr(bad[2])
            raise DataError(f"{paths[bad[0]]}, row {bad[1]}: score column '{s}' is {shown}, not a number or true/false. "
                            "Fill or drop that row, or leave the column out of --score.")
    dupe = con.execute("SELECT model, split, example_id, list(file ORDER BY file, row), list(row ORDER BY file, row), "
                       "arg_min(raw_sample, (file, row)) FROM rows GROUP BY model, split, example_id, sample_value "
                       "HAVING count(*) > 1 ORDER BY min(file), min(row) LIMIT 1").fetchone()
    if dupe and sample:
        where = ", ".join(f"{paths[f]} row {r}" for f, r in zip(dupe[3][:3], dupe[4][:3]))
        raise DataError(f"Example '{dupe[2]}' has sample {dupe[5]} (column '{sample}') more than once for model "
                        f"'{dupe[0]}' on '{dupe[1]}' ({where}). Each (id, sample) pair must be unique per model and task; "
                        "renumber the samples, or name a --model/--task column that tells the rows apart.")
    if sample:
        short = con.execute(
            "WITH per AS (SELECT model, split, example_id, count(*) AS n, min(file) AS file, min(row) AS row FROM rows "
            "GROUP BY ALL), most AS (SELECT model, split, max(n) AS k FROM per GROUP BY ALL) "
            "SELECT per.file, per.row, per.example_id, per.n, most.k, per.model, per.split FROM per JOIN most "
            "USING (model, split) WHERE per.n < most.k ORDER BY per.file, per.row LIMIT 1").fetchone()
        if short:
            raise DataError(f"{paths[short[0]]}, row {short[1]}: example '{short[2]}' has {short[3]} sample(s) for model "
                            f"'{short[5]}' on '{short[6]}', where others have {short[4]}. pass@k and maj@k need every "
                            f"example's samples; add the missing rows or drop the example.")
    if dupe:
        where = ", ".join(f"{paths[f]} row {r}" for f, r in zip(dupe[3][:3], dupe[4][:3]))
        raise DataError(f"Example '{dupe[2]}' appears more than once for model '{dupe[0]}' on '{dupe[1]}' ({where}). "
                        "Ids must be unique per model and task; name the right --id column, or a --model/--task column "
                        "that tells the rows apart.")


def _parts(con: Any, scores: Sequence[str], has_extracted: bool, has_confidence: bool = False,
           has_samples: bool = False) -> tuple[list[ImportedPart], list[str]]:
    notes: list[str] = []
    parts = []
    splits = [r[0] for r in con.execute("SELECT split FROM rows GROUP BY split ORDER BY min(file), min(row)").fetchall()]
    for split in splits:
        examples = con.sql(
            "SELECT example_id, arg_min(input, (file, row)) AS input, arg_min(target, (file, row)) AS target, "
            "arg_min(metadata, (file, row)) AS metadata, count(DISTINCT target) AS n_targets FROM rows WHERE split = ? "
            "GROUP BY example_id ORDER BY min(file), min(row)", params=[split]).to_arrow_table()
        differ = int(np.sum(examples.column("n_targets").to_numpy() > 1))
        if differ:
            notes.append(f"{split}: {differ} example(s) have different targets in different rows; the first one read is kept.")
        models = {}
        for (name,) in con.execute("SELECT model FROM rows WHERE split = ? GROUP BY model ORDER BY min(file), min(row)",
                                   [split]).fetchall():
            cols = ", ".join(f"\"score_{i}\"" for i in range(len(scores)))
            table = con.sql(f"SELECT example_id, output, extracted, confidence, sample_value, {cols} FROM rows "
                            "WHERE split = ? AND model = ? "
                            "ORDER BY file, row", params=[split, name]).to_arrow_table()
            models[str(name)] = ModelRows(
                outputs=table.column("output").combine_chunks(),
                scores={s: table.column(f"score_{i}").to_numpy() for i, s in enumerate(scores)},
                extracted=table.column("extracted").combine_chunks() if has_extracted else None,
                example_ids=table.column("example_id").combine_chunks(),
                confidence=table.column("confidence").to_numpy(zero_copy_only=False).astype(np.float64)
                if has_confidence else None,
                samples=table.column("sample_value").to_numpy().astype(np.int64) if has_samples else None)
        info = {"method": "imported", "n_test": examples.num_rows}
        parts.append(ImportedPart(split=str(split), method="imported", info=info,
                                  example_ids=examples.column("example_id").combine_chunks(),
                                  inputs=examples.column("input").combine_chunks(),
                                  targets=examples.column("target").combine_chunks(),
                                  metadata=examples.column("metadata").combine_chunks(), models=models))
    return parts, notes


def import_table(
    files: Sequence[str | Path],
    *,
    out: str | Path,
    name: str = "table import",
    **columns: Unpack[TableColumns],
) -> ImportResult:
    """Read per-example prediction files into a results store in ``out`` (idempotent): ``columns`` are
    :func:`read_table`'s (``id``, ``output``, ``scores``, ``input``, ...), with its defaults."""
    from gengap._specs import bind_options
    from gengap.store import STORE_NAME

    chosen = bind_options(read_table, files, what="import_table", **columns)
    if all(Path(f).is_file() for f in files) and files:
        source = _source([Path(f) for f in files], {r: chosen[r] for r in ROLES}, chosen["scores"], chosen["metadata"],
                         chosen["split_name"], chosen["confidence"], chosen["corpus_metrics"], chosen["sample"])
        done = find_import(out, name, source)
        if done is not None:
            return ImportResult(Path(out) / STORE_NAME, done, Path(out), True, 0)
    parts, source, notes = read_table(files, **columns)
    config = {
        "import": source,
        "dataset": {"name": ", ".join(Path(f).stem for f in files)[:80], "n": sum(len(p.example_ids) for p in parts)},
        "models": sorted({m for p in parts for m in p.models}),
        "splits": [{"name": p.split, "method": p.method, "n_test": len(p.example_ids)} for p in parts],
        "metrics": list(columns["scores"]) + list(columns.get("corpus_metrics", ())),
    }
    return write_import(out, name, config, parts, notes=notes)
