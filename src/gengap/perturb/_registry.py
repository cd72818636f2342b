"""Perturbations by name, as the CLI and run files write them: ``"typos:rate=0.05"``.

A name, then optional ``key=value`` options after a colon, comma separated. ``"all_format"`` and the
other family names expand to every built-in perturbation of the family.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gengap._errors import ConfigError
from gengap._registry import Registry
from gengap._specs import check_options, parse_spec, signature_options
from gengap.perturb._base import Perturbation
from gengap.perturb._choice import ContaminationProbe, OptionLength, ShuffleChoices, ToOpenAnswer, ToTrueFalse
from gengap.perturb._text import (
    Casing,
    CharDelete,
    CharSwap,
    Distractor,
    FewShotDelimiter,
    FieldLabels,
    PromptTemplate,
    Quoting,
    Separator,
    TrailingPunctuation,
    Typos,
    Whitespace,
)

__all__ = ["make_perturbation", "make_perturbations", "register_perturbation", "available_perturbations"]

_BUILTIN: dict[str, Callable[..., Perturbation]] = {
    "whitespace": Whitespace,
    "casing": Casing,
    "trailing_punctuation": TrailingPunctuation,
    "separator": Separator,
    "quoting": Quoting,
    "field_labels": FieldLabels,
    "fewshot_delimiter": FewShotDelimiter,
    "typos": Typos,
    "char_swap": CharSwap,
    "char_delete": CharDelete,
    "distractor": Distractor,
    "template": PromptTemplate,
    "shuffle_choices": ShuffleChoices,
    "option_length": OptionLength,
    "lengthen_gold_option": lambda: OptionLength("lengthen", "gold"),
    "lengthen_wrong_option": lambda: OptionLength("lengthen", "wrong"),
    "shorten_gold_option": lambda: OptionLength("shorten", "gold"),
    "shorten_wrong_option": lambda: OptionLength("shorten", "wrong"),
    "mc_to_open": ToOpenAnswer,
    "mc_to_true_false": ToTrueFalse,
    "contamination_probe": ContaminationProbe,
}

#: Perturbation factories by name (a class or a function returning a Perturbation).
_FACTORIES: Registry[Callable[..., Perturbation]] = Registry("perturbation")
for _name, _factory in _BUILTIN.items():
    _FACTORIES.register(_name, _factory)

#: Family names that expand to several perturbations.
FAMILIES = {
    "all_format": ["whitespace", "casing", "trailing_punctuation", "separator", "quoting", "field_labels"],
    "all_noise": ["typos", "char_swap", "char_delete"],
    "all_choice": ["shuffle_choices", "lengthen_gold_option", "lengthen_wrong_option", "shorten_gold_option",
                   "contamination_probe"],
}


def register_perturbation(name: str, factory: Callable[..., Perturbation] | None = None, *, replace: bool = False) -> Any:
    """Make a perturbation class or factory available by name (usable as a decorator).

    >>> @register_perturbation("reverse_words")
    ... class ReverseWords(Perturbation):
    ...     name, family = "reverse_words", "format"
    ...     def perturb(self, example, rng):
    ...         return {**example, "input": " ".join(example["input"].split()[::-1])}
    >>> make_perturbation("reverse_words").family
    'format'
    """
    def add(f: Callable[..., Perturbation]) -> Callable[..., Perturbation]:
        if not name or ":" in name or "," in name:
            raise ConfigError(f"Perturbation name {name!r} must be non-empty, without ':' or ','.")
        _FACTORIES.register(name, f, replace=replace)
        return f

    return add(factory) if factory is not None else add


def available_perturbations() -> list[str]:
    """Every name :func:`make_perturbation` accepts."""
    return sorted(_FACTORIES) + sorted(FAMILIES)


def make_perturbation(spec: str | Perturbation) -> Perturbation:
    """Build one perturbation from ``"name"`` or ``"name:key=value,key=value"``.

    >>> make_perturbation("typos:rate=0.1").name, make_perturbation("casing:mode=upper").family
    ('typos:rate=0.1', 'format')
    """
    if isinstance(spec, Perturbation):
        return spec
    if not isinstance(spec, str) or not spec.strip():
        raise ConfigError(f"A perturbation spec must be a name such as 'typos:rate=0.05'; got {spec!r}.")
    name, _, rest = spec.strip().partition(":")
    name = name.strip()
    if name in FAMILIES:
        raise ConfigError(f"'{name}' names several perturbations; use make_perturbations('{name}').")
    factory = _FACTORIES.lookup(name, also=FAMILIES)
    if name == "template":  # the template text may hold commas and '=': everything after the colon
        options: dict[str, Any] = {"template": rest.replace("\\n", "\n")} if rest else {}
    else:
        options = parse_spec(spec, what="Perturbation")[1]
    check_options(spec, name, options, signature_options(factory), what="Perturbation")
    try:
        return factory(**options)
    except TypeError as e:
        raise ConfigError(f"Perturbation '{spec}': {e}") from None


def make_perturbations(specs: str | list[str]) -> list[Perturbation]:
    """Several perturbations; family names (``all_format``, ``all_noise``, ``all_choice``) expand.

    >>> [p.name for p in make_perturbations(["all_noise", "distractor"])]
    ['typos', 'char_swap', 'char_delete', 'distractor']
    """
    out: list[Perturbation] = []
    for spec in [specs] if isinstance(specs, str) else specs:
        if isinstance(spec, str) and spec.strip() in FAMILIES:
            out += [make_perturbation(s) for s in FAMILIES[spec.strip()]]
        else:
            out.append(make_perturbation(spec))
    return out
