"""Where it fails without being told where to look: a search for slices that score below the rest.

A *slice* is a set of rows picked by one condition on a column (``channel = forum``,
``input_length >= 12``) or by a conjunction of conditions on different columns (``channel = forum
and language = es``). :func:`find_slices` codes every searchable column into levels, counts every
slice of up to ``order`` conditions with one group-by per combination of columns, and tests each
against its complement, one-sided ("does this slice score *below* the rest?"):

==========================  ====================================================================
what                        how
==========================  ====================================================================
columns                     text-like columns by value; numeric columns by value when they hold
                            at most :data:`MAX_NUMERIC_VALUES` distinct values, else in quantile
                            bins (:data:`N_BINS`); a missing value is a level of its own
skipped columns             all-null, one value only, list-valued, an identifier (every value
                            distinct), or more than ``max_values`` distinct values
slices tested               every level and every conjunction of up to ``order`` columns holding
                            at least ``min_n`` rows and leaving at least ``min_n`` outside it
test (0/1 scores)           one-sided Fisher exact test (hypergeometric lower tail)
test (other scores)         one-sided Welch t-test
score interval              Clopper-Pearson (0/1), t-interval (other scores)
gap interval                Newcombe's hybrid score interval (0/1), Welch interval (other)
false discoveries           Benjamini-Hochberg over every slice tested (``control="bh"``, the
                            default), or discover on one half of the rows and confirm on the
                            other (``control="split"``); ``"none"`` is the naive search
==========================  ====================================================================

Why BH is the default: on null data (no slice differs) BH's share of searches with any false
discovery stays at or under ``alpha``, as does discover/confirm, while BH finds more of the planted
slices (it uses every row for the test); ``benchmarks/bench_slices.py`` prints both beside the
naive search. Under the complete null every discovery is false, so BH's false-discovery rate is
then the chance of any false discovery.

A conjunction replaces its parts when it explains them: ``forum and es`` is kept only when it
scores below the rest of ``forum`` *and* below the rest of ``es`` (else the part that fails
everywhere is the finding), and a part is then dropped when its rows outside the conjunction do not
score below the rows outside the part (the part's deficit is the conjunction's). The kept
conjunction lists the parts it ``replaces``. These checks use the search's own kind of test
(cluster-robust with clusters) at ``alpha`` over the significant conjunctions checked.

A run scored by a corpus metric (AUROC, F1, ECE) is searched by :mod:`gengap.analysis.corpus_slices`
(:func:`slices_from_rows` picks it): the metric of each slice's rows, tested by permutation.

>>> import numpy as np, pandas as pd
>>> rng = np.random.default_rng(0)
>>> meta = pd.DataFrame({"channel": rng.choice(["forum", "news"], 2000), "language": rng.choice(["en", "es"], 2000)})
>>> bad = (meta["channel"] == "forum") & (meta["language"] == "es")
>>> scores = (rng.random(2000) < np.where(bad, 0.5, 0.8)).astype(float)
>>> found = find_slices(meta, scores)
>>> found.table.loc[found.table["significant"], "description"].tolist()
['channel = forum and language = es']
>>> found.table["replaces"].iloc[0]
['channel = forum', 'language = es']
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
import scipy.stats
from scipy.special import ndtri

from gengap._errors import ConfigError, DataError
from gengap._random import check_random_state
from gengap.analysis.intervals import adjust_pvalues, newcombe_ci, proportion_ci

__all__ = ["find_slices", "slices_from_rows", "slice_table", "slice_lines", "SliceSearch", "SLICE_COLUMNS", "MIN_SLICE_N", "MAX_VALUES",
           "CONTROLS", "DERIVED_FEATURES", "min_detectable_gap", "slice_mask", "CONDITION_OPS", "conditions_mask",
           "rows_in_slice", "searchable_frame"]

Control = Literal["bh", "split", "none"]

#: How false discoveries are controlled, by the name a report prints.
CONTROLS = {"bh": "Benjamini-Hochberg over every slice tested",
            "split": "discovered on one half of the rows, confirmed on the other (Benjamini-Hochberg over the candidates)",
            "none": "no correction (naive: every slice with p < alpha)"}

#: Slices with fewer rows (or leaving fewer outside) are not tested. At 30 rows an exact 95%
#: interval of a 0/1 score is about +-18 points wide at 50%, and a Welch test of other scores
#: starts to hold its level; ``benchmarks/bench_slices.py`` shows recall and false discoveries
#: at 10, 30 and 100.
MIN_SLICE_N = 30
#: Columns of text (or codes) with more distinct values than this are skipped: too many slices
#: to test honestly, and most too small; bin or group the column first.
MAX_VALUES = 1_000
#: Numeric columns with at most this many distinct values are searched value by value.
MAX_NUMERIC_VALUES = 10
#: Numeric columns with more values are cut at these many quantiles.
N_BINS = 5
#: Below this many rows a search says what it can and cannot detect.
SMALL_RUN = 500
#: Features gengap adds to a row's metadata for the search (when the rows carry their text).
DERIVED_FEATURES = ("input_length", "target_length", "train_similarity")

#: Columns of :attr:`SliceSearch.table`, in order (the ``slices`` records of results.json use these names).
SLICE_COLUMNS = ["description", "columns", "order", "n", "score", "score_low", "score_high", "gap", "gap_low",
                 "gap_high", "p_value", "p_adjusted", "significant", "replaces", "conditions"]

#: The operators of a slice's ``conditions`` (row filters, all of which a row must meet):
#: ``==`` (a number compared as a number; a string compared with the row's value as text, Python's
#: ``str``), ``<`` and ``>=`` (numbers), ``is_missing`` (value null: the row has no value there).
CONDITION_OPS = ("==", "<", ">=", "is_missing")


@dataclass(frozen=True)
class _Feature:
    """One searchable column coded into levels: ``codes[i]`` is row i's level, ``labels`` its condition."""

    name: str
    codes: np.ndarray
    labels: list[str]
    conditions: list[list[dict[str, Any]]] = field(default_factory=list)


@dataclass(frozen=True)
class _Stats:
    """Count, sum and sum of squares of the scores of many row sets at once (vectorized)."""

    n: np.ndarray
    s: np.ndarray
    q: np.ndarray

    def __sub__(self, other: _Stats) -> _Stats:
        return _Stats(self.n - other.n, self.s - other.s, self.q - other.q)


