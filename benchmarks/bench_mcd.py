"""Maximum compound divergence splits: quality on SCAN, the D_A / D_C frontier, and scale.

Prints, side by side in one run:

1. All 20,910 SCAN commands (``tasks.txt``), 80/20, atoms = input words, compounds = input word 2- and
   3-grams: a random split, SCAN's official add-primitive jump and template around-right splits, and
   gengap's MCD split for 3 seeds (D_C, D_A, unseen test atoms, seconds; D_C, D_A and unseen atoms
   recounted from the texts apart from gengap's code, and the compounds the split holds out whole).
2. The achievable frontier: the best D_C gengap finds for each bound on D_A.
3. A second grammar generated here (sentences 'DET NOUN VERB DET NOUN [PREP DET NOUN] [and|because
   CLAUSE]'): a random split and MCD for 3 seeds, recounted the same way.
4. How far up D_C can go on SCAN at 80/20 at all: the compound hold-outs that leave the largest
   share of test compound occurrences unseen, gengap's search with no bound on D_A at five times
   the default effort, and an independent search (linearized swaps from random starts, iterated).
5. Scale: a synthetic dataset of 1,000,000 examples with about 100,000 compound types (word
   bigrams): seconds and peak memory of one MCD split through the public API.

Usage: ``python benchmarks/bench_mcd.py [--quick] [--scan-dir DIR] [--n N] [--skip-ceiling]``. Timings are
wall-clock on whatever else the machine is doing; re-run on a quiet machine for final figures.
"""

from __future__ import annotations

import argparse
import resource
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from gengap.dataset import Dataset
from gengap.splits import MaxCompoundDivergence, RandomSplit
from gengap.structure.counts import count_structure, split_structure
from gengap.structure.divergence import compound_divergence

ROOT = Path(__file__).resolve().parents[1]


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_seconds() -> float:
    """CPU time of this process (user + system): less disturbed than wall time on a shared machine."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def read_commands(path: Path) -> Dataset:
    inputs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            command, _, _ = line.partition(" OUT: ")
            inputs.append(command.removeprefix("IN: ").strip())
    frame = pd.DataFrame({"id": [f"scan-{i:05d}" for i in range(len(inputs))], "input": inputs, "target": "-"})
    return Dataset.from_frame(frame, id="id", name="scan")


def official(ds: Dataset, scan_dir: Path, name: str) -> tuple[np.ndarray, np.ndarray]:
    def commands(part: str) -> set[str]:
        lines = (scan_dir / f"tasks_{part}_{name}.txt").read_text(encoding="utf-8").splitlines()
        return {line.partition(" OUT: ")[0].removeprefix("IN: ").strip() for line in lines if line.strip()}

    inputs = pd.Series(ds.inputs)
    return np.flatnonzero(inputs.isin(commands("train"))), np.flatnonzero(inputs.isin(commands("test")))


def recount(inputs: list[str], train: np.ndarray, test: np.ndarray) -> tuple[float, float, int]:
    """D_C, D_A and unseen test atoms counted here from the texts, apart from gengap's counting and
    divergence code: words as atoms, word 2- and 3-grams as compounds, occurrences counted, and
    D = 1 - sum_k p_k^alpha q_k^(1 - alpha) over the normalized train (p) and test (q) counts."""
    from collections import Counter

    def counts(rows: np.ndarray) -> tuple[Counter, Counter]:
        atoms, compounds = Counter(), Counter()
        for i in rows:
            words = inputs[i].split()
            atoms.update(words)
            compounds.update(" ".join(words[j:j + k]) for k in (2, 3) for j in range(len(words) - k + 1))
        return atoms, compounds

    def divergence(p: Counter, q: Counter, alpha: float) -> float:
        tp, tq = sum(p.values()), sum(q.values())
        return 1.0 - sum((p[k] / tp) ** alpha * (q[k] / tq) ** (1 - alpha) for k in p.keys() & q.keys())

    (a_train, c_train), (a_test, c_test) = counts(train), counts(test)
    return divergence(c_train, c_test, 0.1), divergence(a_train, a_test, 0.5), len(a_test.keys() - a_train.keys())


def row(name: str, d: dict, seconds: float | None, n_test: int) -> None:
    secs = "" if seconds is None else f"{seconds:8.2f}"
    print(f"{name:32s} {n_test:7,d} {d['compound_divergence']:8.4f} {d['atom_divergence']:8.4f} "
          f"{d['n_unseen_test_atoms']:7d} {d['unseen_test_compound_share']:8.4f} {secs}")


def mcd_rows(ds: Dataset, seeds: list[int]) -> None:
    """One row per seed of gengap's MCD split, its CPU time and its divergences recounted here."""
    for seed in seeds:
        t, cpu = time.perf_counter(), cpu_seconds()
        split = MaxCompoundDivergence(test_fraction=0.2, seed=seed).split_dataset(ds)
        row(f"gengap mcd seed={seed}", split.diagnostics.structure.to_dict(), time.perf_counter() - t, len(split.test))
        dc, da, unseen = recount(ds.inputs, split.train, split.test)
        held = split.diagnostics.figures["search"]["held_out_compounds"]
        print(f"{'':32s} (CPU {cpu_seconds() - cpu:.1f} s; recounted here: D_C {dc:.4f}, D_A {da:.4f}, unseen test atoms "
              f"{unseen}; held out whole: {', '.join(h['compound'] for h in held[:6])})")


