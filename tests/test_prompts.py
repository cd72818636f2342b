"""Prompts built by gengap: templates, seeded shots from the train part, chat messages, checks."""

from __future__ import annotations

import pytest

import gengap
from gengap import ConfigError
from gengap.perturb import make_perturbations
from gengap.prompts import Prompt, as_prompt
from gengap.store import Store

TRAIN = gengap.load([{"input": f"{i} + {i}", "target": str(2 * i), "topic": "add"} for i in range(10)])
TEST = gengap.load([{"input": f"{i} + 1", "target": str(i + 1), "topic": "add"} for i in range(20, 25)])


def test_completion_prompt_layout_and_stops():
    p = Prompt("Question: {input}\nAnswer:", k=2, instruction="Add.", seed=1)
    text = p.render(TEST, TRAIN)[0]
    parts = text.split("\n\n")
    assert parts[0] == "Add." and parts[-1] == "Question: 20 + 1\nAnswer:" and len(parts) == 4
    for shot in parts[1:3]:  # shots are train rows with their answers
        q, a = shot.split("\nAnswer: ")
        x = int(q.removeprefix("Question: ").split(" + ")[0])
        assert 0 <= x < 10 and a == str(2 * x)
    assert p.default_stops() == ["\n\n", "Question:"]
    assert Prompt("{input}").default_stops() == ["\n\n"]


def test_shots_are_seeded_per_example_and_differ_between_examples():
    p = Prompt("Q: {input}\nA:", k=3, seed=7)
    first, again = p.render(TEST, TRAIN), p.render(TEST, TRAIN)
    assert first == again
    assert len({t.rsplit("\n\n", 1)[0] for t in first}) > 1  # not the same shots for every example
    assert Prompt("Q: {input}\nA:", k=3, seed=8).render(TEST, TRAIN) != first
    # the same example keeps its shots whatever else is in the test part (clean and perturbed rows pair up)
    assert p.render(TEST.take([3]), TRAIN)[0] == first[3]


def test_chat_messages_alternate_user_and_assistant():
    p = Prompt("{input} =", k=2, instruction="Be brief.")
    messages = p.render(TEST, TRAIN, chat=True)[0]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert messages[0]["content"] == "Be brief." and messages[-1]["content"] == "20 + 1 ="
    assert messages[2]["content"] == str(2 * int(messages[1]["content"].split(" + ")[0]))


def test_metadata_columns_and_choices_in_templates():
    mc = gengap.load([{"input": "Sky colour?", "target": "B", "choices": ["red", "blue"]}])
    assert Prompt("{input}\n{choices}\nAnswer:").render(mc, mc.take([]))[0] == "Sky colour?\nA. red\nB. blue\nAnswer:"
    assert Prompt("[{topic}] {input}").render(TEST, TRAIN)[0] == "[add] 20 + 1"


def test_bad_prompts_are_clear_errors():
    with pytest.raises(ConfigError, match=r"names the column '\{question\}'.*Columns: input, target, topic"):
        Prompt("Q: {question}").check(TEST, TRAIN)
    with pytest.raises(ConfigError, match=r"k=11 few-shot examples, but the train part has only 10 rows"):
        Prompt("{input}", k=11).check(TEST, TRAIN)
    with pytest.raises(ConfigError, match="perturb='answer'"):
        Prompt(perturb="answer")
    with pytest.raises(ConfigError, match="not a valid template"):
        Prompt("Q: {input")
    with pytest.raises(ConfigError, match="unknown prompt key 'shots'"):
        as_prompt({"template": "{input}", "shots": 2})


def test_evaluate_with_a_prompt_stores_it_and_perturbs_only_the_question(tmp_path):
    seen: list[str] = []

    def echo_last_line(prompts):
        seen.extend(prompts)
        return [p.rsplit("\n", 1)[-1] for p in prompts]

    data = gengap.load([{"input": f"w{i} x{i}", "target": f"w{i} x{i}"} for i in range(30)])
    ev = gengap.evaluate(echo_last_line, data, ["random"], out=tmp_path, progress=False,
                         prompt={"template": "{input}", "k": 2, "instruction": "Copy."}, perturbations=make_perturbations(["casing:mode=upper"]))
    rows = ev.rows()
    clean = rows[rows["perturbation"] == "none"]
    assert clean["score"].tolist() == [1.0] * 6
    with Store(ev.store_path, read_only=True) as store:
        preds = store.predictions(ev.run_id).set_index(["perturbation", "example_id"])
    for example_id in clean["example_id"]:
        plain, upper = preds.loc[("none", example_id), "prompt"], preds.loc[("casing:mode=upper", example_id), "prompt"]
        assert plain.startswith("Copy.\n\n") and upper.startswith("Copy.\n\n")
        # the shots and instruction are the same; only the question is upper-cased
        assert plain.rsplit("\n\n", 1)[0] == upper.rsplit("\n\n", 1)[0]
        assert upper.rsplit("\n\n", 1)[1] == plain.rsplit("\n\n", 1)[1].upper() != plain.rsplit("\n\n", 1)[1]
    # asked to, the perturbation changes the shots instead, and leaves the question alone
    ev2 = gengap.evaluate(echo_last_line, data, ["random"], out=tmp_path / "shots", progress=False,
                          prompt={"template": "{input}", "k": 2, "perturb": "shots"}, perturbations=make_perturbations(["casing:mode=upper"]))
    with Store(ev2.store_path, read_only=True) as store:
        preds = store.predictions(ev2.run_id).set_index(["perturbation", "example_id"])
    example_id = clean["example_id"].iloc[0]
    plain, upper = preds.loc[("none", example_id), "prompt"], preds.loc[("casing:mode=upper", example_id), "prompt"]
    assert upper.rsplit("\n\n", 1)[1] == plain.rsplit("\n\n", 1)[1]
    shots_plain, shots_upper = plain.rsplit("\n\n", 1)[0], upper.rsplit("\n\n", 1)[0]
    assert shots_upper != shots_plain and shots_upper.lower() == shots_plain.lower()
    for a, b in zip(shots_plain.split("\n\n"), shots_upper.split("\n\n")):  # the shot's input, not its answer
        assert b == a[:len(a) // 2].upper() + a[len(a) // 2:]


def test_the_all_split_tests_every_row_and_refuses_shots(tmp_path):
    data = gengap.load([{"input": str(i), "target": str(i)} for i in range(12)])
    ev = gengap.evaluate(lambda xs: xs, data, ["all"], out=tmp_path, progress=False, prompt="{input}")
    assert len(ev.rows()) == 12 and ev.split_info()["all"]["n_train"] == 0
    with pytest.raises(ConfigError, match="train part of split 'all' has only 0 rows"):
        gengap.evaluate(lambda xs: xs, data, ["all"], out=tmp_path / "b", progress=False, prompt={"k": 1})
