"""``gengap eval`` (options) and ``gengap run`` (a run file): the same pipeline."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from pydantic import BaseModel

from gengap._errors import ConfigError
from gengap.cli._app import app
from gengap.cli._common import print_effects, print_samples, print_slices, print_summary, stdout
from gengap.config import DataConfig, EvalConfig, Execution, Generation, ModelConfig, PromptConfig, RunConfig, Scoring, Splitting

#: The settings with their defaults: each option's default is read from here, never written again.
_DATA, _MODEL, _PROMPT, _EVAL = DataConfig(path=""), ModelConfig(spec=""), PromptConfig(), EvalConfig()
_EXECUTION, _SCORING, _SPLITTING = Execution(), Scoring(), Splitting()
_INPUT: str = DataConfig.model_fields["input"].default  # the field also takes a list of columns; the option one


def option(model: type[BaseModel], name: str, *flags: str, help: str | None = None) -> Any:
    """A typer option documented by the settings field it sets (its description is the help text)."""
    return typer.Option(*flags, help=help or model.model_fields[name].description)


@app.command("eval")
def eval_command(
    model: Annotated[str, typer.Option(help="pkg.module:function (a batch callable or estimator), a .skops file, or an OpenAI-compatible base URL (http://host:port/v1).")],
    data: Annotated[Optional[str], typer.Option(help="Data file (JSONL, JSON, CSV, TSV, Parquet) or a Hugging Face dataset folder.")] = None,
    split: Annotated[Optional[list[str]], typer.Option("--split", help="Split method (random, length, primitive:jump, ...; repeat for several) or a folder written by 'gengap split'.")] = None,
    input: Annotated[str, typer.Option(help="Column with the model's input.")] = _INPUT,
    target: Annotated[Optional[str], typer.Option(help="Column with the reference answer.")] = _DATA.target,
    id: Annotated[Optional[str], typer.Option(help="Column with unique example ids (default: row numbers).")] = _DATA.id,
    metadata: Annotated[Optional[list[str]], typer.Option(help="Metadata column to keep (repeat; default: all others).")] = _DATA.metadata,
    format: Annotated[Optional[str], typer.Option(help="Force the data format: jsonl, json, csv, tsv, parquet, hf.")] = _DATA.format,
    metric: Annotated[Optional[list[str]], typer.Option(help="Per-example metric (repeat; default: " + ", ".join(_SCORING.metrics) + "): exact_match, normalized_match, token_f1; of the whole test part: auroc, pr_auc, macro_f1, micro_f1, mcc, balanced_accuracy, brier, log_loss, ece, ece_adaptive, aurc, selective_accuracy, bleu, chrf (auroc:positive=LABEL).")] = None,
    test_fraction: Annotated[float, option(Splitting, "test_fraction")] = _SPLITTING.test_fraction,
    seed: Annotated[int, option(Splitting, "seed")] = _SPLITTING.seed,
    dedupe: Annotated[bool, option(Splitting, "dedupe")] = _SPLITTING.dedupe,
    batch_size: Annotated[int, option(Execution, "batch_size")] = _EXECUTION.batch_size,
    out: Annotated[Path, typer.Option(help="Output folder: report files and the gengap.duckdb store.")] = Path(_EVAL.out),
    name: Annotated[str, typer.Option(help="The run's name in the store (a run resumes only under the same name).")] = _EVAL.name,
    reference: Annotated[Optional[str], option(Scoring, "reference")] = _SCORING.reference,
    cluster: Annotated[Optional[str], option(Scoring, "cluster")] = _SCORING.cluster,
    samples: Annotated[int, option(Scoring, "samples")] = _SCORING.samples,
    model_version: Annotated[Optional[str], typer.Option(help="Python function models: a version to cache their outputs under (change it whenever the model changes); without it they are not cached.")] = _MODEL.version,
    model_name: Annotated[Optional[str], typer.Option(help="HTTP endpoints: the served model's name.")] = _MODEL.model_name,
    api: Annotated[str, option(Generation, "api")] = _MODEL.api,
    api_key_env: Annotated[Optional[str], typer.Option(help="HTTP endpoints: environment variable holding the API key.")] = _MODEL.api_key_env,
    concurrency: Annotated[int, option(Generation, "concurrency")] = _MODEL.concurrency,
    timeout: Annotated[float, option(Generation, "timeout")] = _MODEL.timeout,
    max_retries: Annotated[int, option(Generation, "max_retries")] = _MODEL.max_retries,
    max_tokens: Annotated[Optional[int], option(Generation, "max_tokens")] = _MODEL.max_tokens,
    system_prompt: Annotated[Optional[str], option(Generation, "system_prompt")] = _MODEL.system_prompt,
    temperature: Annotated[float, option(Generation, "temperature")] = _MODEL.temperature,
    top_p: Annotated[Optional[float], option(Generation, "top_p")] = _MODEL.top_p,
    stop: Annotated[Optional[list[str]], typer.Option("--stop", help="HTTP endpoints: a stop sequence (repeat; \\n is a newline). Default with --prompt on completions: a blank line and the template's prefix.")] = None,
    no_stop: Annotated[bool, typer.Option("--no-stop", help="HTTP endpoints: send no stop sequence at all.")] = False,
    request_field: Annotated[Optional[list[str]], typer.Option("--request-field", help="HTTP endpoints: an extra request field KEY=VALUE sent as it is (repeat; VALUE read as JSON when it parses).")] = None,
    prompt: Annotated[Optional[str], typer.Option(help="Build prompts: a template for one example, e.g. 'Question: {input}\\nAnswer:' (\\n is a newline).")] = None,
    shots: Annotated[int, typer.Option(help="With --prompt: few-shot examples drawn (seeded) from each split's train part.")] = _PROMPT.k,
    instruction: Annotated[Optional[str], typer.Option(help="With --prompt: text before the examples (the system message for chat).")] = None,
    target_template: Annotated[str, typer.Option(help="With --prompt: what follows a shot's template.")] = _PROMPT.target_template,
    prompt_perturb: Annotated[str, typer.Option(help="With --prompt: what perturbations change: question, shots, instruction, or several joined with +.")] = _PROMPT.perturb,
    choices_by: Annotated[str, option(Scoring, "choices_by")] = _SCORING.choices_by,
    trust_pickle: Annotated[bool, typer.Option(help="Allow loading .pkl/.joblib models (runs arbitrary code from the file).")] = _MODEL.trust_pickle,
    trust_type: Annotated[Optional[list[str]], typer.Option(help=".skops files: a type outside scikit-learn/NumPy/SciPy to trust (repeat).")] = None,
    backend: Annotated[str, option(Execution, "backend")] = _EXECUTION.backend,
    workers: Annotated[Optional[int], option(Execution, "workers")] = _EXECUTION.workers,
    ray_address: Annotated[Optional[str], option(Execution, "ray_address")] = _EXECUTION.ray_address,
    shard_size: Annotated[Optional[int], option(Execution, "shard_size")] = _EXECUTION.shard_size,
    cache: Annotated[bool, option(Execution, "cache")] = _EXECUTION.cache,
    resume: Annotated[bool, option(Execution, "resume")] = _EXECUTION.resume,
    extract: Annotated[Optional[str], option(Scoring, "extract")] = _SCORING.extract,
    judge: Annotated[Optional[str], option(Scoring, "judge")] = _SCORING.judge,
    judge_api: Annotated[str, option(Scoring, "judge_api")] = _SCORING.judge_api,
    judge_model: Annotated[Optional[str], option(Scoring, "judge_model")] = _SCORING.judge_model,
    progress: Annotated[Optional[bool], option(Execution, "progress")] = _EXECUTION.progress,
    threads: Annotated[Optional[int], option(Execution, "threads")] = _EXECUTION.threads,
    perturb: Annotated[Optional[list[str]], typer.Option("--perturb", help="Perturbation to score too (repeat): typos:rate=0.05, casing, shuffle_choices, all_format, ...")] = None,
    curve: Annotated[Optional[list[str]], typer.Option("--curve", help="Draw the score along this axis (repeat): a numeric metadata column, input_length or target_length.")] = None,
    find_slices: Annotated[bool, option(EvalConfig, "find_slices", "--find-slices/--no-find-slices")] = _EVAL.find_slices,
    slice_order: Annotated[int, option(EvalConfig, "slice_order")] = _EVAL.slice_order,
    train_similarity: Annotated[Optional[str], option(EvalConfig, "train_similarity")] = _EVAL.train_similarity,
    baseline: Annotated[Optional[list[str]], typer.Option("--baseline", help="A shortcut baseline scored beside the model on every split, trained on each train part (repeat): majority, length, partial:fields=question (only those fields; join several with +).")] = None,
) -> None:
    """Evaluate a model on splits of your data and write a report.

    Example: gengap eval --data data.jsonl --input question --target answer --model mypkg.mymodule:predict --split random --split length --out report/
    """
    options = dict(locals())
    _run_and_print(run_config(**options))


def run_config(**options: Any) -> RunConfig:
    """The RunConfig that ``gengap eval`` builds from its options (every option by its Python name).

    The same object a run file with those settings gives; a list option left out (None) takes the
    run file's default.
    """
    from gengap.config import parse_config
    from gengap.models.http import parse_stop

    o = options
    splits = [{"path": s} if Path(s).is_dir() else {"method": s} for s in o["split"] or ["random"]]
    for s in o["split"] or []:
        method = s.split(":", 1)[0]
        if not Path(s).is_dir() and ("/" in method or "\\" in method or Path(s).exists()):
            raise ConfigError(f"--split {s}: the split folder '{s}' does not exist" + (
                "" if not Path(s).exists() else " (it is a file; a split folder is what gengap split --out writes)")
                + ". Write it first with gengap split DATA --method METHOD --out FOLDER, or give a split method.")
    sampling = o["temperature"] > 0 or o["top_p"] is not None  # the seed matters (and is sent) only when sampling
    model = {"spec": o["model"], "version": o["model_version"], "model_name": o["model_name"], "api_key_env": o["api_key_env"],
             "trust_pickle": o["trust_pickle"], "trusted": o["trust_type"] or [],
             "stop": [] if o["no_stop"] else parse_stop(o["stop"]), "extra": _request_fields(o["request_field"] or []),
             "seed": o["seed"] if sampling else None,
             **{key: o[key] for key in ("api", "concurrency", "timeout", "max_retries", "max_tokens", "system_prompt",
                                        "temperature", "top_p")}}
    raw: dict[str, Any] = {
        "model": model,
        "split": splits,
        "splitting": {key: o[key] for key in Splitting.model_fields},
        "scoring": {key: o[key] for key in ("reference", "cluster", "samples", "extract", "choices_by", *Scoring.JUDGE)}
                   | ({"metrics": o["metric"]} if o["metric"] else {}),
        "execution": {key: o[key] for key in Execution.model_fields},
        "eval": {"out": str(o["out"]), "name": o["name"], "perturb": o["perturb"] or [], "curves": o["curve"] or [],
                 "find_slices": o["find_slices"], "slice_order": o["slice_order"],
                 "train_similarity": o["train_similarity"], "baselines": o["baseline"] or []},
    }
    if o["prompt"] is not None:
        unescape = lambda text: (parse_stop([text]) or [text])[0]  # \\n typed on a command line is a newline
        raw["prompt"] = {"template": unescape(o["prompt"]), "k": o["shots"], "instruction": unescape(o["instruction"] or ""),
                         "target_template": unescape(o["target_template"]), "seed": o["seed"], "perturb": o["prompt_perturb"]}
    elif o["shots"] or o["instruction"]:
        raise ConfigError("--shots and --instruction build a prompt: give its template too, e.g. "
                          "--prompt 'Question: {input}\\nAnswer:'.")
    if o["data"] is not None:
        raw["data"] = {key: o[key] for key in ("input", "target", "id", "metadata", "format")} | {"path": o["data"]}
    return parse_config(raw, source="gengap eval", names=_option_names())


#: Run-file keys set by an option of another name (the rest: the key with dashes).
_OPTION_OF = {"spec": "model", "version": "model_version", "trusted": "trust_type", "extra": "request_field",
              "metrics": "metric", "path": "data", "template": "prompt", "k": "shots", "curves": "curve",
              "prompt.perturb": "prompt_perturb", "model.seed": "seed", "prompt.seed": "seed",
              "baselines": "baseline"}


def _option_names() -> dict[str, str]:
    """Each run-file key (``execution.batch_size``) -> the option of gengap eval that sets it (``--batch-size``),
    so a bad value is reported under the name the user typed."""
    tables: dict[str, type[BaseModel]] = {"data": DataConfig, "model": ModelConfig, "prompt": PromptConfig, "eval": EvalConfig,
              "execution": Execution, "scoring": Scoring, "splitting": Splitting}
    names: dict[str, str] = {}
    for table, model in tables.items():
        for key in model.model_fields:
            flag = _OPTION_OF.get(f"{table}.{key}", _OPTION_OF.get(key, key))
            names[f"{table}.{key}"] = "--" + flag.replace("_", "-")
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
    if isinstance(report, dict) and isinstance(stored.get("eval"), dict):  # the report it was started to write
        stored["eval"] = {**stored["eval"], **report}
    # A run stored by an older gengap keeps its settings in [eval]: read quietly (the user wrote no file).
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
    if cfg.eval.find_slices:
        print_slices(evaluation.store_path, evaluation.run_id)
    stdout.print(f"Report: {evaluation.out / 'index.html'}  (also report.md, results.json, gengap.duckdb)")
