"""N-gram overlap of test texts with text corpora, streamed: the check decontamination studies run.

A test text overlaps a corpus when one of its runs of ``n`` consecutive words (of the normalized
text, :func:`gengap.analysis._copies.normalize`) occurs in the corpus; its ``similarity`` is the
share of its n-grams that do. A corpus is read line by line and never held in memory, so a
corpus larger than memory works: a plain text file (each line a document; n-grams do not cross
line breaks), JSONL (the ``text`` field of each line), either optionally gzip-compressed. Only
the test n-grams are held (as 64-bit hashes, sorted): the corpus side costs one chunk of lines.

>>> import tempfile, os
>>> from gengap.analysis._copies import normalize
>>> path = os.path.join(tempfile.mkdtemp(), "corpus.txt")
>>> _ = open(path, "w").write("nothing here\\nthe quick brown fox jumps over the lazy dog\\n")
>>> ngram_overlap([normalize("Quick brown fox, jumps!"), "no match at all"], [path], n=3).values.tolist()  # doctest: +ELLIPSIS
[[0, '.../corpus.txt:2', 1.0]]
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator, Sequence
from itertools import chain
from pathlib import Path
from typing import IO

import numpy as np
import pandas as pd

from gengap._errors import ConfigError, DataError

__all__ = ["ngram_overlap", "ngram_hashes", "read_corpus"]

_MIX = np.uint64(0x9E3779B97F4A7C15)


def ngram_hashes(normalized: Sequence[str], n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(hashes, text)``: the 64-bit hash of every run of ``n`` words of each normalized text, and which text it is of."""
    tokens = [t.split() for t in normalized]
    lengths = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
    flat = list(chain.from_iterable(tokens))
    if not flat:
        return np.empty(0, np.uint64), np.empty(0, np.int64)
    h = pd.util.hash_array(np.asarray(flat, dtype=object), categorize=True)
    ends = np.cumsum(lengths)
    doc = np.repeat(np.arange(len(tokens), dtype=np.int64), lengths)
    starts = np.flatnonzero(np.arange(len(h), dtype=np.int64) + n <= ends[doc])
    g = h[starts].copy()
    for j in range(1, n):
        g = g * _MIX + h[starts + j]
    return g, doc[starts]


def _open_text(path: Path) -> IO[str]:
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8", errors="strict", newline=None)
    return open(path, encoding="utf-8", errors="strict", newline=None)


def read_corpus(path: str | Path, *, field: str = "text") -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of each document of a corpus file, streamed (see the module docstring).

    A file that is not UTF-8 text (a NUL byte, undecodable bytes) or a JSONL line without ``field``
    is a DataError naming the file and the line.
    """
    p = Path(path)
    if not p.is_file():
        raise DataError(f"Corpus file '{p}' does not exist (or is not a file). Give a text or JSONL file.")
    jsonl = p.name.removesuffix(".gz").endswith((".jsonl", ".ndjson"))
    line_no = 0
    try:
        with _open_text(p) as f:
            for line_no, line in enumerate(f, start=1):
                if "\x00" in line:
                    raise DataError(f"Corpus file '{p}' is not text: line {line_no} holds a NUL byte. Give a UTF-8 text "
                                    "file (one document per line) or JSONL with a 'text' field, optionally .gz.")
                if not jsonl:
                    yield line_no, line
                    continue
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except ValueError as e:
                    raise DataError(f"Corpus file '{p}', line {line_no}: not a JSON object ({e}). A .jsonl corpus holds "
                                    f"one object with a '{field}' field per line.") from None
                text = record.get(field) if isinstance(record, dict) else None
                if not isinstance(text, str):
                    raise DataError(f"Corpus file '{p}', line {line_no}: no text field '{field}' "
                                    f"(keys: {sorted(record)[:10] if isinstance(record, dict) else type(record).__name__}).")
                yield line_no, text
    except UnicodeDecodeError as e:
        raise DataError(f"Corpus file '{p}' is not UTF-8 text (undecodable byte {e.object[e.start:e.start + 1]!r} "
                        f"in line {line_no + 1}). Give a UTF-8 text file (one document per line) or JSONL with a "
                        "'text' field, optionally .gz.") from None
    except (OSError, EOFError) as e:
        if isinstance(e, gzip.BadGzipFile):
            raise DataError(f"Corpus file '{p}' ends in .gz but is not gzip data ({e}).") from None
        raise


def ngram_overlap(normalized: Sequence[str], corpora: Sequence[str | Path], *, n: int = 13,
                  chunk_lines: int = 20_000) -> pd.DataFrame:
    """Each text with an n-gram found in a corpus: ``test`` (position), ``match_id`` (``FILE:LINE`` of the
    first corpus line holding one of its n-grams) and ``similarity`` (the share of its n-grams found).

    Texts of fewer than ``n`` words have no n-gram and are never flagged (see :func:`short_texts`).
    """
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
        raise ConfigError(f"ngram={n!r} must be a number of words >= 1 (13 is what decontamination studies use).")
    hashes, doc = ngram_hashes(normalized, n)
    unique, inverse = np.unique(hashes, return_inverse=True)
    seen_at = np.full(len(unique), -1, dtype=np.int64)  # the first (file, line) holding each n-gram, as one number
    files = [Path(c) for c in corpora]
    lines_per_file = 1 << 40
    for f_index, path in enumerate(files):
        batch: list[str] = []
        numbers: list[int] = []
        for line_no, text in read_corpus(path):
            batch.append(text)
            numbers.append(line_no)
            if len(batch) >= chunk_lines:
                _mark(batch, numbers, f_index * lines_per_file, unique, seen_at, n)
                batch, numbers = [], []
        if batch:
            _mark(batch, numbers, f_index * lines_per_file, unique, seen_at, n)
    hit = seen_at[inverse] >= 0
    found = np.bincount(doc[hit], minlength=len(normalized))
    total = np.bincount(doc, minlength=len(normalized))
    first = np.full(len(normalized), np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first, doc[hit], seen_at[inverse][hit])
    flagged = np.flatnonzero(found > 0)
    where = first[flagged]
    match_id = [f"{files[w // lines_per_file]}:{w % lines_per_file}" for w in where]
    return pd.DataFrame({"test": flagged.astype(np.int64), "match_id": match_id,
                         "similarity": np.round(found[flagged] / total[flagged], 6)})


def _mark(batch: list[str], numbers: list[int], base: int, unique: np.ndarray, seen_at: np.ndarray, n: int) -> None:
    from gengap.analysis._copies import normalize

    if not len(unique):
        return
    g, doc = ngram_hashes([normalize(t) for t in batch], n)
    if not len(g):
        return
    pos = np.searchsorted(unique, g)
    pos[pos == len(unique)] = 0
    match = unique[pos] == g
    if not match.any():
        return
    where = base + np.asarray(numbers, dtype=np.int64)[doc[match]]
    fresh = seen_at[pos[match]] < 0
    targets, values = pos[match][fresh], where[fresh]
    order = np.argsort(values, kind="stable")[::-1]  # the earliest line wins: assigned last
    seen_at[targets[order]] = values[order]
