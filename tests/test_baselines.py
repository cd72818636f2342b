"""Shortcut baselines (learners/baselines.py): trained on each split's train part with only part of the
input, scored beside the model on every split, and named in the report when they reach most of its score."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline

import gengap
from gengap._errors import ConfigError
from gengap.learners.baselines import make_baseline


def _records(n: int = 600) -> list[dict]:
    """NLI-like: the label can be read off the hypothesis alone (a shortcut word), the premise is noise."""
    rng = np.random.default_rng(0)
    out = []
    for i in range(n):
        label = ["entailment", "contradiction", "neutral"][i % 3]
        cue = {"entailment": "someone", "contradiction": "nobody", "neutral": "maybe"}[label]
        if rng.random() < 0.15:  # the shortcut does not always hold
            cue = rng.choice(["someone", "nobody", "maybe"])
        out.append({"input": {"premise": f"a scene {rng.integers(1000)} outdoors", "hypothesis": f"{cue} walks {i % 7}"},
                    "target": label, "genre": ["fiction", "travel"][i % 2]})
    return out


def _model(batch):
    """A 'model' that reads both fields and is right 90% of the time."""
    out = []
    for i, x in enumerate(batch):
        word = x["hypothesis"].split()[0]
        guess = {"someone": "entailment", "nobody": "contradiction", "maybe": "neutral"}[word]
        out.append(guess if i % 10 else "neutral")
    return out


def test_baselines_score_beside_the_model_and_the_report_names_the_shortcut(tmp_path):
    ds = gengap.load(_records())
    ev = gengap.evaluate(_model, ds, ["random"], out=tmp_path, progress=False,
                         baselines=["majority", "length", "partial:fields=hypothesis", "partial:fields=genre"])
    summary = ev.summary().set_index("model")
    assert set(summary.index) == {"_model", "baseline:majority", "baseline:length", "baseline:partial(hypothesis)",
                                  "baseline:partial(genre)"}
    assert summary.loc["baseline:majority", "score"] < 0.45
    hyp = summary.loc["baseline:partial(hypothesis)"]
    assert hyp["score"] > 0.75 and hyp["score_low"] < hyp["score"] < hyp["score_high"]
    ev.report()
    doc = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    findings = {f["baseline"]: f for f in doc["sections"]["baselines"]["findings"]}
    assert findings["baseline:partial(hypothesis)"]["most"] and not findings["baseline:partial(genre)"]["most"]
    md = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "## Shortcut baselines" in md and "from that part of the input alone" in md


def test_a_partial_baseline_scores_what_scikit_learn_scores_on_the_same_train_part(tmp_path):
    ds = gengap.load(_records())
    ev = gengap.evaluate(_model, ds, ["random"], out=tmp_path, progress=False, baselines=["partial:fields=hypothesis"])
    split = gengap.splits.make_splitter("random").split_datasets(ds)[0]
    pipe = Pipeline([("tfidf", TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, token_pattern=r"(?u)\b\w+\b")),
                     ("lr", LogisticRegression(max_iter=1000))])
    pipe.fit([x["hypothesis"] for x in split.train_part.inputs], split.train_part.targets)
    expected = np.mean(pipe.predict([x["hypothesis"] for x in split.test_part.inputs]) == np.array(split.test_part.targets))
    got = ev.summary().set_index("model").loc["baseline:partial(hypothesis)", "score"]
    assert got == pytest.approx(expected)


def test_any_scikit_learn_estimator_and_bad_specs_are_one_clear_error():
    ds = gengap.load(_records(60))
    nb = make_baseline("partial:fields=hypothesis,estimator=sklearn.naive_bayes:MultinomialNB", ds)
    assert type(nb.estimator.steps[-1][1]).__name__ == "MultinomialNB"
    with pytest.raises(ConfigError, match="no field 'hypotesis'. Did you mean 'hypothesis'"):
        make_baseline("partial:fields=hypotesis", ds)
    with pytest.raises(ConfigError, match="Unknown baseline 'majorty'. Did you mean 'majority'"):
        make_baseline("majorty", ds)
    with pytest.raises(ConfigError, match="cannot read it"):
        make_baseline("partial:fields=target", ds)
    with pytest.raises(ConfigError, match="needs the fields"):
        make_baseline("partial", ds)
    with pytest.raises(ConfigError, match="cannot import estimator"):
        make_baseline("partial:fields=hypothesis,estimator=sklearn.nothing:Here", ds)


def test_baseline_on_the_command_line_and_a_wrong_field_names_the_fix(tmp_path, cli):
    data = tmp_path / "d.jsonl"
    records = [{"question": r["input"]["hypothesis"], "label": r["target"], "genre": r["genre"]} for r in _records(300)]
    data.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    (tmp_path / "basemodel_cli.py").write_text("def predict(batch):\n    return ['neutral' for _ in batch]\n", encoding="utf-8")
    args = ["eval", "--data", str(data), "--input", "question", "--target", "label", "--model", "basemodel_cli:predict",
            "--out", "out", "--no-progress"]
    code, out, err = cli(*args, "--baseline", "majority", "--baseline", "partial:fields=genre")
    assert code == 0, err
    assert "baseline:majority" in out and "baseline:partial(genre)" in out
    code, out, err = cli(*args, "--out", "out2", "--baseline", "partial:fields=genra")
    assert code == 1 and "no field 'genra'. Did you mean 'genre'?" in err and "Traceback" not in err
    doc = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert any(r["model"] == "baseline:majority" for r in doc["summary"])
