"""Outputs that carry a confidence: what a model says, and how sure it is.

A model may give, per input, a plain output or one of

- a :class:`Scored` text (what gengap's scikit-learn adapter returns when the estimator has
  ``predict_proba``): the label, with ``probabilities`` per label and ``confidence`` in the label;
- a mapping ``{"output": label, "probabilities": {label: p, ...}}`` or ``{"output": label, "confidence": p}``
  (a Python function's way to say it);
- a :class:`gengap.models.http.Completion` whose details hold per-option log-likelihoods
  (multiple choice by log-likelihood: the softmax over the options) or ``answer_logprob`` (the
  summed log-probability of the answer's tokens: ``exp`` of it);
- text that states it: "I'm about 80% sure", "Confidence: 0.7" (:func:`verbal_confidence`).

:func:`split_confidences` turns a batch of any of these into the plain outputs, a confidence per
output (NaN where none was given) and the probabilities (None where none were given); the runner
stores all three per row.

>>> outs, conf, probs = split_confidences([{"output": "yes", "probabilities": {"yes": 0.7, "no": 0.3}},
...                                        "no (I am 90% sure)", "maybe"])
>>> outs, conf.tolist(), probs[0]
(['yes', 'no (I am 90% sure)', 'maybe'], [0.7, 0.9, nan], {'yes': 0.7, 'no': 0.3})
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["Scored", "Completion", "split_confidences", "verbal_confidence", "encode_cached", "decode_cached"]


class Completion(str):
    """A model's answer text with what it cost: ``details`` holds ``prompt_tokens``,
    ``completion_tokens``, ``latency_s``, ``finish_reason`` and, for multiple choice by
    log-likelihood, the per-option ``loglik``, ``n_tokens`` and ``loglik_norm``.

    >>> c = Completion(" 12", {"completion_tokens": 2})
    >>> c.strip(), c.details["completion_tokens"]
    ('12', 2)
    """

    details: dict[str, Any]

    def __new__(cls, text: str, details: Mapping[str, Any] | None = None) -> Completion:
        obj = super().__new__(cls, text)
        obj.details = dict(details or {})
        return obj

    def __reduce__(self) -> tuple[Any, ...]:
        return (Completion, (str(self), self.details))


class Scored(str):
    """An output label with the model's probabilities per label (and its confidence in this one).

    >>> s = Scored("cat", {"cat": 0.8, "dog": 0.2})
    >>> s, s.confidence
    ('cat', 0.8)
    """

    probabilities: dict[str, float] | None
    confidence: float

    def __new__(cls, text: str, probabilities: Mapping[Any, float] | None = None, confidence: float | None = None) -> Scored:
        obj = super().__new__(cls, text)
        obj.probabilities = None if probabilities is None else {str(k): float(v) for k, v in probabilities.items()}
        if confidence is None and obj.probabilities is not None:
            confidence = obj.probabilities.get(str(text), max(obj.probabilities.values(), default=math.nan))
        obj.confidence = math.nan if confidence is None else float(confidence)
        return obj

    def __reduce__(self) -> tuple[Any, ...]:
        return (Scored, (str(self), self.probabilities, self.confidence))


_NUMBER = r"(\d{1,3}(?:\.\d+)?)"
_VERBAL = [
    re.compile(rf"{_NUMBER}\s*%\s*(?:sure|confident|certain|confidence|likely|probability)", re.I),
    re.compile(rf"(?:confidence|certainty|probability)\s*(?:level|score)?\s*(?:is|of|:|=)?\s*(?:about|around|roughly)?\s*{_NUMBER}\s*(%)?",
               re.I),
    re.compile(rf"(?:sure|confident|certain)\s*(?:at|:)?\s*(?:about|around|roughly)?\s*{_NUMBER}\s*%", re.I),
]


def verbal_confidence(text: str) -> float | None:
    """A confidence an output states in words, as a probability (None when it states none).

    >>> verbal_confidence("Paris. I'm about 80% sure."), verbal_confidence("Confidence: 0.65")
    (0.8, 0.65)
    >>> verbal_confidence("It rose 80% last year.") is None
    True
    """
    for k, pattern in enumerate(_VERBAL):
        m = pattern.search(text)
        if m is None:
            continue
        value = float(m.group(1))
        percent = k != 1 or (m.group(2) is not None) or value > 1
        value = value / 100 if percent else value
        if 0 <= value <= 1:
            return value
    return None


def _from_mapping(x: Mapping[str, Any]) -> tuple[Any, float, dict[str, float] | None]:
    probs = x.get("probabilities")
    probs = None if probs is None else {str(k): float(v) for k, v in dict(probs).items()}
    conf = x.get("confidence")
    output = x.get("output")
    if conf is None and probs is not None:
        conf = probs.get(str(output).strip(), max(probs.values(), default=math.nan))
    return output, math.nan if conf is None else float(conf), probs


def _softmax(values: Sequence[float]) -> np.ndarray:
    v = np.asarray(values, dtype=np.float64)
    e = np.exp(v - v.max())
    return e / e.sum()


def split_confidences(outputs: Sequence[Any], options: Sequence[Sequence[Any]] | None = None,
                      written: Sequence[Any] | None = None, *, by: str = "sum") -> tuple[list[Any], np.ndarray, list[dict[str, float] | None]]:
    """Plain outputs, the confidence in each (NaN: none given) and the probabilities per label (None: not given).

    ``options`` (per row, for multiple choice by log-likelihood) and ``written`` (the chosen option as
    the targets write it, letter or text) name the probabilities of a log-likelihood choice; ``by``
    ("sum" or "mean") says which log-likelihood chose it (the softmax is taken over that one).
    """
    plain: list[Any] = []
    conf = np.full(len(outputs), np.nan)
    probs: list[dict[str, float] | None] = [None] * len(outputs)
    for i, o in enumerate(outputs):
        if isinstance(o, Scored):
            plain.append(str(o))
            conf[i], probs[i] = o.confidence, o.probabilities
            continue
        if isinstance(o, Mapping) and "output" in o:
            out, conf[i], probs[i] = _from_mapping(o)
            plain.append(out)
            continue
        details = getattr(o, "details", None) or {}
        plain.append(o)
        if "loglik" in details and options is not None:
            ranked = details.get("loglik_norm", details["loglik"]) if by == "mean" else details["loglik"]
            p = _softmax(ranked)
            names = _option_names(options[i], written[i] if written is not None else None)
            probs[i] = {name: float(v) for name, v in zip(names, p)}
            conf[i] = float(p.max())
        elif details.get("answer_logprob") is not None:
            conf[i] = float(math.exp(float(details["answer_logprob"])))
        elif isinstance(o, str):
            said = verbal_confidence(o)
            if said is not None:
                conf[i] = said
    return plain, conf, probs


def _option_names(options: Sequence[Any], written: Any) -> list[str]:
    """Options as the targets write them: letters when the chosen one was written as a letter."""
    texts = [str(o) for o in options]
    if isinstance(written, str) and written not in texts and len(written.strip()) == 1 and written.strip().isalpha():
        return [chr(ord("A") + j) for j in range(len(texts))]
    return texts


#: The details of an endpoint's answer that its confidence is computed from (kept in the cache).
_CONFIDENCE_DETAILS = ("answer_logprob", "loglik", "loglik_norm", "n_tokens")
#: Start of a cached output that carries a confidence (a character no model writes).
_MARK = "\x00gengap-scored\x00"


def encode_cached(output: Any) -> str:
    """The cache's text for an output: itself, or (with a confidence) a marked JSON record.

    >>> decode_cached(encode_cached(Scored("a", {"a": 0.9, "b": 0.1}))).probabilities
    {'a': 0.9, 'b': 0.1}
    """
    if isinstance(output, Scored):
        return _MARK + json.dumps({"output": str(output), "probabilities": output.probabilities,
                                   "confidence": None if math.isnan(output.confidence) else output.confidence})
    if isinstance(output, Mapping) and "output" in output:
        return _MARK + json.dumps(dict(output), default=str)
    kept = {k: v for k, v in (getattr(output, "details", None) or {}).items() if k in _CONFIDENCE_DETAILS}
    if kept:  # an endpoint's answer: what its confidence is computed from travels with the text
        return _MARK + json.dumps({"text": str(output), "details": kept})
    return str(output)


def decode_cached(text: str) -> Any:
    """The output :func:`encode_cached` stored."""
    if isinstance(text, str) and text.startswith(_MARK):
        record = json.loads(text[len(_MARK):])
        if "details" in record:
            answer = Completion(str(record["text"]), record["details"])
            answer.cached = True  # type: ignore[attr-defined]  # its cost details were not stored again
            return answer
        return Scored(str(record["output"]), record.get("probabilities"), record.get("confidence"))
    return text
