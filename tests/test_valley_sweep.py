"""The generalization valley and the complexity sweep of built-in tasks."""

from __future__ import annotations

import json

import jsonschema
import numpy as np
import pandas as pd
import pytest

from _files import import_file
from gengap._errors import ConfigError, DataError
from gengap.analysis.valley import (
    VALLEY_COLUMNS,
    generalization_valley,
    valleys_from_rows,
)
from gengap.report import results_schema
from gengap.tasks.algorithmic import is_balanced
from gengap.tasks.sweep import SWEEPS, run_sweep, sweep_dataset

P_ID = np.array([0.99, 0.95, 0.9, 0.6, 0.2])
P_OOD = np.array([0.95, 0.7, 0.3, 0.35, 0.1])  # gaps .04 .25 .60 .25 .10: the peak is at level 3


def _valley_data(n_cell: int = 300, seed: int = 0):
    rng = np.random.default_rng(seed)
    level = np.repeat(np.arange(1, 6), 2 * n_cell)
    part = np.tile(np.repeat(["id", "ood"], n_cell), 5)
    p = np.where(part == "id", P_ID[level - 1], P_OOD[level - 1])
    return (rng.random(level.size) < p).astype(float), level, part


def test_valley_gaps_and_critical_complexity():
    s, level, part = _valley_data()
    v = generalization_valley(s, level, part, n_resamples=2000)
    t = v.to_table()
    assert list(t.columns) == VALLEY_COLUMNS and t["n_id"].tolist() == [300] * 5
    for row in t.itertuples():
        cell = level == row.level
        assert row.gap == pytest.approx(s[cell & (part == "id")].mean() - s[cell & (part == "ood")].mean())
        assert row.gap_low <= row.gap <= row.gap_high
    assert v.critical == 3.0 and v.critical_low == 3.0 and v.critical_high == 3.0
    assert t["peak_share"].sum() == pytest.approx(1.0) and t["peak_share"].iloc[2] > 0.95
    assert v.interval == "clopper-pearson"
    json.dumps(v.to_dict(), allow_nan=False)


def test_valley_with_a_close_second_level_widens_the_interval():
    rng = np.random.default_rng(1)
    level = np.repeat([1, 2, 3], 100)
    part = np.tile(np.repeat(["id", "ood"], 50), 3)
    p = np.where(part == "id", 0.9, np.array([0.8, 0.45, 0.5])[level - 1])  # gaps .1 .45 .4
    v = generalization_valley(rng.random(300) < p, level, part, n_resamples=2000)
    assert v.critical_low <= 2 and v.critical_high >= 3  # levels 2 and 3 cannot be told apart on 50 items


def test_valley_continuous_scores_and_same_seed():
    rng = np.random.default_rng(2)
    s, level, part = _valley_data(100)
    s = np.clip(s * 0.8 + rng.random(s.size) * 0.2, 0, 1)
    a = generalization_valley(s, level, part, n_resamples=1000, seed=3)
    assert a.interval == "bootstrap" and a.to_dict() == generalization_valley(s, level, part, n_resamples=1000, seed=3).to_dict()


def test_valley_bad_inputs():
    with pytest.raises(DataError, match="'id' or 'ood'"):
        generalization_valley([1, 0], [1, 1], ["id", "test"])
    with pytest.raises(DataError, match=r"missing: 2 \(ood\)"):
        generalization_valley([1, 0, 1], [1, 1, 2], ["id", "ood", "id"])
    with pytest.raises(DataError, match="one of each"):
        generalization_valley([1, 0], [1], ["id", "ood"])
    with pytest.raises(ConfigError):
        generalization_valley([1, 0], [1, 1], ["id", "ood"], confidence=2)


@pytest.mark.parametrize("task", sorted(SWEEPS))
def test_sweep_parts_and_reencoding_keep_the_answer(task):
    ds = sweep_dataset(task, levels=SWEEPS[task].levels[1:4], n_per_level=30, train_per_level=40, ood_train_levels=1, seed=0)
    f = ds.frame
    assert f["id"].is_unique
    counts = f.groupby(["level", "role", "part"]).size()
    for level in sorted(set(f["level"])):
        assert counts[(level, "test", "id")] == counts[(level, "test", "ood")] > 0
    first = min(f["level"])
    assert counts.get((first, "train", "ood"), 0) > 0 and all(counts.get((lv, "train", "ood"), 0) == 0 for lv in set(f["level"]) - {first})
    for _level, g in f.groupby("level"):  # no test input is a training input
        assert not set(g.loc[g["role"] == "test", "input"]) & set(g.loc[g["role"] == "train", "input"])
    ood = f[f["part"] == "ood"]
    if task in ("addition", "multiplication"):
        back = str.maketrans("abcdefghij", "0123456789")
        op = "+" if task == "addition" else "*"
        for x, y in zip(ood["input"], ood["target"]):
            a, b = x.translate(back).replace(" ", "").split(op)
            value = int(a) + int(b) if op == "+" else int(a) * int(b)
            assert y.translate(back).replace(" ", "") == str(value) and not any(c.isdigit() for c in x + y)
    elif task == "dyck":
        back = str.maketrans("<>{}", "()[]")
        for x, y in zip(ood["input"], ood["target"]):
            assert y == ("1" if is_balanced(x.translate(back)) else "0") and "(" not in x
    else:
        back = str.maketrans("xy", "ab")
        for x, y in zip(ood["input"], ood["target"]):
            assert y.translate(back).split() == x.translate(back).split()[::-1] and "a" not in x


