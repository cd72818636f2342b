"""Memorization and grokking, noticed while training runs.

Feed the detector each evaluation (step, train accuracy, held-out accuracy); it returns the events
it sees, once each:

- ``memorized``: train accuracy has reached ``train_fit`` (0.99) while held-out accuracy is still near
  chance (below ``chance + near_chance * (1 - chance)``).
- ``grokked``: held-out accuracy reaches ``heldout_fit`` (0.9) at least ``min_delay`` times the fit's own
  length after train accuracy saturated (Power et al. 2022, "Grokking: generalization beyond
  overfitting on small algorithmic datasets"); the event gives both steps and the delay.
- ``generalized``: held-out accuracy caught up soon after the fit: no grokking.

:meth:`GrokkingDetector.decision` says what can be concluded so far, and why not when it cannot.

>>> d = GrokkingDetector(chance=0.01)
>>> [e.kind for e in d.update(100, train_accuracy=1.0, heldout_accuracy=0.02)]
['memorized']
>>> [e.kind for e in d.update(3000, train_accuracy=1.0, heldout_accuracy=0.95)]
['grokked']
>>> d.delay
2900
"""

from __future__ import annotations

from dataclasses import dataclass

from gengap._errors import ConfigError

__all__ = ["Event", "GrokkingDetector"]


@dataclass(frozen=True)
class Event:
    """Something the monitor noticed at ``step``: ``kind`` (memorized, grokked, nan_loss, ...) and a message."""

    step: int
    kind: str
    message: str


class GrokkingDetector:
    """Watch train and held-out accuracy for memorization and a late rise of held-out accuracy.

    Parameters
    ----------
    chance : accuracy of guessing (1 / n_classes); None until known (treated as 0).
    train_fit : train accuracy counted as saturated.
    heldout_fit : held-out accuracy counted as generalizing.
    near_chance : held-out accuracy below ``chance + near_chance * (1 - chance)`` is "near chance".
    min_delay : how long after the fit (as a multiple of the steps the fit took) the held-out rise must
        come to count as grokking rather than ordinary generalization.
    """

    def __init__(self, *, chance: float | None = None, train_fit: float = 0.99, heldout_fit: float = 0.9,
                 near_chance: float = 0.1, min_delay: float = 1.0) -> None:
        for name, v in (("train_fit", train_fit), ("heldout_fit", heldout_fit), ("near_chance", near_chance)):
            if not 0 < v <= 1:
                raise ConfigError(f"GrokkingDetector({name}={v!r}): must be in (0, 1].")
        if chance is not None and not 0 <= chance < 1:
            raise ConfigError(f"GrokkingDetector(chance={chance!r}): must be in [0, 1) (1 / number of classes).")
        if min_delay < 0:
            raise ConfigError(f"GrokkingDetector(min_delay={min_delay!r}): must be >= 0.")
        self.chance = chance
        self.train_fit, self.heldout_fit, self.near_chance, self.min_delay = train_fit, heldout_fit, near_chance, min_delay
        self.first_step: int | None = None
        self.fit_step: int | None = None
        self.memorized_at: int | None = None
        self.generalized_at: int | None = None
        self.grokked_at: int | None = None
        self.n_train = self.n_heldout = 0
        self.last_train: float | None = None

    @property
    def delay(self) -> int | None:
        """Steps between the train fit and the held-out rise (None until both happened)."""
        if self.fit_step is None or self.generalized_at is None:
            return None
        return self.generalized_at - self.fit_step

    def _near_chance(self, acc: float) -> bool:
        c = self.chance or 0.0
        return acc < c + self.near_chance * (1 - c)

    def update(self, step: int, *, train_accuracy: float | None = None,
               heldout_accuracy: float | None = None) -> list[Event]:
        """Take one evaluation; return the events it triggers (each kind at most once)."""
        events: list[Event] = []
        if self.first_step is None:
            self.first_step = step
        ok = lambda v: v is not None and v == v
        if ok(train_accuracy):
            self.n_train += 1
            self.last_train = train_accuracy
            if self.fit_step is None and train_accuracy >= self.train_fit:
                self.fit_step = step
        if ok(heldout_accuracy):
            self.n_heldout += 1
        if (self.memorized_at is None and self.generalized_at is None and self.fit_step is not None
                and ok(heldout_accuracy) and self._near_chance(heldout_accuracy)):
            self.memorized_at = step
            events.append(Event(step, "memorized",
                                f"Memorized at step {step:,}: train accuracy {self.last_train:.3f} (saturated since step "
                                f"{self.fit_step:,}) while held-out accuracy is {heldout_accuracy:.3f}, near chance "
                                f"({self.chance or 0:.3f})."))
        if self.generalized_at is None and self.fit_step is not None and ok(heldout_accuracy) \
                and heldout_accuracy >= self.heldout_fit:
            self.generalized_at = step
            fit_len = max(1, self.fit_step - (self.first_step or 0))
            delay = step - self.fit_step
            ratio = delay / fit_len
            if self.memorized_at is not None and ratio >= self.min_delay:
                self.grokked_at = step
                events.append(Event(step, "grokked",
                                    f"Grokked at step {step:,}: held-out accuracy {heldout_accuracy:.3f} reached "
                                    f"{self.heldout_fit:.2f} {delay:,} steps after train accuracy saturated at step "
                                    f"{self.fit_step:,} ({ratio:.1f}x the steps the fit took)."))
            else:
                events.append(Event(step, "generalized",
                                    f"Generalized at step {step:,}: held-out accuracy {heldout_accuracy:.3f} followed the "
                                    f"train fit (step {self.fit_step:,}) after {delay:,} steps; no grokking."))
        return events

    def decision(self) -> tuple[str, str]:
        """``(verdict, reason)``: verdict is grokked, generalized, memorized, fitting or undecided."""
        if self.n_heldout == 0:
            return ("undecided", "Cannot decide about memorization or grokking: no held-out figures were reported. "
                    "Pass heldout_eval= to the Monitor, or report them with mon.log(heldout_accuracy=...).")
        if self.n_train == 0:
            return ("undecided", "Cannot decide about memorization or grokking: no train accuracy was reported. "
                    "Pass train_eval= to the Monitor, or report it with mon.log(train_accuracy=...).")
        if self.grokked_at is not None:
            return ("grokked", f"Held-out accuracy rose at step {self.grokked_at:,}, {self.delay:,} steps after the fit.")
        if self.generalized_at is not None:
            return ("generalized", f"Held-out accuracy reached {self.heldout_fit:.2f} at step {self.generalized_at:,}.")
        if self.memorized_at is not None:
            return ("memorized", f"Memorized at step {self.memorized_at:,}; held-out accuracy has not risen (yet).")
        return ("fitting", f"Train accuracy has not reached {self.train_fit:.2f} yet.")
