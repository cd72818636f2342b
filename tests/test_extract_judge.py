"""The model judge of answer extraction, over real HTTP: the loopback OpenAI-compatible server of
test_models_http (speaking both the chat and the completions protocol), and the real llama.cpp
server with Gemma 3 270M when it is installed.

On the loopback server the judge reads like a careful person with a short list of synonyms and a
table of replies the test sets: it answers the letter of the option whose synonym the output
uses, the reply set for a phrase of the output, or NONE. Every request it saw is recorded, so the
tests check what it was (and was not) asked.
"""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

import gengap
from gengap import ConfigError
from gengap.extract import Extractor, completion_prompt, judge_prompt, supported
from gengap.store import Store
from test_models_http import FakeOpenAI, server  # noqa: F401  (the loopback server and its fixture)

SYNONYMS = {"against": "Opposed", "in favour": "Enthusiastic", "shrug": "Indifferent"}
POLICY = ["Enthusiastic", "Opposed", "Indifferent"]
QUESTION = "How does the author feel about the new policy?"
#: An output the rules leave unextracted (it names two options) that the judge reads as B, which it names.
OPPOSED = "Her words could be read as opposed or as indifferent. Against, on balance."


def _read_prompt(prompt: str) -> tuple[str, dict[str, str]]:
    """The output a judge prompt (either style) asks about, and its options by letter."""
    if "<<<\n" in prompt:  # chat
        head, rest = prompt.split("<<<\n", 1)
        return rest.split("\n>>>", 1)[0], dict(re.findall(r"^([A-Z])\) (.+)$", head, re.MULTILINE))
    last = prompt.rsplit("\n\nQuestion: ", 1)[1]  # completions: the last block after the worked examples
    output = last.split("\nReply: ", 1)[1].rsplit("\nAnswer:", 1)[0]
    line = next((x for x in last.splitlines() if x.startswith("Options: ")), "")
    return output, dict(re.findall(r"([A-Z])\) (.+?)(?=  [A-Z]\) |$)", line[len("Options: "):]))


def _judge_reply(fake: FakeOpenAI, prompt: str) -> str:
    output, options = _read_prompt(prompt)
    for phrase, reply in fake.replies.items():  # type: ignore[attr-defined]
        if phrase in output:
            return reply
    for word, option in SYNONYMS.items():
        letter = next((k for k, v in options.items() if v == option), None)
        if word in output.lower() and letter:
            return letter
    return "NONE"


@pytest.fixture
def judge(server):  # noqa: F811
    """The loopback server answering as a judge: (fake, base_url); ``fake.replies`` maps a phrase of an output to a reply."""
    fake, url = server
    fake.replies = {}
    original = fake.answer

    def answer(handler):
        if handler.command != "POST":
            return original(handler)
        body = json.loads(handler.rfile.read(int(handler.headers["Content-Length"])))
        with fake.lock:
            fake.requests.append({"path": handler.path, "headers": dict(handler.headers), "body": body})
        if handler.path == "/v1/chat/completions":
            text = _judge_reply(fake, body["messages"][-1]["content"])
            return fake._send(handler, 200, {"choices": [{"message": {"role": "assistant", "content": text}}]})
        return fake._send(handler, 200, {"choices": [{"text": " " + _judge_reply(fake, body["prompt"])}]})

    fake.answer = answer
    return fake, url


def _prompts(fake: FakeOpenAI) -> list[str]:
    return [r["body"]["messages"][-1]["content"] if "messages" in r["body"] else r["body"]["prompt"] for r in fake.posts()]


