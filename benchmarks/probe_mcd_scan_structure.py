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
   filled with the best 102 single examples, which are the 102 single phrases);
3. with ``--neighbourhood`` (about 100 s CPU): every group move around that split, each filled exactly:
   drop none, one or two of its 12 held-out compounds, add one or two compound types (all their
   commands) whose new commands leave at most 102 places to fill, and the best of each;
4. with ``--halves`` (about 120 s CPU): the unseen share u that hold-outs can reach at all. A compound
   with "and" in it is held out by "and" commands only, so u adds up over the "and" and "after" halves:
   a beam search over unions of up to 7 "and" compound types finds the best u for each half size, and
   pairs of halves (the "after" half mirrors the "and" one) are completed to 4,182 with the lightest
   possible filler (the single phrases by compound mass, then the lightest joined commands, at their
   mass alone: less than any real fill costs).

Every row also splits D_C as ``1 - (1 - u) * r``: u is the share of test compound occurrences that
training never sees (the held-out compounds), r = sum over shared types of p^0.1 q^0.9 / (1 - u) is
how far the shared compounds' test frequencies lean from the training ones (1: not at all; below 1:
test over-represents them, which raises D_C and costs D_A).

    python benchmarks/probe_mcd_scan_structure.py [--scan-dir DIR] [--neighbourhood]
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections.abc import Callable
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


