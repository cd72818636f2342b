"""Templated math word problems with number substitution and a symbolic checker.

Each template is a text with slots (``{name}``, ``{item}``, ``{a}``, ...), the ranges its numbers
are drawn from, and the answer as an arithmetic expression over those numbers. The answer of every
variant is recomputed from the expression (:func:`solve`), so substituting numbers or names never
leaves a stale label; the drawn numbers are kept in the ``values`` column (JSON) for re-solving.

>>> t = TEMPLATES["shopping"]
>>> solve(t.answer, {"a": 3, "b": 4, "c": 5})
23
>>> ds = word_problems(n=1, templates="shopping", seed=0)
>>> ds.inputs[0]
'Sara has 27 cookies and buys 4 packs of 2 cookies. How many cookies does Sara have now?'
>>> ds.targets[0]
'35'
"""

from __future__ import annotations

import ast
import operator
import string
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gengap._errors import ConfigError, DataError
from gengap.dataset import Dataset
from gengap.tasks._registry import Param, task
from gengap.tasks._text import Text
from gengap.tasks.algorithmic import make_dataset

__all__ = ["WordProblem", "TEMPLATES", "solve", "render", "word_problems", "as_template"]

NAMES = ("Mia", "Noah", "Ava", "Liam", "Zoe", "Omar", "Lena", "Ravi", "Sara", "Yuki")
ITEMS = ("apples", "stickers", "marbles", "books", "cookies", "pencils", "coins", "stamps")


@dataclass(frozen=True)
class WordProblem:
    """A word problem with number slots and its answer as an expression of them.

    ``ranges`` gives each number's inclusive range as multiples of the task's ``scale``; numbers
    in ``derived`` are computed from the drawn ones (a total that divides evenly, say).
    ``require`` is an expression that must be true (e.g. ``"a >= b"``); draws that fail are redrawn.
    """

    text: str
    answer: str
    ranges: dict[str, tuple[int, int]]
    derived: dict[str, str] | None = None
    require: str | None = None
    sample_constraints: tuple[str, ...] = ()

    @property
    def n_operations(self) -> int:
        """Arithmetic operations in the answer expression (reasoning steps)."""
        return sum(isinstance(node, ast.BinOp) for node in ast.walk(ast.parse(self.answer, mode="eval")))


TEMPLATES: dict[str, WordProblem] = {
    "gift": WordProblem("{name} has {a} {item}. {other} gives {name} {b} more. How many {item} does {name} have now?",
                     "a + b", {"a": (1, 100), "b": (1, 100)}),
    "give_away": WordProblem("{name} had {a} {item} and gave {b} of them to {other}. How many {item} does {name} have left?",
                          "a - b", {"a": (2, 100), "b": (1, 99)}, require="a >= b"),
    "boxes": WordProblem("{name} buys {a} boxes with {b} {item} in each box. How many {item} does {name} buy?",
                      "a * b", {"a": (2, 20), "b": (2, 20)}),
    "sharing": WordProblem("{name} shares {t} {item} equally among {b} friends. How many {item} does each friend get?",
                        "t // b", {"a": (1, 20), "b": (2, 12)}, derived={"t": "a * b"},
                        sample_constraints=("t % b == 0",)),
    "shopping": WordProblem("{name} has {a} {item} and buys {b} packs of {c} {item}. How many {item} does {name} have now?",
                         "a + b * c", {"a": (1, 100), "b": (2, 10), "c": (2, 10)}),
    "wages": WordProblem("{name} earns {a} dollars an hour, works {b} hours and then spends {c} dollars. "
                      "How many dollars does {name} have left?", "a * b - c",
                      {"a": (5, 30), "b": (2, 10), "c": (1, 100)}, require="a * b >= c"),
}

_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
        ast.Mod: operator.mod, ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
        ast.Eq: operator.eq}


