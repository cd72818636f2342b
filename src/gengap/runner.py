"""Running models over splits: plan shards, fit learners, predict on a backend, score, store.

:func:`run` is what :func:`gengap.evaluate` calls once the settings are resolved; it returns where
the run lies (:class:`StoredRun`). The runner runs and stores: statistics on the stored rows are
the analysis stage's, and the report's are the report's (the facade :mod:`gengap.evaluation` ties
them together).

The work is planned as shards (model x split x perturbation x chunk of ``shard_size`` rows). Each
shard is stored in one transaction with a record that it finished, so a run killed at any point
resumes where it stopped (``evaluate`` with the same arguments and ``out``, or ``gengap resume``),
and the store ends with every row exactly once. Outputs of cacheable models (functions,
endpoints) are cached by model fingerprint and input hash: a re-run asks the model nothing twice.

>>> import gengap
>>> ds = gengap.load([{"input": "x " * i, "target": "x " * i} for i in range(1, 50)])
>>> stored = run(lambda xs: xs, ds, ["random", "length"], Settings().replace(progress=False))
>>> stored.model_calls
20
"""
from __future__ import annotations

import json
import tempfile
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gengap._errors import ConfigError, GengapError, ModelError
from gengap._outputs import check_out_folder
from gengap._progress import progress, stage
from gengap._settings import DEFAULT_RUN_NAME, Scoring, Settings
from gengap._threads import resolve_threads, thread_record
from gengap.analysis.similarity import TRAIN_SIMILARITY
from gengap.backends import Backend, SerialBackend, call_error, checked_outputs, make_backend
from gengap.dataset import Dataset
from gengap.metrics import get_metric, score
from gengap.models import Model, as_model
from gengap.models._scored import decode_cached, encode_cached, split_confidences
from gengap.perturb._registry import make_perturbations
from gengap.prompts import Prompt, as_prompt
from gengap.splits import Split, Splitter, make_splitter
from gengap.store import STORE_NAME, Store
from gengap.training import Trainer

__all__ = ["run", "StoredRun", "auto_shard_size", "input_hashes", "continued_share", "check_sampling", "sample_model"]

ModelLike = Any
SplitLike = str | Splitter | Split


@dataclass(frozen=True)
class StoredRun:
    """Where a finished run lies: the store file, the run's id in it, the output folder, and how many
    inputs were sent to a model (0 when everything came from the cache or an earlier, resumed run)."""

    store_path: Path
    run_id: str
    out: Path
    model_calls: int


def input_hashes(inputs: Sequence[Any], *, salt: str = "") -> np.ndarray:
    """A 128-bit hash per input as an (n, 2) uint64 array (dicts and lists hashed by their sorted JSON).

    ``salt`` (a sample's index and seed) is hashed with each input, so the cache keeps each sample's
    answer apart.

    >>> input_hashes(["a", "b", "a"]).shape, bool((input_hashes(["a"]) == input_hashes(["a"])).all())
    ((3, 2), True)
    >>> bool((input_hashes(["a"], salt="sample 1, seed 0") == input_hashes(["a"])).any())
    False
    """
    text = np.array([x if isinstance(x, str) else json.dumps(x, sort_keys=True, default=str) for x in inputs],
                    dtype=object)
    if salt:
        text = np.array([f"{salt}\x00{t}" for t in text], dtype=object)
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


def _as_perturbations(items: Sequence[Any]) -> list[Any]:
    """Perturbation objects from specs (``"typos:rate=0.05"``, a family such as ``"all_format"``) and
    objects (kept as they are), checked before any work: unknown names and options, and names used twice."""
    if isinstance(items, str):
        items = [items]
    out: list[Any] = []
    for item in items:
        out += make_perturbations([item]) if isinstance(item, str) else [item]
    names = [getattr(p, "name", str(p)) for p in out]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ConfigError(f"The perturbation(s) {', '.join(twice)} are given twice; give each once.")
    return out


def _resolve_splits(dataset: Dataset, splits: Sequence[SplitLike], *, seed: int, test_fraction: float,
                    dedupe: bool = False) -> list[Split]:
    out: list[Split] = []
    for spec in splits:
        if isinstance(spec, Split):
            made = [spec]
        else:
            splitter = make_splitter(spec, seed=seed, test_fraction=test_fraction, dedupe=dedupe)
            made = splitter.split_datasets(dataset)
        out.extend(made)
    names = [s.name for s in out]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ConfigError(f"Two splits share the name(s) {dupes}; give each split different options.")
    return out


