"""Atoms and compounds: extractors, spec strings, sparse counts, structural diagnostics."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import gengap
from gengap._errors import ConfigError, DataError
from gengap.dataset import Dataset
from gengap.structure.atoms import atom_set, length, make_extractor, ngrams, parse_tree, tree_atoms, tree_compounds, words
from gengap.structure.counts import count_structure, split_structure


def _ds(inputs, **meta):
    frame = pd.DataFrame({"input": pd.Series(inputs, dtype=object), "target": ["-"] * len(inputs), **meta})
    return Dataset.from_frame(frame)


def test_words_length_atom_set_still_work():
    assert words({"a": "x y", "b": "z"}) == ["x", "y", "z"]
    assert length(["a", "b", "c"]) == 3
    assert atom_set(["a b", "b c"]) == {"a", "b", "c"}


def test_ngrams_keep_repeats_and_lengths():
    assert ngrams("a b a b", n=2) == ["a b", "b a", "a b"]
    assert ngrams("a b", n=(2, 3)) == ["a b"]
    assert make_extractor("ngrams:1,3").fn("a b c") == ["a", "b", "c", "a b c"]


def test_tree_parsing_both_bracket_styles():
    assert parse_tree("(S (NP a) (VP b))") == parse_tree("[S [NP a] [VP b]]") == ("S", ("NP", "a"), ("VP", "b"))
    assert tree_atoms("(S (NP a) b)") == ["S", "NP", "a", "b"]
    assert tree_compounds(("S", ("NP", "a"), "b")) == ["S>NP", "S>b", "NP>a", "S(NP b)"]


@pytest.mark.parametrize("bad", ["(S (NP a)", "(S a))", "(S a) (T b)", "a (S b)", "(  )"])
def test_bad_trees_say_what_is_wrong(bad):
    with pytest.raises(DataError, match="[Tt]ree"):
        parse_tree(bad)


def test_attribute_atoms_and_combinations():
    ds = _ds(["x", "y"], modality=["CT", "MRI"], anatomy=["brain", "chest"], task=["seg", "cls"])
    atoms = count_structure(ds, "attributes:modality,anatomy", role="atoms")
    assert sorted(atoms.types) == ["anatomy=brain", "anatomy=chest", "modality=CT", "modality=MRI"]
    comps = list(make_extractor("attributes:modality,anatomy,task", role="compounds").per_example(ds))
    assert comps[0] == ["modality=CT&anatomy=brain", "modality=CT&task=seg", "anatomy=brain&task=seg",
                        "modality=CT&anatomy=brain&task=seg"]
    with pytest.raises(ConfigError, match="no metadata column 'modalty'.*modality"):
        count_structure(ds, "attributes:modalty")


def test_spec_errors_name_the_problem():
    with pytest.raises(ConfigError, match="ngrams"):
        make_extractor("ngram:2")
    with pytest.raises(ConfigError, match="integers"):
        make_extractor("ngrams:two")
    with pytest.raises(ConfigError, match="two columns"):
        make_extractor("attributes:a", role="compounds")


def test_callable_that_raises_names_the_example():
    ds = _ds(["fine", "boom here"])

    def fragile(text):
        if "boom" in text:
            raise RuntimeError("cannot parse")
        return text.split()

    with pytest.raises(DataError, match="example '1'.*boom here.*cannot parse"):
        count_structure(ds, fragile)
    with pytest.raises(DataError, match="list of strings"):
        count_structure(ds, lambda text: text)


def test_counts_are_sparse_and_count_repeats():
    ds = _ds(["a b a", "b c", ""])
    c = count_structure(ds, "words")
    assert c.matrix.format == "csr"
    dense = pd.DataFrame(c.matrix.toarray(), columns=c.types)
    assert dense["a"].tolist() == [2, 0, 0] and dense["c"].tolist() == [0, 1, 0]
    assert c.totals(np.array([0, 1])).tolist() == [2, 2, 1]


def test_counts_match_a_counter_on_scan_commands():
    from collections import Counter

    from gengap.tasks.scan import scan_dataset

    ds = scan_dataset().take(np.arange(0, 20910, 7))
    c = count_structure(ds, "ngrams:2,3", role="compounds")
    expected = Counter(g for x in ds.inputs for g in ngrams(x, (2, 3)))
    got = dict(zip(c.types, c.totals()))
    assert got == expected


def test_split_structure_on_a_hand_made_split():
    ds = _ds(["walk left", "jump", "jump left", "walk twice"])
    d = split_structure(ds, np.array([0, 1]), np.array([2, 3]), compounds="ngrams:2")
    assert d["unseen_test_atoms"] == ["twice"] and d["n_unseen_test_atoms"] == 1
    assert d["compound_divergence"] == 1.0 and d["unseen_test_compound_share"] == 1.0
    # D_A: train {walk:1, left:1, jump:1}, test {jump:1, left:1, walk:1, twice:1}
    expected = 1 - 3 * np.sqrt(1 / 3 * 1 / 4)
    assert d["atom_divergence"] == pytest.approx(expected, abs=1e-6)


def test_every_split_reports_divergences():
    ds = gengap.load([{"input": f"w{i % 7} w{i % 5}", "target": "t"} for i in range(60)])
    split = gengap.RandomSplit(test_fraction=0.25, seed=1).split_dataset(ds)
    for key in ("atom_divergence", "compound_divergence", "unseen_test_compound_share", "n_unseen_test_atoms"):
        assert key in split.diagnostics.to_dict()
    assert 0 <= split.diagnostics.structure.compound_divergence <= 1
