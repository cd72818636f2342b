"""Dataset: a table of examples with named roles.

Every example has an ``id`` (unique string), an ``input`` (what the model sees), a ``target``
(the reference answer) and any number of metadata columns (domain, site, date, length, ...).
Roles are mapped from the user's column names once, here; everything downstream speaks in roles.

Example
-------
>>> import pandas as pd
>>> from gengap import Dataset
>>> frame = pd.DataFrame({"q": ["1+1", "2+2"], "a": ["2", "4"], "site": ["x", "y"]})
>>> ds = Dataset.from_frame(frame, input="q", target="a")
>>> len(ds), ds.inputs, ds.metadata_columns
(2, ['1+1', '2+2'], ['site'])
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from gengap._errors import DataError, did_you_mean

__all__ = ["Dataset", "ROLE_COLUMNS"]

#: Canonical column names of the three roles inside a Dataset's frame.
ROLE_COLUMNS = ("id", "input", "target")


class Dataset:
    """A validated table of examples: ``id``, ``input``, ``target`` and metadata columns.

    Build one with :meth:`from_frame` or :func:`gengap.load`; the constructor expects a frame
    that already uses the canonical role names.

    Parameters
    ----------
    frame : DataFrame with columns ``id``, ``input``, ``target`` and optional metadata columns.
    name : a short name used in reports and the store.
    source : where the data came from (a path), used in error messages.
    """

    def __init__(self, frame: pd.DataFrame, *, name: str = "dataset", source: str | None = None) -> None:
        missing = [c for c in ROLE_COLUMNS if c not in frame.columns]
        if missing:
            raise DataError(
                f"Dataset frame is missing the role column(s) {missing}; it has {list(frame.columns)}. "
                "Use Dataset.from_frame(frame, input=..., target=...) to map your column names."
            )
        self._frame = frame.reset_index(drop=True)
        self._fingerprint: str | None = None
        self.name = name
        self.source = source
        #: role -> the user's column it came from (``{"input": "question"}``), for messages in the user's words
        self.roles: dict[str, str] = {}

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_frame(
        cls,
        frame: pd.DataFrame,
        *,
        input: str | Sequence[str] = "input",
        target: str | None = "target",
        id: str | None = None,
        metadata: Sequence[str] | None = None,
        name: str | None = None,
        source: str | None = None,
    ) -> Dataset:
        """Map the user's columns to roles, validate, and return a Dataset.

        ``input`` may name several columns: each input is then a dict of those columns.
        ``target=None`` makes an unlabeled dataset (targets are all None).
        ``metadata=None`` keeps every column not used by a role. ``id=None`` uses a column named
        ``id`` when there is one, and row numbers otherwise.

        >>> import pandas as pd
        >>> Dataset.from_frame(pd.DataFrame({"x": ["a"], "y": ["b"]}), input="x", target="y").targets
        ['b']
        """
        where = f"'{source}'" if source else "the data"
        if len(frame) == 0:
            raise DataError(f"{where} has no examples (0 rows). Check the file or the filter that produced it.")
        columns = [str(c) for c in frame.columns]
        frame = frame.copy()
        frame.columns = columns
        input_cols = [input] if isinstance(input, str) else list(input)
        if id is None and "id" in columns and "id" not in input_cols and "id" != target:
            id = "id"  # a column named id is the id unless the user maps it elsewhere
        wanted = {"input": input_cols, "target": [target] if target else [], "id": [id] if id else []}
        for role, cols in wanted.items():
            for col in cols:
                if col not in columns:
                    raise DataError(
                        f"{where} has no column '{col}' for the {role} role.{did_you_mean(col, columns)} "
                        f"Columns there are: {columns}. Pass --{role} COLUMN (or {role}='COLUMN') to map it."
                    )
        used = set(input_cols) | set(wanted["target"]) | set(wanted["id"])
        if metadata is None:
            metadata = [c for c in columns if c not in used and c not in ROLE_COLUMNS]
            unused = [c for c in columns if c not in used and c in ROLE_COLUMNS]
            if unused:
                import warnings

                warnings.warn(
                    f"{where}: column(s) {unused} are named like a role but not mapped to it, so they are left out. "
                    f"Map them (e.g. --{unused[0]} {unused[0]}) or rename them to keep them as metadata.",
                    UserWarning, stacklevel=2,
                )
        for col in metadata:
            if col not in columns:
                raise DataError(f"{where} has no metadata column '{col}'.{did_you_mean(col, columns)} Columns there are: {columns}.")

        if id:
            ids = frame[id]
            if ids.isna().any():
                rows = (np.flatnonzero(ids.isna().to_numpy())[:5] + 1).tolist()
                raise DataError(f"{where}: the id column '{id}' is empty in row(s) {rows}. Fill the ids or drop --id to number rows.")
            ids = ids.astype(str)
        else:
            ids = pd.Series(np.arange(len(frame)).astype(str))
        dup = ids.duplicated(keep=False)
        if dup.any():
            shown = sorted(set(ids[dup].tolist()))[:5]
            rows = (np.flatnonzero(dup.to_numpy())[:6] + 1).tolist()
            raise DataError(
                f"{where} has duplicate ids {shown} (rows {rows}). Ids must be unique: fix the '{id}' column "
                "or leave out --id to number the rows."
            )
        if len(input_cols) == 1:
            inputs = frame[input_cols[0]]
        else:
            inputs = pd.Series(frame[input_cols].to_dict(orient="records"))
        if inputs.isna().any() if len(input_cols) == 1 else False:
            rows = (np.flatnonzero(inputs.isna().to_numpy())[:5] + 1).tolist()
            raise DataError(f"{where}: the input column '{input_cols[0]}' is empty in row(s) {rows}. Fill or drop those rows.")
        if target:
            targets = frame[target]
            bad = targets.isna()
            if bad.any():
                rows = (np.flatnonzero(bad.to_numpy())[:5] + 1).tolist()
                raise DataError(
                    f"{where}: the target column '{target}' is empty or NaN in {int(bad.sum())} row(s), "
                    f"first {rows}. Fill the targets, drop those rows, or load without a target to predict only."
                )
        else:
            targets = pd.Series([None] * len(frame), dtype=object)
        out = pd.DataFrame(
            {"id": ids.to_numpy(), "input": inputs.to_numpy(), "target": targets.to_numpy()}
        )
        for col in metadata:
            if col in ROLE_COLUMNS:
                raise DataError(f"{where}: metadata column '{col}' clashes with a role name; rename it.")
            out[col] = frame[col].to_numpy()
        made = cls(out, name=name or "dataset", source=source)
        made.roles = {role: ", ".join(cols) for role, cols in wanted.items() if cols and cols != [role]}
        return made

    @classmethod
    def from_records(cls, records: Sequence[dict[str, Any]], **roles: Any) -> Dataset:
        """Build from a list of dicts, mapping roles as :meth:`from_frame` does.

        >>> Dataset.from_records([{"input": "a", "target": "b"}]).ids
        ['0']
        """
        return cls.from_frame(pd.DataFrame.from_records(list(records)), **roles)

    # ------------------------------------------------------------------ access
    def __len__(self) -> int:
        return len(self._frame)

    def __repr__(self) -> str:
        meta = f", metadata={self.metadata_columns}" if self.metadata_columns else ""
        return f"Dataset(name={self.name!r}, n={len(self)}{meta})"

    def __getitem__(self, i: int) -> dict[str, Any]:
        return self._frame.iloc[i].to_dict()

    @property
    def frame(self) -> pd.DataFrame:
        """The underlying table (a copy: a Dataset is never changed in place)."""
        return self._frame.copy()

    @property
    def ids(self) -> list[str]:
        return self._frame["id"].tolist()

    @property
    def inputs(self) -> list[Any]:
        return self._frame["input"].tolist()

    @property
    def targets(self) -> list[Any]:
        return self._frame["target"].tolist()

    @property
    def metadata_columns(self) -> list[str]:
        return [c for c in self._frame.columns if c not in ROLE_COLUMNS]

    def column(self, name: str) -> pd.Series:
        """One column by name (a role or a metadata column), with a helpful error in the user's column names.

        >>> ds = Dataset.from_frame(pd.DataFrame({"question": ["a"], "answer": ["b"], "source": ["x"]}),
        ...                         input="question", target="answer")
        >>> ds.column("sorce")
        Traceback (most recent call last):
        ...
        gengap._errors.DataError: Dataset 'dataset' has no column 'sorce'. Did you mean 'source'? Its columns: source (metadata); question (the input), answer (the target).
        """
        if name not in self._frame.columns:
            users = [self.roles.get(c, c) for c in ROLE_COLUMNS if c in self._frame.columns]
            meta = self.metadata_columns
            roles = ", ".join(f"{self.roles.get(c, c)} (the {c})" for c in ROLE_COLUMNS
                              if c in self._frame.columns and (c != "id" or "id" in self.roles))
            raise DataError(
                f"Dataset '{self.name}' has no column '{name}'.{did_you_mean(name, [*meta, *users])} "
                f"Its columns: {', '.join(meta) + ' (metadata); ' if meta else 'no metadata; '}{roles}."
            )
        return self._frame[name]

    def take(self, indices: Sequence[int] | np.ndarray, *, name: str | None = None) -> Dataset:
        """The examples at ``indices`` (positions), in that order, as a new Dataset."""
        idx = np.asarray(indices, dtype=np.int64)
        out = Dataset(self._frame.iloc[idx].reset_index(drop=True), name=name or self.name, source=self.source)
        out.roles = dict(self.roles)
        return out

    def with_columns(self, **columns: Any) -> Dataset:
        """A copy with metadata columns added or replaced (roles cannot be replaced this way)."""
        frame = self._frame.copy()
        for key, values in columns.items():
            if key in ROLE_COLUMNS:
                raise DataError(f"with_columns cannot replace the role column '{key}'.")
            frame[key] = list(values) if not np.isscalar(values) else values
        out = Dataset(frame, name=self.name, source=self.source)
        out.roles = dict(self.roles)
        return out

    def fingerprint(self) -> str:
        """A short content hash of ids, inputs and targets (stable across processes; computed once)."""
        if self._fingerprint is None:
            h = hashlib.sha256()
            for col in ROLE_COLUMNS:
                h.update(pd.util.hash_pandas_object(self._frame[col].astype(str), index=False).to_numpy().tobytes())
            self._fingerprint = h.hexdigest()[:16]
        return self._fingerprint

    def to_records(self) -> list[dict[str, Any]]:
        """Rows as dicts with role names: what ``gengap split`` writes to JSONL."""
        return self._frame.to_dict(orient="records")