def run(
    model: ModelLike | Mapping[str, ModelLike] | Sequence[ModelLike],
    dataset: Dataset,
    splits: Sequence[SplitLike],
    settings: Settings,
    *,
    out: str | Path | None = None,
    name: str = DEFAULT_RUN_NAME,
    perturbations: Sequence[Any] = (),
    prompt: Any = None,
    run_info: Mapping[str, Any] | None = None,
    backend: Backend | None = None,
    extract: Any = None,
    train_similarity: Callable[[list[str]], Any] | None = None,
    baselines: Sequence[Any] | None = None,
) -> StoredRun:
    """Run each model on each split's test part (and its perturbed variants) and store every per-example row.

    What :func:`gengap.evaluate` runs, with its settings resolved. The arguments are checked before
    any work starts; the work is planned as shards, each stored with a record that it finished, so
    the run resumes where it stopped. ``backend`` and ``extract`` (an
    :class:`gengap.extract.Extractor`) are objects used as they are, in place of the named
    ``settings.execution.backend`` and ``settings.scoring.extract``; likewise ``train_similarity``
    (an embedding function) and ``baselines`` (specs and Baseline objects) in place of
    ``settings.analysis``'s.

    >>> import gengap
    >>> from gengap.config import Settings
    >>> ds = gengap.load([{"input": str(i), "target": str(i)} for i in range(20)])
    >>> stored = run(lambda xs: xs, ds, ["random"], Settings().replace(progress=False))
    >>> stored.model_calls
    4
    """
    if not isinstance(dataset, Dataset):
        raise ConfigError(
            f"evaluate needs a gengap Dataset, got a {type(dataset).__name__}. Load it first, naming the columns: "
            "gengap.load(data, input='question', target='answer')."
        )
    execution, scoring, splitting = settings.execution, settings.scoring, settings.splitting
    for m in scoring.metrics:
        get_metric(m)
    if scoring.cluster is not None:
        check_cluster_column(dataset, scoring.cluster)
    if out is not None:
        check_out_folder(out, option="out")
    prompt_spec = as_prompt(prompt)
    if scoring.choices_by != "generate" and "choices" not in dataset.metadata_columns:
        raise ConfigError(f"choices_by={scoring.choices_by!r} scores the options of a 'choices' column, which the data does "
                          f"not have (columns: {', '.join(dataset.metadata_columns) or 'none'}).")
    perturbations = _as_perturbations(perturbations)
    analysis = settings.analysis
    similarity = _similarity_spec(train_similarity if train_similarity is not None else analysis.train_similarity, dataset)
    baselines = analysis.baselines if baselines is None else baselines
    models = [_for_prompt(m, prompt_spec, scoring.choices_by) for m in _normalize_models(model)]
    n_samples = scoring.samples
    if n_samples > 1:
        check_sampling(models, n_samples)
    if baselines:
        from gengap.learners.baselines import make_baseline

        models += [make_baseline(b, dataset) for b in baselines]
        names = [m.name for m in models]
        if len(set(names)) != len(names):
            raise ConfigError(f"Two models or baselines share a name: {names}; give each baseline once.")
    resolved = _resolve_splits(dataset, splits, seed=splitting.seed, test_fraction=splitting.test_fraction,
                               dedupe=splitting.dedupe)
    runner = backend or make_backend(execution.backend, workers=execution.workers, address=execution.ray_address)
    extractor = _as_extractor(extract if extract is not None else scoring.extract, scoring)
    out_dir = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="gengap-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    store_path = out_dir / STORE_NAME
    run_config = {
        "dataset": {"name": dataset.name, "n": len(dataset), "fingerprint": dataset.fingerprint()},
        "models": [m.name for m in models],
        "splits": [{"name": s.name, "method": s.method, "params": s.params, "n_test": len(s.test)} for s in resolved],
        "metrics": list(scoring.metrics), "perturbations": [getattr(p, "name", str(p)) for p in perturbations],
        "extract": None if extractor is None else repr(extractor),
        "seed": splitting.seed, "settings": settings.stored(), **(dict(run_info) if run_info else {}),
    }
    if similarity is not None:  # absent otherwise: earlier runs still resume
        run_config["train_similarity"] = similarity if isinstance(similarity, str) else repr(similarity)
    if any(m.needs_fit for m in models):  # trained on the splits: their curves mark the training range
        run_config["trained"] = [m.name for m in models if m.needs_fit]
    if prompt_spec is not None or scoring.choices_by != "generate":  # absent otherwise: earlier runs still resume
        run_config["prompt"] = None if prompt_spec is None else prompt_spec.to_dict()
        run_config["choices_by"] = scoring.choices_by
    n_threads = resolve_threads(execution.threads)
    calls = 0
    with Store(store_path) as store:
        run_id = store.find_resumable(name, run_config) if execution.resume else None
        if run_id is None:
            run_id = store.start_run(name, {**run_config, "ran_with": thread_record(n_threads)})
        else:
            store.finish_run(run_id, "running")
        done = store.finished_shard_rows(run_id)
        variant_names = ["none"] + [getattr(p, "name", str(p)) for p in perturbations]
        trainer = Trainer([(m, s) for s in resolved for m in models if m.needs_fit and any(
            _pending(done, m.name, s.name, _part(p, j), len(s.test)) for p in variant_names
            for j in _samples_of(m, n_samples))], threads=n_threads)
        try:
            for k, split in enumerate(resolved, start=1):
                if similarity is None:
                    store.add_split(run_id, split)
                else:
                    with stage(f"{split.name}: distance to training"):
                        near = _nearest_train(split, similarity)
                    store.add_split(run_id, split, columns={TRAIN_SIMILARITY: near.similarity},
                                    notes={"train_similarity": near.note()})
                test = split.test_part
                if prompt_spec is not None:
                    prompt_spec.check(test, split.train_part, where=f" of split '{split.name}'")
                touches_question = prompt_spec is None or "question" in prompt_spec.targets()
                variants = [("none", test, None)] + [(p.name, p.apply(test, splitting.seed) if touches_question else test, p)
                                                     for p in perturbations]
                for m in models:
                    todo = [(p, v, obj, js) for p, v, obj in variants
                            for js in [[j for j in _samples_of(m, n_samples)
                                        if _pending(done, m.name, split.name, _part(p, j), len(v))]] if js]
                    if not todo:
                        continue
                    with stage(f"{split.name} ({k}/{len(resolved)})"):  # progress bars say which split, of how many
                        fitted = trainer.fitted(m, split) if m.needs_fit else m
                        for perturbation, variant, obj, samples in todo:
                            inputs, shown = _model_inputs(prompt_spec, fitted, variant, split, obj, splitting.seed,
                                                          scoring.choices_by)
                            if hasattr(fitted, "reads"):  # a shortcut baseline sees only part of each example
                                inputs, shown = fitted.reads(variant), None
                            for j in samples:
                                asked = fitted if j is None else sample_model(fitted, j, splitting.seed)
                                before = calls
                                try:
                                    calls += _run_shards(
                                        store, run_id, asked, split.name, variant, metrics=scoring.metrics,
                                        batch_size=execution.batch_size, shard_size=execution.shard_size,
                                        show=execution.progress, perturbation=perturbation, backend=runner, done=done,
                                        cache=execution.cache, extractor=extractor, model_inputs=inputs, prompts=shown,
                                        choices_by=scoring.choices_by, sample=j,
                                        salt="" if j is None else f"sample {j}, seed {splitting.seed}")
                                finally:
                                    if asked is not fitted and hasattr(asked, "close"):
                                        asked.close()
                                if prompt_spec is not None and calls > before and perturbation == "none" and not j:
                                    _warn_if_continued(store, run_id, fitted, split.name, prompt_spec)
        except BaseException:
            store.finish_run(run_id, "failed")
            raise
        finally:
            trainer.close()
            runner.close()
            for m in models:  # connections and event loops of HTTP models
                if hasattr(m, "close"):
                    m.close()
        store.finish_run(run_id, "done")
    return StoredRun(store_path=store_path, run_id=run_id, out=out_dir, model_calls=calls)


