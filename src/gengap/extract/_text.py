"""Short free-text answers (a name, a word, a short phrase): the span a person would read as the answer.

Inside a sentence the answer is what the question does not already say: in "The longest river in
Europe is the Volga." for "What is the longest river in Europe?", the side of "is" that shares words
with the question is the question restated, the other side is the answer.

Other principles a reader uses, each a rule or a step of one: a courtesy around the reply states nothing
("Thanks for asking! Rome. Hope that helps!"); a reply that only speaks of the answering states no
answer ("Let me look that up."); a candidate denied at the opening gives way to what follows ("Not
Sydney - Canberra."); a tentative pick is a pick, two candidates left unchosen are none; the question's
noun after a modifier of the answer's own is its head ("polar bear"), the thing of the asked kind in
"the A of the B" is B ("inflammation of the liver"); a remark after the answer does not replace it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from gengap.extract import _commitment, _markers
from gengap.extract._base import (
    ABSTAIN,
    STOPWORDS,
    Context,
    Rule,
    clean,
    content_stems,
    first_part,
    sentences,
    stem,
    unfinished,
)
from gengap.extract._cascade import run_cascade
from gengap.extract._markers import Markers, read_marked
from gengap.extract._phrases import alternation, languages_with
from gengap.extract._text_span import (
    OPENING_FRAME,
    cleft_span,
    foreign_agent,
    tidied,
    whole_code_span,
    without_foreign_article,
    without_trailing_date,
)

# the markers of a span: "Answer: X", "The answer is X", "I'd say X", "If I had to pick one: X", "In short: X", and the
# markers of the other languages' phrase files ("Die Antwort ist X", "La réponse est : X")
_TEXT_MARK_RE = re.compile(
    r"(?=[\t\n #abdfimqrst\u7b54])"  # what a match can open with, looked at first: a cheap test (tests/test_extract_speed.py keeps it complete)
    r"(?:(?:final\s+answer|(?<![a-z])(?<!cannot )(?<!can't )(?<!not )(?<!to )(?<!no )(?<!long )(?<!longer )(?<!detailed )(?<!full )answer)(?:\s+(?:is|would\s+be|should\s+be|must\s+be)\b\s*[:=]?|\s*[:=]|\s+-\s|(?<=^answer)[ \t]*\n|(?<=\nanswer)[ \t]*\n)"
    r"|(?:^|\n)[ \t]*(?:short|quick|brief|direct|simple|final|the)\s+answer[ \t]*:?[ \t]*\n"
    r"|####|\bi(?:'d|\s+would|'ll|\s+will)\s+(?:go\s+with|guess|pick|choose|say|settle\s+on)\b|\bmy\s+(?:best\s+|final\s+)?(?:guess|pick|bet)(?:\s+(?:is|would\s+be))?"
    r"|\bif\s+(?:you\s+(?:just\s+|only\s+)?(?:want|need)|i\s+(?:had|have)\s+to\s+(?:pick|choose|name|say))\s+(?:one|a\s+single)(?:\s+\w+)?\s*[,:]"
    r"|\bif\s+i\s+(?:had|have)\s+to\s+(?:pick|choose|name|say)(?:\s+one)?\s*[,:]"
    r"|\b(?:the\s+)?answer\s+to\s+(?:your|the|this|that)\s+question\s+(?:is|would\s+be)\b\s*:?"
    r"|(?:^|(?<=[.!?\n]))[ \t]*(?:in\s+short|tl;?\s*dr|bottom\s+line|in\s+a\s+word|in\s+summary|to\s+sum\s+up)\s*[:,-]"
    r"|\b" + alternation("marker", tuple(lang for lang in languages_with("marker") if lang != "en")) + r"\s*:?)\s*",
    re.IGNORECASE,
)
_BOLD_RE = re.compile(r"\*\*([^*\n]{1,80})\*\*")
_QUOTED_RE = re.compile(r"[\"“]([^\"”\n]{1,60})[\"”]|(?<!\w)'([^'\n]{1,60})'(?!\w)")
_LEAD_RE = re.compile(
    r"^(?:(?:it(?:'s|\s+is|\s+was|'d\s+be|\s+would\s+be|\s+has\s+been|'s\s+been)|that(?:'s|\s+is|\s+was|\s+would\s+be|'d\s+be|\s+will\s+be)|this\s+is|these\s+are|those\s+are|they(?:'re|\s+are|\s+were)"
    r"|i\s+(?:think|believe|guess|suppose)(?:\s+(?:it(?:'s|\s+is)|that(?:'s|\s+is)))?"
    r"|i'?m\s+(?:(?!not\b)\w+\s+)?(?:confident|sure|certain|positive)(?:\s+that)?(?:\s+(?:it(?:'s|\s+is)|that(?:'s|\s+is)))?|probably|definitely|certainly|surely|likely|maybe|perhaps"
    r"|you'?re\s+(?:\w+ly\s+)?(?:describing|thinking\s+of|referring\s+to|talking\s+about|looking\s+for|asking\s+about)|you\s+(?:\w+ly\s+)?mean"
    r"|(?:that|this|it)\s+sounds\s+like|sounds\s+like|use(?!\s+of\b)"
    # "it is", "that is", "I think" in German, French, Spanish, Portuguese, Italian: "Es ist X", "C'est X", "Creo que es X"
    r"|c'(?:est|était)|ce\s+(?:serait|sont|fut)|(?:es|das)\s+(?:ist|war|wäre)|es(?!\s+gibt\b)|sería|será|fue|é|foi|seria|è|sarebbe"
    r"|ich\s+(?:glaube|denke|vermute)(?:\s*,)?|je\s+(?:pense|crois)(?:\s+que|\s+qu')?|(?:creo|pienso|acho|penso)\s+que|credo\s+che|wahrscheinlich|probablement|probablemente|provavelmente|quizás?|tal\s+vez|peut-être|vielleicht|talvez|forse"
    r"|sure[,!]?|well[,!]?|ok(?:ay)?[,!]?|so[,!]?|no[,!]|oh[,!]?|hmm+[,!]?|ah[,!]?|yes[,!]|the\s+answer\s+is|answer\s*:|ans\s*:|a\s*:"
    r"|usually|often|generally|commonly|mostly|typically|called|named|known\s+as|credited\s+to|attributed\s+to|simply|just|actually|really"
    r"|today|nowadays|currently|these\s+days|traditionally|reportedly|supposedly|allegedly|historically|officially|technically|widely|most\s+likely|in\s+english|in\s+short)\s+)+",
    re.IGNORECASE,
)
_CLAUSE_CUT_RE = re.compile(r"\s+-\s+|;|:\s|\s\(|(?<!\d),\s+(?=[a-z0-9])|(?<=\d),\s+(?=[a-z])|\s+(?:because|since|though|although|whereas|while|but|which|who|as\s+many|rather\s+than|instead\s+of|as\s+opposed\s+to)\s"
                            r"|\s+and\s+(?=(?:then\s+)?[a-z]{3,}ed\s+(?:in|by|at|on|into|for|as|to|from|with)\b)",  # "the liver and stored in ...": a second predicate
                            re.IGNORECASE)
_COPULA_RE = re.compile(r"\s(?:is|was|are|were|ist|est|es|é|è|är|remains|became|becomes|serves\s+as|served\s+as|acts\s+as|would\s+be|must\s+be|is\s+called|was\s+called|are\s+called|is\s+named)\s",
                        re.IGNORECASE)
_PASSIVE_BY_RE = re.compile(r"\b(?:\w+ed|\w+en|made|done|built|written|painted|invented|discovered|founded|led|sung|won|held|given|drawn)\s+by\s",
                            re.IGNORECASE)
_CLASSIFIER_RE = re.compile(r"^(?:(?:a|an|the)\s+)?(?:\w+\s+)?(?:species|type|kind|sort|form|variety|breed|member|name|term|word|genus)\s+(?:of|for)\s+",
                            re.IGNORECASE)
_NAME_RE = re.compile(r"\s[A-Z][a-z]+")
_PART_OF_RE = re.compile(r"^(?:(?:in|on|at)\s+)?(?:the\s+|a\s+)?(?:(?:\w+ern|north|south|east|west|central|upper|lower|middle|outer|inner|far)\s+)?"
                         r"(?:part|parts|region|side|edge|end|corner|half|area|section|tip|reaches)\s+of\s+(?=\S)", re.IGNORECASE)
_ROLE_RE = re.compile(r"^(?:(?:the|a|an)\s+)?(?:[A-Z][a-z]+\s+){0,2}(?:[a-z]+\s+)?(?:author|writer|novelist|poet|playwright|dramatist|painter|artist|sculptor"
                      r"|architect|scientist|composer|physicist|chemist|biologist|bacteriologist|physician|astronomer|naturalist|botanist|economist"
                      r"|inventor|engineer|explorer|navigator|president|king|queen|emperor|pharaoh|general|director|philosopher|mathematician"
                      r"|singer|musician|actor|actress|statesman|politician|leader|master|historian|theologian|entrepreneur)\s+(?=[A-Z])")
_WHO_RE = re.compile(r"^\W*(?:who|whom|whose|which\s+(?:person|scientist|writer|author|artist|composer|country|city))\b", re.IGNORECASE)
_PRONOUN_RE = re.compile(r"\b(?:i|we|you|they|he|she|it|its|our|their|my)\b", re.IGNORECASE)
_FIRST_PERSON_RE = re.compile(r"(?<![\w'])(?:I|I'm|I've|I'd|me|my|we|we're|us)(?![\w'])")
_META_RE = re.compile(r"\b(?:let'?s|let\s+us|step\s+by\s+step|question|interesting|tricky|difficult|complicated|complex|perspectives?|depends|good\s+one|great\s+one)\b",
                      re.IGNORECASE)
_TRAILING_PP_RE = re.compile(r"\s(?:in|at|on|from|during|near|since|around|with|for|by|after|before|about|until|between|under)\s.*$", re.IGNORECASE)
_SUBORDINATE_RE = re.compile(r"^\s*(?:(?:when|after|since|because|as|if|once|while|although|though|despite|unlike)\b[^,]{0,60}"
                             r"|(?:in|on|at|for|by|during|according\s+to)\s+(?:\S+\s+){0,3}\S+|(?:among|amongst|of\s+all|out\s+of\s+all|of\s+(?:the|these|those))\s[^,]{1,70}|(?:of|among|between)\s+[^,]{1,30}(?:,\s*[^,]{1,30}){0,3},?\s+(?:and|or)\s+[^,]{1,30}|" + OPENING_FRAME + r"),\s*",
                             re.IGNORECASE)
_LIGHT_VERBS = frozenset("""
speak speaks spoke spoken live lives lived eat eats ate eaten write writes wrote written play plays played
win wins won lead leads led hold holds held build builds built run runs ran sing sings sang
belong belongs belonged mean means meant stand stands stood sit sits sat lie lies lay flow flows flowed
credited attributed regarded recognized recognised considered known called named thought believed said
get gets got gotten rid produce produces produced make makes made use uses used take takes took taken give gives gave given
pay pays paid keep keeps kept put puts bring brings brought go goes went gone come comes came see sees saw seen say says
find finds found call calls called consider considered people person thing things someone something usually often generally
commonly typically mostly mainly largely widely also simply just about around roughly approximately
""".split())
_QUOTES = " \t\"'“”‘’«»‹›.,:;!?*`"


_HONORIFIC_RE = re.compile(r"^(?:sir|dame|dr\.?|mr\.?|mrs\.?|ms\.?|prof\.?|professor)\s+(?=[A-Z])", re.IGNORECASE)


_INSTRUMENT_RE = re.compile(r"^(?:(?i:using|with|through|by\s+means\s+of)|via)\s+(?:(?i:their|its|his|her|the|a|an)\s+)?(?=\S)")  # "Via Appia" is a name


_APPOSED_RE = re.compile(r"^(?:the\s+)?[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*'s\s+((?:[a-z]+\s+){1,2})([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)$")


def _apposed(span: str, ctx: Context) -> str:
    """"Jupiter's moon Ganymede" for "What is the largest moon?": the name after the type the question asks for."""
    m = _APPOSED_RE.match(span)
    return m.group(2) if m and ctx.question and all(_is_question_word(w, ctx) for w in m.group(1).split()) else span


_ARTICLE_RE = re.compile(r"^(?:the|a|an)\s+(?=\S)", re.IGNORECASE)


def _strip(span: str) -> str:
    if "\\" in span or "$" in span:  # "$\text{Warsaw}$": LaTeX around the answer
        span = re.sub(r"\\(?:text|textbf|textit|mathrm|mathbf|operatorname)\s*\{([^{}]*)\}", r"\1", span)
        span = re.sub(r"^\s*\$+\s*(.*?)\s*\$+\s*$", r"\1", span)
    span = _HONORIFIC_RE.sub("", span.strip().strip(_QUOTES).strip())
    span = _ARTICLE_RE.sub("", span) if len(span.split()) > 1 else span
    return span.strip(_QUOTES).strip()


def _acronyms(question: str) -> set[str]:
    """Initials of runs of capitalized question words ("United Kingdom" -> "uk")."""
    caps = re.findall(r"(?:[A-Z][a-z]+\s+){1,4}[A-Z][a-z]+", question)
    return {"".join(w[0] for w in run.split()).lower() for run in caps}


_DEMONYM = re.compile(r"(?:ese|ians?|ans?|ish|ic|i|s|es|ern|ers?)$")


def _is_question_word(word: str, ctx: Context) -> bool:
    """A word the question already says, in any form ("Japanese" for "Japan", "UK" for "United Kingdom")."""
    if not ctx.question:
        return False
    w = word.strip(_QUOTES)
    if stem(w) in ctx.question_stems:
        return True
    low = w.lower()
    for q in _question_words(ctx.question):
        if len(q) >= 4 and low.startswith(q) and _DEMONYM.fullmatch(low[len(q):]):
            return True
        if len(q) >= 5 and q[-1] in "aeiouy" and low.startswith(q[:-1]) and _DEMONYM.fullmatch(low[len(q) - 1:]):
            return True  # "Austrians" for "Austria", "Italians" for "Italy"
    if w.isupper() and len(w) >= 2:
        return w.lower() in _acronyms(ctx.question)
    return False


@lru_cache(maxsize=4096)
def _question_words(question: str) -> tuple[str, ...]:
    return tuple({w.lower() for w in re.findall(r"[A-Za-z]+", question) if w.lower() not in STOPWORDS})


_NUMBER_WORD = (r"(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen"
                r"|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion)(?:-\w+)?")
# a quantity written in words with its unit: "one hundred degrees Celsius", "two hundred seventy-three point one five kelvin"
_NUMBER_PHRASE_RE = re.compile(rf"(?i:{_NUMBER_WORD}(?:\s+(?:and\s+|point\s+)?{_NUMBER_WORD})*)(?:\s+[A-Za-z]+){{0,2}}")


def _number_phrase(span: str) -> bool:
    """Whether ``span`` is a quantity in words with at most a two-word unit (it is read whole)."""
    return bool(_NUMBER_PHRASE_RE.fullmatch(span.strip())) and len(span.split()) >= 2


def _function_word(token: str) -> bool:
    """A stop word, unless written in capitals as a keyword ("HAVING", "WHERE", "AND")."""
    word = token.strip(_QUOTES)
    return word.lower() in STOPWORDS and not (len(word) >= 2 and word.isupper())


def _trim_question_words(span: str, ctx: Context) -> str:
    """Words of the question at either edge of a span are the question restated, not the answer."""
    if _number_phrase(span):
        return span.strip()  # "one hundred degrees Celsius" for "... in Celsius, in words?": the unit belongs to the number
    tokens = span.split()

    def keeps(rest: list[str]) -> bool:  # "vitamin C" stays whole: "C" alone says too little
        return len(" ".join(rest).strip(_QUOTES)) > 2

    for i in range(1, len(tokens)):  # "Vitamin C deficiency": the short name and the word it names
        if len(tokens[i].strip(_QUOTES)) <= 2 and tokens[i][:1].isupper() and _is_question_word(tokens[i - 1], ctx) \
                and all(_is_question_word(t, ctx) or t.lower() in STOPWORDS for t in tokens[:i - 1] + tokens[i + 1:]):
            return f"{tokens[i - 1]} {tokens[i]}"

    while len(tokens) > 1 and _function_word(tokens[0]) and keeps(tokens[1:]):
        tokens.pop(0)
    while len(tokens) > 1 and _function_word(tokens[-1]) and keeps(tokens[:-1]):
        tokens.pop()
    if len(tokens) > 1 and all(t[:1].isupper() for t in tokens if t.lower() not in STOPWORDS):
        return " ".join(tokens)  # a name keeps its own words ("Great Barrier Reef", "Pacific Ocean")
    while len(tokens) > 1 and (_is_question_word(tokens[0], ctx) or tokens[0].lower() in STOPWORDS) and keeps(tokens[1:]) \
            and not _modifier_of_new_head(tokens, ctx):
        tokens.pop(0)
    while len(tokens) > 1 and (_is_question_word(tokens[-1], ctx) or tokens[-1].lower() in STOPWORDS) and keeps(tokens[:-1]) \
            and not _head_noun(tokens, ctx):
        tokens.pop()
    return " ".join(tokens)


def _modifier_of_new_head(tokens: list[str], ctx: Context) -> bool:
    """Whether a two-word phrase is the question's word modifying a common noun of the answer's own ("miso paste"
    for "... in a miso soup?"): it stays whole. Not when the question's word is the kind it asks for ("planet")."""
    if len(tokens) != 2 or tokens[0].lower() in STOPWORDS or tokens[0].lower().endswith("ly"):
        return False  # "Mainly hydrogen": an adverb
    head = tokens[1].strip(_QUOTES)
    asked = _WHICH_NOUN_RE.match(ctx.question or "")
    kind = asked.group(0).split()[-1].lower() if asked else ""
    if not (head.isalpha() and head.islower() and head not in STOPWORDS and head not in _LIGHT_VERBS and not _is_question_word(head, ctx)
            and stem(tokens[0]) != stem(kind) and not _no_answer_words(head)):
        return False
    q = re.findall(r"[A-Za-z]+", ctx.question or "")  # a modifier in the question too: "miso" in "a miso soup", not a verb ("release oxygen")
    return any(stem(w) == stem(tokens[0]) and w.islower() and i + 1 < len(q) and q[i + 1].lower() not in STOPWORDS for i, w in enumerate(q))


