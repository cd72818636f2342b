"""Reading back a split folder written by ``gengap split`` (train.jsonl, test.jsonl, split.json)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from gengap._errors import DataError
from gengap.dataset import Dataset
from gengap.io import read_jsonl
from gengap.splits._base import Split, SplitDiagnostics, TaxonomyCard
from gengap.splits._diagnostics import SPLIT_KEYS

__all__ = ["load_split"]


def load_split(folder: str | Path) -> Split:
    """A Split (with its dataset: train rows then test rows) from a folder written by ``Split.save``.

    >>> import gengap, tempfile
    >>> ds = gengap.load([{"input": str(i), "target": "t"} for i in range(10)])
    >>> d = gengap.RandomSplit().split_dataset(ds).save(tempfile.mkdtemp())
    >>> gengap.load_split(d).diagnostics.n_test
    2
    """
    folder = Path(folder)
    for name in ("train.jsonl", "test.jsonl", "split.json"):
        if not (folder / name).exists():
            raise DataError(f"Split folder '{folder}' has no {name}. Write one with: gengap split DATA --method ... --out {folder}")
    try:
        info = json.loads((folder / "split.json").read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise DataError(f"'{folder / 'split.json'}' line {e.lineno}: invalid JSON ({e.msg}).") from None
    # a split that trains nothing (method "all") writes an empty train part
    empty_train = info.get("n_train") == 0 and not (folder / "train.jsonl").read_text(encoding="utf-8").strip()
    train = [] if empty_train else read_jsonl(folder / "train.jsonl")
    test = read_jsonl(folder / "test.jsonl")
    frame = pd.DataFrame.from_records(train + test)
    dataset = Dataset.from_frame(frame, id="id", name=(info.get("dataset") or {}).get("name") or folder.name, source=str(folder))
    # "dataset" stays in the diagnostics: the split records the data it was cut from (its fingerprint), not
    # the reloaded copy whose rows are in train-then-test order, so folders of one dataset show one fingerprint.
    known = set(SPLIT_KEYS) - {"dataset"}
    try:
        card = TaxonomyCard(**info["taxonomy"])
    except (KeyError, TypeError) as e:
        raise DataError(f"'{folder / 'split.json'}' has no valid 'taxonomy' record ({e}).") from None
    params = dict(info.get("params", {}))
    return Split(
        name=info.get("name", folder.name), method=info.get("method", "file"),
        train=np.arange(len(train)), test=np.arange(len(train), len(train) + len(test)),
        seed=info.get("seed"), params=params,
        diagnostics=SplitDiagnostics.from_dict({k: v for k, v in info.items() if k not in known}), card=card,
        dataset=dataset,
    )
