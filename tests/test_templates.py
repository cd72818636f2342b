"""Templated problems: rendering, exact solving, constraints, reading back, parse errors."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from gengap import Dataset
from gengap._errors import DataError
from gengap.perturb.problem_template import ProblemTemplate, TemplateError, format_value, verify_labels

SHOP = ProblemTemplate("A pen costs ${p:0.5..3/0.25} and a book costs ${b:4..20}. Sam buys {n:2..6} pens and one book. "
                "How much does he pay?", answer="n * p + b", name="shop")


def test_every_generated_label_is_recomputed():
    frame = SHOP.generate(200, seed=3)
    for text, target in zip(frame["input"], frame["target"]):
        values = SHOP.read(text)
        assert values is not None
        assert Fraction(target) == values["n"] * Fraction(values["p"]) + values["b"]


def test_seeded_and_constraints_hold():
    t = ProblemTemplate("{a:1..30} minus {b:1..30} is?", answer="a - b", constraints=["a > b", "(a - b) % 2 == 0"], name="sub")
    f1, f2 = t.generate(50, seed=7), t.generate(50, seed=7)
    assert f1.equals(f2) and not f1.equals(t.generate(50, seed=8))
    for values in f1["values"]:
        a, b = int(values["a"]), int(values["b"])
        assert a > b and (a - b) % 2 == 0


def test_reused_slot_and_value_sets():
    t = ProblemTemplate("{k:2|3|5} times {k} is?", answer="k * k", name="square")
    ex = t.sample(np.random.default_rng(0))
    k = ex["values"]["k"]
    assert ex["input"] == f"{k} times {k} is?" and ex["target"] == str(k * k)
    assert t.read("3 times 4 is?") is None  # the reused slot must match


def test_read_tolerates_spacing_and_case():
    assert SHOP.read("a pen costs $1.5 and a book costs $7.   sam buys 3 pens and one book.\nHow much does he pay?") == \
        {"p": Fraction(3, 2), "b": 7, "n": 3}


def test_exact_fractions():
    t = ProblemTemplate("Split {a:1..9} pies among {b:2..9} friends.", answer="a / b", name="pies")
    assert t.solve({"a": 1, "b": 3}) == Fraction(1, 3)
    assert format_value(Fraction(1, 3)) == "1/3" and format_value(Fraction(7, 4)) == "1.75"
    assert t.check("Split 1 pies among 3 friends.", "1/3")


@pytest.mark.parametrize("text, answer, message", [
    ("Tom has {a:1..5 apples", "a", r"unbalanced '\{' at position 8"),
    ("Tom has a:1..5} apples", "a", r"unbalanced '\}' at position 14"),
    ("x {a:1..5} and {b}", "a", r"slot '\{b\}' at position 15 has no range"),
    ("x {a:1..5} {a:2..3}", "a", "defined twice"),
    ("x {a:5..1}", "a", "range '5..1' is empty"),
    ("x {a:one..5}", "a", "cannot read 'one..5'"),
    ("x {a:1..5}", "a +* 2", r"answer 'a \+\* 2': cannot parse at position 3"),
    ("x {a:1..5}", "a + c", "unknown name 'c' at position 4"),
    ("x {a:1..5}", "__import__('os')", "only min, max, abs and round"),
    ("no slots here", "1", "has no slots"),
])
def test_parse_errors_name_template_and_position(text, answer, message):
    with pytest.raises(TemplateError, match=message) as info:
        ProblemTemplate(text, answer=answer, name="demo")
    assert "Template 'demo'" in str(info.value)


def test_impossible_constraints_and_division_by_zero():
    t = ProblemTemplate("{a:1..3}?", answer="a", constraints=["a > 10"], name="never", max_tries=50)
    with pytest.raises(DataError, match="no draw of 50 satisfied"):
        t.sample(np.random.default_rng(0))
    d = ProblemTemplate("{a:0..0} / {b:0..0}", answer="a / b", name="div0")
    with pytest.raises(DataError, match="divides by zero"):
        d.solve({"a": 0, "b": 0})


def test_verify_labels_flags_wrong_targets():
    frame = SHOP.generate(20, seed=0)
    ds = Dataset.from_frame(frame, id="id")
    assert verify_labels(ds, SHOP) == []
    frame.loc[4, "target"] = "0"
    assert verify_labels(Dataset.from_frame(frame, id="id"), SHOP) == ["shop-4"]