def _head_noun(tokens: list[str], ctx: Context) -> bool:
    """Whether the last token is the head noun of a common-noun phrase, the question's word after a modifier
    of the answer's own ("polar bear" for "the largest bear", "white blood cells"): it stays."""
    last = tokens[-1].strip(_QUOTES)
    if not (last.isalpha() and last.islower() and last not in STOPWORDS and last not in _LIGHT_VERBS):
        return False  # "The lungs take in oxygen": the question's verb, not a noun
    i = len(tokens) - 2  # the word before the question's words that end the phrase ("white" in "white blood cells")
    while i > 0 and _is_question_word(tokens[i], ctx) and tokens[i].strip(_QUOTES).isalpha() and tokens[i].strip(_QUOTES).islower():
        i -= 1
    before = tokens[i].strip(_QUOTES)
    before = before.lower() if i == 0 and before[1:].islower() else before  # "Polar bear" opening a sentence
    return before.replace("-", "").isalpha() and before.islower() \
        and before.lower() not in STOPWORDS and before.lower() not in _LIGHT_VERBS and not _is_question_word(before, ctx) \
        and not _no_answer_words(before) and not _COUNT_WORD_RE.fullmatch(before)  # "many moons", "three capitals": a count, no name


_COUNT_WORD_RE = re.compile(r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|dozens?|hundreds?|thousands?|millions?"
                            r"|numerous|countless|multiple|various|several|few|fewer|more|most|many|lots|plenty)", re.IGNORECASE)


# a framing phrase before "it's X": "In the myth it's Atlas", "For most people it's Python"
_FRAME_IT_RE = re.compile(r"^(?:(?:in|on|at|for|by|among|according\s+to|to|since|as\s+of|until)\s+(?:[\w'-]+\s+){1,4}?|(?:today|now|currently|nowadays)\s+)"
                          r"(?=(?:it'?s|it\s+(?:is|was|has\s+been)|it'?s\s+been|that'?s|they'?re|they\s+(?:are|were))\s+\S)",
                          re.IGNORECASE)


def _lead_off(text: str) -> str:
    """``text`` without the words that lead to its answer ("It's", "I think", "You're describing", "In the myth it's")."""
    return _LEAD_RE.sub("", _FRAME_IT_RE.sub("", text.strip(), count=1))


def _clause(text: str, *, lead: bool = True) -> str:
    text = _lead_off(text) if lead else text.strip()
    return _CLAUSE_CUT_RE.split(text, maxsplit=1)[0].strip()


_ASKS_OTHER_LANGUAGE_RE = re.compile(r"\b(?:translat\w*|(?:in|into)\s+[A-Z][a-z]+(?:ese|ian|ish|ic|ew|ek|ai|ali|di|an)\b|kanji|hiragana|katakana)", re.IGNORECASE)
_ASKS_SIGN_RE = re.compile(r"\b(?:letter|symbol|character|sign|emoji)\b", re.IGNORECASE)


_LATIN_OR_DIGIT_RE = re.compile(r"[A-Za-z0-9]")


def _foreign(span: str, ctx: Context) -> bool:
    """A span with no Latin letter or digit, for a question written in them (stray tokens of a small model);
    not when the question asks for another language ("Translate 'thank you' into Japanese.") or a letter or sign ("π")."""
    return ctx.question is not None and ctx.question.isascii() and not _LATIN_OR_DIGIT_RE.search(span) \
        and not _ASKS_OTHER_LANGUAGE_RE.search(ctx.question) and not (len(span.strip()) == 1 and _ASKS_SIGN_RE.search(ctx.question))


def _has_content(text: str, ctx: Context) -> bool:
    return any(not _is_question_word(w, ctx) and w.lower().strip(_QUOTES) not in STOPWORDS
               and w.lower().strip(_QUOTES) not in _LIGHT_VERBS for w in text.split())


_VERBS = frozenset(w for w in _LIGHT_VERBS if w not in {"people", "person", "thing", "things", "someone", "something", "usually", "often",
                                                         "generally", "commonly", "typically", "mostly", "mainly", "largely", "widely",
                                                         "also", "simply", "just", "about", "around", "roughly", "approximately", "rid"})
_MAIN_VERB_RE = re.compile(r"(?<!\S)(?:" + "|".join(sorted(_VERBS, key=len, reverse=True)) + r")(?:\s+(?:into|as|in|on|up|out))?\s+(?=\S)",
                           re.IGNORECASE)
_GENERIC_SUBJECT_RE = re.compile(r"\b(?:people|folks|locals|residents|speakers|most|many|everyone|we|they|you)\b", re.IGNORECASE)
_PREDICATE_PREP_RE = re.compile(r"^(?:(?:best|most|\w+ly)\s+)?(?:famous|famed|renowned|known|noted|native|endemic|indigenous"
                                r"|located|situated|found|home|responsible|used|made|composed)\s+(?:for|to|in|of|from|on|as|at)\s+"
                                r"(?:(?:playing|making|writing|being|using|having)\s+)?", re.IGNORECASE)


_INTERJECTION_RE = re.compile(r"^\W*(?:yes|no|yeah|yep|right|correct|indeed|ok(?:ay)?|sure)(?:\s*[,!.:;]|\s+-)\s+", re.IGNORECASE)
_PRO_FORM_RE = re.compile(r"^(?:the|this|that)\s+(?:\w+\s+){0,2}one\b", re.IGNORECASE)
_WHICH_NOUN_RE = re.compile(r"^\W*(?:(?:in|on|at|from|to|of|around|near)\s+)?(?:which|what)\s+(?!is\b|are\b|was\b|were\b|do\b|does\b|did\b|has\b|have\b|can\b)[a-z]+",
                            re.IGNORECASE)
_CAPITAL_NAME_RE = re.compile(r"(?<![\w'])(?:[A-Z][\w'-]+)(?:\s+(?:(?:of|the|de|van|von|da|di|du|del|der|la|le|bin|al)\s+)?[A-Z][\w'-]+)*")


def _described_name(right: str, ctx: Context) -> str | None:
    """For "which planet/ocean ..." answered by "X is a storm on Jupiter": when the copula describes
    the question's subject as "a/an ...", the name after the description answers."""
    if not re.match(r"^(?:a|an)\s", right, re.IGNORECASE):
        return None
    names = [n for n in _CAPITAL_NAME_RE.findall(right)
             if not all(_is_question_word(w, ctx) or w.lower() in STOPWORDS for w in n.split())]
    if not names:
        return None
    noun = _WHICH_NOUN_RE.match(ctx.question or "")
    kind = noun.group(0).split()[-1].lower() if noun else ""
    typed = [n for n in names if n.split()[-1].lower() == kind]  # "Atlantic Ocean" for "which ocean"
    return _strip((typed or names)[0])


# capitalized only because they open the sentence
_NOT_NAMES = frozenset("""most many some all each every both few several these those this that there here such
another other one two three any no none much more less our your their its his her my we they you it he she""".split())
_GENERIC_VERB_RE = re.compile(r"^(?:we|they|you|people|humans|most\s+people)\s+(?:\w+ly\s+)?[a-z]+(?:\s+(?:out|in|up|off|down|away|back))?\s+(?=\S)",
                              re.IGNORECASE)


_MONTH = r"(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.?"
_DATE_RE = re.compile(rf"\b(?:{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{3,4}}|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\s+\d{{3,4}}"
                      rf"|{_MONTH}\s+\d{{3,4}}|\d{{3,4}}\s*(?:BC|BCE|AD|CE)\b|(?<![\d.,])\d{{4}}(?![\d.,]\d)|\d{{1,2}}(?:st|nd|rd|th)\s+century)")
_ASKS_TIME_RE = re.compile(r"^\W*(?:when\b|(?:(?:in|on|by|until|since)\s+)?(?:what|which)\s+(?:year|date|century|decade|month|day(?!\s+of\s+the\s+week))\b)", re.IGNORECASE)


# a name owning the question's thing: "Jupiter's Great Red Spot ...", "Canada's maple leaf flag ..."
_OWNER_RE = re.compile(r"^\W*(?:the\s+)?((?:[A-Z][\w-]+\s+){0,3}[A-Z][\w-]+)'s\s+((?:[A-Za-z][\w-]*\s+){0,3}?[A-Za-z][\w-]*)\s+"
                       r"(?=is\b|was\b|are\b|were\b|has\b|had\b|lies\b|stands\b)")


_TOKEN_RE = re.compile(r"\S+")
_RUN_EDGE = frozenset("is was are were be been the a an and".split())
_COPULAS = frozenset("is was are were remains".split())
_COPULA_WORD_RE = re.compile(r"\b(?:is|was|are|were|remains)\b", re.IGNORECASE)


@lru_cache(maxsize=4096)
def _question_ngrams(question: str) -> frozenset[tuple[str, ...]]:
    tokens = [t for t in (normalize(w) for w in question.split()) if t]
    return frozenset(tuple(tokens[i:j]) for i in range(len(tokens)) for j in range(i + 3, len(tokens) + 1))


def _restated(sentence: str, ctx: Context) -> str:
    """``sentence`` with the longest run of words it repeats from the question (three or more, two of them
    content words) cut down to its first content word: the question restated is no part of the answer,
    and its own "which"/"who"/commas must not cut the sentence ("The name of the ship on which Darwin
    sailed is HMS Beagle." -> "name is HMS Beagle.")."""
    if not ctx.question or len(sentence) < 20 or sentence.count(" ") < 5 or not _COPULA_WORD_RE.search(sentence) or " or " in ctx.question:
        return sentence
    grams = _question_ngrams(ctx.question)
    found = [(m.start(), m.end(), normalize(m.group(0))) for m in _TOKEN_RE.finditer(sentence)]
    found = [f for f in found if f[2]]
    best = (0, 0)
    for i in range(len(found) - 2):
        if (found[i][2], found[i + 1][2], found[i + 2][2]) not in grams:
            continue
        j = i + 4
        while j <= len(found) and tuple(f[2] for f in found[i:j]) in grams:
            j += 1
        if j - 1 - i >= 3 and j - 1 - i > best[1] - best[0]:
            best = (i, j - 1)
    i, j = best
    while i < j and found[i][2] in _RUN_EDGE:
        i += 1
    while j > i and found[j - 1][2] in _RUN_EDGE:
        j -= 1  # the copula stays: "Paris is the capital of France" keeps its "is"
    content = [f[2] for f in found[i:j] if f[2] not in STOPWORDS]
    copula = (j < len(found) and found[j][2] in _COPULAS) or (i > 0 and found[i - 1][2] in _COPULAS)
    if j - i < 3 or len(content) < 2 or not copula:
        return sentence  # only "<the question restated> is X" and "X is <the question restated>"
    return sentence[:found[i][0]] + content[0] + sentence[found[j - 1][1]:]


def _span(sentence: str, ctx: Context) -> str | None:
    """The answer span of a sentence about the question; the question's own verb never opens it ("Hepatitis
    mainly damages the liver." for "Which organ does hepatitis damage?" reads "liver", not "damages the liver")."""
    span = _sentence_span(sentence, ctx)
    words = span.split() if span else []
    kind = re.match(r"\W*(?:which|what)\s+(\w+)", ctx.question or "", re.IGNORECASE)
    if ctx.question and len(words) > 1 and words[0][:1].islower() and stem(words[0]) in ctx.question_stems \
            and not (kind and stem(kind.group(1)) == stem(words[0])):  # "vitamin C" for "Which vitamin ...?" names the kind asked
        return _strip(_ARTICLE_RE.sub("", " ".join(words[1:]))) or None
    return span


