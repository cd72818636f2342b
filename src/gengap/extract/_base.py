"""What every answer kind shares: the result type, the reading context, and the rules and tests that
do not depend on the kind (``\\boxed{}``, answer markers, hedges, refusals, corrections).
The cascade runner is :func:`gengap.extract._cascade.run_cascade`.

A cascade is a tuple of :class:`Rule`. Each rule reads the :class:`Context` of one output and
returns an answer, None (no opinion: the next rule reads) or :data:`ABSTAIN` (the output commits to
no answer: stop, unextracted). Every rule belongs to a *family*, the class of outputs it was written
for (``answer_first``, ``self_correction``, ...), so a benchmark can switch a family off and measure
how the rest of the cascade does on the outputs that family was written for.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from gengap.extract._phrases import alternation, languages_with, opening_lookahead, phrases

#: Returned by a rule when the output commits to no answer: the cascade stops, unextracted.
ABSTAIN = "\x00abstain"


@dataclass(frozen=True)
class Extraction:
    """What was read from one output.

    Attributes
    ----------
    value : the answer in canonical form (a number as its shortest decimal string, a choice as its
        upper-case letter, ``"yes"``/``"no"``, or the answer span), or None when unextracted.
    kind : the answer kind.
    rule : which rule of the cascade read it (``"unextracted"`` when none did).
    contested : another rule further down the cascade reads a different answer (only looked for
        when asked, e.g. by an :class:`~gengap.extract.Extractor` with a judge); a judge may settle it.
    alternative : that other reading, when contested.
    withheld : the answer the rules read and the verifier set aside (rule ``"verifier"``), else None.
    withheld_rule : the rule that read the withheld answer.
    """

    value: str | None
    kind: str
    rule: str
    contested: bool = field(default=False, compare=False)
    alternative: str | None = field(default=None, compare=False, repr=False)
    withheld: str | None = field(default=None, compare=False, repr=False)
    withheld_rule: str | None = field(default=None, compare=False, repr=False)

    @property
    def ok(self) -> bool:
        """Whether an answer was read."""
        return self.value is not None


@dataclass(frozen=True)
class Rule:
    """One step of a cascade: a name (kept on the result), a family, and the reading function."""

    name: str
    family: str
    read: Callable[[Context], str | None]


# ---------------------------------------------------------------------------------------- text helpers
# re.compile, kept for the patterns built from options and letters: more of them than re's own cache of 512 holds
compiled = lru_cache(maxsize=4096)(re.compile)
_MD_RE = re.compile(r"(?=[*_`#])(?:[*_`]+|^#{1,3}\s+)", re.MULTILINE)  # (?=...): a cheap test first
_SPACES = {"\u2212": "-", "\u2013": "-", "\u2014": " - ", "\u00a0": " ", "\u202f": " ", "\u2009": " ",
           "\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'}
_SPACES_RE = re.compile("|".join(_SPACES))
_HTML_RE = re.compile(r"</?(?:strong|b|em|i|p|br|span|div|u|code)\s*/?>", re.IGNORECASE)

# letters of another script glued to a Latin word or a number: a small model's stray tokens ("noを購入", "Spainにある")
_GLUED_SCRIPT_RE = re.compile(r"(?<=[A-Za-z0-9])[\u0400-\u04ff\u0590-\u06ff\u0900-\u097f\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]+")


def clean(text: str) -> str:
    """Markdown emphasis and headings and stray HTML tags removed, dashes, quotes and odd spaces made plain,
    stray letters of another script glued to a word cut off."""
    if not text.isascii():
        text = _GLUED_SCRIPT_RE.sub(" ", _SPACES_RE.sub(lambda m: _SPACES[m.group(0)], text))
    if "~~" in text:
        text = without_struck(text)  # "~~41~~ 42": struck out is taken back
    return _MD_RE.sub("", _HTML_RE.sub("", text))


# (?=[.!?]) first: a cheap test that spares the lookbehinds at every other character
_SENTENCE_RE = re.compile(r"(?=[.!?])(?:(?<!(?<!\w)[A-Z])|(?=[.!?]*\s+(?:It|It's|The|This|That|These|Those|There|They|He|She|We|You|Many|Most|Some|Fun|In|On|I'm|I've|I'd)(?![\w'])))(?<!\b(?:Mr|Dr|St|Ms|vs|Mt|No))(?<!\.\w)[.!?]+(?=\s|$)(?!\s*=)|\n\s*")


def sentences(text: str) -> list[str]:
    """The sentences and lines of ``text``, stripped, empty ones dropped (decimals and initials kept whole)."""
    parts, start = [], 0
    for m in _SENTENCE_RE.finditer(text):
        parts.append(text[start:m.end()].strip())
        start = m.end()
    parts.append(text[start:].strip())
    return [p for p in parts if p.strip(" .!?")]


STOPWORDS = frozenset("""
a an the of in on at to for from by with about as into onto over under than then and or but nor so
is are was were be been being am do does did done has have had having will would shall should can could
may might must it its it's this that these those there here their they them he she his her him hers
i me my we us our you your yours who whom whose which what when where why how whats
not no yes very also just only too quite really actually answer final correct right
think believe guess say said probably likely definitely certainly surely sure pretty fairly
one called named known considered located found situated made
""".split())

_SUFFIXES = ("ational", "ization", "fulness", "ousness", "iveness", "ities", "ation", "ness", "ment", "ings",
             "ing", "ies", "ied", "ous", "ive", "ful", "ity", "ion", "est", "ed", "es", "er", "ly", "al", "s", "e", "y")


@lru_cache(maxsize=16384)
def stem(word: str) -> str:
    """A crude stem for matching words across forms ("carnivore", "carnivorous" -> "carnivor").

    >>> stem("Carnivorous"), stem("carnivore"), stem("rivers")
    ('carnivor', 'carnivor', 'river')
    """
    w = word.lower().strip("'")
    if w.endswith("'s"):
        w = w[:-2]
    for suffix in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 4:
            w = w[: -len(suffix)]
            break
    return w[:8]


_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'\-]*|\d+(?:[.,]\d+)*")


def words(text: str) -> list[str]:
    return _WORD_RE.findall(text)


def content_stems(text: str) -> set[str]:
    """The stems of the words of ``text`` that carry content (not function words)."""
    return {stem(w) for w in words(text) if w.lower() not in STOPWORDS}


@lru_cache(maxsize=4096)
def _question_stems(question: str) -> frozenset[str]:
    """Keyed by the question: an evaluation reads many outputs (models, perturbations) per question."""
    return frozenset(content_stems(question))


class _lazy:
    """A property computed once per object (like functools.cached_property, without its lock)."""

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self.fn, self.name = fn, fn.__name__
        self.__doc__ = fn.__doc__

    def __get__(self, obj: Any, cls: Any = None) -> Any:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.fn(obj)
        return value


# ---------------------------------------------------------------------------------------- the context
@dataclass
class Context:
    """One output being read, with the question and options it answers and derived views, computed once."""

    raw: str
    kind: str
    question: str | None = None
    choices: Sequence[str] | None = None
    #: rule families switched off (for ablations); "continuation" and "percent" switch off the
    #: cut of a base model's next few-shot question and the percent/probability reading
    disabled: frozenset[str] = frozenset()

    @_lazy
    def text(self) -> str:
        if "continuation" in self.disabled:
            return clean(self.raw).strip()
        end = _END_TOKEN_RE.search(self.raw)  # before clean(), which reads "<end_of_turn>"'s underscores as Markdown
        return own_answer(clean(self.raw[:end.start()] if end else self.raw)).strip()

    @_lazy
    def loop(self) -> bool:
        """The output only writes prompts (see :func:`prompt_loop`)."""
        if "continuation" in self.disabled or "\n" not in self.raw:
            return False
        low = self.raw.lower()  # a cheap test first: no instruction word, no prompt
        return ("answer" in low or "question" in low or "reply" in low or "respond" in low or "give" in low) and prompt_loop(self.raw)

    @_lazy
    def prose(self) -> str:
        """The text without Markdown table rows (tables are data; the verdict is in the prose)."""
        if "|" not in self.text:
            return self.text
        return re.sub(r"^\s*\|.*$\n?", "", self.text, flags=re.MULTILINE).strip() or self.text

    @_lazy
    def sentences(self) -> list[str]:
        return sentences(self.text)

    @_lazy
    def question_stems(self) -> frozenset[str]:
        return _question_stems(self.question) if self.question else frozenset()

    @_lazy
    def boxed(self) -> str | None:
        found = boxed(self.text)
        return None if found is None else re.sub(r"\\text(?:bf)?\{([^{}]*)\}", r"\1", found).strip()

    @_lazy
    def strong_marks(self) -> list[re.Match[str]]:
        return list(STRONG_MARK_RE.finditer(self.text))

    @_lazy
    def correction(self) -> str | None:
        """The text after the last self-correction that comes after every answer marker, or None."""
        low = self.text.lower()
        if not any(cue in low for cue in _CORRECTION_CUES):
            return None  # a cheap test first: most outputs never correct themselves
        last = last_match(CORRECTION_RE, self.text)
        if last is None or (not re.search(r"\w", self.text[:last.start()]) and not correction_label(last)):
            return None  # nothing came before it to correct (but "Correction: ..." opening a reply corrects an earlier one)
        if "self_correction" not in self.disabled and apology_for_not_answering(self.text, last):
            return None  # "I'm sorry, but I can't ...": an apology for not answering, nothing taken back
        marks = self.strong_marks
        if marks and marks[-1].start() > last.end():
            return None
        region = self.text[last.end():].strip()
        if "self_correction" not in self.disabled and only_a_note(region):
            return None  # "Edit: fixed a typo (I originally wrote 365).": the answer before it stands
        return region or None

    @_lazy
    def hedged(self) -> bool:
        return hedged(self.text) or (self.kind != "yes_no" and source_silent(self.text))

    @_lazy
    def refusal(self) -> bool:
        m = REFUSAL_RE.search(self.text)
        return m is not None and not _ANSWERS_ANYWAY_RE.match(self.text, m.end()) and not answers_despite_refusal(self.text, m)


# "I can't browse the web, but from general knowledge: ...": a disclaimer, then an answer
_ANSWERS_ANYWAY_RE = re.compile(r"[^.!?\n]*?,?\s+but\s+(?:from|based\s+on|according\s+to|in\s+general|generally|as\s+far\s+as"
                                r"|i\s+(?:can|know|believe|recall)|here'?s|it'?s\s+(?:widely|generally|commonly))\b", re.IGNORECASE)


# ---------------------------------------------------------------------------------------- shared rules
_BOXED_RE = re.compile(r"\\(?:boxed|fbox)\s*\{")
def boxed(text: str) -> str | None:
    """The content of the last ``\\boxed{...}``, braces balanced."""
    found = None
    for m in _BOXED_RE.finditer(text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        if depth == 0:
            found = text[m.end():i - 1]
    return found


# a marked answer ("Final answer:", "The answer is", "I'd go with", "La respuesta es"): the marker phrases of every
# phrase file, opening with one of MARKER_OPENS (a cheap first test that tests/test_extract_speed.py keeps complete)
MARKER_OPENS = "#abcfimr\u7b54"
MARKER_SUFFIX = r"(?![a-z])\s*(?:[:=]|-(?!\s?\d)|\bis\b)?\s*"
STRONG_MARK_RE = re.compile(f"(?=[{MARKER_OPENS}])" + alternation("marker", languages_with("marker")) + MARKER_SUFFIX, re.IGNORECASE)
WEAK_MARK_RE = re.compile(  # a conclusion (the phrase list of phrases/en.toml), or a labelled result or total; what it opens with first
    opening_lookahead([*phrases("conclusion", ("en",)), "result", r"[\s]", "total", "difference", "sum", "product", "remainder"])
    + r"(?:\b" + alternation("conclusion", ("en",)) + r"\b"
    r"|\bresult(?:\s+is)?|(?:^|\n)\s*(?:total|difference|sum|product|remainder)\s*:)\s*,?\s*(?:[:=]|-(?!\s?\d)|\bis\b)?\s*",
    re.IGNORECASE,
)
# what leaves the answer open, and what declines to answer: the phrase lists of phrases/en.toml
HEDGE_RE = re.compile(opening_lookahead(phrases("hedge", ("en",))) + r"\b" + alternation("hedge", ("en",)), re.IGNORECASE)
REFUSAL_RE = re.compile(opening_lookahead(phrases("refusal", ("en",))) + r"\b" + alternation("refusal", ("en",)), re.IGNORECASE)
CORRECTION_RE = re.compile(
    r"(?=[-.acehijlmnostw\u2013\u2014\u2026])"  # what a match can open with, looked at first: a cheap test (tests/test_extract_speed.py keeps it complete)
    r"(?:(?<=\s)[-\u2014\u2013]+\s*(?:no|nope)(?=\s*[,.;!])|\b(?:wait|oops|correction|scratch\s+that|on\s+second\s+thought|i\s+mean|i\s+made\s+an?\s+(?:mistake|error)"
    r"|let\s+me\s+(?:correct|fix|redo|recompute|recalculate|recount|reconsider|re-?check|double[-\s]check)(?:\s+(?:that|this))?"
    r"|(?:sorry|no),\s+(?:that'?s|that\s+is|it'?s)\s+(?:wrong|incorrect|not\s+right)|that'?s\s+(?:wrong|incorrect|not\s+right)"
    r"|i\s+(?:mis(?:read|counted|calculated|spoke|remembered))|i\s+was\s+(?:wrong|confusing|thinking\s+of|mixing)"
    r"|sorry|on\s+reflection|(?:hmm+|oh|ah|\.\.\.|…|(?<![A-Za-z])[-—–])\s*,?\s*(?:no|well)\b|just\s+kidding|i'?m\s+(?:only\s+)?(?:kidding|joking)|i\s+should\s+(?:check|double[-\s]check|verify)|hmm+"
    r"|(?:hold|hang)\s+on|never\s*mind|edit\s*:|my\s+(?:bad|mistake|apologies)|(?:should|must|need\s+to|let\s+me)\s+correct\s+myself"
    r"|i'?m\s+(?:mixing|confusing)(?:\s+(?:them|things|it)\s+up)?|let\s+me\s+re[a-z]{3,}|let\s+me\s+\w+\s+(?:it\s+|that\s+|this\s+)?again|(?:looking|counting|checking)\s+again"
    r"|i\s+take\s+(?:that|it)\s+back|i\s+retract(?:\s+that)?"
    r"|actually(?:,|(?=\s+no\b)|(?=\s+(?:it|the|that|this|its|it's)\b))))(?!\w)[\s,.:;!—–-]*",
    re.IGNORECASE,
)


_TRAILING_FUNCTION_WORDS = frozenset("the a an and or of to in on at for with by from is are was were be that which than as its their his her".split())
_OPEN_SUM_RE = re.compile(r"\d[^\n]{0,40}[=+*/\u00d7\u00f7-]\s*$")


def open_sum(text: str) -> bool:
    """Whether the output stops on an operator after a number, a calculation cut off before its result.

    >>> open_sum("240 / 3 ="), open_sum("240 / 3 = 80")
    (True, False)
    """
    return bool(_OPEN_SUM_RE.search(text.rstrip()))


def unfinished(text: str) -> bool:
    """Whether the output stops mid-sentence (cut off while still reasoning): it ends on a function
    word, or it rambles for several sentences and ends without punctuation.

    A sum left open ("240 / 3 =") is unfinished too.

    >>> unfinished("The first train has gone 60 miles and the"), unfinished("The answer is 42")
    (True, False)
    >>> unfinished("50 + 60 = 110, and 180 - 110 =")
    True
    """
    if open_sum(text):
        return True
    if not text or not text[-1].isalpha():
        return False
    last = text.rsplit(None, 1)[-1].lower()
    if last in _TRAILING_FUNCTION_WORDS and len(text.split()) >= 6:
        return True
    return len(text.split()) >= 20 and len(sentences(text)) >= 2


#: Substrings that every match of CORRECTION_RE contains (a fast pre-test, not the rule itself).
_CORRECTION_CUES = ("wait", "oops", "correct", "scratch", "second thought", "mean", "mistake", "error", "let me", "wrong",
                    "not right", "mis", "i was", "sorry", "reflection", "hmm", "oh", "ah", "...", "…", "-", "—", "–", "should",
                    "actually", "again", "hold on", "hang on", "never", "edit", "my bad", "apologies", "i'm", "im ", "kidding", "joking",
                    "take", "retract")


def last_match(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The last match of ``pattern`` in ``text``, or None."""
    found = None
    for found in pattern.finditer(text):  # noqa: B007 - the loop keeps the last match
        pass
    return found