def scan_section(scan_dir: Path, seeds: list[int], bounds: list[float | None]) -> None:
    ds = read_commands(scan_dir / "tasks.txt")
    atoms, compounds = count_structure(ds, "words"), count_structure(ds, "ngrams:2,3", role="compounds")
    print(f"\nSCAN: {len(ds):,} commands, {atoms.n_types} atom types, {compounds.n_types} compound types")
    print(f"{'split':32s} {'n_test':>7s} {'D_C':>8s} {'D_A':>8s} {'unseen':>7s} {'novel%':>8s} {'seconds':>8s}")
    rs = RandomSplit(test_fraction=0.2, seed=0).split_dataset(ds)
    row("random 80/20", split_structure(ds, rs.train, rs.test, atom_counts=atoms, compound_counts=compounds), None, len(rs.test))
    for name in ("addprim_jump", "template_around_right"):
        if (scan_dir / f"tasks_train_{name}.txt").exists():
            tr, te = official(ds, scan_dir, name)
            row(f"official {name}", split_structure(ds, tr, te, atom_counts=atoms, compound_counts=compounds), None, len(te))
    mcd_rows(ds, seeds)
    print("\nFrontier: the best D_C found for each bound on D_A (seed 0). 'this run' is the search with that bound;")
    print("'frontier' is the best of all runs whose D_A meets the bound (a split under a tighter bound meets a looser one).")
    print(f"{'max D_A':>8s} {'D_C':>8s} {'D_A':>8s} {'seconds':>8s} {'frontier':>9s}")
    found: list[tuple[float, float]] = []
    rows = []
    for bound in bounds:
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            d = MaxCompoundDivergence(test_fraction=0.2, max_atom_divergence=bound, seed=0).split_dataset(ds).diagnostics.to_dict()
        found.append((d["atom_divergence"], d["compound_divergence"]))
        rows.append((bound, d, time.perf_counter() - t))
    for bound, d, seconds in rows:
        best = max(dc for da, dc in found if bound is None or da <= bound + 1e-12)
        print(f"{bound!s:>8s} {d['compound_divergence']:8.4f} {d['atom_divergence']:8.4f} {seconds:8.2f} {best:9.4f}")


