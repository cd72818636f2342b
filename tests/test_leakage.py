"""The leakage audit: copies of training examples in test parts, corpus overlap, and the CLI around them.

Real data paths throughout: real splits of real datasets, real corpus files on disk (text, JSONL,
gzip, binary), a real run in a DuckDB store, and the report files it writes.
"""

from __future__ import annotations

import gzip
import json
import random
import uuid
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from sklearn.metrics import jaccard_score
from sklearn.preprocessing import MultiLabelBinarizer

import gengap
from gengap._errors import ConfigError, DataError
from gengap.analysis._copies import find_copies, normalize, shingle_sets
from gengap.analysis._ngrams import ngram_overlap, read_corpus
from gengap.analysis.leakage import audit_leakage, example_texts, leakage_scores
from gengap.splits import AllRows, RandomSplit


def _words(rng: random.Random, n: int) -> str:
    return " ".join(f"w{rng.randrange(2000)}" for _ in range(n))


# ---------------------------------------------------------------------------- the kinds of copy
def test_normalization_is_the_stated_one_and_keeps_numbers_apart():
    assert normalize("Ｔｈｅ  CAT,\n\tsat…") == "the cat sat"  # NFKC, case, punctuation, whitespace and line breaks
    assert normalize("STRASSE") == normalize("straße")  # case-folding, not lower()
    assert normalize("3.5 + 2") != normalize("35 + 2")  # punctuation becomes a space: numbers stay apart
    assert normalize("2+3") != normalize("2-3")  # symbols are not punctuation


def test_each_kind_is_found_and_listed_under_the_strictest():
    rng = random.Random(0)
    train = [_words(rng, 20) for _ in range(200)]
    changed = train[2].split()
    changed[5] = "brandnew"
    test = [train[0], train[1].upper().replace(" ", "\n", 3) + "!", " ".join(changed), _words(rng, 20), ""]
    found = find_copies(train, test)
    assert found[["test", "kind", "train"]].values.tolist() == [[0, "exact", 0], [1, "normalized", 1], [2, "near", 2]]
    assert found["similarity"].iloc[:2].tolist() == [1.0, 1.0]
    exact_only = find_copies(train, test, near=False)
    assert exact_only["kind"].tolist() == ["exact", "normalized"]


def test_near_similarity_is_the_exact_jaccard_that_scikit_learn_computes():
    rng = random.Random(1)
    train = [_words(rng, 30) for _ in range(300)]
    test = []
    for i in range(40):
        w = train[i].split()
        for j in rng.sample(range(30), 3):
            w[j] = f"new{i}_{j}"
        test.append(" ".join(w))
    found = find_copies(train, test)
    assert len(found) >= 36 and set(found["kind"]) == {"near"}  # 10% of the words changed
    for r in found.itertuples():
        ta, tb = normalize(test[r.test]).split(), normalize(train[r.train]).split()  # shingles of the normalized text
        a, b = set(zip(ta, ta[1:])), set(zip(tb, tb[1:]))
        binary = MultiLabelBinarizer().fit_transform([sorted(a), sorted(b)])
        assert r.similarity == pytest.approx(jaccard_score(binary[0], binary[1]), abs=1e-6)
        assert r.train == r.test  # the copy's own source is its closest match


def test_unrelated_texts_are_not_near_copies():
    rng = random.Random(2)
    train = [_words(rng, 25) for _ in range(2000)]
    test = [_words(rng, 25) for _ in range(500)]
    assert find_copies(train, test).empty


def test_shingle_sets_of_short_texts_are_empty():
    assert shingle_sets(["one", "", "two words"]).sizes.tolist() == [0, 0, 1]


# ---------------------------------------------------------------------------- corpus overlap, streamed
def test_ngram_overlap_reads_text_jsonl_and_gzip(tmp_path):
    sentence = "the quick brown fox jumps over the lazy dog near the river bank today"
    (tmp_path / "c.txt").write_text("unrelated line\n" + sentence.upper() + "\n", encoding="utf-8")
    with gzip.open(tmp_path / "c.jsonl.gz", "wt", encoding="utf-8") as f:
        f.write(json.dumps({"text": "nothing"}) + "\n" + json.dumps({"text": sentence}) + "\n")
    test = [normalize(sentence + " and more"), normalize("a b c d e f g h i j k l m n")]
    for name in ("c.txt", "c.jsonl.gz"):
        found = ngram_overlap(test, [tmp_path / name], n=13)
        assert found["test"].tolist() == [0]
        assert found["match_id"].iloc[0] == f"{tmp_path / name}:2"
        assert found["similarity"].iloc[0] == pytest.approx(2 / 4)  # 2 of its 4 13-grams are in the corpus