# a base model that goes on to write the next question of its few-shot prompt
_CONTINUATION_RE = re.compile(r"\n\s*(?:#+\s*)?(?:question|q|problem|input|user|human|exercise|statement|passage|claim)\s*\d*\s*(?:[:.)]|$)"
                              r"|(?<=[.!?])[ \t]+(?:Question|Q|Problem)\s*\d*\s*:\s", re.IGNORECASE)


# (cleaning may have dropped the underscores: "<endofturn>")
_END_TOKEN_RE = re.compile(r"</s>|<\|endoftext\|>|<\|im_?end\|>|<\|eot_?id\|>|<eos>|<end_?of_?turn>|<start_?of_?turn>|<\|end\|>")
_NEXT_QUESTION_RE = re.compile(r"\n\s*(?:what|which|who|whom|whose|how|is|are|can|could|do|does|did|when|where|why|was|were|will|would"
                               r"|should|has|have)\b[^\n]*\?", re.IGNORECASE)
_ECHO_RE = re.compile(r"^\s*(?:(?:q|question)\s*\d*\s*[:.]\s*)?(?:what|which|who|whom|whose|how|is|are|can|could|do|does|did|when|where|why|was|were|will|would"
                      r"|should|has|have)\b[^\n?]{3,200}\?\s*", re.IGNORECASE)
