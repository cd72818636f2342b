"""Yes/no answers: the words yes/no and true/false, verdicts that use neither ("Certainly", "That's a
myth", "Not at all"), idioms with "no" in a yes answer ("no doubt", "there is no denying it"), a short
reply that echoes the question ("It does not."), and a restatement that negates the question.

Principles a careful reader uses, read before the restatement: an opening courtesy is no verdict; a
pronoun and auxiliary affirm only with the predicate left out or the question's own verb; the pair an
instruction offers ("yes or no") is no verdict; a restatement affirms only what is asked of the subject,
and denies by negation, a negative prefix, another year, count or bound; difficulty, a debated
point, a condition ("Only if ...") or one subgroup each way give no single verdict. A comparative reply
answers a comparative question by its direction; another rank or date for the same event denies. No
knowledge of the world decides: a restatement that leaves out or replaces what the question asks of its
subject ("Ice floats." for "Does ice sink?", "a poor conductor"), another kind ("Koalas are marsupials." for
"a bear?") or another comparative ("Much smaller.") is no verdict. An intensifying idiom stresses its clause either way; verdict phrases of other languages count."""

from __future__ import annotations

import re
from functools import lru_cache

from gengap.extract import _commitment, _markers
from gengap.extract._base import (
    ABSTAIN,
    HEDGE_RE,
    STOPWORDS,
    Context,
    Rule,
    closing_hedge,
    content_stems,
    first_part,
    sentences,
    stem,
)
from gengap.extract._cascade import run_cascade
from gengap.extract._markers import Markers, marker_pattern, read_region
from gengap.extract._phrases import alternation, languages_with
from gengap.extract._text_span import after_foreign_unsure, foreign_no_answer

_YES = {"yes", "true", "correct", "right", "yep", "yeah", "yup", "affirmative", "indeed", "certainly", "absolutely"}
_NO = {"no", "false", "incorrect", "wrong", "nope", "nah", "negative"}
_YN_WORD = r"(yes|no|true|false|correct|incorrect|nope|nah|yep|yeah|yup)"
# "no" that opens a yes: "no doubt", "no wonder it does", "there is no denying it", "none greater"
_NO_IDIOM = (r"(?:(?:there|it|that)(?:'s|\s+is)\s+)?no(?:\s+|-)(?:doubt\w*|wonder|question|deny\w*|contest|surprise\w*|overstat\w*|argu\w*"
             r"|disput\w*|mistak\w*|kidding|exaggerat\w*|lie|brainer|two\s+ways|debat\w*|getting\s+(?:around|away\s+from)|escaping|secret"
             r"|shortage|lack|problem|reason\s+(?:why\s+)?(?:not|(?:\w+\s+){0,3}(?:can't|cannot|couldn't|shouldn't|wouldn't|won't|isn't|aren't)))\b"
             r"|nothing\s+(?:else\s+)?(?:\w+\s+){0,3}(?:comes?\s+close|compares|beats|matches|rivals)\b"
             r"|none\s+(?:greater|better|finer|bigger|more)\b|(?:no\s+one|nobody)\s+(?:would|could|can|will)\s+(?:argue|deny|dispute|disagree|doubt)"
             r"|without\s+(?:a\s+)?(?:doubt|question)|nothing\s+(?:could\s+be\s+)?(?:truer|more\s+true)")
_NO_IDIOM_RE = re.compile(rf"^\W*(?:make\s+)?(?:(?:that|it)(?:'s|\s+is)\s+a\s+(?=no[-\s]brainer))?(?:{_NO_IDIOM})", re.IGNORECASE)
_NOT_IDIOM = r"(?!\s*(?:-|\s)\s*(?:(?:clear|simple|single|definitive|easy|straight|straightforward|right|agreed)\s+answer|one|longer|matter|more|idea|shortage|lack|problem|reason|doubt\w*|wonder|question|deny\w*|contest|surprise\w*|overstat\w*|brainer|kidding|lie|exaggerat\w*|two|getting|argu\w*|disput\w*|other|evidence|secret|need\s+to\s+(?:worry|panic|fret))\b)"
_LEAD = (r"^\W{0,4}(?:(?:for\s+the\s+most\s+part(?=,)|in\s+(?:most|many|some)\s+cases(?=,)|on\s+the\s+whole(?=,)|by\s+and\s+large(?=,)|as\s+a\s+rule(?=,)"
         r"|in\s+(?:theory|practice|principle|general)(?=,)|as\s+far\s+as\s+(?:i|we)\s+(?:know|can\s+tell)(?=,)|to\s+(?:my|our)\s+knowledge(?=,)|well|hmm+|so|ok(?:ay)?|ha(?:ha)*|heh|oh|ah|um+|uh+|technically|honestly|actually|basically|short\s+answer|in\s+short"
         r"|simply\s+put|answer|please|generally|usually|typically|normally|mostly|largely|[a-z]+ly(?=,)"
         r"|in\s+(?:a|some)\s+(?:sense|way)(?=\s+(?:it|they|he|she|that|this|you|we)\b)|to\s+(?:a|some)\s+(?:degree|extent)(?=\s+(?:it|they|he|she|that|this|you|we)\b)"
         r"|(?:the\s+)?(?:evidence|research|studies|data|science)\s+(?:suggests?|shows?|indicates?|says?)(?:\s+that)?)\W{1,3}|no\s+need\s+to\s+(?:worry|panic|fret)\W{1,6}|i'?m\s+(?:(?!not\b)\w+\s+)?(?:confident|sure|certain|positive)(?:\s+that)?\s+)*")
_NOT_ALTERNATIVE = r"(?!\s*[,/]?\s*or\s+(?:yes|no|true|false|not)\b)"  # "yes or no": the question's own words
_FIRST_RE = re.compile(rf"{_LEAD}{_YN_WORD}\b{_NOT_IDIOM}{_NOT_ALTERNATIVE}", re.IGNORECASE)
# "yes or no", "true/false": the pair an instruction offers, never a verdict
_NOT_OFFERED = r"(?<!yes or )(?<!no or )(?<!true or )(?<!false or )(?<!yes/)(?<!true/)"
_LAST_RE = re.compile(rf"{_NOT_OFFERED}\b{_YN_WORD}\b{_NOT_IDIOM}{_NOT_ALTERNATIVE}\W{{0,4}}(?=$|\n|[.!,;)-]\s)", re.IGNORECASE)

# the predicate left out because it is the question's ("It is.", "They do, mostly."): a pronoun and an
# auxiliary affirm only then; "It is a legume." or "He was of average height." state something else
# the auxiliaries a short answer restates its verdict with: "they do", "it is", "it isn't"
_AUXILIARY = r"(?:is|are|was|were|does|do|did|can|could|will|would|has|have|had|should|must)"
_ELLIPSIS = (r"(?=(?:\s+been|\s+be)?(?:,?\s+(?:so|too|either|indeed|though|anyway|at\s+all|in\s+fact|in\s+general|in\s+(?:most|many)\s+cases|both|all|[a-z]{3,}ly)){0,2}"
             r"\s*(?:$|[.!,;:\u2014)-]))")
