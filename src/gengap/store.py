"""The results store: one embedded DuckDB file holding every per-example row.

Per-example rows are the single source of truth: every summary, interval, chart and comparison is
computed from them, so a user can re-score or re-slice without running a model again.

Tables (one row per ...):

- ``runs``         run: ``run_id``, ``name``, ``created_at``, ``status``, ``config`` (JSON), ``gengap_version``
- ``splits``       split of a run: ``run_id``, ``split``, ``method``, ``info`` (JSON of split.json)
- ``examples``     evaluated example: ``run_id``, ``split``, ``example_id``, ``input``, ``target``, ``metadata`` (JSON)
- ``predictions``  model output: ``run_id``, ``model``, ``split``, ``perturbation``, ``example_id``, ``output``,
  and for a perturbed variant its ``variant_input`` and ``variant_target`` (null for clean rows); with answer
  extraction, the ``extracted`` answer and ``unextracted`` (true when no answer could be read; null without extraction);
  the ``prompt`` a language model read when gengap built it (text, or chat messages as JSON), and ``details``
  (JSON: ``prompt_tokens``, ``completion_tokens``, ``latency_s``, per-option ``loglik``; null for cached outputs),
  the model's ``confidence`` in its output (a probability; null when it gave none) and its ``probabilities``
  per label (JSON object; null when it gave only a confidence or none), and the ``sample`` it is of the
  example (0, 1, ... when the model was asked several times, ``samples``; 0 otherwise). Stores written
  before these columns existed gain them, empty (``sample`` 0), the first time they are opened for writing,
  and read as empty.
- ``scores``       score of an output: the prediction's keys (``sample`` too) plus ``metric`` and ``value``
- ``measures``     training-time measure: ``run_id``, ``step``, ``name``, ``scope`` (layer or ''), ``value``
- ``events``       something a monitor noticed: ``run_id``, ``step``, ``kind`` (memorized, grokked, nan_loss, ...), ``message``
- ``cache``        model output by ``fingerprint`` (the model and its settings) and input hash (``h1``, ``h2``): a re-run
  asks the model nothing it has answered before
- ``cache_use``    per finished shard: ``run_id``, ``shard``, ``model``, ``fingerprint`` (empty when the model is
  not cached), ``n_cached`` and ``n_computed`` outputs, and ``note`` (why a model is not cached)
- ``judge_use``    per finished shard read with an answer judge: ``run_id``, ``shard``, ``model``, outputs
  ``asked`` about, and of those ``filled``, ``agreed``, ``overruled``, ``unsupported``, ``declined``
- ``leaks``        test example flagged by a leakage audit (``gengap leakage``): ``run_id``, ``split``, ``example_id``,
  ``kind`` (exact, normalized, near, ngram), ``match_id``, ``similarity``, ``match_text`` (the training text it copies)
- ``leakage``      the audit of a run: ``run_id``, ``info`` (JSON: settings, notes, the per-split table)
- ``shards``       finished unit of work: ``run_id``, ``shard``, ``n_rows``; written in the same
  transaction as its predictions and scores, so a killed run never leaves half a shard.

>>> import tempfile, os
>>> with Store(os.path.join(tempfile.mkdtemp(), "g.duckdb")) as store:
...     run = store.start_run("doc", {})
...     store.runs()["run_id"].tolist() == [run]
True
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from gengap._errors import StoreError
from gengap._store_file import STORE_NAME, resolve_store

__all__ = ["Store", "STORE_NAME", "SCHEMA_VERSION", "JUDGE_COUNTS", "resolve_store"]

SCHEMA_VERSION = 1

_DDL = """
CREATE TABLE IF NOT EXISTS gengap_meta (key VARCHAR PRIMARY KEY, value VARCHAR);
CREATE TABLE IF NOT EXISTS runs (
    run_id VARCHAR PRIMARY KEY, name VARCHAR, created_at TIMESTAMP, status VARCHAR,
    config VARCHAR, gengap_version VARCHAR);
CREATE TABLE IF NOT EXISTS splits (run_id VARCHAR, split VARCHAR, method VARCHAR, info VARCHAR);
CREATE TABLE IF NOT EXISTS examples (
    run_id VARCHAR, split VARCHAR, example_id VARCHAR, input VARCHAR, target VARCHAR, metadata VARCHAR);
CREATE TABLE IF NOT EXISTS predictions (
    run_id VARCHAR, model VARCHAR, split VARCHAR, perturbation VARCHAR, example_id VARCHAR, output VARCHAR,
    variant_input VARCHAR, variant_target VARCHAR, extracted VARCHAR, unextracted BOOLEAN);
