"""Stress-test statistics from per-example rows: how much each perturbation moves the score.

Every figure pairs a perturbed example with its clean self (same model, split and example id):

==================  ==========================================================================
column              meaning
==================  ==========================================================================
clean, perturbed    mean score on the paired examples, without and with the perturbation (a
                    corpus metric such as AUROC or ECE: its figure on those rows)
difference         perturbed - clean, with a paired interval (``low``, ``high``; ``interval``
                    names it: an exact-based MOVER interval for 0/1 scores, else a bootstrap;
                    corpus metrics: paired DeLong for AUROC, else a paired bootstrap). Rows are
                    ranked by harm: a drop, or for losses and errors (ECE, Brier) a rise
p_value             two-sided p-value of "no effect": exact McNemar (0/1), sign-flip otherwise
p_adjusted          ``p_value`` adjusted over every perturbation x split of a model and metric
                    (Holm by default, ``adjust="bh"`` for Benjamini-Hochberg; ``adjustment``)
significant         ``p_adjusted`` < 1 - confidence
drop_rate           (clean - perturbed) / clean: the performance drop rate (PDR)
flip_rate           share of examples whose answer changed: the extracted answers when the run
                    extracted them, else the metric's score (so free-text outputs that merely
                    reword a right answer do not count as flips; ``flip_basis`` says which).
                    After re-lettering options a kept letter can mean a different option: read
                    shuffle flips with that in mind.
worst_case          (in :func:`worst_case`) share correct on the clean item and every variant
==================  ==========================================================================

Example
-------
>>> import pandas as pd
>>> rows = pd.DataFrame({"model": "m", "split": "random", "metric": "exact_match",
...     "perturbation": ["none"] * 4 + ["typos"] * 4, "example_id": list("abcd") * 2,
...     "output": list("xxyy") + list("xzyq"), "score": [1, 1, 1, 0, 1, 0, 1, 0]})
>>> s = perturbation_effects(rows, n_resamples=200)
>>> s.loc[0, "perturbation"], [float(s.loc[0, c]) for c in ["clean", "perturbed", "difference", "flip_rate"]]
('typos', [0.75, 0.5, -0.25, 0.25])
>>> s.loc[0, "flip_basis"], s.loc[0, "interval"], float(s.loc[0, "p_value"])
('score', 'mover-paired', 1.0)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from gengap._errors import DataError
from gengap.analysis.clustered import clustered_paired_test
from gengap.analysis.corpus import corpus_gap, corpus_score
from gengap.analysis.intervals import adjust_pvalues, mean_ci
from gengap.metrics import get_metric, is_corpus_metric

__all__ = ["perturbation_effects", "worst_case", "family_split_table", "template_spread", "perturbation_family"]

CLEAN = "none"
_KEYS = ["model", "split", "metric"]


def perturbation_family(name: str, families: Mapping[str, str] | None = None) -> str:
    """The family of a perturbation name (given mapping first, then the built-in registry).

    >>> perturbation_family("typos:rate=0.1"), perturbation_family("typos+casing"), perturbation_family("template-3")
    ('noise', 'combined', 'template')
    """
    if families and name in families:
        return families[name]
    if "+" in name or name == "all":
        return "combined"
    if name.startswith("template"):
        return "template"
    from gengap.perturb._registry import make_perturbation

    try:
        return make_perturbation(name).family
    except Exception:
        return "custom"


def _families(perturbations: Sequence[Any] | Mapping[str, str] | None) -> dict[str, str]:
    if perturbations is None:
        return {}
    if isinstance(perturbations, Mapping):
        return dict(perturbations)
    return {p.name: p.family for p in perturbations}


def _paired(rows: pd.DataFrame, metric: str | None) -> pd.DataFrame:
    need = {"perturbation", "example_id", "score", *_KEYS}
    missing = need - set(rows.columns)
    if missing:
        raise DataError(f"Stress statistics need per-example rows with {sorted(need)}; missing {sorted(missing)}. "
                        "Pass Evaluation.rows().")
    if metric is not None:
        rows = rows[rows["metric"] == metric]
        if rows.empty:
            raise DataError(f"No rows for metric '{metric}'.")
    clean = rows[rows["perturbation"] == CLEAN]
    if clean.empty:
        raise DataError("The rows have no clean ('none') variant to pair the perturbed ones with.")
    pert = rows[rows["perturbation"] != CLEAN]
    extra = [c for c in ("output", "extracted", "unextracted", "target", "confidence", "probabilities") if c in rows.columns]
    cols = [*_KEYS, "example_id", "score", *extra]
    merged = pert[[*cols, "perturbation"]].merge(clean[cols], on=[*_KEYS, "example_id"], suffixes=("", "_clean"))
    return merged


def _same_output(a: pd.Series, b: pd.Series) -> np.ndarray:
    norm = lambda s: s.astype(str).str.strip().str.lower()
    return (norm(a) == norm(b)).to_numpy()


def _flips(g: pd.DataFrame) -> tuple[float, str]:
    """Share of pairs whose answer changed, and on what: extracted answers when the run has them
    (an unreadable answer is its own value), else the metric's score."""
    if "extracted" in g and "unextracted" in g and g["unextracted"].notna().any():
        mark = "\x00unextracted"
        a = g["extracted"].where(~g["unextracted"].fillna(False).astype(bool), mark).fillna(mark)
        b = g["extracted_clean"].where(~g["unextracted_clean"].fillna(False).astype(bool), mark).fillna(mark)
        return 1.0 - float(_same_output(a, b).mean()), "extracted"
    return float(np.mean(g["score"].to_numpy(float) != g["score_clean"].to_numpy(float))), "score"


