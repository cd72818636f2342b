"""The settings of an evaluation, grouped, typed and frozen: the one place their defaults live.

Five groups, each a small pydantic model:

- :class:`Execution`: where and how the work runs (backend, workers, batch and shard sizes, cache,
  resume, progress bars); it never changes a score.
- :class:`Scoring`: how outputs become scores (metrics, answer extraction and its optional model
  judge, multiple choice, the reference split).
- :class:`Splitting`: defaults of splitters built from a method name (seed, test share).
- :class:`Analysis`: what is computed beside the scores (shortcut baselines, each test row's
  similarity to training, the search for slices that fail).
- :class:`Generation`: how an HTTP model generates (API, sampling, stops, request fields, and its
  client's concurrency, timeout and retries).

:class:`Settings` holds the first four; :func:`gengap.evaluate` takes it as ``settings`` and its
fields by name (a setting given by name wins over ``settings``). The run file (``gengap.toml``) reads them from
its ``[execution]``, ``[scoring]``, ``[splitting]`` and ``[analysis]`` tables and the generation settings
from ``[model]``; ``gengap eval`` has one option per field, made from it (name, type, default, help).

>>> s = Settings().replace(batch_size=64, metrics=["token_f1"])
>>> s.execution.batch_size, s.scoring.metrics, s.splitting.seed
(64, ['token_f1'], 0)
>>> Settings().replace(batch_size=0)
Traceback (most recent call last):
  ...
gengap._errors.ConfigError: batch_size=0: Input should be greater than or equal to 1 (execution.batch_size).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from gengap._errors import ConfigError, did_you_mean

__all__ = ["Execution", "Scoring", "Splitting", "Analysis", "Generation", "Settings", "GROUPS", "DEFAULT_RUN_NAME",
           "DEFAULT_OUT"]

#: A run's name in the store when none is given (``evaluate(name=...)``, ``[eval] name``).
DEFAULT_RUN_NAME = "eval"
#: The output folder of the commands when none is given (``--out``, ``[eval] out``).
DEFAULT_OUT = "gengap-report"


class _Strict(BaseModel):
    """Frozen, and unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Execution(_Strict):
    """Where and how the work runs. None of these changes a score.

    >>> Execution(backend="thread", workers=4).batch_size
    512
    """

    backend: Literal["serial", "thread", "process", "ray"] = Field(
        default="serial", description="Where model calls run: serial, thread, process or ray.")
    workers: int | None = Field(default=None, ge=1, description="Workers for the thread, process or ray backend.")
    ray_address: str | None = Field(default=None, description="Ray cluster address (default: a local Ray instance).")
    batch_size: int = Field(default=512, ge=1, description="Inputs per model call.")
    shard_size: int | None = Field(default=None, ge=1, description="Rows per unit of work stored atomically (default: automatic).")
    cache: bool = Field(default=True, description="Reuse stored outputs for inputs a model answered before.")
    resume: bool = Field(default=True, description="Continue an unfinished run of the same name and settings in the output folder.")
    progress: bool | None = Field(default=None, description="Show progress bars (default: when stderr is a terminal).")
    threads: int | None = Field(
        default=None, ge=1, description="CPU cores for training learners: that many train side by side, one process and "
                                        "one torch thread each (default: the cores this process may use). Scores do not "
                                        "depend on it.")

    #: Settings that say how or how fast a run ran, not what it computed: they are not stored with
    #: the run's settings, so it resumes whatever backend, worker or thread count the second attempt
    #: uses (the threads it ran with are recorded apart, under ``ran_with``).
    NOT_STORED: ClassVar[tuple[str, ...]] = ("backend", "workers", "ray_address", "cache", "resume", "progress",
                                             "threads")