_NO_VERDICT = (
    r"(?:absolutely|certainly|definitely|of\s+course|surely|probably|likely|most\s+likely|almost\s+certainly|obviously|evidently)\s+not\b|not\s+at\s+all|not\s+really"
    r"|(?:quite\s+|just\s+|rather\s+|in\s+fact\s+)?the\s+(?:opposite|reverse)\b|(?:practically|virtually|nearly|almost|basically|essentially|physically)\s+impossible"
    r"|there(?:'s|\s+is)\s+(?:little|scant|hardly\s+any|no\s+real)\s+(?:evidence|proof|support)|on\s+the\s+contrary|none\b(?!\s+other\b)|not\s+(?!only\b|just\b|merely\b|simply\b)[a-z]+ly\b|not\s+yet\b|[a-z]+ly,?\s+not\b(?!\s+only\b)(?=\W*$|\s*[.;,!:\u2014-])|not\s+quite|not\s+necessarily|not\s+true|not\s+exactly|not\s+(?:all|every|always|entirely|completely|really|usually|generally)\b"
    r"|far\s+from\s+it|not\s+(?:that\s+(?:i|we)\s+(?:know|am\s+aware|are\s+aware)\s+of|to\s+(?:my|our|anyone's)\s+knowledge|as\s+far\s+as\s+(?:i|we)\s+know)"
    r"|(?:only\s+|very\s+)(?:rarely|seldom)|not\s+(?:one|a|the\s+least|the\s+slightest)\s+bit|not\s+in\s+the\s+least|not\s+even\s+close|not\s+remotely|not\s+a\s+chance|nowhere\s+near"
    r"|nothing\s+could\s+be\s+(?:further|farther)\s+from\s+the\s+truth|(?:(?:i'?m\s+)?afraid|i\s+(?:fear|hope|guess|suppose)|apparently|sadly|unfortunately|seemingly)\s+not\b|not\s+so(?=\W*$|\s*[.!,;:\u2014-])"
    r"|neither\b|not\s+(?:in|on|at|for|by|with|without|under|outside|since|from|during|unless|once|even|usually|normally)\b"
    r"|despite\s+(?:the|its|their|his|her)\s+(?:\w+\s+)?name"
    r"|(?:that|this|it)(?:'s|\s+is)\s+(?:a|an)\s+(?:\w+\s+)?(?:belief|idea|assumption|claim|notion|story|legend)\b(?=[^.]*\bbut\b)"
    r"|(?:it|that|this)(?:'s|\s+is|\s+was)\s+(?:(?:[a-z]+ly|very|quite|pretty)\s+)?(?:unlikely|impossible|improbable|not\s+(?:possible|likely))\b"
    r"|(?:(?:it'?s|it\s+is|that'?s|that\s+would\s+be)\s+)?(?:a\s+)?(?:very\s+|really\s+)?(?:bad|terrible|poor|risky)\s+idea|(?:it'?s\s+|it\s+is\s+)?(?:inadvisable|not\s+advisable|not\s+worth\s+it)|not\s+worth\b|(?:avoid|skip)\s+(?:it|that|them|doing\s+(?:so|that|it))\b"
    r"|(?:(?:it'?s|it\s+is|that'?s|they'?re|they\s+are)\s+)?(?:best|better)\s+avoided|(?:it'?s|it\s+is|you'?d|you\s+had)\s+(?:best|better|wiser|safer)\s+not\b|better\s+not\b|i'?d\s+(?:avoid|steer\s+clear\s+of)\s+(?:it|that|them)\b"
    r"|there(?:'s|\s+is)\s+no\s+way\b(?!\s+(?:around|to\s+deny|to\s+doubt))|negative(?=\W*$|\s*[,:;\u2014-])|never\b|not\s+any\s*more|no\s+longer|by\s+no\s+means|no\s+way|hardly|rarely|seldom|unlikely|impossible|(?:no|zero)\s+chance|out\s+of\s+the\s+question|i\s+(?:don't|do\s+not)\s+think\s+so"
    r"|i\s+(?:believe|think|suspect|doubt)\s+not|i\s+doubt\s+it|(?:that|this|it)(?:'s|\s+is|\s+was)\s+(?:a\s+|an\s+)?(?:common\s+|popular\s+|old\s+|widespread\s+)?"
    r"(?:myth|trope|misconception|misunderstanding|exaggeration|overstatement|oversimplification|false|untrue|incorrect|wrong|not\s+(?:true|correct|right|the\s+case|so))"
    r"|(?:a\s+)?(?:common\s+|popular\s+|old\s+)?(?:myth|misconception)\b|false\b|wrong\b|incorrect\b|only\s+(?:in|on|under|for|at|by)\b"
    r"|only\s+(?:about|around|roughly|some|a\s+(?:few|small|tiny|fraction)|\d[\d.,]*\s*%)"
    r"|there(?:'s|\s+is)\s+no\s+(?:evidence|proof|truth|basis)"
    r"|(?:there(?:'s|\s+is)|(?:studies|research|scientists|science|trials|experiments|researchers)\s+(?:have\s+|has\s+)?(?:found|find|shows?|showed|shown))\s+no\s+"
    r"(?:good|real|such|solid|reliable|convincing|scientific|clear|strong|consistent|credible)?\s*(?:evidence|proof|link|connection|support|effect|association|basis)"
    rf"|(?:it|they|he|she|that|this|there|you|we|i)\s+{_AUXILIARY}(?:n't|\s+not)\b"
    r"|(?:it|they|he|she|that|this|you|we|i)(?:'s|'re)\s+(?:[a-z]+ly\s+)?not\b(?!\s+only\b)|(?:it|they|he|she|that|this|you|we|i)\s+(?:can't|cannot|won't|can\s+not)\b|(?:isn't|aren't|wasn't|weren't|doesn't|don't|didn't|can't|cannot|won't|hasn't|haven't)\b"
)
_YES_VERDICT = (
    r"(?:i'?d\s+(?:recommend|suggest)\s+(?:it|that|doing\s+so)|i\s+(?:would\s+|do\s+)?recommend\s+(?:it|that)|go\s+for\s+it|(?:100|a\s+hundred)\s*(?:%|percent)(?:\s+worth\s+it)?"
    r"|absolutely|certainly|definitely|most\s+(?:definitely|certainly|assuredly)|of\s+course|indeed|sure(?:ly)?|exactly|precisely|correct|right|true|affirmative|undoubtedly"
    r"|naturally|agreed|totally|clearly|obviously|evidently|you\s+bet|that'?s\s+(?:right|correct|true)|i\s+(?:believe|think|guess|suppose)\s+so|probably|likely|most\s+likely"
    r"|hands\s+down|for\s+sure|unquestionably|undeniably|beyond\s+(?:a\s+|any\s+)?doubt|mostly|largely|generally|usually|for\s+the\s+most\s+part|in\s+most\s+cases"
    r"|(?:very\s+)?much\s+so|[a-z]{3,}ly\s+so(?=\W*(?:$|[.!,;:\u2014-]))|(?:pretty\s+much|more\s+or\s+less|for\s+all\s+intents\s+and\s+purposes)(?=\W*(?:$|[.!,;:\u2014-]))|(?:that|this|it)(?:'s|\s+is)\s+(?:the\s+)?(?:leading|prevailing|accepted|mainstream|consensus|standard|most\s+(?:likely|widely\s+accepted|accepted|plausible))\s+(?:explanation|theory|view|hypothesis|account)"
    r"|(?:(?:it'?s|it\s+is|that'?s|that\s+is|that\s+would\s+be)\s+)?(?:a\s+)?(?:very\s+|really\s+)?(?:good|great|smart|wise|sensible)\s+idea"
    r"|(?:(?:it'?s|it\s+is)\s+)?(?:highly\s+|strongly\s+)?(?:recommended|advisable)|(?:it'?s\s+|it\s+is\s+)?(?:a\s+must|worth\s+it)|(?:i'?m\s+afraid|i\s+(?:fear|hope|guess|suppose)|apparently|sadly|unfortunately|fortunately|thankfully|happily|seemingly)\s+so|always(?=\W*$|\s*[.!,;:\u2014-])|by\s+all\s+means|yes+|that'?s\s+(?:exactly|precisely|just)|(?:it|that|this)\s+(?:is|does)\s+(?:exactly|precisely)"
    r"|(?:far|much|way|well|a\s+lot|many\s+times)\s+(?:more|over|\w+er)|by\s+(?:far|a\s+long\s+way|a\s+wide\s+margin)"
    r"|easily|comfortably|slightly|somewhat|marginally|a\s+(?:little|bit)|in\s+(?:many|most)(?:\s+\w+)?,?\s+indeed"
    r"|(?:many|most|some|several|plenty)(?:\s+of\s+them)?\s+(?:do|does|are|can|have|did|will|were|is)(?!n't|\s+not))\b"
    r"|(?:it|they|he|she|that|this|there|you|we|i)(?:\s+(?:certainly|definitely|surely|sure|really|indeed|absolutely|still|do|does|did))?"
    rf"\s+{_AUXILIARY}\b(?!\s+not)(?!\s+(?:no|none|never|nothing)\b)(?!n't|'t)(?![^.;!?\n]*,\s+not\s){_ELLIPSIS}"
    r"|(?!(?:hardly|rarely|seldom|barely|scarcely|unlikely|only|never|partly|partially|marginally|slightly|technically|possibly|allegedly|supposedly)\b)"
    r"(?!(?!typically|emphatically)[a-z]+ically\b|(?:legal|official|cultural|strict|nutritional|culinari|linguistic|structural|financial|political|medical"
    r"|commercial|literal|figurative|formal|informal|moral|social|natural|visual|verbal|environmental|ethical|historical|geographical)ly\b)[a-z]{4,}ly(?=\s*(?:[.!,;:\u2014-]|$))"
    r"|one\s+of\s+the\s+(?:best|most|greatest|top|finest|biggest|largest|highest|fastest|strongest)\b"
    r"|not\s+only\b|(?:plenty|lots|loads|heaps|tons|many|several|numerous|dozens|hundreds)(?:\s+of\s+them)?(?=\W*(?:$|[.!,;:\u2014-]))|you\s+got\s+it|(?:that|this|it)(?:'s|\s+is)\s+(?:the\s+case|so)\b"
    r"|(?:it|they|he|she|that|this|you|we)(?:'s|'re)\s+(?:true|right|correct)"
)
_VERDICT_RE = re.compile(rf"{_LEAD}(?:(?P<no>{_NO_VERDICT})|(?P<idiom>{_NO_IDIOM})|(?P<yes>{_YES_VERDICT}))", re.IGNORECASE)
_DEBUNK_RE = re.compile(r"\b(?:myth|misconception|debunked|disproven|discredited|urban\s+legend|old\s+wives'\s+tale|not\s+true|untrue|false)\b",
                        re.IGNORECASE)
_NEGATION_RE = re.compile(r"\b(?:not(?!\s+(?:only|just|merely|simply)\b)|never|no\s+longer|isn't|aren't|wasn't|weren't|doesn't|don't|didn't|can't|cannot|won't|hasn't|haven't|neither|nor"
                          r"|rather\s+than|instead\s+of|rarely|seldom|hardly|barely|scarcely|myth|misconception|debunked|disproven|discredited"
                          r"|false|untrue|urban\s+legend|no\s+evidence|little\s+(?:or\s+no\s+)?(?:effect|impact|evidence|link|difference|influence)|(?:found|find|finds|shows?|showed|shown)\s+no|no\s+(?:link|connection|correlation|proof|effect)|(?:has|have|had|is|are|was|were|there's)\s+no)\b",
                          re.IGNORECASE)


def _head(ctx: Context) -> str:
    """The first line or sentence of the prose, computed once per output (most rules read it)."""
    head = ctx.__dict__.get("_yes_no_head")
    if head is None:
        head = ctx.__dict__["_yes_no_head"] = first_part(ctx.prose)[0]
    return head


def _word(word: str) -> str | None:
    w = word.lower()
    return "yes" if w in _YES else "no" if w in _NO else None


def _first(ctx: Context, text: str) -> str | None:
    """Yes or no (or a bare verdict word of another language) opening ``text``; not the "No" of a doubt in another
    language ("No lo sé."), which the commitment stage reads."""
    if text[:2].lower() == "no" and (after_foreign_unsure(text) is not None or foreign_no_answer(sentences(text))):
        return None
    m = _FIRST_RE.match(text)
    if m:
        return _word(m.group(1))
    foreign = _FOREIGN_WORD_RE.match(text)
    if foreign is not None:
        return "yes" if foreign.group("yes") else "no"
    alone = re.match(r"\W*(right|wrong)\W*$", text, re.IGNORECASE)  # "right" or "wrong" alone: "..., so that's right."
    return None if alone is None else _word(alone.group(1))


def _last(ctx: Context, text: str) -> str | None:
    """The last yes or no that ends a clause of ``text``."""
    found = _LAST_RE.findall(text)
    return _word(found[-1]) if found else None


# the table of the marker stage: a claim said true or false marks the verdict too ("The statement is false.")
MARKERS = Markers(first=_first, last=_last, marker=marker_pattern(r"\b(?:(?:statement|claim|it|this|that|answer|which)\s+(?:is|stays|remains)(?:\s+(?:therefore|thus|also))?|that's)"
                                                                  r"(?=\s+(?:yes|no|true|false|correct|incorrect|right|wrong|nope|yep|yeah)\b)", opens="acistw"),
                  conclusion=re.compile(rf"\b(?:so|therefore|thus|hence)\s*,?\s*(?:that(?:'s|\s+is)\s+|(?!{_YN_WORD}\b)[a-z]+(?:\s+[a-z]+){{0,3}}\s*,\s*)?", re.IGNORECASE))


def _correction(ctx: Context) -> str | None:
    if ctx.correction is None:
        return None
    final = re.search(rf"(?:^|[.!;]\s+){_YN_WORD}\W*$", ctx.correction, re.IGNORECASE)
    found = _word(final.group(1)) if final else read_region(MARKERS, ctx, ctx.correction)  # "... Yes." closing the reconsideration
    if found is None:
        found = _commitment.concluded_verdict(ctx.correction, ctx.question)  # "wait, ..., so it was not a leap year."
    if found is None and re.search(r"\bno\b", ctx.text[: len(ctx.text) - len(ctx.correction)][-25:], re.IGNORECASE):
        return "no"  # "Yes... hmm, no. Penguins cannot fly."
    if found is None and ctx.question and "answer_inside_sentence" not in ctx.disabled:  # "I take that back: Canberra is the capital."
        again = _restatement(Context(ctx.correction, ctx.kind, question=ctx.question, disabled=ctx.disabled))
        found = again if again in ("yes", "no") else None
    return found


# after the idiom, the verdict said outright: "No wonder people believe it, but no: ..."
_IDIOM_THEN_VERDICT_RE = re.compile(rf"[^.!?\n]*?,?\s+but\s+(?:the\s+answer\s+is\s+)?{_YN_WORD}\b(?=\s*[:;,.!\-])", re.IGNORECASE)


def _no_idiom(ctx: Context) -> str | None:
    m = _NO_IDIOM_RE.match(ctx.prose)
    if not m:
        return None
    then = _IDIOM_THEN_VERDICT_RE.match(ctx.prose, m.end())
    if then:
        return _word(then.group(1))
    return "no" if _idiom_clause_denies(ctx.prose[m.end():]) else "yes"


def _idiom_clause_denies(rest: str) -> bool:
    """Whether the clause an intensifying idiom introduces is itself a denial ("No doubt about it: penguins
    can't fly.", "Make no mistake, it isn't safe."): the idiom stresses the clause, whichever way it goes."""
    clause = re.split(r"[.;!?\n]|,\s+(?:but|and|though|although|while|whereas)\b|\s[-\u2014]\s", rest, maxsplit=1)[0]
    return bool(_CLAUSE_DENIAL_RE.search(clause))


_CLAUSE_DENIAL_RE = re.compile(r"\b(?:not(?!\s+(?:only|just|merely|simply)\b)|never|no\s+longer|isn't|aren't|wasn't|weren't|doesn't|don't|didn't"
                               r"|can't|cannot|won't|wouldn't|couldn't|shouldn't|hasn't|haven't)\b", re.IGNORECASE)


_BOTH_RE = re.compile(r"^\W*(?:(?:both\s+)?yes\s+and\s+no|no\s+and\s+yes|(?:partially|partly|half|somewhat)\s+(?:true|right|correct)\b|yes\s+or\s+no\s*,?\s+depending)\b", re.IGNORECASE)


def _closing_hedge(ctx: Context) -> str | None:
    """An answer taken back by a closing hedge ("No, not usually. ... yes, faintly. So it depends."), or
    "Yes and no" opening the reply: unextracted."""
    return ABSTAIN if _BOTH_RE.match(ctx.prose) or closing_hedge(ctx.prose) else None


# the closing sentence gives the verdict after a turn: "Yes above sea level - but from base to peak, no. So strictly speaking, no."
_CLOSING_RE = re.compile(rf"(?:^|[.!?;]\s+|\n)(?:so|therefore|thus|hence|in\s+short|overall|all\s+in\s+all)\b(?:\s*,?\s*[a-z]+){{0,3}}\s*,\s*"
                         rf"{_YN_WORD}\W*$", re.IGNORECASE)


def _closing(ctx: Context) -> str | None:
    """A last sentence that is only a concluding verdict ("So strictly speaking, no."); it overrides the opening word."""
    m = _CLOSING_RE.search(ctx.prose)
    return _word(m.group(1)) if m else None


