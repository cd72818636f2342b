"""``gengap leakage``: are test examples copies of training ones (or of a corpus)?

Two forms: on data and split methods (``--data ... --split ... --out DIR``), or on a finished run
(``gengap leakage OUT``), whose splits are made again from the run's recorded data and settings;
the run's scores are then compared on the clean and flagged parts, and its report is written again
with a leakage section.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import pandas as pd
import typer
from rich.table import Table
from rich.text import Text

from gengap._errors import ConfigError, DataError
from gengap._settings import Splitting
from gengap.analysis.leakage import DEFAULT_NGRAM, DEFAULT_THRESHOLD, KINDS, LeakageAudit
from gengap.cli._app import app
from gengap.cli._common import parse_options, stderr, stdout

_SPLITTING = Splitting()


@app.command("leakage")
def leakage_command(
    run_out: Annotated[Optional[Path], typer.Argument(help="The output folder (or gengap.duckdb) of a finished run to audit.")] = None,
    data: Annotated[Optional[str], typer.Option(help="Data file (JSONL, JSON, CSV, TSV, Parquet) or a Hugging Face dataset folder.")] = None,
    split: Annotated[Optional[list[str]], typer.Option("--split", help="Split method (random, length, primitive:jump, ...; repeat) or a folder written by 'gengap split'.")] = None,
    input: Annotated[str, typer.Option(help="Column with the model's input.")] = "input",
    target: Annotated[str, typer.Option(help="Column with the reference answer.")] = "target",
    id: Annotated[Optional[str], typer.Option(help="Column with unique example ids.")] = None,
    format: Annotated[Optional[str], typer.Option(help="Force the data format.")] = None,
    test_fraction: Annotated[float, typer.Option(help="Share of examples in test (methods that take one).")] = _SPLITTING.test_fraction,
    seed: Annotated[int, typer.Option(help="Seed (methods that draw at random, and the MinHash functions).")] = _SPLITTING.seed,
    option: Annotated[Optional[list[str]], typer.Option("--option", "-o", help="A split method option as key=value (repeat).")] = None,
    dedupe: Annotated[bool, typer.Option(help="Make the splits with dedupe (copies kept on one side): only corpus overlap should remain.")] = False,
    on: Annotated[str, typer.Option(help="Compare 'input' or 'input+target'.")] = "input",
    near: Annotated[bool, typer.Option(help="Look for near copies too (--no-near: exact and normalized copies only).")] = True,
    threshold: Annotated[float, typer.Option(help="Jaccard similarity of word 2-gram sets from which two texts are near copies.")] = DEFAULT_THRESHOLD,
    corpus: Annotated[Optional[list[str]], typer.Option("--corpus", help="A text corpus (one document per line, or JSONL with 'text'; .gz too) checked as more training data (repeat).")] = None,
    ngram: Annotated[int, typer.Option(help="Words per n-gram of the corpus overlap.")] = DEFAULT_NGRAM,
    out: Annotated[Optional[Path], typer.Option(help="Folder for leaked.jsonl and leakage.json (default: the run's folder).")] = None,
    run: Annotated[Optional[str], typer.Option("--run", help="With a run folder: the run id (default: the latest finished run).")] = None,
) -> None:
    """Find test examples that copy training examples: exact, normalized and near copies, and n-gram overlap with a corpus.

    Examples: gengap leakage --data data.jsonl --split random --split length --out leakage/
    gengap leakage gengap-report/ --corpus pretrain_sample.txt   (a finished run: scores on clean and flagged parts)
    """
    import warnings

    from gengap.analysis.leakage import audit_leakage

    if (run_out is None) == (data is None and not _folders(split)):
        raise ConfigError("Give either a finished run's folder (gengap leakage OUT) or the data and splits "
                          "(gengap leakage --data DATA --split METHOD --out DIR), not both and not neither.")
    if run_out is None and out is None:
        raise ConfigError("Give --out DIR: the folder leaked.jsonl is written to.")
    options: dict[str, Any] = {"on": on, "near": near, "threshold": threshold, "corpus": corpus or [], "ngram": ngram, "seed": seed}
    if run_out is not None:
        _audit_run(run_out, run, out, data=data, input=input, target=target, id=id, format=format, **options)
        return
    assert out is not None
    from gengap._outputs import check_out_folder

    check_out_folder(out)
    dataset, splits = _make_splits(data, split or ["random"], input=input, target=target, id=id, format=format,
                                   options=parse_options(option), seed=seed, test_fraction=test_fraction, dedupe=dedupe)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        audit = audit_leakage(dataset, splits, **options)
    path = audit.write(out)
    print_audit(audit, [str(w.message) for w in caught if str(w.message) not in audit.notes])
    stdout.print(f"Wrote {path} and {out / 'leakage.json'}")


def _folders(split: list[str] | None) -> bool:
    return bool(split) and all(Path(s).is_dir() for s in split or [])


def _make_splits(data: str | None, specs: list[str], *, input: str | list[str], target: str | None, id: str | None,
                 format: str | None, options: dict[str, Any], seed: int, test_fraction: float, dedupe: bool = False,
                 metadata: list[str] | None = None) -> tuple[Any, list[Any]]:
    """The dataset and every Split the specs make of it (split folders bring their own data)."""
    from gengap.io import load
    from gengap.splits import load_split, make_splitter

    folders = [s for s in specs if Path(s).is_dir()]
    if folders:
        if len(folders) != len(specs):
            raise ConfigError("Split folders cannot be mixed with split methods: a folder brings its own data.")
        made = [load_split(f) for f in folders]
        return made[0].dataset, made
    if data is None:
        raise ConfigError("Give --data DATA (with --input and --target) for split methods.")
    dataset = load(data, input=input, target=target, id=id, format=format, metadata=metadata)
    splits = []
    for spec in specs:
        splitter = make_splitter(spec, options=options, seed=seed, test_fraction=test_fraction, dedupe=dedupe)
        splits.extend(splitter.split_datasets(dataset))
    return dataset, splits


def _run_splits(config: dict[str, Any], store_path: Path, run: str, *, data: str | None, input: str, target: str,
                id: str | None, format: str | None) -> tuple[Any, list[Any]]:
    """The dataset and splits of a stored run, made again from its recorded data and split settings."""
    splitting = (config.get("settings") or {}).get("splitting") or {}
    seed, test_fraction = splitting.get("seed", config.get("seed", 0)), splitting.get("test_fraction", 0.2)
    dedupe = bool(splitting.get("dedupe", False))
    table = config.get("data") if isinstance(config.get("data"), dict) else None
    recorded = config.get("split") if isinstance(config.get("split"), list) else None
    if data is None and table is None and not (recorded and all(s.get("path") for s in recorded)):
        raise ConfigError(f"Run {run} in '{store_path}' was started from Python, so its data file is not recorded. Give "
                          "it with --data (and --input, --target, --id as the run loaded it).")
    if data is not None or table is None:
        table = {"path": data, "input": input, "target": target, "id": id, "format": format}
    if recorded:  # a run from gengap eval or a run file: its split specs and options
        specs = [s.get("path") or s.get("method") or "random" for s in recorded]
        per_spec = [{k: v for k, v in s.items() if k not in ("method", "path")} for s in recorded]
    else:  # a run from Python: each split's method and parameters as stored
        specs = [s["method"] for s in config.get("splits", [])]
        per_spec = [{k: v for k, v in (s.get("params") or {}).items() if isinstance(v, (int, float, str, bool, list))
                     or v is None} for s in config.get("splits", [])]
    dataset, splits = None, []
    for spec, opts in zip(specs, per_spec):
        dataset, made = _make_splits(table.get("path"), [spec], input=table.get("input", "input"),
                                     target=table.get("target", "target"), id=table.get("id"), format=table.get("format"),
                                     metadata=table.get("metadata"), options=opts, seed=seed, test_fraction=test_fraction,
                                     dedupe=dedupe)
        splits.extend(made)
    fingerprint = (config.get("dataset") or {}).get("fingerprint")
    if dataset is not None and fingerprint and dataset.fingerprint() != fingerprint:
        raise DataError(f"The data '{table.get('path')}' is not what run {run} evaluated (dataset fingerprint "
                        f"{dataset.fingerprint()}, the run's {fingerprint}): it changed since, or other columns were "
                        "given. Audit it with the same file and --input/--target/--id as the run.")
    return dataset, splits


def _audit_run(run_out: Path, run: str | None, out: Path | None, *, data: str | None, input: str, target: str,
               id: str | None, format: str | None, **options: Any) -> None:
    import warnings

    from gengap.analysis.leakage import audit_leakage, leakage_scores
    from gengap.report._write import write_report
    from gengap.store import Store, resolve_store

    store_path = resolve_store(run_out)
    with Store(store_path, read_only=True) as store:
        run_id = run or store.latest_run()
        config = store.run_config(run_id)
        stored = store.split_info(run_id)
    dataset, splits = _run_splits(config, store_path, run_id, data=data, input=input, target=target, id=id, format=format)
    splits = [s for s in splits if s.name in stored]
    for s in splits:
        if stored[s.name].get("n_test") != len(s.test):
            raise DataError(f"Split '{s.name}' made again has {len(s.test)} test examples, but run {run_id} tested "
                            f"{stored[s.name].get('n_test')}: the data or the split settings differ from the run's.")
    if not splits:
        raise DataError(f"None of the splits of run {run_id} ({', '.join(stored)}) could be made again from its settings.")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        audit = audit_leakage(dataset, splits, **options)
    folder = out if out is not None else store_path.parent
    path = audit.write(folder)
    with Store(store_path) as store:
        store.add_leakage(run_id, audit.to_dict(), audit.leaks)
        rows = store.rows(run_id)
    print_audit(audit, [str(w.message) for w in caught if str(w.message) not in audit.notes])
    print_scores(leakage_scores(rows, audit.leaks))
    curves = ((config.get("eval") or {}).get("curves") or []) if isinstance(config.get("eval"), dict) else []
    report = write_report(store_path, run_id, store_path.parent, curves=curves)
    stdout.print(f"Wrote {path}; the report in {report} has a leakage section (results.json: sections.leakage).",
                 markup=False)


def print_audit(audit: LeakageAudit, warnings_seen: list[str] = ()) -> None:  # type: ignore[assignment]
    """The per-split table (test n, flagged by kind, share) and the audit's notes, as plain text."""
    s = audit.settings
    table = Table(title=f"Leakage ({s['on']}; near copies: Jaccard >= {s['threshold']} of word {s['shingle']}-grams"
                        + (f"; {s['ngram']}-gram corpus overlap" if s.get("corpus") else "") + ")")
    for col in ("split", "train", "test", *KINDS, "flagged", "share %"):
        table.add_column(col, justify="left" if col == "split" else "right")
    for r in audit.table.to_dict(orient="records"):
        table.add_row(Text(str(r["split"])), f"{r['n_train']:,}", f"{r['n_test']:,}", *(f"{r[k]:,}" for k in KINDS),
                      f"{r['flagged']:,}", f"{100 * r['share']:.1f}")
    stdout.print(table)
    stdout.print(f"Normalized: {s['normalization']}.", markup=False)
    for note in [*audit.notes, *warnings_seen]:
        stderr.print(Text(f"note: {note}"))


def print_scores(scores: pd.DataFrame) -> None:
    """Per model and split: the score on the clean and flagged parts, with intervals, and their difference."""
    if scores.empty:
        return
    table = Table(title="Score on the clean and flagged test examples (95% CI)")
    for col in ("model", "split", "metric", "clean", "n", "flagged", "n ", "clean - flagged", "p"):
        table.add_column(col, justify="left" if col in ("model", "split", "metric") else "right")

    def pct(v: float, lo: float, hi: float) -> str:
        return "-" if pd.isna(v) else f"{100 * v:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]"

    for r in scores.itertuples(index=False):
        table.add_row(Text(str(r.model)), Text(str(r.split)), Text(str(r.metric)), pct(r.clean, r.clean_low, r.clean_high),
                      f"{r.n_clean:,}", pct(r.flagged, r.flagged_low, r.flagged_high), f"{r.n_flagged:,}",
                      pct(r.difference, r.difference_low, r.difference_high),
                      "" if pd.isna(r.p_value) else f"{r.p_value:.3g}")
    stdout.print(table)
    tests = sorted({t for t in scores["test"] if t})
    if tests:
        stdout.print(f"p: two-sample test of clean against flagged ({', '.join(tests)}).", markup=False)
