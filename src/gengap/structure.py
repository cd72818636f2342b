"""What splitters need to know about an example: its atoms and its length.

An *atom* is a smallest meaningful part of an input (a word, a primitive, an attribute value).
Diagnostics of every split report the test atoms never seen in training.

>>> words("jump twice after walk")
['jump', 'twice', 'after', 'walk']
>>> length("I_JUMP I_JUMP")
2
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["words", "length", "atom_set", "AtomFn"]

AtomFn = Callable[[Any], list[str]]


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return " ".join(str(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value)
    return str(value)


def words(value: Any) -> list[str]:
    """Whitespace tokens of a text (dict and list inputs are joined first)."""
    return _text(value).split()


def length(value: Any) -> int:
    """Number of whitespace tokens: the length SCAN's length split uses for action sequences."""
    if isinstance(value, (list, tuple)):
        return len(value)
    return len(_text(value).split())


def atom_set(values: Iterable[Any], atoms: AtomFn = words) -> set[str]:
    """The set of atoms over many examples."""
    out: set[str] = set()
    for value in values:
        out.update(atoms(value))
    return out
