"""The splitter protocol and the spine's splitters: random, length, held-out primitive."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.dummy import DummyClassifier
from sklearn.model_selection import cross_val_score

import gengap
from gengap import ConfigError, DataError, HeldOutPrimitive, LengthSplit, RandomSplit
from gengap.splits import load_split, make_splitter, parse_split_spec


def _toy(n: int = 60) -> gengap.Dataset:
    verbs = ["walk", "run", "look", "jump"]
    records = []
    for i in range(n):
        verb = verbs[i % 4]
        reps = 1 + (i // 4) % 5
        cmd = verb if i % 7 == 0 else f"{verb} {'twice' if reps % 2 else 'thrice'}"
        records.append({"input": cmd, "target": " ".join([f"I_{verb.upper()}"] * reps), "site": "ab"[i % 2]})
    records.append({"input": "jump", "target": "I_JUMP", "site": "a"})
    return gengap.load(records)


def check_partition(split, n):
    """Shared property check: disjoint, sorted, in range, sizes match the diagnostics."""
    train, test = split.train, split.test
    assert len(np.intersect1d(train, test)) == 0
    assert np.all(np.diff(train) > 0) and np.all(np.diff(test) > 0)
    assert train.min() >= 0 and max(train.max(), test.max()) < n
    d = split.diagnostics
    assert d.n_train == len(train) and d.n_test == len(test)
    assert d.n_train + d.n_test + d.n_unused == n
    assert set(split.card.to_dict()) >= {"motivation", "generalisation_type", "shift_type", "shift_source", "shift_locus"}


@pytest.mark.parametrize("splitter", [RandomSplit(test_fraction=0.25, seed=3), LengthSplit(test_fraction=0.3),
                                      HeldOutPrimitive(primitive="jump")])
def test_partition_properties(splitter):
    ds = _toy()
    split = splitter.split_dataset(ds)
    check_partition(split, len(ds))
    assert split.diagnostics.held_out


def test_random_is_reproducible_and_seed_dependent():
    ds = _toy()
    a = RandomSplit(seed=1).split_dataset(ds).test
    b = RandomSplit(seed=1).split_dataset(ds).test
    c = RandomSplit(seed=2).split_dataset(ds).test
    assert a.tolist() == b.tolist() and a.tolist() != c.tolist()
    assert len(a) == round(0.2 * len(ds))


def test_random_accepts_a_count():
    assert len(RandomSplit(test_fraction=7).split_dataset(_toy()).test) == 7


def test_length_split_trains_short_tests_long():
    ds = _toy()
    split = LengthSplit(test_fraction=0.3).split_dataset(ds)
    lengths = np.array([len(t.split()) for t in ds.targets])
    assert lengths[split.train].max() < lengths[split.test].min()
    assert split.diagnostics.figures["max_train_length"] == lengths[split.train].max()
    explicit = LengthSplit(max_train_length=2).split_dataset(ds)
    assert lengths[explicit.test].min() == 3


def test_length_by_input_and_metadata_column():
    ds = _toy().with_columns(depth=list(range(61)))
    split = LengthSplit(by="depth", max_train_length=40).split_dataset(ds)
    assert split.test.tolist() == list(range(41, 61))
    by_input = LengthSplit(by="input", max_train_length=1).split_dataset(ds)
    assert all(len(ds.inputs[i].split()) == 1 for i in by_input.train)


def test_held_out_primitive_sees_primitive_only_alone():
    ds = _toy()
    split = HeldOutPrimitive(primitive="jump").split_dataset(ds)
    train_inputs = [ds.inputs[i] for i in split.train]
    test_inputs = [ds.inputs[i] for i in split.test]
    assert all(x == "jump" for x in train_inputs if "jump" in x.split())
    assert all("jump" in x.split() and x != "jump" for x in test_inputs)
    assert split.diagnostics.structure.n_unseen_test_atoms == 0
    assert split.name == "primitive:jump"


def test_unseen_atoms_are_reported():
    split = LengthSplit(by="input", max_train_length=1).split_dataset(gengap.load(
        [{"input": w, "target": "t"} for w in ["a", "b", "a zz"]]))
    assert split.diagnostics.structure.unseen_test_atoms == ("zz",)


def test_sklearn_cross_val_score_accepts_splitters():
    X = np.arange(40).reshape(-1, 1)
    y = np.array([0, 1] * 20)
    scores = cross_val_score(DummyClassifier(), X, y, cv=RandomSplit(test_fraction=0.25, seed=0))
    assert scores.shape == (1,)
    assert list(RandomSplit().split(X, y))[0][1].size == 8


def test_save_and_load_round_trip(tmp_path):
    ds = _toy()
    split = LengthSplit(test_fraction=0.3).split_dataset(ds)
    split.save(tmp_path / "s")
    info = json.loads((tmp_path / "s" / "split.json").read_text())
    assert info["method"] == "length" and info["taxonomy"]["generalisation_type"] == "structural"
    again = load_split(tmp_path / "s")
    assert again.test_part.ids == split.test_part.ids
    assert again.train_part.targets == split.train_part.targets
    assert again.diagnostics.n_test == split.diagnostics.n_test
    first = (tmp_path / "s" / "test.jsonl").read_bytes()
    LengthSplit(test_fraction=0.3).split_dataset(ds).save(tmp_path / "s2")
    assert (tmp_path / "s2" / "test.jsonl").read_bytes() == first


def test_spec_strings():
    assert parse_split_spec("length:by=input,test_fraction=0.3") == ("length", {"by": "input", "test_fraction": 0.3})
    assert parse_split_spec("primitive:jump") == ("primitive", {"primitive": "jump"})
    assert make_splitter("random", seed=5).seed == 5
    assert make_splitter("length", options={"by": "input"}).by == "input"


@pytest.mark.parametrize("spec,match", [("randon", "Did you mean 'random'"), ("length:bye=input", "Did you mean 'by'"),
                                        ("random:0.3", "key=value")])
def test_bad_specs_name_the_fix(spec, match):
    with pytest.raises(ConfigError, match=match):
        make_splitter(spec)


@pytest.mark.parametrize("make", [lambda: RandomSplit(test_fraction=1.5), lambda: RandomSplit(test_fraction=0),
                                  lambda: LengthSplit(max_train_length=-1), lambda: HeldOutPrimitive(primitive="two words")])
def test_bad_parameters_fail_at_construction(make):
    with pytest.raises(ConfigError):
        make()


def test_data_problems_fail_at_split_time():
    ds = gengap.load([{"input": "walk", "target": "a b"}, {"input": "run", "target": "a b"}])
    with pytest.raises(DataError, match="same target length"):
        LengthSplit().split_dataset(ds)
    with pytest.raises(DataError, match="contains the primitive"):
        HeldOutPrimitive(primitive="jump").split_dataset(ds)
    with pytest.raises(ConfigError, match="both parts"):
        RandomSplit(test_fraction=0.2).split_dataset(ds)


# ---------------------------------------------------------------- the diagnostics record
def test_diagnostics_are_a_typed_record():
    from gengap.splits import SplitDetails, SplitDiagnostics, StructureFigures

    split = LengthSplit(test_fraction=0.3).split_dataset(_toy())
    d = split.diagnostics
    assert isinstance(d, SplitDiagnostics) and isinstance(d.structure, StructureFigures)
    assert d.n_train + d.n_test + d.n_unused == 61 and d.held_out.startswith("examples whose target length is over")
    assert d.figures["max_train_length"] == split.dataset.take(split.train).frame["target"].str.split().str.len().max()
    with pytest.raises(TypeError):
        d.figures["max_train_length"] = 3  # read-only, as the record is frozen
    with pytest.raises(TypeError):
        d["n_test"]  # a record, read by attribute; to_dict() gives the flat dict
    assert d.to_dict()["n_test"] == d.n_test and d.to_dict()["max_train_length"] == d.figures["max_train_length"]
    assert SplitDiagnostics.from_dict(d.to_dict()) == d
    import copy
    import pickle

    again = pickle.loads(pickle.dumps(split))  # process backends and notebooks copy splits
    assert again.diagnostics == d and copy.deepcopy(d) == d and np.array_equal(again.test, split.test)
    details = SplitDetails(name="x", held_out="y", structure=d.structure, figures={"k": [1]})
    assert pickle.loads(pickle.dumps(details)) == details == copy.deepcopy(details)


def test_figures_cannot_take_a_name_the_record_has():
    from gengap.splits import SplitDetails, SplitDiagnostics

    with pytest.raises(ValueError, match=r"figures \['held_out', 'n_test'\] have names the record already has"):
        SplitDetails(figures={"n_test": 3, "held_out": "x", "threshold": 2})
    with pytest.raises(ValueError, match=r"figures \['atom_divergence'\]"):
        SplitDiagnostics(n_train=1, n_test=1, test_fraction=0.5, n_unused=0, figures={"atom_divergence": 0.1})


def test_a_hook_must_yield_split_details_and_a_split_a_diagnostics_record():
    from gengap.splits import Split, SplitDetails, Splitter

    class OddRows(Splitter):
        method, card = "odd_rows", RandomSplit.card

        def __init__(self, *, as_dict: bool = False) -> None:
            self.as_dict = as_dict

        def _iter_indices(self, dataset, rng):
            idx = np.arange(len(dataset))
            details = {"name": "odd", "held_out": "odd rows"} if self.as_dict else SplitDetails(name="odd", held_out="odd rows",
                                                                                                 figures={"step": 2})
            yield idx[idx % 2 == 0], idx[idx % 2 == 1], details

    ds = _toy()
    new = OddRows().split_dataset(ds)
    assert new.name == "odd" and new.diagnostics.figures == {"step": 2} and new.diagnostics.structure is not None
    with pytest.raises(ConfigError, match=r"OddRows\._iter_indices yielded a dict; yield \(train, test, SplitDetails\("):
        OddRows(as_dict=True).split_dataset(ds)
    for bad in ({"held_out": "rows 6-8"}, []):
        with pytest.raises(ConfigError, match=r"diagnostics must be a SplitDiagnostics \(SplitDiagnostics\.of_parts or "
                                              rf"\.from_dict\), got {type(bad).__name__}"):
            Split("s", "file", np.arange(6), np.arange(6, 9), None, {}, bad, RandomSplit.card, ds)


def test_a_split_json_written_before_the_record_loads_and_saves_back_the_same(tmp_path):
    """A split folder written by an earlier gengap (flat diagnostics, an MCD search record) loads and saves back."""
    from pathlib import Path

    folder = Path(__file__).parent / "data" / "split_json_before_seed"
    split = load_split(folder)
    d = split.diagnostics
    assert split.name == "mcd:seed=1" and split.seed == 1
    assert (d.n_train, d.n_test, d.structure.n_unseen_test_atoms, d.structure.compound_divergence) == (12, 4, 0, 1.0)
    assert d.figures["search"]["met_atom_bound"] and d.figures["trajectory"]
    split.save(tmp_path)
    before, after = json.loads((folder / "split.json").read_text()), json.loads((tmp_path / "split.json").read_text())
    assert after == before  # its parameters as they were written
