"""Finding copies of texts: exact, normalized and near (MinHash with banded LSH, verified by exact Jaccard).

The matching engine of :mod:`gengap.analysis.leakage`, on plain lists of texts. Three kinds, each
checked only for what the kind before it did not find:

==============  ==============================================================================
kind            a test text is a copy of a train text when ...
==============  ==============================================================================
``exact``       the two texts are the same string
``normalized``  their :func:`normalize` forms are the same (:data:`NORMALIZATION` in words)
``near``        both have at least ``min_words`` words and the Jaccard similarity of their sets
                of word shingles (``shingle`` consecutive words of the normalized text) is at
                least ``threshold``: candidates come from MinHash signatures (``n_perm`` hash
                functions) banded for LSH, and every candidate is verified on the exact sets
==============  ==============================================================================

Short texts are never near copies: in "jump twice and walk left" one changed word makes another
example (SCAN's left and right), not a copy, and chains of such neighbours would join a whole
compositional dataset into one group. :data:`MIN_WORDS` sets where texts become long enough.

The MinHash is computed for all texts at once in numpy (one pass per hash function over a flat
array of shingle hashes), and the LSH buckets are sorted arrays, not dicts of Python objects:
``benchmarks/bench_leakage.py`` shows it side by side with datasketch's ``MinHashLSH`` on the same
shingles, threshold and number of functions (recall as high or higher, in about a seventh of its
time), which is why gengap does not use datasketch here.
Tokens and shingles are hashed with pandas' fixed-key hash, so the same texts give the same
matches in every process.

>>> mat = "the cat sat on the mat by the door of the house"
>>> m = find_copies([mat, "a dog"], ["The  cat sat on the mat, by the door of the house!", "a dog", mat + " today"])
>>> m[["test", "kind", "train", "similarity"]].values.tolist()
[[0, 'normalized', 0, 1.0], [1, 'exact', 1, 1.0], [2, 'near', 0, 0.916667]]
"""

from __future__ import annotations

import sys
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain

import numpy as np
import pandas as pd

from gengap._errors import ConfigError

__all__ = ["NORMALIZATION", "DEFAULT_THRESHOLD", "MIN_WORDS", "normalize", "find_copies", "copy_groups", "near_pairs", "lsh_bands", "ShingleSets", "shingle_sets",
           "COPY_KINDS"]

#: The kinds of copy, from the strictest.
COPY_KINDS = ("exact", "normalized", "near")

#: What :func:`normalize` does, as reports state it.
NORMALIZATION = ("Unicode NFKC, case-folded, every punctuation character (Unicode categories P*) replaced by a space, "
                 "runs of whitespace (spaces, tabs, line breaks) collapsed to one space, ends stripped")

#: Jaccard similarity of word 2-gram sets from which two texts are near copies (chosen on a tuning seed of
#: ``benchmarks/bench_leakage.py``; its held-out seed gives the figures in the README).
DEFAULT_THRESHOLD = 0.5
#: Fewest words (of the normalized text) a text needs to be a near copy; shorter ones can only be exact
#: or normalized copies.
MIN_WORDS = 10

_MIX = np.uint64(0x9E3779B97F4A7C15)


@lru_cache(maxsize=1)
def _punctuation_table() -> dict[int, str]:
    return {c: " " for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)).startswith("P")}


_ASCII_PUNCT = {c: " " for c in range(128) if unicodedata.category(chr(c)).startswith("P")}


def normalize(text: str) -> str:
    """The normalized form of ``text`` (:data:`NORMALIZATION`): what a ``normalized`` copy shares.

    Punctuation becomes a space rather than vanishing, so ``3.5`` and ``35`` stay apart.

    >>> normalize("Ｔhe  CAT,\\nsat… 3.5")
    'the cat sat 3 5'
    """
    if text.isascii():
        return " ".join(text.lower().translate(_ASCII_PUNCT).split())
    return " ".join(unicodedata.normalize("NFKC", text).casefold().translate(_punctuation_table()).split())


@dataclass(frozen=True)
class ShingleSets:
    """The set of word-shingle hashes of each text, flat: text ``i`` holds ``hashes[offsets[i]:offsets[i + 1]]``
    (sorted, unique). A text of fewer than ``shingle`` words has an empty set."""

    hashes: np.ndarray
    offsets: np.ndarray
    shingle: int

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @property
    def sizes(self) -> np.ndarray:
        return np.diff(self.offsets)

    def take(self, positions: np.ndarray) -> ShingleSets:
        """The sets of the texts at ``positions``, in that order."""
        positions = np.asarray(positions, dtype=np.int64)
        sizes = self.sizes[positions]
        offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        starts = np.repeat(self.offsets[:-1][positions] - offsets[:-1], sizes)
        return ShingleSets(self.hashes[np.arange(offsets[-1], dtype=np.int64) + starts], offsets, self.shingle)


