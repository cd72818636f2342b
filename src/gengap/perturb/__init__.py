"""Stress tests: perturbations that keep (or knowingly change) the label, and their statistics.

A perturbation is pure and seeded: ``perturb(example, rng) -> example``, with a ``name``, a
``family`` and ``preserves_label``; ``apply(dataset, seed)`` returns the perturbed Dataset with the
same ids, which is what ``gengap.evaluate(..., perturbations=[...])`` takes.

>>> from gengap.perturb import make_perturbations, with_combinations
>>> [p.name for p in with_combinations(make_perturbations(["typos", "casing"]))]
['typos', 'casing', 'all']

Families: ``format`` (whitespace, casing, trailing_punctuation, separator, quoting, field_labels,
fewshot_delimiter), ``noise`` (typos, char_swap, char_delete), ``distractor``, ``numbers``
(:class:`NumberSubstitution` with a :class:`gengap.perturb.problem_template.Template`), ``choice``
(shuffle_choices, option length, mc_to_open, mc_to_true_false, contamination_probe), ``template``
(:func:`prompt_templates`), ``custom`` (:func:`perturbation`), ``combined`` (:class:`Compose`).
"""

from gengap.perturb._base import FunctionPerturbation, Perturbation, map_text, perturbation
from gengap.perturb._choice import (
    ContaminationProbe,
    OptionLength,
    ShuffleChoices,
    ToOpenAnswer,
    ToTrueFalse,
    check_choices,
    format_choices,
    multiple_choice_dataset,
)
from gengap.perturb._combine import Compose, all_together, as_perturbation, pairs, with_combinations
from gengap.perturb._numbers import NumberSubstitution
from gengap.perturb._registry import (
    available_perturbations,
    make_perturbation,
    make_perturbations,
    register_perturbation,
)
from gengap.perturb._text import (
    BUILTIN_PROMPTS,
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
    prompt_templates,
)
from gengap.perturb.problem_template import ProblemTemplate

__all__ = [
    "Perturbation", "FunctionPerturbation", "Compose", "perturbation", "as_perturbation", "map_text",
    "pairs", "all_together", "with_combinations",
    "make_perturbation", "make_perturbations", "register_perturbation", "available_perturbations",
    "Whitespace", "Casing", "TrailingPunctuation", "Separator", "Quoting", "FieldLabels", "FewShotDelimiter",
    "Typos", "CharSwap", "CharDelete", "Distractor", "PromptTemplate", "prompt_templates", "BUILTIN_PROMPTS",
    "ShuffleChoices", "OptionLength", "ToOpenAnswer", "ToTrueFalse", "ContaminationProbe",
    "multiple_choice_dataset", "format_choices", "check_choices", "NumberSubstitution", "ProblemTemplate",
]
