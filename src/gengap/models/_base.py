"""The model contract: a batch function ``predict(inputs) -> outputs``, plus an optional ``fit``.

Batching, progress and storage live in the runner, not in adapters. A *learner* is a model that
must be trained on each split's train part first (an unfitted scikit-learn estimator, gengap's
seq2seq baseline); the runner fits a fresh copy per split.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable, Sequence
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
        stored outputs for inputs it has seen (endpoints, functions); False for trained models
        whose weights the fingerprint does not cover.
    """

    name: str = "model"
    needs_fit: bool = False
    cacheable: bool = True

    def predict(self, inputs: Sequence[Any]) -> Sequence[Any]:  # pragma: no cover - interface
        raise NotImplementedError

    def fit(self, inputs: Sequence[Any], targets: Sequence[Any]) -> Model:
        raise NotImplementedError(f"{type(self).__name__} cannot be trained; pass a learner to train per split.")

    def fingerprint(self) -> str:
        """What identifies this model's outputs (name and type); adapters add their settings."""
        return hashlib.sha256(f"{type(self).__name__}:{self.name}".encode()).hexdigest()[:16]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


class FunctionModel(Model):
    """A Python callable on batches: ``fn(list_of_inputs) -> list_of_outputs``.

    >>> m = FunctionModel(lambda batch: [x.upper() for x in batch], name="upper")
    >>> m.predict(["a", "b"])
    ['A', 'B']
    """

    def __init__(self, fn: Callable[[list[Any]], Sequence[Any]], *, name: str | None = None) -> None:
        self.fn = fn
        self.name = name or getattr(fn, "__name__", type(fn).__name__)
        if self.name == "<lambda>":
            self.name = "function"

    def predict(self, inputs: Sequence[Any]) -> Sequence[Any]:
        return self.fn(list(inputs))

    def fingerprint(self) -> str:
        """Name, byte code, constants, and the size and time of the file that defines the function:
        editing the model's module invalidates its cached outputs."""
        import inspect
        import os

        code = getattr(self.fn, "__code__", None) or getattr(getattr(self.fn, "__call__", None), "__code__", None)
        h = hashlib.sha256(f"fn:{self.name}:{getattr(self.fn, '__module__', '')}".encode())
        if code is not None:
            h.update(code.co_code)
            h.update(repr(code.co_consts).encode())
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
    one is evaluated as it is.

    >>> from sklearn.dummy import DummyClassifier
    >>> m = EstimatorModel(DummyClassifier(strategy="most_frequent"))
    >>> m.needs_fit, m.fit(["a", "b", "c"], ["x", "x", "y"]).predict(["d"])
    (True, ['x'])
    """

    cacheable = False

    def __init__(self, estimator: Any, *, name: str | None = None, refit: bool | None = None) -> None:
        self.estimator = estimator
        self.name = name or type(estimator).__name__
        if type(estimator).__name__ == "Pipeline" and name is None:
            self.name = "Pipeline(" + ">".join(type(s).__name__ for _, s in estimator.steps) + ")"
        self.needs_fit = (not _is_fitted(estimator)) if refit is None else refit

    def fit(self, inputs: Sequence[Any], targets: Sequence[Any]) -> EstimatorModel:
        try:
            from sklearn.base import clone

            fresh = clone(self.estimator)
        except Exception:
            fresh = copy.deepcopy(self.estimator)
        fresh.fit(_batch_for_estimator(inputs), _labels(targets))
        return EstimatorModel(fresh, name=self.name, refit=False)

    def predict(self, inputs: Sequence[Any]) -> Sequence[Any]:
        out = self.estimator.predict(_batch_for_estimator(inputs))
        return out.tolist() if hasattr(out, "tolist") else list(out)

    def fingerprint(self) -> str:
        params = self.estimator.get_params() if hasattr(self.estimator, "get_params") else {}
        return hashlib.sha256(f"est:{self.name}:{sorted((k, repr(v)) for k, v in params.items())}".encode()).hexdigest()[:16]