def _token_hashes(words: list[str]) -> np.ndarray:
    if not words:
        return np.empty(0, dtype=np.uint64)
    return pd.util.hash_array(np.asarray(words, dtype=object), categorize=True)


def shingle_sets(normalized: Sequence[str], *, shingle: int = 2, min_words: int = 1, chunk: int = 200_000) -> ShingleSets:
    """The shingle sets of normalized texts (split on spaces): each run of ``shingle`` consecutive words,
    hashed to 64 bits; a text of fewer than ``min_words`` words gets an empty set.

    >>> shingle_sets(["a b c", "a b", "a"]).sizes.tolist(), shingle_sets(["a b c", "a b"], min_words=3).sizes.tolist()
    ([2, 1, 0], [2, 0])
    """
    if shingle < 1:
        raise ConfigError(f"shingle={shingle!r} must be a number of words >= 1.")
    parts_h, parts_n = [], []
    for start in range(0, len(normalized), chunk):
        tokens = [t.split() for t in normalized[start:start + chunk]]
        if min_words > 1:
            tokens = [t if len(t) >= min_words else [] for t in tokens]
        lengths = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
        h = _token_hashes(list(chain.from_iterable(tokens)))
        ends = np.cumsum(lengths)
        doc = np.repeat(np.arange(len(tokens), dtype=np.int64), lengths)
        n_windows = np.maximum(lengths - shingle + 1, 0)
        starts = np.flatnonzero(np.arange(len(h), dtype=np.int64) + shingle <= ends[doc]) if len(h) else np.empty(0, np.int64)
        g = h[starts].copy()
        for j in range(1, shingle):
            g = g * _MIX + h[starts + j]
        wdoc = doc[starts]
        order = np.lexsort((g, wdoc))
        g, wdoc = g[order], wdoc[order]
        keep = np.ones(len(g), dtype=bool)
        keep[1:] = (g[1:] != g[:-1]) | (wdoc[1:] != wdoc[:-1])
        parts_h.append(g[keep])
        parts_n.append(np.bincount(wdoc[keep], minlength=len(tokens)) if len(tokens) else n_windows)
    hashes = np.concatenate(parts_h) if parts_h else np.empty(0, np.uint64)
    sizes = np.concatenate(parts_n) if parts_n else np.empty(0, np.int64)
    return ShingleSets(hashes, np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64), shingle)


def lsh_bands(threshold: float, n_perm: int) -> tuple[int, int]:
    """``(bands, rows)`` for ``n_perm`` hash functions: the most rows per band (fewest false candidates)
    that still makes a pair at Jaccard ``threshold`` a candidate with probability >= 0.995.

    >>> lsh_bands(0.6, 128)
    (42, 3)
    """
    best = (n_perm, 1)
    for rows in range(1, n_perm + 1):
        bands = n_perm // rows
        if 1 - (1 - threshold ** rows) ** bands >= 0.995:
            best = (bands, rows)
    return best


def _band_keys(sets: ShingleSets, *, n_perm: int, bands: int, rows: int, seed: int) -> np.ndarray:
    """A ``(n_texts, bands)`` uint64 array: each band's ``rows`` MinHash values combined; texts with an empty
    set get keys no other text has (they never become candidates)."""
    rng = np.random.default_rng(seed)
    a = rng.integers(1, 2**63, size=n_perm, dtype=np.uint64) | np.uint64(1)
    b = rng.integers(0, 2**63, size=n_perm, dtype=np.uint64)
    sizes = sets.sizes
    filled = np.flatnonzero(sizes > 0)
    keys = np.zeros((len(sets), bands), dtype=np.uint64)
    if len(filled):
        starts = sets.offsets[:-1][filled]
        x = sets.hashes ^ (sets.hashes >> np.uint64(31))
        for band in range(bands):
            key = np.zeros(len(filled), dtype=np.uint64)
            for r in range(rows):
                j = band * rows + r
                v = x * a[j] + b[j]
                v ^= v >> np.uint64(29)
                key = (key ^ np.minimum.reduceat(v, starts)) * _MIX
            keys[filled, band] = key
    empty = np.flatnonzero(sizes == 0)
    keys[empty] = (np.uint64(0xFFFFFFFF00000000) + empty.astype(np.uint64))[:, None]
    return keys


