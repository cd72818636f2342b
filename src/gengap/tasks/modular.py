"""Modular arithmetic tables ``a ∘ b mod p`` for the binary operations of Power et al. (2022).

The whole table is the dataset (every pair ``a, b`` in ``0..p-1``; division skips ``b = 0``); the
classic grokking setting trains on a random ``train_fraction`` of it and tests on the rest, which
is the task's natural ``iid`` split. Inputs are ``"a <op> b ="`` with one token per number.

=============  ===========================================  ===================
``operation``  result                                       needs
=============  ===========================================  ===================
``add``        a + b                                        any p
``sub``        a - b                                        any p
``mul``        a * b                                        any p
``div``        a * b^-1 (b != 0)                            p prime
``div_odd``    a / b if b is odd, else a - b (b != 0)       p prime
``sq_sum``     a^2 + b^2                                    any p
``quad1``      a^2 + ab + b^2                               any p
``quad2``      a^2 + ab + b^2 + a                           any p
``cube1``      a^3 + ab                                     any p
``cube2``      a^3 + ab^2 + b                               any p
=============  ===========================================  ===================

>>> ds = modular_table(p=5, operation="div", seed=0)
>>> len(ds), ds.inputs[7], ds.targets[7]
(20, '1 / 4 =', '4')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gengap._errors import ConfigError
from gengap.dataset import Dataset
from gengap.tasks._registry import Param, task
from gengap.tasks._text import Text
from gengap.tasks.algorithmic import make_dataset

__all__ = ["modular_table", "OPERATIONS"]

_SYMBOL = {"add": "+", "sub": "-", "mul": "*", "div": "/", "div_odd": "/?", "sq_sum": "o1", "quad1": "o2",
           "quad2": "o3", "cube1": "o4", "cube2": "o5"}
#: The operations and how each is written in the input.
OPERATIONS = tuple(_SYMBOL)


def _is_prime(p: int) -> bool:
    return p >= 2 and all(p % k for k in range(2, int(p ** 0.5) + 1))


def _check(params: dict[str, Any]) -> None:
    if params["operation"] in ("div", "div_odd") and not _is_prime(params["p"]):
        raise ConfigError(f"p={params['p']} must be prime for operation={params['operation']!r} "
                          "(division needs every non-zero b to have an inverse), e.g. p=97.")


def _apply(op: str, a: np.ndarray, b: np.ndarray, p: int) -> np.ndarray:
    if op in ("div", "div_odd"):
        inv = np.array([0] + [pow(int(x), -1, p) for x in range(1, p)], dtype=np.int64)
        quotient = a * inv[b] % p
        return quotient if op == "div" else np.where(b % 2 == 1, quotient, (a - b) % p)
    formulas = {
        "add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b, "sq_sum": lambda: a * a + b * b,
        "quad1": lambda: a * a + a * b + b * b, "quad2": lambda: a * a + a * b + b * b + a,
        "cube1": lambda: a * a % p * a + a * b, "cube2": lambda: a * a % p * a + a * (b * b % p) + b,
    }
    return formulas[op]() % p


@task("modular", "Modular arithmetic table a∘b mod p (Power et al. 2022); the grokking setting trains on a fraction.",
      [Param("p", int, 97, "the modulus (prime for div and div_odd)", 2, 5000),
       Param("operation", str, "add", "the binary operation", choices=OPERATIONS),
       Param("train_fraction", float, 0.5, "share of the table used for training by the iid split", 0.01, 0.99)],
      splits={"iid": lambda p: f"random:test_fraction={round(1 - p['train_fraction'], 6)}"}, check=_check)
def modular_table(*, p: int = 97, operation: str = "add", train_fraction: float = 0.5, seed: int = 0) -> Dataset:
    """Every ``a ∘ b mod p`` once, in row-major order of ``(a, b)``. Metadata: ``a``, ``b``, ``operation``.
    The seed does not change the table; the ``iid`` split draws the training fraction with the
    evaluation's seed.
    """
    a, b = (g.ravel().astype(np.int64) for g in np.meshgrid(np.arange(p), np.arange(p), indexing="ij"))
    if operation in ("div", "div_odd"):
        keep = b != 0
        a, b = a[keep], b[keep]
    result = _apply(operation, a, b, p)
    inputs = Text.cat(Text.number(a), f" {_SYMBOL[operation]} ", Text.number(b), " =")
    return make_dataset(f"modular-{operation}-{p}", inputs, Text.number(result),
                        {"a": a, "b": b, "operation": np.full(len(a), operation, dtype=object)}, seed=seed)