def perturbation_effects(rows: pd.DataFrame, *, metric: str | None = None,
                   perturbations: Sequence[Any] | Mapping[str, str] | None = None, confidence: float = 0.95,
                   n_resamples: int = 10_000, seed: int = 0, adjust: str = "holm", cluster: str | None = None) -> pd.DataFrame:
    """One row per (model, split, metric, perturbation), most harmful first (``rank`` 1).

    Each variant is paired with its own clean example, one pair per example and perturbation, so the
    variants gengap makes of one item are never counted as independent rows. ``cluster`` names a
    column (or metadata field) whose examples are not independent (questions of one passage): each
    effect's interval and test then count its clusters (:func:`gengap.analysis.clustered.clustered_paired_test`;
    ``n_clusters`` and ``design_effect`` say how many and at what cost).

    ``perturbations`` (the objects, or a ``{name: family}`` mapping) names the families of
    user-defined perturbations; built-in names are recognized on their own. Every effect is
    tested; the p-values of a model and metric (all perturbations x splits) are adjusted together
    with ``adjust`` (``"holm"`` or ``"bh"``).
    """
    fam = _families(perturbations)
    merged = _paired(rows, metric)
    if cluster is not None:
        from gengap.analysis.clustered import cluster_ids

        clean = rows[rows["perturbation"] == CLEAN].drop_duplicates("example_id")
        of_example = dict(zip(clean["example_id"], cluster_ids(clean, cluster, where="the clean rows")))
        merged["_cluster"] = merged["example_id"].map(of_example)
    records = []
    for (model, split, met, name), g in merged.groupby([*_KEYS, "perturbation"], sort=True):
        flips, basis = _flips(g)
        base = {"model": model, "split": split, "metric": met, "perturbation": name,
                "family": perturbation_family(name, fam), "n": len(g), "flip_rate": flips, "flip_basis": basis}
        ids = g["_cluster"].to_numpy() if cluster is not None else None
        if ids is not None and np.unique(ids).size < 2:
            ids = None  # one cluster: nothing to see clusters vary by; the warning says so below
        if is_corpus_metric(str(met)):  # AUROC, ECE, ...: the figure of the perturbed rows against the clean ones
            records.append({**base, **_corpus_effect(str(met), g, confidence, n_resamples, seed, ids)})
            continue
        a, b = g["score"].to_numpy(float), g["score_clean"].to_numpy(float)
        test = clustered_paired_test(a, b, ids, confidence=confidence, n_resamples=n_resamples, seed=seed)
        ci = test.effect
        clean = float(b.mean())
        records.append({**base, "clean": clean,
                        "perturbed": float(a.mean()), "difference": ci.estimate, "low": ci.low, "high": ci.high,
                        "interval": ci.method, "test": test.test, "p_value": test.p_value,
                        "drop_rate": (clean - float(a.mean())) / clean if clean > 0 else float("nan"),
                        "n_clusters": ci.n_clusters, "design_effect": ci.design_effect,
                        "warning": ci.warning or ("1 cluster: too few to tell (rows taken as independent)"
                                                  if cluster is not None and ids is None else ""), "harm": -ci.estimate})
    out = pd.DataFrame.from_records(records)
    if out.empty:
        raise DataError("The rows have no perturbed variants; run evaluate(..., perturbations=[...]).")
    out["p_adjusted"] = np.nan
    for _, idx in out.groupby(["model", "metric"]).groups.items():
        has = [i for i in idx if not pd.isna(out.at[i, "p_value"])]  # an undefined corpus figure has no test
        if has:
            out.loc[has, "p_adjusted"] = adjust_pvalues(out.loc[has, "p_value"].to_numpy(float), adjust)
    out["adjustment"] = adjust
    out["significant"] = out["p_adjusted"] < (1 - confidence)
    out = out.sort_values(["harm", "perturbation"], ascending=[False, True], kind="stable",
                          na_position="last").drop(columns="harm").reset_index(drop=True)
    out.insert(0, "rank", np.arange(1, len(out) + 1))
    return out


