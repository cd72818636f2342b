"""``gengap eval`` (options) and ``gengap run`` (a run file): the same pipeline.

``gengap eval`` has two kinds of options. Those that say what to evaluate and where (the data, the
model, the splits, the prompt, the output) are the fields of :class:`EvalOptions`. Every setting
(the fields of :class:`gengap.config.Settings`' groups and of :class:`gengap.config.Generation`)
gets its option made from its field: the name with dashes, the type, the default and the
description as help; a new setting is one field. Both kinds become the same
:class:`gengap.config.RunConfig` a run file gives (:func:`run_config`).
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, fields
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Union

import typer
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from gengap._errors import ConfigError
from gengap._settings import GROUPS
from gengap.cli._app import app
from gengap.cli._common import print_effects, print_samples, print_slices, print_summary, stdout
from gengap.config import DataConfig, EvalConfig, Generation, ModelConfig, PromptConfig, RunConfig, Splitting

#: The defaults of the run file's tables that are no settings: each option's default is read from here.
_DATA, _MODEL, _PROMPT, _EVAL = DataConfig(path=""), ModelConfig(spec=""), PromptConfig(), EvalConfig()
_INPUT: str = DataConfig.model_fields["input"].default  # the field also takes a list of columns; the option one


def option(model: type[BaseModel], name: str, *flags: str, help: str | None = None) -> Any:
    """A typer option documented by the settings field it sets (its description is the help text)."""
    return typer.Option(*flags, help=help or model.model_fields[name].description)


@dataclass(frozen=True)
class EvalOptions:
    """The options of ``gengap eval`` that are not settings: what to evaluate, on what, and where to write."""

    model: Annotated[str, typer.Option(help="pkg.module:function (a batch callable or estimator), a .skops file, or an OpenAI-compatible base URL (http://host:port/v1).")]
    data: Annotated[Optional[str], typer.Option(help="Data file (JSONL, JSON, CSV, TSV, Parquet) or a Hugging Face dataset folder.")] = None
    split: Annotated[Optional[list[str]], typer.Option("--split", help="Split method (random, length, primitive:jump, ...; repeat for several) or a folder written by 'gengap split'.")] = None
    input: Annotated[str, typer.Option(help="Column with the model's input.")] = _INPUT
    target: Annotated[Optional[str], typer.Option(help="Column with the reference answer.")] = _DATA.target
    id: Annotated[Optional[str], typer.Option(help="Column with unique example ids (default: row numbers).")] = _DATA.id
    metadata: Annotated[Optional[list[str]], typer.Option(help="Metadata column to keep (repeat; default: all others).")] = _DATA.metadata
    format: Annotated[Optional[str], typer.Option(help="Force the data format: jsonl, json, csv, tsv, parquet, hf.")] = _DATA.format
    out: Annotated[Path, typer.Option(help="Output folder: report files and the gengap.duckdb store.")] = Path(_EVAL.out)
    name: Annotated[str, typer.Option(help="The run's name in the store (a run resumes only under the same name).")] = _EVAL.name
    perturb: Annotated[Optional[list[str]], typer.Option("--perturb", help="Perturbation to score too (repeat): typos:rate=0.05, casing, shuffle_choices, all_format, ...")] = None
    curve: Annotated[Optional[list[str]], typer.Option("--curve", help="Draw the score along this axis (repeat): a numeric metadata column, input_length, target_length or train_similarity.")] = None
    model_version: Annotated[Optional[str], typer.Option(help="Python function models: a version to cache their outputs under (change it whenever the model changes); without it they are not cached.")] = _MODEL.version
    model_name: Annotated[Optional[str], typer.Option(help="HTTP endpoints: the served model's name.", rich_help_panel="HTTP endpoints")] = _MODEL.model_name
    api_key_env: Annotated[Optional[str], typer.Option(help="HTTP endpoints: environment variable holding the API key.", rich_help_panel="HTTP endpoints")] = _MODEL.api_key_env
    stop: Annotated[Optional[list[str]], typer.Option("--stop", help="HTTP endpoints: a stop sequence (repeat; \\n is a newline). Default with --prompt on completions: a blank line and the template's prefix.", rich_help_panel="HTTP endpoints")] = None
    no_stop: Annotated[bool, typer.Option("--no-stop", help="HTTP endpoints: send no stop sequence at all.", rich_help_panel="HTTP endpoints")] = False
    request_field: Annotated[Optional[list[str]], typer.Option("--request-field", help="HTTP endpoints: an extra request field KEY=VALUE sent as it is (repeat; VALUE read as JSON when it parses).", rich_help_panel="HTTP endpoints")] = None
    trust_pickle: Annotated[bool, typer.Option(help="Allow loading .pkl/.joblib models (runs arbitrary code from the file).")] = _MODEL.trust_pickle
    trust_type: Annotated[Optional[list[str]], typer.Option(help=".skops files: a type outside scikit-learn/NumPy/SciPy to trust (repeat).")] = None
    prompt: Annotated[Optional[str], typer.Option(help="Build prompts: a template for one example, e.g. 'Question: {input}\\nAnswer:' (\\n is a newline).", rich_help_panel="Prompt")] = None
    shots: Annotated[int, typer.Option(help="With --prompt: few-shot examples drawn (seeded) from each split's train part.", rich_help_panel="Prompt")] = _PROMPT.k
    instruction: Annotated[Optional[str], typer.Option(help="With --prompt: text before the examples (the system message for chat).", rich_help_panel="Prompt")] = None
    target_template: Annotated[str, typer.Option(help="With --prompt: what follows a shot's template.", rich_help_panel="Prompt")] = _PROMPT.target_template
    prompt_perturb: Annotated[str, typer.Option(help="With --prompt: what perturbations change: question, shots, instruction, or several joined with +.", rich_help_panel="Prompt")] = _PROMPT.perturb


@dataclass(frozen=True)
class SettingOption:
    """The option of ``gengap eval`` made from one settings field."""

    table: str  # the run file's table: a Settings group, or "model" for a Generation setting
    name: str
    field: FieldInfo

    @property
    def flag(self) -> str:
        return "--" + _FLAG.get(self.name, self.name).replace("_", "-")

    @property
    def repeated(self) -> bool:
        """A list setting: the option is repeated, and not giving it keeps the field's default."""
        return typing.get_origin(_without_none(self.field.annotation)) is list

    def parameter(self) -> inspect.Parameter:
        """The parameter typer reads: the field's type as a command line types it, its default and description."""
        if self.repeated:
            kind: Any = Optional[list[str]]
            default = None
        else:
            kind, default = _command_line_type(self.field.annotation), self.field.get_default(call_default_factory=True)
        help = (self.field.description or "") + (" Repeat the option for several." if self.repeated else "")
        flags = (self.flag,) if self.name in _FLAG else ()
        panel = "HTTP endpoints" if self.table == "model" else f"Settings: {self.table}"
        return inspect.Parameter(self.name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                 annotation=Annotated[kind, typer.Option(*flags, help=help, rich_help_panel=panel)])


