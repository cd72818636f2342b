"""A real language model behind a real server: Gemma 3 270M on llama.cpp (llama-cpp-python).

The runs are those of ``examples/local_llm/run.py``. Each check reads the stored raw outputs with
a rule written here, independently of gengap's extraction, the way a person would read them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import gengap
from _files import import_file
from gengap.errors import EndpointError
from gengap.models.http import OpenAIModel
from gengap.store import Store

pytestmark = pytest.mark.slow

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "local_llm" / "run.py"


@pytest.fixture(scope="module")
def example():
    return import_file(EXAMPLE, "local_llm_example")



def _rows_with_outputs(ev: gengap.Evaluation):
    rows = ev.rows()
    with Store(ev.store_path, read_only=True) as store:
        preds = store.predictions(ev.run_id)
    return rows.merge(preds[["model", "split", "perturbation", "example_id", "prompt", "details", "prompt_tokens",
                             "completion_tokens", "latency_s"]], on=["model", "split", "perturbation", "example_id"])


def test_few_shot_arithmetic_is_read_as_a_person_reads_it(llama_server, example, tmp_path):
    ev = example.arithmetic(llama_server.base_url, tmp_path, limit=18, progress=False)
    rows = _rows_with_outputs(ev)
    assert set(rows["perturbation"]) == {"none", "whitespace", "trailing_punctuation"}
    assert set(rows["split"]) == {"random", "length"}
    for row in rows.itertuples():
        # the prompt: instruction, 3 solved examples, the question; the model stopped before the next example
        assert row.prompt.startswith("Add the two numbers.\n\n") and row.prompt.count("Question: ") == 4
        assert row.prompt.endswith("\nAnswer:") and "Question:" not in row.output and "\n\n" not in row.output
        person = example.read_number_by_hand(row.output)
        assert (None if pd_isna(row.extracted) else row.extracted) == person, (row.output, row.extracted)
        assert row.score == float(person == row.target)
        if pd_isna(row.latency_s):  # taken from the cache: the same prompt was asked on another row (cost nothing)
            assert (rows["prompt"] == row.prompt).sum() > 1
        else:
            assert row.prompt_tokens > 20 and 1 <= row.completion_tokens <= 8 and row.latency_s > 0
    for (split, perturbation), group in rows.groupby(["split", "perturbation"]):
        share = sum(example.read_number_by_hand(o) == t for o, t in zip(group["output"], group["target"])) / len(group)
        assert share == pytest.approx(group["score"].mean()), (split, perturbation)
    summary = ev.summary()
    for split in ("random", "length"):  # the summary's score is the share of correct clean rows
        clean = rows[(rows["split"] == split) & (rows["perturbation"] == "none")]
        share = sum(example.read_number_by_hand(o) == t for o, t in zip(clean["output"], clean["target"])) / len(clean)
        assert summary.set_index("split").loc[split, "score"] == pytest.approx(share)
    report = ev.report(tmp_path / "report")
    assert (report / "index.html").exists() and (report / "report.md").exists()


def pd_isna(value) -> bool:
    import pandas as pd

    return value is None or bool(pd.isna(value))


def _read_option(output: str, options: list[str]) -> str | None:
    """What a person reads: the first option named on the output's first non-empty line (as a word)."""
    lines = [line for line in output.splitlines() if line.strip()]
    if not lines:
        return None
    hits = [(m.start(), o) for o in options for m in [re.search(rf"\b{re.escape(o)}\b", lines[0], re.IGNORECASE)] if m]
    letter = re.match(r"\s*([A-D])\b", lines[0])
    if letter and (not hits or letter.start(1) < min(hits)[0]):
        return options["ABCD".index(letter.group(1))]
    return min(hits)[1] if hits else None


