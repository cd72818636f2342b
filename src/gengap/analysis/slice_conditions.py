"""A slice's conditions read back from its description, for ``results.json`` files that lack them.

Since results.json 1.8 each slice carries its ``conditions`` (``{"column", "op", "value"}`` objects,
ops ``==``, ``<``, ``>=``, ``is_missing``: docs/results-schema.md), written by the search with the
exact bin edges. An older file has only the slice's description (``topic = geometry and
12 <= input_length < 18``) and ``columns``; :func:`slice_conditions` reads the same conditions back
from them:

================================  ===========================================
description                       conditions (column, op, value)
================================  ===========================================
``topic = geometry``              ``topic == "geometry"``
``size < 20``                     ``size < 20.0``
``size >= 80``                    ``size >= 80.0``
``20 <= size < 40``               ``size >= 20.0``, ``size < 40.0``
``topic is missing``              ``topic is_missing None``
================================  ===========================================

A value after ``=`` stays the text the description shows (``"3"`` for a numeric column searched value
by value); bin edges are numbers. Descriptions print numbers to four significant digits, so a bin
edge of a column with finer values is the rounded edge: check the count of rows the conditions select
against the slice's ``n`` before trusting them (the viewer does).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from gengap._errors import DataError

__all__ = ["slice_conditions", "OPS"]

#: The comparisons a condition may make (those of results.json's ``slices[].conditions``).
OPS = ("==", "<", ">=", "is_missing")


def _edge(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def _cond(column: str, op: str, value: Any) -> dict[str, Any]:
    return {"column": column, "op": op, "value": value}


def _one(text: str, column: str) -> list[dict[str, Any]] | None:
    """The conditions of one part of a description on ``column``, or None when it is not one."""
    if text == f"{column} is missing":
        return [_cond(column, "is_missing", None)]
    if text.startswith(f"{column} = "):
        return [_cond(column, "==", text[len(column) + 3:])]
    for op in ("<", ">="):
        if text.startswith(f"{column} {op} "):
            value = _edge(text[len(column) + len(op) + 2:])
            return None if value is None else [_cond(column, op, value)]
    found = re.fullmatch(r"(\S+) <= " + re.escape(column) + r" < (\S+)", text)
    if found:
        low, high = _edge(found.group(1)), _edge(found.group(2))
        if low is not None and high is not None:
            return [_cond(column, ">=", low), _cond(column, "<", high)]
    return None


def slice_conditions(description: str, columns: Sequence[str]) -> list[dict[str, Any]]:
    """The conditions of a slice (``{"column", "op", "value"}``, as results.json's ``conditions``),
    from its ``description`` and ``columns`` (those of a ``slices`` record of results.json).

    >>> [tuple(c.values()) for c in slice_conditions("topic = geometry and 59 <= size < 80", ["topic", "size"])]
    [('topic', '==', 'geometry'), ('size', '>=', 59.0), ('size', '<', 80.0)]
    >>> [tuple(c.values()) for c in slice_conditions("note = fish and chips and input_length >= 12", ["note", "input_length"])]
    [('note', '==', 'fish and chips'), ('input_length', '>=', 12.0)]
    """
    parts = description.split(" and ")
    wanted = [str(c) for c in columns]

    def solve(start: int, left: list[str]) -> list[dict[str, Any]] | None:
        if start == len(parts):
            return [] if not left else None
        for end in range(start + 1, len(parts) + 1):
            text = " and ".join(parts[start:end])
            for column in left:
                found = _one(text, column)
                if found is not None:
                    rest = solve(end, [c for c in left if c != column])
                    if rest is not None:
                        return found + rest
        return None

    conditions = solve(0, wanted) if wanted else None
    if not conditions:
        raise DataError(f"Cannot read the conditions of the slice {description!r} on the column(s) "
                        f"{', '.join(wanted) or '(none given)'}: each part should read 'COLUMN = VALUE', "
                        "'COLUMN < X', 'COLUMN >= X', 'X <= COLUMN < Y' or 'COLUMN is missing'.")
    return conditions
