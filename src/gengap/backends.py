"""Where model calls run: in this process, on a thread or process pool, or on a Ray cluster.

A backend takes a fitted model and a list of prediction tasks (a shard's inputs) and yields
``(key, outputs)`` as tasks finish, so the driver can stream results into the store. Scoring and
storage always happen in the driver; only model calls travel.

- ``serial``: one task after another in this process (the default; easiest to debug).
- ``thread``: a thread pool, for I/O-bound models such as HTTP endpoints or models that release the GIL.
- ``process``: a process pool, for CPU-bound Python models (the model is sent once per worker).
- ``ray``: each task is a Ray task (``ray.init(address=...)``; a local instance when no address is given).

>>> from gengap.models import FunctionModel
>>> backend = make_backend("thread", workers=2)
>>> sorted(backend.run(FunctionModel(lambda xs: [x * 2 for x in xs]), [("a", [1, 2]), ("b", [3])], batch_size=8))
[('a', [2, 4]), ('b', [6])]
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from typing import Any

from gengap._errors import ConfigError, GengapError, MissingDependency, ModelError, did_you_mean
from gengap.models import Model

__all__ = ["Backend", "SerialBackend", "PoolBackend", "RayBackend", "make_backend", "BACKENDS"]

Task = tuple[str, list[Any]]


def predict_batched(model: Model, inputs: Sequence[Any], *, batch_size: int, where: str, bar: Any = None) -> list[Any]:
    """Run ``model.predict`` over ``inputs`` in batches, checking every batch's length."""
    outputs: list[Any] = []
    for start in range(0, len(inputs), batch_size):
        batch = list(inputs[start:start + batch_size])
        try:
            got = model.predict(batch)
        except Exception as e:
            error = call_error(model, e, where=where, first=start, last=start + len(batch) - 1)
            if error is e:
                raise
            raise error from e
        outputs.extend(checked_outputs(model, got, len(batch), where=where, first=start))
        if bar is not None:
            bar.advance(len(batch))
    return outputs


def call_error(model: Model, error: Exception, *, where: str, first: int, last: int) -> Exception:
    """The error to raise when a model call on inputs ``first..last`` of task ``where`` failed.

    The message names the shard and the rows (the shard's first row plus the positions); the
    error carries ``shard``, ``span`` (the positions, for a caller that knows which test-part row
    each input was) and ``rows_text`` (the words naming the rows), and ``row`` when the adapter
    said which input failed. Errors of gengap other than ModelError are returned as they are.
    """
    base = _first_row(where)
    if isinstance(error, ModelError):  # an adapter's own error (an endpoint that is down): add where it happened
        if where in str(error):
            return error
        row = getattr(error, "row", None)  # the adapter knows which input failed
        if isinstance(row, int):
            first = last = first + row
        text = _rows_text(base + first, base + last)
        made: Exception = type(error)(f"{error} (on {where}, {text}; earlier shards are kept in the store)")
        made.row = base + first if isinstance(row, int) else None  # type: ignore[attr-defined]
    elif isinstance(error, GengapError):
        return error
    else:
        text = _rows_text(base + first, base + last)
        made = ModelError(f"Model '{model.name}' raised {type(error).__name__}: {error} — on {where}, {text}. "
                          "Results of earlier shards are kept in the store.")
    made.shard, made.span, made.rows_text = where, (first, last), text  # type: ignore[attr-defined]
    return made


def checked_outputs(model: Model, got: Any, expected: int, *, where: str, first: int = 0) -> list[Any]:
    """A model call's outputs as a list, or a ModelError when there is not one output per input."""
    got = list(got.tolist() if hasattr(got, "tolist") else got)
    if len(got) != expected:
        base = _first_row(where)
        text = _rows_text(base + first, base + first + expected - 1)
        error = ModelError(f"Model '{model.name}' returned {len(got)} outputs for a batch of {expected} inputs on {where}, "
                           f"{text}. A model must return one output per input.")
        error.shard, error.span, error.rows_text = where, (first, first + expected - 1), text  # type: ignore[attr-defined]
        raise error
    return got


def _rows_text(first: int, last: int) -> str:
    return f"rows {first}..{last} of the test part"


def _first_row(where: str) -> int:
    """The test-part row a shard starts at: shard keys end in ``/<first row>`` (see the runner)."""
    last = where.rsplit("/", 1)[-1]
    return int(last) if last.isdigit() else 0


class Backend:
    """Runs prediction tasks and yields ``(key, outputs)`` in completion order."""

    name = "backend"

    def run(self, model: Model, tasks: Sequence[Task], *, batch_size: int, bar: Any = None) -> Iterator[tuple[str, list[Any]]]:
        """Yield ``(key, outputs)`` per task as it finishes; advance ``bar`` by one per input answered."""
        raise NotImplementedError

    def close(self) -> None:
        """Release workers (pools are kept between runs of one evaluation)."""


class SerialBackend(Backend):
    """Every task in this process, in order."""

    name = "serial"

    def run(self, model: Model, tasks: Sequence[Task], *, batch_size: int, bar: Any = None) -> Iterator[tuple[str, list[Any]]]:
        for key, inputs in tasks:
            yield key, predict_batched(model, inputs, batch_size=batch_size, where=key, bar=bar)


# -- process pool: the model travels once per worker, pickled with cloudpickle (lambdas, closures) --
_WORKER_MODEL: Model | None = None


def _init_worker(payload: bytes) -> None:
    import cloudpickle

    global _WORKER_MODEL
    _WORKER_MODEL = cloudpickle.loads(payload)


