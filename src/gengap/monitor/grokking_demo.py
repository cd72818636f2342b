"""``gengap demo grokking``: a network memorizes modular addition, then, much later, generalizes.

Power et al. (2022), "Grokking: generalization beyond overfitting on small algorithmic datasets":
trained on part of the table of ``(a + b) mod p`` with weight decay, a network first fits its
training pairs while held-out accuracy stays near chance, and only long after does held-out
accuracy jump to ~100%. Here: ``p = 97``, 40% of the 9,409 pairs for training, a small MLP over
learned embeddings of ``a`` and ``b``, full-batch AdamW with weight decay 1.0 -- on a CPU in a few
minutes. The :class:`~gengap.monitor.Monitor` flags memorization and grokking as they happen and
stores every measure in ``out/gengap.duckdb``; the report draws the curves with those marks.

``quick`` trains for a fixed short budget that shows memorization (grokking needs the full run).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from gengap.monitor._torch import require_torch

__all__ = ["main", "train", "write_outputs", "modular_addition", "make_model", "SETTINGS", "QUICK_SETTINGS"]

#: The full run: stops ``patience`` steps after held-out accuracy reaches 0.99, or at ``max_steps``.
SETTINGS: dict[str, Any] = {
    "p": 97, "train_fraction": 0.4, "embedding_size": 128, "hidden_size": 256, "learning_rate": 3e-3,
    "weight_decay": 1.0, "betas": (0.9, 0.98), "max_steps": 4000, "every": 50, "expensive_every": 250,
    "patience": 200, "max_seconds": 540.0,
}
#: ``--quick``: a short fixed budget, enough to see memorization.
QUICK_SETTINGS: dict[str, Any] = {**SETTINGS, "max_steps": 600, "every": 25, "expensive_every": 200, "max_seconds": 110.0}


def modular_addition(p: int, train_fraction: float, seed: int) -> tuple[Any, Any, Any, Any]:
    """``(x_train, y_train, x_heldout, y_heldout)``: every pair ``(a, b)`` with label ``(a + b) mod p``, split at random.

    >>> x_tr, y_tr, x_te, y_te = modular_addition(7, 0.5, seed=0)
    >>> len(x_tr) + len(x_te), bool(((x_tr[:, 0] + x_tr[:, 1]) % 7 == y_tr).all())
    (49, True)
    """
    torch = require_torch()
    a = torch.arange(p).repeat_interleave(p)
    b = torch.arange(p).repeat(p)
    x, y = torch.stack([a, b], dim=1), (a + b) % p
    order = torch.randperm(p * p, generator=torch.Generator().manual_seed(seed))
    n_train = int(round(train_fraction * p * p))
    tr, te = order[:n_train], order[n_train:]
    return x[tr], y[tr], x[te], y[te]


def make_model(p: int, embedding_size: int, hidden_size: int) -> Any:
    """Embeddings of the two operands, concatenated, through one ReLU layer to ``p`` logits."""
    torch = require_torch()

    class ModularMLP(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = torch.nn.Embedding(p, embedding_size)
            self.hidden = torch.nn.Linear(2 * embedding_size, hidden_size)
            self.out = torch.nn.Linear(hidden_size, p)

        def forward(self, x: Any) -> Any:
            return self.out(torch.relu(self.hidden(self.embed(x).flatten(1))))

    return ModularMLP()


def train(out: Path, *, settings: dict[str, Any], seed: int, run_name: str = "grokking",
          measures: list[Any] | None = None, console: Any = sys.stderr, demo: dict[str, Any] | None = None) -> dict[str, Any]:
    """Train one run with a Monitor writing to ``out/gengap.duckdb``; return its figures.

    ``demo`` (``{"name": "grokking", "quick": True}``) is stored with the run, so the report can say
    that a quick run stops before grokking.
    """
    torch = require_torch()
    from gengap.monitor import GradientCoherence, Monitor, Sharpness
    from gengap.monitor._data_diet import DataDiet

    s = settings
    torch.manual_seed(seed)
    x_tr, y_tr, x_te, y_te = modular_addition(s["p"], s["train_fraction"], seed)
    model = make_model(s["p"], s["embedding_size"], s["hidden_size"])
    opt = torch.optim.AdamW(model.parameters(), lr=s["learning_rate"], weight_decay=s["weight_decay"],
                            betas=tuple(s["betas"]))
    if measures is None:
        measures = ["distance", "rotation", "norms", "spectral", "margin", Sharpness(), GradientCoherence(), DataDiet()]
    hyper = {k: s[k] for k in ("train_fraction", "weight_decay", "learning_rate")}
    mon = Monitor(model, store=Path(out) / "gengap.duckdb", run_name=run_name, train_eval=(x_tr, y_tr),
                  heldout_eval=(x_te, y_te), every=s["every"], expensive_every=s["expensive_every"],
                  measures=measures, chance=1.0 / s["p"], console=console,
                  config={"hyperparameters": hyper, "seed": seed, "settings": {k: list(v) if isinstance(v, tuple) else v
                                                                             for k, v in s.items()},
                          **({"demo": demo} if demo else {})})
    started = time.perf_counter()
    stop_at = None
    step = 0
    try:
        for step in range(1, s["max_steps"] + 1):
            loss = torch.nn.functional.cross_entropy(model(x_tr), y_tr)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            mon.step(loss=loss, batch=(x_tr, y_tr))
            last = mon.latest("heldout_accuracy")
            if stop_at is None and last is not None and last[0] == step and last[1] >= 0.99:
                stop_at = step + s["patience"]
            if (stop_at is not None and step >= stop_at) or time.perf_counter() - started > s["max_seconds"]:
                break
    finally:
        mon.close()
    verdict, reason = mon.decision()
    return {
        "run_id": mon.run_id, "steps": step, "wall_seconds": round(time.perf_counter() - started, 1),
        "memorized_at_step": mon.detector.memorized_at, "grokked_at_step": mon.detector.grokked_at,
        "train_fit_at_step": mon.detector.fit_step, "delay_steps": mon.detector.delay if mon.detector.grokked_at else None,
        "final_train_accuracy": mon.latest("train_accuracy")[1],
        "final_heldout_accuracy": mon.latest("heldout_accuracy")[1],
        "verdict": verdict, "reason": reason,
        "events": [{"step": e.step, "kind": e.kind, "message": e.message} for e in mon.events],
        "measure_seconds": {k: round(sum(v), 3) for k, v in mon.costs.items()},
        "hyperparameters": hyper, "seed": seed,
    }


def main(out: Path, quick: bool = False, seed: int = 0) -> dict[str, Any]:
    """Run the grokking demo into the folder ``out``: store, report (index.html, report.md) and results.json.

    Returns the figures written to ``results.json``: ``memorized_at_step``, ``grokked_at_step`` (None when the
    run did not grok, as with ``quick``), ``final_train_accuracy``, ``final_heldout_accuracy``, the delay and the
    wall time.
    """
    torch = require_torch()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        settings = QUICK_SETTINGS if quick else SETTINGS
        result = train(out, settings=settings, seed=seed,
                       demo={"name": "grokking", "quick": quick, "full_max_steps": SETTINGS["max_steps"]})
    finally:
        torch.set_num_threads(threads)
    return write_outputs(out, {"demo": "grokking", "quick": quick, "p": settings["p"], **result})


def write_outputs(out: Path, result: dict[str, Any]) -> dict[str, Any]:
    """Render the report of ``result["run_id"]`` (when the report package is there) and write ``results.json``."""
    try:
        from gengap.report import write_report
    except ImportError:  # a gengap without the report package still gets the store and results.json
        write_report = None
    if write_report is not None:
        write_report(out / "gengap.duckdb", result["run_id"], out, formats=("html", "md"))
    (out / "results.json").write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return result