def test_sweep_bad_options():
    with pytest.raises(ConfigError, match="sweepable tasks"):
        sweep_dataset("additon")
    with pytest.raises(ConfigError, match="positive integers"):
        sweep_dataset("addition", levels=[0, 1])
    with pytest.raises(ConfigError, match=r"run_sweep: no option 'n_per_levl'. Did you mean 'n_per_level'\?"):
        run_sweep({}, "addition", n_per_levl=10)
    with pytest.raises(ConfigError, match="positive integers"):  # the design goes to sweep_dataset, checked there
        run_sweep({}, "addition", levels=[0])


MODEL = '''
def predict(inputs):
    """Adds in digits always; in letters only up to 3-digit operands (then it answers in digits)."""
    back = str.maketrans("abcdefghij", "0123456789")
    out = []
    for x in inputs:
        letters = not any(c.isdigit() for c in x)
        a, b = x.translate(back).replace(" ", "").split("+")
        s = " ".join(str(int(a) + int(b)))
        out.append(s.translate(str.maketrans("0123456789", "abcdefghij")) if letters and max(len(a), len(b)) <= 3 else s)
    return out
'''



def _predict(tmp_path):
    (tmp_path / "lettered.py").write_text(MODEL, encoding="utf-8")
    return import_file(tmp_path / "lettered.py").predict  # the same function the CLI imports


def test_run_sweep_with_two_models_and_report(tmp_path):
    predict = _predict(tmp_path)
    def digits_only(xs):  # right in digits, never in letters
        return [predict([x])[0] if any(c.isdigit() for c in x) else "?" for x in xs]
    ev, valleys = run_sweep({"letters-to-3": predict, "digits-only": digits_only}, "addition", levels=[2, 3, 4, 5, 6],
                            n_per_level=40, seed=0, out=tmp_path / "sw", n_resamples=1000, progress=False)
    by = {v.model: v for v in valleys}
    assert by["letters-to-3"].critical == 4.0  # ID 100% everywhere, OOD 100% up to 3 digits, then 0%
    assert by["letters-to-3"].to_table()["gap"].tolist() == [0.0, 0.0, 1.0, 1.0, 1.0]
    assert by["digits-only"].critical == 2.0 and (by["digits-only"].to_table()["gap"] == 1.0).all()
    doc = json.loads((ev.report() / "results.json").read_text())
    jsonschema.validate(doc, results_schema())
    section = doc["sections"]["valley"]
    assert section["sweep"]["task"] == "addition" and {m["model"] for m in section["models"]} == set(by)
    html = (ev.out / "index.html").read_text()
    assert 'id="chart-valley-gap"' in html and "critical complexity" in html
    rows = ev.rows()
    again = valleys_from_rows(rows, n_resamples=1000)
    assert [v.critical for v in again] == [v.critical for v in valleys]


def test_cli_tasks_sweep_with_a_model_spec(tmp_path, cli):
    _predict(tmp_path)
    code, out, err = cli("tasks", "sweep", "addition", "--levels", "2-5", "--n-per-level", "30",
                         "--model", "lettered:predict", "--out", "sw", "--no-progress")
    assert code == 0, err
    assert "peaks at level 4" in out
    doc = json.loads((tmp_path / "sw" / "results.json").read_text())
    assert doc["sections"]["valley"]["models"][0]["critical"] == 4.0
    code, out, err = cli("tasks", "sweep", "addition", "--levels", "two", "--model", "lettered:predict")
    assert code != 0 and "--levels" in (out + err)
    code, out, err = cli("tasks", "sweep", "addition")
    assert code != 0 and "--model or --learner" in (out + err)


@pytest.mark.slow
def test_cli_tasks_sweep_trains_a_builtin_learner(tmp_path, cli):
    code, _, err = cli("tasks", "sweep", "reverse_string", "--levels", "2-4", "--n-per-level", "10",
                         "--train-per-level", "40", "--learner", "gru:hidden_size=16,embedding_size=8,epochs=1",
                         "--out", "sw", "--no-progress")
    assert code == 0, err
    doc = json.loads((tmp_path / "sw" / "results.json").read_text())
    levels = doc["sections"]["valley"]["models"][0]["levels"]
    assert [lv["level"] for lv in levels] == [2, 3, 4] and doc["run"]["config"]["sweep"]["train_per_level"] == 40
    assert pd.DataFrame(levels)["n_id"].gt(0).all()


@pytest.fixture
def reversing_server():
    """An OpenAI-compatible chat server on loopback that reverses strings over a/b (and echoes anything else)."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            text = body["messages"][-1]["content"].strip()
            answer = " ".join(reversed(text.split())) if set(text.split()) <= {"a", "b"} else text
            data = json.dumps({"object": "chat.completion", "model": body.get("model"), "choices": [
                {"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


def test_cli_tasks_sweep_queries_an_endpoint(tmp_path, cli, reversing_server):
    code, out, err = cli("tasks", "sweep", "reverse_string", "--levels", "2-8:2", "--n-per-level", "20",
                         "--model", reversing_server, "--model-name", "tiny", "--out", "sw", "--no-progress")
    assert code == 0, err
    model = json.loads((tmp_path / "sw" / "results.json").read_text())["sections"]["valley"]["models"][0]
    levels = pd.DataFrame(model["levels"])
    assert (levels["id_score"] == 1.0).all()  # it reverses a/b strings: right on every ID item
    assert levels["ood_score"].iloc[-1] < 0.2  # x/y strings come back unreversed: right only on palindromes
    assert model["critical"] >= 6
