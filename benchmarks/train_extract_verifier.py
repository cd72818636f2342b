"""Train the extraction verifier (``src/gengap/extract/verifier.json``) and print its cross-validated trade-off.

The verifier decides, for each answer the rules read, whether to keep it or leave the output unextracted.
It must learn what the rules' mistakes look like on outputs they were **not** tuned on: the current rules
read their own tuning sets almost perfectly (99% precision), so their readings there teach little. Each
labelled set was, once, fresh: this script reads every set with the rules of the revision just before the
set was written (a temporary git worktree per revision, like ``compare_extract_rules.py``), and trains on
those readings, labelled right or wrong by ``bench_extract.is_correct``:

    v4     (645 readings)  rules at 57a585e^  (before extraction_v4's first batch)
    v5     (705)           rules at fd434ac^  (before extraction_v5's first batch)
    v7     (2,098)         rules at a728f7e^  (before extraction_v7's first batch)
    v9dev  (488)           rules at ffa58c4   (main when extraction_v9dev was written)

The held-out set extraction_v8 is never read here.

The model is scikit-learn's logistic regression (L2, C = 0.1, standardised features), folded into one
weight per feature so that reading it needs numpy only. The threshold on the probability of a wrong
reading is the lowest of 0.30, 0.35, ..., 0.90 at which, in 10-fold cross-validation grouped by question
family (paraphrases of one question never straddle folds), the abstentions make no more right outputs
wrong than wrong outputs right: accuracy is kept, precision rises.

    python benchmarks/train_extract_verifier.py                 # train, print the CV figures, write the file
    python benchmarks/train_extract_verifier.py --out /tmp/v.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import sklearn
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GroupKFold
from sklearn.preprocessing import StandardScaler

from gengap.extract._base import Extraction
from gengap.extract._verify import MODEL_FILE, SCHEMA, feature_names, features

try:
    from benchmarks.bench_extract import cell, is_correct, is_no_answer, read_rows, was_read
    from benchmarks.compare_extract_rules import readings_with
except ImportError:  # run as a script from the benchmarks folder
    from bench_extract import cell, is_correct, is_no_answer, read_rows, was_read
    from compare_extract_rules import readings_with

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "benchmarks" / "data"
#: Each set, the revision whose rules had never seen it, and its files.
FRESH = (
    ("v4", "57a585e^", ("extraction_v4/heldout.jsonl",)),
    ("v5", "fd434ac^", ("extraction_v5/heldout.jsonl",)),
    ("v7", "a728f7e^", ("extraction_v7/heldout_a.jsonl", "extraction_v7/heldout_b.jsonl")),
    ("v9dev", "ffa58c4", ("extraction_v9dev/dev.jsonl",)),
)
C = 0.1
THRESHOLDS = tuple(round(0.30 + 0.05 * i, 2) for i in range(13))
FOLDS = 10

def fresh_readings() -> list[dict]:
    """Every answer read by the rules of a revision that had never seen the row, with whether it is right."""
    readings = []
    for name, revision, files in FRESH:
        rows = [r for f in files for r in read_rows(DATA / f)]
        for row, (value, rule) in zip(rows, readings_with(revision, rows)):
            if was_read(value):
                readings.append({**row, "set": name, "value": value, "rule": rule,
                                 "wrong": not is_correct(row["kind"], value, row["gold"], row.get("aliases"))})
    return readings


def group(r: dict) -> str:
    """Rows of one question family (or one question) share a group: a fold never splits paraphrases."""
    return f"{r['set']}|{r.get('family') or r.get('question') or r.get('id')}"


def design(readings: list[dict]) -> np.ndarray:
    return np.array([features(r["output"], r["kind"], Extraction(r["value"], r["kind"], r["rule"]), r.get("question"),
                              r.get("choices")) for r in readings])


def fit(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    """Logistic regression on standardised features, folded back to one weight per raw feature."""
    scaler = StandardScaler().fit(X)
    model = LogisticRegression(C=C, max_iter=5000).fit(scaler.transform(X), y)
    weights = model.coef_[0] / scaler.scale_
    return weights, float(model.intercept_[0] - np.dot(weights, scaler.mean_))


def doubts(X: np.ndarray, weights: np.ndarray, intercept: float) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-(X @ weights + intercept)))


def cross_validated(X: np.ndarray, y: np.ndarray, groups: np.ndarray) -> np.ndarray:
    p = np.zeros(len(y))
    for train, test in GroupKFold(n_splits=FOLDS).split(X, y, groups):
        p[test] = doubts(X[test], *fit(X[train], y[train]))
    return p


def trade_off(y: np.ndarray, null: np.ndarray, p: np.ndarray, threshold: float) -> dict[str, int]:
    """What abstaining above ``threshold`` does: wrong readings withheld, right ones lost, outputs fixed
    (a wrong reading of an output that commits to nothing), the readings and wrong readings left."""
    out = p > threshold
    return {"withheld_wrong": int((out & (y == 1)).sum()), "withheld_right": int((out & (y == 0)).sum()),
            "fixed": int((out & (y == 1) & null).sum()), "read": int((~out).sum()), "wrong": int((~out & (y == 1)).sum())}


def report(readings: list[dict], y: np.ndarray, null: np.ndarray, p: np.ndarray, chosen: float) -> list[str]:
    lines = [f"cross-validated ({FOLDS} folds grouped by question family), {len(y)} fresh readings, {int(y.sum())} wrong; "
             f"AUC {roc_auc_score(y, p):.3f}",
             f"  {'threshold':>9}  {'withheld wrong':>14}  {'withheld right':>14}  {'accuracy change':>15}  precision"]
    for t in THRESHOLDS:
        s = trade_off(y, null, p, t)
        mark = "  <- chosen" if t == chosen else ""
        lines.append(f"  {t:9.2f}  {s['withheld_wrong']:14}  {s['withheld_right']:14}  "
                     f"{s['fixed'] - s['withheld_right']:+15}  {cell(s['read'] - s['wrong'], s['read'])}{mark}")
    sets = np.array([r["set"] for r in readings])
    lines.append(f"  at {chosen:.2f}, per set: precision of the readings before -> after (and outputs fixed / broken)")
    for name in [*dict.fromkeys(sets), "all"]:
        m = np.ones(len(y), bool) if name == "all" else sets == name
        s = trade_off(y[m], null[m], p[m], chosen)
        lines.append(f"    {name:6} {m.sum():5} read: {cell(int(m.sum() - y[m].sum()), int(m.sum()))} -> "
                     f"{cell(s['read'] - s['wrong'], s['read'])}  ({s['fixed']} fixed, {s['withheld_right']} broken)")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=MODEL_FILE, help="where to write the model file")
    args = parser.parse_args()
    readings = fresh_readings()
    X, y = design(readings), np.array([int(r["wrong"]) for r in readings])
    null = np.array([is_no_answer(r["gold"]) for r in readings])
    p = cross_validated(X, y, np.array([group(r) for r in readings]))
    chosen = next((t for t in THRESHOLDS if (s := trade_off(y, null, p, t))["fixed"] >= s["withheld_right"]), 1.0)
    print("\n".join(report(readings, y, null, p, chosen)))
    weights, intercept = fit(X, y)
    model = {
        "kind": "gengap extraction verifier", "schema": SCHEMA, "features": list(feature_names()),
        "weights": [round(float(w), 10) for w in weights], "intercept": round(intercept, 10), "threshold": chosen,
        "trained_on": {name: {"rules": rev, "readings": int(sum(r["set"] == name for r in readings)),
                              "wrong": int(sum(r["set"] == name and r["wrong"] for r in readings))}
                       for name, rev, _ in FRESH},
        "model": f"scikit-learn {sklearn.__version__} LogisticRegression(C={C}) on standardised features",
    }
    args.out.write_text(json.dumps(model, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out} (schema {SCHEMA}, {len(weights)} features, threshold {chosen})")


if __name__ == "__main__":
    main()
