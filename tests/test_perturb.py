"""Perturbations: purity and seeds, label checks (with the template solver), multiple choice,
the registry, combinations, user-defined ones, and the stress statistics on a real evaluation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from gengap import Dataset, evaluate
from gengap._errors import ConfigError, DataError
from gengap.analysis.stress import family_split_table, perturbation_effects, template_spread, worst_case
from gengap.perturb import (
    Compose,
    ContaminationProbe,
    NumberSubstitution,
    OptionLength,
    Perturbation,
    ShuffleChoices,
    ToOpenAnswer,
    ToTrueFalse,
    Typos,
    available_perturbations,
    make_perturbation,
    make_perturbations,
    multiple_choice_dataset,
    perturbation,
    prompt_templates,
    with_combinations,
)
from gengap.perturb.problem_template import ProblemTemplate, verify_labels

WORD = ProblemTemplate("Ann has {a:3..40} marbles. She wins {b:2..30} more and loses {c:1..9}. How many marbles does she have?",
                answer="a + b - c", constraints=["a + b > c"], name="marbles")

TEXT_SPECS = ["whitespace", "casing", "trailing_punctuation", "separator", "quoting", "field_labels",
              "fewshot_delimiter", "typos", "char_swap", "char_delete", "distractor", "template:Q: {input}\\nA:"]
MC_SPECS = ["shuffle_choices", "lengthen_gold_option", "lengthen_wrong_option", "shorten_gold_option",
            "shorten_wrong_option", "mc_to_open", "mc_to_true_false", "contamination_probe"]

QUESTIONS = [
    ("What is the capital of France?", ["London", "Paris", "Rome", "Berlin"], "Paris"),
    ("Which planet is largest?", ["Mars", "Venus", "Jupiter", "Mercury"], "Jupiter"),
    ("Which gas do plants absorb?", ["Carbon dioxide", "Helium", "Neon", "Argon"], "Carbon dioxide"),
    ("Who wrote Hamlet?", ["Dickens", "Austen", "Tolstoy", "Shakespeare"], "Shakespeare"),
    ("What is 7 x 6?", ["42", "36", "48", "56"], "42"),
    ("Which metal is liquid at room temperature?", ["Iron", "Mercury", "Copper", "Tin"], "Mercury"),
]


@pytest.fixture
def text_ds() -> Dataset:
    rows = [{"input": f"Question: Is sentence number {i} about the weather? It rains today.\n\nAnswer:",
             "target": "yes" if i % 2 else "no", "site": "s" + str(i % 3)} for i in range(40)]
    return Dataset.from_records(rows)


@pytest.fixture
def mc_ds() -> Dataset:
    return multiple_choice_dataset([{"question": q, "choices": c, "answer": a} for q, c, a in QUESTIONS])


@pytest.mark.parametrize("spec", TEXT_SPECS)
def test_text_perturbations_are_pure_seeded_and_keep_ids(text_ds, spec):
    p = make_perturbation(spec)
    a, b = p.apply(text_ds, seed=1), p.apply(text_ds, seed=1)
    assert a.inputs == b.inputs and a.ids == text_ds.ids and a.targets == text_ds.targets
    assert a.column("parent_id").tolist() == text_ds.ids and set(a.column("perturbation")) == {p.name}
    assert a.column("site").tolist() == text_ds.column("site").tolist()
    assert sum(x != y for x, y in zip(a.inputs, text_ds.inputs)) >= 20  # it really changes most inputs
    assert text_ds.inputs[0].startswith("Question: Is sentence number 0")  # the original is untouched
    if spec not in ("quoting", "field_labels", "fewshot_delimiter") and not spec.startswith("template"):
        assert a.inputs != p.apply(text_ds, seed=2).inputs  # the seed matters


@pytest.mark.parametrize("spec", MC_SPECS)
def test_choice_perturbations_are_seeded_and_keep_ids(mc_ds, spec):
    p = make_perturbation(spec)
    a = p.apply(mc_ds, seed=5)
    assert a.ids == mc_ds.ids and a.inputs == p.apply(mc_ds, seed=5).inputs
    if not spec.startswith("shorten"):  # one-word options cannot be shortened (see test_option_length)
        assert a.inputs != mc_ds.inputs


def test_typo_rate_is_honoured():
    text = "the quick brown fox jumps over the lazy dog " * 40
    out = Typos(rate=0.1).text(text, np.random.default_rng(0))
    letters = sum(c.isalpha() for c in text)
    changed = sum(x != y for x, y in zip(text, out))
    assert len(out) == len(text) and 0.07 < changed / letters < 0.13


def test_shuffle_remaps_the_gold(mc_ds):
    out = ShuffleChoices().apply(mc_ds, seed=0)
    for (_question, choices, gold), opts, letter, text in zip(QUESTIONS, out.column("choices"), out.targets, out.inputs):
        assert sorted(opts) == sorted(choices) and opts != choices
        assert opts["ABCD".index(letter)] == gold
        assert f"{letter}. {gold}" in text


def test_option_length_changes_one_option(mc_ds):
    long_gold = OptionLength("lengthen", "gold").apply(mc_ds, seed=0)
    for opts, letter in zip(long_gold.column("choices"), long_gold.targets):
        gold_len = len(opts["ABCD".index(letter)])
        assert gold_len == max(len(o) for o in opts) and gold_len > 40
    wordy = multiple_choice_dataset([{"question": "Why is the sky blue?", "answer": 0, "choices": [
        "Air scatters short blue wavelengths of sunlight more strongly", "Because the sky reflects the blue ocean below",
        "Blue", "Because of clouds"]}])
    short_wrong = OptionLength("shorten", "wrong").apply(wordy, seed=0)
    assert short_wrong.targets == ["A"] and short_wrong.column("choices")[0][0] == wordy.column("choices")[0][0]
    assert sum(map(len, short_wrong.column("choices")[0])) < sum(map(len, wordy.column("choices")[0]))
    short_gold = OptionLength("shorten", "gold").apply(wordy, seed=0)
    assert short_gold.column("choices")[0][0] == "Air scatters short"


def test_question_forms(mc_ds):
    open_ = ToOpenAnswer().apply(mc_ds, seed=0)
    assert open_.targets == [g for _, _, g in QUESTIONS] and "A." not in open_.inputs[0]
    tf = ToTrueFalse().apply(mc_ds, seed=0)
    for text, target, (_, _, gold) in zip(tf.inputs, tf.targets, QUESTIONS):
        assert target == ("yes" if f"Proposed answer: {gold}\n" in text else "no")


def test_contamination_probe_borrows_other_answers(mc_ds):
    out = ContaminationProbe().apply(mc_ds, seed=0)
    golds = {g for _, _, g in QUESTIONS}
    for opts, letter, (_, _, gold) in zip(out.column("choices"), out.targets, QUESTIONS):
        assert opts["ABCD".index(letter)] == gold
        assert set(opts) <= golds and len(set(opts)) == 4
    with pytest.raises(DataError, match="distinct gold answers"):
        ContaminationProbe().apply(mc_ds.take([0, 1]), seed=0)


def test_gold_not_among_options_is_refused():
    with pytest.raises(DataError, match=r"row 2.*'Madrid' is not among its 3 options"):
        multiple_choice_dataset([{"question": "q", "choices": ["a", "b", "c"], "answer": "a"},
                                 {"question": "Capital of Spain?", "choices": ["Paris", "Rome", "Lisbon"],
                                  "answer": "Madrid"}])
    bad = Dataset.from_records([{"input": "q", "target": "E", "choices": ["x", "y"]}])
    with pytest.raises(DataError, match="not among its 2 options"):
        ShuffleChoices().apply(bad, seed=0)


def test_a_label_changing_perturbation_marked_preserving_is_caught(mc_ds, text_ds):
    @perturbation(family="custom")  # preserves_label=True by default
    def flip(example, rng):
        return {**example, "target": "no" if example["target"] == "yes" else "yes"}

    with pytest.raises(DataError, match="preserves_label=True but changed the label of example '0'"):
        flip.apply(text_ds, seed=0)

    class LazyShuffle(Perturbation):  # reverses the options but forgets to move the gold letter
        name, family = "lazy_shuffle", "choice"

        def perturb(self, example, rng):
            return {**example, "choices": example["choices"][::-1], "choice_origin": example["choice_origin"][::-1]}

    with pytest.raises(DataError, match="lazy_shuffle"):
        LazyShuffle().apply(mc_ds, seed=0)


def test_solver_checks_label_preservation_on_templated_problems():
    ds = Dataset.from_frame(WORD.generate(60, seed=0), id="id")
    # format changes keep every label: the solver recomputes the same answer from the new text
    for spec in ["whitespace:rate=0.5", "casing:mode=upper", "casing:mode=lower"]:
        assert verify_labels(make_perturbation(spec).apply(ds, seed=0), WORD) == []

    # a "harmless" rewrite that bumps a number but keeps the label passes the target check ...
    @perturbation(on="input", name="bump_first_number")
    def bump(text, rng):
        import re

        return re.sub(r"\d+", lambda m: str(int(m.group()) + 1), text, count=1)

    bumped = bump.apply(ds, seed=0)
    # ... and the solver catches every one of them
    assert verify_labels(bumped, WORD) == ds.ids

    # new numbers with the answer recomputed: every label right, numbers really changed
    new = NumberSubstitution(WORD).apply(ds, seed=3)
    assert verify_labels(new, WORD) == []
    assert sum(a != b for a, b in zip(new.inputs, ds.inputs)) >= 55


def test_numbers_needs_a_matching_template(text_ds):
    with pytest.raises(DataError, match="matches none of the templates"):
        NumberSubstitution(WORD).apply(text_ds, seed=0)
    with pytest.raises(ConfigError, match="ProblemTemplate objects"):
        NumberSubstitution([])


def test_registry_specs_and_errors():
    assert make_perturbation("typos:rate=0.2").rate == 0.2
    assert make_perturbation("distractor:position=start").position == "start"
    assert "contamination_probe" in available_perturbations()
    assert [p.name for p in make_perturbations("all_choice")][0] == "shuffle_choices"
    with pytest.raises(ConfigError, match="Did you mean 'typos'"):
        make_perturbation("typo")
    with pytest.raises(ConfigError, match="has no option 'rat'"):
        make_perturbation("typos:rat=0.1")
    with pytest.raises(ConfigError, match="rate=2.0 must be between 0 and 1"):
        make_perturbation("typos:rate=2.0")
    with pytest.raises(ConfigError, match="needs the form key=value"):
        make_perturbation("typos:0.1")
    with pytest.raises(ConfigError, match="position='top'"):
        make_perturbation("distractor:position=top")


def test_combinations():
    combos = with_combinations(["typos", "casing:mode=upper", "whitespace"])
    names = [p.name for p in combos]
    assert names == ["typos", "casing:mode=upper", "whitespace", "typos+casing:mode=upper", "typos+whitespace",
                     "casing:mode=upper+whitespace", "all"]
    assert all(p.family == "combined" for p in combos[3:])
    assert not Compose(["typos", "mc_to_open"]).preserves_label
    ds = Dataset.from_records([{"input": "hello there world", "target": "x"}])
    assert combos[-1].apply(ds, seed=0).inputs[0] != "hello there world"


def test_eval_with_perturbations_and_stress_summary(mc_ds, tmp_path):
    # a "model" that always picks the longest option: option length moves it, shuffling does not
    def longest(prompts):
        out = []
        for p in prompts:
            opts = [line[3:] for line in p.split("\n") if len(line) > 2 and line[1] == "." and line[0] in "ABCD"]
            out.append("ABCD"[int(np.argmax([len(o) for o in opts]))] if opts else "?")
        return out

    big = multiple_choice_dataset([{"question": q + f" (v{i})", "choices": c, "answer": a}
                                   for i in range(10) for q, c, a in QUESTIONS])
    perts = [make_perturbation(s) for s in ["shuffle_choices", "lengthen_gold_option", "lengthen_wrong_option"]]
    perts += prompt_templates(["{input}", "Q: {input}"])
    ev = evaluate(longest, big, ["random"], out=tmp_path, perturbations=perts, progress=False, test_fraction=0.5)
    s = perturbation_effects(ev.rows(), perturbations=perts, n_resamples=500)
    by = s.set_index("perturbation")
    assert by.loc["lengthen_gold_option", "perturbed"] == 1.0
    assert by.loc["lengthen_wrong_option", "perturbed"] == 0.0
    assert s.loc[0, "perturbation"] == "lengthen_wrong_option" and s.loc[0, "rank"] == 1
    assert by.loc["lengthen_wrong_option", "high"] < 0 and by.loc["lengthen_wrong_option", "significant"]
    clean = by.loc["shuffle_choices", "clean"]
    assert by.loc["lengthen_wrong_option", "drop_rate"] == pytest.approx(1.0 if clean > 0 else np.nan, nan_ok=True)
    assert 0 <= by.loc["shuffle_choices", "flip_rate"] <= 1 and by.loc["lengthen_wrong_option", "flip_rate"] > 0.5
    assert by.loc["template-1", "flip_rate"] == 0.0
    table = family_split_table(s)
    assert list(table.index) == ["choice", "template"] and list(table.columns) == ["random"]
    wc = worst_case(ev.rows(), perturbations=perts, n_resamples=200)
    assert (wc.loc[wc["family"] == "choice", "worst_case"] == 0.0).all()
    spread = template_spread(s)
    assert spread.loc[0, "n_templates"] == 2 and spread.loc[0, "spread"] == 0.0

    # the report's stress-test section: the same effects, a heatmap, the flip rate
    import json

    folder = ev.report(tmp_path / "report")
    section = json.loads((folder / "results.json").read_text())["sections"]["perturbations"]
    assert section["effects"][0]["perturbation"] == "lengthen_wrong_option"
    assert section["family_split"]["choice"]["random"] == pytest.approx(
        s.loc[s["family"] == "choice", "difference"].mean())
    md = (folder / "report.md").read_text()
    assert "Stress tests" in md and "lengthen_wrong_option" in md and "Flips" in md
    assert 'id="chart-perturbations"' in (folder / "index.html").read_text()


def test_evaluate_takes_perturbation_specs_and_families_like_the_run_file(tmp_path):
    import gengap
    from gengap.store import Store

    ds = gengap.load([{"input": f"Word {i}.", "target": str(i)} for i in range(10)])
    ev = gengap.evaluate(lambda xs: xs, ds, ["all"], perturbations=["typos:rate=0.1", "all_format"], out=tmp_path,
                         progress=False)
    with Store(ev.store_path, read_only=True) as store:
        assert store.run_config(ev.run_id)["perturbations"][:2] == ["typos:rate=0.1", "whitespace"]
    assert {"none", "typos:rate=0.1", "whitespace", "casing"} <= set(ev.rows()["perturbation"])
    with pytest.raises(ConfigError, match="Unknown perturbation 'typoz'"):
        gengap.evaluate(lambda xs: xs, ds, ["all"], perturbations=["typoz"], out=tmp_path / "bad", progress=False)
    assert not (tmp_path / "bad" / "gengap.duckdb").exists()


def test_cli_eval_perturb(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from gengap.cli import app

    data = tmp_path / "d.jsonl"
    pd.DataFrame({"input": [f"item {i} is here" for i in range(30)], "target": ["here"] * 30}).to_json(
        data, orient="records", lines=True)
    mod = tmp_path / "stress_model_mod.py"
    mod.write_text("def predict(batch):\n    return [x.split()[-1] for x in batch]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    result = CliRunner().invoke(app, ["eval", "--data", str(data), "--model", "stress_model_mod:predict",
                                      "--perturb", "casing:mode=upper", "--perturb", "trailing_punctuation:mode=add",
                                      "--out", str(tmp_path / "r"), "--no-progress"])
    assert result.exit_code == 0, result.output
    from gengap.store import Store

    with Store(tmp_path / "r" / "gengap.duckdb", read_only=True) as store:
        rows = store.rows(store.latest_run())
    assert set(rows["perturbation"]) == {"none", "casing:mode=upper", "trailing_punctuation:mode=add"}
    s = perturbation_effects(rows, n_resamples=200).set_index("perturbation")
    assert s.loc["casing:mode=upper", "perturbed"] == 0.0 and s.loc["casing:mode=upper", "clean"] == 1.0