# the prompt's instruction, echoed after the question: "Answer yes or no.", "Answer briefly."
_INSTRUCTION_RE = re.compile(r"^\s*(?:answer|reply|respond|give\s+the\s+\w+)\b(?:\s+(?:yes\s+or\s+no|true\s+or\s+false|briefly|only"
                             r"|with\s+(?:the\s+)?(?:letter|number|name|word)(?:\s+of\s+the\s+(?:correct|right|best)\s+(?:option|answer|choice))?"
                             r"|with\s+\w+(?:\s+\w+)?|in\s+(?:one|a|a\s+few|two|three|\d+)\s+\w+))+\s*[.:]?", re.IGNORECASE)
# the prompt's instruction on a line of its own, as a base model writes it again and again
_ANSWER_LABEL_RE = re.compile(r"^\s*(?:a|answer)\s*:[ \t]*", re.IGNORECASE)
_INSTRUCTION_LINE_RE = re.compile(_INSTRUCTION_RE.pattern.replace("^\\s*", "^[ \\t]*", 1), re.IGNORECASE | re.MULTILINE)
_VERDICT_LINE_RE = re.compile(r"^[ \t]*answer\s+(?:yes|no|true|false)\b(?!\s+or\b)", re.IGNORECASE | re.MULTILINE)
_HEADER_RE = re.compile(r"^\s*(?:<[^>\n]+>)?\s*question\s*\d+\s*[.:]?\s*(?:</[^>\n]+>)?\s*(?:\n|$)", re.IGNORECASE)


