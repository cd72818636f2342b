"""The task registry: every built-in generator with its documented parameters and natural splits.

A task is a seeded generator ``(seed, **params) -> Dataset`` plus what a user needs to run it:
a one-line description, typed parameters with defaults and valid ranges (checked before the
generator runs, so a bad value is a :class:`~gengap.ConfigError` naming the parameter and its
range), and the splits that test the generalization the task is built for, written as splitter
specs (``"length:by=n_digits,max_train_length=5"``) that ``gengap eval --split`` and
:func:`gengap.evaluate` accept.

>>> from gengap.tasks import generate, get_task
>>> ds = generate("addition", seed=0, n=5, max_digits=3)
>>> len(ds), ds.metadata_columns[:2]
(5, ['n_digits', 'n_digits_a'])
>>> get_task("addition").split_specs(max_digits=10)["length"]
'length:by=n_digits,max_train_length=5'
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gengap._errors import ConfigError, did_you_mean
from gengap._registry import Registry
from gengap.dataset import Dataset
from gengap.splits._base import Splitter

__all__ = ["Param", "Task", "register_task", "task", "tasks", "get_task", "generate", "natural_splits"]

SplitSpec = str | Callable[[dict[str, Any]], str]


@dataclass(frozen=True)
class Param:
    """One parameter of a task: its type, default, what it means and which values are valid.

    ``low``/``high`` bound numbers (inclusive); ``choices`` lists the valid values of a string.
    """

    name: str
    type: type
    default: Any
    doc: str
    low: float | None = None
    high: float | None = None
    choices: tuple[Any, ...] | None = None

    def valid_range(self) -> str:
        """The valid values in words, as error messages and ``gengap tasks list`` show them."""
        if self.choices is not None:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        kind = {int: "an integer", float: "a number", bool: "true or false", str: "a string"}.get(self.type, self.type.__name__)
        if self.low is not None and self.high is not None:
            return f"{kind} in [{_fmt(self.low)}, {_fmt(self.high)}]"
        if self.low is not None:
            return f"{kind} >= {_fmt(self.low)}"
        if self.high is not None:
            return f"{kind} <= {_fmt(self.high)}"
        return kind

    def check(self, value: Any, task_name: str) -> Any:
        """``value`` converted to the parameter's type, or a ConfigError naming the parameter and its range."""
        def bad() -> ConfigError:
            return ConfigError(f"Task '{task_name}': {self.name}={value!r} is invalid; it must be {self.valid_range()}. "
                               f"({self.doc})")

        if self.type is bool:
            if isinstance(value, (bool, np.bool_)):
                value = bool(value)
            elif isinstance(value, str) and value.lower() in ("true", "false"):
                value = value.lower() == "true"
            else:
                raise bad()
        elif self.type is int:
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer, float, str)):
                raise bad()
            try:
                as_float = float(value)
            except ValueError:
                raise bad() from None
            if not as_float.is_integer():
                raise bad()
            value = int(as_float)
        elif self.type is float:
            if isinstance(value, (bool, np.bool_)):
                raise bad()
            try:
                value = float(value)
            except (TypeError, ValueError):
                raise bad() from None
            if not np.isfinite(value):
                raise bad()
        elif self.type is str:
            if not isinstance(value, str):
                raise bad()
        if self.choices is not None and value not in self.choices:
            raise ConfigError(f"Task '{task_name}': {self.name}={value!r} is invalid; it must be {self.valid_range()}."
                              f"{did_you_mean(str(value), [str(c) for c in self.choices])}")
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            raise bad()
        return value


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


