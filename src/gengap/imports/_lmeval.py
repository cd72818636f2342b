"""Read the output folder of ``lm_eval ... --log_samples --output_path DIR`` (lm-evaluation-harness 0.4).

lm_eval writes, per run, ``<model>/results_<time>.json`` (scores, the model and its settings, every
task's configuration) and one ``samples_<task>_<time>.jsonl`` per task: one line per document and
answer filter, with the document (``doc``), the ``target``, the prompts (``arguments``), the raw
responses (``resps``), the filtered answers (``filtered_resps``), the ``filter`` name and one key
per metric. A folder may hold several runs (several models, nested folders); runs are paired with
their samples by the ``<time>`` in the file names.

What goes where in the store (one split per task):

=====================  ===============================================================
lm-eval                gengap
=====================  ===============================================================
task                   split (method ``lm-eval task``; its config is the split's info)
doc_id                 example_id
first prompt           input (``arguments.gen_args_0.arg_0``)
target                 target (multiple choice: the gold choice's text)
doc                    metadata (every field of the document, for groups and splits)
resps                  output (generation: the text; multiple choice: the log-likelihoods)
filtered_resps         extracted (of the task's first filter; ``[invalid]`` is unextracted)
metric per filter      score, metric ``<metric>,<filter>`` as in results.json
model_name + config    model (its settings are in the run's configuration)
=====================  ===============================================================

The samples are read by DuckDB's JSON reader (no Python per line); a malformed line is then
located with Python to name its line number.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from gengap._errors import DataError
from gengap.imports._parts import (
    ImportedPart,
    ImportResult,
    ModelRows,
    add_corpus_metrics,
    file_digest,
    find_import,
    write_import,
)

__all__ = ["REQUIRED_FIELDS", "LmEvalRun", "import_lm_eval", "read_lm_eval"]

#: Fields every line of an lm_eval 0.4 samples file has; without them the file is not one we can read.
REQUIRED_FIELDS = ("doc_id", "doc", "target", "arguments", "resps", "filtered_resps")
#: The filtered answer lm_eval's regex filters give when they find nothing.
INVALID_ANSWER = "[invalid]"
#: Output types whose responses are log-likelihoods rather than text.
LOGLIKELIHOOD_TYPES = ("multiple_choice", "loglikelihood", "loglikelihood_rolling")

_SAMPLES = re.compile(r"^samples_(?P<task>.+)_(?P<time>\d{4}-\d{2}-\d{2}T[\d.\-]+)\.jsonl$")
_RESULTS = re.compile(r"^results_(?P<time>\d{4}-\d{2}-\d{2}T[\d.\-]+)\.json$")
_MAX_OBJECT = 256 * 1024 * 1024


@dataclass
class LmEvalRun:
    """One lm_eval run found in a folder: its results file and the samples file of each task."""

    results_path: Path
    results: dict[str, Any]
    samples: dict[str, Path]
    model: str = ""

    @property
    def time(self) -> str:
        found = _RESULTS.match(self.results_path.name)
        return found["time"] if found else ""

    def model_settings(self) -> dict[str, Any]:
        """The model and everything lm_eval recorded about how it was run."""
        keep = ("model_name", "model_source", "config", "lm_eval_version", "transformers_version", "git_hash",
                "date", "system_instruction", "chat_template_sha", "fewshot_as_multiturn")
        return {k: self.results.get(k) for k in keep if k in self.results}


def _task_names(results: dict[str, Any]) -> set[str]:
    return set(results.get("configs") or {}) | set(results.get("results") or {})


def find_runs(path: Path) -> list[LmEvalRun]:
    """Every run under ``path`` (a folder searched recursively, or one results file)."""
    if not path.exists():
        raise DataError(f"'{path}' does not exist. Give the --output_path folder of an lm_eval run made with --log_samples.")
    results_files = [path] if path.is_file() else sorted(p for p in path.rglob("results_*.json") if _RESULTS.match(p.name))
    samples_files = sorted(p for p in (path.parent if path.is_file() else path).rglob("samples_*.jsonl")
                           if _SAMPLES.match(p.name))
    if not samples_files:
        present = sorted(p.name for p in path.rglob("*") if p.is_file())[:8] if path.is_dir() else [path.name]
        raise DataError(
            f"'{path}' holds no lm_eval samples files (samples_<task>_<time>.jsonl; found: {present or 'no files'}). "
            "Run lm_eval with --log_samples --output_path DIR and give DIR.")
    runs: dict[tuple[Path, str], LmEvalRun] = {}
    for rp in results_files:
        found = _RESULTS.match(rp.name)
        if found is None:
            raise DataError(f"'{rp}' is not named like an lm_eval results file (results_<time>.json).")
        try:
            results = json.loads(rp.read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise DataError(f"{rp}, line {e.lineno}, column {e.colno}: not valid JSON ({e.msg}). "
                            "Is the file complete? lm_eval writes it when a run ends.") from None
        if not isinstance(results, dict) or "results" not in results:
            raise DataError(f"{rp}: no 'results' key; this is not an lm_eval results file "
                            f"(keys: {sorted(results)[:10] if isinstance(results, dict) else type(results).__name__}).")
        runs[(rp.parent, found["time"])] = LmEvalRun(rp, results, {})
    for sp in samples_files:
        found = _SAMPLES.match(sp.name)
        assert found is not None
        run = runs.get((sp.parent, found["time"]))
        if run is None:
            raise DataError(
                f"{sp}: no results_{found['time']}.json beside it. lm_eval writes both at the end of a run; "
                "copy the results file too (it names the model and its settings).")
        tasks = _task_names(run.results)
        if found["task"] not in tasks:
            raise DataError(
                f"{sp}: task '{found['task']}' is not in {run.results_path.name} (its tasks: {sorted(tasks)}). "
                "The samples and results files come from different runs; keep each run's files together.")
        run.samples[found["task"]] = sp
    for run in runs.values():
        expected = set(run.results.get("configs") or {})
        missing = sorted(expected - set(run.samples))
        if missing:
            raise DataError(
                f"{run.results_path}: tasks {missing} have no samples_<task>_{run.time}.jsonl beside it "
                f"(found samples for {sorted(run.samples) or 'no task'}). Copy the missing files, or re-run lm_eval "
                "on those tasks with --log_samples.")
    return [r for r in runs.values() if r.samples]


def _name_models(runs: list[LmEvalRun]) -> None:
    """Model name per run: lm_eval's model_name; a run of a name already taken gets its time appended."""
    seen: dict[str, set[str]] = {}
    for run in sorted(runs, key=lambda r: (r.time, str(r.results_path))):
        cfg = run.results.get("config") or {}
        base = str(run.results.get("model_name") or cfg.get("model") or run.results_path.parent.name)
        tasks = set(run.samples)
        name = base if not (seen.get(base, set()) & tasks) else f"{base} [{run.time}]"
        seen.setdefault(base, set()).update(tasks)
        run.model = name


