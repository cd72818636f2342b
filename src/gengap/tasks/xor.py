"""XOR clusters in high dimension with flipped labels: the benign-overfitting and grokking setting.

Four Gaussian clusters sit at ``±mu`` along two orthogonal random unit directions of a
``dim``-dimensional space; the clean label is the XOR of the two signs (opposite corners share a
label, so no linear classifier separates them). A fraction ``label_noise`` of training labels is
flipped. The input is a float vector (a numpy array per row, ready for scikit-learn); the
``clean_target`` column and the ``flipped`` flag let a report separate memorised noise from the rule.

>>> ds = xor_clusters(n=1000, dim=20, label_noise=0.1, seed=0)
>>> ds.inputs[0].shape, round(float(ds.column("flipped").mean()), 2)
((20,), 0.1)
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gengap.dataset import Dataset
from gengap.tasks._registry import Param, task
from gengap.tasks._text import Text

__all__ = ["xor_clusters"]


@task("xor", "XOR of two signs in a random 2-d subspace of high dimension, with a share of labels flipped.",
      [Param("n", int, 2000, "number of points", 4, 10_000_000),
       Param("dim", int, 100, "dimension of the inputs", 2, 10_000),
       Param("mu", float, 3.0, "distance of each cluster centre from the origin along each direction", 0.0, 1e6),
       Param("sigma", float, 1.0, "standard deviation of the isotropic noise", 0.0, 1e6),
       Param("label_noise", float, 0.1, "share of labels flipped", 0.0, 0.5)],
      splits={"iid": "random"})
def xor_clusters(*, n: int = 2000, dim: int = 100, mu: float = 3.0, sigma: float = 1.0, label_noise: float = 0.1,
                 seed: int = 0) -> Dataset:
    """Points ``x = mu * (s1 u1 + s2 u2) + sigma * z``; target ``int(s1 != s2)``, flipped for
    ``round(label_noise * n)`` points. Metadata: ``cluster`` (0-3), ``clean_target``, ``flipped``."""
    rng = np.random.default_rng(seed)
    basis, _ = np.linalg.qr(rng.standard_normal((dim, 2)))
    signs = rng.integers(0, 2, size=(n, 2)) * 2 - 1
    x = mu * signs @ basis.T + sigma * rng.standard_normal((n, dim))
    clean = (signs[:, 0] != signs[:, 1]).astype(np.int64)
    flipped = np.zeros(n, dtype=bool)
    flipped[rng.choice(n, size=int(round(label_noise * n)), replace=False)] = True
    target = np.where(flipped, 1 - clean, clean)
    cluster = (signs[:, 0] > 0) * 2 + (signs[:, 1] > 0)
    frame = pd.DataFrame({"id": Text.cat(f"xor-{seed}-", Text.number(np.arange(n))).column(),
                          "input": list(x.astype(np.float32)), "target": target,
                          "cluster": cluster, "clean_target": clean, "flipped": flipped})
    return Dataset(frame, name="xor", source="gengap.tasks:xor")
