"""Complexity sweeps of built-in tasks: ID and OOD parts at each level, for the generalization valley.

For each task with a complexity knob, :func:`sweep_dataset` generates at every level an
in-distribution (ID) test part, an out-of-distribution (OOD) test part — the same task with its
surface re-encoded, the answer unchanged up to that encoding — and, for learners, a training
part. :func:`run_sweep` trains or queries the models on it and returns the valley of each
(:mod:`gengap.analysis.valley`), following Scylla's design (Qi et al. 2024).

==================  ============================  ===========================================
task                level                         OOD re-encoding (answer unchanged)
==================  ============================  ===========================================
``addition``        digits of the longer operand  digits 0-9 written as letters a-j, in the
``multiplication``                                input and the answer
``dyck``            nesting depth (2 types)       ``( ) [ ]`` written as ``< > { }``; the 0/1
                                                  label is the same
``reverse_string``  string length                 ``a b`` written as ``x y``, input and answer
==================  ============================  ===========================================

Learners only know the symbols they were trained on, so the training part holds ID examples at
every level and OOD examples at the lowest ``ood_train_levels`` levels: the model has seen the
re-encoding, but only on the easiest problems. An endpoint (an LLM) gets no training part.
Other tasks with a knob are not swept yet: k-hop facts need one knowledge base shared by every
level, and word problems have no step-count parameter.

>>> ds = sweep_dataset("addition", levels=[1, 2], n_per_level=3, train_per_level=4, seed=0)
>>> sorted(set(zip(ds.column("level"), ds.column("part"), ds.column("role"))))[:3]
[(1, 'id', 'test'), (1, 'id', 'train'), (1, 'ood', 'test')]
>>> reencode_digits("1 2 + 3 4")
'b c + d e'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np
import pandas as pd

from gengap._errors import ConfigError, DataError, did_you_mean
from gengap.dataset import Dataset
from gengap.tasks._registry import generate

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["SweepTask", "SweepOptions", "SWEEPS", "sweep_dataset", "run_sweep", "reencode_digits"]

_DIGITS = str.maketrans("0123456789", "abcdefghij")
_BRACKETS = str.maketrans("()[]", "<>{}")
_AB = str.maketrans("ab", "xy")


def reencode_digits(text: str) -> str:
    """Digits written in another alphabet (0-9 -> a-j): the OOD surface of the arithmetic tasks."""
    return text.translate(_DIGITS)


@dataclass(frozen=True)
class SweepTask:
    """A task's complexity knob and its OOD re-encoding.

    Attributes
    ----------
    task : the registered task name.
    knob : what a level is, in words.
    levels : the default levels.
    make : ``(level, n, seed) -> Dataset`` of ``n`` examples at one level.
    reencode_input, reencode_target : the OOD surface, applied to input and target.
    ood : the re-encoding in words (shown in reports).
    """

    task: str
    knob: str
    levels: tuple[int, ...]
    make: Callable[[int, int, int], Dataset]
    reencode_input: Callable[[str], str]
    reencode_target: Callable[[str], str]
    ood: str


def _digits(task: str) -> Callable[[int, int, int], Dataset]:
    return lambda level, n, seed: generate(task, seed=seed, n=n, min_digits=level, max_digits=level)


def _dyck(level: int, n: int, seed: int) -> Dataset:
    """Dyck-2 strings whose balanced form nests exactly ``level`` deep (drawn, then filtered)."""
    kept: list[Dataset] = []
    total, tries = 0, 0
    while total < n and tries < 20:
        ds = generate("dyck", seed=seed + 1000 * tries, n=max(4 * n, 64), n_types=2, min_length=2 * level,
                      max_length=2 * level + 8, max_depth=level)
        take = np.flatnonzero(ds.column("depth").to_numpy() == level)
        kept.append(ds.take(take))
        total += len(take)
        tries += 1
    frame = pd.concat([k.frame for k in kept], ignore_index=True).head(n)
    return Dataset.from_frame(frame, input="input", target="target", id="id", name="dyck")


def _reverse(level: int, n: int, seed: int) -> Dataset:
    return generate("reverse_string", seed=seed, n=n, min_length=level, max_length=level)


def _same(text: str) -> str:
    return text


SWEEPS: dict[str, SweepTask] = {
    "addition": SweepTask("addition", "digits of the longer operand", tuple(range(1, 9)), _digits("addition"),
                          reencode_digits, reencode_digits, "digits 0-9 written as letters a-j (input and answer)"),
    "multiplication": SweepTask("multiplication", "digits of the longer operand", tuple(range(1, 6)),
                                _digits("multiplication"), reencode_digits, reencode_digits,
                                "digits 0-9 written as letters a-j (input and answer)"),
    "dyck": SweepTask("dyck", "nesting depth of the balanced string", tuple(range(1, 9)), _dyck,
                      lambda t: t.translate(_BRACKETS), _same, "brackets ( ) [ ] written as < > { } (label unchanged)"),
    "reverse_string": SweepTask("reverse_string", "string length", tuple(range(2, 21, 2)), _reverse,
                                lambda t: t.translate(_AB), lambda t: t.translate(_AB),
                                "symbols a b written as x y (input and answer)"),
}


def get_sweep(task: str) -> SweepTask:
    """The sweep of a task; an unknown name lists the sweepable tasks."""
    if task not in SWEEPS:
        raise ConfigError(f"No complexity sweep for task '{task}'; sweepable tasks: {', '.join(SWEEPS)}."
                          f"{did_you_mean(task, SWEEPS)}")
    return SWEEPS[task]


class SweepOptions(TypedDict, total=False):
    """The options of a sweep's design: :func:`sweep_dataset` takes them, :func:`run_sweep` passes them on."""

    levels: Sequence[int] | None
    n_per_level: int
    train_per_level: int
    ood_train_levels: int
    seed: int