_EITHER_OR_RE = re.compile(r"\b(?!yes\b|true\b|fact\b|right\b|correct\b|real\b)\w+\s+or\s+(?!not\b|no\b|false\b|nor\b|myth\b|fiction\b|wrong\b|incorrect\b|fake\b)\w+[^?]*\?",
                           re.IGNORECASE)  # "Fact or myth: ...?" offers a verdict, it is a yes/no question


def _either_or(ctx: Context) -> str | None:
    """An either-or question ("Should I use metric or imperial units?") has no yes or no answer unless the
    reply says one outright (read by the rules before this one): a restatement or a verdict is not read."""
    return ABSTAIN if ctx.question and _EITHER_OR_RE.search(_asked(ctx.question)) else None


# both verdicts offered and none taken: "Yes or no.", "Sí o no.", "Oui ou non ?", "Ja oder nein"
_BOTH_VERDICTS_RE = re.compile(r"^\W*(?:yes|no|s[ií]|oui|non|ja|nein|sim|n[ãa]o)\s+(?:or|o|ou|oder)\s+(?:yes|no|s[ií]|oui|non|ja|nein|sim|n[ãa]o)\b"
                               r"[\s.?!]*$", re.IGNORECASE)


def _both_verdicts(ctx: Context) -> str | None:
    """An output that only offers both verdicts ("Yes or no.", "Sí o no.") takes neither: unextracted.

    >>> _both_verdicts(Context("Sí o no.", "yes_no")), _both_verdicts(Context("No, or not quite.", "yes_no"))
    ('\\x00abstain', None)
    """
    return ABSTAIN if _BOTH_VERDICTS_RE.match(ctx.text) else None


_BARE_VERDICT_RE = re.compile(r"^\W*(?P<verdict>yes|no)\s*[.!]\s+(?P<rest>[^.!?\n;,(]+)", re.IGNORECASE)
_RANKING_RE = re.compile(r"\b(?:first|second|third|last|only|\w{3,}est|most|least)\b", re.IGNORECASE)
_SAID_NOT_RE = re.compile(r"\b(?:not|no|never|nor|isn'?t|aren'?t|doesn'?t|don'?t|didn'?t|wasn'?t|weren'?t|cannot|can'?t|neither)\b|n't\b",
                          re.IGNORECASE)


def _contradicted(ctx: Context) -> str | None:
    """A bare verdict whose next sentence says the opposite by restating the question ("No. The Earth orbits the
    Sun ..." for "Does the Earth orbit the Sun?") contradicts itself: unextracted.

    >>> _contradicted(Context("No. The Earth orbits the Sun once a year.", "yes_no", question="Does the Earth orbit the Sun?"))
    '\\x00abstain'
    >>> _contradicted(Context("No. The Earth orbits the Sun, not the other way.", "yes_no", question="Does the Sun orbit the Earth?")) is None
    True
    """
    m = _BARE_VERDICT_RE.match(ctx.text)
    if m is None or not ctx.question:
        return None
    asked, said = content_stems(ctx.question), content_stems(m.group("rest"))
    if len(asked) < 2 or not asked <= said or _RANKING_RE.search(m.group("rest")) or _RANKING_RE.search(ctx.question):
        return None  # "the first person to ..." for "the only person ...?": a qualifier the stems do not compare
    negated = bool(_SAID_NOT_RE.search(m.group("rest"))) or bool(_SAID_NOT_RE.search(ctx.question))
    if _question_order(ctx.question) != _question_order(m.group("rest"), asked):
        return None  # "the Earth orbits the Sun" for "Does the Sun orbit the Earth?": the roles differ
    return ABSTAIN if (m.group("verdict").lower() == "no") != negated else None


def _question_order(text: str, keep: frozenset[str] | set[str] | None = None) -> list[str]:
    """The content stems of ``text`` in order (those of ``keep`` only, when given), each once."""
    stems = [stem(w) for w in re.findall(r"[\w'-]+", text)]
    wanted = keep if keep is not None else content_stems(text)
    seen: list[str] = []
    for x in stems:
        if x in wanted and x not in seen:
            seen.append(x)
    return seen


# An opening courtesy states no verdict ("Great question!", "Happy to help.", "Let me explain:"): the reply
# after it is read on its own.
_COURTESY_RE = re.compile(
    r"^\W*(?:(?:hi|hello|hey)(?:\s+there)?|(?:(?:what|that'?s|that\s+is|such)\s+(?:a\s+|an\s+)?|an?\s+)?(?:really\s+|very\s+)?(?:great|good|nice|excellent"
    r"|interesting|fun|fascinating|fantastic|thoughtful|common|classic|popular)\s+question|thanks?(?:\s+you)?\s+for\s+(?:asking|the\s+question|your\s+question)"
    r"|(?:i'?m\s+|i\s+am\s+)?(?:happy|glad|delighted)\s+to\s+(?:help|answer|explain)(?:\s+with\s+that)?|okay|ok|alright|all\s+right"
    r"|let(?:'s|\s+us|\s+me)\s+(?:think|see|check|explain|look|break|solve|work|reason|figure|take\s+a\s+look|clarify|answer)\b[^.!:\n]{0,40}"
    r"|here(?:'s|\s+is|\s+are)\s+(?:the\s+|my\s+|a\s+|an\s+|some\s+|what\s+|how\s+)[^.!:\n]{0,40}|here\s+you\s+go|to\s+answer\s+(?:your|the|this)\s+question)"
    r"\s*(?:[.!:]+|,(?=\s+(?:so|then|let|here|to|the|it|this|that|yes|no|not|well)\b))\s+(?=\S)", re.IGNORECASE)
# a label on a line of its own before the verdict: "## Short answer\nNot always."
_LABEL_LINE_RE = re.compile(r"^\W*(?:(?:the\s+)?short\s+answer|(?:my\s+|final\s+)?answer|tl;?\s*dr|verdict|bottom\s+line|in\s+short|summary|conclusion)\s*[:\-]?[ \t]*\n\s*(?=\S)",
                            re.IGNORECASE)
# the topic said back as a question before the verdict: "Cats? Not really."
_TOPIC_RE = re.compile(r"^\W*(?!(?:why|how|what|who|whom|where|when|which|whose|is|are|was|were|do|does|did|can|could|will|would|should|has|have|isn't|aren't|don't|doesn't)\b)"
                       r"(?:[A-Za-z][\w'-]*\s*){1,4}\?\s+(?=\S)", re.IGNORECASE)
# A word of compliance that is also a verdict ("Sure!", "Certainly.", "Of course!"): an explicit verdict after it answers
_COMPLIANCE_RE = re.compile(r"^\W*(?:(?P<sure>sure(?:\s+thing)?)|certainly|of\s+course|absolutely|definitely)\s*[!.,:]+\s+(?=\S)", re.IGNORECASE)
# the rules whose reading of the reply after a compliance word is an explicit verdict
_DENIAL_OPENS_RE = re.compile(r"\W*(?:[a-z]+ly,?\s+)?(?:not|never|hardly|rarely|seldom|no|nope|none|far\s+from)\b", re.IGNORECASE)
_EXPLICIT = frozenset({"first_word", "not_all", "verdict", "closing", "closing_hedge", "hedge", "refusal", "marked", "no_idiom", "correction", "unextracted"})


def _courtesy(ctx: Context) -> str | None:
    """An opening courtesy is no verdict; the reply after it is read on its own. A compliance word that
    can also be a verdict ("Sure! No, penguins cannot fly.") yields to an explicit verdict after it, and
    "Sure!" to any reading of what follows; otherwise the rules after this one read it as a verdict."""
    prose = ctx.prose
    m = _COURTESY_RE.match(prose) or _TOPIC_RE.match(prose) or _LABEL_LINE_RE.match(prose)
    if m:
        rest = prose[m.end():]
        while (more := _COURTESY_RE.match(rest) or _TOPIC_RE.match(rest)) is not None:
            rest = rest[more.end():]
        found = run_cascade(RULES, Context(rest, ctx.kind, question=ctx.question, disabled=ctx.disabled), disabled=ctx.disabled)
        return found.value or ABSTAIN
    m = _COMPLIANCE_RE.match(prose)
    if not m:
        return None
    rest = prose[m.end():]
    courtesy = _COURTESY_RE.match(rest)  # "Of course! Here's the answer: ..."
    if courtesy:
        rest = rest[courtesy.end():]
    if HEDGE_RE.match(first_part(rest)[0]):
        return ABSTAIN  # "Sure! It depends. ..."
    found = run_cascade(RULES, Context(rest, ctx.kind, question=ctx.question, disabled=ctx.disabled), disabled=ctx.disabled)
    if courtesy:
        return found.value or ABSTAIN
    if m.group("sure"):
        return found.value  # nothing read after "Sure!": the rules after this one read it as a yes
    if found.rule in _EXPLICIT and found.rule != "unextracted" and (found.rule != "verdict" or _DENIAL_OPENS_RE.match(rest)):
        return found.value or ABSTAIN
    return None


# yes and no in the other languages a model may answer in: "Ja, sie steht in Gizeh.", "Sí, ..."
# a bare yes or no in another language opening the reply ("Ja.", "Non !", "はい。"): phrases/<lang>.toml
_VERDICT_LANGUAGES = tuple(sorted(set(languages_with("yes")) | set(languages_with("no"))))
_FOREIGN_WORD_RE = re.compile(rf"^\W*(?:(?P<yes>{alternation('yes', _VERDICT_LANGUAGES)})|(?P<no>{alternation('no', _VERDICT_LANGUAGES)}))"
                              r"\s*(?:[,.!;:\uff0c\u3002\uff01\u3001\uff1b\uff1a]|$)", re.IGNORECASE)


# verdicts without the words yes or no in the other languages a model may answer in: "Natürlich.",
# "Claro que sí.", "Bien sûr !", "Pas du tout.", "Auf keinen Fall.", "De jeito nenhum."
_FOREIGN_VERDICT_RE = re.compile(
    r"^\W*(?:(?P<no>(?:das\s+)?stimmt\s+(?:so\s+)?nicht(?:\s+mehr)?|nicht\s+mehr|n[ãa]o\s+[ée]|no\s+es|ce\s+n'est\s+pas|c'est\s+faux|pas\s+vrai|no\s+es\s+(?:as[ií]|cierto|verdad)|claro\s+que\s+n[oã]o?|(?:ganz\s+)?sicher\s+nicht|nat[üu]rlich\s+nicht|gar\s+nicht|keineswegs|auf\s+keinen\s+fall|nicht\s+wirklich|falsch"
    r"|pas\s+du\s+tout|absolument\s+pas|pas\s+vraiment|bien\s+s[ûu]r\s+que\s+non|certainement\s+pas|jamais|faux"
    r"|para\s+nada|en\s+absoluto|de\s+ning[úu]n\s+modo|de\s+ninguna\s+manera|nunca|falso|de\s+jeito\s+nenhum|de\s+modo\s+algum"
    r"|per\s+niente|niente\s+affatto|assolutamente\s+no"
    # "I think not" / "I think so": a believing verb then the verdict word of the language
    r"|ich\s+(?:glaube|denke|meine)\s+(?:eher\s+)?nicht|(?:je\s+)?(?:pense|crois)\s+que\s+non|(?:yo\s+)?(?:creo|pienso)\s+que\s+no"
    r"|(?:eu\s+)?(?:acho|creio|penso)\s+que\s+n[aã]o|(?:io\s+)?(?:credo|penso)\s+(?:di\s+)?no)"
    r"|(?P<yes>ich\s+(?:glaube|denke|meine)\s+(?:schon|ja)|(?:je\s+)?(?:pense|crois)\s+que\s+oui|(?:yo\s+)?(?:creo|pienso)\s+que\s+s[ií]"
    r"|(?:eu\s+)?(?:acho|creio|penso)\s+que\s+sim|(?:io\s+)?(?:credo|penso)\s+(?:di\s+)?s[iì]"
    r"|(?:oui|ja|s[ií]|sim)\s+(?:bien\s+s[ûu]r|nat[üu]rlich|klar|claro|certo|certamente|genau|exacto|exactement|absolument|por\s+supuesto)"
    r"|as[ií]\s+es|(?:das\s+)?stimmt(?:\s+genau)?|c'est\s+(?:vrai|[çc]a|juste)|[ée]\s+sim|[ée]\s+verdade|isso\s+mesmo|exato|es\s+(?:cierto|verdad)|nat[üu]rlich|klar|genau|stimmt|richtig|sicher|selbstverst[äa]ndlich|auf\s+jeden\s+fall|doch|definitiv"
    r"|bien\s+s[ûu]r|[ée]videmment|certainement|exactement|tout\s+[àa]\s+fait|effectivement|absolument|vrai|c'est\s+exact"
    r"|claro(?:\s+que\s+s[ií]m?)?|por\s+supuesto|desde\s+luego|exacto|exactamente|cierto|efectivamente|verdadero|com\s+certeza|certamente"
    r"|certo|esatto|assolutamente(?:\s+s[iì])?|verdadeiro|vero|sem\s+d[úu]vida|sin\s+duda|sans\s+doute|zweifellos))"
    r"(?=\s*(?:[,.!;:\u2014-]|$))", re.IGNORECASE)