def check_sampling(models: Sequence[Model], n_samples: int) -> None:
    """Before any work: a ConfigError for a model that answers the same every time (asking it
    ``n_samples`` times would give ``n_samples`` copies), a warning for an endpoint at temperature 0.
    Baselines are not checked: they are answered once per example."""
    for m in models:
        if not m.can_sample:
            raise ConfigError(f"samples={n_samples}: model '{m.name}' cannot sample: {m.sample_note}. Ask it once per "
                              "example (samples=1, --samples 1), or give a model that can answer differently when asked "
                              "again (an endpoint at temperature > 0, or a Python function with randomness).")
        temperature = getattr(m, "temperature", None)
        if isinstance(temperature, (int, float)) and temperature == 0:
            import warnings

            warnings.warn(f"samples={n_samples}: model '{m.name}' answers at temperature 0 (greedy), so its {n_samples} "
                          "answers to an example will be the same, and pass@k no better than pass@1. Set a temperature "
                          "above 0 (--temperature 0.7, or OpenAIModel(..., temperature=0.7)).", stacklevel=3)


def _samples_of(model: Model, n_samples: int) -> list[int | None]:
    """The samples a model is asked: 0..n-1 with ``samples`` > 1 (a model that cannot sample, a baseline, is
    answered once); [None] (one answer, stored as today) otherwise."""
    return list(range(n_samples)) if n_samples > 1 and model.can_sample else [None]