def _first_line(path: Path) -> dict[str, Any]:
    with open(path, "rb") as f:
        line = f.readline()
    if not line.strip():
        raise DataError(f"{path}, line 1: empty. An lm_eval samples file has one JSON object per line.")
    try:
        record = json.loads(line)
    except json.JSONDecodeError as e:
        raise DataError(f"{path}, line 1, column {e.colno}: not a complete JSON object ({e.msg}).") from None
    if not isinstance(record, dict):
        raise DataError(f"{path}, line 1: expected a JSON object, got {type(record).__name__}.")
    return record


def _check_fields(path: Path, record: dict[str, Any], version: str) -> None:
    missing = [f for f in REQUIRED_FIELDS if f not in record]
    if missing:
        raise DataError(
            f"{path}, line 1: missing field(s) {missing} that lm-evaluation-harness 0.4 writes in every samples line "
            f"(this line has {sorted(record)}; the results file says lm_eval_version {version or 'unknown'}). "
            "gengap reads lm_eval 0.4 logs; for other per-example files use 'gengap import table' and name the columns.")


def _bad_line(path: Path) -> DataError:
    """Find the first line Python cannot read as a JSON object, and say so."""
    with open(path, "rb") as f:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                cut = "" if line.endswith(b"\n") else " (the file ends in the middle of this line: was lm_eval stopped while writing?)"
                return DataError(f"{path}, line {number}, column {e.colno}: not a complete JSON object ({e.msg}){cut}. "
                                 "Nothing was stored; re-run lm_eval for this task, or delete the line to import the rest.")
            if not isinstance(record, dict):
                return DataError(f"{path}, line {number}: expected a JSON object, got {type(record).__name__}.")
            missing = [f for f in REQUIRED_FIELDS if f not in record]
            if missing:
                return DataError(f"{path}, line {number}: missing field(s) {missing} (the line has {sorted(record)}).")
    return DataError(f"{path}: DuckDB could not read it as newline-delimited JSON, yet every line parses; "
                     "is it larger than 256 MB per line?")


