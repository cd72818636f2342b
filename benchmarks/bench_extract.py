"""Answer extraction: gengap's cascade versus lm-evaluation-harness's stock filters, same outputs.

Correctness on ``benchmarks/data/extraction_labelled.jsonl`` (hand-written model outputs of four
kinds with gold extractions, in a development set the rules were refined on and a held-out set
written afterwards and never used to change a rule; a gold of null means the output commits to no answer, and the right
outcome is "unextracted"). Both sides are scored by the same comparison: numbers by value, letters
and yes/no by identity, short text after lower-casing and dropping punctuation and articles.

lm_eval filters (run in its own environment, ``benchmarks/.lmeval-venv``):

- number: gsm8k ``strict-match`` (``#### (\\-?[0-9\\.\\,]+)``) and ``flexible-extract``
  (``(-?[$0-9.,]{2,})|(-?[0-9]+)``, last match);
- choice: ``MultiChoiceRegexFilter`` with ``\\(([A-Z])\\)``-style pattern, last match, ignoring case
  and punctuation (the MMLU chain-of-thought configuration, option-text fallback included);
- yes/no: a ``RegexFilter`` on ``\\b(Yes|No|yes|no|True|False|true|false)\\b`` (first match);
- text: the chain-of-thought ``strict-match`` regex (``(?<=The answer is )(.*)(?=.)`` and its
  siblings) and the TriviaQA pipeline (first line, ``remove_whitespace``, ``take_first``).

Throughput: gengap extractions per second over 1,000,000 outputs (the labelled outputs repeated).

    python benchmarks/bench_extract.py            # everything
    python benchmarks/bench_extract.py --quick    # 20,000 outputs for the throughput figure
    python benchmarks/bench_extract.py --skip-lmeval --show-errors
"""

from __future__ import annotations

import argparse
import json
import time
from fractions import Fraction
from pathlib import Path

from gengap.extract import extract, normalize_text, parse_number

try:
    from benchmarks._lmeval import run_in_lmeval
except ImportError:  # run as a script from the benchmarks folder
    from _lmeval import run_in_lmeval

DATA = Path(__file__).resolve().parent / "data" / "extraction_labelled.jsonl"

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


def read_rows(path: Path = DATA) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _number_value(value: str | None) -> Fraction | None:
    if value is None or value == "[invalid]":
        return None
    return parse_number(value.strip().rstrip(".").replace(",", ""))


def is_correct(kind: str, got: str | None, gold: str | None) -> bool:
    """The shared judge: the same comparison for gengap's and lm_eval's extractions."""
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
    return normalize_text(got) == normalize_text(gold)


def gengap_side(rows: list[dict]) -> list[str | None]:
    return [extract(r["output"], r["kind"], choices=r["choices"]).value for r in rows]


def align(rows: list[dict], lmeval: dict) -> dict[str, list[str | None]]:
    """lm_eval's per-kind output lists as lists over all rows (None for rows of other kinds)."""
    out = {}
    for kind, names in LMEVAL_FILTERS.items():
        idx = [i for i, r in enumerate(rows) if r["kind"] == kind]
        for name in names:
            full: list[str | None] = [None] * len(rows)
            for i, v in zip(idx, lmeval[name]):
                full[i] = v
            out[name] = full
    return out


def table(rows: list[dict], gengap: list[str | None], lmeval: dict | None, subset: list[int]) -> list[str]:
    kinds = ["number", "choice", "yes_no", "text"]
    lines = [f"{'kind':<8} {'n':>4}  {'gengap':>7}  {'unextr.':>7}   lm_eval filters (accuracy)"]
    total_g, total_l, n_all = 0, 0.0, 0
    for kind in kinds:
        idx = [i for i in subset if rows[i]["kind"] == kind]
        if not idx:
            continue
        ok = [is_correct(kind, gengap[i], rows[i]["gold"]) for i in idx]
        unextracted = sum(gengap[i] is None for i in idx) / len(idx)
        cells, best = [], 0.0
        if lmeval:
            for name in LMEVAL_FILTERS[kind]:
                acc = sum(is_correct(kind, lmeval[name][i], rows[i]["gold"]) for i in idx) / len(idx)
                best = max(best, acc)
                cells.append(f"{name.split('/')[1]} {acc:6.1%}")
            total_l += best * len(idx)
        acc_g = sum(ok) / len(idx)
        total_g += sum(ok)
        n_all += len(idx)
        verdict = "" if not lmeval else ("  gengap ahead" if acc_g > best else "  NOT ahead")
        lines.append(f"{kind:<8} {len(idx):>4}  {acc_g:7.1%}  {unextracted:7.1%}   {' | '.join(cells)}{verdict}")
    summary = f"{'overall':<8} {n_all:>4}  {total_g / n_all:7.1%}"
    if lmeval:
        summary += f"            best lm_eval filter per kind: {total_l / n_all:6.1%}"
    lines.append(summary)
    return lines


def throughput(rows: list[dict], n: int) -> list[str]:
    lines = []
    for kind in ["number", "choice", "yes_no", "text"]:
        pool = [r for r in rows if r["kind"] == kind]
        share = n // 4
        outputs = [pool[i % len(pool)] for i in range(share)]
        start = time.perf_counter()
        for r in outputs:
            extract(r["output"], kind, choices=r["choices"])
        secs = time.perf_counter() - start
        lines.append(f"{kind:<8} {share:>9,} outputs  {secs:7.2f} s  {share / secs:>10,.0f} per s")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="20,000 outputs for the throughput figure")
    parser.add_argument("--skip-lmeval", action="store_true", help="gengap's side only")
    parser.add_argument("--show-errors", action="store_true", help="print gengap's misreadings")
    args = parser.parse_args()
    rows = read_rows()
    gengap = gengap_side(rows)
    lmeval = None if args.skip_lmeval else run_in_lmeval(LMEVAL_CODE, {"rows": rows}, timeout=600)
    lmeval = align(rows, lmeval) if lmeval else None
    sets = {"all": list(range(len(rows)))}
    for name in ("development", "heldout"):
        sets[name] = [i for i, r in enumerate(rows) if r.get("set") == name]
    notes = {"development": "written alongside the extractor; its rules were refined on these",
             "heldout": "written afterwards and never used to change a rule",
             "all": "both sets"}
    for name, subset in sets.items():
        print(f"\nExtraction correctness, {name} set: {len(subset)} labelled outputs ({notes[name]})")
        print("\n".join(table(rows, gengap, lmeval, subset)))
    if args.show_errors:
        for r, got in zip(rows, gengap):
            if not is_correct(r["kind"], got, r["gold"]):
                print(f"  MISS {r['id']}: gold={r['gold']!r} got={got!r} <- {r['output'][:100]!r}")
    n = 20_000 if args.quick else 1_000_000
    print(f"\nExtraction throughput, {n:,} outputs (one process; preliminary on a shared machine)")
    print("\n".join(throughput(rows, n)))


if __name__ == "__main__":
    main()
