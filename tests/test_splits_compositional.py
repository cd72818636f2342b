"""Compositional splitters: MCD, TMCD, held-out combinations, part counts, unobserved local structures."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import gengap
from gengap._errors import ConfigError, DataError
from gengap.dataset import Dataset
from gengap.splits import (
    HeldOutCombinations,
    MaxCompoundDivergence,
    PartCountSplit,
    TargetMaxCompoundDivergence,
    UnobservedStructureSplit,
    accuracy_by_unobserved,
    make_splitter,
    unobserved_local_structures,
)
from gengap.structure.counts import count_structure
from gengap.structure.divergence import atom_divergence, compound_divergence

VERBS = ["walk", "run", "jump", "look"]
MODS = ["left", "right", "twice", "thrice", "around left", "opposite right"]
FAST = {"n_trials": 6, "n_rebuilds": 2, "max_iterations": 10}  # a lighter search where quality is not the point


def _ds(inputs, **meta):
    frame = pd.DataFrame({"input": pd.Series(inputs, dtype=object), "target": ["-"] * len(inputs), **meta})
    return Dataset.from_frame(frame)


@pytest.fixture(scope="module")
def toy():
    """Two-part commands 'V M and V M', every combination, 576 examples."""
    phrases = [f"{v} {m}" for v in VERBS for m in MODS]
    return _ds([f"{a} and {b}" for a in phrases for b in phrases])


@pytest.fixture(scope="module")
def scan():
    from gengap.tasks.scan import scan_dataset

    return scan_dataset()


def check_partition(split, n):
    assert np.intersect1d(split.train, split.test).size == 0
    assert len(split.train) + len(split.test) == n


def recompute(ds, split, compounds="ngrams:2,3"):
    a, c = count_structure(ds, "words"), count_structure(ds, compounds, role="compounds")
    return (atom_divergence(a.totals(split.train), a.totals(split.test)),
            compound_divergence(c.totals(split.train), c.totals(split.test)))


def test_mcd_on_toy_beats_random_and_keeps_atoms(toy):
    split = MaxCompoundDivergence(test_fraction=0.2, seed=0).split_dataset(toy)
    check_partition(split, len(toy))
    d = split.diagnostics
    assert d.n_test == round(0.2 * len(toy))
    assert d.structure.n_unseen_test_atoms == 0
    assert d.structure.atom_divergence <= 0.02 + 1e-9
    da, dc = recompute(toy, split)
    assert d.structure.atom_divergence == pytest.approx(da, abs=1e-6)
    assert d.structure.compound_divergence == pytest.approx(dc, abs=1e-6)
    random = gengap.RandomSplit(test_fraction=0.2, seed=0).split_dataset(toy).diagnostics
    assert d.structure.compound_divergence > random.structure.compound_divergence + 0.2
    assert d.figures["search"]["met_atom_bound"] and d.figures["trajectory"]
    assert all({"phase", "iteration", "compound_divergence", "atom_divergence"} <= set(t) for t in d.figures["trajectory"])


def test_mcd_names_the_compounds_it_held_out(toy):
    split = MaxCompoundDivergence(seed=0, **FAST).split_dataset(toy)
    held = split.diagnostics.figures["search"]["held_out_compounds"]
    assert held, "an MCD split of the toy grammar holds some compound out whole"
    def bigrams(texts):
        return [" ".join(p) for t in texts for p in zip(t.split(), t.split()[1:])]
    test_bigrams = bigrams([toy.inputs[i] for i in split.test])
    train_bigrams = set(bigrams([toy.inputs[i] for i in split.train]))
    counts = [h["test_occurrences"] for h in held]
    assert counts == sorted(counts, reverse=True)
    for h in held:
        assert h["compound"] not in train_bigrams
        if len(h["compound"].split()) == 2:  # recounted here for the bigrams
            assert test_bigrams.count(h["compound"]) == h["test_occurrences"]


def sentences(n=3000, seed=0):
    """A second grammar, unlike SCAN: 'DET NOUN VERB DET NOUN [PREP DET NOUN] [and|because CLAUSE]'."""
    rng = np.random.default_rng(seed)
    nouns, verbs = ["cat", "dog", "girl", "boy", "cake", "box", "ball", "bird"], ["saw", "liked", "helped", "found", "gave", "painted"]

    def noun_phrase():
        return f"{['the', 'a'][rng.integers(2)]} {nouns[rng.integers(len(nouns))]}"

    def clause():
        text = f"{noun_phrase()} {verbs[rng.integers(len(verbs))]} {noun_phrase()}"
        return text + (f" {['in', 'on', 'beside'][rng.integers(3)]} {noun_phrase()}" if rng.random() < 0.4 else "")

    out: set[str] = set()
    while len(out) < n:
        out.add(clause() + (f" {['and', 'because'][rng.integers(2)]} {clause()}" if rng.random() < 0.5 else ""))
    return _ds(sorted(out))


def test_mcd_on_a_generated_grammar():
    """The search is not tuned to SCAN: on a generated grammar with other structure it still holds compounds
    out whole, meets the atom bound and lands far above a random split (0.174 vs 0.003 at seed 0)."""
    ds = sentences()
    split = MaxCompoundDivergence(test_fraction=0.2, seed=0).split_dataset(ds)
    d = split.diagnostics
    check_partition(split, len(ds))
    da, dc = recompute(ds, split)
    assert d.structure.n_unseen_test_atoms == 0 and da <= 0.02 + 1e-9
    assert d.structure.compound_divergence == pytest.approx(dc, abs=1e-6)
    random = gengap.RandomSplit(test_fraction=0.2, seed=0).split_dataset(ds).diagnostics.structure
    assert random.compound_divergence < 0.01 and dc > 0.16
    train_text = " | ".join(ds.inputs[i] for i in split.train)
    held = d.figures["search"]["held_out_compounds"]
    assert held and all(f" {h['compound']} " not in f" {train_text} " for h in held)


def test_mcd_is_reproducible_and_seeds_differ(toy):
    a = MaxCompoundDivergence(seed=3, **FAST).split_dataset(toy)
    b = MaxCompoundDivergence(seed=3, **FAST).split_dataset(toy)
    c = MaxCompoundDivergence(seed=4, **FAST).split_dataset(toy)
    assert np.array_equal(a.test, b.test)
    assert not np.array_equal(a.test, c.test)


@pytest.mark.slow
def test_mcd_on_scan_far_above_random(scan):
    split = MaxCompoundDivergence(test_fraction=0.2, seed=0).split_dataset(scan)
    d = split.diagnostics.structure
    assert d.n_unseen_test_atoms == 0 and d.atom_divergence <= 0.02 + 1e-9
    assert d.compound_divergence > 0.25  # random: ~0.0003; official around-right: ~0.24
    assert d.unseen_test_compound_share > 0.2


def test_target_divergence_series(toy):
    low = MaxCompoundDivergence(target_divergence=0.1, seed=0).split_dataset(toy).diagnostics.structure
    assert abs(low.compound_divergence - 0.1) <= 0.03
    assert low.n_unseen_test_atoms == 0


def test_unreachable_target_warns_and_returns_best(toy):
    with pytest.warns(UserWarning, match="target_divergence=0.99 was not reached"):
        split = MaxCompoundDivergence(target_divergence=0.99, seed=0, **FAST).split_dataset(toy)
    assert split.diagnostics.figures["search"]["met_target"] is False
    assert split.diagnostics.structure.n_unseen_test_atoms == 0


def test_unreachable_atom_bound_warns(toy):
    with pytest.warns(UserWarning, match="atom divergence <= 0.0"):
        split = MaxCompoundDivergence(max_atom_divergence=0.0, test_fraction=0.3, seed=0, **FAST).split_dataset(toy)
    assert split.diagnostics.figures["search"]["met_atom_bound"] is False


def test_tmcd_keeps_k_training_occurrences(toy):
    split = TargetMaxCompoundDivergence(min_train_atom_count=50, seed=0, **FAST).split_dataset(toy)
    a = count_structure(toy, "words")
    train, test = a.totals(split.train), a.totals(split.test)
    assert np.all(train[test > 0] >= 50)
    assert split.method == "tmcd" and split.card.generalisation_type == "compositional"


def test_infeasible_test_fraction_names_the_closest_setting():
    # 'e f' holds the only e and f; any 3 of the other 4 in test would leave an atom out of training
    ds = _ds(["a b", "c d", "a c", "b d", "e f"])
    with pytest.raises(ConfigError, match=r"closest feasible setting is test_fraction=0\.4000"):
        MaxCompoundDivergence(test_fraction=0.9, seed=0).split_dataset(ds)
    pinned = _ds(["a b"] * 4 + ["c d"] * 4 + ["e f", "g h"])  # 'e f' and 'g h' can never be in test
    with pytest.raises(ConfigError, match=r"only 8 of 10.*test_fraction=0\.8000"):
        MaxCompoundDivergence(test_fraction=0.9, seed=0).split_dataset(pinned)


def test_examples_without_atoms_are_named():
    ds = _ds(["a b", "", "b c", "a c"], )
    with pytest.raises(DataError, match=r"1 example\(s\).*no atoms.*\['1'\]"):
        MaxCompoundDivergence(test_fraction=0.25).split_dataset(ds)


def test_raising_extractor_names_the_example(toy):
    def fragile(text):
        if text.startswith("jump left and walk"):
            raise ValueError("unexpected token")
        return text.split()

    with pytest.raises(DataError, match="failed on example .*jump left and walk.*unexpected token"):
        MaxCompoundDivergence(compounds=fragile).split_dataset(toy)


def test_bad_parameters():
    with pytest.raises(ConfigError, match="max_atom_divergence"):
        MaxCompoundDivergence(max_atom_divergence=2)
    with pytest.raises(ConfigError, match="compounds"):
        MaxCompoundDivergence(compounds="ngramz:2")
    with pytest.raises(ConfigError, match="min_train_atom_count"):
        TargetMaxCompoundDivergence(min_train_atom_count=0)


def test_compound_weights_change_what_is_measured(toy):
    d = MaxCompoundDivergence(weight_compounds=True, seed=0, **FAST).split_dataset(toy).diagnostics
    assert "compound_divergence_unweighted" in d.figures and d.structure.n_unseen_test_atoms == 0
    assert d.structure.compounds.endswith("+weights")


def test_cli_style_construction_and_saved_fields(toy, tmp_path):
    splitter = make_splitter("mcd", options={"atoms": "words", "compounds": "ngrams:2,3", **FAST}, seed=1, test_fraction=0.2)
    assert isinstance(splitter, MaxCompoundDivergence) and splitter.seed == 1
    split = splitter.split_dataset(toy)
    split.save(tmp_path)
    info = json.loads((tmp_path / "split.json").read_text())
    for key in ("atom_divergence", "compound_divergence", "unseen_test_atoms", "n_train", "n_test", "seed", "params",
                "taxonomy", "trajectory", "unseen_test_compound_share"):
        assert key in info
    assert info["params"]["compounds"] == "ngrams:2,3" and info["taxonomy"]["generalisation_type"] == "compositional"
    assert sum(1 for _ in open(tmp_path / "test.jsonl")) == info["n_test"]


def test_cli_split_command(toy, tmp_path):
    from typer.testing import CliRunner

    from gengap.cli import app

    data = tmp_path / "toy.jsonl"
    gengap.io.write_jsonl(toy.to_records(), data)
    result = CliRunner().invoke(app, ["split", str(data), "--method", "mcd", "--test-fraction", "0.2", "--atoms", "words",
                                      "--compounds", "ngrams:2,3", "--seed", "0", "-o", "n_trials=4", "-o", "n_rebuilds=1", "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    info = json.loads((tmp_path / "out" / "split.json").read_text())
    assert info["method"] == "mcd" and info["n_unseen_test_atoms"] == 0


# ------------------------------------------------------------------ held-out combinations
def test_held_out_combination_of_atoms(toy):
    split = HeldOutCombinations(combinations=["jump&twice"]).split_dataset(toy)
    assert all("jump" in x and "twice" in x for x in split.test_part.inputs)
    assert not any(("jump" in x.split() and "twice" in x.split()) for x in split.train_part.inputs)
    assert split.diagnostics.structure.n_unseen_test_atoms == 0


def test_held_out_attribute_combinations_sampled():
    rng = np.random.default_rng(0)
    n = 400
    meta = {"modality": rng.choice(["CT", "MRI", "XR"], n), "anatomy": rng.choice(["brain", "chest", "knee"], n)}
    ds = _ds([f"case {i}" for i in range(n)], **meta)
    split = HeldOutCombinations(columns="modality,anatomy", test_fraction=0.2, seed=0).split_dataset(ds)
    combos = split.diagnostics.figures["held_out_combinations"]
    assert combos and all(len(c) == 2 and c[0].startswith("anatomy=") and c[1].startswith("modality=") for c in combos)
    for anatomy, modality in combos:  # every held-out pair is in test only
        a, m = anatomy.split("=")[1], modality.split("=")[1]
        pair = (split.dataset.column("anatomy") == a) & (split.dataset.column("modality") == m)
        assert set(np.flatnonzero(pair.to_numpy())) <= set(split.test)
    test = split.test_part.frame
    train = split.train_part.frame
    for col in ("modality", "anatomy"):
        assert set(test[col]) <= set(train[col])
    seen = set(zip(train.modality, train.anatomy))
    assert not any((m, a) in seen for m, a in zip(test.modality, test.anatomy))
    assert 0.1 <= split.diagnostics.test_fraction <= 0.3


def test_held_out_combination_that_removes_a_part_is_refused():
    ds = _ds(["a b", "a c", "b c", "d e"])
    with pytest.raises(DataError, match="no training example"):
        HeldOutCombinations(combinations=["d&e"]).split_dataset(ds)
    with pytest.raises(DataError, match="never occur"):
        HeldOutCombinations(combinations=["a&zz"]).split_dataset(ds)
    with pytest.raises(ConfigError, match="at least two parts"):
        HeldOutCombinations(combinations=["a"]).split_dataset(ds)


def test_part_count_split_from_a_list_column():
    skills = ["a", "b", "c", "a,b", "b,c", "a,c", "a,b,c", "a,b,c"]
    ds = _ds([f"q{i}" for i in range(len(skills))], skills=skills)
    split = PartCountSplit(max_train_parts=2, column="skills").split_dataset(ds)
    assert split.test.tolist() == [6, 7] and split.diagnostics.figures["test_parts_range"] == [3, 3]
    with pytest.raises(DataError, match="occur only in examples with more than 1"):
        PartCountSplit(max_train_parts=1, column="skills").split_dataset(_ds(["x", "y"], skills=["a", "a,b"]))


# ------------------------------------------------------------------ unobserved local structures
def test_flags_and_accuracy_by_flag(scan, scan_dir):
    from gengap.tasks.scan import official_split

    split = official_split("template_around_right", scan_dir, dataset=scan)
    table = unobserved_local_structures(scan, split.train, split.test)
    assert len(table) == len(split.test)
    assert table["flagged"].all()  # every test command holds 'around right'
    assert all("around right" in u for u in table["unobserved"])
    random = gengap.RandomSplit(seed=0).split_dataset(scan)
    assert not unobserved_local_structures(scan, random.train, random.test)["flagged"].any()
    scores = np.r_[np.zeros(50), np.ones(50)]
    flags = np.r_[np.ones(50, bool), np.zeros(50, bool)]
    out = accuracy_by_unobserved(scores, flags)
    assert out.set_index("group").loc["unobserved structure", "score"] == 0.0
    assert out.set_index("group").loc["all structures seen", "score"] == 1.0


def test_unobserved_structure_split_maximizes_flagged(toy):
    split = UnobservedStructureSplit(test_fraction=0.2, seed=0).split_dataset(toy)
    table = unobserved_local_structures(toy, split.train, split.test)
    assert table["flagged"].mean() == pytest.approx(split.diagnostics.figures["unobserved_share"])
    assert split.diagnostics.figures["unobserved_share"] > 0.9 and split.diagnostics.structure.n_unseen_test_atoms == 0


def test_report_plots_the_search_trajectory(toy, tmp_path):
    """An MCD split's trajectory becomes a chart and a one-line summary, not a dump of its steps."""
    lookup = dict.fromkeys(toy.inputs, "ok")
    ev = gengap.evaluate(lambda xs: [lookup[x] if i % 4 else "no" for i, x in enumerate(xs)], toy,
                         splits=[gengap.RandomSplit(test_fraction=0.2, seed=0),
                                 MaxCompoundDivergence(seed=0, **FAST)],
                         out=tmp_path / "run", progress=False)
    steps = ev.split_info()["mcd:seed=0"]["trajectory"]
    out = ev.report()
    html = (out / "index.html").read_text(encoding="utf-8")
    md = (out / "report.md").read_text(encoding="utf-8")
    assert html.count('id="trajectory-') == 1 and 'id="trajectory-mcd-seed-0"' in html
    line = next(line for line in md.splitlines() if line.startswith("| Search trajectory |"))
    assert f"{len(steps):,} steps" in line and f"{steps[-1]['compound_divergence']:.4g}" in line
    assert "phase=" not in md and "phase=" not in html