def _metric_keys(results: dict[str, Any], task: str, record: dict[str, Any]) -> list[tuple[str, str]]:
    """(metric, filter) pairs of a task, from results.json, else from the first samples line."""
    reported = (results.get("results") or {}).get(task) or {}
    pairs = []
    for key in reported:
        metric, comma, filt = key.partition(",")
        if comma and not metric.endswith("_stderr"):
            pairs.append((metric, filt))
    if not pairs:
        pairs = [(m, str(record.get("filter", "none"))) for m in record.get("metrics", [])]
    return pairs


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def read_task(con: Any, path: Path, task: str, model: str, run: LmEvalRun, *,
              answer_filter: str | None = None) -> tuple[ImportedPart, list[str]]:
    """One samples file -> one part with one model's rows; also notes on what was left out.

    The ``extracted`` answer is that of ``answer_filter`` when the task has it, else its first filter.
    """
    import duckdb

    results = run.results
    record = _first_line(path)
    _check_fields(path, record, str(results.get("lm_eval_version") or ""))
    task_config = (results.get("configs") or {}).get(task) or {}
    output_type = str(task_config.get("output_type") or ("multiple_choice" if len(record["arguments"]) > 1 else "generate_until"))
    pairs = _metric_keys(results, task, record)
    metrics = sorted({m for m, _ in pairs})
    columns = {"doc_id": "BIGINT", "doc": "JSON", "target": "JSON", "arguments": "JSON", "resps": "JSON",
               "filtered_resps": "JSON", "filter": "VARCHAR"} | {m: "JSON" for m in metrics if m not in ("filter",)}
    spec = "{" + ", ".join(f"'{k.replace(chr(39), chr(39) * 2)}': '{v}'" for k, v in columns.items()) + "}"
    try:
        con.execute(f"CREATE OR REPLACE TEMP TABLE samples AS SELECT * FROM read_json(?, format='newline_delimited', "
                    f"columns={spec}, maximum_object_size={_MAX_OBJECT})", [str(path)])
    except duckdb.Error:
        raise _bad_line(path) from None
    missing_ids = con.execute("SELECT count(*) FROM samples WHERE doc_id IS NULL").fetchone()[0]
    if missing_ids:
        raise _bad_line(path)
    con.execute("UPDATE samples SET filter = 'none' WHERE filter IS NULL")
    filters = [r[0] for r in con.execute("SELECT filter FROM samples GROUP BY filter ORDER BY min(rowid)").fetchall()]
    primary = answer_filter if answer_filter in filters else filters[0]
    dupes = con.execute("SELECT filter, doc_id, count(*) FROM samples GROUP BY ALL HAVING count(*) > 1 LIMIT 3").fetchall()
    if dupes:
        raise DataError(f"{path}: document(s) {[d[1] for d in dupes]} appear more than once under filter {dupes[0][0]!r}; "
                        "each document has one line per filter in an lm_eval samples file.")
    is_ll = output_type in LOGLIKELIHOOD_TYPES
    if output_type == "multiple_choice":
        target_sql = ("CASE WHEN json_type(target) IN ('BIGINT', 'UBIGINT') OR regexp_full_match(target->>'$', '[0-9]+') "
                      "THEN trim(json_extract_string(arguments, '$.gen_args_' || (target->>'$') || '.arg_1')) "
                      "ELSE target->>'$' END")
        lls = "list_transform(CAST(filtered_resps AS JSON[]), lambda x: TRY_CAST(x->>'$[0]' AS DOUBLE))"
        output_sql = f"to_json({lls})::VARCHAR"
        extracted_sql = (f"trim(json_extract_string(arguments, '$.gen_args_' || (list_position({lls}, list_max({lls})) - 1)::VARCHAR "
                         "|| '.arg_1'))")
        options_sql = ("to_json(list_transform(range(json_array_length(filtered_resps)::BIGINT), lambda i: "
                       "trim(json_extract_string(arguments, '$.gen_args_' || i::VARCHAR || '.arg_1'))))::VARCHAR")
    elif is_ll:
        target_sql = "CASE WHEN json_type(target) = 'VARCHAR' THEN target->>'$' ELSE target::VARCHAR END"
        output_sql = "filtered_resps::VARCHAR"
        extracted_sql = "NULL::VARCHAR"
    else:
        target_sql = "CASE WHEN json_type(target) = 'VARCHAR' THEN target->>'$' ELSE target::VARCHAR END"
        output_sql = ("CASE WHEN json_array_length(resps) = 1 AND json_array_length(resps->'$[0]') = 1 "
                      "THEN resps->>'$[0][0]' ELSE resps::VARCHAR END")
        extracted_sql = (f"CASE WHEN filtered_resps->>'$[0]' = '{INVALID_ANSWER}' THEN NULL "
                         "WHEN json_type(filtered_resps->'$[0]') = 'VARCHAR' THEN filtered_resps->>'$[0]' "
                         "ELSE (filtered_resps->'$[0]')::VARCHAR END")
    if output_type != "multiple_choice":
        options_sql = "NULL::VARCHAR"
    input_sql = ("CASE WHEN json_type(arguments) = 'OBJECT' THEN json_extract_string(arguments, '$.gen_args_0.arg_0') "
                 "ELSE json_extract_string(arguments, '$[0][0]') END")
    main = con.sql(
        f"SELECT doc_id::VARCHAR AS example_id, {input_sql} AS input, {target_sql} AS target, doc::VARCHAR AS metadata, "
        f"{output_sql} AS output, {extracted_sql} AS extracted, {options_sql} AS options FROM samples WHERE filter = ? "
        "ORDER BY doc_id",
        params=[primary]).to_arrow_table().combine_chunks()
    n = main.num_rows
    notes: list[str] = []
    scores: dict[str, np.ndarray] = {}
    for metric, filt in pairs:
        if filt not in filters:
            notes.append(f"{task}: results.json reports {metric},{filt} but the samples have no filter '{filt}'; left out.")
            continue
        col = _quote(metric)
        frame = con.execute(
            f"SELECT doc_id, json_type({col}) AS kind, CASE WHEN json_type({col}) = 'BOOLEAN' THEN {col}::BOOLEAN::DOUBLE "
            f"ELSE TRY_CAST({col} AS DOUBLE) END AS value FROM samples WHERE filter = ? ORDER BY doc_id", [filt]).df()
        if len(frame) != n or not np.array_equal(frame["doc_id"].astype(str).to_numpy(), main.column("example_id").to_numpy(zero_copy_only=False)):
            raise DataError(f"{path}: filter '{filt}' covers other documents than filter '{primary}' "
                            f"({len(frame)} versus {n} lines).")
        if frame["kind"].isna().all():
            notes.append(f"{task}: no per-document value of '{metric}' in the samples; left out.")
            continue
        if frame["value"].isna().any():
            kinds = sorted(set(frame["kind"].dropna()) - {"DOUBLE", "BIGINT", "UBIGINT", "BOOLEAN"})
            notes.append(f"{task}: '{metric}' is not a number per document ({', '.join(kinds) or 'missing'}: a corpus-level "
                         "metric such as BLEU); left out of the per-example scores.")
            continue
        scores[f"{metric},{filt}"] = frame["value"].to_numpy(dtype=np.float64)
    reported = {k: v for k, v in ((results.get("results") or {}).get(task) or {}).items() if "," in k}
    info = {"method": "lm-eval task", "task": task, "output_type": output_type, "n_test": n,
            "filters": filters, "extracted_filter": primary, "reported": {model: reported},
            "n_shot": (results.get("n-shot") or {}).get(task), "version": (results.get("versions") or {}).get(task),
            "task_config": task_config}
    cols: dict[str, Any] = {name: main.column(name).combine_chunks() for name in main.column_names}
    confidence, probabilities = (_choice_probabilities(cols["output"].to_pylist(), cols["options"].to_pylist())
                                 if output_type == "multiple_choice" else (None, None))
    part = ImportedPart(split=task, method="lm-eval task", info=info, example_ids=cols["example_id"],
                        inputs=cols["input"], targets=cols["target"], metadata=cols["metadata"],
                        models={model: ModelRows(outputs=cols["output"], scores=scores,
                                                 extracted=None if output_type == "loglikelihood" else cols["extracted"],
                                                 confidence=confidence, probabilities=probabilities)})
    return part, notes


