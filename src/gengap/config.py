"""The run file (``gengap.toml``): one validated description of an evaluation.

``gengap eval`` builds the same :class:`RunConfig` from its options, so a command line and a run
file always mean the same thing. Unknown keys are errors that name the key and suggest the
nearest valid one; relative paths are read relative to the run file.

Example run file::

    [data]
    path = "data.jsonl"
    input = "question"
    target = "answer"

    [model]
    spec = "mypkg.mymodule:predict"

    [[split]]
    method = "random"

    [[split]]
    method = "length"
    by = "target"

    [eval]
    metrics = ["exact_match"]
    out = "report"
    curves = ["target_length"]   # optional: score curves along these axes (gengap eval --curve)
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Literal

import tomllib
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from gengap._errors import ConfigError, did_you_mean

__all__ = ["RunConfig", "DataConfig", "ModelConfig", "PromptConfig", "SplitConfig", "EvalConfig", "load_run_file",
           "execute"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DataConfig(_Strict):
    """Where the examples are and which columns play which role."""

    path: str
    input: str | list[str] = "input"
    target: str | None = "target"
    id: str | None = None
    metadata: list[str] | None = None
    format: Literal["jsonl", "json", "csv", "tsv", "parquet", "hf"] | None = None


class ModelConfig(_Strict):
    """The model: an import spec (``pkg.mod:fn``), a ``.skops`` file, or an OpenAI-compatible base URL.

    ``version`` caches the outputs of a Python function model under that version (change it whenever
    the model changes); without it gengap cannot see the function's state and does not cache it.
    """

    spec: str
    name: str | None = None
    version: str | None = None
    model_name: str | None = None
    api: Literal["chat", "completions"] = "chat"
    api_key_env: str | None = None
    concurrency: int = Field(8, ge=1, le=1024)
    timeout: float = Field(60.0, gt=0)
    max_retries: int = Field(5, ge=0, le=50)
    max_tokens: int | None = Field(None, ge=1)
    temperature: float = Field(0.0, ge=0)
    top_p: float | None = Field(None, gt=0, le=1)
    seed: int | None = None
    stop: list[str] | None = None
    extra: dict[str, Any] = Field(default_factory=dict)
    system_prompt: str | None = None
    trust_pickle: bool = False
    trusted: list[str] = Field(default_factory=list)


class PromptConfig(_Strict):
    """How examples become prompts for a language model (see :class:`gengap.Prompt`)."""

    template: str = "{input}"
    k: int = Field(0, ge=0)
    instruction: str = ""
    target_template: str = " {target}"
    separator: str = "\n\n"
    seed: int = 0
    perturb: str = "question"


class SplitConfig(BaseModel):
    """One split: a method name (or ``path`` of a split folder) plus that method's options."""

    model_config = ConfigDict(extra="allow", frozen=True)
    method: str | None = None
    path: str | None = None

    def options(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


class EvalConfig(_Strict):
    """How to score and where to write."""

    metrics: list[str] = ["exact_match"]
    seed: int = 0
    test_fraction: float = Field(0.2, gt=0, lt=1)
    batch_size: int = Field(512, ge=1)
    out: str = "gengap-report"
    reference: str | None = None
    name: str = "eval"
    backend: Literal["serial", "thread", "process", "ray"] = "serial"
    workers: int | None = Field(None, ge=1)
    ray_address: str | None = None
    shard_size: int | None = Field(None, ge=1)
    cache: bool = True
    extract: Literal["number", "choice", "yes_no", "text"] | None = None
    perturb: list[str] = []
    choices_by: Literal["generate", "loglik", "loglik_norm"] = "generate"
    curves: list[str] = []


class RunConfig(_Strict):
    """A whole evaluation: data, model, splits and evaluation settings."""

    data: DataConfig | None = None
    model: ModelConfig
    prompt: PromptConfig | None = None
    split: list[SplitConfig] = Field(default_factory=lambda: [SplitConfig(method="random")])
    eval: EvalConfig = EvalConfig()


def _format_error(err: ValidationError, source: str, model: type[BaseModel]) -> str:
    parts = []
    for e in err.errors():
        loc = [str(x) for x in e["loc"]]
        key = ".".join(loc)
        if e["type"] == "extra_forbidden":
            parent: Any = model
            for name in loc[:-1]:
                field = parent.model_fields.get(name) if hasattr(parent, "model_fields") else None
                if field is None:
                    break
                ann = field.annotation
                parent = getattr(ann, "__args__", [ann])[0] if not hasattr(ann, "model_fields") else ann
            valid = list(getattr(parent, "model_fields", {}))
            parts.append(f"unknown key '{key}'.{did_you_mean(loc[-1], valid)} Valid keys there: {', '.join(valid)}")
        elif e["type"] == "missing":
            parts.append(f"missing required key '{key}'")
        else:
            parts.append(f"'{key}': {e['msg']} (got {e.get('input')!r})")
    return f"{source}: " + "; ".join(parts) + "."


def parse_config(data: dict[str, Any], *, source: str = "run file") -> RunConfig:
    """Validate a dict (a parsed TOML file) into a RunConfig, with readable errors."""
    try:
        cfg = RunConfig.model_validate(data)
    except ValidationError as e:
        raise ConfigError(_format_error(e, source, RunConfig)) from None
    if cfg.data is None and not any(s.path for s in cfg.split):
        raise ConfigError(f"{source}: missing the [data] table (path, input, target), needed unless a split folder is given.")
    for i, s in enumerate(cfg.split):
        if (s.method is None) == (s.path is None):
            raise ConfigError(f"{source}: split #{i + 1} needs exactly one of 'method' (e.g. \"random\") or 'path' (a split folder).")
    return cfg


def load_run_file(path: str | Path) -> RunConfig:
    """Read and validate a TOML run file; relative paths in it are resolved against its folder,
    and a model given as ``module:function`` may live in a module beside the run file."""
    path = Path(path)
    if not path.exists():
        raise ConfigError(f"Run file '{path}' does not exist.")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"'{path}' is not valid TOML: {e}.") from None
    except UnicodeDecodeError:
        raise ConfigError(f"'{path}' is not UTF-8 text.") from None
    cfg = parse_config(data, source=f"'{path}'")
    base = path.parent

    def rel(p: str) -> str:
        return p if p.startswith(("http://", "https://")) or Path(p).is_absolute() else str((base / p).resolve())

    data_cfg = cfg.data.model_copy(update={"path": rel(cfg.data.path)}) if cfg.data else None
    model_spec = cfg.model.spec
    if Path(model_spec).suffix in (".skops", ".pkl", ".pickle", ".joblib"):
        model_spec = rel(model_spec)
    elif ":" in model_spec and not model_spec.startswith(("http://", "https://")):
        # an import spec: modules beside the run file import wherever gengap runs from
        folder = str(base.resolve())
        if folder not in sys.path:
            sys.path.append(folder)
    splits = [s.model_copy(update={"path": rel(s.path)}) if s.path else s for s in cfg.split]
    return cfg.model_copy(update={
        "data": data_cfg, "model": cfg.model.model_copy(update={"spec": model_spec}), "split": splits,
        "eval": cfg.eval.model_copy(update={"out": rel(cfg.eval.out)}),
    })


