"""``gengap import``: per-example logs you already have (lm-evaluation-harness, any table) into a results store."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gengap._settings import DEFAULT_OUT
from gengap.cli._app import app
from gengap.cli._common import print_samples, print_summary, stdout
from gengap.cli._report import ANALYSIS_DEFAULTS, check_slice_control, check_slice_order, slices_option

import_app = typer.Typer(help="Read per-example logs of runs you already have (lm-evaluation-harness, inspect_ai, JSONL/CSV/Parquet) "
                              "into a results store, then write the usual report. No model is called.",
                         no_args_is_help=True)
app.add_typer(import_app, name="import")


def _print_table(title: str, frame, path: Path) -> None:  # type: ignore[no-untyped-def]
    from rich.table import Table

    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, index=False)
    table = Table(title=f"{title}  ({path})", title_justify="left")
    for col in frame.columns:
        table.add_column(str(col), overflow="fold")
    for rec in frame.itertuples(index=False):
        table.add_row(*(f"{v:.3f}" if isinstance(v, float) else str(v) for v in rec))
    stdout.print(table, markup=False)


def _score_format(rows):  # type: ignore[no-untyped-def]
    from gengap.report._format import ScoreFormat

    return ScoreFormat(percent=bool(len(rows)) and bool(rows["score"].between(0, 1).all()))


def _analyses(result, *, metric: str | None, group: list[str] | None, reextract: str | None,  # type: ignore[no-untyped-def]
              subset: list[str] | None, cluster: str | None = None) -> None:
    """The analyses asked for on the command line, printed and written as CSV files in OUT/analysis/."""
    if not (group or reextract or subset):
        return
    from gengap.analysis.imported import group_scores, load_rows, subset_scores
    from gengap.analysis.imported import reextract as read_again
    from gengap.analysis.samples import default_cluster
    from gengap.report.section_imported import group_table

    rows = load_rows(result.store_path, result.run_id, metric=metric)
    cluster = default_cluster(rows, cluster)  # several samples per example: the example is the cluster
    folder = result.out / "analysis"
    for field in group or []:
        table = group_scores(rows, field, n_resamples=2000, cluster=cluster)
        table.to_csv(_csv_path(folder / f"groups_{field}.csv"), index=False)
        _print_frame(f"Groups by {field}  ({folder / f'groups_{field}.csv'})", group_table(table, _score_format(rows)))
    if reextract:
        from gengap.imports._lmeval import LOGLIKELIHOOD_TYPES
        from gengap.store import Store

        with Store(result.store_path, read_only=True) as store:
            info = store.split_info(result.run_id)
            source = store.run_config(result.run_id).get("import") or {}
        scored = [t for t, i in info.items() if i.get("output_type") in LOGLIKELIHOOD_TYPES]  # no text to read
        readable = rows[~rows["split"].isin(scored)]
        # a table import without --extracted has no answer of its own to compare with (lm_eval's filters always give one)
        if readable.empty or (source.get("kind") == "table" and not (source.get("columns") or {}).get("extracted")):
            stdout.print(f"--reextract {reextract}: these rows hold no answer already read from the outputs (no "
                         "--extracted column, or every value empty), so there is nothing to compare gengap's reading "
                         "with. Import again with --extracted COLUMN, or score the outputs with gengap eval --extract "
                         f"{reextract}.", markup=False, soft_wrap=True)
        else:
            _, summary = read_again(readable, reextract)
            _print_table(f"gengap's extractor ({reextract}) beside the log's answers", summary, folder / "reextract.csv")
    for spec in subset or []:
        table = subset_scores(rows, spec, n_resamples=2000)
        safe = "".join(c if c.isalnum() else "_" for c in spec)
        _print_table(f"Subset a '{spec}' split would test", table, folder / f"subset_{safe}.csv")


def _csv_path(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _print_frame(title: str, frame) -> None:  # type: ignore[no-untyped-def]
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for col in frame.columns:
        table.add_column(str(col), overflow="fold")
    for rec in frame.itertuples(index=False):
        table.add_row(*(str(v) for v in rec))
    stdout.print(table, markup=False)


def _model_differences(result) -> None:  # type: ignore[no-untyped-def]
    """Two or more models on the same examples: the paired comparison, on the terminal (the report has it too)."""
    from gengap.analysis.imported import load_rows, model_differences
    from gengap.report.section_imported import model_difference_table

    rows = load_rows(result.store_path, result.run_id)
    if rows["model"].nunique() < 2:
        return
    metric = str(rows["metric"].iloc[0])
    rows = rows[rows["metric"] == metric]
    diffs = model_differences(rows, metric=metric, n_resamples=4000)
    if len(diffs):
        _print_frame(f"Models compared on the same examples ({metric}; paired)", model_difference_table(diffs, _score_format(rows)))


def _finish(result, formats: list[str] | None, groups: list[str] | None = None,  # type: ignore[no-untyped-def]
            cluster: str | None = None, find_slices: bool = False, slice_order: int = 2,
            slice_control: str = "bh") -> None:
    from gengap.evaluation import Evaluation
    from gengap.report._write import FILE_NAMES, check_formats, write_report

    for note in result.notes:
        stdout.print(f"note: {note}", markup=False, soft_wrap=True)
    if result.already_imported:
        stdout.print(f"Already imported as run {result.run_id} in {result.store_path}; nothing was written again.",
                     markup=False, soft_wrap=True)
    else:
        stdout.print(f"Imported {result.n_rows:,} rows as run {result.run_id} into {result.store_path}.",
                     markup=False, soft_wrap=True)
    evaluation = Evaluation(store_path=result.store_path, run_id=result.run_id, out=result.out)
    print_summary(evaluation.summary(cluster=cluster))
    if _has_samples(result):  # several answers per example (inspect_ai epochs, --sample): pass@k, maj@k
        print_samples(evaluation.samples())
    _model_differences(result)
    chosen = check_formats(formats or list(FILE_NAMES))
    if find_slices:  # gengap report OUT writes the same report again
        from gengap.store import Store

        with Store(result.store_path) as store:
            store.remember_report(result.run_id, {"find_slices": True, "slice_order": slice_order,
                                                  "slice_control": slice_control})
    folder = write_report(result.store_path, result.run_id, result.out, formats=chosen, groups=groups or (),
                          cluster=cluster, find_slices=find_slices, slice_order=slice_order,
                          slice_control=slice_control)
    stdout.print(f"Report: {folder / FILE_NAMES[chosen[0]]}", markup=False, soft_wrap=True)
    if find_slices and "json" in chosen:
        from gengap.cli._common import print_slices

        print_slices(result.store_path, result.run_id)


@import_app.command("lm-eval")
def lm_eval_command(
    path: Annotated[Path, typer.Argument(help="The --output_path folder of lm_eval runs made with --log_samples (searched recursively).")],
    out: Annotated[Path, typer.Option(help="Output folder: the gengap.duckdb store and the report.")] = Path(DEFAULT_OUT),
    format: Annotated[list[str] | None, typer.Option("--format", help="Report format: html, md or json (repeat; default: all).")] = None,
    answer_filter: Annotated[str | None, typer.Option(help="The lm_eval filter whose answers are stored as the extracted answer (default: each task's first), e.g. flexible-extract.")] = None,
    metric: Annotated[str | None, typer.Option(help="Analyses: the metric to use (e.g. acc,none), when a task has several.")] = None,
    group: Annotated[list[str] | None, typer.Option("--group", help="Analyses: per-group and worst-group scores over this document field (repeat).")] = None,
    reextract: Annotated[str | None, typer.Option(help="Analyses: read generated answers again with gengap's extractor (number, choice, yes_no, text) beside the log's.")] = None,
    subset: Annotated[list[str] | None, typer.Option("--subset", help="Analyses: score on the documents a split would test, e.g. mcd, length:by=input, group:group=subject,holdout=law (repeat).")] = None,
    corpus_metric: Annotated[list[str] | None, typer.Option("--corpus-metric", help="Corpus metric to add, e.g. ece, brier, auroc (repeat): right or wrong from acc,none; multiple-choice confidences are the softmax of the options' log-likelihoods.")] = None,
    cluster: Annotated[str | None, typer.Option(help="A metadata field whose rows are not independent (questions of one passage, document or source): every interval and test counts clusters, not rows.")] = None,
    find_slices: Annotated[bool, slices_option("find_slices", "--find-slices")] = ANALYSIS_DEFAULTS.find_slices,
    slice_order: Annotated[int, slices_option("slice_order")] = ANALYSIS_DEFAULTS.slice_order,
    slice_control: Annotated[str, slices_option("slice_control")] = ANALYSIS_DEFAULTS.slice_control,
) -> None:
    """Import lm-evaluation-harness logs: every task, model, document, response, filtered answer and per-document metric.

    Example: gengap import lm-eval lm-eval-out/ --out report/ --group subject --reextract number
    """
    from gengap.imports import import_lm_eval

    check_slice_order(slice_order)
    check_slice_control(slice_control)
    result = import_lm_eval(path, out, answer_filter=answer_filter, corpus_metrics=corpus_metric or ())
    _finish(result, format, group, cluster, find_slices, slice_order, slice_control)
    _analyses(result, metric=metric, group=group, reextract=reextract, subset=subset, cluster=cluster)


@import_app.command("table")
def table_command(
    files: Annotated[list[Path], typer.Argument(help="JSONL, JSON, CSV, TSV or Parquet files of per-example predictions (one per model, or with a model column).")],
    id: Annotated[str, typer.Option("--id", help="Column with the example id (the same example has the same id for every model).")],
    output: Annotated[str, typer.Option(help="Column with the model's output.")],
    score: Annotated[list[str], typer.Option("--score", help="Column with a per-example score (repeat; numbers or true/false).")],
    input: Annotated[str | None, typer.Option(help="Column with the model's input.")] = None,
    target: Annotated[str | None, typer.Option(help="Column with the reference answer.")] = None,
    model: Annotated[str | None, typer.Option(help="Column with the model name (else each file is one model, named after the file).")] = None,
    task: Annotated[str | None, typer.Option(help="Column with the task or split name (else one split per import).")] = None,
    extracted: Annotated[str | None, typer.Option(help="Column with the answer already read from the output.")] = None,
    metadata: Annotated[list[str] | None, typer.Option(help="Metadata column to keep (repeat; default: every other column).")] = None,
    split_name: Annotated[str, typer.Option(help="Split name when there is no --task column.")] = "imported",
    confidence: Annotated[str | None, typer.Option(help="Column with the model's confidence in its output (a probability in [0, 1]).")] = None,
    corpus_metric: Annotated[list[str] | None, typer.Option("--corpus-metric", help="Corpus metric to add, e.g. auroc, ece, macro_f1 (repeat); the first --score column says right or wrong.")] = None,
    sample: Annotated[str | None, typer.Option(help="Column with the sample index (0, 1, ... or 1, 2, ...): rows of one id with different indices are samples of one example (pass@k, maj@k, clustered by example).")] = None,
    out: Annotated[Path, typer.Option(help="Output folder: the gengap.duckdb store and the report.")] = Path(DEFAULT_OUT),
    format: Annotated[list[str] | None, typer.Option("--format", help="Report format: html, md or json (repeat; default: all).")] = None,
    metric: Annotated[str | None, typer.Option(help="Analyses: the score column to use, when there are several.")] = None,
    group: Annotated[list[str] | None, typer.Option("--group", help="Analyses: per-group and worst-group scores over this metadata column (repeat).")] = None,
    reextract: Annotated[str | None, typer.Option(help="Analyses: read outputs again with gengap's extractor (number, choice, yes_no, text) beside --extracted.")] = None,
    subset: Annotated[list[str] | None, typer.Option("--subset", help="Analyses: score on the examples a split would test, e.g. mcd, length:by=input (repeat).")] = None,
    cluster: Annotated[str | None, typer.Option(help="A metadata field whose rows are not independent (questions of one passage, document or source): every interval and test counts clusters, not rows.")] = None,
    find_slices: Annotated[bool, slices_option("find_slices", "--find-slices")] = ANALYSIS_DEFAULTS.find_slices,
    slice_order: Annotated[int, slices_option("slice_order")] = ANALYSIS_DEFAULTS.slice_order,
    slice_control: Annotated[str, slices_option("slice_control")] = ANALYSIS_DEFAULTS.slice_control,
) -> None:
    """Import per-example predictions from any table, naming its columns.

    Example: gengap import table preds_a.jsonl preds_b.jsonl --id qid --input question --target answer --output response --score correct --out report/
    """
    from gengap.imports import import_table

    check_slice_order(slice_order)
    check_slice_control(slice_control)
    result = import_table(files, id=id, output=output, scores=score, input=input, target=target, model=model,
                          task=task, extracted=extracted, metadata=metadata, split_name=split_name, out=out,
                          confidence=confidence, corpus_metrics=corpus_metric or (), sample=sample)
    _finish(result, format, group, cluster, find_slices, slice_order, slice_control)
    _analyses(result, metric=metric, group=group, reextract=reextract, subset=subset, cluster=cluster)


@import_app.command("inspect")
def inspect_command(
    logs: Annotated[list[Path], typer.Argument(help="inspect_ai logs: .eval or .json files, or the log_dir folder that holds them.")],
    out: Annotated[Path, typer.Option(help="Output folder: the gengap.duckdb store and the report.")] = Path(DEFAULT_OUT),
    format: Annotated[list[str] | None, typer.Option("--format", help="Report format: html, md or json (repeat; default: all).")] = None,
    metric: Annotated[str | None, typer.Option(help="Analyses: the scorer to use, when a task has several.")] = None,
    group: Annotated[list[str] | None, typer.Option("--group", help="Analyses: per-group and worst-group scores over this metadata field (repeat).")] = None,
    subset: Annotated[list[str] | None, typer.Option("--subset", help="Analyses: score on the samples a split would test, e.g. length:by=input (repeat).")] = None,
    cluster: Annotated[str | None, typer.Option(help="A metadata field whose rows are not independent (default: the example, when samples ran for several epochs).")] = None,
    find_slices: Annotated[bool, slices_option("find_slices", "--find-slices")] = ANALYSIS_DEFAULTS.find_slices,
    slice_order: Annotated[int, slices_option("slice_order")] = ANALYSIS_DEFAULTS.slice_order,
    slice_control: Annotated[str, slices_option("slice_control")] = ANALYSIS_DEFAULTS.slice_control,
) -> None:
    """Import inspect_ai evaluation logs: every sample, epoch, output, score, metadata and token count.

    Each task is a split and each model a model; a sample run for several epochs is one example with one
    answer per epoch (its samples, numbered 0, 1, ... as with gengap eval --samples K): pass@1, pass@k
    and maj@k are reported, and every interval counts examples, not epochs. Example: gengap import
    inspect logs/ --out report/
    """
    from gengap.imports import import_inspect

    check_slice_order(slice_order)
    check_slice_control(slice_control)
    result = import_inspect(logs, out)
    if cluster is None and _has_samples(result):
        stdout.print("note: samples ran for several epochs: each epoch is a sample of its example (pass@k, maj@k), "
                     "and every interval counts examples, not epochs.", markup=False, soft_wrap=True)
    _finish(result, format, cluster=cluster, find_slices=find_slices, slice_order=slice_order,
            slice_control=slice_control)
    _analyses(result, metric=metric, group=group, reextract=None, subset=subset, cluster=cluster)


def _has_samples(result) -> bool:  # type: ignore[no-untyped-def]
    """True when some example of an import was answered several times (an inspect_ai sample in several
    epochs, rows of a --sample column): its store has a row with sample > 0."""
    from gengap.store import Store

    with Store(result.store_path, read_only=True) as store:
        columns = set(store.sql("SELECT column_name FROM information_schema.columns WHERE table_name = 'predictions'")
                      ["column_name"])
        if "sample" not in columns:
            return False
        found = store.sql("SELECT count(*) AS n FROM predictions WHERE run_id = ? AND sample > 0", [result.run_id])
    return bool(found["n"].iloc[0])