def test_multiple_choice_by_log_likelihood(llama_loglik_server, tmp_path):
    # two items of a few tokens: llama-cpp-python sorts the whole vocabulary (262,144 tokens) in Python for every
    # token it scores (seconds each on a busy core), whatever 'logprobs' asks for, so the prompts stay
    # short here (bench_local_llm part 3 runs the example's items)
    items = [{"id": "bees", "input": "Bees make", "choices": ["honey", "milk"], "target": "honey"},
             {"id": "barks", "input": "Dogs", "choices": ["fly", "bark"], "target": "bark"}]
    model = OpenAIModel(llama_loglik_server.base_url, model_name="gemma", api="completions", concurrency=1, timeout=600)
    by_loglik = gengap.evaluate(model, gengap.load(items), ["all"], prompt="{input}",
                                choices_by="loglik", out=tmp_path / "loglik", progress=False)
    rows = _rows_with_outputs(by_loglik)
    assert len(rows) == 2
    for row in rows.itertuples():
        details = json.loads(row.details)
        options = next(i["choices"] for i in items if i["id"] == row.example_id)
        assert row.prompt == next(i["input"] for i in items if i["id"] == row.example_id)
        assert len(details["loglik"]) == 2 and all(v < 0 for v in details["loglik"]) and min(details["n_tokens"]) >= 1
        best = options[max(range(2), key=lambda i: details["loglik"][i])]
        assert row.output == best and row.score == float(best == row.target)
    assert by_loglik.summary()["score"].iloc[0] == pytest.approx(rows["score"].mean())


def test_multiple_choice_by_generation_is_read_as_a_person_reads_it(llama_server, example, tmp_path):
    # the example's multiple choice by generation, answers read as options, on its first 4 items
    by_generation = example.choices(llama_server.base_url, tmp_path / "generate", by="generate", shots=0, limit=4,
                                    progress=False)
    generated = _rows_with_outputs(by_generation)
    listed = {r["id"]: r for r in map(json.loads, (EXAMPLE.parent / "choices.jsonl").read_text().splitlines())}
    assert len(generated) == 4
    for row in generated.itertuples():
        options = listed[row.example_id]["choices"]
        person = _read_option(row.output, options)
        readings = {None} if person is None else {person, "ABCD"[options.index(person)]}  # the option or its letter
        assert (None if pd_isna(row.extracted) else row.extracted) in readings, (row.output, row.extracted)
        assert row.score == float(person == row.target)
    assert by_generation.summary()["score"].iloc[0] == pytest.approx(generated["score"].mean())


def test_bad_input_against_the_real_server(llama_server, tmp_path):
    url = llama_server.base_url
    with pytest.raises(EndpointError, match="does not serve a model named 'gemma-2b'; it serves: gemma"):
        OpenAIModel(url, model_name="gemma-2b", api="completions", max_tokens=2).predict(["1 + 1 ="])
    with pytest.raises(EndpointError, match="HTTP 404.*--api|HTTP 404"):
        OpenAIModel(url[: -len("/v1")], model_name="gemma", api="completions", max_tokens=2, max_retries=0).predict(["x"])
    long = gengap.load([{"input": "one two " * (5 if i != 2 else 1500), "target": "x"} for i in range(4)])
    model = OpenAIModel(url, model_name="gemma", api="completions", max_tokens=2, concurrency=1)
    with pytest.raises(EndpointError, match=r"context window.*rows 2\.\.2.*example id '2'"):
        gengap.evaluate(model, long, ["all"], out=tmp_path, progress=False, shard_size=1)
    with Store(tmp_path / "gengap.duckdb", read_only=True) as store:  # rows before it are kept
        assert sorted(store.predictions(store.runs()["run_id"].iloc[-1])["example_id"]) == ["0", "1"]
    logliks = OpenAIModel(url, model_name="gemma", api="completions")  # a server without --logits_all
    with pytest.raises(EndpointError, match="log-probabilities|logits_all"):
        logliks.predict([{"prompt": "The sky is", "choices": [" blue", " green"]}])