def _sentence_span(sentence: str, ctx: Context) -> str | None:
    """The part of ``sentence`` that answers the question."""
    if _VERDICT_ONLY_RE.match(sentence):
        return None  # "This is debated."
    if ctx.question and _ASKS_TIME_RE.match(ctx.question):
        when = [d for d in _DATE_RE.findall(sentence) if d not in ctx.question]
        if when:
            return when[0]  # "World War II ended in 1945." for "When did ...?"
    s = _INTERJECTION_RE.sub("", _restated(sentence, ctx).strip().rstrip(".!?"), count=1)
    owner = _OWNER_RE.match(s)
    if owner and ctx.question and re.search(r"\b(?:its|their|his|her|whose|has|have|had)\b", ctx.question, re.IGNORECASE) and not _is_question_word(owner.group(1).split()[-1], ctx) \
            and all(_is_question_word(w, ctx) for w in owner.group(2).split()):
        return owner.group(1)  # "Jupiter's Great Red Spot is a storm" for "Which planet has the Great Red Spot?"
    opening = _SUBORDINATE_RE.match(s)
    disclaimer = opening is not None and bool(re.match(r"but\b", s[opening.end():], re.IGNORECASE)) and bool(_FIRST_PERSON_RE.search(s[opening.end():]))
    if opening and not disclaimer and not (ctx.question and content_stems(opening.group(0)) & ctx.question_stems
                                           and not content_stems(s[opening.end():]) & ctx.question_stems):
        s = s[opening.end():]  # not when the opening holds the answer: "As far as I know X is Y, but my data may be old"
    segments = [seg for seg in re.split(r":\s+", s) if seg.strip()]
    if len(segments) > 1 and ctx.question:  # "from general knowledge: the ceiling was painted by ..."
        s = max(reversed(segments), key=lambda seg: len(content_stems(seg) & ctx.question_stems))
    contrast = re.split(r",?\s+but\s+", s, maxsplit=1)
    denied = len(contrast) == 2 and re.match(r"\W*there\s+(?:is|are|was|'s)\s+no\b", contrast[0], re.IGNORECASE) and _COPULA_RE.search(f" {contrast[1]} ")
    several = len(contrast) == 2 and re.match(r"\W*there\s+(?:are|is|were)\s+(?:many|several|various|multiple|a\s+few|competing|different)\b", contrast[0], re.IGNORECASE)
    if len(contrast) == 2 and ctx.question and (content_stems(contrast[1]) & ctx.question_stems or denied or several) and not _FIRST_PERSON_RE.search(contrast[1]):
        s = contrast[1]  # "Glasgow is the biggest city, but Edinburgh is the capital." (not "but my information may be old")
        scope = _SUBORDINATE_RE.match(s)
        if scope and _COPULA_RE.search(f" {s[scope.end():]} "):
            s = s[scope.end():]  # "..., but among metals that melt, tungsten is highest": the scope, then the answer
    concluded = _SO_CLAUSE_RE.split(s)
    if len(concluded) > 1 and ctx.question and content_stems(concluded[-1]) & ctx.question_stems and _COPULA_RE.search(f" {concluded[-1]} "):
        s = concluded[-1]  # "John was the witty one, Paul the cute one, so the quiet one was George"
    relative = _RELATIVE_SUBJECT_RE.match(s)
    if relative and ctx.question and len(content_stems(relative.group(1)) & ctx.question_stems) >= 2 \
            and _is_name(relative.group(2), ctx) and len(relative.group(2).split()) <= 4:
        return _strip(relative.group(2))  # "the god shown with green skin who rules the afterlife is Osiris"
    s = _clause(s, lead=False)
    if not s:
        return None
    side, done = _chosen_side(s, ctx)
    return side if done else _finished_span(side or "", sentence, ctx)


def _chosen_side(s: str, ctx: Context) -> tuple[str | None, bool]:
    """The side of a copula ("X is Y") or the part of a clause that holds the answer, and whether it is final."""
    sides = _COPULA_RE.split(f" {s} ", maxsplit=1)
    if len(sides) == 2 and ctx.question:
        compound = re.match(r"^(?i:the|a|an)\s+([a-z][a-z-]+)\s+[a-z]+s\s.*\band$", sides[0].strip())
        if compound and not _is_question_word(compound.group(1), ctx):
            return compound.group(1), True  # "The humerus runs from the shoulder ... and is the longest bone": the subject
    if len(sides) == 2:
        return _copula_side(sides[0].strip(), sides[1].strip(), ctx)
    return _verb_side(s, ctx)


def _copula_side(left: str, right: str, ctx: Context) -> tuple[str | None, bool]:
    """Which side of "X is Y" answers: the one with fewer of the question's words, a name over a description."""
    if re.match(r"(?:not|never)\b(?!\s+only\b|\s+just\b)", right, re.IGNORECASE) and ctx.question:
        return None, True  # "Venus is not the largest": a denial names no answer
    if _IS_THE_ANSWER_RE.match(right) and _has_content(left, ctx) and len(left.split()) <= 6:
        return _trim_question_words(_strip(_lead_off(left)), ctx) or None, True  # "Carbon dioxide is the answer you're looking for."
    q_left = sum(_is_question_word(w, ctx) for w in left.split())
    q_right = sum(_is_question_word(w, ctx) for w in right.split())
    passive = bool(_PASSIVE_BY_RE.match(right.strip() + " ") or re.match(r"^(?:\w+\s+){0,2}by\s", right.strip()))
    named = _NAME_RE.search(" " + left) and not _NAME_RE.search(" " + right) and bool(ctx.question and _WHO_RE.match(ctx.question))
    s = left if q_left < q_right or (q_left == q_right and not passive and (named or (not ctx.question and len(left.split()) <= 3
                                     and len(right.split()) > len(left.split())))) else right
    if s == left and re.search(r"\b(?:it|this|that|he|she|they)$", left, re.IGNORECASE) and _has_content(right, ctx):
        s = right  # "As of my last update it was Pope Francis": the pronoun stands for what is asked
    if s == right and q_left == q_right and ctx.question and re.match(r"\W*(?:what|which|who|whom)\b", ctx.question, re.IGNORECASE) and _is_name(left, ctx) \
            and not _is_name(right, ctx):
        s = left  # "The Atacama Desert is the driest desert" for "Which desert ...?": the name answers
    if s == right and passive and ctx.question and not _WHO_RE.match(ctx.question) and not re.search(r"\bby\s+whom\b", ctx.question) \
            and _has_content(left, ctx) and not q_left:
        return _trim_question_words(_strip(_LEAD_RE.sub("", left)), ctx) or None, True  # "Sputnik 1 was launched by ...", asked its name
    if s == right and not _has_content(_clause(right, lead=False), ctx) and _has_content(left, ctx):
        s = left  # "The Pacific Ocean is the largest": the other side only restates the question
    elif s == left and not _has_content(left, ctx) and _has_content(right, ctx):
        s = right
    if s == right and not passive and re.match(r"^[\"'\u201c\u2018][^\"'\u201d\u2019]{1,40}[\"'\u201d\u2019]$", left.strip()) \
            and not (ctx.question and content_stems(left) <= ctx.question_stems):
        s = left  # '"Joyful" is a good synonym.': the quoted term is named
    if s == right and _PRO_FORM_RE.match(right) and _has_content(left, ctx):
        s = left  # "Saturn is the famous one": the other side names it
    if s == right and ctx.question and _WHICH_NOUN_RE.match(ctx.question):
        name = _described_name(right, ctx)
        if name:
            return name, True
    s = _LEAD_RE.sub("", s.strip())
    by = _PASSIVE_BY_RE.search(s) or re.match(r"^(?:\w+\s+){0,2}by\s", s) or (
        ctx.question and _WHO_RE.match(ctx.question) and re.search(r"\sby\s+(?=[A-Z])", s))  # "... in 1928 by Fleming"
    if by:
        s = s[by.end():]
    return s, False


def _verb_side(s: str, ctx: Context) -> tuple[str | None, bool]:
    """The answer part of a clause without a copula: its subject when asked who or what does something, else the object."""
    s = _ROLE_RE.sub("", _lead_off(s))  # "Italian Renaissance artist Leonardo da Vinci painted it"
    expands = _STANDS_FOR_RE.search(s)
    if expands and ctx.question and _ASKS_EXPANSION_RE.search(ctx.question):
        s = s[expands.end():]  # "ETA stands for estimated time of arrival": what it stands for
    given = _GOES_TO_RE.search(s)
    if given and (_AWARD_RE.search(s[:given.start()]) or any(_is_question_word(w, ctx) for w in s[:given.start()].split())):
        s = s[given.end():]  # "Credit for discovering penicillin goes to Alexander Fleming", "That title goes to the blue whale"
    subject = _subject(s, ctx)
    if subject:
        return subject, True
    s = _GENERIC_VERB_RE.sub("", s, count=1)  # "We breathe out carbon dioxide": the object
    verb = _MAIN_VERB_RE.search(s)
    if verb and verb.start() > 0 and (any(_is_question_word(w, ctx) for w in s[:verb.start()].split())
                                      or _GENERIC_SUBJECT_RE.search(s[:verb.start()])):
        s = s[verb.end():]  # "Most people in Quebec speak French ...": the object answers
    return s, False


def _finished_span(s: str, sentence: str, ctx: Context) -> str | None:
    """The answer part ``s`` of ``sentence`` trimmed to the answer: no leading predicate, classifier, role or question words."""
    predicate = _PREDICATE_PREP_RE.match(s.strip())
    if predicate and s.strip()[predicate.end():].strip():
        s = s.strip()[predicate.end():]  # "native to Australia", "famous for playing the electric guitar"
    s = _CLASSIFIER_RE.sub("", s.strip())
    s = _PART_OF_RE.sub("", s)  # "the western part of the North Atlantic Ocean": the whole is named
    s = _ROLE_RE.sub("", s)  # "British author J.K. Rowling": the name answers
    candidate = _TRAILING_PP_RE.sub("", s) if len(s.split()) > 2 else s
    if candidate.strip() and _has_content(candidate, ctx):
        s = candidate
    s = _trim_question_words(_strip(s), ctx) if ctx.question else _strip(s)
    tokens = s.split()
    while len(tokens) > 1 and (tokens[0].lower() in _LIGHT_VERBS or (tokens[0].islower() and tokens[0].endswith("ly"))):
        tokens.pop(0)
    s = " ".join(tokens)
    whole = _whole_of_part(s, ctx)
    if whole:
        s, tokens = whole, whole.split()
    if ctx.question and len(tokens) > 3 and not _is_name(s, ctx) and not _number_phrase(s) \
            and not _ASKS_EXPANSION_RE.search(ctx.question):  # "Great Wall of China" stays whole, so does what "ETA" stands for
        runs: list[list[str]] = [[]]
        for i, t in enumerate(tokens):
            if t.lower() == "and" and runs[-1] and runs[-1][-1][:1].isupper() and i + 1 < len(tokens) and tokens[i + 1][:1].isupper() \
                    and re.match(r"^\W*who\b", ctx.question, re.IGNORECASE):
                runs[-1].append(t)  # "James Watson and Francis Crick": one answer
            elif _is_question_word(t, ctx) or t.lower() in STOPWORDS or t.lower() in _LIGHT_VERBS or t.lower() in _PREPOSITIONS:
                runs.append([])
            else:
                runs[-1].append(t)
        runs = [r for r in runs if r]
        if runs:
            s = " ".join(runs[0])
    s = _strip(_INSTRUMENT_RE.sub("", s))  # "using their gills"
    if s and ctx.question and _WHO_RE.match(ctx.question) and not re.search(r"[A-Z]", s):
        names = [n for n in _CAPITAL_NAME_RE.findall(sentence) if n.split()[0].lower() not in _NOT_NAMES
                 and not any(_is_question_word(w, ctx) for w in n.split()) and n != sentence.split()[0]]
        if names:
            s = names[0]  # "That honour goes to Marie Curie": a person is asked for
    if s and ctx.question and not re.search(r"[A-Z]", s) and _ASKS_NAME_RE.match(ctx.question) and s.isascii():
        return None  # "sits high in the Andes of Peru" for "In which country ...?": a country is a name, "high" is none
    if s and ctx.question and _SUPERLATIVE_RE.match(s) and len(s.split()) >= 2 and not _SUPERLATIVE_RE.search(ctx.question):
        return None  # "Wimbledon is the oldest tennis tournament" for "Which sport ...?": a description of the subject, no answer
    if not s or len(s.split()) > 6 or _FIRST_PERSON_RE.search(s) or _META_RE.search(s) or _foreign(s, ctx):
        return None
    if _no_answer_words(s) or re.match(r"(?:it|that|this|they|he|she)(?:'s|'re|\s+is|\s+are|\s+was|\s+were)\b", s, re.IGNORECASE):
        return None  # "it's a lake": a clause about the answer, not the answer
    if ctx.question and re.match(r"\W*who\b", ctx.question, re.IGNORECASE) and len(s.split()) > 2:
        names = [re.sub(r"'s$", "", n) for n in _FULL_NAME_RE.findall(s) if n.split()[0].lower() not in _NOT_NAMES]
        if len(names) == 1 and " and " not in s and any(t[:1].islower() for t in s.split()):
            s = names[0]  # "among Salvador Dali's best-known paintings": the person asked for
    if ctx.question and " or " not in ctx.question and len(sentence.split()) > 3 and all(_is_question_word(w, ctx) or w.lower() in STOPWORDS for w in s.split()):
        return None  # only the question's own words (unless it asks "X or Y?")  # "I'm not sure", "an interesting question": about the answer, not the answer
    return s


# a subject holding a relative clause, then the copula and a name: "The god who rules the afterlife is Osiris"
_RELATIVE_SUBJECT_RE = re.compile(r"^\W*((?:the|a|an)\s[^,;:()]{3,80}?\s(?:who|which|that|whose)\s[^,;:()]{3,80}?)\s(?:is|was|are|were)\s+"
                                  r"(?:the\s+)?([A-Z][^,;:()]{0,50}?)\W*$", re.IGNORECASE)


# the question asks what an abbreviation stands for, and the reply says it
_ASKS_EXPANSION_RE = re.compile(r"\b(?:stands?\s+for|short\s+for|abbreviation|acronym|expan(?:d|sion)|full\s+form)\b", re.IGNORECASE)
_STANDS_FOR_RE = re.compile(r"\b(?:stands?|stood)\s+for\s+|\bis\s+short\s+for\s+", re.IGNORECASE)


# a role, an honour or a record handed to the answer: "The credit goes to X", "The record belongs to X"
_GOES_TO_RE = re.compile(r"\s(?:goes|went|belongs|belonged|falls|fell|is\s+given|was\s+given|is\s+awarded|was\s+awarded)\s+to\s+(?=\S)", re.IGNORECASE)
_AWARD_RE = re.compile(r"\b(?:credit|title|honou?r|record|distinction|prize|award|crown|spot|place|position|answer|accolade|trophy)\b", re.IGNORECASE)


# the other side of "X is ..." only says that X answers: "the answer you're looking for", "the correct one"
_IS_THE_ANSWER_RE = re.compile(r"(?:the\s+|my\s+)?(?:correct\s+|right\s+|final\s+|best\s+)?(?:answer|one|solution|response)\b(?!\s+(?:of|to\s+the\s+(?!question)))",
                               re.IGNORECASE)


_PART_OF_WHOLE_RE = re.compile(r"^([a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2})\s+of\s+(?:the\s+|an?\s+)?([A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,2})$")


