"""From per-example rows to the figures a report shows: score per split with its interval, gap to i.i.d.

The reference split is the i.i.d. one (method ``random``) unless the caller names another. The gap
is ``reference score - split score``: how many points the model loses off the i.i.d. test part.
When the two parts hold the same examples the gap is a paired difference; otherwise the two
samples are compared as independent samples.

Intervals and tests come from :mod:`gengap.analysis.intervals` and are named in the table: ``score_method``
("clopper-pearson" for 0/1 scores, "percentile" bootstrap otherwise), ``gap_method`` and
``gap_test`` (exact McNemar or sign-flip for paired gaps, Fisher's exact or Welch for independent
ones). ``gap_p_adjusted`` adjusts every gap of a model (all splits x metrics) at once, with Holm's
method by default (``adjust="bh"``: Benjamini-Hochberg). ``warning`` says when a figure rests on
too few examples to tell.

With ``cluster`` (a metadata column: the passage, document or source the rows share) every interval
and test of a mean score is the clustered one of :mod:`gengap.analysis.clustered`, and ``n_clusters`` and
``design_effect`` say how many clusters the rows fall into and what that costs. ``gap_detectable``
is the smallest gap the comparison had 80% power to detect at the 5% level
(:func:`gengap.analysis.power.detectable_gap`): what a gap that is not significant can still rule out.

A corpus metric (``auroc``, ``macro_f1``, ``ece``, ...: :mod:`gengap.metrics_corpus`) is computed
from every row of a part by :func:`gengap.analysis.corpus.corpus_score`, with its own interval
(DeLong for AUROC, bootstraps for the others) and gap test (paired DeLong, or a bootstrap); its
p-values join the same adjustment. The gap is always how much worse the split is: for losses and
errors (``brier``, ``log_loss``, ``ece``, ``aurc``) it is ``split - reference``. Where it cannot be
computed (one class only, no confidences, 3 rows), the score is empty and ``warning`` says why; the
rest of the table is unaffected. With ``cluster``, a corpus metric's interval and gap resample whole
clusters (``bootstrap-clusters``; AUROC too, instead of DeLong).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from gengap._errors import DataError
from gengap.analysis.clustered import cluster_ids, clustered_mean_ci, clustered_paired_test, clustered_two_sample_test
from gengap.analysis.corpus import corpus_gap, corpus_score
from gengap.analysis.intervals import MIN_BOOTSTRAP_N, PairedTest, adjust_pvalues
from gengap.analysis.power import detectable_gap
from gengap.analysis.samples import default_cluster
from gengap.metrics import get_metric, is_corpus_metric

__all__ = ["summarize", "find_reference", "SUMMARY_COLUMNS"]

#: Columns of the summary table, in order (the ``summary`` records of results.json use the same names).
SUMMARY_COLUMNS = [
    "model", "split", "method", "metric", "n", "score", "score_low", "score_high",
    "reference", "gap", "gap_low", "gap_high", "gap_paired", "unextracted",
    "score_method", "gap_method", "gap_test", "gap_p", "gap_p_adjusted", "adjustment", "warning",
    "cluster", "n_clusters", "design_effect", "gap_detectable",
]


def find_reference(split_info: Mapping[str, Mapping[str, Any]], reference: str | None = None) -> str | None:
    """The split every gap is measured from: the one named, else the first i.i.d. (random) split."""
    if reference is not None:
        return reference
    return next((name for name, info in split_info.items() if info.get("method") == "random"), None)


def summarize(
    rows: pd.DataFrame,
    split_info: Mapping[str, Mapping[str, Any]],
    *,
    reference: str | None = None,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int = 0,
    adjust: str = "holm",
    cluster: str | None = None,
) -> pd.DataFrame:
    """One row per (model, split, metric) of the clean (unperturbed) rows, in split order.

    ``cluster`` names the column (or metadata field) whose rows are not independent of each other;
    every interval and test then accounts for it. Rows of a run that asked each example several times
    (``samples``) are clustered by ``item`` (the example) when no cluster is named
    (:func:`gengap.analysis.samples.default_cluster`).

    ``unextracted`` is the share of outputs whose answer could not be read (None without extraction);
    those rows score 0 and are counted here so a reader sees them apart from wrong answers.

    >>> rows = pd.DataFrame({"model": "m", "split": ["random"] * 4 + ["length"] * 4, "perturbation": "none",
    ...     "example_id": list("abcdefgh"), "metric": "exact_match", "score": [1, 1, 1, 0, 0, 0, 1, 0]})
    >>> info = {"random": {"method": "random"}, "length": {"method": "length"}}
    >>> summarize(rows, info)[["split", "score", "gap"]].values.tolist()
    [['random', 0.75, 0.0], ['length', 0.25, 0.5]]
    """
    clean = rows[rows["perturbation"] == "none"] if "perturbation" in rows else rows
    cluster = default_cluster(rows, cluster)
    if cluster is not None:
        clean = clean.assign(_cluster=pd.factorize(cluster_ids(clean, cluster, where="the run's rows"))[0])
        if clean["_cluster"].nunique() < 2:
            raise DataError(f"Every row is in one cluster of '{cluster}' ({clean['_cluster'].iloc[0]!r}): intervals need "
                            "at least two clusters to see how clusters vary. Name a finer cluster column, or none.")
    ref = find_reference(split_info, reference)
    order = {name: i for i, name in enumerate(split_info)}
    records = []
    for (model, metric), group in clean.groupby(["model", "metric"], sort=True):
        by_split = {s: g for s, g in group.groupby("split", sort=False)}  # noqa: C416  (dict(groupby) would call its .keys)
        ref_rows = by_split.get(ref) if ref else None
        corpus = is_corpus_metric(str(metric))
        lower_is_better = corpus and not getattr(get_metric(str(metric)), "higher_is_better", True)
        for split in sorted(by_split, key=lambda s: order.get(s, len(order))):
            g = by_split[split]
            record = {
                "model": model, "split": split, "method": split_info.get(split, {}).get("method", ""),
                "metric": metric, "n": len(g), "score": None, "score_low": None, "score_high": None,
                "reference": ref, "gap": None, "gap_low": None, "gap_high": None, "gap_paired": None,
                "unextracted": _unextracted_share(g), "score_method": None, "gap_method": None,
                "gap_test": None, "gap_p": None, "gap_p_adjusted": None, "adjustment": None, "warning": "",
                "cluster": cluster, "n_clusters": None, "design_effect": None, "gap_detectable": None,
            }
            if corpus:  # a figure of the whole part: computed from every row, or a message saying why not
                try:
                    ci = corpus_score(str(metric), g, confidence=confidence, n_resamples=n_resamples, seed=seed,
                                      clusters=_clusters_of(g))
                except DataError as why:
                    record["warning"] = str(why)
                    records.append(record)
                    continue
                warning = ci.warning
                if _clusters_of(g) is not None:
                    record.update(n_clusters=int(g["_cluster"].nunique()))
            else:
                ci = clustered_mean_ci(g["score"].to_numpy(dtype=np.float64), _clusters_of(g), confidence=confidence,
                                       n_resamples=n_resamples, seed=seed)
                warning = ci.warning or (f"n = {ci.n}: too few to tell (the interval is exact, and wide)"
                                         if ci.n < MIN_BOOTSTRAP_N else "")
                if cluster is not None and _clusters_of(g) is None:
                    warning = (f"1 cluster of '{cluster}': too few to tell (the interval takes its rows as independent, "
                               "so it is too narrow)")
                record.update(n_clusters=ci.n_clusters, design_effect=ci.design_effect)
            record.update(n=ci.n, score=ci.estimate, score_low=ci.low, score_high=ci.high, score_method=ci.method,
                          warning=warning)
            if ref_rows is not None and split != ref and corpus:
                try:
                    paired = _same_examples(ref_rows, g)
                    first, second = (g, ref_rows) if lower_is_better else (ref_rows, g)  # the gap: how much worse
                    test = corpus_gap(str(metric), first, second, paired=paired, confidence=confidence,
                                      n_resamples=n_resamples, seed=seed, clusters=_clusters_of(first),
                                      clusters_b=_clusters_of(second))
                except DataError as why:  # the reference part has no figure: no gap either
                    record["warning"] = "; ".join(filter(None, [warning, f"no gap: the reference split {ref}: {why}"]))
                else:
                    e_ = test.effect
                    record.update(gap=e_.estimate, gap_low=e_.low, gap_high=e_.high, gap_paired=paired,
                                  gap_method=e_.method, gap_test=test.test, gap_p=test.p_value,
                                  warning=warning or e_.warning,
                                  gap_detectable=detectable_gap(e_.low, e_.high, confidence=confidence))
            elif ref_rows is not None and split != ref:
                test, paired = _gap(ref_rows, g, confidence, n_resamples, seed)
                e = test.effect
                if cluster is not None and (_clusters_of(ref_rows) is None or _clusters_of(g) is None) and not warning:
                    warning = (f"1 cluster of '{cluster}' on one side: too few to tell (the gap takes its rows as "
                               "independent, so its interval is too narrow)")
                record.update(gap=e.estimate, gap_low=e.low, gap_high=e.high, gap_paired=paired, gap_method=e.method,
                              gap_test=test.test, gap_p=test.p_value, warning=warning or e.warning,
                              gap_detectable=detectable_gap(e.low, e.high, confidence=confidence))
            elif ref_rows is not None:
                record.update(gap=0.0, gap_low=0.0, gap_high=0.0, gap_paired=True)
            records.append(record)
    out = pd.DataFrame.from_records(records, columns=SUMMARY_COLUMNS)
    if len(out):
        for _, idx in out.groupby("model").groups.items():
            has = [i for i in idx if out.at[i, "gap_p"] is not None and not pd.isna(out.at[i, "gap_p"])]
            if has:
                out.loc[has, "gap_p_adjusted"] = adjust_pvalues(out.loc[has, "gap_p"].astype(float), adjust)
                out.loc[has, "adjustment"] = adjust
    return out


def _unextracted_share(rows: pd.DataFrame) -> float | None:
    """Share of outputs with no readable answer, or None when the run did not extract answers."""
    if "unextracted" not in rows or rows["unextracted"].isna().all():
        return None
    return float(rows["unextracted"].fillna(False).astype(bool).mean())


def _clusters_of(rows: pd.DataFrame) -> np.ndarray | None:
    """The rows' cluster ids; None when unclustered, or when they are all one cluster (nothing to see
    the clusters vary by: the summary warns)."""
    if "_cluster" not in rows:
        return None
    ids = rows["_cluster"].to_numpy()
    return ids if len(ids) and (ids != ids[0]).any() else None
def _same_examples(ref: pd.DataFrame, other: pd.DataFrame) -> bool:
    return ref is other or (len(ref) == len(other) and set(ref["example_id"]) == set(other["example_id"]))


def _gap(ref: pd.DataFrame, other: pd.DataFrame, confidence: float, n_resamples: int, seed: int) -> tuple[PairedTest, bool]:
    if _same_examples(ref, other):
        a = ref.set_index("example_id")["score"]
        b = other.set_index("example_id")["score"].reindex(a.index)
        return clustered_paired_test(a.to_numpy(), b.to_numpy(), _clusters_of(ref), confidence=confidence,
                                     n_resamples=n_resamples, seed=seed), True
    return clustered_two_sample_test(ref["score"].to_numpy(), other["score"].to_numpy(), _clusters_of(ref),
                                     _clusters_of(other), confidence=confidence, n_resamples=n_resamples, seed=seed), False