def _part(perturbation: str, sample: int | None) -> str:
    """The shard-key part naming a perturbation and, with samples, which sample (``none@2``)."""
    return perturbation if sample is None else f"{perturbation}@{sample}"


def sample_model(model: Model, sample: int, seed: int) -> Model:
    """The model that answers sample ``sample``: an endpoint sends its own seed per sample (its seed,
    else the run's, plus the sample's index), so a server that honours seeds gives different answers
    that a re-run reproduces; any other model (a Python function) is the same object, called again.

    >>> from gengap.models.http import OpenAIModel
    >>> sample_model(OpenAIModel("http://h:1/v1", model_name="m", temperature=0.7), 2, seed=10).seed
    12
    """
    if callable(getattr(model, "with_settings", None)) and hasattr(model, "seed"):
        base = model.seed if model.seed is not None else seed
        return model.with_settings(seed=int(base) + sample)  # type: ignore[attr-defined,no-any-return]
    return model


def _similarity_spec(option: Any, dataset: Dataset) -> str | Callable[[list[str]], Any] | None:
    """``train_similarity=`` checked: None (off), ``"tfidf"``, an embeddings column of the data, or a function."""
    if option is None or option is False:
        return None
    if option is True or option == "tfidf":
        return "tfidf"
    if callable(option):
        return option
    if isinstance(option, str):
        if option not in dataset.metadata_columns:
            from gengap._errors import did_you_mean

            raise ConfigError(f"train_similarity={option!r} is neither 'tfidf' nor a metadata column of the data holding "
                              f"embeddings.{did_you_mean(option, [*dataset.metadata_columns, 'tfidf'])} Columns: "
                              f"{', '.join(dataset.metadata_columns) or 'none'}.")
        return option
    raise ConfigError(f"train_similarity={option!r} must be True, 'tfidf', an embeddings column or an embedding function.")


def _nearest_train(split: Split, similarity: str | Callable[[list[str]], Any]) -> Any:
    """Each test row's similarity to its nearest train row of the split (see :func:`gengap.evaluate`)."""
    from gengap.analysis.similarity import nearest_train

    train, test = split.train_part, split.test_part
    if callable(similarity):
        return nearest_train(train.inputs, test.inputs, embed=similarity)
    if similarity == "tfidf":
        return nearest_train(train.inputs, test.inputs)
    try:
        return nearest_train(train.inputs, test.inputs, train_vectors=train.column(similarity).tolist(),
                             test_vectors=test.column(similarity).tolist())
    except GengapError as e:
        raise type(e)(f"Split '{split.name}', embeddings column '{similarity}': {e}") from None


def check_cluster_column(dataset: Dataset, column: str) -> None:
    """A clear error, before any model runs, when ``column`` cannot name the clusters of ``dataset``:
    not a metadata column, empty in some rows, or one value for every row."""
    from gengap._errors import DataError, did_you_mean

    if column not in dataset.metadata_columns:
        raise DataError(f"cluster={column!r} is not a column of dataset '{dataset.name}'.{did_you_mean(column, dataset.metadata_columns)} "
                        f"Its metadata columns: {', '.join(dataset.metadata_columns) or 'none'}. Name the column whose rows "
                        "share a passage, item or source (--cluster COLUMN).")
    values = pd.Series(list(dataset.column(column)), dtype=object)
    missing = int(values.isna().sum())
    if missing:
        raise DataError(f"The cluster column '{column}' of dataset '{dataset.name}' is empty in {missing:,} of {len(values):,} "
                        "rows; give every row a cluster id (a row alone in its cluster can have its own), or drop those rows.")
    if values.astype(str).nunique() < 2 and len(values) > 1:
        raise DataError(f"Every row of dataset '{dataset.name}' has the same '{column}' ({values.iloc[0]!r}): one cluster "
                        "gives no way to see how clusters vary. Name a finer cluster column, or none.")


#: How multiple-choice answers are chosen.
CHOICES_BY = ("generate", "loglik", "loglik_norm")
#: Seconds of model time per shard for models that size their shards by speed (HTTP endpoints).
SHARD_SECONDS = 10.0


