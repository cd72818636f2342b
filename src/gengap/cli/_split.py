"""``gengap split``: make a split once, write it to a folder, inspect it, feed it to ``gengap eval``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from gengap.cli._app import app
from gengap.cli._common import parse_options, stdout


@app.command("split")
def split_command(
    data: Annotated[str, typer.Argument(help="Data file (JSONL, JSON, CSV, TSV, Parquet) or a Hugging Face dataset folder.")],
    method: Annotated[str, typer.Option(help="Split method; 'gengap methods' lists them with their options.")] = "random",
    out: Annotated[Path, typer.Option(help="Folder for train.jsonl, test.jsonl and split.json.")] = Path("split"),
    test_fraction: Annotated[float, typer.Option(help="Share of examples in test (methods that take one).")] = 0.2,
    seed: Annotated[int, typer.Option(help="Seed (methods that draw at random).")] = 0,
    input: Annotated[str, typer.Option(help="Column with the model's input.")] = "input",
    target: Annotated[str, typer.Option(help="Column with the reference answer.")] = "target",
    id: Annotated[Optional[str], typer.Option(help="Column with unique example ids.")] = None,
    format: Annotated[Optional[str], typer.Option(help="Force the data format.")] = None,
    option: Annotated[Optional[list[str]], typer.Option("--option", "-o", help="A method option as key=value (repeat), e.g. -o by=input.")] = None,
    by: Annotated[Optional[str], typer.Option(help="length: measure 'target', 'input' or a numeric column.")] = None,
    primitive: Annotated[Optional[str], typer.Option(help="primitive: the word seen only alone in training.")] = None,
    atoms: Annotated[Optional[str], typer.Option(help="Compositional methods: atom extractor (words, ...).")] = None,
    compounds: Annotated[Optional[str], typer.Option(help="Compositional methods: compound extractor (ngrams:2,3, ...).")] = None,
    group: Annotated[Optional[str], typer.Option(help="group: metadata column(s) that define groups (comma-separated).")] = None,
    holdout: Annotated[Optional[str], typer.Option(help="group: the group value to hold out.")] = None,
    time: Annotated[Optional[str], typer.Option(help="time: the column with dates or times.")] = None,
    cutoff: Annotated[Optional[str], typer.Option(help="time: train before this date, test from it on.")] = None,
    n_clusters: Annotated[Optional[int], typer.Option(help="cluster: number of pseudo-domains.")] = None,
    difficulty: Annotated[Optional[str], typer.Option(help="difficulty: column with per-item difficulty.")] = None,
) -> None:
    """Split a dataset and write train.jsonl, test.jsonl and split.json (diagnostics and taxonomy card).

    Example: gengap split data.jsonl --method length --test-fraction 0.2 --out splits/length
    """
    from gengap.io import load
    from gengap.splits import make_splitter

    options = parse_options(option)
    named = {"by": by, "primitive": primitive, "atoms": atoms, "compounds": compounds, "group": group,
             "holdout": holdout, "time": time, "cutoff": cutoff, "n_clusters": n_clusters, "difficulty": difficulty}
    for key, value in named.items():
        if value is not None:
            options[key] = value
    dataset = load(data, input=input, target=target, id=id, format=format)
    splitter = make_splitter(method, options=options, seed=seed, test_fraction=test_fraction)
    split = splitter.split_dataset(dataset)
    split.save(out)
    d = split.diagnostics
    stdout.print(f"{split.name}: {d['n_train']:,} train, {d['n_test']:,} test ({100 * d['test_fraction']:.1f}%), "
                 f"{d['n_unseen_test_atoms']} unseen test atom(s). Held out: {d['held_out']}.")
    stdout.print(f"Wrote {out / 'train.jsonl'}, {out / 'test.jsonl'}, {out / 'split.json'}")


@app.command("methods")
def methods_command() -> None:
    """List the split methods and their options."""
    import inspect

    from gengap.splits import methods

    for name, cls in methods().items():
        params = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
        doc = (cls.__doc__ or "").strip().splitlines()[0]
        stdout.print(f"[bold]{name}[/]  {doc}\n    options: {', '.join(params)}")
