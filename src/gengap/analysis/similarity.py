"""Distance to training as an axis: each test example's similarity to its nearest training example.

``train_similarity`` is the cosine similarity of a test input to the most similar input of the
split's train part: near 1 for a test example that nearly repeats a training one, near 0 for one
that shares nothing with any. It is stored per row (a metadata column of the test rows), so it is an
axis like any other: ``--curve train_similarity``, and a column of the slice search.

How the inputs become vectors:

- ``"tfidf"`` (default): scikit-learn's TF-IDF of word unigrams and bigrams fitted on the train
  part (sublinear term frequency, terms in more than half the train inputs dropped), L2-normed.
  The nearest neighbour is exact: the sparse product of a chunk of test rows with every train row,
  and its row maximum. Sparse vectors of short texts share few terms, so a million train rows and
  100,000 test rows take minutes (``benchmarks/bench_slices.py --similarity``).
- an embeddings column: the name of a metadata column holding one vector (a list of numbers) per
  example, or
- an embedding function: ``embed(list_of_texts) -> array of shape (n, width)``.

Embeddings are L2-normed and compared exactly, chunk by chunk (``n_test x n_train x width``
multiply-adds: fine for tens of thousands of train rows; for millions, give TF-IDF or fewer rows).

>>> train = ["walk twice", "jump left", "look around right"]
>>> sims = nearest_train_similarity(train, ["walk twice", "run thrice", "jump left twice"])
>>> sims.round(2).tolist()
[1.0, 0.0, 0.87]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gengap._errors import ConfigError, DataError

__all__ = ["nearest_train", "nearest_train_similarity", "NearestTrain", "embedding_matrix", "TRAIN_SIMILARITY", "CHUNK_ROWS"]

#: The name of the per-row column (metadata of the test rows).
TRAIN_SIMILARITY = "train_similarity"
#: Test rows per chunk of the nearest-neighbour product.
CHUNK_ROWS = 2048

Embed = Callable[[list[str]], Any]


def _texts(values: Sequence[Any]) -> list[str]:
    import json

    return [v if isinstance(v, str) else "" if v is None else json.dumps(v, sort_keys=True, default=str) for v in values]


def embedding_matrix(values: Sequence[Any], *, what: str, width: int | None = None) -> np.ndarray:
    """Vectors given per example (lists of numbers) as a float32 matrix; every row must have one width.

    >>> embedding_matrix([[1, 0], [0, 2]], what="column 'emb'").tolist()
    [[1.0, 0.0], [0.0, 2.0]]
    >>> embedding_matrix([[1, 0], [0, 2, 3]], what="column 'emb'")
    Traceback (most recent call last):
      ...
    gengap._errors.DataError: The embeddings of column 'emb' must all have one width: row 0 has 2 numbers, row 1 has 3. Give every example a vector of the same length.
    """
    rows = [np.asarray(v, dtype=np.float32).ravel() if v is not None else None for v in values]
    missing = [i for i, r in enumerate(rows) if r is None]
    if missing:
        raise DataError(f"The embeddings of {what} are missing in {len(missing):,} row(s), first (0-based) {missing[:5]}; "
                        "give every example a vector.")
    widths = {len(r) for r in rows}  # type: ignore[arg-type]
    expected = width if width is not None else (len(rows[0]) if rows else 0)  # type: ignore[arg-type]
    if len(widths) > 1 or (rows and expected not in widths):
        bad = next(i for i, r in enumerate(rows) if len(r) != expected)  # type: ignore[arg-type]
        first = "the train part's vectors have" if width is not None else "row 0 has"
        raise DataError(f"The embeddings of {what} must all have one width: {first} {expected} numbers, row {bad} has "
                        f"{len(rows[bad])}. Give every example a vector of the same length.")  # type: ignore[arg-type]
    return np.vstack(rows) if rows else np.zeros((0, expected), dtype=np.float32)  # type: ignore[arg-type]


def _normed(m: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return np.divide(m, norms, out=np.zeros_like(m), where=norms > 0)


def _dense_top1(train: np.ndarray, test: np.ndarray, chunk: int) -> np.ndarray:
    a, b = _normed(train.astype(np.float32)), _normed(test.astype(np.float32))
    out = np.empty(len(b), dtype=np.float64)
    for s in range(0, len(b), chunk):
        out[s:s + chunk] = (b[s:s + chunk] @ a.T).max(axis=1)
    return out


def _tfidf(train: list[str], test: list[str]) -> tuple[Any, Any] | None:
    from sklearn.feature_extraction.text import TfidfVectorizer

    vec = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, max_df=0.5 if len(train) >= 20 else 1.0,
                          token_pattern=r"(?u)\b\w+\b", dtype=np.float32)
    try:
        a = vec.fit_transform(train).tocsr()
    except ValueError:  # no term at all in the train part (empty texts)
        return None
    return a, vec.transform(test).tocsr()


def _sparse_top1(a: Any, b: Any, chunk: int) -> tuple[np.ndarray, np.ndarray]:
    """Row maximum and its train row of ``b @ a.T``, chunk by chunk (exact)."""
    at = a.T.tocsc()
    best = np.zeros(b.shape[0], dtype=np.float64)
    where = np.full(b.shape[0], -1, dtype=np.int64)
    for s in range(0, b.shape[0], chunk):
        product = (b[s:s + chunk] @ at).tocsr()
        if product.nnz:
            best[s:s + chunk] = product.max(axis=1).toarray().ravel()
            where[s:s + chunk] = np.asarray(product.argmax(axis=1)).ravel()
    return best, where


#: Above this many train x test pairs, TF-IDF neighbours are found through the rarer terms (below).
EXACT_PAIRS = 2_000_000_000
#: The approximate search takes its candidates through the terms in at most CANDIDATE_DF train
#: rows (so its cost grows with the test rows, not with train x test), and keeps the N_CANDIDATES
#: best of them per test row.
CANDIDATE_DF, N_CANDIDATES = 2000, 64
#: Test rows whose exact nearest neighbour is computed to measure the approximate search's recall.
RECALL_SAMPLE = 300


def _tfidf_top1(train: list[str], test: list[str], chunk: int, exact: bool | None, seed: int) -> NearestTrain:
    vectors = _tfidf(train, test)
    if vectors is None:
        return NearestTrain(np.zeros(len(test)), "tfidf", None, 0)
    a, b = vectors
    if exact or (exact is None and len(train) * len(test) <= EXACT_PAIRS):
        return NearestTrain(np.clip(_sparse_top1(a, b, chunk)[0], 0.0, 1.0), "tfidf", None, 0)
    # Approximate: candidates from the terms in at most ~0.2% of the train rows (the products of
    # common terms are what make the exact search slow), then the exact cosine with each candidate.
    df = np.bincount(a.indices, minlength=a.shape[1])
    cap = CANDIDATE_DF
    rare = np.flatnonzero(df <= cap)
    a_rare, b_rare = a[:, rare].T.tocsc(), b[:, rare]
    sims = np.zeros(len(test), dtype=np.float64)
    for s in range(0, len(test), chunk):
        product = (b_rare[s:s + chunk] @ a_rare).tocoo()
        if not product.nnz:
            continue
        order = np.lexsort((-product.data, product.row))  # per test row, its candidates best first
        rows, cols = product.row[order], product.col[order]
        first = np.r_[0, np.flatnonzero(np.diff(rows)) + 1]
        rank = np.arange(len(rows)) - np.repeat(first, np.diff(np.r_[first, len(rows)]))
        keep = rank < N_CANDIDATES
        rows, cols = rows[keep], cols[keep]
        exact_dots = np.asarray(a[cols].multiply(b[s + rows]).sum(axis=1)).ravel()
        best = np.zeros(min(chunk, len(test) - s))
        np.maximum.at(best, rows, exact_dots)
        sims[s:s + len(best)] = best
    rng = np.random.default_rng(seed)
    check = np.sort(rng.choice(len(test), size=min(RECALL_SAMPLE, len(test)), replace=False))
    truth = _sparse_top1(a, b[check], chunk)[0]
    recall = float(np.mean(sims[check] >= truth - 1e-4))
    return NearestTrain(np.clip(sims, 0.0, 1.0), f"tfidf, approximate ({N_CANDIDATES} candidates per row from terms in at most {cap:,} train rows)",
                        recall, len(check))


@dataclass(frozen=True)
class NearestTrain:
    """Each test row's similarity to its nearest train row, and how it was found.

    Attributes
    ----------
    similarity : array of shape (n_test,).
    method : ``"tfidf"``, ``"embeddings"``, or the approximate TF-IDF search in words.
    recall : for an approximate search, the share of ``n_checked`` test rows (drawn at random) whose
        nearest train row it found, against the exact search; None when exact.
    """

    similarity: np.ndarray
    method: str
    recall: float | None
    n_checked: int

    def note(self) -> str:
        """One sentence on how the similarities were found (and the recall of an approximate search)."""
        if self.recall is None:
            return f"train_similarity: exact nearest neighbour ({self.method})."
        return (f"train_similarity: {self.method}; it found the exact nearest train example for "
                f"{100 * self.recall:.1f}% of {self.n_checked} test rows checked.")


def nearest_train(
    train: Sequence[Any],
    test: Sequence[Any],
    *,
    embed: Embed | None = None,
    train_vectors: Sequence[Any] | np.ndarray | None = None,
    test_vectors: Sequence[Any] | np.ndarray | None = None,
    chunk_rows: int = CHUNK_ROWS,
    exact: bool | None = None,
    seed: int = 0,
) -> NearestTrain:
    """For each test input, the cosine similarity to its nearest train input (TF-IDF by default).

    Parameters
    ----------
    train, test : the inputs (texts; other values are compared by their JSON).
    embed : an embedding function, ``embed(texts) -> (n, width)`` array, used instead of TF-IDF.
    train_vectors, test_vectors : the embeddings themselves (one vector per input), used instead.
    chunk_rows : test rows per chunk of the product (memory: chunk_rows x n_train similarities).
    exact : TF-IDF only: True always searches exactly, False always approximately, None (default)
        approximately above :data:`EXACT_PAIRS` train x test pairs, with the recall measured on
        :data:`RECALL_SAMPLE` test rows.
    seed : the test rows the recall is measured on.

    Similarities lie in [0, 1] for TF-IDF ([-1, 1] for embeddings); 0 when the train part is empty.

    >>> nearest_train(["a b"], ["a b", "c"], train_vectors=[[1, 0]], test_vectors=[[2, 0], [0, 1]]).similarity.tolist()
    [1.0, 0.0]
    """
    if not isinstance(chunk_rows, (int, np.integer)) or chunk_rows < 1:
        raise ConfigError(f"chunk_rows={chunk_rows!r} must be a positive integer.")
    if (train_vectors is None) != (test_vectors is None):
        raise ConfigError("Give the embeddings of both parts (train_vectors and test_vectors), or of neither.")
    if len(train) == 0 or len(test) == 0:
        return NearestTrain(np.zeros(len(test)), "none: an empty part", None, 0)
    if train_vectors is not None and test_vectors is not None:
        a = embedding_matrix(list(train_vectors), what="the train part")
        b = embedding_matrix(list(test_vectors), what="the test part", width=a.shape[1])
        return NearestTrain(_dense_top1(a, b, chunk_rows), "embeddings", None, 0)
    if embed is not None:
        a = np.asarray(embed(_texts(train)), dtype=np.float32)
        b = np.asarray(embed(_texts(test)), dtype=np.float32)
        for part, m, n in (("train", a, len(train)), ("test", b, len(test))):
            if m.ndim != 2 or m.shape[0] != n:
                raise DataError(f"The embedding function returned an array of shape {m.shape} for {n:,} {part} inputs; "
                                "it must return one vector per input, shape (n, width).")
        if a.shape[1] != b.shape[1]:
            raise DataError(f"The embedding function returned vectors of width {a.shape[1]} for the train part and "
                            f"{b.shape[1]} for the test part; it must return one width.")
        return NearestTrain(_dense_top1(a, b, chunk_rows), "embeddings", None, 0)
    return _tfidf_top1(_texts(train), _texts(test), chunk_rows, exact, seed)


def nearest_train_similarity(train: Sequence[Any], test: Sequence[Any], **options: Any) -> np.ndarray:
    """The similarities of :func:`nearest_train` alone (same options).

    >>> nearest_train_similarity(["a b"], ["a b", "c"], train_vectors=[[1, 0]], test_vectors=[[2, 0], [0, 1]]).tolist()
    [1.0, 0.0]
    """
    return nearest_train(train, test, **options).similarity
