"""One typed configuration: every setting's default is written once (gengap.config's settings groups) and
the command line, the run file and gengap.evaluate agree on it; the same settings given three ways store
the same run; bad settings name the key, the table or field, and the fix."""

from __future__ import annotations

import inspect
import json
import textwrap
import warnings

import pytest
import typer

import gengap
from gengap import ConfigError
from gengap._settings import GROUPS
from gengap.cli import _eval, app  # app: every command registered, whatever ran before
from gengap.config import DataConfig, Execution, Generation, PromptConfig, Settings, Splitting, load_run_file, parse_config
from gengap.models.http import OpenAIModel
from gengap.store import Store

#: Options of gengap eval whose name differs from the setting they set.
CLI_NAME = {"extra": "request_field"}
#: Every setting: (group, name, its field). Generation settings live in the run file's [model] table.
SETTINGS = [(group, name, field) for group, model in GROUPS.items() for name, field in model.model_fields.items()] + \
           [("model", name, field) for name, field in Generation.model_fields.items()]

MODEL_CODE = '''
def predict(batch):
    """Right on short inputs, wrong on long ones."""
    return [x.upper() if len(x) < 12 else x for x in batch]
'''


def _eval_command():
    return typer.main.get_command(app).commands["eval"]


def _records(n: int = 40) -> list[dict[str, str]]:
    return [{"input": "ab " * (1 + i % 7) + str(i), "target": ("AB " * (1 + i % 7) + str(i)).upper()} for i in range(n)]


@pytest.mark.parametrize("group, name, field", SETTINGS, ids=[f"{g}.{n}" for g, n, _ in SETTINGS])
def test_every_setting_has_one_default_shared_by_cli_run_file_and_evaluate(group, name, field, tmp_path):
    default = field.get_default(call_default_factory=True)
    # the run file
    from_file = parse_config({"data": {"path": "d.jsonl"}, "model": {"spec": "m:f"}})
    assert getattr(getattr(from_file, group), name) == default
    # gengap eval: the option exists, made from the field, and with every option left at its default it
    # builds the same settings
    params = {p.name: p for p in _eval_command().params}
    option = params[CLI_NAME.get(name, name)]
    if (group, name) == ("model", "seed"):  # --seed seeds the splits, and the sampling too when there is sampling
        sampled = _eval.run_config(_eval.EvalOptions(model="m:f", data="d"), {"seed": 4, "temperature": 0.7})
        assert sampled.model.seed == sampled.splitting.seed == 4
    elif name in ("stop", "extra"):  # options of their own: --stop/--no-stop, --request-field KEY=VALUE
        assert option.default is None
    elif isinstance(default, list):  # a repeated option: not given, the field's default
        assert option.default is None and option.multiple and option.help.startswith(field.description)
    else:
        assert option.default == default, f"--{option.name.replace('_', '-')} defaults to {option.default!r}"
        assert option.help == field.description
    from_cli = _eval.run_config(_eval.EvalOptions(model="m:f", data="d.jsonl"),
                                {n: p.default for n, p in params.items() if n in _eval.SETTING_OPTIONS})
    assert getattr(getattr(from_cli, group), name) == default
    assert from_cli == from_file  # the same object, whichever way it was built
    if group == "model":
        # an HTTP model built in Python has the same defaults
        assert getattr(OpenAIModel("http://127.0.0.1:9/v1"), name) == default
    else:
        # gengap.evaluate: takes the setting by name (a keyword of its own, None deferring to the settings,
        # or one of **options), and a run with no settings given uses this default
        own = inspect.signature(gengap.evaluate).parameters.get(name)
        assert own is None or own.default is None
        assert name in gengap.evaluate.__doc__
        ds = gengap.load(_records(10))
        ev = gengap.evaluate(lambda xs: xs, ds, ["random"], out=tmp_path, progress=False) if name != "progress" else \
            gengap.evaluate(lambda xs: xs, ds, ["random"], out=tmp_path)
        assert getattr(getattr(ev.settings, group), name) == default