def _whole_of_part(span: str, ctx: Context) -> str | None:
    """For "Which organ ...?" answered by "inflammation of the liver" or "the beta cells of the pancreas":
    the thing of the asked kind is the one the phrase is "of"; the common noun before "of" is a part,
    a state or a process of it. Not when that noun is the question's own ("a pride of lions")."""
    if not ctx.question or not _WHICH_NOUN_RE.match(ctx.question):
        return None
    m = _PART_OF_WHOLE_RE.match(span.strip())
    if not m:
        return None
    part, whole = m.group(1).split(), m.group(2).split()
    if any(_is_question_word(w, ctx) or w in STOPWORDS or _COUNT_WORD_RE.fullmatch(w) for w in part) \
            or any(_is_question_word(w, ctx) or w.lower() in STOPWORDS for w in whole):
        return None
    return " ".join(whole)


# a question whose answer is a proper name: "In which country ...?", "Which composer ...?"
_ASKS_NAME_RE = re.compile(r"^\W*(?:(?:in|on|at|from|to)\s+)?(?:which|what)\s+(?:country|city|capital|continent|state|province|river|mountain|ocean|sea"
                           r"|planet|island|lake|desert|language|president|author|writer|composer|painter|scientist|king|queen|emperor|company)"
                           r"\s+(?:is|was|are|were|has|had|have|do|does|did|can|could|will|would|[a-z]+ed|[a-z]+s|wrote|won|led|built|began|ran|lies|sits)\b",
                           re.IGNORECASE)  # the kind is the head noun: not "Which sea creature ...?"
_SUPERLATIVE_RE = re.compile(r"\b(?:(?!(?:west|interest|forest|honest|modest|rest|test|guest|chest|nest|best|request|contest|harvest|pest|vest|quest)\b)[a-z]{2,}est|[Mm]ost|[Ll]east|[Bb]est|[Ww]orst)\b")  # lower case: "Ernest" is a name


_ASKS_SUBJECT_RE = re.compile(r"^\W*(?:(?:which|what)\s+(?!is\b|are\b|was\b|were\b|do\b|does\b|did\b)[a-z]+(?:'s)?|who)\s+(?!is\b|are\b|was\b|were\b|do\b|does\b|did\b|has\b|have\b|had\b"
                              r"|can\b|could\b|will\b|would\b|should\b|may\b|might\b|must\b)([a-z]{3,})\b", re.IGNORECASE)


def _verb_root(word: str) -> str:
    """A verb without its ending, to find the question's verb in the answer ("filters" ~ "filter")."""
    return re.sub(r"(?:es|s|ed|ing)$", "", word.lower()) if len(word) > 4 else word.lower()


def _subject(s: str, ctx: Context) -> str | None:
    """The subject of a sentence without a copula, when the question asks for who or what does something:
    a name opening the sentence whose predicate speaks of the question ("India overtook China and now has
    the largest population", "France gave it to the US", "The Mediterranean Sea lies between Europe and
    Africa"), a full name for a "who" question ("Alfred Russel Wallace independently arrived at it"), or
    the words before the question's own verb ("The gallbladder stores bile")."""
    if not ctx.question:
        return None
    asks = _ASKS_SUBJECT_RE.match(ctx.question)
    if asks:  # the question's verb in the sentence: what comes before it is its subject
        verb = _verb_root(asks.group(1))
        tokens = s.split()
        for i, token in enumerate(tokens[1:5], start=1):
            if _verb_root(token.strip(_QUOTES)) == verb and not token[:1].isupper():  # "European Central Bank": a name's word, no verb
                before = " ".join(tokens[:i])
                if (not any(_is_question_word(w, ctx) for w in tokens[:i]) or _is_name(before, ctx)) and _has_content(before, ctx) \
                        and not _PRONOUN_RE.search(before) and not _GENERIC_SUBJECT_RE.search(before):
                    return _strip(re.sub(r"'s$", "", before)) or None  # "Canada's flag has ..." for "Which country's flag ...?"
                break
    initials = re.match(r"(?:[A-Z]\.\s?){1,3}(?=[A-Z][a-z])", s)  # "J.R.R. Tolkien wrote ..."
    common = re.match(r"^(?i:the|a|an)\s+([a-z][a-z-]+)\s+([a-z]+s)\s+(.+)$", s)
    if common and _WHICH_NOUN_RE.match(ctx.question) and not _is_question_word(common.group(1), ctx) \
            and common.group(1) not in STOPWORDS and common.group(1) not in _EVALUATIVE and common.group(2) not in ("is", "was", "has", "does") \
            and any(_is_question_word(w, ctx) for w in common.group(3).split()):
        return common.group(1)  # "The liver detoxifies the blood" for "Which organ cleans the blood?"
    head = _CAPITAL_NAME_RE.match(s, initials.end() if initials else 0)
    if not head or len(head.group(0)) >= len(s) or not s[:1].isupper():
        return None
    numeral = re.match(r"\s+(?:\d+|[IVX]+)\b(?!\s*[%.,]\d)", s[head.end():])  # "Apollo 11", "Louis XIV"
    head_end = head.end() + (numeral.end() if numeral else 0)
    name = re.sub(r"'s$", "", s[:head_end].strip())  # "Canada's flag has ...", asked which country's flag
    parts = name.split()
    if parts[0].lower() in _NOT_NAMES or _GENERIC_SUBJECT_RE.match(name) or not _has_content(name, ctx):
        return None
    start = 1 if parts[0].lower() == "the" and len(parts) > 1 else 0
    if _is_question_word(parts[start], ctx):
        return None  # the question's own subject opens the sentence
    joined = re.match(r"\s+and\s+((?:[A-Z][\w'-]+\s+){0,3}[A-Z][\w'-]+)", s[head_end:])
    if joined and re.match(r"\W*who\b", ctx.question, re.IGNORECASE):  # "James Watson and Francis Crick discovered it"
        name, head_end = f"{name} and {joined.group(1)}", head_end + joined.end()
    rest = s[head_end:].split()
    speaks = any(_is_question_word(w, ctx) for w in rest)  # "gave it to the US" for "... to the United States?"
    person = bool(_WHO_RE.match(ctx.question)) and bool(rest) and rest[0][:1].islower() \
        and (len(parts) - start >= 2 or bool(_PAST_VERB_RE.fullmatch(rest[0])))  # "Beethoven set Schiller's poem to music"
    superlative = re.compile(r"\b(?:\w{3,}est|most|least)\b", re.IGNORECASE)
    person = person or bool(superlative.search(ctx.question) and superlative.search(" ".join(rest[:3])) and rest and rest[0][:1].islower())
    person = person or bool(re.match(r"(?:\w+ly\s+)?(?:beats?|tops?|leads?|overtakes?|outnumbers?|exceeds?|surpasses?|outranks?|edges?\s+out|wins?|won)\b",
                                     " ".join(rest[:3]), re.IGNORECASE))
    return _strip(name) if speaks or person else None


# a verb in the past tense: what a person did ("Beethoven set ...", "Fleming noticed ...")
_PAST_VERB_RE = re.compile(r"[a-z]{2,}ed|wrote|set|built|drew|sang|led|won|made|found|gave|took|began|came|ran|put|held|brought|taught|fought"
                           r"|thought|sold|told|kept|left|met|saw|became|invented|discovered|composed|painted|designed|founded")


_SO_CLAUSE_RE = re.compile(r"[,;]\s+(?:and\s+)?(?:so|therefore|thus|hence)\s+", re.IGNORECASE)


def _is_name(side: str, ctx: Context) -> bool:
    """A side of "X is Y" that is a proper name with a word of its own ("The Atacama Desert")."""
    name = re.sub(r"^(?:the|a|an)\s+", "", side.strip(), flags=re.IGNORECASE)
    return bool(_CAPITAL_NAME_RE.fullmatch(name)) and any(not _is_question_word(w, ctx) for w in name.split())


_EVALUATIVE = frozenset("""fascinating interesting amazing beautiful complicated important unique diverse huge big small large great
wonderful incredible remarkable common rare popular famous different various many several numerous varied tricky""".split())


def _no_answer_words(span: str) -> bool:
    """A span no answer is made of: function words only ("answer", "the one"), a quantifier ("many"),
    a negated verb ("wasn't")."""
    if any(len(t.strip(_QUOTES)) >= 2 and t.strip(_QUOTES).isupper() for t in span.split()):
        return False  # "HAVING", "WHERE": a keyword in capitals is a name, not a function word
    tokens = [t.strip(_QUOTES).lower() for t in span.split()]
    return all(t in STOPWORDS for t in tokens) or (len(tokens) == 1 and (tokens[0] in _NOT_NAMES or tokens[0] in _EVALUATIVE
                                                                          or tokens[0].endswith("n't")))


def _short(text: str) -> bool:
    return bool(text) and (len(text.split()) <= 5 or _number_phrase(text)) and not _COPULA_RE.search(f" {text} ")


# the thing asked about does not exist: "France doesn't have a king", "the film never names a capital"
_NO_SUCH_RE = re.compile(r"\b(?:(?:does|do|did|has|have|had)(?:n't|\s+not)\s+(?:have|had)|(?:has|have|had)\s+no|there\s+(?:is|are|was|were|'s)\s+no"
                         r"|there\s+(?:isn't|aren't|wasn't|weren't)\s+(?:a|an|any)|never\s+(?:names?|named|had|has|mentions?|mentioned))"
                         r"\s+(?:(?:a|an|any|the|one|official|single|current)\s+)*([A-Za-z]+)|\bthere\s+(?:isn't|is\s+no|'s\s+no)\s+(?:one|such)\b",
                         re.IGNORECASE)


def _no_such(ctx: Context) -> str | None:
    """The opening sentence says the thing the question asks for does not exist: no answer to read."""
    if not ctx.question:
        return None
    head, _ = first_part(ctx.text)
    m = _NO_SUCH_RE.search(head)
    listed = m is not None and re.match(r"\s*:\s*[^,;.]+(?:,\s*[^,;.]+)+,?\s+and\s+", head[m.end():])
    if m is not None and listed:
        return ABSTAIN  # "There isn't one: German, French, Italian and Romansh are all ...": several, none the answer
    if m is None or re.search(r"\bbut\b|:", head[m.end():]):
        return None  # "Bolivia has no single capital: Sucre ...": an answer follows
    return ABSTAIN if m.group(1) is None or stem(m.group(1)) in ctx.question_stems else None


_CONFIRMED_RE = re.compile(r"(?:^|[.!;]\s+)(?:yes|yep|right|correct|confirmed|indeed|that'?s\s+(?:right|correct))\b", re.IGNORECASE)


def _read_region(ctx: Context, region: str, retracted: str = "") -> str | None:
    """The answer in the text after a self-correction: the clause that speaks of the question and
    states something, not the one that explains the retracted answer."""
    region = re.sub(r"^\W*(?:no|nope)\b\W*", "", region, flags=re.IGNORECASE)
    settled = _commitment.without_doubt(region)  # "Venus - hmm, or is it Mars? No, Venus: ...": the doubt settled
    if settled != region:
        region, retracted = settled, ""  # the first answer may stand: nothing is taken back
    confirmed = _commitment.confirmed_answer(region)  # "Wait, or is it Ld? No - Pb is right."
    if confirmed and _has_content(_strip(confirmed), ctx):
        return _strip(confirmed)
    marked = read_marked(MARKERS, ctx, region)
    if marked:
        return marked
    parts = [p for s in sentences(region) for p in re.split(r"\s+-\s+|;|:\s", s) if p.strip()]
    if not parts:
        return None
    old = normalize(retracted)
    if _CONFIRMED_RE.search(region):
        old = ""  # "let me make sure ... Yes, Marrakesh is in Morocco": the check confirms the first answer
    closing = _CONCLUDING_RE.match(parts[-1].strip())
    if closing and len(parts) > 1:  # "... but Bern is the federal city - so Bern.": the correction concludes
        last = _strip(parts[-1].strip()[closing.end():])
        if 0 < len(last.split()) <= 3 and _has_content(last, ctx) and normalize(last) != old and not _COPULA_RE.search(f" {last} "):
            return last
    old_words = set(old.split()) - STOPWORDS
    restated = _commitment.restated_answer(parts[0])  # "Actually, no - it's in France. Lyon is ...": restated first
    if restated and _has_content(_strip(restated), ctx) and normalize(_strip(restated)) != old \
            and not set(normalize(restated).split()) - STOPWORDS <= old_words:
        return _strip(restated)
    head = _strip(parts[0])
    if len(parts) > 1 and 0 < len(head.split()) <= 3 and _has_content(head, ctx) and normalize(head) != old \
            and not old_words & set(normalize(head).split()) and not _COPULA_RE.search(f" {head} ") and head[:1].isupper():
        return head  # "Jupiter - no, Saturn. Titan is ...": the corrected answer comes first

    def score(part: str) -> int:
        about = bool(ctx.question and content_stems(part) & ctx.question_stems)
        states = bool(_COPULA_RE.search(f" {part} ") or re.search(r"\b(?:called|named|'s)\b", part))
        # it speaks of the retracted answer: "Caesar was dictator", "that's getting softer"
        repeats = bool(old_words & set(normalize(part).split())) or bool(re.match(r"\W*(?:that|he|she|they)(?:'s|\s+is|\s+was|\s+are|\s+were)\b", part, re.IGNORECASE))
        return about + states - 2 * repeats

    best = max(parts, key=score)  # the first of the best
    found = _span(best, ctx)
    if found and old and normalize(found) == old:  # "Wait, no - we inhale oxygen and exhale carbon dioxide."
        for clause in re.split(r",?\s+(?:and|but|while|whereas)\s+|;\s*", best):
            if not old_words & set(normalize(clause).split()):
                other = _span(clause, ctx)
                if other and normalize(other) != old:
                    return other
        return None
    return found


_PUNCTUATION_RE = re.compile(r"[^\w\s]")


def normalize(text: str) -> str:
    return " ".join(_PUNCTUATION_RE.sub(" ", text.lower()).split())


def _correction(ctx: Context) -> str | None:
    region = ctx.correction if ctx.correction is not None else _commitment.no_after_short_answer(ctx)  # "Buzz Aldrin. No - Neil ..."
    if region is None or not re.search(r"\w", region):
        return None  # "Iron (many confuse it with cobalt, but that's wrong)": nothing follows to correct it to
    before = ctx.text[: len(ctx.text) - len(region)]
    if _commitment.corrects_a_detail(region, ctx.question_stems):
        return None  # "Correction - it was published in 1987": a detail fixed, the answer before it stands
    if "**" in ctx.raw:  # "wait, no ... made by the beta cells of the **pancreas**": the bold word after the correction
        bold = [b.strip() for b in _BOLD_RE.findall(ctx.raw) if b.strip() in region and b.strip() not in before
                and not (ctx.question and content_stems(b) <= ctx.question_stems) and not _off_type(b.strip(), ctx)]
        if bold and _short(bold[-1]):
            return _strip(bold[-1])
    retracted = _clause(sentences(before)[0]) if sentences(before) else ""
    if len(retracted.split()) > 3:  # "Lagos is the capital of Nigeria. Sorry, ...": what that sentence answered
        retracted = _span(sentences(before)[0], ctx) or ""
    if len(retracted.split()) > 3 or not retracted:  # "I'd go with SUMIF... actually no": the pick taken back
        retracted = _commitment.retracted_pick(before) or retracted
    return _read_region(ctx, region, retracted if len(retracted.split()) <= 3 else "")