def _for_prompt(model: Model, prompt: Prompt | None, choices_by: str) -> Model:
    """An HTTP completions model without stops gets the prompt's (next example, blank line)."""
    if choices_by != "generate" and not hasattr(model, "loglikelihoods"):
        raise ConfigError(f"choices_by={choices_by!r} needs a model that returns log-likelihoods (an OpenAI-compatible "
                          f"completions endpoint); '{model.name}' does not. Use choices_by='generate' with extract='choice'.")
    if choices_by != "generate" and getattr(model, "api", None) != "completions":
        raise ConfigError(f"choices_by={choices_by!r} needs api='completions' (--api completions): chat endpoints "
                          "return no log-probabilities for the prompt.")
    if prompt is not None and getattr(model, "api", None) == "completions" and getattr(model, "stop", "") is None:
        return model.with_settings(stop=prompt.default_stops())  # type: ignore[attr-defined]
    return model


def _model_inputs(prompt: Prompt | None, model: Model, variant: Dataset, split: Split, perturbation: Any, seed: int,
                  choices_by: str) -> tuple[list[Any], list[Any] | None]:
    """What the model is sent for each row, and the prompt to store (None without a prompt spec)."""
    if prompt is None and choices_by == "generate":
        return variant.inputs, None
    spec = prompt or Prompt()
    pool = split.train_part
    shots_from, instruction = pool, spec.instruction
    if perturbation is not None and "shots" in spec.targets() and len(pool):
        shots_from = perturbation.apply(pool, seed)
    if perturbation is not None and "instruction" in spec.targets() and spec.instruction:
        one = Dataset.from_records([{"input": spec.instruction, "target": ""}])
        instruction = str(perturbation.apply(one, seed).inputs[0])
    chat = getattr(model, "api", None) == "chat"
    rendered = spec.render(variant, pool, chat=chat, shots_from=shots_from, instruction=instruction)
    if choices_by == "generate":
        return rendered, rendered
    by = "sum" if choices_by == "loglik" else "mean"
    options = variant.column("choices").tolist()
    inputs = [{"prompt": text, "choices": [spec.continuation(str(o)) for o in opts], "by": by}
              for text, opts in zip(rendered, options)]
    return inputs, rendered


#: Share of outputs that may run on into a next example before the runner warns.
CONTINUED_SHARE = 0.2


def continued_share(outputs: Sequence[str], prompt: Prompt) -> float:
    r"""Share of outputs that run on into another example (a blank line or the template's prefix
    after some text): what a base model writes on a chat endpoint, or without stop sequences.

    >>> continued_share([" 12", " 12\n\nQuestion: 4 + 5"], Prompt("Question: {input}\nAnswer:"))
    0.5
    """
    marks = [m for m in prompt.default_stops() if m.strip()] + ["\n\n"]
    hits = sum(any(m in str(o).strip() for m in marks) for o in outputs)
    return hits / len(outputs) if len(outputs) else 0.0


def _warn_if_continued(store: Store, run_id: str, model: Model, split: str, prompt: Prompt) -> None:
    outputs = store.sql("SELECT output FROM predictions WHERE run_id = ? AND model = ? AND split = ? AND "
                        "perturbation = 'none'", [run_id, model.name, split])["output"].tolist()
    share = continued_share(outputs, prompt)
    if share > CONTINUED_SHARE:
        import warnings

        api = getattr(model, "api", None)
        fix = ("a base model on the chat API writes on with a template it was not trained for: use api='completions' "
               "(--api completions)" if api == "chat" else "set stop sequences (--stop) or a smaller max_tokens")
        warnings.warn(f"Model '{model.name}' on split '{split}': {share:.0%} of the outputs look like continued few-shot "
                      f"text (another example after the answer); {fix}.", stacklevel=3)


def _chosen_option(output: Any, model_input: dict[str, Any], options: Sequence[Any], target: Any) -> str:
    """The option a log-likelihood model chose, written as the target is (option text, or its letter)."""
    index = model_input["choices"].index(str(output)) if str(output) in model_input["choices"] else 0
    option = str(options[index])
    texts = [str(o) for o in options]
    if str(target) in texts or not (isinstance(target, str) and len(target.strip()) == 1 and target.strip().isalpha()):
        return option
    return chr(ord("A") + index)


