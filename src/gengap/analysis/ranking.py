"""Do splits agree on which model is best? And what does a tuning budget buy?

- :func:`rank_agreement`: Kendall's tau between the model rankings each split gives, and whether
  the in-distribution ranking predicts each out-of-distribution ranking ("The Validity of
  Evaluation Results"; "Out of Distribution, Out of Luck"). From per-example rows the interval of
  each tau comes from resampling each split's examples (the same draw for every model).
- :func:`expected_max_score`: expected best validation score among ``n`` hyperparameter trials, as
  a function of the budget ``n`` (Dodge et al. 2019), with the unbiased estimator of "Showing Your
  Work Doesn't Always Work" (Tang et al. 2020) and bootstrap intervals.

>>> table = pd.DataFrame({"random": [0.9, 0.8, 0.7], "length": [0.1, 0.3, 0.2]}, index=["a", "b", "c"])
>>> rank_agreement(table).versus_reference[["split", "tau"]].round(3).values.tolist()
[['length', -0.333]]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as sps
from scipy.special import gammaln

from gengap._errors import ConfigError, DataError
from gengap._random import check_random_state

__all__ = ["RankAgreement", "rank_agreement", "expected_max_score"]


@dataclass(frozen=True)
class RankAgreement:
    """Kendall's tau between the model rankings of every pair of splits.

    Attributes
    ----------
    scores : models x splits mean scores.
    tau, p_value : splits x splits Kendall's tau-b and its two-sided p-value.
    reference : the in-distribution split.
    versus_reference : per other split: ``tau``, ``p_value``, ``tau_low``, ``tau_high`` (NaN without
        per-example rows), ``same_best`` (does the reference's best model win there too?).
    """

    scores: pd.DataFrame
    tau: pd.DataFrame
    p_value: pd.DataFrame
    reference: str
    versus_reference: pd.DataFrame


def _kendall(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan"), float("nan")
    res = sps.kendalltau(x, y)
    return float(res.statistic), float(res.pvalue)


def _wide(rows: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, pd.DataFrame] | None]:
    if {"model", "split", "score"} <= set(rows.columns):
        frame = rows[rows["perturbation"] == "none"] if "perturbation" in rows else rows
        if "metric" in frame and frame["metric"].nunique() > 1:
            raise ConfigError(f"The rows hold several metrics {sorted(frame['metric'].unique())}; filter to one first.")
        means = frame.pivot_table(index="model", columns="split", values="score", aggfunc="mean", sort=False)
        per_split = None
        if "example_id" in frame:
            per_split = {s: g.pivot_table(index="model", columns="example_id", values="score", aggfunc="mean")
                         for s, g in frame.groupby("split", sort=False)}
        return means, per_split
    return rows.astype(np.float64), None


def rank_agreement(
    scores: pd.DataFrame,
    *,
    reference: str | None = None,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    seed: int | np.random.Generator | None = 0,
) -> RankAgreement:
    """Kendall's tau between the rankings of models that each split gives.

    Parameters
    ----------
    scores : a models x splits table of scores, or per-example rows (columns ``model``, ``split``,
        ``example_id``, ``score``; e.g. ``Evaluation.rows()`` for one metric).
    reference : the in-distribution split (default ``"random"`` if present, else the first column).
    confidence, n_resamples, seed : intervals of tau from resampling examples (rows input only).
    """
    wide, per_split = _wide(scores)
    if wide.shape[0] < 3:
        raise DataError(f"Ranking agreement needs at least 3 models; got {list(wide.index)}.")
    if wide.shape[1] < 2:
        raise DataError(f"Ranking agreement needs at least 2 splits; got {list(wide.columns)}.")
    if wide.isna().any().any():
        missing = wide.columns[wide.isna().any()].tolist()
        raise DataError(f"Some models have no score on split(s) {missing}; every model needs every split.")
    splits = list(wide.columns)
    reference = reference if reference is not None else ("random" if "random" in splits else splits[0])
    if reference not in splits:
        raise ConfigError(f"reference={reference!r} is not one of the splits {splits}.")
    tau = pd.DataFrame(np.eye(len(splits)), index=splits, columns=splits)
    pval = pd.DataFrame(np.zeros((len(splits), len(splits))), index=splits, columns=splits)
    for i, a in enumerate(splits):
        for b in splits[i + 1:]:
            t, p = _kendall(wide[a].to_numpy(), wide[b].to_numpy())
            tau.loc[a, b] = tau.loc[b, a] = t
            pval.loc[a, b] = pval.loc[b, a] = p
    rng = check_random_state(seed)
    boot_means: dict[str, np.ndarray] | None = None
    if per_split is not None:
        boot_means = {}
        for split, matrix in per_split.items():
            values = matrix.reindex(wide.index).to_numpy(dtype=np.float64)
            if np.isnan(values).any():
                boot_means = None  # models scored different examples: no paired resampling
                break
            idx = rng.integers(0, values.shape[1], size=(n_resamples, values.shape[1]))
            boot_means[split] = np.stack([values[:, row].mean(axis=1) for row in idx])
    best_ref = wide[reference].idxmax()
    records = []
    alpha = (1 - confidence) / 2
    for split in splits:
        if split == reference:
            continue
        low = high = float("nan")
        if boot_means is not None:
            taus = np.array([_kendall(boot_means[reference][r], boot_means[split][r])[0] for r in range(n_resamples)])
            taus = taus[~np.isnan(taus)]
            if taus.size:
                low, high = (float(q) for q in np.quantile(taus, [alpha, 1 - alpha]))
        records.append({"split": split, "tau": tau.loc[reference, split], "p_value": pval.loc[reference, split],
                        "tau_low": low, "tau_high": high, "same_best": bool(wide[split].idxmax() == best_ref)})
    return RankAgreement(scores=wide, tau=tau, p_value=pval, reference=reference,
                         versus_reference=pd.DataFrame.from_records(records, columns=["split", "tau", "p_value", "tau_low", "tau_high", "same_best"]))


def _max_weights(n_trials: int, budget: int) -> np.ndarray:
    """Weights w_i of the i-th smallest of N trials in the U-statistic of E[max of `budget` draws]."""
    i = np.arange(1, n_trials + 1)
    w = np.zeros(n_trials)
    ok = i >= budget
    log_num = gammaln(i[ok]) - gammaln(budget) - gammaln(i[ok] - budget + 1)
    log_den = gammaln(n_trials + 1) - gammaln(budget + 1) - gammaln(n_trials - budget + 1)
    w[ok] = np.exp(log_num - log_den)
    return w


def expected_max_score(
    scores: Sequence[float] | np.ndarray,
    budgets: Sequence[int] | None = None,
    *,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    seed: int | np.random.Generator | None = 0,
) -> pd.DataFrame:
    """Expected best validation score among ``n`` random hyperparameter trials, for each budget ``n``.

    Parameters
    ----------
    scores : array-like of shape (n_trials,), the validation score of each trial run.
    budgets : the budgets n (default 1 ... n_trials).

    Returns
    -------
    DataFrame with ``budget``, ``estimate`` (unbiased: the mean of the maximum over every subset
    of ``n`` distinct trials), ``dodge`` (Dodge et al.'s estimate, which draws trials with
    replacement and so repeats them: biased low for ``n > 1``), ``low``, ``high`` (percentile
    bootstrap over trials) and ``reliable``.

    Notes
    -----
    With N trials, ``estimate(n) = sum_i v_(i) C(i-1, n-1) / C(N, n)`` over the sorted scores
    ``v_(1) <= ... <= v_(N)``, a U-statistic and so unbiased for the expected maximum of ``n``
    draws. Near ``n = N`` it rests on the few best trials and the bootstrap interval is too narrow;
    ``reliable`` is False when ``n > N / 2``: report those budgets as indicative only.

    >>> table = expected_max_score([0.1, 0.5, 0.3, 0.9], n_resamples=200)
    >>> table["estimate"].round(3).tolist()
    [0.45, 0.667, 0.8, 0.9]
    """
    v = np.sort(np.asarray(scores, dtype=np.float64).ravel())
    if v.size < 2:
        raise DataError(f"expected_max_score needs at least 2 trials; got {v.size}.")
    if np.isnan(v).any():
        raise DataError("Trial scores contain NaN; drop failed trials or fill them first.")
    n_trials = v.size
    budgets = list(range(1, n_trials + 1)) if budgets is None else [int(b) for b in budgets]
    bad = [b for b in budgets if not 1 <= b <= n_trials]
    if bad:
        raise ConfigError(f"budgets {bad} are outside 1..{n_trials} (the number of trials): the unbiased estimator "
                          "cannot extrapolate past the trials run.")
    rng = check_random_state(seed)
    boot = np.sort(v[rng.integers(0, n_trials, size=(n_resamples, n_trials))], axis=1)
    alpha = (1 - confidence) / 2
    cdf = np.arange(1, n_trials + 1) / n_trials
    records = []
    for budget in budgets:
        w = _max_weights(n_trials, budget)
        dodge_w = cdf**budget - np.r_[0.0, cdf[:-1]] ** budget
        dist = boot @ w
        low, high = np.quantile(dist, [alpha, 1 - alpha])
        records.append({"budget": budget, "estimate": float(v @ w), "dodge": float(v @ dodge_w),
                        "low": float(low), "high": float(high), "reliable": budget <= n_trials / 2})
    return pd.DataFrame.from_records(records)
