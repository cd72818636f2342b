"""The phrase lists of the commitment stage as data: one TOML file per language in ``phrases/``.

Each file holds lists of regular expressions by name (``marker``, ``conclusion``, ``refusal``, ``hedge``, ``apology``, ``unsure``, ``but``,
``maybe``, ``or``, ``which_one``); a rule asks for one list in some languages and gets one alternation,
with a lookahead of the characters its phrases open with (a cheap first test). A broken pattern, an unknown
list or a file that is not TOML stops the load with a message naming the file and the line.

>>> re.match(alternation("maybe", ("es", "de")), "tal vez").group(0)
'tal vez'
>>> opening_lookahead(["quizás?", "tal\\\\s+vez"])
'(?=[qt])'
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import tomllib

from gengap._errors import ConfigError

__all__ = ["FOLDER", "LISTS", "alternation", "languages_with", "load_phrases", "opening_lookahead", "phrases"]

FOLDER = Path(__file__).resolve().parent / "phrases"
#: The lists a phrase file may hold, and what each is for.
LISTS = {
    "marker": "the words that announce the answer ('Final answer:', 'The answer is')",
    "refusal": "the output declines or cannot answer",
    "hedge": "the output leaves the answer open",
    "conclusion": "the words that lead to a result worked out in prose ('so', 'therefore', 'in total')",
    "apology": "an apology, no answer alone",
    "unsure": "'I don't know', 'I'm not sure'",
    "but": "the word that turns from a doubt to a pick",
    "maybe": "'maybe' opening two candidates",
    "or": "the 'or' between two candidates",
    "which_one": "'I don't remember which' after two candidates",
    "yes": "a bare yes opening the reply",
    "no": "a bare no opening the reply",
}


def _line_of(text: str, needle: str, default: int = 1) -> int:
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return number
    return default


def _read_file(path: Path) -> dict[str, tuple[str, ...]]:
    text = path.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not a TOML phrase file ({e}).") from None
    lists: dict[str, tuple[str, ...]] = {}
    for name, items in data.items():
        if name == "language":
            continue
        line = _line_of(text, f"{name} =")
        if name not in LISTS:
            raise ConfigError(f"{path}, line {line}: unknown phrase list {name!r}; known lists: {', '.join(LISTS)}.")
        if not isinstance(items, list) or not all(isinstance(p, str) and p for p in items):
            raise ConfigError(f"{path}, line {line}: {name} must be a list of non-empty strings (regular expressions).")
        for pattern in items:
            try:
                re.compile(pattern)
            except re.error as e:
                raise ConfigError(f"{path}, line {_line_of(text, pattern, line)}: the {name} phrase {pattern!r} is not a "
                                  f"regular expression ({e}); fix it or remove the line.") from None
        lists[name] = tuple(items)
    return lists


def load_phrases(folder: Path = FOLDER) -> dict[str, dict[str, tuple[str, ...]]]:
    """Every language's phrase lists, by language code (the file's name: ``es.toml`` is ``es``)."""
    return {path.stem: _read_file(path) for path in sorted(folder.glob("*.toml"))}


@lru_cache(maxsize=1)
def _loaded() -> dict[str, dict[str, tuple[str, ...]]]:
    return load_phrases()


def phrases(name: str, languages: tuple[str, ...]) -> list[str]:
    """The phrases of list ``name`` in ``languages`` (in that order, each once)."""
    if name not in LISTS:
        raise ConfigError(f"Unknown phrase list {name!r}; known lists: {', '.join(LISTS)}.")
    loaded = _loaded()
    found: list[str] = []
    for lang in languages:
        if lang not in loaded:
            raise ConfigError(f"No phrase file for language {lang!r} in {FOLDER}; there are: {', '.join(loaded)}.")
        found += [p for p in loaded[lang].get(name, ()) if p not in found]
    return found


def languages_with(name: str) -> tuple[str, ...]:
    """The languages whose file holds list ``name``.

    >>> "de" in languages_with("yes"), "en" in languages_with("yes")
    (True, False)
    """
    return tuple(lang for lang, lists in _loaded().items() if lists.get(name))


def alternation(name: str, languages: tuple[str, ...]) -> str:
    """The phrases of ``name`` in ``languages`` as one non-capturing group."""
    found = phrases(name, languages)
    if not found:
        raise ConfigError(f"No {name} phrases in the phrase files of {', '.join(languages)} ({FOLDER}).")
    return "(?:" + "|".join(found) + ")"


def _first_chars(pattern: str) -> set[str] | None:
    """The characters a match of ``pattern`` can open with, as character-class items; None when it cannot tell."""
    while pattern.startswith(("(?<!", "(?<=")):  # a lookbehind takes no character
        pattern = pattern[pattern.index(")") + 1:]
    if pattern.startswith(r"\b"):
        pattern = pattern[2:]
    if pattern.startswith("(?:"):
        depth, start, found, i = 0, 3, set(), 3
        while i < len(pattern):
            c = pattern[i]
            if c == "\\":
                i += 2
                continue
            if c == "[":
                i = pattern.index("]", i + 2)
            elif c == "(":
                depth += 1
            elif c in "|)" and depth == 0:
                chars = _first_chars(pattern[start:i])
                if chars is None:
                    return None
                found |= chars
                start = i + 1
                if c == ")":
                    return None if pattern[i + 1:i + 2] in ("?", "*", "{") else found
            elif c == ")":
                depth -= 1
            i += 1
        return None
    if pattern[:1] == "[" and pattern[1:2] != "^":
        end = pattern.index("]", 2)
        item = pattern[1:end]
        rest = pattern[end + 1:end + 2]
    elif pattern[:1] == "\\" and pattern[1:2] in "-.'":
        item, rest = pattern[:2], pattern[2:3]
    elif pattern[:1] and pattern[:1] not in ".^$*+?{}[]\\|()":
        item, rest = pattern[:1].lower(), pattern[1:2]
    else:
        return None
    return None if rest in ("?", "*") or rest == "{" else {item}


def opening_lookahead(patterns: list[str]) -> str:
    """A lookahead of the characters the ``patterns`` can open with, or "" when one of them could open with any."""
    found: set[str] = set()
    for pattern in patterns:
        chars = _first_chars(pattern)
        if chars is None:
            return ""
        found |= chars
    return "(?=[" + "".join(sorted(found)) + "])"