def test_a_corpus_is_streamed_in_chunks_with_the_same_result(tmp_path):
    rng = random.Random(3)
    lines = [_words(rng, 15) for _ in range(3000)]
    (tmp_path / "big.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    test = [normalize(lines[i]) for i in (5, 2500)] + [normalize(_words(rng, 15))]
    small = ngram_overlap(test, [tmp_path / "big.txt"], n=13, chunk_lines=7)
    whole = ngram_overlap(test, [tmp_path / "big.txt"], n=13)
    assert small.equals(whole) and small["test"].tolist() == [0, 1]
    assert small["match_id"].str.rsplit(":", n=1).str[1].tolist() == ["6", "2501"]


@pytest.mark.parametrize("content, words", [
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not UTF-8 text"),
    (b"text then\x00\x01 binary", "is not text: line 1 holds a NUL byte"),
    (b"caf\xe9 latin-1 bytes\n", "not UTF-8 text"),
])
def test_a_corpus_that_is_not_text_is_one_clear_error(tmp_path, content, words):
    path = tmp_path / "corpus.bin"
    path.write_bytes(content)
    with pytest.raises(DataError, match=words) as err:
        list(read_corpus(path))
    assert str(path) in str(err.value)


def test_a_jsonl_corpus_line_without_text_names_the_line(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "ok"}\n{"body": "no text field"}\n', encoding="utf-8")
    with pytest.raises(DataError, match="line 2: no text field 'text'"):
        list(read_corpus(path))


# ---------------------------------------------------------------------------- the audit over splits
def _dataset(n: int = 200, copies: int = 20) -> gengap.Dataset:
    rng = random.Random(4)
    records = [{"id": f"x{i}", "input": _words(rng, 12), "target": str(i % 7)} for i in range(n)]
    records += [{"id": f"copy{i}", "input": records[i]["input"].upper() + "?", "target": records[i]["target"]}
                for i in range(copies)]
    return gengap.load(records)


def test_audit_flags_copies_on_opposite_sides_only():
    ds = _dataset()
    split = RandomSplit(test_fraction=0.3, seed=0).split_dataset(ds)
    audit = audit_leakage(ds, [split])
    side = {ds.ids[i]: "test" for i in split.test} | {ds.ids[i]: "train" for i in split.train}
    expected = sorted(f"copy{i}" if side[f"copy{i}"] == "test" else f"x{i}" for i in range(20)
                      if side[f"copy{i}"] != side[f"x{i}"])
    assert sorted(audit.leaks["id"]) == expected
    row = audit.table.iloc[0]
    assert row["normalized"] == len(expected) == row["flagged"] and row["n_test"] == len(split.test)
    assert set(audit.leaks["kind"]) == {"normalized"}


def test_input_plus_target_tells_apart_same_questions_with_other_answers():
    ds = gengap.load([{"id": str(i), "input": f"what is item {i} made of", "target": "wood"} for i in range(30)]
                     + [{"id": "dup", "input": "what is item 3 made of", "target": "stone"}])
    assert example_texts(ds, "input+target")[30] == "what is item 3 made of\nstone"
    split = next(s for s in (RandomSplit(test_fraction=5, seed=k).split_dataset(ds) for k in range(100))
                 if (3 in s.test) != (30 in s.test))  # the two on opposite sides
    on_input = audit_leakage(ds, [split], near=False)
    on_both = audit_leakage(ds, [split], on="input+target", near=False)
    assert len(on_input.leaks) == 1 and on_both.leaks.empty


def test_empty_and_one_word_inputs_are_said_and_kept():
    ds = gengap.load([{"input": "", "target": "a"}, {"input": "   ", "target": "a"}, {"input": "hello", "target": "b"},
                      {"input": "Hello!", "target": "b"}] + [{"input": f"some longer text {i}", "target": "c"} for i in range(16)])
    split = RandomSplit(test_fraction=0.5, seed=0).split_dataset(ds)
    with pytest.warns(UserWarning) as caught:
        audit = audit_leakage(ds, [split])
    notes = " ".join(audit.notes)
    assert "2 example(s) have an empty input" in notes and "fewer than 10 words (2 of one word" in notes
    assert {str(w.message) for w in caught} >= set(audit.notes)
    assert audit.table.iloc[0]["n_test"] == len(split.test)  # nothing dropped from the counts
    assert not set(audit.leaks["id"]) & {"0", "1"}  # empty texts copy nothing


def test_every_input_empty_is_an_error():
    ds = gengap.load([{"input": "", "target": "a"}, {"input": "?!", "target": "b"}, {"input": "", "target": "c"}])
    with pytest.raises(DataError, match="Every input .* is empty"):
        audit_leakage(ds, [RandomSplit(test_fraction=1, seed=0).split_dataset(ds)])


def test_a_split_without_train_part_needs_a_corpus(tmp_path):
    ds = _dataset(40, 0)
    every = AllRows().split_dataset(ds)
    with pytest.raises(DataError, match="no train part.*--corpus"):
        audit_leakage(ds, [every])
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(ds.inputs[7] + " and then some\n", encoding="utf-8")
    with pytest.warns(UserWarning, match="has no train part"):
        audit = audit_leakage(ds, [every], corpus=[corpus], ngram=8)
    assert audit.leaks[["id", "kind", "match_id"]].values.tolist() == [["x7", "ngram", f"{corpus}:1"]]


def test_bad_options_are_config_errors():
    ds = _dataset(20, 0)
    split = RandomSplit(seed=0).split_dataset(ds)
    for options in ({"threshold": 0}, {"threshold": 1.5}, {"ngram": 0}, {"on": "target"}):
        with pytest.raises(ConfigError):
            audit_leakage(ds, [split], **options)


def test_the_same_data_gives_the_same_audit():
    ds = _dataset()
    splits = RandomSplit(test_fraction=0.3, seed=1).split_datasets(ds)
    a, b = audit_leakage(ds, splits), audit_leakage(ds, splits)
    assert a.leaks.equals(b.leaks) and a.table.equals(b.table)


# ---------------------------------------------------------------------------- scores on clean and flagged parts
def test_clean_and_flagged_scores_agree_with_scipy():
    rng = np.random.default_rng(0)
    scores = np.r_[rng.random(80) < 0.6, rng.random(20) < 0.95].astype(float)
    rows = pd.DataFrame({"model": "m", "split": "random", "perturbation": "none", "metric": "exact_match",
                         "example_id": [f"e{i}" for i in range(100)], "score": scores})
    leaks = pd.DataFrame({"id": [f"e{i}" for i in range(80, 100)], "split": "random", "kind": "exact"})
    r = leakage_scores(rows, leaks).iloc[0]
    assert (r.n_clean, r.n_flagged) == (80, 20)
    assert r.clean == pytest.approx(scores[:80].mean()) and r.flagged == pytest.approx(scores[80:].mean())
    k1, k2 = int(scores[:80].sum()), int(scores[80:].sum())
    assert r.p_value == pytest.approx(scipy.stats.fisher_exact([[k1, 80 - k1], [k2, 20 - k2]]).pvalue)
    cp = scipy.stats.binomtest(k1, 80).proportion_ci(method="exact")
    assert (r.clean_low, r.clean_high) == pytest.approx((cp.low, cp.high))
    assert r.test == "fisher-exact" and r.difference_low < r.difference < r.difference_high


# ---------------------------------------------------------------------------- the command
def _write_data(folder: Path) -> Path:
    rng = random.Random(5)
    records = []
    for i in range(240):
        q = _words(rng, rng.randrange(6, 14))
        records.append({"qid": f"q{i}", "question": q, "answer": q.split()[0]})
    for i in range(0, 60, 2):
        records.append({"qid": f"c{i}", "question": records[i]["question"].upper() + " <script>x</script>",
                        "answer": records[i]["answer"]})
    path = folder / "data.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_leakage_on_data_and_splits_writes_leaked_jsonl(tmp_path, cli):
    data = _write_data(tmp_path)
    code, out, err = cli("leakage", "--data", str(data), "--input", "question", "--target", "answer", "--id", "qid",
                         "--split", "random", "--split", "length:by=input", "--out", "audit")
    assert code == 0, err
    lines = [json.loads(x) for x in (tmp_path / "audit" / "leaked.jsonl").read_text().splitlines()]
    assert lines and set(lines[0]) == {"id", "split", "kind", "match_id", "similarity"}
    assert {x["kind"] for x in lines} <= {"exact", "normalized", "near"}
    assert "random" in out and "share %" in out and "Normalized: Unicode NFKC" in out
    summary = json.loads((tmp_path / "audit" / "leakage.json").read_text())
    assert sum(r["flagged"] for r in summary["splits"]) == len(lines)


def test_leakage_on_a_finished_run_scores_clean_and_flagged_parts(tmp_path, cli):
    import jsonschema

    from gengap.report import results_schema

    data = _write_data(tmp_path)
    name = f"leakmodel_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{name}.py").write_text("def predict(batch):\n    return [q.split()[0] for q in batch]\n")
    code, _, err = cli("eval", "--data", str(data), "--input", "question", "--target", "answer", "--id", "qid",
                       "--model", f"{name}:predict", "--split", "random", "--out", "run", "--no-progress")
    assert code == 0, err
    code, out, err = cli("leakage", "run")
    assert code == 0, err
    assert "Score on the clean and flagged test examples" in out and "fisher-exact" in out
    doc = json.loads((tmp_path / "run" / "results.json").read_text())
    jsonschema.validate(doc, results_schema())
    section = doc["sections"]["leakage"]
    assert section["splits"][0]["flagged"] == len((tmp_path / "run" / "leaked.jsonl").read_text().splitlines()) > 0
    assert section["scores"][0]["n_clean"] + section["scores"][0]["n_flagged"] == section["splits"][0]["n_test"]
    html = (tmp_path / "run" / "index.html").read_text()
    assert "Closest pairs" in html and "<script>x</script>" not in html and "&lt;script&gt;x&lt;/script&gt;" in html
    code, out2, _ = cli("leakage", "run")  # a second audit replaces the first
    with gengap.store.Store(tmp_path / "run" / "gengap.duckdb", read_only=True) as store:
        info, leaks = store.leakage(store.latest_run())
    assert len(leaks) == section["splits"][0]["flagged"]
    (tmp_path / "bad.bin").write_bytes(b"\x00binary")  # a failed audit loses nothing: store, jsonl and report stay
    before = {name: (tmp_path / "run" / name).read_bytes() for name in ("leaked.jsonl", "results.json")}
    code, _, err = cli("leakage", "run", "--corpus", "bad.bin")
    assert code == 1 and "bad.bin' is not text" in err
    assert {name: (tmp_path / "run" / name).read_bytes() for name in before} == before
    with gengap.store.Store(tmp_path / "run" / "gengap.duckdb", read_only=True) as store:
        assert store.leakage(store.latest_run())[1].equals(leaks)


def test_leakage_command_mistakes_are_one_paragraph(tmp_path, cli):
    data = _write_data(tmp_path)
    (tmp_path / "corpus.bin").write_bytes(b"\x00\x01\x02binary")
    code, _, err = cli("leakage", "--data", str(data), "--input", "question", "--target", "answer", "--id", "qid",
                       "--corpus", "corpus.bin", "--out", "a")
    assert code == 1 and err.startswith("error: ") and "corpus.bin' is not text" in err and "Traceback" not in err
    code, _, err = cli("leakage", "--data", str(data), "--input", "question", "--target", "answer", "--id", "qid",
                       "--split", "all", "--out", "b")
    assert code == 1 and "no train part" in err and "--corpus" in err
    code, _, err = cli("leakage", "--out", "c")
    assert code == 1 and "Give either a finished run's folder" in err
    assert not (tmp_path / "a" / "leaked.jsonl").exists() and not (tmp_path / "b" / "leaked.jsonl").exists()
