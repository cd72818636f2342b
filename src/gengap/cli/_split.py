"""``gengap split``: make a split once, write it to a folder, inspect it, feed it to ``gengap eval``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.text import Text

from gengap._settings import Splitting
from gengap.cli._app import app
from gengap.cli._common import parse_options, stdout

#: The splitting defaults (seed, test share) gengap eval and the run file use too.
_SPLITTING = Splitting()


@app.command("split")
def split_command(
    data: Annotated[str, typer.Argument(help="Data file (JSONL, JSON, CSV, TSV, Parquet) or a Hugging Face dataset folder.")],
    method: Annotated[str, typer.Option(help="Split method; 'gengap methods' lists them with their options.")] = "random",
    out: Annotated[Path, typer.Option(help="Folder for train.jsonl, test.jsonl and split.json.")] = Path("split"),
    test_fraction: Annotated[float, typer.Option(help="Share of examples in test (methods that take one).")] = _SPLITTING.test_fraction,
    seed: Annotated[int, typer.Option(help="Seed (methods that draw at random).")] = _SPLITTING.seed,
    dedupe: Annotated[bool, typer.Option(help=Splitting.model_fields["dedupe"].description)] = _SPLITTING.dedupe,
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
    from gengap._outputs import check_out_folder
    from gengap.io import load
    from gengap.splits import make_splitter

    check_out_folder(out)  # before the data is read and the split computed
    options = parse_options(option)
    named = {"by": by, "primitive": primitive, "atoms": atoms, "compounds": compounds, "group": group,
             "holdout": holdout, "time": time, "cutoff": cutoff, "n_clusters": n_clusters, "difficulty": difficulty}
    for key, value in named.items():
        if value is not None:
            options[key] = value
    dataset = load(data, input=input, target=target, id=id, format=format)
    splitter = make_splitter(method, options=options, seed=seed, test_fraction=test_fraction, dedupe=dedupe)
    split = splitter.split_dataset(dataset)
    split.save(out)
    d = split.diagnostics
    if "dedupe" in d.figures:
        f = d.figures["dedupe"]
        stdout.print(f"Dedupe: {f['copy_groups_merged']:,} copy group(s) merged ({f['examples_in_copy_groups']:,} examples); "
                     f"{f['groups_cut']:,} would have been cut: {f['moved_to_train'] + f['moved_to_test']:,} example(s) "
                     f"moved, {f['test_set_aside']:,} test example(s) set aside.", markup=False)
    unseen = "no train part to compare" if d.structure is None else f"{d.structure.n_unseen_test_atoms} unseen test atom(s)"
    stdout.print(f"{split.name}: {d.n_train:,} train, {d.n_test:,} test ({100 * d.test_fraction:.1f}%), "
                 f"{unseen}. Held out: {d.held_out}.", markup=False)
    stdout.print(f"Wrote {out / 'train.jsonl'}, {out / 'test.jsonl'}, {out / 'split.json'}")


def option_docs(cls: type) -> list[tuple[str, str, str, str]]:
    """``(name, default, allowed values, meaning)`` of each option of a splitter class.

    The meaning comes from the class docstring's Parameters section, the default and the allowed
    values from the signature (a ``Literal`` lists its values, otherwise the type is named).
    """
    import inspect
    import typing

    meanings: dict[str, str] = {}
    for klass in reversed(cls.__mro__[:-1]):  # a subclass documents what it changes; the rest comes from its bases
        meanings.update(_parameter_docs(klass.__doc__ or ""))
    init = vars(cls).get("__init__") or next((vars(k)["__init__"] for k in cls.__mro__ if "__init__" in vars(k)), None)
    hints = typing.get_type_hints(init) if init is not None and init is not object.__init__ else {}
    out = []
    for name, p in (inspect.signature(init).parameters.items() if init is not None else ()):
        if name == "self" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        default = "required" if p.default is p.empty else repr(p.default)
        out.append((name, default, _allowed(hints.get(name)), meanings.get(name, "")))
    return out


def _parameter_docs(doc: str) -> dict[str, str]:
    """``name -> meaning`` from a numpydoc Parameters section (``a, b : text`` gives both names the text)."""
    import inspect

    lines = inspect.cleandoc(doc).splitlines()
    out: dict[str, str] = {}
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == "Parameters") + 2
    except StopIteration:
        return out
    names: list[str] = []
    for line in lines[start:]:
        if not line.strip() or line.startswith((">>>", "Returns", "Examples", "Notes", "Attributes")):
            if line.strip() and not line.startswith(" "):
                break
            names = [] if not line.strip() else names
            continue
        if not line.startswith(" ") and " : " in line:
            head, _, text = line.partition(" : ")
            names = [n.strip() for n in head.split(",")]
            for n in names:
                out[n] = text.strip()
        elif line.startswith(" ") and names:
            for n in names:
                out[n] += " " + line.strip()
    return {k: re.sub(r":\w+:`([^`]*)`", r"\1", v).replace("``", "") for k, v in out.items()}


def _allowed(hint: Any) -> str:
    """'one of: a, b' for a Literal, else the type in words ('int', 'float or int', 'list of str', ...)."""
    return " or ".join(_type_words(hint))


def _type_words(hint: Any) -> list[str]:
    """The alternatives a type hint allows, each in words (``int | float | None`` -> int, float, None)."""
    import collections.abc
    import typing

    if hint is None or hint is typing.Any:
        return ["any"]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Literal:
        return ["one of: " + ", ".join(repr(v) for v in args)]
    if origin is collections.abc.Callable:
        return ["a function"]
    if origin in (list, tuple, collections.abc.Sequence) and args:
        return [f"list of {_allowed(args[0])}"]
    if args:
        words = [w for a in args if a is not type(None) for w in _type_words(a)]
        words = list(dict.fromkeys(words)) + (["None"] if type(None) in args else [])
        return ["any"] if "any" in words else words
    return [getattr(hint, "__name__", str(hint))]


@app.command("methods")
def methods_command(
    name: Annotated[Optional[str], typer.Argument(help="Show only this method.")] = None,
) -> None:
    """List the split methods and what each option means, with its default and allowed values."""
    from gengap._errors import ConfigError, did_you_mean
    from gengap.splits import methods

    found = methods()
    if name is not None and name not in found:
        raise ConfigError(f"There is no split method '{name}'.{did_you_mean(name, found)} "
                          f"Methods: {', '.join(found)}.")
    for method, cls in found.items():
        if name is not None and method != name:
            continue
        doc = (cls.__doc__ or "").strip().splitlines()[0]
        stdout.print(Text.assemble((method, "bold"), f"  {doc}"), soft_wrap=True)
        for option, default, allowed, meaning in option_docs(cls):
            stdout.print(f"    {option} = {default}  ({allowed})" + (f"  {meaning}" if meaning else ""), soft_wrap=True)
        stdout.print(f"    e.g. gengap eval --split {method} ...  or  gengap split DATA --method {method} -o OPTION=VALUE",
                     soft_wrap=True)