def _choice_probabilities(outputs: list[Any], options: list[Any]) -> tuple[np.ndarray, list[dict[str, float] | None]]:
    """Per document, the softmax of its options' log-likelihoods (by option text) and the top one's probability.

    >>> conf, probs = _choice_probabilities(["[-1.0, -2.0]"], ['["yes", "no"]'])
    >>> round(float(conf[0]), 4), {k: round(v, 4) for k, v in probs[0].items()}
    (0.7311, {'yes': 0.7311, 'no': 0.2689})
    """
    confidence = np.full(len(outputs), np.nan)
    probabilities: list[dict[str, float] | None] = [None] * len(outputs)
    for i, (out, opts) in enumerate(zip(outputs, options)):
        try:
            lls = np.asarray(json.loads(out), dtype=np.float64)
            names = [str(o) for o in json.loads(opts)]
        except (TypeError, ValueError):
            continue
        if lls.size == 0 or lls.size != len(names) or not np.isfinite(lls).all() or len(set(names)) != len(names):
            continue
        p = np.exp(lls - lls.max())
        p /= p.sum()
        probabilities[i] = dict(zip(names, p.tolist()))
        confidence[i] = float(p.max())
    return confidence, probabilities


def _merge(parts: dict[str, ImportedPart], part: ImportedPart, path: Path) -> None:
    """Add a model's rows of a task read before. Shared documents must have the same prompts; a run
    over fewer documents (``--limit``) or other ones adds its documents to the task's examples."""
    have = parts.get(part.split)
    if have is None:
        parts[part.split] = part
        return
    have.info.setdefault("reported", {}).update(part.info.get("reported", {}))
    if have.example_ids.equals(part.example_ids) and have.inputs.equals(part.inputs):
        have.models.update(part.models)
        return
    import pandas as pd

    old = pd.DataFrame({"input": have.inputs.to_pylist()}, index=have.example_ids.to_pylist())
    new = pd.DataFrame({"input": part.inputs.to_pylist()}, index=part.example_ids.to_pylist())
    shared = old.index.intersection(new.index)
    differ = shared[old.loc[shared, "input"].to_numpy() != new.loc[shared, "input"].to_numpy()]
    if len(differ):
        raise DataError(
            f"{path}: task '{part.split}' gave document {differ[0]} another prompt than the run read before "
            f"({len(differ)} document(s) differ). Runs with different task versions, prompts or few-shot settings "
            "are different tasks: import them into separate --out folders.")
    for rows in have.models.values():
        if rows.example_ids is None:
            rows.example_ids = have.example_ids
    for rows in part.models.values():
        rows.example_ids = part.example_ids
    extra = pa.array(~new.index.isin(old.index))
    if new.index.isin(old.index).sum() < len(new):
        have.example_ids = pa.concat_arrays([have.example_ids, part.example_ids.filter(extra)])
        have.inputs = pa.concat_arrays([have.inputs, part.inputs.filter(extra)])
        have.targets = pa.concat_arrays([have.targets, part.targets.filter(extra)])
        have.metadata = pa.concat_arrays([have.metadata, part.metadata.filter(extra)])
        have.info["n_test"] = len(have.example_ids)
    have.models.update(part.models)


