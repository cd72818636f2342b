"""Answer extraction measured on outputs nobody tuned on: the fresh held-out part first, with intervals.

Data, in the order the figures are printed:

- ``benchmarks/data/extraction_v8/heldout.jsonl``: the fresh held-out-only set (774 outputs, 422 of them
  real Gemma 3 270M outputs), written without reading the rules, frozen before the rules were rewritten
  (issue #33; its README records the sha256); read only with ``--heldout`` (never while tuning), then
  printed first.
- ``benchmarks/data/extraction_v7/heldout*.jsonl``: the previous held-out-only set (one file per writer),
  measured once (95.9% [95.0, 96.7]); tuning data now that v8 exists.
- ``benchmarks/data/extraction_v5/heldout.jsonl`` (748 outputs, 48 of them real Gemma 3 270M outputs)
  and ``extraction_v4/heldout.jsonl``: earlier held-out-only sets, each measured once (v4 92.4%
  [90.2, 94.3], v5 93.0% [91.0, 94.8]) and then tuned on: tuning data now that a newer set exists.
- ``benchmarks/data/extraction_v3/``: one folder per writer, ``dev.jsonl`` tuned on batch by batch
  (``TUNING_LOG.md`` keeps each batch's score taken before any rule changed for it) and
  ``heldout.jsonl``, measured once (92.3%) and then tuned on.
- ``benchmarks/data/extraction_v6dev/*.jsonl``: development batches written for the last round of
  tuning, each scored before tuning (its own ``TUNING_LOG.md``).
- ``benchmarks/data/extraction_v2/`` (``dev.jsonl`` + ``heldout.jsonl``, 899 outputs): the earliest
  set, tuning data.

A gold of null means the output commits to no answer and the right outcome is "unextracted".
Intervals are Clopper-Pearson (exact), as everywhere in gengap. ``--show-errors`` prints misreadings
on tuning data only, never on the fresh held-out set.

What it prints:

1. the fresh held-out set: accuracy with a 95% interval overall, per kind, per difficulty, per
   source; coverage (share of outputs with an answer read) and precision (share of the answers read
   that are right) apart, and how often a no-answer output was left unextracted;
2. lm-evaluation-harness's stock filters on the same outputs, in their own environment
   (``benchmarks/_lmeval.py``; skipped unless ``GENGAP_LMEVAL_VENV`` or ``benchmarks/.lmeval-venv``
   holds one);
3. the tuning data per kind, and per pattern family;
4. a leave-one-pattern-out estimate: each pattern family measured with the rule families written
   for it switched off (see ``PATTERN_FAMILIES``), i.e. what the rest of the cascade reads on a
   class of outputs nobody wrote rules for;
5. with ``--judge URL`` (``--judge-api chat|completions``): an OpenAI-compatible endpoint (e.g. a
   llama.cpp server; ``--judge local`` starts one with Gemma 3 270M) asked about the outputs the
   rules abstain on or read two ways: rules alone and rules + judge side by side on the same
   outputs (accuracy with its interval, coverage, precision per kind), the judge's outcome counts,
   and how many of the answers the guard kept out (unsupported) were right;
6. throughput of the rule cascade on one core (target: at least 5,000 outputs per second).

    python benchmarks/bench_extract.py --heldout       # everything, the held-out set first (about a minute)
    python benchmarks/bench_extract.py                 # while tuning: everything but the held-out set
    python benchmarks/bench_extract.py --quick         # 20,000 outputs for the throughput figure
    python benchmarks/bench_extract.py --throughput-only   # only the outputs per CPU second (200,000 outputs)
    python benchmarks/bench_extract.py --skip-lmeval --show-errors
    python benchmarks/bench_extract.py --batch new.jsonl --log   # a new dev batch, before tuning
    python benchmarks/bench_extract.py --judge http://127.0.0.1:8080/v1
    python benchmarks/bench_extract.py --judge local --judge-api completions --judge-only   # v4 only
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter, defaultdict
from fractions import Fraction
from pathlib import Path

from gengap.analysis.intervals import proportion_ci
from gengap.extract import Extractor, extract, normalize_text, parse_number

try:
    from benchmarks._lmeval import VENV as LMEVAL_VENV
    from benchmarks._lmeval import run_in_lmeval
except ImportError:  # run as a script from the benchmarks folder
    from _lmeval import VENV as LMEVAL_VENV
    from _lmeval import run_in_lmeval

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "extraction_v2"
DATA_V3 = HERE / "data" / "extraction_v3"
DATA_V4 = HERE / "data" / "extraction_v4"
DATA_V5 = HERE / "data" / "extraction_v5"
DATA_V7 = HERE / "data" / "extraction_v7"
DATA_V8 = HERE / "data" / "extraction_v8"
DATA_V6DEV = HERE / "data" / "extraction_v6dev"
LEGACY = HERE / "data" / "extraction_labelled.jsonl"
KINDS = ["number", "choice", "yes_no", "text"]

#: Which rule families were written for which pattern family of the labelled set. The
#: leave-one-pattern-out estimate switches these off and measures the pattern's outputs.
#: "continuation" and "percent" are readers inside the cascade, switched off the same way.
PATTERN_FAMILIES = {
    "answer_first_then_explanation": ["answer_first"],
    "bare_answer_then_blank_line": ["answer_first"],
    "letter_then_other_letters_discussed": ["answer_first"],
    "answer_inside_sentence": ["answer_inside_sentence", "negation"],
    "self_correction": ["self_correction"],
    "markdown_table_then_notes": ["table"],
    "verdict_without_yes_no_words": ["verdict", "negation"],
    "idiom_with_no_in_yes_answer": ["idiom"],
    "option_by_text_or_paraphrase": ["option_text"],
    "option_by_number_or_ordinal": ["ordinal"],
    "articles_quotes_around_answer": ["quotes"],
    "refusal_or_no_answer": ["abstain"],
    "hedged_answer": ["abstain"],
    "base_model_continuation": ["continuation"],
    "percent_vs_decimal": ["percent"],
    "answer_in_other_language": ["other_language", "number_words"],
    "final_answer_marker": ["marker"],
    "chain_of_thought_last": ["marker"],
    "prompt_echo": ["abstain", "continuation"],
    "repeated_lines": ["continuation"],
    "truncated_output": ["abstain"],
    "structured_answer_format": ["structured", "json", "boxed"],
}

LMEVAL_CODE = r"""
import json, sys
from lm_eval.filters.extraction import RegexFilter, MultiChoiceRegexFilter
from lm_eval.filters.selection import TakeFirstFilter
from lm_eval.filters.extraction import WhitespaceFilter
rows = json.loads(sys.stdin.read())["rows"]
def run(filt, resps, docs=None):
    docs = docs or [{} for _ in resps]
    return [r[0] for r in filt.apply([[x] for x in resps], docs)]