def build_model(cfg: ModelConfig) -> Any:
    """The Model a ModelConfig describes."""
    from gengap.models import load_model

    options: dict[str, Any] = {}
    if cfg.spec.startswith(("http://", "https://")):
        options = {"model_name": cfg.model_name, "api": cfg.api, "api_key_env": cfg.api_key_env,
                   "concurrency": cfg.concurrency, "timeout": cfg.timeout, "max_retries": cfg.max_retries,
                   "max_tokens": cfg.max_tokens, "temperature": cfg.temperature, "system_prompt": cfg.system_prompt,
                   "top_p": cfg.top_p, "seed": cfg.seed, "stop": cfg.stop, "extra": cfg.extra}
    elif Path(cfg.spec).suffix in (".skops", ".pkl", ".pickle", ".joblib"):
        options = {"trust_pickle": cfg.trust_pickle, "trusted": cfg.trusted}
    if cfg.version is not None and not options and not cfg.spec.startswith(("http://", "https://")):
        options = {"version": cfg.version}
    return load_model(cfg.spec, name=cfg.name, **options)


def _identity(cfg: RunConfig) -> dict[str, Any]:
    """The run file as stored with the run: what the run computes, not where or how fast it runs,
    so the same evaluation resumes whatever backend or worker count the second attempt uses."""
    data = cfg.model_dump(mode="json")
    for key in ("backend", "workers", "ray_address", "cache"):
        data["eval"].pop(key, None)
    for key in ("concurrency", "timeout", "max_retries"):
        data["model"].pop(key, None)
    return data


