"""Read inspect_ai evaluation logs (``.eval`` zip archives and ``.json`` files) into parts of a gengap run.

An inspect_ai log holds one task run by one model: the ``eval`` header (task, model, dataset) and one
sample per dataset example and epoch, with its ``input``, ``target``, the chat ``messages``, the
model's ``output``, the ``scores`` of every scorer, ``metadata`` and token usage. ``.eval`` files are
zip archives with ``header.json`` and ``samples/<id>_epoch_<n>.json`` (zstd- or deflate-compressed);
``.json`` files hold the same log in one document.

What goes where in the store (one split per task):

=======================  ===============================================================
inspect_ai               gengap
=======================  ===============================================================
eval.task                split (method ``inspect task``)
eval.model               model
sample id                example_id (every epoch of a sample: the same example)
epoch                    sample (epoch - 1: 0, 1, ...), with several epochs: the epochs of an
                         example are its k samples (pass@k, maj@k, intervals clustered by example)
input                    input (a chat input: its messages' text, one per line)
messages before output   prompt (chat messages as JSON)
target                   target (several targets: joined by `` | ``)
output.completion        output
first scorer's answer    extracted (what the scorer read from the output), when it gives one
scores                   one metric per scorer (``C`` 1, ``I`` 0, ``P`` 0.5, ``N`` 0,
                         true/false, numbers; a dict value gives ``<scorer>/<key>`` metrics)
metadata                 metadata
usage, working time      prompt_tokens, completion_tokens, latency_s (and ``epoch``, with several)
=======================  ===============================================================

A sample that ended in an error has no output to score; it is left out and counted in a note. With
several epochs, an example scored in fewer epochs than the others is left out too (pass@k and maj@k
need each example's k answers), and a note names it.

>>> _score_value("C"), _score_value("I"), _score_value(True), _score_value("0.25")
(1.0, 0.0, 1.0, 0.25)
>>> _epoch(Path("log.json"), "sample 1", {"id": "q0", "epoch": 3})
3
"""

from __future__ import annotations

import json
import struct
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from gengap._errors import ConfigError, DataError
from gengap.imports._parts import ImportedPart, ImportResult, ModelRows, file_digest, find_import, write_import

__all__ = ["import_inspect", "read_inspect", "SCORE_LETTERS"]

#: inspect_ai's letter scores as numbers (correct, incorrect, partially correct, no answer).
SCORE_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
_ZSTD = 93  # the zip compression method number of Zstandard


def _score_value(value: Any) -> float | None:
    """A score's value as a number, or None when it is not one."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        if value in SCORE_LETTERS:
            return SCORE_LETTERS[value]
        low = value.strip().lower()
        if low in ("true", "yes", "correct"):
            return 1.0
        if low in ("false", "no", "incorrect"):
            return 0.0
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _zstd_decompress(data: bytes) -> bytes:
    try:
        from compression import zstd  # Python 3.14

        return bytes(zstd.decompress(data))
    except ImportError:
        pass
    try:
        import zstandard
    except ImportError:
        raise ConfigError("This .eval log is compressed with Zstandard (inspect_ai's default); reading it needs the "
                          "zstandard package: pip install 'gengap[inspect]' (or pip install zstandard).") from None
    with zstandard.ZstdDecompressor().stream_reader(data) as reader:
        return reader.read()


def _member(archive: zipfile.ZipFile, raw: Any, info: zipfile.ZipInfo) -> bytes:
    """One member's bytes, zstd included (which Python's zipfile reads only from 3.14)."""
    if info.compress_type != _ZSTD:
        return archive.read(info)
    raw.seek(info.header_offset)
    header = raw.read(30)
    name_len, extra_len = struct.unpack("<HH", header[26:30])
    raw.seek(info.header_offset + 30 + name_len + extra_len)
    return _zstd_decompress(raw.read(info.compress_size))


def _json(path: Path, what: str, data: bytes) -> Any:
    try:
        return json.loads(data)
    except ValueError as e:
        raise DataError(f"{path}: {what} is not valid JSON ({e}). The log may be cut off; write it again with inspect_ai.") from None


def _read_log(path: Path) -> tuple[dict[str, Any], Iterator[tuple[str, dict[str, Any]]]]:
    """The log's header (``eval``, ``status``, ...) and its samples as (where, sample) pairs."""
    if path.suffix == ".json":
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as e:
            raise DataError(f"{path}: not a readable inspect_ai log ({e}). Give .eval or .json logs that inspect_ai wrote.") from None
        if not isinstance(doc, dict) or "eval" not in doc:
            raise DataError(f"{path}: not an inspect_ai log (no 'eval' header). Give .eval or .json logs that inspect_ai wrote.")
        listed = doc.get("samples") or []
        return doc, ((f"sample {i + 1}", s) for i, s in enumerate(listed))
    if path.suffix != ".eval":
        raise DataError(f"{path}: not an inspect_ai log file; give .eval or .json logs (inspect_ai's log_dir, e.g. logs/*.eval).")
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile as e:
        raise DataError(f"{path}: not a readable .eval log ({e}): an .eval log is a zip archive that inspect_ai writes.") from None
    names = {i.filename: i for i in archive.infolist()}
    head_name = "header.json" if "header.json" in names else "_journal/start.json" if "_journal/start.json" in names else None
    if head_name is None:
        archive.close()
        raise DataError(f"{path}: no header.json in this .eval archive; it is not an inspect_ai log or was cut off.")
    raw = open(path, "rb")
    header = _json(path, head_name, _member(archive, raw, names[head_name]))
    if "eval" not in header:
        raw.close()
        archive.close()
        raise DataError(f"{path}: {head_name} has no 'eval' header; it is not an inspect_ai log.")
    members = sorted((n for n in names if n.startswith("samples/") and n.endswith(".json")), key=_sample_order)

    def samples() -> Iterator[tuple[str, dict[str, Any]]]:
        try:
            for name in members:
                yield name, _json(path, name, _member(archive, raw, names[name]))
        finally:
            raw.close()
            archive.close()

    return header, samples()