def prompt_loop(text: str) -> bool:
    r"""Whether a base model only writes prompts: the instruction ("Answer in a few words.") on two
    lines or more, or a "Question 7" header before anything else.

    >>> prompt_loop("Who wrote it?\nAnswer in a few words. xyz\nWho wrote it?\nAnswer in a few words.")
    True
    """
    strict = len(_INSTRUCTION_LINE_RE.findall(text))
    return bool(_HEADER_RE.match(text)) or strict >= 2 or strict + len(_VERDICT_LINE_RE.findall(text)) >= 3
_ANSWERED_RE = re.compile(r"\b(?:yes|no|true|false)\b|\d", re.IGNORECASE)


_DIGITS_RE = re.compile(r"\d+(?:[.,]\d+)*")


def _first_of_repeats(text: str) -> str:
    r"""A base model that repeats its answer line, or goes on down a table of the same line with other
    numbers ("123 x 4 = 492", "123 x 5 = 615", ...): its first line is its answer.

    >>> _first_of_repeats(" 56\n56\n56"), _first_of_repeats("7 x 8 = 56\n7 x 9 = 63\n7 x 10 = 70")
    (' 56', '7 x 8 = 56')
    """
    if text.count("\n") < 2:
        return text
    lines = [ln.strip() for ln in text.strip().split("\n") if ln.strip()]
    if len(lines) < 3:
        return text
    first = text[: text.index(lines[0]) + len(lines[0])]
    if lines[1] == lines[0] and lines[2] == lines[0]:
        return first
    shape = _DIGITS_RE.sub("#", lines[0])
    if "=" not in shape or "#" not in shape:
        return text
    same = [ln for ln in lines[1:] if _DIGITS_RE.sub("#", ln) == shape]
    if len(same) >= 2:
        heads = [_DIGITS_RE.findall(ln)[0] for ln in (lines[0], *same)]
        results = {_DIGITS_RE.findall(ln)[-1] for ln in (lines[0], *same)}
        if len(set(heads)) == 1 and not results & set(heads[1:]):  # a table, not a chain of steps
            return first
    return text


_NON_WORD_RE = re.compile(r"[^\w\s]")


@lru_cache(maxsize=4096)
def _plain_question(question: str) -> str:
    return " ".join(_NON_WORD_RE.sub(" ", question.lower()).split())


