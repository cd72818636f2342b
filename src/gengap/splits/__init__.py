"""Splitters: each builds train/test partitions that test one kind of generalization.

All follow scikit-learn's CV splitter protocol and return a :class:`Split` with diagnostics
and a taxonomy card from ``split_dataset``.
"""

from gengap.splits._base import Split, SplitDetails, SplitDiagnostics, Splitter, StructureFigures, TaxonomyCard, as_dataset
from gengap.splits._load import load_split
from gengap.splits._registry import make_splitter, methods, parse_split_spec
from gengap.splits.all_rows import AllRows
from gengap.splits.clusters import ClusterSplit
from gengap.splits.combination import HeldOutCombinations, HeldOutPrimitive, PartCountSplit
from gengap.splits.difficulty import DifficultySplit
from gengap.splits.divergence import MaxCompoundDivergence, TargetMaxCompoundDivergence
from gengap.splits.groups import GroupSplit
from gengap.splits.length import LengthSplit
from gengap.splits.local_structures import UnobservedStructureSplit, accuracy_by_unobserved, unobserved_local_structures
from gengap.splits.preset import PresetSplit
from gengap.splits.random import RandomSplit
from gengap.splits.time import TimeSplit
from gengap.splits.transfer import TransferSplit

__all__ = [
    "AllRows",
    "PresetSplit",
    "HeldOutCombinations",
    "PartCountSplit",
    "MaxCompoundDivergence",
    "UnobservedStructureSplit",
    "accuracy_by_unobserved",
    "unobserved_local_structures",
    "TargetMaxCompoundDivergence",
    "GroupSplit",
    "TimeSplit",
    "TransferSplit",
    "ClusterSplit",
    "DifficultySplit",
    "HeldOutPrimitive",
    "LengthSplit",
    "RandomSplit",
    "Split",
    "SplitDetails",
    "SplitDiagnostics",
    "Splitter",
    "StructureFigures",
    "TaxonomyCard",
    "as_dataset",
    "load_split",
    "make_splitter",
    "methods",
    "parse_split_spec",
]