def _jaccard(a: ShingleSets, ia: np.ndarray, b: ShingleSets, ib: np.ndarray, chunk: int = 200_000) -> np.ndarray:
    """Exact Jaccard similarity of the sets ``a[ia[k]]`` and ``b[ib[k]]`` for each k (vectorized, in chunks)."""
    out = np.zeros(len(ia), dtype=np.float64)
    for s in range(0, len(ia), chunk):
        pa, pb = ia[s:s + chunk], ib[s:s + chunk]
        na, nb = a.sizes[pa], b.sizes[pb]
        sa, sb = a.take(pa), b.take(pb)
        pair = np.concatenate([np.repeat(np.arange(len(pa)), na), np.repeat(np.arange(len(pa)), nb)])
        values = np.concatenate([sa.hashes, sb.hashes])
        order = np.lexsort((values, pair))
        pair, values = pair[order], values[order]
        same = (pair[1:] == pair[:-1]) & (values[1:] == values[:-1])
        inter = np.bincount(pair[1:][same], minlength=len(pa))
        union = na + nb - inter
        out[s:s + chunk] = np.where(union > 0, inter / np.maximum(union, 1), 0.0)
    return out


def near_pairs(queries: ShingleSets, index: ShingleSets, *, threshold: float, n_perm: int = 128, seed: int = 0,
               max_bucket: int = 64) -> pd.DataFrame:
    """Pairs ``(query, match, similarity)`` whose exact shingle Jaccard is at least ``threshold``, found through
    MinHash LSH: for every band, each query is paired with the texts of ``index`` in its bucket (the first
    ``max_bucket`` of them, by position), and each candidate is verified on the exact sets.

    >>> sets = shingle_sets(["a b c d e f g h", "a b c d e f g x", "p q r s"], shingle=2)
    >>> near_pairs(sets.take([1]), sets.take([0, 2]), threshold=0.6).values.tolist()
    [[0.0, 0.0, 0.75]]
    """
    if not 0 < threshold <= 1:
        raise ConfigError(f"threshold={threshold!r} must be a Jaccard similarity in (0, 1].")
    bands, rows = lsh_bands(threshold, n_perm)
    both = ShingleSets(np.concatenate([queries.hashes, index.hashes]),
                       np.concatenate([queries.offsets, queries.offsets[-1] + index.offsets[1:]]), queries.shingle)
    keys = _band_keys(both, n_perm=n_perm, bands=bands, rows=rows, seed=seed)
    qkeys, ikeys = keys[:len(queries)], keys[len(queries):]
    found_q, found_i = [], []
    for band in range(bands):
        order = np.argsort(ikeys[:, band], kind="stable")
        sorted_keys = ikeys[order, band]
        left = np.searchsorted(sorted_keys, qkeys[:, band], side="left")
        right = np.searchsorted(sorted_keys, qkeys[:, band], side="right")
        counts = np.minimum(right - left, max_bucket)
        hit = np.flatnonzero(counts)
        if not len(hit):
            continue
        c = counts[hit]
        q = np.repeat(hit, c)
        within = np.arange(c.sum()) - np.repeat(np.cumsum(c) - c, c)
        found_q.append(q)
        found_i.append(order[np.repeat(left[hit], c) + within])
    if not found_q:
        return pd.DataFrame({"query": np.empty(0, np.int64), "match": np.empty(0, np.int64), "similarity": np.empty(0)})
    pairs = np.unique(np.concatenate(found_q).astype(np.int64) * len(index) + np.concatenate(found_i))
    q, m = pairs // max(len(index), 1), pairs % max(len(index), 1)
    sim = _jaccard(queries, q, index, m)
    ok = sim >= threshold - 1e-12
    return pd.DataFrame({"query": q[ok], "match": m[ok], "similarity": sim[ok]})


def _first_positions(texts: Sequence[str]) -> dict[str, int]:
    first: dict[str, int] = {}
    for i, t in enumerate(texts):
        first.setdefault(t, i)
    return first


