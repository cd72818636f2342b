"""The cascade runner: an output's structure first (the answer part of a JSON, tagged or code
output), then the kind's rules in order, the first with an opinion deciding.

>>> from gengap.extract._base import Context, Rule
>>> rules = (Rule("digits", "answer_first", lambda ctx: ctx.text.strip() if ctx.text.strip().isdigit() else None),)
>>> run_cascade(rules, Context("42", "number")).value, run_cascade(rules, Context('{"answer": "7"}', "number")).rule
('42', 'structured_json')
"""

from __future__ import annotations

from collections.abc import Sequence

from gengap.extract._base import ABSTAIN, Context, Extraction, Rule, non_answer
from gengap.extract._structured import read_structured

__all__ = ["run_cascade"]


def run_cascade(rules: Sequence[Rule], ctx: Context, *, disabled: frozenset[str] = frozenset(),
                contest: bool = False) -> Extraction:
    """Read ``ctx`` with the first rule that has an opinion; with ``contest``, also note whether the
    next rule with an opinion reads something else."""
    found: Extraction | None = None
    if ctx.raw and "structured" not in disabled:  # a JSON, tagged or code output: read the part it marks as the answer
        structured = read_structured(rules, ctx, run_cascade)
        if structured is not None:
            return structured
    for rule in rules:
        if disabled and (rule.family in disabled or rule.name in disabled):
            continue
        value = rule.read(ctx)
        if value is None:
            continue
        if found is None:
            if value == ABSTAIN or (ctx.kind == "text" and non_answer(value)):
                return Extraction(None, ctx.kind, "unextracted")  # (an answer slot holding "unknown" is no answer)
            found = Extraction(value, ctx.kind, rule.name)
            if not contest:
                return found
        else:
            if value != ABSTAIN and value != found.value:
                return Extraction(found.value, ctx.kind, found.rule, contested=True, alternative=value)
            return found
    return found or Extraction(None, ctx.kind, "unextracted")
