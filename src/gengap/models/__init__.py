"""Model adapters: batch functions from inputs to outputs."""

from gengap.models._base import EstimatorModel, FunctionModel, Model
from gengap.models._resolve import as_model, load_model

__all__ = ["EstimatorModel", "FunctionModel", "Model", "as_model", "load_model"]
