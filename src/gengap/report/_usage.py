"""Plain sentences about what a run did with its model outputs: the cache and the answer judge.

The terminal (``gengap eval``) and the report's Run table print them.
"""

from __future__ import annotations

import pandas as pd

__all__ = ["cache_lines", "judge_lines"]


def cache_lines(use: pd.DataFrame, calls: int | None = None) -> list[str]:
    """One plain sentence per model: how many outputs came from the cache, under which fingerprint.

    ``calls``: the inputs sent to a model in this session (``Evaluation.model_calls``); when a resumed
    run computed fewer now than in all, the lines say how many were kept from before the interruption.

    >>> use = pd.DataFrame({"model": ["m", "f"], "fingerprint": ["ab12", ""], "n_cached": [30, 0],
    ...     "n_computed": [10, 40], "note": ["", "not cached: no version"]})
    >>> cache_lines(use)
    ["Model 'f': 40 outputs computed; not cached: no version.", "Model 'm': 30 of 40 outputs from the cache (fingerprint ab12), 10 computed."]
    >>> cache_lines(use.assign(n_cached=[0, 0], n_computed=[30, 40], n_identical=[10, 0]))[1]
    "Model 'm': 0 of 40 outputs from the cache (fingerprint ab12), 10 identical to an input answered earlier in this run, 30 computed."
    >>> per_split = pd.DataFrame({"model": ["g", "g"], "fingerprint": ["", ""], "n_cached": [0, 0], "n_computed": [5, 7],
    ...     "note": ["trained per split", "trained per split"], "splits": ["random", "length"]})
    >>> cache_lines(per_split)[1]
    "Model 'g' on split length: 7 outputs computed; trained per split."
    >>> cache_lines(use.iloc[1:], calls=25)
    ["Model 'f': 40 outputs computed, 25 of them in this session (15 kept from before it was interrupted); not cached: no version."]
    """
    lines = []
    computed = int(use["n_computed"].sum()) if len(use) else 0
    resumed = calls is not None and calls < computed
    one_model = use["model"].nunique() == 1
    for model, g in use.groupby("model", sort=True):
        for r in g.itertuples():
            total = int(r.n_cached) + int(r.n_computed)
            splits = str(getattr(r, "splits", "") or "")
            who = f"Model '{model}'" if len(g) == 1 or not splits else (
                f"Model '{model}' on split{'s' if ', ' in splits else ''} {splits}")
            now = ""
            if resumed and one_model and len(g) == 1:
                now = f", {calls:,} of them in this session ({int(r.n_computed) - int(calls or 0):,} kept from before it was interrupted)"
            if not r.fingerprint:
                lines.append(f"{who}: {total:,} outputs computed{now}; {r.note or 'not cached'}.")
            else:
                same = int(getattr(r, "n_identical", 0) or 0)
                total += same
                again = f", {same:,} identical to an input answered earlier in this run" if same else ""
                lines.append(f"{who}: {int(r.n_cached):,} of {total:,} outputs from the cache "
                             f"(fingerprint {r.fingerprint}){again}, {int(r.n_computed):,} computed{now}.")
    if resumed and not (one_model and len(use) == 1):
        lines.append(f"This session computed {calls:,} of the {computed:,} outputs; the other {computed - int(calls or 0):,} "
                     "were kept from before the run was interrupted.")
    return lines


def judge_lines(use: pd.DataFrame) -> list[str]:
    """One plain sentence per model: how the answer judge was used (none without a judge).

    >>> use = pd.DataFrame({"model": ["m"], "asked": [7], "filled": [2], "agreed": [1], "overruled": [1],
    ...     "unsupported": [1], "declined": [2]})
    >>> judge_lines(use)
    ["Judge on model 'm': asked about 7 outputs; agreed 1, overruled 1, filled 2, unsupported 1, declined 2."]
    """
    return [f"Judge on model '{r.model}': asked about {int(r.asked):,} outputs; agreed {int(r.agreed):,}, overruled "
            f"{int(r.overruled):,}, filled {int(r.filled):,}, unsupported {int(r.unsupported):,}, declined {int(r.declined):,}."
            for r in use.itertuples()]
