"""Training learners on each split's train part, several side by side when the cores allow.

A learner (an unfitted estimator, such as :class:`gengap.learners.Seq2SeqLearner`) is trained
once per split. The first training runs in this process; when it took long enough to be worth a
process start (:data:`WORTH_A_PROCESS` seconds) and ``threads`` > 1, the other trainings start at
once on a pool of ``threads`` worker processes, while this process scores the first split. Each
worker trains on one torch thread, as this process does, so a learner's weights are the same
whichever process trained it and however many ran at once.

>>> from gengap.models import as_model
>>> from gengap.splits import RandomSplit
>>> import gengap
>>> from sklearn.dummy import DummyClassifier
>>> ds = gengap.load([{"input": str(i), "target": "ab"[i % 2]} for i in range(20)])
>>> split = RandomSplit(seed=0).split_dataset(ds)
>>> with Trainer([(as_model(DummyClassifier()), split)], threads=2) as trainer:
...     trainer.fitted(as_model(DummyClassifier()), split).needs_fit
False
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor

from gengap._errors import GengapError, ModelError
from gengap._progress import progress
from gengap.models import Model
from gengap.splits import Split

__all__ = ["Trainer", "fit_on", "WORTH_A_PROCESS"]

#: Seconds a training must take before the remaining ones go to worker processes (starting one
#: and importing torch there costs a few seconds).
WORTH_A_PROCESS = 5.0


def fit_on(model: Model, split: Split) -> Model:
    """``model`` trained on ``split``'s train part; errors name the model and the split."""
    train = split.train_part
    try:
        inputs = model.reads(train) if hasattr(model, "reads") else train.inputs  # a baseline sees part of each example
        return model.fit(inputs, train.targets)
    except GengapError:
        raise
    except Exception as e:
        raise ModelError(f"Training '{model.name}' on split '{split.name}' failed: {type(e).__name__}: {e}") from e


def _quiet_worker() -> None:
    os.environ["GENGAP_NO_PROGRESS"] = "1"  # bars from several processes would write over each other


def _fit_in_worker(payload: bytes) -> bytes:
    import cloudpickle

    model, split = cloudpickle.loads(payload)
    return cloudpickle.dumps(fit_on(model, split))


class Trainer:
    """Trains each ``(model, split)`` of ``jobs`` on demand: :meth:`fitted` returns the trained model.

    Ask for the trainings in the order of ``jobs``; :meth:`close` (or ``with``) stops the workers.
    """

    def __init__(self, jobs: Sequence[tuple[Model, Split]], *, threads: int) -> None:
        self.jobs = [(m.name, s.name) for m, s in jobs]
        self._pending = {(m.name, s.name): (m, s) for m, s in jobs}
        self.threads = threads
        self._pool: ProcessPoolExecutor | None = None
        self._futures: dict[tuple[str, str], Future[bytes]] = {}
        self.in_workers = 0

    def __enter__(self) -> Trainer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def fitted(self, model: Model, split: Split) -> Model:
        """``model`` trained on ``split`` (in this process, or collected from a worker)."""
        key = (model.name, split.name)
        future = self._futures.pop(key, None)
        if future is not None:
            import cloudpickle

            with progress(f"training {model.name} in a worker process", total=None):
                fitted: Model = cloudpickle.loads(future.result())
            return fitted
        self._pending.pop(key, None)
        started = time.perf_counter()
        fitted = fit_on(model, split)
        if self.threads > 1 and self._pending and self._pool is None and time.perf_counter() - started >= WORTH_A_PROCESS:
            self._start_workers()
        return fitted

    def _start_workers(self) -> None:
        import multiprocessing

        import cloudpickle

        try:
            payloads = {key: cloudpickle.dumps(job) for key, job in self._pending.items()}
        except Exception:  # a model that cannot travel (an open connection): train it here
            return
        # spawn, not fork: this process holds a DuckDB connection and torch's threads.
        self._pool = ProcessPoolExecutor(min(self.threads, len(payloads)), initializer=_quiet_worker,
                                         mp_context=multiprocessing.get_context("spawn"))
        for key in self.jobs:  # in the order they will be asked for
            if key in payloads:
                self._futures[key] = self._pool.submit(_fit_in_worker, payloads[key])
        self.in_workers = len(self._futures)
        self._pending.clear()

    def close(self) -> None:
        """Stop the workers (trainings not yet collected are dropped)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