#: Settings whose option has another name than the field (a repeated option takes one value a time).
_FLAG = {"metrics": "metric", "baselines": "baseline"}
#: Generation settings with an option of their own in EvalOptions, or none: the sampling seed is
#: --seed (sent only when sampling), stop sequences are --stop/--no-stop, extra fields --request-field.
_GENERATION_BY_HAND = ("seed", "stop", "extra")
#: The tables of the settings: the Settings groups, and [model]'s Generation settings.
_SETTING_TABLES: dict[str, type[BaseModel]] = {**GROUPS, "model": Generation}
#: Every settings option, by name (each name is unique across the groups and Generation's kept fields).
SETTING_OPTIONS: dict[str, SettingOption] = {
    name: SettingOption(table, name, field)
    for table, model in _SETTING_TABLES.items()
    for name, field in model.model_fields.items()
    if not (table == "model" and name in _GENERATION_BY_HAND)
}


def _without_none(annotation: Any) -> Any:
    """``X`` of ``X | None`` (else the annotation itself)."""
    if typing.get_origin(annotation) in (Union, types.UnionType):
        rest = [a for a in typing.get_args(annotation) if a is not type(None)]
        return rest[0] if len(rest) == 1 else annotation
    return annotation


def _command_line_type(annotation: Any) -> Any:
    """How typer reads a field: a choice (Literal) as text, which the settings then check with their own message."""
    inner = _without_none(annotation)
    kind = str if typing.get_origin(inner) is Literal else inner
    return Optional[kind] if inner is not annotation else kind


def _parameters() -> list[inspect.Parameter]:
    """``gengap eval``'s parameters: :class:`EvalOptions`' fields, then one per setting."""
    hints = typing.get_type_hints(EvalOptions, include_extras=True)
    own = [inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, annotation=hints[f.name],
                             default=inspect.Parameter.empty if f.default is MISSING else f.default)
           for f in fields(EvalOptions)]
    return own + [o.parameter() for o in SETTING_OPTIONS.values()]


def eval_command(**given: Any) -> None:
    """Evaluate a model on splits of your data and write a report.

    Example: gengap eval --data data.jsonl --input question --target answer --model mypkg.mymodule:predict --split random --split length --out report/
    """
    own = {f.name for f in fields(EvalOptions)}
    options = EvalOptions(**{k: v for k, v in given.items() if k in own})
    _run_and_print(run_config(options, {k: v for k, v in given.items() if k not in own}))


