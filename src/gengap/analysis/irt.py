"""Item response theory: item difficulty and model ability from who got what right.

Given a correctness matrix of ``n_models`` respondents by ``n_items`` items, the two-parameter
logistic model (2PL) says model ``i`` answers item ``j`` correctly with probability

    P(correct) = sigmoid(a_j * (theta_i - b_j))

with ability ``theta_i``, difficulty ``b_j`` and discrimination ``a_j > 0``; the 1PL (Rasch)
model fixes ``a_j = 1``. :func:`fit_irt` finds the maximum a posteriori estimates under weak
normal priors (theta ~ N(0, 1), b ~ N(0, 3^2), log a ~ N(0, 1)), which keep items that every
model got right (or wrong) finite; the location is fixed by centring abilities at 0 (for the
2PL model, abilities are also rescaled to unit variance in the first rounds; then the prior
holds the scale). It alternates Fisher-scoring steps for abilities and for
items, passing over the matrix in chunks of items, so 100 models x 100,000 items fit in seconds
with a few hundred MB. Missing responses (NaN) are left out of the likelihood.

:func:`irt_from_store` builds the matrix from the per-example rows of several models in the
results store (respondents: models; items: example ids).

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> theta, b = rng.normal(size=60), rng.normal(size=400)
>>> y = rng.random((60, 400)) < 1 / (1 + np.exp(-(theta[:, None] - b[None, :])))
>>> fit = fit_irt(y, model="1pl")
>>> from scipy.stats import spearmanr
>>> bool(spearmanr(fit.difficulty, b).statistic > 0.9), fit.converged
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from gengap._errors import ConfigError, DataError

__all__ = ["IRTFit", "fit_irt", "irt_from_store", "response_matrix"]

IRTModel = Literal["1pl", "2pl"]

#: Items per chunk in a pass over the matrix (bounds temporary memory to n_models x this).
_CHUNK_ITEMS = 8192
#: Stop when the log-likelihood changes by less than this fraction between rounds (float32 passes
#: leave noise of about 1e-9 relative, and the 2PL scale fix moves the optimum slightly each round, so steps alone may never all fall below ``tol``).
_LL_RTOL = 1e-7
#: Rounds in which 2PL abilities are rescaled to unit variance (later the prior holds the scale,
#: and rescaling every round would keep moving the optimum).
_RESCALE_ROUNDS = 5
#: Step halvings tried for a 2PL item whose posterior would fall.
_HALVINGS = 4
#: Largest change of one parameter in one Fisher-scoring step.
_MAX_STEP = 1.0


@dataclass(frozen=True)
class IRTFit:
    """A fitted 1PL or 2PL model.

    Attributes
    ----------
    ability : pd.Series, one theta per respondent (model), indexed by its name.
    difficulty : pd.Series, one b per item, indexed by item id.
    discrimination : pd.Series, one a per item (all 1 for the 1PL model).
    model : "1pl" or "2pl".
    log_likelihood : the log-likelihood of the observed responses at the estimates.
    n_iter, converged : iterations run and whether the largest change fell below ``tol``.
    """

    ability: pd.Series
    difficulty: pd.Series
    discrimination: pd.Series
    model: str
    log_likelihood: float
    n_iter: int
    converged: bool

    def predict_proba(self) -> pd.DataFrame:
        """P(correct) for every respondent and item (n_models x n_items; mind the size)."""
        z = self.discrimination.to_numpy()[None, :] * (self.ability.to_numpy()[:, None] - self.difficulty.to_numpy()[None, :])
        return pd.DataFrame(1 / (1 + np.exp(-z)), index=self.ability.index, columns=self.difficulty.index)


def _as_matrix(responses: Any) -> tuple[np.ndarray, np.ndarray | None, pd.Index, pd.Index]:
    """0/1 matrix as int8 plus a mask of observed entries (None when all are observed)."""
    if isinstance(responses, pd.DataFrame):
        rows, cols = responses.index, responses.columns
        values = responses.to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        values = np.asarray(responses)
        if values.ndim != 2:
            raise DataError(f"IRT needs a 2-D models x items matrix; got shape {values.shape}.")
        rows, cols = pd.RangeIndex(values.shape[0]), pd.RangeIndex(values.shape[1])
    if values.ndim != 2 or values.shape[0] < 2 or values.shape[1] < 2:
        raise DataError(f"IRT needs at least 2 models and 2 items; got a matrix of shape {values.shape}.")
    if values.dtype == bool:
        return values.astype(np.int8), None, rows, cols
    values = values.astype(np.float64, copy=False)
    observed = ~np.isnan(values)
    bad = observed & (values != 0) & (values != 1)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise DataError(
            f"IRT responses must be 0 or 1 (or NaN when missing); found {values[i, j]!r} for model {rows[i]!r}, "
            f"item {cols[j]!r} ({int(bad.sum())} such entries). Threshold graded scores first, e.g. scores >= 0.5."
        )
    empty_items = np.flatnonzero(~observed.any(axis=0))
    if empty_items.size:
        raise DataError(f"{empty_items.size} item(s) have no response at all, e.g. {[cols[j] for j in empty_items[:5]]}; drop them.")
    empty_models = np.flatnonzero(~observed.any(axis=1))
    if empty_models.size:
        raise DataError(f"Model(s) {[rows[i] for i in empty_models[:5]]} answered no item; drop them.")
    y = np.where(observed, values, 0).astype(np.int8)
    return y, (None if observed.all() else observed), rows, cols


def fit_irt(
    responses: Any,
    *,
    model: IRTModel = "1pl",
    max_iter: int = 200,
    tol: float = 1e-4,
    prior_ability_sd: float = 1.0,
    prior_difficulty_sd: float = 3.0,
    prior_log_discrimination_sd: float = 1.0,
) -> IRTFit:
    """Fit a 1PL or 2PL item response model to a models x items correctness matrix.

    Parameters
    ----------
    responses : array-like or DataFrame of shape (n_models, n_items) with 1 (correct), 0 (wrong)
        or NaN (not answered); a DataFrame's index and columns name the models and items.
    model : "1pl" (difficulty only) or "2pl" (difficulty and discrimination).
    max_iter, tol : stop after ``max_iter`` rounds, when no parameter moves more than ``tol``, or
        when the log-likelihood changes by less than 1e-7 of itself.
    prior_* : standard deviations of the normal priors (larger is weaker).

    Returns
    -------
    IRTFit with ``ability``, ``difficulty``, ``discrimination``.

    >>> fit = fit_irt([[1, 1, 0], [1, 0, 0], [1, 1, 1]])
    >>> fit.difficulty.rank().tolist(), int(fit.ability.idxmax())
    ([1.0, 2.0, 3.0], 2)
    """
    if model not in ("1pl", "2pl"):
        raise ConfigError(f"model={model!r} must be '1pl' or '2pl'.")
    if max_iter < 1 or tol <= 0:
        raise ConfigError(f"max_iter={max_iter!r} must be >= 1 and tol={tol!r} > 0.")
    y, mask, rows, cols = _as_matrix(responses)
    n_models, n_items = y.shape
    theta = np.zeros(n_models)
    b = np.zeros(n_items)
    alpha = np.zeros(n_items)  # log discrimination
    # start difficulties at the logit of each item's error rate (shrunk), abilities likewise
    counts = mask.sum(axis=0) if mask is not None else np.full(n_items, n_models)
    p_item = (y.sum(axis=0) + 0.5) / (counts + 1.0)
    b = -np.log(p_item / (1 - p_item))
    b -= b.mean()
    two = model == "2pl"
    converged = False
    ll = previous_ll = np.inf
    it = 0
    for it in range(1, max_iter + 1):
        a = np.exp(alpha)
        # abilities, with items fixed
        grad_t = -theta / prior_ability_sd**2
        info_t = np.full(n_models, 1 / prior_ability_sd**2)
        for start in range(0, n_items, _CHUNK_ITEMS):
            sl = slice(start, start + _CHUNK_ITEMS)
            p, resid, weight = _chunk(y[:, sl], None if mask is None else mask[:, sl], theta, b[sl], a[sl])
            grad_t += resid @ a[sl]
            info_t += weight @ (a[sl] ** 2)
        step_t = np.clip(grad_t / info_t, -_MAX_STEP, _MAX_STEP)
        theta = theta + step_t
        # fix the scale the likelihood cannot see: abilities centred (1PL) or standardized (2PL)
        shift = theta.mean()
        theta -= shift
        b -= shift
        if two and n_models > 2 and it <= _RESCALE_ROUNDS:
            scale = theta.std()
            if scale > 0:
                theta /= scale
                b /= scale
                alpha += np.log(scale)
        # items, with abilities fixed (each chunk of items is independent)
        ll = 0.0
        max_item_step = 0.0
        for start in range(0, n_items, _CHUNK_ITEMS):
            sl = slice(start, start + _CHUNK_ITEMS)
            a_c, b_c = a[sl], b[sl]
            p, resid, weight = _chunk(y[:, sl], None if mask is None else mask[:, sl], theta, b_c, a_c)
            item_ll = _item_loglik(y[:, sl], None if mask is None else mask[:, sl], p)
            ll += float(item_ll.sum())
            g_b = -a_c * resid.sum(axis=0) - b_c / prior_difficulty_sd**2
            i_bb = a_c**2 * weight.sum(axis=0) + 1 / prior_difficulty_sd**2
            if not two:
                step_b = np.clip(g_b / i_bb, -_MAX_STEP, _MAX_STEP)
                b[sl] = b_c + step_b
                max_item_step = max(max_item_step, float(np.abs(step_b).max()))
                continue
            d = theta[:, None] - b_c[None, :]
            g_a = a_c * (resid * d).sum(axis=0) - alpha[sl] / prior_log_discrimination_sd**2
            i_aa = a_c**2 * (weight * d * d).sum(axis=0) + 1 / prior_log_discrimination_sd**2
            i_ba = -(a_c**2) * (weight * d).sum(axis=0)
            det = i_bb * i_aa - i_ba**2
            step_b = np.clip((i_aa * g_b - i_ba * g_a) / det, -_MAX_STEP, _MAX_STEP)
            step_a = np.clip((i_bb * g_a - i_ba * g_b) / det, -_MAX_STEP, _MAX_STEP)
            before = item_ll - b_c**2 / (2 * prior_difficulty_sd**2) - alpha[sl] ** 2 / (2 * prior_log_discrimination_sd**2)
            step_b, step_a = _safeguard(y[:, sl], None if mask is None else mask[:, sl], theta, b_c, alpha[sl], before,
                                        step_b, step_a, prior_difficulty_sd, prior_log_discrimination_sd)
            b[sl] = b_c + step_b
            alpha[sl] = alpha[sl] + step_a
            max_item_step = max(max_item_step, float(np.abs(step_b).max()), float(np.abs(step_a).max()))
        small_step = max(float(np.abs(step_t).max()), max_item_step) < tol
        flat = abs(ll - previous_ll) <= _LL_RTOL * abs(ll)
        previous_ll = ll
        if small_step or flat:
            converged = True
            break
    return IRTFit(
        ability=pd.Series(theta, index=rows, name="ability"),
        difficulty=pd.Series(b, index=cols, name="difficulty"),
        discrimination=pd.Series(np.exp(alpha), index=cols, name="discrimination"),
        model=model, log_likelihood=float(ll), n_iter=it, converged=converged,
    )


def _chunk(y: np.ndarray, mask: np.ndarray | None, theta: np.ndarray, b: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """P(correct), residual y - p and weight p(1 - p) on one chunk of items (float32, masked)."""
    z = (theta[:, None].astype(np.float32) - b[None, :].astype(np.float32)) * a[None, :].astype(np.float32)
    p = 1 / (1 + np.exp(-z))
    resid = y - p
    weight = p * (1 - p)
    if mask is not None:
        resid *= mask
        weight *= mask
    return p, resid, weight


def _item_log_posterior(y: np.ndarray, mask: np.ndarray | None, p: np.ndarray, b: np.ndarray, alpha: np.ndarray,
                        sd_b: float, sd_a: float) -> np.ndarray:
    return _item_loglik(y, mask, p) - b**2 / (2 * sd_b**2) - alpha**2 / (2 * sd_a**2)


def _item_loglik(y: np.ndarray, mask: np.ndarray | None, p: np.ndarray) -> np.ndarray:
    """Log-likelihood of each item's observed responses (one log per entry)."""
    ll = np.log(np.where(y == 1, p, 1 - p) + np.float32(1e-7))
    if mask is not None:
        ll *= mask
    return ll.sum(axis=0, dtype=np.float64)