def echoes_question(text: str, question: str | None) -> bool:
    """Whether every sentence of ``text`` is a sentence of the question, repeated (no answer of its own).

    >>> echoes_question("Tom has 3 apples. How many has he?", "Tom has 3 apples. How many has he?")
    True
    """
    if not question or not text.strip():
        return False
    q = _plain_question(question)
    head = _NON_WORD_RE.sub(" ", text[:60].lower()).split()[:3]
    if len(head) < 3 or f" {' '.join(head)} " not in f" {q} ":
        return False  # a cheap test first: most outputs do not open with the question's words
    parts = [" ".join(_NON_WORD_RE.sub(" ", p.lower()).split()) for p in sentences(text)]
    parts = [p for p in parts if p and p not in ("answer", "question", "a", "q")]
    return bool(parts) and all(len(p.split()) >= 3 and f" {p} " in f" {q} " for p in parts)


def echo_rule(ctx: Context) -> str | None:
    """An output that only repeats the question, or only writes prompts, answers nothing: unextracted."""
    if ctx.loop or echoes_question(ctx.text, ctx.question):
        return ABSTAIN
    return ABSTAIN if "continuation" not in ctx.disabled and opens_with_another_question(ctx) else None


def own_answer(text: str) -> str:
    """``text`` as the model's own answer: up to an end-of-text token or to where a base model starts
    writing the next question of its prompt, without a question it opens with (an echo of the prompt).

    >>> own_answer(" 19\\nQ: What is 12 + 15?\\nA: 27"), own_answer("Is 17 prime? Yes.")
    (' 19', 'Yes.')
    """
    end = _END_TOKEN_RE.search(text)
    if end:
        text = text[:end.start()]
    echo = _ECHO_RE.match(text)
    if echo and text[echo.end():].strip():
        text = _INSTRUCTION_RE.sub("", text[echo.end():], count=1)
        label = _ANSWER_LABEL_RE.match(text)
        after = text[label.end():] if label else text
        if (label and not after.strip()) or _CONTINUATION_RE.match("\n" + after.lstrip()):
            return ""  # the question echoed, then an empty "Answer:" or the next question: no answer of its own
    m = _CONTINUATION_RE.search(text)
    if m and text[:m.start()].strip():
        text = text[:m.start()]
    text = _first_of_repeats(text)
    for m in _NEXT_QUESTION_RE.finditer(text):
        rest_of_line = text[m.end():].split("\n", 1)[0]
        if text[:m.start()].strip() and not _ANSWERED_RE.search(rest_of_line):
            return text[:m.start()]  # a new question, unanswered on its line: the model writes the next prompt
    return text


def first_part(text: str) -> tuple[str, str]:
    """The first line or sentence of ``text`` and what follows it (the explanation, when the answer came first)."""
    line, _, rest = text.partition("\n")
    parts = sentences(line)
    if len(parts) > 1:
        head = parts[0]
        return head, text[len(head):].strip()
    return line.strip(), rest.strip()


# a courtesy or a thinking-aloud opener that states nothing: "Great question!", "Sure!", "Okay, let me think."
_PREAMBLE_RE = re.compile(r"^\s*(?:(?:sure(?:\s+thing)?|of\s+course|absolutely|certainly|okay|ok|alright|all\s+right|great|good|hi(?:\s+there)?|hello"
                          r"|(?:great|good|excellent|nice|interesting|fun)\s+question|(?:i'?m\s+)?(?:happy|glad)\s+to\s+help|thanks\s+for\s+asking"
                          r"|let\s+me\s+(?:think|see|help|check|explain)|let'?s\s+see|here'?s\s+(?:the|my)\s+answer|here\s+is\s+(?:the|my)\s+answer|here\s+you\s+go|to\s+answer\s+(?:your|the|this)\s+question"
                          r"|here'?s\s+how\s+to\s+think\s+about\s+it|let'?s\s+(?:solve|work\s+through|think\s+through|think\s+about)\s+(?:this|it)(?:\s+step\s+by\s+step)?"
                          r"|let'?s\s+think\s+step\s+by\s+step)"
                          r"(?:\s*(?:,|\s)\s*(?:so|then|here'?s\s+(?:the|my)\s+answer|let\s+me\s+(?:think|see|explain)|here\s+you\s+go))*\s*[.!:]+\s+)+(?=\S)",
                          re.IGNORECASE)


def without_preamble(text: str) -> str:
    """``text`` without an opening courtesy that states nothing ("Great question! ", "Okay, let me think.\\n\\n").

    >>> without_preamble("Great question! C) Carbon dioxide"), without_preamble("Sure")
    ('C) Carbon dioxide', 'Sure')
    """
    m = _PREAMBLE_RE.match(text)
    return text[m.end():] if m else text


_CONNECTIVE_RE = re.compile(r"^\W*(?:so|but|and|overall|in\s+short|honestly|ultimately|really|then|in\s+the\s+end)\b\W*", re.IGNORECASE)


def closing_hedge(text: str) -> bool:
    """Whether the output ends on a short hedge that takes back what it said ("... So it depends.",
    "I can't choose without your definition."): it commits to no answer.

    >>> closing_hedge("No, not usually. On clear nights, yes. So it depends."), closing_hedge("Yes. It depends on altitude how much.")
    (True, False)
    """
    parts = sentences(text)
    if len(parts) < 2:
        return False
    last = _CONNECTIVE_RE.sub("", parts[-1])
    if len(last.split()) > 8 or re.search(r"\bbut\b", last, re.IGNORECASE):
        return False
    m = HEDGE_RE.match(last)
    return m is not None and (re.match(r"i\b|i'", m.group(0), re.IGNORECASE) is not None
                              or not re.match(r"\s+(?:on|upon)\b", last[m.end():], re.IGNORECASE))