@dataclass
class SliceSearch:
    """The outcome of :func:`find_slices`.

    Attributes
    ----------
    table : the slices reported (columns :data:`SLICE_COLUMNS`), significant first, then by gap
        (most negative first). Explained parts are left out (see ``replaces``); at most
        ``top`` slices that are not significant are kept for context.
    n_rows : rows searched. n_tested : slices tested (the family the correction covers).
    n_significant : slices significant after the correction, before explained ones are left out.
    control : ``"bh"``, ``"split"`` or ``"none"``; :attr:`control_text` says it in words.
    alpha : the false-discovery level. min_n : the smallest slice tested. order : the most conditions.
    columns : the columns searched. skipped : column -> why it was not searched.
    detectable : the gap a slice of ``min_n`` rows (and one of a tenth of the rows, at least
        ``2 * min_n``) must reach to be
        found with 80% power, in score units (negative), or None when the search tests nothing.
    notes : plain sentences for a reader (a small run, skipped columns).
    members : description -> row positions, for every slice in ``table``.
    test : how each slice was tested: ``fisher`` (0/1 scores), ``welch``, ``welch-clustered``,
        ``permutation`` (corpus metrics, :mod:`gengap.analysis.corpus_slices`).
    higher_is_better : False for a loss or an error (a corpus metric such as ECE): a positive gap is then worse.
    """

    table: pd.DataFrame
    n_rows: int
    n_tested: int
    control: str
    alpha: float
    min_n: int
    order: int
    columns: list[str]
    skipped: dict[str, str]
    detectable: dict[str, float] | None
    notes: list[str]
    members: dict[str, np.ndarray] = field(repr=False, default_factory=dict)
    binary: bool = True
    n_significant: int = 0
    test: str = ""
    higher_is_better: bool = True

    @property
    def control_text(self) -> str:
        return CONTROLS[self.control]

    @property
    def significant(self) -> pd.DataFrame:
        """The slices that survived the false-discovery control."""
        return self.table[self.table["significant"].astype(bool)]

    def to_dict(self) -> dict[str, Any]:
        return {"n_rows": self.n_rows, "n_tested": self.n_tested, "control": self.control,
                "control_text": self.control_text, "test": self.test, "higher_is_better": self.higher_is_better,
                "alpha": self.alpha, "n_significant": self.n_significant, "min_n": self.min_n, "order": self.order,
                "columns": list(self.columns), "skipped": dict(self.skipped), "detectable": self.detectable,
                "notes": list(self.notes), "slices": self.table.to_dict(orient="records")}


# ------------------------------------------------------------------------------------------- coding columns
def _number(x: float) -> str:
    return f"{x:.4g}" if abs(x) < 1e5 else f"{x:,.0f}"


def _condition(column: str, op: str, value: Any) -> dict[str, Any]:
    """One row filter of a slice: ``{"column", "op", "value"}`` (see :data:`CONDITION_OPS`)."""
    if value is not None and not isinstance(value, str):
        value = float(value)
        value = int(value) if value.is_integer() and abs(value) < 2**53 else value
    return {"column": column, "op": op, "value": value}


def _code_column(name: str, values: pd.Series, *, max_values: int, n_bins: int) -> _Feature | str:
    """The column's levels, or why it is not searched."""
    n = len(values)
    missing = values.isna().to_numpy()
    present = values[~missing]
    if present.empty:
        return "every value is missing"
    kind = pd.api.types.infer_dtype(present, skipna=True)
    if kind in ("mixed", "unknown-array") and present.map(lambda v: isinstance(v, (list, dict, tuple, set))).any():
        return "it holds lists or objects, not single values"
    is_number = kind in ("integer", "floating", "mixed-integer-float", "decimal")
    numeric = pd.to_numeric(present, errors="coerce") if is_number else present
    distinct = int(present.nunique()) if not is_number else int(numeric.nunique())
    if distinct == 1 and not missing.any():
        return f"one value only ({present.iloc[0]!s:.40})"
    conditions: list[list[dict[str, Any]]]
    if is_number:
        x = np.full(n, np.nan)
        x[~missing] = numeric.to_numpy(dtype=np.float64)
        if distinct <= MAX_NUMERIC_VALUES:
            levels = np.unique(x[~missing])
            codes = np.searchsorted(levels, x)
            labels = [f"{name} = {_number(v)}" for v in levels]
            conditions = [[_condition(name, "==", v)] for v in levels]
        else:
            if distinct == len(present) and n > 2 * max_values and np.all(np.mod(x[~missing], 1) == 0):
                return f"every one of its {distinct:,} values is distinct (an identifier?)"
            edges = np.unique(np.quantile(x[~missing], np.linspace(0, 1, n_bins + 1))[1:-1])
            codes = np.searchsorted(edges, x, side="right")
            bounds = [-np.inf, *edges, np.inf]
            labels, conditions = [], []
            for lo, hi in zip(bounds[:-1], bounds[1:]):
                if np.isinf(lo):
                    labels.append(f"{name} < {_number(hi)}")
                    conditions.append([_condition(name, "<", hi)])
                elif np.isinf(hi):
                    labels.append(f"{name} >= {_number(lo)}")
                    conditions.append([_condition(name, ">=", lo)])
                else:
                    labels.append(f"{_number(lo)} <= {name} < {_number(hi)}")
                    conditions.append([_condition(name, ">=", lo), _condition(name, "<", hi)])
    else:
        if distinct > max_values:
            what = "an identifier or free text?" if distinct > len(present) // 2 else "too many to test honestly"
            return (f"{distinct:,} distinct values, more than max_values={max_values:,} ({what}); "
                    "bin or group it into a new column to search it")
        codes_present, uniques = pd.factorize(present.astype(str), sort=True)
        codes = np.zeros(n, dtype=np.int64)
        codes[~missing] = codes_present
        labels = [f"{name} = {u}" for u in uniques]
        conditions = [[_condition(name, "==", str(u))] for u in uniques]
    codes = np.asarray(codes, dtype=np.int64)
    if missing.any():
        codes[missing] = len(labels)
        labels = [*labels, f"{name} is missing"]
        conditions = [*conditions, [_condition(name, "is_missing", None)]]
    return _Feature(name, codes, labels, conditions)