def _predict_in_worker(key: str, inputs: list[Any], batch_size: int) -> list[Any]:
    assert _WORKER_MODEL is not None
    return predict_batched(_WORKER_MODEL, inputs, batch_size=batch_size, where=key)


class PoolBackend(Backend):
    """A thread or process pool with ``workers`` workers (default: the number of cores)."""

    def __init__(self, kind: str = "thread", *, workers: int | None = None) -> None:
        if kind not in ("thread", "process"):
            raise ConfigError(f"PoolBackend kind={kind!r} must be 'thread' or 'process'.")
        if workers is not None and workers < 1:
            raise ConfigError(f"workers={workers!r} must be at least 1.")
        self.name = kind
        self.workers = workers or os.cpu_count() or 1

    def run(self, model: Model, tasks: Sequence[Task], *, batch_size: int, bar: Any = None) -> Iterator[tuple[str, list[Any]]]:
        pool: Executor
        if self.name == "thread":
            pool = ThreadPoolExecutor(self.workers)
            submit = lambda key, inputs: pool.submit(predict_batched, model, inputs, batch_size=batch_size, where=key)
        else:
            import multiprocessing

            import cloudpickle

            # spawn, not fork: the driver holds a DuckDB connection and maybe torch threads.
            pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                       initializer=_init_worker, initargs=(cloudpickle.dumps(model),))
            submit = lambda key, inputs: pool.submit(_predict_in_worker, key, inputs, batch_size)
        try:
            for key, outputs in _as_completed(submit, tasks, limit=2 * self.workers):
                if bar is not None:
                    bar.advance(len(outputs))
                yield key, outputs
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def _as_completed(submit: Any, tasks: Sequence[Task], *, limit: int) -> Iterator[tuple[str, list[Any]]]:
    """Keep at most ``limit`` tasks in flight; yield each as it finishes."""
    pending: dict[Future[list[Any]], str] = {}
    queue = list(tasks)
    queue.reverse()
    while queue or pending:
        while queue and len(pending) < limit:
            key, inputs = queue.pop()
            pending[submit(key, inputs)] = key
        done, _ = wait(pending, return_when=FIRST_COMPLETED)
        for future in done:
            key = pending.pop(future)
            yield key, future.result()


class RayBackend(Backend):
    """Each task is a Ray task; the driver streams results into the store as they finish.

    Parameters
    ----------
    address : a Ray cluster address (``ray://host:10001`` or ``auto``); None starts a local instance.
    num_cpus : CPUs for a local instance (default: all).
    """

    name = "ray"

    def __init__(self, *, address: str | None = None, num_cpus: int | None = None, max_in_flight: int = 64) -> None:
        try:
            import ray  # noqa: F401
        except ImportError:
            raise MissingDependency("ray", "ray", "The Ray backend") from None
        self.address = address
        self.num_cpus = num_cpus
        self.max_in_flight = max_in_flight

    def _ensure(self) -> Any:
        import ray

        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
            if self.address:
                kwargs["address"] = self.address
            else:
                # A local instance: workers see the driver's import path, so models defined in the
                # user's own modules (or a test file) import there as they do here.
                path = os.pathsep.join(p for p in sys.path if p)
                kwargs["runtime_env"] = {"env_vars": {"PYTHONPATH": path}}
                if self.num_cpus:
                    kwargs["num_cpus"] = self.num_cpus
            try:
                ray.init(**kwargs)
            except Exception as e:
                raise ConfigError(f"Cannot start or reach Ray (address={self.address!r}): {e}") from None
        return ray

    def run(self, model: Model, tasks: Sequence[Task], *, batch_size: int, bar: Any = None) -> Iterator[tuple[str, list[Any]]]:
        ray = self._ensure()
        remote = ray.remote(_ray_predict)
        model_ref = ray.put(model)
        queue = list(tasks)
        queue.reverse()
        pending: dict[Any, str] = {}
        while queue or pending:
            while queue and len(pending) < self.max_in_flight:
                key, inputs = queue.pop()
                pending[remote.remote(model_ref, key, inputs, batch_size)] = key
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                key = pending.pop(ref)
                try:
                    outputs = ray.get(ref)
                except ray.exceptions.RayTaskError as e:
                    cause = e.cause if getattr(e, "cause", None) is not None else e
                    if isinstance(cause, GengapError):
                        raise cause from None
                    raise ModelError(f"Ray task for {key} failed: {cause}") from None
                if bar is not None:
                    bar.advance(len(outputs))
                yield key, outputs

    def close(self) -> None:
        import ray

        if ray.is_initialized() and not self.address:
            ray.shutdown()


def _ray_predict(model: Model, key: str, inputs: list[Any], batch_size: int) -> list[Any]:
    return predict_batched(model, inputs, batch_size=batch_size, where=key)


BACKENDS = ("serial", "thread", "process", "ray")


def make_backend(name: str | Backend = "serial", *, workers: int | None = None, address: str | None = None) -> Backend:
    """A backend by name: ``serial``, ``thread``, ``process`` or ``ray``."""
    if isinstance(name, Backend):
        return name
    if name == "serial":
        return SerialBackend()
    if name in ("thread", "process"):
        return PoolBackend(name, workers=workers)
    if name == "ray":
        return RayBackend(address=address, num_cpus=workers)
    raise ConfigError(f"Unknown backend '{name}'.{did_you_mean(name, BACKENDS)} Backends: {', '.join(BACKENDS)}.")