def _safeguard(y: np.ndarray, mask: np.ndarray | None, theta: np.ndarray, b: np.ndarray, alpha: np.ndarray,
               before: np.ndarray, step_b: np.ndarray, step_a: np.ndarray, sd_b: float, sd_a: float) -> tuple[np.ndarray, np.ndarray]:
    """Halve the 2PL steps of items whose log posterior (``before`` the step) would fall; extreme items otherwise flip-flop."""
    todo = np.arange(b.size)
    for _ in range(_HALVINGS):
        cols = todo
        m = None if mask is None else mask[:, cols]
        p_new, _, _ = _chunk(y[:, cols], m, theta, b[cols] + step_b[cols], np.exp(alpha[cols] + step_a[cols]))
        after = _item_log_posterior(y[:, cols], m, p_new, b[cols] + step_b[cols], alpha[cols] + step_a[cols], sd_b, sd_a)
        worse = after < before[cols] - 1e-9
        if not worse.any():
            break
        todo = cols[worse]
        step_b[todo] *= 0.5
        step_a[todo] *= 0.5
    return step_b, step_a


def response_matrix(rows: pd.DataFrame, *, metric: str | None = None, split: str | None = None, threshold: float = 0.5) -> pd.DataFrame:
    """Per-example store rows to a models x example ids 0/1 matrix (NaN where a model has no row).

    A score is correct when it is >= ``threshold``; several rows of one model on one example
    (the same example in several splits) count as correct when their mean score is.

    >>> rows = pd.DataFrame({"model": ["m1", "m1", "m2"], "example_id": ["a", "b", "a"], "score": [1.0, 0.0, 0.0]})
    >>> response_matrix(rows).values.tolist()
    [[1.0, 0.0], [0.0, nan]]
    """
    frame = rows
    if "perturbation" in frame:
        frame = frame[frame["perturbation"] == "none"]
    if metric is not None and "metric" in frame:
        frame = frame[frame["metric"] == metric]
    elif "metric" in frame and frame["metric"].nunique() > 1:
        raise ConfigError(f"The rows hold several metrics {sorted(frame['metric'].unique())}; pass metric=... to choose one.")
    if split is not None:
        frame = frame[frame["split"] == split]
    if frame.empty:
        raise DataError(f"No rows to build a response matrix from (metric={metric!r}, split={split!r}).")
    mean = frame.pivot_table(index="model", columns="example_id", values="score", aggfunc="mean", sort=True)
    return (mean >= threshold).astype(np.float64).where(mean.notna())