def _sample_order(name: str) -> tuple[int, str]:
    stem = name[len("samples/"):-len(".json")]
    sid, _, epoch = stem.rpartition("_epoch_")
    return (int(epoch) if epoch.isdigit() else 0, sid)


def _text(content: Any) -> str:
    """A message's content (text, or a list of content parts) as text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_text(c.get("text", c.get("reasoning", "")) if isinstance(c, dict) else c) for c in content)
    return "" if content is None else json.dumps(content, ensure_ascii=False)


def _input_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(_text(m.get("content")) if isinstance(m, dict) else str(m) for m in value)
    return json.dumps(value, ensure_ascii=False)


def _target_text(value: Any) -> str:
    if isinstance(value, list):
        return " | ".join(str(v) for v in value)
    return "" if value is None else str(value)


def _output_text(sample: dict[str, Any]) -> str:
    out = sample.get("output") or {}
    if isinstance(out, dict) and isinstance(out.get("completion"), str):
        return out["completion"]
    choices = out.get("choices") if isinstance(out, dict) else None
    if choices and isinstance(choices[0], dict):
        return _text((choices[0].get("message") or {}).get("content"))
    return ""


def _prompt(sample: dict[str, Any]) -> str | None:
    messages = sample.get("messages")
    if not isinstance(messages, list) or not messages:
        return None
    shown = []
    for m in messages:
        if not isinstance(m, dict):
            continue
        if m.get("role") == "assistant" and m.get("source") == "generate":
            break
        shown.append({"role": m.get("role"), "content": _text(m.get("content"))})
    return json.dumps(shown, ensure_ascii=False) if shown else None


def _details(sample: dict[str, Any]) -> dict[str, Any] | None:
    usage = ((sample.get("output") or {}).get("usage")) if isinstance(sample.get("output"), dict) else None
    latency = sample.get("working_time", sample.get("total_time"))
    if not usage and latency is None:
        return None
    usage = usage or {}
    return {"prompt_tokens": usage.get("input_tokens"), "completion_tokens": usage.get("output_tokens"),
            "latency_s": latency}


def _epoch(path: Path, where: str, sample: dict[str, Any]) -> int:
    """The sample's epoch (1, 2, ...; 1 when the log does not say), or an error naming the file and sample."""
    value = sample.get("epoch", 1)
    if value is None:
        return 1
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise DataError(f"{path}, {where} (id {sample.get('id')!r}): epoch is {value!r}, not a whole number 1 or more. "
                        "inspect_ai numbers the epochs of a sample 1, 2, ...; fix that field or write the log again "
                        "with inspect_ai.")
    return value