# ---------------------------------------------------------------------------------------- declining and hedging
# (what the context reads to know whether an output commits to an answer; the rules built on them are in _commitment)
# the sentence of an apology that introduces a refusal or a hedge: "I'm sorry, but I can't ...", "Sorry, I don't know."
_APOLOGY_RE = re.compile(r"\b(?:sorry|apologies|i\s+apologi[sz]e)\b", re.IGNORECASE)


def apology_for_not_answering(text: str, cue: re.Match[str]) -> bool:
    """Whether the correction cue ``cue`` ("sorry") is an apology for not answering, not a retraction.

    >>> import re
    >>> t = "I'm sorry, but I can't predict prices. As of my last update it traded at $190."
    >>> apology_for_not_answering(t, re.search("sorry", t))
    True
    >>> t = "It is 54. Sorry, 56."
    >>> apology_for_not_answering(t, re.search("Sorry", t))
    False
    """
    if not _APOLOGY_RE.search(cue.group(0)):
        return False
    start = max(text.rfind(".", 0, cue.start()), text.rfind("\n", 0, cue.start())) + 1
    end = min((i for i in (text.find(".", cue.end()), text.find("\n", cue.end())) if i >= 0), default=len(text))
    sentence = text[start:end]
    return bool(REFUSAL_RE.search(sentence) or HEDGE_RE.search(sentence))


def correction_label(cue: re.Match[str]) -> bool:
    """Whether a correction cue is a label ("Correction:", "Edit:") that opens a reply correcting an earlier one.

    >>> import re
    >>> correction_label(re.match(r"correction\\s*:\\s*", "Correction: it is Canberra.", re.IGNORECASE))
    True
    """
    return re.fullmatch(r"(?:correction|edit|update)\s*:\s*", cue.group(0), re.IGNORECASE) is not None


# a refusal that only says the model cannot look the answer up now, and what it knew at its last update
_CANNOT_LOOK_UP_RE = re.compile(r"\b(?:browse|access|look\s+up|check|confirm|verify|real[-\s]time|live|current|up[-\s]to[-\s]date|latest)\b",
                                re.IGNORECASE)
_FORESEE_RE = re.compile(r"\b(?:predict|forecast|foresee|speculate|future|will\s+(?:win|be|happen|rain|close))\b", re.IGNORECASE)
_AS_OF_RE = re.compile(r"\b(?:as\s+of\s+(?:my\s+)?(?:last|latest|most\s+recent)\s+(?:\w+\s+){0,2}(?:update|training|information|data|knowledge)"
                       r"|as\s+of\s+my\s+(?:knowledge\s+)?cut-?\s*off|at\s+my\s+(?:knowledge\s+)?cut-?\s*off|last\s+i\s+(?:knew|heard|checked)"
                       r"|according\s+to\s+my\s+(?:training|knowledge|data))\b", re.IGNORECASE)


# "I don't have live data, but it's roughly 8.1 billion": what it knew, approximately
_BUT_ROUGHLY_RE = re.compile(r",?\s+but\s+(?:it'?s\s+|it\s+is\s+|there\s+are\s+|the\s+\w+\s+(?:is|was)\s+)?(?:about|around|roughly|approximately|an\s+estimated)\b",
                             re.IGNORECASE)


def answers_despite_refusal(text: str, refusal: re.Match[str]) -> bool:
    """Whether a refusal only says the model cannot check the present, and the output then states what
    it knew ("I can't browse ... As of my last update, Linda Yaccarino was the CEO."): that is an answer.
    A refusal to foresee ("I can't predict future prices. As of my last update it traded at $190.")
    stays a refusal: what it knew answers another question.

    >>> import re
    >>> t = "I can't browse the internet. As of my last update, Ada was the CEO."
    >>> answers_despite_refusal(t, REFUSAL_RE.search(t))
    True
    >>> t = "I can't predict future stock prices. As of my last update, it traded at $190."
    >>> answers_despite_refusal(t, REFUSAL_RE.search(t))
    False
    """
    later = _AS_OF_RE.search(text, refusal.start()) or _BUT_ROUGHLY_RE.search(text, refusal.start(), refusal.end() + 80)
    if later is None:
        return False
    said = text[refusal.start():later.start()]
    return bool(_CANNOT_LOOK_UP_RE.search(said)) and not _FORESEE_RE.search(said)


