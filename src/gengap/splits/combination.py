"""Held-out combinations: every part is seen in training, some combinations of parts are not."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from gengap._errors import ConfigError, DataError
from gengap.dataset import Dataset
from gengap.splits._base import Splitter, TaxonomyCard

__all__ = ["HeldOutPrimitive"]


class HeldOutPrimitive(Splitter):
    """A primitive is seen only on its own in training and tested in every composition (SCAN add-primitive).

    Training keeps every example without the primitive plus the examples whose input is the primitive
    alone; test is every other example that contains it. A model that composes should handle
    "jump twice" having seen "jump" and "walk twice".

    Parameters
    ----------
    primitive : the atom (a word of the input) to hold out of compositions.

    >>> import gengap
    >>> ds = gengap.load([{"input": s, "target": "-"} for s in ["jump", "walk", "walk twice", "jump twice"]])
    >>> gengap.HeldOutPrimitive(primitive="jump").split_dataset(ds).test.tolist()
    [3]
    """

    method = "primitive"
    card = TaxonomyCard(
        motivation="cognitive", generalisation_type="compositional", shift_type="covariate", shift_source="partitioned_natural",
        description="A primitive seen only alone in training is tested in every composition: systematic compositionality.",
    )

    def __init__(self, *, primitive: str = "jump") -> None:
        if not isinstance(primitive, str) or not primitive.strip() or len(primitive.split()) != 1:
            raise ConfigError(f"primitive={primitive!r} must be a single word of the input, such as 'jump'.")
        self.primitive = primitive

    def _iter_indices(self, dataset: Dataset, rng: np.random.Generator) -> Iterator[tuple[np.ndarray, np.ndarray, dict[str, Any]]]:
        tokens = [self.atoms(x) for x in dataset.inputs]
        has = np.fromiter((self.primitive in t for t in tokens), dtype=bool, count=len(tokens))
        alone = np.fromiter((t == [self.primitive] for t in tokens), dtype=bool, count=len(tokens))
        if not has.any():
            raise DataError(
                f"No input of '{dataset.name}' contains the primitive '{self.primitive}'. Choose a word that occurs, "
                f"e.g. {sorted({w for t in tokens[:200] for w in t})[:8]}."
            )
        if not alone.any():
            raise DataError(
                f"'{dataset.name}' has no example whose input is '{self.primitive}' alone, so the model could never "
                "learn it. Add one, or use a held-out combination split."
            )
        test = np.flatnonzero(has & ~alone)
        train = np.flatnonzero(~has | alone)
        yield train, test, {
            "name": f"primitive:{self.primitive}",
            "held_out": f"every composition of '{self.primitive}' (seen alone in {int(alone.sum())} training example(s))",
            "primitive": self.primitive,
        }
