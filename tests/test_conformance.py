"""Every registered split method, perturbation and metric meets the same contract.

As scikit-learn loops over its splitters, these tests loop over the registries: a new splitter,
perturbation or metric without an entry here fails ``test_every_*_is_covered`` until it is given one.
Property tests (hypothesis) check the guarantees each compositional splitter claims.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gengap
from gengap.metrics import METRICS, get_metric
from gengap.perturb import available_perturbations, make_perturbations
from gengap.splits import (
    HeldOutPrimitive,
    LengthSplit,
    MaxCompoundDivergence,
    SplitDiagnostics,
    TargetMaxCompoundDivergence,
    load_split,
)
from gengap.splits._registry import make_splitter, methods
from gengap.structure.atoms import words

FAST_MCD = {"n_trials": 4, "n_rebuilds": 1, "max_iterations": 5}

#: Options that make each method applicable to the dataset below (the rest of each signature keeps its default).
SPLIT_OPTIONS: dict[str, dict] = {
    "random": {"seed": 0},
    "length": {"by": "input"},
    "primitive": {"primitive": "jump"},
    "combination": {"combinations": "jump&twice;walk&left"},
    "parts": {"max_train_parts": 4},
    "mcd": {"seed": 0, **FAST_MCD},
    "tmcd": {"seed": 0, **FAST_MCD},
    "local_structures": {"seed": 0, "n_trials": 5},
    "cluster": {"n_clusters": 3, "seed": 0},
    "difficulty": {},
    "group": {"group": "site", "seed": 0},
    "time": {"time": "day"},
    "transfer": {"group": "site", "seed": 0},
    "preset": {"column": "part"},
    "all": {},
}


@pytest.fixture(scope="module")
def scan_sample():
    """Every 40th SCAN command, with a site, a day and a preset part as metadata."""
    from gengap.tasks.scan import scan_dataset

    ds = scan_dataset()
    single = [i for i, x in enumerate(ds.inputs) if len(x.split()) == 1]  # 'jump' alone, for the held-out primitive
    small = ds.take(np.union1d(np.arange(0, len(ds), 40), single))
    n = len(small)
    return small.with_columns(site=[f"s{i % 4}" for i in range(n)], day=[i % 30 for i in range(n)],
                              part=["train" if i % 5 else "test" for i in range(n)])


def test_every_registered_split_method_is_covered():
    assert set(methods()) == set(SPLIT_OPTIONS)


@pytest.mark.parametrize("method", sorted(SPLIT_OPTIONS))
def test_split_method_contract(method, scan_sample, tmp_path):
    splitter = make_splitter(method, options=SPLIT_OPTIONS[method])
    n = len(scan_sample)
    yielded = list(splitter.split(scan_sample))
    assert len(yielded) == splitter.get_n_splits(scan_sample) >= 1
    for train, test in yielded:
        assert len(test) and (len(train) or splitter.allows_empty_train)
        assert np.intersect1d(train, test).size == 0, "train and test share examples"
        both = np.concatenate([train, test])
        assert both.min() >= 0 and both.max() < n
        assert len(np.unique(train)) == len(train) and len(np.unique(test)) == len(test)
    # seeded determinism: a fresh splitter with the same options makes the same parts
    again = list(make_splitter(method, options=SPLIT_OPTIONS[method]).split(scan_sample))
    assert all(np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) for a, b in zip(yielded, again))
    # split.json round-trips: what is written is what load_split reads back
    split = splitter.split_dataset(scan_sample)
    folder = split.save(tmp_path / method)
    back = load_split(folder)
    assert back.method == split.method and back.name == split.name and back.seed == split.seed
    assert len(back.train) == len(split.train) and len(back.test) == len(split.test)
    assert back.card == split.card
    assert sorted(back.dataset.take(back.test).ids) == sorted(scan_sample.take(split.test).ids)
    assert json.loads((folder / "split.json").read_text())["n_test"] == len(split.test)
    assert split.save(tmp_path / f"{method}-again").joinpath("split.json").read_bytes() == (folder / "split.json").read_bytes()
    # the diagnostics record round-trips, and a reloaded split writes back the very same split.json
    assert SplitDiagnostics.from_dict(split.diagnostics.to_dict()) == split.diagnostics
    assert back.save(tmp_path / f"{method}-reloaded").joinpath("split.json").read_bytes() == (folder / "split.json").read_bytes()


SEEDED = sorted(m for m, cls in methods().items() if "seed" in cls().get_params())


def test_seeded_methods_are_the_ones_that_draw_at_random():
    assert SEEDED == ["cluster", "combination", "group", "local_structures", "mcd", "random", "tmcd", "transfer"]


@pytest.mark.parametrize("method", SEEDED)
def test_seed_is_the_one_name_of_the_seed(method, scan_sample):
    from sklearn.base import clone

    options = {k: v for k, v in SPLIT_OPTIONS[method].items() if k != "seed"}
    splitter = make_splitter(method, options={**options, "seed": 3})
    params = splitter.get_params()
    assert params["seed"] == 3 and "random_state" not in params and "random_state" not in repr(splitter)
    copy = clone(splitter)
    assert copy.get_params() == params and copy is not splitter
    assert clone(splitter).set_params(seed=4).seed == 4
    first = splitter.split_dataset(scan_sample)
    assert first.seed == 3 and first.params["seed"] == 3 and "random_state" not in first.params
    again = make_splitter(f"{method}:seed=3", options=options).split_dataset(scan_sample)
    assert np.array_equal(again.test, first.test) and again.name == first.name
    # scikit-learn's name is not a second name here: refused everywhere, the message names the options
    cls = methods()[method]
    with pytest.raises(TypeError, match="random_state"):
        cls(**options, random_state=3)
    with pytest.raises(gengap.ConfigError, match=rf"'{method}' has no option 'random_state'"):
        make_splitter(f"{method}:random_state=3", options=options)
    with pytest.raises(gengap.ConfigError, match=r"has no parameter 'random_state'.*Parameters: .*seed"):
        clone(splitter).set_params(random_state=5)
    assert not hasattr(splitter, "random_state")


# ---------------------------------------------------------------- compositional guarantees (hypothesis)
VOCAB = ["walk", "run", "jump", "look", "twice", "thrice", "left", "right", "and", "after", "around"]


def _dataset(commands):
    return gengap.load([{"input": " ".join(c), "target": "-"} for c in commands])


commands = st.lists(st.lists(st.sampled_from(VOCAB), min_size=1, max_size=5), min_size=30, max_size=60)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(commands, st.integers(0, 3), st.sampled_from([0.2, 0.3]))
def test_mcd_keeps_every_test_atom_in_training_and_the_atom_bound(cmds, seed, fraction):
    ds = _dataset(cmds)
    for cls in (MaxCompoundDivergence, TargetMaxCompoundDivergence):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                split = cls(test_fraction=fraction, seed=seed, **FAST_MCD).split_dataset(ds)
            except gengap.GengapError:
                continue  # no valid split of this sample: refusing is allowed, a bad split is not
        train_atoms = {a for i in split.train for a in words(ds.inputs[i])}
        assert {a for i in split.test for a in words(ds.inputs[i])} <= train_atoms
        bound = split.params.get("max_atom_divergence")
        if bound is not None and split.diagnostics.structure.atom_divergence > bound + 1e-9:  # allowed only with a warning
            assert any("no split found with atom divergence" in str(w.message) for w in caught)


@settings(max_examples=30, deadline=None)
@given(commands, st.sampled_from(["jump", "walk", "look"]))
def test_held_out_primitive_is_seen_only_alone_in_training(cmds, primitive):
    ds = _dataset(cmds + [[primitive], [primitive, "twice"]])
    split = HeldOutPrimitive(primitive=primitive).split_dataset(ds)
    for i in split.train:
        tokens = ds.inputs[i].split()
        assert primitive not in tokens or tokens == [primitive]
    for i in split.test:
        assert primitive in ds.inputs[i].split() and ds.inputs[i] != primitive


@settings(max_examples=30, deadline=None)
@given(commands, st.integers(1, 4))
def test_length_split_puts_every_longer_example_in_test(cmds, threshold):
    ds = _dataset(cmds)
    lengths = np.array([len(x.split()) for x in ds.inputs])
    if not (lengths <= threshold).any() or not (lengths > threshold).any():
        return
    split = LengthSplit(by="input", max_train_length=threshold).split_dataset(ds)
    assert (lengths[split.train] <= threshold).all()
    assert (lengths[split.test] > threshold).all()
    assert len(split.train) + len(split.test) == len(ds)


# ---------------------------------------------------------------- perturbations
@pytest.fixture(scope="module")
def mc_dataset():
    from gengap.perturb import multiple_choice_dataset

    words_ = ["red", "big", "old", "new", "tall", "warm"]
    return multiple_choice_dataset([
        {"question": f"Question {i}: which one is {w}? Pick the best option.",
         "choices": [f"alpha {i}", f"{w} thing {i}", f"gamma {i}", f"delta {i} and more"], "answer": f"{w} thing {i}"}
        for i, w in enumerate(words_ * 4)])


def _gold(ds, i):
    target = ds.targets[i]
    if "choices" in ds.metadata_columns and isinstance(target, str) and len(target) == 1 and target.isupper():
        return ds.column("choices")[i]["ABCDEFGH".index(target)]
    return target


#: Perturbations that cannot be built from a name alone, with the arguments that build one.
NEEDS_ARGUMENTS = {"template": "template:template=Answer this: {input}"}


@pytest.mark.parametrize("name", sorted(available_perturbations()))
def test_perturbation_contract(name, mc_dataset):
    built = make_perturbations([NEEDS_ARGUMENTS.get(name, name)])  # a family name gives all of its members
    assert built
    for p in built:
        a, b = p.apply(mc_dataset, seed=7), p.apply(mc_dataset, seed=7)
        assert a.inputs == b.inputs and a.targets == b.targets, "same seed, same variants"
        assert a.ids == mc_dataset.ids, "a perturbed example keeps its parent's id"
        if p.preserves_label:  # the same answer: the same target (option letter), or the same option text under a new letter
            assert all(a.targets[i] == mc_dataset.targets[i] or _gold(a, i) == _gold(mc_dataset, i) for i in range(len(a)))
        assert isinstance(p.family, str) and p.family


# ---------------------------------------------------------------- metrics
@pytest.mark.parametrize("name", sorted(METRICS))
def test_metric_contract(name):
    metric = get_metric(name)
    targets, outputs = ["4", "yes", "the cat"], ["4", "no", "The cat."]
    scores = np.asarray(metric(outputs, targets) if callable(metric) else metric.score(outputs, targets), dtype=float)
    assert scores.shape == (3,)
    assert np.isfinite(scores).all()
    same = np.asarray(metric(targets, targets) if callable(metric) else metric.score(targets, targets), dtype=float)
    assert (same >= scores).all(), "an output equal to its target scores at least as well as any other"