def sweep_dataset(
    task: str,
    *,
    levels: Sequence[int] | None = None,
    n_per_level: int = 200,
    train_per_level: int = 0,
    ood_train_levels: int = 1,
    seed: int = 0,
) -> Dataset:
    """ID and OOD test parts (``n_per_level`` each) and an optional training part at every level.

    Metadata: ``level``, ``part`` (``id`` / ``ood``), ``role`` (``train`` / ``test``). Inputs are
    distinct within a level, and no test input is also a training input; a level with fewer
    distinct problems than asked (1-digit addition has 100) gives each test part at most a third
    of them (half without training) and the rest to training.
    """
    spec = get_sweep(task)
    chosen = list(spec.levels if levels is None else levels)
    if not chosen or any(int(v) != v or v < 1 for v in chosen):
        raise ConfigError(f"levels={chosen!r} must be positive integers, e.g. 1,2,3 (task '{task}': {spec.knob}).")
    if n_per_level < 1 or train_per_level < 0 or ood_train_levels < 0:
        raise ConfigError(f"n_per_level={n_per_level} must be >= 1; train_per_level={train_per_level} and "
                          f"ood_train_levels={ood_train_levels} must be >= 0.")
    ood_train = set(sorted(chosen)[:ood_train_levels]) if train_per_level else set()
    frames = []
    for k, level in enumerate(sorted({int(v) for v in chosen})):
        n_ood_train = train_per_level // 2 if level in ood_train else 0
        want = 2 * n_per_level + train_per_level + n_ood_train
        ds = spec.make(level, want, seed + 7919 * k)
        frame = ds.frame[["input", "target"]].drop_duplicates("input").reset_index(drop=True)
        sizes = _allocate(len(frame), n_per_level, train_per_level, n_ood_train)
        cuts = np.concatenate([[0], np.cumsum(sizes)])
        parts = [("test", "id"), ("test", "ood"), ("train", "id"), ("train", "ood")]
        for (role, part), lo, hi in zip(parts, cuts[:-1], cuts[1:]):
            piece = frame.iloc[lo:hi].copy()
            if piece.empty:
                continue
            if part == "ood":
                piece["input"] = piece["input"].map(spec.reencode_input)
                piece["target"] = piece["target"].map(spec.reencode_target)
            piece["level"], piece["part"], piece["role"] = level, part, role
            piece["id"] = [f"{task}-L{level}-{role}-{part}-{i}" for i in range(len(piece))]
            frames.append(piece)
    if not frames:
        raise DataError(f"The sweep of '{task}' generated no examples.")
    out = pd.concat(frames, ignore_index=True)
    return Dataset.from_frame(out, input="input", target="target", id="id", name=f"{task}-sweep")