_TF_LETTER_RE = re.compile(r"^\W*(?:(?P<yes>T|Fact)|(?P<no>F|Fiction))\W*$")


def _tf_letter(ctx: Context) -> str | None:
    """"T" or "F" alone for a true-or-false question, "Fact" or "Fiction" for a fact-or-myth one."""
    m = _TF_LETTER_RE.match(ctx.prose)
    if not m or not ctx.question or not re.search(r"\b(?:true|fact)\s*(?:or|/)\s*(?:false|myth|fiction)\b", ctx.question, re.IGNORECASE):
        return None
    return "yes" if m.group("yes") else "no"


def _foreign_verdict(ctx: Context) -> str | None:
    """A verdict word or phrase of another language opening the reply ("Natürlich.", "Pas du tout.")."""
    m = _FOREIGN_VERDICT_RE.match(ctx.prose)
    return None if m is None else "no" if m.group("no") else "yes"


# a short qualifying phrase before the verdict: "Botanically speaking, ...", "Measured from sea level, ..."
_QUALIFIER_RE = re.compile(r"^\W*(?!(?:yes|no|not|never|true|false)\b)[A-Za-z][^,.;:!?]{0,40},\s+")


# an elliptical reply with a noun subject: "The fruit isn't; ...", "Most species do."
_ELLIPTIC_RE = re.compile(r"^\W*(?:(?:the|a|an|these|those|their|its)\s+)?(?:[\w'-]+\s+){0,2}?(?:(?P<no>isn't|aren't|wasn't|weren't|doesn't"
                          r"|don't|didn't|can't|cannot|won't|hasn't|haven't|is\s+not|are\s+not|does\s+not|do\s+not|can\s+not)|(?P<yes>(?:has|have|had)\s+been|is|are|was|were|does|do|did|can|has|have))"
                          r"\s*(?:[;:!\u2014]|\.\s|\.$|\s-\s|(?<=t)\s*,\s+but\b)", re.IGNORECASE)


