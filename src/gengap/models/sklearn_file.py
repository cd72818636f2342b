"""Loading a saved scikit-learn model safely.

- ``.skops`` files load with :func:`skops.io.load` and an explicit list of trusted types: every
  type the file refers to must be a scikit-learn, NumPy or SciPy type on gengap's allow-list, or
  one the user names in ``trusted``. Anything else (``os.system``, a class from some other
  package) stops the load with a message listing those types and how to trust them.
- ``.pkl``, ``.pickle`` and ``.joblib`` files load only with ``trust_pickle=True``: unpickling runs
  whatever code the file's author put in it.

>>> import skops.io, tempfile, os
>>> from sklearn.dummy import DummyClassifier
>>> path = os.path.join(tempfile.mkdtemp(), "model.skops")
>>> skops.io.dump(DummyClassifier().fit([[0], [1]], ["a", "a"]), path)
>>> load_estimator_file(path).predict([[5]]).tolist()
['a']
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from gengap._errors import ConfigError, MissingDependency

__all__ = ["load_estimator_file", "is_allowed_type", "PICKLE_SUFFIXES"]

PICKLE_SUFFIXES = (".pkl", ".pickle", ".joblib")

#: Packages whose types a .skops file may use without the user trusting them by name.
ALLOWED_PACKAGES = ("sklearn.", "numpy.", "scipy.")

#: Names inside those packages that read files, load pickles or reach the network when called
#: (a FunctionTransformer could be pointed at them); they must be trusted by name.
DENIED_PREFIXES = (
    "numpy.load", "numpy.fromfile", "numpy.memmap", "numpy.loadtxt", "numpy.genfromtxt", "numpy.fromregex",
    "numpy.lib.npyio", "numpy.lib._npyio_impl", "numpy.lib.format", "numpy.ctypeslib", "numpy.f2py",
    "numpy.distutils", "numpy.testing", "scipy.io.", "sklearn.datasets.", "sklearn.externals.",
)


def is_allowed_type(name: str) -> bool:
    """True when a fully qualified type name is on gengap's allow-list for .skops files.

    >>> is_allowed_type("sklearn.tree._tree.Tree"), is_allowed_type("posix.system"), is_allowed_type("numpy.load")
    (True, False, False)
    """
    return name.startswith(ALLOWED_PACKAGES) and not name.startswith(DENIED_PREFIXES)


def load_estimator_file(path: str | os.PathLike[str], *, trust_pickle: bool = False,
                        trusted: Iterable[str] | None = None) -> Any:
    """Load a scikit-learn estimator or pipeline saved with skops (or, if trusted, pickle/joblib).

    Parameters
    ----------
    path : a ``.skops`` file (saved with ``skops.io.dump``), or a ``.pkl``/``.pickle``/``.joblib`` file.
    trust_pickle : allow pickle and joblib files. Only for files you made yourself or fully trust:
        loading one runs arbitrary code.
    trusted : extra fully qualified type names to trust in a ``.skops`` file, e.g.
        ``["mypkg.features.Tokenizer"]``.

    Returns
    -------
    The estimator object as saved (fitted or not).
    """
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"Model file '{path}' does not exist (relative paths start at {Path.cwd()}).")
    suffix = path.suffix.lower()
    if suffix in PICKLE_SUFFIXES:
        return _load_pickle(path, trust_pickle)
    if suffix != ".skops":
        raise ConfigError(f"Model file '{path}': expected a .skops file (or .pkl/.pickle/.joblib with --trust-pickle), "
                          f"got '{suffix or 'no suffix'}'.")
    try:
        import skops.io as sio
    except ImportError:
        raise MissingDependency("skops", "skops", f"Loading the scikit-learn model '{path}'") from None
    try:
        found = sio.get_untrusted_types(file=path)
    except Exception as e:  # a zip that is not a skops file, a truncated file, ...
        raise ConfigError(f"'{path}' is not a readable .skops file ({type(e).__name__}: {e}). "
                          "Save the model with skops.io.dump(model, path).") from None
    extra = set(trusted or ())
    refused = sorted(t for t in found if t not in extra and not is_allowed_type(t))
    if refused:
        shown = ", ".join(refused)
        raise ConfigError(
            f"'{path}' refers to types outside scikit-learn, NumPy and SciPy that gengap does not trust: {shown}. "
            "Loading them could run code from the file. If you made the file and trust these types, name them: "
            f"--trust-type {' --trust-type '.join(refused)} on the command line, trusted = {refused!r} in the "
            "[model] table of a run file, or load_estimator_file(path, trusted=[...]) in Python."
        )
    try:
        return sio.load(path, trusted=list(found))
    except Exception as e:
        raise ConfigError(f"Loading '{path}' with skops failed ({type(e).__name__}: {e}). Check that the file was "
                          "saved with a compatible scikit-learn version.") from None


def _load_pickle(path: Path, trust_pickle: bool) -> Any:
    if not trust_pickle:
        raise ConfigError(
            f"'{path}' is a {path.suffix} file, and loading a pickle runs whatever code its author put in it. "
            "Save the model with skops instead (skops.io.dump(model, 'model.skops')) and pass that file, or, "
            "only for a file you made yourself, allow it with --trust-pickle (trust_pickle = true in the "
            "run file's [model] table)."
        )
    try:
        import joblib

        return joblib.load(path)  # reads plain pickles as well as joblib files
    except ImportError:
        import pickle

        with open(path, "rb") as f:
            return pickle.load(f)
    except Exception as e:
        raise ConfigError(f"Loading '{path}' failed ({type(e).__name__}: {e}). Check that it is a pickle or joblib "
                          "file made with the installed scikit-learn version.") from None