def sentences(n: int = 3000, seed: int = 0) -> Dataset:
    """A second grammar, generated here: 'DET NOUN VERB DET NOUN [PREP DET NOUN] [and|because CLAUSE]'."""
    rng = np.random.default_rng(seed)
    nouns, verbs = ["cat", "dog", "girl", "boy", "cake", "box", "ball", "bird"], ["saw", "liked", "helped", "found", "gave", "painted"]

    def noun_phrase() -> str:
        return f"{['the', 'a'][rng.integers(2)]} {nouns[rng.integers(len(nouns))]}"

    def clause() -> str:
        text = f"{noun_phrase()} {verbs[rng.integers(len(verbs))]} {noun_phrase()}"
        return text + (f" {['in', 'on', 'beside'][rng.integers(3)]} {noun_phrase()}" if rng.random() < 0.4 else "")

    out: set[str] = set()
    while len(out) < n:
        out.add(clause() + (f" {['and', 'because'][rng.integers(2)]} {clause()}" if rng.random() < 0.5 else ""))
    inputs = sorted(out)
    return Dataset(pd.DataFrame({"id": [f"s-{i:05d}" for i in range(n)], "input": inputs, "target": "-"}), name="sentences")


def grammar_section(seeds: list[int]) -> None:
    ds = sentences()
    atoms, compounds = count_structure(ds, "words"), count_structure(ds, "ngrams:2,3", role="compounds")
    print(f"\nA second grammar (generated): {len(ds):,} sentences, {atoms.n_types} atom types, {compounds.n_types} compound types")
    print(f"{'split':32s} {'n_test':>7s} {'D_C':>8s} {'D_A':>8s} {'unseen':>7s} {'novel%':>8s} {'seconds':>8s}")
    rs = RandomSplit(test_fraction=0.2, seed=0).split_dataset(ds)
    row("random 80/20", split_structure(ds, rs.train, rs.test, atom_counts=atoms, compound_counts=compounds), None, len(rs.test))
    mcd_rows(ds, seeds)


def _compound_divergence(in_test: np.ndarray, c: sp.csr_matrix) -> float:
    c_test = in_test.astype(np.float64) @ c
    return compound_divergence(np.asarray(c.sum(axis=0)).ravel() - c_test, c_test)


def hold_out_families(c: sp.csr_matrix, n_test: int) -> pd.DataFrame:
    """For each compound type held out alone: the examples that must go to test (all that contain it), the
    types that become unseen in training with it, and the share of those examples' compound occurrences
    that are unseen (u). With the shared compounds in their training proportions, D_C = 1 - (1 - u)^0.9."""
    has = (c > 0).tocsc()
    df = np.diff(has.indptr)
    mass = np.asarray(c.sum(axis=1)).ravel()
    rows = []
    for k in np.flatnonzero(df <= n_test):
        members = has.indices[has.indptr[k]:has.indptr[k + 1]]
        inside = np.asarray(has[members].sum(axis=0)).ravel() == df  # every example of the type is a member
        u = float(c[members][:, inside].sum() / mass[members].sum())
        rows.append({"type": k, "n_examples": len(members), "n_unseen_types": int(inside.sum()), "u": u})
    out = pd.DataFrame(rows).sort_values("u", ascending=False, kind="stable")
    out["d_c_at_training_proportions"] = 1 - (1 - out["u"]) ** 0.9
    return out


