"""How a reader trims a short text answer once it has been found, and what a reader reads past first.

Principles, each one function:

- an article is no part of the answer in any language: "Der Rhein", "o real", "La France" read "Rhein",
  "real", "France" when the reply is written in that language (a name that carries its article, "La Paz",
  "Los Angeles", keeps it, and so does an English reply: "O negative");
- a cleft sentence names its answer in other languages as in English: "C'est Léonard de Vinci qui ...",
  "Fue Colón quien ...", "Foi Cabral quem ...", "Es war Goethe, der ...";
- a date after the answer says when, not what: "Alexander Fleming in 1928." reads "Alexander Fleming"
  (unless the question asks when);
- a code span is one token: "The command is `git status`." reads "git status", not the part of it the
  question does not say;
- reference marks, footnotes and Markdown quote marks are no part of the answer: "London [1]", "Chinua Achebe
  [source: ...]", "> Rome";
- an initial's period is not a sentence end before a sentence adverb: "Vitamin D. Specifically, ...".
"""

from __future__ import annotations

import re

from gengap.extract._phrases import alternation

# function words that mark a reply's language (each specific enough not to be English)
_LANGUAGE_WORDS: dict[str, frozenset[str]] = {
    "de": frozenset("der die das den dem des ein eine einen ist sind war waren und nicht mit von auf für im zum zur auch wird wurde".split()),
    "fr": frozenset("le la les du des une est sont était fut et qui que dans pour au aux avec c'est il elle été plus quel quelle".split()),
    "es": frozenset("el la los las del una es son fue era y que en por con para su se está".split()),
    "pt": frozenset("o os do da dos das um uma é são foi era que em na com para não".split()),
    "it": frozenset("il lo gli della dello degli delle nel nella sono è non che per con una uno fu stato più qual quale chi cosa dei anche".split()),
}
# letters that only (or mostly) one of these languages writes: one more piece of evidence for it
_LANGUAGE_LETTERS = {"de": "[ßäöüÄÖÜ]", "fr": "[çèêàâîôûœ]", "es": "[ñ¿¡]", "pt": "[ãõ]", "it": "[ìò]"}
_ENGLISH_WORDS = frozenset("the is was are were of and in to it this that with by for".split())
_WORD_RE = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")

_ARTICLES: dict[str, frozenset[str]] = {
    "de": frozenset("der die das den dem des ein eine einen".split()),
    "fr": frozenset("le la les un une".split()),
    "es": frozenset("el la los las un una".split()),
    "pt": frozenset("o a os as um uma".split()),
    "it": frozenset("il lo la i gli le un una uno".split()),
}
_ELIDED_RE = re.compile(r"^[lL]['\u2019](?=\w)")
_ALL_ARTICLES = frozenset().union(*_ARTICLES.values())


def _named_with_article(article: str, rest: str, text: str, lang: str) -> bool:
    """Inside a sentence, a capitalised article before a capitalised word is part of a name ("... es La Paz.");
    not in German, whose nouns are all capitalised, nor at a sentence's start, where every article is."""
    at = text.find(article + " " + rest)
    return lang != "de" and at > 0 and article[:1].isupper() and rest[:1].isupper() and text[:at].rstrip()[-1:].isalpha()


def reply_language(text: str) -> str | None:
    """The language of ``text`` among German, French, Spanish, Portuguese and Italian (``de``, ``fr``, ``es``, ``pt``, ``it``),
    by its function words; None for English or too little to tell.

    >>> reply_language("Der Rhein ist der längste Fluss."), reply_language("The Rhine is the longest river.")
    ('de', None)
    """
    tokens = {t.lower() for t in _WORD_RE.findall(text[:400])}
    if not tokens:
        return None
    english = len(tokens & _ENGLISH_WORDS)
    scores = {lang: len(tokens & words) + bool(re.search(letters, text[:400])) for lang, words in _LANGUAGE_WORDS.items()
              for letters in (_LANGUAGE_LETTERS[lang],)}
    lang, best = max(scores.items(), key=lambda kv: kv[1])
    return lang if best >= 2 and best > english else None


