"""Running what a run file describes (``gengap run``, and ``gengap eval``, which builds the same
:class:`gengap.config.RunConfig` from its options): load the data, build the model and the splits,
:func:`gengap.evaluate`, and write the report. :mod:`gengap.config` holds the schema; this module
runs it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gengap._errors import ConfigError
from gengap._outputs import check_out_folder
from gengap.analysis.curves import check_axis
from gengap.config import NOT_STORED_MODEL, RUN_FILE_TABLES, Generation, ModelConfig, RunConfig
from gengap.evaluation import Evaluation, evaluate
from gengap.io import load
from gengap.models import load_model
from gengap.splits import load_split, make_splitter

__all__ = ["execute", "build_model", "run_identity"]


def build_model(cfg: ModelConfig) -> Any:
    """The Model a ModelConfig describes (an HTTP model gets every :class:`Generation` setting)."""
    options: dict[str, Any] = {}
    if cfg.spec.startswith(("http://", "https://")):
        options = {"model_name": cfg.model_name, "api_key_env": cfg.api_key_env,
                   **{key: getattr(cfg, key) for key in Generation.model_fields}}
    elif Path(cfg.spec).suffix in (".skops", ".pkl", ".pickle", ".joblib"):
        options = {"trust_pickle": cfg.trust_pickle, "trusted": cfg.trusted}
    if cfg.version is not None and not options and not cfg.spec.startswith(("http://", "https://")):
        options = {"version": cfg.version}
    return load_model(cfg.spec, name=cfg.name, **options)



def run_identity(cfg: RunConfig) -> dict[str, Any]:
    """The run file as stored with the run, besides the settings (:func:`gengap.evaluate` stores those):
    what the run computes, not how fast it runs (:data:`NOT_STORED_MODEL`), so the same evaluation
    resumes whatever request timeout the second attempt uses."""
    data = cfg.model_dump(mode="json", include=set(RUN_FILE_TABLES))
    for key in NOT_STORED_MODEL:
        data["model"].pop(key, None)
    return data



def execute(cfg: RunConfig, *, progress: bool | None = None) -> Evaluation:
    """Load the data, build model and splits, evaluate, and write the report. Returns the Evaluation.

    ``progress`` (when not None) overrides ``cfg.execution.progress``.
    """
    check_out_folder(cfg.eval.out)  # before any data is read or model built
    splits: list[Any] = []
    dataset = None
    if any(s.path for s in cfg.split):
        dataset, splits = _split_folders(cfg)
    else:
        assert cfg.data is not None  # checked in parse_config
        dataset = load(cfg.data.path, input=cfg.data.input, target=cfg.data.target, id=cfg.data.id,
                       metadata=cfg.data.metadata, format=cfg.data.format)
        for s in cfg.split:
            splits.append(make_splitter(s.method or "random", options=s.options(), seed=cfg.splitting.seed,
                                        test_fraction=cfg.splitting.test_fraction, dedupe=cfg.splitting.dedupe))
    _check_curves(cfg.eval.curves, dataset)  # before the model is built or any split cut
    model = build_model(cfg.model)  # after the data: a missing data file is reported first
    settings = cfg.settings() if progress is None else cfg.settings().replace(progress=progress)
    evaluation = evaluate(model, dataset, splits, settings=settings, out=cfg.eval.out, name=cfg.eval.name,
                          run_info=run_identity(cfg), perturbations=cfg.eval.perturb, curves=cfg.eval.curves,
                          prompt=cfg.prompt.model_dump() if cfg.prompt else None)
    evaluation.report()
    return evaluation


def _check_curves(axes: Sequence[str], dataset: Any) -> None:
    """Every ``--curve`` axis is a numeric column of the data (or a derived axis), else refuse before running."""
    columns = {c: dataset.column(c).tolist() for c in dataset.metadata_columns}
    for axis in axes:
        check_axis(columns, str(axis), option="--curve")


def _split_folders(cfg: RunConfig) -> tuple[Any, list[Any]]:
    """The splits of several folders written by ``gengap split`` from the same data, evaluated together.

    Every folder records the fingerprint of the dataset it was cut from; folders cut from different
    data cannot be compared (their gap would mix a change of data with a change of split).
    """
    methods = [s.method for s in cfg.split if s.path is None]
    folders = [s.path for s in cfg.split if s.path is not None]
    if methods:
        raise ConfigError(f"Split folders ({', '.join(folders)}) cannot be mixed with split methods ({', '.join(map(str, methods))}): "
                          "a folder brings its own data. Write the other splits to folders too (gengap split DATA "
                          "--method METHOD --out FOLDER) and pass every folder with --split.")
    if cfg.data is not None:
        raise ConfigError(f"A split folder ({folders[0]}) brings its own data; leave out the data "
                          f"({cfg.data.path}), or split that data with a split method instead.")
    splits = [load_split(f) for f in folders]
    prints = [_folder_fingerprint(f) for f in folders]
    for folder, fp in zip(folders[1:], prints[1:]):
        if fp != prints[0]:
            raise ConfigError(f"The split folders '{folders[0]}' and '{folder}' were made from different data (dataset "
                              f"fingerprints {prints[0]} and {fp}), so their scores cannot be compared. Split the same "
                              "data file with each method (gengap split DATA --method ... --out ...).")
    names = [s.name for s in splits]
    for name in dict.fromkeys(names):
        if names.count(name) > 1:
            same = [f for f, n in zip(folders, names) if n == name]
            raise ConfigError(f"The split folders {', '.join(same)} hold splits with the same name '{name}'; pass each "
                              "split once.")
    return splits[0].dataset, splits


def _folder_fingerprint(folder: str) -> str | None:
    """The dataset fingerprint recorded in a split folder's split.json (None in folders that lack one)."""
    try:
        info = json.loads((Path(folder) / "split.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    dataset = info.get("dataset") if isinstance(info, dict) else None
    return dataset.get("fingerprint") if isinstance(dataset, dict) else None
