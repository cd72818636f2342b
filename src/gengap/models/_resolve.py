"""Turning what a user passes (an object or a spec string) into a Model."""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

from gengap._errors import ConfigError, did_you_mean
from gengap.models._base import EstimatorModel, FunctionModel, Model

__all__ = ["as_model", "load_model"]


def as_model(obj: Any, *, name: str | None = None, version: str | None = None) -> Model:
    """A Model from an adapter, an estimator (anything with fit and predict), or a batch callable.

    ``version`` vouches for a Python function or object whose state gengap cannot see: its outputs
    are cached under that version (change it whenever the model changes); without it they are not
    cached.

    >>> as_model(lambda xs: xs).name, as_model(lambda xs: xs, version="1").cacheable
    ('function', True)
    """
    if isinstance(obj, Model):
        return obj
    if isinstance(obj, str):
        return load_model(obj, name=name, version=version)
    if hasattr(obj, "predict") and hasattr(obj, "fit"):
        return EstimatorModel(obj, name=name)
    if hasattr(obj, "predict"):
        return FunctionModel(obj.predict, name=name or type(obj).__name__, version=version)
    if callable(obj):
        return FunctionModel(obj, name=name, version=version)
    raise ConfigError(
        f"Cannot use a {type(obj).__name__} as a model: pass a callable on batches, a scikit-learn estimator, "
        "or a gengap model adapter."
    )


def _import_object(spec: str) -> Any:
    module_name, _, attr = spec.partition(":")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        missing = getattr(e, "name", None)
        if missing and not module_name.startswith(missing) and _findable(module_name):
            raise ConfigError(  # the module is there; something it imports is not
                f"Model '{spec}': the module '{module_name}' was found, but its own import failed at {_where(e)}: {e}. "
                f"Install '{missing.split('.')[0]}' in this environment (the one gengap runs in), or fix that import."
            ) from None
        raise ConfigError(
            f"Model '{spec}': cannot import module '{module_name}' ({e}). Use the form package.module:function, "
            "run from the folder that holds the package, or install it."
        ) from None
    except Exception as e:  # the module's own code failed while it was imported
        raise ConfigError(f"Model '{spec}': importing the module '{module_name}' raised {type(e).__name__} at "
                          f"{_where(e)}: {e}. Fix the module (gengap only imported it).") from None
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            public = [n for n in dir(obj) if not n.startswith("_")]
            raise ConfigError(f"Model '{spec}': '{module_name}' has no attribute '{attr}'.{did_you_mean(part, public)} "
                              f"It has: {public[:12]}.")
        obj = getattr(obj, part)
    return obj


def _findable(module_name: str) -> bool:
    try:
        return importlib.util.find_spec(module_name) is not None
    except (ImportError, ValueError):
        return False


def _where(error: BaseException) -> str:
    """'file.py, line 3': the deepest frame of the error's traceback outside importlib (or the syntax error's place)."""
    if isinstance(error, SyntaxError) and error.filename:
        return f"{error.filename}, line {error.lineno}"
    tb, place = error.__traceback__, "its first lines"
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if "importlib" not in name and not name.startswith("<frozen"):
            place = f"{name}, line {tb.tb_lineno}"
        tb = tb.tb_next
    return place


def load_model(spec: str, *, name: str | None = None, version: str | None = None, **options: Any) -> Model:
    """A Model from a spec string.

    - ``package.module:function`` (or ``:estimator``): an object importable from Python;
    - ``path/to/model.skops``: a scikit-learn model saved with skops;
    - ``http://host:port/v1`` or ``https://...``: an OpenAI-compatible endpoint (``options``:
      ``model_name``, ``api``, ``api_key_env``, ...).

    ``version`` caches the outputs of an imported Python function or object (see :func:`as_model`).
    """
    if spec.startswith(("http://", "https://")):
        from gengap.models.http import OpenAIModel

        return OpenAIModel(spec, name=name, **options)
    path = Path(spec)
    if path.suffix in (".skops", ".pkl", ".pickle", ".joblib"):
        from gengap.models.sklearn_file import load_estimator_file

        return EstimatorModel(load_estimator_file(path, **options), name=name or path.stem)
    if ":" in spec:
        return as_model(_import_object(spec), name=name, version=version)
    raise ConfigError(
        f"Cannot tell what model '{spec}' is. Use package.module:function for a Python callable or estimator, "
        "a .skops file for a saved scikit-learn model, or an http(s):// base URL for an OpenAI-compatible server."
    )