def _verdict(ctx: Context) -> str | None:
    """A verdict opening the output without the words yes or no."""
    head = _head(ctx)
    if head.rstrip().endswith("?"):
        return None  # a question asked back is no verdict
    credited = re.match(r"^\W*(?i:that|it)\s+(?i:was|is|'s)\s+(?i:actually\s+|really\s+)?([A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)*)\W*$", head)
    if credited and ctx.question and not re.search(r"\b(?:who|which)\b", ctx.question, re.IGNORECASE):
        return "yes" if any(stem(w) in ctx.question_stems for w in credited.group(1).split()) else "no"  # "That was Michelangelo."
    about = re.match(r"^\W*(?:about|around|roughly|approximately|nearly|almost|just\s+(?:over|under))\s+(\d[\d,]*(?:\.\d+)?)", head, re.IGNORECASE)
    if about and ctx.question and not _BOUND_RE.search(ctx.question):
        asked = [float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", ctx.question)]
        said = float(about.group(1).replace(",", ""))
        if asked and any(abs(said - a) <= 0.05 * max(abs(a), 1) for a in asked):
            return "yes"  # "About 365.25 days" for "... in 365 days?"
    head = re.sub(r"^\W*(?:since|from|as\s+of|by)\s+\d{3,4}\s*,?\s*", "", head, flags=re.IGNORECASE)  # "Since 2023 it has been"
    split = _SPLIT_GROUPS_RE.match(head)
    if split and bool(split.group("neg1")) != bool(split.group("neg2")) and not _MOST_CLAUSE_RE.search(head) \
            and all(content_stems(split.group(g)) & ctx.question_stems for g in ("s1", "s2")):
        return ABSTAIN  # "Saltwater fish do; freshwater fish don't.": one group each way, no verdict for all
    if re.match(r"^\W*(?:most|many|the\s+majority\s+of)\b", head, re.IGNORECASE) and content_stems(head) & ctx.question_stems \
            and not _NEGATION_RE.search(head) and not (ctx.question and _ALL_RE.search(ctx.question)) \
            and not (_predicate_left_out(re.split(r"[,;.:]", head)[0], ctx) and not re.search(r"\b(?:yes|no)\b", head, re.IGNORECASE)):
        return "yes"  # "Most people who are struck survive." for "Is it possible to survive ...?"
    elliptic = _ELLIPTIC_RE.match(head)
    subject_name = re.fullmatch(r"\W*([A-Z][a-z][\w'-]*(?:\s+[A-Z][a-z][\w'-]*)*)\s*", head[:elliptic.start("yes")]) if elliptic and elliptic.group("yes") else None
    if subject_name and ctx.question and subject_name.group(1).split()[0].lower() not in _YES | {"indeed", "it", "that", "this", "they", "so", "well", "sure"} \
            and not subject_name.group(1).lower().endswith("ly") and _other_name(subject_name.group(1), ctx):
        return "no"  # "Canberra is." for "Is Sydney the capital of Australia?"
    if elliptic:
        negative = re.search(r"\b(?:hardly|barely|scarcely|no|nobody|none|nothing|never|rarely|seldom|few)\b", head[:elliptic.start("yes")] if elliptic.group("yes") else "", re.IGNORECASE)
        return "no" if elliptic.group("no") or negative else "yes"  # "Hardly anyone can;" denies
    contrary = _CONTRARY_RE.match(head)
    if contrary:  # "Contrary to popular belief, X does/doesn't ...": the clause after the comma answers
        rest = head[contrary.end():]
        return "no" if _NEGATION_RE.search(rest) else "yes" if content_stems(rest) & ctx.question_stems else None
    if HEDGE_RE.search(re.split(r"[,;:]|\s-\s", head, maxsplit=1)[0]):
        return ABSTAIN  # "Cannot be determined.", "Hard to say."
    if ctx.question and re.search(r"\w\s+or\s+(?!not\b)\w", _asked(ctx.question), re.IGNORECASE) and re.match(r"\W*(?:both|neither|either|a\s+bit\s+of\s+both)\b", head, re.IGNORECASE):
        return ABSTAIN  # "Both - it straddles the Bosphorus." for "Is Istanbul in Europe or Asia?": no yes/no verdict
    if re.match(r"\W*(?:but\s+)?only\s+(?:when|if|while|during|once|as\s+long\s+as|provided)\b", head, re.IGNORECASE):
        return ABSTAIN  # "Only if you count hot deserts.": a condition on the asked thing, neither yes nor no
    most = _MOST_CLAUSE_RE.search(head)
    if most and _FEW_CLAUSE_RE.search(head):
        return "no" if most.group("neg") else "yes"  # "Some do, most don't.": the larger share answers
    if ctx.question and re.match(r"\W*(?:do|does|did)\b", _asked(ctx.question), re.IGNORECASE) and _EMPHATIC_DO_RE.match(head) \
            and not _NEGATION_RE.search(head.split(",")[0].split(";")[0]):
        return "yes"  # "They do rest." for "Do fish sleep?"
    own_verb = _PRONOUN_VERB_RE.match(head)
    if own_verb and ctx.question and any(stem(own_verb.group(1)) == q or len(q) >= 3 and stem(own_verb.group(1)).startswith(q) for q in ctx.question_stems):
        return "yes"  # "It can help a little." for "Will drinking water help me lose weight?": the question's own verb, affirmed
    return _verdict_words(head, ctx)


def _verdict_words(head: str, ctx: Context) -> str | None:
    """A verdict in words of its own ("Not at all.", "Certainly.", "Above sea level, it is.", "It's possible, ..."),
    or one a comparison or a double negation gives."""
    compared = _comparative_reply(head, ctx.question) or _double_negation(head, ctx.question)
    if compared:
        return compared
    m = _VERDICT_RE.match(head)
    qualified = None if m else _QUALIFIER_RE.match(head)
    if qualified:  # "Above sea level, it is.", "In everyday terms, absolutely."
        rest = head[qualified.end():]
        word = _FIRST_RE.match(rest)
        if word:  # "Despite the nickname, no - it is a marsupial."
            return _word(word.group(1))
        m = _VERDICT_RE.match(rest)
    if m:
        if m.group("yes") and _BUT_RARE_RE.search(head):
            return "no"  # "Occasionally, during strong storms, but it's rare.": rarely, a no
        return "no" if m.group("no") else "yes"
    echoed = _PREDICATE_RE.match(head)
    if echoed and ctx.question and stem(echoed.group(1)) in ctx.question_stems:
        return "yes"  # "Is it possible to ...?" - "It's possible, though difficult."
    if _DEBUNK_RE.search(head):
        return "no"
    return None


# a comparative: "more", "less", "fewer" or a word in -er that is not one of the common words so spelt
_COMPARATIVE_RE = re.compile(r"(?:more|less|fewer|(?!(?:never|other|either|neither|rather|whether|however|after|over|under|number|water|ever|later|order|answer|together)$)[a-z]{2,}er)$")
_ASKED_COMPARATIVE_RE = re.compile(r"\b([a-z]+)\s+than\b", re.IGNORECASE)
_REPLY_COMPARATIVE_RE = re.compile(r"^\W*(?:(?:slightly|a\s+(?:bit|little|lot|touch)|much|far|way|somewhat|marginally|just|considerably|significantly"
                                   r"|substantially|actually|a\s+few\s+\w+|(?:it'?s|it\s+is|they'?re|they\s+are)|about|around|roughly)\s*,?\s+)*([a-z]+)\b",
                                   re.IGNORECASE)


_NOT_PREFIXED_RE = re.compile(r"^\W*(?:(?:it|that|this|they|he|she)(?:'s|'re|\s+is|\s+are|\s+was|\s+were)\s+)?(?:certainly\s+|definitely\s+|technically\s+)?"
                              r"not\s+(?:at\s+all\s+)?(il|im|in|ir|un|dis|non-?)([a-z]{3,})\b", re.IGNORECASE)


def _double_negation(head: str, question: str | None) -> str | None:
    """A denied negative prefix answers for the plain word: "It's not illegal, but ..." for "Is it legal to
    ...?" is a yes, for "Is it illegal to ...?" a no."""
    m = _NOT_PREFIXED_RE.match(head)
    if not m or not question:
        return None
    prefixed, plain = (m.group(1) + m.group(2)).lower(), m.group(2).lower()
    words = set(re.findall(r"[a-z-]+", question.lower()))
    if prefixed in words:
        return "no"
    return "yes" if plain in words else None


_ASKS_EQUAL_RE = re.compile(r"\b(?:exactly|precisely|the\s+same\s+(?:as|size|length|height|weight|age)|equal\s+to|as\s+[a-z]+\s+as)\b", re.IGNORECASE)


def _comparative_reply(head: str, question: str | None) -> str | None:
    """A reply that opens with a comparative to "Is A more/bigger/... than B?": the comparative asked
    ("Slightly more.") affirms, "less" or "fewer" for "more" denies, another comparative is left unextracted
    (whether "smaller" denies "bigger" is knowledge of the words); to a question of equality ("exactly 30 mL?",
    "as tall as ...?") any comparative denies."""
    if not question:
        return None
    asked = _ASKED_COMPARATIVE_RE.search(_asked(question))
    said = _REPLY_COMPARATIVE_RE.match(head)
    if not said or not _COMPARATIVE_RE.match(said.group(1).lower()) or not re.match(r"\s*(?:than\b|[.,;:!\u2014-]|$)", head[said.end():]):
        return None
    if not asked and _ASKS_EQUAL_RE.search(_asked(question)) and not re.search(r"\bthan\b", head, re.IGNORECASE):
        return "no"  # "Slightly less." for "Is a fluid ounce exactly 30 mL?": not equal
    if not asked:
        return None
    a, b = asked.group(1).lower(), said.group(1).lower()
    if not _COMPARATIVE_RE.match(a):
        return None
    if a == b or {a, b} in ({"more", "less"}, {"more", "fewer"}):  # the grammar's own opposites, not adjectives' antonyms
        return "yes" if a == b else "no"
    return ABSTAIN  # another comparative ("Much smaller." for "bigger than"): only knowledge of the words tells its sense


# a verdict reported in a frame, its predicate left out: "The consensus is increasingly that they do."
_REPORTED_RE = re.compile(rf"^(?P<frame>[^.;!?\n]{{3,90}}?)\b(?:that\s+|,\s*)(?:it|they|he|she|you|we)\s+(?:(?:certainly|definitely|really|probably|likely|indeed)\s+)?"
                          rf"{_AUXILIARY}(?P<neg>n't|\s+not)?\b{_ELLIPSIS}", re.IGNORECASE)
_FRAME_RE = re.compile(r"\b(?:consensus|evidence|research|studies|study|science|scientists?|experts?|researchers?|doctors?|biologists?|historians?|view|answer"
                       r"|verdict|agrees?|says?|said|suggests?|shows?|showed|indicates?|believes?|thinks?|concludes?|concluded|finds?|found|seems?|appears?"
                       r"|turns\s+out|looks\s+like|likely|probably|clear|true|fair\s+to\s+say|safe\s+to\s+say)\b", re.IGNORECASE)
_FRAME_DOUBT_RE = re.compile(r"\b(?:few|no|nobody|little|doubt\w*|unclear|unsure|whether|if|debated?|disputed?|wonder)\b", re.IGNORECASE)


_SAID_SO_RE = re.compile(r"^\W*(?:most|many|the\s+majority\s+of)\s+(?:\w+\s+){0,2}?(?:say|think|believe|agree|suggest|indicate|show|hold)s?\s+(?:so|(?P<neg>not))\b"
                         r"(?!\s+(?:much|far|long|many|clearly|simple|easy))", re.IGNORECASE)


# the same frame without "that": "Most evidence suggests they do."
_BARE_REPORT_RE = re.compile(rf"^(?P<frame>[^.;!?\n]{{3,60}}?\b(?:suggests?|shows?|says?|indicates?|agrees?|believes?|thinks?))\s+(?:it|they|he|she|you|we)\s+"
                             rf"(?:(?:certainly|definitely|really|probably|likely|indeed)\s+)?{_AUXILIARY}"
                             rf"(?P<neg>n't|\s+not)?\b{_ELLIPSIS}", re.IGNORECASE)


def _reported(ctx: Context) -> str | None:
    """A verdict given inside a reporting frame with its predicate left out ("The scientific consensus is
    that they do.", "Most researchers now agree it does not."); a doubting frame ("Few think they do") is
    not read."""
    head = _head(ctx)
    said_so = _SAID_SO_RE.match(head)
    if said_so and not re.search(r"\b(?:but|however|though|although|wrong|mistaken|myth)\b", head[said_so.end():], re.IGNORECASE):
        return "no" if said_so.group("neg") else "yes"  # "Most sources say so.", "Most experts think not."
    m = _REPORTED_RE.match(head) or _BARE_REPORT_RE.match(head)
    if not m or not _FRAME_RE.search(m.group("frame")) or _FRAME_DOUBT_RE.search(m.group("frame")) or _NEGATION_RE.search(m.group("frame")):
        return None
    return "no" if m.group("neg") else "yes"

_SHARE_AUX = r"(?:\s+[\w'-]+){0,3}?\s+(?:do|does|are|is|can|have|has|will|did|were|was)(?P<neg>n't|\s+not)?\b"
_MOST_CLAUSE_RE = re.compile(rf"(?:^|[,;]\s*(?:but\s+|while\s+|whereas\s+)?|\bbut\s+)(?:most|the\s+majority|(?:almost|nearly|virtually)\s+all){_SHARE_AUX}", re.IGNORECASE)
_FEW_CLAUSE_RE = re.compile(rf"(?:^\W*|[,;]\s*(?:but\s+|while\s+|whereas\s+)?|\bbut\s+)(?:only\s+)?(?:some|a\s+few|few|several|a\s+minority|a\s+handful){_SHARE_AUX}", re.IGNORECASE)

_PRONOUN_VERB_RE = re.compile(r"^\W*(?:it|they|he|she|you|we)\s+(?:can|could|will|would|does|do|did|may|might|should)\s+(?:(?:[a-z]+ly|really|still|also|even)\s+)?(?!not\b|be\b|have\b)([a-z]{3,})\b",
                              re.IGNORECASE)


def _shared(said: set[str], asked: frozenset[str]) -> set[str]:
    """The question's stems that ``said`` repeats, a longer form of one counting too ("austrian" for "austria")."""
    return {q for q in asked if q in said or len(q) >= 5 and any(w.startswith(q) or len(w) >= 5 and q.startswith(w) for w in said)
            or len(q) >= 4 and any(w.startswith(q) and len(w) - len(q) <= 2 for w in said)}  # "mammal" for "mamm" (a plural stems apart)


# emphatic "do" affirms what a do-question asks: "They do rest - ..." for "Do fish sleep?"
_EMPHATIC_DO_RE = re.compile(r"^\W*(?:it|they|he|she|you|we)\s+(?:certainly\s+|definitely\s+|really\s+)?(?:do|does|did)\s+(?!not\b|so\b|too\b|it\b|that\b|this\b|depend|vary|differ|varies)[a-z]{3,}\b", re.IGNORECASE)

_AUX = r"(?:is|are|was|were|does|do|did|can|could|will|would|has|have)"
# two groups, one each way: "Saltwater fish do; freshwater fish don't need to."
_SPLIT_GROUPS_RE = re.compile(rf"^\W*(?!(?:it|they|he|she|that|this|there|you|we|i)\b)(?P<s1>(?:[\w'-]+\s+){{1,4}}?){_AUX}(?P<neg1>n't|\s+not)?\s*[;,]\s*(?:but\s+|while\s+|whereas\s+)?"
                              rf"(?!(?:it|they|he|she|that|this|there|you|we|i)\b)(?P<s2>(?:[\w'-]+\s+){{1,4}}?){_AUX}(?P<neg2>n't|\s+not)?(?=\s*(?:[.;,!]|$)|\s+(?:need|have)\s+to\b)",
                              re.IGNORECASE)


_ASKS_MYTH_RE = re.compile(r"\b(?:a\s+(?:common\s+|popular\s+)?(?:myth|misconception)|an?\s+urban\s+legend|an?\s+old\s+wives'?\s+tale|(?<!true or )(?<!true/)(?<!true, or )false(?!\s*(?:or|/)\s*true)|untrue)\b", re.IGNORECASE)
_NOT_MYTH_RE = re.compile(r"\bnot\s+(?:a\s+|just\s+a\s+)?(?:myth|misconception|legend|false)|\bno\s+myth\b|\b(?:it's|it\s+is|that's|that\s+is)\s+(?:actually\s+|really\s+|perfectly\s+)?"
                          r"(?:true|real|a\s+fact|correct)\b", re.IGNORECASE)


def _myth_question(ctx: Context) -> str | None:
    """The question asks whether something is a myth or false: calling it a myth affirms, calling it true denies."""
    if not ctx.question or not _ASKS_MYTH_RE.search(ctx.question):
        return None
    head = _head(ctx)
    if _NOT_MYTH_RE.search(head):
        return "no"
    return "yes" if _DEBUNK_RE.search(head) else None

_BUT_RARE_RE = re.compile(r",?\s+but\s+(?:it'?s|that'?s|this\s+is|it\s+is|that\s+is)\s+(?:very\s+|quite\s+|extremely\s+|pretty\s+)?(?:rare|unlikely|uncommon|unusual)\b", re.IGNORECASE)

_CONTRARY_RE = re.compile(r"^\W*contrary\s+to\s+[^,.;]{0,40},\s+", re.IGNORECASE)

# "it's (entirely) possible": the question's own adjective affirmed in the opening clause
_PREDICATE_RE = re.compile(rf"{_LEAD}(?:it|that|this|they)(?:'s|'re|\s+is|\s+are)\s+(?:(?:[a-z]+ly|quite|very)\s+)?(?!not\b|never\b)([a-z]{{3,}})\b(?!\s+(?:to|that|than|of|for)\b)"
                           r"(?=\s*(?:$|[.,;:!)\u2014-])|\s+(?:though|although|but|if|when|as\s+long\s+as|in\s+(?:most|many|some)\s+cases)\b)",
                           re.IGNORECASE)


_SUPERLATIVE_RE = re.compile(r"\b(?:most|least|best|worst|\w{3,}est)\b", re.IGNORECASE)


def _acronyms_of(text: str, question: str) -> set[str]:
    """The question's stems of a capitalized run whose initials ``text`` writes ("EU" for "European Union")."""
    found = set()
    for run in re.findall(r"(?:[A-Z][a-z]+\s+){1,4}[A-Z][a-z]+", question):
        initials = "".join(w[0] for w in run.split())
        if initials in text and initials in re.findall(r"[A-Z]{2,}", text):
            found |= content_stems(run)
    return found


_ALL_RE = re.compile(r"\b(?:all|every|always|everyone|everything)\b", re.IGNORECASE)
_NOT_ALL_RE = re.compile(r"^\W*(?:(?:almost|nearly|not|virtually)\s+(?:all|every|always)|not\s+(?:quite\s+)?(?:all|every))\b", re.IGNORECASE)


_SOME_RE = re.compile(r"^\W*(?:only\s+)?(?:some|a\s+few|few|not\s+many|many|most|several)\b(?!\s+(?:say|think|believe|argue|claim)\b)", re.IGNORECASE)


def _not_all(ctx: Context) -> str | None:
    """"Almost all", "not every" for a question about all or every: no."""
    if ctx.question and _ALL_RE.search(ctx.question) and (_NOT_ALL_RE.match(ctx.prose) or _SOME_RE.match(ctx.prose)):
        return "no"  # "Some do, but not all." for "Do all birds migrate?"
    if ctx.question and _ALL_RE.search(ctx.question) and not _FIRST_RE.match(ctx.prose) \
            and not re.search(r"\b(?:i|you|we|me|my|your)\b", _head(ctx), re.IGNORECASE) and re.search(r"\b(?:none|don't|doesn't|do\s+not|does\s+not|can't|cannot|aren't|isn't|lack|lacks)\b", _head(ctx), re.IGNORECASE):
        return "no"  # "Mercury and Venus have none." for "Do all planets have moons?": an exception answers no
    if ctx.question and _ALL_RE.search(ctx.question) and _less_than_always(ctx):
        return "no"
    return None


_BUT_NOT_ALL_RE = re.compile(r"\bbut\s+not\s+(?:always|all|every|everyone|everything|in\s+(?:all|every)\s+cases?)\b", re.IGNORECASE)
_MOSTLY_RE = re.compile(r"^\W*(?:usually|mostly|generally|often|typically|normally|frequently|most\s+of\s+the\s+time|in\s+most\s+cases|more\s+often\s+than\s+not)\b",
                        re.IGNORECASE)


def _less_than_always(ctx: Context) -> bool:
    """A question whether something always holds answered "Usually, but not always." or "Mostly.": the
    answer qualifies the absolute it was asked about, so it denies it."""
    head = _head(ctx)
    if _BUT_NOT_ALL_RE.search(head):
        return True
    return bool(re.search(r"\balways\b", _asked(ctx.question or ""), re.IGNORECASE) and _MOSTLY_RE.match(head)
                and not re.search(r"\balways\b", head, re.IGNORECASE))


def _other_is_more(ctx: Context) -> str | None:
    """"Is X the longest ...?" - "The Volga is longer.": another name has more of the quality: no."""
    if not ctx.question:
        return None
    sup = re.search(r"\b(?:the\s+)?([a-z]{2,}?)(?:est|iest)\b", ctx.question, re.IGNORECASE)
    if not sup or not re.match(r"\W*(?:is|are|was|were)\b", _asked(ctx.question), re.IGNORECASE):
        return None
    root = sup.group(1).lower()
    head = _head(ctx)
    m = re.match(rf"\W*(?:the\s+)?([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)\s+(?:is|are|was|were)\s+(?:\w+\s+)?{re.escape(root)}\w*er\b", head)
    if m and not any(stem(w) in ctx.question_stems for w in m.group(1).split()) and not _NEGATION_RE.search(head):
        return "no"
    return None


def _table(ctx: Context) -> str | None:
    """A Markdown table row that names the question's subject, with a yes/no cell."""
    if not ctx.question or "|" not in ctx.text:
        return None
    for line in ctx.text.split("\n"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not content_stems(cells[0]) & ctx.question_stems:
            continue
        words = [m.group(1) for c in cells[1:] if (m := re.match(rf"\W*{_YN_WORD}\b", c, re.IGNORECASE))]
        if len(words) == 1:
            return _word(words[0])
    return None


# "X, not Y" / "but not Y": the question's own term is what is denied
_CONTRAST_NOT_RE = re.compile(r"(?:,|\bbut)\s+not\s+(?!only\b|just\b|merely\b|simply\b)(?:(?:for|by|in|on|at|from|with|the|a|an|its|their|his|her)\s+)*([A-Za-z][\w-]+)",
                              re.IGNORECASE)


def _contrast_not(ctx: Context) -> str | None:
    """The opening sentence contrasts something with the question's own term and denies it:
    "He won it, but for the photoelectric effect, not relativity." for "... for relativity?" reads no."""
    if not ctx.question:
        return None
    head = _head(ctx)
    for m in _CONTRAST_NOT_RE.finditer(head):
        if stem(m.group(1)) in ctx.question_stems:
            return "no"
    return None


_SUPERLATIVE_RE = re.compile(r"\bthe\s+((?:most|least)\s+[a-z]+|[a-z]{2,}est|best|worst)\b", re.IGNORECASE)
_RANK = r"(?:second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|2nd|3rd|4th|5th|6th|7th|8th|9th|10th)"


def _other_rank(ctx: Context) -> str | None:
    """A question whether something is the first of a kind ("Is the Atlantic the largest ocean?") answered
    with another rank ("It's the second largest; ...") reads no; not when the reply also says the
    superlative unranked ("It is the highest; K2 is the second highest")."""
    if not ctx.question:
        return None
    asked = _SUPERLATIVE_RE.search(_asked(ctx.question))
    if not asked or _RANK_BEFORE_RE.search(ctx.question[:asked.start(1)]):
        return None
    head = _head(ctx)
    said = list(_word_pattern(asked.group(1).lower()).finditer(head))
    if not said or _NEGATION_RE.search(head.split(";")[0].split(",")[0]):
        return None
    ranked = [m for m in said if _RANK_BEFORE_RE.search(head[max(0, m.start() - 16):m.start()])]
    return "no" if ranked and len(ranked) == len(said) else None


_SHARE_RE = re.compile(r"^\W*(?:only\s+)?(?:about|around|roughly|nearly|almost|over|more\s+than|less\s+than|under|just\s+(?:over|under)|some|approximately)?\s*"
                       r"(?:(\d+(?:\.\d+)?)\s*(?:%|per\s*cent|percent)|(?P<num>a|one|two|three|four|five|seven|nine)[\s-]+"
                       r"(?P<den>half|halves|thirds?|quarters?|fifths?|tenths?)\b)", re.IGNORECASE)
_NUMERATORS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "seven": 7, "nine": 9}
_DENOMINATORS = {"hal": 2, "thi": 3, "qua": 4, "fif": 5, "ten": 10}


def _share_for_most(ctx: Context) -> str | None:
    """A question whether something is mostly so ("Is Greenland mostly ice?") answered with a share ("About
    80% of it is covered by an ice sheet.", "Roughly four fifths of it ..."): over half affirms, under half denies."""
    if not ctx.question or not re.search(r"\b(?:mostly|mainly|largely|predominantly|primarily|majority|most\s+of)\b", _asked(ctx.question), re.IGNORECASE):
        return None
    m = _SHARE_RE.match(_head(ctx))
    if not m or _NEGATION_RE.search(_head(ctx)):
        return None
    share = float(m.group(1)) if m.group(1) else 100 * _NUMERATORS[m.group("num").lower()] / _DENOMINATORS[m.group("den").lower()[:3]]
    return "yes" if share > 55 else "no" if share < 45 else ABSTAIN  # about half: neither


_SUBJECT_WORD_RE = re.compile(r"^\W*(?:is|are|was|were|does|do|did|can|could|will|would|has|have|had)\s+(?:the\s+|a\s+|an\s+)?([A-Za-z][\w-]*)\s+(?!of\b)",
                              re.IGNORECASE)


def _subject_elliptic(ctx: Context) -> str | None:
    """The question's subject named with a bare auxiliary in the reply, its predicate left out ("Botanically,
    bananas are berries, while strawberries are not." for "Are strawberries berries?"): the auxiliary,
    negated or not, answers for it; not when the reply names it twice."""
    m = _SUBJECT_WORD_RE.match(_asked(ctx.question or ""))
    if not m or len(m.group(1)) < 3:
        return None
    word = m.group(1).lower().rstrip("s")
    head = _head(ctx)
    found = [e for e in _ELLIPTIC_AUX_RE.finditer(head) if e.group(1).lower().rstrip("s").removesuffix("e") in (word, word.removesuffix("e"))]
    if len(found) != 1 or sum(w.rstrip("s").removesuffix("e") == word.removesuffix("e") for w in re.findall(r"[a-z]+", head.lower())) != 1:
        return None
    if not found[0].group("neg") and re.match(r"\W*but\b", head[found[0].end():], re.IGNORECASE):
        return None  # "You could, but it's a bad idea.": a concession, the verdict is in what follows
    return "no" if found[0].group("neg") else "yes"


# a word with a bare auxiliary after it, its predicate left out: "strawberries are not."
_ELLIPTIC_AUX_RE = re.compile(r"\b([A-Za-z][\w-]*)\s+(?:[a-z]+ly\s+)?(?:is|are|was|were|do|does|did|can|could|will|would|has|have)(?P<neg>n't|\s+not)?"
                              r"(?=\s*[.;,!])", re.IGNORECASE)  # closed by punctuation: "Fire is" is cut off, not elliptic


_RANK_BEFORE_RE = re.compile(rf"\b{_RANK}[\s-]+$", re.IGNORECASE)


@lru_cache(maxsize=4096)
def _word_pattern(phrase: str) -> re.Pattern[str]:
    """A phrase as a whole-word pattern, its spaces any whitespace, compiled once per phrase."""
    return re.compile(r"\b" + r"\s+".join(map(re.escape, phrase.split())) + r"\b", re.IGNORECASE)


_PLACE_RE = re.compile(r"\b(in|on|at|from|by|of|into|to|through|across|near)\s+(?:the\s+)?(?:(?:north|south)?(?:east|west)ern\s+|(?:north|south|central)(?:ern)?\s+)?([A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)*"
                       r"|(?:north|south)?(?:east|west)|north|south)\b")


_ORIGIN_RE = re.compile(r"\b(?:native|originat\w*|come\s+from|comes\s+from|came\s+from|born|indigenous|endemic|hail\w*\s+from)\b", re.IGNORECASE)


# a place inside a noun phrase ("the highest mountain in Africa") says where that thing is, not the subject
_IN_A_NOUN_PHRASE = (r"(?i:\b(?:the|a|an)\s+(?:(?!(?:is|are|was|were|lies|lie|sits|stands|located|situated|found|based|remains|rises|sets)\b)"
                     r"[\w-]+\s+){1,4}in\s+(?:the\s+)?)")


def _other_place(ctx: Context) -> str | None:
    """The opening sentence puts the question's subject in another place, or by another agent, than the
    question says, with the same preposition: no; in the same one: yes."""
    if not ctx.question:
        return None
    asked = {(m.group(1).lower(), m.group(2)) for m in _PLACE_RE.finditer(ctx.question) if m.start() > 0}
    if not asked:
        return None
    head = _head(ctx)
    head = re.split(r",\s+(?:near|next\s+to|close\s+to|not\s+far\s+from|just\s+(?:across|over))\b", head, maxsplit=1)[0]
    head = head.split(";", 1)[0]  # the first clause: "...; Brazil's capital is Brasília" speaks of something else
    said = [(m.group(1).lower(), m.group(2)) for m in _PLACE_RE.finditer(head)]
    said += [("of", m.group(1)) for m in re.finditer(r"([A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)'s\s+([a-z]+)", head)
             if stem(m.group(2)) in ctx.question_stems]  # "Madrid is Spain's capital" for "... the capital of Portugal?"
    if not said or _NEGATION_RE.search(head):
        return None
    preps = {p for p, _ in asked}
    if _ORIGIN_RE.search(ctx.question) and _ORIGIN_RE.search(head):
        preps |= {"in", "from", "to"}  # "native to Italy?" - "They originated in South America": one relation, other words
    same = [n for p, n in said if p in preps and any(stem(n.split()[0]) == stem(a.split()[0]) for _, a in asked)]
    acronyms = {"".join(w[0] for w in n.split()).lower() for _, n in asked} | {n.lower() for _, n in asked}
    other = [n for p, n in said if p in preps and not any(stem(w) in ctx.question_stems for w in n.split())
             and "".join(w[0] for w in n.split()).lower() not in acronyms  # "the European Union" for "the EU"
             and not (p == "in" and re.search(_IN_A_NOUN_PHRASE + re.escape(n), head))]  # not "the highest mountain in Africa"
    if same:
        return None  # the question's own place: the other rules read it
    pronoun = re.match(r"\W*(?:it|they|he|she|that|this)(?:'s|'re)?\b", head, re.IGNORECASE)
    subject = re.match(r"\W*(?:(?i:the)\s+)?([A-Za-z][\w'-]*)", head)
    names_subject = subject is not None and stem(subject.group(1)) in ctx.question_stems  # "Tokyo is in Japan." for "Is Tokyo in China?"
    return "no" if other and (pronoun or names_subject) else None


# a first clause that only says how it looks ("It looks prime at first glance, but ..."): the turn answers
_APPEARANCE_RE = re.compile(r"\b(?:looks?|seems?|appears?|sounds?)\b|\b(?:might|may|would)\s+(?:think|expect|assume|seem)\b|\bat\s+first\b", re.IGNORECASE)
_DEBATED_RE = re.compile(r"\bwhether\b[^.;]{0,80}?\b(?:is|are|remains?)\s+(?:still\s+|hotly\s+|widely\s+|much\s+|often\s+)?(?:debated|disputed|contested|unclear|controversial|unsettled"
                         r"|a\s+matter\s+of\s+(?:debate|opinion)|an?\s+open\s+question)", re.IGNORECASE)
_DIFFICULT_RE = re.compile(r"\b(?:hard|difficult|tricky|rare|unusual|uncommon)\s+(?:\w+\s+)?(?:to|for)\b|\bpossible\s+but\s+(?:rare|unlikely|difficult|hard)", re.IGNORECASE)


def _restatement(ctx: Context) -> str | None:
    """A first sentence that restates the question: negated, it answers no; affirmed, yes."""
    if not ctx.question:
        return None
    head = _head(ctx)
    if head.rstrip().endswith("?"):
        return None
    if _DIFFICULT_RE.search(head):
        return None  # "It's very hard to overdose on it": qualified by difficulty or rarity, no plain verdict
    if _DEBATED_RE.search(head):
        return ABSTAIN  # "..., though whether it counts as one is still debated": the restatement taken back
    parts = re.split(r",?\s+(?:though|although|while|whereas|even\s+though)\s", head, maxsplit=1)[0]
    main, *turn = re.split(r",?\s+but\s", parts, maxsplit=1)
    first_shared = (content_stems(main) | _acronyms_of(main, ctx.question)) & ctx.question_stems
    if turn and len(first_shared) >= 2 and _NEGATION_RE.search(main):
        return "no"  # "Norway is not an EU member, but it's in the EEA.": the first clause answers, the turn adds
    if turn and content_stems(turn[0]) & ctx.question_stems:
        before = _restatement(Context(main, ctx.kind, question=ctx.question, disabled=ctx.disabled))
        after = _restatement(Context(turn[0], ctx.kind, question=ctx.question, disabled=ctx.disabled))
        if before in ("no", ABSTAIN) and after == "yes" and not _APPEARANCE_RE.search(main):
            return ABSTAIN  # "A tomato is a fruit, but it's treated as a vegetable.": a denial turned into a partial yes
        main = turn[0]  # "Penguins are birds, but they can't fly.": the clause after "but" answers
    subject = _subject_of(ctx.question)
    # a leading qualifier ("Botanically it's a legume") does not change who the pronoun stands for
    core = re.sub(r"^\W*(?:[a-z]{3,}ly|strictly\s+speaking|technically\s+speaking|scientifically\s+speaking)\s*,?\s+(?=(?:it|they|he|she)\b)", "", main, flags=re.IGNORECASE)
    if re.match(r"\W*(?:it|they|he|she)\b", core, re.IGNORECASE) and not _NEGATION_RE.search(core) \
            and _prefixed_opposite(core, ctx.question):
        return "no"  # "He lost." for "Did Napoleon win at Waterloo?": the pronoun's predicate is the opposite of the question's
    than = re.search(r"\bthan\s+(?:the\s+)?([A-Za-z][\w-]*)", main)
    if than and (_SUPERLATIVE_RE.search(ctx.question) and stem(than.group(1)) in ctx.question_stems or stem(than.group(1)) == subject):
        return "no"  # "Is X the largest ...?" - "Y is larger than X."; "Is sound faster than light?" - "Light is faster than sound."
    if re.match(r"\W*(?:it|they|he|she)(?:'s|'re|\s)", core, re.IGNORECASE) and not _NEGATION_RE.search(core) \
            and (_other_kind(core, ctx.question) or _other_count(core, ctx.question)):
        return "no" if _other_count(core, ctx.question) else ABSTAIN  # "It's an autonomous territory ..." for "Is Greenland a country?"
    other_year = _other_year(main, ctx)
    if other_year:
        return other_year  # "It ended in 1945." for "Did World War II end in 1944?"
    shared = _shared(content_stems(main) | _acronyms_of(main, ctx.question), ctx.question_stems)  # a concession ("though they are cooked as ...") restates nothing
    said = content_stems(main)
    shared |= {q for q in _question_subject(ctx.question) if q + "s" in said or q + "es" in said}  # "Bats are ..." for "Is a bat ...?"
    detail = any(w[:1].isdigit() for w in shared) and re.match(r"\W*(?:it|they|he|she)\b", main, re.IGNORECASE)
    if shared and _other_name(main, ctx) and re.match(r"\W*[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*\s+(?:is|are|was|were)\s+the\b", main):
        return "no"  # "Sacramento is the capital." for "Is Los Angeles the capital of California?"
    if len(shared) < max(1, min(2, len(ctx.question_stems) // 2)) and not detail:
        return None  # it speaks of something else: not read (unless "It fell in 1989" restates the question's own date)
    if _other_name(main, ctx):
        return "no"  # "Is Sydney the capital?" - "Canberra is Australia's capital."
    if _other_count(main, ctx.question) or (not _NEGATION_RE.search(main) and _other_kind(main, ctx.question)):  # "Spiders have eight legs."
        return "no" if _other_count(main, ctx.question) else ABSTAIN  # "Africa is a continent": do the kinds exclude each other?
    compared = _compared(ctx.prose, ctx.question)
    if compared:
        return compared  # "Is the Amazon longer than the Nile?" - "most references list the Nile as longer"
    if _prefixed_opposite(main, ctx.question) and not _NEGATION_RE.search(main):
        return "no"  # "Do sloths move fast?" - "Sloths are among the slowest mammals."; "It's illegal ..." for "Is it legal ...?"
    if turn and re.search(r"\b(?:looks?|seems?|appears?)\b", main, re.IGNORECASE) and re.search(r"\b(?:actually|in\s+fact|really)\b", turn[0], re.IGNORECASE):
        return "no"  # "Their fur looks white, but it's actually transparent"
    return _polarity(main, shared, ctx)


def _polarity(main: str, shared: set[str], ctx: Context) -> str | None:
    """The verdict of a clause that restates the question (``shared``: the question's words it says): negated, no;
    affirmed, yes; none where it leaves out or replaces what the question asks of its subject."""
    question = ctx.question or ""
    negated = bool(_NEGATION_RE.search(main)) or bool(re.search(r",\s*not\s+(?!only\b|just\b|merely\b|simply\b)\w", main)) or _without(main, ctx)
    if not negated and (not shared - _question_subject(question) or _requalified(main, question)):
        return None  # "Earth is an oblate spheroid." for "Is Earth flat?": the subject again, but not what is asked of it
    if (not negated or _ASKS_MODAL_RE.match(_asked(question))) and _predicate_left_out(main, ctx):
        return None  # "Ice floats on water." for "Does ice sink?": what it says instead needs a reader's knowledge
    if _INNER_NEGATION_RE.search(question):
        return "yes" if negated else "no"  # "Is there no gravity in space?" - "There is gravity in space."
    return "no" if negated else "yes"


def _predicate_left_out(main: str, ctx: Context) -> bool:
    """A word the question asks of its subject is missing from the restatement ("Pluto is smaller than the
    Moon." for "Is Pluto bigger than the Moon?"): only knowledge of the words said instead could read it.

    >>> _predicate_left_out("Ice floats on water.", Context("", "yes_no", question="Does ice sink in water?"))
    True
    """
    said = content_stems(main)
    spoken_of = _question_subject(ctx.question) if re.search(r"\b(?:it|its|they|their|them|he|his|she|her)\b", main, re.IGNORECASE) else frozenset()
    missing = ctx.question_stems - said - spoken_of  # the subject may go by a pronoun, not left out
    return any(not word[:1].isdigit() and not any(s.startswith(word[:4]) for s in said) for word in missing)


# "Can dogs eat ...?", "Should I ...?": the verb after the modal is what is asked
_ASKS_MODAL_RE = re.compile(r"^\W*(?:can|could|may|might|should|must)\b", re.IGNORECASE)
_CLASSED_RE = re.compile(r"\b(?:classified|classed|categori[sz]ed|reclassified|considered|regarded)\s+as\b", re.IGNORECASE)


def _requalified(main: str, question: str) -> bool:
    """The reply sets another word where the question qualifies what it asks about ("a poor conductor" for
    "a good conductor?"): its agreement with the rest of the question is no verdict.

    >>> _requalified("Pure water is a poor conductor.", "Is water a good conductor of electricity?")
    True
    """
    def modifiers(text: str) -> dict[str, str]:
        words = re.findall(r"[A-Za-z][\w'-]*", text)
        return {stem(w): stem(prev) for prev, w in zip(words, words[1:])
                if prev[:1].islower() and prev.lower() not in STOPWORDS and w.lower() not in STOPWORDS and not prev.endswith("ly")}
    said, asked = modifiers(main), modifiers(question)
    if _CLASSED_RE.search(main) and any(noun in said for noun in content_stems(question)):
        return True  # "Pluto is classified as a dwarf planet.": a class of its own, named with a word the question lacks
    return any(noun in said and said[noun] != word and said[noun] not in asked.values() for noun, word in asked.items())


# a question that itself denies ("Is there no gravity in space?", "Do penguins never fly?"), not a leading "Isn't ...?"
_INNER_NEGATION_RE = re.compile(r"^\W*\w+\s+(?:[\w'-]+\s+){0,6}?(?:no|not|never|none|nothing|nobody|\w+n't)\b(?!\s+(?:only|just|longer)\b)", re.IGNORECASE)


_ASKED_SUBJECT_RE = re.compile(r"(?:^|\n)\W*(?:(?:question|q)\s*:\s*)?(?:is|are|was|were|does|do|did|can|could|will|would|has|have|had|should|isn't|aren't|wasn't|doesn't|don't|didn't)"
                               r"\s+(?:(?:the|a|an|all|most|some|every|any|this|that|these|those|your|my|our)\s+)?"
                               r"(?P<subj>(?-i:[A-Z][\w'-]*(?:\s+(?:of\s+)?[A-Z][\w'-]*)*)|\d[\d,.]*|[\w'-]+)", re.IGNORECASE)


@lru_cache(maxsize=4096)
def _question_subject(question: str | None) -> frozenset[str]:
    """The stems of the question's subject ("Is Mount Everest in Nepal?" -> mount, everest): a restatement that
    shares only these speaks of the subject without saying what is asked of it."""
    if not question:
        return frozenset()
    found = [m for m in _ASKED_SUBJECT_RE.finditer(question) if "?" in question[m.end():].split("\n", 1)[0]]
    if not found:
        return frozenset()
    subj = found[-1].group("subj")
    if not subj[:1].isupper() and not subj[:1].isdigit() or content_stems(subj) >= content_stems(_asked(question)):
        subj = subj.split()[0]  # "Was Mozart Austrian?": a question is not all subject
    return frozenset(content_stems(subj))



_MYTH_RE = re.compile(r"(?<!not )(?<!no )(?<!isn't )\b(?:the|this|that|a|common|popular|widespread|old)\s+(?:myth|misconception|misunderstanding)\b", re.IGNORECASE)


def _debunked(ctx: Context) -> str | None:
    """A reply that calls what is asked a myth or misconception anywhere ("The myth comes from ...") answers
    no, unless the question itself asks about a myth or whether something is true."""
    if not ctx.question or re.search(r"\b(?:myth|misconception|true|false|really|actually)\b", ctx.question, re.IGNORECASE):
        return None
    return "no" if _MYTH_RE.search(ctx.prose) else None

_BOUND_RE = re.compile(r"\b(?P<dir>over|more\s+than|greater\s+than|at\s+least|above|exceed(?:s|ing)?|longer\s+than|taller\s+than|heavier\s+than|older\s+than"
                       r"|under|less\s+than|fewer\s+than|at\s+most|below|shorter\s+than|lighter\s+than|younger\s+than)\s+(?P<n>\d[\d,]*(?:\.\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b(?!\s*(?:[,.]\d|%|\s*(?:bc|ad)\b))",
                       re.IGNORECASE)
_NUMBER_RE = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w.]*\d)|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b(?!\s+of\b)", re.IGNORECASE)


def _value(number: str) -> float:
    """A number written in digits or as a word up to twelve."""
    word = number.lower()
    return float(_COUNT_WORDS[word]) if word in _COUNT_WORDS else float(number.replace(",", ""))


def _bound(ctx: Context) -> str | None:
    """"Does it stretch over 20,000 km?" - "It measures about 21,196 km.": the one number the opening
    sentence gives, compared with the question's bound."""
    if not ctx.question:
        return None
    bounds = list(_BOUND_RE.finditer(ctx.question))
    if len(bounds) != 1:
        return None
    head = _head(ctx)
    upward = not re.match(r"under|less|fewer|at\s+most|below|shorter|lighter|younger", bounds[0].group("dir"), re.IGNORECASE)
    if _NEGATION_RE.search(head):
        return None  # "not quite 20,000": the other rules read it
    said_bound = _BOUND_RE.search(head)
    if said_bound:  # "Just under 20,000 km." for "... over 20,000 km?"
        same_number = _value(said_bound.group("n")) == _value(bounds[0].group("n"))
        said_up = not re.match(r"under|less|fewer|at\s+most|below|shorter|lighter|younger", said_bound.group("dir"), re.IGNORECASE)
        return ("yes" if said_up == upward else "no") if same_number else None
    limit = _value(bounds[0].group("n"))
    said = {_value(n) for n in _NUMBER_RE.findall(head)}
    said = {v for v in said if v == limit or f"{v:g}" not in ctx.question}
    if len(said) != 1:
        return None
    value = said.pop()
    if value == limit:  # "only one" for "more than one?": a strict bound is not met, an inclusive one is
        return "yes" if re.match(r"at\s+(?:least|most)", bounds[0].group("dir"), re.IGNORECASE) else "no"
    return "yes" if (value > limit) == upward else "no"


_YEAR_RE = re.compile(r"(?<![\d,.])(1[0-9]{3}|20[0-9]{2})(?![\d,.]\d|\s*(?:km|m|kg|people|feet|ft|metres|meters|miles)\b)")


def _other_year(main: str, ctx: Context) -> str | None:
    """The question names one year and the restatement, saying what it asks of the subject, gives
    other years only: no."""
    asked = set(_YEAR_RE.findall(_asked(ctx.question or "")))
    said = set(_YEAR_RE.findall(main))
    if len(asked) != 1 or not said or said & asked or _NEGATION_RE.search(main):
        return None
    if re.search(r"\b(?:before|after|by|until|since|around|about|circa|between)\s+(?:the\s+)?(?:year\s+)?\d", _asked(ctx.question or "") + " " + main, re.IGNORECASE):
        return None  # a bound or an approximation, not a date
    predicate = ctx.question_stems - _question_subject(ctx.question)
    said_stems = content_stems(_YEAR_RE.sub(" ", main))
    verbs = [w for w in said_stems if any(w == q or len(q) >= 3 and w.startswith(q) for q in predicate)]
    if not verbs:  # "It was completed in 1889." for "Was it built in 1900?": another word for the same event
        verbs = [w for w in said_stems for group in _SAME_EVENT if any(w.startswith(g) for g in group)
                 and any(q.startswith(g) for g in group for q in predicate)]
    return "no" if verbs else None  # "ended" for "end": a short stem is a prefix of its forms


# words for one event, any of which dates it: "built" and "completed", "founded" and "established"
_SAME_EVENT = (("built", "build", "complet", "construct", "finish", "erect", "open", "inaugur"),
               ("found", "establish", "creat", "launch", "began"),
               ("writ", "wrot", "publish", "releas", "issu", "premier", "debut"),
               ("end", "finish", "conclud"), ("die", "death", "kill"), ("invent", "discover", "develop", "patent"))


_COUNT_WORDS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())}
_COUNT_RE = re.compile(r"\b(?:\d+(?:\.\d+)?|" + "|".join(_COUNT_WORDS) + r")\b(?=\s+[a-z]|\s*[\u00b0%])", re.IGNORECASE)


