"""``gengap demo``: the whole pipeline on built-in data, offline, in a few minutes on a laptop CPU.

The SCAN demo generates all 20,910 SCAN commands, builds three splits (i.i.d. random, length:
train on short action sequences and test on long ones, and held-out primitive: ``jump`` seen
only alone in training), trains a fresh GRU-with-attention baseline on each train part, scores
each test part with bootstrap intervals, writes the report and prints the summary.

Lake & Baroni (2018) report about 99.8% exact match on the random split, 1.2% on add-jump and
13.8% on length for their models. The demo prints whatever its small baseline reaches.
"""

from __future__ import annotations

import importlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gengap._errors import ConfigError, did_you_mean
from gengap._outputs import check_out_folder
from gengap._settings import DEFAULT_OUT
from gengap.tasks.scan import PUBLISHED  # noqa: F401  (the demo's printout compares with them)

__all__ = ["DEMOS", "DemoResult", "SCAN_BASELINE", "SCAN_BASELINE_QUICK", "run_demo", "scan_demo"]

#: Demos ``gengap demo NAME`` runs.
DEMOS = ("scan", "grokking")

#: Settings of the demo's GRU baseline (see :class:`gengap.learners.Seq2SeqLearner`).
SCAN_BASELINE: dict[str, Any] = {
    "arch": "gru", "embedding_size": 48, "hidden_size": 96, "epochs": 8, "batch_size": 128, "learning_rate": 5e-3,
    "dropout": 0.0,
}
#: A smaller network trained for fewer epochs, for ``--quick``.
SCAN_BASELINE_QUICK: dict[str, Any] = {**SCAN_BASELINE, "embedding_size": 32, "hidden_size": 64, "epochs": 4}



@dataclass
class DemoResult:
    """What a demo produced: the output folder, the evaluation (SCAN) and the wall time in seconds."""

    name: str
    out: Path
    seconds: float
    evaluation: Any = None
    settings: dict[str, Any] = field(default_factory=dict)
    figures: dict[str, Any] = field(default_factory=dict)


def _subsample(dataset: Any, limit: int, seed: int) -> Any:
    """``limit`` examples drawn at random, always keeping the single-word primitives (so every split exists)."""
    inputs = dataset.inputs
    keep = {i for i, x in enumerate(inputs) if len(x.split()) == 1}
    rest = np.array([i for i in range(len(inputs)) if i not in keep])
    n_more = max(0, min(len(rest), limit - len(keep)))
    chosen = np.random.default_rng(seed).choice(rest, size=n_more, replace=False)
    return dataset.take(np.sort(np.concatenate([np.array(sorted(keep)), chosen])))


def scan_demo(
    out: str | Path = DEFAULT_OUT,
    *,
    quick: bool = False,
    seed: int = 0,
    epochs: int | None = None,
    limit: int | None = None,
    threads: int | None = None,
    progress: bool | None = None,
) -> DemoResult:
    """Run the SCAN demo and write its report to ``out``; returns a :class:`DemoResult`.

    Parameters
    ----------
    out : output folder (``index.html``, ``report.md``, ``results.json``, ``gengap.duckdb``).
    quick : a smaller network and fewer epochs (about half the time; lower figures).
    seed : seed of the random split and of the learner.
    epochs : override the number of training epochs.
    limit : use only this many SCAN commands (a smoke test; the figures are then not comparable).
    threads : CPU cores to train on: that many learners train side by side, each on one torch
        thread (None: the cores this process may use). The figures do not depend on it.
    progress : show progress bars (None: when stderr is a terminal).
    """
    from gengap.evaluation import evaluate
    from gengap.learners import Seq2SeqLearner
    from gengap.splits import HeldOutPrimitive, LengthSplit, RandomSplit
    from gengap.tasks.scan import scan_dataset

    started = time.perf_counter()
    settings = dict(SCAN_BASELINE_QUICK if quick else SCAN_BASELINE)
    if epochs is not None:
        settings["epochs"] = int(epochs)
    dataset = scan_dataset()
    if limit is not None:
        dataset = _subsample(dataset, int(limit), seed)
    splits = [
        RandomSplit(test_fraction=0.2, seed=seed),
        LengthSplit(by="target", test_fraction=0.2),
        HeldOutPrimitive(primitive="jump"),
    ]
    learner = Seq2SeqLearner(**settings, seed=seed, progress=progress)
    evaluation = evaluate(
        {"seq2seq-gru": learner}, dataset, splits, out=out, name="demo-scan", seed=seed, progress=progress,
        threads=threads, run_info={"demo": {"name": "scan", "quick": quick, "limit": limit, "learner": settings}},
    )
    evaluation.report()
    return DemoResult(name="scan", out=Path(out), seconds=time.perf_counter() - started, evaluation=evaluation,
                      settings=settings)


def run_demo(name: str = "scan", *, out: str | Path = DEFAULT_OUT, quick: bool = False, seed: int = 0,
             **options: Any) -> DemoResult:
    """Run the demo called ``name`` (``scan`` or ``grokking``); ``options`` go to the SCAN demo.

    The grokking demo lives in :mod:`gengap.monitor.grokking_demo` and is loaded only when asked for.
    """
    if name not in DEMOS:
        raise ConfigError(f"There is no demo '{name}'.{did_you_mean(name, DEMOS)} Demos: {', '.join(DEMOS)}.")
    check_out_folder(out)
    if name == "scan":
        return scan_demo(out, quick=quick, seed=seed, **options)
    module = importlib.import_module("gengap.monitor.grokking_demo")
    started = time.perf_counter()
    figures = module.main(out=Path(out), quick=quick, seed=seed)
    return DemoResult(name="grokking", out=Path(out), seconds=time.perf_counter() - started,
                      settings={"quick": quick}, figures=figures if isinstance(figures, dict) else {})