# ------------------------------------------------------------------------------- the guard
@pytest.mark.parametrize("value, output, kind, choices, expected", [
    ("31", "Thirty-one students. Two rooms of 12 and one of 7.", "number", None, True),  # a number word
    ("1204", "The total is $1,204 after tax.", "number", None, True),
    ("0.75", "There is a 75% chance of red.", "number", None, True),  # a percentage as its decimal
    ("42", "I think it was 41, or thereabouts.", "number", None, False),
    ("12", "No figure is given anywhere.", "number", None, False),
    ("Volga", "The longest river in Europe is the Volga.", "text", None, True),
    ("the Eiffel Tower", "I'd say eiffel-tower, surely.", "text", None, True),  # case, punctuation, articles aside
    ("Danube", "The longest river in Europe is the Volga.", "text", None, False),
    ("Paris", "Parisian cafes stay open late.", "text", None, False),  # a whole word, not part of one
    ("B", "It's a carnivore.", "choice", ["Herbivorous", "Carnivorous"], True),  # paraphrase of an option
    ("A", "Herbivorous, I think.", "choice", ["Herbivorous", "Carnivorous"], True),  # the option's text
    ("C", "I'd go with (c) here.", "choice", ["x", "y", "z"], True),
    ("B", "Option B, no doubt.", "choice", ["x", "y"], True),
    ("D", "The answer is D.", "choice", ["x", "y", "z"], False),  # out of range
    ("A", "A lion eats meat.", "choice", ["Herbivorous", "Carnivorous"], False),  # an article, not the letter
    ("B", "It eats plants.", "choice", ["Herbivorous", "Carnivorous"], False),
    ("no", "Not at all; their wings are flippers.", "yes_no", None, True),
    ("no", "Certainly, it covers a third of the Earth.", "yes_no", None, False),  # a "no" needs a negation
    ("yes", "Certainly.", "yes_no", None, True),
    ("yes", "It depends on the species and the season.", "yes_no", None, False),  # a "yes" needs an affirmation
    (None, "Anything at all.", "text", None, False),
])
def test_a_judges_answer_is_supported_only_when_the_output_contains_it(value, output, kind, choices, expected):
    assert supported(value, output, kind, choices=choices) is expected


def test_answers_the_output_does_not_contain_are_unsupported_and_stay_unextracted(judge):
    fake, url = judge
    fake.replies = {"either 42": "43", "7 crates": "56", "think": "NONE"}
    outputs = ["It is either 42 or 43, I cannot tell which.", "I cannot say for sure, the 7 crates were never counted.",
               "Hmm, let me think about the question first."]
    ex = Extractor("number", judge=url)
    got = ex.extract_all(outputs, questions=["How many apples are in the crates?"] * 3)
    assert [g.value for g in got] == ["43", None, None] and got[0].rule == "judge"
    rep = ex.judge_report
    assert (rep.asked, rep.abstained, rep.filled, rep.unsupported, rep.declined) == (3, 3, 1, 1, 1)
    assert ex.judge_outcomes == ["filled", "unsupported", "declined"]
    assert rep.counts() == {"asked": 3, "filled": 1, "agreed": 0, "overruled": 0, "unsupported": 1, "declined": 1}


# -------------------------------------------------------------------- chat and completions
def test_judge_is_asked_only_where_the_rules_abstain(judge):
    fake, url = judge
    ex = Extractor("choice", judge=url)
    outputs = ["B", OPPOSED, "Hard to say; it depends.", "No idea. Against?"]
    got = ex.extract_all(outputs, [POLICY] * 4, [QUESTION] * 4)
    # the last: the judge reads B ("against" is its synonym of "Opposed"), but the output names no option
    assert [g.value for g in got] == ["B", "B", None, None]
    assert [g.rule for g in got] == ["answer_first", "judge", "unextracted", "unextracted"]
    prompts = _prompts(fake)
    assert len(prompts) == 3 and not any("<<<\nB\n>>>" in p for p in prompts)
    assert "Question: " + QUESTION in prompts[0] and "B) Opposed" in prompts[0]
    assert all(r["path"] == "/v1/chat/completions" for r in fake.posts())
    report = ex.judge_report
    assert (report.asked, report.abstained, report.filled, report.declined, report.unsupported) == (3, 3, 1, 1, 1)
    assert ex.judge_outcomes == [None, "filled", "declined", "unsupported"]
    assert report.agreement is None  # nothing was contested


def test_a_base_model_judge_reads_a_few_shot_completions_prompt_and_stops_at_the_line_end(judge):
    fake, url = judge
    ex = Extractor("choice", judge=url, judge_api="completions", judge_model="m")
    got = ex.extract_all(["B", OPPOSED.replace(". ", ".\n")], [POLICY] * 2, [QUESTION] * 2)
    assert [g.value for g in got] == ["B", "B"] and got[1].rule == "judge"
    (request,) = fake.posts()
    body = request["body"]
    assert request["path"] == "/v1/completions" and body["model"] == "m"
    assert body["stop"] == ["\n"] and body["max_tokens"] <= 16 and body["temperature"] == 0.0
    prompt = body["prompt"]
    # worked examples of the kind (one that gives no answer), then the output on one line, ending in "Answer:"
    assert prompt.count("\nAnswer:") == 5 and "\nAnswer: NONE\n" in prompt and prompt.endswith(
        f"Reply: {OPPOSED}\nAnswer:")
    assert "Options: A) Enthusiastic  B) Opposed  C) Indifferent" in prompt
    assert "Extractor(kind='choice', custom=False, judge='judge', judge_api='completions')" == repr(ex)