def _source(root: Path, runs: list[LmEvalRun]) -> dict[str, Any]:
    """What identifies an import: the folder's name, every file's digest, the models and their settings."""
    base = root if root.is_dir() else root.parent
    files = {}
    for run in runs:
        for p in [run.results_path, *run.samples.values()]:
            files[str(p.relative_to(base))] = file_digest(p)
    return {"kind": "lm-eval", "folder": base.resolve().name, "files": dict(sorted(files.items())),
            "models": {run.model: run.model_settings() for run in runs}}


def _read_parts(runs: list[LmEvalRun], answer_filter: str | None = None) -> tuple[list[ImportedPart], list[str]]:
    import duckdb

    parts: dict[str, ImportedPart] = {}
    notes: list[str] = []
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    try:
        for run in sorted(runs, key=lambda r: (r.time, str(r.results_path))):
            for task in sorted(run.samples):
                part, task_notes = read_task(con, run.samples[task], task, run.model, run,
                                             answer_filter=answer_filter)
                _merge(parts, part, run.samples[task])
                notes += [f"{run.model}: {t}" for t in task_notes]
    finally:
        con.close()
    return [parts[t] for t in sorted(parts)], notes


def read_lm_eval(path: str | Path) -> tuple[list[ImportedPart], dict[str, Any], list[str]]:
    """Read every run under ``path``: the parts (one per task, every model's rows), the source description, notes."""
    root = Path(path)
    runs = find_runs(root)
    _name_models(runs)
    parts, notes = _read_parts(runs)
    return parts, _source(root, runs), notes


