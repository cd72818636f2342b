"""Maximum compound divergence splits: quality on SCAN, the D_A / D_C frontier, and scale.

Prints, side by side in one run:

1. All 20,910 SCAN commands (``tasks.txt``), 80/20, atoms = input words, compounds = input word 2- and
   3-grams: a random split, SCAN's official add-primitive jump and template around-right splits, and
   gengap's MCD split for 3 seeds (D_C, D_A, unseen test atoms, seconds).
2. The achievable frontier: the best D_C gengap finds for each bound on D_A.
3. Scale: a synthetic dataset of 1,000,000 examples with about 100,000 compound types (word
   bigrams): seconds and peak memory of one MCD split through the public API.

Usage: ``python benchmarks/bench_mcd.py [--quick] [--scan-dir DIR] [--n N]``. Timings are
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

from gengap.dataset import Dataset
from gengap.splits import MaxCompoundDivergence, RandomSplit
from gengap.structure import count_structure, split_structure

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
        return {l.partition(" OUT: ")[0].removeprefix("IN: ").strip() for l in lines if l.strip()}

    inputs = pd.Series(ds.inputs)
    return np.flatnonzero(inputs.isin(commands("train"))), np.flatnonzero(inputs.isin(commands("test")))


def row(name: str, d: dict, seconds: float | None, n_test: int) -> None:
    secs = "" if seconds is None else f"{seconds:8.2f}"
    print(f"{name:32s} {n_test:7,d} {d['compound_divergence']:8.4f} {d['atom_divergence']:8.4f} "
          f"{d['n_unseen_test_atoms']:7d} {d['unseen_test_compound_share']:8.4f} {secs}")


def scan_section(scan_dir: Path, seeds: list[int], bounds: list[float | None]) -> None:
    ds = read_commands(scan_dir / "tasks.txt")
    atoms, compounds = count_structure(ds, "words"), count_structure(ds, "ngrams:2,3", role="compounds")
    print(f"\nSCAN: {len(ds):,} commands, {atoms.n_types} atom types, {compounds.n_types} compound types")
    print(f"{'split':32s} {'n_test':>7s} {'D_C':>8s} {'D_A':>8s} {'unseen':>7s} {'novel%':>8s} {'seconds':>8s}")
    rs = RandomSplit(test_fraction=0.2, random_state=0).split_dataset(ds)
    row("random 80/20", split_structure(ds, rs.train, rs.test, atom_counts=atoms, compound_counts=compounds), None, len(rs.test))
    for name in ("addprim_jump", "template_around_right"):
        if (scan_dir / f"tasks_train_{name}.txt").exists():
            tr, te = official(ds, scan_dir, name)
            row(f"official {name}", split_structure(ds, tr, te, atom_counts=atoms, compound_counts=compounds), None, len(te))
    for seed in seeds:
        t, cpu = time.perf_counter(), cpu_seconds()
        split = MaxCompoundDivergence(test_fraction=0.2, random_state=seed).split_dataset(ds)
        row(f"gengap mcd seed={seed}", split.diagnostics, time.perf_counter() - t, len(split.test))
        print(f"{'':32s} (CPU {cpu_seconds() - cpu:.1f} s)")
    print("\nFrontier: best D_C found for each bound on D_A (seed 0)")
    print(f"{'max D_A':>8s} {'D_C':>8s} {'D_A':>8s} {'seconds':>8s}")
    for bound in bounds:
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            d = MaxCompoundDivergence(test_fraction=0.2, max_atom_divergence=bound, random_state=0).split_dataset(ds).diagnostics
        print(f"{str(bound):>8s} {d['compound_divergence']:8.4f} {d['atom_divergence']:8.4f} {time.perf_counter() - t:8.2f}")


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
        split = MaxCompoundDivergence(test_fraction=0.2, compounds="ngrams:2", random_state=0).split_dataset(ds)
    seconds, cpu = time.perf_counter() - t, cpu_seconds() - cpu
    d = split.diagnostics
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
    args = parser.parse_args()
    if not args.skip_scan:
        if (args.scan_dir / "tasks.txt").exists():
            scan_section(args.scan_dir, [0] if args.quick else [0, 1, 2],
                         [0.01, 0.02, None] if args.quick else [0.005, 0.01, 0.02, 0.03, 0.05, 0.1, None])
        else:
            print(f"SCAN files not found in {args.scan_dir}; skipping the SCAN section.")
    if not args.skip_scale:
        scale_section(args.n or (50_000 if args.quick else 1_000_000))


if __name__ == "__main__":
    main()