def test_gengap_split_and_the_random_splitter_use_the_same_splitting_defaults():
    split_params = {p.name: p.default for p in typer.main.get_command(app).commands["split"].params}
    constructor = inspect.signature(gengap.RandomSplit).parameters
    for name, field in Splitting.model_fields.items():
        assert split_params[name] == field.default
        assert constructor[name].default == field.default


@pytest.mark.parametrize("table, function", [(PromptConfig, gengap.Prompt), (DataConfig, gengap.load)])
def test_the_run_files_prompt_and_data_tables_default_like_the_python_functions(table, function):
    params = inspect.signature(function).parameters
    shared = [name for name in table.model_fields if name in params]
    assert len(shared) >= 4
    for name in shared:
        assert table.model_fields[name].get_default(call_default_factory=True) == params[name].default, name


def test_evaluate_keeps_the_common_keywords_and_takes_every_other_setting_by_name():
    params = inspect.signature(gengap.evaluate).parameters
    own = set(params) & set(Settings.options())
    assert own == {"metrics", "extract", "seed"} and all(params[n].default is None for n in own)
    assert params["options"].kind is inspect.Parameter.VAR_KEYWORD and len(params) <= 14
    ds = gengap.load(_records(10))
    with pytest.raises(ConfigError, match=r"Unknown setting 'batch_sise'\. Did you mean 'batch_size'\?"):
        gengap.evaluate(lambda xs: xs, ds, batch_sise=8)  # checked before any work: no folder is made


def test_keywords_win_over_the_settings_and_the_settings_are_kept_otherwise(tmp_path):
    ds = gengap.load(_records(20))
    config = Settings(execution=Execution(batch_size=3, shard_size=4), splitting=Splitting(seed=5, test_fraction=0.5))
    ev = gengap.evaluate(lambda xs: xs, ds, ["random"], settings=config, seed=6, out=tmp_path, progress=False)
    assert ev.settings == config.replace(seed=6, progress=False)
    with Store(ev.store_path, read_only=True) as store:
        stored = store.run_config(ev.run_id)
    assert stored["settings"] == {"execution": {"batch_size": 3, "shard_size": 4},
                                  "scoring": {"metrics": ["exact_match"], "extract": None, "choices_by": "generate", "reference": None},
                                  "splitting": {"seed": 6, "test_fraction": 0.5}}
    assert stored["splits"][0]["n_test"] == 10 and stored["seed"] == 6
    # a whole run file's configuration is a Settings too
    run = parse_config({"data": {"path": "d"}, "model": {"spec": "m:f"}, "scoring": {"metrics": ["token_f1"]}})
    assert gengap.evaluate(lambda xs: xs, ds, ["random"], settings=run, progress=False).settings.scoring.metrics == ["token_f1"]


