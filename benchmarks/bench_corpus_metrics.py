"""Corpus metrics: coverage of gengap's intervals on simulated data with a known truth, the naive
interval beside them, scikit-learn's point values beside gengap's, and the cost at a million rows.

Simulation: a binary task with prevalence ``prev``; a score ~ N(1, 1) for positives and N(0, 1) for
negatives (true AUROC = Phi(1/sqrt 2) = 0.760); the model's probability of the positive class is
the exact posterior made overconfident (logit x 1.5), so calibration error is not zero; the
predicted label is p > 0.5 and the confidence max(p, 1 - p). The true value of each metric is its
value on 2,000,000 draws (fixed seed). Each cell draws ``reps`` test parts of n rows.

Columns: ``cover`` is the share of gengap's 95% intervals holding the truth [target >= 0.94];
``naive`` the share of the naive interval's (AUROC: DeLong's Wald interval without the logit;
ECE: the percentile bootstrap, which ignores ECE's upward bias, where gengap reflects it (basic
bootstrap); the others: the normal
interval from the bootstrap's standard error); ``sk_diff`` the largest |gengap - scikit-learn|
point value over the reps (ECE and AURC have no scikit-learn counterpart: "-"); ``undef`` reps
where the metric was undefined (one class only). A cell below 0.94 is flagged with ``!``.

    python benchmarks/bench_corpus_metrics.py              # about 25 minutes on a loaded 2-core machine
    python benchmarks/bench_corpus_metrics.py --quick      # fewer reps, no n = 100,000 (about 5 minutes)
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
import sklearn.metrics as skm
from scipy.special import expit, logit, ndtri

from gengap._errors import DataError
from gengap.analysis.corpus import corpus_score
from gengap.metrics_corpus import CorpusData

METRICS = ["auroc", "pr_auc", "macro_f1", "mcc", "balanced_accuracy", "brier", "log_loss", "ece", "aurc",
           "selective_accuracy"]
SIZES = [50, 500, 5_000, 100_000]
PREVALENCES = [0.01, 0.10, 0.50]
Z = float(ndtri(0.975))


def draw(n: int, prev: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    y = (rng.uniform(size=n) < prev).astype(int)
    s = rng.normal(size=n) + y
    post = expit(np.log(prev / (1 - prev)) + s - 0.5)  # exact posterior of y given s (unit-variance normals, shift 1)
    p = expit(1.5 * logit(np.clip(post, 1e-12, 1 - 1e-12)))
    return y, p


def as_data(y: np.ndarray, p: np.ndarray) -> CorpusData:
    pred = (p > 0.5).astype(int)
    conf = np.where(pred == 1, p, 1 - p)
    return CorpusData(y.astype(str).astype(object), pred.astype(str).astype(object), (pred == y).astype(float), conf,
                      [None] * len(y), [f"row {i}" for i in range(len(y))])


def sklearn_value(metric: str, y: np.ndarray, p: np.ndarray) -> float | None:
    pred = (p > 0.5).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "auroc": lambda: skm.roc_auc_score(y, p),
            "pr_auc": lambda: skm.average_precision_score(y, p),
            "macro_f1": lambda: skm.f1_score(y, pred, average="macro"),
            "mcc": lambda: skm.matthews_corrcoef(y, pred),
            "balanced_accuracy": lambda: skm.balanced_accuracy_score(y, pred),
            "brier": lambda: skm.brier_score_loss(y, p),
            "log_loss": lambda: skm.log_loss(y, p, labels=[0, 1]),
        }.get(metric, lambda: None)()


def truth(prev: float) -> dict[str, float]:
    y, p = draw(2_000_000, prev, np.random.default_rng(12345))
    data = as_data(y, p)
    from gengap.metrics import get_metric

    return {m: get_metric(m).point(data) for m in METRICS}  # type: ignore[attr-defined]


def naive_interval(metric: str, data: CorpusData, ci_low: float, ci_high: float, estimate: float, seed: int) -> tuple[float, float]:
    """The interval a user would compute by hand (see the module docstring)."""
    if metric == "auroc":
        from gengap.analysis.corpus import _delong_components
        from gengap.metrics_corpus import positive_scores

        y = data.y_true == "1"
        auc, v10, v01 = _delong_components(y, positive_scores(data, "1"))
        if min(v10.size, v01.size) < 2:
            return auc, auc
        se = np.sqrt(v10.var(ddof=1) / v10.size + v01.var(ddof=1) / v01.size)
        return auc - Z * se, auc + Z * se
    if metric == "ece":
        from gengap.analysis.corpus import _boot_rows
        from gengap.metrics import get_metric

        boot = _boot_rows(get_metric("ece").statistic(data), len(data), 500, np.random.default_rng(seed), None)
        return tuple(np.quantile(boot, [0.025, 0.975]))  # type: ignore[return-value]
    half = (ci_high - ci_low) / 2  # a symmetric normal interval as wide as gengap's
    return estimate - half, estimate + half


def coverage(reps_by_n: dict[int, int], resamples: int) -> pd.DataFrame:
    records = []
    truths = {prev: truth(prev) for prev in PREVALENCES}
    for n in SIZES:  # small n first, every prevalence: the cheap cells are printed before the costly ones
        for prev in PREVALENCES:
            true = truths[prev]
            reps = reps_by_n.get(n, 0)
            if not reps:
                continue
            rng = np.random.default_rng(1000 + n)
            hits = {m: [] for m in METRICS}
            naive = {m: [] for m in METRICS}
            diff = dict.fromkeys(METRICS, 0.0)
            undefined = dict.fromkeys(METRICS, 0)
            started = time.perf_counter()
            for r in range(reps):
                y, p = draw(n, prev, rng)
                data = as_data(y, p)
                for m in METRICS:
                    try:
                        ci = corpus_score(m, data, n_resamples=resamples, seed=r)
                    except DataError:
                        undefined[m] += 1
                        continue
                    hits[m].append(ci.low <= true[m] <= ci.high)
                    lo, hi = naive_interval(m, data, ci.low, ci.high, ci.estimate, r)
                    naive[m].append(lo <= true[m] <= hi)
                    sk = sklearn_value(m, y, p)
                    if sk is not None and np.isfinite(sk):
                        diff[m] = max(diff[m], abs(sk - ci.estimate))
            seconds = time.perf_counter() - started
            cell = []
            for m in METRICS:
                cover = float(np.mean(hits[m])) if hits[m] else float("nan")
                cell.append({"metric": m, "n": n, "prev": prev, "truth": round(true[m], 4), "reps": reps,
                             "undef": undefined[m], "cover": cover, "naive": float(np.mean(naive[m])) if naive[m] else float("nan"),
                             "sk_diff": "-" if m in ("ece", "aurc", "selective_accuracy") else f"{diff[m]:.1e}",
                             "flag": "!" if not cover >= 0.94 else ""})
            records += cell
            print(f"  prev={prev:.2f} n={n:>7,}: {reps} reps in {seconds:.0f} s", flush=True)
            print(pd.DataFrame.from_records(cell).to_string(index=False, float_format=lambda x: f"{x:.3f}"), flush=True)
    return pd.DataFrame.from_records(records)


def cost() -> None:
    rng = np.random.default_rng(7)
    y, p = draw(1_000_000, 0.3, rng)
    data = as_data(y, p)
    started = time.perf_counter()
    ci = corpus_score("auroc", data)
    auroc_s = time.perf_counter() - started
    started = time.perf_counter()
    sk = skm.roc_auc_score(y, p)
    sk_s = time.perf_counter() - started
    print(f"1,000,000 rows: AUROC with DeLong interval {auroc_s:.2f} s [target < 2 s]; scikit-learn's point value "
          f"alone {sk_s:.2f} s; {ci}; |gengap - sklearn| = {abs(ci.estimate - sk):.1e}")
    started = time.perf_counter()
    ci = corpus_score("ece", data, n_resamples=10_000)
    print(f"1,000,000 rows: ECE with a 10,000-resample interval {time.perf_counter() - started:.2f} s [target < 10 s]; {ci}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer reps and no n = 100,000")
    ap.add_argument("--resamples", type=int, default=500, help="bootstrap resamples per interval (default 500)")
    ap.add_argument("--reps", default=None, help="reps per n, e.g. '50:200,500:120,5000:40,100000:4'")
    args = ap.parse_args()
    reps = {50: 100, 500: 60, 5_000: 20} if args.quick else {50: 200, 500: 100, 5_000: 20, 100_000: 3}
    if args.reps:
        reps = {int(k): int(v) for k, v in (part.split(":") for part in args.reps.split(","))}
    print("Cost (one run, loaded machine):")
    cost()
    print(f"\nCoverage of 95% intervals ({args.resamples:,} resamples each; Monte Carlo error about "
          f"+-{Z * np.sqrt(0.05 * 0.95 / min(reps.values())):.2f} at the fewest reps):")
    table = coverage(reps, args.resamples)
    with pd.option_context("display.width", 200, "display.max_rows", 500):
        print(table.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    low = table[table["flag"] == "!"]
    if len(low):
        print(f"\nWARNING: {len(low)} cells below 0.94 coverage: "
              + "; ".join(f"{r.metric} n={r.n} prev={r.prev}: {r.cover:.2f}" for r in low.itertuples()))


if __name__ == "__main__":
    main()