def test_every_kind_has_worked_examples_and_a_long_output_keeps_its_start_and_end():
    for kind in ("number", "choice", "yes_no", "text"):
        prompt = completion_prompt("Yes.", kind, question="Q?", choices=["a", "b"] if kind == "choice" else None)
        assert prompt.count("Answer: NONE") == 1 and prompt.count("\nAnswer:") == 5
    long = "First the answer: 7." + " filler" * 600 + " The end."
    shown = completion_prompt(long, "number").rsplit("Reply: ", 1)[1]
    assert shown.startswith("First the answer: 7.") and shown.endswith("The end.\nAnswer:") and len(shown) < 1300


def test_judge_settles_contested_readings_and_agreement_is_reported(judge):
    fake, url = judge
    ex = Extractor("choice", judge=url)
    # the rules read B from the marker; the option text further down names A
    contested = "The answer is B. Well, enthusiastic, mostly in favour of it."
    got = ex.extract_all([contested, "B"], [POLICY] * 2, [QUESTION] * 2)
    rep = ex.judge_report
    assert (rep.asked, rep.contested, rep.overruled, rep.agreement) == (1, 1, 1, 0.0)
    assert got[0].value == "A" and got[0].rule == "judge"  # the judge picked the rules' other reading
    assert got[1].value == "B" and got[1].rule != "judge" and len(fake.posts()) == 1


def test_judge_cannot_bring_a_third_answer_to_a_contested_output(judge):
    _, url = judge
    ex = Extractor("choice", judge=url)
    # the rules read B (marked) or A (named by text); the judge's synonym list points at C
    got = ex.extract_all(["The answer is B. Well, enthusiastic; then again, a shrug."], [POLICY], [QUESTION])
    assert got[0].value == "B" and ex.judge_report.declined == 1


def test_judge_prompt_names_the_kind_and_the_options():
    prompt = judge_prompt("It's 7.", "number", question="What is 3 + 4?")
    assert "Reply with the number only." in prompt and "Question: What is 3 + 4?" in prompt and "Options" not in prompt


def test_bad_judge_settings_are_clear_errors():
    with pytest.raises(ConfigError, match="'chat' .* or 'completions'"):
        Extractor("number", judge="http://127.0.0.1:9/v1", judge_api="base")
    with pytest.raises(ConfigError, match="not an http:// or https:// URL"):
        Extractor("number", judge="localhost:8080")
    ds = gengap.load([{"input": "q", "target": "1"}] * 10)
    with pytest.raises(ConfigError, match="give the answer kind too"):
        gengap.evaluate(lambda xs: xs, ds, ["random"], judge="http://127.0.0.1:9/v1", progress=False)
    with pytest.raises(ConfigError, match="judge= is given twice"):
        gengap.evaluate(lambda xs: xs, ds, ["random"], extract=Extractor("number"), judge="http://127.0.0.1:9/v1",
                        progress=False)


# ------------------------------------------------------------------ in an evaluation
def _policy_model(batch):
    return [OPPOSED if i % 2 else "B" for i, _ in enumerate(batch)]


def test_judge_never_reads_gold_targets_in_an_evaluation_and_its_counts_are_stored(judge, tmp_path):
    fake, url = judge
    records = [{"input": QUESTION + f" (#{i})", "target": "B", "choices": POLICY} for i in range(12)]
    ds = gengap.load(records)
    ev = gengap.evaluate(_policy_model, ds, ["random"], out=tmp_path, extract="choice", judge=url, test_fraction=0.5,
                         shard_size=2, progress=False)
    rows = ev.rows()
    assert rows["score"].eq(1.0).all()
    judged = [_read_prompt(p)[0] for p in _prompts(fake)]
    assert judged and set(judged) == {OPPOSED}  # never a target "B"
    assert all("Question: " + QUESTION in p for p in _prompts(fake))  # the example's input is the question
    use = ev.judge_use()  # summed over the run's shards
    assert use.to_dict("records") == [{"model": "_policy_model", "asked": 3, "filled": 3, "agreed": 0, "overruled": 0,
                                       "unsupported": 0, "declined": 0}]
    assert ev.settings.scoring.judge == url
    ev.report()
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert results["judge"] == use.to_dict("records") and results["run"]["config"]["settings"]["scoring"]["judge"] == url
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "Answer judge" in report and "asked about 3 outputs; agreed 0, overruled 0, filled 3, unsupported 0" in report
    assert "Answer judge" in (tmp_path / "index.html").read_text(encoding="utf-8")


