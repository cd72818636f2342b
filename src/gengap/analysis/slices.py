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

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import scipy.stats

from gengap._errors import ConfigError, DataError
from gengap._random import check_random_state
from gengap.analysis._slice_core import (
    CONDITION_OPS,
    CONTROLS,
    DERIVED_FEATURES,
    MAX_VALUES,
    MIN_SLICE_N,
    N_BINS,
    SLICE_COLUMNS,
    Control,
    SliceSearch,
    _below_p,
    _Candidates,
    _check_options,
    _Clusters,
    _enumerate,
    _explain,
    _Feature,
    _features,
    _gather,
    _intervals,
    _mask,
    _mean_below,
    _Stats,
    discovery_half,
    min_detectable_gap,
    what_it_can_detect,
)
from gengap.analysis.intervals import adjust_pvalues

__all__ = ["find_slices", "slices_from_rows", "slice_table", "slice_lines", "SliceSearch", "SLICE_COLUMNS", "MIN_SLICE_N", "MAX_VALUES",
           "CONTROLS", "DERIVED_FEATURES", "min_detectable_gap", "slice_mask", "CONDITION_OPS", "conditions_mask",
           "rows_in_slice", "searchable_frame"]


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
        half = discovery_half(n_rows, codes, rng)
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
    detectable, note = what_it_can_detect(
        n, n_tested, min_n, lambda k: min_detectable_gap(n, k, n_tests=tests, alpha=alpha, base_rate=rate, sd=spread),
        (lambda g: f"it scores about {-100 * g:.0f} points below") if binary else (lambda g: f"it scores about {-g:.3g} below"))
    if note:
        notes.append(note)
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
    >>> print("\\n".join(slice_lines(slice_table(slices_from_rows(rows)))))  # doctest: +NORMALIZE_WHITESPACE
    Where it fails (slices significantly below the rest; Benjamini-Hochberg over every slice tested, 2 slices tested):
      m on random: site = b  n = 60, score 0.0% [0.0, 6.0], 100.0 pts below the rest [-100.0, -91.6], adjusted p 2.1e-35
      A small run (120 rows, 2 slices tested): a slice of 30 rows is found only when it scores about 30 points
      below the rest, one of 60 rows when it scores about 25 points below the rest (80% power); smaller failures
      cannot be told from chance here.
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
    return lines + [f"  {n}" for s in searches for n in s.get("notes", []) if n.startswith("A small run")]
