"""Maximum compound divergence splits (MCD, Keysers et al. 2020; TMCD, Shaw et al. 2021).

The search, in three phases over the sparse example x type counts:

1. **Greedy hold-out.** Grow the test part one whole compound type at a time (all the type's
   training examples move to test, so the type is unseen in training), taking at random among the
   few types that raise the test part's compound divergence most; every candidate type is scored at
   once from the counts. Random orders of whole types are drawn too (one vectorized pass each).
2. **Rebuilds.** Release a random share of the held-out types and grow the part again; keep the
   result when it is better (a large-neighbourhood search).
3. **Swaps.** Score, for a sample of examples, the exact change of both divergences if that one
   example changed sides; pair the best test-to-train and train-to-test moves, apply the top pairs
   at once and keep them only if the exact objective improved (halving the batch otherwise).

The atom constraint (every test atom seen at least ``min_train_atom_count`` times in training) is
never broken; the atom-divergence bound enters the objective as a steep penalty, and the best
state that meets it is returned. When no state met it (the pull of D_C won over the penalty), swaps
under ever steeper penalties bring the part back under the bound.

Candidates are visited in a random order, so equally good states (the mirror images of a symmetric
grammar, such as SCAN's left and right) are found first by different seeds. Where one structure is
clearly best, seeds still share most of it; for a family of different splits, ask for a
``target_divergence`` or a tighter bound.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from gengap._errors import ConfigError, DataError
from gengap.dataset import Dataset
from gengap.splits._base import SplitDetails, Splitter, StructureFigures, TaxonomyCard, register_splitter, resolve_test_size
from gengap.structure.atoms import make_extractor
from gengap.structure.counts import StructureCounts, count_structure
from gengap.structure.divergence import ATOM_ALPHA, COMPOUND_ALPHA, IncrementalDivergence, _chernoff_sum, _terms
from gengap.structure.divergence import divergence_from_sum as _div_from

__all__ = ["MaxCompoundDivergence", "TargetMaxCompoundDivergence", "compound_weights", "held_out_compounds",
           "structure_counts"]

PENALTY = 10.0
# Scores closer than this are ties, and the first state found keeps its place: which of several
# equally good states (mirror images in a symmetric grammar, say) is found first depends on the seed,
# so seeds spread over them instead of rounding error picking the same one every time.
TIE = 1e-9


@dataclass
class SearchResult:
    in_test: np.ndarray
    atom_divergence: float
    compound_divergence: float
    feasible: bool
    trajectory: list[dict[str, Any]]
    n_trials: int
    n_iterations: int


class DivergenceSearch:
    """Search a test part of ``n_test`` examples that maximizes (or targets) compound divergence."""

    def __init__(self, atoms: sp.csr_matrix, compounds: sp.csr_matrix, n_test: int, *,
                 max_atom_divergence: float | None, min_train_atom_count: int,
                 target: float | None, rng: np.random.Generator,
                 n_trials: int = 40, n_greedy: int = 12, n_rebuilds: int = 40, max_iterations: int = 200, sample_size: int = 50_000) -> None:
        self.n_greedy = n_greedy
        self.penalty = PENALTY
        self.n_rebuilds = n_rebuilds
        self.held: list[int] = []
        self.dilution = 0.0
        self.A = IncrementalDivergence(atoms, alpha=ATOM_ALPHA)
        self.C = IncrementalDivergence(compounds, alpha=COMPOUND_ALPHA)
        self.n = atoms.shape[0]
        self.n_test = n_test
        self.max_da = max_atom_divergence
        self.kmin = min_train_atom_count
        self.target = target
        self.rng = rng
        self.n_trials = n_trials
        self.max_iterations = max_iterations
        self.sample_size = sample_size
        self.atom_totals = np.asarray(self.A.counts.sum(axis=0)).ravel()
        self.pinned = self._pinned()
        self.has_type = (self.C.counts > 0).astype(np.float64).tocsr()  # example x compound type, 0/1
        self.type_rows = self.has_type.tocsc()
        self.pinned_types = np.asarray(self.has_type[self.pinned].sum(axis=0)).ravel() > 0

    def _train_examples_of(self, types: np.ndarray, in_test: np.ndarray) -> tuple[sp.csr_matrix, np.ndarray]:
        """(types x examples) 0/1 matrix of the training examples holding each type, and its row sizes.

        Each row lists its examples in descending order (the order in which the search has always
        visited them, so that sums over them, and the split, do not depend on how this is computed)."""
        cols = self.type_rows[:, types[::-1]]  # each column's examples ascending; read backwards below
        rowid = np.repeat(np.arange(len(types))[::-1], np.diff(cols.indptr))
        keep = ~in_test[cols.indices]
        examples = cols.indices[keep][::-1]
        sizes = np.bincount(rowid[keep], minlength=len(types))
        indptr = np.concatenate([[0], np.cumsum(sizes)])
        b = sp.csr_matrix((np.ones(len(examples)), examples, indptr), shape=(len(types), self.n))
        return b, sizes.astype(np.float64)

    def _group_counts(self, binary: sp.csr_matrix) -> tuple[sp.csr_matrix, sp.csr_matrix]:
        """``binary @ counts`` for the compound and the atom counts; when ``binary`` touches few examples, from
        those rows of the counts only: the same sums in the same order, without passing over the whole count
        matrices (which dominates at a million examples)."""
        if 8 * binary.nnz > self.n:
            return (binary @ self.C.counts).tocsr(), (binary @ self.A.counts).tocsr()
        rows, local = np.unique(binary.indices, return_inverse=True)
        small = sp.csr_matrix((binary.data, local.reshape(-1), binary.indptr), shape=(binary.shape[0], len(rows)))
        return (small @ self.C.counts[rows]).tocsr(), (small @ self.A.counts[rows]).tocsr()

    def _train_doc_freq(self, in_test: np.ndarray) -> np.ndarray:
        return np.diff(self.type_rows.indptr) - np.asarray(self.has_type[in_test].sum(axis=0)).ravel()

    # -------------------------------------------------------------- constraint
    def _pinned(self) -> np.ndarray:
        """Examples that can never be in test: one of their atoms would be left under k in training."""
        a = self.A.counts
        rowid = np.repeat(np.arange(self.n), np.diff(a.indptr))
        bad = (self.atom_totals[a.indices] - a.data) < self.kmin
        return np.bincount(rowid, weights=bad, minlength=self.n) > 0

    def max_feasible_test(self) -> int:
        return int(self.n - self.pinned.sum())

    def violated_atoms(self, in_test: np.ndarray | None = None) -> np.ndarray:
        if in_test is not None:
            self.A.reset(in_test)
        return np.flatnonzero((self.A.test > 0) & (self.A.train < self.kmin))

    # -------------------------------------------------------------- objective
    def score(self, dc: Any, da: Any) -> Any:
        s = dc if self.target is None else -np.abs(dc - self.target)
        if self.max_da is not None:
            s = s - self.penalty * np.maximum(0.0, da - self.max_da)
        return s

    def feasible(self, da: float) -> bool:
        return self.max_da is None or da <= self.max_da + 1e-12

    # -------------------------------------------------------------- phase 1
    def _holdout(self, allowed: np.ndarray) -> np.ndarray:
        """Test part from one random order of compound types (allowed examples only)."""
        c = self.C.counts
        n_types = c.shape[1]
        rank = self.rng.permutation(n_types).astype(np.float64)
        entry = np.full(self.n, np.inf)
        has = np.diff(c.indptr) > 0
        if c.nnz:
            starts = c.indptr[:-1][has]
            entry[has] = np.minimum.reduceat(rank[c.indices], starts)
        # ties within a type and examples without compounds: random order
        key = entry + self.rng.random(self.n) * 0.5
        key[~allowed] = np.inf
        order = np.argsort(key, kind="stable")[: self.n_test]
        in_test = np.zeros(self.n, dtype=bool)
        in_test[order] = True
        return in_test

    def _repair(self, in_test: np.ndarray) -> np.ndarray | None:
        """Move test examples back until every test atom meets the constraint, refilling test."""
        allowed = ~self.pinned
        for _ in range(20):
            bad = self.violated_atoms(in_test)
            if bad.size == 0:
                return in_test
            cols = self.A.counts[:, bad]
            touching = np.asarray(cols.sum(axis=1)).ravel() > 0
            allowed = allowed & ~touching
            if allowed.sum() < self.n_test:
                return None
            keep = in_test & allowed
            need = self.n_test - int(keep.sum())
            fill = np.flatnonzero(allowed & ~keep)
            fill = self.rng.choice(fill, size=need, replace=False) if need > 0 else fill[:0]
            in_test = keep.copy()
            in_test[fill] = True
        return None

    def _evaluate(self, in_test: np.ndarray) -> tuple[float, float]:
        self.A.reset(in_test)
        self.C.reset(in_test)
        return self.C.value, self.A.value

    # -------------------------------------------------------------- phase 2
    def _iterate(self, in_test: np.ndarray, m: int) -> tuple[bool, int]:
        """One batch of swaps; returns (improved, batch size used)."""
        test_rows = np.flatnonzero(in_test)
        train_rows = np.flatnonzero(~in_test & ~self.pinned)
        half = self.sample_size // 2
        if len(test_rows) > half:
            test_rows = self.rng.choice(test_rows, size=half, replace=False)
        if len(train_rows) > half:
            train_rows = self.rng.choice(train_rows, size=half, replace=False)
        rows = np.concatenate([test_rows, train_rows])
        sign = np.concatenate([-np.ones(len(test_rows)), np.ones(len(train_rows))])
        dsc, rc, _, sc, tc, ec = self.C.single_moves(rows, sign)
        dsa, ra, rowid_a, sa, ta, ea = self.A.single_moves(rows, sign)
        # train-to-test moves that would leave an atom under k in training are not allowed
        sub = self.A.counts[rows]
        low = (self.A.train[sub.indices] - sign[rowid_a] * sub.data) < self.kmin
        ok = ~(np.bincount(rowid_a, weights=low & (sign[rowid_a] > 0), minlength=len(rows)) > 0)
        dc0, da0 = float(_div_from(sc, tc, ec, COMPOUND_ALPHA)), float(_div_from(sa, ta, ea, ATOM_ALPHA))
        base = self.score(dc0, da0)
        single = self.score(_div_from(sc + dsc, tc - sign * rc, ec + sign * rc, COMPOUND_ALPHA),
                            _div_from(sa + dsa, ta - sign * ra, ea + sign * ra, ATOM_ALPHA)) - base
        single = np.where(ok, single, -np.inf)
        nt = len(test_rows)
        out_order = np.argsort(-single[:nt], kind="stable")
        in_order = nt + np.argsort(-single[nt:], kind="stable")
        k = min(len(out_order), len(in_order))
        if k == 0:
            return False, m
        i, j = out_order[:k], in_order[:k]
        valid = np.isfinite(single[j])
        i, j = i[valid], j[valid]
        pair = self.score(
            _div_from(sc + dsc[i] + dsc[j], tc + rc[i] - rc[j], ec - rc[i] + rc[j], COMPOUND_ALPHA),
            _div_from(sa + dsa[i] + dsa[j], ta + ra[i] - ra[j], ea - ra[i] + ra[j], ATOM_ALPHA)) - base
        good = np.flatnonzero(pair > 1e-12)
        if good.size == 0:
            return False, m
        good = good[np.argsort(-pair[good], kind="stable")]
        m = min(m, good.size)
        while m >= 1:
            take = good[:m]
            out_rows, in_rows = rows[i[take]], rows[j[take]]
            self.C.move(in_rows, out_rows)
            self.A.move(in_rows, out_rows)
            dc1, da1 = self.C.value, self.A.value
            broken = np.any((self.A.test > 0) & (self.A.train < self.kmin))
            if not broken and self.score(dc1, da1) > base + 1e-12:
                in_test[out_rows] = False
                in_test[in_rows] = True
                return True, m
            self.C.move(out_rows, in_rows)
            self.A.move(out_rows, in_rows)
            m //= 2
        return False, 1

    def _type_move(self, in_test: np.ndarray, n_candidates: int = 2000, n_tries: int = 4) -> bool:
        """Hold out one more whole compound type: all its training examples go to test, and as many of the
        test examples that matter least go to train. Scored for many types at once; the best is verified."""
        test_rows = np.flatnonzero(in_test)
        present = self._train_doc_freq(in_test)
        cand = np.flatnonzero((present > 0) & (present <= max(1, self.n_test // 3)) & ~self.pinned_types)
        if cand.size == 0:
            return False
        cand = self.rng.permutation(cand)[:n_candidates]  # random order: equal scores tie-break by seed
        binary, sizes = self._train_examples_of(cand, in_test)
        kc, ka = self._group_counts(binary)
        dsc, rc = self._add_effect(self.C, kc)
        dsa, ra = self._add_effect(self.A, ka)
        blocked = self._blocked(ka)
        # the test examples that matter least, in order, with cumulative effects
        sign = -np.ones(len(test_rows))
        odc, orc, _, sc, tc, ec = self.C.single_moves(test_rows, sign)
        oda, ora, _, sa, ta, ea = self.A.single_moves(test_rows, sign)
        base = self.score(float(_div_from(sc, tc, ec, COMPOUND_ALPHA)), float(_div_from(sa, ta, ea, ATOM_ALPHA)))
        single = self.score(_div_from(sc + odc, tc + orc, ec - orc, COMPOUND_ALPHA),
                            _div_from(sa + oda, ta + ora, ea - ora, ATOM_ALPHA)) - base
        order = np.argsort(-single, kind="stable")
        cum = lambda x: np.concatenate([[0.0], np.cumsum(x[order])])
        cdc, crc, cda, cra = cum(odc), cum(orc), cum(oda), cum(ora)
        s_idx = np.minimum(sizes.astype(np.int64), len(order))
        gain = self.score(
            _div_from(sc + dsc + cdc[s_idx], tc - rc + crc[s_idx], ec + rc - crc[s_idx], COMPOUND_ALPHA),
            _div_from(sa + dsa + cda[s_idx], ta - ra + cra[s_idx], ea + ra - cra[s_idx], ATOM_ALPHA)) - base
        gain[blocked] = -np.inf
        best = np.argsort(-gain, kind="stable")[:n_tries]
        for b in best:
            if not gain[b] > 1e-12:
                break
            add = binary[b].indices
            drop = test_rows[order[: len(add)]]
            self.C.move(add, drop)
            self.A.move(add, drop)
            broken = np.any((self.A.test > 0) & (self.A.train < self.kmin))
            if not broken and self.score(self.C.value, self.A.value) > base + 1e-12:
                in_test[drop] = False
                in_test[add] = True
                return True
            self.C.move(drop, add)
            self.A.move(drop, add)
        return False

    def _greedy(self, n_candidates: int = 2000, top: int = 3, start: np.ndarray | None = None,
                held: list[int] | None = None) -> np.ndarray | None:
        """Grow the test part one whole compound type at a time, taking (at random among the ``top`` best)
        the type whose training examples raise compound divergence most; then fill the rest of the room
        with the examples whose move helps most."""
        in_test = np.zeros(self.n, dtype=bool) if start is None else start.copy()
        self.held = list(held or [])
        self.A.reset(in_test)
        self.C.reset(in_test)
        lam = PENALTY if self.max_da is not None else 0.0
        bound = self.max_da if self.max_da is not None else 1.0
        present = self._train_doc_freq(in_test)  # kept up to date as examples move to test
        mean_mass = float(self.C.counts.sum()) / self.n
        while True:
            n_in = int(in_test.sum())
            room = self.n_test - n_in
            if room <= 0:
                break
            cand = np.flatnonzero((present > 0) & (present <= room) & ~self.pinned_types)
            if cand.size == 0:
                break
            cand = self.rng.permutation(cand)[:n_candidates]  # random order: equal scores tie-break by seed
            binary, sizes = self._train_examples_of(cand, in_test)
            kc, ka = self._group_counts(binary)
            dsc, rc = self._add_effect(self.C, kc)
            dsa, ra = self._add_effect(self.A, ka)
            blocked = self._blocked(ka)
            sc, tc, ec = _chernoff_sum(self.C.train, self.C.test, COMPOUND_ALPHA), self.C.train.sum(), self.C.test.sum()
            sa, ta, ea = _chernoff_sum(self.A.train, self.A.test, ATOM_ALPHA), self.A.train.sum(), self.A.test.sum()
            dc = _div_from(sc + dsc, tc - rc, ec + rc, COMPOUND_ALPHA)
            da = _div_from(sa + dsa, ta - ra, ea + ra, ATOM_ALPHA)
            fill = (n_in + sizes) / self.n_test
            # the room left will be filled with examples like the training ones, which dilute D_C in
            # proportion to their compound mass: score the divergence the finished part would have
            grown = ec + rc
            projected = dc * (grown / (grown + np.maximum(room - sizes, 0) * mean_mass)) ** self.dilution
            value = projected - lam * fill ** 2 * np.maximum(0.0, da - bound)
            value[blocked] = -np.inf
            n_pick = max(1, int(room / max(1.0, float(np.median(sizes))) / 25))
            ranked = np.argsort(-value, kind="stable")[: top * n_pick]
            ranked = ranked[np.isfinite(value[ranked])]
            if ranked.size == 0:
                break
            chosen = self.rng.choice(ranked, size=min(n_pick, ranked.size), replace=False)
            chosen = chosen[np.cumsum(sizes[chosen]) <= room] if n_pick > 1 else chosen
            if chosen.size == 0:
                chosen = ranked[:1]
            self.held.extend(cand[chosen].tolist())
            add = np.unique(binary[chosen].indices)
            self.C.move(add, add[:0])
            self.A.move(add, add[:0])
            in_test[add] = True
            present -= np.bincount(self.has_type[add].indices, minlength=len(present))
        room = self.n_test - int(in_test.sum())
        if room > 0:
            rows = np.flatnonzero(~in_test & ~self.pinned)
            if rows.size < room:
                return None
            sign = np.ones(len(rows))
            dsc, rc, _, sc, tc, ec = self.C.single_moves(rows, sign)
            dsa, ra, rid, sa, ta, ea = self.A.single_moves(rows, sign)
            sub = self.A.counts[rows]
            low = np.bincount(rid, weights=(self.A.train[sub.indices] - sub.data) < self.kmin, minlength=len(rows)) > 0
            value = self.score(_div_from(sc + dsc, tc - rc, ec + rc, COMPOUND_ALPHA),
                               _div_from(sa + dsa, ta - ra, ea + ra, ATOM_ALPHA))
            value = np.where(low, -np.inf, value)
            in_test[rows[np.argsort(-value, kind="stable")[:room]]] = True
        return self._repair(in_test)

    def _destroy_repair(self, in_test: np.ndarray, held: list[int], share: float, top: int) -> tuple[np.ndarray | None, list[int]]:
        """Release a random share of the held-out types, keep the rest, and grow the test part again."""
        if not held:
            return self._greedy(top=top), list(self.held)
        keep = [h for h in held if self.rng.random() >= share]
        start = np.zeros(self.n, dtype=bool)
        if keep:
            start = np.asarray(self.C.counts[:, keep].sum(axis=1)).ravel() > 0
            start &= ~self.pinned
            if start.sum() > self.n_test:
                return None, held
        out = self._greedy(top=top, start=start, held=keep)
        return out, list(self.held)

    def _blocked(self, ka: sp.csr_matrix) -> np.ndarray:
        """For each row of ``ka`` (atoms a group of examples would take to test): would an atom fall under k in training?"""
        rid = np.repeat(np.arange(ka.shape[0]), np.diff(ka.indptr))
        low = (self.A.train[ka.indices] - ka.data) < self.kmin
        return np.bincount(rid, weights=low, minlength=ka.shape[0]) > 0

    @staticmethod
    def _add_effect(side: IncrementalDivergence, k: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
        rid = np.repeat(np.arange(k.shape[0]), np.diff(k.indptr))
        tr0, te0 = side.train[k.indices], side.test[k.indices]
        d = _terms(tr0 - k.data, te0 + k.data, side.alpha) - _terms(tr0, te0, side.alpha)
        return (np.bincount(rid, weights=d, minlength=k.shape[0]),
                np.bincount(rid, weights=k.data, minlength=k.shape[0]))

    # -------------------------------------------------------------- driver
    def run(self) -> SearchResult:
        if self.max_feasible_test() < self.n_test:
            raise ValueError("infeasible")
        trajectory: list[dict[str, Any]] = []
        best: tuple[float, np.ndarray, float, float] | None = None
        allowed = ~self.pinned
        for trial in range(self.n_trials):
            greedy = self.target is None and trial < self.n_greedy
            self.dilution = [0.0, 0.25, 0.5, 1.0][trial % 4]
            cand = self._greedy(top=2 + (trial // 4) % 2) if greedy else self._repair(self._holdout(allowed))
            if cand is None:
                continue
            if self.target is not None and trial % 2 == 1:
                cand = self._blend(cand)
            dc, da = self._evaluate(cand)
            s = float(self.score(dc, da))
            if best is None or s > best[0] + TIE:
                best = (s, cand, dc, da)
                self.best_held = list(self.held) if greedy else []
            trajectory.append({"phase": "greedy" if greedy else "holdout", "iteration": trial, "compound_divergence": round(best[2], 6),
                               "atom_divergence": round(best[3], 6)})
        if best is None:  # no hold-out met the atom constraint: start from a random feasible part
            cand = self._repair(self._random(allowed))
            if cand is None:
                raise ValueError("infeasible")
            dc, da = self._evaluate(cand)
            best = (float(self.score(dc, da)), cand, dc, da)
        held = list(getattr(self, "best_held", []))
        for it in range(self.n_rebuilds if self.target is None else 0):
            self.dilution = float(self.rng.choice([0.0, 0.1, 0.25, 0.5]))
            cand, cand_held = self._destroy_repair(best[1], held, share=0.1 + 0.4 * self.rng.random(), top=3)
            if cand is None:
                continue
            dc, da = self._evaluate(cand)
            s = float(self.score(dc, da))
            if s > best[0] + TIE:
                best = (s, cand, dc, da)
                held = cand_held
            trajectory.append({"phase": "rebuild", "iteration": it, "compound_divergence": round(best[2], 6),
                               "atom_divergence": round(best[3], 6)})
        in_test = best[1].copy()
        best_feasible, iterations = self._polish(in_test, best, trajectory)
        if best_feasible is None and self.max_da is not None:
            best_feasible = self._into_bound(in_test, trajectory)
        if best_feasible is not None:
            final, dc, da = best_feasible
            return SearchResult(final, da, dc, True, trajectory, self.n_trials, iterations)
        dc, da = self._evaluate(in_test)
        return SearchResult(in_test, da, dc, False, trajectory, self.n_trials, iterations)

    def _polish(self, in_test: np.ndarray, best: tuple[float, np.ndarray, float, float],
                trajectory: list[dict[str, Any]]) -> tuple[tuple[np.ndarray, float, float] | None, int]:
        """Phase 3: whole-type moves and batched swaps from ``in_test`` (changed in place) while they improve;
        returns the best state that meets the atom bound (or None) and the rounds used."""
        self._evaluate(in_test)
        best_feasible = (in_test.copy(), best[2], best[3]) if self.feasible(best[3]) else None
        m = max(1, self.n_test // 10)
        stalls = 0
        iterations = 0
        for it in range(self.max_iterations):
            iterations = it + 1
            improved = self._type_move(in_test)
            if not improved:
                improved, m = self._iterate(in_test, m)
            if not improved:
                stalls += 1
                if stalls >= 3 or (self.sample_size >= self.n and stalls >= 2):
                    break
                m = max(1, self.n_test // 50)
                continue
            stalls = 0
            m = min(2 * m, max(1, self.n_test // 4))
            dc, da = self.C.value, self.A.value
            trajectory.append({"phase": "swap", "iteration": it, "compound_divergence": round(dc, 6),
                               "atom_divergence": round(da, 6)})
            if self.feasible(da) and (best_feasible is None or self.score(dc, 0.0) > self.score(best_feasible[1], 0.0)):
                best_feasible = (in_test.copy(), dc, da)
        return best_feasible, iterations

    def _into_bound(self, in_test: np.ndarray, trajectory: list[dict[str, Any]],
                    max_rounds: int = 50) -> tuple[np.ndarray, float, float] | None:
        """The search ended just over the atom bound (D_C pulled harder than the penalty): swap under ever
        steeper penalties until D_A meets the bound, so that as little D_C as possible is given up."""
        try:
            for steep in (3, 10, 30, 100):
                self.penalty = PENALTY * steep
                self._evaluate(in_test)
                m = max(1, self.n_test // 200)
                for it in range(max_rounds):
                    improved, m = self._iterate(in_test, m)
                    if not improved:
                        break
                    dc, da = self.C.value, self.A.value
                    trajectory.append({"phase": "into_bound", "iteration": it, "compound_divergence": round(dc, 6),
                                       "atom_divergence": round(da, 6)})
                    if self.feasible(da):
                        return in_test.copy(), dc, da
            return None
        finally:
            self.penalty = PENALTY

    def largest_feasible_test(self, tries: int = 20) -> int:
        """The largest test size (below the requested one) for which a random draw can meet the atom constraint."""
        wanted = self.n_test
        step = max(1, wanted // 50)
        try:
            for k in range(wanted - 1, 0, -step):
                self.n_test = k
                for _ in range(tries):
                    if self._repair(self._random(~self.pinned)) is not None:
                        return k
            return 0
        finally:
            self.n_test = wanted

    def _random(self, allowed: np.ndarray) -> np.ndarray:
        pick = self.rng.choice(np.flatnonzero(allowed), size=self.n_test, replace=False)
        in_test = np.zeros(self.n, dtype=bool)
        in_test[pick] = True
        return in_test

    def _blend(self, held: np.ndarray) -> np.ndarray:
        """For a target divergence: swap a share of a hold-out's test part for random examples (bisection)."""
        allowed = ~self.pinned
        rand = self._random(allowed)
        order_h = self.rng.permutation(np.flatnonzero(held))
        order_r = self.rng.permutation(np.flatnonzero(rand & ~held))
        lo, hi = 0.0, 1.0
        best = held
        for _ in range(12):
            mid = (lo + hi) / 2
            k = min(int(mid * self.n_test), len(order_r))
            cand = held.copy()
            cand[order_h[:k]] = False
            cand[order_r[:k]] = True
            cand = self._repair(cand)
            if cand is None:
                hi = mid
                continue
            dc, _ = self._evaluate(cand)
            best = cand
            if dc > (self.target or 0.0):
                lo = mid
            else:
                hi = mid
        return best


