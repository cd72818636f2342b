"""What the rules read, as one value: the short readers the extraction tests assert with. They test the rules,
so the verifier that runs after them is off unless a test passes ``verify=True``.

>>> num("The answer is 42.", "What is 6 x 7?")
'42'
"""

from __future__ import annotations

from typing import Any

from gengap.extract import extract


def read(output: str, kind: str, question: str | None = None, choices: list[str] | None = None, **kw: Any) -> str | None:
    """The value the rules read from ``output`` as ``kind`` (None when they read no answer)."""
    kw.setdefault("verify", False)
    return extract(output, kind, question=question, choices=choices, **kw).value


def num(output: str, question: str | None = None, **kw: Any) -> str | None:
    return read(output, "number", question, **kw)


def ch(output: str, question: str | None, choices: list[str], **kw: Any) -> str | None:
    return read(output, "choice", question, choices, **kw)


def yn(output: str, question: str | None = None, **kw: Any) -> str | None:
    return read(output, "yes_no", question, **kw)


def tx(output: str, question: str | None = None, **kw: Any) -> str | None:
    return read(output, "text", question, **kw)
