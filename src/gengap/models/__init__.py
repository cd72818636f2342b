"""Model adapters: batch functions from inputs to outputs."""

from gengap.models._base import EstimatorModel, FunctionModel, Model
from gengap.models._resolve import as_model, load_model
from gengap.models._scored import Scored
from gengap.models.http import OpenAIModel
from gengap.models.sklearn_file import load_estimator_file
from gengap.models.torch_module import TorchModel
from gengap.models.transformers import TransformersModel

__all__ = ["EstimatorModel", "FunctionModel", "Model", "OpenAIModel", "Scored", "TorchModel", "TransformersModel", "as_model",
           "load_estimator_file", "load_model"]