def _as_extractor(extract: Any, scoring: Scoring) -> Any:
    """The Extractor of ``extract`` (a kind or an Extractor), with the judge and the verifier the scoring settings name."""
    if extract is None:
        if scoring.judge is not None:
            raise ConfigError(f"judge={scoring.judge!r} reads answers the extraction rules cannot: give the answer kind "
                              "too, extract='number', 'choice', 'yes_no' or 'text' (--extract).")
        return None
    from gengap.extract import Extractor

    if isinstance(extract, Extractor):
        if scoring.judge is not None:
            raise ConfigError("judge= is given twice: as a setting and with the Extractor passed as extract=; give it "
                              "once (Extractor(kind, judge=URL), or extract=kind with judge=URL).")
        if not scoring.verify or scoring.verifier is not None:
            raise ConfigError("verify=/verifier= are given twice: as settings and with the Extractor passed as extract=; "
                              "give them once (Extractor(kind, verify=False), or extract=kind with verify=False).")
        return extract
    verify = (scoring.verifier or True) if scoring.verify else False
    return Extractor(str(extract), judge=scoring.judge, judge_api=scoring.judge_api, judge_model=scoring.judge_model,
                     verify=verify)


def _read_answers(extractor: Any, outputs: list[Any], targets: list[Any], test: Dataset, s: int, e: int) -> tuple[list[Any], list[Any]]:
    """Extracted outputs (None: unextracted) and targets read the same way (kept as they are when unreadable).

    The example's input is the question and its ``choices`` metadata column the options; a judge, if
    the extractor has one, never reads the targets."""
    choices = test.column("choices").tolist()[s:e] if "choices" in test.metadata_columns else None
    questions = [x if isinstance(x, str) else None for x in test.inputs[s:e]]
    answers = extractor(outputs, choices, questions)
    read_targets = extractor(targets, choices, questions, use_judge=False)
    return answers, [t if r is None else r for t, r in zip(targets, read_targets)]


def _judge_counts(extractor: Any) -> dict[str, int] | None:
    """What the extractor's judge did on the batch it last read (None without a judge)."""
    report = getattr(extractor, "judge_report", None) if getattr(extractor, "judge", None) is not None else None
    return None if report is None else report.counts()


def _shard_key(model: str, split: str, perturbation: str, start: int) -> str:
    return f"{model}/{split}/{perturbation}/{start}"


def _gaps(done: Mapping[str, int], model: str, split: str, perturbation: str, n: int) -> list[tuple[int, int]]:
    """Row ranges ``[start, end)`` of a test part that no finished shard holds yet (shards may differ in size)."""
    covered = np.zeros(n, dtype=bool)
    prefix = _shard_key(model, split, perturbation, 0)[:-1]
    for key, rows in done.items():
        if key.startswith(prefix) and key[len(prefix):].isdigit():
            start = int(key[len(prefix):])
            covered[start:start + rows] = True
    edges = np.flatnonzero(np.diff(np.concatenate([[True], covered, [True]]).astype(np.int8)))
    return [(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2])]


def _pending(done: Mapping[str, int], model: str, split: str, perturbation: str, n: int) -> bool:
    return bool(_gaps(done, model, split, perturbation, n))