def _counts(text: str) -> set[float]:
    return {float(_COUNT_WORDS.get(m.group(0).lower(), m.group(0)) if m.group(0).lower() in _COUNT_WORDS else m.group(0))
            for m in _COUNT_RE.finditer(text)}


_ASKS_KIND_RE = re.compile(r"^\W*(?:is|are|was|were)\s+(?:\w+\s+){1,4}?(?:a|an)\s+(?:[a-z]+\s+)?([a-z]+)\W*$", re.IGNORECASE)
_SAYS_KIND_RE = re.compile(r"\b(?:(?:is|was|'s)\s+(?:actually\s+|really\s+|in\s+fact\s+|[a-z]+ally\s+|(?:now\s+)?(?:classified|considered|regarded|classed|categorized|known)\s+as\s+)?(?:a|an)|(?:are|were|'re)(?:\s+(?:actually|really|in\s+fact))?(?:\s+a\s+kind\s+of)?)\s+((?:(?!(?:of|in|on|at|made|that|which|who|with|from|for|and|or|but)\b)[\w-]+\s*){1,4})",
                           re.IGNORECASE)


def _other_kind(main: str, question: str) -> bool:
    """"Is Africa a country?" - "Africa is a continent ...": the restatement calls it another kind of thing."""
    asked = _ASKS_KIND_RE.match(_asked(question)) or _ASKS_KINDS_RE.match(_asked(question))
    said = _SAYS_KIND_RE.search(main)
    if not asked or not said or re.search(r"\bkind\s+of|\btype\s+of|\bform\s+of|\bsort\s+of", main, re.IGNORECASE):
        return False
    kind = _noun_stems(asked.group(1))
    said_words = re.findall(r"[A-Za-z]+", said.group(1))
    return not any(_noun_stems(w) & kind for w in said_words)  # "a G-type main-sequence star" names a star