# a list item opening the answer ("- ", "* ", "1. "), and a label before its value ("Author: ...")
_LIST_ITEM_RE = re.compile(r"^\s*(?:[-*\u2022]\s+|\d+[.)]\s+)?(?:[A-Z][\w ]{0,25}:\s+(?=\S))?")


def _first(ctx: Context, tail: str) -> str | None:
    """The span a marker announces: its first sentence's clause, short, or the span read from it (not the question
    echoed after "Answer:")."""
    tail = _LIST_ITEM_RE.sub("", tail.strip(), count=1)
    head = sentences(tail)[0] if sentences(tail) else tail
    if head.rstrip().endswith("?"):
        return None  # the question echoed after "Answer:" answers nothing
    clause = _clause(head)
    if _short(clause):
        span = _strip(clause)
        if ctx.question and _bare(clause, ctx, whole=re.sub(r"\s*\([^()]*\)\W*$", "", head)):
            return _trim_leading(span, ctx) or None  # "Final answer: white blood cells (leukocytes)"
        return (_trim_question_words(span, ctx) if ctx.question else span) or None
    return _span(head, ctx)


# the table of the marker stage: a span after the last marker followed by one; a box holds the span whole
MARKERS = Markers(first=_first, last=lambda ctx, text: None, marker=_TEXT_MARK_RE, region=("whole",), conclusion=re.compile(
    r"(?:^|(?<=[.!?]\s)|(?<=\n))\s*(?:so|therefore|thus|hence|in\s+short|in\s+conclusion|overall)\b[,:]?\s*", re.IGNORECASE))


def _bold(ctx: Context) -> str | None:
    found = [b for b in _BOLD_RE.findall(ctx.raw) if not (ctx.question and content_stems(b) <= ctx.question_stems)
             and not b.rstrip().endswith(":") and not _off_type(b.strip(), ctx)]
    if not found:
        return None
    opening = ctx.raw.lstrip().startswith("**" + found[0])  # "**Amundsen** reached it ... before **Scott**": the first stated
    span = _strip(_clause(found[0] if opening else found[-1]))
    return span if _short(span) else None


_ASKS_NUMBER_RE = re.compile(r"\W*(?:when|how\s+(?:many|much|long|far|old)|what\s+(?:year|date|time|number))\b", re.IGNORECASE)


_TABLE_RULE_RE = re.compile(r"^\s*\|?\s*:?-+:?\s*\|", re.MULTILINE)  # the line under a Markdown table's header


def _table(ctx: Context) -> str | None:
    """The cell beside the row label the question names, in a Markdown table."""
    if not ctx.question or not _TABLE_RULE_RE.search(ctx.text):
        return None
    lines = ctx.text.split("\n")
    column_names: set[str] = set()
    for i, line in enumerate(lines):
        if not line.strip().startswith("|") or _TABLE_RULE_RE.match(line):
            continue
        if i + 1 < len(lines) and _TABLE_RULE_RE.match(lines[i + 1]):
            column_names |= content_stems(line)  # the header row: a word it shares with the question names a column, not a row
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        asked = ctx.question_stems - column_names
        if any(content_stems(c) & asked for c in cells):
            rest = [c for c in cells if c and not content_stems(c) & asked]
            if len(rest) > 1 and not _ASKS_NUMBER_RE.match(ctx.question):
                rest = [c for c in rest if not re.search(r"\d", c)]  # a year or count beside a name
            if len(rest) == 1:
                return _strip(rest[0])
    return _table_column(lines, ctx)


_RULE_ROW_RE = re.compile(r"^\s*\|?\s*:?-+:?\s*\|")


def _table_column(lines: list[str], ctx: Context) -> str | None:
    """The cell under the column the question names ("Mountain" for "the tallest mountain"), in the only
    row of the table or in the row ranked first."""
    rows = [[c.strip() for c in ln.strip().strip("|").split("|")] for ln in lines
            if ln.strip().startswith("|") and not _RULE_ROW_RE.match(ln)]
    if len(rows) < 2 or not any(_RULE_ROW_RE.match(ln) for ln in lines):
        return None
    header, data = rows[0], [r for r in rows[1:] if len(r) == len(rows[0])]
    named = [j for j, c in enumerate(header) if content_stems(c) and content_stems(c) <= ctx.question_stems]
    if len(named) != 1 or not data:
        return None
    if len(data) > 1:
        rank = [j for j, c in enumerate(header) if c.strip().lower() in ("rank", "#", "no.", "position", "place")]
        first = [r for r in data if rank and r[rank[0]].strip(" .#") == "1"]
        if len(first) != 1:
            return None
        data = first
    cell = _strip(data[0][named[0]])
    return cell if cell and _short(cell) else None


# a pleasantry or interjection opening a reply is not its answer: "Sure! ...", "Well, ...", "Great question."
_OPENER_RE = re.compile(r"^\s*(?:(?:sure|certainly|of\s+course|absolutely|ok(?:ay)?|well|alright|all\s+right|hi|hello|hey|oh|ah|hmm+"
                        r"|(?:a\s+)?(?:great|good|nice|interesting|fun)\s+question|happy\s+to\s+help|no\s+problem|let'?s\s+see)\s*[!,.:\u2014-]+\s*)+",
                        re.IGNORECASE)


_TABLE_ROW_RE = re.compile(r"^\s*\|.*$\n?", re.MULTILINE)


def _without_tables(text: str) -> str:
    text = _TABLE_ROW_RE.sub("", text).strip()
    opener = _OPENER_RE.match(text)
    return text[opener.end():] if opener and text[opener.end():].strip() else text


# what people wrongly think, then the answer: "Most people guess the liver, but it's the skin."
_BELIEF_BUT_RE = re.compile(r"^(?:(?!\s-\s)[^.;:(])*\b(?:guess(?:es)?|think|thinks|assume[sd]?|believe[sd]?|say|says|expect|confuse[sd]?|mistake[sn]?|often\s+cited)\b"
                            r"[^.;]*?,?\s+but\s+(?:actually\s+|in\s+fact\s+)?", re.IGNORECASE)


_WHERE_HOW_RE = re.compile(r"^\W*(?:(?:where|how|when)\b(?!\s+(?:many|much|long|far|old|big|tall|often))|(?:in|at|on|from|near|inside)\s+(?:which|what)\b)",
                           re.IGNORECASE)  # "In which city ...?" answered "In Rome."
_PREP_ANSWER_RE = re.compile(r"^\W*(?:in|at|on|by|through|via|near|from|inside|using|with|during)\s+([^,.;:()]+?)\s*(?:[,.;:(]|$)", re.IGNORECASE)


_NOWADAYS_RE = re.compile(r"[;,]\s*(?:but\s+)?(?:today|now|nowadays|currently|these\s+days|since\s+[^,;]{1,30}?(?=\s+(?:it|they|the)\b))\b,?\s*", re.IGNORECASE)
_ALTERNATIVES_RE = re.compile(r"[,:]\s*(?:the\s+|a\s+|an\s+)?([\w'-]+(?:\s+[\w'-]+){0,3}?)\s+or\s+(?:the\s+|a\s+|an\s+)?([\w'-]+(?:\s+[\w'-]+){0,3}?)\s*\?\s*$")


_BUT_SPLIT_RE = re.compile(r";|,?\s+but\s+")


def _alternative(head: str, ctx: Context) -> str | None:
    """For "Which is larger, the Sun or the Moon?": the alternative the opening sentence names first,
    the other one only after "than" or not at all."""
    m = _ALTERNATIVES_RE.search(ctx.question or "")
    head = _BUT_SPLIT_RE.split(head, maxsplit=1)[0]
    if not m or _NEGATED_RE.search(head) or _listed(ctx.question or "") is not None:
        return None  # "Venus is not the largest": a denial picks no alternative; three or more: see _listed_candidate
    low = head.lower()
    at = {alt: low.find(alt.lower()) for alt in (m.group(1), m.group(2))}
    named = sorted((i, alt) for alt, i in at.items() if i >= 0)
    if not named:
        return None
    than = low.find(" than ")
    if len(named) == 1 or (than >= 0 and named[0][0] < than < named[1][0]):
        return named[0][1]
    return None


# "This is debated.", "It's complicated.": a remark about the question, no answer
_VERDICT_ONLY_RE = re.compile(r"^\W*(?:this|that|it)(?:'s|\s+is|\s+was)\s+(?:\w+\s+)?(?:debated|disputed|contested|controversial|complicated|tricky"
                              r"|complex|subjective|unclear|uncertain|unknown|ambiguous|a\s+(?:tricky|good|hard|difficult)\s+one)\W*$", re.IGNORECASE)
_TRAILING_ADVERB_RE = re.compile(r"\s+(?:narrowly|barely|probably|mostly|roughly|approximately|definitely|certainly|likely|possibly|arguably"
                                r"|technically|officially|traditionally|usually|generally|typically|originally|historically|currently"
                                r"|clearly|obviously|apparently|presumably|overall|too|again|though)$")
_BELIEF_RE = re.compile(r"^\W*(?:most|many|some|a\s+lot\s+of)\s+(?:people|folks|visitors|tourists|students)\s+(?:\w+\s+)?(?:guess|think|say|assume|believe|expect)\b",
                        re.IGNORECASE)
_UNSURE_BUT_RE = re.compile(r"^\W*(?:i'?m\s+not\s+(?:\S+\s+){0,2}(?:sure|certain|positive)|i\s+(?:could|might|may)\s+be\s+wrong|not\s+(?:\S+\s+){0,2}sure)"
                            r"[^,;]{0,30}[,;]\s*but\s+", re.IGNORECASE)
_PLEASANTRY_RE = re.compile(r"^\W*(?:(?:well|oh|ah|hmm+|ok(?:ay)?)\W+)?(?:(?:that'?s|that\s+is|what)\s+(?:a|an)\s+(?:\w+\s+)?(?:one|question)\W*"
                            r"|(?:that'?s|what)\s+(?:a|an)\s+(?:\w+\s+){0,2}\w+\s*!+)$", re.IGNORECASE)


# a candidate denied at the opening of a reply, then the answer: "Not Sydney - Canberra.", "I first thought Sydney, but ..."
_DENIED_RE = re.compile(r"^\W*(?:(?:(?:definitely|certainly|surely|probably|it'?s|it\s+is|that'?s|the\s+answer\s+is)\s+)?not\s+(?!only\b|just\b|all\b|every\b|many\b|much\b|quite\b|sure\b|certain\b|positive\b|confident\b|100|entirely\b|exactly\b|really\b|known\b|clear\b)"
                        r"|i\s+(?:\w+ly\s+)?(?:thought|guessed|assumed|believed|figured)\s+(?:it\s+was\s+|of\s+)?)"
                        r"(?:[^.;,\n]|(?<=\b[A-Z])\.){1,40}?(?:\s+-\s+|(?<!\b[A-Z])[.;!]\s+|,\s+(?:but\s+)?|\s+but\s+)", re.IGNORECASE)  # "J.K. Rowling": initials


_UNSURE_AFTER_RE = re.compile(r"^\W*(?:i'?m\s+not\s+(?:\w+\s+)?(?:sure|certain|positive)|not\s+(?:\w+\s+)?(?:sure|certain)|i\s+think|maybe|probably"
                              r"|i\s+(?:could|might|may)\s+be\s+wrong|don'?t\s+quote\s+me)\b", re.IGNORECASE)
_ECHO_START_RE = re.compile(r"^\W*(?:what|which|who|whom|whose|how|why|when|where|is|are|was|were|do|does|did|can|could|should|would|will)\b", re.IGNORECASE)
# a caveat after the answer takes nothing back: "..., but please verify", "..., but double-check"
_CAVEAT_RE = re.compile(r",?\s+but\s+(?:please\s+|you\s+(?:may|might|should)\s+(?:want\s+to\s+)?)?(?:verify|check|double[-\s]?check|confirm|don'?t\s+quote\s+me"
                        r"|i'?m\s+not\s+(?:\w+\s+)?(?:sure|certain|positive)|i\s+(?:could|might|may)\s+be\s+wrong)\b.*$", re.IGNORECASE)
_OWN_BELIEF_RE = re.compile(r"^\W*i\s+(?:\w+ly\s+)?(?:think|believe|guess|suppose|say)\b", re.IGNORECASE)
# two short candidates joined by "or", nothing chosen: "Sydney or Canberra, I'm not sure which."
_TWO_CANDIDATES_RE = re.compile(r"^\W*(?:[^\n]{1,80}?\s+or\s+[^\n]{1,80}?[,;.!-]\s*(?:but\s+)?(?:i'?m\s+not\s+(?:\w+\s+)?sure|not\s+sure|i\s+(?:can'?t|cannot)\s+(?:remember|recall|tell))\s+which\b|(?:maybe|perhaps|possibly)\s+(?:it'?s\s+)?[\w'-]+(?:\s+[\w'-]+){0,3}\s+or\s+[\w'-]+(?:\s+[\w'-]+){0,3}\s*(?:[,;.!?-]|$)"
                                r"|[\w'-]+(?:\s+[\w'-]+){0,3}\s+or\s+[\w'-]+(?:\s+[\w'-]+){0,3}\s*[,;.!?-]\s*(?:but\s+)?(?:i'?m\s+not\s+(?:\w+\s+)?sure|not\s+sure"
                                r"|i\s+(?:don'?t|can'?t|cannot)\s+(?:know|remember|recall|tell)|i\s+forget))", re.IGNORECASE)


def _undenied(text: str) -> str:
    """``text`` from after a candidate it denies at its opening ("Not Sydney - Canberra." -> "Canberra.")."""
    denied = _DENIED_RE.match(text)
    return text[denied.end():] if denied and re.search(r"\w", text[denied.end():]) else text


_LIST_MARK_RE = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s+")
_LOOPED_RE = re.compile(r"\s*(\w[\w'-]*(?:\s+\w[\w'-]*)??)[.!]?(?:\s+\1[.!]?){2,}\s*")
_LABELLED_RE = re.compile(r"^([^:]{1,40}):\s+(\S.*)$")
_ABOUT_THE_ANSWER_RE = re.compile(r"^\W*(?:when|if|as|after|since|because|while|might|may|could|maybe)\b", re.IGNORECASE)
_TRAILING_PLACE_RE = re.compile(r"\s(?:in|at|on|from|near)\s+(?:the\s+)?[A-Z]\w+(?:\s+[A-Z]\w+)*$")
_STATED_RE = re.compile(r"\W*(?:it|that|this)(?:'s|'d\s+be|\s+is|\s+was|\s+would\s+be)\s+(?:the|a|an)\s", re.IGNORECASE)
_PHRASE_RE = re.compile(r"[^\W\d_][\w' -]*")


