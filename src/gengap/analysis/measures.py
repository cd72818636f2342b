"""Generalization measures over a set of runs: how well each ranks runs by their observed gap.

The functions live in :mod:`gengap.monitor` (with the training-time measures themselves); this module
is the short public path ``gengap.analysis.measures.rank_correlation(runs)``. Importing it does not import torch.

>>> import pandas as pd, gengap.analysis.measures
>>> runs = pd.DataFrame({"gap": [0.1, 0.5, 0.9], "param_norm": [1.0, 2.0, 3.0]})
>>> float(gengap.analysis.measures.rank_correlation(runs)["kendall_tau"].iloc[0])
1.0
"""

from gengap.monitor._rank import rank_correlation, runs_table

__all__ = ["rank_correlation", "runs_table"]
