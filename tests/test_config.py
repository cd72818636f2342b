"""The run file: validation messages for every mistake, paths relative to the file, and the model it builds."""

from __future__ import annotations

import sys

import pytest

from gengap import ConfigError
from gengap.config import load_run_file, parse_config
from gengap.run_file import build_model, run_identity

GOOD = """
[data]
path = "data.jsonl"
input = "question"
target = "answer"

[model]
spec = "mymodel:predict"

[[split]]
method = "random"

[[split]]
method = "length"
by = "input"

[scoring]
metrics = ["exact_match", "token_f1"]

[splitting]
seed = 3

[eval]
out = "report"
"""


def _write(tmp_path, text, name="gengap.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_good_run_file_resolves_paths_against_its_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", list(sys.path))
    sub = tmp_path / "project"
    sub.mkdir()
    cfg = load_run_file(_write(sub, GOOD))
    assert cfg.data.path == str(sub / "data.jsonl") and cfg.eval.out == str(sub / "report")
    assert cfg.data.input == "question" and cfg.splitting.seed == 3 and cfg.scoring.metrics == ["exact_match", "token_f1"]
    assert [s.method for s in cfg.split] == ["random", "length"] and cfg.split[1].options() == {"by": "input"}
    assert cfg.model.spec == "mymodel:predict" and str(sub) in sys.path  # the model module may sit beside the file


@pytest.mark.parametrize("text, expected", [
    (GOOD.replace('input = "question"', 'inptu = "question"'),
     r"unknown key 'data\.inptu'\. Did you mean 'input'\? Valid keys there: path, input, target"),
    (GOOD.replace("seed = 3", "sed = 3"), r"unknown key 'splitting\.sed'\. Did you mean 'seed'\?"),
    (GOOD.replace('spec = "mymodel:predict"', 'spec = "mymodel:predict"\nmodel_nmae = "x"'),
     r"unknown key 'model\.model_nmae'\. Did you mean 'model_name'\?"),
    (GOOD + "\n[modle]\nspec = 'x'\n", r"unknown key 'modle'\. Did you mean 'model'\?"),
    (GOOD.replace("seed = 3", 'seed = "three"'), r"'splitting\.seed': Input should be a valid integer.*got 'three'"),
    (GOOD.replace("[model]\nspec = \"mymodel:predict\"\n", ""), r"missing required key 'model'"),
    (GOOD.replace('method = "random"', 'path = "a"\nmethod = "random"'), r"split #1 needs exactly one of 'method'"),
    (GOOD.replace("seed = 3", "seed = 3\ntest_fraction = 1.5"), r"'splitting\.test_fraction'.*less than 1"),
])
def test_every_mistake_names_the_key_and_the_fix(tmp_path, text, expected):
    path = _write(tmp_path, text)
    with pytest.raises(ConfigError, match=expected) as err:
        load_run_file(path)
    assert str(err.value).startswith(f"'{path}':")


def test_unreadable_run_files(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_run_file(tmp_path / "nope.toml")
    with pytest.raises(ConfigError, match=r"is not valid TOML: .*line 2"):
        load_run_file(_write(tmp_path, "[data]\npath = \n"))
    bad = tmp_path / "latin.toml"
    bad.write_bytes('[data]\npath = "caf\u00e9"\n'.encode("latin-1"))
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_run_file(bad)
    with pytest.raises(ConfigError, match=r"missing the \[data\] table"):
        load_run_file(_write(tmp_path, '[model]\nspec = "m:f"\n'))


def test_http_settings_flow_into_the_adapter_and_stay_out_of_the_stored_identity():
    cfg = parse_config({
        "data": {"path": "d.jsonl"},
        "model": {"spec": "http://127.0.0.1:9/v1", "model_name": "m", "api": "completions", "api_key_env": "HOME",
                  "concurrency": 3, "timeout": 7, "max_retries": 1, "max_tokens": 20, "temperature": 0.2},
    })
    model = build_model(cfg.model)
    assert (model.model_name, model.api, model.api_key_env, model.concurrency, model.timeout, model.max_retries,
            model.max_tokens, model.temperature) == ("m", "completions", "HOME", 3, 7.0, 1, 20, 0.2)
    identity = run_identity(cfg)
    assert identity["model"]["api_key_env"] == "HOME" and "concurrency" not in identity["model"]
    assert "timeout" not in identity["model"] and identity["model"]["max_tokens"] == 20


def test_model_file_settings_flow_into_the_loader(tmp_path):
    import pickle

    from sklearn.dummy import DummyClassifier

    path = tmp_path / "m.pkl"
    path.write_bytes(pickle.dumps(DummyClassifier().fit([[0]], ["y"])))
    refused = parse_config({"data": {"path": "d"}, "model": {"spec": str(path)}})
    with pytest.raises(ConfigError, match="--trust-pickle"):
        build_model(refused.model)
    trusted = parse_config({"data": {"path": "d"}, "model": {"spec": str(path), "trust_pickle": True}})
    assert build_model(trusted.model).predict([[1]]) == ["y"]


def test_a_model_spec_that_cannot_be_imported_says_how(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=r"cannot import module 'no_such_module_xyz'.*package\.module:function"):
        build_model(parse_config({"data": {"path": "d"}, "model": {"spec": "no_such_module_xyz:predict"}}).model)
    (tmp_path / "has_fn_mod.py").write_text("def predict(xs):\n    return xs\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ConfigError, match=r"has no attribute 'predcit'. Did you mean 'predict'\?"):
        build_model(parse_config({"data": {"path": "d"}, "model": {"spec": "has_fn_mod:predcit"}}).model)
    with pytest.raises(ConfigError, match=r"Cannot tell what model 'model\.bin' is"):
        build_model(parse_config({"data": {"path": "d"}, "model": {"spec": "model.bin"}}).model)