CREATE TABLE IF NOT EXISTS scores (
    run_id VARCHAR, model VARCHAR, split VARCHAR, perturbation VARCHAR, example_id VARCHAR,
    metric VARCHAR, value DOUBLE);
CREATE TABLE IF NOT EXISTS shards (run_id VARCHAR, shard VARCHAR, n_rows BIGINT, finished_at TIMESTAMP);
CREATE TABLE IF NOT EXISTS cache (fingerprint VARCHAR, h1 UBIGINT, h2 UBIGINT, output VARCHAR);
CREATE TABLE IF NOT EXISTS cache_use (
    run_id VARCHAR, shard VARCHAR, model VARCHAR, fingerprint VARCHAR, n_cached BIGINT, n_computed BIGINT, note VARCHAR);
CREATE TABLE IF NOT EXISTS measures (run_id VARCHAR, step BIGINT, name VARCHAR, scope VARCHAR, value DOUBLE);
CREATE TABLE IF NOT EXISTS events (run_id VARCHAR, step BIGINT, kind VARCHAR, message VARCHAR);
ALTER TABLE predictions ADD COLUMN IF NOT EXISTS prompt VARCHAR;
ALTER TABLE predictions ADD COLUMN IF NOT EXISTS details VARCHAR;
ALTER TABLE predictions ADD COLUMN IF NOT EXISTS confidence DOUBLE;
ALTER TABLE predictions ADD COLUMN IF NOT EXISTS probabilities VARCHAR;
ALTER TABLE cache ADD COLUMN IF NOT EXISTS run_id VARCHAR;
ALTER TABLE cache_use ADD COLUMN IF NOT EXISTS n_identical BIGINT;
ALTER TABLE predictions ADD COLUMN IF NOT EXISTS sample INTEGER DEFAULT 0;
ALTER TABLE scores ADD COLUMN IF NOT EXISTS sample INTEGER DEFAULT 0;
CREATE TABLE IF NOT EXISTS leaks (
    run_id VARCHAR, split VARCHAR, example_id VARCHAR, kind VARCHAR, match_id VARCHAR, similarity DOUBLE,
    match_text VARCHAR);
CREATE TABLE IF NOT EXISTS leakage (run_id VARCHAR, info VARCHAR);
CREATE TABLE IF NOT EXISTS judge_use (
    run_id VARCHAR, shard VARCHAR, model VARCHAR, asked BIGINT, filled BIGINT, agreed BIGINT, overruled BIGINT,
    unsupported BIGINT, declined BIGINT);
