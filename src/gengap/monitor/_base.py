"""What every training-time measure shares: a context to read from, and a registry by name.

A measure is a small object with a ``name``, a ``cost`` (``"cheap"``: a pass over the weights;
``"expensive"``: forward/backward passes on a sample), an optional ``every`` (its own schedule, in
steps; None follows the monitor's), and one method, ``compute(ctx)``, returning
``(name, scope, value)`` triples; ``scope`` is a layer name or ``""`` for the whole model.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from gengap._errors import ConfigError, did_you_mean
from gengap._registry import Registry

__all__ = ["Measure", "MeasureContext", "MEASURES", "make_measure", "register_measure", "Record"]

Record = tuple[str, str, float]


@dataclass
class MeasureContext:
    """What a measure may read at a step.

    Attributes
    ----------
    model : the ``torch.nn.Module`` being trained.
    step : the optimizer step just taken.
    params : the watched parameters by name (trainable, floating point, shared ones once).
    init : a detached copy of each watched parameter at the monitor's creation.
    probe : ``(inputs, targets)`` of a fixed sample of training data, or None when none was given.
    loss_fn : ``loss_fn(logits, targets) -> scalar`` (cross-entropy unless the user chose another).
    history : every value the monitor recorded so far, ``{(name, scope): [(step, value), ...]}``.
    """

    model: Any
    step: int
    params: dict[str, Any]
    init: dict[str, Any]
    probe: tuple[Any, Any] | None
    loss_fn: Callable[..., Any]
    history: dict[tuple[str, str], list[tuple[int, float]]] = field(default_factory=dict)


class Measure:
    """Base class: set ``name``, ``cost``, ``paper`` and fill :meth:`compute`."""

    name: ClassVar[str] = ""
    cost: ClassVar[str] = "cheap"
    paper: ClassVar[str] = ""
    needs_probe: ClassVar[bool] = False

    def __init__(self, *, every: int | None = None) -> None:
        if every is not None and (not isinstance(every, int) or every < 1):
            raise ConfigError(f"{type(self).__name__}(every={every!r}): every must be a positive whole number of steps.")
        self.every = every

    def compute(self, ctx: MeasureContext) -> list[Record]:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(every={self.every})"


class ProbeMeasure(Measure):
    """An expensive measure computed on the first ``sample`` examples of the monitor's probe batch."""

    cost: ClassVar[str] = "expensive"
    needs_probe: ClassVar[bool] = True

    def __init__(self, *, every: int | None = None, sample: int = 64) -> None:
        super().__init__(every=every)
        if not isinstance(sample, int) or sample < 1:
            raise ConfigError(f"{type(self).__name__}(sample={sample!r}): sample must be a positive number of examples.")
        self.sample = sample

    def probe(self, ctx: MeasureContext) -> tuple[Any, Any] | None:
        """``(inputs, targets)`` of the probe sample, or None when the monitor has no probe batch."""
        if ctx.probe is None:
            return None
        from gengap.monitor._evaluate import probe_sample

        return probe_sample(ctx.probe, self.sample)


MEASURES: Registry[type[Measure]] = Registry("measure")


def register_measure(cls: type[Measure]) -> type[Measure]:
    """Class decorator: make a measure available by its ``name`` in ``Monitor(measures=[...])`` (once per name)."""
    return MEASURES.register(cls.name, cls)


def make_measure(spec: str | Measure) -> Measure:
    """A measure from its name (``"distance"``) or as given (a :class:`Measure` instance)."""
    if isinstance(spec, Measure):
        return spec
    if isinstance(spec, str) and spec in MEASURES:
        return MEASURES[spec]()
    raise ConfigError(
        f"Monitor(measures=[...]): there is no measure {spec!r}.{did_you_mean(str(spec), MEASURES)} "
        f"Measures: {', '.join(sorted(MEASURES))}."
    )