def import_lm_eval(path: str | Path, out: str | Path, *, answer_filter: str | None = None,
                   name: str = "lm-eval import", corpus_metrics: Sequence[str] = ()) -> ImportResult:
    """Read an lm_eval ``--log_samples`` output folder into a results store in ``out`` (idempotent).

    ``answer_filter`` names the filter whose answers are stored as the extracted answer (e.g.
    ``flexible-extract``) in tasks that have it; by default each task's first filter. Every
    filter's metric is stored either way.

    ``corpus_metrics`` (``auroc``, ``ece``, ``brier``, ...) are added to every task, right and wrong
    read from ``acc,none`` (else each task's first metric); multiple-choice tasks carry the softmax
    of their options' log-likelihoods as each row's probabilities.

    Returns where the rows went; ``already_imported`` is True when the same files were imported
    into that store before (then nothing is parsed or written again).
    """
    from gengap.store import STORE_NAME

    root = Path(path)
    runs = find_runs(root)
    _name_models(runs)
    source = {**_source(root, runs), "answer_filter": answer_filter}
    if corpus_metrics:  # absent otherwise: earlier imports are still found
        source["corpus_metrics"] = list(corpus_metrics)
    done = find_import(out, name, source)
    if done is not None:
        return ImportResult(Path(out) / STORE_NAME, done, Path(out), True, 0)
    parts, notes = _read_parts(runs, answer_filter)
    if corpus_metrics:
        add_corpus_metrics(parts, corpus_metrics, correct_from=("acc,none",))
    metrics = sorted({m for p in parts for rows in p.models.values() for m in rows.scores})
    config = {
        "import": source,
        "dataset": {"name": f"lm-eval logs in {source['folder']}", "n": sum(len(p.example_ids) for p in parts)},
        "models": sorted({m for p in parts for m in p.models}),
        "splits": [{"name": p.split, "method": p.method, "n_test": len(p.example_ids)} for p in parts],
        "metrics": metrics,
    }
    return write_import(out, name, config, parts, notes=notes)


def iter_samples(path: Path) -> Iterator[dict[str, Any]]:
    """The lines of a samples file as dicts (for tests and small files; the importer uses DuckDB)."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)
