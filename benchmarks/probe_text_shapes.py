"""Short text answers restated in the shapes chat models put around an answer: a generalization probe.

Every gold short answer of the tuning sets (never the held-out ``extraction_v7``) is written again in everyday shapes
(a courtesy before or after it, "It's X.", "The <question restated> is X.", "X <question's verb> ...",
"Not Y - X.", "X? I'm not completely sure.", "Y or X, I'm not sure which.", "Let me look that up.", ...) and
read with its question. A rule written for one labelled item does not move these counts; a rule that reads the shape
does. Shapes that state no answer (two candidates unchosen, a reply about the answering) count as right
only when unextracted.

    python benchmarks/probe_text_shapes.py                # misreads per family of shapes
    python benchmarks/probe_text_shapes.py --show 20      # and the first 20 misreads of each family
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Iterator

from gengap.extract import extract

try:
    from benchmarks.bench_extract import is_correct
    from benchmarks.bench_extract_sets import tuning_sets
except ImportError:  # run as a script from the benchmarks folder
    from bench_extract import is_correct
    from bench_extract_sets import tuning_sets

#: (shape, whether it states the answer); {g}: the gold, {G}: capitalized, {w}: another item's gold
COURTESY = [(p + "{G}", True) for p in ("Sure! ", "Great question! ", "Okay, let me think.\n\n", "Thanks for asking! ", "Hi there! ",
                                          "Sure, here you go:\n\n", "Let's solve this step by step.\n\n", "Good question! Let me explain.\n\n")] \
    + [("{G}." + s, True) for s in ("\n\nI hope this helps!", " Hope that helps!", "\n\nLet me know if you have any other questions.")]
STATED = [("The answer is {g}.", True), ("It's {g}.", True), ("I believe it's {g}.", True), ("**{g}**", True), ("Answer: {g}", True),
          ("{g} is the answer.", True), ("That would be {g}.", True), ("Probably {g}.", True), ("{G}, I think.", True), ('"{g}"', True),
          ("I'm fairly sure it's {g}, but double-check.", True), ("{G}\n\nThat's my best answer.", True), ("- {g}", True)]
CORRECTED = [("{W}... wait, no - it's {g}.", True), ("{W}. Actually, {g}.", True), ("{G}, not {w}.", True), ("Not {w} - {g}.", True),
             ("I initially thought {w}, but it's {g}.", True), ("{W}. Sorry, correction: {g}.", True), ("Definitely not {w}. It's {g}.", True)]
HEDGED = [("Probably {g}, but it could also be {w}.", True), ("{G}? I'm not completely sure.", True), ("I believe {g}, but please verify.", True),
          ("I'm not 100% sure, but I think {g}.", True), ("{G} or {w}, I'm not sure which.", False), ("Maybe {g} or {w}.", False),
          ("It's either {g} or {w}.", False)]
NO_ANSWER = [(t, False) for t in ("That's a great question! There are many factors to consider.", "Let me look that up.",
                                   "Sorry, I'm not sure about that one.", "I would rather not guess.", "That's beyond what I know.",
                                   "There are several possible answers.", "Hmm, I can't recall off the top of my head.", "No idea, sorry!")]
REMARKED = [("{G} - it was first described in 1850.", True), ("{G} (many people confuse it with {w}, but that's wrong)", True),
            ("{G}\n\nFun fact: {w} is often mentioned too.", True), ("{G}. It was first described in 1850.", True)]


def _sentences(question: str) -> list[tuple[str, bool]]:
    """"The <question restated> is X." and "X <question's verb> <rest>." for the question shapes that allow it."""
    q = question.strip()
    m = re.match(r"^(?:What|Which) (is|was|are|were) (the .+?)\?$", q)
    if m:
        verb, rest = m.groups()
        return [(f"{rest[:1].upper()}{rest[1:]} {verb} {{g}}.", True), (f"{{G}} {verb} {rest}.", True),
                (f"I believe {rest} {verb} {{g}}.", True)]
    m = re.match(r"^Who (\w+ed|wrote|painted|discovered|invented|composed|built|founded|drew|sang|led|won) (.+?)\?$", q)
    if m:
        verb, rest = m.groups()
        return [(f"{{G}} {verb} {rest}.", True), (f"It was {{g}} who {verb} {rest}.", True)]
    m = re.match(r"^Which (\w+) (is|was|has|had|are) (.+?)\?$", q)
    if m:
        noun, verb, rest = m.groups()
        return [(f"{{G}} {verb} {rest}.", True), (f"The {noun} that {verb} {rest} is {{g}}.", True)]
    return []


FAMILIES: dict[str, Callable[[str], list[tuple[str, bool]]]] = {
    "courtesy": lambda q: COURTESY, "stated": lambda q: STATED, "sentence": _sentences, "corrected": lambda q: CORRECTED,
    "hedged": lambda q: HEDGED, "remark after": lambda q: REMARKED, "no answer": lambda q: NO_ANSWER,
}


def cases() -> Iterator[tuple[dict, str]]:
    """Each text item with a gold, once per question, with the gold of the item before it (a wrong answer)."""
    seen: set[str] = set()
    previous: str | None = None
    for rows in tuning_sets().values():
        for row in rows:
            if row["kind"] != "text" or not row["gold"] or "\n" in row["question"] or row["question"] in seen:
                continue
            seen.add(row["question"])
            if previous is not None and previous.lower() != row["gold"].lower():
                yield row, previous
            previous = row["gold"]


def probe(show: int = 0) -> dict[str, tuple[int, int]]:
    """Misreads and outputs per family; prints the first ``show`` misreads of each."""
    counts: dict[str, tuple[int, int]] = {}
    for family, shapes_of in FAMILIES.items():
        bad = n = 0
        for row, wrong in cases():
            g = row["gold"]
            for shape, states in shapes_of(row["question"]):
                out = shape.format(g=g, G=g[:1].upper() + g[1:], w=wrong, W=wrong[:1].upper() + wrong[1:])
                got = extract(out, "text", question=row["question"]).value
                gold = g if states else None
                n += 1
                if not is_correct("text", got, gold, row.get("aliases") if states else None):
                    bad += 1
                    if bad <= show:
                        print(f"  {family}: {row['id']} gold={gold!r} got={got!r} <- {out[:100]!r}")
        counts[family] = (bad, n)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--show", type=int, default=0, help="print the first N misreads of each family")
    args = parser.parse_args()
    counts = probe(args.show)
    print(f"{'family':16s} {'misread':>8s} {'outputs':>8s}")
    for family, (bad, n) in counts.items():
        print(f"{family:16s} {bad:8d} {n:8d}   {1 - bad / n:6.1%} read right")
    bad, n = sum(b for b, _ in counts.values()), sum(m for _, m in counts.values())
    print(f"{'all':16s} {bad:8d} {n:8d}   {1 - bad / n:6.1%} read right")


if __name__ == "__main__":
    main()