def check_sizes(n: int, n_test: int, max_test: int, test_fraction: Any, what: str) -> None:
    if max_test < n_test:
        raise ConfigError(
            f"{what}: test_fraction={test_fraction!r} asks for {n_test:,} test examples, but only {max_test:,} of {n:,} "
            f"can be in test without leaving a test atom under min_train_atom_count in training. The closest feasible "
            f"setting is test_fraction={max(max_test, 0) / n:.4f} (or lower min_train_atom_count)."
        )


# ---------------------------------------------------------------------------- public pieces
def structure_counts(dataset: Dataset, atoms: Any, compounds: Any) -> tuple[StructureCounts, StructureCounts]:
    """Atom and compound counts of ``dataset``; every example must have at least one atom."""
    a = count_structure(dataset, atoms, role="atoms")
    empty = np.flatnonzero(np.diff(a.matrix.indptr) == 0)
    if empty.size:
        ids = [dataset.ids[i] for i in empty[:5]]
        raise DataError(
            f"{empty.size} example(s) of '{dataset.name}' have no atoms under atoms={a.spec!r}, e.g. {ids}. A "
            "compositional split cannot place an example without atoms; drop them or choose another atom extractor."
        )
    return a, count_structure(dataset, compounds, role="compounds")


def held_out_compounds(counts: StructureCounts, in_test: np.ndarray, top: int = 10) -> list[dict[str, Any]]:
    """The compound types a split holds out whole (in test, never in training), most frequent in test first.

    >>> import gengap
    >>> ds = gengap.load([{"input": s, "target": "-"} for s in ["a b", "a b", "b a", "a c"]])
    >>> c = count_structure(ds, "ngrams:2", role="compounds")
    >>> held_out_compounds(c, np.array([True, True, False, False]))
    [{'compound': 'a b', 'test_occurrences': 2}]
    """
    test = np.asarray(counts.matrix[np.asarray(in_test, dtype=bool)].sum(axis=0)).ravel()
    train = np.asarray(counts.matrix.sum(axis=0)).ravel() - test
    held = np.flatnonzero((test > 0) & (train <= 0))
    held = held[np.argsort(-test[held], kind="stable")][:top]
    return [{"compound": str(counts.types[k]), "test_occurrences": int(test[k])} for k in held]


