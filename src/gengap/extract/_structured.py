"""Outputs in a machine-style wrapper: unwrap the structure, then read the answer part with the kind's own rules.

A careful reader of a structured output first finds the part the format designates as the answer,
and only then reads it:

- reasoning blocks (``<think>...</think>``, ``<reasoning>...</reasoning>``, a reasoning model's analysis
  channel) are the way to the answer, not the answer: what follows them (the final channel) is read; a
  block cut off before any answer is unextracted;
- an answer tag (``<answer>C</answer>``) or an answer field of a JSON object (``{"answer": 75}``, nested
  ``{"response": {"selected_option": "D"}}``, or the field or element the question names: ``{"capital":
  "Ottawa"}``, ``{"author": ...}`` for "Who wrote ...?") holds the answer; an empty or ``"unknown"``
  field, a list of several answers or a tool call commits to none; a retraction right after it
  ("Wait, ...") replaces it;
- a base model that goes on to write the next few-shot item (``<question>...``, ``{"question": ...}``)
  answered before it;
- when the question asks what code prints or returns, the program's output in a transcript
  (``>>> expr`` then its value, ``$ cmd`` then what it prints), in a comment on the quoted code or in a
  block introduced as the output is the answer, not the code; when it asks for a command, the command
  as written is;
- a list marks its answer: the one option line ticked or in bold, the bold line labelled with what the
  question asks (a number), the record line whose label names it (a short text); notes after it do not count.

Each of these hands the answer part to the kind's cascade (a part's own structure is unwrapped once
more). All of it is one rule family, ``structured``, so a benchmark can switch it off.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any, NamedTuple

from gengap.extract._base import (
    _END_TOKEN_RE,
    ABSTAIN,
    STOPWORDS,
    Context,
    Extraction,
    Rule,
    own_answer,
    sentences,
    stem,
    words,
)

FAMILY = "structured"

# ---------------------------------------------------------------------------------------- reasoning blocks and tags
_REASONING_TAGS = r"think|thinking|thought|thoughts|reasoning|reason|scratchpad|analysis|rationale|explanation|working|steps"
_REASONING_CLOSE_RE = re.compile(rf"</(?:{_REASONING_TAGS})\s*>", re.IGNORECASE)
_REASONING_OPEN_RE = re.compile(rf"^\s*<(?:{_REASONING_TAGS})\s*>", re.IGNORECASE)
_ANSWER_TAGS = r"answer|final_?answer|final|response|result|solution|output"
_ANSWER_TAG_RE = re.compile(rf"<({_ANSWER_TAGS})\s*>(.*?)(?:</\1\s*>|$)", re.IGNORECASE | re.DOTALL)
_ANSWER_CLOSE_RE = re.compile(rf"</(?:{_ANSWER_TAGS})\s*>", re.IGNORECASE)
_ANSWER_OPEN_RE = re.compile(rf"<(?:{_ANSWER_TAGS})\s*>", re.IGNORECASE)
# a few-shot prompt in tags or JSON lines that a base model goes on writing
_NEXT_ITEM_TAG_RE = re.compile(r"<(?:question|q|problem|input|prompt|user|query|passage)\s*>", re.IGNORECASE)
_TOOL_KEYS = frozenset({"arguments", "tool", "tool_calls", "function_call", "tool_name", "parameters"})
_ITEM_KEYS = frozenset({"question", "q", "problem", "input", "prompt", "query", "passage", "statement", "claim", "sentence", "premise",
                        "hypothesis", "context"})


_REASONING_TAG_RE = re.compile(rf"</?(?:{_REASONING_TAGS})\s*>", re.IGNORECASE)
_REASONING_BLOCK_RE = re.compile(rf"<({_REASONING_TAGS})\s*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)


def _without_reasoning(text: str) -> str | None:
    """``text`` without its reasoning blocks (and without all before a closing tag whose opening the
    prompt wrote); None when it has none."""
    if not _REASONING_CLOSE_RE.search(text):
        return None
    rest = _REASONING_BLOCK_RE.sub("\n", text)
    last = None
    for last in _REASONING_CLOSE_RE.finditer(rest):  # noqa: B007 - the loop keeps the last match
        pass
    return rest[last.end():] if last else rest


def _tagged(text: str) -> str | None:
    """The content of the answer tag (the last one, before any next few-shot item), or of a stray closing
    tag that a continuing base model writes first ("Oxygen</answer>...")."""
    item = _NEXT_ITEM_TAG_RE.search(text)
    if item and text[:item.start()].strip():
        text = text[:item.start()]
    close = _ANSWER_CLOSE_RE.search(text)
    if close and not _ANSWER_OPEN_RE.search(text, 0, close.start()):
        return text[:close.start()]  # the prompt ended on "<answer>": the model's answer, then its closing tag
    tags = list(_ANSWER_TAG_RE.finditer(text))
    found = [m for m in tags if m.group(2).strip()]  # "<answer></answer>" is a format named, not filled ...
    if not found:
        return "" if tags and not _ANSWER_TAG_RE.sub("", text).strip() else None  # ... unless it is all there is
    return found[-1].group(2)


_ELEMENT_RE = re.compile(r"<([A-Za-z][\w-]{0,30})\s*>([^<>]{1,200})</\1\s*>")


def _named_element(text: str, kind: str, question: str | None) -> str | None:
    """In an output of XML elements, the one element the question names: "<capital>Canberra</capital>"."""
    elements = {m.group(1): m.group(2).strip() for m in _ELEMENT_RE.finditer(text)}
    if not elements or _ELEMENT_RE.sub("", text).strip():
        return None  # no elements, or elements inside prose: the prose answers
    found, value = _named_field(elements, kind, question)
    return str(value) if found else None


# ---------------------------------------------------------------------------------------- JSON
_DECODER = json.JSONDecoder()
_CAMEL_RE = re.compile(r"(?<=[a-z])(?=[A-Z])")
# answer fields, strongest first; "result", "response", "output", "data" are often envelopes around one
_ANSWER_KEYS = ("answer", "ans", "respuesta", "reponse", "r\u00e9ponse", "antwort", "resposta", "risposta", "final", "choice", "option",
                "selected", "selection", "pick", "letter", "verdict", "decision", "prediction", "label", "conclusion", "result", "value",
                "solution", "response", "reply", "output", "correct")
_NOT_ANSWER_KEYS = frozenset({"reasoning", "reason", "explanation", "rationale", "confidence", "note", "notes", "steps", "working",
                              "work", "thoughts", "thought", "analysis", "unit", "units", "source", "sources", "error", "comment",
                              "justification", "evidence", "caveat", "caveats", "score", "probability_estimate", "certainty"})
_ENVELOPES = frozenset({"data", "result", "response", "output", "results", "answer", "final", "payload", "content"})
#: field values that commit to no answer
_EMPTY_VALUES = frozenset({"", "unknown", "n/a", "null", "nil", "none given", "undefined", "not available", "not applicable",
                           "unclear", "undetermined", "indeterminate", "cannot be determined", "not determinable", "?", "-", "--",
                           "no answer", "no idea", "not sure", "unsure", "idk", "i don't know", "don't know", "cannot say", "can't say"})


def _balanced(text: str, start: int) -> int | None:
    """Where the braces opened at ``start`` close (past the closing brace), strings skipped; None if never."""
    depth, i, quote = 0, start, ""
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _literal(text: str, start: int) -> tuple[Any, int] | None:
    """A Python dict literal as models write JSON ({'answer': 'B', 'ok': True}), where strict JSON fails."""
    if not text[start + 1:start + 40].lstrip().startswith("'"):
        return None  # a dict literal opens on a quoted key: "{'answer': ..."
    end = _balanced(text, start)
    if end is None:
        return None
    try:
        return ast.literal_eval(text[start:end]), end
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def _objects(text: str) -> list[tuple[int, int, Any]]:
    """The JSON objects in ``text`` (outermost only), with where they start and end."""
    found, i, tries = [], text.find("{"), 0
    while i >= 0:
        try:
            obj, end = _DECODER.raw_decode(text, i)
        except RecursionError:
            break  # nested too deep to be an answer
        except ValueError:  # not JSON: perhaps a Python dict literal
            tries += 1
            if tries > 200:
                break  # (a bounded search: braces by the thousand are no answer)
            lit = _literal(text, i) if tries <= 20 else None
            if lit is None:
                i = text.find("{", i + 1)
                continue
            obj, end = lit
        if isinstance(obj, dict):
            found.append((i, end, obj))
        i = text.find("{", end)
    return found


def _key_tokens(key: str) -> list[str]:
    return [t for t in re.split(r"[_\-\s.]+", _CAMEL_RE.sub("_", str(key)).lower()) if t]


def _key_rank(key: str) -> int | None:
    """How strongly a field name says "this is the answer" (0 strongest), None when it does not."""
    tokens = _key_tokens(key)
    if not tokens or "_".join(tokens) in _NOT_ANSWER_KEYS or tokens[-1] in _NOT_ANSWER_KEYS:
        return None
    for rank, name in enumerate(_ANSWER_KEYS):
        if name in tokens or (name == "answer" and any(t.startswith("answer") for t in tokens)):
            return rank
    return None


def _answer_field(obj: dict, depth: int = 0, kind: str | None = None) -> tuple[bool, Any]:
    """(found, value) of the answer field of ``obj``, looking into envelopes ("response", "data") and
    into an answer field that is itself an object ({"answer": {"value": 3.5, "unit": "h"}}, or its one
    field of the kind asked: {"result": {"amount": 12.5, "currency": "EUR"}})."""
    ranked = sorted((r, i, k) for i, k in enumerate(obj) if (r := _key_rank(k)) is not None)
    for _, _, key in ranked:
        value = obj[key]
        if isinstance(value, dict):
            if depth < 3:
                found, inner = _answer_field(value, depth + 1, kind)
                if found:
                    return True, inner
                fitting = [v for _, v in _leaves(value) if kind is not None and _fits(v, kind)]
                if len(fitting) == 1:
                    return True, fitting[0]
            continue
        return True, value
    if depth < 3:
        for key, value in obj.items():
            if isinstance(value, dict) and _key_tokens(key) and _key_tokens(key)[-1] in _ENVELOPES:
                found, inner = _answer_field(value, depth + 1, kind)
                if found:
                    return True, inner
    return False, None


def _leaves(obj: Any, prefix: str = "", depth: int = 0) -> list[tuple[str, Any]]:
    """The scalar fields of ``obj`` with their (dotted) names."""
    out: list[tuple[str, Any]] = []
    if isinstance(obj, dict) and depth < 3:
        for k, v in obj.items():
            out += _leaves(v, f"{prefix} {k}", depth + 1)
    elif not isinstance(obj, (dict, list)):
        out.append((prefix, obj))
    return out


@lru_cache(maxsize=4096)
def asked_stems(question: str) -> frozenset[str]:
    """The content stems of the part of ``question`` that asks (its last sentence), not of the facts it gives first.

    >>> sorted(asked_stems("A salary is $52,000 with a bonus. What is her total pay?"))
    ['pay', 'total']
    """
    parts = [p for p in re.split(r"(?<=[.?!])\s+|\n+", question.strip()) if p.strip()]
    asks = [p for p in parts if "?" in p]
    part = asks[-1] if asks else (parts[-1] if parts else question)
    found = {stem(w) for w in words(part) if w.lower() not in STOPWORDS and not w[0].isdigit()}
    low = part.lower()
    for cue, roles in _ROLES:  # the field that names the role asked about: "Who wrote it?" - "Author"
        if re.search(cue, low):
            found.update(stem(r) for r in roles)
    return frozenset(found)


_ROLES = (
    (r"\bwr(?:ote|itten|ites?)\b", ("author", "writer")), (r"\bpaint(?:ed|s)\b", ("painter", "artist")),
    (r"\bdirect(?:ed|s)\b", ("director",)), (r"\bcompos(?:ed|es)\b", ("composer",)), (r"\binvent(?:ed|s)\b", ("inventor",)),
    (r"\bdiscover(?:ed|s)\b", ("discoverer",)), (r"\bfound(?:ed|s)\b", ("founder",)), (r"\bdesign(?:ed|s)\b", ("designer", "architect")),
    (r"\b(?:sang|sung|sings)\b", ("singer", "artist", "performer")), (r"^\W*when\b|\bwhat\s+year\b", ("date", "year")),
    (r"^\W*where\b", ("location", "place")), (r"\bhow\s+many\b", ("count", "total", "number")),
    (r"^\W*who(?:m|se)?\b", ("name", "person")), (r"\bhow\s+long\b", ("time", "duration", "length")),
    (r"\bhow\s+much\b", ("cost", "price", "amount", "total")), (r"\bhow\s+far\b", ("distance",)), (r"\bhow\s+old\b", ("age",)),
    (r"\bhow\s+(?:tall|high)\b", ("height",)), (r"\bhow\s+fast\b", ("speed",)), (r"\bhow\s+(?:heavy|much\s+does\b)", ("weight", "mass")),
)


def _named_field(obj: dict, kind: str, question: str | None) -> tuple[bool, Any]:
    """The one field whose name the question asks for ({"capital": "Ottawa"} for "What is the capital of
    Canada?"; {"is_prime": false} for "Is 91 prime?"), among fields whose value fits the kind."""
    if not question:
        return False, None
    asked = asked_stems(question)
    best: list[tuple[tuple[int, int], Any]] = []
    for name, value in _leaves(obj):
        if not _fits(value, kind):
            continue
        stems = {stem(t) for t in _key_tokens(name) if t not in STOPWORDS}
        overlap = len(stems & asked)
        if overlap:  # most words of the question, then fewest words besides: "moons" before "largest_moon_km"
            best.append(((overlap, -len(stems - asked)), value))
    if not best:
        return False, None
    top = max(o for o, _ in best)
    picked = [v for o, v in best if o == top]
    return (True, picked[0]) if len(picked) == 1 else (False, None)


def _fits(value: Any, kind: str) -> bool:
    if value is None:
        return False
    if kind == "yes_no":
        return isinstance(value, bool) or (isinstance(value, str) and bool(re.match(r"\W*(?:yes|no|true|false)\b", value, re.IGNORECASE)))
    if kind == "number":
        return not isinstance(value, bool) and (isinstance(value, (int, float)) or (isinstance(value, str) and bool(re.search(r"\d", value))))
    return isinstance(value, str) and 0 < len(value.split()) <= 8


def _as_part(value: Any, kind: str) -> str | None:
    """A field's value as text for the kind's reader; ABSTAIN when it commits to no answer."""
    if isinstance(value, list):
        distinct = []
        for v in value:
            if v not in distinct:
                distinct.append(v)
        if len(distinct) != 1:
            return ABSTAIN  # several answers, or none: no pick
        value = distinct[0]
    if value is None or isinstance(value, (dict, list)):
        return ABSTAIN
    if isinstance(value, bool):
        return ("Yes" if value else "No") if kind == "yes_no" else ("True" if value else "False")
    text = str(value).strip()
    return ABSTAIN if _says_nothing(text, kind) else text


def _says_nothing(text: str, kind: str) -> bool:
    """Whether an answer field or tag holds only a placeholder for no answer ("unknown", "N/A", "no answer")."""
    low = " ".join(text.lower().strip(" .!*_`\"'").split())
    return low in _EMPTY_VALUES or (kind == "text" and low == "none")


_FENCE_WORD_RE = re.compile(r"```\w*|~~~\w*")


_WRAPPER_TALK_RE = re.compile(r"^(?:[^.!?\n]*:|(?:here|sure|certainly|of\s+course|below|i\s+hope|hope|let\s+me\s+know|feel\s+free|happy\s+to)\b[^\n]*)$",
                              re.IGNORECASE)


def _wrapper_talk(outside: str) -> bool:
    """Whether the text around the JSON only presents it ("Here is the JSON:", "Hope this helps!"): it states nothing."""
    lines = [ln.strip() for ln in _FENCE_WORD_RE.sub(" ", outside).split("\n") if ln.strip()]
    return all(_WRAPPER_TALK_RE.match(ln) for ln in lines)


_MENTION = "\x00mention:"  # a part to read without taking JSON it names for the output's own


def _own_object(text: str, start: int, end: int) -> bool:
    """Whether the object at ``start:end`` is the output's own structure, not one named inside a sentence
    that goes on after it ('The JSON {"answer": 42} is a running joke')."""
    before = text[text.rfind("\n", 0, start) + 1:start].strip(" \t`")
    after = text[end:].split("\n", 1)[0].strip(" \t`")
    return not before or not re.match(r"[\w(]", after) or before.endswith(":")


def _json_part(text: str, kind: str, question: str | None) -> tuple[str | None, bool] | None:
    """The answer part of an output holding JSON: (part, explicit). None when no object has an answer."""
    if "{" not in text:
        return None
    objs = _objects(text)
    if not objs:
        return None
    if any({str(k).lower() for k in o[2]} & _TOOL_KEYS for o in objs) and not any(_answer_field(o[2])[0] for o in objs):
        return ABSTAIN, True  # a call to a tool ({"name": "calculator", "arguments": ...}): no answer yet
    items = [o for o in objs if {str(k).lower() for k in o[2]} & _ITEM_KEYS]
    before = text[:items[0][0]] if items else ""
    if before.rstrip().endswith("}") and "{" not in before:
        return before, False  # it closes the object its prompt opened, then writes the next few-shot items
    if items and items[0][0] == objs[0][0]:
        objs = objs[:1]  # the model's own item; the ones after it are the next few-shot items it invents
    own = [o for o in objs if _own_object(text, o[0], o[1])]
    if not own:  # JSON named inside a sentence ('The JSON {"answer": 42} is a joke'): the prose answers, the JSON is an example
        prose = text
        for start, end, _ in reversed(objs):
            prose = prose[:start] + "it" + prose[end:]
        return _MENTION + prose, True
    for _, _, obj in reversed(own):
        found, value = _answer_field(obj, kind=kind)
        if found:
            return _as_part(value, kind), True
    outside = text
    for start, end, _ in reversed(objs):
        outside = outside[:start] + outside[end:]
    prose = re.sub(r"```\w*|~~~\w*", "", outside).strip()
    if len(words(outside)) > 25:
        return prose, False  # JSON inside prose: the prose answers, the JSON is data
    for _, _, obj in reversed(objs):
        found, value = _named_field(obj, kind, question)
        if found:
            return _as_part(value, kind), True
    if _wrapper_talk(outside):
        given = f" {' '.join(words(question.lower()))} " if question else ""
        fitting = [v for _, _, obj in objs for _, v in _leaves(obj)
                   if _fits(v, kind) and f" {' '.join(words(str(v).lower()))} " not in given]  # not what the question says
        if len(fitting) == 1 and kind != "choice":
            return _as_part(fitting[0], kind), True  # the one field of the kind asked: {"author": "Harper Lee", "born": 1926}
        return ABSTAIN, True  # nothing but JSON, and no field of it is the answer
    return prose, False


# ---------------------------------------------------------------------------------------- code and transcripts
_PROMPT_RE = re.compile(r"^[ \t]*(?:>>>|\$(?=[ \t]+[^\s$])(?![^\n]*\$[ \t]*$)|In\s*\[\d*\]:|julia>|irb(?:\([^)]*\))?[:\d]*>|sqlite>|mysql>|postgres=#|PS\s[^>\n]*>|scala>|ghci>|Prelude>)[ \t]?(.*)$")
_NODE_PROMPT_RE = re.compile(r"^[ \t]*>(?!>)[ \t]+(.*)$")
_CONTINUED_RE = re.compile(r"^[ \t]*\.\.\.(?:[ \t]|$)|^[ \t]*\.\.\.:")
_OUT_PREFIX_RE = re.compile(r"^[ \t]*(?:Out\s*\[\d*\]:|=>|#=>|//\s*=>|\[\d+\]\s)[ \t]*")
_FENCE_RE = re.compile(r"^[ \t]*(?:```|~~~)[\w+#.-]*[ \t]*$", re.MULTILINE)
# the question asks what code does: "What does X print?", "What is the output of ...", "evaluate to"
_ASKS_OUTPUT_RE = re.compile(r"\b(?:print|prints|printed|output|outputs|return|returns|returned|evaluate|evaluates|display|displays|echo|echoes"
                             r"|yield|yields|produce|produces|result\s+of|value\s+of|log|logs)\b", re.IGNORECASE)
# the question is about code: it quotes some, or names a language, a program or its output
_CODE_QUESTION_RE = re.compile(r"`|\w\(|\n|==|\b(?:python|javascript|js|typescript|bash|zsh|powershell|sql|excel|spreadsheet|git"
                               r"|html|css|regex|latex|markdown|yaml|json|xml|vim|emacs|docker|kubectl|npm|linux|unix"
                               r"|c\+\+|code|snippet|repl|command|interpreter)\b", re.IGNORECASE)
# words that name code without doubt ("go", "rust", "ruby", "shell", "java", "program" name other things too)
_CODE_WORDS = frozenset("""python javascript js typescript bash zsh powershell sql excel spreadsheet git html css regex latex markdown
yaml json xml vim emacs docker kubectl npm linux unix code snippet repl command interpreter""".split())
_CODE_MARKS = ("`", "(", "\n", "==", "c++")


@lru_cache(maxsize=16384)
def _about_code(question: str) -> bool:
    """Whether the question is about code: it quotes some, or names a language, a program or its output
    (keyed by the question: many outputs answer each)."""
    if any(m in question for m in _CODE_MARKS):
        return _CODE_QUESTION_RE.search(question) is not None
    return not _CODE_WORDS.isdisjoint(w.strip(".,;:?!'\"").lower() for w in question.split())


_EXAMPLE_RE = re.compile(r"\b(?:e\.\s?g|i\.\s?e|for\s+(?:example|instance)|such\s+as|like|as\s+in)\b", re.IGNORECASE)
_ASKS_COMMAND_RE = re.compile(r"\b(?:which|what)\s+(?:(?!(?:does|do|did|is|are|was|will|would|can|should)\b)\w+\s+){0,3}?(?:command|function|formula|method|keyword|query|statement|flag|option|shortcut|cmdlet|tag|element|attribute|operator|property|directive)\b",
                              re.IGNORECASE)
# a line introducing a block as the program's output: "It prints:", "Output:", "Result:"
_OUTPUT_INTRO_RE = re.compile(r"(?:\b(?:prints?|outputs?|returns?|gives?|displays?|shows?|evaluates\s+to|result|produces|logs?|yields?|you(?:'ll|\s+will)?\s+(?:get|see))"
                              r"(?:\s+(?:is|will\s+be|would\s+be|should\s+be))?\s*:?|=)\s*$",
                              re.IGNORECASE)
_COMMAND_INTRO_RE = re.compile(r"(?:^|\n)[^\n]{0,60}\b(?:use|run|type|try|enter|command|formula|function|query)\b[^\n]{0,30}:\s*$", re.IGNORECASE)
_SQUEEZE_RE = re.compile(r"\s+")
_QUESTION_CODE_RE = re.compile(r"`([^`\n]+)`")


def _squeeze(code: str) -> str:
    code = re.sub(r"^\s*(?:print|console\.log|echo|puts|p)\s*\(?\s*(.*?)\s*\)?\s*;?\s*$", r"\1", code.strip())
    return _SQUEEZE_RE.sub("", code).replace('"', "'").rstrip(";")


def _question_codes(question: str) -> list[str]:
    """The code the question quotes (in backticks, or on lines of its own), squeezed for matching."""
    codes = _QUESTION_CODE_RE.findall(question)
    lines = [ln for ln in question.split("\n")[1:] if ln.strip()]
    return [c for c in (_squeeze(x) for x in [*codes, *lines]) if len(c) >= 2]


_ERROR_LINE_RE = re.compile(r"^[A-Z]\w*(?:Error|Exception|Warning|Interrupt|Exit)\b")


def _transcript(text: str, question: str) -> str | None:
    """The output of the command in a transcript that the question asks about (or of the one command run)."""
    if not any(p in text for p in (">>>", "$ ", "In [", "> ", "=#")):
        return None
    runs: list[tuple[str, list[str]]] = []
    fenced = False
    for line in text.split("\n"):
        if _FENCE_RE.match(line):
            fenced = not fenced
            if runs and runs[-1][1]:
                runs.append(("", []))  # a closing fence ends the output of the last command
            continue
        m = _PROMPT_RE.match(line) or (_NODE_PROMPT_RE.match(line) if fenced else None)  # "> expr": a Node prompt, in a code block only
        if m:
            runs.append((m.group(1), []))
        elif _CONTINUED_RE.match(line) and runs:
            continue
        elif runs and runs[-1][0] and line.strip():
            runs[-1][1].append(_OUT_PREFIX_RE.sub("", line).strip())
        elif runs and runs[-1][1] and not line.strip():
            runs.append(("", []))  # a blank line ends it too
    runs = [r for r in runs if r[0] and r[1]]
    if not runs:
        return None
    codes = _question_codes(question)
    matched = [r for r in runs if codes and any(_squeeze(r[0]) == c or (len(c) >= 4 and c in _squeeze(r[0])) for c in codes)]
    picked = matched[0] if matched else runs[0] if len(runs) == 1 and _ASKS_OUTPUT_RE.search(question) else None
    if picked is None:
        return None
    shown = picked[1]
    if shown[0].startswith("Traceback") or _ERROR_LINE_RE.match(shown[-1]) and len(shown) > 1:
        return shown[-1]  # it raises: the error is what it gives ("ZeroDivisionError: division by zero")
    return "\n".join(shown)


_COMMENT_RE = re.compile(r"^[ \t]*(?:>>>\s*)?(.+?)[ \t]*(?:#|//|--)[ \t]*(?:=>|->|\u2192|output\s*:|prints?\s*:?|returns?\s*:?|result\s*:|gives\s*:?)?[ \t]*(\S[^\n]*)$",
                         re.IGNORECASE | re.MULTILINE)


def _commented(text: str, question: str) -> str | None:
    """The result a line of code carries in a comment ("console.log(NaN === NaN); // false"), on the one
    line that runs the code the question quotes."""
    if "#" not in text and "//" not in text and "--" not in text:
        return None
    codes = _question_codes(question)
    if not codes:
        return None
    found = {m.group(2).strip() for m in _COMMENT_RE.finditer(text) if _squeeze(m.group(1)) in codes}
    return found.pop() if len(found) == 1 else None


def _without_blocks(text: str) -> str:
    """``text`` without its fenced code blocks."""
    out, last = [], 0
    fences = list(_FENCE_RE.finditer(text))
    for a, b in zip(fences[::2], fences[1::2]):
        out.append(text[last:a.start()])
        last = b.end()
    out.append(text[last:])
    return "\n".join(p.strip() for p in out if p.strip())


def _blocks(text: str) -> list[tuple[int, str]]:
    """The fenced code blocks of ``text``: where each opens and what it holds."""
    fences = list(_FENCE_RE.finditer(text))
    return [(a.start(), text[a.end():b.start()].strip("\n")) for a, b in zip(fences[::2], fences[1::2])]


_VERBATIM = "\x00verbatim:"  # a command is its own answer, read as it stands
_CODE_WORD_RE = re.compile(r"(?=[^\s]*[<>=()\[\]{}/$_.-])[<=$-]?[\w<>=()\[\]{}/$.:,'\"*+-]+(?:[ \t]+[^\s]+){0,3}")
_LITERAL_LINE_RE = re.compile(r"[\[({'\"][^\n]{0,80}")
_TOOL_LINE_RE = re.compile(r"([a-z][\w.-]*)(?:[ \t]+[^\s.,;][^\s,;]*){1,8}")


def _printed(output: str) -> str:
    """A program's output for a short text answer: as printed, one layer of string quotes removed."""
    line = output.strip()
    if "\n" in line:
        return line  # several lines: read as any output is
    if len(line) >= 2 and line[0] == line[-1] and line[0] in "'\"":
        line = line[1:-1]
    return _VERBATIM + line


def _code_part(text: str, kind: str, question: str | None) -> str | None:
    """The answer part of an output about code: a transcript's output, a block introduced as what the
    code prints, or (for a question asking for a command) the one-line block that gives it."""
    if not question:
        return None
    asks_output = _ASKS_OUTPUT_RE.search(question) is not None
    ran = _transcript(text, question) or _commented(text, question)
    if ran is not None:
        error = _ERROR_LINE_RE.match(ran)
        if error and kind in ("number", "yes_no"):
            return ABSTAIN  # it raises: no value of the kind asked
        if kind == "text":
            return _VERBATIM + error.group(0) if error else _printed(ran)
        return ran
    if kind == "text" and asks_output and _LITERAL_LINE_RE.fullmatch(text.strip()):
        return _printed(text)  # the value alone, as the interpreter shows it: "['a', 'b', 'c']"
    blocks = _blocks(text) if "```" in text or "~~~" in text else []
    if asks_output:
        for start, body in blocks:
            intro = text[:start].rstrip()
            if body.strip() and _OUTPUT_INTRO_RE.search(intro) and len(body.strip().split("\n")) <= 3:
                return _printed(body) if kind == "text" else body
    if kind != "text" or not _ASKS_COMMAND_RE.search(question):
        return None
    if blocks:
        start, body = blocks[0]
        lines = [ln.strip() for ln in body.split("\n") if ln.strip() and not ln.strip().startswith("#")]
        if not text[:start].strip() or _COMMAND_INTRO_RE.search(text[:start].rstrip()):
            return _VERBATIM + lines[0] if len(lines) == 1 else ABSTAIN  # a script of several commands names no one command
        return None
    whole = text.strip().strip("`").strip()
    if "\n" not in whole and _CODE_WORD_RE.fullmatch(whole):
        return _VERBATIM + whole  # the output is the code itself: "<strong>", "=SUM(A1:A5)", "ls -la"
    first = text.strip().split("\n", 1)[0].strip()
    opening = sentences(first)[0] if first else ""
    inline = list(_QUESTION_CODE_RE.finditer(re.sub(r"\([^()]*\)", "", opening)))  # an alternative in brackets is an aside
    if len(inline) == 1 and len(opening[:inline[0].start()].split()) <= 6 and not _EXAMPLE_RE.search(opening[:inline[0].start()]):
        return _VERBATIM + inline[0].group(1).strip()  # "The command is `git status`.", not "DISTINCT, e.g. `SELECT DISTINCT ...`"
    tool = _TOOL_LINE_RE.fullmatch(first.strip("*_ "))
    if tool and stem(tool.group(1)) in asked_stems(question):
        return _VERBATIM + tool.group(0)  # the command line itself, its tool the question names: "git checkout -b <name>"
    return None


# ---------------------------------------------------------------------------------------- labelled records
_RECORD_LINE_RE = re.compile(r"^[ \t]*[-*+\u2022][ \t]+(\*\*|__)?([A-Za-z][^:\n*]{0,48}?)(?:\*\*|__)?[ \t]*:[ \t]*(?:\*\*|__)?[ \t]*(\S[^\n]*?)[ \t]*$",
                             re.MULTILINE)


_BOLD_LINE_RE = re.compile(r"^[ \t]*(?:[-*+\u2022][ \t]+)?(?:\*\*|__)([A-Za-z][^*:=\n]{0,48}?)[ \t]*(?:[:=]|\bis\b)(?:\*\*|__)?[ \t]*(\S[^\n]*?)[ \t]*$",
                           re.IGNORECASE)


# a verdict per aspect: "- Legally: **No**", "* Is it legal? No"
_ASPECT_LINE_RE = re.compile(r"^[ \t]*[-*+\u2022][ \t]+(\*\*|__)?([A-Za-z][^:?\n*]{0,48}?[?:]?)(?:\*\*|__)?[ \t]*[:?][ \t]*(?:\*\*|__)?[ \t]*(\S[^\n]*?)[ \t]*$")


_ASPECT_MULTI_RE = re.compile(_ASPECT_LINE_RE.pattern, re.MULTILINE)


def _record_part(text: str, kind: str, question: str | None) -> str | None:
    """The one labelled line whose label is what the question asks for: for a number, set in bold
    ("- **Total cash compensation: $57,200**", "**Median = 4**"), so that notes after it do not count;
    for a short text, a line of a bulleted record ("- **Author:** George Orwell" for "Who wrote 1984?").
    Numbered steps are a chain of thought, not a record."""
    if not question or kind not in ("number", "text", "yes_no"):
        return None
    asked = asked_stems(question)

    def named(label: str) -> bool:
        return bool({stem(w) for w in words(label) if w.lower() not in STOPWORDS} & asked)

    found: list[str] = []
    if kind == "number":
        for line in text.split("\n"):
            m = _BOLD_LINE_RE.match(line)
            if m and re.search(r"\d", m.group(2)) and named(m.group(1)):
                found.append(m.group(2).strip(" *_"))
        return found[0] if len(found) == 1 else None
    lines = text.split("\n")
    line_re = _ASPECT_LINE_RE if kind == "yes_no" else _RECORD_LINE_RE
    record = [m for m in (line_re.match(ln) for ln in lines) if m]
    if len(record) < 2 or len(record) < len([ln for ln in lines if ln.strip()]) / 2:
        return None  # not a record: prose with a labelled line or two
    found = [m.group(3).strip(" *_") for m in record if named(m.group(2))]
    return found[0] if len(found) == 1 else None


_TICKS = ("\u2705", "\u2713", "\u2714", "\u2611", "\u2190", "<-", "(correct)", "(answer)", "(right)")
_TICK_RE = re.compile(r"[\u2705\u2713\u2714\u2611]|\u2190|<--?(?![\w-])|\((?:correct|answer|right)\)", re.IGNORECASE)
_OPTION_LINE_RE = re.compile(r"^[ \t]*(?:[-*+\u2022][ \t]+|\d+[.)][ \t]+)?(\*\*|__)?[ \t]*(?:option[ \t]+)?[(\[]?([A-Z])[)\].:]", re.IGNORECASE)
_ITEM_RE = re.compile(r"^[ \t]*(?:[-*+\u2022]|\d+[.)])[ \t]+(.*)$", re.MULTILINE)
_MARKUP_RE = re.compile(r"[*_`]+|[\u2705\u2713\u2714\u2611\u274c\u2717\u2718]|\u2190.*$|<--?.*$|\((?:correct|answer|right)\)", re.IGNORECASE)


def _option_of(line: str, letters: str, choices: Sequence[str] | None) -> str | None:
    """The option a list line goes through: by its letter ("B) ...") or, in a list of option texts, by its text."""
    m = _OPTION_LINE_RE.match(line)
    if m and m.group(2).upper() in letters:
        return m.group(2).upper()
    item = _ITEM_RE.match(line)
    if item and choices:
        bare = " ".join(_MARKUP_RE.sub(" ", item.group(1)).split()).strip(" .:-").lower()
        for i, c in enumerate(choices):
            if bare == c.strip().lower():
                return letters[i]
    return None


def _marked_option(text: str, choices: Sequence[str] | None) -> str | None:
    """Options gone through one per line (by letter or by text), one of them ticked, pointed at
    ("<- answer", "(correct)") or set in bold and no other: its letter.

    >>> _marked_option("- A: fish\\n- **B: mammal**\\n- C: fish", ["Shark", "Dolphin", "Trout"])
    'B'
    """
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[: len(choices)] if choices else "ABCDE"
    seen, bold_ones, ticked = set(), set(), set()
    other: list[str] = []
    for line in text.split("\n"):
        letter = _option_of(line, letters, choices)
        if letter is None:
            if line.strip():
                other.append(line)
            continue
        seen.add(letter)
        if re.match(r"^[ \t]*(?:[-*+\u2022][ \t]+|\d+[.)][ \t]+)?(?:\*\*|__)|^[ \t]*(?:[-*+\u2022][ \t]+|\d+[.)][ \t]+)?[(\[]?[A-Z][)\].:]?[ \t]*\*\*",
                    line, re.IGNORECASE):
            bold_ones.add(letter)
        if _TICK_RE.search(line):
            ticked.add(letter)
    if len(seen) < 3:
        return None
    if len(ticked) == 1:
        return next(iter(ticked))
    if not ticked and not bold_ones and len(seen) == len(letters):  # the options written out again, none picked:
        return "\n".join(other) if other else ABSTAIN  # what is said besides them answers, if anything
    return next(iter(bold_ones)) if len(bold_ones) == 1 and not ticked else None


_VERDICT_WORDS = ("verdict", "conclusion", "bottom line", "tl;dr", "tldr", "tl; dr", "short answer", "decision", "in short")
def _marked_item(text: str, question: str | None) -> str | None:
    """In a list of short items (candidates, not steps), the one item ticked or pointed at, or the one in
    bold among three or more: its text without the marks; of a "label: value" item, the side the
    question does not already give ("- **Yard: 0.9144 m** ✅" for "Which unit is 0.9144 metres?"), the
    value after a numbering label ("Option 2: 14")."""
    items = [m.group(1) for m in (_ITEM_RE.match(ln) for ln in text.split("\n")) if m]
    if len(items) < 2 or any(len(_MARKUP_RE.sub(" ", i).split()) > 6 for i in items):
        return None
    ticked = [i for i in items if _TICK_RE.search(i)]
    bold = [i for i in items if i.lstrip().startswith(("**", "__"))]
    picked = ticked if ticked else bold if len(items) >= 3 and len(bold) < len(items) else []
    if len(picked) != 1:
        return None
    value = " ".join(_MARKUP_RE.sub(" ", picked[0]).split())
    label, sep, rest = value.partition(":")
    if not sep or not rest.strip():
        return value or None
    given = f" {' '.join(words((question or '').lower()))} "
    if f" {' '.join(words(rest.lower()))} " in given or any(f" {n} " in given for n in re.findall(r"\d[\d.,]*", rest)):
        return label.strip()  # the question gives the value: the label answers
    if re.fullmatch(r"(?:option|choice|candidate|answer|item|number|no\.?)?\s*\w{0,3}", label.strip(), re.IGNORECASE):
        return rest.strip()  # "Option 2: 14"
    return value


# a line labelled as the verdict: "- Verdict: **No**", "**Bottom line:** yes", "TL;DR: 42"
_VERDICT_LINE_RE = re.compile(r"^[ \t]*(?:[-*+\u2022>][ \t]+|\d+[.)][ \t]+|#+[ \t]+)?(?:\*\*|__)?(?:final\s+)?(?:verdict|conclusion|bottom\s+line"
                              r"|tl;?\s?dr|short\s+answer|decision|in\s+short)(?:\*\*|__)?[ \t]*[:\u2014\u2013-](?:\*\*|__)?[ \t]*(\S[^\n]*)$",
                              re.IGNORECASE | re.MULTILINE)


# ---------------------------------------------------------------------------------------- the hook
# a reasoning model's channels (gpt-oss "harmony" format): the final channel holds the answer; printed
# without its special tokens it reads "analysis...assistantfinal..."
_FINAL_CHANNEL_RE = re.compile(r"<\|channel\|>\s*final\s*<\|message\|>|(?:^|(?<=[\s.!?]))assistantfinal", re.IGNORECASE)
_ANALYSIS_CHANNEL_RE = re.compile(r"<\|channel\|>\s*(?:analysis|commentary)\b", re.IGNORECASE)
_CHANNEL_END_RE = re.compile(r"<\|(?:return|end|call|start)\|>")


# a chat template's turn header left at the start of the reply: "<|im_start|>assistant", "<start_of_turn>model"
_TURN_HEADER_RE = re.compile(r"^\s*(?:<\|im_start\|>|<\|start_header_id\|>|<start_of_turn>|<\|start\|>|<\|assistant\|>)\s*(?:assistant|model)?"
                             r"\s*(?:<\|end_header_id\|>|<\|message\|>)?\s*", re.IGNORECASE)


def _own(raw: str) -> str:
    header = _TURN_HEADER_RE.match(raw)
    if header:
        raw = raw[header.end():]
    end = _END_TOKEN_RE.search(raw) or _CHANNEL_END_RE.search(raw)
    return raw[:end.start()] if end else raw


class _Cues(NamedTuple):
    """Which structures an output shows signs of (each a cheap test of its text)."""

    code: bool
    marks: bool
    record: bool
    fenced: bool
    cited: bool
    listed: bool
    quoted: bool
    verdict: bool


def _cues(ctx: Context) -> _Cues | None:
    """The structures ``ctx``'s output shows signs of; None when it shows none (most outputs)."""
    raw = ctx.raw
    code = ctx.question is not None and _about_code(ctx.question)
    marks = ctx.kind in ("number", "choice") and ("**" in raw or (ctx.kind == "choice" and (any(t in raw for t in _TICKS) or raw.count("\n") >= 2)))
    low = raw.lower()
    verdict = any(w in low for w in _VERDICT_WORDS) and _VERDICT_LINE_RE.search(raw) is not None
    record = (ctx.kind in ("text", "yes_no") and (":" in raw or "?" in raw) and "\n" in raw
              and (_RECORD_LINE_RE if ctx.kind == "text" else _ASPECT_MULTI_RE).search(raw) is not None)
    fenced = "```" in raw or "~~~" in raw
    cited = "[" in raw and not code and _CITATION_RE.search(raw) is not None  # in code, "x[1]" is an index
    listed = ctx.kind != "choice" and ("**" in raw or any(t in raw for t in _TICKS)) and "\n" in raw and _ITEM_RE.search(raw) is not None
    quoted = ">" in raw and _QUOTE_MARK_RE.search(_without_blocks(raw) if fenced else raw) is not None
    if ("{" not in raw and "<" not in raw and not code and not marks and not record and not quoted and not fenced and not verdict
            and not listed and not cited and "assistantfinal" not in raw):
        return None
    return _Cues(code, marks, record, fenced, cited, listed, quoted, verdict)


def answer_parts(ctx: Context) -> list[tuple[str, bool, str]] | None:
    """The parts of a structured output that may hold its answer, most specific first: (part or ABSTAIN,
    whether the format designates it explicitly, which structure). None when the output is not structured."""
    cues = _cues(ctx)
    if cues is None:
        return None  # a cheap test first: most outputs carry no structure
    raw = ctx.raw
    code, marks, record, fenced, cited, listed, quoted, verdict = cues
    if ctx.choices and ctx.kind == "choice" and raw.strip().strip("`").strip() in ctx.choices:
        letter = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[list(ctx.choices).index(raw.strip().strip("`").strip())]
        return [(_VERBATIM + letter, True, "option")]  # the output is one of the options, word for word: '{"a": 1}'

    how = []
    final = _FINAL_CHANNEL_RE.search(raw)
    if final:
        raw, how = raw[final.end():], ["channel"]
    elif "<|channel|>" in raw and _ANALYSIS_CHANNEL_RE.search(raw):
        return [(ABSTAIN, True, "channel")]  # only the analysis channel: cut off before the final answer
    text = whole = _own(raw)
    if _TURN_HEADER_RE.match(raw):
        how = [*how, "turn"]  # what follows the header is the reply
    if quoted:
        text = _unquote(text)  # a Markdown quote sets its lines apart; it does not change what they say
    if cited:
        text = _uncited(text) or text  # citation marks and footnotes name sources, not answers: "London [1]"
    if "<" in text:
        unwrapped = _reasoning_and_tags(text, how, ctx)
        if not isinstance(unwrapped, tuple):
            return unwrapped  # cut off while thinking, or nothing but reasoning
        text, how = unwrapped
    explicit = bool(how)  # what a tag, a final channel or the end of the reasoning leaves is the answer
    parts: list[tuple[str, bool, str]] = []
    retracted = _retraction_after(whole)
    if retracted:
        parts.append((retracted, False, "correction"))  # "{"answer": 5} Wait, that's wrong: it is 6." - the last word counts
    found = _json_part(text, ctx.kind, ctx.question)
    if found is not None:
        part, strong = found
        parts.append((part if part is not None else "", strong or explicit, "json"))
        if part == ABSTAIN or strong:
            return parts
    ran = _code_part(text, ctx.kind, ctx.question) if code else None
    if ran is not None:
        parts.append((ran, False, "command" if ctx.question and _ASKS_COMMAND_RE.search(ctx.question) else "code"))
    line = _record_part(text, ctx.kind, ctx.question) if marks or record else None
    if line is not None:
        parts.append((line, False, "record"))
    parts += _marked_parts(text, ctx, cues)
    if fenced and code and "\n" in text:
        prose = _without_blocks(text)
        if prose and prose != text.strip():
            parts.append((prose, False, "prose"))  # code is the evidence; the prose around it gives the verdict
    if fenced and not parts:
        blocks = _blocks(text)
        if len(blocks) == 1 and _wrapper_talk(text[:blocks[0][0]] + text[text.rfind("```") + 3:]):
            text, how = blocks[0][1], [*how, "fence"]  # the output is one fenced block: its fence and label are markup ("```text")
    if how or quoted or cited:
        parts.append((text, explicit, how[-1] if how else "quote" if quoted else "citation"))
    return parts or None


def _marked_parts(text: str, ctx: Context, cues: _Cues) -> list[tuple[str, bool, str]]:
    """The parts a list's marked line or a verdict line gives ("- [x] Paris", "Verdict: true")."""
    parts = []
    picked = _marked_option(own_answer(text), ctx.choices) if cues.marks and ctx.kind == "choice" else None  # not the next item's options
    if picked is None and ctx.kind != "choice" and cues.listed:
        picked = _marked_item(own_answer(text), ctx.question)
    if picked is not None:
        parts.append((picked, False, "list"))
    said = _VERDICT_LINE_RE.search(text) if cues.verdict else None
    if said:
        parts.append((said.group(1), False, "verdict"))
    return parts


def _reasoning_and_tags(text: str, how: list[str], ctx: Context) -> tuple[str, list[str]] | list[tuple[str, bool, str]] | None:
    """``text`` without its reasoning block and inside its answer tag, with the structures noted in ``how``; or the
    parts to read at once: ABSTAIN when cut off while still thinking, the reasoning itself when it is all there is."""
    opened = _REASONING_OPEN_RE.search(text)
    if opened and not _REASONING_CLOSE_RE.search(text, opened.end()) and not _ANSWER_OPEN_RE.search(text, opened.end()):
        return [(ABSTAIN, True, "reasoning")]  # cut off while still thinking: no answer given yet
    bare = _without_reasoning(text)
    if bare is not None:
        if not bare.strip():  # nothing but reasoning: read it without its tags
            inside = _REASONING_TAG_RE.sub(" ", text).strip()
            return [(inside, False, "reasoning")] if inside else None
        text, how = bare, [*how, "reasoning"]
    tagged = _tagged(text)
    if tagged is not None:
        return tagged, [*how, "tag"]
    element = _named_element(text, ctx.kind, ctx.question) if "</" in text else None
    return (element, [*how, "tag"]) if element is not None else (text, how)


# a retraction of the answer just given, opening what follows it
_RETRACT_RE = re.compile(r"\W*(?:wait|actually|correction|oops|scratch\s+that|on\s+second\s+thought|i\s+made\s+an?\s+(?:mistake|error)"
                         r"|(?:no,\s+)?that'?s\s+(?:wrong|incorrect|not\s+right)|let\s+me\s+(?:correct|fix|recheck|re-?calculate|redo))\b[\s,.:;!\u2014-]*",
                         re.IGNORECASE)
_STRUCTURE_END_RE = re.compile(rf"\}}|</(?:{_ANSWER_TAGS})\s*>", re.IGNORECASE)


def _retraction_after(text: str) -> str | None:
    """What follows the last JSON object or answer tag, when it takes that answer back ("Wait, ...")."""
    end = None
    for end in _STRUCTURE_END_RE.finditer(text):  # noqa: B007 - the loop keeps the last match
        pass
    if end is None:
        return None
    tail = text[end.end():].strip(" \t\n`")
    m = _RETRACT_RE.match(tail) if tail else None
    return tail if m and re.search(r"\w", tail[m.end():]) else None


_QUOTE_MARK_RE = re.compile(r"^[ \t]*>(?!>)[ \t]?", re.MULTILINE)


# a citation mark after the text it cites ("London [1]", "tall.[2]", "[source: Britannica]"); a list such as
# "[1, 2, 3]" or a bracket opening a line is not one
_CITATION_RE = re.compile(r"(?<=[^\s\[])[ \t]?\[(?:\^?\d{1,3}|(?:source|sources|citation|ref|via)\s*:[^\]\n]{0,120})\]", re.IGNORECASE)
_FOOTNOTE_RE = re.compile(r"^[ \t]*\[\^?\d{1,3}\][:.]?[ \t].*$", re.MULTILINE)


def _uncited(text: str) -> str:
    """``text`` without footnote lines ("[1] The railway opened in 1863.") and citation marks."""
    return _CITATION_RE.sub("", _FOOTNOTE_RE.sub("", text)).strip()


def _unquote(text: str) -> str:
    """``text`` without Markdown quote marks, outside code blocks (where "> " is a prompt)."""
    lines, fenced = [], False
    for line in text.split("\n"):
        if _FENCE_RE.match(line):
            fenced = not fenced
        lines.append(line if fenced else _QUOTE_MARK_RE.sub("", line, count=1))
    return "\n".join(lines)


# a name read as it stands from an answer field: "Treaty of Versailles", "Leonardo da Vinci"
_NAME_RE = re.compile(r"[A-Z][\w'.\-]*(?:\s+(?:[A-Z][\w'.\-]*|of|the|and|da|de|del|der|di|du|la|le|von|van|y|v\.|&))*")


def _name(part: str) -> str | None:
    """A short answer field that is a name, read as it stands: its words capitalized or name particles."""
    s = part.strip().strip("*_`\"'\u201c\u201d\u2018\u2019").strip().rstrip(".").strip()
    if not 1 < len(s.split()) <= 6 or not _NAME_RE.fullmatch(s):
        return None
    first = s.split()[0].lower()
    return None if first.split("'")[0] in STOPWORDS or first in STOPWORDS else s  # not "That's the Indian Ocean"


def read_structured(rules: Sequence[Rule], ctx: Context, cascade: Callable[..., Extraction]) -> Extraction | None:
    """Read a structured output: its answer part by the kind's rules (``rules``, run by ``cascade``,
    :func:`gengap.extract._cascade.run_cascade`), or None to read it as plain text."""
    if FAMILY in ctx.disabled:
        return None
    parts = answer_parts(ctx)
    if parts is None:
        return None
    # a part may hold a structure of its own (a tag holding JSON): one level more, then plain reading
    deeper = ctx.disabled | ({FAMILY} if _INNER in ctx.disabled else {_INNER})
    designated = False
    for part, explicit, how in parts:
        rule = f"structured_{how}"
        if part == ABSTAIN:
            return Extraction(None, ctx.kind, "unextracted")
        designated = designated or explicit or how in _MARKUP_ONLY
        if not part.strip():
            continue
        skip = deeper
        if part.startswith(_MENTION):
            part = part[len(_MENTION):]
        elif explicit and _says_nothing(part, ctx.kind):
            return Extraction(None, ctx.kind, "unextracted")
        if part.startswith(_VERBATIM):
            return Extraction(part[len(_VERBATIM):].strip(), ctx.kind, rule)
        if ctx.kind == "text" and explicit and (name := _name(part)):
            return Extraction(name, ctx.kind, rule)
        inner = Context(part, ctx.kind, question=ctx.question, choices=ctx.choices, disabled=skip)
        value = cascade(rules, inner, disabled=skip).value
        if value is not None:
            return Extraction(value, ctx.kind, rule)
    return Extraction(None, ctx.kind, "unextracted") if designated else None


# the structure was only markup around the whole reply: reading it without the markup is all there is to read
_MARKUP_ONLY = frozenset({"citation", "quote", "fence", "turn"})
_INNER = "structured_inner"  # marks a part being read, so that its own structure is unwrapped once at most
