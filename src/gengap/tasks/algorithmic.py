"""Algorithmic tasks with length and difficulty controls: addition, multiplication, parity, copy,
reverse, sorting and Dyck-n.

Every generator is vectorized with numpy (a million examples in seconds), seeded, and writes
space-separated tokens so a whitespace tokenizer sees one digit or symbol per token
(``"1 2 + 3 4"`` -> ``"4 6"``); ``spaced=False`` writes ``"12+34"`` -> ``"46"`` instead.

>>> ds = addition(n=3, min_digits=2, max_digits=3, seed=0)
>>> [(x, y) for x, y in zip(ds.inputs, ds.targets)]
[('5 5 + 7 5 6', '8 1 1'), ('6 4 5 + 6 6', '7 1 1'), ('9 7 3 + 5 8', '1 0 3 1')]
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gengap._errors import ConfigError
from gengap.dataset import Dataset
from gengap.tasks._registry import Param, task
from gengap.tasks._text import Text

__all__ = ["addition", "multiplication", "parity", "copy", "reverse", "sorting", "dyck", "is_balanced", "BRACKETS"]

#: Bracket pairs of Dyck-n, in order (Dyck-2 uses the first two).
BRACKETS = ("()", "[]", "{}", "<>")


# ---------------------------------------------------------------------------- text helpers
def symbols_to_text(codes: np.ndarray, lengths: np.ndarray, *, spaced: bool = True) -> pd.Series:
    """Rows of single-character symbols (ASCII codes, shape (n, width)) to strings of their first ``lengths``.

    >>> symbols_to_text(np.array([[97, 98, 99], [100, 101, 102]], dtype=np.uint8), np.array([2, 3])).tolist()
    ['a b', 'd e f']
    """
    text = Text.symbols(codes, lengths)
    return (text.spaced() if spaced else text).column()


def _number(x: np.ndarray, spaced: bool) -> Text:
    text = Text.number(x)
    return text.spaced() if spaced else text


Column = Text | pd.Series | np.ndarray


def make_dataset(name: str, inputs: Column, targets: Column, metadata: dict[str, Any], *, seed: int) -> Dataset:
    """A Dataset with ids ``<name>-<seed>-<row>`` from numpy or Text columns (shared by the task modules)."""
    n = len(inputs)
    ids = Text.cat(f"{name}-{seed}-", Text.number(np.arange(n))).column()
    columns = {"id": ids, "input": inputs, "target": targets, **metadata}
    frame = pd.DataFrame({k: v.column() if isinstance(v, Text) else v for k, v in columns.items()})
    return Dataset(frame, name=name, source=f"gengap.tasks:{name}")


def _uniform_numbers(rng: np.random.Generator, digits: np.ndarray) -> np.ndarray:
    """One integer with exactly ``digits[i]`` decimal digits per row (0 counts as a 1-digit number)."""
    low = np.where(digits == 1, 0, 10 ** np.maximum(digits - 1, 0).astype(np.int64))
    high = (10 ** digits.astype(np.int64))
    return rng.integers(low, high, dtype=np.int64)


def n_decimal_digits(x: np.ndarray) -> np.ndarray:
    """Decimal digits of non-negative integers (0 has one)."""
    return Text.number(x).lengths


def _operands(rng: np.random.Generator, n: int, min_digits: int, max_digits: int) -> tuple[np.ndarray, ...]:
    """Two operands per row: the longer has ``n_digits`` ~ U[min, max] digits, the other U[min, n_digits]; order random."""
    nd = rng.integers(min_digits, max_digits + 1, size=n)
    other = rng.integers(min_digits, nd + 1)
    swap = rng.random(n) < 0.5
    da, db = np.where(swap, other, nd), np.where(swap, nd, other)
    return _uniform_numbers(rng, da), _uniform_numbers(rng, db), nd, da, db


def _count_carries(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    carries = np.zeros(len(a), dtype=np.int64)
    carry = np.zeros(len(a), dtype=np.int64)
    x, y = a.copy(), b.copy()
    while np.any((x > 0) | (y > 0) | (carry > 0)):
        s = x % 10 + y % 10 + carry
        carry = (s >= 10).astype(np.int64)
        carries += carry
        x //= 10
        y //= 10
    return carries


def _digits_check(p: dict[str, Any]) -> None:
    if p["min_digits"] > p["max_digits"]:
        raise ConfigError(f"min_digits={p['min_digits']} must be <= max_digits={p['max_digits']}.")


def _length_check(p: dict[str, Any]) -> None:
    if p["min_length"] > p["max_length"]:
        raise ConfigError(f"min_length={p['min_length']} must be <= max_length={p['max_length']}.")


def _half(key: str, column: str) -> Any:
    """A length split at the midpoint of ``[min_<key>, max_<key>]``, measured by ``column``."""
    return lambda p: f"length:by={column},max_train_length={(p[f'min_{key}'] + p[f'max_{key}']) // 2}"


_N = Param("n", int, 10_000, "number of examples", 1, 50_000_000)
_SPACED = Param("spaced", bool, True, "one token per digit or symbol (space-separated)")


# ---------------------------------------------------------------------------- arithmetic
@task("addition", "Multi-digit addition a + b; n_digits (longer operand) controls length.",
      [_N, Param("min_digits", int, 1, "fewest digits of the longer operand", 1, 18),
       Param("max_digits", int, 10, "most digits of an operand", 1, 18), _SPACED],
      splits={"iid": "random", "length": _half("digits", "n_digits")}, check=_digits_check)
def addition(*, n: int = 10_000, min_digits: int = 1, max_digits: int = 10, spaced: bool = True, seed: int = 0) -> Dataset:
    """``a + b`` with exact sums. Metadata: ``n_digits`` (of the longer operand), ``n_digits_a``,
    ``n_digits_b``, ``n_carries``, ``answer_length``. Natural splits: ``iid`` (random) and
    ``length`` (train on n_digits up to the midpoint: 1-5 for the default 1-10, test on 6-10).

    >>> addition(n=2, max_digits=2, spaced=False, seed=3).to_records()[0]["input"]
    '31+0'
    """
    rng = np.random.default_rng(seed)
    a, b, nd, da, db = _operands(rng, n, min_digits, max_digits)
    s = a + b
    inputs = Text.cat(_number(a, spaced), " + " if spaced else "+", _number(b, spaced))
    return make_dataset("addition", inputs, _number(s, spaced), {
        "n_digits": nd, "n_digits_a": da, "n_digits_b": db, "n_carries": _count_carries(a, b),
        "answer_length": n_decimal_digits(s)}, seed=seed)


@task("multiplication", "Multi-digit multiplication a * b; n_digits (longer operand) controls length.",
      [_N, Param("min_digits", int, 1, "fewest digits of the longer operand", 1, 9),
       Param("max_digits", int, 6, "most digits of an operand", 1, 9), _SPACED],
      splits={"iid": "random", "length": _half("digits", "n_digits")}, check=_digits_check)
def multiplication(*, n: int = 10_000, min_digits: int = 1, max_digits: int = 6, spaced: bool = True, seed: int = 0) -> Dataset:
    """``a * b`` with exact products. Metadata as :func:`addition` without carries.

    >>> ds = multiplication(n=1, min_digits=3, max_digits=3, seed=0)
    >>> ds.inputs[0], ds.targets[0]
    ('5 6 0 * 3 4 2', '1 9 1 5 2 0')
    """
    rng = np.random.default_rng(seed)
    a, b, nd, da, db = _operands(rng, n, min_digits, max_digits)
    prod = a * b
    inputs = Text.cat(_number(a, spaced), " * " if spaced else "*", _number(b, spaced))
    return make_dataset("multiplication", inputs, _number(prod, spaced), {
        "n_digits": nd, "n_digits_a": da, "n_digits_b": db, "answer_length": n_decimal_digits(prod)}, seed=seed)


# ---------------------------------------------------------------------------- sequences
_MINL = Param("min_length", int, 1, "shortest sequence", 1, 500)
_MAXL = Param("max_length", int, 20, "longest sequence", 1, 500)
_VOCAB = Param("vocab_size", int, 10, "distinct symbols (digits 0-9, then letters)", 2, 36)
_ALPHABET = np.frombuffer(b"0123456789abcdefghijklmnopqrstuvwxyz", dtype=np.uint8)


def _lengths(rng: np.random.Generator, n: int, lo: int, hi: int) -> np.ndarray:
    return rng.integers(lo, hi + 1, size=n)


@task("parity", "Parity of a bit string: 1 if the number of ones is odd.",
      [_N, _MINL, _MAXL], splits={"iid": "random", "length": _half("length", "length")}, check=_length_check)
def parity(*, n: int = 10_000, min_length: int = 1, max_length: int = 20, seed: int = 0) -> Dataset:
    """Bit strings and their parity. Metadata: ``length``, ``n_ones``.

    >>> ds = parity(n=2, min_length=5, max_length=5, seed=2)
    >>> ds.inputs, ds.targets
    (['1 1 0 1 0', '0 1 1 1 0'], ['1', '1'])
    """
    rng = np.random.default_rng(seed)
    lengths = _lengths(rng, n, min_length, max_length)
    bits = (rng.random((n, max_length)) < 0.5) & (np.arange(max_length)[None, :] < lengths[:, None])
    ones = bits.sum(axis=1)
    inputs = symbols_to_text(np.where(bits, 49, 48).astype(np.uint8), lengths)
    return make_dataset("parity", inputs, Text.symbols((48 + ones % 2)[:, None]),
                        {"length": lengths, "n_ones": ones}, seed=seed)


def _sequences(rng: np.random.Generator, n: int, lo: int, hi: int, vocab: int) -> tuple[np.ndarray, np.ndarray]:
    lengths = _lengths(rng, n, lo, hi)
    return _ALPHABET[rng.integers(0, vocab, size=(n, hi))], lengths


def _sequence_task(name: str, transform: str, n: int, lo: int, hi: int, vocab: int, seed: int) -> Dataset:
    rng = np.random.default_rng(seed)
    codes, lengths = _sequences(rng, n, lo, hi, vocab)
    j = np.arange(hi)[None, :]
    if transform == "copy":
        out = codes
    elif transform == "reverse":
        idx = np.where(j < lengths[:, None], lengths[:, None] - 1 - j, j)
        out = np.take_along_axis(codes, idx, axis=1)
    else:
        out = np.sort(np.where(j < lengths[:, None], codes, 255), axis=1)
    return make_dataset(name, symbols_to_text(codes, lengths), symbols_to_text(out, lengths), {"length": lengths}, seed=seed)


_SEQ = [_N, _MINL, _MAXL, _VOCAB]
_SEQ_SPLITS = {"iid": "random", "length": _half("length", "length")}


@task("copy", "Copy the input sequence.", _SEQ, splits=_SEQ_SPLITS, check=_length_check)
def copy(*, n: int = 10_000, min_length: int = 1, max_length: int = 20, vocab_size: int = 10, seed: int = 0) -> Dataset:
    """The target is the input. Metadata: ``length``.

    >>> copy(n=1, min_length=3, max_length=3, seed=0).targets
    ['8 6 5']
    """
    return _sequence_task("copy", "copy", n, min_length, max_length, vocab_size, seed)


@task("reverse", "Reverse the input sequence.", _SEQ, splits=_SEQ_SPLITS, check=_length_check)
def reverse(*, n: int = 10_000, min_length: int = 1, max_length: int = 20, vocab_size: int = 10, seed: int = 0) -> Dataset:
    """The target is the input reversed. Metadata: ``length``.

    >>> ds = reverse(n=1, min_length=3, max_length=3, seed=0)
    >>> ds.inputs, ds.targets
    (['8 6 5'], ['5 6 8'])
    """
    return _sequence_task("reverse", "reverse", n, min_length, max_length, vocab_size, seed)


@task("sorting", "Sort the input sequence (ascending symbol order).", _SEQ, splits=_SEQ_SPLITS, check=_length_check)
def sorting(*, n: int = 10_000, min_length: int = 1, max_length: int = 20, vocab_size: int = 10, seed: int = 0) -> Dataset:
    """The target is the input sorted. Metadata: ``length``.

    >>> sorting(n=1, min_length=3, max_length=3, seed=0).targets
    ['5 6 8']
    """
    return _sequence_task("sorting", "sort", n, min_length, max_length, vocab_size, seed)


# ---------------------------------------------------------------------------- Dyck-n
def is_balanced(text: str, n_types: int = 4) -> bool:
    """Whether a (spaced or compact) bracket string is a Dyck word over the first ``n_types`` pairs.

    >>> is_balanced("( [ ] )"), is_balanced("( ] [ )")
    (True, False)
    """
    closing = {b[1]: b[0] for b in BRACKETS[:n_types]}
    stack: list[str] = []
    for ch in text.replace(" ", ""):
        if ch in closing:
            if not stack or stack.pop() != closing[ch]:
                return False
        elif any(ch == b[0] for b in BRACKETS[:n_types]):
            stack.append(ch)
        else:
            return False
    return not stack


def _dyck_check(p: dict[str, Any]) -> None:
    _length_check(p)
    if p["max_length"] < 2:
        raise ConfigError(f"max_length={p['max_length']} must be >= 2: the shortest Dyck word has 2 brackets.")


@task("dyck", "Dyck-n: is a bracket string over n bracket types balanced? (half are, half are one edit away)",
      [_N, Param("n_types", int, 2, "bracket types: (), [], {}, <>", 1, 4),
       Param("min_length", int, 2, "fewest brackets (rounded up to even)", 2, 500),
       Param("max_length", int, 20, "most brackets (rounded down to even)", 2, 500),
       Param("max_depth", int, 10, "deepest nesting of a balanced string", 1, 250)],
      splits={"iid": "random", "length": _half("length", "length"), "depth": "length:by=depth,max_train_length=3"},
      check=_dyck_check)
def dyck(*, n: int = 10_000, n_types: int = 2, min_length: int = 2, max_length: int = 20, max_depth: int = 10,
         seed: int = 0) -> Dataset:
    """Bracket strings labelled ``"1"`` (balanced) or ``"0"``. A negative is a balanced string with one
    bracket replaced by another, which always unbalances it. Metadata: ``length``, ``depth`` (deepest
    nesting of the balanced string it came from), ``balanced``.

    >>> ds = dyck(n=4, n_types=2, min_length=4, max_length=4, seed=0)
    >>> [(x, y) for x, y in zip(ds.inputs, ds.targets)]
    [('( [ ( )', '0'), ('[ ] [ ]', '1'), ('[ ] ( [', '0'), ('[ ] ] ]', '0')]
    """
    rng = np.random.default_rng(seed)
    lo, hi = (min_length + 1) // 2, max_length // 2
    if lo > hi:
        raise ConfigError(f"min_length={min_length}..max_length={max_length} holds no even length.")
    lengths = 2 * rng.integers(lo, hi + 1, size=n)
    width = 2 * hi
    opens = np.frombuffer("".join(b[0] for b in BRACKETS).encode(), dtype=np.uint8)
    closes = np.frombuffer("".join(b[1] for b in BRACKETS).encode(), dtype=np.uint8)
    codes = np.zeros((n, width), dtype=np.uint8)
    stack = np.zeros((n, max_depth), dtype=np.int64)
    depth = np.zeros(n, dtype=np.int64)
    deepest = np.zeros(n, dtype=np.int64)
    rows = np.arange(n)
    for t in range(width):
        remaining = lengths - t
        active = remaining > 0
        must_close = (depth >= remaining) | (depth >= max_depth)
        can_close = depth > 0
        do_open = active & ~must_close & (~can_close | (rng.random(n) < 0.5))
        do_close = active & ~do_open
        kind = rng.integers(0, n_types, size=n)
        top = stack[rows, np.maximum(depth - 1, 0)]
        codes[:, t] = np.where(do_open, opens[kind], np.where(do_close, closes[top], 0))
        stack[rows[do_open], depth[do_open]] = kind[do_open]
        depth = depth + do_open - do_close
        deepest = np.maximum(deepest, depth)
    balanced = rng.random(n) < 0.5
    pos = rng.integers(0, lengths)
    symbols = np.concatenate([opens[:n_types], closes[:n_types]])
    current = codes[rows, pos]
    shift = rng.integers(1, 2 * n_types, size=n)
    index_of = np.zeros(256, dtype=np.int64)
    index_of[symbols] = np.arange(2 * n_types)
    replacement = symbols[(index_of[current] + shift) % (2 * n_types)]
    codes[rows, pos] = np.where(balanced, current, replacement)
    return make_dataset("dyck", symbols_to_text(codes, lengths), Text.symbols((48 + balanced)[:, None]),
                        {"length": lengths, "depth": deepest, "balanced": balanced}, seed=seed)