def _run_shards(store: Store, run_id: str, model: Model, split: str, test: Dataset, *, metrics: Sequence[str],
                batch_size: int, shard_size: int | None, show: bool | None, perturbation: str, backend: Backend,
                done: dict[str, int], cache: bool, extractor: Any = None, model_inputs: Sequence[Any] | None = None,
                prompts: Sequence[Any] | None = None, choices_by: str = "generate", sample: int | None = None,
                salt: str = "") -> int:
    """Predict, score and store every unfinished shard of one (model, split, perturbation); returns model calls.

    ``sample`` (with ``samples`` > 1) says which of the model's answers to each example these are:
    it is stored with the rows and names the shards, and ``salt`` is hashed with each input for the cache.

    With ``shard_size`` None, a model that sizes its shards by speed (``adaptive_shards``) gets
    shards of about :data:`SHARD_SECONDS` of its measured time, so a failure loses seconds of work;
    other models get :func:`auto_shard_size` rows. On the serial backend, a model with ``submit``
    (HTTP endpoints) answers the next shard while one is stored (:data:`PIPELINE`, :func:`_pipelined`).
    """
    ids, targets = test.ids, test.targets
    inputs = list(model_inputs) if model_inputs is not None else test.inputs
    n = len(ids)
    variant = perturbation != "none"
    use_cache = cache and model.cacheable
    fingerprint = model.fingerprint() if use_cache else ""
    part = _part(perturbation, sample)
    gaps = _gaps(done, model.name, split, part, n)
    adaptive = shard_size is None and getattr(model, "adaptive_shards", False)
    size = shard_size or auto_shard_size(n)
    options = test.column("choices").tolist() if choices_by != "generate" else None
    label = (split if not variant else f"{split} / {perturbation}") + ("" if sample is None else f" / sample {sample}")
    calls = 0
    known: dict[str, dict[int, Any]] = {}
    identical: dict[str, int] = {}  # of the known, how many this run answered itself (an identical input)
    hashes: dict[str, np.ndarray] = {}
    bounds: dict[str, tuple[int, int]] = {}

    def plan(s: int, e: int) -> tuple[str, list[Any]]:
        key = _shard_key(model.name, split, part, s)
        hashes[key] = input_hashes(inputs[s:e], salt=salt) if use_cache else np.empty((0, 2), dtype=np.uint64)
        known[key] = ({i: decode_cached(t) for i, t in store.cached_outputs(fingerprint, hashes[key]).items()}
                      if use_cache else {})
        identical[key] = len(store.answered_in_run(fingerprint, hashes[key], run_id) & set(known[key])) if known[key] else 0
        bounds[key] = (s, e)
        bar.advance(len(known[key]))
        return key, [inputs[s + i] for i in range(e - s) if i not in known[key]]

    def finish(key: str, new_outputs: list[Any]) -> None:
        s, e = bounds[key]
        fresh = iter(new_outputs)
        outputs = [known[key][i] if i in known[key] else next(fresh) for i in range(e - s)]
        fresh_idx = [i for i in range(e - s) if i not in known[key]]
        details = [None if getattr(o, "cached", False) else getattr(o, "details", None) for o in outputs]
        if options is not None:
            chosen = [_chosen_option(o, inputs[s + i], options[s + i], targets[s + i]) for i, o in enumerate(outputs)]
            _, confidence, probabilities = split_confidences(outputs, options[s:e], chosen,
                                                             by="mean" if choices_by == "loglik_norm" else "sum")
            outputs = chosen
        else:  # labels with probabilities, {"output": ..., "confidence": p}, stated confidences
            outputs, confidence, probabilities = split_confidences(outputs)
        answers, judged = None, None
        if extractor is not None:
            answers, gold = _read_answers(extractor, outputs, targets[s:e], test, s, e)
            judged = _judge_counts(extractor)
            scores = {m: score(m, answers, gold) * np.array([a is not None for a in answers]) for m in metrics}
        else:
            scores = {m: score(m, outputs, targets[s:e]) for m in metrics}
        store.add_predictions(
            run_id, model=model.name, split=split, example_ids=ids[s:e], outputs=outputs, scores=scores,
            perturbation=perturbation, shard=key,
            variant_inputs=test.inputs[s:e] if variant else None, variant_targets=targets[s:e] if variant else None,
            cache_rows=(fingerprint, hashes[key][fresh_idx], [encode_cached(o) for o in new_outputs]) if use_cache else None,
            extracted=answers, prompts=list(prompts[s:e]) if prompts is not None else None,
            details=details if any(d is not None for d in details) else None,
            cache_use=(fingerprint, (e - s) - len(new_outputs) - identical[key], len(new_outputs),
                       "" if use_cache else (model.cache_note or "not cached: cache=False"), identical[key]),
            judge_use=judged, confidence=confidence,
            probabilities=probabilities if any(p is not None for p in probabilities) else None,
            sample=sample or 0,
        )
        done[key] = e - s

    with progress(f"{model.name} on {label}", total=n, enabled=show) as bar:
        bar.advance(n - sum(e - s for s, e in gaps))
        try:
            if PIPELINE and isinstance(backend, SerialBackend) and callable(getattr(model, "submit", None)):
                calls += _pipelined(model, plan, finish, gaps, size=size, adaptive=adaptive, bar=bar)
            elif not adaptive:
                tasks = [plan(s, min(e, s + size)) for a, b in gaps for s in range(a, b, size) for e in [b]]
                for key, new_outputs in backend.run(model, tasks, batch_size=batch_size, bar=bar):
                    calls += len(new_outputs)
                    finish(key, new_outputs)
            else:
                step = max(1, 2 * getattr(model, "concurrency", 1))
                for a, b in gaps:
                    s = a
                    while s < b:
                        task = plan(s, min(b, s + step))
                        started = time.perf_counter()
                        answered = list(backend.run(model, [task], batch_size=batch_size, bar=bar))
                        seconds = time.perf_counter() - started  # model time only, not scoring and storing
                        for key, new_outputs in answered:
                            calls += len(new_outputs)
                            finish(key, new_outputs)
                        if task[1]:  # measured: rows per second of model time
                            rate = len(task[1]) / max(seconds, 1e-3)
                            step = int(min(size, max(getattr(model, "concurrency", 1), rate * SHARD_SECONDS)))
                        s = bounds[task[0]][1]
        except ModelError as e:
            named = _rows_named(e, bounds, known)
            row = getattr(named, "row", None)
            if isinstance(row, int) and 0 <= row < n and "example id" not in str(named):
                raise type(e)(f"{named} That is example id '{ids[row]}'.") from e
            if named is not e:
                raise named from e
            raise
    return calls


