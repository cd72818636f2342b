"""Temporal splits: train on the past, test on the future; or rolling windows.

=======  ============  =============================  =====================================
row      date          cutoff="2024-09-01"            windows=2 (expanding)
=======  ============  =============================  =====================================
0        2024-07-03    train                          split 0: train; split 1: train
1        2024-08-20    train                          split 0: test;  split 1: train
2        2024-09-15    test                           split 0: unused; split 1: test
=======  ============  =============================  =====================================

Times are dates or timestamps (parsed with pandas; strings without a zone are read as UTC) or
plain numbers (years, steps). A value that cannot be parsed is an error that names its rows.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd

from gengap._errors import ConfigError, DataError
from gengap.dataset import Dataset
from gengap.splits._base import SplitDetails, Splitter, TaxonomyCard, register_splitter, resolve_test_size

__all__ = ["TimeSplit", "parse_times"]


def parse_times(values: pd.Series, *, what: str = "time column") -> pd.Series:
    """Numbers stay numbers; anything else is parsed to timestamps in UTC (stored without a zone).

    Unparseable values raise a :class:`~gengap.DataError` naming their (0-based) rows.

    >>> parse_times(pd.Series(["2024-01-02", "2024-03-01T10:00"])).dt.month.tolist()
    [1, 3]
    >>> parse_times(pd.Series(["2024-01-02", "soon"]))
    Traceback (most recent call last):
    ...
    gengap._errors.DataError: The time column has 1 value(s) that are not dates or numbers: row 1 ('soon'). ...
    """
    series = pd.Series(values).reset_index(drop=True)
    missing = series.isna().to_numpy()
    if missing.any():
        rows = np.flatnonzero(missing)[:10].tolist()
        raise DataError(f"The {what} is empty in {int(missing.sum())} row(s) (0-based): {rows}. Fill or drop those rows.")
    if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
        return series.astype(np.float64)
    if pd.api.types.is_datetime64_any_dtype(series):
        parsed = pd.to_datetime(series, utc=True)
    else:
        text = series.astype(str)
        parsed = pd.to_datetime(text, errors="coerce", utc=True)
        bad = parsed.isna().to_numpy()
        if bad.any():
            retry = pd.to_datetime(text[bad], errors="coerce", utc=True, format="mixed")
            parsed = parsed.copy()
            parsed[bad] = retry
            bad = parsed.isna().to_numpy()
        if bad.any():
            rows = np.flatnonzero(bad)
            shown = ", ".join(f"row {r} ({text.iloc[r]!r})" for r in rows[:5])
            raise DataError(
                f"The {what} has {len(rows)} value(s) that are not dates or numbers: {shown}{' ...' if len(rows) > 5 else ''}. "
                "Rows are 0-based. Use ISO dates such as 2024-09-01, or numbers; fix or drop those rows."
            )
    return parsed.dt.tz_convert("UTC").dt.tz_localize(None)


def _as_cutoff(cutoff: Any, times: pd.Series) -> Any:
    if pd.api.types.is_numeric_dtype(times):
        try:
            return float(cutoff)
        except (TypeError, ValueError):
            raise ConfigError(f"cutoff={cutoff!r} must be a number: the time column holds numbers.") from None
    try:
        value = pd.Timestamp(cutoff)
    except (TypeError, ValueError):
        raise ConfigError(f"cutoff={cutoff!r} is not a date; use the form 2024-09-01.") from None
    return value if value.tzinfo is None else value.tz_convert("UTC").tz_localize(None)


def _iso(value: Any) -> Any:
    return value.isoformat() if hasattr(value, "isoformat") else float(value)


@register_splitter
class TimeSplit(Splitter):
    """Train on examples before a cutoff, test on those from the cutoff on; or rolling windows.

    Parameters
    ----------
    time : the metadata column with dates, timestamps or numbers.
    cutoff : train on ``time < cutoff``, test on ``time >= cutoff``. Without it the cutoff puts the
        latest ``test_fraction`` of examples in test (examples at one time stay together).
    test_fraction : share of the latest examples in test when no cutoff is given.
    windows : make this many rolling-origin splits instead of one: cutoffs at evenly spaced
        quantiles of time; each split tests on the examples up to the next cutoff.
    train_window : with ``windows``, train only on this much time before each cutoff (a pandas
        duration such as ``"180D"``, or a number for numeric times); None trains on all the past.

    >>> import gengap
    >>> days = pd.date_range("2024-08-01", periods=10, freq="10D").strftime("%Y-%m-%d")
    >>> ds = gengap.load([{"input": str(i), "target": "y", "date": d} for i, d in enumerate(days)])
    >>> s = gengap.splits.TimeSplit(time="date", cutoff="2024-09-01").split_dataset(ds)
    >>> s.train.tolist(), s.diagnostics.figures["cutoff"][:10]
    ([0, 1, 2, 3], '2024-09-01')
    """

    method = "time"
    card = TaxonomyCard(
        motivation="practical", generalisation_type="cross_domain", shift_type="covariate", shift_source="naturally_occurring",
        description="Trained on the past, tested on the future: does the model hold up as the data drifts over time?",
    )

    def __init__(
        self,
        *,
        time: str = "time",
        cutoff: Any = None,
        test_fraction: float | int = 0.2,
        windows: int | None = None,
        train_window: Any = None,
    ) -> None:
        self.time = time
        self.cutoff = cutoff
        self.test_fraction = test_fraction
        self.windows = windows
        self.train_window = train_window
        if not isinstance(time, str) or not time:
            raise ConfigError(f"time={time!r} must name a metadata column with dates or numbers.")
        if windows is not None:
            if cutoff is not None:
                raise ConfigError("TimeSplit: give either cutoff (one split) or windows (rolling splits), not both.")
            if not isinstance(windows, (int, np.integer)) or isinstance(windows, bool) or windows < 1:
                raise ConfigError(f"windows={windows!r} must be a positive integer.")
        elif cutoff is None:
            resolve_test_size(test_fraction, 10**9)
        if train_window is not None and windows is None:
            raise ConfigError("train_window applies to rolling windows: set windows=k as well.")

    def times(self, dataset: Dataset) -> pd.Series:
        return parse_times(dataset.column(self.time), what=f"time column '{self.time}' of '{dataset.name}'")

    def _auto_cutoff(self, times: pd.Series, dataset: Dataset) -> Any:
        distinct = np.unique(times.to_numpy())
        if len(distinct) < 2:
            raise DataError(f"Every example of '{dataset.name}' has the same {self.time} ({distinct[0]}); a time split needs two or more times.")
        n_test = resolve_test_size(self.test_fraction, len(times))
        ordered = np.sort(times.to_numpy())
        shares = len(ordered) - np.searchsorted(ordered, distinct[1:], side="left")
        return distinct[1:][int(np.argmin(np.abs(shares - n_test)))]

    def _one(self, times: pd.Series, cutoff: Any, start: Any, stop: Any, dataset: Dataset, name: str,
             window: int | None = None) -> tuple[np.ndarray, np.ndarray, SplitDetails]:
        values = times.to_numpy()
        if isinstance(cutoff, pd.Timestamp):
            cut = cutoff.to_datetime64()
            start = None if start is None else pd.Timestamp(start).to_datetime64()
            stop_value = None if stop is None else pd.Timestamp(stop).to_datetime64()
        else:
            cut, stop_value = cutoff, stop
        train_mask = values < cut
        if start is not None:
            train_mask &= values >= start
        test_mask = values >= cut
        if stop_value is not None:
            test_mask &= values < stop_value
        train, test = np.flatnonzero(train_mask), np.flatnonzero(test_mask)
        if len(train) == 0 or len(test) == 0:
            lo, hi = times.min(), times.max()
            raise DataError(
                f"cutoff {_iso(cutoff)} leaves the {'train' if len(train) == 0 else 'test'} part of '{dataset.name}' empty: "
                f"'{self.time}' runs from {_iso(lo)} to {_iso(hi)}. Choose a cutoff inside that range."
            )
        figures = {
            "cutoff": _iso(cutoff),
            "train_time_range": [_iso(times.iloc[train].min()), _iso(times.iloc[train].max())],
            "test_time_range": [_iso(times.iloc[test].min()), _iso(times.iloc[test].max())],
        }
        if window is not None:
            figures["window"] = window
        held_out = f"examples with {self.time} >= {_iso(cutoff)}" + (f" and < {_iso(stop)}" if stop is not None else "")
        return train, test, SplitDetails(name=name, held_out=held_out, figures=figures)

    def _iter_indices(self, dataset: Dataset, rng: np.random.Generator) -> Iterator[tuple[np.ndarray, np.ndarray, SplitDetails]]:
        times = self.times(dataset)
        if self.windows is None:
            cutoff = _as_cutoff(self.cutoff, times) if self.cutoff is not None else self._auto_cutoff(times, dataset)
            if not isinstance(cutoff, (pd.Timestamp, float)):
                cutoff = pd.Timestamp(cutoff) if not pd.api.types.is_numeric_dtype(times) else float(cutoff)
            yield self._one(times, cutoff, None, None, dataset, "time")
            return
        distinct = np.unique(times.to_numpy())
        if len(distinct) < self.windows + 1:
            raise DataError(f"windows={self.windows} needs at least {self.windows + 1} distinct times in '{self.time}'; "
                            f"'{dataset.name}' has {len(distinct)}.")
        numeric = pd.api.types.is_numeric_dtype(times)
        quantiles = np.linspace(0, 1, self.windows + 2)[1:]
        ordered = np.sort(times.to_numpy())
        edges = [ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1)))] for q in quantiles]
        edges[-1] = None  # the last window tests to the end
        width = None
        if self.train_window is not None:
            width = float(self.train_window) if numeric else pd.Timedelta(self.train_window)
        for k in range(self.windows):
            cut = float(edges[k]) if numeric else pd.Timestamp(edges[k])
            stop = edges[k + 1]
            stop = None if stop is None else (float(stop) if numeric else pd.Timestamp(stop))
            start = None if width is None else cut - width
            yield self._one(times, cut, start, stop, dataset, f"time:window{k}", window=k)

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        return 1 if self.windows is None else int(self.windows)
