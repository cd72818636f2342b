"""Prompts built by gengap: an instruction, k few-shot examples from the split's train part, the question.

A :class:`Prompt` turns each test example into what a language model reads. Shots are drawn from
the split's **train part** (seeded by the prompt's seed and the example's id, so a perturbed
variant of an example gets the same shots as the clean one). A completions model reads one text::

    {instruction}{separator}{shot 1}{target of shot 1}{separator}...{separator}{question}

and a chat model reads the same as messages: the instruction as the system message, each shot
as a user message and an assistant answer, and the question as the last user message.

Templates name the example's columns in braces: ``{input}``, ``{target}`` (in ``target_template``),
any metadata column, and ``{choices}`` (a list column shown as lettered lines ``A. ...``).

Perturbations change the **question** by default (the example's own input), which is what
prompt-sensitivity studies measure; ``perturb="shots"``, ``"instruction"`` or combinations such
as ``"question+shots"`` move them.

>>> import gengap
>>> train = gengap.load([{"input": "1 + 1", "target": "2"}, {"input": "2 + 2", "target": "4"}])
>>> test = gengap.load([{"input": "3 + 4", "target": "7"}])
>>> p = Prompt("Question: {input}\\nAnswer:", k=1, instruction="Add the numbers.")
>>> print(p.render(test, train)[0])
Add the numbers.
<BLANKLINE>
Question: 2 + 2
Answer: 4
<BLANKLINE>
Question: 3 + 4
Answer:
>>> p.default_stops()
['\\n\\n', 'Question:']
"""

from __future__ import annotations

import hashlib
import string
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from gengap._errors import ConfigError, DataError, did_you_mean
from gengap.dataset import Dataset

__all__ = ["Prompt", "as_prompt", "PERTURB_TARGETS"]

#: What a perturbation may change in a prompt.
PERTURB_TARGETS = ("question", "shots", "instruction")


