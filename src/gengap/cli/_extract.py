"""``gengap extract``: read the answers out of model outputs in a JSONL file."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated, Optional

import typer

from gengap.cli._app import app
from gengap.cli._common import stdout


@app.command("extract")
def extract_command(
    outputs: Annotated[Path, typer.Argument(help="JSONL file of model outputs, one record a line.")],
    out: Annotated[Path, typer.Option(help="Where to write the records with an 'extracted' field (JSONL).")] = ...,
    kind: Annotated[Optional[str], typer.Option(help="Answer kind of every record: number, choice, yes_no or text.")] = None,
    kind_field: Annotated[Optional[str], typer.Option(help="Field holding each record's answer kind (instead of --kind).")] = None,
    output_field: Annotated[str, typer.Option(help="Field holding the model's output text.")] = "output",
    choices_field: Annotated[Optional[str], typer.Option(help="Field holding the option texts of multiple-choice records.")] = None,
    question_field: Annotated[Optional[str], typer.Option(help="Field holding the question each output answers (helps find the answer span).")] = None,
) -> None:
    """Extract answers (number, choice letter, yes/no, short text); unreadable outputs get extracted = null.

    Example: gengap extract outputs.jsonl --kind number --output-field response --out extracted.jsonl
    """
    from gengap._errors import ConfigError, DataError
    from gengap.extract import extract
    from gengap.io import read_jsonl, write_jsonl

    if (kind is None) == (kind_field is None):
        raise ConfigError("Give exactly one of --kind KIND (the same kind for every record) or --kind-field FIELD.")
    records = read_jsonl(outputs)
    totals: Counter[str] = Counter()
    missed: Counter[str] = Counter()
    for line, rec in enumerate(records, start=1):
        where = f"{outputs}, record {line}"
        if not isinstance(rec, dict):
            raise DataError(f"{where}: expected a JSON object, got {type(rec).__name__}.")
        if output_field not in rec:
            raise DataError(f"{where}: no field '{output_field}' (fields: {sorted(rec)}). Pass --output-field FIELD.")
        this_kind = kind if kind is not None else rec.get(kind_field)  # type: ignore[arg-type]
        if not isinstance(this_kind, str):
            raise DataError(f"{where}: the kind field '{kind_field}' is missing or not a string ({this_kind!r}).")
        choices = rec.get(choices_field) if choices_field else None
        if choices is not None and not isinstance(choices, list):
            raise DataError(f"{where}: the choices field '{choices_field}' must be a list of option texts; got {choices!r}.")
        question = rec.get(question_field) if question_field else None
        if question is not None and not isinstance(question, str):
            raise DataError(f"{where}: the question field '{question_field}' must be text; got {question!r}.")
        try:
            found = extract(rec[output_field], this_kind, question=question, choices=choices)
        except (ConfigError, DataError) as e:
            raise type(e)(f"{where}: {e}") from None
        rec["extracted"] = found.value
        totals[this_kind] += 1
        missed[this_kind] += not found.ok
    out.parent.mkdir(parents=True, exist_ok=True)
    write_jsonl(records, out)
    stdout.print(f"{sum(totals.values()):,} records -> {out}")
    for k in sorted(totals):
        stdout.print(f"  {k:<8} {totals[k]:>8,} records, unextracted {missed[k]:,} ({missed[k] / totals[k]:.1%})")