def _noun_stems(word: str) -> set[str]:
    """The stems of a noun in the singular and as written ("mammals" -> {"mammal", "mamm"}): a plural and
    its singular can stem apart."""
    low = word.lower()
    return {stem(low), stem(low[:-1])} if low.endswith("s") and len(low) > 3 else {stem(low)}


# the plural form: "Are sharks mammals?" (a plural noun, not an adjective such as "poisonous")
_ASKS_KINDS_RE = re.compile(r"^\W*(?:are|were)\s+(?:the\s+|all\s+)?[a-z]+\s+([a-z]{3,}s(?<!ous)(?<!ss)(?<!less)(?<!us)(?<!is))\W*$", re.IGNORECASE)




def _prefixed_opposite(main: str, question: str) -> bool:
    """The restatement uses the question's word with a negative prefix, or without the prefix the question
    has: "illegal" for "Is it legal ...?", "safe" for "Is it unsafe ...?"."""
    asked = {w for w in re.findall(r"[a-z]+", _asked(question).lower()) if len(w) >= 4}
    said = set(re.findall(r"[a-z]+", main.lower()))
    for w in asked - said:
        if any(p + w in said for p in ("un", "in", "il", "im", "ir", "non", "dis")):
            return True
    return False


_ASKS_COMPARED_RE = re.compile(r"^\W*(?:is|are|was|were|does|do)\s+(?:the\s+)?([A-Za-z][\w-]*)(?:\s+[\w-]+){0,3}?\s+(\w+er|more\s+\w+)\s+than\s+(?:the\s+)?([A-Za-z][\w-]*)",
                               re.IGNORECASE)