eval_command.__signature__ = inspect.Signature(_parameters(), return_annotation=None)  # type: ignore[attr-defined]
app.command("eval")(eval_command)


def run_config(options: EvalOptions, settings: Mapping[str, Any] | None = None) -> RunConfig:
    """The RunConfig that ``gengap eval`` builds from its options: ``options`` and ``settings`` (values
    of :data:`SETTING_OPTIONS` by name; one left out, or a repeated one given as None, keeps its default).

    The same object a run file with those settings gives.

    >>> cfg = run_config(EvalOptions(model="m:f", data="d.jsonl"), {"batch_size": 8, "metrics": ["token_f1"]})
    >>> cfg.execution.batch_size, cfg.scoring.metrics, cfg.splitting.seed
    (8, ['token_f1'], 0)
    """
    from gengap.config import parse_config
    from gengap.models.http import parse_stop

    o = options
    tables: dict[str, dict[str, Any]] = {table: {} for table in (*GROUPS, "model")}
    for name, value in (settings or {}).items():
        if name not in SETTING_OPTIONS:
            raise ConfigError(f"gengap eval has no setting '{name}'.")
        setting = SETTING_OPTIONS[name]
        if not (setting.repeated and value is None):
            tables[setting.table][name] = value
    splits = [{"path": s} if Path(s).is_dir() else {"method": s} for s in o.split or ["random"]]
    for s in o.split or []:
        method = s.split(":", 1)[0]
        if not Path(s).is_dir() and ("/" in method or "\\" in method or Path(s).exists()):
            raise ConfigError(f"--split {s}: the split folder '{s}' does not exist" + (
                "" if not Path(s).exists() else " (it is a file; a split folder is what gengap split --out writes)")
                + ". Write it first with gengap split DATA --method METHOD --out FOLDER, or give a split method.")
    generation = tables.pop("model")
    seed = tables["splitting"].get("seed", Splitting.model_fields["seed"].default)
    sampling = generation.get("temperature", _MODEL.temperature) > 0 or generation.get("top_p") is not None
    model = {"spec": o.model, "version": o.model_version, "model_name": o.model_name, "api_key_env": o.api_key_env,
             "trust_pickle": o.trust_pickle, "trusted": o.trust_type or [],
             "stop": [] if o.no_stop else parse_stop(o.stop), "extra": _request_fields(o.request_field or []),
             "seed": seed if sampling else None,  # the seed matters (and is sent) only when sampling
             **generation}
    raw: dict[str, Any] = {
        "model": model,
        "split": splits,
        **tables,
        "eval": {"out": str(o.out), "name": o.name, "perturb": o.perturb or [], "curves": o.curve or []},
    }
    if o.prompt is not None:
        unescape = lambda text: (parse_stop([text]) or [text])[0]  # \\n typed on a command line is a newline
        raw["prompt"] = {"template": unescape(o.prompt), "k": o.shots, "instruction": unescape(o.instruction or ""),
                         "target_template": unescape(o.target_template), "seed": seed, "perturb": o.prompt_perturb}
    elif o.shots or o.instruction:
        raise ConfigError("--shots and --instruction build a prompt: give its template too, e.g. "
                          "--prompt 'Question: {input}\\nAnswer:'.")
    if o.data is not None:
        raw["data"] = {"path": o.data, "input": o.input, "target": o.target, "id": o.id, "metadata": o.metadata,
                       "format": o.format}
    return parse_config(raw, source="gengap eval", names=_option_names())


#: Run-file keys of the tables that are no settings set by an option of another name (the rest: the
#: key with dashes).
_OPTION_OF = {"spec": "model", "version": "model_version", "trusted": "trust_type", "extra": "request_field",
              "path": "data", "template": "prompt", "k": "shots", "curves": "curve",
              "prompt.perturb": "prompt_perturb", "model.seed": "seed", "prompt.seed": "seed"}


def _option_names() -> dict[str, str]:
    """Each run-file key (``execution.batch_size``) -> the option of gengap eval that sets it (``--batch-size``),
    so a bad value is reported under the name the user typed."""
    names: dict[str, str] = {}
    tables: dict[str, type[BaseModel]] = {"data": DataConfig, "model": ModelConfig, "prompt": PromptConfig, "eval": EvalConfig}
    for table, model in tables.items():
        for key in model.model_fields:
            names[f"{table}.{key}"] = "--" + _OPTION_OF.get(f"{table}.{key}", _OPTION_OF.get(key, key)).replace("_", "-")
    names.update({f"{o.table}.{o.name}": o.flag for o in SETTING_OPTIONS.values()})
    return names