def _single_moves(in_test: np.ndarray, rows: np.ndarray, c: sp.csr_matrix, a: sp.csr_matrix,
                  tot_c: np.ndarray, tot_a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """D_C and D_A after moving each of ``rows`` (training examples) alone to test, and whether the move
    would leave a test atom unseen in training; scored exactly from the counts."""
    x = in_test.astype(np.float64)
    te_c, te_a = c.T @ x, a.T @ x
    value = []
    for m, te, tot, alpha in ((c[rows], te_c, tot_c, 0.1), (a[rows], te_a, tot_a, 0.5)):
        tr = tot - te
        rid = np.repeat(np.arange(len(rows)), np.diff(m.indptr))
        k, v = m.indices, m.data
        ds = np.bincount(rid, _terms(tr[k] - v, te[k] + v, alpha) - _terms(tr[k], te[k], alpha), minlength=len(rows))
        r = np.bincount(rid, v, minlength=len(rows))
        s = _terms(tr, te, alpha).sum()
        value.append(1 - (s + ds) / ((tr.sum() - r) ** alpha * (te.sum() + r) ** (1 - alpha)))
    sub = a[rows]
    rid = np.repeat(np.arange(len(rows)), np.diff(sub.indptr))
    unseen = np.bincount(rid, (tot_a - te_a)[sub.indices] - sub.data <= 0, minlength=len(rows)) > 0
    return value[0], value[1], unseen


def fill(in_test: np.ndarray, n_test: int, c: sp.csr_matrix, a: sp.csr_matrix, max_da: float = 0.02,
         pool: int | None = None) -> np.ndarray:
    """Add examples five at a time, each time those whose move to test gives the highest D_C (less 10 x any
    excess of D_A over max_da), never one that leaves a test atom unseen in training; every candidate is
    scored exactly from the counts. ``pool``: score only the pool x room examples that look best at the start,
    plus the room best for D_A (much faster, and the same fills on SCAN's structures here)."""
    in_test = in_test.copy()
    tot_c, tot_a = np.asarray(c.sum(axis=0)).ravel(), np.asarray(a.sum(axis=0)).ravel()
    rows = np.flatnonzero(~in_test)
    room = n_test - int(in_test.sum())
    if pool is not None and room > 0:
        dc, da, unseen = _single_moves(in_test, rows, c, a, tot_c, tot_a)
        by_dc = np.argsort(np.where(unseen, np.inf, -dc), kind="stable")[: pool * room + 20]
        by_both = np.argsort(np.where(unseen, np.inf, -(dc - 10 * np.maximum(0, da - max_da))), kind="stable")[: room + 20]
        rows = rows[np.union1d(by_dc, by_both)]
    while (room := n_test - int(in_test.sum())) > 0:
        free = rows[~in_test[rows]]
        dc, da, unseen = _single_moves(in_test, free, c, a, tot_c, tot_a)
        score = np.where(unseen, -np.inf, dc - 10 * np.maximum(0, da - max_da))
        take = np.argsort(-score, kind="stable")[: min(5, room)]
        take = take[np.isfinite(score[take])]
        if take.size == 0:
            if len(rows) == len(in_test):
                raise ValueError("no example can move to test without leaving a test atom unseen in training")
            rows = np.arange(len(in_test))  # the pool ran dry: score every example
            continue
        in_test[free[take]] = True
    return in_test


def decompose(in_test: np.ndarray, c: sp.csr_matrix) -> tuple[float, float]:
    """(u, r) with D_C = 1 - (1 - u) * r: the unseen share of test compound occurrences, and the lean of the
    shared compounds (sum over shared types of p^0.1 q^0.9, divided by 1 - u)."""
    te = c.T @ in_test.astype(np.float64)
    tr = np.asarray(c.sum(axis=0)).ravel() - te
    u = float(te[tr <= 0].sum() / te.sum())
    shared = (tr > 0) & (te > 0)
    coefficient = float(np.sum((tr[shared] / tr.sum()) ** 0.1 * (te[shared] / te.sum()) ** 0.9))
    return u, coefficient / (1 - u)


def neighbourhood(names: list[str], holding: Callable[[list[str]], np.ndarray], types: list[str], n_test: int,
                  c: sp.csr_matrix, a: sp.csr_matrix, top: int = 25) -> list[tuple[float, float, list[str], list[str]]]:
    """Group moves around the hold-out ``names``: drop none, one or two of them (the first two, the large
    'right and' / 'right after' families, only alone), add one or two compound types whose commands not yet
    in test fit the room left, with at most 102 places to fill. For each set of dropped types the ``top``
    additions by D_C before filling (less 0.0023 per 102 places still to fill, the cost of the single phrases)
    are filled exactly. Returns (D_C, D_A, dropped, added) for the best filled split of each set of dropped types."""
    has = (c > 0).tocsc()
    df = np.diff(has.indptr)
    tot_c = np.asarray(c.sum(axis=0)).ravel()
    holdable = np.flatnonzero((df > 0) & (df <= n_test))
    drops = [(), *itertools.combinations(names, 1), *itertools.combinations(names[2:], 2)]
    out = []
    for drop in drops:
        base = holding([t for t in names if t not in drop])
        room = n_test - int(base.sum())
        new = sp.csr_matrix(has[:, holdable].T.astype(np.float64).multiply((~base).astype(np.float64)[None, :]))
        size = np.asarray(new.sum(axis=1)).ravel()
        overlap = (new @ new.T).toarray()
        te0 = c.T @ base.astype(np.float64)
        fits = np.flatnonzero((size > 0) & (size <= room))
        candidates = []
        for i in fits:
            for j in [None, *fits[fits > i]]:
                k = [i] if j is None else [i, j]
                added = size[i] if j is None else size[i] + size[j] - overlap[i, j]
                if not room - 102 <= added <= room or (j is not None and overlap[i, j] >= min(size[i], size[j])):
                    continue
                part = base | holding([types[holdable[x]] for x in k])
                te = te0 + c.T @ (part & ~base).astype(np.float64)
                tr = tot_c - te
                both = (tr > 0) & (te > 0)
                dc = 1 - np.sum(tr[both] ** 0.1 * te[both] ** 0.9) / (tr.sum() ** 0.1 * te.sum() ** 0.9)
                candidates.append((dc - 0.0023 / 102 * (room - added), part, [types[holdable[x]] for x in k]))
        candidates.sort(key=lambda t: -t[0])
        best = None
        for _, part, added_names in candidates[:top]:
            filled = fill(part, n_test, c, a, pool=3)
            te_c, te_a = c.T @ filled.astype(np.float64), a.T @ filled.astype(np.float64)
            tr_c, tr_a = tot_c - te_c, np.asarray(a.sum(axis=0)).ravel() - te_a
            both_c, both_a = (tr_c > 0) & (te_c > 0), (tr_a > 0) & (te_a > 0)
            dc = 1 - np.sum(tr_c[both_c] ** 0.1 * te_c[both_c] ** 0.9) / (tr_c.sum() ** 0.1 * te_c.sum() ** 0.9)
            da = 1 - np.sum(np.sqrt(tr_a[both_a] * te_a[both_a])) / np.sqrt(tr_a.sum() * te_a.sum())
            if da <= 0.02 + 1e-12 and (best is None or dc > best[0] + 1e-9):
                best = (float(dc), float(da), list(drop), added_names)
        if best is not None:
            out.append(best)
    return out


def half_beam(c: sp.csr_matrix, inputs: list[str], word: str = "and", max_size: int = 2300, width: int = 25,
              depth: int = 7, lam: float = 0.27) -> dict[int, tuple[float, float, int, list[int]]]:
    """For each size band of 25 commands: the best (U, E, size, types) found for a test part made of whole compound
    types that occur only in commands holding ``word``. U: occurrences of the types the part holds out, E: its
    compound occurrences. Beam search: add one type at a time, keeping per band of 100 the ``width`` best by U - lam E."""
    has = (c > 0).tocsc()
    tot = np.asarray(c.sum(axis=0)).ravel()
    with_word = np.array([word in text.split() for text in inputs])
    kinds = [k for k in range(c.shape[1]) if 0 < has.indptr[k + 1] - has.indptr[k] <= max_size
             and with_word[has.indices[has.indptr[k]:has.indptr[k + 1]]].all()]
    member = np.zeros((len(kinds), c.shape[0]), dtype=bool)
    for r, k in enumerate(kinds):
        member[r, has.indices[has.indptr[k]:has.indptr[k + 1]]] = True
    best: dict[int, tuple[float, float, int, list[int]]] = {}
    beam: list[frozenset[int]] = [frozenset()]
    seen: set[frozenset[int]] = set()
    for _ in range(depth):
        grown = [s | {t} for s in beam for t in range(len(kinds)) if t not in s]
        grown = [s for s in dict.fromkeys(grown) if s not in seen]
        seen.update(grown)
        kept: dict[int, list[tuple[float, frozenset[int]]]] = {}
        for start in range(0, len(grown), 1500):
            chunk = grown[start:start + 1500]
            masks = np.array([member[sorted(s)].any(axis=0) for s in chunk])
            te = (sp.csr_matrix(masks.astype(np.float64)) @ c).toarray()
            held = (te >= tot[None, :] - 1e-9) & (te > 0)
            for s, u_sum, e_sum, size in zip(chunk, (te * held).sum(axis=1), te.sum(axis=1), masks.sum(axis=1)):
                if size > max_size:
                    continue
                band = int(size) // 25
                if band not in best or u_sum / e_sum > best[band][0] / best[band][1]:
                    best[band] = (float(u_sum), float(e_sum), int(size), [kinds[t] for t in sorted(s)])
                kept.setdefault(int(size) // 100, []).append((u_sum - lam * e_sum, s))
        beam = [s for group in kept.values() for _, s in sorted(group, key=lambda t: -t[0])[:width]]
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scan-dir", type=Path, default=ROOT.parent / "shared" / "data" / "scan")
    parser.add_argument("--neighbourhood", action="store_true", help="also scan the group moves around the best split (~100 s CPU)")
    parser.add_argument("--halves", action="store_true", help="also bound the unseen share by the two conjunction halves (~120 s CPU)")
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
        u, r = decompose(in_test, c)
        secs = "" if seconds is None else f" {seconds:7.1f}"
        print(f"  {label:58s} {int(in_test.sum()):6,d} {in_test.mean():7.4f} {dc:7.4f} {da:7.4f} {unseen:6d} {u:7.4f} {r:7.5f}{secs}")

    header = f"  {'test part':58s} {'n_test':>6s} {'share':>7s} {'D_C':>7s} {'D_A':>7s} {'unseen':>6s} {'u':>7s} {'r':>7s}"
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
    show(f"'right and' + 'right after' + 10 families ({int(best.sum()):,}), unfilled", best)
    show(f"'right and' + 'right after' + 10 families ({int(best.sum()):,}), filled", fill(best, n_test, c, a))
    for label, names in (("'right and' + 'right after' + 8 verb families", BEST_AT_4182[:10]), ("balanced", BALANCED)):
        show(f"{label}, unfilled", holding(names))
    if args.neighbourhood:
        cpu = time.process_time()
        print("\n3. Group moves around that split (drop 0-2 of its held-out compounds, add 1-2 compound types, fill "
              "exactly; D_A <= 0.02), the best for each set dropped:")
        found = neighbourhood(BEST_AT_4182, holding, [str(t) for t in compounds.types], n_test, c, a)
        found.sort(key=lambda t: -t[0])
        shown: list[float] = []
        for dc, da, drop, added in found:  # one move for each of the 5 best distinct figures
            if len(shown) < 5 and all(abs(dc - d) > 1e-6 for d in shown):
                shown.append(dc)
                reached = sum(abs(f[0] - dc) <= 1e-6 for f in found)
                print(f"  D_C {dc:.4f}  D_A {da:.4f}  e.g. dropped {drop or '-'}, added {added} ({reached} of the sets dropped)")
        print(f"  {len(found)} sets dropped, {time.process_time() - cpu:.0f} s CPU; the best is the split of section 2 "
              f"({found[0][0]:.4f}); 0.2776 needs +{0.2776 - found[0][0]:.4f}")

    if args.halves:
        cpu = time.process_time()
        print("\n4. The unseen share u that whole held-out types can reach, by conjunction half (beam search, width 25 per "
              "100 commands, up to 7 types per half):")
        bands = half_beam(c, ds.inputs)
        names = [str(t) for t in compounds.types]
        for size in (1530, 1938, 2040, 2091, 2142):
            if size // 25 in bands:
                u_sum, e_sum, got, kinds = bands[size // 25]
                print(f"  best 'and' half of {size // 25 * 25:,}-{size // 25 * 25 + 24:,} commands: u {u_sum / e_sum:.4f} "
                      f"({got:,}: {', '.join(names[k] for k in kinds)})")
        single = np.array([" and " not in f" {t} " and " after " not in f" {t} " for t in ds.inputs])
        mass = np.asarray(c.sum(axis=1)).ravel()
        lightest = np.concatenate([np.sort(mass[single]), np.sort(mass[~single])])
        combos = []
        for x in bands.values():
            for y in bands.values():
                if x[2] + y[2] <= n_test:
                    filler = lightest[: n_test - x[2] - y[2]].sum()
                    combos.append(((x[0] + y[0]) / (x[1] + y[1] + filler), x[2], y[2]))
        u_best, size_and, size_after = max(combos)
        print(f"  best pair of halves at {n_test:,}: u <= {u_best:.4f} ('and' half {size_and:,}, 'after' half {size_after:,}, "
              f"filler {n_test - size_and - size_after:,}); {time.process_time() - cpu:.0f} s CPU")
        print(f"  D_C = 1 - (1 - u) r reaches 0.2776 only with u >= {1 - 0.7224 / 0.99505:.4f} at the best split's lean "
              f"(r 0.99505), or u >= {1 - 0.7224 / 0.99206:.4f} at the strongest lean seen at 4,182 under the bound "
              "(r 0.99206, 'and run' + 'right after' + 4 bare-verb 'after' families, filled: u 0.2660, D_C 0.2719)")


if __name__ == "__main__":
    main()