def linearized_swap_search(c: sp.csr_matrix, n_test: int, seed: int, kicks: int) -> np.ndarray:
    """An independent check on gengap's search, with no bound on D_A: from a random test part, swap at once
    every train/test pair whose first-order change of log C_0.1 (one occurrence at a time) is an
    improvement, halving the batch until the exact D_C rises; then kick (swap a random share, or hold out
    a random type whole) and repeat from the best part."""
    rng = np.random.default_rng(seed)
    n = c.shape[0]
    c_all = np.asarray(c.sum(axis=0)).ravel()

    def term(tr: np.ndarray, te: np.ndarray) -> np.ndarray:
        return np.power(np.maximum(tr, 0.0), 0.1) * np.power(np.maximum(te, 0.0), 0.9)

    def descend(in_test: np.ndarray) -> tuple[np.ndarray, float]:
        dc = _compound_divergence(in_test, c)
        while True:
            te = in_test.astype(np.float64) @ c
            tr = c_all - te
            s, e, t = term(tr, te).sum(), te.sum(), tr.sum()
            norm = 0.9 / e - 0.1 / t
            cost_in = c @ ((term(tr - 1, te + 1) - term(tr, te)) / s - norm)
            cost_out = c @ ((term(tr + 1, te - 1) - term(tr, te)) / s + norm)
            train, test = np.flatnonzero(~in_test), np.flatnonzero(in_test)
            go_in = train[np.argsort(cost_in[train], kind="stable")]
            go_out = test[np.argsort(cost_out[test], kind="stable")]
            k = min(len(go_in), len(go_out))
            batch = int(np.sum(cost_in[go_in[:k]] + cost_out[go_out[:k]] < 0))
            while batch >= 1:
                cand = in_test.copy()
                cand[go_in[:batch]], cand[go_out[:batch]] = True, False
                new = _compound_divergence(cand, c)
                if new > dc + 1e-9:
                    in_test, dc = cand, new
                    break
                batch //= 2
            if batch < 1:
                return in_test, dc

    start = np.zeros(n, dtype=bool)
    start[rng.choice(n, size=n_test, replace=False)] = True
    best, best_dc = descend(start)
    has = (c > 0).tocsc()
    for _ in range(kicks):
        cand = best.copy()
        if rng.random() < 0.33:
            k = int(n_test * rng.uniform(0.05, 0.4))
            into = rng.choice(np.flatnonzero(~cand), size=k, replace=False)
        else:
            j = rng.integers(c.shape[1])
            into = np.setdiff1d(has.indices[has.indptr[j]:has.indptr[j + 1]], np.flatnonzero(cand))
            if not 0 < len(into) <= n_test // 2:
                continue
        cand[rng.choice(np.flatnonzero(cand), size=len(into), replace=False)] = False
        cand[into] = True
        cand, dc = descend(cand)
        if dc > best_dc:
            best, best_dc = cand, dc
    return best


def ceiling_section(scan_dir: Path, seeds: list[int], kicks: int) -> None:
    ds = read_commands(scan_dir / "tasks.txt")
    atoms, compounds = count_structure(ds, "words"), count_structure(ds, "ngrams:2,3", role="compounds")
    c = compounds.matrix.astype(np.float64).tocsr()
    n_test = round(0.2 * len(ds))
    print("\nHow high can D_C go on SCAN at 80/20? (D_C = 1 - sum p^0.1 q^0.9; u = share of test compound "
          "occurrences unseen in training)")
    families = hold_out_families(c, n_test)
    print(f"Compound types held out alone ({len(families)} fit in {n_test:,} test examples), the 6 with the largest u:")
    print(f"  {'held-out type':18s} {'examples':>8s} {'unseen types':>12s} {'u':>7s} {'1-(1-u)^0.9':>11s}")
    for r in families.head(6).itertuples():
        print(f"  {compounds.types[r.type]!s:18s} {r.n_examples:8,d} {r.n_unseen_types:12d} {r.u:7.4f} {r.d_c_at_training_proportions:11.4f}")
    print("No bound on D_A (so any D_C found here is above what D_A <= 0.02 allows):")
    print(f"  {'search':44s} {'D_C':>8s} {'D_A':>8s} {'novel%':>8s} {'seconds':>8s}")
    for seed in seeds:
        t = time.perf_counter()
        d = MaxCompoundDivergence(test_fraction=0.2, max_atom_divergence=None, n_trials=200, n_rebuilds=50,
                                  max_iterations=500, seed=seed).split_dataset(ds).diagnostics.to_dict()
        print(f"  {f'gengap mcd, 5x effort, seed={seed}':44s} {d['compound_divergence']:8.4f} {d['atom_divergence']:8.4f} "
              f"{d['unseen_test_compound_share']:8.4f} {time.perf_counter() - t:8.1f}")
    for seed in seeds:
        t = time.perf_counter()
        in_test = linearized_swap_search(c, n_test, seed, kicks)
        d = split_structure(ds, np.flatnonzero(~in_test), np.flatnonzero(in_test), atom_counts=atoms, compound_counts=compounds)
        print(f"  {f'linearized swaps, {kicks} kicks, seed={seed}':44s} {d['compound_divergence']:8.4f} {d['atom_divergence']:8.4f} "
              f"{d['unseen_test_compound_share']:8.4f} {time.perf_counter() - t:8.1f}")


