"""Leakage audit: recall and precision on injected copies, side by side with exact matching; speed and memory.

Synthetic text made here (no downloads): documents of 12-40 words drawn from a Zipf(1.1) vocabulary
of 30,000 words, so that common words recur as in real text. A share of the test part (1%, 5%, 20%)
is replaced by copies of training documents, a quarter of each kind:

- verbatim: the training text;
- normalized: upper-cased, a comma after a word, a question mark at the end;
- re-wrapped: the same words broken over lines at other places, with runs of spaces;
- 10% changed: one word in ten (at least one) replaced by a word of the vocabulary.

Recall is per kind (share of injected copies flagged, and flagged with the right training
document); precision is over every flagged test document (flagged ones that are injected copies).
Exact matching only (the naive check) is shown beside gengap's audit. The near-copy threshold
(``DEFAULT_THRESHOLD``) was chosen on seed 0 (``--tune`` prints that sweep); the figures reported
first are from seed 1, held out.

Then the cost: 1,000,000 train x 100,000 test documents, wall time and peak resident memory of the
whole process (generation included), and datasketch's ``MinHashLSH`` (the same threshold and
number of hash functions) beside gengap's numpy MinHash at a size datasketch finishes quickly.

    python benchmarks/bench_leakage.py                 # 100,000 x 10,000 (a minute or two)
    python benchmarks/bench_leakage.py --train 1000000 # the issue's size: 1,000,000 x 100,000
    python benchmarks/bench_leakage.py --tune          # the threshold sweep on the tuning seed
    python benchmarks/bench_leakage.py --train 1000000 --cost-only   # the cost section alone
"""

from __future__ import annotations

import argparse
import os
import resource
import time

import numpy as np

from gengap.analysis._copies import DEFAULT_THRESHOLD, MIN_WORDS, find_copies, normalize

KINDS = ("verbatim", "normalized", "re-wrapped", "10% changed")
RATES = (0.01, 0.05, 0.20)


class Corpus:
    """Zipf-distributed synthetic documents (word ids joined by spaces)."""

    def __init__(self, seed: int, vocab: int = 30_000) -> None:
        self.rng = np.random.default_rng(seed)
        ranks = np.arange(1, vocab + 1)
        p = 1 / ranks ** 1.1
        self.p = p / p.sum()
        self.words = np.array([f"w{i}" for i in range(vocab)], dtype=object)

    def docs(self, n: int) -> list[str]:
        lengths = self.rng.integers(12, 41, n)
        ids = self.rng.choice(len(self.words), size=int(lengths.sum()), p=self.p)
        tokens = self.words[ids]
        ends = np.cumsum(lengths)
        return [" ".join(tokens[e - k:e]) for e, k in zip(ends.tolist(), lengths.tolist())]

    def copy(self, text: str, kind: str) -> str:
        words = text.split()
        rng = self.rng
        if kind == "verbatim":
            return text
        if kind == "normalized":
            at = int(rng.integers(0, len(words) - 1))
            words[at] += ","
            return " ".join(words).upper() + "?"
        if kind == "re-wrapped":
            out = []
            for w in words:
                out.append(w)
                out.append("\n" if rng.random() < 0.15 else " " * int(rng.integers(1, 4)))
            return "".join(out).strip()
        k = max(1, round(0.1 * len(words)))
        for at in rng.choice(len(words), k, replace=False):
            words[at] = self.words[int(rng.choice(len(self.words), p=self.p))]
        return " ".join(words)


def make_task(n_train: int, n_test: int, rate: float, seed: int) -> tuple[list[str], list[str], dict[int, tuple[str, int]]]:
    """Train and test documents, and the injected copies: test position -> (kind, source train position)."""
    corpus = Corpus(seed)
    train, test = corpus.docs(n_train), corpus.docs(n_test)
    n_copies = int(round(rate * n_test))
    where = corpus.rng.choice(n_test, n_copies, replace=False)
    sources = corpus.rng.choice(n_train, n_copies, replace=False)
    truth = {}
    for j, (t, s) in enumerate(zip(where.tolist(), sources.tolist())):
        kind = KINDS[j % len(KINDS)]
        test[t] = corpus.copy(train[s], kind)
        truth[t] = (kind, s)
    return train, test, truth