def _features(frame: pd.DataFrame, columns: Sequence[str], *, max_values: int, n_bins: int) -> tuple[list[_Feature], dict[str, str]]:
    features, skipped = [], {}
    for name in columns:
        coded = _code_column(str(name), frame[name], max_values=max_values, n_bins=n_bins)
        if isinstance(coded, str):
            skipped[str(name)] = coded
        else:
            features.append(coded)
    return features, skipped


# ------------------------------------------------------------------------------------------- statistics
def _stats(codes: np.ndarray, size: int, y: np.ndarray, y2: np.ndarray) -> _Stats:
    return _Stats(np.bincount(codes, minlength=size).astype(np.float64), np.bincount(codes, y, minlength=size),
                  np.bincount(codes, y2, minlength=size))


def _below_p(a: _Stats, b: _Stats, binary: bool) -> np.ndarray:
    """One-sided p-value of "set a scores below set b" (disjoint sets), vectorized."""
    if binary:
        total, hits = a.n + b.n, a.s + b.s
        return np.clip(scipy.stats.hypergeom.cdf(np.rint(a.s), total, np.rint(hits), a.n), 0.0, 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        ma, mb = a.s / a.n, b.s / b.n
        va = np.maximum(a.q - a.n * ma**2, 0) / np.maximum(a.n - 1, 1)
        vb = np.maximum(b.q - b.n * mb**2, 0) / np.maximum(b.n - 1, 1)
        ea, eb = va / a.n, vb / b.n
        se = np.sqrt(ea + eb)
        df = (ea + eb) ** 2 / (ea**2 / np.maximum(a.n - 1, 1) + eb**2 / np.maximum(b.n - 1, 1))
        t = (ma - mb) / se
        p = scipy.stats.t.cdf(t, np.where(np.isfinite(df), df, 1.0))
    return np.where(se > 0, p, np.where(ma < mb, 0.0, 1.0))


def _intervals(a: _Stats, b: _Stats, binary: bool, confidence: float) -> tuple[np.ndarray, ...]:
    """Score of a with its interval; a minus b with its interval."""
    with np.errstate(invalid="ignore", divide="ignore"):
        ma, mb = a.s / a.n, b.s / b.n
        if binary:
            lo, hi = proportion_ci(a.s, a.n, confidence=confidence)
            glo, ghi = newcombe_ci(a.s, a.n, b.s, b.n, confidence=confidence)
            return ma, lo, hi, ma - mb, glo, ghi
        va = np.maximum(a.q - a.n * ma**2, 0) / np.maximum(a.n - 1, 1)
        vb = np.maximum(b.q - b.n * mb**2, 0) / np.maximum(b.n - 1, 1)
        half = scipy.stats.t.ppf(0.5 + confidence / 2, np.maximum(a.n - 1, 1)) * np.sqrt(va / a.n)
        ea, eb = va / a.n, vb / b.n
        df = (ea + eb) ** 2 / np.maximum(ea**2 / np.maximum(a.n - 1, 1) + eb**2 / np.maximum(b.n - 1, 1), 1e-300)
        ghalf = scipy.stats.t.ppf(0.5 + confidence / 2, np.maximum(df, 1)) * np.sqrt(ea + eb)
        return ma, ma - half, ma + half, ma - mb, ma - mb - ghalf, ma - mb + ghalf


def min_detectable_gap(n_rows: int, n_slice: int, *, n_tests: int, alpha: float = 0.05, power: float = 0.8,
                       base_rate: float = 0.5, sd: float | None = None) -> float:
    """The gap (negative, in score units) a slice of ``n_slice`` rows must reach to be found with
    ``power``, at BH's first threshold ``alpha / n_tests`` (normal approximation).

    For 0/1 scores the spread is that of ``base_rate``; pass ``sd`` for other scores.

    >>> round(min_detectable_gap(200, 30, n_tests=50), 2)
    -0.39
    """
    if n_slice < 1 or n_rows - n_slice < 1:
        return float("nan")
    spread = sd if sd is not None else math.sqrt(base_rate * (1 - base_rate))
    z = float(ndtri(1 - alpha / max(n_tests, 1)) + ndtri(power))
    return -z * spread * math.sqrt(1 / n_slice + 1 / (n_rows - n_slice))


# ------------------------------------------------------------------------------------------- the search
@dataclass
class _Candidates:
    """Every slice tested: its description, columns, (feature index, level) conditions and stats."""

    descriptions: list[str] = field(default_factory=list)
    conditions: list[tuple[tuple[int, int], ...]] = field(default_factory=list)
    n: list[np.ndarray] = field(default_factory=list)
    s: list[np.ndarray] = field(default_factory=list)
    q: list[np.ndarray] = field(default_factory=list)
    var_gap: list[np.ndarray] = field(default_factory=list)
    var_score: list[np.ndarray] = field(default_factory=list)
    n_clusters: list[np.ndarray] = field(default_factory=list)


@dataclass(frozen=True)
class _Clusters:
    """The cluster of every row, and per-cluster totals the cluster-robust variances need."""

    codes: np.ndarray
    n_g: np.ndarray
    s_g: np.ndarray

    @classmethod
    def of(cls, codes: np.ndarray, y: np.ndarray) -> _Clusters:
        size = int(codes.max()) + 1 if len(codes) else 0
        return cls(codes, np.bincount(codes, minlength=size).astype(np.float64), np.bincount(codes, y, minlength=size))

    @property
    def g(self) -> int:
        return len(self.n_g)


def _clustered_variances(code: np.ndarray, cells: np.ndarray, st: _Stats, y: np.ndarray,
                         cl: _Clusters) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cluster-robust (CR1) variances of each cell's gap to the rest and of its score, and the
    clusters it touches, from one sort of (cell, cluster) keys (vectorized over the cells)."""
    total_n, total_s = float(len(y)), float(y.sum())
    n_s, s_s = st.n[cells], st.s[cells]
    n_c = total_n - n_s
    m_s, m_c = s_s / n_s, (total_s - s_s) / n_c
    where = np.full(int(code.max()) + 1 if len(code) else 0, -1, dtype=np.int64)
    where[cells] = np.arange(len(cells))
    inside = where[code] >= 0
    key = where[code[inside]] * cl.g + cl.codes[inside]
    uniq, inv = np.unique(key, return_inverse=True)
    n_cg, s_cg = np.bincount(inv).astype(np.float64), np.bincount(inv, y[inside])
    c, g = uniq // cl.g, uniq % cl.g
    e_in = s_cg - n_cg * m_s[c]
    e_out = (cl.s_g[g] - s_cg) - (cl.n_g[g] - n_cg) * m_c[c]
    touched = np.bincount(c, (e_in / n_s[c] - e_out / n_c[c]) ** 2, minlength=len(cells))
    untouched_all = (np.sum(cl.s_g**2) - 2 * m_c * np.sum(cl.s_g * cl.n_g) + m_c**2 * np.sum(cl.n_g**2)) / n_c**2
    untouched_in = np.bincount(c, ((cl.s_g[g] - cl.n_g[g] * m_c[c]) / n_c[c]) ** 2, minlength=len(cells))
    g_all = cl.g
    var_gap = (touched + untouched_all - untouched_in) * g_all / max(g_all - 1, 1)
    g_in = np.bincount(c, minlength=len(cells)).astype(np.float64)
    var_score = np.bincount(c, (e_in / n_s[c]) ** 2, minlength=len(cells)) * g_in / np.maximum(g_in - 1, 1)
    return np.maximum(var_gap, 0.0), var_score, g_in


def _enumerate(features: list[_Feature], y: np.ndarray, order: int, min_n: int,
               clusters: _Clusters | None = None) -> _Candidates:
    """Count every slice of up to ``order`` conditions (one bincount per combination of columns)."""
    total = len(y)
    y2 = y * y
    out = _Candidates()
    level_n = [np.bincount(f.codes, minlength=len(f.labels)) for f in features]
    for k in range(1, order + 1):
        for combo in itertools.combinations(range(len(features)), k):
            sizes = tuple(len(features[f].labels) for f in combo)
            if math.prod(sizes) > 50_000_000:
                continue
            code = np.zeros(total, dtype=np.int64)
            for f, size in zip(combo, sizes):
                code = code * size + features[f].codes
            st = _stats(code, math.prod(sizes), y, y2)
            keep = (st.n >= min_n) & (st.n <= total - min_n)
            cells = np.flatnonzero(keep)
            levels = np.unravel_index(cells, sizes)
            if k > 1:  # the same rows as one of its parts: nothing new to test
                same = np.zeros(len(cells), dtype=bool)
                for f, lv in zip(combo, levels):
                    same |= level_n[f][lv] == st.n[cells]
                cells, levels = cells[~same], tuple(lv[~same] for lv in levels)
            for j in range(len(cells)):
                cond = tuple((f, int(lv[j])) for f, lv in zip(combo, levels))
                out.descriptions.append(" and ".join(features[f].labels[lv] for f, lv in cond))
                out.conditions.append(cond)
            out.n.append(st.n[cells])
            out.s.append(st.s[cells])
            out.q.append(st.q[cells])
            if clusters is not None:
                vg, vs, gi = _clustered_variances(code, cells, st, y, clusters)
                out.var_gap.append(vg)
                out.var_score.append(vs)
                out.n_clusters.append(gi)
    return out


def _gather(c: _Candidates) -> _Stats:
    """The stats of the kept candidates, in the order of ``c.descriptions`` (duplicate parts dropped)."""
    n, s, q = (np.concatenate(x) if x else np.zeros(0) for x in (c.n, c.s, c.q))
    return _Stats(n, s, q)


def _mask(cond: tuple[tuple[int, int], ...], features: list[_Feature]) -> np.ndarray:
    mask = np.ones(len(features[0].codes), dtype=bool)
    for f, lv in cond:
        mask &= features[f].codes == lv
    return mask


def _check_options(order: int, min_n: int, alpha: float, control: str, confidence: float) -> None:
    if not isinstance(order, (int, np.integer)) or not 1 <= order <= 3:
        raise ConfigError(f"slice_order={order!r} must be 1, 2 or 3 (conditions per slice; 2 finds 'a and b').")
    if not isinstance(min_n, (int, np.integer)) or min_n < 2:
        raise ConfigError(f"min_n={min_n!r} must be an integer of at least 2 (rows in the smallest slice tested).")
    if not 0 < alpha < 1:
        raise ConfigError(f"alpha={alpha!r} must lie between 0 and 1 (e.g. 0.05).")
    if control not in CONTROLS:
        raise ConfigError(f"control={control!r} must be one of {', '.join(CONTROLS)}.")
    if not 0 < confidence < 1:
        raise ConfigError(f"confidence={confidence!r} must lie between 0 and 1.")


def find_slices(
    data: pd.DataFrame,
    scores: Sequence[float] | np.ndarray | str,
    *,
    columns: Sequence[str] | None = None,
    order: int = 2,
    min_n: int = MIN_SLICE_N,
    alpha: float = 0.05,
    control: Control = "bh",
    confidence: float = 0.95,
    max_values: int = MAX_VALUES,
    n_bins: int = N_BINS,
    top: int = 10,
    seed: int | np.random.Generator | None = 0,
    clusters: Sequence[Any] | np.ndarray | str | None = None,
) -> SliceSearch:
    """Search the columns of ``data`` for slices whose score is significantly below the rest.

    Parameters
    ----------
    data : one row per example; the columns to search (metadata, ``input_length``, ...).
    scores : array-like of shape (n_rows,), per-example scores, or the name of a column of ``data``.
    columns : the columns to search (default: every column but ``scores``).
    order : the most conditions in a slice (1: single columns; 2: also pairs, "a and b").
    min_n : slices with fewer rows, or leaving fewer outside, are not tested (:data:`MIN_SLICE_N`).
    alpha : the false-discovery level. control : ``"bh"`` (default), ``"split"`` or ``"none"``
        (see the module's notes).
    confidence : of the score and gap intervals.
    max_values : text columns with more distinct values are skipped (:data:`MAX_VALUES`).
    n_bins : quantile bins of numeric columns with many values.
    top : slices that are not significant kept in the table for context (the best gaps).
    seed : the halves of ``control="split"``.
    clusters : the cluster of every row (or the name of a column of ``data``) when rows are not
        independent (questions of one passage): tests and intervals are then cluster-robust (CR1
        variances, t with clusters - 1 degrees of freedom; :mod:`gengap.analysis.clustered`), and
        the halves of ``control="split"`` are halves of whole clusters.

    >>> found = find_slices(pd.DataFrame({"site": ["a"] * 60 + ["b"] * 60}), [1.0] * 60 + [0.0] * 60)
    >>> found.table[["description", "n", "score", "significant"]].values.tolist()
    [['site = b', 60, 0.0, True]]
    """
    _check_options(order, min_n, alpha, control, confidence)
    frame = data.reset_index(drop=True)
    if isinstance(scores, str):
        if scores not in frame.columns:
            raise DataError(f"No score column {scores!r} in the table (columns: {', '.join(map(str, frame.columns))}).")
        y = pd.to_numeric(frame[scores], errors="coerce").to_numpy(dtype=np.float64)
        frame = frame.drop(columns=scores)
    else:
        y = np.asarray(scores, dtype=np.float64).ravel()
    if len(y) != len(frame):
        raise DataError(f"find_slices got {len(y):,} scores for {len(frame):,} rows; give one score per row.")
    if np.isnan(y).any():
        raise DataError(f"{int(np.isnan(y).sum()):,} score(s) are missing or not numbers; drop or fill those rows first.")
    if columns is None:
        columns = [str(c) for c in frame.columns]
    unknown = [c for c in columns if c not in frame.columns]
    if unknown:
        from gengap._errors import did_you_mean

        raise DataError(f"No column {unknown[0]!r} to search.{did_you_mean(unknown[0], map(str, frame.columns))} "
                        f"Columns: {', '.join(map(str, frame.columns))}.")
    binary = bool(np.isin(y, (0.0, 1.0)).all())
    n_rows = len(y)
    features, skipped = _features(frame, columns, max_values=max_values, n_bins=n_bins)
    codes = None
    if clusters is not None:
        from gengap.analysis.clustered import cluster_codes

        if isinstance(clusters, str):
            if clusters not in frame.columns:
                raise DataError(f"No cluster column {clusters!r} in the table (columns: {', '.join(map(str, frame.columns))}).")
            clusters = frame[clusters].astype(str).to_numpy()
        codes = cluster_codes(clusters, n_rows)
    rng = check_random_state(seed)

    def search(rows: np.ndarray | None, least: int) -> tuple[_Candidates, dict[str, int]]:
        yy = y if rows is None else y[rows]
        ff = features if rows is None else [_Feature(f.name, f.codes[rows], f.labels) for f in features]
        cl = None if codes is None else _Clusters.of(pd.factorize(codes if rows is None else codes[rows])[0], yy)
        found = _enumerate(ff, yy, order, least, cl) if features and len(yy) else _Candidates()
        return found, {d: i for i, d in enumerate(found.descriptions)}

    def tested(c: _Candidates, yy_sum: float, yy_q: float, n_all: int) -> tuple[_Stats, np.ndarray, tuple[np.ndarray, ...]]:
        st = _gather(c)
        if not len(st.n):
            return st, np.zeros(0), (np.zeros(0),) * 6
        total = _Stats(np.array([float(n_all)]), np.array([yy_sum]), np.array([yy_q]))
        if codes is None:
            return st, _below_p(st, total - st, binary), _intervals(st, total - st, binary, confidence)
        vg, vs, gi = (np.concatenate(x) for x in (c.var_gap, c.var_score, c.n_clusters))
        return st, *_clustered_tests(st, total - st, vg, vs, gi, int(np.max(gi)) if len(gi) else 1, confidence,
                                     n_groups=len(np.unique(codes)))

    if control == "split":  # halves of whole clusters when there are clusters (else of rows)
        unit = codes if codes is not None else np.arange(n_rows)
        units = np.unique(unit)
        first = np.zeros(len(units), dtype=bool)
        first[rng.permutation(len(units))[: len(units) // 2]] = True
        half = first[np.searchsorted(units, unit)]
        found, _ = search(half, max(2, min_n // 2))
        _, p_search, _ = tested(found, y[half].sum(), (y[half] ** 2).sum(), int(half.sum()))
        chosen = [found.descriptions[i] for i in np.flatnonzero(p_search < alpha)]
        n_tested = len(found.descriptions)
        confirm, at = search(~half, 2)
        _, p_confirm, _ = tested(confirm, y[~half].sum(), (y[~half] ** 2).sum(), int((~half).sum()))
        whole, where = search(None, 2)
        st_all, _, figures_all = tested(whole, y.sum(), (y**2).sum(), n_rows)
        keep_rows = [where[d] for d in chosen]
        descriptions = chosen
        conditions = [whole.conditions[i] for i in keep_rows]
        p = np.array([p_confirm[at[d]] if d in at else 1.0 for d in chosen])
        full = _Stats(st_all.n[keep_rows], st_all.s[keep_rows], st_all.q[keep_rows])
        figures = tuple(f[keep_rows] for f in figures_all) if keep_rows else (np.zeros(0),) * 6
    else:
        found, _ = search(None, min_n)
        full, p, figures = tested(found, y.sum(), (y**2).sum(), n_rows)
        descriptions, conditions, n_tested = found.descriptions, found.conditions, len(found.descriptions)
    adjusted = adjust_pvalues(p, "bh") if control != "none" else p.copy()
    significant = adjusted <= alpha if len(p) else np.zeros(0, dtype=bool)
    score, slo, shi, gap, glo, ghi = figures
    kept, replaces = _explain(list(conditions), significant, features, alpha, _mean_below(y, binary, codes))
    order_key = sorted(range(len(p)), key=lambda i: (not significant[i], gap[i], descriptions[i]))
    records, members = [], {}
    n_plain = 0
    for i in order_key:
        if not kept[i]:
            continue
        if not significant[i]:
            if n_plain >= top or gap[i] >= 0:
                continue
            n_plain += 1
        cond = conditions[i]
        records.append({"description": descriptions[i], "columns": [features[f].name for f, _ in cond], "order": len(cond),
                        "n": int(full.n[i]), "score": float(score[i]), "score_low": float(slo[i]), "score_high": float(shi[i]),
                        "gap": float(gap[i]), "gap_low": float(glo[i]), "gap_high": float(ghi[i]), "p_value": float(p[i]),
                        "p_adjusted": float(adjusted[i]), "significant": bool(significant[i]),
                        "replaces": replaces.get(i, []),
                        "conditions": [c for f, lv in cond for c in features[f].conditions[lv]]})
        members[descriptions[i]] = np.flatnonzero(_mask(cond, features))
    table = pd.DataFrame(records, columns=SLICE_COLUMNS)
    detectable, notes = _what_it_can_find(y, binary, n_tested, alpha, min_n, order, skipped, features)
    return SliceSearch(table=table, n_rows=n_rows, n_tested=n_tested, control=control, alpha=alpha, min_n=min_n,
                       order=order, columns=[f.name for f in features], skipped=skipped, detectable=detectable,
                       notes=notes, members=members, binary=binary,
                       n_significant=int(significant.sum()),
                       test="welch-clustered" if codes is not None else ("fisher" if binary else "welch"))


def _clustered_tests(a: _Stats, b: _Stats, var_gap: np.ndarray, var_score: np.ndarray, clusters_in: np.ndarray,
                     _: int, confidence: float, *, n_groups: int) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """One-sided cluster-robust t-tests of each slice against the rest, and the intervals."""
    with np.errstate(invalid="ignore", divide="ignore"):
        ma, mb = a.s / a.n, b.s / b.n
        gap = ma - mb
        se = np.sqrt(var_gap)
        df = max(n_groups - 1, 1)
        p = np.where(se > 0, scipy.stats.t.cdf(gap / se, df), np.where(gap < 0, 0.0, 1.0))
        half_gap = scipy.stats.t.ppf(0.5 + confidence / 2, df) * se
        half_score = scipy.stats.t.ppf(0.5 + confidence / 2, np.maximum(clusters_in - 1, 1)) * np.sqrt(var_score)
    return p, (ma, ma - half_score, ma + half_score, gap, gap - half_gap, gap + half_gap)


def _below_p_clustered(a: np.ndarray, b: np.ndarray, y: np.ndarray, codes: np.ndarray) -> float:
    """One-sided cluster-robust p-value of "rows ``a`` score below rows ``b``" (disjoint masks): the
    CR1 variance of the difference of means over the clusters that hold rows of either, t with
    G - 1 degrees of freedom (statsmodels' clustered OLS of y on "in a" over those rows, times
    G / (G - 1))."""
    n_a, n_b = a.sum(), b.sum()
    if n_a == 0 or n_b == 0:
        return 1.0
    m_a, m_b = y[a].mean(), y[b].mean()
    either = a | b
    g, inv = np.unique(codes[either], return_inverse=True)
    contrib = np.where(a[either], (y[either] - m_a) / n_a, -(y[either] - m_b) / n_b)
    e = np.bincount(inv, contrib, minlength=len(g))
    n_g = len(g)
    se = math.sqrt(float(np.sum(e**2)) * n_g / max(n_g - 1, 1))
    if se == 0:
        return 0.0 if m_a < m_b else 1.0
    return float(scipy.stats.t.cdf((m_a - m_b) / se, max(n_g - 1, 1)))


def _mean_below(y: np.ndarray, binary: bool, codes: np.ndarray | None) -> Any:
    """The one-sided test of "rows a score below rows b" (masks) of a search on per-example scores:
    Fisher's or Welch's, cluster-robust with cluster ``codes``."""

    def below(a: np.ndarray, b: np.ndarray) -> float:
        if codes is not None:
            return _below_p_clustered(a, b, y, codes)
        stats = [_Stats(np.array([float(m.sum())]), np.array([y[m].sum()]), np.array([(y[m] ** 2).sum()])) for m in (a, b)]
        return float(_below_p(stats[0], stats[1], binary)[0])

    return below


def _explain(conditions: list[tuple[tuple[int, int], ...]], significant: np.ndarray, features: list[_Feature],
             alpha: float, below: Any) -> tuple[np.ndarray, dict[int, list[str]]]:
    """Which slices to report: a significant conjunction replaces the parts it explains, and is
    itself dropped when one of its parts explains it. Returns the mask of kept slices and, per kept
    conjunction, the descriptions of the parts it replaces. ``below(a, b)`` is the one-sided p-value
    of "rows a (a mask) do worse than rows b", the search's own kind of test (cluster-robust with
    clusters). Its level is ``alpha`` over the significant conjunctions checked (Bonferroni): with
    many rows and many conjunctions, an uncorrected check keeps one that merely sits inside a
    failing part now and then."""
    kept = np.ones(len(conditions), dtype=bool)
    replaces: dict[int, list[str]] = {}
    where = {cond: i for i, cond in enumerate(conditions)}
    checked = [i for i in np.flatnonzero(significant) if len(conditions[i]) >= 2]
    alpha = alpha / max(len(checked), 1)
    for i in checked:
        cond = conditions[i]
        parts = [tuple(c for c in cond if c != drop) for drop in reversed(cond)]
        inside = _mask(cond, features)
        part_masks = [_mask(part, features) for part in parts]
        if any(below(inside, m & ~inside) >= alpha for m in part_masks):
            kept[i] = False  # a part fails as much outside the conjunction: the part is the finding
            continue
        for part, m in zip(parts, part_masks):
            if below(m & ~inside, ~m) >= alpha:  # the part's rows outside the conjunction do not fail
                j = where.get(part)
                if j is not None:
                    kept[j] = False
                replaces.setdefault(int(i), []).append(" and ".join(features[f].labels[lv] for f, lv in part))
    return kept, replaces


def _what_it_can_find(y: np.ndarray, binary: bool, n_tested: int, alpha: float, min_n: int, order: int,
                      skipped: dict[str, str], features: list[_Feature]) -> tuple[dict[str, float] | None, list[str]]:
    n = len(y)
    notes = [f"Column '{name}' was not searched: {why}." for name, why in skipped.items()]
    if not features:
        notes.append("No column could be searched, so no slice was tested.")
    if n < 2 * min_n:
        notes.append(f"With {n:,} rows no slice can be tested: a slice needs at least min_n = {min_n} rows and as "
                     "many outside it.")
        return None, notes
    spread = None if binary else float(np.std(y, ddof=1))
    rate = float(np.clip(y.mean(), 0.05, 0.95)) if binary else 0.5
    tests = max(n_tested, 1)
    small = min_detectable_gap(n, min_n, n_tests=tests, alpha=alpha, base_rate=rate, sd=spread)
    tenth = min(max(2 * min_n, n // 10), n // 2)
    large = min_detectable_gap(n, tenth, n_tests=tests, alpha=alpha, base_rate=rate, sd=spread)
    detectable = {"n_slice_small": min_n, "gap_small": small, "n_slice_large": tenth, "gap_large": large}
    if n < SMALL_RUN:
        unit = (lambda g: f"{-100 * g:.0f} points") if binary else (lambda g: f"{-g:.3g}")
        notes.append(f"A small run ({n:,} rows, {n_tested:,} slices tested): a slice of {min_n} rows is found only when "
                     f"it scores about {unit(small)} below the rest, one of {tenth} rows about {unit(large)} (80% "
                     "power); smaller failures cannot be told from chance here.")
    return detectable, notes


def slice_mask(search: SliceSearch, description: str) -> np.ndarray:
    """Row positions of a reported slice (positions in the table that was searched)."""
    if description not in search.members:
        from gengap._errors import did_you_mean

        raise ConfigError(f"No reported slice {description!r}.{did_you_mean(description, search.members)}")
    return search.members[description]


def conditions_mask(frame: pd.DataFrame, conditions: Sequence[dict[str, Any]]) -> np.ndarray:
    """The rows of ``frame`` that meet every condition of a slice (its ``conditions`` in results.json).

    ``frame`` holds the searched columns (:func:`searchable_frame` of store rows); a column it lacks
    holds no value in any row. The mask selects exactly the rows the search counted.

    >>> frame = pd.DataFrame({"site": ["a", "b", None], "input_length": [3, 12, 20]})
    >>> conditions_mask(frame, [{"column": "input_length", "op": ">=", "value": 12}]).tolist()
    [False, True, True]
    >>> conditions_mask(frame, [{"column": "site", "op": "is_missing", "value": None}]).tolist()
    [False, False, True]
    """
    mask = np.ones(len(frame), dtype=bool)
    for i, cond in enumerate(conditions):
        if not isinstance(cond, dict) or set(cond) != {"column", "op", "value"}:
            raise DataError(f"Slice condition {i} is {cond!r}; each must be an object with exactly 'column', 'op' "
                            "and 'value'.")
        column, op, value = cond["column"], cond["op"], cond["value"]
        if op not in CONDITION_OPS:
            raise DataError(f"Slice condition {i} has op {op!r}; gengap writes only {', '.join(CONDITION_OPS)}.")
        values = frame[column] if column in frame else pd.Series([None] * len(frame), index=frame.index, dtype=object)
        missing = values.isna().to_numpy()
        if op == "is_missing":
            mask &= missing
        elif isinstance(value, str):
            if op != "==":
                raise DataError(f"Slice condition {i} compares {column!r} with the text {value!r} by {op!r}; text "
                                "is compared only by '=='.")
            mask &= ~missing & (values.astype(str).to_numpy() == value)
        else:
            x = pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64)
            with np.errstate(invalid="ignore"):
                hit = x == value if op == "==" else (x < value if op == "<" else x >= value)
            mask &= ~missing & hit
    return mask


def rows_in_slice(rows: pd.DataFrame, record: dict[str, Any]) -> pd.DataFrame:
    """The store rows of a slice record of results.json (``model``, ``split``, ``metric`` and
    ``conditions``): the clean rows of that model, split and metric that meet every condition.

    >>> import json
    >>> rows = pd.DataFrame({"model": "m", "split": "s", "perturbation": "none", "metric": "em", "input": ["a b", "c"],
    ...     "target": "x", "metadata": [json.dumps({"site": "a"}), json.dumps({"site": "b"})], "score": [1.0, 0.0]})
    >>> rows_in_slice(rows, {"model": "m", "split": "s", "metric": "em",
    ...     "conditions": [{"column": "site", "op": "==", "value": "b"}]})["input"].tolist()
    ['c']
    """
    chosen = rows
    if "perturbation" in chosen:
        chosen = chosen[chosen["perturbation"] == "none"]
    for key in ("model", "split", "metric"):
        if key in record and key in chosen:
            chosen = chosen[chosen[key].astype(str) == str(record[key])]
    return chosen[conditions_mask(searchable_frame(chosen), record.get("conditions", []))]


# ------------------------------------------------------------------------------------------- from store rows
def searchable_frame(rows: pd.DataFrame) -> pd.DataFrame:
    """Per-example store rows to the columns a slice search reads: the metadata columns, and the
    derived ``input_length``, ``target_length`` (whitespace tokens) and ``train_similarity`` (when
    the rows carry it).

    >>> rows = pd.DataFrame({"input": ["a b", "c"], "target": ["x", "y z"], "metadata": ['{"site": "a"}', '{"site": "b"}']})
    >>> searchable_frame(rows).to_dict("list")
    {'site': ['a', 'b'], 'input_length': [2, 1], 'target_length': [1, 2]}
    """
    from gengap.analysis.group_scores import expand_metadata
    from gengap.structure.atoms import length

    base = rows.reset_index(drop=True)
    meta = expand_metadata(base[["metadata"]]) if "metadata" in base else pd.DataFrame(index=base.index)
    frame = meta.drop(columns=[c for c in meta.columns if c == "metadata"])
    for name, col in (("input_length", "input"), ("target_length", "target")):
        if col in base and name not in frame and base[col].notna().any():
            frame[name] = np.fromiter((length(t) if t is not None else 0 for t in base[col]), dtype=np.int64,
                                      count=len(base))
    if "train_similarity" in base and "train_similarity" not in frame:
        frame["train_similarity"] = base["train_similarity"].to_numpy()
    return frame


def slices_from_rows(
    rows: pd.DataFrame,
    *,
    model: str | None = None,
    metric: str | None = None,
    split: str | None = None,
    cluster: str | None = None,
    **options: Any,
) -> list[tuple[dict[str, str], SliceSearch]]:
    """A slice search per (model, split) of a run's clean rows, on one metric (default: the first).

    Returns ``[({"model": ..., "split": ..., "metric": ...}, SliceSearch), ...]``; ``options`` go to
    :func:`find_slices`. ``cluster`` names the metadata column whose rows are not independent (the
    run's ``--cluster``): its clusters make every test and interval cluster-robust, and the column
    itself is not searched.

    >>> import json
    >>> rows = pd.DataFrame({"model": "m", "split": "random", "perturbation": "none", "metric": "exact_match",
    ...     "input": "q", "target": "a", "example_id": [str(i) for i in range(120)],
    ...     "metadata": [json.dumps({"site": "ab"[i % 2]}) for i in range(120)], "score": [float(i % 2) for i in range(120)]})
    >>> [(key["split"], s.significant["description"].tolist()) for key, s in slices_from_rows(rows)]
    [('random', ['site = a'])]
    """
    clean = rows[rows["perturbation"] == "none"] if "perturbation" in rows else rows
    if clean.empty:
        raise DataError("The run has no scored rows to search for slices.")
    metrics = list(dict.fromkeys(clean["metric"].astype(str)))
    metric = metric if metric is not None else metrics[0]
    for what, value in (("model", model), ("metric", metric), ("split", split)):
        if value is not None and value not in set(clean[what].astype(str)):
            from gengap._errors import did_you_mean

            present = sorted(set(clean[what].astype(str)))
            raise ConfigError(f"{what}={value!r} is not in this run.{did_you_mean(str(value), present)} "
                              f"Its {what}s: {', '.join(present)}.")
    chosen = clean[clean["metric"].astype(str) == metric]
    if model is not None:
        chosen = chosen[chosen["model"].astype(str) == model]
    if split is not None:
        chosen = chosen[chosen["split"].astype(str) == split]
    from gengap.analysis.corpus_slices import find_corpus_slices, is_corpus_metric

    out = []
    for (m, s), group in chosen.groupby(["model", "split"], sort=False):
        frame = searchable_frame(group)
        ids = None
        if cluster is not None:
            from gengap.analysis.clustered import cluster_ids

            ids = cluster_ids(group.reset_index(drop=True), cluster, where=f"the rows of {m} on {s}")
            frame = frame.drop(columns=[cluster], errors="ignore")
        key = {"model": str(m), "split": str(s), "metric": metric}
        if is_corpus_metric(metric):  # AUROC, F1, ECE...: the metric of each slice's rows, tested by permutation
            out.append((key, find_corpus_slices(frame, group.reset_index(drop=True), metric, clusters=ids, **options)))
        else:
            out.append((key, find_slices(frame, group["score"].to_numpy(dtype=np.float64), clusters=ids, **options)))
    return out


def slice_table(searches: list[tuple[dict[str, str], SliceSearch]]) -> pd.DataFrame:
    """The slices of several searches in one table: ``model``, ``split``, ``metric`` and
    :data:`SLICE_COLUMNS`, significant first, then by gap (most negative first); ``.attrs["searches"]``
    holds each search's key with its control, slices tested, skipped columns and notes.

    >>> rows = pd.DataFrame({"model": "m", "split": "random", "metric": "exact_match", "input": "q", "target": "a",
    ...     "metadata": ['{"site": "a"}', '{"site": "b"}'] * 60, "score": [1.0, 0.0] * 60})
    >>> table = slice_table(slices_from_rows(rows))
    >>> table[["split", "description", "significant"]].values.tolist()
    [['random', 'site = b', True]]
    >>> table.attrs["searches"][0]["control"]
    'bh'
    """
    frames, meta = [], []
    for key, search in searches:
        frame = search.table.copy()
        frame["_worse"] = frame["gap"] if search.higher_is_better else -frame["gap"]
        for i, (name, value) in enumerate(key.items()):
            frame.insert(i, name, value)
        frames.append(frame)
        meta.append({**key, **{k: v for k, v in search.to_dict().items() if k != "slices"}})
    columns = ["model", "split", "metric", *SLICE_COLUMNS]
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
    if len(out):
        out = out.sort_values(["significant", "_worse", "model", "split", "description"],
                              ascending=[False, True, True, True, True], kind="stable").reset_index(drop=True)
    out.attrs["searches"] = meta
    return out[columns]


def slice_lines(table: pd.DataFrame, *, top: int = 5, percent: bool = True) -> list[str]:
    """Plain sentences for a terminal: the ``top`` slices of :func:`slice_table`, and how they were found.

    >>> rows = pd.DataFrame({"model": "m", "split": "random", "metric": "exact_match", "input": "q", "target": "a",
    ...     "metadata": ['{"site": "a"}', '{"site": "b"}'] * 60, "score": [1.0, 0.0] * 60})
    >>> print("\\n".join(slice_lines(slice_table(slices_from_rows(rows)))))
    Where it fails (slices significantly below the rest; Benjamini-Hochberg over every slice tested, 2 slices tested):
      m on random: site = b  n = 60, score 0.0% [0.0, 6.0], 100.0 pts below the rest [-100.0, -91.6], adjusted p 2.1e-35
    """
    searches = table.attrs.get("searches", [])
    tested = sum(int(s.get("n_tested", 0)) for s in searches)
    controls = sorted({CONTROLS[s["control"]] for s in searches if s.get("control") in CONTROLS})
    loss = any(not s.get("higher_is_better", True) for s in searches)  # ECE, log loss: higher is worse
    head = (f"Where it fails (slices significantly {'above' if loss else 'below'} the rest; {'; '.join(controls) or 'no search'}, "
            f"{tested:,} slices tested):")
    found = table[table["significant"].astype(bool)].head(top)
    if found.empty:
        return [head, f"  No slice scores significantly {'above' if loss else 'below'} the rest."] + [f"  {n}" for s in searches for n in s.get("notes", [])]

    def num(v: float) -> str:
        return f"{100 * v:.1f}" if percent else f"{v:.3g}"

    lines = [head]
    for r in found.itertuples():
        score = f"{num(r.score)}{'%' if percent else ''} [{num(r.score_low)}, {num(r.score_high)}]"
        lines.append(f"  {r.model} on {r.split}: {r.description}  n = {r.n:,}, score {score}, "
                     f"{num(abs(r.gap))}{' pts' if percent else ''} {'above' if r.gap > 0 else 'below'} the rest "
                     f"[{num(r.gap_low)}, {num(r.gap_high)}], "
                     f"adjusted p {r.p_adjusted:.2g}")
    more = int(table["significant"].astype(bool).sum()) - len(found)
    if more > 0:
        lines.append(f"  ... and {more} more in the report.")
    return lines