def without_foreign_article(span: str, text: str) -> str:
    """``span`` without an opening article of the language ``text`` is written in ("Der Blauwal" -> "Blauwal");
    an English reply, a one-word span and a name that carries its article ("La Paz") are left as they are."""
    first, _, rest = span.partition(" ")
    elided = _ELIDED_RE.match(span) if span[:1] in "lL" else None  # "l'Everest"
    if (not rest or first.lower() not in _ALL_ARTICLES) and not elided:
        return span  # a cheap test first: most spans open with no article of these languages
    lang = reply_language(text)
    if lang is None:
        return _bare_foreign_article(span, first, rest, text)
    if elided and lang == "fr":
        return span[elided.end():]
    if first.lower() not in _ARTICLES[lang] or _named_with_article(first, rest, text, lang):
        return span
    return rest.strip()


# articles no English word spells, and the German ones, which open a capitalised noun
_FOREIGN_ONLY_ARTICLES = frozenset("el los las le les il gli".split())
_GERMAN_ARTICLES = frozenset("der die das dem den des".split())


def _bare_foreign_article(span: str, first: str, rest: str, text: str) -> str:
    """A reply that is only the span, too short to tell its language, opening with an article no English word
    spells before a common noun ("El páncreas.", "Le foie.", "Der Pazifik.") reads the noun; "El Niño" keeps
    its article (a name), and so does anything written inside a longer sentence."""
    if text.split("\n", 1)[0].strip().rstrip(".!").strip() != span or not rest:
        return span
    article = first.lower()
    if article in _GERMAN_ARTICLES and rest[:1].isupper() and " " not in rest.strip():
        return rest.strip()
    if article in _FOREIGN_ONLY_ARTICLES and rest[:1].islower():
        return rest.strip()
    return span


# "C'est X qui ...", "Es X quien ...", "Fue X quien ...", "Foi X quem ...", "Es war X, der ...": X answers
_CLEFT_RE = re.compile(
    r"^\W*(?:c['\u2019]est|c['\u2019]était|ce\s+fut|ce\s+sont|es|fue|era|fueron|foi|é|era|es\s+war|es\s+ist|das\s+war)\s+"
    r"(?P<span>[^,;:.?!()]{1,60}?)\s*,?\s+(?:qui|que|qu['\u2019]|quien|quienes|el\s+que|la\s+que|los\s+que|quem|o\s+que|a\s+que|der|die|das|welcher|welche)\b",
    re.IGNORECASE,
)


_ENGLISH_CLEFT_RE = re.compile(r"^\W*it\s+(?:was|is)\s+(?P<span>[^,;:.?!()]{1,60}?)\s+(?:who|that)\s+(?!is\b|was\b|are\b|were\b)", re.IGNORECASE)


def cleft_span(sentence: str) -> str | None:
    """The name a cleft sentence puts in focus ("It was Na that ...", "C'est Léonard de Vinci qui ..."), or None.

    >>> cleft_span("C'est Léonard de Vinci qui a peint la Joconde.")
    'Léonard de Vinci'
    """
    m = _CLEFT_RE.match(sentence) or _ENGLISH_CLEFT_RE.match(sentence)
    if m is None or (m.re is _CLEFT_RE and reply_language(sentence) is None):
        return None
    span = without_foreign_article(m.group("span").strip(), sentence)
    # a name or symbol in focus: "C'est une ville qui ...", "It is a fruit that ..." are relative clauses, no clefts
    return span if 0 < len(span.split()) <= 5 and (span[:1].isupper() or span[:1].isdigit()) else None


_MONTH = r"(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.?"
_TRAILING_DATE_RE = re.compile(
    rf"\s+(?:in|on|around|circa|c\.|during)\s+(?:(?:about|around|roughly|early|late|mid)\s+)?(?:the\s+)?"
    rf"(?:{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{3,4}}|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+\d{{3,4}}|{_MONTH}\s+\d{{3,4}}"
    rf"|\d{{3,4}}s?(?:\s*(?:BC|BCE|AD|CE))?|\d{{1,2}}(?:st|nd|rd|th)\s+century)$"
)
_ASKS_WHEN_RE = re.compile(r"\b(?:when|what\s+(?:year|date|century|decade)|which\s+(?:year|date|century|decade)|how\s+long)\b", re.IGNORECASE)


def without_trailing_date(span: str, question: str | None) -> str:
    """``span`` without a date after it ("Alexander Fleming in 1928" -> "Alexander Fleming"), unless the
    question asks when."""
    m = _TRAILING_DATE_RE.search(span)
    if m is None or m.start() == 0 or (question and _ASKS_WHEN_RE.search(question)):
        return span
    return span[:m.start()].rstrip(" ,")


