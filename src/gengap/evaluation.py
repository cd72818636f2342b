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

import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from gengap._errors import ConfigError
from gengap._settings import DEFAULT_RUN_NAME, GROUPS, Analysis, Settings
from gengap.analysis.gaps import summarize
from gengap.backends import Backend
from gengap.dataset import Dataset
from gengap.runner import ModelLike, SplitLike, run
from gengap.store import REPORT_SETTINGS, Store

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
    curves: tuple[str, ...] = ()
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
        """The column whose rows are not independent (``cluster=``; ``"item"``, the example, when each
        example was asked several times), or None: every figure counts its clusters."""
        from gengap.analysis.samples import ITEM

        if self.settings is None:
            return None
        if self.settings.scoring.cluster is None and self.settings.scoring.samples > 1:
            return ITEM
        return self.settings.scoring.cluster

    def samples(self, *, confidence: float = 0.95) -> pd.DataFrame:
        """With several samples per example (``samples=K``): per model, split and metric, pass@1,
        pass@K (unbiased), maj@K, the agreement of the samples, the within- and between-example
        variance of the score and the mean score's interval clustered by example
        (:func:`gengap.analysis.samples.sample_table`); empty otherwise."""
        from gengap.analysis.samples import sample_table

        return sample_table(self.rows(), confidence=confidence)

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
        one metric (default: the first), cluster-robust when the run has a ``cluster`` column; a corpus
        metric (``auroc``, ``macro_f1``, ``ece``) is computed on each slice's rows and tested by
        permutation (:func:`gengap.analysis.corpus_slices.find_corpus_slices`). See
        :func:`gengap.analysis.slices.find_slices` for the options (``min_n``, ``alpha``, ``control``, ...).

        A DataFrame: ``model``, ``split``, ``metric`` and :data:`gengap.analysis.slices.SLICE_COLUMNS`,
        significant first, then by gap; ``.attrs["searches"]`` holds each search's control, slices
        tested, skipped columns and notes.
        """
        from gengap.analysis.slices import slice_table, slices_from_rows

        options.setdefault("cluster", self.cluster)
        return slice_table(slices_from_rows(self.rows(), model=model, metric=metric, split=split, order=order, **options))

    def report(self, out: str | Path | None = None, *, formats: Sequence[str] = ("html", "md", "json"),
               curves: Sequence[str] | None = None, find_slices: bool | None = None,
               slice_order: int | None = None, slice_control: str | None = None) -> Path:
        """Write ``index.html``, ``report.md`` and ``results.json`` for this run; returns the folder.

        ``curves`` names axes to draw score curves along (default: those given to ``evaluate``;
        length splits get theirs anyway); ``find_slices`` adds the slices that score below the rest
        ("Where it fails", :meth:`slices`) with up to ``slice_order`` conditions each, false discoveries
        controlled by ``slice_control`` (``"bh"`` or ``"split"``; default: the
        run's settings, ``evaluate(..., find_slices=True)``, which the store remembers for a run read
        back by hand).
        """
        from gengap.report import write_report

        if self.settings is not None:
            find_slices = self.settings.analysis.find_slices if find_slices is None else find_slices
            slice_order = self.settings.analysis.slice_order if slice_order is None else slice_order
            slice_control = self.settings.analysis.slice_control if slice_control is None else slice_control
        return write_report(self.store_path, self.run_id, Path(out) if out else self.out, formats=formats,
                            reference=self.reference, curves=self.curves if curves is None else curves,
                            cluster=self.cluster, find_slices=find_slices, slice_order=slice_order,
                            slice_control=slice_control)


def evaluate(
    model: ModelLike | Mapping[str, ModelLike] | Sequence[ModelLike],
    dataset: Dataset,
    splits: Sequence[SplitLike] = ("random",),
    *,
    settings: Settings | None = None,
    out: str | Path | None = None,
    name: str = DEFAULT_RUN_NAME,
    metrics: Sequence[str] | None = None,
    extract: str | Any = None,
    seed: int | None = None,
    perturbations: Sequence[Any] = (),
    prompt: Any = None,
    curves: Sequence[str] = (),
    run_info: Mapping[str, Any] | None = None,
    **options: Any,
) -> Evaluation:
    """Evaluate one or more models on each split's test part and store every per-example row.

    Every setting has its default written once, on a field of :class:`gengap.config.Settings`'
    groups; ``settings`` (default: those defaults) gives a whole set, and ``metrics``, ``extract``,
    ``seed`` or any other setting given by name (``**options``, e.g. ``batch_size=64``) wins over
    it, as :meth:`Settings.replace` does. ``gengap eval`` and a run file take the same settings and
    specs. Everything is checked before any work starts. ``evaluation.settings`` holds the settings
    the run used.

    >>> import gengap
    >>> from gengap.config import Settings
    >>> ds = gengap.load([{"input": str(i), "target": str(i)} for i in range(20)])
    >>> fast = Settings().replace(batch_size=8, progress=False)
    >>> ev = evaluate(lambda xs: xs, ds, settings=fast, seed=3, perturbations=["casing:mode=upper"])
    >>> ev.settings.execution.batch_size, ev.settings.splitting.seed, sorted(set(ev.rows()["perturbation"]))
    (8, 3, ['casing:mode=upper', 'none'])

    Parameters
    ----------
    model : a batch callable, a scikit-learn estimator (unfitted: trained on each split's train
        part), a gengap adapter, or a dict ``{name: model}`` of several.
    dataset : the examples (see :func:`gengap.load`).
    splits : splitter objects, Split records, or method specs such as ``"random"``,
        ``"length"``, ``"primitive:jump"``.
    settings : a :class:`gengap.config.Settings` (or a whole run file's ``RunConfig``).
    out : output folder for the store (``gengap.duckdb``) and the report; a temporary folder if None.
    name : the run's name in the store (a run resumes only under the same name).
    metrics : names of per-example scorers (``exact_match``, ``token_f1``, ...); None: from ``settings``.
    extract : read the answer out of free-text outputs before scoring: an answer kind (``number``,
        ``choice``, ``yes_no``, ``text``) or a :class:`gengap.extract.Extractor` (used as it is).
        Targets are read the same way, so ``$1,000`` and ``1000`` agree. An output with no readable
        answer is stored as *unextracted*, scores 0, and is counted apart. None: from ``settings``.
    seed : seed of the splitters built from specs, the perturbations and few-shot draws; None: from ``settings``.
    perturbations : specs (``"typos:rate=0.05"``, ``"casing"``, a family such as ``"all_format"``)
        or :class:`gengap.perturb.Perturbation` objects: variants of each test part with the same
        example ids, each scored and stored under its name, paired with the clean rows.
    prompt : build each model input with a :class:`gengap.Prompt` (or a dict of its fields, or a
        template string): instruction, template, k shots drawn from each split's train part. The
        stored rows keep the rendered prompt. With an HTTP completions model that has no stop set,
        the prompt's stops are used (the next example's prefix, a blank line).
    curves : axes the report draws score curves along (a numeric metadata column,
        ``input_length``, ``target_length``, ``irt_difficulty``, ``train_similarity``, which turns
        on ``train_similarity="tfidf"`` unless it is set); length splits get theirs anyway.
    run_info : more facts to store with the run's configuration (JSON-serializable); an
        unfinished run resumes only when they are the same.
    **options : any other setting by name. Three take objects too, used as they are: ``backend``
        a :class:`gengap.backends.Backend`; ``train_similarity`` True (``"tfidf"``) or an embedding
        function ``embed(texts) -> (n, width) array`` (:func:`gengap.analysis.similarity.nearest_train`);
        ``baselines`` :class:`gengap.learners.baselines.Baseline` objects beside the specs
        (:func:`gengap.learners.baselines.make_baseline`; each is a model of the run named ``baseline:...``).