def find_copies(
    train: Sequence[str],
    test: Sequence[str],
    *,
    near: bool = True,
    threshold: float = DEFAULT_THRESHOLD,
    shingle: int = 2,
    min_words: int = MIN_WORDS,
    n_perm: int = 128,
    seed: int = 0,
    normalized: tuple[Sequence[str], Sequence[str]] | None = None,
) -> pd.DataFrame:
    """Each test text that copies a train text: ``test`` (position), ``kind`` (exact, normalized, near),
    ``train`` (position of the closest train text; the first one for exact and normalized copies) and
    ``similarity`` (1 for exact and normalized copies, the exact shingle Jaccard for near ones).

    Empty texts (empty once normalized) are never copies. ``normalized`` passes the normalized forms of
    ``(train, test)`` when the caller has them already.
    """
    norm_train, norm_test = normalized if normalized is not None else ([normalize(t) for t in train],
                                                                        [normalize(t) for t in test])
    exact = _first_positions(train)
    by_norm = _first_positions(norm_train)
    out_test: list[int] = []
    out_kind: list[str] = []
    out_train: list[int] = []
    rest = []
    for i, (t, n) in enumerate(zip(test, norm_test)):
        if not n:
            continue
        j, kind = exact.get(t), "exact"
        if j is None:
            j, kind = by_norm.get(n), "normalized"
        if j is None:
            rest.append(i)
            continue
        out_test.append(i)
        out_kind.append(kind)
        out_train.append(j)
    out_sim = [1.0] * len(out_test)
    if near and rest and by_norm:
        reps = np.fromiter(by_norm.values(), dtype=np.int64, count=len(by_norm))  # one train text per normalized form
        index = shingle_sets([norm_train[j] for j in reps], shingle=shingle, min_words=min_words)
        queries = shingle_sets([norm_test[i] for i in rest], shingle=shingle, min_words=min_words)
        pairs = near_pairs(queries, index, threshold=threshold, n_perm=n_perm, seed=seed)
        if len(pairs):
            pairs["match"] = reps[pairs["match"].to_numpy()]
            best = pairs.sort_values(["query", "similarity", "match"], ascending=[True, False, True]).drop_duplicates("query")
            out_test += [rest[q] for q in best["query"]]
            out_kind += ["near"] * len(best)
            out_train += best["match"].tolist()
            out_sim += best["similarity"].round(6).tolist()
    frame = pd.DataFrame({"test": np.asarray(out_test, dtype=np.int64), "kind": out_kind,
                          "train": np.asarray(out_train, dtype=np.int64), "similarity": np.asarray(out_sim, dtype=float)})
    return frame.sort_values("test", kind="stable").reset_index(drop=True)


def copy_groups(texts: Sequence[str], *, near: bool = True, threshold: float = DEFAULT_THRESHOLD, shingle: int = 2,
                min_words: int = MIN_WORDS, n_perm: int = 128, seed: int = 0) -> np.ndarray:
    """A group label per text: texts that are normalized or near copies of each other (through any chain of
    copies) share a label; every other text is alone in its group. Empty texts are never grouped.

    >>> mat = "the cat sat on the mat by the door of the house"
    >>> copy_groups([mat, mat.upper() + "!", "a dog", mat + " today", "", "a dog today"]).tolist()
    [0, 0, 1, 0, 2, 3]
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    normalized = [normalize(t) for t in texts]
    first: dict[str, int] = {}
    rep_of = np.empty(len(texts), dtype=np.int64)  # each text's representative: the first text of its normalized form
    for i, n in enumerate(normalized):
        rep_of[i] = first.setdefault(n, i) if n else i
    edges_a, edges_b = [np.arange(len(texts))], [rep_of]
    reps = np.fromiter((i for n, i in first.items() if n), dtype=np.int64)
    if near and len(reps) > 1:
        sets = shingle_sets([normalized[i] for i in reps], shingle=shingle, min_words=min_words)
        pairs = near_pairs(sets, sets, threshold=threshold, n_perm=n_perm, seed=seed)
        pairs = pairs[pairs["query"] != pairs["match"]]
        edges_a.append(reps[pairs["query"].to_numpy()])
        edges_b.append(reps[pairs["match"].to_numpy()])
    a, b = np.concatenate(edges_a), np.concatenate(edges_b)
    graph = coo_matrix((np.ones(len(a), dtype=np.int8), (a, b)), shape=(len(texts), len(texts)))
    _, labels = connected_components(graph, directed=False)
    _, first_seen = np.unique(labels, return_index=True)  # number groups in the order their first text appears
    order = np.argsort(np.argsort(first_seen))
    return order[labels].astype(np.int64)
