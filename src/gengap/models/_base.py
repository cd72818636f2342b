"""The model contract: a batch function ``predict(inputs) -> outputs``, plus an optional ``fit``.

Batching, progress and storage live in the runner, not in adapters. A *learner* is a model that
must be trained on each split's train part first (an unfitted scikit-learn estimator, gengap's
seq2seq baseline); the runner fits a fresh copy per split.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["Model", "FunctionModel", "EstimatorModel"]


class Model:
    """Base class of adapters. Subclasses implement ``predict`` and may implement ``fit``.

    Attributes
    ----------
    name : how the model appears in the store and reports.
    needs_fit : True for a learner that the runner must fit on each split's train part.
    cacheable : True when ``fingerprint()`` determines the outputs, so the runner may reuse
        stored outputs for inputs it has seen (endpoints by model name and settings, estimators
        and torch modules by their parameters, functions given a version); False when gengap
        cannot see what the outputs depend on.
    cache_note : why the model is not cached, and how to cache it ("" when it is cached).
    can_sample : whether asking it again can give another answer (``samples`` > 1 asks each example
        several times); False for models that answer the same every time.
    sample_note : why it cannot sample ("" when it can).
    """

    name: str = "model"
    needs_fit: bool = False
    cacheable: bool = True
    cache_note: str = ""
    can_sample: bool = True
    sample_note: str = ""

    def predict(self, inputs: Sequence[Any]) -> Sequence[Any]:  # pragma: no cover - interface
        raise NotImplementedError

    def fit(self, inputs: Sequence[Any], targets: Sequence[Any]) -> Model:
        raise NotImplementedError(f"{type(self).__name__} cannot be trained; pass a learner to train per split.")

    def fingerprint(self) -> str:
        """What identifies this model's outputs (name and type); adapters add their settings."""
        return hashlib.sha256(f"{type(self).__name__}:{self.name}".encode()).hexdigest()[:16]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


#: Why a Python function is not cached without a version (the CLI, summary and report print it).
FUNCTION_CACHE_NOTE = ("not cached: gengap cannot see the state a Python function reads (globals, closures, "
                       "weights files); give a version (--model-version, or version= in Python) or the files it "
                       "reads (files=) to cache its outputs")


def _file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class _Nested:
    """A nested code object as it stands in its parent's constants: its name, byte code and constants,
    never its address (``repr`` of a code object holds it, which differs in every process)."""

    def __init__(self, code: Any) -> None:
        inner = hashlib.sha256()
        _hash_code(inner, code)
        self.text = f"<code {code.co_name} {inner.hexdigest()[:16]}>"

    def __repr__(self) -> str:
        return self.text


def _hash_code(h: Any, code: Any) -> None:
    """Feed a function's byte code and constants to ``h``, the code of nested functions, comprehensions
    and lambdas by their own byte code and constants, so the digest is the same in every process."""
    h.update(code.co_code)
    h.update(repr(tuple(_Nested(c) if hasattr(c, "co_code") else c for c in code.co_consts)).encode())


class FunctionModel(Model):
    """A Python callable on batches: ``fn(list_of_inputs) -> list_of_outputs``.

    What a function computes can depend on state gengap cannot see (a global, an object a
    closure holds, a weights file it loads), so its outputs are cached only when the caller
    vouches for them: ``version`` (change it whenever the model changes) and/or ``files`` (paths
    whose contents the fingerprint hashes, such as the weights the function loads).

    >>> m = FunctionModel(lambda batch: [x.upper() for x in batch], name="upper")
    >>> m.predict(["a", "b"]), m.cacheable
    (['A', 'B'], False)
    >>> FunctionModel(str.upper, name="upper", version="v2").cacheable
    True
    """

    def __init__(self, fn: Callable[[list[Any]], Sequence[Any]], *, name: str | None = None, version: str | None = None,
                 files: Sequence[str | Path] = ()) -> None:
        self.fn = fn
        self.name = name or getattr(fn, "__name__", type(fn).__name__)
        if self.name == "<lambda>":
            self.name = "function"
        self.version = None if version is None else str(version)
        self.files = tuple(Path(f) for f in files)
        for f in self.files:
            if not f.is_file():
                from gengap._errors import ConfigError

                raise ConfigError(f"Model '{self.name}': files= names '{f}', which is not a file. Name the files the "
                                  "model reads (e.g. its weights), so a change to them invalidates cached outputs.")
        self.cacheable = self.version is not None or bool(self.files)
        self.cache_note = "" if self.cacheable else FUNCTION_CACHE_NOTE

    def predict(self, inputs: Sequence[Any]) -> Sequence[Any]:
        return self.fn(list(inputs))

    def fingerprint(self) -> str:
        """Name, version, the contents of ``files``, byte code and constants, and the size and time
        of the file that defines the function: editing the model's module invalidates its outputs."""
        import inspect
        import os

        code = getattr(self.fn, "__code__", None) or getattr(getattr(self.fn, "__call__", None), "__code__", None)
        h = hashlib.sha256(f"fn:{self.name}:{getattr(self.fn, '__module__', '')}:{self.version}".encode())
        for f in self.files:
            h.update(f"{f.name}:{_file_digest(f)}".encode())
        if code is not None:
            _hash_code(h, code)
        try:
            st = os.stat(inspect.getsourcefile(self.fn) or "")
            h.update(f"{st.st_size}:{st.st_mtime_ns}".encode())
        except (TypeError, OSError):
            pass
        return h.hexdigest()[:16]


