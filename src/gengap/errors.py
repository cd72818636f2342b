"""The exceptions gengap raises, for ``except`` clauses (the tree is drawn in :mod:`gengap._errors`).

>>> from gengap.errors import ConfigError, GengapError
>>> issubclass(ConfigError, GengapError)
True
"""

from gengap._errors import ConfigError, DataError, EndpointError, GengapError, MissingDependency, ModelError, StoreError

__all__ = ["ConfigError", "DataError", "EndpointError", "GengapError", "MissingDependency", "ModelError", "StoreError"]