_CODE_SPAN_RE = re.compile(r"(?<!`)`([^`\n]{1,60})`(?!`)")


def whole_code_span(span: str, raw: str) -> str:
    """The inline code span of ``raw`` that holds ``span`` as a part: a command or expression is read whole
    ("status" inside "`git status`" reads "git status")."""
    if "`" not in raw:
        return span
    for code in _CODE_SPAN_RE.findall(raw):
        code = code.strip()
        if span != code and len(span) < len(code) and re.search(rf"(?<![\w-]){re.escape(span)}(?![\w-])", code):
            return code
    return span


# "[1]", "[2, 3]", "[^1]", "[source: ...]", "【4†source】": a reference mark
_REFERENCE_RE = re.compile(r"\s*(?:\[\^?\d{1,3}(?:\s*[,-]\s*\d{1,3})*\]|\[(?:source|sources|citation|ref|reference|cite)\b[^\]\n]{0,120}\]"
                           r"|\u3010[^\u3011\n]{0,60}\u3011)", re.IGNORECASE)
_FOOTNOTE_LINE_RE = re.compile(r"^[ \t]*\[\^?\d{1,3}\]:?[ \t]+[^\n]*$\n?", re.MULTILINE)
# a sentence adverb or a label after a one-letter word's period: "Vitamin D. Specifically, ...", "K. Long answer: ...": a sentence end
_ADVERB_AFTER_INITIAL_RE = re.compile(r"(?<=\b[A-Z])\.[ \t]+(?=(?:[A-Z][a-z]+(?:ically|ally|ately|ently|antly|ously|ively|ibly|ably|edly|ingly|fully)"
                                      r"|However|Also|Note|This|Its|His|Her|Their)\b|[A-Z][a-z]+(?:\s+[a-z]+)?\s*:)")


# pictographs at the edge of a line decorate it: "👉 Rome", "✅ Rome", "Rome ✔️"
PICTOGRAPHS = "[\u2190-\u21ff\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff\ufe0f\u200d]"
_PICTOGRAPH_EDGE_RE = re.compile(rf"^[ \t]*{PICTOGRAPHS}+[ \t]*|[ \t]*{PICTOGRAPHS}+[ \t]*$", re.MULTILINE)
_BLOCKQUOTE_RE = re.compile(r"^[ \t]*>[ \t]?(?=\S)", re.MULTILINE)


def tidied(raw: str) -> str:
    """``raw`` without reference marks, footnote lines, Markdown quote marks ("> Rome") and pictographs at a line's
    edge ("👉 Rome"), an initial's period
    before a sentence adverb made a line end; ``raw`` itself when there is nothing to tidy."""
    text = raw
    if "[" in text or "\u3010" in text:
        text = _REFERENCE_RE.sub("", _FOOTNOTE_LINE_RE.sub("", text)) if re.search(r"\S", _REFERENCE_RE.sub("", _FOOTNOTE_LINE_RE.sub("", text))) else text
    if ". " in text:
        text = _ADVERB_AFTER_INITIAL_RE.sub(".\n", text)
    if ">" in text:
        text = _BLOCKQUOTE_RE.sub("", text)
    if not text.isascii():
        text = _PICTOGRAPH_EDGE_RE.sub("", text)
    return text


# a sentence adverb or a framing phrase set off by a comma: "Technically, ...", "Strictly speaking, ...", "Contrary to its name, ..."
OPENING_FRAME = (r"[a-z]+(?:ically|ally|ately|ently|antly|ously|ively|ibly|ably|edly|ingly|fully)|strictly\s+speaking|in\s+fact|of\s+course"
                 r"|from\s+what\s+i\s+(?:remember|recall|know)|as\s+far\s+as\s+i\s+(?:know|remember|recall|can\s+tell)|if\s+i\s+(?:recall|remember)(?:\s+correctly|\s+right)?"
                 r"|to\s+(?:the\s+best\s+of\s+)?my\s+knowledge|if\s+memory\s+serves(?:\s+me)?(?:\s+(?:right|correctly|well))?|from\s+memory"
                 r"|based\s+on\s+(?:what\s+i\s+know|my\s+knowledge|my\s+training(?:\s+data)?)"
                 r"|contrary\s+to\s+[^,]{1,40}|as\s+with\s+[^,]{1,40}|compared\s+(?:to|with)\s+[^,]{1,40}|in\s+contrast(?:\s+to\s+[^,]{1,40})?")


