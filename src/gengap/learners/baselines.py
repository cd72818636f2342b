"""Shortcut baselines: simple learners that see only part of each example, trained on each split's train part.

A benchmark a model "solves" from the question alone, the hypothesis alone or the options alone
has a shortcut; a partial-input baseline exposes it (hypothesis-only NLI, question-only VQA,
options-only multiple choice). The trivial floors say what no reading at all gets:

==============================  =================================================================
spec                            what the learner sees and is
==============================  =================================================================
``majority``                    nothing: the most frequent train target (scikit-learn's
                                ``DummyClassifier``)
``length``                      the input's length in tokens and characters (a depth-limited
                                decision tree)
``partial:fields=question``     only the named fields (``+`` joins several: ``question+options``):
                                keys of dict inputs or metadata columns; TF-IDF of word uni- and
                                bigrams and logistic regression, or ``estimator=module:Class``
                                (any scikit-learn classifier of TF-IDF vectors)
==============================  =================================================================

Each is a model of the run (``baseline:majority``, ``baseline:partial(question)``), so every split
gets its score with an interval beside the models', and the report says when a partial-input
baseline reaches most of a model's score.

>>> import gengap
>>> ds = gengap.load([{"input": {"question": f"q{i % 2}", "context": f"c{i}"}, "target": str(i % 2)} for i in range(40)])
>>> base = make_baseline("partial:fields=question", ds)
>>> base.name, base.reads(ds)[:2]
('baseline:partial(question)', ['q0', 'q1'])
>>> base.fit(base.reads(ds), ds.targets).predict(["q1", "q0"])
['1', '0']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gengap._errors import ConfigError, did_you_mean
from gengap._specs import parse_spec
from gengap.dataset import Dataset
from gengap.models._base import EstimatorModel

__all__ = ["Baseline", "make_baseline", "BASELINES", "BASELINE_PREFIX", "MAX_CLASSES"]

#: What each baseline spec names.
BASELINES = {"majority": "the most frequent train target", "length": "the input's length only",
             "partial": "only the named fields of each example"}
#: Model names of baselines start with this.
BASELINE_PREFIX = "baseline:"
#: Above this many distinct train targets the default partial-input learner (logistic regression)
#: is refused: it predicts one of the train targets, which fits labels and options, not free text.
MAX_CLASSES = 500


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return " | ".join(map(str, value))
    return str(value)


class Baseline(EstimatorModel):
    """A learner that sees only ``fields`` of each example (see the module's table).

    Attributes
    ----------
    kind : ``"majority"``, ``"length"`` or ``"partial"``. fields : the fields a partial baseline reads.
    """

    def __init__(self, kind: str, estimator: Any, *, fields: Sequence[str] = (), name: str | None = None,
                 refit: bool | None = None) -> None:
        shown = f"partial({'+'.join(fields)})" if kind == "partial" else kind
        super().__init__(estimator, name=name or BASELINE_PREFIX + shown, refit=refit)
        self.kind = kind
        self.fields = tuple(fields)

    def reads(self, data: Dataset) -> list[Any]:
        """What this baseline sees of each example of ``data``."""
        if self.kind == "majority":
            return [""] * len(data)
        if self.kind == "length":
            texts = [_text(x) for x in data.inputs]
            return [{"tokens": len(t.split()), "characters": len(t)} for t in texts]
        inputs = data.inputs
        parts = []
        for f in self.fields:
            if f in data.metadata_columns:
                parts.append([_text(v) for v in data.column(f).tolist()])
            elif f == "input":
                parts.append([_text(x) for x in inputs])
            else:
                parts.append([_text(x.get(f)) if isinstance(x, dict) else "" for x in inputs])
        return [" \n ".join(p) for p in zip(*parts)]

    def fit(self, inputs: Sequence[Any], targets: Sequence[Any]) -> Baseline:
        if self.kind == "partial" and type(self.estimator).__name__ == "Pipeline":
            n = len(set(map(str, targets)))
            step = self.estimator.steps[-1][1]
            if type(step).__name__ == "LogisticRegression" and n > MAX_CLASSES:
                raise ConfigError(f"{self.name}: the train part has {n:,} distinct targets; a partial-input baseline "
                                  f"predicts one of them, which fits labels and options (up to {MAX_CLASSES}), not free "
                                  "text. Leave it out, or give another learner, e.g. "
                                  "partial:fields=question,estimator=sklearn.neighbors:KNeighborsClassifier.")
        fitted = super().fit(inputs, targets)
        return Baseline(self.kind, fitted.estimator, fields=self.fields, name=self.name, refit=False)


def _fields_of(data: Dataset) -> list[str]:
    first = next((x for x in data.inputs if isinstance(x, dict)), None)
    return [*(list(first) if first else ["input"]), *data.metadata_columns]


def _estimator(spec: str, option: Any) -> Any:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import Pipeline

    tfidf = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, token_pattern=r"(?u)\b\w+\b")
    if option is None:
        return Pipeline([("tfidf", tfidf), ("learner", LogisticRegression(max_iter=1000))])
    if isinstance(option, str):
        from gengap.models._resolve import _import_object

        try:
            option = _import_object(option)
        except Exception as e:
            raise ConfigError(f"Baseline '{spec}': cannot import estimator '{option}' ({e}); give module:Class, e.g. "
                              "sklearn.naive_bayes:MultinomialNB.") from None
        option = option() if isinstance(option, type) else option
    if not (hasattr(option, "fit") and hasattr(option, "predict")):
        raise ConfigError(f"Baseline '{spec}': the estimator must be a scikit-learn classifier (fit and predict).")
    if type(option).__name__ == "Pipeline":
        return option
    return Pipeline([("tfidf", tfidf), ("learner", option)])


def make_baseline(spec: str | Baseline, data: Dataset, *, estimator: Any = None) -> Baseline:
    """The baseline a spec names (``"majority"``, ``"length"``, ``"partial:fields=question+options"``),
    its fields checked against ``data``; ``estimator`` (a scikit-learn classifier of TF-IDF vectors, or a
    whole pipeline of texts) replaces a partial baseline's logistic regression.

    >>> import gengap
    >>> ds = gengap.load([{"input": "a", "target": "x", "topic": "t"}] * 4)
    >>> make_baseline("partial:fields=topc", ds)
    Traceback (most recent call last):
      ...
    gengap._errors.ConfigError: Baseline 'partial:fields=topc': no field 'topc'. Did you mean 'topic'? Fields: input, topic.
    """
    if isinstance(spec, Baseline):
        return spec
    from sklearn.dummy import DummyClassifier
    from sklearn.tree import DecisionTreeClassifier

    kind, options = parse_spec(str(spec), what="Baseline")
    if kind not in BASELINES:
        raise ConfigError(f"Unknown baseline '{spec}'.{did_you_mean(kind, BASELINES)} Baselines: "
                          + "; ".join(f"{k} ({v})" for k, v in BASELINES.items()) + ".")
    allowed = {"partial": {"fields", "estimator"}}.get(kind, set())
    for key in options:
        if key not in allowed:
            raise ConfigError(f"Baseline '{spec}': '{kind}' has no option '{key}'.{did_you_mean(key, sorted(allowed))} "
                              f"Options: {', '.join(sorted(allowed)) or 'none'}.")
    if kind == "majority":
        return Baseline(kind, DummyClassifier(strategy="most_frequent"))
    if kind == "length":
        return Baseline(kind, DecisionTreeClassifier(max_depth=4, min_samples_leaf=20, random_state=0))
    raw = options.get("fields")
    if not raw:
        raise ConfigError(f"Baseline '{spec}' needs the fields it may read: partial:fields=question (join several "
                          "with +, e.g. fields=question+options).")
    fields = [f.strip() for f in str(raw).split("+") if f.strip()]
    known = _fields_of(data)
    for f in fields:
        if f == "target":
            raise ConfigError(f"Baseline '{spec}': the target is what the baseline predicts; it cannot read it.")
        if f not in known:
            raise ConfigError(f"Baseline '{spec}': no field '{f}'.{did_you_mean(f, known)} Fields: {', '.join(known)}.")
    return Baseline(kind, _estimator(str(spec), estimator if estimator is not None else options.get("estimator")),
                    fields=fields)