def _allocate(available: int, n_test: int, n_train: int, n_ood_train: int) -> np.ndarray:
    """Sizes of (test ID, test OOD, train ID, train OOD) from ``available`` distinct problems.

    Each test part takes at most a third of what there is; training shares the rest (OOD at most a third of it).

    >>> _allocate(1000, 200, 300, 150).tolist(), _allocate(100, 200, 300, 150).tolist()
    ([200, 200, 300, 150], [33, 33, 23, 11])
    """
    test = min(n_test, available // 3) if (n_train + n_ood_train) else min(n_test, available // 2)
    rest = available - 2 * test
    ood = min(n_ood_train, rest // 3) if rest < n_train + n_ood_train else n_ood_train
    return np.array([test, test, min(n_train, rest - ood), ood])


def _split(ds: Dataset, seed: int) -> Any:
    from gengap.splits import Split, SplitDetails, SplitDiagnostics, TaxonomyCard

    role = ds.column("role").astype(str).to_numpy()
    card = TaxonomyCard(motivation="intrinsic", generalisation_type="robustness", shift_type="covariate",
                        shift_source="generated_shift",
                        description="Complexity sweep: ID and OOD (surface re-encoded) test parts at every level.")
    train, test = np.flatnonzero(role == "train"), np.flatnonzero(role == "test")
    details = SplitDetails(held_out="the test rows of every level, ID and OOD")
    return Split("sweep", "preset", train, test, seed, {"column": "role"},
                 SplitDiagnostics.of_parts(len(train), len(test), len(ds), details), card, ds)


def run_sweep(
    models: Mapping[str, Any],
    task: str,
    *,
    out: str | Path | None = None,
    n_resamples: int = 10_000,
    progress: bool | None = None,
    **design: Unpack[SweepOptions],
) -> tuple[Any, list[Any]]:
    """Run each model on a task's sweep; returns the Evaluation and one valley per model.

    ``models`` maps names to anything :func:`gengap.evaluate` takes: unfitted learners are
    trained on the sweep's training part (give ``train_per_level`` > 0), fixed models and
    endpoints are only queried. ``design`` (``levels``, ``n_per_level``, ``train_per_level``,
    ``ood_train_levels``, ``seed``) is passed to :func:`sweep_dataset`, whose defaults apply. The
    report of the run (``Evaluation.report()``) shows the valley.
    """
    from gengap._specs import bind_options
    from gengap.analysis.valley import valleys_from_rows
    from gengap.evaluation import evaluate

    chosen = bind_options(sweep_dataset, task, what="run_sweep", **design)
    ds = sweep_dataset(**chosen)
    seed = chosen["seed"]
    spec = get_sweep(task)
    config = {"sweep": {"task": task, "knob": spec.knob, "ood": spec.ood, "levels": sorted(set(ds.column("level"))),
                        **{k: chosen[k] for k in ("n_per_level", "train_per_level", "ood_train_levels")}}}
    ev = evaluate(dict(models), ds, [_split(ds, seed)], out=out, name=f"{task}-sweep", seed=seed, run_info=config,
                  progress=progress)
    return ev, valleys_from_rows(ev.rows(), n_resamples=n_resamples, seed=seed)
