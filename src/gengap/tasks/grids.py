"""Compositional grid transformations (Compositional-ARC style): geometric transforms and recolourings.

Each example is a small grid of colours (``0`` is the background) and an instruction naming one
geometric transform and one recolouring; the target is the grid after both. Some combinations are
held out of training while each transform and each recolouring stays seen in other combinations,
so the ``combination`` split asks whether a model composes known parts in a new way.

Grids are written row by row with ``|`` between rows, after the instruction:
``"rot90 cycle : 1 0 | 0 2"`` -> ``"0 3 | 2 0"`` with three colours (see :func:`transform_grid`).

>>> g = np.array([[1, 0], [0, 2]])
>>> transform_grid(g, "rot90", "cycle", n_colors=3).tolist()
[[0, 3], [2, 0]]
>>> inverse = transform_grid(transform_grid(g, "rot90", "cycle", 3), "rot270", "uncycle", 3)
>>> bool((inverse == g).all())
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from gengap._errors import ConfigError
from gengap.dataset import Dataset
from gengap.tasks._registry import Param, task
from gengap.tasks._text import Text
from gengap.tasks.algorithmic import make_dataset

__all__ = ["GEOMETRIC", "RECOLOURINGS", "INVERSE", "transform_grid", "grid_text", "grids"]

Batch = np.ndarray  # (n, size, size) integer grids

#: Geometric transforms of a batch of square grids (all invertible).
GEOMETRIC: dict[str, Callable[[Batch], Batch]] = {
    "identity": lambda g: g,
    "rot90": lambda g: np.rot90(g, 1, axes=(1, 2)),
    "rot180": lambda g: np.rot90(g, 2, axes=(1, 2)),
    "rot270": lambda g: np.rot90(g, 3, axes=(1, 2)),
    "flip_h": lambda g: g[:, :, ::-1],
    "flip_v": lambda g: g[:, ::-1, :],
    "transpose": lambda g: np.swapaxes(g, 1, 2),
    "shift_right": lambda g: np.roll(g, 1, axis=2),
    "shift_left": lambda g: np.roll(g, -1, axis=2),
    "shift_down": lambda g: np.roll(g, 1, axis=1),
    "shift_up": lambda g: np.roll(g, -1, axis=1),
}


def _cycle(g: Batch, k: int, step: int) -> Batch:
    return np.where(g > 0, (g - 1 + step) % k + 1, 0)


#: Recolourings of non-background colours ``1..n_colors``; ``mono`` (every colour to 1) is not invertible.
RECOLOURINGS: dict[str, Callable[[Batch, int], Batch]] = {
    "keep": lambda g, k: g,
    "cycle": lambda g, k: _cycle(g, k, 1),
    "uncycle": lambda g, k: _cycle(g, k, -1),
    "swap12": lambda g, k: np.where(g == 1, 2, np.where(g == 2, 1, g)),
    "invert": lambda g, k: np.where(g > 0, k + 1 - g, 0),
    "mono": lambda g, k: (g > 0).astype(g.dtype),
}

#: The inverse of each invertible transform and recolouring.
INVERSE = {"identity": "identity", "rot90": "rot270", "rot270": "rot90", "rot180": "rot180", "flip_h": "flip_h",
           "flip_v": "flip_v", "transpose": "transpose", "shift_right": "shift_left", "shift_left": "shift_right",
           "shift_down": "shift_up", "shift_up": "shift_down", "keep": "keep", "cycle": "uncycle", "uncycle": "cycle",
           "swap12": "swap12", "invert": "invert"}

_DEFAULT_GEOMETRIC = ("rot90", "rot180", "flip_h", "flip_v", "transpose", "shift_right")
_DEFAULT_RECOLOUR = ("keep", "cycle", "swap12", "invert")


def transform_grid(grid: np.ndarray, geometric: str, recolour: str, n_colors: int) -> np.ndarray:
    """One grid (or a batch) after the geometric transform, then the recolouring."""
    batch = np.asarray(grid)[None] if np.ndim(grid) == 2 else np.asarray(grid)
    out = RECOLOURINGS[recolour](GEOMETRIC[geometric](batch), n_colors)
    return out[0] if np.ndim(grid) == 2 else out


def _grid_codes(batch: Batch) -> Text:
    n, s, _ = batch.shape
    out = np.full((n, s, 2 * s + 2), 32, dtype=np.uint8)
    out[:, :, 0:2 * s:2] = 48 + batch
    out[:, :, 2 * s] = ord("|")
    return Text.symbols(out.reshape(n, -1), np.full(n, s * (2 * s + 2) - 3))


def grid_text(batch: Batch) -> list[str]:
    """Grids (n, s, s) of digits as strings ``"1 0 | 0 2"``.

    >>> grid_text(np.array([[[1, 0], [0, 2]]]))
    ['1 0 | 0 2']
    """
    return _grid_codes(np.asarray(batch)).column().tolist()


def _names(text: str, valid: dict[str, Any], param: str) -> tuple[str, ...]:
    names = tuple(x.strip() for x in text.split(",") if x.strip())
    bad = [x for x in names if x not in valid]
    if bad or not names:
        raise ConfigError(f"{param}={text!r}: unknown name(s) {bad}; valid names are {', '.join(valid)}.")
    return names


def _check(p: dict[str, Any]) -> None:
    if p["min_size"] > p["max_size"]:
        raise ConfigError(f"min_size={p['min_size']} must be <= max_size={p['max_size']}.")
    geo, rec = _names(p["geometric"], GEOMETRIC, "geometric"), _names(p["recolourings"], RECOLOURINGS, "recolourings")
    most = len(geo) * len(rec) - max(len(geo), len(rec))
    if p["n_held_out"] > most:
        raise ConfigError(f"n_held_out={p['n_held_out']} must be <= {most}: with {len(geo)} transforms and {len(rec)} "
                          "recolourings, holding out more would leave some part unseen in training.")
    if p["n_colors"] < 2 and "swap12" in rec:
        raise ConfigError(f"n_colors={p['n_colors']} must be >= 2 when the recolourings include swap12.")


def _held_out(rng: np.random.Generator, geo: tuple[str, ...], rec: tuple[str, ...], k: int) -> set[tuple[str, str]]:
    """k combinations to hold out, each transform and recolouring still seen in some other combination."""
    combos = [(g, r) for g in geo for r in rec]
    seen_g = {g: len(rec) for g in geo}
    seen_r = {r: len(geo) for r in rec}
    held: set[tuple[str, str]] = set()
    for i in rng.permutation(len(combos)):
        if len(held) == k:
            break
        g, r = combos[i]
        if seen_g[g] > 1 and seen_r[r] > 1:
            held.add((g, r))
            seen_g[g] -= 1
            seen_r[r] -= 1
    if len(held) < k:
        raise ConfigError(f"n_held_out={k} is too many for these transforms and recolourings; at most {len(held)} "
                          "can be held out while every part stays seen.")
    return held


@task("grids", "Grids under a geometric transform plus a recolouring; some combinations held out (Compositional-ARC style).",
      [Param("n", int, 10_000, "number of examples", 1, 20_000_000),
       Param("min_size", int, 3, "smallest grid side", 1, 9), Param("max_size", int, 5, "largest grid side", 1, 9),
       Param("n_colors", int, 4, "colours besides the background 0", 1, 9),
       Param("density", float, 0.5, "share of non-background cells", 0.0, 1.0),
       Param("geometric", str, ",".join(_DEFAULT_GEOMETRIC), f"comma-separated transforms from {', '.join(GEOMETRIC)}"),
       Param("recolourings", str, ",".join(_DEFAULT_RECOLOUR), f"comma-separated recolourings from {', '.join(RECOLOURINGS)}"),
       Param("n_held_out", int, 4, "combinations held out of training", 0, 1000)],
      splits={"iid": "random", "combination": "preset:column=combination_set,train=seen,test=held_out"}, check=_check)
def grids(*, n: int = 10_000, min_size: int = 3, max_size: int = 5, n_colors: int = 4, density: float = 0.5,
          geometric: str = ",".join(_DEFAULT_GEOMETRIC), recolourings: str = ",".join(_DEFAULT_RECOLOUR),
          n_held_out: int = 4, seed: int = 0) -> Dataset:
    """Inputs ``"<transform> <recolouring> : <grid>"``, targets the transformed grid. Metadata:
    ``geometric``, ``recolour``, ``combination``, ``combination_set`` (``seen``/``held_out``), ``size``.

    >>> ds = grids(n=1, min_size=2, max_size=2, n_colors=3, seed=0)
    >>> ds.inputs[0], ds.targets[0]
    ('flip_h cycle : 1 0 | 0 0', '0 2 | 0 0')
    """
    rng = np.random.default_rng(seed)
    geo, rec = _names(geometric, GEOMETRIC, "geometric"), _names(recolourings, RECOLOURINGS, "recolourings")
    held = _held_out(rng, geo, rec, n_held_out)
    g_idx, r_idx = rng.integers(0, len(geo), size=n), rng.integers(0, len(rec), size=n)
    sizes = rng.integers(min_size, max_size + 1, size=n)
    cells = np.where(rng.random((n, max_size, max_size)) < density, rng.integers(1, n_colors + 1, size=(n, max_size, max_size)), 0)
    input_parts: list[tuple[np.ndarray, Text]] = []
    target_parts: list[tuple[np.ndarray, Text]] = []
    for s in np.unique(sizes):
        for gi, gname in enumerate(geo):
            for ri, rname in enumerate(rec):
                rows = np.flatnonzero((sizes == s) & (g_idx == gi) & (r_idx == ri))
                if len(rows) == 0:
                    continue
                batch = cells[rows, :s, :s]
                input_parts.append((rows, Text.cat(f"{gname} {rname} : ", _grid_codes(batch))))
                target_parts.append((rows, _grid_codes(transform_grid(batch, gname, rname, n_colors))))
    inputs, targets = Text.scatter(n, input_parts), Text.scatter(n, target_parts)
    g_names, r_names = np.array(geo, dtype=object)[g_idx], np.array(rec, dtype=object)[r_idx]
    combo_index = g_idx * len(rec) + r_idx
    combination = np.array([f"{g}+{r}" for g in geo for r in rec], dtype=object)[combo_index]
    is_held = np.array([(g, r) in held for g in geo for r in rec])
    combination_set = np.array(["seen", "held_out"], dtype=object)[is_held[combo_index].astype(int)]
    return make_dataset("grids", inputs, targets, {"geometric": g_names, "recolour": r_names, "combination": combination,
                                                   "combination_set": combination_set, "size": sizes}, seed=seed)
