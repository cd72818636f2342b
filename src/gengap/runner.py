"""Running models over splits: plan shards, fit learners, predict in batches, score, store.

:func:`evaluate` is the one-call entry point (like scikit-learn's ``train_test_split`` over its
splitters): it returns an :class:`Evaluation` whose per-example rows live in the results store.

>>> import gengap
>>> ds = gengap.load([{"input": "x " * i, "target": "x " * i} for i in range(1, 50)])
>>> ev = gengap.evaluate(lambda xs: xs, ds, ["random", "length"], progress=False)
>>> ev.summary()[["split", "score"]].values.tolist()
[['random', 1.0], ['length', 1.0]]
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from gengap._errors import ConfigError, GengapError, ModelError
from gengap._progress import progress
from gengap.dataset import Dataset
from gengap.metrics import get_metric, score
from gengap.models import Model, as_model
from gengap.splits import Split, Splitter, make_splitter
from gengap.store import Store
from gengap.summary import summarize

__all__ = ["evaluate", "Evaluation", "STORE_NAME"]

#: File name of the results store inside an output folder.
STORE_NAME = "gengap.duckdb"

ModelLike = Any
SplitLike = str | Splitter | Split


@dataclass
class Evaluation:
    """The outcome of :func:`evaluate`: a run in a results store, and ways to look at it.

    Attributes
    ----------
    store_path : the DuckDB file holding the run's rows.
    run_id : the run's id in that store.
    out : the output folder (where ``report`` writes by default).
    """

    store_path: Path
    run_id: str
    out: Path
    reference: str | None = None
    _rows: pd.DataFrame | None = field(default=None, repr=False)

    def rows(self, metric: str | None = None) -> pd.DataFrame:
        """Per-example rows: model, split, perturbation, example_id, input, target, output, metric, score."""
        if self._rows is None:
            with Store(self.store_path, read_only=True) as store:
                self._rows = store.rows(self.run_id)
        return self._rows if metric is None else self._rows[self._rows["metric"] == metric]

    def split_info(self) -> dict[str, dict[str, Any]]:
        with Store(self.store_path, read_only=True) as store:
            return store.split_info(self.run_id)

    def summary(self, *, confidence: float = 0.95, n_resamples: int = 10_000, seed: int = 0) -> pd.DataFrame:
        """Score per (model, split, metric) with a bootstrap interval, and the gap to the i.i.d. split."""
        return summarize(self.rows(), self.split_info(), reference=self.reference, confidence=confidence,
                         n_resamples=n_resamples, seed=seed)

    def report(self, out: str | Path | None = None, *, formats: Sequence[str] = ("html", "md", "json")) -> Path:
        """Write ``index.html``, ``report.md`` and ``results.json`` for this run; returns the folder."""
        from gengap.report import write_report

        return write_report(self.store_path, self.run_id, Path(out) if out else self.out, formats=formats,
                            reference=self.reference)


def _normalize_models(model: ModelLike | Mapping[str, ModelLike] | Sequence[ModelLike]) -> list[Model]:
    if isinstance(model, Mapping):
        models = [as_model(m, name=str(n)) for n, m in model.items()]
    elif isinstance(model, (list, tuple)):
        models = [as_model(m) for m in model]
    else:
        models = [as_model(model)]
    names = [m.name for m in models]
    if len(set(names)) != len(names):
        raise ConfigError(f"Models need distinct names, got {names}; pass a dict {{name: model}}.")
    return models


def _resolve_splits(dataset: Dataset, splits: Sequence[SplitLike], *, seed: int, test_fraction: float) -> list[Split]:
    out: list[Split] = []
    for spec in splits:
        if isinstance(spec, Split):
            made = [spec]
        else:
            splitter = make_splitter(spec, seed=seed, test_fraction=test_fraction)
            made = splitter.split_datasets(dataset)
        out.extend(made)
    names = [s.name for s in out]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ConfigError(f"Two splits share the name(s) {dupes}; give each split different options.")
    return out


def predict_batched(model: Model, inputs: list[Any], *, batch_size: int, where: str, bar: Any = None) -> list[Any]:
    """Run ``model.predict`` over ``inputs`` in batches, checking every batch's length."""
    outputs: list[Any] = []
    for start in range(0, len(inputs), batch_size):
        batch = inputs[start:start + batch_size]
        try:
            got = model.predict(batch)
        except GengapError:
            raise
        except Exception as e:
            raise ModelError(
                f"Model '{model.name}' raised {type(e).__name__}: {e} — on {where}, rows {start}..{start + len(batch) - 1}. "
                "Results of earlier shards are kept in the store."
            ) from e
        got = list(got.tolist() if hasattr(got, "tolist") else got)
        if len(got) != len(batch):
            raise ModelError(
                f"Model '{model.name}' returned {len(got)} outputs for a batch of {len(batch)} inputs on {where}, "
                f"rows {start}..{start + len(batch) - 1}. A model must return one output per input."
            )
        outputs.extend(got)
        if bar is not None:
            bar.advance(len(batch))
    return outputs


