"""Where a run's results store is: its file name, and a folder or file given by a user resolved to it.

Kept apart from :mod:`gengap.store` (which loads numpy, pandas and pyarrow) so that what only needs the
path, such as ``gengap view`` starting, does not load them. :mod:`gengap.store` re-exports both names.
"""

from __future__ import annotations

from pathlib import Path

from gengap._errors import StoreError

__all__ = ["STORE_NAME", "resolve_store"]

#: File name of the results store inside an output folder.
STORE_NAME = "gengap.duckdb"


def resolve_store(path: str | Path) -> Path:
    """A ``gengap.duckdb`` file, or a folder holding one, to the store file; anything else raises.

    >>> resolve_store("/no/such/folder")
    Traceback (most recent call last):
    ...
    gengap._errors.StoreError: '/no/such/folder' does not exist. Give the --out folder of a gengap run (it holds gengap.duckdb) or the store file itself.
    """
    p = Path(path)
    if not p.exists():
        raise StoreError(f"'{p}' does not exist. Give the --out folder of a gengap run (it holds {STORE_NAME}) or the store file itself.")
    if p.is_dir():
        store = p / STORE_NAME
        if not store.is_file():
            found = sorted(q.name for q in p.glob("*.duckdb"))
            hint = f" It holds {', '.join(found)}; pass one of them." if found else ""
            raise StoreError(f"'{p}' is not a gengap run: it holds no results store ({STORE_NAME}).{hint} "
                             "Give the --out folder of 'gengap eval', 'gengap demo' or 'gengap import', or the store file.")
        return store
    with open(p, "rb") as f:
        head = f.read(16)
    if head[8:12] != b"DUCK":
        raise StoreError(f"'{p}' is not a gengap run: it is not a DuckDB file. Give the --out folder of a gengap run "
                         f"or its {STORE_NAME}.")
    return p
