"""``gengap extract``: read the answers out of model outputs in a JSONL file."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from gengap.cli._app import app
from gengap.cli._common import stdout
from gengap.cli._eval import option
from gengap.config import Scoring

_SCORING = Scoring()


@app.command("extract")
def extract_command(
    outputs: Annotated[Path, typer.Argument(help="JSONL file of model outputs, one record a line.")],
    out: Annotated[Path, typer.Option(help="Where to write the records with an 'extracted' field (JSONL).")] = ...,
    kind: Annotated[Optional[str], typer.Option(help="Answer kind of every record: number, choice, yes_no or text.")] = None,
    kind_field: Annotated[Optional[str], typer.Option(help="Field holding each record's answer kind (instead of --kind).")] = None,
    output_field: Annotated[str, typer.Option(help="Field holding the model's output text.")] = "output",
    choices_field: Annotated[Optional[str], typer.Option(help="Field holding the option texts of multiple-choice records.")] = None,
    question_field: Annotated[Optional[str], typer.Option(help="Field holding the question each output answers (helps find the answer span).")] = None,
    judge: Annotated[Optional[str], option(Scoring, "judge", help="The base URL of an OpenAI-compatible API (e.g. a llama.cpp server, http://127.0.0.1:8080/v1) asked about the outputs the rules cannot read or read two ways.")] = _SCORING.judge,
    judge_api: Annotated[str, option(Scoring, "judge_api")] = _SCORING.judge_api,
    judge_model: Annotated[Optional[str], option(Scoring, "judge_model")] = _SCORING.judge_model,
    verify: Annotated[bool, typer.Option("--verify/--no-verify", help="Let the verifier leave doubtful readings "
                                         "unextracted (on by default; counted in the summary).")] = True,
) -> None:
    """Extract answers (number, choice letter, yes/no, short text); unreadable outputs get extracted = null.

    Example: gengap extract outputs.jsonl --kind number --output-field response --out extracted.jsonl
    """
    from gengap._errors import ConfigError, DataError
    from gengap.extract import Extractor, JudgeReport, extract
    from gengap.io import read_jsonl, write_jsonl

    if (kind is None) == (kind_field is None):
        raise ConfigError("Give exactly one of --kind KIND (the same kind for every record) or --kind-field FIELD.")
    records = read_jsonl(outputs)
    totals: Counter[str] = Counter()
    missed: Counter[str] = Counter()
    withheld: Counter[str] = Counter()
    batches: dict[str, list[tuple[dict[str, Any], Any, str | None]]] = {}  # kind -> (record, choices, question)
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
        try:  # the rules, record by record: a bad record is named before any judge is asked
            found = extract(rec[output_field], this_kind, question=question, choices=choices, verify=verify)
            rec["extracted"] = found.value
            withheld[this_kind] += found.rule == "verifier"
        except (ConfigError, DataError) as e:
            raise type(e)(f"{where}: {e}") from None
        batches.setdefault(this_kind, []).append((rec, choices, question))
    judged = []
    for this_kind, batch in batches.items() if judge is not None else ():
        extractor = Extractor(this_kind, judge=judge, judge_api=judge_api, judge_model=judge_model, verify=verify)
        found = extractor.extract_all([rec[output_field] for rec, _, _ in batch], [c for _, c, _ in batch],
                                      [q for _, _, q in batch])
        for (rec, _, _), f in zip(batch, found):
            rec["extracted"] = f.value
        judged.append((this_kind, extractor.judge_report or JudgeReport()))
    for this_kind, batch in batches.items():
        totals[this_kind] += len(batch)
        missed[this_kind] += sum(rec["extracted"] is None for rec, _, _ in batch)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_jsonl(records, out)
    stdout.print(f"{sum(totals.values()):,} records -> {out}")
    for k in sorted(totals):
        doubted = f", {withheld[k]:,} of them read by the rules and withheld by the verifier" if withheld[k] else ""
        stdout.print(f"  {k:<8} {totals[k]:>8,} records, unextracted {missed[k]:,} ({missed[k] / totals[k]:.1%}){doubted}")
    for k, rep in sorted(judged, key=lambda kr: kr[0]):
        stdout.print(f"  judge on {k}: asked about {rep.asked:,} outputs; agreed {rep.agreed:,}, overruled {rep.overruled:,}, "
                     f"filled {rep.filled:,}, unsupported {rep.unsupported:,}, declined {rep.declined:,}")