def execute(cfg: RunConfig, *, progress: bool | None = None) -> Any:
    """Load the data, build model and splits, evaluate, and write the report. Returns the Evaluation."""
    from gengap._outputs import check_out_folder
    from gengap.io import load
    from gengap.runner import evaluate
    from gengap.splits import make_splitter

    check_out_folder(cfg.eval.out)  # before any data is read or model built
    splits: list[Any] = []
    dataset = None
    if any(s.path for s in cfg.split):
        dataset, splits = _split_folders(cfg)
    else:
        assert cfg.data is not None  # checked in parse_config
        dataset = load(cfg.data.path, input=cfg.data.input, target=cfg.data.target, id=cfg.data.id,
                       metadata=cfg.data.metadata, format=cfg.data.format)
        for s in cfg.split:
            splits.append(make_splitter(s.method or "random", options=s.options(), seed=cfg.eval.seed,
                                        test_fraction=cfg.eval.test_fraction))
    model = build_model(cfg.model)  # after the data: a missing data file is reported first
    evaluation = evaluate(model, dataset, splits, metrics=cfg.eval.metrics, out=cfg.eval.out, name=cfg.eval.name,
                          batch_size=cfg.eval.batch_size, seed=cfg.eval.seed, test_fraction=cfg.eval.test_fraction,
                          reference=cfg.eval.reference, config=_identity(cfg), progress=progress,
                          backend=cfg.eval.backend, workers=cfg.eval.workers, ray_address=cfg.eval.ray_address,
                          shard_size=cfg.eval.shard_size, cache=cfg.eval.cache, extract=cfg.eval.extract, perturbations=_perturbations(cfg),
                          prompt=cfg.prompt.model_dump() if cfg.prompt else None, choices_by=cfg.eval.choices_by)
    evaluation.report(curves=cfg.eval.curves)
    return evaluation


def _split_folders(cfg: RunConfig) -> tuple[Any, list[Any]]:
    """The splits of several folders written by ``gengap split`` from the same data, evaluated together.

    Every folder records the fingerprint of the dataset it was cut from; folders cut from different
    data cannot be compared (their gap would mix a change of data with a change of split).
    """
    from gengap.splits import load_split

    methods = [s.method for s in cfg.split if s.path is None]
    folders = [s.path for s in cfg.split if s.path is not None]
    if methods:
        raise ConfigError(f"Split folders ({', '.join(folders)}) cannot be mixed with split methods ({', '.join(map(str, methods))}): "
                          "a folder brings its own data. Write the other splits to folders too (gengap split DATA "
                          "--method METHOD --out FOLDER) and pass every folder with --split.")
    if cfg.data is not None:
        raise ConfigError(f"A split folder ({folders[0]}) brings its own data; leave out the data "
                          f"({cfg.data.path}), or split that data with a split method instead.")
    splits = [load_split(f) for f in folders]
    prints = [_folder_fingerprint(f) for f in folders]
    for folder, fp in zip(folders[1:], prints[1:]):
        if fp != prints[0]:
            raise ConfigError(f"The split folders '{folders[0]}' and '{folder}' were made from different data (dataset "
                              f"fingerprints {prints[0]} and {fp}), so their scores cannot be compared. Split the same "
                              "data file with each method (gengap split DATA --method ... --out ...).")
    names = [s.name for s in splits]
    for name in dict.fromkeys(names):
        if names.count(name) > 1:
            same = [f for f, n in zip(folders, names) if n == name]
            raise ConfigError(f"The split folders {', '.join(same)} hold splits with the same name '{name}'; pass each "
                              "split once.")
    return splits[0].dataset, splits


def _folder_fingerprint(folder: str) -> str | None:
    """The dataset fingerprint recorded in a split folder's split.json (None in folders that lack one)."""
    import json

    try:
        info = json.loads((Path(folder) / "split.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    dataset = info.get("dataset") if isinstance(info, dict) else None
    return dataset.get("fingerprint") if isinstance(dataset, dict) else None


def _perturbations(cfg: RunConfig) -> list[Any]:
    """The run file's ``eval.perturb`` specs (``"typos:rate=0.05"``, ``"all_format"``) as perturbations."""
    if not cfg.eval.perturb:
        return []
    from gengap.perturb import make_perturbations

    return make_perturbations(cfg.eval.perturb)