def _answer_first(ctx: Context) -> str | None:
    """A short answer opening the output (its first line or sentence), an explanation after it."""
    text = _LIST_MARK_RE.sub("", _without_tables(ctx.text))  # "1. Mercury\n2. Mars ...": the first item
    looped = _LOOPED_RE.fullmatch(text)
    if looped:
        return _strip(looped.group(1))  # "Cairo Cairo Cairo ...": a base model repeating its answer
    if ctx.raw.lstrip().startswith("#") and "\n" in text.strip():
        text = text.strip().split("\n", 1)[1]  # "### Background\n...": a heading labels what follows, it is no answer
    text = _undenied(text)
    head, _ = first_part(text)
    if head.rstrip().endswith("?"):  # "Bergen? No - Oslo.": a guess asked back, then the answer
        after = first_part(text[text.find(head) + len(head):])[0] if head in text else ""
        fixed = re.match(r"^\W*(?:no|nope|actually|wait)\b\W+(.+)$", after, re.IGNORECASE)
        head = fixed.group(1) if fixed and len(fixed.group(1).split()) <= 3 else head
        if head.rstrip().endswith("?") and _UNSURE_AFTER_RE.match(after) and len(head.split()) <= 4 and not _ECHO_START_RE.match(head):
            head = head.rstrip(" ?")  # "Canberra? I'm not completely sure.": a tentative pick is a pick
    if _PLEASANTRY_RE.match(head) or head.rstrip().endswith("?") or _VERDICT_ONLY_RE.match(head):
        return None  # "That's a fun one!", "Casablanca? No - ...": a pleasantry or a guess asked back, not an answer
    head = _UNSURE_BUT_RE.sub("", head, count=1)  # "I'm not 100% sure, but I believe it's the Pacific."
    if _BELIEF_RE.match(head) and not re.search(r"\bbut\b", head):
        rest = first_part(text[text.find(head) + len(head):])[0] if head in text else ""
        head = re.sub(r"^\W*(?:it|that)(?:'s|\s+is)\s+(?:actually|really|in\s+fact)\s+", "", rest) if rest else head  # "Most people guess X. It's actually Y."
    head = _LIST_MARK_RE.sub("", head)  # a list item
    caveat = _CAVEAT_RE.search(head) if " but " in head else None
    if caveat:
        head = head[:caveat.start()]  # "I believe Canberra, but please verify.": the caveat takes nothing back
    elif not _OWN_BELIEF_RE.match(head):
        head = _BELIEF_BUT_RE.sub("", head, count=1)  # "Most guess X, but it's Y" (not "I think X, but ...": the speaker's own pick)
    if " or " in head and _TWO_CANDIDATES_RE.match(head) and " or " not in (ctx.question or " or "):
        return ABSTAIN  # "Sydney or Canberra, I'm not sure which.": two candidates, none chosen
    head = _NOWADAYS_RE.split(head)[-1]  # "Kyoto was the capital until 1868; today it is Tokyo."
    pick = _alternative(head, ctx)
    if pick:
        return pick
    opening = _PREP_ANSWER_RE.match(head) if ctx.question and _WHERE_HOW_RE.match(ctx.question) else None
    if opening and _has_content(opening.group(1), ctx) and len(opening.group(1).split()) <= 4 and not _PRONOUN_RE.search(opening.group(1)):
        return _strip(opening.group(1))  # "In Australia, mostly ..." for "where", "Through photosynthesis." for "how"
    label = _LABELLED_RE.match(head)
    if label and (" - " in label.group(1) or "(" in label.group(1)):
        label = None  # "Tokyo - fun fact: ...", "Tokyo (fun fact: ...)": the answer, then a remark with its own label
    if label and not _COPULA_RE.search(f" {label.group(1)} ") and len(label.group(1).split()) <= 4:
        if ctx.question and label.group(1)[:1].isupper() and len(label.group(1).split()) <= 3 and _has_content(label.group(1), ctx) \
                and not any(_is_question_word(w, ctx) for w in label.group(1).split()) and len(label.group(2).split()) >= 5 \
                and not re.search(r"^[\d\W]+$|^(?:step|part|option|choice|item|no|number|note|answer|assistant|user|summary|explanation|reason|example|tl;?dr|q|a)\b",
                                  label.group(1), re.IGNORECASE):
            head = label.group(1)  # "Venus: one rotation takes 243 days ...": the answer, then its explanation
        else:
            head = label.group(2)  # "The coldest continent: Antarctica"
    return _opening_span(head, ctx)


def _opening_span(head: str, ctx: Context) -> str | None:
    """The answer span of the output's opening line or sentence ``head``, when it is short enough to be one."""
    head = _restated(head, ctx)
    clause = _clause(_SUBORDINATE_RE.sub("", head, count=1) or head)  # "By area, Asia is ...": the opening phrase is no answer
    if _META_RE.search(clause) or _FIRST_PERSON_RE.search(clause):
        return None
    if _PRONOUN_RE.search(clause) or _ABOUT_THE_ANSWER_RE.match(clause):
        return None  # a sentence about the answer, not the answer
    place = _TRAILING_PLACE_RE.sub("", clause)
    if place != clause and _has_content(place, ctx) and clause.split()[0][:1].isupper():
        clause = place
    if _short(clause) and not (ctx.question and content_stems(clause) and content_stems(clause) <= ctx.question_stems):
        # the whole output but a gloss in brackets after it ("Earnings per share (EPS).") is as bare as the phrase alone
        glossed = ctx.question is not None and bool(_PHRASE_RE.fullmatch(clause.strip())) \
            and _bare(clause, ctx, whole=_GLOSS_END_RE.sub("", ctx.text.strip()))
        if ctx.question and _apposed(_strip(clause), ctx) != _strip(clause):
            return _apposed(_strip(clause), ctx)  # "It's Jupiter's moon Ganymede."
        if ctx.question and len(clause.split()) >= 3 and clause[:1] not in "\"'“‘«`" and not _bare(clause, ctx) and not glossed \
                and not (_STATED_RE.match(head)
                         and _bare(clause, ctx, whole=clause)):
            return _span(clause, ctx)
        stated = bool(_STATED_RE.match(head))
        bare = _bare(clause, ctx) or glossed or (stated and _bare(clause, ctx, whole=clause))  # "It's the whale shark, which ..."
        span = _strip(clause) if not ctx.question else _trim_leading(_strip(clause), ctx) if bare else _trim_question_words(_strip(clause), ctx)
        span = _TRAILING_ADVERB_RE.sub("", span) or span  # "Sydney narrowly, though ..."
        gloss = re.search(r"\(([A-Za-z][\w' -]{0,40})\)", head) if _foreign(span, ctx) else None
        if gloss:
            return _strip(gloss.group(1))  # "東京 (Tokyo)" for a question written in English: its gloss
        if _foreign(span, ctx) or _no_answer_words(span):
            return None  # "The answer:" with nothing after it
        quoted = _QUOTED_RE.search(span)
        return _strip(quoted.group(1) or quoted.group(2)) if quoted and len(span) > len(quoted.group(0)) + 2 else span or None
    return None


# prepositions the stop words leave out: they end a run of answer words ("China during the Han dynasty")
_PREPOSITIONS = frozenset("during since until till after before through throughout within without across among amongst around near between "
                          "against along upon beyond aboard behind beside besides beneath below above toward towards via per".split())
_NAME_CONNECTIVES = frozenset("of the and de da di du del der von van la le on upon in".split())


_GLOSS_END_RE = re.compile(r"\s*\([^()\n]{1,60}\)\W*$")


def _trim_leading(span: str, ctx: Context) -> str:
    """A bare answer keeps the question's words that end it (its head noun: "white blood cells" for
    "Which blood cells ...?"), not those that open it ("planet Mars" for "Which planet ...?")."""
    tokens = span.split()
    if all(t[:1].isupper() or t[:1].isdigit() or (0 < i < len(tokens) - 1 and t in _NAME_CONNECTIVES) for i, t in enumerate(tokens)) \
            or _number_phrase(span):
        return span  # a name keeps its own words ("Apollo 13" for "Which Apollo mission ...?", "Treaty of Versailles"), a number its unit
    while len(tokens) > 1 and _is_question_word(tokens[0], ctx) and _has_content(" ".join(tokens[1:]), ctx) and not _modifier_of_new_head(tokens, ctx):
        tokens.pop(0)
    named = {w.lower() for w in re.findall(r"(?<!^)(?<![.?!]\s)\b[A-Z][a-z]+", ctx.question or "")}
    while len(tokens) > 1 and tokens[-1].strip(_QUOTES).lower() in named and (span.islower() or tokens[-2][:1].isupper()):
        tokens.pop()  # "dublin ireland" for "... of Ireland?": the question's own name, not a head noun
    return " ".join(tokens)


def _bare(phrase: str, ctx: Context, whole: str | None = None) -> bool:
    """Whether ``phrase`` is the whole output (or ``whole``, the line after an answer marker), a bare noun
    phrase: then it is the answer as written, the question's own words that end it included
    ("normal boiling point", "white blood cells")."""
    whole = (ctx.text if whole is None else whole).strip().strip(_QUOTES)
    return whole == phrase.strip().strip(_QUOTES) and 1 < len(phrase.split()) <= 4 and "\n" not in whole \
        and not all(_is_question_word(w, ctx) or w.lower().strip(_QUOTES) in STOPWORDS for w in phrase.split()) \
        and not any(w.lower() in _VERBS or w.lower() in ("has", "have", "had") for w in phrase.split()) \
        and not _question_verb_in(phrase, ctx)  # "Brazilians speak Portuguese", "Fleming discovered penicillin" are sentences


def _question_verb_in(phrase: str, ctx: Context) -> bool:
    """Whether ``phrase`` holds the verb of a "who/which X <verb> ...?" question ("discovered" for "Who discovered penicillin?")."""
    asks = _ASKS_SUBJECT_RE.match(ctx.question or "")
    if asks is None:
        return False
    verb = _verb_root(asks.group(1))
    return any(_verb_root(w.strip(_QUOTES)) == verb for w in phrase.split()[1:-1])  # a verb has its object after it


# (?=[taoi]): what a match can open with, looked at first: a cheap test (tests/test_extract_speed.py keeps it complete)
_GARBLED_RE = re.compile(r"(?=[taoi])\b(the|a|an|of|and|to|in)\s+\1\b", re.IGNORECASE)


def _garbled(ctx: Context) -> str | None:
    """"asdf qwerty the the the": a function word repeated back to back is a degenerate output, no answer."""
    return ABSTAIN if _GARBLED_RE.search(ctx.text) else None


# a sentence about the answering, not the answer: an apology, a promise to look, a note that there are several
_ABOUT_ANSWERING_RE = re.compile(
    r"^\W*(?:(?:sorry|apologies|unfortunately|hmm+|honestly|oh)\W+)*"
    r"(?:i'?m\s+(?:really\s+|so\s+)?(?:sorry|afraid|unsure|drawing\s+a\s+blank)|sorry|no\s+idea|not\s+sure"
    r"|i'?m\s+(?:honestly\s+)?not\s+(?:\w+\s+)?(?:sure|certain|positive)|i\s+(?:honestly\s+)?(?:can'?t|cannot|don'?t|do\s+not)\s+(?:recall|remember|say|know|tell)"
    r"|let\s+me\s+(?:look|check|think|see|find|search|research|get\s+back)|i\s+(?:would|'d)\s+(?:rather\s+not|need|have\s+to|prefer\s+not)"
    r"|i'?d\s+(?:rather\s+not|need|have\s+to|prefer\s+not)|there\s+(?:are|is)\s+(?:many|several|various|multiple|a\s+few|a\s+number\s+of|lots\s+of)\s+"
    r"(?:\w+\s+)?(?:factors|answers|options|ways|possibilities|candidates|views|opinions|theories)"
    r"|that'?s\s+(?:beyond|outside)\s+(?:what|my)|this\s+is\s+a\s+(?:common|popular|classic|tricky|good|great|fun)\s+(?:trivia\s+)?question)"
    r"(?:\s+(?!is\b|was\b|are\b|it'?s\b)[a-z'-]+){0,8}\s*[.!]*\s*$",
    re.IGNORECASE,
)


_ABOUT_CUES = ("sorry", "apolog", "afraid", "let me", "rather", "there are", "there is", "beyond", "outside", "not sure", "unsure", "not certain",
               "not positive", "recall", "remember", "can't", "cannot", "don't", "do not", "idea", "question", "blank", "i'd", "would", "need",
               "have to", "not 100")


def _about_answering(ctx: Context) -> str | None:
    """An output whose every sentence speaks of the answering ("Sorry, I'm not sure about that one.", "Let me
    look that up.", "There are several possible answers.") states no answer: unextracted."""
    if len(ctx.raw) > 200:
        return None  # a cheap test first: such replies are short and say one of a few things
    low = ctx.raw.lower()
    if not any(cue in low for cue in _ABOUT_CUES):
        return None
    parts = sentences(_without_courtesy(ctx.raw) if ctx.question else ctx.text)
    if not parts or len(parts) > 3:
        return None
    return ABSTAIN if all(_ABOUT_ANSWERING_RE.match(clean(p)) for p in parts) else None


def _unfinished(ctx: Context) -> str | None:
    """An output that stops mid-sentence after rambling is not read, unless a complete sentence before the
    cut already stated the answer: its first sentence restates the whole question ("Greenland is the largest
    island in the world, with ... Australia is" for "What is the largest island in the world?")."""
    if not unfinished(ctx.text):
        return None
    parts = sentences(_without_tables(ctx.text))
    if ctx.question and len(parts) >= 2 and ctx.question_stems and parts[0].rstrip()[-1:] in ".!":
        asked = {w for w in ctx.question_stems if len(w) > 1} - {"name", "question"}  # not a "Q:"/"Question:" label
        if len(asked) >= 2 and asked <= content_stems(parts[0]):  # every word of the question, its verb included
            return _span(parts[0], ctx) or ABSTAIN
    return ABSTAIN


_WHOLE_QUOTE_RE = re.compile(r"\W{0,3}[\"\u201c]([^\"\u201d\n]{1,60})[\"\u201d]\W{0,2}")


def _whole_quote(ctx: Context) -> str | None:
    """An output that is nothing but one quoted phrase: the phrase whole, commas and all ("Veni, vidi, vici")."""
    m = _WHOLE_QUOTE_RE.fullmatch(ctx.text.strip())
    return _strip(m.group(1)) if m and len(m.group(1).split()) <= 8 else None


# a data or code literal written alone: "['a', 'b', 'c']", "(3, 4)", "'a-b-c'"
_LITERAL_RE = re.compile(r"\[[^\[\]\n]{1,80}\]|\([^()\n]{1,80}\)|\{[^{}\n]{1,80}\}")


def _literal(ctx: Context) -> str | None:
    """An output that is one data or code literal and nothing else is read as written, brackets and quotes
    included (a list or tuple a program prints); brackets around a plain short answer are dropped."""
    text = ctx.raw.strip()
    if not text or text[0] not in "[({" or "\n" in text or not _LITERAL_RE.fullmatch(text):
        return None
    inner = text[1:-1]
    if "," in inner or "'" in inner or '"' in inner:
        return text  # "['a', 'b', 'c']", "(3, 4)"
    return _strip(inner) or None if len(inner.split()) <= 4 else None  # "(Paris)": brackets around a plain answer are no part of it