def synthetic(n: int, seed: int = 0, n_topics: int = 112, topic_vocab: int = 30, vocab: int = 3000) -> Dataset:
    """Examples of 3 to 8 words from one of ``n_topics`` topics of ``topic_vocab`` words each:
    about n_topics * topic_vocab**2 (here ~100,000) distinct bigrams at a million examples."""
    rng = np.random.default_rng(seed)
    topics = rng.integers(0, vocab, size=(n_topics, topic_vocab))
    lengths = rng.integers(3, 9, size=n)
    words = np.array([f"w{i}" for i in range(vocab)], dtype=object)
    tokens = words[topics[rng.integers(0, n_topics, size=n)[:, None], rng.integers(0, topic_vocab, size=(n, 8))]]
    inputs = [" ".join(r[:k]) for r, k in zip(tokens, lengths)]
    return Dataset(pd.DataFrame({"id": np.arange(n).astype(str), "input": inputs, "target": "-"}), name="synthetic")


def scale_section(n: int) -> None:
    before = peak_rss_mib()
    t = time.perf_counter()
    ds = synthetic(n)
    made = time.perf_counter() - t
    t, cpu = time.perf_counter(), cpu_seconds()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        split = MaxCompoundDivergence(test_fraction=0.2, compounds="ngrams:2", seed=0).split_dataset(ds)
    seconds, cpu = time.perf_counter() - t, cpu_seconds() - cpu
    d = split.diagnostics.to_dict()
    print(f"\nScale: {n:,} synthetic examples, {d['search']['n_compound_types']:,} compound types "
          f"({d['search']['n_atom_types']:,} atom types); data made in {made:.1f} s")
    print(f"  split in {seconds:.1f} s wall, {cpu:.1f} s CPU (search {d['search']['seconds']:.1f} s wall); peak RSS {peak_rss_mib():,.0f} MiB "
          f"(before the data: {before:,.0f} MiB)")
    print(f"  D_C {d['compound_divergence']:.4f}  D_A {d['atom_divergence']:.4f}  unseen test atoms {d['n_unseen_test_atoms']}"
          f"  n_test {d['n_test']:,}  warnings: {[str(w.message)[:80] for w in caught]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one seed, three bounds, 50,000 synthetic examples")
    parser.add_argument("--scan-dir", type=Path, default=ROOT.parent / "shared" / "data" / "scan")
    parser.add_argument("--n", type=int, default=None, help="synthetic examples (default 1,000,000; --quick 50,000)")
    parser.add_argument("--skip-scan", action="store_true")
    parser.add_argument("--skip-scale", action="store_true")
    parser.add_argument("--skip-grammar", action="store_true", help="skip the generated second grammar")
    parser.add_argument("--skip-ceiling", action="store_true", help="skip the section on how high D_C can go (about 3 min)")
    args = parser.parse_args()
    if not args.skip_scan:
        if (args.scan_dir / "tasks.txt").exists():
            scan_section(args.scan_dir, [0] if args.quick else [0, 1, 2],
                         [0.01, 0.02, None] if args.quick else [0.005, 0.01, 0.02, 0.03, 0.05, 0.1, None])
        else:
            print(f"SCAN files not found in {args.scan_dir}; skipping the SCAN section.")
    if not args.skip_grammar:
        grammar_section([0] if args.quick else [0, 1, 2])
    if not args.skip_ceiling and (args.scan_dir / "tasks.txt").exists():
        ceiling_section(args.scan_dir, [0] if args.quick else [0, 1, 2], 100 if args.quick else 1000)
    if not args.skip_scale:
        scale_section(args.n or (50_000 if args.quick else 1_000_000))


if __name__ == "__main__":
    main()
