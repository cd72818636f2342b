"""Model adapters: batch functions from inputs to outputs."""

from gengap.models._base import EstimatorModel, FunctionModel, Model
from gengap.models._resolve import as_model, load_model
from gengap.models.http import OpenAIModel
from gengap.models.sklearn_file import load_estimator_file

__all__ = ["EstimatorModel", "FunctionModel", "Model", "OpenAIModel", "as_model", "load_estimator_file", "load_model"]
