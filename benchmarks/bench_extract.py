"""Answer extraction measured on outputs nobody tuned on: held-out accuracy first, with intervals.

Data: ``benchmarks/data/extraction_v2/`` holds a labelled set written independently of the rules
(questions, options, model outputs of four kinds, the gold answer; a gold of null means the output
commits to no answer and the right outcome is "unextracted"), split by its author into a
development part (``dev.jsonl``: the rules were tuned on it) and a held-out part
(``heldout.jsonl``: frozen before tuning and read only after the rules were committed).

What it prints, in this order:

1. held-out accuracy with a 95% Wilson interval, overall, per kind, per difficulty; coverage (share
   of outputs with an answer read) and precision (share of the answers read that are right)
   separately, and how often a no-answer output was left unextracted;
2. lm-evaluation-harness's stock filters on the same held-out outputs (its own environment,
   ``benchmarks/_lmeval.py``), the best filter per kind;
3. the same figures on the development part, and per pattern family;
4. a leave-one-pattern-out estimate: each pattern family measured with the rule families written
   for it switched off (see ``PATTERN_FAMILIES``), i.e. what the rest of the cascade reads on a
   class of outputs nobody wrote rules for;
5. with ``--judge URL``: an OpenAI-compatible endpoint (e.g. a llama.cpp server) asked about the
   held-out outputs the rules abstain on or read two ways; its agreement with the rules;
6. throughput of the rule cascade on one core (target: at least 5,000 outputs per second).

    python benchmarks/bench_extract.py                 # everything (about a minute)
    python benchmarks/bench_extract.py --quick         # 20,000 outputs for the throughput figure
    python benchmarks/bench_extract.py --skip-lmeval --show-errors
    python benchmarks/bench_extract.py --judge http://127.0.0.1:8080/v1
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

from scipy.stats import binomtest

from gengap.extract import Extractor, extract, normalize_text, parse_number

try:
    from benchmarks._lmeval import run_in_lmeval
except ImportError:  # run as a script from the benchmarks folder
    from _lmeval import run_in_lmeval

DATA = Path(__file__).resolve().parent / "data" / "extraction_v2"
LEGACY = Path(__file__).resolve().parent / "data" / "extraction_labelled.jsonl"
KINDS = ["number", "choice", "yes_no", "text"]

#: Which rule families were written for which pattern family of the labelled set. The
#: leave-one-pattern-out estimate switches these off and measures the pattern's outputs.
#: "continuation" and "percent" are readers inside the cascade, switched off the same way.
PATTERN_FAMILIES = {
    "answer_first_then_explanation": ["answer_first"],
    "bare_answer_then_blank_line": ["answer_first"],
    "letter_then_other_letters_discussed": ["answer_first"],
    "answer_inside_sentence": ["answer_inside_sentence"],
    "self_correction": ["self_correction"],
    "markdown_table_then_notes": ["table"],
    "verdict_without_yes_no_words": ["verdict"],
    "idiom_with_no_in_yes_answer": ["idiom"],
    "option_by_text_or_paraphrase": ["option_text"],
    "option_by_number_or_ordinal": ["ordinal"],
    "articles_quotes_around_answer": ["quotes"],
    "refusal_or_no_answer": ["abstain"],
    "hedged_answer": ["abstain"],
    "base_model_continuation": ["continuation"],
    "percent_vs_decimal": ["percent"],
    "final_answer_marker": ["marker"],
    "chain_of_thought_last": ["marker"],
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


def is_correct(kind: str, got: str | None, gold: str | None, aliases: list[str] | None = None) -> bool:
    """The shared judge: the same comparison for gengap's and lm_eval's extractions (a short text
    answer may match the gold or one of its listed aliases)."""
    if isinstance(got, str) and (got == "[invalid]" or not got.strip()):
        got = None
    if gold is None:
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


def wilson(k: int, n: int) -> tuple[float, float]:
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return ci.low, ci.high


def cell(k: int, n: int) -> str:
    if n == 0:
        return "       -"
    low, high = wilson(k, n)
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
        read = [i for i in idx if got[i] is not None]
        right = sum(is_correct(rows[i]["kind"], got[i], rows[i]["gold"], rows[i].get("aliases")) for i in read)
        none_gold = [i for i in idx if rows[i]["gold"] is None]
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


def judge_lines(rows: list[dict], got: list[str | None], url: str) -> list[str]:
    lines = [f"  judge: {url}"]
    final = list(got)
    for kind in KINDS:
        idx = [i for i, r in enumerate(rows) if r["kind"] == kind]
        if not idx:
            continue
        ex = Extractor(kind, judge=url)
        start = time.perf_counter()
        found = ex.extract_all([rows[i]["output"] for i in idx], [rows[i].get("choices") for i in idx],
                               [rows[i].get("question") for i in idx])
        secs = time.perf_counter() - start
        for i, f in zip(idx, found):
            final[i] = f.value
        rep = ex.judge_report
        agreement = "-" if rep is None or rep.agreement is None else f"{rep.agreement:.0%}"
        lines.append(f"  {kind:<8} asked {rep.asked:>3} (abstained {rep.abstained}, contested {rep.contested}); "
                     f"filled {rep.filled}, agreed {rep.agreed}, overruled {rep.overruled}, declined {rep.declined}; "
                     f"agreement with the rules {agreement}; {secs:.1f} s")
    ok = sum(is_correct(r["kind"], v, r["gold"], r.get("aliases")) for r, v in zip(rows, final))
    lines.append(f"  accuracy with the judge: {cell(ok, len(rows))}  (rules alone: "
                 f"{cell(sum(is_correct(r['kind'], v, r['gold'], r.get('aliases')) for r, v in zip(rows, got)), len(rows))})")
    return lines


def throughput(rows: list[dict], n: int) -> list[str]:
    """Outputs per second of the cascade in this one process: per CPU second (what one core does,
    whatever else the machine runs) and per wall-clock second. No cache is keyed on the output text,
    so repeating outputs does not flatter the figure; question and option readings are cached, as
    they are in a real evaluation that reads many outputs per question."""
    lines = [f"  {'kind':<8} {'outputs':>9}  {'CPU s':>7}  {'per CPU s':>10}  {'wall s':>7}  {'per wall s':>10}"]
    total_n, total_cpu, total_wall = 0, 0.0, 0.0
    for kind in KINDS:
        pool = [r for r in rows if r["kind"] == kind]
        if not pool:
            continue
        share = n // 4
        items = [pool[i % len(pool)] for i in range(share)]
        cpu, wall = time.process_time(), time.perf_counter()
        for r in items:
            extract(r["output"], kind, question=r.get("question"), choices=r.get("choices"))
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        total_n, total_cpu, total_wall = total_n + share, total_cpu + cpu, total_wall + wall
        lines.append(f"  {kind:<8} {share:>9,}  {cpu:7.2f}  {share / cpu:>10,.0f}  {wall:7.2f}  {share / wall:>10,.0f}")
    verdict = "meets" if total_n / total_cpu >= 5000 else "BELOW"
    lines.append(f"  {'all':<8} {total_n:>9,}  {total_cpu:7.2f}  {total_n / total_cpu:>10,.0f}  {total_wall:7.2f}  "
                 f"{total_n / total_wall:>10,.0f}   one core: {verdict} the 5,000 per s target")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help="folder with dev.jsonl and heldout.jsonl")
    parser.add_argument("--quick", action="store_true", help="20,000 outputs for the throughput figure")
    parser.add_argument("--skip-lmeval", action="store_true", help="gengap's side only")
    parser.add_argument("--show-errors", action="store_true", help="print gengap's misreadings on the development part")
    parser.add_argument("--judge", help="URL of an OpenAI-compatible API to judge what the rules cannot read")
    parser.add_argument("--legacy", action="store_true", help="also the first labelled set (its rules' own set)")
    args = parser.parse_args()
    dev = read_rows(args.data / "dev.jsonl")
    heldout = read_rows(args.data / "heldout.jsonl")
    got_h, got_d = read_all(heldout), read_all(dev)

    print(f"1. Held-out part: {len(heldout)} outputs, frozen before the rules were tuned")
    for by in ("kind", "difficulty"):
        print("\n".join(summary_lines(heldout, got_h, by)))
    if not args.skip_lmeval:
        print("\n2. lm-evaluation-harness stock filters, same held-out outputs")
        print("\n".join(lmeval_lines(heldout, got_h)))
    print(f"\n3. Development part: {len(dev)} outputs (the rules were tuned on these)")
    print("\n".join(summary_lines(dev, got_d, "kind")))
    print("\n   per pattern family, held-out")
    print("\n".join(summary_lines(heldout, got_h, "pattern")))
    print("\n4. Leave-one-pattern-out: each family with the rules written for it switched off")
    print("   held-out part")
    print("\n".join(leave_one_pattern_out(heldout, got_h)))
    print("   development part")
    print("\n".join(leave_one_pattern_out(dev, got_d)))
    if args.legacy:
        legacy = read_rows(LEGACY)
        print(f"\n   first labelled set ({len(legacy)} outputs, no questions)")
        print("\n".join(summary_lines(legacy, read_all(legacy), "kind")))
    if args.judge:
        print("\n5. Model judge on the held-out outputs the rules abstain on or read two ways")
        print("\n".join(judge_lines(heldout, got_h, args.judge)))
    if args.show_errors:
        for r, v in zip(dev, got_d):
            if not is_correct(r["kind"], v, r["gold"], r.get("aliases")):
                print(f"  MISS {r.get('id')}: gold={r['gold']!r} got={v!r} <- {r['output'][:100]!r}")
    n = 20_000 if args.quick else 200_000
    print(f"\n6. Throughput of the rule cascade, {n:,} outputs (one process; the machine may be shared)")
    print("\n".join(throughput(dev + heldout, n)))


if __name__ == "__main__":
    main()
