"""The version of gengap, in one place (the package, the store and the report read it from here)."""

__version__ = "0.1.0"
