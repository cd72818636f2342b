"""The structure of examples that splitters use: atoms and compounds, their counts, and divergences.

- :mod:`gengap.structure.atoms`: extractors that turn an input into atoms or compounds
  (``"words"``, ``"ngrams:2,3"``, ``"tree"``, ``"attributes:col1,col2"`` or a callable).
- :mod:`gengap.structure.counts`: sparse example x type counts and a split's structural diagnostics.
- :mod:`gengap.structure.divergence`: atom and compound divergence (Keysers et al. 2020), as a
  formula and as the incremental state the MCD search updates.

>>> from gengap.structure import atom_divergence, ngrams
>>> ngrams("walk twice", n=2), atom_divergence([1, 1], [1, 1])
(['walk twice'], 0.0)
"""

from gengap.structure.atoms import (
    StructureExtractor,
    atom_set,
    length,
    make_extractor,
    ngrams,
    parse_tree,
    tree_atoms,
    tree_compounds,
    words,
)
from gengap.structure.counts import StructureCounts, count_structure, split_structure
from gengap.structure.divergence import (
    ATOM_ALPHA,
    COMPOUND_ALPHA,
    IncrementalDivergence,
    atom_divergence,
    chernoff_coefficient,
    compound_divergence,
    divergence,
)

__all__ = [
    "ATOM_ALPHA", "COMPOUND_ALPHA", "IncrementalDivergence", "StructureCounts", "StructureExtractor", "atom_divergence",
    "atom_set", "chernoff_coefficient", "compound_divergence", "count_structure", "divergence", "length",
    "make_extractor", "ngrams", "parse_tree", "split_structure", "tree_atoms", "tree_compounds", "words",
]
