"""Perturbations combined: a spec, a function or an object as a perturbation, several applied in
order as one variant (:class:`Compose`), in pairs, and all together.

>>> [p.name for p in with_combinations(["casing:mode=upper", "whitespace"])]
['casing:mode=upper', 'whitespace', 'all']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations as _pairs
from typing import Any

import numpy as np

from gengap._errors import ConfigError
from gengap.perturb._base import Example, FunctionPerturbation, Perturbation
from gengap.perturb._registry import make_perturbation

__all__ = ["Compose", "as_perturbation", "pairs", "all_together", "with_combinations"]


def as_perturbation(obj: Any) -> Perturbation:
    """A Perturbation from a Perturbation, a spec string (``"typos:rate=0.05"``) or a function."""
    if isinstance(obj, Perturbation):
        return obj
    if isinstance(obj, str):
        return make_perturbation(obj)
    if callable(obj):
        return FunctionPerturbation(obj)
    raise ConfigError(f"Cannot use {obj!r} as a perturbation: give a Perturbation, a spec such as 'typos:rate=0.05', "
                      "or a function (example, rng) -> example.")


class Compose(Perturbation):
    """Several perturbations applied in order, as one variant (``"typos+shuffle_choices"``).

    >>> from gengap.perturb import make_perturbation
    >>> Compose([make_perturbation("casing:mode=upper"), make_perturbation("trailing_punctuation:mode=strip")]).name
    'casing:mode=upper+trailing_punctuation:mode=strip'
    """

    family = "combined"

    def __init__(self, parts: Sequence[Any], *, name: str | None = None) -> None:
        self.parts = [as_perturbation(p) for p in parts]
        if len(self.parts) < 2:
            raise ConfigError(f"Compose needs at least two perturbations; got {len(self.parts)}.")
        self.name = name or "+".join(p.name for p in self.parts)
        self.preserves_label = all(p.preserves_label for p in self.parts)

    def perturb_all(self, examples: list[Example], rng: np.random.Generator) -> list[Example]:
        for part in self.parts:
            examples = part.perturb_all([dict(e) for e in examples], rng)
        return examples


def pairs(perturbations: Iterable[Any]) -> list[Compose]:
    """Every pair of the given perturbations, composed."""
    items = [as_perturbation(p) for p in perturbations]
    return [Compose([a, b]) for a, b in _pairs(items, 2)]


def all_together(perturbations: Iterable[Any]) -> Compose:
    """All the given perturbations composed into one variant, named ``"all"``."""
    return Compose([as_perturbation(p) for p in perturbations], name="all")


def with_combinations(perturbations: Iterable[Any], *, include_pairs: bool = True, include_all: bool = True) -> list[Perturbation]:
    """The perturbations one at a time, then in pairs, then all together (each axis alone and crossed).

    >>> [p.name for p in with_combinations(["casing:mode=upper", "whitespace", "typos"], include_pairs=False)]
    ['casing:mode=upper', 'whitespace', 'typos', 'all']
    """
    items = [as_perturbation(p) for p in perturbations]
    out: list[Perturbation] = list(items)
    if include_pairs and len(items) > 2:
        out += pairs(items)
    if include_all and len(items) > 1:
        out.append(all_together(items))
    names = [p.name for p in out]
    if len(set(names)) != len(names):
        raise ConfigError(f"Perturbation names must be unique within a run; got {names}.")
    return out
