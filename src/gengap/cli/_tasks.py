"""``gengap tasks``: list the built-in generators and write one's dataset to a file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

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
