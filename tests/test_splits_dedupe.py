"""Splits that cannot leak: ``dedupe=`` on every splitter keeps copies on one side of every split.

Each registered method runs on SCAN commands with injected copies (re-cased, punctuated, and a
word added), and the leakage audit of the result must find no copy across train and test, while
the same split without ``dedupe`` does (so the check is not vacuous). The length, primitive and
MCD splits must keep what they promise.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from sklearn.base import clone

import gengap
from gengap.analysis.leakage import audit_leakage
from gengap.splits import LengthSplit, MaxCompoundDivergence, RandomSplit
from gengap.splits._registry import make_splitter, methods
from gengap.structure.atoms import words

FAST_MCD = {"n_trials": 4, "n_rebuilds": 1, "max_iterations": 5}
OPTIONS: dict[str, dict] = {
    "random": {}, "length": {"by": "input"}, "primitive": {"primitive": "jump"},
    "combination": {"combinations": "jump&twice;walk&left"}, "parts": {"max_train_parts": 4},
    "mcd": {**FAST_MCD, "max_atom_divergence": None}, "tmcd": {**FAST_MCD, "max_atom_divergence": None},
    "local_structures": {"n_trials": 5}, "cluster": {"n_clusters": 3}, "difficulty": {}, "group": {"group": "site"},
    "time": {"time": "day"}, "transfer": {"group": "site"}, "preset": {"column": "part"}, "all": {},
}


@pytest.fixture(scope="module")
def with_copies():
    """Every 40th SCAN command plus 'jump' alone, and 60 copies of them (30 verbatim, 30 re-wrapped: the same
    words on two lines with doubled spaces, so no splitter sees a new atom), with a site, a day and a preset part."""
    from gengap.tasks.scan import scan_dataset

    ds = scan_dataset()
    single = [i for i, x in enumerate(ds.inputs) if len(x.split()) == 1]
    small = ds.take(np.union1d(np.arange(0, len(ds), 40), single))
    records = small.to_records()
    rng = np.random.default_rng(0)
    for k, i in enumerate(rng.choice(len(records), 60, replace=False)):
        r = dict(records[i])
        text = r["input"]
        r["input"] = text if k < 30 else text.replace(" ", "\n", 1).replace(" ", "  ")
        r["id"] = f"copy{k}"
        records.append(r)
    for i, r in enumerate(records):
        r.update(site=f"s{i % 4}", day=i % 30, part="train" if i % 5 else "test")
    return gengap.load(records)


def test_every_method_is_covered():
    assert set(methods()) == set(OPTIONS)


def _cross_copies(ds, splits) -> int:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        audit = audit_leakage(ds, splits) if any(len(s.train) for s in splits) else None
    return 0 if audit is None else int(audit.table["flagged"].sum())


@pytest.mark.parametrize("method", sorted(OPTIONS))
def test_dedupe_leaves_no_copy_across_train_and_test(method, with_copies):
    splitter = make_splitter(method, options={**OPTIONS[method], "dedupe": True})
    assert splitter.get_params()["dedupe"] is True and clone(splitter).dedupe is True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        splits = splitter.split_datasets(with_copies)
    for split in splits:
        figures = split.diagnostics.figures["dedupe"]
        assert figures["copy_groups_merged"] >= 40  # the verbatim and re-wrapped copies at least
        assert figures["examples_in_copy_groups"] >= 2 * figures["copy_groups_merged"]
        assert split.params["dedupe"] is True
        d = split.diagnostics
        assert d.n_train + d.n_test + d.n_unused == len(with_copies)
    assert _cross_copies(with_copies, splits) == 0


def test_without_dedupe_the_same_split_leaks(with_copies):
    plain = RandomSplit(test_fraction=0.3, seed=0).split_dataset(with_copies)
    deduped = RandomSplit(test_fraction=0.3, seed=0, dedupe=True).split_dataset(with_copies)
    assert _cross_copies(with_copies, [plain]) > 5 and _cross_copies(with_copies, [deduped]) == 0
    f = deduped.diagnostics.figures["dedupe"]
    assert f["groups_cut"] > 0 and f["moved_to_train"] + f["moved_to_test"] > 0 and f["test_set_aside"] == 0
    assert abs(len(deduped.test) - len(plain.test)) <= f["moved_to_train"] + f["moved_to_test"]
    again = RandomSplit(test_fraction=0.3, seed=0, dedupe=True).split_dataset(with_copies)
    assert np.array_equal(again.test, deduped.test)  # the same seed, the same split


def test_length_split_keeps_its_threshold_with_dedupe():
    rng = np.random.default_rng(1)
    texts = [" ".join(f"w{k}" for k in rng.integers(0, 300, rng.integers(10, 30))) for _ in range(300)]
    texts += [t.replace(" ", " - ", 2) for t in texts[:40]]  # normalized copies two tokens longer
    ds = gengap.load([{"input": t, "target": "x"} for t in texts])
    split = LengthSplit(by="input", test_fraction=0.3, dedupe=True).split_dataset(ds)
    lengths = np.array([len(x.split()) for x in ds.inputs])
    threshold = split.diagnostics.figures["max_train_length"]
    assert lengths[split.train].max() <= threshold < lengths[split.test].min()
    assert split.diagnostics.figures["dedupe"]["test_set_aside"] > 0  # copies that cross the threshold
    assert _cross_copies(ds, [split]) == 0 < _cross_copies(ds, [LengthSplit(by="input", test_fraction=0.3).split_dataset(ds)])


def test_mcd_keeps_every_test_atom_in_training_with_dedupe(with_copies):
    splitter = MaxCompoundDivergence(test_fraction=0.2, seed=0, min_train_atom_count=2, dedupe=True, **FAST_MCD)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        split = splitter.split_dataset(with_copies)
    inputs = with_copies.inputs
    train_counts: dict[str, int] = {}
    for i in split.train:
        for atom in words(inputs[i]):
            train_counts[atom] = train_counts.get(atom, 0) + 1
    assert all(train_counts.get(atom, 0) >= 2 for i in split.test for atom in words(inputs[i]))
    assert split.diagnostics.structure.n_unseen_test_atoms == 0
    assert split.diagnostics.structure.compound_divergence > 0.05


def test_primitive_split_keeps_the_primitive_alone_in_training(with_copies):
    split = make_splitter("primitive:jump", options={"dedupe": True}).split_dataset(with_copies)
    inputs = with_copies.inputs
    assert all(inputs[i].split() == ["jump"] for i in split.train if "jump" in inputs[i].lower().split())
    assert all("jump" in inputs[i].lower().split() for i in split.test)


def test_dedupe_must_be_a_boolean():
    with pytest.raises(gengap.ConfigError, match="dedupe='yes' must be True"):
        RandomSplit(dedupe="yes")


def test_split_and_eval_commands_take_dedupe(tmp_path, cli, with_copies):
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps({k: r[k] for k in ("id", "input", "target")}) + "\n"
                            for r in with_copies.to_records()), encoding="utf-8")
    code, out, err = cli("split", str(data), "--method", "random", "--dedupe", "--out", "s")
    assert code == 0, err
    assert "copy group(s) merged" in out
    info = json.loads((tmp_path / "s" / "split.json").read_text())
    assert info["params"]["dedupe"] is True and info["dedupe"]["copy_groups_merged"] >= 40
    (tmp_path / "echo_model.py").write_text("def predict(batch):\n    return list(batch)\n")
    code, _, err = cli("eval", "--data", str(data), "--model", "echo_model:predict", "--split", "random",
                       "--split", "length:by=input", "--dedupe", "--out", "run", "--no-progress")
    assert code == 0, err
    code, out, err = cli("leakage", "run")
    assert code == 0, err
    doc = json.loads((tmp_path / "run" / "results.json").read_text())
    assert doc["run"]["config"]["settings"]["splitting"]["dedupe"] is True
    assert [r["flagged"] for r in doc["sections"]["leakage"]["splits"]] == [0, 0]