def test_a_resumed_run_counts_each_judged_output_once(judge, tmp_path):
    _, url = judge
    records = [{"input": QUESTION + f" (#{i})", "target": "B", "choices": POLICY} for i in range(12)]
    ds = gengap.load(records)
    calls = {"n": 0}

    def dies_once(batch):
        calls["n"] += 1
        if calls["n"] == 3:
            raise RuntimeError("the model's server went away")
        return _policy_model(batch)

    options = dict(out=tmp_path, extract="choice", judge=url, shard_size=2, batch_size=2, progress=False)
    with pytest.raises(gengap.errors.ModelError):
        gengap.evaluate(dies_once, ds, ["all"], **options)
    ev = gengap.evaluate(dies_once, ds, ["all"], **options)  # resumes: the first two shards are kept
    assert ev.model_calls == 8
    assert ev.judge_use()[["asked", "filled"]].to_dict("records") == [{"asked": 6, "filled": 6}]


def test_the_store_keeps_every_count_of_the_judge_report():
    from gengap.extract import JudgeReport
    from gengap.store import JUDGE_COUNTS

    assert JUDGE_COUNTS == tuple(JudgeReport().counts()) == ("asked", *JudgeReport.OUTCOMES)


def test_without_a_judge_nothing_is_stored_or_shown(tmp_path):
    ds = gengap.load([{"input": f"q{i}", "target": "1"} for i in range(10)])
    ev = gengap.evaluate(lambda xs: ["1"] * len(xs), ds, ["random"], out=tmp_path, extract="number", progress=False)
    assert ev.judge_use().empty
    ev.report()
    assert json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))["judge"] == []
    assert "Answer judge" not in (tmp_path / "report.md").read_text(encoding="utf-8")


MODEL_CODE = '''
OUTPUTS = {"q0": "It is either 42 or 43, I cannot tell which.", "q1": "I cannot say for sure, the 7 crates were never counted.",
           "q2": "Hmm, let me think about the question first."}

def predict(batch):
    return [OUTPUTS.get(x.split(":")[0], "#### 5") for x in batch]
'''


