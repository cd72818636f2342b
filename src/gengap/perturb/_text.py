"""Perturbations of the text: format and punctuation, character noise, distractors, prompt templates.

Format changes follow "Quantifying Language Models' Sensitivity to Spurious Features in Prompt
Design" (FormatSpread) and "When Punctuation Matters": separators, casing, spacing, field labels,
quoting and few-shot delimiters that leave the meaning intact. Character noise draws keyboard
typos, swaps and deletions at a ``rate`` per letter.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from gengap._errors import ConfigError
from gengap.perturb._base import Example, Perturbation, map_text

__all__ = [
    "Whitespace", "Casing", "TrailingPunctuation", "Separator", "Quoting", "FieldLabels", "FewShotDelimiter",
    "Typos", "CharSwap", "CharDelete", "Distractor", "PromptTemplate", "prompt_templates", "BUILTIN_PROMPTS",
]


def _check_rate(rate: float, name: str) -> float:
    if not 0 <= rate <= 1:
        raise ConfigError(f"Perturbation '{name}': rate={rate} must be between 0 and 1 (a share of characters).")
    return float(rate)


def _check_choice(value: str, allowed: Sequence[str], what: str, name: str) -> str:
    if value not in allowed:
        raise ConfigError(f"Perturbation '{name}': {what}={value!r}; use one of {list(allowed)}.")
    return value


class _TextPerturbation(Perturbation):
    """Changes the input text only (every text field of a dict input)."""

    def perturb(self, example: Example, rng: np.random.Generator) -> Example:
        example["input"] = map_text(example["input"], lambda t: self.text(t, rng))
        return example

    def text(self, text: str, rng: np.random.Generator) -> str:  # pragma: no cover - interface
        raise NotImplementedError


# ------------------------------------------------------------------------------ format
class Whitespace(_TextPerturbation):
    """Doubles spaces, adds newlines or tabs between words at ``rate``, and pads the ends.

    >>> Whitespace(rate=1.0).text("a b", np.random.default_rng(0)).strip() != "a b"
    True
    """

    family = "format"
    _GAPS = (" ", "  ", "\n", " \t", "   ")

    def __init__(self, rate: float = 0.1) -> None:
        self.rate = _check_rate(rate, "whitespace")
        self.name = "whitespace" if rate == 0.1 else f"whitespace:rate={rate}"

    def text(self, text: str, rng: np.random.Generator) -> str:
        parts = text.split(" ")
        n = len(parts) - 1
        kinds = np.where(rng.random(n) < self.rate, rng.integers(1, len(self._GAPS), size=n), 0).tolist()
        gaps = self._GAPS
        out = [parts[0]]
        for word, k in zip(parts[1:], kinds):
            out.append(gaps[k])
            out.append(word)
        pad = ("", " ", "\n")[int(rng.integers(3))]
        return pad + "".join(out) + pad


class Casing(_TextPerturbation):
    """Changes letter case: ``lower``, ``upper``, ``title`` or ``random`` (words flipped at random).

    >>> Casing(mode="upper").text("Is it?", np.random.default_rng(0))
    'IS IT?'
    """

    family = "format"
    MODES = ("lower", "upper", "title", "random")

    def __init__(self, mode: str = "random") -> None:
        self.mode = _check_choice(mode, self.MODES, "mode", "casing")
        self.name = "casing" if mode == "random" else f"casing:mode={mode}"

    def text(self, text: str, rng: np.random.Generator) -> str:
        if self.mode == "lower":
            return text.lower()
        if self.mode == "upper":
            return text.upper()
        if self.mode == "title":
            return text.title()
        words = text.split(" ")
        flip = rng.random(len(words)) < 0.3
        return " ".join(w.upper() if f else w for w, f in zip(words, flip))


class TrailingPunctuation(_TextPerturbation):
    """Strips the final punctuation (``strip``), adds some (``add``), or either (``random``).

    >>> TrailingPunctuation(mode="strip").text("Is it red?", np.random.default_rng(0))
    'Is it red'
    """

    family = "format"

    def __init__(self, mode: str = "random") -> None:
        self.mode = _check_choice(mode, ("strip", "add", "random"), "mode", "trailing_punctuation")
        self.name = "trailing_punctuation" if mode == "random" else f"trailing_punctuation:mode={mode}"

    def text(self, text: str, rng: np.random.Generator) -> str:
        mode = self.mode if self.mode != "random" else ("strip", "add")[int(rng.integers(2))]
        body = text.rstrip()
        if mode == "strip":
            return re.sub(r"[.?!;:,\s]+$", "", body)
        return body + [" .", "..", " ?", "!", " :"][int(rng.integers(5))]


_SEPARATORS = (": ", " - ", " = ", ":: ", ":\n", " | ", ":  ")


class Separator(_TextPerturbation):
    """Swaps the separator after field labels (``Question: ...``) and between fields (newlines).

    >>> Separator().text("Question: 2+2\\nAnswer:", np.random.default_rng(3)) != "Question: 2+2\\nAnswer:"
    True
    """

    family = "format"
    name = "separator"
    _LABEL = re.compile(r"(?m)^([A-Z][A-Za-z ]{0,20}?)\s*:[ \t]*")

    def text(self, text: str, rng: np.random.Generator) -> str:
        sep = _SEPARATORS[int(rng.integers(1, len(_SEPARATORS)))]
        joiner = ["\n", "\n\n", " || ", "\n--\n"][int(rng.integers(4))]
        out = self._LABEL.sub(lambda m: m.group(1) + sep, text)
        return joiner.join(out.split("\n")) if "\n" in out else out


class Quoting(_TextPerturbation):
    """Wraps the text in quotes, guillemets or a code fence."""

    family = "format"
    name = "quoting"
    _STYLES = (('"', '"'), ("'", "'"), ("“", "”"), ("«", "»"), ("```\n", "\n```"), ("<<", ">>"))

    def text(self, text: str, rng: np.random.Generator) -> str:
        left, right = self._STYLES[int(rng.integers(len(self._STYLES)))]
        return f"{left}{text}{right}"


_LABELS = {
    "question": ("Question", "Q", "QUESTION", "Query", "Problem"),
    "answer": ("Answer", "A", "ANSWER", "Response", "Solution"),
    "context": ("Context", "Passage", "CONTEXT", "Text", "Background"),
    "input": ("Input", "INPUT", "Text", "Sentence"),
    "output": ("Output", "OUTPUT", "Label", "Prediction"),
}
_LABEL_RE = re.compile(r"(?mi)^(question|answer|context|input|output|q|a)(\s*:)")


class FieldLabels(_TextPerturbation):
    """Renames field labels consistently: ``Question:`` to ``Q:``, ``Answer:`` to ``Response:``, ...

    >>> FieldLabels().text("Question: hi\\nAnswer:", np.random.default_rng(1)).count(":")
    2
    """

    family = "format"
    name = "field_labels"

    def text(self, text: str, rng: np.random.Generator) -> str:
        pick = {k: v[int(rng.integers(1, len(v)))] for k, v in _LABELS.items()}
        short = {"q": "question", "a": "answer"}

        def swap(m: re.Match[str]) -> str:
            key = m.group(1).lower()
            return pick[short.get(key, key)] + m.group(2)

        return _LABEL_RE.sub(swap, text)


class FewShotDelimiter(_TextPerturbation):
    """Changes the blank line between few-shot examples to another delimiter."""

    family = "format"
    name = "fewshot_delimiter"
    _DELIMS = ("\n###\n", "\n---\n", "\n\n\n", "\n* * *\n", "\n<example>\n")

    def text(self, text: str, rng: np.random.Generator) -> str:
        return text.replace("\n\n", self._DELIMS[int(rng.integers(len(self._DELIMS)))])


# ------------------------------------------------------------------------------ character noise
_KEYBOARD = ["qwertyuiop", "asdfghjkl", "zxcvbnm"]


def _neighbours() -> dict[str, str]:
    near: dict[str, str] = {}
    for r, row in enumerate(_KEYBOARD):
        for c, ch in enumerate(row):
            keys = []
            for dr in (-1, 0, 1):
                rr = r + dr
                if 0 <= rr < len(_KEYBOARD):
                    for dc in (-1, 0, 1):
                        cc = c + dc + (0 if dr == 0 else (0 if dr < 0 else -0))
                        if (dr, dc) != (0, 0) and 0 <= cc < len(_KEYBOARD[rr]):
                            keys.append(_KEYBOARD[rr][cc])
            near[ch] = "".join(keys)
    return near


_NEAR = _neighbours()


class _CharNoise(_TextPerturbation):
    family = "noise"
    base = "noise"

    def __init__(self, rate: float = 0.05) -> None:
        self.rate = _check_rate(rate, self.base)
        self.name = self.base if rate == 0.05 else f"{self.base}:rate={rate}"

    def _positions(self, text: str, rng: np.random.Generator) -> np.ndarray:
        draw = rng.random(len(text)) < self.rate
        letters = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32) if text else np.zeros(0, np.uint32)
        is_letter = ((letters >= 65) & (letters <= 90)) | ((letters >= 97) & (letters <= 122))
        return np.flatnonzero(draw & is_letter)


class Typos(_CharNoise):
    """Replaces letters at ``rate`` by a neighbouring key on a QWERTY keyboard (case kept).

    >>> Typos(rate=1.0).text("cat", np.random.default_rng(0)) != "cat"
    True
    """

    base = "typos"

    def text(self, text: str, rng: np.random.Generator) -> str:
        pos = self._positions(text, rng)
        if not pos.size:
            return text
        chars = list(text)
        picks = rng.random(pos.size)
        for p, u in zip(pos, picks):
            ch = chars[p]
            near = _NEAR[ch.lower()]
            new = near[int(u * len(near))]
            chars[p] = new.upper() if ch.isupper() else new
        return "".join(chars)


class CharSwap(_CharNoise):
    """Swaps a letter with the next character at ``rate``."""

    base = "char_swap"

    def text(self, text: str, rng: np.random.Generator) -> str:
        chars = list(text)
        last = -2
        for p in self._positions(text, rng):
            if p + 1 < len(chars) and p > last + 1:
                chars[p], chars[p + 1] = chars[p + 1], chars[p]
                last = p
        return "".join(chars)


class CharDelete(_CharNoise):
    """Deletes letters at ``rate``."""

    base = "char_delete"

    def text(self, text: str, rng: np.random.Generator) -> str:
        pos = self._positions(text, rng)
        if not pos.size:
            return text
        keep = np.ones(len(text), dtype=bool)
        keep[pos] = False
        return "".join(ch for ch, k in zip(text, keep) if k)


# ------------------------------------------------------------------------------ distractors
DISTRACTORS = (
    "The weather in the city was mild that week.",
    "Note that the library closes at six on weekdays.",
    "Many people enjoy a cup of tea in the afternoon.",
    "The committee meets on the first Monday of each month.",
    "A nearby bakery had recently changed its opening hours.",
    "Some of the trees along the river are over a hundred years old.",
    "The old bridge was repainted green last spring.",
    "Her cousin collects stamps from islands in the Pacific.",
)


class Distractor(_TextPerturbation):
    """Inserts an irrelevant sentence (or passage) at ``position``: start, end, middle or random.

    >>> Distractor(position="start", sentences=["Cats purr."]).text("What is 2+2?", np.random.default_rng(0))
    'Cats purr. What is 2+2?'
    """

    family = "distractor"
    POSITIONS = ("start", "middle", "end", "random")

    def __init__(self, position: str = "middle", sentences: Sequence[str] | None = None, n: int = 1) -> None:
        self.position = _check_choice(position, self.POSITIONS, "position", "distractor")
        if n < 1:
            raise ConfigError(f"Perturbation 'distractor': n={n} sentences; use at least 1.")
        self.sentences = tuple(sentences) if sentences else DISTRACTORS
        if not all(isinstance(s, str) and s.strip() for s in self.sentences):
            raise ConfigError("Perturbation 'distractor': sentences must be non-empty strings.")
        self.n = n
        self.name = "distractor" if (position, n, sentences) == ("middle", 1, None) else f"distractor:position={position}" + (
            f",n={n}" if n != 1 else "")

    def text(self, text: str, rng: np.random.Generator) -> str:
        idx = rng.choice(len(self.sentences), size=min(self.n, len(self.sentences)), replace=False)
        extra = " ".join(self.sentences[int(i)] for i in idx)
        position = self.position if self.position != "random" else ("start", "middle", "end")[int(rng.integers(3))]
        if position == "start":
            return f"{extra} {text}"
        if position == "end":
            # before a trailing question or answer cue, so the prompt still ends the same way
            m = re.search(r"(\n?\s*(?:Answer|A|Output)\s*:\s*)$", text)
            return f"{text[:m.start()]} {extra}{m.group(1)}" if m else f"{text} {extra}"
        bounds = [m.end() for m in re.finditer(r"[.!?;]\s", text)]
        if not bounds:
            return f"{extra} {text}"
        cut = bounds[int(rng.integers(len(bounds)))]
        return f"{text[:cut]}{extra} {text[cut:]}"


# ------------------------------------------------------------------------------ prompt templates
BUILTIN_PROMPTS = (
    "{input}",
    "Question: {input}\nAnswer:",
    "Q: {input}\nA:",
    "{input}\nThe answer is",
    "Answer the following.\n\n{input}",
    "### Instruction\n{input}\n\n### Response\n",
    "Input: {input}\nOutput:",
    "Please respond briefly.\n{input}",
)


class PromptTemplate(_TextPerturbation):
    """The input placed inside a prompt template with an ``{input}`` slot.

    >>> PromptTemplate("Q: {input}\\nA:").text("2+2?", np.random.default_rng(0))
    'Q: 2+2?\\nA:'
    """

    family = "template"

    def __init__(self, template: str, *, name: str | None = None) -> None:
        if "{input}" not in template:
            raise ConfigError(f"Prompt template {template!r} has no '{{input}}' slot; write e.g. 'Q: {{input}}\\nA:'.")
        self.template = template
        self.name = name or f"template:{template!r}"

    def text(self, text: str, rng: np.random.Generator) -> str:
        return self.template.replace("{input}", text)


def prompt_templates(templates: Sequence[str] | None = None) -> list[PromptTemplate]:
    """The same items under several templates (default: the built-in ones), named ``template-1`` ...

    >>> [p.name for p in prompt_templates(["{input}?", "Q: {input}"])]
    ['template-1', 'template-2']
    """
    chosen = list(templates) if templates else list(BUILTIN_PROMPTS)
    return [PromptTemplate(t, name=f"template-{i + 1}") for i, t in enumerate(chosen)]