def irt_from_store(
    store: Any,
    run_id: str | None = None,
    *,
    metric: str | None = "exact_match",
    split: str | None = None,
    model: IRTModel = "1pl",
    threshold: float = 0.5,
    **options: Any,
) -> IRTFit:
    """Fit IRT to the correctness of the models of a run in the results store.

    Parameters
    ----------
    store : a path to ``gengap.duckdb``, a :class:`gengap.store.Store`, or an :class:`gengap.Evaluation`.
    run_id : the run (default: the latest finished run).
    metric, split, threshold : which rows, and when a score counts as correct.
    model, options : passed to :func:`fit_irt`.
    """
    from gengap.store import Store

    if hasattr(store, "store_path") and hasattr(store, "run_id"):
        run_id = run_id or store.run_id
        store = store.store_path
    if isinstance(store, (str, Path)):
        with Store(store, read_only=True) as opened:
            rows = opened.rows(run_id or opened.latest_run())
    else:
        rows = store.rows(run_id or store.latest_run())
    matrix = response_matrix(rows, metric=metric, split=split, threshold=threshold)
    if len(matrix) < 2:
        raise DataError(
            f"IRT needs the rows of at least two models; the run holds {list(matrix.index)}. Evaluate several models "
            "(gengap.evaluate({name: model, ...}, ...)) in one run."
        )
    return fit_irt(matrix, model=model, **options)
