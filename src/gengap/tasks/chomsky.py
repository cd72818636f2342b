"""Tasks of the Chomsky hierarchy benchmark (Delétang et al. 2023), one or more per level.

========================  ==================  ==============================================
task                      level               target
========================  ==================  ==============================================
``even_pairs``            regular             ``1`` if the number of ``ab`` and ``ba`` pairs is even
``modular_arithmetic``    regular             the value mod 5 of ``d op d op ...`` (``*`` first)
``reverse_string``        context-free        the input reversed
``stack_manipulation``    context-free        the stack after the push/pop actions
``binary_addition``       context-sensitive   the binary sum of two binary numbers
``duplicate_string``      context-sensitive   the input written twice
``odds_first``            context-sensitive   the odd positions, then the even ones
========================  ==================  ==============================================

Each dataset has the columns ``length`` (input tokens the task is about) and ``level``. The
paper trains on lengths up to 40 and tests on 41 to 500; the natural ``length`` split here trains
on the lower half of ``[min_length, max_length]``.

>>> ds = even_pairs(n=2, min_length=4, max_length=4, seed=0)
>>> ds.inputs, ds.targets
(['a b b b', 'b b a b'], ['0', '1'])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gengap.dataset import Dataset
from gengap.tasks._registry import Param, task
from gengap.tasks._text import Text
from gengap.tasks.algorithmic import _length_check, make_dataset, symbols_to_text

__all__ = ["even_pairs", "modular_arithmetic", "reverse_string", "stack_manipulation", "binary_addition",
           "duplicate_string", "odds_first", "LEVELS"]

#: The Chomsky level of each task.
LEVELS = {"even_pairs": "regular", "modular_arithmetic": "regular", "reverse_string": "context-free",
          "stack_manipulation": "context-free", "binary_addition": "context-sensitive",
          "duplicate_string": "context-sensitive", "odds_first": "context-sensitive"}

_N = Param("n", int, 10_000, "number of examples", 1, 50_000_000)
_MINL = Param("min_length", int, 1, "shortest input", 1, 500)
_MAXL = Param("max_length", int, 40, "longest input", 1, 500)
_SPLITS = {"iid": "random", "length": lambda p: f"length:by=length,max_train_length={(p['min_length'] + p['max_length']) // 2}"}
_AB = np.frombuffer(b"ab", dtype=np.uint8)


def _ab_strings(rng: np.random.Generator, n: int, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    lengths = rng.integers(lo, hi + 1, size=n)
    bits = rng.integers(0, 2, size=(n, hi), dtype=np.int8)
    return bits, _AB[bits], lengths


def _out(name: str, inputs: np.ndarray, targets: np.ndarray, lengths: np.ndarray, seed: int, **extra: Any) -> Dataset:
    return make_dataset(name, inputs, targets, {"length": lengths, "level": np.full(len(lengths), LEVELS[name], dtype=object),
                                                **extra}, seed=seed)


@task("even_pairs", "Chomsky (regular): is the number of 'ab' and 'ba' pairs even?", [_N, _MINL, _MAXL],
      splits=_SPLITS, check=_length_check)
def even_pairs(*, n: int = 10_000, min_length: int = 1, max_length: int = 40, seed: int = 0) -> Dataset:
    """Strings over ``a b``; ``"1"`` when the count of ``ab`` plus ``ba`` is even (first == last symbol)."""
    rng = np.random.default_rng(seed)
    bits, codes, lengths = _ab_strings(rng, n, min_length, max_length)
    rows = np.arange(n)
    changes = (np.diff(bits, axis=1) != 0) & (np.arange(1, max_length)[None, :] < lengths[:, None])
    even = changes.sum(axis=1) % 2 == 0
    assert np.array_equal(even, bits[:, 0] == bits[rows, lengths - 1])
    return _out("even_pairs", symbols_to_text(codes, lengths), Text.symbols((48 + even)[:, None]), lengths, seed)


@task("modular_arithmetic", "Chomsky (regular): value mod 5 of digits joined by + - * (no brackets, * binds first).",
      [_N, Param("min_length", int, 1, "fewest numbers in the expression", 1, 250),
       Param("max_length", int, 20, "most numbers in the expression", 1, 250)],
      splits=_SPLITS, check=_length_check)
def modular_arithmetic(*, n: int = 10_000, min_length: int = 1, max_length: int = 20, seed: int = 0) -> Dataset:
    """Expressions ``d op d op ... d`` over digits 0-4; the target is their value mod 5.
    ``length`` counts the numbers.

    >>> ds = modular_arithmetic(n=1, min_length=3, max_length=3, seed=1)
    >>> ds.inputs, ds.targets
    (['2 + 2 + 3'], ['2'])
    """
    rng = np.random.default_rng(seed)
    lengths = rng.integers(min_length, max_length + 1, size=n)
    digits = rng.integers(0, 5, size=(n, max_length))
    ops = rng.integers(0, 3, size=(n, max_length))  # op before number j (j >= 1): 0 '+', 1 '-', 2 '*'
    total = np.zeros(n, dtype=np.int64)
    term = digits[:, 0].copy()
    sign = np.ones(n, dtype=np.int64)
    for j in range(1, max_length):
        live = j < lengths
        mul = live & (ops[:, j] == 2)
        add = live & ~mul
        total = np.where(add, (total + sign * term) % 5, total)
        sign = np.where(add, np.where(ops[:, j] == 1, -1, 1), sign)
        term = np.where(mul, (term * digits[:, j]) % 5, np.where(add, digits[:, j], term))
    value = (total + sign * term) % 5
    codes = np.zeros((n, 2 * max_length - 1), dtype=np.uint8)
    codes[:, ::2] = 48 + digits
    codes[:, 1::2] = np.frombuffer(b"+-*", dtype=np.uint8)[ops[:, 1:]]
    return _out("modular_arithmetic", symbols_to_text(codes, 2 * lengths - 1), Text.number(value), lengths, seed)


@task("reverse_string", "Chomsky (context-free): the a/b string reversed.", [_N, _MINL, _MAXL], splits=_SPLITS,
      check=_length_check)
def reverse_string(*, n: int = 10_000, min_length: int = 1, max_length: int = 40, seed: int = 0) -> Dataset:
    """Strings over ``a b`` and their reversal."""
    rng = np.random.default_rng(seed)
    _, codes, lengths = _ab_strings(rng, n, min_length, max_length)
    j = np.arange(max_length)[None, :]
    rev = np.take_along_axis(codes, np.where(j < lengths[:, None], lengths[:, None] - 1 - j, j), axis=1)
    return _out("reverse_string", symbols_to_text(codes, lengths), symbols_to_text(rev, lengths), lengths, seed)


@task("stack_manipulation", "Chomsky (context-free): the stack (top first) after push a / push b / pop actions.",
      [_N, _MINL, _MAXL], splits=_SPLITS, check=_length_check)
def stack_manipulation(*, n: int = 10_000, min_length: int = 1, max_length: int = 40, seed: int = 0) -> Dataset:
    """An initial stack (top first) and actions ``A`` (push a), ``B`` (push b), ``P`` (pop; no-op when
    empty), as ``"a b a | A P B"``; the target is the final stack, top first (``"-"`` when empty).
    ``length`` counts stack symbols plus actions.

    >>> ds = stack_manipulation(n=1, min_length=5, max_length=5, seed=1)
    >>> ds.inputs, ds.targets
    (['b b | A P P'], ['b'])
    """
    rng = np.random.default_rng(seed)
    lengths = rng.integers(min_length, max_length + 1, size=n)
    n_stack = rng.integers(0, lengths + 1)
    n_act = lengths - n_stack
    # One event per position: the initial stack pushed bottom first, then the actions.
    p = np.arange(max_length)[None, :]
    is_init = p < n_stack[:, None]
    is_act = ~is_init & (p < lengths[:, None])
    bits = rng.integers(0, 2, size=(n, max_length), dtype=np.int8)
    acts = rng.integers(0, 3, size=(n, max_length), dtype=np.int8)  # 0 push a, 1 push b, 2 pop
    push = is_init | (is_act & (acts < 2))
    symbol = np.where(is_init, bits, acts)
    step = push.astype(np.int16) - (is_act & (acts == 2))
    prefix = np.cumsum(step, axis=1, dtype=np.int16)
    height = prefix - np.minimum(np.minimum.accumulate(prefix, axis=1), 0)  # pops on an empty stack do nothing
    later_min = np.full_like(height, np.iinfo(np.int16).max)
    later_min[:, :-1] = np.minimum.accumulate(height[:, ::-1], axis=1)[:, ::-1][:, 1:]
    survives = push & (later_min >= height)  # a push survives unless a later pop goes below it
    size = survives.sum(axis=1)
    final = Text(_AB[symbol[survives]], size).reversed().spaced().where(size == 0, Text.const("-", n))
    init_text = Text(_AB[symbol[is_init]], n_stack).reversed().spaced()
    act_text = Text(np.frombuffer(b"ABP", dtype=np.uint8)[acts[is_act]], n_act).spaced()
    both = Text.cat(init_text, " | ", act_text)
    inputs = both.where(n_stack == 0, Text.cat("| ", act_text)).where(n_act == 0, Text.cat(init_text, " |"))
    return _out("stack_manipulation", inputs, final, lengths, seed, n_actions=n_act)


def _bits_of(x: np.ndarray, width: int) -> np.ndarray:
    return (x[:, None] >> np.arange(width - 1, -1, -1)[None, :]) & 1


def _binary_text(x: np.ndarray, width: int) -> Text:
    """Binary numerals without leading zeros ("0" for zero), spaced."""
    bits = _bits_of(x, width)
    nbits = np.maximum(1, width - np.argmax(np.concatenate([bits, np.ones((len(x), 1), dtype=bits.dtype)], axis=1), axis=1))
    nbits = np.where(x == 0, 1, nbits)
    shifted = np.take_along_axis(bits, np.clip(width - nbits[:, None] + np.arange(width)[None, :], 0, width - 1), axis=1)
    return Text.symbols((48 + shifted).astype(np.uint8), nbits).spaced()


@task("binary_addition", "Chomsky (context-sensitive): the binary sum of two binary numbers.",
      [_N, Param("min_length", int, 1, "fewest bits of the longer operand", 1, 60),
       Param("max_length", int, 20, "most bits of an operand", 1, 60)],
      splits=_SPLITS, check=_length_check)
def binary_addition(*, n: int = 10_000, min_length: int = 1, max_length: int = 20, seed: int = 0) -> Dataset:
    """``"1 0 1 + 1 1"`` -> ``"1 0 0 0"``. ``length`` is the bits of the longer operand.

    >>> ds = binary_addition(n=1, min_length=3, max_length=3, seed=0)
    >>> ds.inputs, ds.targets
    (['1 1 0 + 1 0 1'], ['1 0 1 1'])
    """
    rng = np.random.default_rng(seed)
    lengths = rng.integers(min_length, max_length + 1, size=n)
    other = rng.integers(1, lengths + 1)
    swap = rng.random(n) < 0.5
    la, lb = np.where(swap, other, lengths), np.where(swap, lengths, other)

    def draw(bits: np.ndarray) -> np.ndarray:
        low = np.where(bits == 1, 0, np.left_shift(1, np.maximum(bits - 1, 0)))
        return rng.integers(low, np.left_shift(1, bits), dtype=np.int64)

    a, b = draw(la), draw(lb)
    w = max_length + 1
    inputs = Text.cat(_binary_text(a, w), " + ", _binary_text(b, w))
    return _out("binary_addition", inputs, _binary_text(a + b, w), lengths, seed)


@task("duplicate_string", "Chomsky (context-sensitive): the a/b string written twice.", [_N, _MINL, _MAXL],
      splits=_SPLITS, check=_length_check)
def duplicate_string(*, n: int = 10_000, min_length: int = 1, max_length: int = 40, seed: int = 0) -> Dataset:
    """``"a b"`` -> ``"a b a b"``."""
    rng = np.random.default_rng(seed)
    _, codes, lengths = _ab_strings(rng, n, min_length, max_length)
    text = Text.symbols(codes, lengths).spaced()
    return _out("duplicate_string", text, Text.cat(text, " ", text), lengths, seed)


@task("odds_first", "Chomsky (context-sensitive): symbols at odd positions, then those at even positions.",
      [_N, _MINL, _MAXL], splits=_SPLITS, check=_length_check)
def odds_first(*, n: int = 10_000, min_length: int = 1, max_length: int = 40, seed: int = 0) -> Dataset:
    """``"a b b a b"`` (positions 1..5) -> positions 1, 3, 5, then 2, 4: ``"a b b b a"``."""
    rng = np.random.default_rng(seed)
    _, codes, lengths = _ab_strings(rng, n, min_length, max_length)
    n_odd = (lengths + 1) // 2
    k = np.arange(max_length)[None, :]
    source = np.where(k < n_odd[:, None], 2 * k, 2 * (k - n_odd[:, None]) + 1)
    out = np.take_along_axis(codes, np.clip(source, 0, max_length - 1), axis=1)
    return _out("odds_first", symbols_to_text(codes, lengths), symbols_to_text(out, lengths), lengths, seed)

