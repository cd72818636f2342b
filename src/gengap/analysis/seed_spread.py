"""Seed variance: the spread of in-distribution and out-of-distribution scores over seeds.

Fine-tuning the same model with different seeds can leave in-distribution accuracy within a point
while out-of-distribution accuracy ranges from 0 to 66% (McCoy et al., "BERTs of a feather do
not generalize together": 83.6-84.8% on MNLI, 0-66.2% on HANS). :func:`gengap.seeds` (which
trains with each seed) makes that visible for any training function; this module computes the
spread from the scores (:func:`spread_from_scores`).

Seeds of split methods go through the runner and the store like any split: :func:`seeded_splits`
makes each method with each seed (``random@seed=0``, ``random@seed=1``, ...; every split record
keeps its seed), ``gengap.evaluate`` stores their rows in one run, and
:func:`seed_spread_from_rows` (or ``Evaluation.seed_spread()``) reads the spread from those rows;
the report of such a run shows it.

>>> rng = np.random.default_rng(0)
>>> records = [{"seed": s, "split": split, "score": value} for s in range(10)
...            for split, value in (("iid", 0.84 + rng.normal(0, 0.002)), ("ood", rng.uniform(0, 0.6)))]
>>> spread = spread_from_scores(records)
>>> bool(spread.per_split().loc["ood", "range"] > spread.per_split().loc["iid", "range"])
True
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from gengap._errors import ConfigError

__all__ = ["SeedSpread", "spread_from_scores", "seeded_splits", "seeded_name", "seed_spread_from_rows"]


@dataclass(frozen=True)
class SeedSpread:
    """Scores of one training recipe over several seeds.

    Attributes
    ----------
    scores : long table: seed, split, score.
    in_distribution : the split treated as in-distribution.
    model, metric : the model and metric of a spread read from stored rows (None otherwise).
    """

    scores: pd.DataFrame
    in_distribution: str
    model: str | None = None
    metric: str | None = None

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


def spread_from_scores(records: list[dict[str, Any]], in_distribution: str | None = None, what: str = "splits",
                       **labels: Any) -> SeedSpread:
    """The spread of per-seed scores ``records`` (seed, split, score), compared with ``in_distribution``
    (default: the random or i.i.d. split if present, else the first)."""
    frame = pd.DataFrame.from_records(records, columns=["seed", "split", "score"])
    splits = list(dict.fromkeys(frame["split"]))
    if in_distribution is None:
        in_distribution = next((s for s in ("random", "iid", "id", "in_distribution") if s in splits), splits[0])
    elif in_distribution not in splits:
        raise ConfigError(f"in_distribution={in_distribution!r} is not one of the {what} {splits}.")
    return SeedSpread(scores=frame, in_distribution=in_distribution, **labels)



def seeded_name(name: str, seed: int | None) -> str:
    """The name of the split ``name`` made with ``seed``.

    >>> seeded_name("random", 3)
    'random@seed=3'
    """
    return f"{name}@seed={seed}"


def seeded_splits(dataset: Any, splits: Sequence[Any], seeds: Iterable[int], *, test_fraction: float = 0.2) -> list[Any]:
    """Every split of ``splits`` (method specs such as ``"random"`` or ``"mcd"``, or splitters) made
    with every seed, for one ``gengap.evaluate`` run; each is named ``<name>@seed=<seed>`` and its
    record keeps the seed.

    >>> import gengap
    >>> ds = gengap.load([{"input": f"w{i}", "target": "t"} for i in range(20)])
    >>> [(s.name, s.seed) for s in seeded_splits(ds, ["random"], [0, 1])]
    [('random@seed=0', 0), ('random@seed=1', 1)]
    """
    from gengap.splits import Splitter, make_splitter

    seeds = [int(s) for s in seeds]
    if len(set(seeds)) < 2:
        raise ConfigError(f"seeds={seeds!r}: give two or more different seeds (5 or more to see a spread).")
    out = []
    for spec in splits:
        for seed in seeds:
            if isinstance(spec, Splitter):
                splitter = copy.copy(spec)
                if hasattr(splitter, "seed"):
                    splitter.seed = seed
            else:
                splitter = make_splitter(spec, seed=seed, test_fraction=test_fraction)
            if splitter.seed != seed:
                raise ConfigError(f"Split '{spec}' takes no seed (or sets its own): every seed would make the same split.")
            out += [replace(split, name=seeded_name(split.name, seed)) for split in splitter.split_datasets(dataset)]
    return out


def _seed_families(split_info: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[int, str]]:
    """Split name without its seed -> {seed: split name}, for every split named by :func:`seeded_name`."""
    out: dict[str, dict[int, str]] = {}
    for name, info in split_info.items():
        seed = info.get("seed")
        if seed is not None and name.endswith(seeded_name("", seed)):
            out.setdefault(name[: -len(seeded_name("", seed))], {})[int(seed)] = name
    return {base: dict(sorted(by_seed.items())) for base, by_seed in out.items() if len(by_seed) > 1}


def seed_spread_from_rows(
    rows: pd.DataFrame,
    split_info: Mapping[str, Mapping[str, Any]],
    *,
    model: str | None = None,
    metric: str | None = None,
    in_distribution: str | None = None,
) -> SeedSpread:
    """The spread over seeds of each split made with several seeds (see :func:`seeded_splits`), read
    from a run's per-example rows: one score per split and seed, the mean of its clean rows.

    ``model`` and ``metric`` may be left out when the run holds one; ``in_distribution`` as for
    :func:`seeds` (default ``random`` when present).
    """
    families = _seed_families(split_info)
    if not families:
        raise ConfigError("This run has no split made with several seeds: evaluate with "
                          "gengap.analysis.seed_spread.seeded_splits(dataset, ['random', ...], seeds=range(5)).")
    clean = rows[rows["perturbation"] == "none"] if "perturbation" in rows.columns else rows
    for what, value in (("model", model), ("metric", metric)):
        found = list(dict.fromkeys(clean[what].astype(str)))
        if value is None and len(found) > 1:
            raise ConfigError(f"The run holds several {what}s ({', '.join(found)}); name one with {what}=.")
        if value is not None and value not in found:
            raise ConfigError(f"{what}={value!r} is not in this run (its {what}s: {', '.join(found)}).")
    model = model if model is not None else str(clean["model"].iloc[0])
    metric = metric if metric is not None else str(clean["metric"].iloc[0])
    clean = clean[(clean["model"] == model) & (clean["metric"] == metric)]
    means = clean.groupby("split", sort=False)["score"].mean()
    records = [{"seed": seed, "split": base, "score": float(means[name])}
               for base, by_seed in families.items() for seed, name in by_seed.items() if name in means.index]
    if not records:
        raise ConfigError(f"The run's seeded splits have no scored rows for model '{model}' and metric '{metric}' yet.")
    return spread_from_scores(records, in_distribution, "seeded splits", model=model, metric=metric)
