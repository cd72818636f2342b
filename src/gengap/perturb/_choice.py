"""Multiple-choice perturbations: option order, option length, question form, and a contamination probe.

A multiple-choice item is an example with metadata ``question`` (the stem) and ``choices`` (the
option texts, in order) and a target that is the gold letter (``"B"``); its input is the stem with
the lettered options (:func:`format_choices`). :func:`multiple_choice_dataset` builds such a dataset
from records and refuses items whose gold is not among the options.

- :class:`ShuffleChoices`: options in a new order, the gold letter remapped.
- :class:`OptionLength`: one option lengthened or shortened ("Stress Testing Generalization" moved
  an MMLU score from 60 to 89, and from 89 to 36, by option length alone).
- :class:`ToOpenAnswer`, :class:`ToTrueFalse`: the same question without options, or as a yes/no
  judgement of one proposed option.
- :class:`ContaminationProbe`: the wrong options replaced by correct answers of other questions
  ("Data Contamination Can Cross Language Barriers"): a model that learned the task finds the items
  easier, a model that memorized the test set does not.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import chain
from typing import Any

import numpy as np
import pandas as pd

from gengap._errors import ConfigError, DataError
from gengap.dataset import Dataset
from gengap.perturb._base import Example, Perturbation

__all__ = [
    "format_choices", "multiple_choice_dataset", "check_choices",
    "ShuffleChoices", "OptionLength", "ToOpenAnswer", "ToTrueFalse", "ContaminationProbe",
]

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def format_choices(question: str, choices: Sequence[str]) -> str:
    """The prompt of a multiple-choice item: the stem, then ``A. option`` lines.

    >>> print(format_choices("2+2?", ["3", "4"]))
    2+2?
    A. 3
    B. 4
    """
    return question.rstrip() + "\n" + "\n".join(f"{LETTERS[i]}. {c}" for i, c in enumerate(choices))


def _gold_index(example: Example, where: str = "") -> int:
    choices = example.get("choices")
    target = example.get("target")
    ident = f"example '{example.get('id')}'{where}"
    if not isinstance(choices, (list, tuple, np.ndarray)) or len(choices) < 2:
        raise DataError(f"{ident} has no list of at least two options in its 'choices' metadata (got {choices!r}); "
                        "multiple-choice perturbations need items built with multiple_choice_dataset().")
    choices = [str(c) for c in choices]
    t = str(target).strip()
    if len(t) == 1 and t.upper() in LETTERS[:len(choices)]:
        return LETTERS.index(t.upper())
    if t in choices:
        return choices.index(t)
    raise DataError(f"{ident}: the gold answer {target!r} is not among its {len(choices)} options {choices}. "
                    f"Give the gold as a letter A-{LETTERS[len(choices) - 1]} or as the exact text of one option.")


def check_choices(dataset: Dataset) -> None:
    """Raise a DataError naming the first item whose gold answer is not one of its options."""
    for rec in dataset.to_records():
        _gold_index(rec, f" of '{dataset.name}'")


def multiple_choice_dataset(records: Sequence[dict[str, Any]] | pd.DataFrame, *, question: str = "question",
                            choices: str = "choices", answer: str = "answer", id: str | None = None,
                            name: str = "multiple_choice") -> Dataset:
    """A Dataset of multiple-choice items: input rendered with lettered options, target the gold letter.

    ``answer`` may hold a letter, an index (0-based) or the text of the gold option.

    >>> ds = multiple_choice_dataset([{"question": "2+2?", "choices": ["3", "4"], "answer": "4"}])
    >>> ds.targets, ds.column("choices")[0]
    (['B'], ['3', '4'])
    """
    frame = records.copy() if isinstance(records, pd.DataFrame) else pd.DataFrame.from_records(list(records))
    for col in (question, choices, answer):
        if col not in frame.columns:
            raise DataError(f"Multiple-choice records have no column '{col}'; columns are {list(frame.columns)}.")
    rows = []
    for i, rec in enumerate(frame.to_dict(orient="records")):
        opts = [str(c) for c in rec[choices]] if isinstance(rec[choices], (list, tuple, np.ndarray)) else None
        gold = rec[answer]
        if isinstance(gold, (int, np.integer)) and not isinstance(gold, bool) and opts and 0 <= gold < len(opts):
            gold = LETTERS[int(gold)]
        ex = {"id": str(rec[id]) if id else str(i), "target": gold, "choices": opts}
        try:
            index = _gold_index(ex, f" (row {i + 1})")
        except DataError as e:
            raise DataError(f"{e} Fix the '{answer}' column.") from None
        rows.append({"id": ex["id"], "input": format_choices(str(rec[question]), opts), "target": LETTERS[index],
                     "question": str(rec[question]), "choices": opts, "choice_origin": list(range(len(opts)))})
    return Dataset(pd.DataFrame.from_records(rows), name=name)


def _rerender(example: Example, choices: list[str], gold: int, origin: list[int]) -> Example:
    question = example.get("question") or str(example["input"]).split("\nA.", 1)[0]
    example.update(choices=choices, target=LETTERS[gold], choice_origin=origin,
                   input=format_choices(str(question), choices))
    return example


def _origin(example: Example) -> list[int]:
    origin = example.get("choice_origin")
    if isinstance(origin, (list, tuple, np.ndarray)) and len(origin) == len(example["choices"]):
        return [int(o) for o in origin]
    return list(range(len(example["choices"])))


class ShuffleChoices(Perturbation):
    """Options in a random new order (never the original one), the gold letter remapped.

    >>> ds = multiple_choice_dataset([{"question": "2+2?", "choices": ["3", "4", "5"], "answer": "B"}])
    >>> out = ShuffleChoices().apply(ds, seed=0)
    >>> out.column("choices")[0][ord(out.targets[0]) - 65]
    '4'
    """

    name, family = "shuffle_choices", "choice"

    def perturb(self, example: Example, rng: np.random.Generator) -> Example:
        gold = _gold_index(example)
        choices = [str(c) for c in example["choices"]]
        n = len(choices)
        perm = rng.permutation(n)
        if n > 1 and (perm == np.arange(n)).all():
            perm = np.roll(perm, 1)
        origin = _origin(example)
        return _rerender(example, [choices[p] for p in perm], int(np.flatnonzero(perm == gold)[0]),
                         [origin[p] for p in perm])


_PADDING = (
    ", which is the standard result described in most textbooks on the subject",
    " (this follows from the definitions and is widely accepted by specialists in the field)",
    ", as confirmed by several independent sources and careful measurement over many years",
    ", taking into account all of the relevant conditions stated in the question above",
)


class OptionLength(Perturbation):
    """One option made much longer (``mode="lengthen"``) or cut to its first words (``"shorten"``).

    ``target="gold"`` changes the correct option, ``"wrong"`` a random wrong one: a model that
    favours long answers gains on the first and loses on the second. Shortening keeps the first
    third of the words, so a one-word option stays as it is.
    """

    family = "choice"

    def __init__(self, mode: str = "lengthen", target: str = "wrong") -> None:
        if mode not in ("lengthen", "shorten"):
            raise ConfigError(f"Perturbation 'option_length': mode={mode!r}; use 'lengthen' or 'shorten'.")
        if target not in ("gold", "wrong"):
            raise ConfigError(f"Perturbation 'option_length': target={target!r}; use 'gold' or 'wrong'.")
        self.mode, self.which = mode, target
        self.name = f"{mode}_{target}_option"

    def perturb(self, example: Example, rng: np.random.Generator) -> Example:
        gold = _gold_index(example)
        choices = [str(c) for c in example["choices"]]
        wrong = [i for i in range(len(choices)) if i != gold]
        if self.mode == "shorten" and self.which == "wrong":
            # prefer an option that has words to lose; one-word options cannot get shorter
            wrong = [i for i in wrong if len(choices[i].split()) > 1] or wrong
        k = gold if self.which == "gold" else wrong[int(rng.integers(len(wrong)))]
        if self.mode == "lengthen":
            choices[k] = choices[k].rstrip(".") + _PADDING[int(rng.integers(len(_PADDING)))]
        else:
            words = choices[k].split()
            choices[k] = " ".join(words[: max(1, len(words) // 3)])
        return _rerender(example, choices, gold, _origin(example))


class ToOpenAnswer(Perturbation):
    """The stem alone, the gold option's text as the target (the label changes form)."""

    name, family, preserves_label = "mc_to_open", "choice", False

    def perturb(self, example: Example, rng: np.random.Generator) -> Example:
        gold = _gold_index(example)
        question = example.get("question") or str(example["input"]).split("\nA.", 1)[0]
        example.update(input=str(question), target=str(example["choices"][gold]))
        return example