def score(found: dict[int, int], truth: dict[int, tuple[str, int]]) -> dict[str, float]:
    out: dict[str, float] = {}
    for kind in KINDS:
        cases = [(t, s) for t, (k, s) in truth.items() if k == kind]
        out[kind] = sum(t in found for t, _ in cases) / max(len(cases), 1)
        out[kind + " (right source)"] = sum(found.get(t) == s for t, s in cases) / max(len(cases), 1)
    out["precision"] = sum(t in truth for t in found) / len(found) if found else float("nan")
    out["flagged"] = len(found)
    return out


def exact_only(train: list[str], test: list[str]) -> dict[int, int]:
    first: dict[str, int] = {}
    for i, t in enumerate(train):
        first.setdefault(t, i)
    return {i: first[t] for i, t in enumerate(test) if t in first}


def gengap_audit(train: list[str], test: list[str], threshold: float = DEFAULT_THRESHOLD) -> dict[int, int]:
    found = find_copies(train, test, threshold=threshold)
    return dict(zip(found["test"].tolist(), found["train"].tolist()))


def recall_table(n_train: int, n_test: int, seed: int) -> None:
    print(f"\n== Recall and precision, seed {seed}{' (held out)' if seed else ' (tuning)'}: "
          f"{n_train:,} train x {n_test:,} test, threshold {DEFAULT_THRESHOLD}, near copies from {MIN_WORDS} words")
    head = f"{'rate':>5}  {'method':<10} " + " ".join(f"{k:>11}" for k in KINDS) + f" {'precision':>9} {'flagged':>8}"
    print(head)
    for rate in RATES:
        train, test, truth = make_task(n_train, n_test, rate, seed)
        for name, fn in (("exact only", exact_only), ("gengap", gengap_audit)):
            r = score(fn(train, test), truth)
            print(f"{rate:>5.0%}  {name:<10} " + " ".join(f"{r[k]:>11.3f}" for k in KINDS)
                  + f" {r['precision']:>9.3f} {int(r['flagged']):>8,}")
        print(f"{'':>5}  {'(source)':<10} " + " ".join(f"{r[k + ' (right source)']:>11.3f}" for k in KINDS))


def tune(n_train: int, n_test: int) -> None:
    print(f"\n== Threshold sweep on the tuning seed 0 ({n_train:,} x {n_test:,}, 5% injected)")
    train, test, truth = make_task(n_train, n_test, 0.05, 0)
    for threshold in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8):
        r = score(gengap_audit(train, test, threshold), truth)
        print(f"threshold {threshold:.1f}: 10% changed recall {r['10% changed']:.3f}, precision {r['precision']:.3f}")


def _fill(corpus: Corpus, template: list[str], slots: list[int], n: int) -> list[str]:
    out = []
    for _ in range(n):
        words = list(template)
        for at in slots:
            words[at] = corpus.words[int(corpus.rng.integers(0, len(corpus.words)))]
        out.append(" ".join(words))
    return out


def templated(n_train: int, n_test: int) -> None:
    """Where near copies end: documents of one 16-word template that differ in k slot words are not copies
    of each other, but at k = 2 their 2-gram Jaccard (11/19 = 0.58) passes the threshold."""
    print(f"\n== Templated documents (not copies): one 16-word template, k slot words filled at random; "
          f"{n_train:,} train x {n_test:,} test; share of test documents flagged")
    corpus = Corpus(2)
    template = corpus.docs(1)[0].split()[:16]
    while len(template) < 16:
        template += corpus.docs(1)[0].split()
    for k in (1, 2, 3, 4, 6):
        slots = np.linspace(1, 14, k).round().astype(int).tolist()
        train, test = _fill(corpus, template, slots, n_train), _fill(corpus, template, slots, n_test)
        flagged_exact = len(exact_only(train, test)) / n_test
        found = find_copies(train, test)
        near = (found["kind"] == "near").mean() * len(found) / n_test if len(found) else 0.0
        print(f"k = {k}: exact only {flagged_exact:.3f}; gengap {len(found) / n_test:.3f} (near {near:.3f})")