_CONCLUDING_RE = re.compile(r"^(?:so|therefore|thus|hence|in\s+short|in\s+conclusion|overall)\b[,:]?\s*", re.IGNORECASE)


def _in_sentence(ctx: Context) -> str | None:
    text = _undenied(_without_tables(ctx.text))
    parts = sentences(text)
    if not parts:
        return None
    if ctx.question:
        # clauses set off by a semicolon state apart: "Sydney is the largest city; the capital is Canberra."
        clauses = [c for p in parts[:4] for c in re.split(r";\s+", p) if c.strip()]
        about = [p for p in clauses if content_stems(p) & ctx.question_stems and not _TALK_RE.match(p)]
        for i, part in enumerate(about):
            span = _span(part, ctx)
            if span is not None and _off_type(span, ctx) and (i + 1 < len(about) or re.match(r"\W*there\s+(?:are|were|is|was)\b", part, re.IGNORECASE)):
                continue  # a bare number where none is asked: a count of things ("There are around 18 species") answers nothing
            return span if span is not None else _person_named(part, ctx)
        if about:
            return None
    return _span(parts[0], ctx) if len(parts) == 1 else None


_FULL_NAME_RE = re.compile(r"(?<![\w'])[A-Z][a-z][\w'-]*(?:\s+(?:(?:de|van|von|da|di|du|del|der|la|le|bin|al)\s+)?[A-Z][a-z][\w'-]*)+")


def _person_named(sentence: str, ctx: Context) -> str | None:
    """For "Who ...?": the one full name in a sentence about the question that no other reading found
    ("Guernica is one of Pablo Picasso's most famous works")."""
    if not ctx.question or not re.match(r"\W*who\b", ctx.question, re.IGNORECASE):
        return None
    names = {re.sub(r"'s$", "", n) for n in _FULL_NAME_RE.findall(sentence)
             if n.split()[0].lower() not in _NOT_NAMES and not any(_is_question_word(w, ctx) for w in n.split())}
    return names.pop() if len(names) == 1 else None


# a sentence about the telling, not the answer: "Let me tell you about penguins."
_TALK_RE = re.compile(r"^\W*(?:let\s+me|let'?s|let\s+us)\s+(?:tell|talk|explain|think|see|look|start|begin|walk)\b", re.IGNORECASE)


_CONSENSUS_RE = re.compile(r"^\W*(?:most|many|nearly\s+all|almost\s+all|the\s+majority\s+of)\s+(?:\w+\s+)?(?:sources|experts|references|scholars"
                           r"|geographers|historians|scientists|lists|encyclopedias|textbooks)\s+(?:list|say|give|name|cite|consider|rank|put|favou?r)\s+"
                           r"(?:it\s+as\s+)?", re.IGNORECASE)


def _consensus(ctx: Context) -> str | None:
    """"This is debated. Most sources list the Nile, though ...": what most sources give is the answer."""
    for part in sentences(_without_tables(ctx.text))[:4]:
        m = _CONSENSUS_RE.match(part)
        if m:
            span = _strip(_clause(part[m.end():], lead=False))
            return span if span and _short(span) and _has_content(span, ctx) else None
    return None


_SECTION_WORDS = frozenset("""answer answers explanation summary overview introduction background details detail notes note conclusion reasoning
analysis solution solutions result results step steps context history facts fact key takeaway takeaways tl;dr short long response reply
question questions definition example examples""".split())


def _heading(ctx: Context) -> str | None:
    """A Markdown heading opening the output that names a short answer no other rule found ("### Tokyo" and a remark
    under it); not a section title ("## Explanation") or the question restated."""
    m = re.match(r"\s*#{1,4}\s+([^\n#]{1,50}?)\s*#*\s*(?:\n|$)", ctx.raw)
    if m is None or not ctx.question:
        return None
    title = _strip(m.group(1))
    words = [w.lower().strip(_QUOTES) for w in title.split()]
    if not title or len(words) > 4 or any(w in _SECTION_WORDS or re.fullmatch(r"\d+[.:)]?", w) for w in words) or not _has_content(title, ctx):
        return None
    if _FIRST_PERSON_RE.search(title) or _META_RE.search(title) or _OPENER_RE.match(title + "!") or _lead_off(title) != title or "?" in title:
        return None  # "### Let me think", "### Step by step", "### Great question": about the answering
    return title


def _keyword_of_kind(value: str, ctx: Context) -> str:
    """A keyword in capitals or in backticks named with the kind the question asks for ("the HAVING clause", "the `def`
    keyword"): the keyword answers, not the kind."""
    words = value.split()
    if not words or not _is_question_word(words[-1], ctx) or len(words) > 2:
        return value
    m = re.search(rf"(?:`([^`\n]{{1,30}})`|\b([A-Z][A-Z0-9_]{{1,30}}))\s+{re.escape(words[-1])}\b", ctx.raw)
    if m is None:
        return value
    keyword = (m.group(1) or m.group(2)).strip()
    return keyword if len(words) == 1 or words[0].strip("`") == keyword else value


_CAPITALS_RE = re.compile(r"\b[A-Z]{2,}")


def _polished(value: str, ctx: Context) -> str | None:
    """``value`` trimmed as a reader trims a span: a code span whole, no date after the answer, no role before a
    name, no article of the reply's language; None or ABSTAIN where the span names nothing."""
    whole = whole_code_span(value, ctx.raw)
    if whole != value and all(_is_question_word(w, ctx) for w in whole.replace(value, " ", 1).split()):
        value = whole  # "`git status`" for "Which Git command ...?": the question's word was cut from the command
    value = without_trailing_date(value, ctx.question)
    if ctx.question and ("`" in ctx.raw or _CAPITALS_RE.search(ctx.raw)):
        value = _keyword_of_kind(value, ctx)  # "The HAVING clause" for "Which SQL clause ...?": the keyword
    value = _ROLE_RE.sub("", value) or value  # "the playwright William Shakespeare": the name answers
    generic = _GENERIC_INSTANCE_RE.match(value)
    if generic and not _is_question_word(generic.group(1), ctx) and value in ctx.text and re.search(rf"\b(?i:an?)\s+{re.escape(value)}\s+[a-z]+s\b", ctx.text):
        value = generic.group(1)  # "A standard piano has 88 keys": any piano, the kind is the answer (not "A regular hexagon.")
    if ctx.question and _WHO_RE.match(ctx.question) and ctx.question.lower().startswith(("who ", "whom ")) \
            and re.search(rf"\b(?:in|at|near)\s+(?:the\s+)?{re.escape(value)}\b(?!'s)", ctx.text):
        return None  # "Carmen is set in Seville" for "Who wrote Carmen?": a place, no person
    place = _PLACE_PREP_RE.match(value)
    if place and value[place.end():].strip():
        value = value[place.end():]  # "in Paris" for "Where is the Eiffel Tower?", "aboard HMS Beagle": the name answers
    if _SELF_DESCRIPTION_RE.fullmatch(value) and _FIRST_PERSON_RE.search(ctx.text):
        return ABSTAIN  # "As an AI language model, ...": the speaker, never the answer
    if len(value.split()) > 1 and _COUNT_WORD_RE.fullmatch(value.split()[-1]) and value.split()[0][:1].islower():
        return None  # "includes many": a verb and a quantity, no name
    if _SUM_RE.fullmatch(value) and ctx.question and not re.search(r"\d", ctx.question) and not _ASKS_NUMBER_RE.match(ctx.question):
        return ABSTAIN  # "2+2" for "What is the chemical symbol for gold?": a sum, where no number is asked
    if value.lower() in _FOREIGN_PRONOUNS:
        return None  # "Il y a beaucoup de fleuves": a pronoun names nothing
    if _THERE_ARE_MANY_RE.search(f" {value} ") and not _THERE_ARE_MANY_RE.search(f" {ctx.question or ''} "):
        return None  # "Es gibt viele Flüsse", "Il y a beaucoup de fleuves", "Hay muchos ríos": a quantity, no answer
    named = ("named" in ctx.text or "called" in ctx.text) and value in ctx.text and re.search(rf"\b{re.escape(value)}\s+(?:named|called)\s+(?P<name>[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){{0,3}})", ctx.text)
    if named:
        value = named.group("name").rstrip(".")  # "a German doctor named Alexander Fleming": the name answers
    lead = _LY_LEAD_RE.match(value)
    if lead and value[lead.end():].strip():
        value = value[lead.end():]  # "Chiefly the liver": the adverb says how much, the noun answers
    if _VERB_LEAD_RE.match(value) and re.search(rf"\b(?:it|he|she|they)\s+{re.escape(value)}", ctx.text, re.IGNORECASE):
        return ABSTAIN  # "It scars the liver.", "It absorbs red ... and reflects green.": a predicate, no one name
    return without_foreign_article(value, f"{ctx.text}\n{ctx.question or ''}") or value


_LY_LEAD_RE = re.compile(r"^(?:[A-Z][a-z]+|[a-z]+)ly\s+(?:(?:the|a|an)\s+)?(?=[a-z])")
_VERB_LEAD_RE = re.compile(r"^[a-z]+s\s+\S")


def _off_type(span: str, ctx: Context) -> bool:
    """A span of the wrong type for the question: a bare number where no number is asked."""
    return bool(re.fullmatch(r"[-\u2212]?\d[\d.,]*\s*(?:%|°\s*[CF]?|[a-z]{1,3})?", span)) and not (ctx.question and _ASKS_NUMBER_RE.match(ctx.question))


# A courtesy or thinking-aloud opener and a closing pleasantry state nothing about the answer: "Thanks for
# asking! Rome", "Okay, let me think.\n\nRome", "Rome. Hope that helps!" read as "Rome".
_COURTESY_OPENER_RE = re.compile(
    r"^\s*(?:(?:sure(?:\s+thing)?|of\s+course|absolutely|certainly|ok(?:ay)?|alright|all\s+right|hi(?:\s+there)?|hello|hey(?:\s+there)?|hmm+|well"
    r"|(?:a\s+|what\s+a\s+|that'?s\s+a\s+)?(?:great|good|excellent|nice|interesting|fun|fair)\s+question|(?:i'?m\s+|i\s+am\s+)?(?:happy|glad)\s+to\s+help"
    r"|thanks?(?:\s+you)?\s+for\s+(?:asking|the\s+question|your\s+question)|no\s+problem|let\s+me\s+(?:think|see|help|check|explain)(?:\s+(?:this|that))?"
    r"|let'?s\s+see|here'?s\s+(?:the|my)\s+answer|here\s+is\s+(?:the|my)\s+answer|here\s+you\s+go|to\s+answer\s+(?:your|the|this)\s+question"
    r"|here'?s\s+how\s+to\s+think\s+about\s+(?:it|this)|let'?s\s+(?:solve|work\s+through|think\s+through|think\s+about|figure\s+out|break)\s+(?:this|it)(?:\s+down)?"
    r"(?:\s+step\s+by\s+step)?|let'?s\s+think\s+step\s+by\s+step)"
    r"(?:\s*(?:,|\s)\s*(?:so|then|here'?s\s+(?:the|my)\s+answer|let\s+me\s+(?:think|see|explain)|here\s+you\s+go))*\s*(?:[.!:]+|\u2014|\s-)\s*"
    r"|(?:ok(?:ay)?|alright|all\s+right|hmm+|well|so|sorry|my\s+apologies),\s+)+(?=\S|$)",
    re.IGNORECASE,
)
_COURTESY_CLOSER_RE = re.compile(
    r"(?:(?<=[.!?)*\"'`\u201d\u00bb])|(?<=\w)(?=\s*\n)|(?<=\w)(?=\s+(?-i:[A-Z]))|^)\s*(?:(?:i\s+)?hope\s+(?:this|that|it)\s+helps|let\s+me\s+know\s+if|feel\s+free\s+to|is\s+there\s+anything\s+else"
    r"|would\s+you\s+like\s+(?:to\s+know|me\s+to|help|more)|do\s+you\s+want\s+(?:to\s+know|me\s+to|more)|happy\s+(?:learning|studying|reading)|good\s+luck"
    r"|thanks?(?:\s+you)?\s+for\s+(?:the|asking|your)|have\s+a\s+(?:great|good|nice|wonderful)\s+day|if\s+you\s+have\s+(?:any\s+)?(?:other|more|further)\s+questions"
    r"|enjoy|cheers)\b[^\n]*\s*$",
    re.IGNORECASE,
)


def _without_courtesy(raw: str) -> str:
    """``raw`` without an opening courtesy and closing pleasantries (empty of words when that is all it holds)."""
    text = raw
    while True:
        opener = _COURTESY_OPENER_RE.match(text)
        rest = text[opener.end():] if opener else text
        closer = _COURTESY_CLOSER_RE.search(rest)
        rest = rest[:closer.start()] if closer else rest
        if not re.search(r"\w", rest) and len(re.findall(r"\w+", text)) < 2:
            return text  # "OK." alone may be the answer (Oklahoma's abbreviation)
        if rest == text or not re.search(r"\w", rest):
            return rest
        text = rest


def _courtesy(ctx: Context) -> str | None:
    """The output read again without a courtesy around it: what the courtesy encloses is the reply."""
    tail = ctx.raw[-160:].lower()
    if not (any(cue in tail for cue in _CLOSER_CUES) or _COURTESY_OPENER_RE.match(ctx.raw)):
        return None  # a cheap test first: most outputs open and close without a pleasantry
    inner = _without_courtesy(ctx.raw)
    if inner == ctx.raw:
        return None
    if not re.search(r"\w", inner):
        return ABSTAIN  # a courtesy and nothing else: no answer
    found = run_cascade(RULES, Context(inner, ctx.kind, question=ctx.question, disabled=ctx.disabled), disabled=ctx.disabled)
    return found.value if found.value is not None else ABSTAIN


_CLOSER_CUES = ("hope", "let me know", "feel free", "anything else", "would you like", "do you want", "happy", "good luck", "thank", "have a",
                "questions", "enjoy", "cheers")


_TIDY_CUE_RE = re.compile(r"\[|\u3010|\b[A-Z]\.[ \t]+[A-Z]|^[ \t]*>", re.MULTILINE)


def _tidy(ctx: Context) -> str | None:
    """The output read again without reference marks and footnotes ("London [1]"), an initial's period before
    a sentence adverb read as a sentence end ("Vitamin D. Specifically, ...")."""
    if ctx.raw.isascii() and not _TIDY_CUE_RE.search(ctx.raw):
        return None  # a cheap test first: no bracket, no one-letter word before a period, no pictograph
    inner = tidied(ctx.raw)
    if inner == ctx.raw:
        return None
    found = run_cascade(RULES, Context(inner, ctx.kind, question=ctx.question, disabled=ctx.disabled), disabled=ctx.disabled)
    return found.value if found.value is not None else ABSTAIN


_CLEFT_CUE_RE = re.compile(r"\W*(?:c['\u2019]|ce\s|es\b|fue|era|foi|é|das\s|it\s+was|it\s+is)", re.IGNORECASE)