def _scores(path: Path, where: str, sample: dict[str, Any]) -> tuple[dict[str, float], Any]:
    """Metric -> value of one sample, and the first scorer's answer (None when it gives none)."""
    scores = sample.get("scores")
    if not isinstance(scores, dict) or not scores:
        return {}, None
    out: dict[str, float] = {}
    answer = None
    for k, (scorer, score) in enumerate(scores.items()):
        if not isinstance(score, dict) or "value" not in score:
            raise DataError(f"{path}, {where} (id {sample.get('id')!r}): score '{scorer}' has no 'value'. "
                            "The log is not in inspect_ai's format; write it again with inspect_ai.")
        value = score["value"]
        if k == 0:
            answer = score.get("answer")
        items = value.items() if isinstance(value, dict) else [(None, value)]
        for key, v in items:
            number = _score_value(v)
            metric = scorer if key is None else f"{scorer}/{key}"
            if number is None:
                raise DataError(f"{path}, {where} (id {sample.get('id')!r}): score '{metric}' is {v!r}, not a number, "
                                "true/false or one of C, I, P, N. Fix or drop that sample, or score it again with inspect_ai.")
            out[metric] = number
    return out, answer


def read_inspect(logs: Sequence[str | Path]) -> tuple[list[ImportedPart], dict[str, Any], list[str]]:
    """Read inspect_ai logs (files, or folders searched for ``*.eval`` and ``*.json``) into parts (one per task)."""
    paths = _log_paths(logs)
    by_task: dict[str, dict[str, Any]] = {}
    notes: list[str] = []
    for path in paths:
        header, samples = _read_log(path)
        ev = header["eval"]
        task = str(ev.get("task_display_name") or ev.get("task") or path.stem)
        model = str(ev.get("model") or "model")
        epochs = int(((header.get("eval") or {}).get("config") or {}).get("epochs") or 1)
        status = header.get("status")
        if status not in (None, "success"):
            notes.append(f"{path.name}: the log's status is '{status}'; its finished samples are imported.")
        part = by_task.setdefault(task, {"examples": {}, "models": {}, "files": []})
        part["files"].append(str(path))
        if model in part["models"]:
            raise DataError(f"{path}: model '{model}' on task '{task}' appears in two logs ({part['models'][model]['file']} "
                            "and this one). Import one log per model and task, or the logs of separate runs into separate --out folders.")
        rows: dict[str, Any] = {"file": path.name, "ids": [], "epochs": [], "outputs": [], "answers": [], "scores": [],
                                "prompts": [], "details": []}
        errored = 0
        seen: dict[tuple[str, int], str] = {}
        for where, sample in samples:
            if not isinstance(sample, dict) or "id" not in sample:
                raise DataError(f"{path}, {where}: a sample without an 'id'. The log is not in inspect_ai's format.")
            epoch = _epoch(path, where, sample)
            sid = str(sample["id"])
            if (sid, epoch) in seen:
                raise DataError(f"{path}, {where}: sample {sid!r} epoch {epoch} appears twice (also {seen[sid, epoch]}). "
                                "Each sample has one result per epoch; write the log again with inspect_ai.")
            seen[sid, epoch] = where
            if sample.get("error"):
                errored += 1
                continue
            values, answer = _scores(path, where, sample)
            if not values:
                errored += 1
                continue
            if sid not in part["examples"]:
                meta = sample.get("metadata") or {}
                part["examples"][sid] = (_input_text(sample.get("input")), _target_text(sample.get("target")),
                                         json.dumps(meta, ensure_ascii=False, default=str) if meta else None)
            rows["ids"].append(sid)
            rows["epochs"].append(epoch)
            rows["outputs"].append(_output_text(sample))
            rows["answers"].append(None if answer is None else str(answer))
            rows["scores"].append(values)
            rows["prompts"].append(_prompt(sample))
            rows["details"].append(_details(sample))
        if errored:
            notes.append(f"{path.name}: {errored} sample(s) ended in an error or have no score; they are left out.")
        if not rows["ids"]:
            raise DataError(f"{path}: no scored sample in this log. Score it with inspect_ai (inspect score {path.name}) first.")
        rows["several"] = epochs > 1 or max(rows["epochs"]) > 1
        if rows["several"]:
            _whole_examples(rows, notes)
        part["models"][model] = rows
    parts = []
    for task, part in by_task.items():
        ids = list(part["examples"])
        inputs, targets, metas = zip(*part["examples"].values())
        models = {}
        for model, rows in part["models"].items():
            metrics = list(dict.fromkeys(m for s in rows["scores"] for m in s))
            scores: dict[str, np.ndarray] = {m: np.array([s.get(m, np.nan) for s in rows["scores"]], dtype=np.float64) for m in metrics}
            for m, column in scores.items():
                if np.isnan(column).any():
                    k = int(np.flatnonzero(np.isnan(column))[0])
                    raise DataError(f"{rows['file']}: sample {rows['ids'][k]!r} has no '{m}' score while others do; "
                                    "score every sample with the same scorers.")
            has_answers = any(a is not None for a in rows["answers"])
            models[model] = ModelRows(
                outputs=pa.array(rows["outputs"], type=pa.string()), scores=scores,
                extracted=pa.array(rows["answers"], type=pa.string()) if has_answers else None,
                example_ids=pa.array(rows["ids"], type=pa.string()), prompts=rows["prompts"], details=rows["details"],
                samples=np.array(rows["epochs"], dtype=np.int64) - 1 if rows["several"] else None)
        info = {"method": "inspect task", "n_test": len(ids), "files": part["files"]}
        parts.append(ImportedPart(split=task, method="inspect task", info=info, example_ids=pa.array(ids, type=pa.string()),
                                  inputs=pa.array(inputs, type=pa.string()), targets=pa.array(targets, type=pa.string()),
                                  metadata=pa.array(metas, type=pa.string()), models=models))
    return parts, _source(paths), notes