def _batch_for_estimator(inputs: Sequence[Any]) -> Any:
    """Text stays a list (text pipelines); dict inputs become a DataFrame (tabular pipelines)."""
    if len(inputs) and isinstance(inputs[0], dict):
        import pandas as pd

        return pd.DataFrame.from_records(list(inputs))
    return list(inputs)


def _labels(targets: Sequence[Any]) -> np.ndarray:
    """Targets as a numpy array of their own type (ints stay ints, so classifiers see a label type)."""
    arr = np.asarray(list(targets))
    return arr.astype(object) if arr.dtype.kind not in "biufUS" else arr


def _is_fitted(estimator: Any) -> bool:
    try:
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(estimator)
        return True
    except Exception:
        return False


class EstimatorModel(Model):
    """Anything with scikit-learn's ``fit`` / ``predict``: an estimator, a pipeline, gengap's learners.

    An unfitted estimator is a learner: the runner fits a clone on each split's train part. A fitted
    one is evaluated as it is, and its outputs are cached under a hash of the whole fitted object
    (parameters and learned attributes), so refitting or changing it invalidates them.

    >>> from sklearn.dummy import DummyClassifier
    >>> m = EstimatorModel(DummyClassifier(strategy="most_frequent"))
    >>> m.needs_fit, m.fit(["a", "b", "c"], ["x", "x", "y"]).predict(["d"])
    (True, ['x'])
    """

    def __init__(self, estimator: Any, *, name: str | None = None, refit: bool | None = None) -> None:
        self.estimator = estimator
        self.name = name or type(estimator).__name__
        if type(estimator).__name__ == "Pipeline" and name is None:
            self.name = "Pipeline(" + ">".join(type(s).__name__ for _, s in estimator.steps) + ")"
        self.needs_fit = (not _is_fitted(estimator)) if refit is None else refit
        # a learner is fitted per split; the fitted copy it returns is cached by its own state
        self.cacheable = not self.needs_fit
        self.cache_note = "" if self.cacheable else "not cached: trained on each split first (the fitted copy is cached)"
        self.can_sample = False
        self.sample_note = "an estimator's predict gives the same answer every time it is asked"

    def fit(self, inputs: Sequence[Any], targets: Sequence[Any]) -> EstimatorModel:
        try:
            from sklearn.base import clone

            fresh = clone(self.estimator)
        except Exception:
            fresh = copy.deepcopy(self.estimator)
        fresh.fit(_batch_for_estimator(inputs), _labels(targets))
        return EstimatorModel(fresh, name=self.name, refit=False)

    def predict(self, inputs: Sequence[Any]) -> Sequence[Any]:
        """Predicted labels; with ``predict_proba``, each a :class:`~gengap.models._scored.Scored` label
        carrying the probability of every class (stored per row as the model's confidence)."""
        batch = _batch_for_estimator(inputs)
        out = self.estimator.predict(batch)
        labels = out.tolist() if hasattr(out, "tolist") else list(out)
        proba = getattr(self.estimator, "predict_proba", None)
        classes = getattr(self.estimator, "classes_", None)
        if proba is None or classes is None:
            return labels
        try:
            p = np.asarray(proba(batch), dtype=np.float64)
        except Exception:  # e.g. SVC(probability=False) exposes the method but cannot answer
            return labels
        names = [str(c) for c in np.asarray(classes).tolist()]
        from gengap.models._scored import Scored

        return [Scored(str(label), dict(zip(names, row.tolist()))) for label, row in zip(labels, p)]

    def fingerprint(self) -> str:
        """A hash of the whole estimator as pickled by joblib (parameters and fitted attributes)."""
        import joblib

        try:
            state = joblib.hash(self.estimator)
        except Exception:
            kind = type(self.estimator)
            try:  # a class pickle cannot name (one defined in a function): its qualified name and its state
                state = f"{kind.__module__}.{kind.__qualname__}:{joblib.hash(vars(self.estimator))}"
            except Exception:  # state nothing can hash: a fingerprint of this object's own, never another's
                # (an id() would be reused by the next estimator at the same address, and its outputs served)
                if not hasattr(self, "_unhashable_key"):
                    import uuid

                    self._unhashable_key = uuid.uuid4().hex
                state = self._unhashable_key
        return hashlib.sha256(f"est:{self.name}:{state}".encode()).hexdigest()[:16]