# hedges the shared HEDGE_RE does not list: the matter is disputed, the model mixes the candidates up,
# it does not currently know, or the stated answer is "yes and no"
_OPEN_RE = re.compile(
    r"(?=[adhijkmnoprstuw])"  # what a match can open with, looked at first: a cheap test (tests/test_extract_speed.py keeps it complete)
    r"\b(?:(?:it|this|that)(?:'s|\s+is|\s+remains)\s+(?:hotly\s+|widely\s+|still\s+|much\s+|genuinely\s+)?(?:disputed|contested|debated|controversial|unsettled|unresolved)\b"
    r"|(?:always|often|tend\s+to|usually|keep)\s+(?:mix|mixing|confuse|confusing|get|getting)\s+(?:these|them|those|the\s+two)(?:\s+two)?\s+(?:up|mixed\s+up|confused)"
    r"|(?:we|i|scientists|researchers|astronomers|historians)\s+(?:don'?t|do\s+not)\s+(?:currently|actually|really|yet)\s+know\b"
    r"|(?:the\s+answer\s+is\s+|it'?s\s+)(?:both\s+)?yes\s+and\s+no\b"
    r"|(?:has|have|is|was)(?:\s*n'?t|\s+not)\s+(?:yet\s+)?(?:been\s+)?(?:decided|announced|determined|chosen|selected|settled|released)\b"
    r"|\bnot\s+yet\s+(?:been\s+)?(?:known|decided|announced|determined|chosen|selected|settled)"
    r"|(?:has|have)(?:\s*n'?t|\s+not)\s+(?:yet\s+)?(?:happened|taken\s+place|been\s+(?:played|held|run))(?:\s+yet)?"
    r"|(?:does|did|do)(?:\s*n'?t|\s+not)\s+(?:say|mention|state|specify|indicate|tell\s+us|make\s+clear)\s+(?:whether|if|which|who|how\s+many)\b"
    r"|\bsome\s+(?:\w+\s+)?say\s+(?:yes|no)\b[^.!?]{0,20}?\b(?:some|others?)\s+(?:\w+\s+)?say\s+(?:yes|no)\b"
    r"|\b(?:maybe|perhaps)\s+[^.?!,;\n]{1,40}[.?!,;]\s*(?:or\s+)?(?:maybe|perhaps)\s+(?!not\b)"
    # "I don't know", "I'm not sure" in other languages
    r"|\b(?:no\s+lo\s+s[eé]|no\s+s[eé]\b|je\s+ne\s+sais\s+pas|ich\s+wei(?:ß|ss)\s+(?:es\s+)?nicht|keine\s+ahnung|n[aã]o\s+sei|non\s+lo\s+so"
    r"|aucune\s+id[eé]e|ni\s+idea))",
    re.IGNORECASE,
)
# substrings one of which every match of _OPEN_RE contains (a fast pre-test, not the rule itself)
_OPEN_CUES = ("disput", "contest", "debat", "controvers", "unsettled", "unresolved", "mix", "confus", "n't", "not ", "yes and no",
              "some", "maybe", "perhaps", "sei", "sais", "weiss", "weiß", "ahnung", "idea", "idée", "sé", "no se", "no lo se", "lo so")
_OPEN_CUE_RE = re.compile("|".join(map(re.escape, _OPEN_CUES)))
# what most sources give settles a dispute: "This is debated. Most sources list the Nile."
_CONSENSUS_RE = re.compile(r"\bmost\s+(?:\w+\s+){0,2}?(?:list|give|say|credit|consider|put|name|cite|agree|accept|recogni[sz]e|go\s+with|still|favou?r)\b"
                           r"|\btraditionally\b|\b(?:generally|widely|usually|commonly)\s+(?:accepted|considered|credited|given|cited|listed)\b"
                           r"|\bconsensus\b|\bofficially\b|\bthe\s+leading\s+(?:explanation|theory|estimate|view|hypothesis)\b|\bwidely\s+(?:cited|accepted)\b", re.IGNORECASE)
# a doubt followed by a pick in the same sentence: "Hard to say without more context, but most likely 12"
_BUT_COMMITS_RE = re.compile(r"[^.;?!\n]{0,60}?\bbut\s+(?:(?:most|more)\s+likely|probably|likely|i\s+(?:think|believe|guess)|i'?d\s+(?:say|guess|go\s+with|lean)"
                             r"|generally|mostly|usually|overall|on\s+balance|in\s+most\s+cases|typically|(?:it'?s\s+|it\s+is\s+)?(?:about|around|roughly|approximately)"
                             r"|the\s+(?:leading|best|standard|accepted|usual|common|most\s+widely\s+(?:accepted|cited))\s+(?:estimate|figure|explanation|answer|view|theory)"
                             r"|my\s+(?:best\s+)?guess|if\s+i\s+had\s+to)\b(?![^.;?!\n]*\b(?:or|either)\b)", re.IGNORECASE)
# a doubt about the precision of a figure already stated, not about the answer: "I don't remember the exact decimal"
_PRECISION_DOUBT_RE = re.compile(r"\s+(?:the\s+)?(?:exact|precise)(?:\s+\w+){0,2}\b|\s+exactly\b|\s+(?:the\s+)?(?:decimals?|digits?)\b", re.IGNORECASE)
# what makes the doubt a qualification: a figure stated with confidence before it
_STATED_BEFORE_RE = re.compile(r"\b(?:i'?m|i\s+am)\s+(?:fairly|pretty|quite|reasonably|almost|mostly)\s+(?:sure|certain|confident)\b|\b(?:about|around|roughly|approximately)\s+\d",
                               re.IGNORECASE)


# the source asked about does not give the answer: "The passage doesn't mention the author's dog by name."
_SOURCE_SILENT_RE = re.compile(r"\b(?:the\s+)?(?:passage|text|article|document|story|excerpt|paragraph|context|source|table|data)\s+"
                               r"(?:does\s*n'?t|does\s+not|did\s*n'?t|did\s+not|never)\s+(?:mention|say|state|name|specify|give|reveal|tell|include|provide)\b",
                               re.IGNORECASE)


def source_silent(text: str) -> bool:
    """Whether the output says the passage asked about does not give the answer (for a yes/no question
    about the passage that is a "no", so the yes/no cascade does not use this).

    >>> source_silent("The passage doesn't mention the author's dog by name."), source_silent("The passage names him Rex.")
    (True, False)
    """
    return ("n't" in text or "not" in text or "never" in text) and _SOURCE_SILENT_RE.search(text) is not None