def _whole_examples(rows: dict[str, Any], notes: list[str]) -> None:
    """Keep, of one log's rows, the examples scored in as many epochs as the most (their k samples; pass@k
    and maj@k need every answer of an example), with a note naming those left out; give each row its epoch."""
    counts: dict[str, int] = {}
    for sid in rows["ids"]:
        counts[sid] = counts.get(sid, 0) + 1
    k = max(counts.values())
    short = [sid for sid, n in counts.items() if n < k]
    if short:
        keep = [i for i, sid in enumerate(rows["ids"]) if counts[sid] == k]
        for key in ("ids", "epochs", "outputs", "answers", "scores", "prompts", "details"):
            rows[key] = [rows[key][i] for i in keep]
        notes.append(f"{rows['file']}: {len(short)} sample(s) were scored in fewer than {k} epochs (the others ended in "
                     f"an error; first: {short[0]!r}, {counts[short[0]]} of {k}); they are left out, so that pass@k and "
                     "maj@k read every example's k answers.")
    rows["details"] = [{**(d or {}), "epoch": e} for d, e in zip(rows["details"], rows["epochs"])]


def _log_paths(logs: Sequence[str | Path]) -> list[Path]:
    if not logs:
        raise ConfigError("No log given; name inspect_ai .eval or .json logs, or the folder that holds them (its log_dir).")
    paths: list[Path] = []
    for item in logs:
        p = Path(item)
        if p.is_dir():
            found = sorted([*p.rglob("*.eval"), *(q for q in p.rglob("*.json") if not q.name.startswith("."))])
            if not found:
                raise DataError(f"'{p}' holds no .eval or .json log. Give inspect_ai's log_dir or the log files.")
            paths += found
        elif p.is_file():
            paths.append(p)
        else:
            raise DataError(f"'{p}' does not exist. Give inspect_ai .eval or .json logs, or their folder.")
    return paths


def _source(paths: Sequence[Path]) -> dict[str, Any]:
    # "epochs": how epochs are stored; a store that imported the same logs as id#epoch rows imports them again
    return {"kind": "inspect", "files": {str(p): file_digest(p) for p in paths}, "epochs": "samples"}


def import_inspect(logs: Sequence[str | Path], out: str | Path, *, name: str = "inspect import") -> ImportResult:
    """Read inspect_ai logs into a results store in ``out`` (idempotent: the same logs again write nothing)."""
    from gengap.store import STORE_NAME

    paths = _log_paths(logs)
    source = _source(paths)
    done = find_import(out, name, source)
    if done is not None:
        return ImportResult(Path(out) / STORE_NAME, done, Path(out), True, 0)
    parts, source, notes = read_inspect(paths)
    metrics = list(dict.fromkeys(m for p in parts for rows in p.models.values() for m in rows.scores))
    config = {
        "import": source,
        "dataset": {"name": ", ".join(p.split for p in parts)[:80], "n": sum(len(p.example_ids) for p in parts)},
        "models": sorted({m for p in parts for m in p.models}),
        "splits": [{"name": p.split, "method": p.method, "n_test": len(p.example_ids)} for p in parts],
        "metrics": metrics,
    }
    return write_import(out, name, config, parts, notes=notes)