class ToTrueFalse(Perturbation):
    """"Is X the answer?" for the gold option or a wrong one (half each); target ``yes`` or ``no``."""

    name, family, preserves_label = "mc_to_true_false", "choice", False

    def perturb(self, example: Example, rng: np.random.Generator) -> Example:
        gold = _gold_index(example)
        choices = [str(c) for c in example["choices"]]
        pick = gold if rng.random() < 0.5 else int(rng.choice([i for i in range(len(choices)) if i != gold]))
        question = example.get("question") or str(example["input"]).split("\nA.", 1)[0]
        example.update(input=f"{str(question).rstrip()}\nProposed answer: {choices[pick]}\nIs the proposed answer correct? "
                             "Answer yes or no.", target="yes" if pick == gold else "no")
        return example


def _lazy_permutation(rng: np.random.Generator, n: int) -> Iterator[int]:
    yield from rng.permutation(n)


class ContaminationProbe(Perturbation):
    """Wrong options replaced by the correct answers of other questions in the same set.

    The gold option keeps its text and position; needs at least as many items as options.
    """

    name, family = "contamination_probe", "choice"

    def perturb_all(self, examples: list[Example], rng: np.random.Generator) -> list[Example]:
        golds = [str(ex["choices"][_gold_index(ex)]) for ex in examples]
        pool = np.array(golds, dtype=object)
        out = []
        for i, ex in enumerate(examples):
            gold = _gold_index(ex)
            choices = [str(c) for c in ex["choices"]]
            seen, borrowed = {golds[i]}, []
            # random draws first (cheap on large sets), then a full pass if the draws ran dry
            for j in chain(rng.integers(len(pool), size=4 * len(choices)), _lazy_permutation(rng, len(pool))):
                if len(borrowed) == len(choices) - 1:
                    break
                if j != i and pool[j] not in seen:
                    seen.add(pool[j])
                    borrowed.append(str(pool[j]))
            if len(borrowed) < len(choices) - 1:
                raise DataError(f"Perturbation 'contamination_probe' needs at least {len(choices)} distinct gold answers "
                                f"to borrow from; the set has {len(set(golds))}. Use more items.")
            it = iter(borrowed)
            new = [c if k == gold else next(it) for k, c in enumerate(choices)]
            out.append(_rerender(dict(ex), new, gold, _origin(ex)))
        return out
