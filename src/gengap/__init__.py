"""gengap: where does your model stop generalizing, and how sure are we?

Build the splits that test each kind of generalization on your own data, run your model over
them, score with honest statistics, and write a report.

>>> import gengap
>>> ds = gengap.load([{"input": f"a {'b ' * i}", "target": "x " * i} for i in range(1, 40)])
>>> ev = gengap.evaluate(lambda xs: ["x " * (len(x.split()) - 1) for x in xs], ds, ["random", "length"], progress=False)
>>> ev.summary()["score"].tolist()
[1.0, 1.0]
"""

from gengap._errors import ConfigError, DataError, EndpointError, GengapError, MissingDependency, ModelError, StoreError
from gengap.dataset import Dataset
from gengap.io import load
from gengap.models import EstimatorModel, FunctionModel, Model, as_model, load_model
from gengap.runner import Evaluation, evaluate
from gengap.splits import HeldOutPrimitive, LengthSplit, RandomSplit, Split, Splitter, TaxonomyCard, load_split, make_splitter
from gengap.stats import Interval, bootstrap_ci, gap, paired_difference
from gengap.store import Store

__version__ = "0.1.0"

__all__ = [
    "ConfigError",
    "DataError",
    "Dataset",
    "EndpointError",
    "EstimatorModel",
    "Evaluation",
    "FunctionModel",
    "GengapError",
    "HeldOutPrimitive",
    "Interval",
    "LengthSplit",
    "MissingDependency",
    "Model",
    "ModelError",
    "RandomSplit",
    "Split",
    "Splitter",
    "Store",
    "StoreError",
    "TaxonomyCard",
    "__version__",
    "as_model",
    "bootstrap_ci",
    "evaluate",
    "gap",
    "load",
    "load_model",
    "load_split",
    "make_splitter",
    "paired_difference",
]
