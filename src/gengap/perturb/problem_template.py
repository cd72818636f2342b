"""Templated problems: text with numeric slots, constraints, and a solver that recomputes the answer.

A :class:`ProblemTemplate` is the source of every variant of a problem: new numbers are drawn for its
slots (within their ranges, until the constraints hold), the text is rendered, and the answer is
recomputed exactly (with fractions) by the solver expression. The same template reads a rendered
text back (:meth:`ProblemTemplate.read`), so a checker can recompute the answer of any variant and catch a
label that no longer matches its text.

Slots are written inline as ``{name:low..high}`` (integers), ``{name:low..high/step}`` (a grid of
decimals) or ``{name:a|b|c}`` (a set of values); a later ``{name}`` reuses the value. Expressions
(the answer and the constraints) use ``+ - * / // % **``, comparisons, ``and``/``or``/``not``,
``min``, ``max``, ``abs``, ``round`` and the slot names, nothing else.

Example
-------
>>> t = ProblemTemplate("Tom has {a:2..20} apples and gives away {b:1..9}. How many are left?",
...              answer="a - b", constraints=["a > b"], name="apples")
>>> t.render({"a": 12, "b": 5}), t.solve({"a": 12, "b": 5})
('Tom has 12 apples and gives away 5. How many are left?', Fraction(7, 1))
>>> t.read("Tom has 9 apples and gives away 4. How many are left?")
{'a': 9, 'b': 4}
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from gengap._errors import ConfigError, DataError, did_you_mean

__all__ = ["Slot", "ProblemTemplate", "TemplateError", "verify_labels"]

Number = int | Fraction


class TemplateError(ConfigError):
    """A template that does not parse: names the template, the part and the position."""


@dataclass(frozen=True)
class Slot:
    """A numeric slot: integers in ``[low, high]``, a decimal grid with ``step``, or fixed ``values``.

    >>> Slot("a", low=1, high=3).values_list()
    [1, 2, 3]
    >>> Slot("p", low=0.5, high=1.5, step=0.5).values_list()
    [Fraction(1, 2), Fraction(1, 1), Fraction(3, 2)]
    """

    name: str
    low: Number | float | None = None
    high: Number | float | None = None
    step: Number | float | None = None
    values: tuple[Number, ...] | None = None

    def values_list(self) -> list[Number]:
        if self.values is not None:
            return list(self.values)
        low, high = Fraction(str(self.low)), Fraction(str(self.high))
        step = Fraction(str(self.step)) if self.step is not None else Fraction(1)
        n = int((high - low) / step) + 1
        out = [low + i * step for i in range(n)]
        return [int(v) if v.denominator == 1 and self.step is None else v for v in out]


_SLOT_RE = re.compile(r"\{([^{}]*)\}")
_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NUM = r"-?\d+(?:\.\d+)?(?:/\d+)?"


def _number(text: str) -> Number:
    value = Fraction(text)
    return int(value) if value.denominator == 1 and "." not in text else value


def format_value(value: Number | float) -> str:
    """How a slot value or an answer is written: ``7``, ``2.5``, ``1/3`` for a repeating fraction.

    >>> format_value(Fraction(5, 2)), format_value(Fraction(1, 3)), format_value(4)
    ('2.5', '1/3', '4')
    """
    v = Fraction(value) if not isinstance(value, float) else Fraction(str(value))
    if v.denominator == 1:
        return str(v.numerator)
    d = v.denominator
    while d % 2 == 0:
        d //= 2
    while d % 5 == 0:
        d //= 5
    if d == 1:  # a terminating decimal
        return format(float(v), ".10f").rstrip("0").rstrip(".")
    return f"{v.numerator}/{v.denominator}"


# ------------------------------------------------------------------------ safe expressions
_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_CMPOPS = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
           ast.Eq: operator.eq, ast.NotEq: operator.ne}
_FUNCS = {"min": min, "max": max, "abs": abs, "round": lambda x, n=0: round(Fraction(x), int(n))}


class _Expr:
    """A parsed arithmetic expression over slot names, evaluated exactly with Fractions."""

    def __init__(self, source: str, names: Sequence[str], *, template: str, part: str) -> None:
        self.source = source
        where = f"Template '{template}', {part} {source!r}"
        try:
            self.tree = ast.parse(source.strip(), mode="eval")
        except SyntaxError as e:
            col = (e.offset or 1) - 1
            raise TemplateError(f"{where}: cannot parse at position {col} ({source.strip()[col:col + 10]!r}): {e.msg}. "
                                "Write arithmetic over slot names, e.g. 'a * b - c'.") from None
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Name) and node.id not in names and node.id not in _FUNCS:
                raise TemplateError(f"{where}: unknown name '{node.id}' at position {node.col_offset}."
                                    f"{did_you_mean(node.id, list(names))} Slots: {list(names)}.")
            allowed = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.Name, ast.Constant,
                       ast.Call, ast.Load, ast.USub, ast.UAdd, ast.Not, ast.And, ast.Or, *_BINOPS, *_CMPOPS)
            if not isinstance(node, allowed) or (isinstance(node, ast.Constant) and not isinstance(node.value, (int, float))):
                col = getattr(node, "col_offset", 0)
                raise TemplateError(f"{where}: '{type(node).__name__}' at position {col} is not allowed; "
                                    "use numbers, slot names, + - * / // % **, comparisons, and/or/not, min, max, abs, round.")
            if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in _FUNCS):
                raise TemplateError(f"{where}: only min, max, abs and round can be called (position {node.col_offset}).")

    def __call__(self, values: Mapping[str, Number]) -> Any:
        return self._eval(self.tree.body, values)

    def _eval(self, node: ast.AST, env: Mapping[str, Number]) -> Any:
        if isinstance(node, ast.Constant):
            return Fraction(str(node.value))
        if isinstance(node, ast.Name):
            return Fraction(env[node.id])
        if isinstance(node, ast.BinOp):
            return _BINOPS[type(node.op)](self._eval(node.left, env), self._eval(node.right, env))
        if isinstance(node, ast.UnaryOp):
            v = self._eval(node.operand, env)
            return -v if isinstance(node.op, ast.USub) else (not v) if isinstance(node.op, ast.Not) else v
        if isinstance(node, ast.Compare):
            left = self._eval(node.left, env)
            for op, right_node in zip(node.ops, node.comparators):
                right = self._eval(right_node, env)
                if not _CMPOPS[type(op)](left, right):
                    return False
                left = right
            return True
        if isinstance(node, ast.BoolOp):
            vals = (self._eval(v, env) for v in node.values)
            return all(vals) if isinstance(node.op, ast.And) else any(vals)
        if isinstance(node, ast.Call):
            return _FUNCS[node.func.id](*(self._eval(a, env) for a in node.args))  # type: ignore[attr-defined]
        raise AssertionError(type(node))  # checked at parse time


# ------------------------------------------------------------------------ template
class ProblemTemplate:
    """A problem text with numeric slots, constraints and a solver expression.

    Parameters
    ----------
    text : the problem, with slots ``{a:1..10}``, ``{p:0.5..2/0.5}``, ``{k:2|3|5}`` or ``{a}``.
    answer : the solver: an expression over the slots whose value is the answer.
    constraints : expressions that must all hold for a draw of values (e.g. ``"a > b"``).
    slots : slots declared here instead of inline: ``{"a": (1, 10)}``, ``{"k": [2, 3, 5]}`` or Slot.
    name : used in messages, in example ids and in the metadata of generated problems.
    max_tries : draws attempted before a sample is declared impossible.

    >>> t = ProblemTemplate("{n:2..9} boxes of {k:3|6} eggs: how many eggs?", answer="n * k", name="eggs")
    >>> ex = t.sample(np.random.default_rng(0)); ex["target"] == format_value(t.solve(ex["values"]))
    True
    """

    def __init__(self, text: str, *, answer: str, constraints: Sequence[str] = (),
                 slots: Mapping[str, Any] | None = None, name: str = "template", max_tries: int = 1000) -> None:
        if not isinstance(text, str) or not text.strip():
            raise TemplateError(f"Template '{name}': the text is empty; give the problem with slots like '{{a:1..10}}'.")
        if max_tries < 1:
            raise ConfigError(f"Template '{name}': max_tries={max_tries} must be at least 1.")
        self.name = name
        self.text = text
        self.max_tries = max_tries
        self.slots: dict[str, Slot] = {k: _as_slot(k, v, name) for k, v in (slots or {}).items()}
        self._parts: list[str | tuple[str]] = []  # literal text and (slot name,) markers
        self._parse_text()
        names = list(self.slots)
        self.answer = _Expr(answer, names, template=name, part="answer")
        self.constraints = [_Expr(c, names, template=name, part="constraint") for c in constraints]
        self._reader = re.compile(self._reader_pattern(), re.IGNORECASE)
        self._pools: dict[str, list[Number]] | None = None

    def __repr__(self) -> str:
        return f"ProblemTemplate(name={self.name!r}, slots={list(self.slots)}, answer={self.answer.source!r})"

    def _parse_text(self) -> None:
        pos = 0
        for m in _SLOT_RE.finditer(self.text):
            self._parts.append(self.text[pos:m.start()])
            body = m.group(1).strip()
            slot_name, colon, spec = body.partition(":")
            slot_name = slot_name.strip()
            if not _NAME_RE.match(slot_name):
                raise TemplateError(f"Template '{self.name}': slot {m.group(0)!r} at position {m.start()} needs a name "
                                    "such as {a:1..10} or {a}.")
            if colon:
                if slot_name in self.slots:
                    raise TemplateError(f"Template '{self.name}': slot '{slot_name}' is defined twice (again at position "
                                        f"{m.start()}); write {{{slot_name}}} to reuse its value.")
                self.slots[slot_name] = _parse_spec(slot_name, spec.strip(), self.name, m.start())
            elif slot_name not in self.slots:
                raise TemplateError(f"Template '{self.name}': slot '{{{slot_name}}}' at position {m.start()} has no range; "
                                    f"write {{{slot_name}:1..10}} the first time.{did_you_mean(slot_name, list(self.slots))}")
            self._parts.append((slot_name,))
            pos = m.end()
        rest = self.text[pos:]
        inside = [False] * len(self.text)
        for m in _SLOT_RE.finditer(self.text):
            inside[m.start():m.end()] = [True] * (m.end() - m.start())
        stray = [i for i, ch in enumerate(self.text) if ch in "{}" and not inside[i]]
        if stray:
            raise TemplateError(f"Template '{self.name}': unbalanced '{self.text[stray[0]]}' at position {stray[0]}; "
                                "slots look like {a:1..10}.")
        self._parts.append(rest)
        if not self.slots:
            raise TemplateError(f"Template '{self.name}' has no slots; mark numbers as {{a:1..10}}.")

    def _reader_pattern(self) -> str:
        out, seen = [], set()
        for part in self._parts:
            if isinstance(part, tuple):
                name = part[0]
                out.append(f"(?P={name})" if name in seen else f"(?P<{name}>{_NUM})")
                seen.add(name)
            else:
                out.append(r"\s+".join(re.escape(w) for w in part.split()) if part.strip() else r"\s*")
                if part[:1].isspace():
                    out.insert(len(out) - 1, r"\s*")
                if part[-1:].isspace():
                    out.append(r"\s*")
        return "".join(out)

    # ------------------------------------------------------------------ use
    def check_values(self, values: Mapping[str, Any]) -> None:
        missing = [k for k in self.slots if k not in values]
        if missing:
            raise DataError(f"Template '{self.name}': values for slot(s) {missing} are missing; got {dict(values)}.")

    def render(self, values: Mapping[str, Any]) -> str:
        """The problem text with ``values`` in the slots."""
        self.check_values(values)
        return "".join(p if isinstance(p, str) else format_value(values[p[0]]) for p in self._parts)

    def solve(self, values: Mapping[str, Any]) -> Fraction:
        """The exact answer for ``values``."""
        self.check_values(values)
        try:
            return Fraction(self.answer(values))
        except ZeroDivisionError:
            raise DataError(f"Template '{self.name}': the answer {self.answer.source!r} divides by zero for {dict(values)}; "
                            "add a constraint such as 'b != 0'.") from None

    def satisfied(self, values: Mapping[str, Any]) -> bool:
        """Whether every constraint holds."""
        try:
            return all(bool(c(values)) for c in self.constraints)
        except ZeroDivisionError:
            return False

    def sample_values(self, rng: np.random.Generator) -> dict[str, Number]:
        """Values drawn uniformly for each slot until the constraints hold."""
        if self._pools is None:
            self._pools = {k: s.values_list() for k, s in self.slots.items()}
        pools = self._pools
        for _ in range(self.max_tries):
            values = {k: pool[int(rng.integers(len(pool)))] for k, pool in pools.items()}
            if self.satisfied(values):
                try:
                    self.solve(values)
                except DataError:
                    continue
                return values
        raise DataError(f"Template '{self.name}': no draw of {self.max_tries} satisfied the constraints "
                        f"{[c.source for c in self.constraints]}; widen the slot ranges or relax the constraints.")

    def sample(self, rng: np.random.Generator) -> dict[str, Any]:
        """One problem: ``{"input", "target", "values", "template"}``."""
        values = self.sample_values(rng)
        return {"input": self.render(values), "target": format_value(self.solve(values)),
                "values": values, "template": self.name}

    def generate(self, n: int, *, seed: int = 0) -> pd.DataFrame:
        """``n`` problems as a frame (``id``, ``input``, ``target``, ``template``, ``values``).

        >>> ProblemTemplate("{a:1..5} + {b:1..5} = ?", answer="a + b", name="add").generate(2, seed=1)["id"].tolist()
        ['add-0', 'add-1']
        """
        if n < 1:
            raise ConfigError(f"Template '{self.name}': n={n} problems; ask for at least 1.")
        rng = np.random.default_rng(seed)
        rows = [self.sample(rng) for _ in range(n)]
        frame = pd.DataFrame.from_records(rows)
        frame.insert(0, "id", [f"{self.name}-{i}" for i in range(n)])
        frame["values"] = [{k: format_value(v) for k, v in r["values"].items()} for r in rows]
        return frame

    def read(self, text: str) -> dict[str, Number] | None:
        """The slot values of a rendered text (spacing and case may differ), or None if it does not match."""
        m = self._reader.fullmatch(text.strip())
        if m is None:
            return None
        return {k: _number(m.group(k)) for k in self.slots}

    def check(self, text: str, target: Any) -> bool:
        """Whether ``target`` is the solver's answer for the numbers in ``text``.

        >>> t = ProblemTemplate("double {a:1..9}?", answer="2 * a", name="dbl")
        >>> t.check("double 4?", "8"), t.check("double 5?", "8")
        (True, False)
        """
        values = self.read(text)
        if values is None:
            raise DataError(f"Template '{self.name}' does not match the text {text[:80]!r}; it cannot be checked.")
        try:
            return Fraction(str(target).strip()) == self.solve(values)
        except ValueError:
            return False


def _as_slot(name: str, spec: Any, template: str) -> Slot:
    if isinstance(spec, Slot):
        return spec
    if isinstance(spec, range):
        return Slot(name, values=tuple(spec))
    if isinstance(spec, tuple) and len(spec) in (2, 3):
        return Slot(name, *spec)
    if isinstance(spec, (list, np.ndarray)) and len(spec):
        return Slot(name, values=tuple(spec))
    raise TemplateError(f"Template '{template}': slot '{name}' = {spec!r}; give (low, high), (low, high, step), "
                        "a list of values, a range, or a Slot.")


def _parse_spec(name: str, spec: str, template: str, pos: int) -> Slot:
    where = f"Template '{template}': slot '{name}' at position {pos}"
    try:
        if "|" in spec:
            return Slot(name, values=tuple(_number(v.strip()) for v in spec.split("|")))
        if ".." in spec:
            low_text, _, rest = spec.partition("..")
            high_text, slash, step_text = rest.partition("/")
            low, high = _number(low_text.strip()), _number(high_text.strip())
            step = _number(step_text.strip()) if slash else None
            if high < low or (step is not None and step <= 0):
                raise TemplateError(f"{where}: range {spec!r} is empty; write low..high with low <= high and step > 0.")
            return Slot(name, low, high, step)
    except ValueError as e:
        if isinstance(e, TemplateError):
            raise
    raise TemplateError(f"{where}: cannot read {spec!r}; write {{{name}:1..10}}, {{{name}:0.5..5/0.5}} or {{{name}:2|3|5}}.")


def verify_labels(dataset: Any, template: ProblemTemplate, *, column: str = "input") -> list[str]:
    """Ids of examples whose target is not the solver's answer for the numbers in their text.

    Use it on a perturbed dataset to prove a perturbation kept (or recomputed) every label.

    >>> import pandas as pd
    >>> from gengap import Dataset
    >>> t = ProblemTemplate("{a:1..9} + {b:1..9}?", answer="a + b", name="add")
    >>> ds = Dataset.from_frame(pd.DataFrame({"input": ["2 + 3?", "4 + 4?"], "target": ["5", "9"]}))
    >>> verify_labels(ds, t)
    ['1']
    """
    texts = dataset.inputs if column == "input" else dataset.column(column).tolist()
    return [i for i, text, target in zip(dataset.ids, texts, dataset.targets) if not template.check(str(text), target)]

