"""What splitters need to know about an example: its atoms, its compounds and its length.

An *atom* is a smallest meaningful part of an input (a word, a primitive, an attribute value); a
*compound* is a combination of atoms (an n-gram of words, a parent-child edge of a parse tree, a
combination of attribute values). Compositional splits keep every test atom in training while the
test compounds differ from the training ones (Keysers et al. 2020).

Extractors are named by a spec string, as the CLI and run files write them:

=========================  ===============================================================
``"words"``                whitespace tokens of the input
``"ngrams:2,3"``           contiguous word n-grams of the listed lengths (``"a b"``, ``"a b c"``)
``"tree"``                 for bracketed / s-expression inputs: atoms are node labels and leaves;
                           compounds are parent-child edges and one-level subtrees
``"attributes:col1,col2"`` metadata values (``"col1=x"``) as atoms; combinations of values from
                           two or more columns (``"col1=x&col2=y"``) as compounds
a callable                 ``f(input) -> list[str]``, called on each input
=========================  ===============================================================

:mod:`gengap.structure.counts` counts them per example; :mod:`gengap.structure.divergence`
compares the counts of two parts.

>>> words("jump twice after walk")
['jump', 'twice', 'after', 'walk']
>>> ngrams("jump twice after walk", n=(2, 3))
['jump twice', 'twice after', 'after walk', 'jump twice after', 'twice after walk']
>>> tree_compounds("(S (V jump) (M twice))")
['S>V', 'S>M', 'V>jump', 'M>twice', 'S(V M)']
>>> length("I_JUMP I_JUMP")
2
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from gengap._errors import ConfigError, DataError, did_you_mean

__all__ = [
    "words", "length", "atom_set", "AtomFn", "ngrams", "parse_tree", "tree_atoms", "tree_compounds",
    "StructureExtractor", "make_extractor",
]

AtomFn = Callable[[Any], list[str]]
Role = Literal["atoms", "compounds"]


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return " ".join(str(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value)
    return str(value)


def words(value: Any) -> list[str]:
    """Whitespace tokens of a text (dict and list inputs are joined first)."""
    return _text(value).split()


def length(value: Any) -> int:
    """Number of whitespace tokens: the length SCAN's length split uses for action sequences."""
    if isinstance(value, (list, tuple)):
        return len(value)
    return len(_text(value).split())


def atom_set(values: Iterable[Any], atoms: AtomFn = words) -> set[str]:
    """The set of atoms over many examples."""
    out: set[str] = set()
    for value in values:
        out.update(atoms(value))
    return out


def ngrams(value: Any, n: int | Sequence[int] = (2, 3)) -> list[str]:
    """Contiguous word n-grams of each length in ``n``, space-joined, shortest first.

    >>> ngrams("a b a b", n=2)
    ['a b', 'b a', 'a b']
    """
    tokens = words(value)
    sizes = (n,) if isinstance(n, (int, np.integer)) else tuple(n)
    return [" ".join(tokens[i:i + k]) for k in sizes for i in range(len(tokens) - k + 1)]


# ---------------------------------------------------------------------------- trees
Tree = tuple  # (label, child, child, ...); a leaf is a plain str

_TOKEN = re.compile(r"\(|\)|\[|\]|[^\s()\[\]]+")


def parse_tree(text: str) -> Tree | str:
    """Parse a bracketed or s-expression string: ``"(S (NP a) (VP b))"`` or ``"[S [NP a] b]"``.

    A node is ``(label, *children)``; a leaf is a string.

    >>> parse_tree("(S (NP a) b)")
    ('S', ('NP', 'a'), 'b')
    """
    tokens = _TOKEN.findall(text)
    if not tokens:
        raise DataError(f"Empty tree string {text!r}.")
    stack: list[list[Any]] = []
    root: Any = None
    for tok in tokens:
        if tok in "([":
            stack.append([])
        elif tok in ")]":
            if not stack:
                raise DataError(f"Unbalanced brackets in tree {text!r}: a closing bracket without an opening one.")
            node = stack.pop()
            if not node or not isinstance(node[0], str):
                raise DataError(f"Tree {text!r} has a node without a label; write '(label child ...)'.")
            done = tuple(node)
            if stack:
                stack[-1].append(done)
            elif root is None:
                root = done
            else:
                raise DataError(f"Tree {text!r} has more than one root; wrap it in one node.")
        elif stack:
            stack[-1].append(tok)
        elif root is None and len(tokens) == 1:
            return tok
        else:
            raise DataError(f"Tree {text!r} has text outside brackets ('{tok}').")
    if stack or root is None:
        raise DataError(f"Unbalanced brackets in tree {text!r}: {len(stack)} node(s) never closed.")
    return root


def _as_tree(value: Any) -> Any:
    return parse_tree(value) if isinstance(value, str) else value


def _label(node: Any) -> str:
    return node if isinstance(node, str) else str(node[0])


def _walk(node: Any) -> Iterable[tuple]:
    if isinstance(node, str):
        return
    yield node
    for child in node[1:]:
        yield from _walk(child)


def tree_atoms(value: Any) -> list[str]:
    """Node labels and leaves of a tree (a string to parse, or nested ``(label, *children)`` tuples).

    >>> tree_atoms("(S (V jump) twice)")
    ['S', 'V', 'jump', 'twice']
    """
    tree = _as_tree(value)
    if isinstance(tree, str):
        return [tree]
    out: list[str] = []

    def visit(node: Any) -> None:
        out.append(_label(node))
        if not isinstance(node, str):
            for child in node[1:]:
                visit(child)

    visit(tree)
    return out