def compound_weights(counts: StructureCounts) -> np.ndarray:
    """Weights that discount n-gram compounds which mostly occur inside a longer one (as CFQ does).

    The weight of ``g`` is ``1 - max_g' n(g') / n(g)`` over the compounds ``g'`` one token longer that
    contain ``g``, with ``n`` the occurrence counts over the dataset; a compound that only ever occurs
    inside one longer compound gets weight 0. Compounds are read as space-separated tokens.

    >>> import gengap
    >>> ds = gengap.load([{"input": s, "target": "-"} for s in ["a b c", "a b c", "a b d"]])
    >>> c = count_structure(ds, "ngrams:2,3", role="compounds")
    >>> float(dict(zip(c.types, compound_weights(c)))["b c"])
    0.0
    """
    totals = counts.totals()
    index = {t: j for j, t in enumerate(counts.types)}
    best = np.zeros(len(totals))
    for j, t in enumerate(counts.types):
        tokens = str(t).split(" ")
        if len(tokens) < 2:
            continue
        for sub in (" ".join(tokens[:-1]), " ".join(tokens[1:])):
            k = index.get(sub)
            if k is not None and totals[k] > 0:
                best[k] = max(best[k], totals[j] / totals[k])
    return np.clip(1.0 - best, 0.0, 1.0)


