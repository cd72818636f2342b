"""gengap: where does your model stop generalizing, and how sure are we?

Build the splits that test each kind of generalization on your own data, run your model over
them, score with honest statistics, and write a report.

>>> import gengap
>>> ds = gengap.load([{"input": f"a {'b ' * i}", "target": "x " * i} for i in range(1, 40)])
>>> ev = gengap.evaluate(lambda xs: ["x " * (len(x.split()) - 1) for x in xs], ds, ["random", "length"], progress=False)
>>> ev.summary()["score"].tolist()
[1.0, 1.0]

Subpackages with more: ``gengap.splits`` (every splitter), ``gengap.perturb`` (stress tests),
``gengap.extract`` (reading answers out of free text), ``gengap.tasks`` (built-in generators),
``gengap.learners`` (small PyTorch models), ``gengap.monitor`` and ``gengap.measures``
(training-time measures), ``gengap.models`` (adapters), ``gengap.report`` (report sections).
"""

from typing import TYPE_CHECKING, Any

from gengap._errors import ConfigError, DataError, EndpointError, GengapError, MissingDependency, ModelError, StoreError
from gengap.dataset import Dataset
from gengap.io import load
from gengap.models import (
    EstimatorModel,
    FunctionModel,
    Model,
    OpenAIModel,
    TorchModel,
    TransformersModel,
    as_model,
    load_estimator_file,
    load_model,
)
from gengap.runner import Evaluation, evaluate
from gengap.splits import (
    ClusterSplit,
    DifficultySplit,
    GroupSplit,
    HeldOutCombinations,
    HeldOutPrimitive,
    LengthSplit,
    MaxCompoundDivergence,
    PartCountSplit,
    PresetSplit,
    RandomSplit,
    Split,
    Splitter,
    TargetMaxCompoundDivergence,
    TaxonomyCard,
    TimeSplit,
    UnobservedStructureSplit,
    load_split,
    make_splitter,
)
from gengap.stats import Interval, bootstrap_ci, gap, paired_difference
from gengap.store import Store

#: Names loaded on first use (PEP 562), so ``import gengap`` and ``gengap --help`` stay quick.
_LAZY = {
    "atom_divergence": "gengap.divergence", "compound_divergence": "gengap.divergence",
    "group_by": "gengap.groups", "group_metrics": "gengap.groups",
    "IRTFit": "gengap.irt", "fit_irt": "gengap.irt", "irt_from_store": "gengap.irt",
    "Monitor": "gengap.monitor",
    "Seq2SeqLearner": "gengap.learners",
    "Perturbation": "gengap.perturb", "make_perturbation": "gengap.perturb", "make_perturbations": "gengap.perturb",
    "perturbation": "gengap.perturb", "stress_summary": "gengap.perturb",
    "Prompt": "gengap.prompts",
    "RankAgreement": "gengap.ranking", "expected_max_score": "gengap.ranking", "rank_agreement": "gengap.ranking",
    "write_report": "gengap.report",
    "SeedSpread": "gengap.seeds",
    "ShiftTest": "gengap.shift", "classifier_test": "gengap.shift", "detect_shift": "gengap.shift", "mmd_test": "gengap.shift",
    "Template": "gengap.templates",
    "TransferMatrix": "gengap.transfer", "transfer_matrix": "gengap.transfer",
}

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from gengap import measures
    from gengap.divergence import atom_divergence, compound_divergence
    from gengap.groups import group_by, group_metrics
    from gengap.irt import IRTFit, fit_irt, irt_from_store
    from gengap.learners import Seq2SeqLearner
    from gengap.monitor import Monitor
    from gengap.perturb import Perturbation, make_perturbation, make_perturbations, perturbation, stress_summary
    from gengap.prompts import Prompt
    from gengap.ranking import RankAgreement, expected_max_score, rank_agreement
    from gengap.report import write_report
    from gengap import seeds
    from gengap.seeds import SeedSpread
    from gengap.shift import ShiftTest, classifier_test, detect_shift, mmd_test
    from gengap.templates import Template
    from gengap.transfer import TransferMatrix, transfer_matrix


def __getattr__(name: str) -> Any:
    import importlib

    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    elif name in ("seeds", "measures"):  # modules; gengap.seeds is callable: gengap.seeds(train_fn, n=...)
        value = importlib.import_module(f"gengap.{name}")
    else:
        raise AttributeError(f"module 'gengap' has no attribute '{name}'")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__version__ = "0.1.0"

__all__ = [
    "ClusterSplit",
    "ConfigError",
    "DataError",
    "Dataset",
    "DifficultySplit",
    "EndpointError",
    "EstimatorModel",
    "Evaluation",
    "FunctionModel",
    "GengapError",
    "GroupSplit",
    "HeldOutCombinations",
    "HeldOutPrimitive",
    "IRTFit",
    "Interval",
    "LengthSplit",
    "MaxCompoundDivergence",
    "MissingDependency",
    "Model",
    "ModelError",
    "Monitor",
    "OpenAIModel",
    "PartCountSplit",
    "Perturbation",
    "PresetSplit",
    "Prompt",
    "RandomSplit",
    "RankAgreement",
    "SeedSpread",
    "Seq2SeqLearner",
    "ShiftTest",
    "Split",
    "Splitter",
    "Store",
    "StoreError",
    "TargetMaxCompoundDivergence",
    "TaxonomyCard",
    "Template",
    "TimeSplit",
    "TorchModel",
    "TransferMatrix",
    "TransformersModel",
    "UnobservedStructureSplit",
    "__version__",
    "as_model",
    "atom_divergence",
    "bootstrap_ci",
    "classifier_test",
    "compound_divergence",
    "detect_shift",
    "evaluate",
    "expected_max_score",
    "fit_irt",
    "gap",
    "group_by",
    "group_metrics",
    "irt_from_store",
    "load",
    "load_estimator_file",
    "load_model",
    "load_split",
    "make_perturbation",
    "make_perturbations",
    "make_splitter",
    "measures",
    "mmd_test",
    "paired_difference",
    "perturbation",
    "rank_agreement",
    "seeds",
    "stress_summary",
    "transfer_matrix",
    "write_report",
]