def test_search_steps_back_under_the_atom_bound(toy):
    """A search that ends just over the D_A bound swaps its way back under it, keeping the size and atoms."""
    from gengap.splits.divergence import DivergenceSearch, structure_counts

    a, c = structure_counts(toy, "words", "ngrams:2,3")
    free = MaxCompoundDivergence(max_atom_divergence=None, seed=0, **FAST).split_dataset(toy).diagnostics.structure
    bound = 0.8 * free.atom_divergence
    search = DivergenceSearch(a.matrix, c.matrix, len(toy) // 5, max_atom_divergence=bound, min_train_atom_count=1,
                              target=None, rng=np.random.default_rng(0))
    in_test = np.zeros(len(toy), dtype=bool)
    in_test[MaxCompoundDivergence(max_atom_divergence=None, seed=0, **FAST).split_dataset(toy).test] = True
    trajectory: list = []
    final, dc, da = search._into_bound(in_test, trajectory)
    assert final.sum() == len(toy) // 5 and da <= bound + 1e-12 and search.penalty == 10.0
    assert atom_divergence(a.totals(np.flatnonzero(~final)), a.totals(np.flatnonzero(final))) == pytest.approx(da, abs=1e-9)
    assert len(search.violated_atoms(final)) == 0 and trajectory[-1]["phase"] == "into_bound"
    assert dc > 0.7 * free.compound_divergence
