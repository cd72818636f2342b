"""Importing per-example predictions from any table: columns named by the user, one file per model or a model column."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from gengap._errors import ConfigError, DataError
from gengap.imports import import_table
from gengap.store import Store


def _frame(model: str, shift: int) -> pd.DataFrame:
    rows = []
    for i in range(30):
        right = (i + shift) % 3 != 0
        rows.append({"qid": f"q{i}", "question": f"{i} + 1 = ?", "gold": str(i + 1),
                     "answer": str(i + 1) if right else "0", "correct": right, "f1": 1.0 if right else 0.25,
                     "source": "web" if i < 10 else "book", "year": 2000 + i % 5, "model_name": model})
    return pd.DataFrame(rows)


def _stored(result):
    with Store(result.store_path, read_only=True) as store:
        return store.rows(result.run_id), store.run_config(result.run_id)


def test_one_jsonl_file_per_model(tmp_path):
    for model, shift in (("small", 0), ("large", 1)):
        _frame(model, shift).drop(columns="model_name").to_json(tmp_path / f"{model}.jsonl", orient="records", lines=True)
    result = import_table([tmp_path / "small.jsonl", tmp_path / "large.jsonl"], id="qid", input="question",
                          target="gold", output="answer", scores=["correct", "f1"], out=tmp_path / "out")
    rows, config = _stored(result)
    assert sorted(rows["model"].unique()) == ["large", "small"]
    means = rows.groupby(["model", "metric"])["score"].mean()
    assert means[("small", "correct")] == pytest.approx(20 / 30)
    assert means[("large", "f1")] == pytest.approx((20 + 10 * 0.25) / 30)
    first = rows[(rows["example_id"] == "q3") & (rows["model"] == "small") & (rows["metric"] == "correct")].iloc[0]
    assert (first["input"], first["target"], first["output"], first["score"]) == ("3 + 1 = ?", "4", "0", 0.0)
    assert json.loads(first["metadata"]) == {"source": "web", "year": 2003}
    assert config["import"]["columns"]["scores"] == ["correct", "f1"]


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_a_model_column_and_a_task_column(tmp_path, suffix):
    frame = pd.concat([_frame("a", 0), _frame("b", 1), _frame("c", 2)])
    frame["task"] = ["arith" if int(q[1:]) % 2 else "count" for q in frame["qid"]]
    path = tmp_path / f"all.{suffix}"
    frame.to_csv(path, index=False) if suffix == "csv" else frame.to_parquet(path)
    result = import_table([path], id="qid", output="answer", scores=["correct"], target="gold", model="model_name",
                          task="task", metadata=["source"], out=tmp_path / "out")
    rows, _ = _stored(result)
    assert sorted(rows["split"].unique()) == ["arith", "count"]
    assert rows.groupby(["model", "split"]).size().tolist() == [15] * 6
    assert set(rows["metadata"].map(lambda m: tuple(json.loads(m)))) == {("source",)}
    expected = frame.groupby(["model_name", "task"])["correct"].mean()
    got = rows.groupby(["model", "split"])["score"].mean()
    assert got.to_numpy() == pytest.approx(expected.to_numpy())


def test_models_that_saw_different_examples(tmp_path):
    _frame("a", 0).to_json(tmp_path / "a.jsonl", orient="records", lines=True)
    _frame("b", 0).iloc[:12].to_json(tmp_path / "b.jsonl", orient="records", lines=True)
    result = import_table([tmp_path / "a.jsonl", tmp_path / "b.jsonl"], id="qid", output="answer", scores=["correct"],
                          out=tmp_path / "out")
    rows, _ = _stored(result)
    assert rows.groupby("model").size().to_dict() == {"a": 30, "b": 12}


def test_reimport_is_idempotent(tmp_path):
    _frame("a", 0).to_json(tmp_path / "a.jsonl", orient="records", lines=True)
    args = {"id": "qid", "output": "answer", "scores": ["correct"], "out": tmp_path / "out"}
    first = import_table([tmp_path / "a.jsonl"], **args)
    again = import_table([tmp_path / "a.jsonl"], **args)
    assert again.already_imported and again.run_id == first.run_id
    other = import_table([tmp_path / "a.jsonl"], **{**args, "scores": ["f1"]})
    assert not other.already_imported and other.run_id != first.run_id


def test_a_misnamed_column_is_named_with_a_suggestion(tmp_path):
    _frame("a", 0).to_json(tmp_path / "a.jsonl", orient="records", lines=True)
    with pytest.raises(DataError, match=r"a.jsonl: no column 'corect' \(given as --score\). Did you mean 'correct'\?"):
        import_table([tmp_path / "a.jsonl"], id="qid", output="answer", scores=["corect"], out=tmp_path / "out")


def test_import_table_takes_read_tables_options_and_names_a_wrong_one(tmp_path):
    _frame("a", 0).to_json(tmp_path / "a.jsonl", orient="records", lines=True)
    with pytest.raises(ConfigError, match=r"import_table: no option 'ouput'. Did you mean 'output'\?"):
        import_table([tmp_path / "a.jsonl"], id="qid", ouput="answer", scores=["correct"], out=tmp_path / "out")
    with pytest.raises(ConfigError, match="import_table: missing a required argument: 'output'"):
        import_table([tmp_path / "a.jsonl"], id="qid", scores=["correct"], out=tmp_path / "out")
    first = import_table([tmp_path / "a.jsonl"], id="qid", output="answer", scores=["correct"], out=tmp_path / "out")
    # read_table's defaults fill what was not given: naming them changes nothing, another value does
    same = import_table([tmp_path / "a.jsonl"], id="qid", output="answer", scores=["correct"], out=tmp_path / "out",
                        split_name="imported", model=None)
    other = import_table([tmp_path / "a.jsonl"], id="qid", output="answer", scores=["correct"], out=tmp_path / "out",
                         split_name="qa")
    assert same.already_imported and same.run_id == first.run_id and not other.already_imported


def test_a_score_that_is_not_a_number_names_the_row(tmp_path):
    frame = _frame("a", 0)
    frame["correct"] = frame["correct"].map({True: "right", False: "wrong"})
    frame.to_csv(tmp_path / "a.csv", index=False)
    with pytest.raises(DataError, match=r"a.csv, row 1: score column 'correct' is 'wrong', not a number"):
        import_table([tmp_path / "a.csv"], id="qid", output="answer", scores=["correct"], out=tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_duplicate_ids_name_the_rows(tmp_path):
    frame = pd.concat([_frame("a", 0), _frame("a", 0).iloc[[4]]])
    frame.to_json(tmp_path / "a.jsonl", orient="records", lines=True)
    with pytest.raises(DataError, match=r"Example 'q4' appears more than once for model 'a' .*a.jsonl row 5, .*a.jsonl row 31"):
        import_table([tmp_path / "a.jsonl"], id="qid", output="answer", scores=["correct"], out=tmp_path / "out")


def test_cli_table_import(tmp_path, cli):
    _frame("a", 0).to_json(tmp_path / "a.jsonl", orient="records", lines=True)
    code, _, err = cli("import", "table", str(tmp_path / "a.jsonl"), "--id", "qid", "--output", "answer",
                         "--score", "correct", "--target", "gold", "--out", str(tmp_path / "rep"), "--format", "json")
    assert code == 0, err
    summary = json.loads((tmp_path / "rep" / "results.json").read_text())["summary"]
    assert summary[0]["score"] == pytest.approx(20 / 30) and summary[0]["n"] == 30


def test_cli_table_analyses(tmp_path, cli):
    frame = _frame("a", 0)
    frame["log_answer"] = frame["answer"].where(frame["correct"], None)
    frame["answer"] = "The answer is " + frame["answer"]
    frame.to_json(tmp_path / "a.jsonl", orient="records", lines=True)
    code, _, err = cli("import", "table", str(tmp_path / "a.jsonl"), "--id", "qid", "--output", "answer",
                       "--extracted", "log_answer", "--score", "correct", "--target", "gold",
                       "--out", str(tmp_path / "rep"), "--format", "md", "--group", "source", "--reextract", "number")
    assert code == 0, err
    groups = pd.read_csv(tmp_path / "rep" / "analysis" / "groups_source.csv")
    assert dict(zip(groups["group"], groups["n"])) == {"web": 10, "book": 20}
    reread = pd.read_csv(tmp_path / "rep" / "analysis" / "reextract.csv").iloc[0]
    # gengap reads "0" from the wrong answers, where the log had no answer: they disagree on those 10
    assert reread["agreement"] == pytest.approx(20 / 30) and reread["gengap_score"] == pytest.approx(20 / 30)


def test_an_import_stopped_half_way_finishes_where_it_stopped(tmp_path):
    import numpy as np
    import pyarrow as pa

    from gengap.imports import ImportedPart, ModelRows, write_import

    def parts(bad: bool) -> list[ImportedPart]:
        ids = pa.array(["x", "y", "z"])
        made = []
        for split in ("t1", "t2"):
            scores = np.array(["1", "0", "oops"], dtype=object) if bad and split == "t2" else np.array([1.0, 0.0, 1.0])
            made.append(ImportedPart(split=split, method="imported", info={"method": "imported"}, example_ids=ids,
                                     inputs=pa.array(["a", "b", "c"]), targets=pa.array(["a", "b", "c"]),
                                     metadata=pa.nulls(3, pa.string()),
                                     models={"m": ModelRows(outputs=pa.array(["a", "x", "c"]), scores={"ok": scores})}))
        return made

    config = {"import": {"kind": "test"}}
    with pytest.raises(ValueError):
        write_import(tmp_path, "imp", config, parts(bad=True))  # the second task's scores cannot be stored
    with Store(tmp_path / "gengap.duckdb", read_only=True) as store:
        assert store.runs()["status"].tolist() == ["failed"]
        assert store.sql("SELECT split, count(*) AS n FROM scores GROUP BY split")["split"].tolist() == ["t1"]
    result = write_import(tmp_path, "imp", config, parts(bad=False))
    assert result.run_id == "r0001" and not result.already_imported
    with Store(result.store_path, read_only=True) as store:
        assert store.runs()["status"].tolist() == ["done"]
        counts = store.sql("SELECT split, count(*) AS n FROM scores GROUP BY split ORDER BY split")
        assert counts["n"].tolist() == [3, 3]  # every row exactly once


def test_a_confidence_column_and_corpus_metrics(tmp_path):
    """--confidence stores each row's confidence; --corpus-metric adds AUROC computed from it (equal to
    scikit-learn's); a confidence outside [0, 1] names the file and row."""
    import sklearn.metrics as skm

    from gengap.evaluation import Evaluation

    rng = np.random.default_rng(0)
    path = tmp_path / "preds.csv"
    y = rng.integers(0, 2, 200)
    p1 = np.clip(0.5 + (y - 0.5) * 0.4 + rng.normal(0, 0.2, 200), 0.01, 0.99)
    pred = (p1 > 0.5).astype(int)
    pd.DataFrame({"id": range(200), "gold": y, "pred": pred, "ok": (pred == y).astype(int),
                  "conf": np.where(pred == 1, p1, 1 - p1)}).to_csv(path, index=False)
    result = import_table([path], id="id", output="pred", target="gold", scores=["ok"], confidence="conf",
                          corpus_metrics=["auroc", "ece"], out=tmp_path / "out")
    summary = Evaluation(store_path=result.store_path, run_id=result.run_id, out=tmp_path).summary(n_resamples=1000)
    auroc = summary[summary["metric"] == "auroc"].iloc[0]
    assert auroc["score"] == pytest.approx(skm.roc_auc_score(y, p1), abs=1e-9)
    assert auroc["score_method"] == "delong-logit"
    bad = tmp_path / "bad.csv"
    pd.DataFrame({"id": [0, 1], "pred": [1, 0], "ok": [1, 1], "conf": [0.9, 85]}).to_csv(bad, index=False)
    with pytest.raises(DataError, match=r"bad.csv, row 2: confidence column 'conf' is '85.0', not a probability"):
        import_table([bad], id="id", output="pred", scores=["ok"], confidence="conf", out=tmp_path / "bad")
    with pytest.raises(ConfigError, match="'exact_match' is a per-example metric"):
        import_table([path], id="id", output="pred", scores=["ok"], corpus_metrics=["exact_match"], out=tmp_path / "x")
