"""scikit-learn models: learners fitted per split, fitted pipelines as they are, and safe loading of files."""

from __future__ import annotations

import json
import os
import pickle

import numpy as np
import pytest
import skops.io as sio
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

import gengap
from gengap import ConfigError
from gengap.models.sklearn_file import is_allowed_type, load_estimator_file

WORDS = {"A": "alpha", "B": "bravo", "C": "charlie"}


def _records() -> list[dict[str, str]]:
    """Texts whose label is the keyword they contain; every 'charlie' text is long, the others short,
    so a length split by input keeps class C out of training entirely."""
    rng = np.random.default_rng(0)
    filler = ["red", "blue", "green", "gold", "gray", "pink"]
    records = []
    for i in range(150):
        label = "ABC"[i % 3]
        n = int(rng.integers(9, 13)) if label == "C" else int(rng.integers(2, 6))
        words = [WORDS[label]] + [filler[j] for j in rng.integers(0, len(filler), n)]
        records.append({"text": " ".join(words), "label": label, "uid": f"ex{i:03d}"})
    return records


def _pipeline() -> object:
    return make_pipeline(TfidfVectorizer(), LogisticRegression(max_iter=200))


def test_unfitted_pipeline_is_a_learner_fitted_on_each_split(tmp_path):
    ds = gengap.load(_records(), input="text", target="label", id="uid")
    learner = _pipeline()
    model = gengap.as_model(learner)
    assert model.needs_fit and model.name == "Pipeline(TfidfVectorizer>LogisticRegression)"
    ev = gengap.evaluate(learner, ds, ["random", "length:by=input,max_train_length=7"], out=tmp_path, progress=False)
    rows = ev.rows()
    iid, length = rows[rows["split"] == "random"], rows[rows["split"] == "length"]
    assert iid["score"].mean() == 1.0  # trained on every class
    # the length split's train part has no 'charlie' text, so its own fitted copy cannot answer C
    assert set(length["target"]) == {"C"} and "C" not in set(length["output"])
    assert ev.summary().set_index("split").loc["length", "score"] == 0.0
    with pytest.raises(Exception, match="not fitted"):
        learner.predict(["alpha red"])  # the user's object is left untouched: clones are fitted


def test_fitted_pipeline_is_evaluated_as_it_is(tmp_path):
    records = _records()
    ds = gengap.load(records, input="text", target="label", id="uid")
    # fitted on A and B only: it can never answer C, on any split
    fitted = _pipeline().fit([r["text"] for r in records if r["label"] != "C"], [r["label"] for r in records if r["label"] != "C"])
    model = gengap.as_model(fitted)
    assert not model.needs_fit
    ev = gengap.evaluate(fitted, ds, ["random"], out=tmp_path, progress=False)
    rows = ev.rows()
    assert rows["output"].tolist() == fitted.predict(rows["input"].tolist()).tolist()
    assert "C" not in set(rows["output"])


def test_skops_file_through_gengap_eval(tmp_path, cli):
    records = _records()
    fitted = _pipeline().fit([r["text"] for r in records], [r["label"] for r in records])
    model_path = tmp_path / "model.skops"
    sio.dump(fitted, model_path)
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = tmp_path / "report"
    code, stdout, stderr = cli("eval", "--data", str(data), "--input", "text", "--target", "label", "--id", "uid",
                               "--model", str(model_path), "--split", "random", "--split", "length:by=input",
                               "--out", str(out), "--no-progress")
    assert code == 0, stderr
    assert "random" in stdout and "length" in stdout and (out / "index.html").exists()
    with gengap.store.Store(out / "gengap.duckdb", read_only=True) as store:
        rows = store.rows(store.latest_run())
    assert set(rows["model"]) == {"model"} and len(rows) > 0
    assert rows["output"].tolist() == fitted.predict(rows["input"].tolist()).tolist()


class Lower(BaseEstimator, TransformerMixin):
    """A user's own transformer: not on the allow-list until trusted by name."""

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        return [x.lower() for x in X]