def evaluate(
    model: ModelLike | Mapping[str, ModelLike] | Sequence[ModelLike],
    dataset: Dataset,
    splits: Sequence[SplitLike] = ("random",),
    *,
    metrics: Sequence[str] = ("exact_match",),
    out: str | Path | None = None,
    name: str = "eval",
    batch_size: int = 512,
    shard_size: int = 100_000,
    seed: int = 0,
    test_fraction: float = 0.2,
    reference: str | None = None,
    config: Mapping[str, Any] | None = None,
    perturbations: Sequence[Any] = (),
    progress: bool | None = None,
) -> Evaluation:
    """Evaluate one or more models on each split's test part and store every per-example row.

    Parameters
    ----------
    model : a batch callable, a scikit-learn estimator (unfitted: trained on each split's train
        part), a gengap adapter, or a dict ``{name: model}`` of several.
    dataset : the examples (see :func:`gengap.load`).
    splits : splitter objects, Split records, or method specs such as ``"random"``,
        ``"length"``, ``"primitive:jump"``.
    metrics : names of per-example scorers (``exact_match``, ``normalized_match``, ``token_f1``).
    out : output folder for the store (``gengap.duckdb``) and the report; a temporary folder if None.
    seed, test_fraction : defaults for splitters built from specs.
    reference : the split gaps are measured from (default: the random split).
    perturbations : objects with a ``name`` and ``apply(dataset, seed) -> Dataset`` that return
        variants of a test part with the same example ids; each variant is scored and stored under
        the perturbation's name, paired with the clean rows.

    Returns
    -------
    Evaluation, with ``summary()``, ``rows()`` and ``report()``.
    """
    for m in metrics:
        get_metric(m)
    models = _normalize_models(model)
    resolved = _resolve_splits(dataset, splits, seed=seed, test_fraction=test_fraction)
    out_dir = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="gengap-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    store_path = out_dir / STORE_NAME
    run_config = {
        "dataset": {"name": dataset.name, "n": len(dataset), "fingerprint": dataset.fingerprint()},
        "models": [m.name for m in models], "splits": [s.name for s in resolved], "metrics": list(metrics),
        "seed": seed, **(dict(config) if config else {}),
    }
    with Store(store_path) as store:
        run_id = store.start_run(name, run_config)
        try:
            for split in resolved:
                store.add_split(run_id, split)
                test = split.test_part
                for m in models:
                    fitted = m
                    if m.needs_fit:
                        train = split.train_part
                        try:
                            fitted = m.fit(train.inputs, train.targets)
                        except GengapError:
                            raise
                        except Exception as e:
                            raise ModelError(f"Training '{m.name}' on split '{split.name}' failed: {type(e).__name__}: {e}") from e
                    _run_shards(store, run_id, fitted, split.name, test, metrics=metrics,
                                batch_size=batch_size, shard_size=shard_size, show=progress)
                    for perturbation in perturbations:
                        variant = perturbation.apply(test, seed)
                        _run_shards(store, run_id, fitted, split.name, variant, metrics=metrics, batch_size=batch_size,
                                    shard_size=shard_size, show=progress, perturbation=perturbation.name)
        except BaseException:
            store.finish_run(run_id, "failed")
            raise
        store.finish_run(run_id, "done")
    return Evaluation(store_path=store_path, run_id=run_id, out=out_dir, reference=reference)


def _run_shards(store: Store, run_id: str, model: Model, split: str, test: Dataset, *, metrics: Sequence[str],
                batch_size: int, shard_size: int, show: bool | None, perturbation: str = "none") -> None:
    ids, inputs, targets = test.ids, test.inputs, test.targets
    n = len(ids)
    label = split if perturbation == "none" else f"{split} / {perturbation}"
    with progress(f"{model.name} on {label}", total=n, enabled=show) as bar:
        for start in range(0, n, shard_size):
            stop = min(n, start + shard_size)
            where = f"split '{split}', perturbation '{perturbation}' (shard {start}..{stop - 1})"
            outputs = predict_batched(model, inputs[start:stop], batch_size=batch_size, where=where, bar=bar)
            scores = {m: score(m, outputs, targets[start:stop]) for m in metrics}
            variant = perturbation != "none"
            store.add_predictions(run_id, model=model.name, split=split, example_ids=ids[start:stop],
                                  outputs=outputs, scores=scores, perturbation=perturbation,
                                  shard=f"{model.name}/{split}/{perturbation}/{start}",
                                  variant_inputs=inputs[start:stop] if variant else None,
                                  variant_targets=targets[start:stop] if variant else None)

