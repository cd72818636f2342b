"""The run file (``gengap.toml``): one validated description of an evaluation.

``gengap eval`` builds the same :class:`RunConfig` from its options, so a command line and a run
file always mean the same thing. Unknown keys are errors that name the key and suggest the
nearest valid one; relative paths are read relative to the run file.

The settings tables are the groups of :class:`gengap.config.Settings` (see ``gengap._settings``,
where every default lives): ``[execution]`` (backend, workers, ray_address, batch_size, shard_size,
cache, resume, progress, threads), ``[scoring]`` (metrics, extract, choices_by, reference, cluster, judge,
judge_api, judge_model, verify, verifier), ``[splitting]`` (seed, test_fraction, dedupe) and ``[analysis]``
(baselines, train_similarity, find_slices, slice_order, slice_control); ``[model]`` holds the model and its :class:`Generation`
settings. A setting written in the wrong table (``seed`` in ``[eval]``) is an unknown key there, and
the error names the table it belongs in.

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

    [scoring]
    metrics = ["exact_match"]

    [eval]
    out = "report"
    curves = ["target_length"]   # optional: score curves along these axes (gengap eval --curve)
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import tomllib
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from gengap._errors import ConfigError, did_you_mean
from gengap._settings import DEFAULT_OUT, DEFAULT_RUN_NAME, GROUPS, Analysis, Execution, Generation, Scoring, Settings, Splitting
from gengap.prompts import Prompt

__all__ = ["RunConfig", "DataConfig", "ModelConfig", "PromptConfig", "SplitConfig", "EvalConfig", "Settings", "Execution",
           "Scoring", "Splitting", "Analysis", "Generation", "load_run_file", "parse_config", "RUN_FILE_TABLES"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


#: A prompt with every default (the run file's [prompt] table defaults to its fields).
_PROMPT = Prompt()


class DataConfig(_Strict):
    """Where the examples are and which columns play which role."""

    path: str
    input: str | list[str] = "input"
    target: str | None = "target"
    id: str | None = None
    metadata: list[str] | None = None
    format: Literal["jsonl", "json", "csv", "tsv", "parquet", "hf"] | None = None


class ModelConfig(Generation):
    """The model: an import spec (``pkg.mod:fn``), a ``.skops`` file, or an OpenAI-compatible base URL,
    with the :class:`Generation` settings of an HTTP model.

    ``version`` caches the outputs of a Python function model under that version (change it whenever
    the model changes); without it gengap cannot see the function's state and does not cache it.

    >>> ModelConfig(spec="http://localhost:8080/v1", max_tokens=32).api
    'chat'
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    spec: str
    name: str | None = None
    version: str | None = None
    model_name: str | None = None
    api_key_env: str | None = None
    trust_pickle: bool = False
    trusted: list[str] = Field(default_factory=list)


class PromptConfig(_Strict):
    """How examples become prompts for a language model (see :class:`gengap.Prompt`, whose
    defaults these are)."""

    template: str = _PROMPT.template
    k: int = Field(default=_PROMPT.k, ge=0)
    instruction: str = _PROMPT.instruction
    target_template: str = _PROMPT.target_template
    separator: str = _PROMPT.separator
    seed: int = _PROMPT.seed
    perturb: str = _PROMPT.perturb