def _number_data(tmp_path, n: int = 10) -> None:
    (tmp_path / "judge_model.py").write_text(MODEL_CODE, encoding="utf-8")
    rows = [{"input": f"q{i}: How many apples are in the crates?", "target": "43" if i == 0 else "5"} for i in range(n)]
    (tmp_path / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_cli_judge_options_and_the_run_file_keys_store_the_same_run_and_print_the_counts(judge, cli, tmp_path):
    fake, url = judge
    fake.replies = {"either 42": "43", "7 crates": "56", "think": "NONE"}
    _number_data(tmp_path)
    code, out, err = cli("eval", "--data", "data.jsonl", "--model", "judge_model:predict", "--extract", "number",
                         "--judge", url, "--judge-api", "completions", "--judge-model", "m", "--split", "all",
                         "--out", "rep", "--no-progress", "--no-cache")
    assert code == 0, err
    assert "Judge on model 'predict': asked about 3 outputs; agreed 0, overruled 0, filled 1, unsupported 1, declined 1." in out
    assert {r["path"] for r in fake.posts()} == {"/v1/completions"} and len(fake.posts()) == 3
    (tmp_path / "gengap.toml").write_text(f'''
[data]
path = "data.jsonl"
[model]
spec = "judge_model:predict"
[[split]]
method = "all"
[scoring]
extract = "number"
judge = "{url}"
judge_api = "completions"
judge_model = "m"
[execution]
cache = false
[eval]
out = "rep2"
''', encoding="utf-8")
    code, out2, err = cli("run", "gengap.toml", "--no-progress")
    assert code == 0, err
    assert "filled 1, unsupported 1, declined 1." in out2
    stored = []
    for folder in ("rep", "rep2"):
        results = json.loads((tmp_path / folder / "results.json").read_text(encoding="utf-8"))
        stored.append(results["run"]["config"]["settings"]["scoring"])
        assert results["judge"][0]["unsupported"] == 1
    assert stored[0] == stored[1] and stored[0]["judge_api"] == "completions" and stored[0]["judge_model"] == "m"
    code, _, err = cli("eval", "--data", "data.jsonl", "--model", "judge_model:predict", "--extract", "number",
                       "--judge", url, "--judge-api", "base", "--out", "rep3", "--no-progress")
    assert code != 0 and "--judge-api" in err and "'chat' or 'completions'" in err


def test_gengap_extract_asks_the_judge_about_what_the_rules_leave(judge, cli, tmp_path):
    fake, url = judge
    fake.replies = {"either 42": "43", "7 crates": "56"}
    records = [{"response": "It is either 42 or 43, I cannot tell which.", "q": "How many apples?"},
               {"response": "I cannot say for sure, the 7 crates were never counted.", "q": "How many apples?"},
               {"response": "#### 5", "q": "How many apples?"}]
    (tmp_path / "outputs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    code, out, err = cli("extract", "outputs.jsonl", "--kind", "number", "--output-field", "response", "--question-field",
                         "q", "--judge", url, "--judge-api", "completions", "--out", "read.jsonl")
    assert code == 0, err
    read = [json.loads(line)["extracted"] for line in (tmp_path / "read.jsonl").read_text(encoding="utf-8").splitlines()]
    assert read == ["43", None, "5"] and len(fake.posts()) == 2
    assert "unextracted 1 (33.3%)" in out
    assert "judge on number: asked about 2 outputs; agreed 0, overruled 0, filled 1, unsupported 1, declined 0" in out


# ------------------------------------------------------------------ the real llama.cpp server
@pytest.mark.slow
@pytest.mark.parametrize("api", ["completions", "chat"])
def test_a_real_base_model_judges_through_gengap_eval(llama_server, cli, tmp_path, api):
    """Gemma 3 270M (a base model) as the judge of a 10-row evaluation: whatever it answers, every
    output it is asked about gets one outcome, answers the output does not contain are not kept,
    and the targets are never shown to it."""
    _number_data(tmp_path)
    code, out, err = cli("eval", "--data", "data.jsonl", "--model", "judge_model:predict", "--extract", "number",
                         "--judge", llama_server.base_url, "--judge-api", api, "--split", "all",
                         "--out", "rep", "--no-progress", "--no-cache")
    assert code == 0, err
    results = json.loads((tmp_path / "rep" / "results.json").read_text(encoding="utf-8"))
    (use,) = results["judge"]
    assert use["asked"] == 3 and sum(use[k] for k in ("filled", "agreed", "overruled", "unsupported", "declined")) == 3
    assert f"Judge on model 'predict': asked about 3 outputs; agreed 0, overruled 0, filled {use['filled']}" in out
    with Store(tmp_path / "rep" / "gengap.duckdb", read_only=True) as store:
        rows = store.rows(store.latest_run())
    by_input = {i: None if pd.isna(v) else v for i, v in zip(rows["example_id"], rows["extracted"])}
    assert by_input["1"] in (None, "7") and by_input["2"] is None  # only a number the output holds (it has none)
    assert all(by_input[str(i)] == "5" for i in range(3, 10))  # read by the rules: the judge was not asked


def test_the_benchmark_prints_rules_alone_and_rules_with_the_judge_side_by_side(judge):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from benchmarks.bench_extract import judge_lines

    fake, url = judge
    fake.replies = {"either 42": "43", "7 crates": "56"}
    rows = [{"kind": "number", "output": "It is either 42 or 43, I cannot tell which.", "gold": "43"},
            {"kind": "number", "output": "I cannot say for sure, the 7 crates were never counted.", "gold": "56"},
            {"kind": "number", "output": "#### 5", "gold": "5"},
            {"kind": "choice", "output": OPPOSED, "gold": "B", "choices": POLICY, "question": QUESTION}]
    lines = judge_lines(rows, [None, None, "5", None], url, "completions", "m")
    assert lines[0] == f"  judge: {url} (completions, model m)"
    number = next(x for x in lines if x.startswith("  number      3"))
    assert "33.3% [" in number and "66.7% [" in number  # rules alone, then rules + judge
    all_row = next(x for x in lines if x.startswith("  all "))
    assert all_row.split()[1] == "4" and "25.0% [" in all_row and "75.0% [" in all_row
    header = next(i for i, x in enumerate(lines) if "asked" in x)
    counts = lines[header + 1].split()
    assert counts[:9] == ["number", "2", "2", "0", "1", "0", "0", "1", "0"] and counts[9] == "1/1"  # the guard kept a right one out
    assert "  number   filled 1/0 of 1   overruled 0/0 of 0" in lines  # the filled answer is right; the rules read none
