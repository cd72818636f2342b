"""``gengap tasks``: list the built-in generators and write one's dataset to a file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.text import Text

from gengap.cli._app import app
from gengap.cli._common import parse_options, stdout
from gengap.tasks import _registry  # noqa: F401  (registers the 'preset' split method the tasks' splits use)

tasks_app = typer.Typer(help="Built-in tasks with exact labels and natural splits (addition, SCAN, Dyck, grids, ...).",
                        no_args_is_help=True)
app.add_typer(tasks_app, name="tasks")


@tasks_app.command("list")
def list_command(
    name: Annotated[Optional[str], typer.Argument(help="Show only this task.")] = None,
) -> None:
    """List the tasks, their parameters (type, default, valid values) and natural splits."""
    from gengap.tasks import get_task, tasks

    chosen = [get_task(name)] if name else list(tasks().values())
    for t in chosen:
        stdout.print(Text.assemble((t.name, "bold"), f"  {t.description}"), soft_wrap=True)
        for p in t.params:
            stdout.print(f"    -p {p.name}={p.default}  {p.doc}; {p.valid_range()}", markup=False, soft_wrap=True)
        for split, spec in t.split_specs().items():
            stdout.print(f"    split {split}: --split '{spec}'", markup=False, soft_wrap=True)


@tasks_app.command("generate")
def generate_command(
    name: Annotated[str, typer.Argument(help="Task name; 'gengap tasks list' shows them.")],
    out: Annotated[Path, typer.Option(help="Output file (.jsonl).")] = Path("task.jsonl"),
    seed: Annotated[int, typer.Option(help="Seed: the same seed and parameters give the same file.")] = 0,
    param: Annotated[Optional[list[str]], typer.Option("--param", "-p", help="A task parameter as key=value (repeat).")] = None,
) -> None:
    """Generate a task's dataset and write it as JSONL (id, input, target and metadata columns).

    Example: gengap tasks generate addition --out add.jsonl --seed 0 -p n=20000 -p max_digits=10
    """
    from gengap.io import write_jsonl
    from gengap.tasks import get_task

    task = get_task(name)
    params = parse_options(param)
    dataset = task.generate(seed, **params)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_jsonl(dataset.to_records(), out)
    stdout.print(f"Wrote {len(dataset):,} examples of '{name}' to {out} (columns: id, input, target, "
                 f"{', '.join(dataset.metadata_columns)}).", markup=False, soft_wrap=True)
    for split, spec in task.split_specs(**params).items():
        stdout.print(f"  split {split}: gengap eval --data {out} --split '{spec}' --model ...", markup=False, soft_wrap=True)


@tasks_app.command("sweep")
def sweep_command(
    name: Annotated[str, typer.Argument(help="Task to sweep: addition, multiplication, dyck or reverse_string.")],
    model: Annotated[Optional[list[str]], typer.Option("--model", help="pkg.module:function, a .skops file or an OpenAI-compatible base URL (repeat).")] = None,
    learner: Annotated[Optional[list[str]], typer.Option("--learner", help="A built-in seq2seq learner trained on the sweep, e.g. gru:hidden_size=64,epochs=10 (repeat for several sizes).")] = None,
    levels: Annotated[Optional[str], typer.Option(help="Complexity levels, e.g. 1,2,3 or 1-8 (default: the task's).")] = None,
    n_per_level: Annotated[int, typer.Option(help="Test examples per level in each of the ID and OOD parts.")] = 200,
    train_per_level: Annotated[int, typer.Option(help="Training examples per level (learners; default 1,000 with --learner, else 0).")] = -1,
    ood_train_levels: Annotated[int, typer.Option(help="Lowest levels whose OOD encoding is also trained on (learners).")] = 1,
    model_name: Annotated[Optional[str], typer.Option(help="HTTP endpoints: the served model's name.")] = None,
    api_key_env: Annotated[Optional[str], typer.Option(help="HTTP endpoints: environment variable holding the API key.")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the data, the learners and every resample.")] = 0,
    out: Annotated[Path, typer.Option(help="Output folder: report files and the gengap.duckdb store.")] = Path("gengap-sweep"),
    progress: Annotated[bool, typer.Option(help="Show progress bars.")] = True,
) -> None:
    """Run models over a task at rising complexity, ID and OOD parts at each level, and report the valley.

    Example: gengap tasks sweep addition --levels 1-6 --learner gru:hidden_size=32 --learner gru:hidden_size=128 --out sweep/
    """
    from gengap._errors import ConfigError
    from gengap._specs import parse_spec
    from gengap.learners import Seq2SeqLearner
    from gengap.models import load_model
    from gengap.tasks.sweep import run_sweep

    models: dict[str, object] = {}
    for spec in model or []:
        options = {"model_name": model_name, "api_key_env": api_key_env} if spec.startswith(("http://", "https://")) else {}
        m = load_model(spec, **{k: v for k, v in options.items() if v is not None})
        models[m.name if m.name not in models else f"{m.name}-{len(models)}"] = m
    for spec in learner or []:
        arch, options = parse_spec(spec, what="Learner")
        try:
            kwargs: dict[str, Any] = {"seed": seed, "progress": False, **options}
            made = Seq2SeqLearner(arch, **kwargs)  # type: ignore[arg-type]  # an unknown arch raises, with the names
        except TypeError as e:
            raise ConfigError(f"--learner '{spec}': {e}. Options are Seq2SeqLearner's: hidden_size, embedding_size, "
                              "num_layers, epochs, batch_size, learning_rate, dropout, ...") from None
        models[spec] = made
    if not models:
        raise ConfigError("Give at least one --model or --learner to sweep.")
    chosen = _levels(levels) if levels else None
    train = train_per_level if train_per_level >= 0 else (1000 if learner else 0)
    ev, valleys = run_sweep(models, name, levels=chosen, n_per_level=n_per_level, train_per_level=train,
                            ood_train_levels=ood_train_levels, seed=seed, out=out, progress=None if progress else False)
    folder = ev.report()
    for v in valleys:
        stdout.print(f"{v.model}: ID-OOD gap peaks at level {v.critical:g} (95% interval {v.critical_low:g} to "
                     f"{v.critical_high:g}), gap {v.peak_gap:.3f}", markup=False, soft_wrap=True)
    stdout.print(f"Report: {folder / 'index.html'}  (also report.md, results.json, gengap.duckdb)", markup=False, soft_wrap=True)


def _levels(text: str) -> list[int]:
    """'1,2,5' or '1-8' or '2-10:2' -> a list of levels."""
    from gengap._errors import ConfigError

    out: list[int] = []
    try:
        for part in text.split(","):
            part = part.strip()
            if "-" in part:
                span, _, step = part.partition(":")
                lo, hi = span.split("-")
                out += list(range(int(lo), int(hi) + 1, int(step or 1)))
            elif part:
                out.append(int(part))
    except ValueError:
        raise ConfigError(f"--levels '{text}' must be numbers and ranges such as 1,2,3 or 1-8 or 2-20:2.") from None
    return out