out = {}
num = [r for r in rows if r["kind"] == "number"]
out["number/strict"] = run(RegexFilter(r"#### (\-?[0-9\.\,]+)"), [r["output"] for r in num])
out["number/flexible"] = run(RegexFilter(r"(-?[$0-9.,]{2,})|(-?[0-9]+)", group_select=-1), [r["output"] for r in num])
ch = [r for r in rows if r["kind"] == "choice"]
mc = MultiChoiceRegexFilter(regex_pattern=r"(\([A-Z]\))", group_select=-1, ignore_case=True, ignore_punctuation=True)
out["choice/multi_choice_regex"] = run(mc, [r["output"] for r in ch], [{"choices": r["choices"]} for r in ch])
yn = [r for r in rows if r["kind"] == "yes_no"]
out["yes_no/regex"] = run(RegexFilter(r"\b(Yes|No|yes|no|True|False|true|false)\b"), [r["output"] for r in yn])
tx = [r for r in rows if r["kind"] == "text"]
strict = r"((?<=The answer is )(.*)(?=.)|(?<=answer is )(.*)(?=.)|(?<=The answer: )(.*)(?=.)|(?<=The final answer: )(.*)(?=.))"
out["text/strict"] = run(RegexFilter(strict), [r["output"] for r in tx])
first_line = [r["output"].split("\n")[0] for r in tx]  # generation stops at the first newline
resps = WhitespaceFilter().apply([[x] for x in first_line], [{}] * len(tx))
out["text/first_line"] = [r for r in TakeFirstFilter().apply(resps, [{}] * len(tx))]
print(json.dumps(out))
"""

LMEVAL_FILTERS = {
    "number": ["number/strict", "number/flexible"],
    "choice": ["choice/multi_choice_regex"],
    "yes_no": ["yes_no/regex"],
    "text": ["text/strict", "text/first_line"],
}


def read_rows(path: Path) -> list[dict]:
    """The records of a labelled JSONL file; a record without a kind, output or gold field is an error."""
    rows = []
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        row = json.loads(line)
        missing = [f for f in ("kind", "output", "gold") if f not in row]
        if missing:
            raise ValueError(f"{path}, line {line_no}: missing field(s) {missing}")
        rows.append(row)
    return rows


def _number_value(value: str | None) -> Fraction | None:
    if value is None or value == "[invalid]":
        return None
    return parse_number(value.strip().rstrip(".").replace(",", ""))


def is_no_answer(gold: str | None) -> bool:
    """Whether a labelled gold says the output commits to no answer (null or empty): the right outcome
    is then an abstention, "unextracted"."""
    return gold is None or (isinstance(gold, str) and not gold.strip())


def was_read(got: str | None) -> bool:
    """Whether a reader gave an answer (not None, not lm_eval's "[invalid]", not blank): a reading made."""
    return isinstance(got, str) and got != "[invalid]" and bool(got.strip())


def is_correct(kind: str, got: str | None, gold: str | None, aliases: list[str] | None = None) -> bool:
    """The shared judge: the same comparison for gengap's and lm_eval's extractions (a short text
    answer may match the gold or one of its listed aliases)."""
    if not was_read(got):
        got = None
    if is_no_answer(gold):
        return got is None
    if got is None:
        return False
    if kind == "number":
        a, b = _number_value(got), Fraction(gold)
        return a is not None and abs(float(a) - float(b)) <= 1e-6 * max(1.0, abs(float(b)))
    if kind == "choice":
        return got.strip().strip("()[]").upper() == gold.upper()
    if kind == "yes_no":
        word = got.strip().lower()
        word = {"true": "yes", "false": "no"}.get(word, word)
        return word == gold
    return normalize_text(got) in {normalize_text(g) for g in [gold, *(aliases or [])]}


def read_all(rows: list[dict], disable: tuple[str, ...] = ()) -> list[str | None]:
    return [extract(r["output"], r["kind"], question=r.get("question"), choices=r.get("choices"), disable=disable).value
            for r in rows]


def interval(k: int, n: int) -> tuple[float, float]:
    """The 95% Clopper-Pearson interval of k successes in n."""
    low, high = proportion_ci(k, n)
    return float(low), float(high)


def cell(k: int, n: int) -> str:
    if n == 0:
        return "       -"
    low, high = interval(k, n)
    return f"{k / n:6.1%} [{low:5.1%}, {high:5.1%}]"


def summary_lines(rows: list[dict], got: list[str | None], by: str) -> list[str]:
    """Accuracy with intervals, coverage and precision, grouped by a field (kind, difficulty, pattern)."""
    groups: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        groups[str(r.get(by, "-"))].append(i)
    order = [k for k in KINDS if k in groups] if by == "kind" else sorted(groups)
    lines = [f"  {by:<38} {'n':>4}  {'accuracy [95% CI]':<24} {'coverage':>8} {'precision':>10} {'no-answer left':>14}"]
    for name in [*order, "all"]:
        idx = list(range(len(rows))) if name == "all" else groups[name]
        ok = sum(is_correct(rows[i]["kind"], got[i], rows[i]["gold"], rows[i].get("aliases")) for i in idx)
        read = [i for i in idx if was_read(got[i])]
        right = sum(is_correct(rows[i]["kind"], got[i], rows[i]["gold"], rows[i].get("aliases")) for i in read)
        none_gold = [i for i in idx if is_no_answer(rows[i]["gold"])]
        left = sum(got[i] is None for i in none_gold)
        lines.append(f"  {name:<38} {len(idx):>4}  {cell(ok, len(idx)):<24} {len(read) / len(idx):8.1%} "
                     f"{(right / len(read) if read else 0):10.1%} {f'{left}/{len(none_gold)}':>14}")
    return lines


def lmeval_lines(rows: list[dict], got: list[str | None]) -> list[str]:
    raw = run_in_lmeval(LMEVAL_CODE, {"rows": rows}, timeout=600)
    lines = [f"  {'kind':<8} {'n':>4}  {'gengap [95% CI]':<24}  lm_eval stock filters"]
    total_g, total_l = 0, 0.0
    for kind in KINDS:
        idx = [i for i, r in enumerate(rows) if r["kind"] == kind]
        if not idx:
            continue
        ok = sum(is_correct(kind, got[i], rows[i]["gold"], rows[i].get("aliases")) for i in idx)
        cells, best = [], 0
        for name in LMEVAL_FILTERS[kind]:
            hits = sum(is_correct(kind, v, rows[i]["gold"], rows[i].get("aliases")) for i, v in zip(idx, raw[name]))
            best = max(best, hits)
            cells.append(f"{name.split('/')[1]} {hits / len(idx):6.1%}")
        total_g += ok
        total_l += best
        lines.append(f"  {kind:<8} {len(idx):>4}  {cell(ok, len(idx)):<24}  {' | '.join(cells)}")
    lines.append(f"  {'all':<8} {len(rows):>4}  {cell(total_g, len(rows)):<24}  best filter per kind: "
                 f"{cell(int(total_l), len(rows))}")
    return lines


def leave_one_pattern_out(rows: list[dict], got: list[str | None]) -> list[str]:
    """Each pattern family measured with the rules written for it switched off."""
    lines = [f"  {'pattern family':<38} {'n':>4}  {'all rules':>9}  {'its rules off [95% CI]':<24} switched off"]
    k_sum = n_sum = 0
    for pattern in sorted({r.get("pattern", "-") for r in rows}):
        idx = [i for i, r in enumerate(rows) if r.get("pattern") == pattern]
        sub = [rows[i] for i in idx]
        full = sum(is_correct(r["kind"], got[i], r["gold"], r.get("aliases")) for i, r in zip(idx, sub))
        families = PATTERN_FAMILIES.get(pattern)
        if not families:
            lines.append(f"  {pattern:<38} {len(idx):>4}  {full / len(idx):9.1%}  {'(no rule family of its own)':<24}")
            continue
        off = read_all(sub, tuple(families))
        k = sum(is_correct(r["kind"], v, r["gold"], r.get("aliases")) for r, v in zip(sub, off))
        k_sum += k
        n_sum += len(idx)
        lines.append(f"  {pattern:<38} {len(idx):>4}  {full / len(idx):9.1%}  {cell(k, len(idx)):<24} {', '.join(families)}")
    if n_sum:
        lines.append(f"  {'pooled (patterns with own rules)':<38} {n_sum:>4}  {'':>9}  {cell(k_sum, n_sum):<24}")
    return lines


def _read_stats(rows: list[dict], got: list[str | None], idx: list[int]) -> tuple[str, str, str]:
    """Accuracy with its 95% interval, coverage and precision of ``got`` on the rows ``idx``."""
    ok = sum(is_correct(rows[i]["kind"], got[i], rows[i]["gold"], rows[i].get("aliases")) for i in idx)
    read = [i for i in idx if was_read(got[i])]
    right = sum(is_correct(rows[i]["kind"], got[i], rows[i]["gold"], rows[i].get("aliases")) for i in read)
    return cell(ok, len(idx)), f"{len(read) / len(idx):.1%}", f"{right / len(read) if read else 0:.1%}"


def _right(rows: list[dict], i: int, value: str | None) -> bool:
    return is_correct(rows[i]["kind"], value, rows[i]["gold"], rows[i].get("aliases"))


def judge_lines(rows: list[dict], got: list[str | None], url: str, api: str = "chat", model: str | None = None) -> list[str]:
    """Rules alone and rules + judge side by side on the same outputs, per kind: accuracy [95% CI],
    coverage, precision; then what the judge did (its outcome counts) and what the guard kept out."""
    from gengap.extract import JudgeReport

    final = list(got)
    counts: dict[str, JudgeReport] = {}
    guard: dict[str, tuple[int, int]] = {}
    seconds: dict[str, float] = {}
    effect: dict[str, dict[str, tuple[int, int, int]]] = defaultdict(dict)  # outcome -> (judge right, rules right, n)
    for kind in KINDS:
        idx = [i for i, r in enumerate(rows) if r["kind"] == kind]
        if not idx:
            continue
        ex = Extractor(kind, judge=url, judge_api=api, judge_model=model)
        start = time.perf_counter()
        found = ex.extract_all([rows[i]["output"] for i in idx], [rows[i].get("choices") for i in idx],
                               [rows[i].get("question") for i in idx])
        seconds[kind] = time.perf_counter() - start
        for i, f in zip(idx, found):
            final[i] = f.value
        counts[kind] = ex.judge_report or JudgeReport()
        outcome = dict(zip(idx, ex.judge_outcomes))
        readings = dict(zip(idx, ex.judge_readings))
        held = [i for i in idx if outcome[i] == "unsupported"]
        guard[kind] = (sum(_right(rows, i, readings[i]) for i in held), len(held))
        for name in ("filled", "overruled"):
            changed = [i for i in idx if outcome[i] == name]
            effect[kind][name] = (sum(_right(rows, i, final[i]) for i in changed), sum(_right(rows, i, got[i]) for i in changed),
                                  len(changed))
    lines = [f"  judge: {url} ({api}{', model ' + model if model else ''})",
             f"  {'kind':<8} {'n':>4}  {'rules alone [95% CI]':<24} {'cov.':>6} {'prec.':>6}   "
             f"{'rules + judge [95% CI]':<24} {'cov.':>6} {'prec.':>6}"]
    for name in [*counts, "all"]:
        idx = [i for i, r in enumerate(rows) if name in ("all", r["kind"])]
        (a1, c1, p1), (a2, c2, p2) = _read_stats(rows, got, idx), _read_stats(rows, final, idx)
        lines.append(f"  {name:<8} {len(idx):>4}  {a1:<24} {c1:>6} {p1:>6}   {a2:<24} {c2:>6} {p2:>6}")
    lines.append(f"  {'kind':<8} {'asked':>5} {'abst.':>5} {'cont.':>5} {'filled':>6} {'agreed':>6} {'overr.':>6} "
                 f"{'unsup.':>6} {'decl.':>5}  {'unsupported but right':>21}  {'seconds':>7}")
    for kind, rep in counts.items():
        right, held = guard[kind]
        lines.append(f"  {kind:<8} {rep.asked:>5} {rep.abstained:>5} {rep.contested:>5} {rep.filled:>6} {rep.agreed:>6} "
                     f"{rep.overruled:>6} {rep.unsupported:>6} {rep.declined:>5}  {f'{right}/{held}':>21}  {seconds[kind]:7.1f}")
    lines.append("  where the judge changed the reading: right after / right before (rules alone), of n")
    for kind, by in effect.items():
        lines.append(f"  {kind:<8} " + "   ".join(f"{name} {a}/{b} of {n}" for name, (a, b, n) in by.items()))
    return lines


def throughput(rows: list[dict], n: int) -> list[str]:
    """Outputs per second of the cascade in this one process: per CPU second (what one core does,
    whatever else the machine runs) and per wall-clock second, with the verifier (the default) and,
    side by side in the same run, the rules alone (``verify=False``). No cache is keyed on the output
    text, so repeating outputs does not flatter the figure; question and option readings are cached, as
    they are in a real evaluation that reads many outputs per question."""
    lines = [f"  {'kind':<8} {'outputs':>9}  {'CPU s':>7}  {'per CPU s':>10}  {'wall s':>7}  {'per wall s':>10}  "
             f"{'rules alone: per CPU s':>22}"]
    total_n, total_cpu, total_wall, total_bare = 0, 0.0, 0.0, 0.0
    for kind in KINDS:
        pool = [r for r in rows if r["kind"] == kind]
        if not pool:
            continue
        share = n // 4
        items = [pool[i % len(pool)] for i in range(share)]
        bare = time.process_time()
        for r in items:
            extract(r["output"], kind, question=r.get("question"), choices=r.get("choices"), verify=False)
        bare = time.process_time() - bare
        cpu, wall = time.process_time(), time.perf_counter()
        for r in items:
            extract(r["output"], kind, question=r.get("question"), choices=r.get("choices"))
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        total_n, total_cpu, total_wall, total_bare = total_n + share, total_cpu + cpu, total_wall + wall, total_bare + bare
        lines.append(f"  {kind:<8} {share:>9,}  {cpu:7.2f}  {share / cpu:>10,.0f}  {wall:7.2f}  {share / wall:>10,.0f}  "
                     f"{share / bare:>22,.0f}")
    verdict = "meets" if total_n / total_cpu >= 5000 else "BELOW"
    lines.append(f"  {'all':<8} {total_n:>9,}  {total_cpu:7.2f}  {total_n / total_cpu:>10,.0f}  {total_wall:7.2f}  "
                 f"{total_n / total_wall:>10,.0f}  {total_n / total_bare:>22,.0f}   with the verifier, one core: {verdict} "
                 "the 5,000 per s target")
    return lines


def v3_files(part: str, root: Path = DATA_V3) -> list[Path]:
    """The v3 files of one part ("dev" or "heldout"): ``root/*/part.jsonl`` as the writers lay them out,
    and any other ``.jsonl`` under ``root`` whose path names the part (``heldout/w1_b03.jsonl``,
    ``w2_heldout.jsonl``); a path that names "heldout" is never development data."""
    if not root.is_dir():
        return []
    found = []
    for path in sorted(root.rglob("*.jsonl")):
        words = set(re.split(r"[^a-z0-9]+", str(path.relative_to(root)).lower()))
        if part in words and (part == "heldout" or "heldout" not in words):
            found.append(path)
    return found


def heldout_files(folder: Path) -> list[Path]:
    """A held-out-only set's files: ``heldout.jsonl``, or one ``heldout_<writer>.jsonl`` per writer."""
    return sorted(folder.glob("heldout*.jsonl"))


def read_files(paths: list[Path]) -> list[dict]:
    """The records of several labelled files (a folder stands for its ``*.jsonl`` files), ids kept unique."""
    rows: list[dict] = []
    for path in paths:
        for file in sorted(path.glob("*.jsonl")) if path.is_dir() else [path]:
            rows.extend(read_rows(file))
    counts = Counter(r.get("id") for r in rows if r.get("id") is not None)
    twice = sorted(i for i, n in counts.items() if n > 1)
    if twice:
        raise ValueError(f"ids appear more than once across {[str(p) for p in paths]}: {twice[:5]}; "
                         "give each file once (a folder already includes its files)")
    return rows


def lmeval_available() -> bool:
    """Whether lm_eval's own environment exists (GENGAP_LMEVAL_VENV or benchmarks/.lmeval-venv)."""
    return (LMEVAL_VENV / "bin" / "python").exists()


def kind_scores(rows: list[dict], got: list[str | None]) -> dict[str, tuple[int, int]]:
    """(correct, n) per kind and for "all"."""
    out: dict[str, tuple[int, int]] = {}
    for name in [*KINDS, "all"]:
        idx = [i for i, r in enumerate(rows) if name in ("all", r["kind"])]
        if idx:
            out[name] = (sum(is_correct(rows[i]["kind"], got[i], rows[i]["gold"], rows[i].get("aliases")) for i in idx), len(idx))
    return out


def rules_version() -> str:
    """The commit the extraction rules were read at, with "+edits" when they differ from it
    (``GENGAP_RULES_AT`` names it when the rules are read from a snapshot of a commit)."""
    import os
    import subprocess

    if os.environ.get("GENGAP_RULES_AT"):
        return os.environ["GENGAP_RULES_AT"]

    def git(*cmd: str) -> str:
        try:
            return subprocess.run(["git", *cmd], cwd=HERE, capture_output=True, text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + ("+edits" if git("status", "--porcelain", "--", str(HERE.parent / "src" / "gengap" / "extract")) else "")


def batch_line(label: str, rows: list[dict], got: list[str | None]) -> str:
    """One Markdown table row: a batch's accuracy overall and per kind, and the precision of what was read."""
    scores = kind_scores(rows, got)
    read = [(r, v) for r, v in zip(rows, got) if was_read(v)]
    right = sum(is_correct(r["kind"], v, r["gold"], r.get("aliases")) for r, v in read)
    k, n = scores["all"]
    low, high = interval(k, n)
    per_kind = " | ".join(f"{scores[x][0]}/{scores[x][1]} {scores[x][0] / scores[x][1]:.1%}" if x in scores else "-" for x in KINDS)
    return (f"| {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC | {label} | {n} | {k / n:.1%} [{low:.1%}, {high:.1%}] "
            f"| {per_kind} | {right / len(read) if read else 0:.1%} of {len(read)} read | {rules_version()} |")


LOG_HEADER = ("| time | batch | n | accuracy [95% CI] | number | choice | yes_no | text | precision | rules at |\n"
              "|---|---|---:|---|---:|---:|---:|---:|---:|---|\n")


def before_tuning_lines(log: Path) -> list[str]:
    """The tuning log's rows pooled: every v3 batch as the rules read it before they were tuned on it."""
    tot: dict[str, list[int]] = {}
    batches = 0
    for line in log.read_text(encoding="utf-8").splitlines() if log.exists() else []:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 8 or not cells[2].isdigit():
            continue
        batches += 1
        for kind, score in zip(KINDS, cells[4:8]):
            if score != "-":
                k, n = map(int, score.split()[0].split("/"))
                tot.setdefault(kind, [0, 0])
                tot[kind][0] += k
                tot[kind][1] += n
    if not tot:
        return []
    k_all, n_all = sum(v[0] for v in tot.values()), sum(v[1] for v in tot.values())
    kinds = ", ".join(f"{kind} {tot[kind][0] / tot[kind][1]:.1%}" for kind in KINDS if kind in tot)
    return [f"  {batches} batches, {n_all} outputs, each scored before any rule was changed for it: "
            f"{cell(k_all, n_all)} ({kinds})"]


def run_judge(rows: list[dict], got: list[str | None], args: argparse.Namespace) -> list[str]:
    """The judge's section, against ``args.judge`` or a llama.cpp server with Gemma 3 270M started here."""
    if args.judge != "local":
        return judge_lines(rows, got, args.judge, args.judge_api, args.judge_model)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the test suite's llama.cpp server
    from _llama_server import LlamaServer

    with LlamaServer() as server:
        return judge_lines(rows, got, server.base_url, args.judge_api, args.judge_model)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help="folder with the v2 dev.jsonl and heldout.jsonl")
    parser.add_argument("--v3", type=Path, default=DATA_V3, help="folder of the v3 set (one subfolder per writer)")
    parser.add_argument("--v4", type=Path, default=DATA_V4, help="folder of the held-out-only v4 set (heldout.jsonl)")
    parser.add_argument("--v5", type=Path, default=DATA_V5, help="folder of the held-out-only v5 set (tuning data once v7 exists)")
    parser.add_argument("--v7", type=Path, default=DATA_V7, help="folder of the held-out-only v7 set (tuning data once v8 exists)")
    parser.add_argument("--v8", type=Path, default=DATA_V8, help="folder of the fresh held-out-only v8 set (heldout.jsonl)")
    parser.add_argument("--heldout", action="store_true",
                        help="read and print the fresh held-out set (once, after the rules are frozen; never while tuning)")
    parser.add_argument("--v6-dev", type=Path, default=DATA_V6DEV, help="folder of the last development batches (*.jsonl)")
    parser.add_argument("--v3-dev", type=Path, nargs="*", help="v3 development files or folders (default: the v3 folder's dev.jsonl files)")
    parser.add_argument("--batch", type=Path, nargs="+", help="only score these labelled files (a new batch, before tuning)")
    parser.add_argument("--log", type=Path, nargs="?", const=DATA_V3 / "TUNING_LOG.md",
                        help="with --batch: append the batch's row to this Markdown log (default: v3's TUNING_LOG.md)")
    parser.add_argument("--quick", action="store_true", help="20,000 outputs for the throughput figure")
    parser.add_argument("--throughput-only", action="store_true",
                        help="only section 6: outputs per CPU second of the rules, on the tuning outputs")
    parser.add_argument("--skip-lmeval", action="store_true", help="gengap's side only")
    parser.add_argument("--show-errors", action="store_true", help="print gengap's misreadings on the tuning data")
    parser.add_argument("--judge", help="URL of an OpenAI-compatible API to judge what the rules cannot read, or 'local': "
                                        "start the packaged Gemma 3 270M on a llama.cpp server")
    parser.add_argument("--judge-api", choices=["chat", "completions"], default="chat",
                        help="how the judge is asked: chat (instruction) or completions (few-shot, base models)")
    parser.add_argument("--judge-model", help="the judge's served model name (default: the first its server lists)")
    parser.add_argument("--judge-only", action="store_true", help="with --judge: only the judge's section, on the held-out set")
    parser.add_argument("--legacy", action="store_true", help="also the first labelled set (its rules' own set)")
    args = parser.parse_args()

    if args.batch:
        for path in args.batch:
            rows = read_files([path])
            got = read_all(rows)
            print("\n".join(summary_lines(rows, got, "kind")))
            line = batch_line(path.name, rows, got)
            print(line)
            if args.log:
                new = not args.log.exists() or "| time |" not in args.log.read_text(encoding="utf-8")
                args.log.parent.mkdir(parents=True, exist_ok=True)
                with args.log.open("a", encoding="utf-8") as log:
                    log.write((LOG_HEADER if new else "") + line + "\n")
        return

    if args.judge_only:
        if not args.judge:
            parser.error("--judge-only needs --judge URL (or --judge local)")
        rows = read_rows(args.v4 / "heldout.jsonl")
        print(f"5. Model judge on the {len(rows)} v4 outputs (tuning data) the rules abstain on or read two ways")
        print("\n".join(run_judge(rows, read_all(rows), args)))
        return

    # Held-out-only sets, oldest first; a set is present once its folder exists. The newest present
    # one is the fresh set, read only with --heldout. Every older one was measured once and then tuned
    # on, so it is tuning data (v3 held-out: 92.3% on 567f190; v4: 92.4% on 7b4ad0f; v5: 93.0% on e66c1cc).
    generations = [(name, folder) for name, folder in (("v4", args.v4), ("v5", args.v5), ("v7", args.v7), ("v8", args.v8))
                   if folder.is_dir()]
    fresh_name = f"{generations[-1][0]} held-out" if generations else "v3 held-out"
    fresh_files = heldout_files(generations[-1][1]) if generations else v3_files("heldout", args.v3)
    older = [(name, read_files(heldout_files(folder))) for name, folder in generations[:-1]]
    tuned_v3 = read_files(v3_files("heldout", args.v3)) if generations else []
    heldout_v3 = read_files(fresh_files) if args.heldout else []
    v6dev = read_files([args.v6_dev]) if args.v6_dev.is_dir() else []
    v2 = read_rows(args.data / "dev.jsonl") + read_rows(args.data / "heldout.jsonl")
    dev_v3 = (read_files(args.v3_dev if args.v3_dev is not None else v3_files("dev", args.v3)) + tuned_v3
              + [row for _, rows in older for row in rows] + v6dev)
    n = 20_000 if args.quick else 200_000
    if args.throughput_only:
        print(f"6. Throughput of the rule cascade, {n:,} outputs (one process; the machine may be shared)")
        print("\n".join(throughput(v2 + dev_v3, n)))
        return
    got_h, got_2, got_d = read_all(heldout_v3), read_all(v2), read_all(dev_v3)

    if heldout_v3:
        print(f"1. {fresh_name} set: {len(heldout_v3)} outputs written by people who never read "
              "the rules, frozen before tuning, measured once")
        for by in ("kind", "difficulty", "source"):
            print("\n".join(summary_lines(heldout_v3, got_h, by)))
        if len(fresh_files) > 1:  # one file per writer: each writer's own figure
            by_file = [{**r, "file": f.name} for f in fresh_files for r in read_rows(f)]
            print("\n".join(summary_lines(by_file, got_h, "file")))
    elif fresh_files:
        print(f"1. {fresh_name} set: not read. It is measured once, after the rules are frozen: pass --heldout "
              "(never while tuning)")
    else:
        where = generations[-1][1] if generations else args.v3
        print(f"1. {fresh_name} set: not present yet (expected {where}/heldout*.jsonl)")
    base_rows, base_got, base_name = (heldout_v3, got_h, fresh_name) if heldout_v3 else (v2, got_2, "v2 (tuning data)")
    if args.skip_lmeval:
        print("\n2. lm-evaluation-harness stock filters: skipped (--skip-lmeval)")
    elif not lmeval_available():
        print("\n2. lm-evaluation-harness stock filters: skipped (no lm_eval environment; set GENGAP_LMEVAL_VENV "
              "or create benchmarks/.lmeval-venv, see benchmarks/_lmeval.py)")
    else:
        print(f"\n2. lm-evaluation-harness stock filters, the same {base_name} outputs")
        print("\n".join(lmeval_lines(base_rows, base_got)))
    print(f"\n3. v2, all {len(v2)} outputs: TUNING DATA (its held-out part was measured three times, then tuned on)")
    print("\n".join(summary_lines(v2, got_2, "kind")))
    for label, log in (("v3", args.v3 / "TUNING_LOG.md"), ("v6", args.v6_dev / "TUNING_LOG.md")):
        pooled = before_tuning_lines(log)
        if pooled:
            print(f"\n   {label} development batches before tuning ({log.name}): the running estimate of generalization")
            print("\n".join(pooled))
    if dev_v3:
        print(f"\n   v3 development part{' and held-out part' if tuned_v3 else ''}{''.join(', ' + n for n, _ in older)}"
              f"{', v6 development batches' if v6dev else ''}: {len(dev_v3)} outputs (tuned on, so now tuning data)")
        print("\n".join(summary_lines(dev_v3, got_d, "kind")))
    for name, rows, got in ((fresh_name, heldout_v3, got_h), ("all tuning data", v2 + dev_v3, got_2 + got_d)):
        if rows:
            print(f"\n   per pattern family, {name}")
            print("\n".join(summary_lines(rows, got, "pattern")))
    print("\n4. Leave-one-pattern-out: each family with the rules written for it switched off")
    for name, rows, got in ((fresh_name, heldout_v3, got_h), ("all tuning data", v2 + dev_v3, got_2 + got_d)):
        if rows:
            print(f"   {name}")
            print("\n".join(leave_one_pattern_out(rows, got)))
    if args.legacy:
        legacy = read_rows(LEGACY)
        print(f"\n   first labelled set ({len(legacy)} outputs, no questions)")
        print("\n".join(summary_lines(legacy, read_all(legacy), "kind")))
    if args.judge:
        print(f"\n5. Model judge on the {base_name} outputs the rules abstain on or read two ways")
        print("\n".join(run_judge(base_rows, base_got, args)))
    if args.show_errors:
        for r, v in zip(v2 + dev_v3, got_2 + got_d):
            if not is_correct(r["kind"], v, r["gold"], r.get("aliases")):
                print(f"  MISS {r.get('id')}: gold={r['gold']!r} got={v!r} <- {r['output'][:100]!r}")
    print(f"\n6. Throughput of the rule cascade, {n:,} outputs (one process; the machine may be shared)")
    print("\n".join(throughput(v2 + dev_v3, n)))


if __name__ == "__main__":
    main()