def peak_rss_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def cost(n_train: int, n_test: int) -> None:
    print(f"\n== Cost: {n_train:,} train x {n_test:,} test (5% injected), {os.cpu_count()} cores seen")
    started = time.perf_counter()
    train, test, truth = make_task(n_train, n_test, 0.05, 1)
    made, cpu = time.perf_counter(), time.process_time()
    found = gengap_audit(train, test)
    done, cpu = time.perf_counter(), time.process_time() - cpu
    r = score(found, truth)
    load = os.getloadavg()[0]
    print(f"generating the text: {made - started:.1f} s; audit (exact, normalized, near): {done - made:.1f} s wall, "
          f"{cpu:.1f} s CPU (load average {load:.1f} on {os.cpu_count()} cores); peak RSS of the process: "
          f"{peak_rss_gib():.2f} GiB")
    print("recall " + ", ".join(f"{k} {r[k]:.3f}" for k in KINDS) + f"; precision {r['precision']:.3f}")


def versus_datasketch(n_train: int, n_test: int) -> None:
    try:
        from datasketch import MinHash, MinHashLSH
    except ImportError:
        print("\n(datasketch is not installed: pip install datasketch to compare)")
        return
    print(f"\n== gengap's numpy MinHash LSH beside datasketch's MinHashLSH: {n_train:,} x {n_test:,} (20% injected), "
          f"word 2-grams of normalized text, threshold {DEFAULT_THRESHOLD}, 128 hash functions")
    train, test, truth = make_task(n_train, n_test, 0.20, 1)
    started = time.perf_counter()
    ours = gengap_audit(train, test)
    ours_s = time.perf_counter() - started

    def sig(text: str) -> MinHash | None:
        words = normalize(text).split()
        if len(words) < MIN_WORDS:
            return None
        m = MinHash(num_perm=128, seed=1)
        m.update_batch([f"{a} {b}".encode() for a, b in zip(words, words[1:])])
        return m

    started = time.perf_counter()
    lsh = MinHashLSH(threshold=DEFAULT_THRESHOLD, num_perm=128)
    train_sigs = [sig(t) for t in train]
    for i, m in enumerate(train_sigs):
        if m is not None:
            lsh.insert(i, m)
    theirs: dict[int, int] = {}
    for j, t in enumerate(test):
        m = sig(t)
        if m is None:
            continue
        best = max(((train_sigs[i].jaccard(m), i) for i in lsh.query(m)), default=None)  # type: ignore[union-attr]
        if best is not None and best[0] >= DEFAULT_THRESHOLD:
            theirs[j] = best[1]
    theirs_s = time.perf_counter() - started
    for name, found, seconds in (("gengap", ours, ours_s), ("datasketch", theirs, theirs_s)):
        r = score(found, truth)
        print(f"{name:<10} {seconds:7.1f} s  " + ", ".join(f"{k} {r[k]:.3f}" for k in KINDS)
              + f"; precision {r['precision']:.3f}")
    print("(datasketch: near copies only, by estimated Jaccard of the best candidate; gengap: all kinds, exact Jaccard)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--train", type=int, default=100_000, help="training documents (test: a tenth)")
    parser.add_argument("--tune", action="store_true", help="print the threshold sweep on the tuning seed")
    parser.add_argument("--no-datasketch", action="store_true")
    parser.add_argument("--templates-only", action="store_true", help="only the templated-documents section")
    parser.add_argument("--cost-only", action="store_true", help="only the cost section")
    args = parser.parse_args()
    n_train, n_test = args.train, args.train // 10
    small = min(n_train, 100_000)
    if args.templates_only:
        templated(min(n_train, 20_000), min(n_train, 20_000) // 10)
        return
    if args.cost_only:
        cost(n_train, n_test)
        return
    if args.tune:
        tune(small, small // 10)
    recall_table(small, small // 10, seed=1)
    if not args.no_datasketch:
        versus_datasketch(min(n_train, 20_000), min(n_train, 20_000) // 10)
    templated(min(n_train, 20_000), min(n_train, 20_000) // 10)
    cost(n_train, n_test)


if __name__ == "__main__":
    main()
