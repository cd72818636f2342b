"""Whether an output commits to an answer: the reading every answer kind shares.

A careful reader asks first whether the model said anything at all. Three questions, each answered
the same way for numbers, options, yes/no and short text:

- **Did it decline?** An apology that opens a refusal ("I'm sorry, but I can't predict ...") is no
  self-correction; a note that the model cannot look something up, followed by what it knew "as of
  its last update", is an answer all the same (but not when it was asked to foresee the future).
- **Did it leave two candidates open?** "B, D", "Casablanca or Rabat - I always mix these up", "It's
  disputed", "the answer is yes and no", an answer slot that holds "I'm not sure": no answer. A pick
  after the candidates ("B or C. Probably B.") is the answer; a doubt about precision ("I don't
  remember the exact decimal") only qualifies the figure stated.
- **Did it take something back?** After a correction the answer restated first ("Actually, no - it's
  in France. Lyon is ...") is the answer, not the explanation after it, and a conclusion "so it was
  not a leap year" is a verdict.

- **Did it answer the question asked?** A base model that opens with the next few-shot question, a
  date for "who" or "where", "Kazakhstan's largest city is Almaty" for its capital, a past state for
  a question about the present, a year given as a date for "how tall", one side of a comparison:
  no answer to this question, whatever it answers.

And an output cut off before it reached a conclusion ("..., so", "- A) Quicksort: O(n^2) when the
pivot") answers nothing, whatever numbers and letters its working shows; nor do two candidates
("B, D", "Six or seven, depending on the model"), a range ("usually between 10 and 22"), or opposite
verdicts from two points of view ("Botanically no; culinarily yes").

Every kind's cascade (``_markers.cascade``) runs :func:`stage` once, and the tentative pick last; a kind
wraps a reading rule with the others (``on_question``, ``number_on_question``). The text-level tests the reading context itself
needs (``hedged``, ``non_answer``, ``answers_despite_refusal``, ``apology_for_not_answering``, ...)
live in :mod:`gengap.extract._base` beside :class:`~gengap.extract._base.Context`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache

from gengap.extract._base import ABSTAIN, STRONG_MARK_RE, Context, Rule, compiled, content_stems, non_answer, sentences, stem
from gengap.extract._cascade import run_cascade
from gengap.extract._text_span import after_foreign_unsure, foreign_no_answer, foreign_two_candidates


def marked_non_answer(ctx: Context) -> str | None:
    """An answer slot that holds no answer ("Answer: I'm not sure", "so the answer is yes and no"):
    unextracted, whatever else the output says (a base model's next few-shot pair is not its answer)."""
    if "nswer" not in ctx.text and "NSWER" not in ctx.text:
        return None  # a cheap test first: the slots that hold a non-answer are labelled "answer"
    marks = ctx.strong_marks
    if not marks:
        return None
    tail = ctx.text[marks[-1].end():]
    line = tail.split("\n", 1)[0].strip() or tail.strip().split("\n", 1)[0].strip()
    first = re.split(r"(?<=[.!?;])\s|\s-\s", line, maxsplit=1)[0]
    return ABSTAIN if non_answer(first) else None


# two or more candidates and nothing else as the opening statement: "B, D", "B or C.", "Casablanca or Rabat -"
_LEAD = (r"^\W*(?:(?:hmm+|um+|uh+|well|so|ok(?:ay)?)\W+)*(?:(?:i\s+think|i\s+believe|i'?d\s+say|maybe|perhaps|probably|possibly)\s+)?"
         r"(?:(?:it'?s|it\s+is|that'?s|either)\s+)?")
_PICK_RE = re.compile(r"^\W*(?:but\s+|so\s+)?(?:probably|likely|most\s+likely|i'?d\s+(?:say|go\s+with|guess|pick|lean\s+(?:towards?|to))"
                      r"|so|therefore|thus|hence|(?:that|which)\s+makes\s+it|(?:the\s+)?(?:final\s+)?answer(?:\s+(?:is|would\s+be))?\s*:?"
                      r"|i'?ll\s+(?:go\s+with|say|pick)|leaning(?:\s+towards?)?|my\s+(?:best\s+)?(?:guess|pick|bet)(?:\s+(?:is|would\s+be))?"
                      r"|i\s+think(?:\s+it'?s)?|i\s+believe(?:\s+it'?s)?|if\s+i\s+had\s+to\s+(?:pick|choose|guess)(?:\s+one)?)\b\W*", re.IGNORECASE)


def _candidates_re(item: str, joiners: str) -> re.Pattern[str]:
    return re.compile(_LEAD + rf"(?:{item})(?:\s*(?:{joiners})\s*(?:{item}))+\s*(?:[.?!;\u2026]+|\s-\s|,\s*(?=i\b|but\b|depending\b|it\s+depends|based\s+on)|$)",
                      re.IGNORECASE)


# what may stand before one of the candidates named again: "No - only B", "definitely Paris", "Paris, of course"
_NAMED_AGAIN_RE = re.compile(r"^\W*(?:(?:no|nope|yes|well|hmm+|so|only|just|definitely|certainly|clearly|surely|of\s+course|obviously|actually|it'?s|it\s+is)\b\W*)+",
                             re.IGNORECASE)
_LETTERS_RE = _candidates_re(r"\(?[A-E]\)?", r",|/|\bor\b|\band\b|&")
_NUMBER_WORDS = r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a\s+dozen|a\s+hundred"
_NUMBERS_RE = _candidates_re(rf"[$\u20ac\u00a3]?\d[\d,.]*\s*%?|{_NUMBER_WORDS}", r"\bor\b")  # not "/": "1/4" is one number
_NAMES_RE = _candidates_re(r"(?:the\s+)?(?-i:[A-Z])[\w'.-]*(?:\s+(?-i:[A-Z])[\w'.-]*){0,3}|(?:the\s+)?(?-i:[a-z])[\w'-]*(?:\s+(?-i:[a-z])[\w'-]*)?",
                           r"\bor\b|/")  # names, or common nouns with their article: "The liver or the pancreas."
_CANDIDATE_RES = {"choice": _LETTERS_RE, "number": _NUMBERS_RE, "text": _NAMES_RE}
_CANDIDATE_ITEM_RES = {"choice": re.compile(r"\b[A-E]\b"), "number": re.compile(rf"\d[\d,.]*|\b(?:{_NUMBER_WORDS})\b", re.IGNORECASE),
                       "text": re.compile(r"(?-i:[A-Z])[\w'.-]*(?:\s+(?-i:[A-Z])[\w'.-]*){0,3}")}
_JOINER_CUE_RES = {"choice": re.compile(r",|/| or| OR| and|&"), "number": re.compile(r" or| OR"), "text": re.compile(r" or| OR|/")}


def open_candidates(ctx: Context) -> tuple[bool, str | None]:
    """Whether the output opens with two or more candidates and nothing else ("B, D", "Casablanca or
    Rabat - I always mix these up"), and the pick a later sentence makes among them ("Probably B,
    since ..." -> "B, since ..."), None when it makes none.

    >>> open_candidates(Context("Hmm, B or C. Probably B, since Jane Eyre is by Bronte.", "choice"))
    (True, 'B, since Jane Eyre is by Bronte.')
    >>> open_candidates(Context("B, D", "choice")), open_candidates(Context("B, because D is a fish.", "choice"))
    ((True, None), (False, None))
    """
    pattern = _CANDIDATE_RES.get(ctx.kind)
    if pattern is None or len(ctx.text) > 600 or not _JOINER_CUE_RES[ctx.kind].search(ctx.text):
        return False, None
    m = pattern.match(ctx.text)
    if m is None:
        return False, None
    named = {w.lower() for w in _CANDIDATE_ITEM_RES[ctx.kind].findall(m.group(0))}
    for n, part in enumerate(sentences(ctx.text[m.end():])):
        if n == 0:  # "Paris or Lyon? Paris, of course.", "Eight or ten? Eight.", "B, D? No - only B": one of them named again
            again = _NAMED_AGAIN_RE.match(part)
            rest = part[again.end():] if again else part
            first = re.match(r"[\w'.-]+(?:\s+(?-i:[A-Z])[\w'.-]*){0,3}", rest)
            head = first.group(0).strip(".'-").lower() if first else ""
            clause = re.split(r"[;,:]\s|\s-\s", rest, maxsplit=1)[0].strip(" .!")
            if head and head in named and clause.lower() == head:  # the candidate alone, not a remark on it
                return True, clause
        for clause in re.split(r"[,;]\s+", part):  # "Either C or D, but I'd lean towards C."
            pick = _PICK_RE.match(clause)
            if pick and clause[pick.end():].strip():
                return True, part[part.index(clause) + pick.end():].strip()
    return True, None


# two opposite verdicts, each under its own point of view: "Botanically no, it's a fruit; culinarily yes."
_VIEW = (r"(?:[a-z]{4,}ly|in\s+(?:the\s+)?[a-z]+\s+(?:sense|terms)|in\s+(?:law|theory|practice|principle|the\s+kitchen|cooking|science)"
         r"|in\s+(?:some|other|many|most)\s+(?:ways|respects|cases|senses)|in\s+others|for\s+(?:some|others))")
_SPLIT_VERDICT_RE = re.compile(rf"\b{_VIEW}\s*,?\s+(yes|no)\b[^.?!]*?(?:[;,.]|\bbut\b)\s*(?:but\s+|while\s+|whereas\s+)?{_VIEW}\s*,?\s+(yes|no)\b",
                               re.IGNORECASE)


def split_verdict(ctx: Context) -> str | None:
    """A cascade rule for yes/no: opposite verdicts from two points of view ("Botanically no, it's a fruit;
    culinarily yes.", "Legally yes, but morally no.") commit to neither: unextracted.

    >>> split_verdict(Context("Botanically no, it's a fruit; culinarily yes.", "yes_no")) == ABSTAIN
    True
    >>> split_verdict(Context("Technically yes, and practically yes too.", "yes_no")) is None
    True
    """
    low = ctx.text.lower()
    if "yes" not in low or "no" not in low:
        return None  # a cheap test first
    m = _SPLIT_VERDICT_RE.search(ctx.text)
    return ABSTAIN if m and m.group(1).lower() != m.group(2).lower() else None


# a tentative pick, the output's only one: "I'm not 100% sure - maybe Thimphu?", "I'm not completely sure, but A sounds right."
_TENTATIVE_RE = re.compile(r"(?:^|(?<=[.!?])\s+|\s+-\s+|,\s*(?:but\s+)?|\bbut\s+)(?:(?:maybe|perhaps|possibly|probably|my\s+(?:best\s+)?guess\s+(?:is|would\s+be)"
                           r"|i'?d\s+(?:guess|say)|i\s+(?:think|believe|guess)(?:\s+it'?s)?)\s+(?P<span>\w[^,;.?!]{0,39}?)\s*(?=\?|[.!]|$)"
                           r"|(?P<named>[^,;.?!]{1,30}?)\s+(?:sounds|seems|looks)\s+(?:right|correct|likely|plausible)\b)", re.IGNORECASE)


# one candidate offered as a question, then the doubt: "B? I'm not sure.", "Thimphu? Not certain."
_ASKED_BACK_RE = re.compile(r"^\W*(?P<span>\w[^?.!\n,;]{0,39})\?\s*(?:(?:i'?m\s+|i\s+am\s+)?not\s+(?:\w+\s+)?(?:sure|certain|positive)|i\s+think"
                            r"|i'?m\s+guessing|just\s+a\s+guess)[^?\n]*$", re.IGNORECASE)


_TENTATIVE_CUE_RE = re.compile("maybe|perhaps|possibly|probably|guess|i'd|think|believe|sounds|seems|looks")


def tentative_pick(ctx: Context) -> str | None:
    """The one tentative pick of a short output ("I'm not sure - maybe Thimphu?" -> "Thimphu"), or None
    (none, or two: "maybe Thimphu, maybe Paro" leaves it open).

    >>> tentative_pick(Context("I'm not 100% sure - maybe Thimphu?", "text")), tentative_pick(Context("Maybe Thimphu? Maybe Paro?", "text"))
    ('Thimphu', None)
    """
    if len(ctx.text) > 240:
        return None
    asked = _ASKED_BACK_RE.match(ctx.text) if "?" in ctx.text else None
    if asked:
        return asked.group("span").strip()  # "B? I'm not sure."
    if not _TENTATIVE_CUE_RE.search(ctx.text.lower()):
        return None  # a cheap test first
    found = list(_TENTATIVE_RE.finditer(ctx.text))
    if len(found) != 1 or len(ctx.sentences) > 3:
        return None
    span = (found[0].group("span") or found[0].group("named") or "").strip()
    if not span or re.search(r"\b(?:or|either|not|no)\b", span + ctx.text[found[0].end():], re.IGNORECASE):
        return None
    return span


def tentative_rule(read_pick: Callable[[Context, str], str | None]) -> Callable[[Context], str | None]:
    """A cascade rule: the one tentative pick of a short output, read with ``read_pick``."""

    def rule(ctx: Context) -> str | None:
        pick = tentative_pick(ctx)
        return read_pick(ctx, pick) if pick else None

    rule.__doc__ = tentative_pick.__doc__
    return rule


# a hedge that opens the reply and is set aside by what follows: "It's debated, but the asteroid impact is the leading explanation."
_HEDGE_THEN_BUT_RE = re.compile(r"^\W*(?:it'?s|it\s+is|this\s+is|that'?s|that\s+is)\s+(?:\w+\s+){0,2}?(?:debated|disputed|contested|unclear|uncertain|complicated"
                                r"|controversial)\b[^,.;:\n]{0,40}[,;]\s*but\s+", re.IGNORECASE)


_LEADING_RE = re.compile(r"^(?P<span>.{1,60}?)\s+(?:is|was|remains)\s+(?:still\s+)?the\s+(?:leading|most\s+widely\s+accepted|standard|accepted|usual|best|most\s+likely)\s+"
                         r"(?:explanation|theory|view|hypothesis|answer|candidate|estimate)\b", re.IGNORECASE)


def after_opening_hedge(read: Callable[[Context], str | None]) -> Callable[[Context], str | None]:
    """A cascade rule: a reply that opens with a hedge it then sets aside ("It's debated, but officially
    it's a dwarf planet.") is read, with ``read``, from what follows the "but"."""

    def rule(ctx: Context) -> str | None:
        m = _HEDGE_THEN_BUT_RE.match(ctx.text)
        if m is None:
            return None
        rest = ctx.text[m.end():]
        leading = _LEADING_RE.match(rest)  # "the asteroid impact is the leading explanation": its subject
        if leading:
            rest = leading.group("span")
        found = read(Context(rest, ctx.kind, question=ctx.question, choices=ctx.choices, disabled=ctx.disabled))
        return found if found and found != ABSTAIN and not non_answer(found) else None

    rule.__doc__ = after_opening_hedge.__doc__
    return rule


def candidates_rule(read_pick: Callable[[Context, str], str | None]) -> Callable[[Context], str | None]:
    """A cascade rule: candidates left open are unextracted, the pick among them is read with ``read_pick``."""

    def rule(ctx: Context) -> str | None:
        opened, pick = open_candidates(ctx)
        if not opened:
            return None
        found = read_pick(ctx, pick) if pick else None
        return found or ABSTAIN

    rule.__doc__ = open_candidates.__doc__
    return rule


# "None of these is correct - the capital is Canberra": every option rejected, none picked
_NONE_OF_RE = re.compile(r"^\W*(?:(?:actually|honestly|hmm+|well),?\s+)?(?:none\s+of\s+(?:these|those|the\s+(?:options|choices|answers|above))"
                         r"|neither\s+(?:of\s+(?:these|those|them)|option)|no\s+(?:option|choice|answer)\s+(?:here\s+|listed\s+|given\s+)?)"
                         r"(?:\s+(?:is|are|seems?|looks?)\s+(?:correct|right|accurate|true))?", re.IGNORECASE)


def rejects_every_option(ctx: Context) -> str | None:
    """A choice output that opens by rejecting every option ("None of these is correct - it's Canberra."),
    where no option itself says "none": unextracted."""
    if not _NONE_OF_RE.match(ctx.text) or any(re.search(r"\b(?:none|neither)\b", c, re.IGNORECASE) for c in ctx.choices or ()):
        return None
    return ABSTAIN


# ---------------------------------------------------------------------------------------- cut off
_SETUP_RE = re.compile(r"^\W*(?:(?:to\s+(?:compare|determine|decide|answer|figure\s+out|find\s+out|check|see|solve|work\s+out|evaluate)\b[^.!?\n]*?,\s*"
                       r"(?:we|i|let'?s)\b)|let'?s\s+(?:look|go|analy[sz]e|examine|consider|evaluate|check|compare|break|think|start|solve|work|figure)"
                       r"|first,?\s+(?:we|i|let'?s)\b|step\s*1\b)", re.IGNORECASE)
_CONCLUDES_RE = re.compile(r"\b(?:so|therefore|thus|hence|answer|in\s+total|which\s+means|this\s+means|that\s+means)\b", re.IGNORECASE)


def cut_before_conclusion(text: str) -> bool:
    """Whether the output stops while still working towards its answer: it opens by setting out a
    method ("Let's look at each option", "To compare ..., we need to ...", "Step 1"), ends
    mid-sentence, and no sentence before the cut concluded anything ("so", "the answer", "in total").

    >>> cut_before_conclusion("Let's look at each option:\\n\\n- A) Quicksort: O(n^2) when the pivot")
    True
    >>> cut_before_conclusion("Step 1: 3 packs of 12 is 36 pencils, so"), cut_before_conclusion("Let's solve this step by step.\\n\\n100 C")
    (True, False)
    >>> cut_before_conclusion("Let's solve it. 36 - 17 = 19, so she has 19 left. She could also give")
    False
    """
    stripped = text.rstrip()
    if not stripped or not (stripped[-1].isalpha() or stripped[-1] == ",") or not _SETUP_RE.match(stripped) or STRONG_MARK_RE.search(stripped):
        return False
    parts = sentences(stripped)
    if any(_CONCLUDES_RE.search(p) for p in parts[:-1]):
        return False
    last = parts[-1] if parts else stripped
    return len(last.split()) >= 5 and not re.search(r"\d\s*[^\s\d]{0,4}$", last)  # a clause cut off, not "100 C"


# the word an unfinished sentence stops on: an article, a joiner, a copula or an approximation still to be given
_OPEN_END_RE = re.compile(r"\s(?:(?-i:a|an)|the|that|which|who|whose|so|and|or|but|because|since|than|is|are|was|were)\s*$"
                          r"|(?:^|\s)(?:approximately|roughly|nearly|almost)\s*$|\d,\d{0,2}$", re.IGNORECASE)


def cut_mid_sentence(text: str) -> bool:
    """Whether the output stops in the middle of its only sentence, on a word that still waits for what it
    introduces ("A whale shark is a", "..., so", "Approximately") or inside a number ("508,000,0"): what it
    would have said is not there, so nothing is read.

    >>> cut_mid_sentence("A whale shark is a"), cut_mid_sentence("There are 508,000,000,0"), cut_mid_sentence("Approximately")
    (True, True, True)
    >>> cut_mid_sentence("It is 42. It is that"), cut_mid_sentence("The pancreas"), cut_mid_sentence("Yes, and")
    (False, False, False)
    """
    stripped = text.strip()
    if not stripped or re.search(r"[.!?\u3002\n:;]", stripped.rstrip(".!?\u3002")) or stripped[-1] in ".!?\u3002)]}\"'*":
        return False
    return bool(_OPEN_END_RE.search(stripped)) and not re.match(r"^\W*(?:yes|no)\b", stripped, re.IGNORECASE)


def cut_rule(ctx: Context) -> str | None:
    """A cascade rule: an output cut off before its conclusion, or in the middle of its only sentence, is
    unextracted."""
    return ABSTAIN if cut_before_conclusion(ctx.text) or cut_mid_sentence(ctx.text) else None


# ---------------------------------------------------------------------------------------- taking back
# the corrected answer restated first, after the cue: "it's in France.", "more precisely it's a customs duty"
_RESTATED_RE = re.compile(r"^\W*(?:(?:but|so|rather|instead|more\s+precisely|to\s+be\s+precise|strictly(?:\s+speaking)?|i\s+mean|of\s+course)\W+)*"
                          r"(?:it'?s|it\s+is|it\s+was|the\s+answer\s+is|the\s+(?:correct|right)\s+(?:one|answer)\s+is|i\s+meant|i\s+mean)\s+"
                          r"(?:(?:actually|really|in|at|on|from|by|called)\s+)?(?P<span>[^,;:()]{1,40}?)\W*$", re.IGNORECASE)


# a doubt settled by a confirmation: "Wait, or is it Ld? No - Pb is right."
_CONFIRMED_RE = re.compile(r"(?:^|[.?!]\s+)(?:(?:no|nope|yes)\W+)?(?P<span>[^.?!,;]{1,40}?)\s+(?:is|was)\s+(?:right|correct)\W*$", re.IGNORECASE)


def confirmed_answer(region: str) -> str | None:
    """The answer a correction ends by confirming ("or is it Ld? No - Pb is right." -> "Pb"), or None.

    >>> confirmed_answer("or is it Ld? No - Pb is right."), confirmed_answer("that is not right.")
    ('Pb', None)
    """
    m = _CONFIRMED_RE.search(region)
    if m is None:
        return None
    span = m.group("span").strip(" -")
    return span if span and len(span.split()) <= 4 and not re.match(r"(?:that|this|it|which|what|not)\b", span, re.IGNORECASE) else None


def corrects_a_detail(region: str, question_stems: frozenset[str]) -> bool:
    """Whether a correction only fixes a detail of the answer ("Toni Morrison wrote it (1987). Correction -
    it was published in 1987 and won the Pulitzer in 1988."): it opens on a pronoun standing for the answer's
    subject, says nothing of what the question asks, and the answer before it stands.

    >>> corrects_a_detail("it was published in 1987 and won the Pulitzer in 1988.", frozenset({"wrote", "belov"}))
    True
    >>> corrects_a_detail("it was Toni Morrison who wrote it.", frozenset({"wrote", "belov"}))
    False
    """
    if not re.match(r"\W*(?:it|this|that|he|she|they)\s+(?!is\b|was\b\s+(?-i:[A-Z]))\w+", region, re.IGNORECASE) or len(region.split()) < 5:
        return False
    return not content_stems(region) & question_stems and restated_answer(region) is None


# "Buzz Aldrin. No - Neil Armstrong stepped out first": a sentence opening with "No" takes back a short answer before it
_NO_AFTER_ANSWER_RE = re.compile(r"^\W*[^.!?\n]{1,40}?[.!]\s+(?:no|nope)\s*(?:[,;:!.]|\s-)\s*(?=\w)", re.IGNORECASE)


def no_after_short_answer(ctx: Context) -> str | None:
    """The text after a "No" that takes back the short answer opening the output ("Buzz Aldrin. No -
    Neil Armstrong stepped out first."), or None.

    >>> no_after_short_answer(Context("Buzz Aldrin. No - Neil Armstrong was first.", "text"))
    'Neil Armstrong was first.'
    """
    if "self_correction" in ctx.disabled or ("no" not in ctx.text and "No" not in ctx.text):
        return None
    m = _NO_AFTER_ANSWER_RE.match(ctx.text)
    return ctx.text[m.end():].strip() or None if m else None


def retracted_pick(before: str) -> str | None:
    """The pick a correction takes back, when it was marked ("I'd go with SUMIF... actually" -> "SUMIF").

    >>> retracted_pick("I'd go with SUMIF... actually "), retracted_pick("Let me think. ")
    ('SUMIF', None)
    """
    marks = list(STRONG_MARK_RE.finditer(before))
    if not marks:
        return None
    pick = re.split(r"[,;:.!?(]|\s-\s", before[marks[-1].end():], maxsplit=1)[0].strip()
    return pick if 0 < len(pick.split()) <= 4 else None


_DOUBT_RE = re.compile(r"^\W*(?:(?:or|hmm+|wait)\W+)*[^.!?\n]{0,60}\?\s*(?:(?:no|nope|yes)\b\W*)?", re.IGNORECASE)


def without_doubt(region: str) -> str:
    """A correction's text without the doubt that opens it ("or is it Mars? No, Venus: ..." -> "Venus: ...").

    >>> without_doubt("or is it Mars? No, Venus: it's about 95% of Earth's size."), without_doubt("Venus is closest.")
    ("Venus: it's about 95% of Earth's size.", 'Venus is closest.')
    """
    m = _DOUBT_RE.match(region)
    return region[m.end():] if m and region[m.end():].strip() else region


def restated_answer(part: str) -> str | None:
    """The span a correction restates as its answer ("it's in France." -> "France"), None when the part
    is no such restatement.

    >>> restated_answer("it's in France."), restated_answer("more precisely it's a customs duty"), restated_answer("Lyon is big.")
    ('France', 'a customs duty', None)
    """
    m = _RESTATED_RE.match(part)
    if m is None:
        return None
    span = m.group("span").strip()
    return span if span and len(span.split()) <= 4 and not re.match(r"(?:not|no|wrong|incorrect|right|correct|true|false)\b", span, re.IGNORECASE) else None


_SO_VERDICT_RE = re.compile(r"\b(?:so|therefore|thus|hence|which\s+means|meaning)\s*,?\s+(?P<subject>(?:[\w'-]+\s+){1,4}?)"
                            r"(?P<aux>is|was|are|were|does|did|do|can|could|has|had|have|will|would)(?P<neg>\s*(?:not|n't)\b)?", re.IGNORECASE)
_PRONOUN_RE = re.compile(r"(?:it|he|she|they|this|that)\s*$", re.IGNORECASE)


def concluded_verdict(region: str, question: str | None = None) -> str | None:
    """The yes/no a correction concludes with ("..., so it was not a leap year." -> "no"): its subject a
    pronoun or the question's own ("so 1 is not prime" for "Is 1 a prime number?"); None otherwise.

    >>> concluded_verdict("it's also divisible by 100, so it was not a leap year."), concluded_verdict("so it is a fruit.")
    ('no', 'yes')
    >>> concluded_verdict("by definition, so 1 is not prime.", "Is 1 a prime number?"), concluded_verdict("so prices are not high.", "Is 1 prime?")
    ('no', None)
    """
    found = None
    for found in _SO_VERDICT_RE.finditer(region):  # noqa: B007 - the last conclusion counts
        pass
    if found is None:
        return None
    subject = found.group("subject")
    if not _PRONOUN_RE.match(subject.strip()):
        words = {w.lower() for w in re.findall(r"[\w'-]+", subject)} - {"the", "a", "an"}
        asked = {w.lower() for w in re.findall(r"[\w'-]+", question or "")}
        if not words or not words <= asked:
            return None
    return "no" if found.group("neg") else "yes"


# the model's description of itself, never an answer: "As an AI language model, I ..."
_SELF_RE = re.compile(r"\bas\s+an?\s+(?:ai|artificial\s+intelligence|large\s+language\s+model|language\s+model|assistant)\b[^,.;]*", re.IGNORECASE)
_SUPERLATIVE_RE = re.compile(r"\b(?:\w{3,}est|(?:\w+-)+\w*(?:est|most))\b", re.IGNORECASE)
_NOT_SUPERLATIVE = frozenset({"interest", "forest", "test", "best", "rest", "west", "east", "honest", "modest", "guest", "request", "harvest",
                              "contest", "protest", "chest", "quest", "nest", "suggest", "digest", "almost", "earnest", "latest",
                              "closest", "nearest", "newest", "oldest"})
_HEAD_NOUN_RE = re.compile(r"^\W*(?:what|which)\s+(?:is|was|are|were)\s+(?:the|a|an)\s+(?P<noun>[a-z]+)(?:\s+(?:of|in|for)\b|\s*\?)", re.IGNORECASE)
_WHO_RE = re.compile(r"^\W*(?:who|whom)\b", re.IGNORECASE)
_WHERE_RE = re.compile(r"^\W*(?:where|in\s+(?:which|what)\s+(?:city|country|town|place|region|state|continent))\b", re.IGNORECASE)
_PLACE_OR_TIME_BEFORE_RE = re.compile(r"\b(?:in|at|on|during|since|from|until|near)\s+(?:the\s+)?$", re.IGNORECASE)
_CLASSIFIED_BEFORE_RE = re.compile(r"\b(?:is|was|are|were)\s+(?:a|an)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)
_MONTH = r"(?:january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?"
_DATE_RE = re.compile(rf"(?:\d{{1,2}}(?:st|nd|rd|th)?\s+)?{_MONTH}(?:\s+\d{{1,2}}(?:st|nd|rd|th)?,?)?\s+\d{{3,4}}|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?"
                      r"|(?:(?:early|late|mid)[-\s]?)?\d{3,4}s?|\d+(?:st|nd|rd|th)\s+century", re.IGNORECASE)
# superlatives of one measure in other words: the "highest" peak is the "tallest" mountain
def _superlatives(text: str) -> set[str]:
    if "est" not in text and "most" not in text:
        return set()  # a cheap test first
    return {w.lower() for w in _SUPERLATIVE_RE.findall(text) if w.lower() not in _NOT_SUPERLATIVE}


def answers_another_question(ctx: Context, span: str) -> bool:
    """Whether the sentence a span was read from answers another question than the one asked: a date
    or a place for "who" ("'The Starry Night' was painted in June 1889."); the model's description of
    itself ("As an AI language model, ..."); a sentence that ranks by another measure than the question
    ("The heart is the hardest-working organ" for the largest organ, "Kazakhstan's largest city is
    Almaty" for its capital).

    >>> answers_another_question(Context("It was painted in June 1889.", "text", question="Who painted it?"), "June 1889")
    True
    >>> answers_another_question(Context("Kazakhstan's largest city is Almaty.", "text", question="What is the capital of Kazakhstan?"), "Almaty")
    True
    >>> answers_another_question(Context("The capital, Astana, is its second-largest city.", "text", question="What is the capital of Kazakhstan?"), "Astana")
    False
    """
    if not ctx.question or not span:
        return False
    where = next((s for s in ctx.sentences if span in s), None)
    if where is None:
        return False
    before = where[:where.index(span)]
    if "s a" in where and any(span in m.group(0) for m in _SELF_RE.finditer(where)):
        return True
    if _WHO_RE.match(ctx.question) and (_DATE_RE.fullmatch(span.strip()) or _PLACE_OR_TIME_BEFORE_RE.search(before)):
        return True
    if _WHERE_RE.match(ctx.question) and _DATE_RE.fullmatch(span.strip()):
        return True  # "Napoleon was born in 1769." for where he was born
    head = _HEAD_NOUN_RE.match(ctx.question)
    missing_head = head is not None and stem(head.group("noun")) not in content_stems(where)
    if missing_head and _CLASSIFIED_BEFORE_RE.search(before):
        return True  # "Bhutan is a small kingdom in the Himalayas." for its capital: what it is, not its capital
    extra = _superlatives(where) - _superlatives(ctx.question)
    if not extra:
        return False
    missing_rank = _superlatives(ctx.question) - _superlatives(where)
    return bool(missing_rank) or missing_head


_PAST_RE = re.compile(r"\b(?:was|were)\b[^()]*\b(?:until|till)\b|\bused\s+to\s+be\b|\bno\s+longer\b|\bwas\s+(?:formerly|previously|once)\b", re.IGNORECASE)
_PRESENT_QUESTION_RE = re.compile(r"^\W*(?:what|which|who|where)\s+(?:is|are)\b", re.IGNORECASE)
# the present stated after the past: "since then it has been Naypyidaw", "it is now Astana", "today it's Chennai"
_NOW_RE = re.compile(r"^\W*(?:(?:since\s+then|now|today|nowadays|currently)\s*,?\s+)?(?:it|the\s+\w+)\s+(?:has\s+been|is(?:\s+now)?|'s(?:\s+now)?)\s+"
                     r"(?:(?:now|today)\s+)?(?P<span>(?-i:[A-Z])[\w'-]*(?:\s+(?-i:[A-Z])[\w'-]*){0,3})\W*$", re.IGNORECASE)


def _past_state(ctx: Context, span: str) -> str | None:
    """When a question about the present is answered with ``span`` in a clause about the past ("Yangon was
    the capital until 2006"): the text after that clause ("" when nothing follows); otherwise None."""
    if not ctx.question or not _PRESENT_QUESTION_RE.match(ctx.question):
        return None
    for m in re.finditer(r"[^;.!?\n]+", ctx.text):
        clause = m.group(0)
        if span in clause:
            return ctx.text[m.end():].lstrip(";.!? \n") if _PAST_RE.search(clause) else None
    return None


def on_question(read: Callable[[Context], str | None]) -> Callable[[Context], str | None]:
    """A span-reading rule, kept only where the sentence it reads answers the question asked (see
    :func:`answers_another_question`); otherwise the output answers nothing asked: unextracted."""

    def rule(ctx: Context) -> str | None:
        found = read(ctx)
        if not found or found == ABSTAIN:
            return found
        past = _past_state(ctx, found)
        if past is not None:  # "Yangon was the capital until 2006; since then it has been Naypyidaw."
            now = _NOW_RE.match(past)
            return now.group("span").strip() if now else ABSTAIN
        return ABSTAIN if answers_another_question(ctx, found) else found

    rule.__doc__ = read.__doc__
    rule.__name__ = getattr(read, "__name__", "rule")
    return rule


# a year stated as a date ("completed in 1889"), and a number with a unit of something else than a year
_YEAR_BEFORE_RE = re.compile(r"\b(?:in|since|from|by|until|of|around|circa|c\.)\s+(?:the\s+year\s+)?$", re.IGNORECASE)
_ASKS_YEAR_RE = re.compile(r"\b(?:what|which)\s+year\b|^\W*when\b|\byear\b", re.IGNORECASE)
_ASKS_QUANTITY_RE = re.compile(r"\bhow\s+(?:many|much|tall|high|long|far|big|heavy|old|deep|wide|fast)\b", re.IGNORECASE)
_UNIT_AFTER_RE = r"\s*(?:%|percent|(?:metres?|meters?|m|km|kg|g|cm|mm|miles?|feet|ft|people|persons|passengers|tons?|tonnes?|litres?|liters?)\b)"


@lru_cache(maxsize=4096)
def _asks_year_or_quantity(question: str) -> tuple[bool, bool]:
    """Whether the question asks for a year, and for a quantity ("how many", "how tall"): keyed by the question."""
    return _ASKS_YEAR_RE.search(question) is not None, _ASKS_QUANTITY_RE.search(question) is not None


def number_answers_another_question(ctx: Context, value: str) -> bool:
    """Whether the number read answers another question than the one asked: a year stated as a date
    ("completed in 1889") for "how tall" or "how many", or a measure with a unit ("269 metres") for
    "what year".

    >>> number_answers_another_question(Context("It was completed in 1889.", "number", question="How tall is it?"), "1889")
    True
    >>> number_answers_another_question(Context("It is 330 m tall, completed in 1889.", "number", question="How tall is it?"), "330")
    False
    """
    if not ctx.question or not value.isdigit():
        return False
    asks_year, asks_quantity = _asks_year_or_quantity(ctx.question)
    if not asks_year and asks_quantity:
        if not re.fullmatch(r"1\d{3}|20\d\d", value):
            return False
        seen = list(re.finditer(rf"(?<![\d,.]){value}(?!\d|[.,]\d)", ctx.text)) if value in ctx.text else []
        return bool(seen) and all(_YEAR_BEFORE_RE.search(ctx.text, max(0, m.start() - 20), m.start()) for m in seen)
    if asks_year and not asks_quantity:
        at = re.search(rf"(?<![\d,.]){re.escape(value)}(?![\d.])", plain) if value in (plain := ctx.text.replace(",", "")) else None
        return at is not None and re.match(_UNIT_AFTER_RE, plain[at.end():], re.IGNORECASE) is not None
    return False


def _kept_unless(read: Callable[[Context], str | None], drop: Callable[[Context, str], bool]) -> Callable[[Context], str | None]:
    """``read``, with a reading ``drop`` rejects turned into "unextracted"."""

    def rule(ctx: Context) -> str | None:
        found = read(ctx)
        if found and found != ABSTAIN and drop(ctx, found):
            return ABSTAIN
        return found

    rule.__doc__ = read.__doc__
    return rule


def number_on_question(read: Callable[[Context], str | None]) -> Callable[[Context], str | None]:
    """A number-reading rule, kept only where the number answers the question asked (see
    :func:`number_answers_another_question`); otherwise unextracted."""
    return _kept_unless(read, number_answers_another_question)


# an option named as an example, not picked: "Many painters, from Monet to Cezanne, ...", "such as Monet"
_EXAMPLE_BEFORE_RE = re.compile(r"\b(?:from|such\s+as|like|including|e\.g\.|for\s+example|for\s+instance|as\s+well\s+as)\s+(?:the\s+)?$", re.IGNORECASE)
# a stance that singles an option out: "It was Van Gogh", "that's the skin", "the answer is", "I'd go with"
_SINGLED_OUT_BEFORE_RE = re.compile(r"(?:\b(?:it|that|this)(?:'s|\s+is|\s+was|\s+would\s+be)|\banswer(?:\s+is)?|\bcorrect(?:\s+one)?(?:\s+is)?|\bgo\s+with|\bpick|\bchoose"
                                    r"|\bi\s+think(?:\s+it'?s)?|\bprobably|\bdefinitely)\s*:?\s*(?:the\s+)?$", re.IGNORECASE)


def option_only_mentioned(ctx: Context, letter: str) -> bool:
    """Whether the option read by its text is only mentioned as an example, not picked ("Many painters,
    from Monet to Cezanne, worked in France.", "painters such as Monet").

    >>> c = Context("Many painters, from Monet to Cezanne, worked in France.", "choice", choices=["Monet", "Van Gogh"])
    >>> option_only_mentioned(c, "A"), option_only_mentioned(Context("It was Van Gogh, not Monet.", "choice", choices=["Monet", "Van Gogh"]), "B")
    (True, False)
    """
    if not ctx.choices or len(letter) != 1 or compiled(rf"(?<![\w'-]){letter}(?![\w'-])").search(ctx.text):
        return False  # the letter itself is written: not a reading by the option's text
    index = ord(letter) - ord("A")
    if not 0 <= index < len(ctx.choices):
        return False
    low, option = ctx.text.lower(), ctx.choices[index].lower()
    spots = [m.start() for m in compiled(rf"(?<!\w){re.escape(option)}(?!\w)").finditer(low)] if option in low else []
    if not spots:
        return False
    if any(_SINGLED_OUT_BEFORE_RE.search(low, max(0, at - 30), at) or not re.search(r"\w", low[:at]) for at in spots):
        return False  # "It was Van Gogh", or the option opens the output
    return all(_EXAMPLE_BEFORE_RE.search(low, max(0, at - 20), at) for at in spots)


def choice_on_question(read: Callable[[Context], str | None]) -> Callable[[Context], str | None]:
    """A choice-reading rule, kept only where the option it reads by its text is picked, not only
    mentioned (see :func:`option_only_mentioned`); otherwise unextracted."""
    return _kept_unless(read, option_only_mentioned)


# a comparison asked ("Is the Danube longer than the Rhine?") and a reply about one side only, comparing nothing
_COMPARISON_Q_RE = re.compile(r"^\W*(?:is|are|was|were|does|do|did|has|have)\s+(?P<x>.+?)\s+(?:\w+er|more\s+\w+|less\s+\w+)\s+than\s+(?P<y>.+?)\W*$",
                              re.IGNORECASE)
_COMPARES_RE = re.compile(r"\b(?:\w{3,}er|more|less|fewer|than|same|equal|twice|half|times|vs\.?|versus|compared|whereas|while|but)\b", re.IGNORECASE)


def one_side_of_a_comparison(ctx: Context) -> str | None:
    """A cascade rule for yes/no: a reply that speaks of only one side of the comparison asked and compares
    nothing ("The Rhine flows through six countries." for "Is the Danube longer than the Rhine?"):
    unextracted. "It is longer.", "Africa is bigger." compare, and are left to the rules after this one."""
    if not ctx.question or " than " not in ctx.question:
        return None
    m = _COMPARISON_Q_RE.match(ctx.question)
    if m is None or _COMPARES_RE.search(ctx.text):
        return None
    said = content_stems(ctx.text)
    sides = [content_stems(m.group("x")), content_stems(m.group("y"))]
    if any(side and not side & said for side in sides) and not re.match(r"\W*(?:it|they|he|she)\b", ctx.text, re.IGNORECASE):
        return ABSTAIN
    return None


# ---------------------------------------------------------------------------------------- ranges
_RANGE_IN_RE = re.compile(r"(?:\bbetween\s+|\bfrom\s+)?[-$\u20ac\u00a3]?(\d[\d,.]*)\s*%?\s*(?:-|\u2013|to|and)\s*"
                          r"(?:(?:about|around|roughly|approximately|nearly|some|over)\s+)?[-$\u20ac\u00a3]?(\d[\d,.]*)", re.IGNORECASE)
_RANGE_CUE_RE = re.compile(r"\b(?:varies|vary|varying|ranges?|anywhere|somewhere|between|roughly|about|around|approximately|estimated)\b", re.IGNORECASE)


_RANGE_FIRST_RE = re.compile(r"^\W*[$\u20ac\u00a3]?\d[\d,.]*\s*%?\s*(?:-|\u2013|to)\s*[$\u20ac\u00a3]?\d")


def range_only(ctx: Context) -> str | None:
    """A cascade rule for numbers: an output whose only figures are the two ends of a range ("It varies a
    lot, usually between 10 and 22.") commits to no one number: unextracted."""
    if not (_RANGE_FIRST_RE.match(ctx.text) or _RANGE_CUE_RE.search(ctx.text)) or ctx.strong_marks:
        return None
    ranges = list(_RANGE_IN_RE.finditer(ctx.text))
    if len(ranges) != 1:
        return None
    low, high = ranges[0].group(1), ranges[0].group(2)
    if all(re.fullmatch(r"1\d{3}|20\d\d", n) for n in (low, high)):
        return None  # "between 1969 and 1972": a span of years, not a range of counts
    rest = ctx.text[:ranges[0].start()] + " " + ctx.text[ranges[0].end():]
    return None if re.search(r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|dozen|hundred|thousand)\b", rest, re.IGNORECASE) else ABSTAIN


__all__ = ["after_opening_hedge", "candidates_rule", "choice_on_question", "concluded_verdict",
           "contrast_rule", "echo_rule", "list_rule", "rejected_first_rule", "cut_before_conclusion", "cut_mid_sentence", "cut_rule", "foreign_unsure_rule", "confirmed_answer", "marked_non_answer",
           "no_after_short_answer", "number_answers_another_question", "number_on_question",
           "one_side_of_a_comparison", "option_only_mentioned", "on_question", "open_candidates", "range_only",
           "rejects_every_option", "restated_answer", "retracted_pick", "split_verdict", "tentative_pick",
           "tentative_rule", "without_doubt"]


_FOREIGN_CUE_RE = re.compile(r"(?=[adfijklnpqstv])"  # what a match can open with, looked at first: a cheap test (tests/test_extract_speed.py keeps it complete)
                             r"\b(?:no|je|ich|das|não|non|keine|aucune|ni|lo|leider|pardon|scusa|desculp\w*|disculpa|quiz\w*|tal|vielleicht|talvez|forse)\b",
                             re.IGNORECASE)


def foreign_unsure_rule(rules: Callable[[], Sequence[Rule]]) -> Callable[[Context], str | None]:
    """A rule for every kind: "No lo sé.", "Désolé, je ne connais pas la réponse.", "No estoy seguro.": no answer (never
    the verdict "no"); "No estoy seguro, pero creo que es Lima.", "Ich bin mir nicht sicher, aber ich glaube ja.": what
    follows the doubt is read by the kind's ``rules()``; "quizás X o Y": two candidates, none chosen. In German, French,
    Spanish, Portuguese and Italian (the English forms are read by the refusal, about-answering and hedge rules)."""
    def foreign_unsure(ctx: Context) -> str | None:
        if ctx.text.isascii() and not _FOREIGN_CUE_RE.search(ctx.text[:60]):
            return None  # a cheap test first
        if foreign_no_answer(sentences(ctx.text)):
            return ABSTAIN
        rest = after_foreign_unsure(ctx.text)
        if rest is None:
            return ABSTAIN if foreign_two_candidates(ctx.text) else None
        if foreign_two_candidates(rest):
            return ABSTAIN
        found = run_cascade(rules(), Context(rest, ctx.kind, question=ctx.question, choices=ctx.choices, disabled=ctx.disabled),
                            disabled=ctx.disabled)
        return found.value if found.value is not None else ABSTAIN
    return foreign_unsure


# ---------------------------------------------------------------------------------------- contrasts
# two clauses set against each other: "X is P; Y is Q", "X ..., but Y ..."
_CONTRAST_RE = re.compile(r";\s+|,?\s+but\s+", re.IGNORECASE)
_CONTRAST_CUE_RE = re.compile(r";|\bbut\b", re.IGNORECASE)
_IT_IS_RE = re.compile(r"\bit(?:'s|\u2019s|\s+is|\s+was)\b", re.IGNORECASE)


def contrast_rule(rules: Callable[[], Sequence[Rule]]) -> Callable[[Context], str | None]:
    """A rule for the kinds that name an answer (a yes/no verdict has its own contrast rules): an output of one sentence whose two clauses are set against each other
    ("X is P; Y is Q", "X ..., but Y ...") and read different answers, where the answer the other readers take
    comes from the clause that shares fewer of the question's words ("Ottawa is the capital; the largest city
    is Toronto." for the largest city), is not read: that clause answers another question."""
    def contrast(ctx: Context) -> str | None:
        if ctx.kind == "yes_no" or not ctx.question or len(ctx.text) > 240 or not _CONTRAST_CUE_RE.search(ctx.text) \
                or len(sentences(ctx.text)) > 1:
            return None
        clauses = [c.strip(" .") for c in _CONTRAST_RE.split(ctx.text.strip()) if c.strip(" .")]
        if len(clauses) != 2:
            return None
        off = ctx.disabled | {"contrast"}

        def read(text: str) -> str | None:
            return run_cascade(rules(), Context(text, ctx.kind, question=ctx.question, choices=ctx.choices, disabled=off), disabled=off).value
        readings = [read(c) for c in clauses]
        if None in readings or readings[0] == readings[1]:
            return None
        whole = read(ctx.text)
        if whole not in readings:
            return None
        asked = content_stems(ctx.question)
        shared = [len(asked & content_stems(c)) for c in clauses]
        taken = readings.index(whole)
        if shared[taken] >= shared[1 - taken] or _IT_IS_RE.search(clauses[taken]) or _CONCLUDES_RE.search(ctx.text):
            return None  # "..., but today it's Tokyo": "it" is the question's subject; "..., so 72": a conclusion
        return ABSTAIN
    return contrast


# ---------------------------------------------------------------------------------------- a candidate rejected first
_NOT_FIRST_RE = re.compile(r"^\W*not\s+(?:option\s+)?[^\s.,;!?]+(?:\s*[-\u2013\u2014,;:.!]\s*(?:but\s+)?|\s+but\s+)"
                           r"|^\W*[^\s?]+\?\s*no\s*[-\u2013\u2014,;:.!]\s*", re.IGNORECASE)  # "Not 6 - ...", "1991? No - ..."
_FIRST_OPTION_WRONG_RE = re.compile(r"^\W*(?:the\s+)?(?:first|second|third|fourth|last)\s+(?:option|choice|answer)\s+is\s+(?:incorrect|wrong|false)\W+",
                                    re.IGNORECASE)


_WHY_NOT_RE = re.compile(r"^\W*(?:that'?s|that\s+is|which\s+is|it'?s\s+(?:a|an|the)\b)[^.!?]*[.!?]\s*", re.IGNORECASE)


def rejected_first_rule(rules: Callable[[], Sequence[Rule]]) -> Callable[[Context], str | None]:
    """A rule for the kinds that name an answer: an output that opens by rejecting a candidate ("Not 6 - that's a
    hexagon. 8.", "The first option is incorrect. ...") never reads it; what follows is read by ``rules()``, and
    where it reads nothing, nothing is read."""
    def rejected_first(ctx: Context) -> str | None:
        if ctx.kind == "yes_no":
            return None  # "Not really.": a verdict
        m = _NOT_FIRST_RE.match(ctx.text) or _FIRST_OPTION_WRONG_RE.match(ctx.text)
        if m is None:
            return None
        def read(text: str) -> str | None:
            return run_cascade(rules(), Context(text, ctx.kind, question=ctx.question, choices=ctx.choices, disabled=ctx.disabled),
                               disabled=ctx.disabled).value if text.strip() else None
        rest = _WHY_NOT_RE.sub("", ctx.text[m.end():], count=1)  # "that's a hexagon.": why it is rejected
        found = read(rest)
        if found is None:
            return ABSTAIN
        rejected = read(re.sub(r"^\W*not\s+|\?\s*no\b.*$", "", m.group(0), flags=re.IGNORECASE | re.DOTALL).rstrip(" -\u2013\u2014,;:.!"))
        return ABSTAIN if found == rejected else found  # the rejected candidate named again is still no pick
    return rejected_first


# ---------------------------------------------------------------------------------------- lists
_ITEM = r"[^\s,;.!?:]+(?:\s+[^\s,;.!?:]+){0,2}"
_LIST_RE = re.compile(rf"^\W*(?P<first>{_ITEM}),\s+{_ITEM}(?:,\s+{_ITEM})*,?\s+and\s+{_ITEM}\s+(?:are|were)\b", re.IGNORECASE)


_NUMBER_LIST_RE = re.compile(r"(?<![\d.,])(?P<first>\d+),\s+\d+(?:,\s+\d+)*,?\s+and\s+\d+(?!\d|[.,]\d)")


def list_rule(rules: Callable[[], Sequence[Rule]]) -> Callable[[Context], str | None]:
    """A rule for numbers and text: an answer read as the first item of a list of three or more that opens the
    output as its subject ("Sheep, goats, and deer are among ...") or a number read as the first of a list of
    three or more ("7 is divisible by 2, 3 and 5.") is one of several named, none picked: unextracted."""
    def listed(ctx: Context) -> str | None:
        if ctx.kind not in ("number", "text") or len(ctx.text) > 240 or ", " not in ctx.text or " and " not in ctx.text:
            return None
        lists = list((_NUMBER_LIST_RE if ctx.kind == "number" else _LIST_RE).finditer(ctx.text))
        if not lists:
            return None
        off = ctx.disabled | {"list"}
        value = run_cascade(rules(), Context(ctx.text, ctx.kind, question=ctx.question, choices=ctx.choices, disabled=off), disabled=off).value
        if value is None:
            return None
        for m in lists:
            first = m.group("first").lower()
            if first == value.lower() or first.endswith(" " + value.lower()):
                return ABSTAIN
        return None
    return listed


# ---------------------------------------------------------------------------------------- echoes
_OPERATION_RE = re.compile(r"\b(?:times|plus|minus|divided|multiplied|percent|cubed|squared|half|double|sum|product)\b|[%\u00d7*+/=^]",
                           re.IGNORECASE)
_INSTRUCTION_RE = re.compile(r"^\W*(?:the\s+)?answer\s+(?:in|with)\s+(?:a\s+few|one|a\s+single|two|three)\s+words?\b[^\n]*$"
                             r"|^[^\n]*\?\s*$", re.IGNORECASE | re.MULTILINE)
_FIGURE_RE = re.compile(r"\d+(?:\.\d+)?")
_UNWORKED_RE = re.compile(r"\W*\d[\d,.]*\s*(?:times|plus|minus|divided\s+by|multiplied\s+by|\u00d7|\*|\+)\s*\d[\d,.]*\W*", re.IGNORECASE)


def _echoes(line: str, question: str) -> bool:
    """Whether ``line`` is the prompt's instruction or the question said again."""
    if not line.rstrip().endswith("?"):
        return True
    said = content_stems(line)
    return len(said) >= 2 and said <= content_stems(question)


def echo_rule(rules: Callable[[], Sequence[Rule]]) -> Callable[[Context], str | None]:
    """A rule for numbers and text: an output made only of the question and the prompt's instruction ("What animal
    says moo?\\n\\nAnswer in a few words.") names nothing; an answer that is only the question's own words
    ("Drummer" for "What instrument does a drummer play?") or, for a sum, one of the question's own figures left
    in an operation the output does not work out ("12 times 6" for "What is 6 times 6 plus 4?", "50%" for "What is
    50 percent of 90?") echoes the question: unextracted."""
    def echo(ctx: Context) -> str | None:
        question = ctx.question
        if ctx.kind not in ("number", "text") or not question:
            return None
        if _INSTRUCTION_RE.search(ctx.raw) and not _INSTRUCTION_RE.sub(lambda m: "" if _echoes(m.group(0), question) else m.group(0),
                                                                          ctx.raw).strip(" \n."):
            return ABSTAIN
        if ctx.kind == "number" and _UNWORKED_RE.fullmatch(ctx.text):
            return ABSTAIN  # "12 times 6": an operation left without its result
        if ctx.kind == "number" and not (_OPERATION_RE.search(question) and _OPERATION_RE.search(ctx.text)):
            return None
        if ctx.kind == "text":  # a short reply only: a sentence names more than the question's words
            said = {stem(w) for w in re.findall(r"[\w'-]+", ctx.text) if w.lower() not in ("the", "a", "an")} if len(ctx.text.split()) <= 4 else set()
            return ABSTAIN if said and said <= content_stems(question) and not re.search(r"\bor\b", question, re.IGNORECASE) else None
        off = ctx.disabled | {"echo_of_question"}
        value = run_cascade(rules(), Context(ctx.text, ctx.kind, question=ctx.question, choices=ctx.choices, disabled=off), disabled=off).value
        if value is None or value == ABSTAIN:
            return None
        return ABSTAIN if value in _FIGURE_RE.findall(question) and "=" not in ctx.text and re.search(
            rf"(?<![\d.]){re.escape(value)}\s*(?:%|percent|times|plus|minus|divided|cubed|squared)", ctx.text, re.IGNORECASE) else None
    return echo


# ---------------------------------------------------------------------------------------- the stage
def refusal_rule(ctx: Context) -> str | None:
    """A cascade rule: an output that declines or cannot answer (``phrases/en.toml``, ``refusal``) is unextracted."""
    return ABSTAIN if ctx.refusal else None


def hedge_rule(ctx: Context) -> str | None:
    """A hedge (``Context.hedged``): unextracted."""
    return ABSTAIN if ctx.hedged else None


def stage(rules: Callable[[], Sequence[Rule]], *, hedge: Callable[[Context], str | None] = hedge_rule,
          unfinished: Callable[[Context], str | None] | None = None, pick: Callable[[Context, str], str | None] | None = None,
          also: Sequence[Rule] = ()) -> tuple[Rule, ...]:
    """The commitment stage, the same for every kind and run once in its cascade, after the answer a format or
    a marker states and before the readers of answers in prose: a doubt in another language (what follows it
    is read by ``rules()``), a refusal, candidates left open (``pick`` reads one candidate), a hedge, the
    kind's own abstentions (``also``), an unfinished ramble and an output cut off before its conclusion.

    >>> [r.name for r in stage(lambda: ())]
    ['foreign_unsure', 'refusal', 'rejected_first', 'hedge', 'cut_off', 'contrast', 'list', 'echo_of_question']
    """
    return (Rule("foreign_unsure", "abstain", foreign_unsure_rule(rules)),
            Rule("refusal", "abstain", refusal_rule),
            Rule("rejected_first", "self_correction", rejected_first_rule(rules)),
            *((Rule("candidates", "abstain", candidates_rule(pick)),) if pick is not None else ()),
            Rule("hedge", "abstain", hedge),
            *also,
            *((Rule("unfinished", "abstain", unfinished),) if unfinished is not None else ()),
            Rule("cut_off", "abstain", cut_rule),
            Rule("contrast", "contrast", contrast_rule(rules)),
            Rule("list", "abstain", list_rule(rules)),
            Rule("echo_of_question", "abstain", echo_rule(rules)))
