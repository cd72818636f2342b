"""Running models over splits: plan shards, fit learners, predict on a backend, score, store.

:func:`evaluate` is the one-call entry point (like scikit-learn's ``train_test_split`` over its
splitters): it returns an :class:`Evaluation` whose per-example rows live in the results store.

The work is planned as shards (model x split x perturbation x chunk of ``shard_size`` rows). Each
shard is stored in one transaction with a record that it finished, so a run killed at any point
resumes where it stopped (``evaluate`` with the same arguments and ``out``, or ``gengap resume``),
and the store ends with every row exactly once. Outputs of cacheable models (functions,
endpoints) are cached by model fingerprint and input hash: a re-run asks the model nothing twice.

>>> import gengap
>>> ds = gengap.load([{"input": "x " * i, "target": "x " * i} for i in range(1, 50)])
>>> ev = gengap.evaluate(lambda xs: xs, ds, ["random", "length"], progress=False)
>>> ev.summary()[["split", "score"]].values.tolist()
[['random', 1.0], ['length', 1.0]]
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gengap._errors import ConfigError, GengapError, ModelError
from gengap._progress import progress
from gengap.backends import Backend, make_backend, predict_batched
from gengap.dataset import Dataset
from gengap.metrics import get_metric, score
from gengap.models import Model, as_model
from gengap.splits import Split, Splitter, make_splitter
from gengap.store import Store
from gengap.summary import summarize

__all__ = ["evaluate", "Evaluation", "STORE_NAME", "auto_shard_size", "input_hashes", "predict_batched"]

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
    model_calls : how many inputs were sent to a model in this call (0 when everything was cached or resumed).
    """

    store_path: Path
    run_id: str
    out: Path
    reference: str | None = None
    model_calls: int = 0
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

    def curve(self, axis: str, *, model: str | None = None, metric: str | None = None,
              splits: Sequence[str] | None = None, train_range: tuple[float, float] | None | str = "auto",
              bins: int | Sequence[float] | str | None = "auto", confidence: float = 0.95, n_resamples: int = 10_000,
              seed: int = 0) -> Any:
        """The score along ``axis`` with its break point: a metadata column, ``input_length``, ``target_length``,
        or ``irt_difficulty`` (1PL, fitted on every model of the run; needs two or more).

        Returns a :class:`gengap.analysis.curves.Curve` for one model and metric (default: the
        first of each). With a length split on the axis, the curve pools the i.i.d. split's rows
        (in range) and the length split's (beyond it) and marks the training range; see
        :func:`gengap.analysis.curves.run_curves`.
        """
        from gengap.analysis.curves import run_curves
        from gengap.summary import find_reference

        info = self.split_info()
        rows = self.rows()
        model = model if model is not None else str(rows["model"].iloc[0])
        metric = metric if metric is not None else str(rows["metric"].iloc[0])
        for what, value in (("model", model), ("metric", metric)):
            if value not in set(rows[what]):
                raise ConfigError(f"{what}={value!r} is not in this run (its {what}s: {', '.join(sorted(set(rows[what])))}).")
        curves = run_curves(rows[rows["metric"] == metric], info, axis, reference=find_reference(info, self.reference),
                            splits=splits, train_range=train_range, bins=bins, confidence=confidence,
                            n_resamples=n_resamples, seed=seed)
        return next(c for c in curves if c.model == model)

    def report(self, out: str | Path | None = None, *, formats: Sequence[str] = ("html", "md", "json"),
               curves: Sequence[str] = ()) -> Path:
        """Write ``index.html``, ``report.md`` and ``results.json`` for this run; returns the folder.

        ``curves`` names axes to draw score curves along (length splits get theirs anyway).
        """
        from gengap.report import write_report

        return write_report(self.store_path, self.run_id, Path(out) if out else self.out, formats=formats,
                            reference=self.reference, curves=curves)


def input_hashes(inputs: Sequence[Any]) -> np.ndarray:
    """A 128-bit hash per input as an (n, 2) uint64 array (dicts and lists hashed by their sorted JSON).

    >>> input_hashes(["a", "b", "a"]).shape, bool((input_hashes(["a"]) == input_hashes(["a"])).all())
    ((3, 2), True)
    """
    text = np.array([x if isinstance(x, str) else json.dumps(x, sort_keys=True, default=str) for x in inputs],
                    dtype=object)
    return np.stack([pd.util.hash_array(text, hash_key="gengap-inputs-01"),
                     pd.util.hash_array(text, hash_key="gengap-inputs-02")], axis=1)


