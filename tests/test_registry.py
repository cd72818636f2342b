"""The one registry every named thing goes through: explicit names, no silent replacement, helpful lookups."""

from __future__ import annotations

import dataclasses

import pytest

import gengap
from gengap._registry import Registry
from gengap.extract import _REGISTRY as _EXTRACT_KINDS
from gengap.extract import register_extractor
from gengap.metrics import METRICS, register_metric
from gengap.monitor._base import MEASURES, register_measure
from gengap.perturb import register_perturbation
from gengap.report._sections import register_section, registered_sections
from gengap.splits import RandomSplit
from gengap.splits._base import SPLIT_METHODS
from gengap.tasks._registry import _TASKS, get_task, register_task


def test_duplicate_names_raise_unless_replacing():
    r: Registry[int] = Registry("widget")
    r.register("a", 1)
    r.register("a", 1)  # the same entry again (a module imported twice) is fine
    with pytest.raises(gengap.ConfigError, match="A widget named 'a' is already registered; pass replace=True"):
        r.register("a", 2)
    r.register("a", 2, replace=True)
    assert r["a"] == 2 and list(r) == ["a"] and len(r) == 1


@pytest.mark.parametrize("bad", ["", "a:b", "a,b", "a=b", None])
def test_names_that_specs_could_not_write_are_refused(bad):
    with pytest.raises(gengap.ConfigError, match="name must be non-empty"):
        Registry("widget").register(bad, 1)


def test_unknown_names_suggest_the_nearest_and_list_the_known():
    r: Registry[int] = Registry("widget")
    r.register("length", 1)
    r.register("random", 2)
    with pytest.raises(gengap.ConfigError, match="Unknown widget 'lenght'. Did you mean 'length'[?] Known: length, random."):
        r.lookup("lenght")


def test_specs_are_parsed_and_checked_against_the_entry():
    def primitive(*, primitive: str = "jump", seed: int = 0) -> tuple[str, int]:
        return primitive, seed

    r: Registry = Registry("split method", main_options={"primitive": "primitive"})
    r.register("primitive", primitive)
    assert r.parse("primitive:walk") == ("primitive", {"primitive": "walk"})
    assert r.parse("primitive:seed=3") == ("primitive", {"seed": 3})
    assert r.describe() == {"primitive": ["primitive", "seed"]}
    with pytest.raises(gengap.ConfigError, match="has no option 'sed'. Did you mean 'seed'"):
        r.parse("primitive:sed=3")


def test_a_subclass_does_not_take_its_parents_split_method():
    class SeededRandom(RandomSplit):
        pass

    assert SPLIT_METHODS["random"] is RandomSplit
    assert gengap.make_splitter("random").__class__ is RandomSplit


def test_every_registry_refuses_a_second_entry_under_a_taken_name():
    with pytest.raises(gengap.ConfigError, match="already registered"):
        register_metric("exact_match")(lambda outputs, targets: [0.0] * len(outputs))
    assert METRICS["exact_match"].__name__ == "exact_match"
    with pytest.raises(gengap.ConfigError, match="already registered"):
        register_perturbation("typos", lambda: None)
    register_extractor("conformance_kind")(lambda output, choices=None: output)
    try:
        with pytest.raises(gengap.ConfigError, match="already registered"):
            register_extractor("conformance_kind")(lambda output, choices=None: None)
    finally:
        _EXTRACT_KINDS.unregister("conformance_kind")
    get_task("scan")
    with pytest.raises(gengap.ConfigError, match="already registered"):
        register_task(dataclasses.replace(_TASKS["scan"], description="another task under the same name"))
    registered_sections()
    with pytest.raises(gengap.ConfigError, match="already registered"):
        register_section("perturbations", order=1)(lambda ctx: None)
    measure = next(iter(MEASURES.values()))
    with pytest.raises(gengap.ConfigError, match="already registered"):
        register_measure(type("Other", (measure,), {}))
