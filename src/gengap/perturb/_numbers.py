"""New numbers for templated problems, with the answer recomputed by the template's solver."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gengap._errors import ConfigError, DataError
from gengap.perturb._base import Example, Perturbation
from gengap.perturb.problem_template import ProblemTemplate, format_value

__all__ = ["NumberSubstitution"]


class NumberSubstitution(Perturbation):
    """Redraws every slot of a templated problem and recomputes its target with the solver.

    The template of an example is the one named in its ``template`` metadata, else the first given
    template that reads its input. The label changes with the numbers (``preserves_label=False``);
    the solver guarantees it is right.

    >>> t = ProblemTemplate("{a:1..50} + {b:1..50} = ?", answer="a + b", name="add")
    >>> from gengap import Dataset
    >>> ds = Dataset.from_frame(t.generate(3, seed=0), id="id")
    >>> out = NumberSubstitution([t]).apply(ds, seed=1)
    >>> all(t.check(x, y) for x, y in zip(out.inputs, out.targets))
    True
    """

    name, family, preserves_label = "numbers", "numbers", False

    def __init__(self, templates: Sequence[ProblemTemplate] | ProblemTemplate) -> None:
        items = [templates] if isinstance(templates, ProblemTemplate) else list(templates)
        if not items or not all(isinstance(t, ProblemTemplate) for t in items):
            raise ConfigError("Perturbation 'numbers' needs one or more gengap.perturb.problem_template.ProblemTemplate objects "
                              "(the problems' templates), e.g. NumberSubstitution([template]).")
        self.templates = {t.name: t for t in items}

    def _template_for(self, example: Example) -> ProblemTemplate:
        named = example.get("template")
        if isinstance(named, str) and named in self.templates:
            return self.templates[named]
        text = example["input"]
        for t in self.templates.values():
            if isinstance(text, str) and t.read(text) is not None:
                return t
        raise DataError(f"Perturbation 'numbers': example '{example.get('id')}' matches none of the templates "
                        f"{list(self.templates)} (by its 'template' metadata or its text {str(text)[:60]!r}).")

    def perturb(self, example: Example, rng: np.random.Generator) -> Example:
        t = self._template_for(example)
        values = t.sample_values(rng)
        example.update(input=t.render(values), target=format_value(t.solve(values)),
                       values={k: format_value(v) for k, v in values.items()}, template=t.name)
        return example
