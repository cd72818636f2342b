"""Splitters: each builds train/test partitions that test one kind of generalization.

All follow scikit-learn's CV splitter protocol and return a :class:`Split` with diagnostics
and a taxonomy card from ``split_dataset``.
"""

from gengap.splits._base import Split, Splitter, TaxonomyCard, as_dataset
from gengap.splits._load import load_split
from gengap.splits._registry import make_splitter, methods, parse_split_spec
from gengap.splits.combination import HeldOutPrimitive
from gengap.splits.length import LengthSplit
from gengap.splits.random import RandomSplit

__all__ = [
    "HeldOutPrimitive",
    "LengthSplit",
    "RandomSplit",
    "Split",
    "Splitter",
    "TaxonomyCard",
    "as_dataset",
    "load_split",
    "make_splitter",
    "methods",
    "parse_split_spec",
]