class Scoring(_Strict):
    """How outputs become scores, and which split the gaps are measured from.

    >>> Scoring().metrics
    ['exact_match']
    """

    metrics: list[str] = Field(
        default_factory=lambda: ["exact_match"],
        description="Metrics: per-example exact_match, normalized_match, token_f1; of a whole test part auroc, pr_auc, "
                    "macro_f1, micro_f1, mcc, balanced_accuracy, brier, log_loss, ece, ece_adaptive, ece_debiased, aurc, "
                    "selective_accuracy, bleu, chrf (options after a colon: auroc:positive=yes).")
    extract: Literal["number", "choice", "yes_no", "text"] | None = Field(
        default=None, description="Read the answer out of free-text outputs before scoring: number, choice, yes_no or "
                                  "text. Unreadable outputs are counted apart.")
    choices_by: Literal["generate", "loglik", "loglik_norm"] = Field(
        default="generate", description="Multiple choice (a 'choices' column): generate, loglik (summed log-probability "
                                        "of each option) or loglik_norm (per token).")
    reference: str | None = Field(default=None, description="Split that gaps are measured from (default: the random split).")
    cluster: str | None = Field(
        default=None, description="A metadata column whose rows are not independent (questions of one passage, "
                                  "document or source): every interval and test counts clusters, not rows.")
    samples: int = Field(
        default=1, description="Answers asked of the model per example (an endpoint at temperature > 0, or a Python "
                               "function with randomness, is called that many times): pass@k and maj@k are reported, "
                               "and the samples of an example are one cluster for every interval and test.")
    @field_validator("samples")
    @classmethod
    def _at_least_one(cls, value: int) -> int:
        if value < 1:
            raise ValueError(f"ask each example at least once (samples 1 or more; {value} given)")
        return value

    #: The settings of the answer judge (stored with a run only when there is one).
    JUDGE: ClassVar[tuple[str, ...]] = ("judge", "judge_api", "judge_model")
    judge: str | None = Field(
        default=None, description="With extract: the base URL of an OpenAI-compatible API (e.g. a llama.cpp server, "
                                  "http://127.0.0.1:8080/v1) asked about the outputs the rules cannot read or read two "
                                  "ways; never shown a target. Off by default.")
    judge_api: Literal["chat", "completions"] = Field(
        default="chat", description="How the judge is asked: chat (an instruction; instruction-tuned models) or "
                                    "completions (worked examples; base models).")
    judge_model: str | None = Field(default=None, description="The judge's served model name (default: the first its "
                                                              "server lists).")
    verify: bool = Field(
        default=True, description="With extract: let the verifier (a small trained model) leave doubtful readings "
                                  "unextracted, counted apart (on by default; --no-verify reads with the rules alone).")
    verifier: str | None = Field(
        default=None, description="With extract: the verifier's model file (default: the one shipped with gengap; "
                                  "written by benchmarks/train_extract_verifier.py --out PATH).")


class Splitting(_Strict):
    """Defaults for splitters built from a method name (``"random"``, ``"length"``).

    >>> Splitting(seed=3).test_fraction
    0.2
    """

    seed: int = Field(default=0, description="Seed for every split, perturbation and resample.")
    test_fraction: float = Field(default=0.2, gt=0, lt=1, description="Test share for splits that take one.")
    dedupe: bool = Field(default=False, description="Keep inputs that are normalized or near copies of each other on one "
                                                    "side of every split (gengap leakage finds such copies).")


class Analysis(_Strict):
    """What is computed beside the scores: shortcut baselines scored like models, each test row's
    similarity to training, and the search for slices that score below the rest.

    >>> Analysis(baselines=["majority"]).slice_order
    2
    """

    baselines: list[str] = Field(default_factory=list, description="Shortcut baselines scored beside the model on "
                                 "every split, each trained on the split's train part: majority, length, or "
                                 "partial:fields=question (only those fields; join several with +).")
    train_similarity: str | None = Field(default=None, description="Store each test row's similarity to the nearest "
                                         "train example of its split (the axis 'train_similarity'): 'tfidf', or a "
                                         "metadata column holding one embedding per example. Default: tfidf when a "
                                         "curve along train_similarity is asked for, else off.")
    find_slices: bool = Field(default=False, description="Search the metadata and derived columns (input and target "
                                                         "length) for slices that score significantly below the rest, "
                                                         "and report them (\"Where it fails\").")
    slice_order: int = Field(default=2, ge=1, le=3, description="With find_slices: the most conditions in a slice "
                                                                "(2 also finds 'a and b').")
    slice_control: Literal["bh", "split"] = Field(default="bh", description="With find_slices: how false "
                                                  "discoveries are controlled: 'bh' (Benjamini-Hochberg over every "
                                                  "slice tested) or 'split' (discovered on one half of the rows, "
                                                  "confirmed on the other).")

    #: Settings of the report, not of a stored row: not stored with the run (a run with and without
    #: them resumes as one).
    NOT_STORED: ClassVar[tuple[str, ...]] = ("find_slices", "slice_order", "slice_control")


class Generation(_Strict):
    """How an OpenAI-compatible HTTP model generates, and how its client sends requests.

    The client settings (``concurrency``, ``timeout``, ``max_retries``) change how fast answers
    come, never what they are; the others are part of the model's fingerprint.

    >>> Generation(max_tokens=32).temperature
    0.0
    """

    api: Literal["chat", "completions"] = Field(default="chat", description="HTTP endpoints: 'chat' or 'completions'.")
    max_tokens: int | None = Field(default=None, ge=1, description="HTTP endpoints: most tokens to generate per answer.")
    temperature: float = Field(default=0.0, ge=0, description="HTTP endpoints: sampling temperature (0: greedy).")
    top_p: float | None = Field(default=None, gt=0, le=1, description="HTTP endpoints: nucleus sampling share in (0, 1].")
    seed: int | None = Field(default=None, description="HTTP endpoints: the sampling seed sent with each request.")
    stop: list[str] | None = Field(default=None, description="HTTP endpoints: stop sequences.")
    extra: dict[str, Any] = Field(default_factory=dict, description="HTTP endpoints: extra request fields sent as they are.")
    system_prompt: str | None = Field(default=None, description="HTTP endpoints (chat): a system message sent before each input.")
    concurrency: int = Field(default=8, ge=1, le=1024, description="HTTP endpoints: requests in flight.")
    timeout: float = Field(default=60.0, gt=0, description="HTTP endpoints: seconds to wait for each request.")
    max_retries: int = Field(default=5, ge=0, le=50, description="HTTP endpoints: retries on connection errors, timeouts, 429 and 5xx.")


