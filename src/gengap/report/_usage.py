"""Plain sentences about what a run did with its model outputs: the cache and the answer judge.

The terminal (``gengap eval``) and the report's Run table print them.
"""

from __future__ import annotations

import pandas as pd

__all__ = ["cache_lines", "judge_lines"]


def cache_lines(use: pd.DataFrame) -> list[str]:
    """One plain sentence per model: how many outputs came from the cache, under which fingerprint.

    >>> use = pd.DataFrame({"model": ["m", "f"], "fingerprint": ["ab12", ""], "n_cached": [30, 0],
    ...     "n_computed": [10, 40], "note": ["", "not cached: no version"]})
    >>> cache_lines(use)
    ["Model 'f': 40 outputs computed; not cached: no version.", "Model 'm': 30 of 40 outputs from the cache (fingerprint ab12), 10 computed."]
    """
    lines = []
    for model, g in use.groupby("model", sort=True):
        for r in g.itertuples():
            total = int(r.n_cached) + int(r.n_computed)
            if not r.fingerprint:
                lines.append(f"Model '{model}': {total:,} outputs computed; {r.note or 'not cached'}.")
            else:
                lines.append(f"Model '{model}': {int(r.n_cached):,} of {total:,} outputs from the cache "
                             f"(fingerprint {r.fingerprint}), {int(r.n_computed):,} computed.")
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
