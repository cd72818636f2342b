"""Seed variance: train k seeds, compare the spread of in-distribution and out-of-distribution scores.

Fine-tuning the same model with different seeds can leave in-distribution accuracy within a point
while out-of-distribution accuracy ranges from 0 to 66% (McCoy et al., "BERTs of a feather do
not generalize together": 83.6-84.8% on MNLI, 0-66.2% on HANS). :func:`seeds` makes that
visible for any training function.

>>> def train_fn(seed):
...     rng = np.random.default_rng(seed)
...     return {"iid": 0.84 + rng.normal(0, 0.002), "ood": rng.uniform(0, 0.6)}
>>> spread = seeds(train_fn, n=10)
>>> bool(spread.per_split().loc["ood", "range"] > spread.per_split().loc["iid", "range"])
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from gengap._errors import ConfigError, DataError
from gengap._progress import progress

__all__ = ["SeedSpread", "seeds"]


@dataclass(frozen=True)
class SeedSpread:
    """Scores of one training recipe over several seeds.

    Attributes
    ----------
    scores : long table: seed, split, score.
    in_distribution : the split treated as in-distribution.
    """

    scores: pd.DataFrame
    in_distribution: str

    def per_split(self, confidence: float = 0.95) -> pd.DataFrame:
        """Per split: seeds, mean, sd, min, max, range, and a t-interval of the mean over seeds."""
        out = []
        for split, g in self.scores.groupby("split", sort=False):
            s = g["score"].to_numpy(dtype=np.float64)
            sd = float(s.std(ddof=1)) if s.size > 1 else 0.0
            half = float(sps.t.ppf(0.5 + confidence / 2, s.size - 1) * sd / np.sqrt(s.size)) if s.size > 1 else 0.0
            out.append({"split": split, "seeds": s.size, "mean": s.mean(), "sd": sd, "min": s.min(), "max": s.max(),
                        "range": s.max() - s.min(), "mean_low": s.mean() - half, "mean_high": s.mean() + half,
                        "in_distribution": split == self.in_distribution})
        return pd.DataFrame.from_records(out).set_index("split")

    def summary(self, confidence: float = 0.95) -> pd.DataFrame:
        """Deprecated name of :meth:`per_split`."""
        from gengap._deprecation import warn_renamed

        warn_renamed("SeedSpread.summary()", "SeedSpread.per_split()")
        return self.per_split(confidence)

    def spread_ratio(self) -> pd.Series:
        """Each split's seed standard deviation divided by the in-distribution one (inf if that is 0)."""
        sd = self.per_split()["sd"]
        base = sd[self.in_distribution]
        return (sd / base if base > 0 else sd.where(sd == 0, np.inf).fillna(1.0)).rename("spread_ratio")

    def correlation(self) -> pd.Series:
        """Per other split: Spearman correlation over seeds between its score and the in-distribution score."""
        wide = self.scores.pivot(index="seed", columns="split", values="score")
        ref = wide[self.in_distribution]
        out = {}
        for split in wide.columns:
            if split != self.in_distribution:
                out[split] = float(sps.spearmanr(ref, wide[split]).statistic) if len(wide) > 2 else np.nan
        return pd.Series(out, name="spearman_with_in_distribution", dtype=np.float64)


def _as_scores(result: Any, seed: int, eval_sets: Mapping[str, Any] | None, metric: str) -> dict[str, float]:
    if isinstance(result, Mapping):
        out = {}
        for split, value in result.items():
            arr = np.asarray(value, dtype=np.float64).ravel()
            if arr.size == 0 or np.isnan(arr).any():
                raise DataError(f"train_fn(seed={seed}) returned an empty or NaN score for split '{split}'.")
            out[str(split)] = float(arr.mean())
        return out
    if eval_sets is None:
        raise ConfigError(
            f"train_fn(seed={seed}) returned a {type(result).__name__}, not a dict of scores. Either return "
            "{split_name: score or per-example scores}, or return a trained model and pass eval_sets={name: Dataset}."
        )
    from gengap.metrics import score
    from gengap.models import as_model
    from gengap.runner import predict_batched

    model = as_model(result)
    out = {}
    for name, dataset in eval_sets.items():
        outputs = predict_batched(model, dataset.inputs, batch_size=512, where=f"seed {seed}, set '{name}'")
        out[name] = float(score(metric, outputs, dataset.targets).mean())
    return out


def seeds(
    train_fn: Callable[[int], Any],
    n: int = 5,
    *,
    eval_sets: Mapping[str, Any] | None = None,
    in_distribution: str | None = None,
    metric: str = "exact_match",
    first_seed: int = 0,
    progress_bar: bool | None = None,
) -> SeedSpread:
    """Train and evaluate ``n`` seeds and report the spread of each split's score.

    Parameters
    ----------
    train_fn : called as ``train_fn(seed)``; returns either ``{split: score}`` (a number or
        per-example scores), or a trained model that is then scored on ``eval_sets``.
    n : number of seeds (``first_seed`` ... ``first_seed + n - 1``).
    eval_sets : ``{name: Dataset}`` to score returned models on (e.g. the i.i.d. test part and an
        out-of-distribution set).
    in_distribution : the split all others are compared with (default: ``"random"`` or
        ``"iid"`` if present, else the first split).
    metric : scorer for ``eval_sets``.
    """
    if not isinstance(n, (int, np.integer)) or n < 2:
        raise ConfigError(f"n={n!r} seeds: use at least 2 (5 or more to see a spread).")
    records = []
    with progress("seeds", total=n, enabled=progress_bar) as bar:
        for seed in range(first_seed, first_seed + n):
            for split, value in _as_scores(train_fn(seed), seed, eval_sets, metric).items():
                records.append({"seed": seed, "split": split, "score": value})
            bar.advance(1)
    frame = pd.DataFrame.from_records(records, columns=["seed", "split", "score"])
    splits = list(dict.fromkeys(frame["split"]))
    if in_distribution is None:
        in_distribution = next((s for s in ("random", "iid", "id", "in_distribution") if s in splits), splits[0])
    elif in_distribution not in splits:
        raise ConfigError(f"in_distribution={in_distribution!r} is not one of the splits {splits}.")
    counts = frame.groupby("split")["seed"].nunique()
    if (counts != n).any():
        raise DataError(f"Not every seed returned every split: seeds per split {counts.to_dict()}.")
    return SeedSpread(scores=frame, in_distribution=in_distribution)

