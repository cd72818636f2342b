"""Pseudo-domains when no domain label exists: embed the inputs, cluster them, hold out whole clusters.

The default embedding is latent semantic analysis (TF-IDF, truncated SVD to ``n_components``,
unit length); inputs that are records of numbers are standardized instead; a user's own vectors
come from an ``embedding`` column. KMeans groups the vectors; each cluster is described by its
size, its most characteristic terms and a few examples, which the report shows.

====  ===================  ========  =====================================
row   input                cluster   holdout=[1]
====  ===================  ========  =====================================
0     "refund my order"    0         train
1     "reset my password"  1         test
2     "order arrived late" 0         train
====  ===================  ========  =====================================
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from gengap._errors import ConfigError, DataError
from gengap.dataset import Dataset
from gengap.splits._base import SplitDetails, Splitter, TaxonomyCard, register_splitter, resolve_test_size
from gengap.structure.atoms import _text

__all__ = ["ClusterSplit", "Clustering", "embed", "cluster"]

#: Tokens are runs of word characters, single letters included.
TOKEN_PATTERN = r"(?u)\b\w+\b"


def _numeric_matrix(values: Sequence[Any]) -> np.ndarray | None:
    """Records or vectors of numbers as a float matrix; None when the values are not all numeric."""
    first = values[0]
    try:
        if isinstance(first, dict):
            frame = pd.DataFrame.from_records(list(values))
            if not all(pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c]) for c in frame):
                return None
            return frame.to_numpy(dtype=np.float64)
        if isinstance(first, (int, float, np.number)) and not isinstance(first, bool):
            return np.asarray(values, dtype=np.float64).reshape(-1, 1)
        if isinstance(first, (list, tuple, np.ndarray)):
            return np.asarray([np.asarray(v, dtype=np.float64) for v in values])
    except (TypeError, ValueError):
        return None
    return None


def embed(
    values: Sequence[Any],
    *,
    n_components: int | None = 50,
    seed: int | None = 0,
    return_vectorizer: bool = False,
) -> Any:
    """Vectors for inputs: standardized numbers for numeric records, else TF-IDF (+ truncated SVD).

    Parameters
    ----------
    values : the inputs (texts, dicts of numbers, numbers or numeric vectors).
    n_components : SVD dimensions for text (None keeps the sparse TF-IDF matrix).
    seed : seed of the truncated SVD.
    return_vectorizer : also return the fitted TF-IDF vectorizer and its matrix (text only; else None).

    >>> embed(["a b", "a c", "d d"], n_components=2).shape
    (3, 2)
    """
    values = list(values)
    if not values:
        raise DataError("Nothing to embed: no inputs.")
    numeric = _numeric_matrix(values)
    if numeric is not None:
        if np.isnan(numeric).any():
            rows = np.flatnonzero(np.isnan(numeric).any(axis=1))[:10].tolist()
            raise DataError(f"Numeric inputs hold NaN in rows (0-based) {rows}; fill or drop them.")
        scale = numeric.std(axis=0)
        out = (numeric - numeric.mean(axis=0)) / np.where(scale > 0, scale, 1.0)
        return (out, None, None) if return_vectorizer else out
    from sklearn.feature_extraction.text import TfidfVectorizer

    texts = [_text(v) for v in values]
    vectorizer = TfidfVectorizer(token_pattern=TOKEN_PATTERN, sublinear_tf=True)
    try:
        tfidf = vectorizer.fit_transform(texts)
    except ValueError:
        raise DataError("The inputs hold no words to embed (every input is empty or punctuation).") from None
    out = tfidf
    if n_components is not None:
        from sklearn.decomposition import TruncatedSVD
        from sklearn.preprocessing import normalize

        k = min(int(n_components), tfidf.shape[1] - 1, tfidf.shape[0] - 1)
        if tfidf.shape[1] > n_components and k >= 1:
            with warnings.catch_warnings():  # identical documents: explained-variance ratio is 0/0, harmless here
                warnings.simplefilter("ignore", RuntimeWarning)
                out = normalize(TruncatedSVD(n_components=k, random_state=seed).fit_transform(tfidf))
        else:
            out = tfidf.toarray()
    return (out, vectorizer, tfidf) if return_vectorizer else out


def _embedding_column(dataset: Dataset, column: str) -> np.ndarray:
    col = dataset.column(column)
    try:
        matrix = np.vstack([np.asarray(v, dtype=np.float64).ravel() for v in col])
    except (TypeError, ValueError) as e:
        lengths = pd.Series([np.size(v) for v in col])
        odd = np.flatnonzero(lengths.to_numpy() != lengths.mode().iloc[0])[:10].tolist()
        hint = f" rows (0-based) {odd} have another length" if odd else ""
        raise DataError(f"The embedding column '{column}' must hold equal-length numeric vectors ({e});{hint}.") from None
    if not np.isfinite(matrix).all():
        rows = np.flatnonzero(~np.isfinite(matrix).all(axis=1))[:10].tolist()
        raise DataError(f"The embedding column '{column}' holds NaN or infinite values in rows (0-based) {rows}.")
    return matrix


@dataclass(frozen=True)
class Clustering:
    """Cluster labels and a description of every cluster.

    Attributes
    ----------
    labels : int array of shape (n_examples,).
    clusters : one row per cluster: ``cluster``, ``size``, ``top_terms`` (list; empty for user
        embeddings and numeric inputs), ``examples`` (up to 3 inputs nearest the centre).
    """

    labels: np.ndarray
    clusters: pd.DataFrame


def cluster(
    dataset: Dataset,
    *,
    n_clusters: int = 5,
    embedding: str | None = None,
    n_components: int = 50,
    n_terms: int = 5,
    seed: int | None = 0,
) -> Clustering:
    """Embed and cluster the inputs of ``dataset`` with KMeans, and describe each cluster.

    ``seed`` seeds the embedding and KMeans.

    >>> import gengap
    >>> texts = ["cat sat mat"] * 5 + ["stock price fell"] * 5
    >>> c = cluster(gengap.load([{"input": t, "target": "-"} for t in texts]), n_clusters=2)
    >>> sorted(c.clusters["size"].tolist()), sorted(sorted(t) for t in c.clusters["top_terms"])[0]
    ([5, 5], ['cat', 'mat', 'sat'])
    """
    from sklearn.cluster import KMeans

    if not isinstance(n_clusters, (int, np.integer)) or n_clusters < 2:
        raise ConfigError(f"n_clusters={n_clusters!r} must be an integer >= 2.")
    inputs = dataset.inputs
    if len(inputs) < n_clusters:
        raise DataError(f"'{dataset.name}' has {len(inputs)} examples, fewer than n_clusters={n_clusters}.")
    vectorizer = tfidf = None
    if embedding is not None:
        vectors = _embedding_column(dataset, embedding)
    else:
        vectors, vectorizer, tfidf = embed(inputs, n_components=n_components, seed=seed, return_vectorizer=True)
    n_distinct = len(np.unique(np.round(np.asarray(vectors if not hasattr(vectors, "toarray") else vectors.toarray()), 10), axis=0))
    if n_distinct < n_clusters:
        raise DataError(f"The inputs of '{dataset.name}' have only {n_distinct} distinct embedding(s); use n_clusters <= {n_distinct}.")
    km = KMeans(n_clusters=n_clusters, n_init=4, random_state=seed).fit(vectors)
    labels = km.labels_.astype(np.int64)
    distances = km.transform(vectors)
    terms = None
    if vectorizer is not None:
        vocab = np.asarray(vectorizer.get_feature_names_out())
        overall = np.asarray(tfidf.mean(axis=0)).ravel()
    rows = []
    for k in range(n_clusters):
        members = np.flatnonzero(labels == k)
        nearest = members[np.argsort(distances[members, k], kind="stable")[:3]]
        if vectorizer is not None:
            lift = np.asarray(tfidf[members].mean(axis=0)).ravel() - overall
            top = np.argsort(-lift, kind="stable")[:n_terms]
            terms = [str(vocab[t]) for t in top if lift[t] > 0]
        rows.append({"cluster": k, "size": int(members.size), "top_terms": terms or [],
                     "examples": [_text(inputs[i])[:200] for i in nearest]})
    return Clustering(labels=labels, clusters=pd.DataFrame.from_records(rows))


@register_splitter
class ClusterSplit(Splitter):
    """Hold out whole clusters of similar inputs: pseudo-domains when no domain label exists.

    Parameters
    ----------
    n_clusters : number of KMeans clusters.
    holdout : cluster number(s) to hold out; by default clusters are drawn in a seeded random
        order until the test share is as close as it gets to ``test_fraction``.
    test_fraction : wanted test share when ``holdout`` is not given.
    embedding : a metadata column holding the user's own vectors (one per example).
    n_components : TF-IDF SVD dimensions.
    seed : seed of the embedding, KMeans and the choice of clusters.

    >>> import gengap
    >>> texts = [f"cat {w}" for w in "abcdefgh"] + [f"stock {w}" for w in "abcdefgh"]
    >>> s = ClusterSplit(n_clusters=2, test_fraction=0.5).split_dataset(gengap.load([{"input": t, "target": "-"} for t in texts]))
    >>> s.diagnostics.n_test, len({t.split()[0] for t in s.test_part.inputs})
    (8, 1)
    """

    method = "cluster"
    card = TaxonomyCard(
        motivation="practical", generalisation_type="cross_domain", shift_type="covariate", shift_source="partitioned_natural",
        description="Whole clusters of similar inputs (pseudo-domains) are held out: does the model reach a region of input space it never saw?",
    )

    def __init__(
        self,
        *,
        n_clusters: int = 5,
        holdout: int | Sequence[int] | None = None,
        test_fraction: float | int = 0.2,
        embedding: str | None = None,
        n_components: int = 50,
        seed: int | None = 0,
    ) -> None:
        self.n_clusters = n_clusters
        self.holdout = holdout
        self.test_fraction = test_fraction
        self.embedding = embedding
        self.n_components = n_components
        self.seed = seed
        if not isinstance(n_clusters, (int, np.integer)) or isinstance(n_clusters, bool) or n_clusters < 2:
            raise ConfigError(f"n_clusters={n_clusters!r} must be an integer >= 2.")
        for h in self._holdouts or []:
            if not 0 <= h < n_clusters:
                raise ConfigError(f"holdout={holdout!r}: cluster numbers run from 0 to {n_clusters - 1}.")
        if holdout is None:
            resolve_test_size(test_fraction, 10**9)

    @property
    def _holdouts(self) -> list[int] | None:
        if self.holdout is None:
            return None
        raw = [self.holdout] if isinstance(self.holdout, (int, np.integer, str)) else list(self.holdout)
        try:
            return [int(h) for h in raw]
        except ValueError:
            raise ConfigError(f"holdout={self.holdout!r} must be cluster number(s) such as 0 or [0, 3].") from None

    def _iter_indices(self, dataset: Dataset, rng: np.random.Generator) -> Iterator[tuple[np.ndarray, np.ndarray, SplitDetails]]:
        result = cluster(dataset, n_clusters=self.n_clusters, embedding=self.embedding,
                         n_components=self.n_components, seed=self.seed)
        sizes = result.clusters["size"].to_numpy()
        held = self._holdouts
        if held is None:
            n_test = resolve_test_size(self.test_fraction, len(dataset))
            order = rng.permutation(self.n_clusters)
            cumulative = np.cumsum(sizes[order])
            take = int(np.argmin(np.abs(cumulative[:-1] - n_test))) + 1
            held = sorted(order[:take].tolist())
        test_mask = np.isin(result.labels, held)
        table = result.clusters.assign(held_out=lambda f: f["cluster"].isin(held))
        yield np.flatnonzero(~test_mask), np.flatnonzero(test_mask), SplitDetails(
            name=f"cluster:{'+'.join(map(str, held))}",
            held_out=f"cluster(s) {held} of {self.n_clusters} (" + "; ".join(
                f"{k}: {', '.join(table.loc[k, 'top_terms'][:3]) or 'size ' + str(sizes[k])}" for k in held) + ")",
            figures={"test_clusters": held, "clusters": table.to_dict(orient="records")},
        )