def tree_compounds(value: Any) -> list[str]:
    """Parent-child edges (``"S>V"``) and one-level subtrees (``"S(V M)"``) of a tree, as CFQ and TMCD use."""
    tree = _as_tree(value)
    edges: list[str] = []
    subtrees: list[str] = []
    for node in _walk(tree):
        children = node[1:]
        edges.extend(f"{node[0]}>{_label(c)}" for c in children)
        if len(children) > 1 or (children and not isinstance(children[0], str)):
            subtrees.append(f"{node[0]}({' '.join(_label(c) for c in children)})")
    return edges + subtrees


# ---------------------------------------------------------------------------- extractors
@dataclass(frozen=True)
class StructureExtractor:
    """Turns each example of a dataset into a list of atom or compound strings.

    ``columns`` is set for attribute extractors, which read metadata columns instead of the input.
    Build one with :func:`make_extractor`.
    """

    spec: str
    fn: Callable[[Any], list[str]] | None = None
    columns: tuple[str, ...] = ()
    role: Role = "atoms"

    def per_example(self, dataset: Any) -> Iterable[list[str]]:
        """The lists of strings, one per example, in order (an error names the failing example)."""
        if self.columns:
            yield from self._attributes(dataset)
            return
        fn = self.fn
        assert fn is not None
        ids = None
        for i, value in enumerate(dataset.inputs):
            try:
                out = fn(value)
            except Exception as e:  # a user's callable: name the example
                ids = ids or dataset.ids
                raise DataError(
                    f"The {self.role} extractor {self.spec!r} failed on example {ids[i]!r} (position {i}, input "
                    f"{str(value)[:60]!r}): {type(e).__name__}: {e}. Fix the extractor or drop the example."
                ) from e
            if isinstance(out, str) or not isinstance(out, (list, tuple)):
                ids = ids or dataset.ids
                raise DataError(
                    f"The {self.role} extractor {self.spec!r} returned {type(out).__name__} for example {ids[i]!r}; "
                    "it must return a list of strings."
                )
            yield out

    def _attributes(self, dataset: Any) -> Iterable[list[str]]:
        available = dataset.metadata_columns
        for c in self.columns:
            if c not in available:
                raise ConfigError(
                    f"{self.role}={self.spec!r}: the dataset has no metadata column '{c}'.{did_you_mean(c, available)} "
                    f"Columns: {available}."
                )
        values = [[f"{c}={v}" for v in dataset.column(c).astype(str)] for c in self.columns]
        rows = zip(*values)
        if self.role == "atoms":
            yield from (list(r) for r in rows)
            return
        sizes = range(2, len(self.columns) + 1)
        for r in rows:
            yield ["&".join(combo) for k in sizes for combo in itertools.combinations(r, k)]


def make_extractor(spec: str | Callable[[Any], list[str]] | StructureExtractor, *, role: Role = "atoms") -> StructureExtractor:
    """An :class:`StructureExtractor` from a spec string (see the module docs) or a callable.

    >>> make_extractor("ngrams:2", role="compounds").fn("a b c")
    ['a b', 'b c']
    >>> make_extractor("attributes:modality,anatomy", role="compounds").columns
    ('modality', 'anatomy')
    """
    if isinstance(spec, StructureExtractor):
        return spec
    if callable(spec):
        return StructureExtractor(spec=getattr(spec, "__name__", repr(spec)), fn=spec, role=role)
    if not isinstance(spec, str):
        raise ConfigError(f"{role}={spec!r} must be a spec string such as 'words' or 'ngrams:2,3', or a callable.")
    name, _, arg = spec.partition(":")
    name = name.strip()
    if name == "words":
        return StructureExtractor(spec=spec, fn=words, role=role)
    if name == "ngrams":
        try:
            sizes = tuple(int(a) for a in arg.split(",") if a.strip()) or (2, 3)
        except ValueError:
            raise ConfigError(f"{role}={spec!r}: n-gram lengths must be integers, e.g. 'ngrams:2,3'.") from None
        if any(k < 1 for k in sizes):
            raise ConfigError(f"{role}={spec!r}: n-gram lengths must be at least 1.")

        def fn(value: Any, _sizes: tuple[int, ...] = sizes) -> list[str]:
            return ngrams(value, _sizes)

        return StructureExtractor(spec=spec, fn=fn, role=role)
    if name == "tree":
        return StructureExtractor(spec=spec, fn=tree_atoms if role == "atoms" else tree_compounds, role=role)
    if name == "attributes":
        columns = tuple(c.strip() for c in arg.split(",") if c.strip())
        if not columns:
            raise ConfigError(f"{role}={spec!r} needs metadata columns, e.g. 'attributes:modality,anatomy'.")
        if role == "compounds" and len(columns) < 2:
            raise ConfigError(f"compounds={spec!r}: combinations need at least two columns.")
        return StructureExtractor(spec=spec, columns=columns, role=role)
    choices = ["words", "ngrams", "tree", "attributes"]
    raise ConfigError(f"Unknown {role} extractor {spec!r}.{did_you_mean(name, choices)} Choose one of {choices} or pass a callable.")
