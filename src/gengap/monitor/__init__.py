"""Training-time monitoring: the generalization gap, memorization and grokking, and measures that need no test set.

Two lines in a plain PyTorch loop::

    mon = Monitor(model, store="out/gengap.duckdb", train_eval=(x_tr, y_tr), heldout_eval=(x_te, y_te))
    ...                       # after optimizer.step():
    mon.step(loss=loss, batch=(x, y))

or a callback: :class:`LightningMonitor` (PyTorch Lightning) and :class:`HFMonitorCallback`
(Hugging Face ``Trainer``). Every measure is a small module naming its paper and cost:

=================  =========  ===================================================================
name               cost       what (paper)
=================  =========  ===================================================================
``distance``       cheap      distance from init and its fit on log(step) (Hoffer et al. 2017)
``rotation``       cheap      per-layer cosine distance to init (Carbonnelle & De Vleeschouwer 2019)
``norms``          cheap      parameter norms (Jiang et al. 2020)
``spectral``       cheap      spectral norms, log spectral product (Jiang et al. 2020)
``path_norm``      cheap      path norm, float inputs only (Jiang et al. 2020; Neyshabur et al. 2015)
``margin``         cheap      10th percentile output margin on a probe sample (Jiang et al. 2020)
``sharpness``      expensive  worst-case and random-direction loss rise in a relative box (Keskar 2017)
``coherence``      expensive  coherence of per-example gradients (Chatterjee 2020)
``el2n``           expensive  mean EL2N and GraNd on the probe (Paul et al. 2021)
ContinualEval      expensive  accuracy on earlier tasks, min-ACC, WC-ACC, stability gap (De Lange 2023)
=================  =========  ===================================================================

torch is imported only inside this package (``import gengap`` does not need it); the two callbacks load
Lightning or transformers only when first accessed, so they are not in ``__all__``.
"""

from __future__ import annotations

from typing import Any

from gengap.monitor._base import MEASURES, Measure, MeasureContext, make_measure, register_measure
from gengap.monitor._coherence import GradientCoherence, coherence
from gengap.monitor._continual import ContinualEval, worst_case_accuracy
from gengap.monitor._data_diet import DataDiet, el2n_scores, grand_scores, prune, prune_dataset
from gengap.monitor._detect import Event, GrokkingDetector
from gengap.monitor._evaluate import evaluate_model
from gengap.monitor._margin import Margin, margins
from gengap.monitor._monitor import DEFAULT_MEASURES, Monitor
from gengap.monitor._sharpness import Sharpness
from gengap.monitor._weights import Distance, LayerRotation, Norms, PathNorm, SpectralNorms, log_step_fit

__all__ = [
    "DEFAULT_MEASURES", "MEASURES", "ContinualEval", "DataDiet", "Distance", "Event", "GradientCoherence",
    "GrokkingDetector", "LayerRotation", "Margin", "Measure",
    "MeasureContext", "Monitor", "Norms", "PathNorm", "Sharpness", "SpectralNorms", "coherence", "el2n_scores",
    "evaluate_model", "grand_scores", "log_step_fit", "make_measure", "margins", "prune", "prune_dataset",
    "register_measure", "worst_case_accuracy",
]


def __getattr__(name: str) -> Any:
    """The framework callbacks load only when asked for (Lightning and transformers are optional)."""
    if name == "LightningMonitor":
        from gengap.monitor._lightning import LightningMonitor

        return LightningMonitor
    if name == "HFMonitorCallback":
        from gengap.monitor._hf import HFMonitorCallback

        return HFMonitorCallback
    raise AttributeError(f"module 'gengap.monitor' has no attribute {name!r}")
