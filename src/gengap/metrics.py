"""Per-example scorers: (outputs, targets) -> one float per example.

Scorers are vectorized over a batch so scoring never bottlenecks a run. Register new ones with
:func:`register_metric`. The same registry holds the corpus-level metrics of
:mod:`gengap.metrics_corpus` (``auroc``, ``macro_f1``, ``ece``, ...): figures of a whole test part,
asked for by name like the others, with options after a colon (``auroc:positive=yes``).

>>> from gengap.metrics import score
>>> score("exact_match", ["a b", "c"], ["a b", "d"]).tolist()
[1.0, 0.0]
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from gengap._errors import ConfigError
from gengap._registry import Registry
from gengap._specs import parse_spec
from gengap.metrics_corpus import METRIC_CLASSES, CorpusMetric

__all__ = ["METRICS", "register_metric", "score", "exact_match", "normalized_match", "token_f1", "get_metric",
           "is_corpus_metric", "is_share"]

Scorer = Callable[[Sequence[Any], Sequence[Any]], np.ndarray]
METRICS: Registry[Scorer] = Registry("metric", listed_as="Metrics")


def register_metric(name: str, *, replace: bool = False) -> Callable[[Scorer], Scorer]:
    """Decorator that makes a scorer available by name (``--metric NAME``); a taken name needs ``replace=True``."""

    def deco(fn: Scorer) -> Scorer:
        return METRICS.register(name, fn, replace=replace)

    return deco


def _as_text_array(values: Sequence[Any]) -> np.ndarray:
    arr = np.empty(len(values), dtype=object)
    arr[:] = [v if isinstance(v, str) else ("" if v is None else str(v)) for v in values]
    return arr


def _arrow_text(values: Sequence[Any]) -> pa.Array:
    """Values as an arrow string array (None becomes ''), fast when they already are strings."""
    try:
        arr = pa.array(values, type=pa.string())
    except (pa.ArrowTypeError, pa.ArrowInvalid):
        arr = pa.array(_as_text_array(values).tolist(), type=pa.string())
    return pc.fill_null(arr, "")


@register_metric("exact_match")
def exact_match(outputs: Sequence[Any], targets: Sequence[Any]) -> np.ndarray:
    """1.0 where the output equals the target after stripping surrounding whitespace."""
    out = pc.utf8_trim_whitespace(_arrow_text(outputs))
    tgt = pc.utf8_trim_whitespace(_arrow_text(targets))
    return pc.fill_null(pc.equal(out, tgt), False).to_numpy(zero_copy_only=False).astype(np.float64)


_PUNCT = re.compile(r"[^\w\s]")


def _normalize(text: str) -> str:
    return " ".join(_PUNCT.sub(" ", text.lower()).split())


@register_metric("normalized_match")
def normalized_match(outputs: Sequence[Any], targets: Sequence[Any]) -> np.ndarray:
    """1.0 where output and target agree after lower-casing and dropping punctuation and extra spaces."""
    return np.fromiter(
        (_normalize(o) == _normalize(t) for o, t in zip(_as_text_array(outputs), _as_text_array(targets))),
        dtype=np.float64, count=len(outputs),
    )


@register_metric("token_f1")
def token_f1(outputs: Sequence[Any], targets: Sequence[Any]) -> np.ndarray:
    """Token-overlap F1 of normalized output and target (SQuAD style)."""
    scores = np.empty(len(outputs))
    for i, (o, t) in enumerate(zip(_as_text_array(outputs), _as_text_array(targets))):
        po, pt = _normalize(o).split(), _normalize(t).split()
        common = sum((Counter(po) & Counter(pt)).values())
        if not po or not pt:
            scores[i] = float(po == pt)
        elif common == 0:
            scores[i] = 0.0
        else:
            p, r = common / len(po), common / len(pt)
            scores[i] = 2 * p * r / (p + r)
    return scores


def get_metric(name: str | Scorer) -> Scorer:
    """A scorer by name (a corpus metric may carry options: ``auroc:positive=yes``), or the callable itself.

    >>> get_metric("selective_accuracy:coverage=0.5").options
    {'coverage': 0.5}
    """
    if callable(name):
        return name
    base, _, rest = str(name).partition(":")
    entry = METRICS.lookup(base)
    if not rest:
        return entry
    if not isinstance(entry, CorpusMetric):
        raise ConfigError(f"Metric '{base}' takes no options; '{name}' gives some.")
    return entry.with_options(**parse_spec(str(name), what="Metric")[1])


def is_share(metric: str) -> bool:
    """True unless ``metric`` is a corpus metric whose figure is not a share in [0, 1] (bleu, mcc, log_loss):
    what decides whether a table prints it as a percentage.

    >>> is_share("exact_match"), is_share("auroc"), is_share("bleu")
    (True, True, False)
    """
    try:
        return bool(getattr(get_metric(metric), "share", True))
    except ConfigError:
        return True


def is_corpus_metric(name: str | Scorer) -> bool:
    """True for a metric of a whole test part (``auroc``), False for a mean of per-example scores.

    >>> is_corpus_metric("auroc:positive=yes"), is_corpus_metric("exact_match")
    (True, False)
    """
    try:
        return isinstance(get_metric(name), CorpusMetric)
    except ConfigError:
        return False


def score(metric: str | Scorer, outputs: Sequence[Any], targets: Sequence[Any]) -> np.ndarray:
    """Score a batch with a named or callable scorer; one float per example."""
    values = np.asarray(get_metric(metric)(outputs, targets), dtype=np.float64)
    if values.shape != (len(outputs),):
        raise ConfigError(f"Metric {metric!r} returned shape {values.shape} for {len(outputs)} outputs; it must return one float per example.")
    return values


for _name, _metric in METRIC_CLASSES.items():  # a row stores whether its output equals the target
    METRICS.register(_name, replace(_metric, row_score=exact_match))