# ---------------------------------------------------------------------------- splitters
@register_splitter
class MaxCompoundDivergence(Splitter):
    """A split whose test compounds are as unlike the training compounds as possible, every atom familiar.

    Maximum compound divergence (MCD, Keysers et al. 2020): among train/test partitions with the
    requested test size whose atom divergence stays under ``max_atom_divergence`` and where every
    test atom occurs in training, find one whose compound divergence is as high as possible, or as
    close as possible to ``target_divergence`` (build a series from 0 to the maximum, as CFQ does).
    Different seeds give different splits.

    =================  =============================================================
    atoms="words"      "jump twice after walk" -> jump, twice, after, walk
    compounds=         "ngrams:2,3" -> "jump twice", "twice after", ..., "twice after walk"
    D_A, D_C           1 - C_0.5 and 1 - C_0.1 of train vs test frequencies
                       (:mod:`gengap.structure.divergence`)
    =================  =============================================================

    Parameters
    ----------
    test_fraction : fraction in (0, 1) or count of test examples.
    atoms, compounds : extractor specs (``"words"``, ``"ngrams:2,3"``, ``"tree"``,
        ``"attributes:col1,col2"``) or callables ``f(input) -> list[str]``.
    max_atom_divergence : the bound on D_A (None: no bound).
    min_train_atom_count : every test atom occurs at least this often in training.
    target_divergence : aim at this D_C instead of the maximum (None: maximize).
    weight_compounds : discount n-gram compounds that mostly occur inside a longer one
        (:func:`compound_weights`); D_C is then measured on the weighted counts.
    n_trials, n_rebuilds, max_iterations : the search's effort (hold-outs drawn, rebuilds, swap rounds);
        None scales it with the data (40, 10, 100; 10, 2, 20 above two million counted occurrences or
        20,000 compound types).
    seed : seed of the search; different seeds give different splits.

    Diagnostics: ``structure`` (``atom_divergence``, ``compound_divergence``, ``unseen_test_compound_share``,
    ``n_unseen_test_atoms`` 0) and the figures ``search`` (effort, seconds, whether the bound and target
    were met, and ``held_out_compounds``: the compound types the test part holds whole, never seen in
    training, most frequent first) and ``trajectory`` (the divergences after each improving step,
    with the phase that made it: greedy or random hold-out, rebuild, swap, into_bound).

    >>> import gengap
    >>> rows = [f"{v} {m}" for v in ["walk", "run", "jump", "look"] for m in ["left", "right", "twice", "thrice"]]
    >>> ds = gengap.load([{"input": r, "target": "-"} for r in rows * 2])
    >>> s = MaxCompoundDivergence(test_fraction=0.25, max_atom_divergence=None, seed=0).split_dataset(ds)
    >>> s.diagnostics.structure.n_unseen_test_atoms, s.diagnostics.structure.compound_divergence
    (0, 1.0)
    """

    method = "mcd"
    card = TaxonomyCard.compositional(
        "Test compounds differ as much as possible from training compounds while every atom is seen in "
        "training (maximum compound divergence): can the model recombine familiar parts?")

    def __init__(self, *, test_fraction: float | int = 0.2, atoms: str | Callable[[Any], list[str]] = "words",
                 compounds: str | Callable[[Any], list[str]] = "ngrams:2,3", max_atom_divergence: float | None = 0.02,
                 min_train_atom_count: int = 1, target_divergence: float | None = None, weight_compounds: bool = False,
                 n_trials: int | None = None, n_rebuilds: int | None = None, max_iterations: int | None = None,
                 seed: int | None = 0) -> None:
        self.test_fraction = test_fraction
        self.atoms = atoms  # type: ignore[assignment]
        self.compounds = compounds
        self.max_atom_divergence = max_atom_divergence
        self.min_train_atom_count = min_train_atom_count
        self.target_divergence = target_divergence
        self.weight_compounds = weight_compounds
        self.n_trials = n_trials
        self.n_rebuilds = n_rebuilds
        self.max_iterations = max_iterations
        self.seed = seed
        resolve_test_size(test_fraction, 10**9)
        make_extractor(atoms, role="atoms")
        make_extractor(compounds, role="compounds")
        if max_atom_divergence is not None and not 0 <= max_atom_divergence <= 1:
            raise ConfigError(f"max_atom_divergence={max_atom_divergence!r} must lie in [0, 1] (or None for no bound).")
        if target_divergence is not None and not 0 <= target_divergence <= 1:
            raise ConfigError(f"target_divergence={target_divergence!r} must lie in [0, 1] (or None to maximize).")
        if not isinstance(min_train_atom_count, (int, np.integer)) or min_train_atom_count < 1:
            raise ConfigError(f"min_train_atom_count={min_train_atom_count!r} must be an integer >= 1.")
        for name in ("n_trials", "n_rebuilds", "max_iterations"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, (int, np.integer)) or value < (1 if name == "n_trials" else 0)):
                raise ConfigError(f"{name}={value!r} must be a {'positive' if name == 'n_trials' else 'non-negative'} "
                                  "integer, or None to scale the effort with the data.")

    def _effort(self, nnz: int, n_types: int) -> dict[str, int]:
        """Search effort: the given values, else scaled down for large count matrices."""
        large = nnz > 2_000_000 or n_types > 20_000
        auto = {"n_trials": 10 if large else 40, "n_greedy": 2 if large else 12,
                "n_rebuilds": 2 if large else 10, "max_iterations": 20 if large else 100}
        for name in ("n_trials", "n_rebuilds", "max_iterations"):
            if getattr(self, name) is not None:
                auto[name] = int(getattr(self, name))
        auto["n_greedy"] = min(auto["n_greedy"], auto["n_trials"])
        return auto

    # Splitter.atoms is a property on the base class; here it is a plain attribute (the extractor spec).
    atoms = "words"  # type: ignore[assignment]

    def _describe(self) -> str:
        return "maximum compound divergence" if self.target_divergence is None else f"compound divergence near {self.target_divergence}"

    def _iter_indices(self, dataset: Dataset, rng: np.random.Generator) -> Iterator[tuple[np.ndarray, np.ndarray, SplitDetails]]:
        started = time.perf_counter()
        n = len(dataset)
        n_test = resolve_test_size(self.test_fraction, n)
        a, c = structure_counts(dataset, self.atoms, self.compounds)
        measured_c = c.weighted(compound_weights(c)) if self.weight_compounds else c
        search = DivergenceSearch(
            a.matrix, measured_c.matrix, n_test, max_atom_divergence=self.max_atom_divergence,
            min_train_atom_count=self.min_train_atom_count, target=self.target_divergence, rng=rng,
            **self._effort(measured_c.matrix.nnz + a.matrix.nnz, c.n_types),
        )
        check_sizes(n, n_test, search.max_feasible_test(), self.test_fraction, type(self).__name__)
        try:
            result = search.run()
        except ValueError:
            check_sizes(n, n_test, search.largest_feasible_test(), self.test_fraction, type(self).__name__)
            raise
        test = np.flatnonzero(result.in_test)
        train = np.flatnonzero(~result.in_test)
        measured = StructureFigures.measure(dataset, train, test, atom_counts=a, compound_counts=measured_c)
        reached_bound = result.feasible
        reached_target = (self.target_divergence is None
                          or abs(measured.compound_divergence - self.target_divergence) <= 0.01)
        if not reached_bound:
            warnings.warn(
                f"{type(self).__name__}: no split found with atom divergence <= {self.max_atom_divergence}; returning the best "
                f"found (D_A={measured.atom_divergence:.4f}, D_C={measured.compound_divergence:.4f}). Raise "
                "max_atom_divergence or n_trials.", UserWarning, stacklevel=3)
        if not reached_target:
            warnings.warn(
                f"{type(self).__name__}: target_divergence={self.target_divergence} was not reached; the closest split found "
                f"has D_C={measured.compound_divergence:.4f}.", UserWarning, stacklevel=3)
        figures: dict[str, Any] = {
            "search": {
                "seconds": round(time.perf_counter() - started, 3),
                "n_trials": result.n_trials, "n_rebuilds": search.n_rebuilds, "n_swap_rounds": result.n_iterations,
                "met_atom_bound": bool(reached_bound), "met_target": bool(reached_target),
                "n_atom_types": a.n_types, "n_compound_types": c.n_types,
                "held_out_compounds": held_out_compounds(c, result.in_test),
            },
            "trajectory": result.trajectory,
        }
        if self.weight_compounds:
            figures["compound_divergence_unweighted"] = StructureFigures.measure(
                dataset, train, test, atom_counts=a, compound_counts=c).compound_divergence
        yield train, test, SplitDetails(
            name=f"{self.method}:seed={self.seed}",
            held_out=(f"a test part of {len(test):,} examples chosen for {self._describe()} "
                      f"(D_C={measured.compound_divergence:.3f}, D_A={measured.atom_divergence:.3f})"),
            structure=measured, figures=figures)