{options}

    Returns
    -------
    Evaluation, with ``summary()``, ``rows()``, ``report()`` and the ``settings`` it ran with.
    """
    if settings is not None and not isinstance(settings, Settings):
        raise ConfigError(f"settings= takes gengap.config.Settings (or a RunConfig), got a {type(settings).__name__}; "
                          "give single settings as keywords, e.g. evaluate(..., batch_size=64).")
    if curves and isinstance(dataset, Dataset):  # the rest of the data is checked by the runner, before any work too
        from gengap.analysis.curves import check_axis

        columns = {c: dataset.column(c).tolist() for c in dataset.metadata_columns}
        for axis in curves:
            check_axis(columns, str(axis), option="curves=")
    backend = options.pop("backend", None) if isinstance(options.get("backend"), Backend) else None
    embed, baselines = _objects(options)
    extractor = None if extract is None or isinstance(extract, str) else extract  # an Extractor: used as it is
    given = {"metrics": metrics, "extract": extract if extractor is None else None, "seed": seed}
    base = Settings() if settings is None else Settings(**{group: getattr(settings, group) for group in GROUPS})
    resolved = base.replace(source="evaluate: ", **{k: v for k, v in given.items() if v is not None}, **options)
    if "train_similarity" in curves and embed is None and resolved.analysis.train_similarity is None:
        resolved = resolved.replace(train_similarity="tfidf")  # the curve needs the column
    # the report asked for, stored from the start (an interrupted run's gengap resume and gengap report write
    # it), and again at the end: a run resumed with other report settings reports with the latest
    report = {key: getattr(resolved.analysis, key) for key in Analysis.NOT_STORED}
    stored = run(model, dataset, splits, resolved, out=out, name=name, perturbations=perturbations, prompt=prompt,
                 run_info={**(run_info or {}), REPORT_SETTINGS: report}, backend=backend, extract=extractor,
                 train_similarity=embed, baselines=baselines)
    with Store(stored.store_path) as store:
        store.remember_report(stored.run_id, report)
    return Evaluation(store_path=stored.store_path, run_id=stored.run_id, out=stored.out,
                      reference=resolved.scoring.reference, model_calls=stored.model_calls, settings=resolved,
                      curves=tuple(curves))


def _objects(options: dict[str, Any]) -> tuple[Callable[[list[str]], Any] | None, list[Any] | None]:
    """The settings given as objects, taken out of ``options`` (which keeps their names, for the settings):
    an embedding function for ``train_similarity`` (True means ``"tfidf"``), and ``baselines`` with
    Baseline objects among the specs (the whole list, in order; the settings keep the specs)."""
    embed = None
    similarity = options.get("train_similarity")
    if similarity is True:
        options["train_similarity"] = "tfidf"
    elif similarity is False:
        options["train_similarity"] = None
    elif callable(similarity):
        embed = options.pop("train_similarity")
    given = options.get("baselines")
    if isinstance(given, str):
        options["baselines"] = [given]
    elif given is not None and not all(isinstance(b, str) for b in given):
        options["baselines"] = [b for b in given if isinstance(b, str)]
        return embed, list(given)
    return embed, None


def _options_doc() -> str:
    """The settings ``evaluate`` takes by name, with their groups, defaults and descriptions (from the fields)."""
    lines = []
    for group, model in GROUPS.items():
        for key, info in model.model_fields.items():
            if key in ("metrics", "extract", "seed"):
                continue
            default = info.default_factory() if info.default_factory is not None else info.default  # type: ignore[call-arg]
            lines += textwrap.wrap(f"{key} ({group}, default {default!r}): {info.description or ''}", width=96,
                                   initial_indent=" " * 8, subsequent_indent=" " * 12)
    return "\n".join(lines)


evaluate.__doc__ = (evaluate.__doc__ or "").replace("{options}", _options_doc())