def _corpus_effect(metric: str, g: pd.DataFrame, confidence: float, n_resamples: int, seed: int,
                   clusters: np.ndarray | None = None) -> dict[str, Any]:
    """A corpus metric on the perturbed rows against the clean ones, paired (the same examples): the
    paired DeLong test for AUROC, a paired bootstrap otherwise; None figures and a warning when undefined."""
    cols = [c for c in ("example_id", "target", "output", "extracted", "score", "confidence", "probabilities") if c in g]
    perturbed = g[cols]
    clean = g[["example_id", *[f"{c}_clean" for c in cols if c != "example_id" and f"{c}_clean" in g]]]
    clean = clean.rename(columns=lambda c: c[:-len("_clean")] if c.endswith("_clean") else c)
    try:
        test = corpus_gap(metric, perturbed, clean, paired=True, confidence=confidence,
                          n_resamples=n_resamples, seed=seed, clusters=clusters)
        p, c = corpus_score(metric, perturbed, n_resamples=200, seed=seed), corpus_score(metric, clean, n_resamples=200,
                                                                                       seed=seed)
    except DataError as e:
        return {"clean": None, "perturbed": None, "difference": None, "low": None, "high": None, "interval": None,
                "test": None, "p_value": float("nan"), "drop_rate": float("nan"), "warning": str(e), "harm": float("nan")}
    e_ = test.effect
    lower_better = not getattr(get_metric(metric), "higher_is_better", True)
    return {"clean": c.estimate, "perturbed": p.estimate, "difference": e_.estimate, "low": e_.low, "high": e_.high,
            "interval": e_.method, "test": test.test, "p_value": test.p_value,
            "drop_rate": (c.estimate - p.estimate) / c.estimate if c.estimate and not lower_better else float("nan"),
            "warning": e_.warning, "harm": e_.estimate if lower_better else -e_.estimate}


def worst_case(rows: pd.DataFrame, *, metric: str | None = None, by: str = "family",
               perturbations: Sequence[Any] | Mapping[str, str] | None = None, confidence: float = 0.95,
               n_resamples: int = 10_000, seed: int = 0) -> pd.DataFrame:
    """Share of examples scored correct on the clean item *and* every variant of a family (``by="family"``)
    or of all perturbations together (``by="all"``), next to the clean score.

    >>> import pandas as pd
    >>> rows = pd.DataFrame({"model": "m", "split": "s", "metric": "em", "example_id": ["a", "b"] * 3,
    ...     "perturbation": ["none"] * 2 + ["typos"] * 2 + ["casing"] * 2, "score": [1, 1, 1, 0, 0, 1]})
    >>> worst_case(rows, by="all", n_resamples=100)[["clean", "worst_case"]].values.tolist()
    [[1.0, 0.0]]
    """
    fam = _families(perturbations)
    merged = _paired(rows, metric)
    merged["group"] = "all" if by == "all" else merged["perturbation"].map(lambda n: perturbation_family(n, fam))
    records = []
    for (model, split, met, group), g in merged.groupby([*_KEYS, "group"], sort=True):
        per = g.groupby("example_id").agg(worst=("score", "min"), clean=("score_clean", "first"))
        worst = np.minimum(per["worst"].to_numpy(float), per["clean"].to_numpy(float))
        ci = mean_ci(worst, confidence=confidence, n_resamples=n_resamples, seed=seed)
        records.append({"model": model, "split": split, "metric": met, by: group, "n": len(per),
                        "variants": g["perturbation"].nunique(), "clean": float(per["clean"].mean()),
                        "worst_case": ci.estimate, "low": ci.low, "high": ci.high, "interval": ci.method})
    return pd.DataFrame.from_records(records)


def family_split_table(summary: pd.DataFrame, *, value: str = "difference") -> pd.DataFrame:
    """Family x split table of the mean ``value`` over a family's perturbations (the report's heatmap).

    >>> s = pd.DataFrame({"family": ["noise", "noise", "format"], "split": ["a", "b", "a"], "difference": [-.2, -.4, 0.]})
    >>> family_split_table(s).loc["noise"].tolist()
    [-0.2, -0.4]
    """
    return summary.pivot_table(index="family", columns="split", values=value, aggfunc="mean").sort_index()


def template_spread(summary: pd.DataFrame) -> pd.DataFrame:
    """Per (model, split): the best and worst prompt template and the spread of their scores."""
    t = summary[summary["family"] == "template"]
    if t.empty:
        return pd.DataFrame(columns=["model", "split", "metric", "n_templates", "best", "best_score", "worst",
                                     "worst_score", "spread"])
    records = []
    for (model, split, met), g in t.groupby(_KEYS):
        hi, lo = g.loc[g["perturbed"].idxmax()], g.loc[g["perturbed"].idxmin()]
        records.append({"model": model, "split": split, "metric": met, "n_templates": len(g),
                        "best": hi["perturbation"], "best_score": hi["perturbed"], "worst": lo["perturbation"],
                        "worst_score": lo["perturbed"], "spread": hi["perturbed"] - lo["perturbed"]})
    return pd.DataFrame.from_records(records)
