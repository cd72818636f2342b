"""``gengap eval`` (options) and ``gengap run`` (a run file): the same pipeline."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from gengap.cli._app import app
from gengap.cli._common import print_summary, stdout


@app.command("eval")
def eval_command(
    data: Annotated[Optional[str], typer.Option(help="Data file (JSONL, JSON, CSV, TSV, Parquet) or a Hugging Face dataset folder.")] = None,
    model: Annotated[str, typer.Option(help="pkg.module:function (a batch callable or estimator), a .skops file, or an OpenAI-compatible base URL (http://host:port/v1).")] = ...,
    split: Annotated[Optional[list[str]], typer.Option("--split", help="Split method (random, length, primitive:jump, ...; repeat for several) or a folder written by 'gengap split'.")] = None,
    input: Annotated[str, typer.Option(help="Column with the model's input.")] = "input",
    target: Annotated[str, typer.Option(help="Column with the reference answer.")] = "target",
    id: Annotated[Optional[str], typer.Option(help="Column with unique example ids (default: row numbers).")] = None,
    metadata: Annotated[Optional[list[str]], typer.Option(help="Metadata column to keep (repeat; default: all others).")] = None,
    format: Annotated[Optional[str], typer.Option(help="Force the data format: jsonl, json, csv, tsv, parquet, hf.")] = None,
    metric: Annotated[Optional[list[str]], typer.Option(help="Per-example metric (repeat): exact_match, normalized_match, token_f1.")] = None,
    test_fraction: Annotated[float, typer.Option(help="Test share for splits that take one.")] = 0.2,
    seed: Annotated[int, typer.Option(help="Seed for every split and resample.")] = 0,
    batch_size: Annotated[int, typer.Option(help="Inputs per model call.")] = 512,
    out: Annotated[Path, typer.Option(help="Output folder: report files and the gengap.duckdb store.")] = Path("gengap-report"),
    reference: Annotated[Optional[str], typer.Option(help="Split that gaps are measured from (default: the random split).")] = None,
    model_version: Annotated[Optional[str], typer.Option(help="Python function models: a version to cache their outputs under (change it whenever the model changes); without it they are not cached.")] = None,
    model_name: Annotated[Optional[str], typer.Option(help="HTTP endpoints: the served model's name.")] = None,
    api: Annotated[str, typer.Option(help="HTTP endpoints: 'chat' or 'completions'.")] = "chat",
    api_key_env: Annotated[Optional[str], typer.Option(help="HTTP endpoints: environment variable holding the API key.")] = None,
    concurrency: Annotated[int, typer.Option(help="HTTP endpoints: requests in flight.")] = 8,
    timeout: Annotated[float, typer.Option(help="HTTP endpoints: seconds to wait for each request.")] = 60.0,
    max_retries: Annotated[int, typer.Option(help="HTTP endpoints: retries on connection errors, timeouts, 429 and 5xx.")] = 5,
    max_tokens: Annotated[Optional[int], typer.Option(help="HTTP endpoints: most tokens to generate per answer.")] = None,
    system_prompt: Annotated[Optional[str], typer.Option(help="HTTP endpoints (chat): a system message sent before each input.")] = None,
    temperature: Annotated[float, typer.Option(help="HTTP endpoints: sampling temperature (0: greedy).")] = 0.0,
    top_p: Annotated[Optional[float], typer.Option(help="HTTP endpoints: nucleus sampling share in (0, 1].")] = None,
    stop: Annotated[Optional[list[str]], typer.Option("--stop", help="HTTP endpoints: a stop sequence (repeat; \\n is a newline). Default with --prompt on completions: a blank line and the template's prefix.")] = None,
    no_stop: Annotated[bool, typer.Option("--no-stop", help="HTTP endpoints: send no stop sequence at all.")] = False,
    request_field: Annotated[Optional[list[str]], typer.Option("--request-field", help="HTTP endpoints: an extra request field KEY=VALUE sent as it is (repeat; VALUE read as JSON when it parses).")] = None,
    prompt: Annotated[Optional[str], typer.Option(help="Build prompts: a template for one example, e.g. 'Question: {input}\\nAnswer:' (\\n is a newline).")] = None,
    shots: Annotated[int, typer.Option(help="With --prompt: few-shot examples drawn (seeded) from each split's train part.")] = 0,
    instruction: Annotated[Optional[str], typer.Option(help="With --prompt: text before the examples (the system message for chat).")] = None,
    target_template: Annotated[str, typer.Option(help="With --prompt: what follows a shot's template.")] = " {target}",
    prompt_perturb: Annotated[str, typer.Option(help="With --prompt: what perturbations change: question, shots, instruction, or several joined with +.")] = "question",
    choices_by: Annotated[str, typer.Option(help="Multiple choice (a 'choices' column): generate, loglik (summed log-probability of each option) or loglik_norm (per token).")] = "generate",
    trust_pickle: Annotated[bool, typer.Option(help="Allow loading .pkl/.joblib models (runs arbitrary code from the file).")] = False,
    trust_type: Annotated[Optional[list[str]], typer.Option(help=".skops files: a type outside scikit-learn/NumPy/SciPy to trust (repeat).")] = None,
    backend: Annotated[str, typer.Option(help="Where model calls run: serial, thread, process or ray.")] = "serial",
    workers: Annotated[Optional[int], typer.Option(help="Workers for the thread, process or ray backend.")] = None,
    ray_address: Annotated[Optional[str], typer.Option(help="Ray cluster address (default: a local Ray instance).")] = None,
    shard_size: Annotated[Optional[int], typer.Option(help="Rows per unit of work stored atomically (default: automatic).")] = None,
    cache: Annotated[bool, typer.Option(help="Reuse stored outputs for inputs a model answered before.")] = True,
    extract: Annotated[Optional[str], typer.Option(help="Read the answer out of free-text outputs before scoring: number, choice, yes_no or text. Unreadable outputs are counted apart.")] = None,
    progress: Annotated[bool, typer.Option(help="Show progress bars.")] = True,
    perturb: Annotated[Optional[list[str]], typer.Option("--perturb", help="Perturbation to score too (repeat): typos:rate=0.05, casing, shuffle_choices, all_format, ...")] = None,
    curve: Annotated[Optional[list[str]], typer.Option("--curve", help="Draw the score along this axis (repeat): a numeric metadata column, input_length or target_length.")] = None,
) -> None:
    """Evaluate a model on splits of your data and write a report.

    Example: gengap eval --data data.jsonl --input question --target answer --model mypkg.mymodule:predict --split random --split length --out report/
    """
    from gengap.config import parse_config

    splits = []
    for s in split or ["random"]:
        splits.append({"path": s} if Path(s).is_dir() else {"method": s})
    from gengap.models.http import parse_stop

    sampling = temperature > 0 or top_p is not None  # the seed matters (and is sent) only when sampling
    raw: dict = {
        "model": {"spec": model, "version": model_version, "model_name": model_name, "api": api, "api_key_env": api_key_env,
                  "concurrency": concurrency, "timeout": timeout, "max_retries": max_retries, "max_tokens": max_tokens,
                  "system_prompt": system_prompt, "trust_pickle": trust_pickle, "trusted": trust_type or [],
                  "temperature": temperature, "top_p": top_p, "seed": seed if sampling else None,
                  "stop": [] if no_stop else parse_stop(stop), "extra": _request_fields(request_field or [])},
        "split": splits,
        "eval": {"metrics": metric or ["exact_match"], "seed": seed, "test_fraction": test_fraction,
                 "batch_size": batch_size, "out": str(out), "reference": reference, "backend": backend,
                 "workers": workers, "ray_address": ray_address, "shard_size": shard_size, "cache": cache,
                 "perturb": perturb or [], "extract": extract, "choices_by": choices_by, "curves": curve or []},
    }
    if prompt is not None:
        raw["prompt"] = {"template": parse_stop([prompt])[0], "k": shots, "instruction": parse_stop([instruction or ""])[0],
                         "target_template": parse_stop([target_template])[0], "seed": seed, "perturb": prompt_perturb}
    elif shots or instruction:
        from gengap._errors import ConfigError

        raise ConfigError("--shots and --instruction build a prompt: give its template too, e.g. "
                          "--prompt 'Question: {input}\\nAnswer:'.")
    if data is not None:
        raw["data"] = {"path": data, "input": input, "target": target, "id": id, "metadata": metadata, "format": format}
    cfg = parse_config(raw, source="gengap eval")
    _run_and_print(cfg, progress)


def _request_fields(pairs: list[str]) -> dict:
    """``KEY=VALUE`` options as a dict; VALUE is JSON when it parses (``1.1``, ``true``), else text."""
    import json

    from gengap._errors import ConfigError

    fields = {}
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
    progress: Annotated[bool, typer.Option(help="Show progress bars.")] = True,
) -> None:
    """Run the evaluation a TOML run file describes (the same as gengap eval with those options)."""
    from gengap.config import load_run_file

    _run_and_print(load_run_file(run_file), progress)


@app.command("resume")
def resume_command(
    path: Annotated[Path, typer.Argument(help="The output folder (or its gengap.duckdb) of the interrupted run.")],
    run: Annotated[Optional[str], typer.Option(help="Run id (default: the latest unfinished run).")] = None,
    progress: Annotated[bool, typer.Option(help="Show progress bars.")] = True,
) -> None:
    """Finish an interrupted run: shards already stored are kept, the rest are computed."""
    from gengap._errors import ConfigError
    from gengap.config import parse_config
    from gengap.runner import STORE_NAME
    from gengap.store import Store

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
    cfg = parse_config({k: config[k] for k in ("data", "model", "prompt", "split", "eval") if k in config and config[k] is not None},
                       source=f"run {run} in '{store_path}'")
    _run_and_print(cfg, progress)


def _resume_demo(config: dict, out: Path, progress: bool) -> None:  # type: ignore[type-arg]
    """Finish an interrupted ``gengap demo``: the same demo, settings and folder; stored shards are kept."""
    from gengap._errors import ConfigError
    from gengap.cli._demo import print_demo_result
    from gengap.demo import SCAN_BASELINE, SCAN_BASELINE_QUICK, run_demo

    demo = config["demo"]
    if demo.get("name") != "scan":
        raise ConfigError(f"The '{demo.get('name')}' demo keeps no resumable shards; run it again: "
                          f"gengap demo {demo.get('name')} --out {out}")
    quick = bool(demo.get("quick"))
    default = SCAN_BASELINE_QUICK if quick else SCAN_BASELINE
    epochs = (demo.get("learner") or {}).get("epochs")
    stdout.print(f"Resuming the SCAN demo in {out}: the splits already scored are kept.")
    result = run_demo("scan", out=out, quick=quick, seed=int(config.get("seed", 0)),
                      epochs=None if epochs == default["epochs"] else epochs, limit=demo.get("limit"),
                      progress=None if progress else False)
    print_demo_result(result, limit=demo.get("limit"))


def _run_and_print(cfg, progress: bool) -> None:  # type: ignore[no-untyped-def]
    from gengap.config import execute
    from gengap.runner import cache_lines

    evaluation = execute(cfg, progress=None if progress else False)
    print_summary(evaluation.summary())
    for line in cache_lines(evaluation.cache_use()):
        stdout.print(line, markup=False)
    stdout.print(f"Report: {evaluation.out / 'index.html'}  (also report.md, results.json, gengap.duckdb)")
