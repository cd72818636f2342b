"""Distance to training: each test row's similarity to its nearest train example (analysis/similarity.py),
stored per row by evaluate and usable as a curve axis and in the slice search."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics.pairwise import cosine_similarity

import gengap
from gengap._errors import ConfigError, DataError
from gengap.analysis.similarity import nearest_train, nearest_train_similarity


def _texts(n: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(400)]
    return [" ".join(rng.choice(words, rng.integers(3, 9))) for _ in range(n)]


def test_tfidf_similarity_is_scikit_learns_cosine_on_the_same_vectors():
    train, test = _texts(300, 0), _texts(50, 1) + ["w1 w2 w3", ""]
    vec = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, max_df=0.5, token_pattern=r"(?u)\b\w+\b")
    a = vec.fit_transform(train)
    expected = cosine_similarity(vec.transform(test), a).max(axis=1)
    assert nearest_train_similarity(train, test) == pytest.approx(expected, abs=1e-5)


def test_a_test_row_repeated_from_training_has_similarity_one_and_unrelated_text_zero():
    train = _texts(100, 2)
    sims = nearest_train_similarity(train, [train[5], "entirely different vocabulary"])
    assert sims[0] == pytest.approx(1.0, abs=1e-5) and sims[1] == 0.0


def test_the_approximate_search_reports_its_recall_against_the_exact_one():
    train, test = _texts(3000, 3), _texts(400, 4)
    exact = nearest_train(train, test, exact=True)
    approx = nearest_train(train, test, exact=False)
    assert approx.recall is not None and 0 <= approx.recall <= 1 and approx.n_checked == 300
    assert (approx.similarity <= exact.similarity + 1e-5).all()  # it can miss the nearest, never overshoot
    assert "found the exact nearest train example for" in approx.note()
    assert exact.recall is None and "exact" in exact.note()


def test_embeddings_given_or_computed_and_a_wrong_width_is_one_clear_error():
    sims = nearest_train(["a", "b"], ["c"], train_vectors=[[1, 0], [0, 1]], test_vectors=[[1, 1]]).similarity
    assert sims == pytest.approx([np.sqrt(0.5)])
    with pytest.raises(DataError, match="the train part's vectors have 2 numbers, row 0 has 3"):
        nearest_train(["a", "b"], ["c"], train_vectors=[[1, 0], [0, 1]], test_vectors=[[1, 1, 1]])
    with pytest.raises(DataError, match="one vector per input"):
        nearest_train(["a", "b"], ["c"], embed=lambda texts: np.ones(3))
    with pytest.raises(ConfigError, match="both parts"):
        nearest_train(["a"], ["b"], train_vectors=[[1.0]])


def _dataset(n: int = 400, width: int = 4, bad_row: int | None = None):
    rng = np.random.default_rng(0)
    records = []
    for i in range(n):
        emb = rng.normal(size=width if i != bad_row else width + 1).round(3).tolist()
        records.append({"input": f"item {i % 40} colour {'red' if i % 2 else 'blue'}", "target": "x", "emb": emb,
                        "site": "ab"[i % 2]})
    return gengap.load(records)


def test_evaluate_stores_train_similarity_per_row_and_curves_and_slices_read_it(tmp_path):
    ev = gengap.evaluate(lambda xs: ["x" if "red" in x else "y" for x in xs], _dataset(), out=tmp_path,
                         progress=False, train_similarity=True)
    rows = ev.rows()
    sims = [json.loads(m)["train_similarity"] for m in rows["metadata"]]
    assert all(0.0 <= s <= 1.0 for s in sims) and max(sims) == pytest.approx(1.0, abs=1e-5)
    assert "exact nearest neighbour" in ev.split_info()["random"]["train_similarity"]
    curve = ev.curve("train_similarity")
    assert curve.axis == "train_similarity"
    table = ev.slices()
    assert "train_similarity" in table.attrs["searches"][0]["columns"] or "train_similarity" in table.attrs["searches"][0]["skipped"]


def test_an_embeddings_column_is_used_and_its_wrong_width_names_the_split_and_column(tmp_path):
    ev = gengap.evaluate(lambda xs: xs, _dataset(), out=tmp_path / "a", progress=False, train_similarity="emb")
    sims = [json.loads(m)["train_similarity"] for m in ev.rows()["metadata"]]
    assert all(-1.0 <= s <= 1.0 for s in sims)
    with pytest.raises(DataError, match="Split 'random', embeddings column 'emb'.*one width"):
        gengap.evaluate(lambda xs: xs, _dataset(bad_row=3), out=tmp_path / "b", progress=False, train_similarity="emb")
    with pytest.raises(ConfigError, match="Did you mean 'emb'"):
        gengap.evaluate(lambda xs: xs, _dataset(), out=tmp_path / "c", progress=False, train_similarity="embb")


def test_curve_train_similarity_on_the_command_line_turns_it_on(tmp_path, cli):
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"q": f"item {i % 50} of {i % 7}", "a": str(i % 3)}) + "\n" for i in range(300)),
                    encoding="utf-8")
    (tmp_path / "simmodel_curve.py").write_text("def predict(batch):\n    return ['0' for _ in batch]\n", encoding="utf-8")
    code, out, err = cli("eval", "--data", str(data), "--input", "q", "--target", "a", "--model", "simmodel_curve:predict",
                         "--out", "out", "--curve", "train_similarity", "--no-progress")
    assert code == 0, err
    doc = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert [c["axis"] for c in doc["curves"]] == ["train_similarity"]