def auto_shard_size(n: int) -> int:
    """Rows per shard when none is given: about 20 shards a part, between 1,000 and 100,000 rows.

    Each shard costs one durable commit (tens of milliseconds), so cheap models want large shards,
    while a killed run loses at most one shard of work per part.
    """
    return int(min(100_000, max(1_000, -(-n // 20))))


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


def evaluate(
    model: ModelLike | Mapping[str, ModelLike] | Sequence[ModelLike],
    dataset: Dataset,
    splits: Sequence[SplitLike] = ("random",),
    *,
    metrics: Sequence[str] = ("exact_match",),
    out: str | Path | None = None,
    name: str = "eval",
    batch_size: int = 512,
    shard_size: int | None = None,
    seed: int = 0,
    test_fraction: float = 0.2,
    reference: str | None = None,
    config: Mapping[str, Any] | None = None,
    perturbations: Sequence[Any] = (),
    backend: str | Backend = "serial",
    workers: int | None = None,
    ray_address: str | None = None,
    cache: bool = True,
    resume: bool = True,
    extract: str | Any = None,
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
    backend, workers, ray_address : where model calls run (``serial``, ``thread``, ``process``, ``ray``).
    shard_size : rows per unit of work stored atomically (smaller: less lost to a kill); default
        :func:`auto_shard_size` of each test part. Keep it fixed when resuming a run.
    cache : reuse stored outputs of cacheable models for inputs they answered before.
    resume : continue an unfinished run of the same name and configuration in ``out``.
    extract : read the answer out of free-text outputs before scoring: an answer kind (``number``,
        ``choice``, ``yes_no``, ``text``) or a :class:`gengap.extract.Extractor`. Targets are read
        the same way, so ``$1,000`` and ``1000`` agree. An output with no readable answer is stored
        as *unextracted*, scores 0, and is counted separately in the summary and the report.

    Returns
    -------
    Evaluation, with ``summary()``, ``rows()`` and ``report()``.
    """
    if not isinstance(dataset, Dataset):
        raise ConfigError(
            f"evaluate needs a gengap Dataset, got a {type(dataset).__name__}. Load it first, naming the columns: "
            "gengap.load(data, input='question', target='answer')."
        )
    for m in metrics:
        get_metric(m)
    if (shard_size is not None and shard_size < 1) or batch_size < 1:
        raise ConfigError(f"shard_size={shard_size} and batch_size={batch_size} must be at least 1.")
    models = _normalize_models(model)
    resolved = _resolve_splits(dataset, splits, seed=seed, test_fraction=test_fraction)
    runner = make_backend(backend, workers=workers, address=ray_address)
    extractor = _as_extractor(extract)
    out_dir = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="gengap-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    store_path = out_dir / STORE_NAME
    run_config = {
        "dataset": {"name": dataset.name, "n": len(dataset), "fingerprint": dataset.fingerprint()},
        "models": [m.name for m in models],
        "splits": [{"name": s.name, "method": s.method, "params": s.params, "n_test": len(s.test)} for s in resolved],
        "metrics": list(metrics), "perturbations": [getattr(p, "name", str(p)) for p in perturbations],
        "extract": None if extractor is None else repr(extractor),
        "seed": seed, **(dict(config) if config else {}),
    }
    calls = 0
    with Store(store_path) as store:
        run_id = store.find_resumable(name, run_config) if resume else None
        if run_id is None:
            run_id = store.start_run(name, run_config)
        else:
            store.finish_run(run_id, "running")
        done = store.finished_shards(run_id)
        try:
            for split in resolved:
                store.add_split(run_id, split)
                test = split.test_part
                variants = [("none", test)] + [(p.name, p.apply(test, seed)) for p in perturbations]
                for m in models:
                    size = shard_size or auto_shard_size(len(test))
                    todo = [(p, v) for p, v in variants if not _all_done(done, m.name, split.name, p, len(v), size)]
                    if not todo:
                        continue
                    fitted = _fit(m, split) if m.needs_fit else m
                    for perturbation, variant in todo:
                        calls += _run_shards(store, run_id, fitted, split.name, variant, metrics=metrics,
                                             batch_size=batch_size, shard_size=size, show=progress,
                                             perturbation=perturbation, backend=runner, done=done, cache=cache,
                                             extractor=extractor)
        except BaseException:
            store.finish_run(run_id, "failed")
            raise
        finally:
            runner.close()
        store.finish_run(run_id, "done")
    return Evaluation(store_path=store_path, run_id=run_id, out=out_dir, reference=reference, model_calls=calls)


def _as_extractor(extract: Any) -> Any:
    if extract is None:
        return None
    from gengap.extract import Extractor

    return extract if isinstance(extract, Extractor) else Extractor(str(extract))


def _read_answers(extractor: Any, outputs: list[Any], targets: list[Any], test: Dataset, s: int, e: int) -> tuple[list[Any], list[Any]]:
    """Extracted outputs (None: unextracted) and targets read the same way (kept as they are when unreadable)."""
    choices = test.column("choices").tolist()[s:e] if "choices" in test.metadata_columns else None
    answers = extractor(outputs, choices)
    read_targets = extractor(targets, choices)
    return answers, [t if r is None else r for t, r in zip(targets, read_targets)]


def _shard_key(model: str, split: str, perturbation: str, start: int) -> str:
    return f"{model}/{split}/{perturbation}/{start}"


def _all_done(done: set[str], model: str, split: str, perturbation: str, n: int, shard_size: int) -> bool:
    return all(_shard_key(model, split, perturbation, s) in done for s in range(0, n, shard_size))


def _fit(model: Model, split: Split) -> Model:
    train = split.train_part
    try:
        return model.fit(train.inputs, train.targets)
    except GengapError:
        raise
    except Exception as e:
        raise ModelError(f"Training '{model.name}' on split '{split.name}' failed: {type(e).__name__}: {e}") from e


def _run_shards(store: Store, run_id: str, model: Model, split: str, test: Dataset, *, metrics: Sequence[str],
                batch_size: int, shard_size: int, show: bool | None, perturbation: str, backend: Backend,
                done: set[str], cache: bool, extractor: Any = None) -> int:
    """Predict, score and store every unfinished shard of one (model, split, perturbation); returns model calls."""
    ids, inputs, targets = test.ids, test.inputs, test.targets
    n = len(ids)
    variant = perturbation != "none"
    use_cache = cache and model.cacheable
    fingerprint = model.fingerprint() if use_cache else ""
    shards = [(s, min(n, s + shard_size)) for s in range(0, n, shard_size)]
    pending = [(s, e) for s, e in shards if _shard_key(model.name, split, perturbation, s) not in done]
    label = split if not variant else f"{split} / {perturbation}"
    calls = 0
    with progress(f"{model.name} on {label}", total=n, enabled=show) as bar:
        bar.advance(n - sum(e - s for s, e in pending))
        known: dict[str, dict[int, Any]] = {}
        hashes: dict[str, np.ndarray] = {}
        tasks = []
        for s, e in pending:
            key = _shard_key(model.name, split, perturbation, s)
            hashes[key] = input_hashes(inputs[s:e]) if use_cache else np.empty((0, 2), dtype=np.uint64)
            known[key] = store.cached_outputs(fingerprint, hashes[key]) if use_cache else {}
            missing = [inputs[s + i] for i in range(e - s) if i not in known[key]]
            tasks.append((key, missing))
            bar.advance(len(known[key]))
        bounds = {_shard_key(model.name, split, perturbation, s): (s, e) for s, e in pending}
        for key, new_outputs in backend.run(model, tasks, batch_size=batch_size, bar=bar):
            s, e = bounds[key]
            calls += len(new_outputs)
            fresh = iter(new_outputs)
            outputs = [known[key][i] if i in known[key] else next(fresh) for i in range(e - s)]
            fresh_idx = [i for i in range(e - s) if i not in known[key]]
            answers = None
            if extractor is not None:
                answers, gold = _read_answers(extractor, outputs, targets[s:e], test, s, e)
                scores = {m: score(m, answers, gold) * np.array([a is not None for a in answers]) for m in metrics}
            else:
                scores = {m: score(m, outputs, targets[s:e]) for m in metrics}
            store.add_predictions(
                run_id, model=model.name, split=split, example_ids=ids[s:e], outputs=outputs, scores=scores,
                perturbation=perturbation, shard=key,
                variant_inputs=inputs[s:e] if variant else None, variant_targets=targets[s:e] if variant else None,
                cache_rows=(fingerprint, hashes[key][fresh_idx], new_outputs) if use_cache else None,
                extracted=answers,
            )
            done.add(key)
    return calls
