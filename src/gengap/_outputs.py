"""Output folders checked before any work starts, so a wrong ``--out`` fails at once, not after a split."""

from __future__ import annotations

from pathlib import Path

from gengap._errors import ConfigError

__all__ = ["check_out_folder"]


def check_out_folder(path: str | Path, *, option: str = "--out") -> Path:
    """``path`` as a Path, after checking it is a folder or can become one; raises ConfigError otherwise.

    A folder that exists is fine (its files are added to or replaced); a file there, or a file where
    one of its parent folders should be, is an error naming both.

    >>> import tempfile, os
    >>> folder = tempfile.mkdtemp()
    >>> check_out_folder(os.path.join(folder, "report")).name
    'report'
    >>> open(os.path.join(folder, "taken"), "w").close()
    >>> check_out_folder(os.path.join(folder, "taken"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    gengap._errors.ConfigError: --out '...taken' is a file, not a folder. ...
    """
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise ConfigError(f"{option} '{path}' is a file, not a folder. Give a folder for the output files "
                          f"(it is created if missing), e.g. {option} {path.with_suffix('')}-out/.")
    for parent in path.parents:
        if parent.exists() and not parent.is_dir():
            raise ConfigError(f"{option} '{path}' cannot be created: '{parent}' is a file, not a folder. "
                              "Give a folder path whose parents are folders.")
    return path
