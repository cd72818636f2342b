"""IRT fit on a 100 models x 100,000 items correctness matrix: wall time, peak memory, recovery.

The matrix is simulated from known abilities, difficulties and discriminations, so the figures
also say how well the fit recovers them (Spearman correlations).

    python benchmarks/bench_irt.py           # 100 x 100,000, 1PL and 2PL
    python benchmarks/bench_irt.py --quick   # 100 x 10,000
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np
from scipy.stats import spearmanr

from gengap.analysis.irt import fit_irt


def simulate(n_models: int, n_items: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n_models)
    b = rng.normal(size=n_items)
    a = np.exp(rng.normal(0, 0.3, size=n_items))
    y = np.empty((n_models, n_items), dtype=bool)
    for start in range(0, n_items, 10_000):  # simulate in chunks to keep the generator's memory small
        sl = slice(start, start + 10_000)
        p = 1 / (1 + np.exp(-a[sl] * (theta[:, None] - b[sl])))
        y[:, sl] = rng.random(p.shape) < p
    return y, theta, b, a


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="10,000 items instead of 100,000")
    parser.add_argument("--models", type=int, default=100)
    args = parser.parse_args()
    n_items = 10_000 if args.quick else 100_000
    y, theta, b, a = simulate(args.models, n_items)
    print(f"IRT on a {args.models} x {n_items:,} correctness matrix ({y.nbytes / 2**20:.0f} MiB as bool)")
    print(f"{'model':>5} {'wall s':>8} {'peak MiB':>9} {'rounds':>7} {'conv':>5} {'rho(b)':>7} {'rho(theta)':>10} {'rho(a)':>7}")
    for model in ("1pl", "2pl"):
        tracemalloc.start()
        t = time.perf_counter()
        fit = fit_irt(y, model=model)
        seconds = time.perf_counter() - t
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        rho_b = spearmanr(fit.difficulty, b).statistic
        rho_t = spearmanr(fit.ability, theta).statistic
        rho_a = spearmanr(fit.discrimination, a).statistic if model == "2pl" else float("nan")
        print(f"{model:>5} {seconds:8.1f} {peak:9.0f} {fit.n_iter:7d} {str(fit.converged):>5} {rho_b:7.3f} {rho_t:10.3f} {rho_a:7.3f}")
    print("peak MiB: memory allocated by the fit itself (tracemalloc), beyond the input matrix.")


if __name__ == "__main__":
    main()