"""

#: The entry of a run's config that says how it ran (threads, cores), not what it computed.
RAN_WITH = "ran_with"
#: The config entry holding the report settings a run was started with (``find_slices``,
#: ``slice_order``): what its report shows, not what it computes, so not compared when a run resumes;
#: ``gengap resume`` and ``gengap report`` read it to write the same report.
REPORT_SETTINGS = "report"
#: Config entries a run may change between attempts and still resume as the same run.
NOT_COMPARED = (RAN_WITH, REPORT_SETTINGS)

#: The counts of the ``judge_use`` table, in order.
JUDGE_COUNTS = ("asked", "filled", "agreed", "overruled", "unsupported", "declined")


def _text_column(values: Sequence[Any] | pa.Array | pa.ChunkedArray) -> pa.Array:
    """Strings as they are; dicts and lists as JSON; None stays null; anything else via str()."""
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        return values.cast(pa.string())
    try:
        return pa.array(values, type=pa.string())
    except (pa.ArrowTypeError, pa.ArrowInvalid):
        pass
    out = []
    for v in values:
        if v is None or isinstance(v, str):
            out.append(v)
        elif isinstance(v, (dict, list, tuple)):
            out.append(json.dumps(v, ensure_ascii=False, default=str))
        else:
            out.append(str(v))
    return pa.array(out, type=pa.string())


def _is_null(values: Sequence[Any] | pa.Array | pa.ChunkedArray) -> pa.Array:
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        import pyarrow.compute as pc

        return pc.is_null(values)
    return pa.array([v is None for v in values], type=pa.bool_())


class Store:
    """An open results store (a DuckDB file); use as a context manager.

    Opening a file that is not a gengap store, or one another process holds, raises
    :class:`~gengap.errors.StoreError` and leaves the file untouched.
    """

    def __init__(self, path: str | Path, *, read_only: bool = False) -> None:
        import duckdb

        self.path = Path(path)
        if read_only and not self.path.exists():
            raise StoreError(f"No results store at '{self.path}'. Run 'gengap eval' or 'gengap demo' with --out first.")
        if self.path.exists() and self.path.is_dir():
            raise StoreError(f"'{self.path}' is a folder, not a results store file.")
        if self.path.exists() and self.path.stat().st_size > 0:
            with open(self.path, "rb") as f:
                head = f.read(16)
            if head[8:12] != b"DUCK":
                raise StoreError(
                    f"'{self.path}' exists but is not a DuckDB file (it starts with {head[:8]!r}). It was left untouched; "
                    "move it away or choose another --out folder."
                )
        existed = self.path.exists() and self.path.stat().st_size > 0
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._con = duckdb.connect(str(self.path), read_only=read_only)
        except duckdb.IOException as e:
            msg = str(e)
            if "lock" in msg.lower():
                raise StoreError(
                    f"The results store '{self.path}' is in use by another gengap process. Wait for it to finish, "
                    "or write this run to another --out folder."
                ) from None
            raise StoreError(f"Cannot open the results store '{self.path}': {msg}. The file was left untouched.") from None
        except duckdb.Error as e:
            raise StoreError(f"Cannot open the results store '{self.path}': {e}. The file was left untouched.") from None
        self._lock = threading.Lock()
        self._texts: dict[int, tuple[Any, np.ndarray]] = {}  # per dataset, the stored text of its inputs
        if existed or read_only:
            self._check_schema()
        if not read_only:
            self._con.execute(_DDL)
            self._con.execute(
                "INSERT INTO gengap_meta VALUES ('schema_version', ?) ON CONFLICT DO NOTHING", [str(SCHEMA_VERSION)]
            )

    def _check_schema(self) -> None:
        """Refuse a DuckDB file that some other program made, before writing anything to it."""
        tables = {r[0] for r in self._con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
        if tables and "gengap_meta" not in tables:
            self._con.close()
            raise StoreError(
                f"'{self.path}' is a DuckDB file but not a gengap results store (it has tables {sorted(tables)[:5]}, "
                "no gengap_meta). It was left untouched; choose another --out folder."
            )
        found = self._con.execute("SELECT value FROM gengap_meta WHERE key = 'schema_version'").fetchall() if tables else []
        version = found[0] if found else None
        if version is not None and int(version[0]) > SCHEMA_VERSION:
            self._con.close()
            raise StoreError(
                f"'{self.path}' was written by a newer gengap (store schema {version[0]}, this one reads {SCHEMA_VERSION}). "
                "Upgrade gengap to read it; the file was left untouched."
            )

    # ------------------------------------------------------------------ lifecycle
    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        self._con.close()

    def sql(self, query: str, params: Sequence[Any] | None = None) -> pd.DataFrame:
        """Run a read query and return a DataFrame (the store is plain DuckDB: any SQL works)."""
        with self._lock:
            return self._con.execute(query, params or []).df()

    # ------------------------------------------------------------------ writing
    def start_run(self, name: str, config: Mapping[str, Any], *, run_id: str | None = None) -> str:
        """Register a run and return its id (``r0001``, ``r0002``, ... in a store)."""
        from gengap._version import __version__

        with self._lock:
            if run_id is None:
                n = self._con.execute("SELECT count(*) FROM runs").fetchall()[0][0]
                run_id = f"r{n + 1:04d}"
            self._con.execute(
                "INSERT INTO runs VALUES (?, ?, ?, 'running', ?, ?)",
                [run_id, name, datetime.now(timezone.utc).replace(tzinfo=None),
                 json.dumps(config, sort_keys=True, default=str), __version__],
            )
        return run_id

    def find_resumable(self, name: str, config: Mapping[str, Any]) -> str | None:
        """The latest unfinished run with this name and exactly this config (to resume), or None.

        The config's ``ran_with`` entry (how the run ran: threads, cores) is not compared: a run
        resumes on another machine or with another thread count; nor is its ``report`` entry (the
        report settings, :data:`REPORT_SETTINGS`).
        """
        text = json.dumps({k: v for k, v in config.items() if k not in NOT_COMPARED}, sort_keys=True, default=str)
        found = self.sql(
            "SELECT run_id, config FROM runs WHERE name = ? AND status <> 'done' "
            "ORDER BY created_at DESC, run_id DESC", [name])
        for run_id, stored in zip(found["run_id"], found["config"]):
            same = json.loads(stored)
            for key in NOT_COMPARED:
                same.pop(key, None)
            if json.dumps(same, sort_keys=True, default=str) == text:
                return str(run_id)
        return None

    def run_config(self, run_id: str) -> dict[str, Any]:
        found = self.sql("SELECT config FROM runs WHERE run_id = ?", [run_id])
        if found.empty:
            raise StoreError(f"No run '{run_id}' in '{self.path}'. Runs there: {self.runs()['run_id'].tolist()}.")
        return json.loads(found["config"].iloc[0])

    def answered_in_run(self, fingerprint: str, hashes: np.ndarray, run_id: str) -> set[int]:
        """Row positions of ``hashes`` whose cached output this run wrote itself (an input identical to one
        it answered before, e.g. a perturbation that left an input as it was), not an earlier run."""
        table = pa.table({"pos": pa.array(np.arange(len(hashes))), "h1": pa.array(hashes[:, 0]), "h2": pa.array(hashes[:, 1])})
        with self._lock:
            self._con.register("_gengap_lookup", table)
            found = self._con.execute(
                "SELECT DISTINCT l.pos FROM _gengap_lookup l JOIN cache c ON c.h1 = l.h1 AND c.h2 = l.h2 "
                "AND c.fingerprint = ? AND c.run_id = ?", [fingerprint, run_id]).fetchall()
            self._con.unregister("_gengap_lookup")
        return {int(p) for (p,) in found}

    def cached_outputs(self, fingerprint: str, hashes: np.ndarray) -> dict[int, str]:
        """Row position -> cached output text, for the rows of ``hashes`` (shape (n, 2), uint64) answered before."""
        table = pa.table({"pos": pa.array(np.arange(len(hashes))), "h1": pa.array(hashes[:, 0]), "h2": pa.array(hashes[:, 1])})
        with self._lock:
            if self._con.execute("SELECT count(*) FROM cache WHERE fingerprint = ?", [fingerprint]).fetchall()[0][0] == 0:
                return {}
            self._con.register("_gengap_lookup", table)
            found = self._con.execute(
                "SELECT l.pos, any_value(c.output) FROM _gengap_lookup l JOIN cache c "
                "ON c.h1 = l.h1 AND c.h2 = l.h2 AND c.fingerprint = ? GROUP BY l.pos", [fingerprint]).fetchall()
            self._con.unregister("_gengap_lookup")
        return dict(found)

    def remember_report(self, run_id: str, settings: Mapping[str, Any]) -> None:
        """Store the report settings of a run (its config's ``report`` entry, :data:`REPORT_SETTINGS`),
        replacing earlier ones: a run resumed with other report settings reports with the latest."""
        config = self.run_config(run_id)
        config[REPORT_SETTINGS] = dict(settings)
        with self._lock:
            self._con.execute("UPDATE runs SET config = ? WHERE run_id = ?",
                              [json.dumps(config, sort_keys=True, default=str), run_id])

    def finish_run(self, run_id: str, status: str = "done") -> None:
        with self._lock:
            self._con.execute("UPDATE runs SET status = ? WHERE run_id = ?", [status, run_id])

    def add_split(self, run_id: str, split: Any, *, columns: Mapping[str, np.ndarray] | None = None,
                  notes: Mapping[str, Any] | None = None) -> None:
        """Record a Split's diagnostics and card, and its test examples.

        ``columns`` adds per-row values computed for the test part (``train_similarity``) to each
        example's metadata; ``notes`` adds entries to the split's record.
        """
        info = {**split.to_dict(), **(notes or {})}
        test = split.test_part
        frame = test.frame
        meta = frame[test.metadata_columns].copy()
        for name, values in (columns or {}).items():
            meta[name] = np.asarray(values)
        metadata = (
            meta.to_json(orient="records", lines=True, date_format="iso").splitlines()
            if len(meta.columns) else [None] * len(frame)
        )
        inputs = frame["input"].tolist()
        if split.dataset is not None and inputs and not isinstance(inputs[0], str):
            inputs = self._input_texts(split.dataset, split.test)
        self.add_examples(run_id, split.name, split.method, info, example_ids=frame["id"].tolist(),
                          inputs=inputs, targets=frame["target"].tolist(), metadata=metadata)

    def _input_texts(self, dataset: Any, positions: np.ndarray) -> list[Any]:
        """The stored text of non-text inputs (JSON), written once per example of a dataset however many
        splits test it (the transfer split tests each example once per other group)."""
        key = id(dataset)
        if key not in self._texts or self._texts[key][0] is not dataset:
            self._texts[key] = (dataset, np.full(len(dataset), None, dtype=object))
        texts = self._texts[key][1]
        todo = positions[pd.isna(texts[positions])]
        if len(todo):
            values = dataset.frame["input"].to_numpy()[todo]
            texts[todo] = _text_column(list(values)).to_pylist()
        return list(texts[positions])

    def add_examples(
        self,
        run_id: str,
        split: str,
        method: str,
        info: Mapping[str, Any],
        *,
        example_ids: Sequence[Any] | pa.Array,
        inputs: Sequence[Any] | pa.Array,
        targets: Sequence[Any] | pa.Array,
        metadata: Sequence[str | None] | pa.Array,
    ) -> None:
        """Record a split (its ``method`` and ``info``) and its examples, replacing what the run had under that name.

        ``metadata`` holds one JSON object text (or None) per example. Python sequences or Arrow arrays.
        """
        n = len(example_ids)
        table = pa.table({
            "run_id": pa.array([run_id] * n, type=pa.string()) if n else pa.array([], type=pa.string()),
            "split": pa.array([split] * n, type=pa.string()) if n else pa.array([], type=pa.string()),
            "example_id": _text_column(example_ids),
            "input": _text_column(inputs),
            "target": _text_column(targets),
            "metadata": _text_column(metadata),
        })
        with self._lock:
            self._con.execute("BEGIN")
            try:
                self._con.execute("DELETE FROM splits WHERE run_id = ? AND split = ?", [run_id, split])
                self._con.execute("DELETE FROM examples WHERE run_id = ? AND split = ?", [run_id, split])
                self._con.execute("INSERT INTO splits VALUES (?, ?, ?, ?)",
                                  [run_id, split, method, json.dumps(info, sort_keys=True, default=str)])
                self._con.register("_gengap_examples", table)
                self._con.execute("INSERT INTO examples SELECT * FROM _gengap_examples")
                self._con.unregister("_gengap_examples")
                self._con.execute("COMMIT")
            except Exception:
                self._con.execute("ROLLBACK")
                raise

    def add_predictions(
        self,
        run_id: str,
        *,
        model: str,
        split: str,
        example_ids: Sequence[str],
        outputs: Sequence[Any],
        scores: Mapping[str, np.ndarray],
        perturbation: str = "none",
        shard: str | None = None,
        variant_inputs: Sequence[Any] | None = None,
        variant_targets: Sequence[Any] | None = None,
        cache_rows: tuple[str, np.ndarray, Sequence[Any]] | None = None,
        extracted: Sequence[str | None] | None = None,
        cache_use: tuple[str, int, int, str] | tuple[str, int, int, str, int] | None = None,
        prompts: Sequence[Any] | None = None,
        details: Sequence[Mapping[str, Any] | None] | None = None,
        judge_use: Mapping[str, int] | None = None,
        confidence: Sequence[float] | np.ndarray | None = None,
        probabilities: Sequence[Mapping[str, float] | None] | None = None,
        sample: int = 0,
    ) -> None:
        """Store one shard's outputs and scores atomically (all rows or none).

        ``sample`` is which of the model's answers to each example these are (0 when it is asked once).

        ``confidence`` (NaN or None: none given) and ``probabilities`` (per label) are the model's,
        per row.

        ``variant_inputs`` / ``variant_targets`` record what a perturbed example looked like;
        ``cache_rows`` = ``(fingerprint, input_hashes, outputs)`` adds newly computed outputs to the cache
        in the same transaction; ``cache_use`` = ``(fingerprint, n_cached, n_computed, note)`` records
        where the shard's outputs came from; ``judge_use`` (:data:`JUDGE_COUNTS` by name) what an
        answer judge did on it.
        """
        n = len(example_ids)
        if len(outputs) != n or any(len(v) != n for v in scores.values()):
            raise StoreError(f"Shard {shard or split!r}: {n} ids, {len(outputs)} outputs and score lengths {[len(v) for v in scores.values()]} differ.")
        nulls = pa.nulls(n, type=pa.string())
        preds = pa.table({
            "example_id": _text_column(example_ids if isinstance(example_ids, (pa.Array, pa.ChunkedArray)) else list(example_ids)),
            "output": _text_column(outputs),
            "variant_input": _text_column(variant_inputs) if variant_inputs is not None else nulls,
            "variant_target": _text_column(variant_targets) if variant_targets is not None else nulls,
            "extracted": _text_column(extracted) if extracted is not None else nulls,
            "unextracted": _is_null(extracted) if extracted is not None else pa.nulls(n, pa.bool_()),
            "prompt": _text_column(prompts) if prompts is not None else nulls,
            "details": _text_column([None if d is None else json.dumps(d, sort_keys=True) for d in details])
            if details is not None else nulls,
            "confidence": pa.array(np.asarray(confidence, dtype=np.float64), from_pandas=True)
            if confidence is not None else pa.nulls(n, pa.float64()),
            "probabilities": _text_column([None if p is None else json.dumps(p, sort_keys=True) for p in probabilities])
            if probabilities is not None else nulls,
        })
        keys = [run_id, model, split, perturbation]
        sample = int(sample)
        with self._lock:
            self._con.execute("BEGIN")
            try:
                self._con.register("_gengap_preds", preds)
                self._con.execute(
                    "INSERT INTO predictions (run_id, model, split, perturbation, example_id, output, variant_input, "
                    "variant_target, extracted, unextracted, prompt, details, confidence, probabilities, sample) SELECT ?, ?, "
                    "?, ?, example_id, output, variant_input, variant_target, extracted, unextracted, prompt, details, "
                    "confidence, probabilities, ? FROM _gengap_preds", [*keys, sample])
                for metric, values in scores.items():
                    table = pa.table({"example_id": preds.column("example_id"),
                                      "value": pa.array(np.asarray(values, dtype=np.float64))})
                    self._con.register("_gengap_scores", table)
                    self._con.execute("INSERT INTO scores (run_id, model, split, perturbation, example_id, metric, value, "
                                      "sample) SELECT ?, ?, ?, ?, example_id, ?, value, ? FROM _gengap_scores",
                                      [*keys, metric, sample])
                    self._con.unregister("_gengap_scores")
                self._con.unregister("_gengap_preds")
                if cache_rows is not None and len(cache_rows[1]):
                    fingerprint, hashes, new_outputs = cache_rows
                    fresh = pa.table({"h1": pa.array(hashes[:, 0]), "h2": pa.array(hashes[:, 1]),
                                      "output": _text_column(list(new_outputs))})
                    self._con.register("_gengap_cache", fresh)
                    self._con.execute("INSERT INTO cache (fingerprint, h1, h2, output, run_id) "
                                      "SELECT ?, h1, h2, output, ? FROM _gengap_cache", [fingerprint, run_id])
                    self._con.unregister("_gengap_cache")
                if cache_use is not None:
                    self._con.execute("INSERT INTO cache_use (run_id, shard, model, fingerprint, n_cached, n_computed, note, "
                                      "n_identical) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                      [run_id, shard or f"{model}/{split}/{perturbation}", model, *cache_use[:4],
                                       int(cache_use[4]) if len(cache_use) > 4 else 0])
                if judge_use is not None:
                    self._con.execute("INSERT INTO judge_use VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                      [run_id, shard or f"{model}/{split}/{perturbation}", model,
                                       *(int(judge_use.get(k, 0)) for k in JUDGE_COUNTS)])
                self._con.execute("INSERT INTO shards VALUES (?, ?, ?, ?)",
                                  [run_id, shard or f"{model}/{split}/{perturbation}", n,
                                   datetime.now(timezone.utc).replace(tzinfo=None)])
                self._con.execute("COMMIT")
            except Exception:
                self._con.execute("ROLLBACK")
                raise

    def cache_use(self, run_id: str) -> pd.DataFrame:
        """Per model and fingerprint: outputs taken from the cache and computed in this run, why a model
        was not cached, and the ``splits`` it answered (a learner has a fingerprint per split); empty for
        stores written before gengap recorded it."""
        cols = ["model", "fingerprint", "n_cached", "n_computed", "note", "splits", "n_identical"]
        tables = set(self.sql("SELECT table_name FROM information_schema.tables")["table_name"])
        if "cache_use" not in tables:
            return pd.DataFrame(columns=cols)
        found = self.sql(
            "SELECT model, fingerprint, sum(n_cached)::BIGINT AS n_cached, sum(n_computed)::BIGINT AS n_computed, "
            "any_value(note) AS note, list(DISTINCT shard) AS shards, "
            "coalesce(sum(n_identical), 0)::BIGINT AS n_identical FROM cache_use WHERE run_id = ? "
            "GROUP BY model, fingerprint ORDER BY model, fingerprint", [run_id])
        # a shard is "model/split/perturbation/start": the splits each fingerprint answered, in order
        found["splits"] = [", ".join(sorted({str(sh)[len(str(m)) + 1:].rsplit("/", 2)[0] for sh in shards}))
                           for m, shards in zip(found["model"], found["shards"])]
        return found[cols]

    def judge_use(self, run_id: str) -> pd.DataFrame:
        """Per model: what the answer judge did in a run (:data:`JUDGE_COUNTS`); empty without a judge."""
        cols = ["model", *JUDGE_COUNTS]
        tables = set(self.sql("SELECT table_name FROM information_schema.tables")["table_name"])
        if "judge_use" not in tables:
            return pd.DataFrame(columns=cols)
        sums = ", ".join(f"sum({k})::BIGINT AS {k}" for k in JUDGE_COUNTS)
        return self.sql(f"SELECT model, {sums} FROM judge_use WHERE run_id = ? GROUP BY model ORDER BY model", [run_id])[cols]

    def add_leakage(self, run_id: str, info: Mapping[str, Any], leaks: pd.DataFrame) -> None:
        """Record a leakage audit of a run (replacing an earlier one): ``info`` (JSON) and one row per flagged
        example (``leaks``: id, split, kind, match_id, similarity, match_text), in one transaction."""
        table = pa.table({
            "run_id": pa.array([run_id] * len(leaks), type=pa.string()),
            "split": _text_column(leaks["split"].tolist()),
            "example_id": _text_column(leaks["id"].astype(str).tolist()),
            "kind": _text_column(leaks["kind"].tolist()),
            "match_id": _text_column(leaks["match_id"].astype(str).tolist()),
            "similarity": pa.array(leaks["similarity"].astype(float).tolist(), type=pa.float64()),
            "match_text": _text_column(leaks["match_text"].tolist() if "match_text" in leaks else [None] * len(leaks)),
        })
        with self._lock:
            self._con.execute("BEGIN")
            try:
                self._con.execute("DELETE FROM leaks WHERE run_id = ?", [run_id])
                self._con.execute("DELETE FROM leakage WHERE run_id = ?", [run_id])
                self._con.execute("INSERT INTO leakage VALUES (?, ?)", [run_id, json.dumps(info, sort_keys=True, default=str)])
                self._con.register("_gengap_leaks", table)
                self._con.execute("INSERT INTO leaks SELECT * FROM _gengap_leaks")
                self._con.unregister("_gengap_leaks")
                self._con.execute("COMMIT")
            except Exception:
                self._con.execute("ROLLBACK")
                raise

    def leakage(self, run_id: str) -> tuple[dict[str, Any] | None, pd.DataFrame]:
        """A run's leakage audit: its info (None when the run was never audited) and its flagged examples
        (id, split, kind, match_id, similarity, match_text)."""
        tables = set(self.sql("SELECT table_name FROM information_schema.tables")["table_name"])
        if "leakage" not in tables:  # a store written before audits existed
            return None, pd.DataFrame(columns=["id", "split", "kind", "match_id", "similarity", "match_text"])
        found = self.sql("SELECT info FROM leakage WHERE run_id = ?", [run_id])
        leaks = self.sql("SELECT example_id AS id, split, kind, match_id, similarity, match_text FROM leaks "
                         "WHERE run_id = ? ORDER BY split, example_id", [run_id])
        return (json.loads(found["info"].iloc[0]) if len(found) else None), leaks

    def add_measures(self, run_id: str, records: Sequence[tuple[int, str, str, float]]) -> None:
        """Append training-time measures as ``(step, name, scope, value)`` tuples."""
        if not records:
            return
        steps, names, scopes, values = zip(*records)
        table = pa.table({
            "run_id": pa.array([run_id] * len(records), type=pa.string()),
            "step": pa.array(steps, type=pa.int64()), "name": pa.array(names, type=pa.string()),
            "scope": pa.array(scopes, type=pa.string()), "value": pa.array(values, type=pa.float64()),
        })
        with self._lock:
            self._con.register("_gengap_measures", table)
            self._con.execute("INSERT INTO measures SELECT * FROM _gengap_measures")
            self._con.unregister("_gengap_measures")

    def add_event(self, run_id: str, step: int, kind: str, message: str) -> None:
        """Record something a monitor noticed (memorization, grokking, a NaN loss, ...)."""
        with self._lock:
            self._con.execute("INSERT INTO events VALUES (?, ?, ?, ?)", [run_id, step, kind, message])

    def measures(self, run_id: str) -> pd.DataFrame:
        """A run's measures: step, name, scope, value, ordered by step."""
        return self.sql("SELECT step, name, scope, value FROM measures WHERE run_id = ? ORDER BY step, name, scope", [run_id])

    def events(self, run_id: str) -> pd.DataFrame:
        return self.sql("SELECT step, kind, message FROM events WHERE run_id = ? ORDER BY step", [run_id])

    # ------------------------------------------------------------------ reading
    def runs(self) -> pd.DataFrame:
        """Every run, oldest first."""
        return self.sql("SELECT * FROM runs ORDER BY created_at, run_id")

    def latest_run(self) -> str:
        runs = self.sql("SELECT run_id FROM runs WHERE status = 'done' ORDER BY created_at DESC, run_id DESC LIMIT 1")
        if runs.empty:
            raise StoreError(f"The store '{self.path}' holds no finished run yet.")
        return str(runs["run_id"].iloc[0])

    def finished_shards(self, run_id: str) -> set[str]:
        return set(self.sql("SELECT shard FROM shards WHERE run_id = ?", [run_id])["shard"])

    def finished_shard_rows(self, run_id: str) -> dict[str, int]:
        """Each finished shard of a run and how many rows it holds."""
        frame = self.sql("SELECT shard, n_rows FROM shards WHERE run_id = ?", [run_id])
        return {str(k): int(v) for k, v in zip(frame["shard"], frame["n_rows"])}

    def predictions(self, run_id: str) -> pd.DataFrame:
        """A run's predictions with the prompt each model read and what each answer cost: model, split,
        perturbation, example_id, output, extracted, prompt, prompt_tokens, completion_tokens, latency_s
        and details (JSON; null for outputs taken from the cache). Sample j > 0 of an example is ``"id#j"``."""
        columns = set(self.sql("SELECT column_name FROM information_schema.columns WHERE table_name = 'predictions'")
                      ["column_name"])
        extra = "prompt, details" if "details" in columns else "NULL AS prompt, NULL AS details"
        example = ("CASE WHEN sample > 0 THEN example_id || '#' || sample ELSE example_id END AS example_id"
                   if "sample" in columns else "example_id")  # several answers per example: "id#j", as in rows()
        frame = self.sql(f"SELECT model, split, perturbation, {example}, output, extracted, {extra} FROM predictions "
                         f"WHERE run_id = ? ORDER BY model, split, perturbation, example_id{', sample' if 'sample' in columns else ''}",
                         [run_id])
        parsed = [json.loads(d) if isinstance(d, str) else {} for d in frame["details"]]
        for key in ("prompt_tokens", "completion_tokens", "latency_s"):
            frame[key] = pd.array([d.get(key) for d in parsed], dtype="Float64")
        return frame

    def split_info(self, run_id: str) -> dict[str, dict[str, Any]]:
        """split name -> the split's diagnostics and taxonomy card, in the order they were added."""
        frame = self.sql("SELECT split, info FROM splits WHERE run_id = ? ORDER BY rowid", [run_id])
        return {row.split: json.loads(row.info) for row in frame.itertuples()}

    def rows(self, run_id: str, *, metric: str | None = None) -> pd.DataFrame:
        """Per-example rows of a run: model, split, perturbation, example, input, target, output,
        extracted, unextracted, metadata, metric, score, confidence, probabilities (JSON text).

        A run that asked its models several times per example (``samples``) has one row per answer, and
        two more columns: ``item`` (the example's id) and ``sample`` (0, 1, ...); its ``example_id``
        names the answer, ``"q7#2"`` for sample 2 of example ``q7`` (sample 0 keeps the plain id), so
        rows pair across models and perturbations answer by answer, and ``item`` is their cluster.
        """
        where = "AND s.metric = ?" if metric else ""
        columns = set(self.sql("SELECT column_name FROM information_schema.columns WHERE table_name = 'predictions'")
                      ["column_name"])
        confidences = ("p.confidence, p.probabilities" if "confidence" in columns  # stores older than the columns
                       else "CAST(NULL AS DOUBLE) AS confidence, CAST(NULL AS VARCHAR) AS probabilities")
        sampled = "sample" in columns  # stores older than samples: one answer per example
        params = [run_id, metric] if metric else [run_id]
        frame = self.sql(
            f"""
            SELECT s.model, s.split, s.perturbation, s.example_id,
                   COALESCE(p.variant_input, e.input) AS input, COALESCE(p.variant_target, e.target) AS target,
                   p.output, p.extracted, p.unextracted, e.metadata,
                   s.metric, s.value AS score, {confidences}, {"s.sample" if sampled else "0"} AS sample
            FROM scores s
            JOIN predictions p USING (run_id, model, split, perturbation, example_id{", sample" if sampled else ""})
            LEFT JOIN examples e USING (run_id, split, example_id)
            WHERE s.run_id = ? {where}
            ORDER BY s.model, s.split, s.perturbation, s.example_id, sample
            """,
            params,
        )
        sample = frame.pop("sample").to_numpy()
        if len(frame) and (sample > 0).any():
            frame["item"] = frame["example_id"]
            frame["sample"] = sample.astype(np.int64)
            later = sample > 0
            frame.loc[later, "example_id"] = (frame.loc[later, "example_id"].astype(str) + "#"
                                              + frame.loc[later, "sample"].astype(str))
        return frame

    def export_parquet(self, folder: str | Path, run_id: str | None = None) -> Path:
        """Write every table (or one run's rows) to Parquet files in ``folder``."""
        out = Path(folder)
        out.mkdir(parents=True, exist_ok=True)
        for table in ("runs", "splits", "examples", "predictions", "scores", "measures", "events"):
            where = f"WHERE run_id = '{run_id}'" if run_id else ""
            with self._lock:
                self._con.execute(f"COPY (SELECT * FROM {table} {where}) TO '{out / (table + '.parquet')}' (FORMAT PARQUET)")
        return out
