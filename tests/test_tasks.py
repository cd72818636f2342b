"""Built-in tasks: exact labels recomputed independently, determinism, bad parameters, natural splits, CLI."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from typer.testing import CliRunner

import gengap
from gengap._errors import ConfigError
from gengap.cli import app
from gengap.io import read_jsonl
from gengap.splits import PresetSplit
from gengap.tasks import generate, get_task, natural_splits, tasks
from gengap.tasks.algorithmic import is_balanced
from gengap.tasks.grids import GEOMETRIC, INVERSE, RECOLOURINGS, transform_grid
from gengap.tasks.word_problems import TEMPLATES, solve

GENERATED = [name for name in tasks() if name != "scan"]
SMALL = {"modular": {"p": 11}, "facts": {"n_entities": 30, "n_queries": 300}, "xor": {"n": 200, "dim": 10}}


def small(name: str, seed: int = 0, **params):
    base = {"n": 300} if any(p.name == "n" for p in get_task(name).params) else {}
    return generate(name, seed=seed, **{**base, **SMALL.get(name, {}), **params})


def unspace(text: str) -> str:
    return text.replace(" ", "")


# ---------------------------------------------------------------------------- registry and determinism
def test_registry_lists_every_task_with_documented_params():
    names = set(tasks())
    assert {"addition", "multiplication", "parity", "copy", "reverse", "sorting", "dyck", "even_pairs",
            "modular_arithmetic", "reverse_string", "stack_manipulation", "binary_addition", "duplicate_string",
            "odds_first", "modular", "facts", "grids", "word_problems", "xor", "scan"} <= names
    for t in tasks().values():
        assert t.description and all(p.doc for p in t.params)
        assert t.split_specs(), f"{t.name} has no natural split"
        for p in t.params:
            assert p.check(p.default, t.name) == p.default


@pytest.mark.parametrize("name", GENERATED)
def test_same_seed_same_dataset_other_seed_differs(name):
    a, b = small(name, seed=3), small(name, seed=3)
    assert a.fingerprint() == b.fingerprint()
    assert a.frame.drop(columns=["input"]).equals(b.frame.drop(columns=["input"]))
    if name != "modular":  # the table is the same for every seed; only the split's draw changes
        assert small(name, seed=4).fingerprint() != a.fingerprint()
    assert len(set(a.ids)) == len(a)
    assert a.frame["target"].notna().all()


@pytest.mark.parametrize("name", GENERATED)
def test_natural_splits_build_and_split(name):
    ds = small(name)
    for split_name, splitter in natural_splits(name, **({} if name not in SMALL else SMALL[name])).items():
        split = splitter.split_dataset(ds)
        assert len(split.train) and len(split.test), (name, split_name)
        assert not np.intersect1d(split.train, split.test).size


def test_scan_task_is_the_whole_grammar():
    ds = generate("scan")
    assert len(ds) == 20_910 and len(set(ds.inputs)) == 20_910
    splits = natural_splits("scan")
    length = splits["length"].split_dataset(ds)
    assert ds.column("n_actions").to_numpy()[length.test].min() == 24


# ---------------------------------------------------------------------------- exact labels
def test_every_addition_label_is_the_sum():
    ds = generate("addition", seed=1, n=5000, min_digits=1, max_digits=18)
    for x, y, nd in zip(ds.inputs, ds.targets, ds.column("n_digits")):
        a, b = unspace(x).split("+")
        assert int(a) + int(b) == int(unspace(y))
        assert max(len(a), len(b)) == nd
        assert a == str(int(a)) and b == str(int(b))  # no leading zeros
    assert set(ds.column("n_digits")) == set(range(1, 19))


def test_addition_carries_and_compact_format():
    ds = generate("addition", seed=2, n=500, max_digits=6, spaced=False)
    for x, y, carries in zip(ds.inputs, ds.targets, ds.column("n_carries")):
        a, b = map(int, x.split("+"))
        assert a + b == int(y) and " " not in x
        count, carry = 0, 0
        while a or b or carry:
            carry = int(a % 10 + b % 10 + carry >= 10)
            count += carry
            a, b = a // 10, b // 10
        assert count == carries


def test_every_multiplication_label_is_the_product():
    ds = generate("multiplication", seed=1, n=5000, max_digits=9)
    for x, y in zip(ds.inputs, ds.targets):
        a, b = unspace(x).split("*")
        assert int(a) * int(b) == int(unspace(y))


def test_parity_copy_reverse_sorting_labels():
    for x, y, n in zip(*(lambda d: (d.inputs, d.targets, d.column("length")))(small("parity", max_length=30))):
        assert y == str(x.split().count("1") % 2) and len(x.split()) == n
    for name, fn in (("copy", lambda s: s), ("reverse", lambda s: s[::-1]), ("sorting", sorted)):
        ds = small(name, vocab_size=36, max_length=25)
        for x, y in zip(ds.inputs, ds.targets):
            assert y.split() == list(fn(x.split())), name


def test_dyck_strings_balanced_exactly_when_labelled():
    ds = generate("dyck", seed=5, n=3000, n_types=3, min_length=2, max_length=40, max_depth=6)
    labels = np.array(ds.targets) == "1"
    assert 0.4 < labels.mean() < 0.6
    for x, y, n, depth in zip(ds.inputs, ds.targets, ds.column("length"), ds.column("depth")):
        assert is_balanced(x, 3) == (y == "1")
        assert len(x.split()) == n and n % 2 == 0 and 1 <= depth <= 6
        assert set(x.split()) <= set("()[]{}")
        if y == "1":
            level, deepest = 0, 0
            for ch in x.split():
                level += 1 if ch in "([{" else -1
                deepest = max(deepest, level)
            assert deepest == depth


# ---------------------------------------------------------------------------- Chomsky tasks
def _stack(text: str) -> str:
    init, _, acts = text.partition("|")
    stack = init.split()[::-1]  # bottom first
    for a in acts.split():
        if a == "P":
            if stack:
                stack.pop()
        else:
            stack.append(a.lower())
    return " ".join(stack[::-1]) or "-"


def _odds_first(s: list[str]) -> list[str]:
    return s[0::2] + s[1::2]


CHOMSKY = {
    "even_pairs": lambda x: str(int(sum(p != q for p, q in zip(x.split(), x.split()[1:])) % 2 == 0)),
    "modular_arithmetic": lambda x: str(eval(unspace(x)) % 5),
    "reverse_string": lambda x: " ".join(x.split()[::-1]),
    "stack_manipulation": _stack,
    "binary_addition": lambda x: " ".join(bin(sum(int(t, 2) for t in unspace(x).split("+")))[2:]),
    "duplicate_string": lambda x: f"{x} {x}",
    "odds_first": lambda x: " ".join(_odds_first(x.split())),
}


@pytest.mark.parametrize("name", sorted(CHOMSKY))
def test_chomsky_labels_recomputed(name):
    ds = generate(name, seed=7, n=2000, min_length=1, max_length=30)
    reference = CHOMSKY[name]
    for x, y in zip(ds.inputs, ds.targets):
        assert reference(x) == y, (x, y)
    assert set(ds.column("level")) == {get_task(name).description.split("(")[1].split(")")[0]}


# ---------------------------------------------------------------------------- modular tables
@pytest.mark.parametrize("operation", ["add", "sub", "mul", "div", "div_odd", "sq_sum", "quad1", "quad2", "cube1", "cube2"])
def test_modular_table_complete_and_exact(operation):
    p = 13
    ds = generate("modular", p=p, operation=operation)
    pairs = set(zip(ds.column("a"), ds.column("b")))
    division = operation in ("div", "div_odd")
    assert pairs == {(a, b) for a in range(p) for b in range(p) if not (division and b == 0)}
    assert len(ds) == len(pairs)
    formulas = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
                "div": lambda a, b: a * pow(b, -1, p),
                "div_odd": lambda a, b: a * pow(b, -1, p) if b % 2 else a - b,
                "sq_sum": lambda a, b: a**2 + b**2, "quad1": lambda a, b: a**2 + a * b + b**2,
                "quad2": lambda a, b: a**2 + a * b + b**2 + a, "cube1": lambda a, b: a**3 + a * b,
                "cube2": lambda a, b: a**3 + a * b**2 + b}
    for x, y, a, b in zip(ds.inputs, ds.targets, ds.column("a"), ds.column("b")):
        assert int(y) == formulas[operation](int(a), int(b)) % p
        assert x.split()[0] == str(a) and x.split()[2] == str(b) and x.endswith("=")


def test_modular_train_fraction_is_the_iid_split():
    ds = generate("modular", p=23, train_fraction=0.3)
    split = natural_splits("modular", p=23, train_fraction=0.3)["iid"].split_dataset(ds)
    assert abs(len(split.train) / len(ds) - 0.3) < 0.01


# ---------------------------------------------------------------------------- facts
@pytest.mark.parametrize("hops", [1, 2, 3])
def test_fact_composition_follows_atomic_facts(hops):
    ds = generate("facts", seed=2, n_entities=40, n_relations=4, hops=hops, n_queries=2000, ood_fraction=0.2)
    frame = ds.frame
    atomic = frame[frame.query_set == "atomic"]
    table = dict(zip(atomic.input, atomic.target))
    assert len(table) == 40 * 4
    queries = frame[frame.query_set != "atomic"]
    assert (queries.hops == hops).all() and len(queries) == min(2000, 40 * 4**hops)
    # which entities are out-of-distribution: a test_ood query goes through one, a train query never does
    seen_in_training = set()
    for x, y, part in zip(queries.input, queries.target, queries.query_set):
        head, *rels = x.split()
        chain = [head]
        for r in rels:
            chain.append(table[f"{chain[-1]} {r}"])
        assert chain[-1] == y
        if part in ("train", "test_id"):
            seen_in_training.update(chain[:-1])
    for x, part in zip(queries.input, queries.query_set):
        if part == "test_ood":
            head, *rels = x.split()
            chain = [head]
            for r in rels[:-1]:
                chain.append(table[f"{chain[-1]} {r}"])
            assert any(e not in seen_in_training for e in chain)
    assert {"train", "test_id", "test_ood"} <= set(queries.query_set)


def test_fact_comparison_and_id_ood_splits():
    ds = generate("facts", seed=1, kind="comparison", n_entities=50, n_relations=3, n_values=5, n_queries=3000)
    frame = ds.frame
    atomic = frame[frame.query_set == "atomic"]
    value = {k: int(v[1:]) for k, v in zip(atomic.input, atomic.target)}
    for x, y in zip(frame.input[len(atomic):], frame.target[len(atomic):]):
        attr, e1, e2 = x.split()
        v1, v2 = value[f"{e1} {attr}"], value[f"{e2} {attr}"]
        assert y == ("<" if v1 < v2 else ">" if v1 > v2 else "=")
    splits = natural_splits("facts")
    for name, wanted in (("id", {"test_id"}), ("ood", {"test_ood"})):
        split = splits[name].split_dataset(ds)
        assert set(frame.query_set.iloc[split.test]) == wanted
        assert set(frame.query_set.iloc[split.train]) == {"atomic", "train"}


def test_preset_split_errors_name_the_value():
    ds = small("facts")
    with pytest.raises(gengap.DataError, match="no value \\['nope'\\]"):
        PresetSplit(column="query_set", train="atomic", test="nope").split_dataset(ds)
    with pytest.raises(ConfigError, match="in both"):
        PresetSplit(column="query_set", train="atomic+train", test="train")


# ---------------------------------------------------------------------------- grids
def _parse_grid(text: str) -> np.ndarray:
    return np.array([[int(c) for c in row.split()] for row in text.split("|")])


def test_grid_transforms_invertible_where_they_should_be():
    rng = np.random.default_rng(0)
    batch = rng.integers(0, 5, size=(50, 4, 4))
    for name in GEOMETRIC:
        there = GEOMETRIC[name](batch)
        assert np.array_equal(GEOMETRIC[INVERSE[name]](there), batch), name
    for name in RECOLOURINGS:
        there = RECOLOURINGS[name](batch, 4)
        assert set(np.unique(there)) <= set(range(5))
        if name in INVERSE:
            assert np.array_equal(RECOLOURINGS[INVERSE[name]](there, 4), batch), name
    # mono is not invertible: two different grids map to the same one
    a, b = np.array([[[1, 2]]]), np.array([[[2, 1]]])
    assert np.array_equal(RECOLOURINGS["mono"](a, 4), RECOLOURINGS["mono"](b, 4))


def test_grid_targets_recomputed_and_combinations_held_out():
    ds = generate("grids", seed=3, n=2000, min_size=2, max_size=6, n_colors=5, n_held_out=6)
    frame = ds.frame
    for x, y, size in zip(frame.input, frame.target, frame["size"]):
        geo, rec, _, grid = x.split(" ", 3)
        g = _parse_grid(grid)
        assert g.shape == (size, size)
        assert np.array_equal(transform_grid(g, geo, rec, 5), _parse_grid(y))
    held = frame[frame.combination_set == "held_out"]
    seen = frame[frame.combination_set == "seen"]
    assert held.combination.nunique() == 6 and not set(held.combination) & set(seen.combination)
    assert set(held.geometric) <= set(seen.geometric) and set(held.recolour) <= set(seen.recolour)
    split = natural_splits("grids")["combination"].split_dataset(ds)
    assert set(frame.combination.iloc[split.test]) == set(held.combination)


# ---------------------------------------------------------------------------- word problems and XOR
def test_word_problem_answers_recomputed_from_values():
    ds = generate("word_problems", seed=4, n=2000, scale=10)
    for x, y, template, values in zip(ds.inputs, ds.targets, ds.column("template"), ds.column("values")):
        numbers = json.loads(values)
        t = TEMPLATES[template]
        assert int(y) == solve(t.answer, numbers) >= 0
        assert all(str(v) in x for k, v in numbers.items() if f"{{{k}}}" in t.text)
    assert set(ds.column("template")) == set(TEMPLATES)
    with pytest.raises(gengap.DataError, match="unsupported"):
        solve("__import__('os')", {})


def test_xor_labels_and_flips():
    ds = generate("xor", seed=0, n=4000, dim=50, label_noise=0.2, mu=4.0, sigma=0.5)
    frame = ds.frame
    assert frame.flipped.sum() == 800
    assert (frame.target == np.where(frame.flipped, 1 - frame.clean_target, frame.clean_target)).all()
    x = np.stack(frame.input.to_list())
    assert x.shape == (4000, 50)
    centres = np.stack([x[frame.cluster == c].mean(axis=0) for c in range(4)])
    assert np.linalg.matrix_rank(centres - centres.mean(axis=0), tol=1.0) == 2  # the means span a 2-d subspace
    assert (frame.groupby("cluster").clean_target.nunique() == 1).all()


# ---------------------------------------------------------------------------- bad parameters
@pytest.mark.parametrize("name, params, fragment", [
    ("addition", {"max_digits": 30}, r"max_digits=30 is invalid; it must be an integer in \[1, 18\]"),
    ("addition", {"min_digits": 6, "max_digits": 5}, "min_digits=6 must be <= max_digits=5"),
    ("addition", {"max_digit": 5}, "no parameter 'max_digit'. Did you mean 'max_digits'"),
    ("addition", {"n": 0}, r"n=0 is invalid; it must be an integer in \[1, "),
    ("addition", {"n": 2.5}, "n=2.5 is invalid"),
    ("addition", {"spaced": "maybe"}, "spaced='maybe' is invalid; it must be true or false"),
    ("multiplication", {"max_digits": 10}, r"\[1, 9\]"),
    ("dyck", {"n_types": 5}, r"n_types=5 is invalid; it must be an integer in \[1, 4\]"),
    ("modular", {"p": 12, "operation": "div"}, "p=12 must be prime"),
    ("modular", {"operation": "pow"}, "operation='pow' is invalid; it must be one of 'add'"),
    ("modular", {"train_fraction": 1.5}, r"train_fraction=1.5 is invalid; it must be a number in \[0.01, 0.99\]"),
    ("facts", {"ood_fraction": 0.0}, "ood_fraction=0.0"),
    ("facts", {"kind": "compare"}, "Did you mean 'comparison'"),
    ("grids", {"geometric": "rot90,spin"}, "unknown name\\(s\\) \\['spin'\\]"),
    ("grids", {"n_held_out": 40}, "n_held_out=40 must be <= "),
    ("word_problems", {"templates": "gift,nope"}, "unknown template\\(s\\) \\['nope'\\]"),
    ("xor", {"label_noise": 0.7}, r"label_noise=0.7 is invalid; it must be a number in \[0, 0.5\]"),
    ("parity", {"min_length": 9, "max_length": 3}, "min_length=9 must be <= max_length=3"),
])
def test_bad_parameters_rejected_with_the_range(name, params, fragment):
    with pytest.raises(ConfigError, match=fragment):
        generate(name, **params)


def test_bad_task_name_and_seed():
    with pytest.raises(ConfigError, match="Did you mean 'parity'"):
        generate("parrity")
    with pytest.raises(ConfigError, match="seed=-1"):
        generate("parity", seed=-1)


def test_generator_functions_check_arguments_when_called_directly():
    from gengap.tasks.algorithmic import addition

    assert addition(n=5, seed=1).fingerprint() == generate("addition", n=5, seed=1).fingerprint()
    with pytest.raises(ConfigError, match="max_digits=0"):
        addition(max_digits=0)


# ---------------------------------------------------------------------------- through evaluate and the CLI
def _exact_adder(batch):
    return [" ".join(str(sum(int(t) for t in unspace(x).split("+")))) for x in batch]


def _short_adder(batch):
    """Right up to 5 digits, wrong beyond: what a model that does not extrapolate looks like."""
    out = []
    for x in batch:
        a, b = unspace(x).split("+")
        out.append(" ".join(str(int(a) + int(b))) if max(len(a), len(b)) <= 5 else "0")
    return out


def test_natural_length_split_through_evaluate(tmp_path):
    ds = generate("addition", seed=0, n=2000)
    ev = gengap.evaluate({"exact": _exact_adder, "short": _short_adder}, ds, list(natural_splits("addition").values()),
                         out=tmp_path, progress=False)
    summary = ev.summary().set_index(["model", "split"])
    assert summary.loc[("exact", "length"), "score"] == 1.0
    assert summary.loc[("short", "length"), "score"] == 0.0
    assert summary.loc[("short", "random"), "score"] == pytest.approx(0.5, abs=0.1)


def test_cli_list_and_generate(tmp_path):
    runner = CliRunner()
    listed = runner.invoke(app, ["tasks", "list"])
    assert listed.exit_code == 0 and "addition" in listed.output and "dyck" in listed.output
    out = tmp_path / "add.jsonl"
    result = runner.invoke(app, ["tasks", "generate", "addition", "--out", str(out), "--seed", "4", "-p", "n=50",
                                 "-p", "max_digits=4"])
    assert result.exit_code == 0, result.output
    rows = read_jsonl(out)
    assert len(rows) == 50 and rows == generate("addition", seed=4, n=50, max_digits=4).to_records()
    assert "length:by=n_digits,max_train_length=2" in result.output
    loaded = gengap.load(out, id="id")
    assert loaded.fingerprint() == generate("addition", seed=4, n=50, max_digits=4).fingerprint()
    bad = runner.invoke(app, ["tasks", "generate", "addition", "--out", str(out), "-p", "max_digits=99"])
    assert bad.exit_code != 0 and re.search(r"max_digits=99 is invalid", str(bad.exception))


def test_word_problems_checked_by_the_template_module():
    ds = generate("word_problems", seed=9, n=300, scale=3)
    for row in ds.to_records():
        from gengap.tasks.word_problems import as_template

        t = as_template(row["template"], person=row["person"], other=row["other"], item=row["item"], scale=3)
        assert t.check(row["input"], row["target"]), row
        numbers = json.loads(row["values"])
        assert {k: int(v) for k, v in t.read(row["input"]).items()} == {k: numbers[k] for k in t.slots}
        variant = t.sample(np.random.default_rng(0))
        assert t.check(variant["input"], variant["target"])