_NAME_WORD = r"[A-ZÁÉÍÓÚÂÊÔÀÈÌÒÙÄÖÜÇÑ][\w'\u2019.-]*"
# a passive with its agent in German, French, Spanish, Portuguese, Italian: "fue pintada por X", "wurde von X geschrieben"
_FOREIGN_AGENT_RE = re.compile(
    r"\b(?:fue|fueron|foi|foram|fut|furent|a\s+été|ont\s+été|wurde|wurden|è\s+stat[oa]|fu|sono\s+stat[ie])\s+(?:[^\W\d_]+\s+){0,2}?"
    r"(?:por|par|von|vom|da|pelo|pela|dal|dalla)\s+(?P<name>" + _NAME_WORD + r"(?:\s+(?:(?:de|da|del|di|du|von|van|la|le|y|e)\s+)?" + _NAME_WORD + r"){0,4})")


def foreign_agent(sentence: str) -> str | None:
    """The agent of a passive sentence in German, French, Spanish, Portuguese or Italian ("Las Meninas fue pintada por
    Diego Velázquez" -> "Diego Velázquez"), the one who did what the question asks about; None when there is none.

    >>> foreign_agent("Faust wurde von Johann Wolfgang von Goethe geschrieben.")
    'Johann Wolfgang von Goethe'
    """
    m = _FOREIGN_AGENT_RE.search(sentence)
    return m.group("name").rstrip(".") if m else None


# "I'm sorry", "I don't know", "I'm not sure", "no idea", "maybe X or Y" in other languages: phrases/<lang>.toml
FOREIGN = ("es", "fr", "de", "pt", "it")
_FOREIGN_APOLOGY = alternation("apology", FOREIGN)
_FOREIGN_UNSURE = alternation("unsure", FOREIGN)
_FOREIGN_ABOUT_RE = re.compile(rf"^\W*(?:{_FOREIGN_APOLOGY}\W+)*(?:{_FOREIGN_UNSURE}|{_FOREIGN_APOLOGY})(?:\s+[^\W\d_][\w'-]*){{0,8}}\W*$", re.IGNORECASE)
_FOREIGN_UNSURE_BUT_RE = re.compile(rf"^\W*(?:{_FOREIGN_APOLOGY}\W+)*{_FOREIGN_UNSURE}\s*[,;:.-]?\s*{alternation('but', FOREIGN)}?\s*", re.IGNORECASE)
# "maybe X or Y", or "X or Y, I don't remember which": two candidates, none chosen
_FOREIGN_TWO_RE = re.compile(rf"^\W*(?:{alternation('maybe', FOREIGN)}\s+[^,.;]{{1,40}}?\s+{alternation('or', (*FOREIGN, 'en'))}\s+[^,.;]{{1,40}}"
                             rf"|[^,.;]{{1,40}}?\s+{alternation('or', FOREIGN)}\s+[^,.;]{{1,40}}[,;.-]\s*{alternation('which_one', FOREIGN)})", re.IGNORECASE)


def foreign_no_answer(sentences_: list[str]) -> bool:
    """Whether every sentence only says, in German, French, Spanish, Portuguese or Italian, that the speaker is
    sorry or does not know ("No lo sé.", "Désolé, je ne connais pas la réponse.", "Ich weiß es nicht.")."""
    return bool(sentences_) and all(_FOREIGN_ABOUT_RE.match(p) for p in sentences_)


def after_foreign_unsure(text: str) -> str | None:
    """What follows an opening "I'm not sure" in those languages ("No estoy seguro, pero creo que es Lima." ->
    "creo que es Lima."), or None when the output does not open so or nothing follows."""
    m = _FOREIGN_UNSURE_BUT_RE.match(text)
    if m is None or not re.search(r"\w", text[m.end():]):
        return None
    return text[m.end():]


def foreign_two_candidates(text: str) -> bool:
    """Whether ``text`` opens with "maybe X or Y" in those languages ("quizás Ulán Bator o Darján")."""
    return bool(_FOREIGN_TWO_RE.match(text))