def hedged(text: str) -> bool:
    """Whether ``text`` leaves the answer open: the shared hedges (``HEDGE_RE``), "it's disputed", "I
    always mix these up", "we don't currently know", "the answer is yes and no"; a doubt only about the
    precision of a figure stated with confidence before it does not count.

    >>> hedged("It's disputed. Peary claimed 1909 and Cook 1908."), hedged("Casablanca or Rabat - I always mix these two up.")
    (True, True)
    >>> hedged("I'm fairly sure it's 78 C, but I don't remember the exact decimal."), hedged("I don't remember.")
    (False, True)
    """
    m = HEDGE_RE.search(text)
    while m is not None:
        if not (_PRECISION_DOUBT_RE.match(text, m.end()) and _STATED_BEFORE_RE.search(text, 0, m.start())) \
                and not _BUT_COMMITS_RE.match(text, m.end()):  # "Hard to say without more context, but most likely 12."
            return True
        m = HEDGE_RE.search(text, m.end())
    if text.isascii() and not _OPEN_CUE_RE.search(text.lower()):
        return False
    opened = _OPEN_RE.search(text)
    return opened is not None and not _CONSENSUS_RE.search(text, opened.end()) and not _BUT_COMMITS_RE.match(text, opened.end())


# what an answer slot holds when the model has no answer: "Answer: I'm not sure", "Final answer: unknown"
_NON_ANSWER_RE = re.compile(
    r"^\W*(?:i'?m\s+not\s+(?:sure|certain)|not\s+(?:sure|certain)|i\s+(?:don'?t|do\s+not)\s+know|(?:i\s+have\s+)?no\s+idea|unknown|unsure"
    r"|(?:it\s+)?(?:cannot|can'?t)\s+be\s+determined|undetermined|(?-i:N/A|n/a)|none\s+given|i\s+(?:can'?t|cannot)\s+(?:say|tell|answer)"
    r"|(?:both\s+)?yes\s+and\s+no|it\s+depends|depends|(?:hotly\s+|still\s+)?(?:debated|disputed|contested|controversial|complicated|unclear|uncertain))\W*$",
    re.IGNORECASE,
)


def non_answer(span: str) -> bool:
    """Whether a span read as the answer only says that there is none ("I'm not sure", "unknown", "yes and no").

    >>> non_answer("I'm not sure"), non_answer("It depends."), non_answer("debated"), non_answer("Nile")
    (True, True, True, False)
    """
    return bool(span) and _NON_ANSWER_RE.match(span) is not None


_STRUCK_RE = re.compile(r"~~[^~\n]{1,200}~~")


def without_struck(text: str) -> str:
    """``text`` without what Markdown strikes out ("~~41~~ 42" -> " 42"): a struck answer is taken back.

    >>> without_struck("~~41~~ 42"), without_struck("~~Paris~~ Lyon.")
    (' 42', ' Lyon.')
    """
    return _STRUCK_RE.sub("", text)


# what a note after a correction label says of the earlier text: "fixed a typo", "(I originally wrote 365)"
_NOTE_RE = re.compile(r"\(?\s*\b(?:i\s+(?:had\s+)?(?:originally|first|initially|previously|mistakenly)\s+(?:wrote|written|said|had|got|put|gave|typed)"
                      r"|earlier\s+(?:when\s+)?i\s+(?:wrote|said|had)|(?:fixed|corrected)\s+(?:a|the|an)?\s*(?:typo|mistake|error|formatting|spelling|wording))\b[^().\n]*\)?",
                      re.IGNORECASE)


def only_a_note(region: str) -> bool:
    """Whether the text after a correction cue is only a note on the earlier text ("fixed a typo (I
    originally wrote 365)"), which takes nothing back: the answer before it stands.

    >>> only_a_note("fixed a typo (I originally wrote 365)."), only_a_note("it's 366, not 365.")
    (True, False)
    """
    if not region or not _NOTE_RE.search(region):
        return False
    return not re.search(r"\w", _NOTE_RE.sub(" ", region))


# a base model that opens with the next few-shot question ("Q: What is the largest desert in Africa?\nA: Sahara")
_OPENING_QUESTION_RE = re.compile(r"^\s*(?:q|question)\s*\d*\s*[:.]\s*([^\n?]{3,200}\?)", re.IGNORECASE)
_LABEL_RE = re.compile(r"(?:^|\n)\s*(?:q|question|a|answer)\s*\d*\s*[:.]\s*", re.IGNORECASE)


def opens_with_another_question(ctx: Context) -> bool:
    """Whether the output opens with a labelled question other than the one asked (a base model writing
    the next item of its few-shot prompt): what follows answers that question, not the asked one.

    >>> opens_with_another_question(Context(" Q: What is the largest desert in Africa?\\nA: Sahara", "text",
    ...                                     question="Q: What is the largest desert in Asia?\\nA:"))
    True
    >>> opens_with_another_question(Context("Q: What is the largest desert in Asia?\\nA: Gobi", "text",
    ...                                     question="Q: What is the largest desert in Asia?\\nA:"))
    False
    """
    if not ctx.question:
        return False
    m = _OPENING_QUESTION_RE.match(ctx.raw)
    if m is None:
        return False
    asked = [q for q in re.split(r"\?", _LABEL_RE.sub("\n", ctx.question)) if q.strip()]
    own = content_stems(m.group(1))
    return bool(asked) and bool(own - content_stems(asked[-1]))
