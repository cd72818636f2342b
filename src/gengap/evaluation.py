"""The facade: :func:`evaluate` runs models over splits and returns an :class:`Evaluation`, the one
object that ties running, analysis and reporting together.

The layers below it run one way: the runner (:mod:`gengap.runner`) runs and stores; the analysis
stage (:mod:`gengap.analysis`) computes from the stored rows; the report (:mod:`gengap.report`)
formats them. An :class:`Evaluation` reads its run's rows from the store and hands them to each
(``summary()``, ``curve()``, ``transfer()``, ``seed_spread()``, ``report()``).

>>> import gengap
>>> ds = gengap.load([{"input": "x " * i, "target": "x " * i} for i in range(1, 50)])
>>> ev = gengap.evaluate(lambda xs: xs, ds, ["random", "length"], progress=False)
>>> ev.summary()[["split", "score"]].values.tolist()
[['random', 1.0], ['length', 1.0]]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from gengap._errors import ConfigError
from gengap._settings import DEFAULT_RUN_NAME, FROM_CONFIG, GROUPS, FromConfig, Settings
from gengap.analysis.gaps import summarize
from gengap.backends import Backend
from gengap.dataset import Dataset
from gengap.runner import ModelLike, SplitLike, run
from gengap.store import Store

__all__ = ["Evaluation", "evaluate"]


@dataclass
class Evaluation:
    """The outcome of :func:`evaluate`: a run in a results store, and ways to look at it.

    Attributes
    ----------
    store_path : the DuckDB file holding the run's rows.
    run_id : the run's id in that store.
    out : the output folder (where ``report`` writes by default).
    model_calls : how many inputs were sent to a model in this call (0 when everything was cached or resumed).
    settings : the :class:`gengap.config.Settings` the run used (None for an Evaluation built by hand).

    :meth:`cache_use` says, per model, how many outputs came from the cache and under which fingerprint.
    """

    store_path: Path
    run_id: str
    out: Path
    reference: str | None = None
    model_calls: int = 0
    settings: Settings | None = None
    _rows: pd.DataFrame | None = field(default=None, repr=False)

    def rows(self, metric: str | None = None) -> pd.DataFrame:
        """Per-example rows: model, split, perturbation, example_id, input, target, output, metric, score."""
        if self._rows is None:
            with Store(self.store_path, read_only=True) as store:
                self._rows = store.rows(self.run_id)
        return self._rows if metric is None else self._rows[self._rows["metric"] == metric]

    def cache_use(self) -> pd.DataFrame:
        """Per model and fingerprint: ``n_cached`` outputs reused from the cache, ``n_computed`` asked
        of the model, and ``note`` (why a model was not cached; empty when it was)."""
        with Store(self.store_path, read_only=True) as store:
            return store.cache_use(self.run_id)

    def judge_use(self) -> pd.DataFrame:
        """Per model, what the answer judge did (empty without one): ``asked`` outputs, and of those
        ``filled``, ``agreed``, ``overruled``, ``unsupported`` and ``declined``."""
        with Store(self.store_path, read_only=True) as store:
            return store.judge_use(self.run_id)

    def split_info(self) -> dict[str, dict[str, Any]]:
        with Store(self.store_path, read_only=True) as store:
            return store.split_info(self.run_id)

    def summary(self, *, confidence: float = 0.95, n_resamples: int = 10_000, seed: int = 0,
                cluster: str | None = None) -> pd.DataFrame:
        """Score per (model, split, metric) with its interval, and the gap to the reference split with its
        interval and test (see :func:`gengap.analysis.gaps.summarize`); ``cluster`` (default: the run's
        ``cluster`` setting) names a column whose rows are not independent.

        A DataFrame; in a notebook (or ``rich.print``) it shows as the table ``gengap eval`` prints.
        """
        from gengap._summary_table import Summary

        return Summary(summarize(self.rows(), self.split_info(), reference=self.reference, confidence=confidence,
                                 n_resamples=n_resamples, seed=seed, cluster=cluster or self.cluster))

    @property
    def cluster(self) -> str | None:
        """The column whose rows are not independent (``cluster=``), or None: every figure counts its clusters."""
        return self.settings.scoring.cluster if self.settings is not None else None

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
        from gengap.analysis.gaps import find_reference

        info = self.split_info()
        with Store(self.store_path, read_only=True) as store:
            trained = store.run_config(self.run_id).get("trained") or []
        rows = self.rows()
        model = model if model is not None else str(rows["model"].iloc[0])
        from gengap.metrics import is_corpus_metric

        means = [m for m in pd.unique(rows["metric"]) if not is_corpus_metric(str(m))]
        metric = metric if metric is not None else str(means[0] if means else rows["metric"].iloc[0])
        for what, value in (("model", model), ("metric", metric)):
            if value not in set(rows[what]):
                raise ConfigError(f"{what}={value!r} is not in this run (its {what}s: {', '.join(sorted(set(rows[what])))}).")
        if is_corpus_metric(metric):
            raise ConfigError(f"metric={metric!r} is a corpus metric, not a mean of per-example scores: draw it per bin with "
                              f"gengap.analysis.corpus.corpus_curve('{metric}', evaluation.rows('{metric}'), '{axis}').")
        curves = run_curves(rows[rows["metric"] == metric], info, axis, reference=find_reference(info, self.reference),
                            splits=splits, train_range=train_range, bins=bins, confidence=confidence,
                            n_resamples=n_resamples, seed=seed, trained=trained, cluster=self.cluster)
        return next(c for c in curves if c.model == model)

    def transfer(self, **options: Any) -> Any:
        """The cross-group transfer matrix of this run's ``transfer`` splits, from its rows (a
        :class:`gengap.analysis.transfer.TransferMatrix`; options: ``model``, ``metric``, ``group``,
        ``confidence``, ``n_resamples``, ``seed``)."""
        from gengap.analysis.transfer import run_transfer

        with Store(self.store_path, read_only=True) as store:
            return run_transfer(store, self.run_id, **options)

    def seed_spread(self, **options: Any) -> Any:
        """The spread over seeds of each split method run with several seeds, from this run's rows (a
        :class:`gengap.analysis.seed_spread.SeedSpread`; options: ``model``, ``metric``, ``in_distribution``)."""
        from gengap.analysis.seed_spread import seed_spread_from_rows

        return seed_spread_from_rows(self.rows(), self.split_info(), **options)

    def slices(self, *, model: str | None = None, metric: str | None = None, split: str | None = None,
               order: int = 2, **options: Any) -> pd.DataFrame:
        """Slices of the test rows that score significantly below the rest, found without being told
        where to look: every value of each metadata column, ``input_length`` and ``target_length``
        (binned), and pairs of them up to ``order`` conditions; one search per model and split, on
        one metric (default: the first), cluster-robust when the run has a ``cluster`` column. See
        :func:`gengap.analysis.slices.find_slices` for the options (``min_n``, ``alpha``, ``control``, ...).

        A DataFrame: ``model``, ``split``, ``metric`` and :data:`gengap.analysis.slices.SLICE_COLUMNS`,
        significant first, then by gap; ``.attrs["searches"]`` holds each search's control, slices
        tested, skipped columns and notes.
        """
        from gengap.analysis.slices import slice_table, slices_from_rows

        options.setdefault("cluster", self.cluster)
        return slice_table(slices_from_rows(self.rows(), model=model, metric=metric, split=split, order=order, **options))

    def report(self, out: str | Path | None = None, *, formats: Sequence[str] = ("html", "md", "json"),
               curves: Sequence[str] = (), find_slices: bool = False, slice_order: int = 2) -> Path:
        """Write ``index.html``, ``report.md`` and ``results.json`` for this run; returns the folder.

        ``curves`` names axes to draw score curves along (length splits get theirs anyway);
        ``find_slices`` adds the slices that score below the rest ("Where it fails", :meth:`slices`).
        """
        from gengap.report import write_report

        return write_report(self.store_path, self.run_id, Path(out) if out else self.out, formats=formats,
                            reference=self.reference, curves=curves, cluster=self.cluster, find_slices=find_slices,
                            slice_order=slice_order)


def evaluate(
    model: ModelLike | Mapping[str, ModelLike] | Sequence[ModelLike],
    dataset: Dataset,
    splits: Sequence[SplitLike] = ("random",),
    *,
    config: Settings | Mapping[str, Any] | None = None,
    out: str | Path | None = None,
    name: str = DEFAULT_RUN_NAME,
    perturbations: Sequence[Any] = (),
    prompt: Any = None,
    run_info: Mapping[str, Any] | None = None,
    metrics: Sequence[str] | FromConfig = FROM_CONFIG,
    extract: str | Any = FROM_CONFIG,
    judge: str | None | FromConfig = FROM_CONFIG,
    judge_api: str | FromConfig = FROM_CONFIG,
    judge_model: str | None | FromConfig = FROM_CONFIG,
    choices_by: str | FromConfig = FROM_CONFIG,
    reference: str | None | FromConfig = FROM_CONFIG,
    cluster: str | None | FromConfig = FROM_CONFIG,
    seed: int | FromConfig = FROM_CONFIG,
    test_fraction: float | FromConfig = FROM_CONFIG,
    dedupe: bool | FromConfig = FROM_CONFIG,
    backend: str | Backend | FromConfig = FROM_CONFIG,
    workers: int | None | FromConfig = FROM_CONFIG,
    ray_address: str | None | FromConfig = FROM_CONFIG,
    batch_size: int | FromConfig = FROM_CONFIG,
    shard_size: int | None | FromConfig = FROM_CONFIG,
    cache: bool | FromConfig = FROM_CONFIG,
    resume: bool | FromConfig = FROM_CONFIG,
    progress: bool | None | FromConfig = FROM_CONFIG,
    threads: int | None | FromConfig = FROM_CONFIG,
    train_similarity: bool | str | Callable[[list[str]], Any] | None = None,
    baselines: Sequence[Any] = (),
) -> Evaluation:
    """Evaluate one or more models on each split's test part and store every per-example row.

    The settings come from ``config`` (a :class:`gengap.config.Settings`; its defaults when None),
    and any setting given as a keyword wins over it. Every default is written once, on the fields
    of :mod:`gengap.config`'s settings groups (``Execution``, ``Scoring``, ``Splitting``);
    ``evaluation.settings`` holds the settings a run used.

    >>> import gengap
    >>> from gengap.config import Execution, Settings
    >>> ds = gengap.load([{"input": str(i), "target": str(i)} for i in range(20)])
    >>> fast = Settings(execution=Execution(batch_size=8, progress=False))
    >>> ev = evaluate(lambda xs: xs, ds, config=fast, seed=3)
    >>> ev.settings.execution.batch_size, ev.settings.splitting.seed, ev.settings.scoring.metrics
    (8, 3, ['exact_match'])

    Parameters
    ----------
    model : a batch callable, a scikit-learn estimator (unfitted: trained on each split's train
        part), a gengap adapter, or a dict ``{name: model}`` of several.
    dataset : the examples (see :func:`gengap.load`).
    splits : splitter objects, Split records, or method specs such as ``"random"``,
        ``"length"``, ``"primitive:jump"``.
    config : the settings (:class:`gengap.config.Settings`, or a whole run file's ``RunConfig``).
        A dict here is the older meaning of ``config``: use ``run_info`` (deprecated, still works).
    out : output folder for the store (``gengap.duckdb``) and the report; a temporary folder if None.
    name : the run's name in the store (a run resumes only under the same name).
    perturbations : objects with a ``name`` and ``apply(dataset, seed) -> Dataset`` that return
        variants of a test part with the same example ids; each variant is scored and stored under
        the perturbation's name, paired with the clean rows.
    prompt : build each model input with a :class:`gengap.Prompt` (or a dict of its fields, or a
        template string): instruction, template, k shots drawn from each split's train part. The
        stored rows keep the rendered prompt. With an HTTP completions model that has no stop set,
        the prompt's stops are used (the next example's prefix, a blank line).
    run_info : more facts to store with the run's configuration (JSON-serializable); an
        unfinished run resumes only when they are the same.
    train_similarity : store each test row's similarity to its nearest train example of its split
        as the metadata column ``train_similarity`` (an axis for curves and the slice search):
        True or ``"tfidf"`` for TF-IDF cosine, the name of a metadata column holding one embedding
        per example, or an embedding function ``embed(texts) -> (n, width) array``
        (:func:`gengap.analysis.similarity.nearest_train`).
    baselines : shortcut baselines evaluated beside the models, each trained on every split's train
        part: ``"majority"``, ``"length"``, ``"partial:fields=question"`` (only those fields of
        each example), or :class:`gengap.learners.baselines.Baseline` objects
        (:func:`gengap.learners.baselines.make_baseline`). They are models of the run named
        ``baseline:...``.

    Scoring (``config.scoring``)

    metrics : names of per-example scorers (``exact_match``, ``normalized_match``, ``token_f1``).
    extract : read the answer out of free-text outputs before scoring: an answer kind (``number``,
        ``choice``, ``yes_no``, ``text``) or a :class:`gengap.extract.Extractor`. Targets are read
        the same way, so ``$1,000`` and ``1000`` agree. An output with no readable answer is stored
        as *unextracted*, scores 0, and is counted separately in the summary and the report.
    judge, judge_api, judge_model : with ``extract``, an OpenAI-compatible API (its base URL, e.g. a
        llama.cpp server) asked about the outputs the rules leave unextracted or read two ways, in
        the ``"chat"`` or ``"completions"`` (few-shot, for base models) style, under a served model
        name; never shown a target. What it did (asked, agreed, overruled, filled, unsupported,
        declined) is stored per shard: :meth:`Evaluation.judge_use`.
    choices_by : for multiple-choice data (a ``choices`` column): ``"generate"`` (the model writes
        an answer), ``"loglik"`` (the option with the highest summed log-probability after the
        prompt) or ``"loglik_norm"`` (the highest log-probability per token). Log-likelihoods need a
        model with the completions API that returns prompt log-probabilities.
    reference : the split gaps are measured from (default: the random split).
    cluster : a metadata column whose rows are not independent (the passage, document or source
        questions share): every interval and test then counts clusters, and the summary says how
        many there are and the design effect (:mod:`gengap.analysis.clustered`).

    Splitting (``config.splitting``)

    seed, test_fraction : defaults for splitters built from specs; ``seed`` also seeds
        perturbations and few-shot draws.
    dedupe : splitters built from specs keep inputs that are normalized or near copies of each other
        on one side of every split (see :mod:`gengap.splits`; ``gengap leakage`` finds such copies).

    Execution (``config.execution``)

    backend, workers, ray_address : where model calls run (``serial``, ``thread``, ``process``,
        ``ray``, or a :class:`gengap.backends.Backend`).
    batch_size : inputs per model call.
    shard_size : rows per unit of work stored atomically (smaller: less lost to a kill); default
        :func:`auto_shard_size` of each test part. Keep it fixed when resuming a run.
    cache : reuse stored outputs of cacheable models for inputs they answered before. A model is
        cacheable when its fingerprint covers what its outputs depend on: endpoints (model name and
        settings), fitted estimators (a hash of the fitted object), torch modules (their weights);
        a Python function or object only with a version or files (``as_model(fn, version="v2")``).
    resume : continue an unfinished run of the same name and configuration in ``out``.
    progress : show progress bars (None: when stderr is a terminal).
    threads : CPU cores for training learners: up to this many train side by side, one process
        and one torch thread each (None: the cores this process may use). Scores do not depend
        on it; the run's record (``runs.config``, ``ran_with``) shows what was used.

    A :class:`gengap.backends.Backend` or :class:`gengap.extract.Extractor` object is used as it is;
    ``evaluation.settings`` then keeps the named setting it stands in for.

    Returns
    -------
    Evaluation, with ``summary()``, ``rows()``, ``report()`` and the ``settings`` it ran with.
    """
    if isinstance(config, Mapping):  # the older meaning of config: facts stored with the run
        from gengap._deprecation import warn_renamed

        warn_renamed("evaluate(config=<dict>)", "evaluate(run_info=<dict>); config= takes gengap.config.Settings")
        if run_info is not None:
            raise ConfigError("Give the facts to store with the run once, as run_info= (config= takes gengap.config.Settings).")
        config, run_info = None, config
    if config is not None and not isinstance(config, Settings):
        raise ConfigError(f"config= takes gengap.config.Settings (or a RunConfig), got a {type(config).__name__}; "
                          "give single settings as keywords, e.g. evaluate(..., batch_size=64).")
    given = {"metrics": metrics, "extract": extract, "judge": judge, "judge_api": judge_api, "judge_model": judge_model,
             "choices_by": choices_by, "reference": reference, "cluster": cluster, "seed": seed,
             "test_fraction": test_fraction, "dedupe": dedupe, "backend": backend, "workers": workers, "ray_address": ray_address,
             "batch_size": batch_size, "shard_size": shard_size, "cache": cache, "resume": resume, "progress": progress,
             "threads": threads}
    objects = {"backend": backend if isinstance(backend, Backend) else None,  # used as they are, not settings
               "extract": extract if extract is not None and not isinstance(extract, (str, FromConfig)) else None}
    base = Settings() if config is None else Settings(**{group: getattr(config, group) for group in GROUPS})
    settings = base.replace(source="evaluate: ", **{k: v for k, v in given.items()
                                                    if v is not FROM_CONFIG and objects.get(k) is None})
    stored = run(model, dataset, splits, settings, out=out, name=name, perturbations=perturbations, prompt=prompt,
                 run_info=run_info, backend=objects["backend"], extract=objects["extract"],
                 train_similarity=train_similarity, baselines=baselines)
    return Evaluation(store_path=stored.store_path, run_id=stored.run_id, out=stored.out,
                      reference=settings.scoring.reference, model_calls=stored.model_calls, settings=settings)
