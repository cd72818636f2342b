"""How high compound divergence goes on SCAN for a given test size, by the structure of the test part.

SCAN's 20,910 commands are 102 single phrases and 102 x 102 x 2 joined ones ("S1 and S2", "S1 after S2").
A test part that holds out a compound such as "left and" must take every command that holds it, so good
test parts are unions of whole families of commands. This probe builds test parts from named held-out
compounds, fills the rest of the room one example at a time (each time the example whose move raises
D_C most, within the atom bound), and recounts D_C, D_A and unseen test atoms from the texts with the
recount of ``bench_mcd.py``. It prints:

1. the balanced hold-out ("left and" + "right after" + the 8 bare-verb families such as "walk and";
   3,876 commands) filled to test sizes from 3,876 to 4,182 (80/20 is 4,182): D_C against test size;
   and gengap's MCD split (seed 0) at 4,010 and at 4,182 test commands;
2. at exactly 4,182: the best structure any search here found
   ("right and" + "right after" + 8 bare-verb families + "jump left after" + "walk left after",
   filled with the best 102 single examples, which are the 102 single phrases).

    python benchmarks/probe_mcd_scan_structure.py [--scan-dir DIR]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from gengap.splits import MaxCompoundDivergence
from gengap.structure.counts import count_structure

try:
    from benchmarks.bench_mcd import ROOT, read_commands, recount
except ImportError:  # run as a script from the benchmarks folder
    from bench_mcd import ROOT, read_commands, recount

VERB_FAMILIES = [f"{verb} {conj}" for verb in ("walk", "look", "run", "jump") for conj in ("and", "after")]
BALANCED = ["left and", "right after", *VERB_FAMILIES]
BEST_AT_4182 = ["right and", "right after", *VERB_FAMILIES, "jump left after", "walk left after"]


def _terms(tr: np.ndarray, te: np.ndarray, alpha: float) -> np.ndarray:
    return np.where((tr > 0) & (te > 0), np.maximum(tr, 0) ** alpha * np.maximum(te, 0) ** (1 - alpha), 0.0)


def fill(in_test: np.ndarray, n_test: int, c: sp.csr_matrix, a: sp.csr_matrix, max_da: float = 0.02) -> np.ndarray:
    """Add examples one at a time, each time the one whose move to test gives the highest D_C with D_A <= max_da
    and no test atom unseen in training (every candidate scored exactly from the counts)."""
    in_test = in_test.copy()
    n = c.shape[0]
    rc, ra = np.repeat(np.arange(n), np.diff(c.indptr)), np.repeat(np.arange(n), np.diff(a.indptr))
    tot_c, tot_a = np.asarray(c.sum(axis=0)).ravel(), np.asarray(a.sum(axis=0)).ravel()
    while in_test.sum() < n_test:
        x = in_test.astype(np.float64)
        te_c, te_a = c.T @ x, a.T @ x
        tr_c, tr_a = tot_c - te_c, tot_a - te_a
        value = []
        for m, rows, te, tr, alpha in ((c, rc, te_c, tr_c, 0.1), (a, ra, te_a, tr_a, 0.5)):
            k, v = m.indices, m.data
            ds = np.bincount(rows, _terms(tr[k] - v, te[k] + v, alpha) - _terms(tr[k], te[k], alpha), minlength=n)
            r = np.bincount(rows, v, minlength=n)
            s = _terms(tr, te, alpha).sum()
            value.append(1 - (s + ds) / ((tr.sum() - r) ** alpha * (te.sum() + r) ** (1 - alpha)))
        unseen = np.bincount(ra, (tr_a[a.indices] - a.data <= 0), minlength=n) > 0
        score = np.where(in_test | unseen | (value[1] > max_da), -np.inf, value[0])
        in_test[np.argsort(-score, kind="stable")[: min(5, n_test - int(in_test.sum()))]] = True
    return in_test


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scan-dir", type=Path, default=ROOT.parent / "shared" / "data" / "scan")
    args = parser.parse_args()
    if not (args.scan_dir / "tasks.txt").exists():
        raise SystemExit(f"SCAN's tasks.txt not found in {args.scan_dir}; pass --scan-dir DIR (the folder holding tasks.txt).")
    ds = read_commands(args.scan_dir / "tasks.txt")
    atoms, compounds = count_structure(ds, "words"), count_structure(ds, "ngrams:2,3", role="compounds")
    a = atoms.matrix.astype(np.float64).tocsr()
    c = compounds.matrix.astype(np.float64).tocsr()
    index = {str(t): k for k, t in enumerate(compounds.types)}
    has = (c > 0).tocsc()
    n, n_test = len(ds), round(0.2 * len(ds))

    def holding(names: list[str]) -> np.ndarray:
        out = np.zeros(n, dtype=bool)
        for name in names:
            k = index[name]
            out[has.indices[has.indptr[k]:has.indptr[k + 1]]] = True
        return out

    def show(label: str, in_test: np.ndarray, seconds: float | None = None) -> None:
        dc, da, unseen = recount(ds.inputs, np.flatnonzero(~in_test), np.flatnonzero(in_test))
        secs = "" if seconds is None else f" {seconds:7.1f}"
        print(f"  {label:58s} {int(in_test.sum()):6,d} {in_test.mean():7.4f} {dc:7.4f} {da:7.4f} {unseen:6d}{secs}")

    header = f"  {'test part':58s} {'n_test':>6s} {'share':>7s} {'D_C':>7s} {'D_A':>7s} {'unseen':>6s}"
    base = holding(BALANCED)
    print(f"1. Balanced hold-out ({', '.join(BALANCED[:2])} + 8 bare-verb families), filled to each size:")
    print(header)
    for size in (int(base.sum()), 3950, 4000, 4010, 4020, 4100, n_test):
        show(f"balanced, filled to {size:,}", fill(base, size, c, a))
    print(header + f" {'CPU s':>7s}")
    for size in (4010, n_test):
        cpu = time.process_time()
        split = MaxCompoundDivergence(test_fraction=size, seed=0).split_dataset(ds)
        mcd = np.zeros(n, dtype=bool)
        mcd[split.test] = True
        show(f"gengap MCD, seed 0, test_fraction={size}", mcd, time.process_time() - cpu)
    print(f"\n2. At exactly 80/20 ({n_test:,} test examples):")
    print(header)
    best = holding(BEST_AT_4182)
    show(f"'right and' + 'right after' + 10 families ({int(best.sum()):,}), filled", fill(best, n_test, c, a))


if __name__ == "__main__":
    main()