def _compared(text: str, question: str) -> str | None:
    """"Is A longer than B?": the output names B (not A) as the longer one -> no; A -> yes."""
    m = _ASKS_COMPARED_RE.match(_asked(question))
    if not m:
        return None
    a, comparative, b = stem(m.group(1)), m.group(2).lower(), stem(m.group(3))
    fraction = re.search(rf"\b{re.escape(m.group(1))}\b[^.;]*?\b(?:is|are|was|has)\s+(?:only\s+|about\s+|roughly\s+|around\s+)?"
                         r"(?:(half|a\s+third|a\s+quarter|a\s+fraction|one[-\s]\w+)|(twice|double|triple|\w+\s+times))\b", text, re.IGNORECASE)
    if fraction and comparative in ("bigger", "larger", "heavier", "longer", "taller", "older", "wider", "higher", "deeper", "faster"):
        return "no" if fraction.group(1) else "yes"  # "Mars is about half the diameter of Earth." for "Is Mars bigger than Earth?"
    head = first_part(text)[0] if len(first_part(text)[0].split()) > 3 else text
    for said in re.finditer(rf"\b{re.escape(comparative)}\b(?!\s+than)", head, re.IGNORECASE):
        before = re.findall(r"[A-Za-z][\w-]*", head[:said.start()])[-4:]  # "the Nile as longer", "the Nile is longer"
        if _NEGATION_RE.search(" ".join(before)):
            return None
        named = [stem(w) for w in before if stem(w) in (a, b)]
        if named:
            return "no" if named[-1] == b else "yes"
    return None


def _other_count(main: str, question: str) -> bool:
    """The question counts something ("six legs") and the restatement gives another count of it ("eight legs")."""
    if re.search(r"\b(?:than|least|most|over|under|up\s+to|about|around|nearly|almost|approximately)\s+(?:\S+\s+)?(?:\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b)", question, re.IGNORECASE):
        return False  # a bound ("more than 7 times"), not a count
    asked = _counts(question)
    said = _counts(main)
    asked_pairs, said_pairs = _counted(question), _counted(main)
    nouns = {n for _, n in asked_pairs} & {n for _, n in said_pairs}
    if nouns:  # "one stomach with four compartments" for "four stomachs?": the count of the asked thing
        return not any(pair in said_pairs for pair in asked_pairs if pair[1] in nouns)
    return bool(asked and said and not asked & said)


_COUNTED_RE = re.compile(r"\b(\d+(?:\.\d+)?|" + "|".join(_COUNT_WORDS) + r")\s+([a-z]{3,})(?:\s+([a-z]{3,}))?", re.IGNORECASE)


def _counted(text: str) -> set[tuple[float, str]]:
    """The counts in ``text`` with the stem of the noun each counts ("four stomachs" -> (4, "stomach"))."""
    found = set()
    for m in _COUNTED_RE.finditer(text):
        n = float(_COUNT_WORDS.get(m.group(1).lower(), m.group(1)) if m.group(1).lower() in _COUNT_WORDS else m.group(1))
        found |= {(n, stem(w)) for w in m.group(2, 3) if w}  # the noun, or the noun after an adjective ("eight long legs")
    return found


@lru_cache(maxsize=4096)
def _asked(question: str) -> str:
    """The question alone: its last line with a question mark, without a "Question:" label or the
    instruction after it ("Is the Moon a planet? Answer yes or no." -> "Is the Moon a planet?")."""
    lines = [line for line in question.split("\n") if "?" in line]
    asked = re.sub(r"^\W*(?:question|q)\s*:\s*", "", lines[-1] if lines else question, flags=re.IGNORECASE)
    return re.sub(r"\?\s*(?:please\s+)?(?:answer|reply|respond|say)\b[^?]*$", "?", asked, flags=re.IGNORECASE).strip()


def _subject_of(question: str) -> str | None:
    """The stem of the question's first content word after its auxiliary ("Is sound faster ...?" -> "sound")."""
    m = re.match(r"^\W*(?:is|are|was|were|does|do|did|can|could|will|would|has|have|had|should)\s+(?:the\s+|a\s+|an\s+)?([A-Za-z][\w-]*)",
                 _asked(question), re.IGNORECASE)
    return stem(m.group(1)) if m else None


_NAME_RUN_RE = re.compile(r"(?<![\w'])[A-Z][a-z][\w'-]*(?:\s+[A-Z][a-z][\w'-]*)*")


def _other_name(main: str, ctx: Context) -> bool:
    """The clause names someone or something the question does not, in place of the name the question asks about."""
    if re.match(r"\W*(?:it|they|he|she)\b", main, re.IGNORECASE):
        return False  # "It fell on 9 November 1989": the pronoun stands for the question's subject
    question = re.sub(r"^\W*\w+\s+", "", _asked(ctx.question or ""))  # without its auxiliary ("Is", "Did")
    asked = _NAME_RUN_RE.match(re.sub(r"^(?:the|a|an)\s+", "", question, flags=re.IGNORECASE))
    if not asked:
        return False  # the question's subject is not a name
    words = {stem(w) for w in re.findall(r"[A-Za-z]+", main)}
    if any(stem(w) in words for w in asked.group(0).split()):
        return False  # the subject is there: the clause speaks of it
    return any(not any(stem(w) in ctx.question_stems for w in n.split()) and n.split()[0].lower() not in _NOT_SUBJECTS
               and n.split()[0].lower() not in STOPWORDS and not n.lower().endswith("ly")  # "Roughly four fifths ...": no name
               for n in _NAME_RUN_RE.findall(main))


_NOT_SUBJECTS = frozenset("the it this that there they he she we you its their his her yes no well so".split())


def _without(main: str, ctx: Context) -> bool:
    """A "-less" word whose root is a word of the question ("legless" for "Do snakes have legs?")."""
    for m in re.finditer(r"\b([a-z]{2,})less\b", main, re.IGNORECASE):
        root = m.group(1).lower()
        if any(q[:2] == root[:2] and (q.startswith(root[:3]) or root.startswith(q[:3]) or len(q) <= 4)
               for q in ctx.question_stems if len(q) >= 3):
            return True
    return False


RULES: tuple[Rule, ...] = _markers.cascade(
    MARKERS, lambda: RULES, _correction, before=(Rule("courtesy", "answer_first", _courtesy),),
    also=(Rule("both_verdicts", "abstain", _both_verdicts),), stated=(
    Rule("no_idiom", "idiom", _no_idiom),
    Rule("closing", "self_correction", _closing),
    Rule("closing_hedge", "abstain", _closing_hedge),
    Rule("split_verdict", "abstain", _commitment.split_verdict),
    Rule("contradicted", "abstain", _contradicted),  # before the bare verdict is read
    _markers.rule(MARKERS, "first", "first_word"),
    Rule("foreign_verdict", "other_language", _foreign_verdict),
    Rule("tf_letter", "verdict", _tf_letter),
    ), prose=(
    Rule("either_or", "abstain", _either_or),
    Rule("not_all", "verdict", _not_all),
    Rule("myth_question", "verdict", _myth_question),
    Rule("verdict", "verdict", _verdict),
    Rule("reported", "verdict", _reported),
    _markers.rule(MARKERS, "concluding"),
    Rule("table", "table", _table),
    _markers.rule(MARKERS, "last", "last_word"),
    Rule("contrast_not", "negation", _contrast_not),
    Rule("other_is_more", "negation", _other_is_more),
    Rule("other_place", "negation", _other_place),
    Rule("other_rank", "negation", _other_rank),
    Rule("subject_elliptic", "answer_inside_sentence", _subject_elliptic),
    Rule("share_for_most", "answer_inside_sentence", _share_for_most),
    Rule("bound", "answer_inside_sentence", _bound),
    Rule("one_side", "abstain", _commitment.one_side_of_a_comparison),
    Rule("restatement", "answer_inside_sentence", _restatement),
    Rule("debunked", "negation", _debunked),
))
