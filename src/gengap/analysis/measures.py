"""Generalization measures over a set of runs: how well each ranks runs by their observed gap
(Kendall's tau, plain and granulated), from the runs' stored measures. Importing it does not import torch.

No generalization measure is uniformly tight (Gastpar et al. 2023, "Fantastic generalization
measures are nowhere to be found"), so gengap never turns a measure into a verdict. Over a set of
runs it reports, for each measure:

- ``kendall_tau``: Kendall's rank correlation between the measure and the observed gap over all runs
  (``scipy.stats.kendalltau``, tau-b), with its p-value;
- ``granulated_tau``: Jiang et al. (2020)'s granulated coefficient Psi: for each hyperparameter, tau
  is computed within every group of runs that share all the *other* hyperparameters and averaged
  over the groups (psi of that hyperparameter, in ``psi_<name>`` columns); Psi is the mean of the psis.
  It asks whether the measure tracks the gap when one thing changes at a time.

>>> import pandas as pd
>>> runs = pd.DataFrame({"wd": [0, 0, 1, 1], "frac": [.3, .5, .3, .5], "gap": [.9, .5, .4, .1], "norm": [9, 6, 5, 2]})
>>> table = rank_correlation(runs, hyperparameters=["wd", "frac"])
>>> table.loc[0, "measure"], table[["kendall_tau", "granulated_tau"]].iloc[0].tolist()
('norm', [1.0, 1.0])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import kendalltau

from gengap._errors import ConfigError

__all__ = ["rank_correlation", "runs_table"]


def _tau(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    keep = np.isfinite(x) & np.isfinite(y)
    if keep.sum() < 2 or np.ptp(x[keep]) == 0 or np.ptp(y[keep]) == 0:
        return float("nan"), float("nan")
    res = kendalltau(x[keep], y[keep])
    return float(res.statistic), float(res.pvalue)


def rank_correlation(runs: pd.DataFrame | Iterable[Mapping[str, Any]], *, gap: str = "gap",
                     measures: Sequence[str] | None = None,
                     hyperparameters: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per measure: ``measure``, ``n_runs``, ``kendall_tau``, ``p_value``, ``granulated_tau``, ``psi_<hp>``.

    Parameters
    ----------
    runs : one row per training run (a DataFrame or records): the observed ``gap``, each measure's value
        (e.g. at the end of training) and the hyperparameters that were varied.
    gap : the column holding the observed generalization gap.
    measures : the measure columns (default: every numeric column that is neither the gap nor a hyperparameter).
    hyperparameters : the varied settings, for the granulated coefficient (none: it is left out).
    """
    frame = runs if isinstance(runs, pd.DataFrame) else pd.DataFrame.from_records(list(runs))
    if gap not in frame.columns:
        raise ConfigError(f"rank_correlation: the runs have no column {gap!r} (the observed gap); columns: "
                          f"{list(frame.columns)}. Name it with gap=.")
    hps = list(hyperparameters or [])
    missing = [h for h in hps if h not in frame.columns]
    if missing:
        raise ConfigError(f"rank_correlation: hyperparameters {missing} are not columns of the runs: {list(frame.columns)}.")
    if measures is None:
        measures = [c for c in frame.columns if c != gap and c not in hps and pd.api.types.is_numeric_dtype(frame[c])]
    if len(frame) < 3:
        raise ConfigError(f"rank_correlation needs at least 3 runs to rank; got {len(frame)}.")
    y = frame[gap].to_numpy(dtype=float)
    rows = []
    for m in measures:
        if m not in frame.columns:
            raise ConfigError(f"rank_correlation: no measure column {m!r} in the runs.")
        x = frame[m].to_numpy(dtype=float)
        tau, p = _tau(x, y)
        row: dict[str, Any] = {"measure": m, "n_runs": int(np.isfinite(x).sum()), "kendall_tau": tau, "p_value": p}
        psis = []
        for h in hps:
            others = [o for o in hps if o != h]
            groups = frame.groupby(others, dropna=False) if others else [((), frame)]
            taus = [_tau(g[m].to_numpy(dtype=float), g[gap].to_numpy(dtype=float))[0] for _, g in groups]
            taus = [t for t in taus if np.isfinite(t)]
            psi = float(np.mean(taus)) if taus else float("nan")
            row[f"psi_{h}"] = psi
            psis.append(psi)
        if hps:
            finite = [v for v in psis if np.isfinite(v)]
            row["granulated_tau"] = float(np.mean(finite)) if finite else float("nan")
        rows.append(row)
    out = pd.DataFrame(rows)
    return out.sort_values("kendall_tau", key=lambda s: -s.abs().fillna(-1), kind="stable").reset_index(drop=True)


def runs_table(store: Any, run_ids: Sequence[str] | None = None, *, at: str = "last",
               gap: str = "gap_accuracy") -> pd.DataFrame:
    """One row per monitored run of a store: each whole-model measure's last (or ``at="max"``) value,
    the run's config settings, and ``gap`` renamed ``gap``; ready for :func:`rank_correlation`."""
    from gengap.store import Store

    own = isinstance(store, (str, Path))
    st = Store(store, read_only=True) if own else store
    try:
        runs = st.runs()
        ids = list(run_ids) if run_ids is not None else runs["run_id"].tolist()
        rows = []
        for rid in ids:
            m = st.measures(rid)
            m = m[m["scope"].fillna("") == ""]
            if m.empty:
                continue
            agg = m.groupby("name")["value"]
            values = agg.last() if at == "last" else agg.max()
            row = {"run_id": rid, **st.run_config(rid).get("hyperparameters", {}), **values.to_dict()}
            if gap in row:
                row["gap"] = row.pop(gap)
            rows.append(row)
    finally:
        if own:
            st.close()
    return pd.DataFrame(rows)