def solve(expression: str, values: dict[str, Any]) -> Any:
    """Evaluate an arithmetic expression (+ - * // %, comparisons, parentheses) over named numbers.

    Works on scalars or numpy arrays; anything else in the expression is a DataError.

    >>> solve("(a + b) * c", {"a": 1, "b": 2, "c": 3})
    9
    """
    def ev(node: ast.AST) -> Any:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in values:
                raise DataError(f"Expression '{expression}' uses '{node.id}', which has no value (have {sorted(values)}).")
            return values[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _OPS:
            return _OPS[type(node.ops[0])](ev(node.left), ev(node.comparators[0]))
        raise DataError(f"Expression '{expression}' has an unsupported part '{ast.dump(node)[:60]}'.")

    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        raise DataError(f"Expression '{expression}' is not valid arithmetic.") from None
    return ev(tree)


def render(template: WordProblem, values: dict[str, Any]) -> str:
    """The problem text with the slots filled."""
    return template.text.format(**values)


def _words(words: Sequence[str]) -> Text:
    """A fixed list of words as a Text (rows picked with ``.take``)."""
    return Text(np.frombuffer("".join(words).encode("ascii"), dtype=np.uint8).copy(),
                np.array([len(w) for w in words], dtype=np.int64))


def _draw(t: WordProblem, rng: np.random.Generator, n: int, scale: int) -> dict[str, np.ndarray]:
    values = {k: rng.integers(lo * scale, hi * scale + 1, size=n) for k, (lo, hi) in t.ranges.items()}
    if t.require:
        for _ in range(100):
            bad = ~np.asarray(solve(t.require, values))
            if not bad.any():
                break
            for k, (lo, hi) in t.ranges.items():
                values[k][bad] = rng.integers(lo * scale, hi * scale + 1, size=int(bad.sum()))
        else:  # pragma: no cover - the ranges above always allow a valid draw
            raise DataError(f"Could not draw numbers satisfying '{t.require}'.")
    for k, expr in (t.derived or {}).items():
        values[k] = solve(expr, values)
    return values


def _check(p: dict[str, Any]) -> None:
    names = [x.strip() for x in p["templates"].split(",") if x.strip()]
    bad = [x for x in names if x not in TEMPLATES]
    if bad or not names:
        raise ConfigError(f"templates={p['templates']!r}: unknown template(s) {bad}; valid names are {', '.join(TEMPLATES)}.")


@task("word_problems", "Templated arithmetic word problems; every answer recomputed by a symbolic solver.",
      [Param("n", int, 10_000, "number of problems", 1, 20_000_000),
       Param("templates", str, ",".join(TEMPLATES), f"comma-separated templates from {', '.join(TEMPLATES)}"),
       Param("scale", int, 1, "multiplies every number range (harder, larger numbers)", 1, 1_000_000)],
      splits={"iid": "random", "template": "group:group=template", "steps": "length:by=n_operations,max_train_length=1"},
      check=_check)
def word_problems(*, n: int = 10_000, templates: str = ",".join(TEMPLATES), scale: int = 1, seed: int = 0) -> Dataset:
    """Problems drawn evenly from ``templates``; targets are the solver's answers. Metadata:
    ``template``, ``person``, ``other``, ``item``, ``n_operations``, ``max_number`` and ``values``
    (the numbers, as JSON). :func:`as_template` turns a row back into a
    :class:`gengap.perturb.problem_template.ProblemTemplate`, whose own solver checks the label or draws new numbers."""
    rng = np.random.default_rng(seed)
    chosen = [x.strip() for x in templates.split(",") if x.strip()]
    which = rng.integers(0, len(chosen), size=n)
    name_idx = rng.integers(0, len(NAMES), size=n)
    other_idx = (name_idx + rng.integers(1, len(NAMES), size=n)) % len(NAMES)
    item_idx = rng.integers(0, len(ITEMS), size=n)
    input_parts, target_parts, json_parts = [], [], []
    n_ops, biggest = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    for k, tname in enumerate(chosen):
        rows = np.flatnonzero(which == k)
        if len(rows) == 0:
            continue
        t = TEMPLATES[tname]
        values = _draw(t, rng, len(rows), scale)
        words = {"name": _words(NAMES).take(name_idx[rows]), "other": _words(NAMES).take(other_idx[rows]),
                 "item": _words(ITEMS).take(item_idx[rows])}
        pieces: list[Text | str] = []
        for literal, field, _, _ in string.Formatter().parse(t.text):
            pieces.append(literal)
            if field is not None:
                pieces.append(words[field] if field in words else Text.number(values[field]))
        input_parts.append((rows, Text.cat(*pieces)))
        target_parts.append((rows, Text.number(solve(t.answer, values))))
        keys = list(values)
        fields: list[Text | str] = ["{"]
        for i, key in enumerate(keys):
            fields += [f'{", " if i else ""}"{key}": ', Text.number(values[key])]
        json_parts.append((rows, Text.cat(*fields, "}")))
        n_ops[rows] = t.n_operations
        biggest[rows] = np.max(np.stack([values[key] for key in keys]), axis=0)
    inputs, targets = Text.scatter(n, input_parts), Text.scatter(n, target_parts)
    return make_dataset("word_problems", inputs, targets, {
        "template": np.array(chosen, dtype=object)[which], "person": np.array(NAMES, dtype=object)[name_idx],
        "other": np.array(NAMES, dtype=object)[other_idx], "item": np.array(ITEMS, dtype=object)[item_idx],
        "n_operations": n_ops, "max_number": biggest,
        "values": Text.scatter(n, json_parts).column()}, seed=seed)


def as_template(name: str, *, person: str = "Mia", other: str = "Noah", item: str = "apples", scale: int = 1) -> Any:
    """Problem ``name`` with its words fixed, as a :class:`gengap.perturb.problem_template.ProblemTemplate`.

    That template reads the numbers back from any rendered text and recomputes the answer with
    its own solver (an independent check of this module's labels), and draws new numbers within
    the same ranges and constraints for number-substitution variants.

    >>> ds = word_problems(n=1, templates="wages", seed=1)
    >>> row = ds.to_records()[0]
    >>> t = as_template("wages", person=row["person"], item=row["item"], other=row["other"])
    >>> t.check(row["input"], row["target"])
    True
    """
    from gengap.perturb.problem_template import ProblemTemplate as SlotTemplate

    if name not in TEMPLATES:
        raise ConfigError(f"No word-problem template '{name}'; templates are {', '.join(TEMPLATES)}.")
    t = TEMPLATES[name]
    text = t.text.replace("{name}", person).replace("{other}", other).replace("{item}", item)
    in_text = {field for _, field, _, _ in string.Formatter().parse(text) if field}
    slots: dict[str, tuple[int, int]] = {k: (lo * scale, hi * scale) for k, (lo, hi) in t.ranges.items() if k in in_text}
    lows = {k: lo * scale for k, (lo, _) in t.ranges.items()}
    highs = {k: hi * scale for k, (_, hi) in t.ranges.items()}
    for key, expr in (t.derived or {}).items():
        slots[key] = (int(solve(expr, lows)), int(solve(expr, highs)))
    constraints = ([t.require] if t.require else []) + list(t.sample_constraints)
    return SlotTemplate(text, answer=t.answer, constraints=constraints, slots=slots, name=name)
