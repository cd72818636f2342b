"""The analysis stage: statistics computed from the per-example rows (intervals, gaps, groups, shift, transfer, seeds, IRT).

============================  =====================================================================
module                        what it answers
============================  =====================================================================
``analysis.intervals``        intervals (exact for 0/1, bootstrap otherwise), paired tests, adjusted p-values
``analysis.clustered``        the same intervals and tests for rows in clusters (passages, items, samples)
``analysis.power``            how many examples a gap needs; the smallest gap a run could detect
``analysis.pilot``            from a pilot run: per comparison, the smallest detectable gap and the n a gap needs
``analysis.samples``          k samples per item: pass@k, maj@k, agreement, sampling noise against item spread
``analysis.gaps``             score per split with its interval and the gap to the i.i.d. split
``analysis.group_scores``     groups from metadata; per-group scores, worst group, disparity
``analysis.shift_tests``      is there a shift at all? classifier and MMD two-sample tests
``analysis.transfer``         trained on each group, tested on every group (from a run's transfer splits)
``analysis.ranking``          do splits agree on which model is best? what does a tuning budget buy?
``analysis.seed_spread``      the spread of in- and out-of-distribution scores over seeds
``analysis.irt``              item difficulty and model ability (1PL / 2PL)
``analysis.stress``           how much each perturbation moves the score (paired with the clean run)
``analysis.measures``         how well training-time measures rank runs by their gap
``analysis.leakage``          is the test set clean? copies of training examples, corpus overlap
``analysis.corpus``           corpus metrics (AUROC, F1, ECE, ...): interval, gap, per bin with break point
``analysis.resample``         bootstrap weights over rows or clusters, jackknife, BCa bounds
============================  =====================================================================

Names load on first use, so importing one module does not import the others (scikit-learn, say).

>>> from gengap.analysis import bootstrap_ci
>>> bootstrap_ci([1, 0, 1, 1], seed=0).n
4
"""

from __future__ import annotations

import importlib
from typing import Any

_HOME = {
    "Interval": "intervals", "bootstrap_ci": "intervals", "bootstrap_means": "intervals", "gap": "intervals",
    "paired_difference": "intervals", "mean_ci": "intervals", "proportion_ci": "intervals",
    "paired_proportion_ci": "intervals", "newcombe_ci": "intervals", "PairedTest": "intervals",
    "paired_test": "intervals", "two_sample_test": "intervals", "adjust_pvalues": "intervals",
    "cluster_design": "clustered", "clustered_mean_ci": "clustered", "clustered_gap": "clustered",
    "clustered_paired_difference": "clustered", "clustered_paired_test": "clustered",
    "clustered_two_sample_test": "clustered", "ClusterDesign": "clustered",
    "n_for_gap": "power", "plan": "power", "detectable_gap": "power", "pilot_plan": "pilot",
    "pass_at_k": "samples", "sample_summary": "samples",
    "SUMMARY_COLUMNS": "gaps", "summarize": "gaps", "find_reference": "gaps",
    "Groups": "group_scores", "group_by": "group_scores", "group_metrics": "group_scores", "expand_metadata": "group_scores",
    "ShiftTest": "shift_tests", "classifier_test": "shift_tests", "detect_shift": "shift_tests", "mmd_test": "shift_tests",
    "TransferMatrix": "transfer", "transfer_matrix_from_rows": "transfer",
    "RankAgreement": "ranking", "rank_agreement": "ranking", "expected_max_score": "ranking",
    "SeedSpread": "seed_spread", "spread_from_scores": "seed_spread", "seeded_splits": "seed_spread",
    "seed_spread_from_rows": "seed_spread",
    "IRTFit": "irt", "fit_irt": "irt", "irt_from_store": "irt",
    "perturbation_effects": "stress", "worst_case": "stress", "family_split_table": "stress", "template_spread": "stress",
    "Curve": "curves", "score_curve": "curves", "curve_from_rows": "curves",
    "Valley": "valley", "generalization_valley": "valley", "valleys_from_rows": "valley",
    "rank_correlation": "measures", "runs_table": "measures",
    "LeakageAudit": "leakage", "audit_leakage": "leakage", "leakage_scores": "leakage",
}

__all__ = sorted(_HOME)


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module 'gengap.analysis' has no attribute '{name}'")
    value = getattr(importlib.import_module(f"gengap.analysis.{_HOME[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