@register_splitter
class TargetMaxCompoundDivergence(MaxCompoundDivergence):
    """TMCD (Shaw et al. 2021): maximum compound divergence with every test atom seen at least k times in training.

    The same search as :class:`MaxCompoundDivergence`, with the constraint form of the atom
    condition instead of a bound on atom divergence: ``min_train_atom_count`` (k) occurrences of
    every test atom in training; ``max_atom_divergence`` is None unless given.

    >>> import gengap
    >>> rows = [f"{v} {m}" for v in ["walk", "run", "jump", "look"] for m in ["left", "right", "twice", "thrice"]]
    >>> ds = gengap.load([{"input": r, "target": "-"} for r in rows * 3])
    >>> s = TargetMaxCompoundDivergence(test_fraction=0.25, min_train_atom_count=2).split_dataset(ds)
    >>> s.diagnostics.structure.n_unseen_test_atoms, s.diagnostics.structure.compound_divergence > 0.5
    (0, True)
    """

    method = "tmcd"
    card = TaxonomyCard.compositional(
        "Test compounds differ as much as possible from training compounds while every test atom is seen at "
        "least k times in training (TMCD): can the model recombine familiar parts?")

    def __init__(self, *, test_fraction: float | int = 0.2, atoms: str | Callable[[Any], list[str]] = "words",
                 compounds: str | Callable[[Any], list[str]] = "ngrams:2,3", min_train_atom_count: int = 1,
                 max_atom_divergence: float | None = None, target_divergence: float | None = None,
                 weight_compounds: bool = False, n_trials: int | None = None, n_rebuilds: int | None = None,
                 max_iterations: int | None = None, seed: int | None = 0) -> None:
        super().__init__(test_fraction=test_fraction, atoms=atoms, compounds=compounds,
                         max_atom_divergence=max_atom_divergence, min_train_atom_count=min_train_atom_count,
                         target_divergence=target_divergence, weight_compounds=weight_compounds, n_trials=n_trials,
                         n_rebuilds=n_rebuilds, max_iterations=max_iterations, seed=seed)
