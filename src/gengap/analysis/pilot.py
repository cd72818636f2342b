"""After a pilot run: per comparison, the smallest gap it could detect and the examples a given gap needs.

Every comparison the summary makes (each split against the reference, per model and metric) has an
interval for its gap, computed the way gengap computes it for that design: paired or independent,
0/1 or continuous scores, clustered or not. Its standard error is read off that interval, so the
pilot's own discordance, spread and design effect are all in it. The smallest detectable gap at
80% power and the 5% level is ``(z_{0.975} + z_{0.8}) * SE``; the standard error shrinks as one over
the root of n, so a gap of ``g`` needs ``n * (detectable / g)^2`` examples (with clusters: that
many clusters' worth, at the pilot's cluster sizes).

>>> import pandas as pd
>>> rows = pd.DataFrame({"model": "m", "metric": "em", "perturbation": "none", "example_id": [f"e{i}" for i in range(400)],
...     "split": ["random"] * 200 + ["length"] * 200, "score": [1, 0] * 100 + [1, 0, 0, 1] * 50})
>>> info = {"random": {"method": "random"}, "length": {"method": "length"}}
>>> t = pilot_plan(rows, info, gap=0.10)
>>> t[["split", "n", "n_needed"]].values.tolist()
[['length', 200, 416]]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from gengap._errors import ConfigError, DataError
from gengap.analysis.gaps import summarize
from gengap.analysis.power import detectable_gap, n_needed

__all__ = ["pilot_plan", "PILOT_COLUMNS"]

#: Columns of :func:`pilot_plan`'s table.
PILOT_COLUMNS = ["comparison", "model", "metric", "split", "reference", "paired", "n", "n_clusters", "design_effect", "gap", "gap_low",
                 "gap_high", "p_value", "detectable", "asked_gap", "n_needed", "n_clusters_needed"]


def pilot_plan(rows: pd.DataFrame, split_info: Mapping[str, Mapping[str, Any]], *, gap: float, power: float = 0.8,
               alpha: float = 0.05, reference: str | None = None, cluster: str | None = None,
               n_resamples: int = 2000, seed: int = 0) -> pd.DataFrame:
    """One row per comparison of a finished run: its gap and interval, the smallest gap it could
    detect (``detectable``) and the examples (``n_needed``; with clusters also ``n_clusters_needed``)
    each split needs for ``power`` to detect a gap of ``gap`` (a rate: 0.03 is 3 points).

    ``comparison`` is ``"split"`` (a split against the reference split, one model) or ``"models"`` (two
    models on the same examples of one split: ``model`` minus ``reference``, a paired difference whose
    discordance is the run's own)."""
    if not 0 < gap < 1:
        raise ConfigError(f"gap={gap!r} must be a positive share below 1 (3 points: 0.03; --gap 3 on the command line).")
    summary = summarize(rows, split_info, reference=reference, cluster=cluster, n_resamples=n_resamples, seed=seed)
    compared = summary[summary["gap_p"].notna() & (summary["split"] != summary["reference"])]
    if compared.empty and rows["model"].nunique() < 2:
        raise DataError("The run has no gap to plan from: it needs a reference split (a random split, or reference=) "
                        "and at least one other split, or two models.")
    records = []
    for r in compared.itertuples():
        detectable = detectable_gap(float(r.gap_low), float(r.gap_high), power=power, alpha=alpha)
        needed = n_needed(int(r.n), detectable, gap)
        clusters = None if pd.isna(r.n_clusters) else int(r.n_clusters)
        records.append({"comparison": "split", "model": r.model, "metric": r.metric, "split": r.split, "reference": r.reference,
                        "paired": bool(r.gap_paired), "n": int(r.n), "n_clusters": clusters,
                        "design_effect": None if pd.isna(r.design_effect) else float(r.design_effect),
                        "gap": float(r.gap), "gap_low": float(r.gap_low), "gap_high": float(r.gap_high),
                        "p_value": float(r.gap_p), "detectable": detectable, "asked_gap": gap, "n_needed": needed,
                        "n_clusters_needed": None if clusters is None else n_needed(clusters, detectable, gap)})
    records += _model_pairs(rows, gap=gap, power=power, alpha=alpha, cluster=cluster, n_resamples=n_resamples, seed=seed)
    out = pd.DataFrame.from_records(records, columns=PILOT_COLUMNS)
    return out.replace({np.nan: None}) if out.isna().any().any() else out


def _model_pairs(rows: pd.DataFrame, *, gap: float, power: float, alpha: float, cluster: str | None, n_resamples: int,
                 seed: int) -> list[dict[str, Any]]:
    """Every pair of models on the same clean examples of a split: the paired difference and what it can detect."""
    from gengap.analysis.clustered import cluster_ids, clustered_paired_test

    clean = rows[rows["perturbation"] == "none"] if "perturbation" in rows else rows
    models = sorted(set(clean["model"]))
    out: list[dict[str, Any]] = []
    if len(models) < 2:
        return out
    for (split, metric), g in clean.groupby(["split", "metric"], sort=True):
        wide = g.pivot_table(index="example_id", columns="model", values="score", aggfunc="first")
        ids = None
        if cluster is not None:
            first = g.drop_duplicates("example_id").set_index("example_id")
            ids = pd.Series(cluster_ids(first, cluster, where=f"split '{split}'"), index=first.index)
        for i, a in enumerate(models):
            for b in models[i + 1:]:
                if a not in wide or b not in wide:
                    continue
                both = wide[[a, b]].dropna()
                if len(both) < 2:
                    continue
                cl = None if ids is None else ids.reindex(both.index).to_numpy()
                if cl is not None and len(set(cl)) < 2:
                    cl = None
                test = clustered_paired_test(both[a].to_numpy(), both[b].to_numpy(), cl, n_resamples=n_resamples, seed=seed)
                e = test.effect
                detectable = detectable_gap(e.low, e.high, power=power, alpha=alpha)
                out.append({"comparison": "models", "model": a, "metric": metric, "split": split, "reference": b,
                            "paired": True, "n": len(both), "n_clusters": e.n_clusters, "design_effect": e.design_effect,
                            "gap": e.estimate, "gap_low": e.low, "gap_high": e.high, "p_value": test.p_value,
                            "detectable": detectable, "asked_gap": gap, "n_needed": n_needed(len(both), detectable, gap),
                            "n_clusters_needed": None if e.n_clusters is None else n_needed(e.n_clusters, detectable, gap)})
    return out