class SplitConfig(BaseModel):
    """One split: a method name (or ``path`` of a split folder) plus that method's options."""

    model_config = ConfigDict(extra="allow", frozen=True)
    method: str | None = None
    path: str | None = None

    def options(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


class EvalConfig(_Strict):
    """What else to score and where to write: the output folder, the run's name, perturbations, curves."""

    out: str = DEFAULT_OUT
    name: str = DEFAULT_RUN_NAME
    perturb: list[str] = []
    curves: list[str] = []


class RunConfig(Settings):
    """A whole evaluation: data, model, prompt, splits, the :class:`Settings` groups, and the output.

    It is a :class:`Settings`, so ``gengap.evaluate(..., settings=run_config)`` takes its settings.

    >>> cfg = parse_config({"data": {"path": "d.jsonl"}, "model": {"spec": "m:f"}, "execution": {"batch_size": 8}})
    >>> cfg.execution.batch_size, cfg.splitting.seed, cfg.eval.out
    (8, 0, 'gengap-report')
    """

    data: DataConfig | None = None
    model: ModelConfig
    prompt: PromptConfig | None = None
    split: list[SplitConfig] = Field(default_factory=lambda: [SplitConfig(method="random")])
    eval: EvalConfig = EvalConfig()

    def settings(self) -> Settings:
        """Only the :class:`Settings` groups (what :func:`gengap.evaluate` reads)."""
        return Settings(**{group: getattr(self, group) for group in GROUPS})


#: Model settings that say how fast answers come, not what they are: not stored with a run.
NOT_STORED_MODEL = ("concurrency", "timeout", "max_retries")


def _table_model(model: type[BaseModel], loc: list[str]) -> Any:
    """The model class of the table at ``loc`` (``["model"]`` -> ModelConfig), or None."""
    parent: Any = model
    for name in loc:
        field = parent.model_fields.get(name) if hasattr(parent, "model_fields") else None
        if field is None:
            return None
        ann = field.annotation
        parent = ann if hasattr(ann, "model_fields") else getattr(ann, "__args__", [ann])[0]
    return parent


def _type_name(model: type[BaseModel], loc: list[str]) -> str:
    """The expected type of the field at ``loc`` as a reader writes it (``int``, ``float | None``); empty for
    a choice, whose message lists the values already."""
    table = _table_model(model, loc[:-1])
    field = getattr(table, "model_fields", {}).get(loc[-1])
    if field is None or "Literal" in str(field.annotation):
        return ""
    ann = field.annotation
    return ann.__name__ if isinstance(ann, type) else str(ann).replace("typing.", "")


def _unknown_key(model: type[BaseModel], loc: list[str]) -> str:
    """Why a key is unknown: the table it belongs in (a setting of another group), or the nearest valid
    key of its table (or of another settings table, named)."""
    table = _table_model(model, loc[:-1])
    valid = list(getattr(table, "model_fields", {}))
    key = loc[-1]
    here = loc[0] if len(loc) > 1 else None
    homes = {name: g for g, m in GROUPS.items() if g != here for name in m.model_fields if name not in valid}
    if key in homes:
        hint = f" '{key}' belongs in [{homes[key]}]."
    else:
        hint = did_you_mean(key, valid + list(homes))
        close = difflib.get_close_matches(key, valid + list(homes), n=1, cutoff=0.6)
        if close and close[0] in homes:
            hint += f" (in [{homes[close[0]]}])"
    return f"unknown key '{'.'.join(loc)}'.{hint} Valid keys there: {', '.join(valid)}"


def _format_error(err: ValidationError, source: str, model: type[BaseModel], names: Mapping[str, str] | None = None) -> str:
    """One message for every problem, each naming the key as the user wrote it (``names``: key -> shown name)."""
    parts = []
    for e in err.errors():
        loc = [str(x) for x in e["loc"]]
        key = ".".join(loc)
        shown = (names or {}).get(key, key)
        if e["type"] == "extra_forbidden":
            parts.append(_unknown_key(model, loc))
        elif e["type"] == "missing":
            parts.append(f"missing required key '{shown}'")
        elif e["type"] == "value_error":  # a validator's own sentence says what was expected
            parts.append(f"'{shown}': {str(e['msg']).removeprefix('Value error, ')}")
        else:
            expected = _type_name(model, loc)
            parts.append(f"'{shown}': {e['msg']} (got {e.get('input')!r}{'; expected ' + expected if expected else ''})")
    return f"{source}: " + "; ".join(parts) + "."


def parse_config(data: Mapping[str, Any], *, source: str = "run file", names: Mapping[str, str] | None = None) -> RunConfig:
    """Validate a dict (a parsed TOML file) into a RunConfig, with readable errors.

    ``names`` shows keys under other names in error messages (``gengap eval``'s options).

    >>> parse_config({"data": {"path": "d"}, "model": {"spec": "m:f"}, "splitting": {"sed": 1}})
    Traceback (most recent call last):
      ...
    gengap._errors.ConfigError: run file: unknown key 'splitting.sed'. Did you mean 'seed'? Valid keys there: seed, test_fraction, dedupe.
    """
    try:
        cfg = RunConfig.model_validate(data)
    except ValidationError as e:
        raise ConfigError(_format_error(e, source, RunConfig, names)) from None
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


#: The tables of a run file stored with a run besides its settings (``gengap resume`` reads them back).
RUN_FILE_TABLES = ("data", "model", "prompt", "split", "eval")