_S = TypeVar("_S", bound="Settings")

#: The groups of :class:`Settings`, by the name of their field (and of their run-file table).
GROUPS: dict[str, type[_Strict]] = {"execution": Execution, "scoring": Scoring, "splitting": Splitting, "analysis": Analysis}


class Settings(_Strict):
    """Everything :func:`gengap.evaluate` needs besides the model, the data and the splits.

    Build it from groups, or change single options by name with :meth:`replace` (each option name
    is unique across the groups):

    >>> custom = Settings(execution=Execution(backend="thread", workers=2), splitting=Splitting(seed=7))
    >>> custom.replace(seed=8).splitting.seed, custom.execution.workers
    (8, 2)
    >>> Settings.option_group("test_fraction")
    'splitting'
    """

    execution: Execution = Field(default=Execution(), description="Where and how the work runs.")
    scoring: Scoring = Field(default=Scoring(), description="How outputs become scores.")
    splitting: Splitting = Field(default=Splitting(), description="Defaults for splitters built from a name.")
    analysis: Analysis = Field(default=Analysis(), description="What is computed beside the scores.")

    @classmethod
    def options(cls) -> dict[str, str]:
        """Every option name, mapped to the group that holds it.

        >>> list(Settings.options())[:3]
        ['backend', 'workers', 'ray_address']
        """
        return {name: group for group, model in GROUPS.items() for name in model.model_fields}

    @classmethod
    def option_group(cls, name: str) -> str:
        """The group holding option ``name``; a ConfigError suggesting the nearest name if there is none."""
        groups = cls.options()
        if name not in groups:
            raise ConfigError(f"Unknown setting '{name}'.{did_you_mean(name, groups)} Settings: {', '.join(groups)}.")
        return groups[name]

    def stored(self) -> dict[str, Any]:
        """The settings as stored with a run (JSON): every group, less :attr:`Execution.NOT_STORED` and
        :attr:`Analysis.NOT_STORED`.

        >>> Settings().stored()["execution"]
        {'batch_size': 512, 'shard_size': None}
        """
        data = Settings(**{group: getattr(self, group) for group in GROUPS}).model_dump(mode="json")
        for key in Execution.NOT_STORED:
            data["execution"].pop(key)
        if not self.splitting.dedupe:  # absent when off: runs stored before it existed still resume
            data["splitting"].pop("dedupe")
        if self.scoring.judge is None:  # absent without a judge: runs stored before it existed still resume
            for key in Scoring.JUDGE:
                data["scoring"].pop(key)
        if self.scoring.verify:  # absent with the shipped verifier on: runs stored before it existed still resume
            data["scoring"].pop("verify")
        if self.scoring.verifier is None:
            data["scoring"].pop("verifier")
        if self.scoring.cluster is None:  # likewise without clusters
            data["scoring"].pop("cluster")
        if self.scoring.samples == 1:  # and with one answer per example
            data["scoring"].pop("samples")
        for key in Analysis.NOT_STORED:
            data["analysis"].pop(key)
        if not any(data["analysis"].values()):  # likewise without baselines or similarity to training
            data.pop("analysis")
        return data

    def replace(self: _S, *, source: str = "", **options: Any) -> _S:
        """A copy with the named options changed and checked (same type as ``self``).

        ``source`` starts the error message (e.g. ``"evaluate: "``). Errors name the option, the
        value and what was expected.
        """
        changes: dict[str, dict[str, Any]] = {}
        for name, value in options.items():
            changes.setdefault(self.option_group(name), {})[name] = value
        update: dict[str, Any] = {}
        for group, values in changes.items():
            current: BaseModel = getattr(self, group)
            try:
                update[group] = type(current).model_validate({**current.model_dump(), **values})
            except ValidationError as e:
                raise ConfigError(source + describe_errors(e, group, values)) from None
        return self.model_copy(update=update)


def describe_errors(err: ValidationError, group: str, given: dict[str, Any]) -> str:
    """One sentence per invalid option: its name and value, what was expected, and its group."""
    parts = []
    for e in err.errors():
        name = str(e["loc"][0]) if e["loc"] else group
        value = given.get(name, e.get("input"))
        message = str(e["msg"]).removeprefix("Value error, ")  # a validator's own sentence, as it wrote it
        parts.append(f"{name}={value!r}: {message} ({group}.{name})")
    return "; ".join(parts) + "."