#: Send a shard's requests while the one before is scored and stored (models with ``submit``, serial backend).
PIPELINE = True


def _pipelined(model: Model, plan: Callable[[int, int], tuple[str, list[Any]]], finish: Callable[[str, list[Any]], None],
               gaps: Sequence[tuple[int, int]], *, size: int, adaptive: bool, bar: Any) -> int:
    """Run the shards of ``gaps`` through ``model.submit`` one shard ahead; returns the model calls made.

    The next shard is always sent, queued behind the one in flight on the model's request slots: its
    requests start as the current shard's run out (the server never waits for the runner between
    shards), and run while the answered shard is scored and stored. Only then is the shard after it
    sent. A killed run loses the shard being stored and what the next one had answered.

    Shards are planned in order, of ``size`` rows or, ``adaptive``, the first two of twice the
    model's concurrency, then each of about :data:`SHARD_SECONDS` of the model time measured on the
    last shard answered (from when the one before it was answered).
    """
    concurrency = getattr(model, "concurrency", 1)
    step = max(1, 2 * concurrency) if adaptive else size

    def shards() -> Iterator[tuple[int, int]]:  # lazily: an adaptive shard's size follows the one before
        for a, b in gaps:
            s = a
            while s < b:
                e = min(b, s + step)
                yield s, e
                s = e

    def send(bounds: tuple[int, int] | None) -> tuple[str, list[Any], Future[list[Any]] | None, list[float]] | None:
        if bounds is None:
            return None
        key, fresh = plan(*bounds)
        if not fresh:
            return key, fresh, None, []
        times = [time.perf_counter()]  # sent, then answered (on the model's thread, as the future completes)
        future = model.submit(fresh)  # type: ignore[attr-defined]
        future.add_done_callback(lambda _: times.append(time.perf_counter()))
        return key, fresh, future, times

    upcoming = shards()
    queued: deque[tuple[str, list[Any], Future[list[Any]] | None, list[float]]] = deque()

    def top_up() -> None:  # the shard in flight, and the next one queued behind it on the model's slots
        while len(queued) < 2:
            sent = send(next(upcoming, None))
            if sent is None:
                return
            queued.append(sent)

    calls = 0
    answered_at = 0.0
    top_up()
    try:
        while queued:
            key, fresh, future, times = queued[0]  # left in the queue until answered: an interrupt cancels it
            outputs: list[Any] = []
            if future is not None:
                try:
                    got = future.result()
                except Exception as e:
                    error = call_error(model, e, where=key, first=0, last=len(fresh) - 1)
                    if error is e:
                        raise
                    raise error from e
                outputs = checked_outputs(model, got, len(fresh), where=key)
                bar.advance(len(fresh))
                # the done callback may not have run yet when result() returns: then the answer is just in
                done_at = times[1] if len(times) > 1 else time.perf_counter()
                if adaptive:  # rows per second of model time (from when the shard before was answered)
                    rate = len(fresh) / max(done_at - max(times[0], answered_at), 1e-3)
                    step = int(min(size, max(concurrency, rate * SHARD_SECONDS)))
                answered_at = done_at
            queued.popleft()
            calls += len(outputs)
            finish(key, outputs)  # the next shard's requests run meanwhile
            top_up()
    finally:
        for _, _, future, _ in queued:  # stopped by an error or an interrupt: stop the shards sent
            if future is not None:
                future.cancel()
    return calls


def _rows_named(error: ModelError, bounds: Mapping[str, tuple[int, int]], known: Mapping[str, Mapping[int, Any]]) -> ModelError:
    """The error with the test-part rows it names corrected when its shard had cached rows: the model
    was sent only the others, so a position in its call is not the shard's start plus that position."""
    key, span, text = getattr(error, "shard", None), getattr(error, "span", None), getattr(error, "rows_text", None)
    if not isinstance(key, str) or key not in bounds or not known.get(key) or span is None or not text:
        return error
    s, e = bounds[key]
    sent = [s + i for i in range(e - s) if i not in known[key]]
    first, last = sent[span[0]], sent[span[1]]
    named = type(error)(str(error).replace(text, f"rows {first}..{last} of the test part"))
    named.row = first if isinstance(getattr(error, "row", None), int) else None  # type: ignore[attr-defined]
    return named