def _cleft(ctx: Context) -> str | None:
    """"It was Na that ...", "C'est Léonard de Vinci qui ...", "Fue Colón quien ...": the name a cleft puts in focus."""
    if not _CLEFT_CUE_RE.match(ctx.text):
        return None  # a cheap test first: a cleft opens with "it was", "c'est", "es", ...
    head, _ = first_part(ctx.text)
    return cleft_span(head)


_FOREIGN_WHO_RE = re.compile(r"\W*(?:qui|quién|quien|quem|wer|chi|von\s+wem|por\s+quién|par\s+qui|por\s+quem|da\s+chi)\b", re.IGNORECASE)


@lru_cache(maxsize=4096)
def _asks_who_in_other_language(question: str) -> bool:
    return bool(_FOREIGN_WHO_RE.match(question))


def _agent(ctx: Context) -> str | None:
    """"Las Meninas fue pintada por Diego Velázquez": the agent of a passive in another language answers who did it."""
    if not ctx.question or not _asks_who_in_other_language(ctx.question):
        return None
    head, _ = first_part(ctx.text)
    return foreign_agent(head)


# a self-correction in German, French, Spanish, Portuguese, Italian: "no, espera", "non, pardon", "nein, Moment", "corrigindo"
_FOREIGN_CORRECTION_RE = re.compile(
    r"(?:\b(?:no|non|nein|não)\s*[,.!-]?\s*(?:espera|esperen|perdón|attendez|attends|pardon|moment|warte|aspetta)\b"
    r"|\b(?:mejor\s+dicho|quiero\s+decir|quise\s+decir|me\s+equivoqué|corrijo|corrección|je\s+veux\s+dire|je\s+voulais\s+dire|je\s+me\s+suis\s+trompée?"
    r"|ich\s+meine|besser\s+gesagt|korrektur|ich\s+habe\s+mich\s+geirrt|quer\s+dizer|corrigindo|correção|me\s+enganei|anzi|cioè|correzione|mi\s+sono\s+sbagliat[oa]))"
    r"\W*", re.IGNORECASE)


_FOREIGN_CORRECTION_CUES = ("espera", "perdón", "attend", "pardon", "nein", "warte", "aspetta", "dicho", "decir", "equivoqu", "corrij", "corrección",
                            "correção", "correzione", "veux dire", "voulais dire", "tromp", "ich meine", "gesagt", "korrektur", "geirrt", "dizer",
                            "corrigindo", "engan", "anzi", "cioè", "sbagliat")


def _foreign_correction(ctx: Context) -> str | None:
    """"Bogotá... no, espera, es Lima.", "Sydney - nein, Moment: Canberra.", "São Paulo. Corrigindo: Brasília.": the last
    word of a self-correction in another language counts (what follows the last correction is read)."""
    low = ctx.text.lower()
    if not any(cue in low for cue in _FOREIGN_CORRECTION_CUES):
        return None  # a cheap test first
    found = list(_FOREIGN_CORRECTION_RE.finditer(ctx.text))
    if not found or found[-1].start() == 0 or not re.search(r"\w", ctx.text[found[-1].end():]):
        return None
    rest = ctx.text[found[-1].end():]
    read = run_cascade(RULES, Context(rest, ctx.kind, question=ctx.question, disabled=ctx.disabled), disabled=ctx.disabled)
    return read.value


# a title or a case name written alone: "As You Like It", "Marbury v. Madison", "The Lord of the Rings"
_TITLE_WORD_RE = re.compile(r"(?:[A-Z0-9][\w'-]*|[A-Z][a-z]?\.|of|the|and|in|on|at|to|for|with|a|an|from|by|or|v\.?|vs\.?|de|da|di|del|du|der|von|van|la|le|y|e|&)")


_NOT_IN_TITLES = frozenset("is are was were answer question it's that's this's there's here's what's he's she's they're i'm i'd i'll".split())


def _title(ctx: Context) -> str | None:
    """A short line of capitalized words and the small words between them, and nothing else, is a title or a
    name: read whole, even where a word of it is one the question says ("As You Like It")."""
    text = ctx.text
    if len(text) > 100 or "\n" in text.strip() or not text.lstrip()[:1].isupper():
        return None  # a cheap test first: a title is one short line opening with a capital
    line = text.strip().rstrip(".!")
    if not 2 <= len(line.split()) <= 8 or ctx.kind != "text":
        return None
    tokens = line.split()
    if not all(_TITLE_WORD_RE.fullmatch(t) for t in tokens) or sum(t[:1].isupper() for t in tokens) < 2 \
            or tokens[-1].lower() in STOPWORDS - {"it", "me", "you", "us", "them", "him", "her"}:
        return None
    if any(t.lower() in _NOT_IN_TITLES for t in tokens) or len({t.lower() for t in tokens}) == 1 or _lead_off(line) != line \
            or tokens[0].lower().endswith("ly") or _OPENER_RE.match(line):
        return None  # "Paris Is The Capital", "It's Nairobi": a sentence in capitals; "Cairo Cairo Cairo": a loop
    if ctx.question and tokens[0].lower() in STOPWORDS and re.search(rf"\b{re.escape(tokens[0])}\b", ctx.question, re.IGNORECASE):
        return None  # "In Rome." for "In which city ...?": the question's preposition, then the answer
    return _strip(line) or None


_INVENTED_PAIR_RE = re.compile(r"^\s*(?:(?:q|question)\s*\d*\s*[:.]\s*)?((?:what|which|who|whom|whose|where|when|how|in\s+which|in\s+what)\b[^\n]{3,200}\?)[ \t]*\n"
                               r"\s*(?:a|answer)\s*\d*\s*[:.]", re.IGNORECASE)


def _other_question(ctx: Context) -> str | None:
    """A base model that opens with a question and answer pair of its own answers that other question, not
    the one asked ("What is the capital of Kazakhstan?\nAnswer: Astana" for the capital of Mongolia)."""
    if not ctx.question or "?" not in ctx.raw[:220]:
        return None
    m = _INVENTED_PAIR_RE.match(ctx.raw)
    if m is None:
        return None
    asked = re.sub(r"^\s*(?:q|question)\s*\d*\s*[:.]\s*", "", ctx.question.strip(), flags=re.IGNORECASE).split("\n")[0]
    new = content_stems(m.group(1)) - content_stems(asked)
    return ABSTAIN if new else None


# "there is/are" and "many" in German, French, Spanish, Portuguese, Italian
_THERE_ARE_MANY_RE = re.compile(r"\s(?:gibt|il\s+y\s+a|y\s+a|hay|há|ci\s+sono|c'è|viele|mehrere|beaucoup|plusieurs|muchos|muchas|varios|varias"
                                r"|muitos|muitas|vários|várias|molti|molte|diversi|diverse)\s", re.IGNORECASE)
_SUM_RE = re.compile(r"[\d.,\s]*\d\s*[+*×÷^=]\s*[-\d.,\s+*/×÷^=]*\d")  # not "3/4" or "1914-1918": a fraction, a range
_FOREIGN_PRONOUNS = frozenset("il elle ils elles on es er sie wir ihr ella ellos ellas ele eles elas lui lei loro".split())
# a word that makes a thing a typical instance of its kind: "a standard piano", "a typical adult"
_GENERIC_INSTANCE_RE = re.compile(r"(?:standard|typical|regular|normal|ordinary|average|conventional|usual)\s+([a-z]+)$")
_PLACE_PREP_RE = re.compile(r"^(?:in|at|on|near|inside|within|aboard|on\s+board|onboard|from|into|via|across)\s+(?:the\s+)?(?=[A-Z])")
_SELF_DESCRIPTION_RE = re.compile(r"(?:an?\s+)?(?:AI|AI\s+(?:language\s+)?model|(?:large\s+)?language\s+model|AI\s+assistant|assistant|chatbot)",
                                  re.IGNORECASE)


# the candidates a question lists at its end: "Which planet is the largest: Mars, Jupiter or Venus?"
_CANDIDATES_RE = re.compile(r"[:,]\s*((?:(?:the|a|an)\s+)?[\w'-]+(?:\s+[\w'-]+){0,2}(?:,\s*(?:(?:the|a|an)\s+)?[\w'-]+(?:\s+[\w'-]+){0,2}){1,4}),?\s+or\s+"
                            r"((?:(?:the|a|an)\s+)?[\w'-]+(?:\s+[\w'-]+){0,2})\s*\?\s*$")
_NEGATED_RE = re.compile(r"\b(?:not|n't|neither|nor|never|no)\b", re.IGNORECASE)


@lru_cache(maxsize=4096)
def _listed(question: str) -> tuple[list[str], set[str]] | None:
    """The candidates a question lists and the stems of what it asks about them, or None (keyed by the question)."""
    m = _CANDIDATES_RE.search(question) if "," in question and " or " in question else None
    if m is None:
        return None
    candidates = [_strip(c) for c in re.split(r",\s*", m.group(1))] + [_strip(m.group(2))]
    asked = content_stems(question[:m.start()]) - {stem(w) for c in candidates for w in c.split()}
    return (candidates, asked) if asked else None


def _listed_candidate(ctx: Context) -> str | None:
    """For a question that lists three or more candidates, the one candidate a clause of the reply names together with
    what the question asks ("Jupiter is a gas giant and the largest", "only the dolphin is a mammal"), where the
    other clauses name the rest or none."""
    listed = _listed(ctx.question or "")
    if listed is None:
        return None
    candidates, asked = listed
    for part in sentences(_without_tables(ctx.text))[:3]:
        for clause in re.split(r";|,\s+but\s+|\s+-\s+", _SUBORDINATE_RE.sub("", part, count=1)):
            named = [c for c in candidates if re.search(rf"\b{re.escape(c)}(?:e?s)?\b", clause, re.IGNORECASE)]
            if len(named) == 1 and content_stems(clause) & asked and not _NEGATED_RE.search(clause):
                return named[0]
    return None


def _finished(read: Callable[[Context], str | None]) -> Callable[[Context], str | None]:
    """A rule whose span is trimmed as a reader trims it (see :func:`_polished`)."""
    def finish(ctx: Context, _read: Callable[[Context], str | None] = read) -> str | None:
        value = _read(ctx)
        return _polished(value, ctx) if value and value != ABSTAIN else value
    finish.__name__ = read.__name__
    finish.__doc__ = read.__doc__
    return finish


def _picked_span(ctx: Context, text: str) -> str | None:
    """The span a pick among candidates names first ("Probably Rabat, since ..." -> "Rabat")."""
    span = _strip(re.split(r"[,;:.!?]\s|\s-\s|[.!?]$", text, maxsplit=1)[0])
    return span if span and _short(span) else None


def _read_again(ctx: Context) -> str | None:
    """The whole cascade's reading of a part of the output (what follows a hedge it sets aside)."""
    return run_cascade(RULES, ctx).value


# "<the question's subject> is a/the <noun> that/which/at which ...": a definition of the subject, no answer named
_DEFINITION_RE = re.compile(r"^\W*(?P<subject>[^.!?\n]{2,80}?)\s+(?:is|are|was|were)\s+(?:a|an|the)\s+(?:[a-z-]+\s+){0,2}?[a-z-]+\s+"
                            r"(?:that|which|who|whose|where|(?:at|in|by|from|on)\s+which)\b(?P<clause>[^.!?\n]*)[.!]?\s*$")


# "What is the chemical symbol for gold?" answered "Gold is a yellow metal.": a class of the subject, not the attribute asked
_ATTRIBUTE_Q_RE = re.compile(r"^\W*what\s+(?:is|was)\s+the\s+(?:[a-z]+\s+){0,2}?(?P<noun>[a-z]+)\s+(?:of|for)\b", re.IGNORECASE)
_CLASSIFIED_RE = re.compile(r"^\W*(?P<subject>[^.!?\n]{2,60}?)\s+(?:is|was)\s+an?\s+(?P<kind>(?:[a-z-]+\s+){0,2}[a-z-]+)\s*[.!]", re.IGNORECASE)


def _classified(ctx: Context) -> str | None:
    """An opening sentence that puts the question's subject in a class ("Gold is a yellow metal.") for a question asking
    one of its attributes ("What is the chemical symbol for gold?") names no answer: unextracted."""
    asked = _ATTRIBUTE_Q_RE.match(ctx.question or "")
    said = _CLASSIFIED_RE.match(ctx.text)
    if asked is None or said is None or stem(asked.group("noun")) in content_stems(said.group("kind")):
        return None
    subject = content_stems(said.group("subject"))
    return ABSTAIN if subject and subject <= content_stems(ctx.question or "") else None


def _definition(ctx: Context) -> str | None:
    """A one-sentence output that restates the question's subject and defines it by a common noun and a relative
    clause ("The freezing point of water is the temperature at which it freezes.", "Gold is a chemical element that
    contains ...") names no answer: unextracted. A name as the subject ("Mercury is the planet that ...") or in the
    clause ("Titan is a moon that orbits Saturn.") is left to the readers.

    >>> _definition(Context("Gold is a chemical element that has 79 protons.", "text", question="What is the symbol for gold?"))
    '\\x00abstain'
    >>> _definition(Context("Mercury is the planet that is closest to the Sun.", "text", question="Which planet is closest to the Sun?")) is None
    True
    """
    if not ctx.question or len(ctx.text) > 200:
        return None
    m = _DEFINITION_RE.match(ctx.text.strip())
    if m is None:
        return _classified(ctx)
    if re.search(r"[A-Z]", m.group("clause")):
        return None  # "Titan is a large moon that orbits Saturn.": the clause names the answer
    subject = content_stems(m.group("subject"))
    return ABSTAIN if subject and subject <= content_stems(ctx.question) else None


RULES: tuple[Rule, ...] = _markers.cascade(
    MARKERS, lambda: RULES, _correction, pick=_picked_span, unfinished=_unfinished, before=(
        Rule("tidy", "format", _tidy), Rule("courtesy", "format", _courtesy), Rule("other_question", "abstain", _other_question),
        Rule("no_such", "abstain", _no_such), Rule("garbled", "abstain", _garbled), Rule("foreign_correction", "other_language", _foreign_correction)),
    stated=(Rule("bold", "format", _bold), Rule("table", "table", _table),
             Rule("after_hedge", "abstain", _commitment.after_opening_hedge(_read_again))),
    also=(Rule("about_answering", "abstain", _about_answering), Rule("definition", "abstain", _definition)), prose=(
    Rule("whole_quote", "quotes", _whole_quote),
    Rule("title", "quotes", _title),
    Rule("literal", "quotes", _literal),
    Rule("cleft", "answer_inside_sentence", _cleft),
    Rule("agent", "other_language", _agent),
    Rule("answer_first", "answer_first", _answer_first),
    _markers.rule(MARKERS, "concluding"),
    Rule("listed_candidate", "answer_inside_sentence", _listed_candidate),
    Rule("in_sentence", "answer_inside_sentence", _commitment.on_question(_in_sentence)),
    Rule("heading", "format", _heading),
    Rule("consensus", "answer_inside_sentence", _consensus),
))
# the rules that read a span are finished; those that only abstain, and those that read the output again, are not
RULES = tuple(r if r.name in ("tidy", "courtesy", "foreign_unsure", "echo", "other_question", "refusal", "no_such", "garbled", "hedge", "about_answering")
              else Rule(r.name, r.family, _finished(r.read)) for r in RULES)
