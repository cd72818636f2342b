"""Text columns built from flat byte buffers, so generators write a million strings without a Python loop.

A :class:`Text` is a batch of ASCII strings held as one flat uint8 buffer and a length per row
(the layout of an Arrow string array). Pieces are concatenated, spaced and selected with numpy
index arithmetic, and :meth:`Text.column` hands pandas an Arrow string array built from the bytes
directly: no Python string exists until one is read.

>>> t = Text.cat(Text.number([12, 7]).spaced(), " + ", Text.number([5, 30]).spaced())
>>> t.column().tolist()
['1 2 + 5', '7 + 3 0']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

__all__ = ["Text"]

_POW10 = 10 ** np.arange(19, dtype=np.int64)


def _starts(lengths: np.ndarray) -> np.ndarray:
    out = np.zeros(len(lengths), dtype=np.int64)
    np.cumsum(lengths[:-1], out=out[1:])
    return out


def _within(lengths: np.ndarray) -> np.ndarray:
    """For every byte, its position inside its row: [0..l0-1, 0..l1-1, ...]."""
    total = int(lengths.sum())
    return np.arange(total, dtype=np.int64) - np.repeat(_starts(lengths), lengths)


@dataclass(frozen=True)
class Text:
    """Row ``i`` is ``data[starts[i] : starts[i] + lengths[i]]`` (rows are stored back to back)."""

    data: np.ndarray
    lengths: np.ndarray

    def __len__(self) -> int:
        return len(self.lengths)

    @classmethod
    def symbols(cls, codes: np.ndarray, lengths: np.ndarray | None = None) -> Text:
        """Rows of a byte matrix ``(n, width)``, each cut to its length (the full width when None)."""
        codes = np.asarray(codes, dtype=np.uint8)
        n, width = codes.shape
        if lengths is None:
            return cls(np.ascontiguousarray(codes).reshape(-1), np.full(n, width, dtype=np.int64))
        lengths = np.asarray(lengths, dtype=np.int64)
        return cls(codes[np.arange(width)[None, :] < lengths[:, None]], lengths)

    @classmethod
    def const(cls, text: str, n: int) -> Text:
        """The same string ``n`` times."""
        row = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
        return cls(np.tile(row, n), np.full(n, len(row), dtype=np.int64))

    @classmethod
    def number(cls, values: Sequence[int] | np.ndarray) -> Text:
        """Non-negative integers (below 10**19) in decimal, without leading zeros."""
        x = np.asarray(values, dtype=np.int64)
        digits = np.ones(len(x), dtype=np.int64)
        for k in range(1, 19):
            digits += x >= _POW10[k]
        j = _within(digits)
        power = _POW10[np.repeat(digits, digits) - 1 - j]
        return cls((48 + np.repeat(x, digits) // power % 10).astype(np.uint8), digits)

    @classmethod
    def cat(cls, *parts: Text | str) -> Text:
        """Concatenate pieces row by row (a ``str`` piece is the same for every row)."""
        n = next(len(p) for p in parts if isinstance(p, Text))
        pieces = [Text.const(p, n) if isinstance(p, str) else p for p in parts]
        lengths = np.sum([p.lengths for p in pieces], axis=0)
        out = np.empty(int(lengths.sum()), dtype=np.uint8)
        dest_start = _starts(lengths)
        for p in pieces:
            shift = np.repeat(dest_start - _starts(p.lengths), p.lengths)
            out[shift + np.arange(len(p.data))] = p.data
            dest_start = dest_start + p.lengths
        return cls(out, lengths)

    def spaced(self) -> Text:
        """A space between consecutive symbols: ``"123"`` -> ``"1 2 3"``."""
        lengths = np.maximum(2 * self.lengths - 1, 0)
        out = np.full(int(lengths.sum()), 32, dtype=np.uint8)
        out[np.repeat(_starts(lengths), self.lengths) + 2 * _within(self.lengths)] = self.data
        return Text(out, lengths)

    def reversed(self) -> Text:
        """Each row's symbols in reverse order."""
        source = np.repeat(_starts(self.lengths) + self.lengths - 1, self.lengths) - _within(self.lengths)
        return Text(self.data[source], self.lengths)

    def take(self, rows: np.ndarray) -> Text:
        """The rows at ``rows``, in that order."""
        rows = np.asarray(rows, dtype=np.int64)
        lengths = self.lengths[rows]
        source = np.repeat(_starts(self.lengths)[rows], lengths) + _within(lengths)
        return Text(self.data[source], lengths)

    @classmethod
    def scatter(cls, n: int, parts: Sequence[tuple[np.ndarray, Text]]) -> Text:
        """Assemble ``n`` rows from pieces: ``(rows, text)`` puts ``text``'s rows at positions ``rows``."""
        order = np.concatenate([np.asarray(r, dtype=np.int64) for r, _ in parts])
        if len(order) != n or not np.all(np.bincount(order, minlength=n) == 1):
            raise ValueError("scatter needs every row exactly once")
        stacked = Text(np.concatenate([t.data for _, t in parts]), np.concatenate([t.lengths for _, t in parts]))
        inverse = np.empty(n, dtype=np.int64)
        inverse[order] = np.arange(n)
        return stacked.take(inverse)

    def where(self, mask: np.ndarray, other: Text) -> Text:
        """Rows of ``other`` where ``mask`` is true, else these rows."""
        n = len(self)
        both = Text(np.concatenate([self.data, other.data]), np.concatenate([self.lengths, other.lengths]))
        return both.take(np.where(np.asarray(mask, dtype=bool), n + np.arange(n), np.arange(n)))

    def column(self) -> pd.Series:
        """The strings as a pandas string column backed by one Arrow buffer."""
        offsets = np.zeros(len(self) + 1, dtype=np.int64)
        np.cumsum(self.lengths, out=offsets[1:])
        array = pa.LargeStringArray.from_buffers(len(self), pa.py_buffer(offsets), pa.py_buffer(self.data)).cast(pa.string())
        return pd.Series(array, dtype=pd.StringDtype("pyarrow", na_value=np.nan))
