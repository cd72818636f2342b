"""What every importer produces, and how it goes into a results store (once: re-reading is idempotent).

An import is a list of :class:`ImportedPart` (one per task or split of the source): the examples
(one row per document) and, per model, its outputs, extracted answers and per-example scores, all
in the order of the examples. :func:`write_import` stores them as one gengap run.

The run's configuration holds a fingerprint of the source files. Importing the same files again
into the same store finds the finished run and writes nothing; an import that was stopped half way
finishes where it stopped (each model x task is stored in one transaction, like a runner shard).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from gengap._errors import DataError
from gengap.store import STORE_NAME, Store

__all__ = ["ImportResult", "ImportedPart", "ModelRows", "file_digest", "find_import", "write_import"]


@dataclass
class ModelRows:
    """One model's rows on one part, aligned with the part's examples.

    Attributes
    ----------
    outputs : the model's raw output per example (text, or JSON text of log-likelihoods).
    extracted : the answer read from the output (None where none could be read), or None for no extraction.
    scores : metric name -> float array of shape (n_examples,).
    example_ids : the examples these rows are about, when the model saw only some of the part's
        examples or in another order (None: all of them, in the part's order).
    prompts : what the model read per example (text, or chat messages as JSON text), or None.
    details : per example, ``prompt_tokens``, ``completion_tokens``, ``latency_s`` (a dict or None), or None.
    confidence : the model's confidence in each output (NaN where none), or None.
    probabilities : per row, probability per label (lm-eval multiple choice: softmax of the options'
        log-likelihoods), or None.
    samples : per row, which of the model's answers to its example it is (0, 1, ...; stored as a run with
        ``samples`` stores them: the rows of one example are one item), or None (one answer per example).
    """

    outputs: pa.Array
    scores: dict[str, np.ndarray]
    extracted: pa.Array | None = None
    example_ids: pa.Array | None = None
    prompts: list[Any] | None = None
    details: list[dict[str, Any] | None] | None = None
    confidence: np.ndarray | None = None
    probabilities: list[dict[str, float] | None] | None = None
    samples: np.ndarray | None = None


@dataclass
class ImportedPart:
    """One task (gengap: one split) of an import.

    Attributes
    ----------
    split : its name in the store (an lm-eval task name, or the value of a task column).
    method : what produced it (``lm-eval task``, ``imported``), the split's ``method`` in the store.
    info : what the report shows about it (task configuration, sizes, source files).
    example_ids, inputs, targets : one per example (Arrow string arrays).
    metadata : one JSON object text per example (the document's fields), or nulls.
    models : model name -> its rows.
    """

    split: str
    method: str
    info: dict[str, Any]
    example_ids: pa.Array
    inputs: pa.Array
    targets: pa.Array
    metadata: pa.Array
    models: dict[str, ModelRows] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, rows in self.models.items():
            n = len(self.example_ids if rows.example_ids is None else rows.example_ids)
            lengths = [len(rows.outputs)] + [len(v) for v in rows.scores.values()]
            if any(k != n for k in lengths):
                raise DataError(f"Part '{self.split}', model '{name}': {n} examples but rows of lengths {lengths}.")


@dataclass(frozen=True)
class ImportResult:
    """Where an import went: the store, the run, and whether it was already there."""

    store_path: Path
    run_id: str
    out: Path
    already_imported: bool
    n_rows: int
    notes: tuple[str, ...] = ()


def file_digest(path: Path) -> str:
    """SHA-1 digest (hex) of a file's content: the identity of an imported file (not a security check)."""
    digest = hashlib.sha1(usedforsecurity=False)
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _finished_run(store: Store, name: str, config: Mapping[str, Any]) -> str | None:
    text = json.dumps(config, sort_keys=True, default=str)
    found = store.sql("SELECT run_id FROM runs WHERE name = ? AND config = ? AND status = 'done' "
                      "ORDER BY created_at DESC, run_id DESC LIMIT 1", [name, text])
    return None if found.empty else str(found["run_id"].iloc[0])


def find_import(out: str | Path, name: str, source: Mapping[str, Any]) -> str | None:
    """The finished run of ``out``'s store that imported exactly ``source`` (the same files), or None.

    Checked before the files are parsed, so importing the same files again costs only their digests.
    """
    store_path = Path(out) / STORE_NAME
    if not store_path.is_file():
        return None
    with Store(store_path, read_only=True) as store:
        found = store.sql("SELECT run_id, config FROM runs WHERE name = ? AND status = 'done' "
                          "ORDER BY created_at DESC, run_id DESC", [name])
    for row in found.itertuples():
        if json.loads(row.config).get("import") == json.loads(json.dumps(source, default=str)):
            return str(row.run_id)
    return None


def write_import(out: str | Path, name: str, config: Mapping[str, Any], parts: Sequence[ImportedPart],
                 *, notes: Sequence[str] = ()) -> ImportResult:
    """Store ``parts`` as one run named ``name`` in ``out/gengap.duckdb``; nothing is written twice.

    ``config`` describes the source (its files' digests included): the same config means the same
    import, which is found and reused.
    """
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    store_path = out_dir / STORE_NAME
    n_rows = sum(len(rows.outputs) for p in parts for rows in p.models.values())
    with Store(store_path) as store:
        existing = _finished_run(store, name, config)
        if existing is not None:
            return ImportResult(store_path, existing, out_dir, True, n_rows, tuple(notes))
        run_id = store.find_resumable(name, config) or store.start_run(name, config)
        done = store.finished_shards(run_id)
        try:
            for part in parts:
                store.add_examples(run_id, part.split, part.method, part.info, example_ids=part.example_ids,
                                   inputs=part.inputs, targets=part.targets, metadata=part.metadata)
                for model, rows in part.models.items():
                    ids = part.example_ids if rows.example_ids is None else rows.example_ids
                    for sample, take in _by_sample(rows.samples):
                        shard = f"{model}/{part.split}/none/0" if rows.samples is None else f"{model}/{part.split}/none@{sample}/0"
                        if shard in done:
                            continue
                        store.add_predictions(run_id, model=model, split=part.split, example_ids=_take(ids, take),
                                              outputs=_take(rows.outputs, take),
                                              scores={m: _take(v, take) for m, v in rows.scores.items()},
                                              extracted=_take(rows.extracted, take), shard=shard,
                                              prompts=_take(rows.prompts, take), details=_take(rows.details, take),
                                              confidence=_take(rows.confidence, take),
                                              probabilities=_take(rows.probabilities, take), sample=sample)
        except BaseException:
            store.finish_run(run_id, "failed")
            raise
        store.finish_run(run_id, "done")
    return ImportResult(store_path, run_id, out_dir, False, n_rows, tuple(notes))


def _by_sample(samples: np.ndarray | None) -> list[tuple[int, np.ndarray | None]]:
    """(sample, the rows that are that sample) in order; one (0, None: every row) without samples."""
    if samples is None:
        return [(0, None)]
    return [(int(j), np.flatnonzero(samples == j)) for j in np.unique(samples)]


def _take(values: Any, take: np.ndarray | None) -> Any:
    """The rows ``take`` of an Arrow array, numpy array or list (all of them with None; None stays None)."""
    if values is None or take is None:
        return values
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        return values.take(pa.array(take))
    if isinstance(values, np.ndarray):
        return values[take]
    return [values[i] for i in take]


def add_corpus_metrics(parts: Sequence[ImportedPart], corpus_metrics: Sequence[str], *,
                       correct_from: Sequence[str] = ()) -> list[str]:
    """Add rows for each corpus metric (``auroc``, ``ece``, ...) to every model of ``parts``; returns their names.

    A corpus metric's rows carry whether each output is right: the first score of ``correct_from``
    a model has (else its first score). The figure itself comes from the rows' targets, outputs and
    confidences when the report is written.
    """
    from gengap._errors import ConfigError
    from gengap.metrics import get_metric, is_corpus_metric

    for name in corpus_metrics:
        get_metric(name)
        if not is_corpus_metric(name):
            raise ConfigError(f"--corpus-metric {name}: '{name}' is a per-example metric; name a corpus metric such as "
                              "auroc, macro_f1, ece, brier, aurc or selective_accuracy.")
    for part in parts:
        for model, rows in part.models.items():
            source = next((c for c in correct_from if c in rows.scores), next(iter(rows.scores), None))
            if source is None:
                raise ConfigError(f"{part.split}, model '{model}': no score to tell right from wrong for "
                                  f"{', '.join(corpus_metrics)}.")
            right = rows.scores[source]
            for name in corpus_metrics:
                rows.scores[name] = np.asarray(right, dtype=np.float64)
    return list(corpus_metrics)