@dataclass(frozen=True)
class Task:
    """A registered generator: name, description, parameters, natural splits.

    Attributes
    ----------
    name : how ``gengap tasks generate NAME`` and :func:`generate` call it.
    description : one line for ``gengap tasks list``.
    params : the parameters besides ``seed``, in order.
    generator : ``(seed, **params) -> Dataset``; called with every parameter filled and checked.
    splits : split name -> splitter spec, or a function of the parameters returning one.
    check : an optional cross-parameter check (e.g. ``min_digits <= max_digits``) raising ConfigError.
    """

    name: str
    description: str
    params: tuple[Param, ...]
    generator: Callable[..., Dataset]
    splits: Mapping[str, SplitSpec] = field(default_factory=dict)
    check: Callable[[dict[str, Any]], None] | None = None

    def resolve(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults filled in, every value checked; unknown names are an error naming the closest one."""
        known = {p.name: p for p in self.params}
        for key in params:
            if key not in known:
                raise ConfigError(f"Task '{self.name}' has no parameter '{key}'.{did_you_mean(key, known)} "
                                  f"Parameters: {', '.join(known) or '(none)'}.")
        out = {p.name: p.check(params[p.name], self.name) if p.name in params else p.default for p in self.params}
        if self.check is not None:
            self.check(out)
        return out

    def generate(self, seed: int = 0, **params: Any) -> Dataset:
        """The task's dataset for ``seed`` and ``params`` (same seed and parameters: the same dataset)."""
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ConfigError(f"Task '{self.name}': seed={seed!r} must be a non-negative integer.")
        return self.generator(int(seed), **self.resolve(params))

    def split_specs(self, **params: Any) -> dict[str, str]:
        """The natural splits as splitter specs for these parameters."""
        resolved = self.resolve(params)
        return {name: spec(resolved) if callable(spec) else spec for name, spec in self.splits.items()}

    def natural_splits(self, **params: Any) -> dict[str, Splitter]:
        """The natural splits as splitter objects, ready for :func:`gengap.evaluate`."""
        from gengap.splits import make_splitter

        return {name: make_splitter(spec) for name, spec in self.split_specs(**params).items()}


_TASKS: Registry[Task] = Registry("task", listed_as="Tasks")


def register_task(t: Task, *, replace: bool = False) -> Task:
    """Add a task to the registry (a name can be registered once unless ``replace=True``)."""
    return _TASKS.register(t.name, t, replace=replace)


def task(name: str, description: str, params: Sequence[Param], *, splits: Mapping[str, SplitSpec] | None = None,
         check: Callable[[dict[str, Any]], None] | None = None) -> Callable[[Callable[..., Dataset]], Callable[..., Dataset]]:
    """Decorator: register a generator ``fn(*, seed, **params)`` and check its arguments on every call.

    The decorated function keeps its signature; calling it directly validates like :func:`generate`.
    """
    def wrap(fn: Callable[..., Dataset]) -> Callable[..., Dataset]:
        sig = inspect.signature(fn)
        for p in params:
            if p.name not in sig.parameters or sig.parameters[p.name].default != p.default:
                raise AssertionError(f"{fn.__name__}: Param '{p.name}' does not match the signature")
        t = Task(name, description, tuple(params), lambda seed, **kw: fn(seed=seed, **kw), dict(splits or {}), check)
        register_task(t)

        @functools.wraps(fn)
        def checked(*, seed: int = 0, **kwargs: Any) -> Dataset:
            return t.generate(seed, **kwargs)

        checked.task = t  # type: ignore[attr-defined]
        return checked

    return wrap


def _load_builtin() -> None:
    import gengap.tasks  # noqa: F401  (importing the package registers every built-in task)


def tasks() -> dict[str, Task]:
    """Every registered task by name, sorted."""
    _load_builtin()
    return dict(sorted(_TASKS.items()))


def get_task(name: str) -> Task:
    """The task called ``name``, or a ConfigError listing the tasks."""
    _load_builtin()
    return _TASKS.lookup(name)


def generate(name: str, *, seed: int = 0, **params: Any) -> Dataset:
    """Generate the dataset of task ``name`` (see ``gengap tasks list`` for the parameters).

    >>> generate("parity", seed=1, n=3, min_length=4, max_length=4).inputs
    ['0 0 1 0', '1 1 0 1', '0 1 0 0']
    """
    return get_task(name).generate(seed, **params)


def natural_splits(name: str, **params: Any) -> dict[str, Splitter]:
    """The splitters that test what task ``name`` is built for, by split name.

    >>> natural_splits("addition")
    {'iid': RandomSplit(), 'length': LengthSplit(by='n_digits', max_train_length=5)}
    """
    return get_task(name).natural_splits(**params)


# ---------------------------------------------------------------------------- SCAN (module owned elsewhere; imported lazily)
def _scan(seed: int) -> Dataset:
    from gengap.tasks.scan import scan_dataset

    return scan_dataset()


register_task(Task(
    "scan", "SCAN navigation commands to action sequences (Lake & Baroni 2018): all 20,910 commands; the seed is unused.",
    (), _scan,
    {"iid": "random", "add_jump": "primitive:primitive=jump", "length": "length:by=n_actions,max_train_length=22"},
))
