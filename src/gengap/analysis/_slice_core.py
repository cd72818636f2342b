"""The machinery of the slice search, shared by :mod:`gengap.analysis.slices` (per-example scores)
and :mod:`gengap.analysis.corpus_slices` (corpus metrics): coding columns into levels and row
filters, counting every slice of up to ``order`` conditions, the one-sided tests of means, and the
rule that lets a conjunction stand for the parts it explains. Users import from those two modules.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
import scipy.stats
from scipy.special import ndtri

from gengap._errors import ConfigError
from gengap.analysis.intervals import newcombe_ci, proportion_ci

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
    ``power``, at BH's first threshold ``alpha / n_tests``.

    For 0/1 scores (no ``sd``) the rest scores ``base_rate`` and the slice ``base_rate - gap``; the
    gap is read off the arcsine scale, where a rate's spread does not depend on the rate, with half
    a row of continuity correction: ``2 asin(sqrt(p0)) - 2 asin(sqrt(p1 + 1 / (2 n_slice)))`` must
    reach ``(z_level + z_power) sqrt(1 / n_slice + 1 / n_rest)``. This keeps within a few points of
    the gap the exact one-sided Fisher test needs (``benchmarks/bench_slices.py --power``; the
    normal formula with the base rate's spread inside the slice too was found with power 0.35-0.91:
    14 points for a 200-row slice at 70% among 196 tests gives 0.73, not 0.8). When
    even a slice that fails on every row falls short, the gap is ``-base_rate``. Pass ``sd`` for
    other scores (the same spread inside and out; normal approximation).

    >>> round(min_detectable_gap(200, 30, n_tests=50), 2)
    -0.37
    >>> round(min_detectable_gap(6000, 200, n_tests=196, base_rate=0.7), 3)
    -0.152
    """
    if n_slice < 1 or n_rows - n_slice < 1:
        return float("nan")
    reach = detection_z(n_tests, alpha=alpha, power=power) * math.sqrt(1 / n_slice + 1 / (n_rows - n_slice))
    if sd is not None:
        return -reach * sd
    angle = math.asin(math.sqrt(min(max(base_rate, 0.0), 1.0))) - reach / 2
    if angle <= 0:
        return -base_rate
    return -min(base_rate - math.sin(angle) ** 2 + 0.5 / n_slice, base_rate)


def detection_z(n_tests: int, *, alpha: float = 0.05, power: float = 0.8) -> float:
    """Standard errors a slice's gap must reach to be found with ``power`` at BH's first threshold
    ``alpha / n_tests`` (one-sided, normal approximation).

    >>> round(detection_z(1), 3)
    2.486
    """
    return float(ndtri(1 - alpha / max(n_tests, 1)) + ndtri(power))


def what_it_can_detect(n_rows: int, n_tested: int, min_n: int, gap_at: Callable[[int], float],
                       describe: Callable[[float], str]) -> tuple[dict[str, float], str | None]:
    """The gap a slice of ``min_n`` rows, and one of a tenth of the rows (at least ``2 * min_n``, at
    most half), must reach to be found (``gap_at(size)``), and for a run under :data:`SMALL_RUN`
    rows the sentence that says so; ``describe(gap)`` words a gap ("12 points below").

    Both searches use it: the mean-score search's ``gap_at`` is :func:`min_detectable_gap`, the
    corpus search's reads the permutation null's mean and spread at that size.

    >>> found, note = what_it_can_detect(200, 12, 30, lambda k: -3 / k ** 0.5,
    ...                                  lambda g: f"it scores about {-g:.2f} below")
    >>> found["n_slice_large"], round(found["gap_small"], 3)
    (60, -0.548)
    >>> print(note)
    A small run (200 rows, 12 slices tested): a slice of 30 rows is found only when it scores about 0.55 below the rest, one of 60 rows when it scores about 0.39 below the rest (80% power); smaller failures cannot be told from chance here.
    """
    tenth = min(max(2 * min_n, n_rows // 10), n_rows // 2)
    small, large = gap_at(min_n), gap_at(tenth)
    detectable = {"n_slice_small": min_n, "gap_small": small, "n_slice_large": tenth, "gap_large": large}
    if n_rows >= SMALL_RUN:
        return detectable, None
    return detectable, (f"A small run ({n_rows:,} rows, {n_tested:,} slices tested): a slice of {min_n} rows is found "
                        f"only when {describe(small)} the rest, one of {tenth} rows when {describe(large)} the rest "
                        "(80% power); smaller failures cannot be told from chance here.")


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


def discovery_half(n_rows: int, codes: np.ndarray | None, rng: np.random.Generator) -> np.ndarray:
    """The rows of a random half of the units (whole clusters with ``codes``, else rows): the half
    slices are discovered on; the other half confirms them."""
    unit = codes if codes is not None else np.arange(n_rows)
    units = np.unique(unit)
    first = np.zeros(len(units), dtype=bool)
    first[rng.permutation(len(units))[: len(units) // 2]] = True
    return first[np.searchsorted(units, unit)]
