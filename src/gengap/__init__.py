"""gengap: where does your model stop generalizing, and how sure are we?

Build the splits that test each kind of generalization on your own data, run your model over
them, score with honest statistics, and write a report.

>>> import gengap
>>> ds = gengap.load([{"input": f"a {'b ' * i}", "target": "x " * i} for i in range(1, 40)])
>>> ev = gengap.evaluate(lambda xs: ["x " * (len(x.split()) - 1) for x in xs], ds, ["random", "length"], progress=False)
>>> ev.summary()["score"].tolist()
[1.0, 1.0]

The top level holds what a notebook needs (the list is :data:`__all__`, documented in
docs/architecture.md). Everything else lives in its subpackage, each with its own ``__all__``:
``gengap.splits`` (every splitter), ``gengap.perturb`` (stress tests), ``gengap.analysis``
(intervals, groups, shift tests, transfer, ranking, seeds, IRT, stress effects), ``gengap.structure``
(atoms, compounds, divergence), ``gengap.models`` (adapters), ``gengap.extract`` (reading answers),
``gengap.tasks`` (built-in generators), ``gengap.learners`` (small PyTorch models), ``gengap.monitor``
(training-time measures), ``gengap.report`` (report sections), ``gengap.store`` (the results store),
``gengap.errors`` (every exception).
"""

from typing import TYPE_CHECKING, Any

# _threads first: before anything loads torch, waiting OpenMP threads are told to sleep, not spin.
# errors: the module, so gengap.errors.StoreError works after import gengap.
from gengap import _threads, errors  # noqa: F401
from gengap._errors import ConfigError, DataError, GengapError

#: Names loaded on first use (PEP 562), so ``import gengap`` and ``gengap --help`` stay quick.
_LAZY = {
    "Interval": "gengap.analysis.intervals", "bootstrap_ci": "gengap.analysis.intervals",
    "gap": "gengap.analysis.intervals", "paired_difference": "gengap.analysis.intervals",
    "Dataset": "gengap.dataset",
    "Evaluation": "gengap.evaluation", "evaluate": "gengap.evaluation",
    "load": "gengap.io",
    "Model": "gengap.models", "as_model": "gengap.models",
    **dict.fromkeys(("GroupSplit", "HeldOutCombinations", "HeldOutPrimitive", "LengthSplit", "MaxCompoundDivergence", "RandomSplit", "Split", "Splitter", "TimeSplit", "load_split", "make_splitter"), "gengap.splits"),
    "Monitor": "gengap.monitor",
    "Perturbation": "gengap.perturb", "make_perturbations": "gengap.perturb",
    "seeds": "gengap.retraining",
    "Prompt": "gengap.prompts",
    "write_report": "gengap.report",
}

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from gengap.analysis.intervals import Interval, bootstrap_ci, gap, paired_difference
    from gengap.dataset import Dataset
    from gengap.evaluation import Evaluation, evaluate
    from gengap.io import load
    from gengap.models import Model, as_model
    from gengap.monitor import Monitor
    from gengap.perturb import Perturbation, make_perturbations
    from gengap.prompts import Prompt
    from gengap.report import write_report
    from gengap.retraining import seeds
    from gengap.splits import (
        GroupSplit,
        HeldOutCombinations,
        HeldOutPrimitive,
        LengthSplit,
        MaxCompoundDivergence,
        RandomSplit,
        Split,
        Splitter,
        TimeSplit,
        load_split,
        make_splitter,
    )


def __getattr__(name: str) -> Any:
    import importlib
    import importlib.util

    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if not name.startswith("_") and importlib.util.find_spec(f"gengap.{name}") is not None:
        return importlib.import_module(f"gengap.{name}")  # a subpackage, e.g. gengap.splits
    raise AttributeError(f"module 'gengap' has no attribute '{name}'")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__version__ = "0.1.0"

__all__ = [
    "ConfigError",
    "DataError",
    "Dataset",
    "Evaluation",
    "GengapError",
    "GroupSplit",
    "HeldOutCombinations",
    "HeldOutPrimitive",
    "Interval",
    "LengthSplit",
    "MaxCompoundDivergence",
    "Model",
    "Monitor",
    "Perturbation",
    "Prompt",
    "RandomSplit",
    "Split",
    "Splitter",
    "TimeSplit",
    "__version__",
    "as_model",
    "bootstrap_ci",
    "evaluate",
    "gap",
    "load",
    "load_split",
    "make_perturbations",
    "make_splitter",
    "paired_difference",
    "seeds",
    "write_report",
]
