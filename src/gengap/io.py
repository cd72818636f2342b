"""Loading datasets from files and tables, and writing them back.

Formats: JSONL (``.jsonl``, ``.ndjson``), JSON arrays (``.json``), CSV/TSV, Parquet, a pandas
DataFrame, a list of dicts, and a Hugging Face dataset (in memory or saved with
``save_to_disk``). Errors name the file and the line or column at fault.

>>> import pandas as pd, gengap
>>> ds = gengap.load(pd.DataFrame({"question": ["2+2"], "answer": ["4"]}), input="question", target="answer")
>>> ds.targets
['4']
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from gengap._errors import DataError, MissingDependency
from gengap.dataset import Dataset

__all__ = ["load", "read_jsonl", "write_jsonl", "to_jsonable"]

PathLike = str | os.PathLike


def load(
    source: Any,
    *,
    input: str | Sequence[str] = "input",
    target: str | None = "target",
    id: str | None = None,
    metadata: Sequence[str] | None = None,
    name: str | None = None,
    format: str | None = None,
) -> Dataset:
    """Load a dataset from a path, a DataFrame, records or a Hugging Face dataset, mapping roles by name.

    Parameters
    ----------
    source : path (JSONL, JSON, CSV, TSV, Parquet, or a directory written by
        ``datasets.Dataset.save_to_disk``), a pandas DataFrame, a list of dicts, or a
        ``datasets.Dataset``.
    input, target, id : the column that plays each role. ``id`` defaults to row numbers.
    metadata : columns to keep as metadata (default: every other column).
    name : the dataset's name in reports (default: the file stem).
    format : force a format (``jsonl``, ``json``, ``csv``, ``tsv``, ``parquet``, ``hf``).

    >>> import gengap
    >>> gengap.load([{"input": "a", "target": "b", "domain": "x"}]).metadata_columns
    ['domain']
    """
    roles = dict(input=input, target=target, id=id, metadata=metadata)
    if isinstance(source, Dataset):
        return source
    if isinstance(source, pd.DataFrame):
        return Dataset.from_frame(source, name=name or "dataframe", **roles)
    if isinstance(source, list):
        return Dataset.from_frame(pd.DataFrame.from_records(source), name=name or "records", **roles)
    if type(source).__module__.startswith("datasets"):
        return Dataset.from_frame(source.to_pandas(), name=name or "hf-dataset", **roles)
    if not isinstance(source, (str, os.PathLike)):
        raise DataError(
            f"Cannot load a {type(source).__name__}: pass a file path, a pandas DataFrame, "
            "a list of dicts or a Hugging Face dataset."
        )
    path = Path(source)
    if not path.exists():
        raise DataError(f"Data file '{path}' does not exist. Check the path (relative paths start at {Path.cwd()}).")
    fmt = (format or _guess_format(path)).lower()
    frame = read_table(path, fmt)
    return Dataset.from_frame(frame, name=name or path.stem, source=str(path), **roles)


def _guess_format(path: Path) -> str:
    if path.is_dir():
        if (path / "split.json").exists():
            raise DataError(
                f"'{path}' is a split folder written by 'gengap split'; pass it with --split {path} "
                "(or gengap.load_split) rather than as the data."
            )
        return "hf"
    suffixes = [s.lower() for s in path.suffixes]
    for suffix, fmt in ((".jsonl", "jsonl"), (".ndjson", "jsonl"), (".json", "json"), (".csv", "csv"),
                        (".tsv", "tsv"), (".parquet", "parquet"), (".pq", "parquet")):
        if suffix in suffixes:
            return fmt
    raise DataError(
        f"Cannot tell the format of '{path}' from its name. Use a .jsonl, .json, .csv, .tsv or .parquet "
        "file, a Hugging Face dataset folder, or pass --format."
    )


def read_table(path: Path, fmt: str) -> pd.DataFrame:
    """Read one file into a DataFrame with errors that name the file and line."""
    if fmt == "jsonl":
        return pd.DataFrame.from_records(read_jsonl(path))
    if fmt == "json":
        text = _read_text(path)
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise DataError(f"'{path}' line {e.lineno}, column {e.colno}: invalid JSON ({e.msg}).") from None
        if isinstance(data, dict):
            data = next((v for v in data.values() if isinstance(v, list)), None)
        if not isinstance(data, list):
            raise DataError(f"'{path}' must hold a JSON array of objects (or JSONL, one object per line).")
        return pd.DataFrame.from_records(data)
    if fmt in ("csv", "tsv"):
        _read_text(path)  # checks the encoding with a line number
        try:
            return pd.read_csv(path, sep="\t" if fmt == "tsv" else ",", dtype=str, keep_default_na=False,
                               na_values=[""], encoding="utf-8")
        except pd.errors.ParserError as e:
            raise DataError(f"'{path}' is not valid {fmt.upper()}: {e}") from None
        except pd.errors.EmptyDataError:
            raise DataError(f"'{path}' is empty.") from None
    if fmt == "parquet":
        try:
            return pd.read_parquet(path)
        except Exception as e:  # pyarrow raises several types for foreign files
            raise DataError(f"'{path}' could not be read as Parquet ({type(e).__name__}: {e}).") from None
    if fmt == "hf":
        try:
            import datasets
        except ImportError:
            raise MissingDependency("datasets", "hf", f"Loading the Hugging Face dataset folder '{path}'") from None
        try:
            ds = datasets.load_from_disk(str(path))
        except Exception as e:
            raise DataError(f"'{path}' is not a dataset saved with save_to_disk ({e}).") from None
        if isinstance(ds, datasets.DatasetDict):
            raise DataError(
                f"'{path}' holds several splits {list(ds)}; point at one of them, e.g. '{path}/{next(iter(ds))}'."
            )
        return ds.to_pandas()
    raise DataError(f"Unknown format '{fmt}'. Use one of: jsonl, json, csv, tsv, parquet, hf.")


def _read_text(path: Path) -> str:
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise DataError(
            f"'{path}' line {line}: bytes {raw[e.start:e.start + 4]!r} are not UTF-8. Re-save the file as "
            "UTF-8 (for example: iconv -f latin1 -t utf-8 in > out)."
        ) from None


def read_jsonl(path: PathLike) -> list[dict[str, Any]]:
    """Read a JSONL file; a malformed line raises DataError naming the line and column."""
    path = Path(path)
    text = _read_text(path)
    records: list[dict[str, Any]] = []
    loads = json.loads
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = loads(line)
        except json.JSONDecodeError as e:
            raise DataError(
                f"'{path}' line {lineno}, column {e.colno}: invalid JSON ({e.msg}). Each line must be one JSON object."
            ) from None
        if not isinstance(record, dict):
            raise DataError(f"'{path}' line {lineno}: expected a JSON object, got {type(record).__name__}.")
        records.append(record)
    if not records:
        raise DataError(f"'{path}' has no examples (no non-empty lines).")
    return records


def to_jsonable(value: Any) -> Any:
    """Turn numpy scalars, NaN and timestamps into plain JSON values (NaN becomes null)."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        return to_jsonable(value.item())
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) or hasattr(value, "tolist"):
        return [to_jsonable(v) for v in (value.tolist() if hasattr(value, "tolist") else value)]
    if isinstance(value, pd.Timestamp):
        return value.isoformat()
    return str(value)


def write_jsonl(records: Sequence[dict[str, Any]], path: PathLike) -> Path:
    """Write records as JSONL (sorted keys off, UTF-8, one object per line); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(to_jsonable(record), ensure_ascii=False))
            f.write("\n")
    os.replace(tmp, path)
    return path