def test_skops_file_with_untrusted_types_is_refused_until_trusted(tmp_path):
    records = _records()
    pipe = make_pipeline(Lower(), TfidfVectorizer(), LogisticRegression()).fit(
        [r["text"].upper() for r in records], [r["label"] for r in records])
    path = tmp_path / "custom.skops"
    sio.dump(pipe, path)
    name = f"{Lower.__module__}.Lower"
    with pytest.raises(ConfigError) as err:
        load_estimator_file(path)
    msg = str(err.value)
    assert name in msg and "--trust-type" in msg and "trusted = " in msg and str(path) in msg
    loaded = load_estimator_file(path, trusted=[name])
    assert loaded.predict(["ALPHA RED"]).tolist() == ["A"]


def test_skops_file_calling_os_system_is_refused(tmp_path):
    path = tmp_path / "evil.skops"
    sio.dump(make_pipeline(FunctionTransformer(os.system), LogisticRegression()), path)
    with pytest.raises(ConfigError, match=r"posix\.system|nt\.system"):
        load_estimator_file(path)
    np_load = tmp_path / "reads_files.skops"
    sio.dump(FunctionTransformer(np.load), np_load)
    with pytest.raises(ConfigError, match=r"numpy\.load"):
        load_estimator_file(np_load)


def test_allow_list():
    assert is_allowed_type("sklearn.ensemble._hist_gradient_boosting.predictor.TreePredictor")
    assert is_allowed_type("numpy.float64") and is_allowed_type("scipy.sparse._csr.csr_matrix")
    for name in ("builtins.eval", "posix.system", "numpy.load", "numpy.lib.format.read_array", "scipy.io.loadmat",
                 "numpyx.thing", "mypkg.Model"):
        assert not is_allowed_type(name), name


def test_pickle_needs_trust_pickle_and_the_cli_flag_flows_through(tmp_path, cli):
    records = _records()
    fitted = _pipeline().fit([r["text"] for r in records], [r["label"] for r in records])
    path = tmp_path / "model.pkl"
    path.write_bytes(pickle.dumps(fitted))
    with pytest.raises(ConfigError, match="runs whatever code") as err:
        load_estimator_file(path)
    assert "skops" in str(err.value) and "--trust-pickle" in str(err.value)
    assert load_estimator_file(path, trust_pickle=True).predict(["bravo red"]).tolist() == ["B"]

    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    args = ["eval", "--data", str(data), "--input", "text", "--target", "label", "--model", str(path),
            "--out", str(tmp_path / "out"), "--no-progress"]
    code, _, stderr = cli(*args)
    assert code == 1 and "--trust-pickle" in stderr and "Traceback" not in stderr
    code, stdout, stderr = cli(*args, "--trust-pickle")
    assert code == 0, stderr


def test_model_file_errors(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_estimator_file(tmp_path / "missing.skops")
    broken = tmp_path / "broken.skops"
    broken.write_bytes(b"this is not a zip file")
    with pytest.raises(ConfigError, match="not a readable .skops file"):
        load_estimator_file(broken)
    text = tmp_path / "model.txt"
    text.write_text("x")
    with pytest.raises(ConfigError, match="expected a .skops file"):
        load_estimator_file(text)


def test_an_estimator_of_a_local_class_is_fingerprinted_by_its_fitted_state_not_its_address():
    """A class defined in a function cannot be pickled by name; its fingerprint must still follow the
    fitted weights. It once used id(), which the next estimator at the same address reused, so one
    split's cached outputs were served for another split's model."""
    from sklearn.linear_model import LogisticRegression

    from gengap.models._base import EstimatorModel

    class Local(LogisticRegression):
        pass

    a = EstimatorModel(Local().fit([[0.0], [1.0]], [0, 1]), name="m")
    b = EstimatorModel(Local().fit([[0.0], [1.0]], [1, 0]), name="m")  # same class and parameters, other weights
    same = EstimatorModel(Local().fit([[0.0], [1.0]], [0, 1]), name="m")
    assert a.fingerprint() != b.fingerprint()
    assert a.fingerprint() == same.fingerprint() == a.fingerprint()
