"""Corpus metrics: coverage of gengap's intervals on simulated data with a known truth, the naive
interval beside them, scikit-learn's point values beside gengap's, and the cost at a million rows.

Simulation: a binary task with prevalence ``prev``; a score ~ N(1, 1) for positives and N(0, 1) for
negatives (true AUROC = Phi(1/sqrt 2) = 0.760); the model's probability of the positive class is
the exact posterior made overconfident (logit x 1.5), so calibration error is not zero; the
predicted label is p > 0.5 and the confidence max(p, 1 - p). The true value of each metric is its
exact population value (``benchmarks/corpus_truth.py``: closed forms and quadrature to about 1e-10;
``--truth mc`` takes the older value on 2,000,000 draws instead, ``--truth both`` adds the coverage
against it as ``cover_mc``; ``--check-truths`` compares the two on 20,000,000 draws). Each cell draws
``reps`` test parts of n rows.

Coverage columns: ``default`` names the method ``corpus_score`` uses and ``cover`` its coverage
[target >= 0.94]; then one column per method, all from the same resamples of each test part
(``gengap.analysis.corpus.corpus_intervals``; blank where a method does not apply). The naive methods beside it: AUROC's Wald interval without the
logit (``delong``), Brier's and log loss's Student t of the per-row losses (``t``), and the
percentile bootstrap for the rest. ``sk_diff`` is the largest |gengap - scikit-learn| point value
over the reps (ECE and AURC have no scikit-learn counterpart: "-"); ``undef`` reps where the
metric was undefined (one class only). A default below 0.94 is flagged with ``!``. ``mc_se`` is the
binomial Monte Carlo SE of ``cover``; ``bias/se`` the mean estimate's distance from the truth in
units of the default interval's mean standard error (its half-width / 1.96): a plug-in's bias that
an interval about the estimate cannot cover shows there.

Defaults were chosen on a development run (``--seed-base 7000``); the figures to quote are the
default run's (seed base 1000: other test parts, never looked at while choosing).

Debiased ECE (``--debias``): the bias of ``ece_debiased`` (Kumar et al.'s debiased L2 estimator,
15 equal-mass bins) and of the plug-in L2 estimate with the same bins, against the true binned L2
calibration error (from the exact probability of being right at each confidence, on 2,000,000
draws); the plug-in L1 ``ece`` (15 equal-width bins) against its own binned truth beside them.

    python benchmarks/bench_corpus_metrics.py              # about 25 minutes on a loaded 2-core machine
    python benchmarks/bench_corpus_metrics.py --quick      # fewer reps, no n = 100,000 (about 5 minutes)
    python benchmarks/bench_corpus_metrics.py --debias     # the debiased ECE's bias only (about a minute)
    python benchmarks/bench_corpus_metrics.py --cost       # the timings only
    python benchmarks/bench_corpus_metrics.py --million    # the two 1,000,000-row targets only (wall and CPU s)
    python benchmarks/bench_corpus_metrics.py --breaks     # false breaks and power of corpus_curve's test
    python benchmarks/bench_corpus_metrics.py --gaps       # coverage of corpus_gap's intervals, independent splits
    python benchmarks/bench_corpus_metrics.py --paired-gaps  # the same for two models on the same rows
    python benchmarks/bench_corpus_metrics.py --ece-warning --ece-cells 500:0.5,500:0.1  # ECE's noise-floor warning:
        # coverage of the parts warned and not, a nearly calibrated model (logit x 1.1) beside the grid's (x 1.5)
    python benchmarks/bench_corpus_metrics.py --coverage-only --reps 100000:6 --resamples 200  # one grid row, no timings
    python benchmarks/bench_corpus_metrics.py --check-truths  # the exact truths beside 20,000,000 draws
    python benchmarks/bench_corpus_metrics.py --coverage-only --reps 100000:300 --resamples 200 --prevalences 0.5 \
        --first-rep 100 --save /tmp/part.csv  # reps 100-299 of one cell, every rep's intervals kept
    python benchmarks/bench_corpus_metrics.py --from-saved /tmp/part.csv,/tmp/other.csv  # the grid from saved reps
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
import pandas as pd
import sklearn.metrics as skm
from scipy.special import expit, logit, ndtri

from gengap._errors import DataError
from gengap.analysis.corpus import DEFAULT_INTERVAL, corpus_intervals, corpus_score
from gengap.metrics_corpus import CorpusData, ece_bins, weighted_l2_calibration_error

try:  # run as a script (python benchmarks/bench_corpus_metrics.py) or imported as benchmarks.bench_corpus_metrics
    from corpus_truth import exact_truths
except ImportError:  # pragma: no cover
    from benchmarks.corpus_truth import exact_truths

METRICS = ["auroc", "pr_auc", "macro_f1", "micro_f1", "mcc", "balanced_accuracy", "brier", "log_loss", "ece",
           "ece_adaptive", "ece_debiased", "aurc", "selective_accuracy"]
SIZES = [50, 500, 5_000, 100_000]
PREVALENCES = [0.01, 0.10, 0.50]
Z = float(ndtri(0.975))


def draw(n: int, prev: float, rng: np.random.Generator, scale: float = 1.5) -> tuple[np.ndarray, np.ndarray]:
    """``scale``: the logit's factor (1.5 the grid's overconfident model, 1.1 a nearly calibrated one)."""
    y = (rng.uniform(size=n) < prev).astype(int)
    s = rng.normal(size=n) + y
    post = expit(np.log(prev / (1 - prev)) + s - 0.5)  # exact posterior of y given s (unit-variance normals, shift 1)
    p = expit(scale * logit(np.clip(post, 1e-12, 1 - 1e-12)))
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
            "micro_f1": lambda: skm.f1_score(y, pred, average="micro"),
            "mcc": lambda: skm.matthews_corrcoef(y, pred),
            "balanced_accuracy": lambda: skm.balanced_accuracy_score(y, pred),
            "brier": lambda: skm.brier_score_loss(y, p),
            "log_loss": lambda: skm.log_loss(y, p, labels=[0, 1]),
        }.get(metric, lambda: None)()


def truth_mc(prev: float, draws: int = 2_000_000, seed: int = 12345) -> dict[str, float]:
    """Each metric on ``draws`` simulated rows: the truth this benchmark used before the exact one (its
    Monte Carlo error is 0.2 of an interval's SE at n = 100,000; ``--truth mc``)."""
    y, p = draw(draws, prev, np.random.default_rng(seed))
    data = as_data(y, p)
    from gengap.metrics import get_metric

    return {m: get_metric(m).point(data) for m in METRICS}  # type: ignore[attr-defined]


def truth(prev: float) -> dict[str, float]:
    """Each metric's exact population value (``corpus_truth.exact_truths``)."""
    return exact_truths(prev)


def check_truths(chunks: int = 10, size: int = 2_000_000, seed: int = 2026) -> None:
    """The exact truths beside the mean of each metric over ``chunks`` x ``size`` simulated rows, with the
    Monte Carlo SE (the spread of the chunks' values) and z = (mean - exact) / SE."""
    from gengap.metrics import get_metric

    print(f"Exact truths against {chunks} x {size:,} draws (seed {seed}); z = (draws - exact) / MC se:")
    records = []
    for prev in PREVALENCES:
        exact = exact_truths(prev)
        rng = np.random.default_rng([seed, int(prev * 1000)])
        values: dict[str, list[float]] = {m: [] for m in METRICS}
        for _ in range(chunks):
            data = as_data(*draw(size, prev, rng))
            for m in METRICS:
                values[m].append(get_metric(m).point(data))  # type: ignore[attr-defined]
        for m in METRICS:
            v = np.asarray(values[m])
            se = float(v.std(ddof=1) / np.sqrt(v.size))
            records.append({"prev": prev, "metric": m, "exact": exact[m], "draws": float(v.mean()), "mc se": se,
                            "z": (float(v.mean()) - exact[m]) / se if se > 0 else float("nan"),
                            "old truth (2M draws)": float("nan")})
        old = truth_mc(prev)
        for r in records[-len(METRICS):]:
            r["old truth (2M draws)"] = old[str(r["metric"])]
        print(pd.DataFrame.from_records(records[-len(METRICS):]).to_string(
            index=False, float_format=lambda x: f"{x:.7f}"), flush=True)
    table = pd.DataFrame.from_records(records)
    finite = table[np.isfinite(table["z"])]
    print(f"Largest |z| over {len(finite)} defined comparisons: {finite['z'].abs().max():.2f} "
          "(undefined where every chunk gives the same value: MCC and balanced accuracy at 1% prevalence, "
          "where no row is predicted positive)")


#: Only the default interval and the naive one beside it (``--lean``): the others cost more resamples or a
#: jackknife at 100,000 rows and are not what the grid's target is read from.
LEAN = False
NAIVE = {"auroc": "delong", "brier": "t", "log_loss": "t"}


def methods(metric: str) -> list[str]:
    """The interval methods compared for a metric: its default first, then the others."""
    if LEAN:
        default = DEFAULT_INTERVAL.get(metric, "bca")
        return list(dict.fromkeys([default, NAIVE.get(metric, "percentile")]))
    others = {"auroc": ["delong", "percentile", "bca"], "brier": ["t", "percentile", "bca"],
              "log_loss": ["t", "percentile", "bca"], "ece": ["percentile", "basic", "bca"]}.get(metric, ["percentile", "bca"])
    default = DEFAULT_INTERVAL.get(metric, "bca")
    return [default] + [m for m in others if m != default]


METHOD_COLUMNS = ("delong-logit", "delong", "t", "percentile", "basic", "bca")


def coverage(reps_by_n: dict[int, int], resamples: int, seed_base: int, *, truth_kind: str = "exact",
             prevalences: list[float] | None = None, first_rep: int = 0, save: str | None = None) -> pd.DataFrame:
    """The coverage grid: per (n, prevalence) cell, reps ``first_rep`` .. reps - 1 of its test parts (the
    earlier ones are drawn and skipped, so a cell run in pieces makes the draws of one run); ``save``
    appends every rep's outcome to a CSV after each cell (:func:`grid` rebuilds the table from it)."""
    records = []
    prevalences = prevalences or PREVALENCES
    truths = {prev: truth_mc(prev) if truth_kind == "mc" else truth(prev) for prev in prevalences}
    old = {prev: truth_mc(prev) for prev in prevalences} if truth_kind == "both" else None
    for n in SIZES:  # small n first, every prevalence: the cheap cells are printed before the costly ones
        for prev in prevalences:
            true = truths[prev]
            reps = reps_by_n.get(n, 0)
            if reps <= first_rep:
                continue
            rng = np.random.default_rng(seed_base + n)
            rows: list[dict[str, object]] = []
            saved = 0
            started, cpu = time.perf_counter(), time.process_time()
            for r in range(reps):
                y, p = draw(n, prev, rng)
                if r < first_rep:
                    continue
                data = as_data(y, p)
                for m in METRICS:
                    row: dict[str, object] = {"metric": m, "n": n, "prev": prev, "rep": r, "truth": true[m],
                                              "truth_mc": old[prev][m] if old else float("nan")}
                    try:
                        cis = corpus_intervals(m, data, methods(m), n_resamples=resamples, seed=r)
                    except DataError:
                        rows.append({**row, "undefined": True})
                        continue
                    ci = cis[methods(m)[0]]
                    row.update(undefined=False, default=methods(m)[0], estimate=ci.estimate, low=ci.low, high=ci.high, warned=bool(ci.warning))
                    for k, other in cis.items():
                        row[f"hit_{k}"] = other.low <= true[m] <= other.high
                    if old:
                        row["hit_mc"] = ci.low <= old[prev][m] <= ci.high
                    sk = sklearn_value(m, y, p)
                    row["sk_diff"] = abs(sk - ci.estimate) if sk is not None and np.isfinite(sk) else float("nan")
                    rows.append(row)
                if save and (r + 1 - first_rep) % 10 == 0:  # every 10 reps, so a stopped run keeps what it did
                    _append(save, rows[saved:])
                    saved = len(rows)
            seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
            if save:
                _append(save, rows[saved:])
            cell = grid(pd.DataFrame.from_records(rows))
            records.append(cell)
            print(f"  prev={prev:.2f} n={n:>7,}: reps {first_rep}-{reps - 1} in {seconds:.0f} s wall, {cpu:.0f} s CPU "
                  f"(load average {os.getloadavg()[0]:.1f})", flush=True)
            with pd.option_context("display.width", 250):
                print(cell.to_string(index=False, float_format=lambda x: f"{x:.3f}", na_rep=""), flush=True)
    return pd.concat(records, ignore_index=True) if records else pd.DataFrame()


def _append(path: str, rows: list[dict[str, object]]) -> None:
    """Append rep outcomes to a CSV, always in the same columns (every interval method's hit column)."""
    from gengap.analysis.corpus import INTERVAL_METHODS

    columns = ["metric", "n", "prev", "rep", "truth", "truth_mc", "undefined", "default", "estimate", "low", "high", "warned",
               "sk_diff", "hit_mc"] + [f"hit_{k}" for k in INTERVAL_METHODS if k != "auto"]
    if rows:
        pd.DataFrame.from_records(rows).reindex(columns=columns).to_csv(
            path, mode="a", index=False, header=not os.path.exists(path) or os.path.getsize(path) == 0)


def grid(reps: pd.DataFrame, defaults: dict[str, str] | None = None) -> pd.DataFrame:
    """The coverage table (a row per metric and cell) from every rep's outcome (``coverage``'s rows, or
    the CSVs it saved). The default is the one each rep names, else ``defaults`` (for CSVs saved before
    reps named it), else today's."""
    records = []
    for (n, prev, metric), g in reps.groupby(["n", "prev", "metric"], sort=False):
        g = g.drop_duplicates("rep")
        ok = g[~g["undefined"].astype(bool)]
        named = g["default"].dropna().unique() if "default" in g else []
        default = str(named[0]) if len(named) == 1 else (defaults or {}).get(str(metric), methods(str(metric))[0])
        hit = ok[f"hit_{default}"].astype(bool) if len(ok) else pd.Series(dtype=bool)
        cover = float(hit.mean()) if len(ok) else float("nan")
        record: dict[str, object] = {"metric": metric, "n": n, "prev": prev, "truth": float(g["truth"].iloc[0]),
                                     "reps": len(g), "undef": int(len(g) - len(ok)), "default": default, "cover": cover,
                                     "mc_se": float(np.sqrt(max(cover * (1 - cover), 0.95 * 0.05) / max(len(ok), 1)))}
        if "hit_mc" in ok and ok["hit_mc"].notna().any():
            record["cover_mc"] = float(ok["hit_mc"].astype(bool).mean())
        for k in METHOD_COLUMNS:
            col = f"hit_{k}"
            record[k] = float(ok[col].astype(bool).mean()) if col in ok and ok[col].notna().all() and len(ok) else float("nan")
        if len(ok):
            se = (ok["high"] - ok["low"]).mean() / (2 * Z)
            record["bias/se"] = float((ok["estimate"].mean() - record["truth"]) / se) if se > 0 else float("nan")  # type: ignore[operator]
        sk = ok["sk_diff"].dropna() if "sk_diff" in ok else pd.Series(dtype=float)
        record["sk_diff"] = f"{sk.max():.1e}" if len(sk) else "-"
        record["warned"] = float(ok["warned"].astype(bool).mean()) if len(ok) else float("nan")
        record["flag"] = "!" if not cover >= 0.94 else ""
        record["truth"] = f"{record['truth']:.6g}"
        records.append(record)
    return pd.DataFrame.from_records(records)


def part_cost(n: int, resamples: int, reps: int = 1) -> None:
    """CPU seconds of each metric's intervals (the grid's methods, from the same resamples) on one test part
    of ``n`` rows, per prevalence: what one rep of the coverage grid costs."""
    records = []
    for prev in PREVALENCES:
        rng = np.random.default_rng(11)
        row: dict[str, object] = {"n": n, "prev": prev}
        spent = dict.fromkeys(METRICS, 0.0)
        for r in range(reps):
            data = as_data(*draw(n, prev, rng))
            for m in METRICS:
                cpu = time.process_time()
                try:
                    corpus_intervals(m, data, methods(m), n_resamples=resamples, seed=r)
                except DataError:
                    pass
                spent[m] += time.process_time() - cpu
        row.update({m: v / reps for m, v in spent.items()})
        row["all"] = sum(spent.values()) / reps
        records.append(row)
    print(f"CPU seconds per test part of {n:,} rows, {resamples} resamples, methods: "
          f"{'default and naive' if LEAN else 'all the grid compares'} (mean of {reps}; load average "
          f"{os.getloadavg()[0]:.1f}):")
    with pd.option_context("display.width", 300):
        print(pd.DataFrame.from_records(records).to_string(index=False, float_format=lambda x: f"{x:.2f}"))


def true_calibration(n_bins: int = 15) -> dict[str, float]:
    """The binned L2 (equal-mass) and L1 (equal-width) calibration errors of the simulated model, from
    each row's exact probability of being right, on 2,000,000 draws at prevalence 0.5."""
    rng = np.random.default_rng(12345)
    y = (rng.uniform(size=2_000_000) < 0.5).astype(int)
    s = rng.normal(size=y.size) + y
    post = expit(s - 0.5)
    p = expit(1.5 * logit(np.clip(post, 1e-12, 1 - 1e-12)))
    conf = np.maximum(p, 1 - p)
    right = np.where(p > 0.5, post, 1 - post)  # P(correct | confidence), exactly
    out = {"unbinned_l2": float(np.sqrt(np.mean((conf - right) ** 2)))}
    for name, adaptive in (("l2", True), ("l1", False)):
        bins = ece_bins(conf, adaptive=adaptive, n_bins=n_bins)
        count = np.bincount(bins, minlength=n_bins)
        gap = (np.bincount(bins, conf, minlength=n_bins) - np.bincount(bins, right, minlength=n_bins)) / np.maximum(count, 1)
        share = count / count.sum()
        out[name] = float(np.sqrt(np.sum(share * gap**2))) if name == "l2" else float(np.sum(share * np.abs(gap)))
    return out


def debias(reps: int) -> None:
    """Bias and RMSE of the debiased L2 calibration error beside the plug-in, against the binned truth."""
    from gengap.metrics import get_metric

    true = true_calibration()
    print(f"True calibration error: binned L2 (15 equal-mass bins) {true['l2']:.4f}, unbinned L2 "
          f"{true['unbinned_l2']:.4f}, binned L1 (15 equal-width bins) {true['l1']:.4f}")
    rng = np.random.default_rng(4242)
    records = []
    for n in (100, 300, 1_000, 3_000, 10_000):
        got: dict[str, list[float]] = {"debiased": [], "plugin": [], "ece": []}
        for _ in range(reps):
            y, p = draw(n, 0.5, rng)
            data = as_data(y, p)
            bins = ece_bins(data.confidence, adaptive=True)
            one = np.ones((1, n))
            got["debiased"].append(get_metric("ece_debiased").point(data))  # type: ignore[attr-defined]
            got["plugin"].append(float(weighted_l2_calibration_error(data.correct, data.confidence, bins, one,
                                                                     debiased=False)[0]))
            got["ece"].append(get_metric("ece").point(data))  # type: ignore[attr-defined]
        row: dict[str, float | int] = {"n": n, "reps": reps}
        for k, v in got.items():
            target = true["l1"] if k == "ece" else true["l2"]
            arr = np.asarray(v)
            row[f"{k}_bias"] = float(arr.mean() - target)
            row[f"{k}_rmse"] = float(np.sqrt(np.mean((arr - target) ** 2)))
        records.append(row)
    print("Bias and RMSE against the binned truth (debiased and plug-in: L2, equal-mass; ece: plug-in L1, equal-width):")
    print(pd.DataFrame.from_records(records).to_string(index=False, float_format=lambda x: f"{x:+.4f}"))


def cost(million_only: bool = False) -> None:
    rng = np.random.default_rng(7)
    y, p = draw(1_000_000, 0.3, rng)
    data = as_data(y, p)
    started, cpu = time.perf_counter(), time.process_time()
    ci = corpus_score("auroc", data)
    auroc_s, auroc_cpu = time.perf_counter() - started, time.process_time() - cpu
    started = time.perf_counter()
    sk = skm.roc_auc_score(y, p)
    sk_s = time.perf_counter() - started
    print(f"1,000,000 rows: AUROC with DeLong interval {auroc_s:.2f} s wall, {auroc_cpu:.2f} s CPU [target < 2 s]; "
          f"load average {os.getloadavg()[0]:.1f}; scikit-learn's point value "
          f"alone {sk_s:.2f} s; {ci}; |gengap - sklearn| = {abs(ci.estimate - sk):.1e}")
    started, cpu = time.perf_counter(), time.process_time()
    ci = corpus_score("ece", data, n_resamples=10_000)
    print(f"1,000,000 rows: ECE with a 10,000-resample interval {time.perf_counter() - started:.2f} s wall, "
          f"{time.process_time() - cpu:.2f} s CPU [target < 10 s]; {ci}")
    if million_only:
        return
    print("Every metric's interval on one test part (10,000 resamples asked; ranking metrics draw at most 2,000), "
          "percentile vs BCa (the BCa adds the jackknife):")
    records = []
    for n in (5_000, 20_000):
        y, p = draw(n, 0.3, rng)
        data = as_data(y, p)
        for m in METRICS:
            row: dict[str, object] = {"n": n, "metric": m}
            for k in ("percentile", "bca"):
                started = time.perf_counter()
                ci = corpus_score(m, data, method=k)
                row[f"{k}_s"] = time.perf_counter() - started
            row["default"] = DEFAULT_INTERVAL.get(m, "bca")
            records.append(row)
    table = pd.DataFrame.from_records(records)
    print(table.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    for n, g in table.groupby("n"):
        print(f"  n = {n:,}: all {len(g)} metrics, percentile {g['percentile_s'].sum():.1f} s, BCa {g['bca_s'].sum():.1f} s")


def curve_rows(n_bins: int, per_bin: int, break_at: int | None, rng: np.random.Generator) -> pd.DataFrame:
    """Rows along an axis 1..n_bins from the simulation at prevalence 0.5; from ``break_at`` on, the
    model's scores separate the classes far less (true AUROC 0.58 instead of 0.76) and its
    probabilities are twice as overconfident (logit x 3 instead of x 1.5), so AUROC falls and ECE
    rises there."""
    parts = []
    for b in range(1, n_bins + 1):
        y = (rng.uniform(size=per_bin) < 0.5).astype(int)
        broken = break_at is not None and b >= break_at
        shift = 0.3 if broken else 1.0
        s = rng.normal(size=per_bin) + shift * y
        post = expit(shift * s - shift**2 / 2)
        p = expit((3.0 if broken else 1.5) * logit(np.clip(post, 1e-12, 1 - 1e-12)))
        data = as_data(y, p)
        parts.append(pd.DataFrame({"target": data.y_true, "output": data.y_pred, "confidence": data.confidence, "axis": b}))
    return pd.concat(parts, ignore_index=True)


def breaks(reps: int, seed: int = 77) -> None:
    """How often corpus_curve names a break on flat curves (false breaks, target <= 0.05) and finds a
    planted one at its bin (power): AUROC by DeLong's test; ECE and Brier by the permutation test
    (the default) beside the independent bootstrap of the gap (``test="bootstrap"``), on the same curves."""
    from gengap.analysis.corpus import corpus_break, corpus_curve

    records = []
    for metric, tests in (("auroc", ("auto",)), ("ece", ("auto", "bootstrap")), ("brier", ("auto", "bootstrap"))):
        for planted in (None, 5):
            rng = np.random.default_rng([seed, 0 if planted is None else planted])
            found: dict[str, list[float | None]] = {t: [] for t in tests}
            spent = dict.fromkeys(tests, 0.0)
            for r in range(reps):
                rows = curve_rows(6, 250, planted, rng)
                for t in tests:
                    started = time.perf_counter()
                    table = corpus_curve(metric, rows, "axis", train_range=(1, 3), n_resamples=400, seed=r, test=t)
                    spent[t] += time.perf_counter() - started
                    found[t].append(corpus_break(table))
            for t in tests:
                named = np.array([f is not None for f in found[t]])
                rate = float(named.mean())
                label = "delong" if metric == "auroc" else ("permutation" if t == "auto" else "bootstrap (old)")
                record: dict[str, object] = {"metric": metric, "test": label,
                                             "planted": "none" if planted is None else f"bin {planted}",
                                             "curves": reps, "break named": rate,
                                             "MC se": float(np.sqrt(rate * (1 - rate) / reps)),
                                             "at the planted bin": float(np.mean([f == planted for f in found[t]])) if planted else "-",
                                             "s per curve": spent[t] / reps}
                records.append(record)
                print(pd.DataFrame.from_records([record]).to_string(index=False, float_format=lambda x: f"{x:.3f}"), flush=True)
    print(f"Break-point test on corpus curves (6 bins x 250 rows, training range bins 1-3, Holm, alpha 0.05, seed {seed}):")
    print(pd.DataFrame.from_records(records).to_string(index=False, float_format=lambda x: f"{x:.3f}"))


GAP_METRICS = ["auroc", "macro_f1", "mcc", "brier", "log_loss", "ece"]


def gap_methods(metric: str, paired: bool = False) -> list[str]:
    """The gap intervals compared for a metric: the default ("auto") first, then the others."""
    from gengap.analysis.corpus import DEFAULT_GAP_INTERVAL, DEFAULT_PAIRED_GAP_INTERVAL

    others = ["percentile", "basic", "normal", "span", "bca"] + (["t"] if metric in ("brier", "log_loss") else [])
    default = "delong" if metric == "auroc" else ((DEFAULT_PAIRED_GAP_INTERVAL.get(metric) if paired else None)
                                                  or DEFAULT_GAP_INTERVAL.get(metric, "percentile"))
    return [default] + [k for k in others if k != default]


def _frame(data: CorpusData) -> pd.DataFrame:
    return pd.DataFrame({"example_id": np.arange(len(data)), "target": data.y_true, "output": data.y_pred,
                         "confidence": data.confidence})


def paired_draw(n: int, prev: float, rng: np.random.Generator, rho: float = 0.6) -> tuple[CorpusData, CorpusData]:
    """Two models on the same rows (the same labels): model a is the simulation's (score shift 1,
    probabilities logit x 1.5); model b's score shares a ``rho`` correlated noise with a's but
    separates the classes less (shift 0.7) and its probabilities are less overconfident (logit x 1.2)."""
    y = (rng.uniform(size=n) < prev).astype(int)
    e1, e2 = rng.normal(size=n), rng.normal(size=n)
    out = []
    for shift, noise, temper in ((1.0, e1, 1.5), (0.7, rho * e1 + np.sqrt(1 - rho**2) * e2, 1.2)):
        s = noise + shift * y
        post = expit(np.log(prev / (1 - prev)) + shift * s - shift**2 / 2)
        out.append(as_data(y, expit(temper * logit(np.clip(post, 1e-12, 1 - 1e-12)))))
    return out[0], out[1]


def gap_coverage(paired: bool, reps: int, seed: int, resamples: int = 1_000,
                 cells: list[tuple[int, float]] | None = None) -> None:
    """Coverage and mean width of corpus_gap's 95% intervals against a known true difference, every
    method from the same resamples of each pair of parts.

    Independent (``--gaps``): split a at prevalence 0.5, split b at 0.1 with three times the rows; the
    naive interval is the percentile bootstrap of the difference. Paired (``--paired-gaps``): two
    models on the same rows (:func:`paired_draw`); the naive interval resamples the two as if they
    were independent (percentile), ignoring the pairing."""
    from gengap.analysis.corpus import corpus_gaps
    from gengap.metrics import get_metric

    cells = cells or ([(200, 0.5), (1_000, 0.5), (1_000, 0.1)] if paired else [(200, 0.5), (1_000, 0.5)])
    records = []
    for n, prev in cells:
        if paired:
            big_a, big_b = paired_draw(2_000_000, prev, np.random.default_rng(12345))
        else:
            big_a, big_b = (as_data(*draw(2_000_000, pr, np.random.default_rng(12345))) for pr in (prev, 0.1))
        true = {m: get_metric(m).point(big_a) - get_metric(m).point(big_b) for m in GAP_METRICS}  # type: ignore[attr-defined]
        rng = np.random.default_rng([seed, n, int(prev * 100)])
        hits: dict[str, dict[str, list[float]]] = {m: {} for m in GAP_METRICS}
        width: dict[str, dict[str, list[float]]] = {m: {} for m in GAP_METRICS}
        names: dict[str, str] = {}
        gap_warned: dict[str, list[bool]] = {}
        started = time.perf_counter()
        cpu = time.process_time()
        for r in range(reps):
            if paired:
                da, db = paired_draw(n, prev, rng)
            else:
                da, db = as_data(*draw(n, prev, rng)), as_data(*draw(3 * n, 0.1, rng))
            a, b = _frame(da), _frame(db)
            for m in GAP_METRICS:
                asked = gap_methods(m, paired)
                try:
                    got = corpus_gaps(m, a, b, asked, paired=paired, n_resamples=resamples, seed=r)
                    if paired:
                        got["naive"] = corpus_gaps(m, a, b, ("percentile",), paired=False, n_resamples=resamples,
                                                   seed=r)["percentile"]
                except DataError:
                    continue
                names[m] = got[asked[0]].effect.method
                gap_warned.setdefault(m, []).append(bool(got[asked[0]].effect.warning))
                for k, test in got.items():
                    for key in ("default", k) if k == asked[0] else (k,):
                        hits[m].setdefault(key, []).append(float(test.effect.low <= true[m] <= test.effect.high))
                        width[m].setdefault(key, []).append(test.effect.high - test.effect.low)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        cell = []
        for m in GAP_METRICS:
            cover = float(np.mean(hits[m]["default"]))
            record: dict[str, object] = {"metric": m, "n a / n b": f"{n} / {n if paired else 3 * n}", "prev": prev,
                                         "true gap": true[m], "default": names[m], "cover": cover,
                                         "MC se": float(np.sqrt(max(cover * (1 - cover), 0.95 * 0.05) / len(hits[m]["default"]))),
                                         "reps": len(hits[m]["default"])}
            for k in ("naive", "delong", "percentile", "basic", "normal", "span", "bca", "t"):
                if k in hits[m]:
                    record[k] = float(np.mean(hits[m][k]))
            record["width"] = float(np.mean(width[m]["default"]))
            if paired:
                record["naive width"] = float(np.mean(width[m]["naive"]))
            record["warned"] = float(np.mean(gap_warned[m]))  # the default interval carried a warning
            record["flag"] = "!" if cover < 0.94 else ""
            cell.append(record)
        records += cell
        print(f"  n={n} prev={prev}: {reps} reps in {seconds:.0f} s wall, {cpu:.0f} s CPU", flush=True)
        print(pd.DataFrame.from_records(cell).to_string(index=False, float_format=lambda x: f"{x:.3f}", na_rep=""),
              flush=True)
    kind = "paired (two models on the same rows)" if paired else "between independent splits"
    print(f"Coverage of the 95% gap interval, {kind} (seed {seed}, {resamples:,} resamples; 'cover' is the "
          "default's; MC se the binomial SE of it):")
    with pd.option_context("display.width", 250):
        print(pd.DataFrame.from_records(records).to_string(index=False, float_format=lambda x: f"{x:.3f}", na_rep=""))


ECE_METRICS = ["ece", "ece_adaptive", "ece_debiased"]


def calibration_truths(prev: float, rows: int = 4_000_000, scale: float = 1.5) -> dict[str, float]:
    """The population's binned calibration errors at ``prev``: each bin's gap is mean confidence less the
    mean of each row's exact probability of being right (no draw of right or wrong), on ``rows`` draws;
    equal-mass bins cut at the population's confidence quantiles. The model is overconfident in every
    bin, so the binned L1 error is the same for any bins."""
    rng = np.random.default_rng(12345)
    y = (rng.uniform(size=rows) < prev).astype(int)
    post = expit(np.log(prev / (1 - prev)) + rng.normal(size=rows) + y - 0.5)
    p = expit(scale * logit(np.clip(post, 1e-12, 1 - 1e-12)))
    conf, right = np.maximum(p, 1 - p), np.maximum(post, 1 - post)  # P(right | confidence), exactly
    out = {}
    for name in ECE_METRICS:
        bins = ece_bins(conf, adaptive=name != "ece")
        count = np.bincount(bins, minlength=15)
        gap = np.bincount(bins, conf - right, minlength=15) / np.maximum(count, 1)
        share = count / count.sum()
        out[name] = float(np.sqrt(np.sum(share * gap**2))) if name == "ece_debiased" else float(np.sum(share * np.abs(gap)))
    return out


def ece_interval_coverage(reps: int, seed_base: int, cells: list[tuple[int, float]], resamples: int = 1_000) -> None:
    """Coverage and mean width of the calibration errors' 95% intervals (``ece``, ``ece_adaptive``,
    ``ece_debiased``) against their population values (:func:`calibration_truths`), every method from
    the same resamples of each test part; the naive interval is the percentile bootstrap. ``warned``:
    the share of parts whose default interval carried a warning."""
    records = []
    for n, prev in cells:
        true = calibration_truths(prev)
        rng = np.random.default_rng([seed_base, n, int(round(prev * 1000))])
        hits: dict[str, dict[str, list[float]]] = {m: {} for m in ECE_METRICS}
        width: dict[str, dict[str, list[float]]] = {m: {} for m in ECE_METRICS}
        warned: dict[str, list[bool]] = {m: [] for m in ECE_METRICS}
        names: dict[str, str] = {}
        started, cpu = time.perf_counter(), time.process_time()
        for r in range(reps):
            data = as_data(*draw(n, prev, rng))
            for m in ECE_METRICS:
                asked = [DEFAULT_INTERVAL[m]] + [k for k in ("percentile", "basic", "span", "bca") if k != DEFAULT_INTERVAL[m]]
                got = corpus_intervals(m, data, asked, n_resamples=resamples, seed=np.random.default_rng([seed_base, r, n]))
                names[m] = got[asked[0]].method
                warned[m].append(bool(got[asked[0]].warning))
                for k, ci in got.items():
                    for key in ("default", k) if k == asked[0] else (k,):
                        hits[m].setdefault(key, []).append(float(ci.low <= true[m] <= ci.high))
                        width[m].setdefault(key, []).append(ci.high - ci.low)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        cell = []
        for m in ECE_METRICS:
            cover = float(np.mean(hits[m]["default"]))
            record: dict[str, object] = {"metric": m, "n": n, "prev": prev, "truth": true[m], "default": names[m],
                                         "cover": cover, "MC se": float(np.sqrt(max(cover * (1 - cover), 0.95 * 0.05) / reps)),
                                         "naive": float(np.mean(hits[m]["percentile"]))}
            for k in ("basic", "span", "bca"):
                record[k] = float(np.mean(hits[m][k]))
            record["width"] = float(np.mean(width[m]["default"]))
            record["naive width"] = float(np.mean(width[m]["percentile"]))
            record["warned"] = float(np.mean(warned[m]))
            record["flag"] = "!" if cover < 0.94 else ""
            cell.append(record)
        records += cell
        print(f"  n={n:,} prev={prev}: {reps} parts in {seconds:.0f} s wall, {cpu:.0f} s CPU", flush=True)
        print(pd.DataFrame.from_records(cell).to_string(index=False, float_format=lambda x: f"{x:.3f}"), flush=True)
    print(f"Coverage of the calibration errors' 95% intervals (seed base {seed_base}, {reps} parts a cell, {resamples:,} "
          "resamples; 'cover' is the default's, 'naive' the percentile bootstrap's; MC se the binomial SE of 'cover'):")
    with pd.option_context("display.width", 250):
        print(pd.DataFrame.from_records(records).to_string(index=False, float_format=lambda x: f"{x:.3f}"))


def ece_warning_validation(reps: int, seed_base: int, cells: list[tuple[int, float]], scales: list[float],
                           resamples: int = 1_000) -> None:
    """Does the noise-floor warning of ``ece`` and ``ece_adaptive`` (:func:`gengap.analysis.corpus.ece_noise_floor`,
    threshold ``ECE_FLOOR_RATIO``) fire where their default interval misses? Per model (logit x ``scale``:
    1.1 nearly calibrated, 1.5 the grid's) and cell: coverage of the parts warned and not warned, the
    share warned; then the same for other thresholds (estimate / floor below k) and for the rule "the
    debiased ECE's interval reaches 0 while this one's does not"."""
    from gengap.analysis.corpus import ECE_FLOOR_RATIO, ece_noise_floor
    from gengap.metrics import get_metric

    records, sweep = [], []
    for scale in scales:
        for n, prev in cells:
            true = calibration_truths(prev, scale=scale)
            rng = np.random.default_rng([seed_base, n, int(round(prev * 1000)), int(round(scale * 100))])
            got: dict[str, list[tuple[float, float, bool, bool]]] = {"ece": [], "ece_adaptive": []}
            started, cpu = time.perf_counter(), time.process_time()
            for r in range(reps):
                data = as_data(*draw(n, prev, rng, scale))
                seed = [seed_base, r, n, int(round(scale * 100))]
                deb = corpus_score("ece_debiased", data, n_resamples=resamples, seed=np.random.default_rng(seed))
                for m in got:
                    ci = corpus_score(m, data, n_resamples=resamples, seed=np.random.default_rng(seed))
                    bins = get_metric(m).statistic(data).bins  # type: ignore[attr-defined]
                    ratio = ci.estimate / max(ece_noise_floor(data.confidence, bins), 1e-12)
                    got[m].append((float(ci.low <= true[m] <= ci.high), ratio, "calibrated" in ci.warning,
                                   deb.low == 0 and ci.low > 0))
            print(f"  logit x {scale}, n={n:,} prev={prev}: {reps} parts in {time.perf_counter() - started:.0f} s wall, "
                  f"{time.process_time() - cpu:.0f} s CPU", flush=True)
            done = len(records), len(sweep)
            for m, parts in got.items():
                hit, ratio, warned, zero = (np.array(col) for col in zip(*parts))
                warned = warned.astype(bool)
                zero = zero.astype(bool)

                def cover(mask: np.ndarray, hit: np.ndarray = hit) -> float:
                    return float(hit[mask].mean()) if mask.any() else float("nan")

                records.append({"model": f"logit x {scale}", "metric": m, "n": n, "prev": prev, "truth": true[m],
                                "cover": float(hit.mean()), "warned": float(warned.mean()),
                                "cover warned": cover(warned), "cover not warned": cover(~warned),
                                "missed, warned": float((warned & (hit == 0)).sum() / max((hit == 0).sum(), 1))})
                for k in (1.25, 1.5, 1.75, 2.0, 2.5, 3.0):
                    w = ratio < k
                    sweep.append({"model": f"logit x {scale}", "metric": m, "n": n, "prev": prev, "rule": f"ratio < {k:g}",
                                  "warned": float(w.mean()), "cover warned": cover(w), "cover not warned": cover(~w)})
                sweep.append({"model": f"logit x {scale}", "metric": m, "n": n, "prev": prev, "rule": "debiased reaches 0",
                              "warned": float(zero.mean()), "cover warned": cover(zero), "cover not warned": cover(~zero)})
            with pd.option_context("display.width", 250, "display.max_rows", 500):
                print(pd.DataFrame.from_records(sweep[done[1]:] + records[done[0]:]).to_string(
                    index=False, float_format=lambda x: f"{x:.3f}", na_rep=""), flush=True)
    fmt = lambda x: f"{x:.3f}"
    with pd.option_context("display.width", 250, "display.max_rows", 500):
        print(f"\nOther rules (estimate / noise floor below k; the debiased ECE's interval reaching 0 while this one's "
              f"does not), seed base {seed_base}:")
        print(pd.DataFrame.from_records(sweep).to_string(index=False, float_format=fmt, na_rep=""))
        print(f"\nThe noise-floor warning (estimate below {ECE_FLOOR_RATIO['ece']:g} x the floor for ece, "
              f"{ECE_FLOOR_RATIO['ece_adaptive']:g} x for ece_adaptive) of the default "
              f"interval (seed base {seed_base}, {reps} parts a cell, {resamples:,} resamples; 'missed, warned': "
              "the share of the parts that missed which warned):")
        print(pd.DataFrame.from_records(records).to_string(index=False, float_format=fmt, na_rep=""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer reps and no n = 100,000")
    ap.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples per interval (default 1,000)")
    ap.add_argument("--reps", default=None, help="reps per n, e.g. '50:200,500:120,5000:40,100000:4'")
    ap.add_argument("--seed-base", type=int, default=1000, help="7000: the development run defaults were chosen on")
    ap.add_argument("--debias", action="store_true", help="only the debiased ECE's bias")
    ap.add_argument("--cost", action="store_true", help="only the timings")
    ap.add_argument("--million", action="store_true", help="only the two 1,000,000-row timing targets")
    ap.add_argument("--coverage-only", action="store_true", help="no debiased-ECE section after the coverage")
    ap.add_argument("--metrics", default=None, help="only these metrics in the coverage grid, e.g. 'auroc,brier,ece'")
    ap.add_argument("--breaks", action="store_true", help="only the break-point test's false breaks and power")
    ap.add_argument("--curves", type=int, default=None, help="curves per row of --breaks (default 200; 60 with --quick)")
    ap.add_argument("--break-seed", type=int, default=77, help="seed of --breaks' curves (77: the first run)")
    ap.add_argument("--gaps", action="store_true", help="only the coverage of corpus_gap's interval between two splits")
    ap.add_argument("--paired-gaps", action="store_true", help="only the coverage of corpus_gap's paired interval")
    ap.add_argument("--gap-seed", type=int, default=31, help="seed of --gaps / --paired-gaps (31: the first run)")
    ap.add_argument("--gap-cells", default=None, help="rows:prevalence of split a per cell, e.g. '200:0.5,1000:0.5'")
    ap.add_argument("--ece-intervals", action="store_true",
                    help="only the coverage of the calibration errors' intervals (ece, ece_adaptive, ece_debiased)")
    ap.add_argument("--ece-seed", type=int, default=5311,
                    help="seed base of --ece-intervals (31: the development run the defaults were chosen on)")
    ap.add_argument("--ece-cells", default="500:0.5,500:0.1,500:0.01,5000:0.5,5000:0.1,5000:0.01,50:0.5,50:0.1,50:0.01",
                    help="rows:prevalence per cell of --ece-intervals")
    ap.add_argument("--ece-warning", action="store_true",
                    help="only the validation of ece's noise-floor warning (cells of --ece-cells, models of --ece-scales)")
    ap.add_argument("--ece-scales", default="1.1,1.5", help="logit factors of --ece-warning's models (1.1 nearly calibrated)")
    ap.add_argument("--gap-metrics", default=None, help="only these metrics in --gaps / --paired-gaps, e.g. 'mcc,ece_debiased'")
    ap.add_argument("--truth", choices=("exact", "mc", "both"), default="exact",
                    help="the true values: exact (default), mc (2,000,000 draws, as before), both (cover_mc beside)")
    ap.add_argument("--check-truths", action="store_true", help="only the exact truths beside 20,000,000 draws")
    ap.add_argument("--prevalences", default=None, help="only these prevalences in the coverage grid, e.g. '0.5'")
    ap.add_argument("--first-rep", type=int, default=0, help="skip the reps before this one (draw them, not evaluate)")
    ap.add_argument("--save", default=None, help="append every rep's outcome to this CSV")
    ap.add_argument("--from-saved", default=None, help="only the grid from saved CSVs (comma-separated)")
    ap.add_argument("--saved-defaults", default=None,
                    help="the default interval of saved reps that do not name it, e.g. 'ece=basic,ece_debiased=percentile'")
    ap.add_argument("--lean", action="store_true", help="only each metric's default interval and the naive one")
    ap.add_argument("--part-cost", type=int, default=None, help="only the CPU seconds of one test part of this many rows")
    args = ap.parse_args()
    global LEAN
    LEAN = args.lean
    if args.metrics:
        METRICS[:] = [m for m in METRICS if m in args.metrics.split(",")]
    if args.part_cost:
        part_cost(args.part_cost, args.resamples)
        return
    if args.check_truths:
        check_truths()
        return
    if args.from_saved:
        saved = pd.concat([pd.read_csv(f) for f in args.from_saved.split(",")], ignore_index=True)
        named = dict(x.split("=") for x in args.saved_defaults.split(",")) if args.saved_defaults else None
        with pd.option_context("display.width", 250, "display.max_rows", 500):
            print(grid(saved, named).to_string(index=False, float_format=lambda x: f"{x:.3f}", na_rep=""))
        return
    if args.ece_warning:
        cells = [(int(n), float(p)) for n, p in (c.split(":") for c in args.ece_cells.split(","))]
        ece_warning_validation(args.curves or 200, args.ece_seed, cells, [float(x) for x in args.ece_scales.split(",")],
                               args.resamples)
        return
    if args.ece_intervals:
        cells = [(int(n), float(p)) for n, p in (c.split(":") for c in args.ece_cells.split(","))]
        ece_interval_coverage(args.curves or (60 if args.quick else 200), args.ece_seed, cells, args.resamples)
        return
    if args.gap_metrics:
        GAP_METRICS[:] = args.gap_metrics.split(",")
    if args.gaps or args.paired_gaps:
        cells = [(int(n), float(p)) for n, p in (c.split(":") for c in args.gap_cells.split(","))] if args.gap_cells else None
        gap_coverage(args.paired_gaps, args.curves or (40 if args.quick else 200), args.gap_seed, cells=cells)
        return
    if args.breaks:
        breaks(args.curves or (60 if args.quick else 200), args.break_seed)
        return
    if args.debias:
        debias(200 if args.quick else 500)
        return
    if args.million:
        cost(million_only=True)
        return
    if not args.coverage_only:
        print("Cost (one run, loaded machine):")
        cost()
    if args.cost:
        return
    reps = {50: 100, 500: 100, 5_000: 20} if args.quick else {50: 300, 500: 300, 5_000: 60, 100_000: 3}
    if args.reps:
        reps = {int(k): int(v) for k, v in (part.split(":") for part in args.reps.split(","))}
    print(f"\nCoverage of 95% intervals ({args.resamples:,} resamples each; Monte Carlo error about "
          f"+-{Z * np.sqrt(0.05 * 0.95 / min(reps.values())):.2f} at the fewest reps; seed base {args.seed_base}):")
    prevalences = [float(x) for x in args.prevalences.split(",")] if args.prevalences else None
    table = coverage(reps, args.resamples, args.seed_base, truth_kind=args.truth, prevalences=prevalences,
                     first_rep=args.first_rep, save=args.save)
    with pd.option_context("display.width", 250, "display.max_rows", 500):
        print(table.to_string(index=False, float_format=lambda x: f"{x:.3f}", na_rep=""))
    low = table[table["flag"] == "!"]
    if len(low):
        print(f"\nWARNING: {len(low)} cells below 0.94 coverage: "
              + "; ".join(f"{r.metric} n={r.n} prev={r.prev}: {r.cover:.2f}" for r in low.itertuples()))
        # a cell short of 0.94 by more than two Monte Carlo SE should carry the interval's warning
        se = np.sqrt(0.95 * 0.05 / low["reps"].to_numpy())
        silent = low[(low["cover"].to_numpy() < 0.94 - 2 * se) & ~(low["warned"].to_numpy() >= 0.5)]
        print(f"Cells more than 2 MC SE below 0.94 whose default interval warned in under half the reps: {len(silent)}"
              + ("" if silent.empty else ": " + "; ".join(f"{r.metric} n={r.n} prev={r.prev}: {r.cover:.2f} "
                                                       f"(warned {r.warned:.2f})" for r in silent.itertuples())))
    if args.coverage_only:
        return
    print("\nDebiased ECE:")
    debias(200 if args.quick else 500)


if __name__ == "__main__":
    main()
