"""Synthetic facts and queries that compose them (after "Grokked Transformers are Implicit Reasoners").

A random knowledge base maps each ``(entity, relation)`` to an entity (``"e3 r1"`` -> ``"e17"``) and
each ``(entity, attribute)`` to a value. Queries compose the atomic facts:

- **composition** (``kind="composition"``): ``"e3 r1 r4"`` -> the entity reached by following
  ``r1`` then ``r4`` from ``e3`` (``hops`` relations);
- **comparison** (``kind="comparison"``): ``"a2 e3 e9"`` -> ``<``, ``=`` or ``>`` as attribute
  ``a2`` of ``e3`` compares with that of ``e9``.

A share ``ood_fraction`` of the entities is *out-of-distribution*: their atomic facts are in
training, but no training query goes through them. The ``query_set`` column says which part an
example belongs to:

===========  ==============================================================
``atomic``   every atomic fact (always trained on)
``train``    queries over in-distribution entities, trained on
``test_id``  held-out queries over in-distribution entities
``test_ood`` queries that go through an out-of-distribution entity
===========  ==============================================================

The natural splits ``id`` and ``ood`` train on ``atomic+train`` and test on ``test_id`` and
``test_ood``: the paper finds grokked Transformers generalize in-distribution on both kinds but
out-of-distribution only on comparison.

>>> ds = facts(n_entities=20, n_relations=3, hops=2, n_queries=50, seed=0)
>>> ds.to_records()[0]["input"], sorted(set(ds.column("query_set")))
('e0 r0', ['atomic', 'test_id', 'test_ood', 'train'])
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gengap._errors import ConfigError
from gengap.dataset import Dataset
from gengap.tasks._registry import Param, task
from gengap.tasks._text import Text
from gengap.tasks.algorithmic import make_dataset

__all__ = ["facts"]


def _tokens(prefix: str, values: np.ndarray) -> Text:
    return Text.cat(prefix, Text.number(values))


def _check(p: dict[str, Any]) -> None:
    n_ood = int(round(p["ood_fraction"] * p["n_entities"]))
    if n_ood < 1 or n_ood >= p["n_entities"]:
        raise ConfigError(f"ood_fraction={p['ood_fraction']} of n_entities={p['n_entities']} gives {n_ood} "
                          "out-of-distribution entities; it must leave at least one entity in each set.")


_SPLITS = {"id": "preset:column=query_set,train=atomic+train,test=test_id",
           "ood": "preset:column=query_set,train=atomic+train,test=test_ood"}


@task("facts", "Synthetic facts with k-hop composition or comparison queries, in- and out-of-distribution query sets.",
      [Param("kind", str, "composition", "query type", choices=("composition", "comparison")),
       Param("n_entities", int, 200, "entities in the knowledge base", 2, 1_000_000),
       Param("n_relations", int, 10, "relations (composition) or attributes (comparison)", 1, 1000),
       Param("n_values", int, 20, "attribute values (comparison)", 2, 10_000),
       Param("hops", int, 2, "relations per composition query", 1, 8),
       Param("n_queries", int, 20_000, "queries drawn (all of them when fewer exist)", 1, 50_000_000),
       Param("ood_fraction", float, 0.1, "share of entities held out of every training query", 0.0, 1.0),
       Param("train_fraction", float, 0.8, "share of in-distribution queries trained on", 0.0, 1.0)],
      splits=_SPLITS, check=_check)
def facts(*, kind: str = "composition", n_entities: int = 200, n_relations: int = 10, n_values: int = 20, hops: int = 2,
          n_queries: int = 20_000, ood_fraction: float = 0.1, train_fraction: float = 0.8, seed: int = 0) -> Dataset:
    """Atomic facts first (``query_set="atomic"``), then the queries. Metadata: ``kind``, ``hops``
    (1 for atomic facts, 2 for comparisons), ``query_set``. Composition queries are distinct when
    the query space has at most 50 million entries (drawn with replacement beyond that);
    comparison queries are drawn with replacement."""
    rng = np.random.default_rng(seed)
    E, R = n_entities, n_relations
    ood = np.zeros(E, dtype=bool)
    ood[rng.choice(E, size=int(round(ood_fraction * E)), replace=False)] = True
    ents = np.arange(E)
    heads, rels = (g.ravel() for g in np.meshgrid(ents, np.arange(R), indexing="ij"))
    if kind == "composition":
        table = rng.integers(0, E, size=(E, R))
        atomic_in = Text.cat(_tokens("e", heads), " ", _tokens("r", rels))
        atomic_out = _tokens("e", table[heads, rels])
        space = E * R ** hops
        pick = rng.choice(space, size=min(n_queries, space), replace=False) if space <= 50_000_000 else \
            rng.integers(0, space, size=n_queries)
        parts = np.unravel_index(pick, (E,) + (R,) * hops)
        current, through_ood = parts[0], ood[parts[0]].copy()
        text = _tokens("e", parts[0])
        for r in parts[1:]:
            text = Text.cat(text, " ", _tokens("r", r))
            current = table[current, r]
            if r is not parts[-1]:
                through_ood |= ood[current]
        q_in, q_out, q_hops = text, _tokens("e", current), np.full(len(pick), hops)
    else:
        values = rng.integers(0, n_values, size=(E, R))
        atomic_in = Text.cat(_tokens("e", heads), " ", _tokens("a", rels))
        atomic_out = _tokens("v", values[heads, rels])
        m = min(n_queries, E * E * R)
        attr, e1, e2 = rng.integers(0, R, size=m), rng.integers(0, E, size=m), rng.integers(0, E, size=m)
        q_in = Text.cat(_tokens("a", attr), " ", _tokens("e", e1), " ", _tokens("e", e2))
        v1, v2 = values[e1, attr], values[e2, attr]
        q_out = Text.symbols(np.where(v1 < v2, ord("<"), np.where(v1 > v2, ord(">"), ord("=")))[:, None])
        through_ood, q_hops = ood[e1] | ood[e2], np.full(m, 2)
    query_set = np.where(through_ood, "test_ood", np.where(rng.random(len(q_in)) < train_fraction, "train", "test_id"))
    n_atomic = len(atomic_in)
    return make_dataset(f"facts-{kind}", pd.concat([atomic_in.column(), q_in.column()], ignore_index=True),
                        pd.concat([atomic_out.column(), q_out.column()], ignore_index=True), {
                            "kind": np.full(n_atomic + len(q_in), kind, dtype=object),
                            "hops": np.concatenate([np.ones(n_atomic, dtype=np.int64), q_hops]),
                            "query_set": np.concatenate([np.full(n_atomic, "atomic"), query_set]).astype(object)},
                        seed=seed)