def _request_fields(pairs: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` options as a dict; VALUE is JSON when it parses (``1.1``, ``true``), else text."""
    import json

    fields: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--request-field {pair!r} must be KEY=VALUE, e.g. --request-field repeat_penalty=1.1.")
        try:
            fields[key.strip()] = json.loads(value)
        except ValueError:
            fields[key.strip()] = value
    return fields


@app.command("run")
def run_command(
    run_file: Annotated[Path, typer.Argument(help="A gengap.toml run file.")],
    progress: Annotated[Optional[bool], typer.Option(help="Show progress bars (default: the run file's, else when stderr is a terminal).")] = None,
) -> None:
    """Run the evaluation a TOML run file describes (the same as gengap eval with those options)."""
    from gengap.config import load_run_file

    _run_and_print(load_run_file(run_file), progress)


@app.command("resume")
def resume_command(
    path: Annotated[Path, typer.Argument(help="The output folder (or its gengap.duckdb) of the interrupted run.")],
    run: Annotated[Optional[str], typer.Option(help="Run id (default: the latest unfinished run).")] = None,
    progress: Annotated[Optional[bool], typer.Option(help="Show progress bars (default: when stderr is a terminal).")] = None,
) -> None:
    """Finish an interrupted run: shards already stored are kept, the rest are computed."""
    from gengap.config import RUN_FILE_TABLES, parse_config
    from gengap.store import REPORT_SETTINGS, STORE_NAME, Store

    store_path = path / STORE_NAME if path.is_dir() else path
    with Store(store_path, read_only=True) as store:
        runs = store.runs()
        if run is None:
            unfinished = runs[runs["status"] != "done"]
            if unfinished.empty:
                raise ConfigError(f"Every run in '{store_path}' has finished; nothing to resume.")
            run = str(unfinished["run_id"].iloc[-1])
        config = store.run_config(run)
    if isinstance(config.get("demo"), dict):
        _resume_demo(config, store_path.parent, progress)
        return
    if "model" not in config or "eval" not in config:
        raise ConfigError(f"Run '{run}' was started from Python, not from gengap eval/run; call gengap.evaluate again with the same arguments and out folder to resume it.")
    stored = {k: config[k] for k in RUN_FILE_TABLES if config.get(k) is not None} | (config.get("settings") or {})
    report = config.get(REPORT_SETTINGS)
    if isinstance(report, dict):  # the report it was started to write
        stored["analysis"] = {**(stored.get("analysis") or {}), **report}
    _run_and_print(parse_config(stored, source=f"run {run} in '{store_path}'"), progress)


def _resume_demo(config: dict[str, Any], out: Path, progress: bool | None) -> None:
    """Finish an interrupted ``gengap demo``: the same demo, settings and folder; stored shards are kept."""
    from gengap.cli._demo import print_demo_result
    from gengap.demo import SCAN_BASELINE, SCAN_BASELINE_QUICK, run_demo

    demo = config["demo"]
    if demo.get("name") != "scan":
        raise ConfigError(f"The '{demo.get('name')}' demo keeps no resumable shards; run it again: "
                          f"gengap demo {demo.get('name')} --out {out}")
    quick = bool(demo.get("quick"))
    baseline = SCAN_BASELINE_QUICK if quick else SCAN_BASELINE
    epochs = (demo.get("learner") or {}).get("epochs")
    stdout.print(f"Resuming the SCAN demo in {out}: the splits already scored are kept.")
    result = run_demo("scan", out=out, quick=quick, seed=int(config.get("seed", 0)),
                      epochs=None if epochs == baseline["epochs"] else epochs, limit=demo.get("limit"),
                      progress=progress)
    print_demo_result(result, limit=demo.get("limit"))


def _run_and_print(cfg: RunConfig, progress: bool | None = None) -> None:
    """Run the evaluation (``progress``: None keeps the configured one), print its summary and where the report is."""
    from gengap.report._usage import cache_lines, judge_lines
    from gengap.run_file import execute

    evaluation = execute(cfg, progress=progress)
    print_summary(evaluation.summary())
    print_effects(evaluation.rows())
    print_samples(evaluation.samples())
    for line in cache_lines(evaluation.cache_use(), evaluation.model_calls) + judge_lines(evaluation.judge_use()):
        stdout.print(line, markup=False)
    if cfg.analysis.find_slices:
        print_slices(evaluation.store_path, evaluation.run_id)
    stdout.print(f"Report: {evaluation.out / 'index.html'}  (also report.md, results.json, gengap.duckdb)")
