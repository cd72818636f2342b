"""The perturbation interface: a pure, seeded change of one example, applied to a whole Dataset.

A perturbation fills one hook, ``perturb(example, rng) -> example`` (``example`` is a dict with
``id``, ``input``, ``target`` and the metadata columns; return a changed copy), and declares its
``name``, ``family`` and whether it ``preserves_label``. :meth:`Perturbation.apply` does the rest
once for all of them: draws from a generator seeded by ``(seed, name)``, keeps every id (so the
runner pairs each variant with its clean example), records ``parent_id`` and ``perturbation`` in the
metadata, and refuses a variant whose label changed when the perturbation says it keeps labels.

For multiple-choice items the label is the gold *option*, not its letter: shuffling options moves
the letter and keeps the label, which :meth:`Perturbation.apply` checks through the ``choice_origin``
metadata (the original position of each option) that multiple-choice perturbations maintain.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from gengap._errors import ConfigError, DataError
from gengap.dataset import Dataset

__all__ = [
    "Perturbation",
    "FunctionPerturbation",
    "perturbation",
    "map_text",
]

Example = dict[str, Any]
PerturbFn = Callable[[Example, np.random.Generator], Example]


def map_text(value: Any, fn: Callable[[str], str]) -> Any:
    """Apply ``fn`` to a text input, or to every text field of a dict input.

    >>> map_text({"q": "hi", "n": 3}, str.upper)
    {'q': 'HI', 'n': 3}
    """
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, dict):
        return {k: fn(v) if isinstance(v, str) else v for k, v in value.items()}
    return value


def _label_key(example: Example) -> Any:
    """What must stay equal when a perturbation preserves labels."""
    choices = example.get("choices")
    origin = example.get("choice_origin")
    target = example.get("target")
    if isinstance(choices, (list, tuple)) and isinstance(target, str) and len(target) == 1 and target.isalpha():
        index = ord(target.upper()) - ord("A")
        if origin is not None and 0 <= index < len(origin):
            return ("option", int(origin[index]))
        if 0 <= index < len(choices):
            return ("option", str(choices[index]))
    return ("target", str(target))


class Perturbation:
    """Base class: set ``name``, ``family``, ``preserves_label`` and fill :meth:`perturb`.

    Subclasses that need the whole set of examples at once (to borrow answers from other
    questions, say) fill :meth:`perturb_all` instead.

    >>> class Shout(Perturbation):
    ...     name, family = "shout", "format"
    ...     def perturb(self, example, rng):
    ...         return {**example, "input": example["input"].upper()}
    >>> from gengap import Dataset
    >>> Shout().apply(Dataset.from_records([{"input": "hi", "target": "x"}])).inputs
    ['HI']
    """

    name: str = "perturbation"
    family: str = "custom"
    preserves_label: bool = True

    def perturb(self, example: Example, rng: np.random.Generator) -> Example:  # pragma: no cover - interface
        raise NotImplementedError(f"{type(self).__name__} must implement perturb(example, rng) or perturb_all.")

    def perturb_all(self, examples: list[Example], rng: np.random.Generator) -> list[Example]:
        """Perturb every example (default: one at a time, in order, from one generator)."""
        return [self.perturb(dict(ex), rng) for ex in examples]

    def rng(self, seed: int | None) -> np.random.Generator:
        """The generator for ``seed``: the same seed and name always give the same draws."""
        return np.random.default_rng([int(seed or 0) & 0xFFFFFFFF, zlib.crc32(self.name.encode())])

    def apply(self, dataset: Dataset, seed: int | None = 0) -> Dataset:
        """The perturbed dataset: same ids, ``parent_id`` and ``perturbation`` added as metadata."""
        records = dataset.to_records()
        changed = self.perturb_all([dict(r) for r in records], self.rng(seed))
        if len(changed) != len(records):
            raise DataError(f"Perturbation '{self.name}' returned {len(changed)} examples for {len(records)}; "
                            "it must return exactly one variant per example.")
        for before, after in zip(records, changed):
            if not isinstance(after, dict) or "input" not in after:
                raise DataError(f"Perturbation '{self.name}' must return a dict with 'input' for example "
                                f"'{before['id']}'; got {type(after).__name__}.")
            after["id"] = before["id"]
            if self.preserves_label and _label_key(before) != _label_key(after):
                raise DataError(
                    f"Perturbation '{self.name}' is marked preserves_label=True but changed the label of example "
                    f"'{before['id']}' ({before.get('target')!r} -> {after.get('target')!r}). Fix the perturbation or "
                    "mark it preserves_label=False."
                )
            after.setdefault("parent_id", before.get("parent_id", before["id"]))
            after["perturbation"] = self.name
        frame = pd.DataFrame.from_records(changed)
        return Dataset(frame, name=f"{dataset.name}~{self.name}", source=dataset.source)

    def __call__(self, example: Example, rng: np.random.Generator) -> Example:
        return self.perturb(dict(example), rng)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, family={self.family!r})"


class FunctionPerturbation(Perturbation):
    """A plain function ``(example, rng) -> example`` (or ``(text, rng) -> text``) as a perturbation.

    ``on="input"`` passes the input text (each text field of a dict input) instead of the example.
    """

    def __init__(self, fn: Callable[..., Any], *, name: str | None = None, family: str = "custom",
                 preserves_label: bool = True, on: str = "example") -> None:
        if not callable(fn):
            raise ConfigError(f"A perturbation must be a function (example, rng) -> example; got {fn!r}.")
        if on not in ("example", "input"):
            raise ConfigError(f"perturbation(on={on!r}): use 'example' or 'input'.")
        self.fn = fn
        self.name = name or getattr(fn, "__name__", "custom")
        self.family = family
        self.preserves_label = preserves_label
        self.on = on

    def perturb(self, example: Example, rng: np.random.Generator) -> Example:
        if self.on == "input":
            return {**example, "input": map_text(example["input"], lambda t: self.fn(t, rng))}
        out = self.fn(dict(example), rng)
        return out


def perturbation(fn: Callable[..., Any] | None = None, *, name: str | None = None, family: str = "custom",
                 preserves_label: bool = True, on: str = "example") -> Any:
    """Turn a function into a perturbation; usable bare (``@perturbation``) or with options.

    >>> @perturbation(family="format", on="input")
    ... def exclaim(text, rng):
    ...     return text + "!"
    >>> exclaim.name, exclaim.family, exclaim({"input": "hi"}, None)["input"]
    ('exclaim', 'format', 'hi!')
    """
    def wrap(f: Callable[..., Any]) -> FunctionPerturbation:
        return FunctionPerturbation(f, name=name, family=family, preserves_label=preserves_label, on=on)

    return wrap(fn) if fn is not None else wrap