def test_same_settings_as_run_file_cli_flags_and_python_keywords_store_the_same_run(cli, tmp_path):
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in _records()), encoding="utf-8")
    (tmp_path / "samesettings_model.py").write_text(MODEL_CODE, encoding="utf-8")
    out = tmp_path / "out"
    (tmp_path / "gengap.toml").write_text(textwrap.dedent(f'''
        [data]
        path = "{data}"
        [model]
        spec = "samesettings_model:predict"
        [[split]]
        method = "random"
        [[split]]
        method = "length"
        [splitting]
        seed = 3
        test_fraction = 0.25
        [scoring]
        metrics = ["exact_match", "token_f1"]
        extract = "text"
        reference = "random"
        [execution]
        backend = "thread"
        workers = 2
        batch_size = 4
        shard_size = 7
        [eval]
        out = "{out}"
        '''), encoding="utf-8")
    code, _, err = cli("run", "gengap.toml", "--no-progress")
    assert code == 0 and "warning" not in err, err
    code, _, err = cli("eval", "--data", str(data), "--model", "samesettings_model:predict", "--split", "random", "--split", "length",
                       "--seed", "3", "--test-fraction", "0.25", "--metric", "exact_match", "--metric", "token_f1",
                       "--extract", "text", "--reference", "random", "--backend", "thread", "--workers", "2",
                       "--batch-size", "4", "--shard-size", "7", "--out", str(out), "--no-progress")
    assert code == 0, err
    model = gengap.models.load_model("samesettings_model:predict")
    ev = gengap.evaluate(model, gengap.load(str(data)), ["random", "length"], seed=3, test_fraction=0.25,
                         metrics=["exact_match", "token_f1"], extract="text", reference="random", backend="thread",
                         workers=2, batch_size=4, shard_size=7, out=out, progress=False)
    assert ev.settings == Settings().replace(seed=3, test_fraction=0.25, metrics=["exact_match", "token_f1"], extract="text",
                                             reference="random", backend="thread", workers=2, batch_size=4, shard_size=7,
                                             progress=False)
    with Store(out / "gengap.duckdb", read_only=True) as store:
        runs = store.runs()
        assert runs["run_id"].tolist() == ["r0001", "r0002", "r0003"] and runs["status"].eq("done").all()
        from_file, from_cli, from_python = (store.run_config(r) for r in runs["run_id"])
        rows = [store.rows(r).drop(columns=["run_id"], errors="ignore").reset_index(drop=True) for r in runs["run_id"]]
    assert from_file == from_cli  # the run file and the command line: the very same stored configuration
    assert from_file["settings"] == ev.settings.stored() == from_python["settings"]
    assert {k: v for k, v in from_file.items() if k in from_python} == from_python  # Python stores the same, less the file's own tables
    assert set(from_file) - set(from_python) == {"data", "model", "prompt", "split", "eval"}
    assert rows[0].equals(rows[1]) and rows[0].equals(rows[2])  # and the same scores
    assert set(rows[0]["metric"]) == {"exact_match", "token_f1"} and set(rows[0]["split"]) == {"random", "length"}


# ------------------------------------------------------------------------------------------ bad settings
GOOD = '''
[data]
path = "data.jsonl"
[model]
spec = "m:predict"
'''


@pytest.mark.parametrize("text, expected", [
    ("[execution]\nbatch_sise = 4\n",
     r"unknown key 'execution\.batch_sise'\. Did you mean 'batch_size'\? Valid keys there: backend, workers, ray_address, batch_size"),
    ("[scoring]\nseed = 3\n", r"unknown key 'scoring\.seed'\. 'seed' belongs in \[splitting\]\. Valid keys there: metrics"),
    ("[splitting]\ntest_fraction = 0.2\n[scorng]\nmetrics = []\n", r"unknown key 'scorng'\. Did you mean 'scoring'\?"),
    ("[eval]\nbach_size = 4\n", r"unknown key 'eval\.bach_size'\. Did you mean 'batch_size'\? \(in \[execution\]\)"),
    ("[execution]\nbatch_size = \"many\"\n",
     r"'execution\.batch_size': Input should be a valid integer.*\(got 'many'; expected int\)"),
    ("[splitting]\ntest_fraction = 1.5\n", r"'splitting\.test_fraction': Input should be less than 1 \(got 1\.5; expected float\)"),
    ("[execution]\nbackend = \"gpu\"\n", r"'execution\.backend': Input should be 'serial', 'thread', 'process' or 'ray' \(got 'gpu'\)\.$"),
    ("[scoring]\nextract = \"numbr\"\n", r"'scoring\.extract': Input should be 'number', 'choice', 'yes_no' or 'text' \(got 'numbr'\)\.$"),
    ("[prompt]\nbatch_size = 8\n", r"unknown key 'prompt\.batch_size'\. 'batch_size' belongs in \[execution\]\."),
])
def test_a_bad_setting_names_the_key_its_table_and_the_fix(tmp_path, text, expected):
    path = tmp_path / "gengap.toml"
    path.write_text(GOOD + text, encoding="utf-8")
    with pytest.raises(ConfigError, match=expected) as err:
        load_run_file(path)
    assert str(err.value).startswith(f"'{path}':")


@pytest.mark.parametrize("key, value, home", [("seed", "4", "splitting"), ("test_fraction", "0.3", "splitting"),
                                              ("metrics", '["token_f1"]', "scoring"), ("extract", '"number"', "scoring"),
                                              ("choices_by", '"loglik"', "scoring"), ("reference", '"random"', "scoring"),
                                              ("batch_size", "8", "execution"), ("shard_size", "8", "execution"),
                                              ("backend", '"thread"', "execution"), ("workers", "2", "execution"),
                                              ("ray_address", '"auto"', "execution"), ("cache", "false", "execution")])
