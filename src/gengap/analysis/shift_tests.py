"""Is there a shift at all? Two-sample tests between the train and test parts, on inputs and labels.

- :func:`classifier_test` (a classifier two-sample test): a logistic regression learns to tell the
  two samples apart from their features (TF-IDF for text, standardized numbers for numeric
  records), trained on half of the examples; its AUC on the other half is 0.5 when the samples
  come from one distribution. The one-sided p-value is the Mann-Whitney test of the held-out
  scores (exact given the trained model), the interval DeLong's. Cross-validated AUCs pooled or
  combined over folds look more powerful but raise false alarms above the nominal level (folds
  share training data), so gengap keeps one held-out half.
- :func:`mmd_test`: the maximum mean discrepancy with a Gaussian kernel (median-distance
  bandwidth) and a permutation p-value, exact at any sample size.
- :func:`detect_shift`: both tests on the inputs and on the labels of a :class:`~gengap.Split`
  (or of two datasets), as one table.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> same = classifier_test(rng.normal(size=(200, 3)).tolist(), rng.normal(size=(200, 3)).tolist())
>>> moved = classifier_test(rng.normal(size=(200, 3)).tolist(), (rng.normal(size=(200, 3)) + 1).tolist())
>>> same.p_value > 0.05, moved.p_value < 0.001, moved.estimate > 0.8
(True, True, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from gengap._errors import ConfigError, DataError
from gengap._random import check_random_state
from gengap.splits.clusters import embed

__all__ = ["ShiftTest", "classifier_test", "mmd_test", "detect_shift", "SHIFT_COLUMNS"]

#: Columns of the :func:`detect_shift` table, in order.
SHIFT_COLUMNS = ["on", "test", "statistic", "estimate", "low", "high", "p_value", "shift", "n_a", "n_b"]


@dataclass(frozen=True)
class ShiftTest:
    """The outcome of a two-sample test.

    Attributes
    ----------
    test : "classifier" or "mmd".
    statistic : what ``estimate`` is ("auc" or "mmd2").
    estimate : the statistic on the data.
    low, high : a confidence interval (DeLong's for the AUC; NaN for the MMD).
    p_value : the probability of a statistic at least this large with no shift.
    n_a, n_b : the sizes of the two samples tested.
    """

    test: str
    statistic: str
    estimate: float
    low: float
    high: float
    p_value: float
    n_a: int
    n_b: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _check_samples(a: Sequence[Any], b: Sequence[Any], minimum: int = 5) -> tuple[list[Any], list[Any]]:
    a, b = list(a), list(b)
    if len(a) < minimum or len(b) < minimum:
        raise DataError(f"A two-sample test needs at least {minimum} examples per sample; got {len(a)} and {len(b)}.")
    return a, b


def _features(values: list[Any], *, dense: bool, seed: int | None) -> Any:
    return embed(values, n_components=50 if dense else None, seed=seed)


def _all_rows_equal(x: Any) -> bool:
    return bool(np.all(np.asarray(x.max(axis=0).todense() if hasattr(x, "todense") else x.max(axis=0))
                       == np.asarray(x.min(axis=0).todense() if hasattr(x, "todense") else x.min(axis=0))))


def _mann_whitney_z(pos: np.ndarray, neg: np.ndarray) -> float:
    """Standardized Mann-Whitney U of positives over negatives (tie-corrected); 0 when all scores tie."""
    n1, n2 = pos.size, neg.size
    ranks = sps.rankdata(np.concatenate([pos, neg]))
    u = ranks[:n1].sum() - n1 * (n1 + 1) / 2
    _, counts = np.unique(ranks, return_counts=True)
    n = n1 + n2
    var = n1 * n2 / 12 * ((n + 1) - np.sum(counts**3 - counts) / (n * (n - 1)))
    return float((u - n1 * n2 / 2) / np.sqrt(var)) if var > 0 else 0.0


def _delong(pos: np.ndarray, neg: np.ndarray) -> tuple[float, float]:
    """AUC of scores (positives above negatives) and its DeLong standard error."""
    n_pos, n_neg = pos.size, neg.size
    both = sps.rankdata(np.concatenate([pos, neg]))
    v10 = (both[:n_pos] - sps.rankdata(pos)) / n_neg
    v01 = 1.0 - (both[n_pos:] - sps.rankdata(neg)) / n_pos
    auc = float(v10.mean())
    se = float(np.sqrt(v10.var(ddof=1) / n_pos + v01.var(ddof=1) / n_neg))
    return auc, se


def classifier_test(
    a: Sequence[Any],
    b: Sequence[Any],
    *,
    test_fraction: float = 0.5,
    confidence: float = 0.95,
    seed: int | None = 0,
) -> ShiftTest:
    """Classifier two-sample test: held-out AUC of a logistic regression telling ``a`` from ``b``.

    Parameters
    ----------
    a, b : the two samples: texts, records of numbers (dicts), numbers or numeric vectors.
    test_fraction : share of each sample held out to score the classifier (stratified, seeded).
    confidence : coverage of DeLong's interval of the AUC.
    seed : seed of the held-out draw.
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split

    if not 0 < confidence < 1:
        raise ConfigError(f"confidence={confidence!r} must be in (0, 1).")
    if not 0 < test_fraction < 1:
        raise ConfigError(f"test_fraction={test_fraction!r} must be a fraction in (0, 1).")
    a, b = _check_samples(a, b, minimum=4)
    x = _features(a + b, dense=False, seed=seed)
    y = np.r_[np.zeros(len(a)), np.ones(len(b))]
    if _all_rows_equal(x):  # every example looks the same: nothing to tell apart
        return ShiftTest("classifier", "auc", 0.5, 0.5, 0.5, 1.0, len(a), len(b))
    train, test = train_test_split(np.arange(y.size), test_size=test_fraction, stratify=y, random_state=seed)
    scores = LogisticRegression(max_iter=1000).fit(x[train], y[train]).decision_function(x[test])
    pos, neg = scores[y[test] == 1], scores[y[test] == 0]
    auc, se = _delong(pos, neg)
    z = sps.norm.ppf(0.5 + confidence / 2)
    p = float(sps.norm.sf(_mann_whitney_z(pos, neg)))
    return ShiftTest("classifier", "auc", auc, max(0.0, auc - z * se), min(1.0, auc + z * se), p, len(a), len(b))


def mmd_test(
    a: Sequence[Any],
    b: Sequence[Any],
    *,
    n_permutations: int = 1000,
    max_samples: int = 1000,
    seed: int | np.random.Generator | None = 0,
) -> ShiftTest:
    """Maximum mean discrepancy (Gaussian kernel, median heuristic) with a permutation p-value.

    Samples larger than ``max_samples`` are subsampled (seeded) to keep the kernel matrix small.
    The p-value is ``(1 + #{permuted >= observed}) / (1 + n_permutations)``.
    """
    if n_permutations < 99:
        raise ConfigError(f"n_permutations={n_permutations!r} is too few; use at least 999 for a p-value near 0.001.")
    a, b = _check_samples(a, b, minimum=2)
    rng = check_random_state(seed)
    if len(a) > max_samples:
        a = [a[i] for i in np.sort(rng.choice(len(a), max_samples, replace=False))]
    if len(b) > max_samples:
        b = [b[i] for i in np.sort(rng.choice(len(b), max_samples, replace=False))]
    x = np.asarray(_features(a + b, dense=True, seed=0), dtype=np.float64)
    n_a, n = len(a), len(a) + len(b)
    sq = np.sum(x * x, axis=1)
    d2 = np.maximum(sq[:, None] + sq[None, :] - 2 * x @ x.T, 0.0)
    off = d2[np.triu_indices(n, k=1)]
    bandwidth = np.median(off[off > 0]) if np.any(off > 0) else 1.0
    k = np.exp(-d2 / bandwidth)
    sign = np.r_[np.full(n_a, 1.0 / n_a), np.full(n - n_a, -1.0 / (n - n_a))]
    observed = float(sign @ k @ sign)
    exceed = 0
    for start in range(0, n_permutations, 200):
        m = min(200, n_permutations - start)
        s = np.stack([rng.permutation(sign) for _ in range(m)], axis=1)
        perm = np.einsum("ij,ij->j", s, k @ s)
        exceed += int(np.sum(perm >= observed - 1e-12))
    p = (1 + exceed) / (1 + n_permutations)
    return ShiftTest("mmd", "mmd2", observed, float("nan"), float("nan"), float(p), n_a, n - n_a)


def detect_shift(
    a: Any,
    b: Any = None,
    *,
    on: Sequence[str] = ("inputs", "labels"),
    alpha: float = 0.05,
    n_permutations: int = 1000,
    seed: int | None = 0,
) -> pd.DataFrame:
    """Both tests between two parts, on the inputs and the labels, as a table.

    Parameters
    ----------
    a : a :class:`~gengap.Split` (its train and test parts are compared), or a Dataset.
    b : the second Dataset when ``a`` is one.
    on : ``"inputs"``, ``"labels"`` or both.
    alpha : level at which the ``shift`` column says True.

    Returns
    -------
    DataFrame with columns :data:`SHIFT_COLUMNS`, one row per (on, test).

    >>> import gengap
    >>> ds = gengap.load([{"input": f"w{i % 7} w{i % 3}", "target": str(i % 2)} for i in range(120)])
    >>> split = gengap.RandomSplit(test_fraction=0.5, seed=0).split_dataset(ds)
    >>> detect_shift(split, n_permutations=199)["shift"].tolist()
    [False, False, False, False]
    """
    if b is None:
        if not hasattr(a, "train_part"):
            raise ConfigError("detect_shift needs a Split, or two Datasets (a, b).")
        first, second = a.train_part, a.test_part
    else:
        first, second = a, b
    records = []
    for what in on:
        if what not in ("inputs", "labels"):
            raise ConfigError(f"on={what!r}: choose 'inputs' or 'labels'.")
        xa = first.inputs if what == "inputs" else first.targets
        xb = second.inputs if what == "inputs" else second.targets
        if what == "labels" and all(v is None for v in xa + xb):
            continue  # unlabeled data: nothing to test
        for result in (classifier_test(xa, xb, seed=seed), mmd_test(xa, xb, n_permutations=n_permutations, seed=seed)):
            records.append({"on": what, **result.to_dict(), "shift": result.p_value < alpha})
    return pd.DataFrame.from_records(records, columns=SHIFT_COLUMNS)