@dataclass(frozen=True)
class Prompt:
    """How test examples become prompts.

    Parameters
    ----------
    template : one example as the model reads it, e.g. ``"Question: {input}\\nAnswer:"``.
    k : few-shot examples drawn from the split's train part (0: none).
    instruction : text before everything else (the system message for chat models).
    target_template : what follows a shot's template, e.g. ``" {target}"``; for multiple choice by
        log-likelihood, each option is scored as this continuation.
    separator : between the instruction, the shots and the question.
    seed : draws the shots (with each example's id).
    perturb : what perturbations change: ``"question"`` (default), ``"shots"``, ``"instruction"``,
        or several joined with ``+``.
    """

    template: str = "{input}"
    k: int = 0
    instruction: str = ""
    target_template: str = " {target}"
    separator: str = "\n\n"
    seed: int = 0
    perturb: str = "question"

    def __post_init__(self) -> None:
        if not isinstance(self.k, int) or self.k < 0:
            raise ConfigError(f"prompt k={self.k!r} must be a whole number of few-shot examples, 0 or more.")
        for label, text in (("template", self.template), ("target_template", self.target_template),
                            ("instruction", self.instruction)):
            try:
                list(string.Formatter().parse(text))
            except ValueError as e:
                raise ConfigError(f"prompt {label} {text!r} is not a valid template ({e}); write literal braces "
                                  "as {{ and }}.") from None
        if "{input}" not in self.template and not self.fields(self.template):
            raise ConfigError(f"prompt template {self.template!r} names no column; put {{input}} where the question goes.")
        unknown = [t for t in self.perturb.split("+") if t not in PERTURB_TARGETS]
        if unknown or not self.perturb:
            raise ConfigError(f"prompt perturb={self.perturb!r}: each part must be one of {', '.join(PERTURB_TARGETS)} "
                              "(join several with +, e.g. 'question+shots').")

    @staticmethod
    def fields(text: str) -> list[str]:
        """Column names a template uses."""
        return [name for _, name, _, _ in string.Formatter().parse(text) if name]

    def targets(self) -> set[str]:
        """What perturbations change (``{"question"}`` by default)."""
        return set(self.perturb.split("+"))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def default_stops(self) -> list[str]:
        """Where a completions model should stop: a blank line, and the next example's prefix
        (the template's text before its first column), e.g. ``Question:``."""
        stops = ["\n\n"]
        prefix = self.template.split("{", 1)[0].strip()
        if prefix:
            stops.append(prefix)
        if self.separator.strip() and self.separator.strip() not in stops:
            stops.append(self.separator.strip())
        return stops

    # ------------------------------------------------------------------ checking
    def check(self, test: Dataset, pool: Dataset, *, where: str = "") -> None:
        """Raise a ConfigError when a template names a missing column or k exceeds the train part."""
        columns = ["input", "target", *test.metadata_columns]
        for label, text in (("template", self.template), ("target_template", self.target_template)):
            for name in self.fields(text):
                if name not in columns:
                    raise ConfigError(f"prompt {label} {text!r} names the column '{{{name}}}', which the data does not "
                                      f"have.{did_you_mean(name, columns)} Columns: {', '.join(columns)}.")
        if self.k > len(pool):
            raise ConfigError(f"prompt k={self.k} few-shot examples, but the train part{where} has only {len(pool)} "
                              "rows to draw them from. Lower k, or use a split with a larger train part "
                              "(the 'all' split has none: use k=0 with it).")

    # ------------------------------------------------------------------ rendering
    def render(self, test: Dataset, pool: Dataset, *, chat: bool = False, shots_from: Dataset | None = None,
               instruction: str | None = None) -> list[Any]:
        """One prompt per test example (text, or chat messages when ``chat``).

        ``shots_from`` (default ``pool``) supplies the shots' text for the drawn rows, so a
        perturbed copy of the pool shows perturbed shots; ``instruction`` replaces the instruction.
        """
        self.check(test, pool)
        rows = test.to_records()
        shown = (shots_from or pool).to_records()
        instruction = self.instruction if instruction is None else instruction
        out = []
        for row in rows:
            shots = [shown[i] for i in self._draw(str(row["id"]), len(pool))]
            out.append(self._messages(row, shots, instruction) if chat else self._text(row, shots, instruction))
        return out

    def continuation(self, option: str) -> str:
        """The text scored for one multiple-choice option (``target_template`` with the option)."""
        return self.target_template.format_map(_Row({"target": option}))

    def _draw(self, example_id: str, n: int) -> list[int]:
        if self.k == 0:
            return []
        digest = hashlib.sha256(f"{self.seed}:{example_id}".encode()).digest()
        rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
        return sorted(rng.choice(n, size=self.k, replace=False).tolist())

    def _fill(self, text: str, row: Mapping[str, Any]) -> str:
        return text.format_map(_Row(row))

    def _text(self, row: Mapping[str, Any], shots: Sequence[Mapping[str, Any]], instruction: str) -> str:
        parts = [instruction] if instruction else []
        parts += [self._fill(self.template, s) + self._fill(self.target_template, s) for s in shots]
        parts.append(self._fill(self.template, row))
        return self.separator.join(parts)

    def _messages(self, row: Mapping[str, Any], shots: Sequence[Mapping[str, Any]], instruction: str) -> list[dict[str, str]]:
        messages = [{"role": "system", "content": instruction}] if instruction else []
        for s in shots:
            messages.append({"role": "user", "content": self._fill(self.template, s)})
            messages.append({"role": "assistant", "content": self._fill(self.target_template, s).strip()})
        messages.append({"role": "user", "content": self._fill(self.template, row)})
        return messages


class _Row(dict):
    """A record for str.format_map: ``{choices}`` as lettered lines; a missing column is a DataError."""

    def __getitem__(self, key: str) -> Any:
        if key not in self:
            raise DataError(f"prompt template names '{{{key}}}', which example {dict.get(self, 'id')!r} does not have.")
        value = dict.__getitem__(self, key)
        if key == "choices" and isinstance(value, (list, tuple, np.ndarray)):
            return "\n".join(f"{string.ascii_uppercase[i]}. {c}" for i, c in enumerate(value))
        return "" if value is None else value


def as_prompt(spec: Prompt | Mapping[str, Any] | str | None) -> Prompt | None:
    """A Prompt from a Prompt, a dict of its fields (a run file's ``[prompt]``), or a template string.

    >>> as_prompt({"template": "Q: {input}\\nA:", "k": 2}).k
    2
    """
    if spec is None or isinstance(spec, Prompt):
        return spec
    if isinstance(spec, str):
        return Prompt(template=spec)
    if isinstance(spec, Mapping):
        valid = list(Prompt.__dataclass_fields__)
        for key in spec:
            if key not in valid:
                raise ConfigError(f"unknown prompt key '{key}'.{did_you_mean(str(key), valid)} Valid keys: {', '.join(valid)}.")
        return Prompt(**dict(spec))
    raise ConfigError(f"prompt must be a Prompt, a dict or a template string, got a {type(spec).__name__}.")