def test_a_setting_in_eval_is_an_unknown_key_that_names_its_table(tmp_path, cli, key, value, home):
    """The keys [eval] held before the settings had tables are refused like any unknown key: the
    message names the file, the key as written and the table it belongs in; nothing runs."""
    path = tmp_path / "old.toml"
    path.write_text(GOOD + f'[eval]\n{key} = {value}\nout = "o"\n', encoding="utf-8")
    expected = (f"'{path}': unknown key 'eval.{key}'. '{key}' belongs in [{home}]. Valid keys there: out, name, "
                "perturb, curves")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ConfigError) as err:
            load_run_file(path)
    assert str(err.value).startswith(expected), str(err.value)
    code, out, err_text = cli("run", str(path), "--no-progress")
    assert code == 1 and "warning" not in err_text and " ".join(err_text.split()).startswith(f"error: {expected}"), err_text
    assert not (tmp_path / "o").exists()
    (tmp_path / "new.toml").write_text(GOOD + f'[{home}]\n{key} = {value}\n', encoding="utf-8")
    assert getattr(getattr(load_run_file(tmp_path / "new.toml"), home), key) is not None  # where it belongs, it is read

def test_evaluate_names_a_bad_keyword_or_settings_object(tmp_path):
    ds = gengap.load(_records(10))
    with pytest.raises(ConfigError, match=r"^evaluate: batch_size=0: Input should be greater than or equal to 1 \(execution\.batch_size\)\.$"):
        gengap.evaluate(lambda xs: xs, ds, batch_size=0)
    with pytest.raises(ConfigError, match=r"^evaluate: test_fraction='half': Input should be a valid number.*\(splitting\.test_fraction\)"):
        gengap.evaluate(lambda xs: xs, ds, test_fraction="half")
    with pytest.raises(ConfigError, match=r"settings= takes gengap\.config\.Settings .*got a dict"):
        gengap.evaluate(lambda xs: xs, ds, settings={"batch_size": 8})
    ev = gengap.evaluate(lambda xs: xs, ds, run_info={"experiment": "a"}, out=tmp_path, progress=False)
    with Store(ev.store_path, read_only=True) as store:
        assert store.run_config(ev.run_id)["experiment"] == "a"
    assert ev.settings == Settings().replace(progress=False)


def test_gengap_eval_names_the_option_with_a_bad_value(cli):
    code, _, err = cli("eval", "--data", "d.jsonl", "--model", "m:f", "--batch-size", "0", "--backend", "gpu")
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert "'--backend': Input should be 'serial', 'thread', 'process' or 'ray' (got 'gpu'" in err
    assert "'--batch-size': Input should be greater than or equal to 1 (got 0; expected int)" in err


def test_gengap_resume_refuses_a_run_stored_with_settings_in_eval_and_leaves_it_as_it_was(cli, tmp_path):
    """A stored run whose settings sit in its [eval] table (a layout no gengap writes any more) is not
    resumed: the message names the run, the store, the key and its table; the stored run is untouched."""
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in _records()), encoding="utf-8")
    (tmp_path / "oldrun_model.py").write_text(MODEL_CODE, encoding="utf-8")
    out = tmp_path / "out"
    old_layout = {"data": {"path": str(data)}, "model": {"spec": "oldrun_model:predict"}, "split": [{"method": "random"}],
                  "eval": {"out": str(out), "seed": 3}}
    out.mkdir()
    with Store(out / "gengap.duckdb") as store:
        run_id = store.start_run("eval", old_layout)  # left 'running': interrupted
    code, _, err = cli("resume", str(out), "--no-progress")
    err = " ".join(err.split())
    assert code == 1 and f"run {run_id} in '{out / 'gengap.duckdb'}': unknown key 'eval.seed'. 'seed' belongs in " \
                         "[splitting]." in err, err
    with Store(out / "gengap.duckdb", read_only=True) as store:
        runs = store.runs()
        assert list(runs["run_id"]) == [run_id] and store.run_config(run_id) == old_layout
