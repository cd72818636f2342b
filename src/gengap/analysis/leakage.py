"""Is the test set clean? Copies of training examples in each split's test part, and corpus overlap.

For every split, each test example is checked against that split's train part (computed from the
data and the splits; no model runs):

==============  ===========================================================================
kind            the test example is flagged when ...
==============  ===========================================================================
``exact``       its text is the text of a training example
``normalized``  its normalized text is (:data:`NORMALIZATION`)
``near``        it and a training example have at least :data:`MIN_WORDS` words and the Jaccard
                similarity of their word 2-gram sets is at least ``threshold`` (MinHash LSH
                candidates, verified on the exact sets)
``ngram``       a run of ``ngram`` consecutive words of it occurs in a ``corpus`` file (a
                pre-training sample, another benchmark), as decontamination studies check
==============  ===========================================================================

The text is the input (``on="input"``) or the input and target together (``on="input+target"``;
a line break between them); inputs that are not text (several columns) are compared as JSON.
Each flagged example is listed once per split under its strictest kind, with the training
example (or ``FILE:LINE`` of the corpus) it copies and the similarity (1 for exact and
normalized copies, the exact Jaccard for near ones, the share of its n-grams found for
``ngram``). :func:`leakage_scores` then compares a run's score on the clean and the flagged
parts of each split.

>>> import gengap
>>> from gengap.splits import RandomSplit
>>> ds = gengap.load([{"input": f"question number {i} is here", "target": str(i)} for i in range(40)]
...                  + [{"input": "Question number 3 is here!", "target": "3"}])
>>> audit = audit_leakage(ds, [RandomSplit(test_fraction=0.25, seed=8).split_dataset(ds)])
>>> audit.table[["split", "n_test", "normalized", "flagged"]].values.tolist()
[['random', 10, 1, 1]]
>>> audit.leaks[["id", "kind", "match_id"]].values.tolist()
[['40', 'normalized', '3']]
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from gengap._errors import ConfigError, DataError
from gengap.analysis._copies import DEFAULT_THRESHOLD, MIN_WORDS, NORMALIZATION, find_copies, normalize
from gengap.analysis._ngrams import ngram_overlap
from gengap.dataset import Dataset

__all__ = ["LeakageAudit", "audit_leakage", "leakage_scores", "example_texts", "KINDS", "LEAK_COLUMNS",
           "DEFAULT_THRESHOLD", "DEFAULT_NGRAM", "NORMALIZATION"]

#: The kinds of leak, from the strictest; an example flagged twice is listed under the first.
KINDS = ("exact", "normalized", "near", "ngram")
#: The fields of each line of ``leaked.jsonl``.
LEAK_COLUMNS = ("id", "split", "kind", "match_id", "similarity")
#: Words per n-gram for corpus overlap, as lm-evaluation-harness and GPT-3's decontamination use.
DEFAULT_NGRAM = 13
#: Words per shingle for near copies.
SHINGLE = 2

On = Literal["input", "input+target"]


def example_texts(dataset: Dataset, on: On = "input") -> list[str]:
    """The text compared for each example: the input, or input and target joined by a line break.

    >>> import gengap
    >>> example_texts(gengap.load([{"input": "2+2", "target": "4"}]), "input+target")
    ['2+2\\n4']
    """
    if on not in ("input", "input+target"):
        raise ConfigError(f"on={on!r} must be 'input' or 'input+target'.")

    def text(value: Any) -> str:
        if isinstance(value, str):
            return value
        if value is None:
            return ""
        return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)

    inputs = [text(v) for v in dataset.frame["input"]]
    if on == "input":
        return inputs
    return [f"{i}\n{text(t)}" for i, t in zip(inputs, dataset.frame["target"])]


@dataclass(frozen=True)
class LeakageAudit:
    """What :func:`audit_leakage` found.

    Attributes
    ----------
    leaks : one row per flagged test example and split: ``id``, ``split``, ``kind``, ``match_id``,
        ``similarity``, and the two texts (``text``, ``match_text``) for a reader to compare.
    table : per split: ``split``, ``n_train``, ``n_test``, a count per kind, ``flagged`` and ``share``
        (flagged over test).
    settings : how it was checked (``on``, ``normalization``, ``threshold``, ``shingle``, ``n_perm``,
        ``ngram``, ``corpus``).
    notes : what a reader should know (empty texts, texts too short to compare, splits without a
        train part), one sentence each.
    """

    leaks: pd.DataFrame
    table: pd.DataFrame
    settings: dict[str, Any]
    notes: tuple[str, ...] = field(default=())

    def flagged_ids(self, split: str) -> set[str]:
        """Ids of the flagged test examples of ``split``."""
        return set(self.leaks.loc[self.leaks["split"] == split, "id"])

    def to_dict(self, *, n_pairs: int = 0) -> dict[str, Any]:
        """JSON figures: settings, notes, the per-split table and the ``n_pairs`` closest pairs per split."""
        out: dict[str, Any] = {"settings": self.settings, "notes": list(self.notes),
                               "splits": self.table.to_dict(orient="records")}
        if n_pairs:
            out["closest_pairs"] = closest_pairs(self.leaks, n_pairs).to_dict(orient="records")
        return out

    def write(self, out: str | Path) -> Path:
        """Write ``leaked.jsonl`` (one line per flagged example: :data:`LEAK_COLUMNS`) and ``leakage.json``
        (settings, notes and the per-split table) to the folder ``out``; returns the jsonl path."""
        folder = Path(out)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "leaked.jsonl"
        with open(path, "w", encoding="utf-8") as f:
            for rec in self.leaks[list(LEAK_COLUMNS)].to_dict(orient="records"):
                f.write(json.dumps(rec, ensure_ascii=False) + "\n")
        (folder / "leakage.json").write_text(json.dumps(self.to_dict(), indent=2, default=str) + "\n", encoding="utf-8")
        return path


def closest_pairs(leaks: pd.DataFrame, n: int = 5) -> pd.DataFrame:
    """The ``n`` flagged examples of each split and kind with the highest similarity (ties: by id)."""
    if leaks.empty:
        return leaks
    ranked = leaks.assign(_k=leaks["kind"].map(KINDS.index))
    ranked = ranked.sort_values(["split", "_k", "similarity", "id"], ascending=[True, True, False, True], kind="stable")
    return ranked.groupby(["split", "kind"], sort=False).head(n).drop(columns="_k").reset_index(drop=True)


def _check_options(threshold: float, ngram: int, n_perm: int) -> None:
    if not isinstance(threshold, (int, float)) or not 0 < threshold <= 1:
        raise ConfigError(f"threshold={threshold!r} must be a Jaccard similarity in (0, 1], e.g. {DEFAULT_THRESHOLD}.")
    if not isinstance(ngram, (int, np.integer)) or isinstance(ngram, bool) or ngram < 1:
        raise ConfigError(f"ngram={ngram!r} must be a number of words >= 1 (13 is what decontamination studies use).")
    if not isinstance(n_perm, (int, np.integer)) or n_perm < 8:
        raise ConfigError(f"n_perm={n_perm!r} must be a number of MinHash functions >= 8 (128 by default).")


def audit_leakage(
    dataset: Dataset,
    splits: Sequence[Any],
    *,
    on: On = "input",
    near: bool = True,
    threshold: float = DEFAULT_THRESHOLD,
    n_perm: int = 128,
    corpus: Sequence[str | Path] = (),
    ngram: int = DEFAULT_NGRAM,
    seed: int = 0,
) -> LeakageAudit:
    """Check each split's test part against its train part (and against ``corpus`` files).

    Parameters
    ----------
    dataset : the examples the splits index.
    splits : :class:`gengap.splits.Split` records of ``dataset`` (``splitter.split_datasets(dataset)``).
    on : compare the ``"input"`` or the ``"input+target"``.
    near : also look for near copies (off: exact and normalized copies only).
    threshold : Jaccard similarity of word 2-gram sets from which two texts are near copies.
    n_perm : MinHash functions (more: fewer missed near copies, more time).
    corpus : text or JSONL files (optionally .gz) read as more training data, streamed.
    ngram : words per n-gram of the corpus overlap.
    seed : seed of the MinHash functions (the same seed gives the same audit).
    """
    _check_options(threshold, ngram, n_perm)
    if not splits:
        raise ConfigError("audit_leakage needs at least one split (e.g. RandomSplit().split_datasets(dataset)).")
    texts = example_texts(dataset, on)
    normalized = [normalize(t) for t in texts]
    ids = dataset.frame["id"].astype(str).to_numpy()
    notes: list[str] = []
    empty = np.flatnonzero([not n for n in normalized])
    if len(empty) == len(texts):
        raise DataError(f"Every {on} of '{dataset.name}' is empty (or only punctuation and spaces), so there is nothing "
                        "to compare. Check the --input column.")
    if len(empty):
        notes.append(f"{len(empty)} example(s) have an empty {on} (ids {ids[empty[:5]].tolist()}"
                     f"{' ...' if len(empty) > 5 else ''}): an empty text copies nothing, so they are never flagged.")
    n_words = np.fromiter((len(n.split()) for n in normalized), dtype=np.int64, count=len(normalized))
    short = np.flatnonzero((n_words > 0) & (n_words < MIN_WORDS))
    if near and len(short):
        one = int(np.sum(n_words == 1))
        notes.append(f"{len(short)} example(s) have an {on} of fewer than {MIN_WORDS} words ({one} of one word; ids "
                     f"{ids[short[:5]].tolist()}{' ...' if len(short) > 5 else ''}): they are checked for exact and "
                     "normalized copies only (in a short text one changed word makes another example, not a copy).")
    tested = np.unique(np.concatenate([np.asarray(s.test, dtype=np.int64) for s in splits]))
    corpus_hits = pd.DataFrame({"test": [], "match_id": [], "similarity": []})
    if corpus:
        corpus_hits = ngram_overlap([normalized[i] for i in tested], list(corpus), n=ngram)
        corpus_hits["test"] = tested[corpus_hits["test"].to_numpy(dtype=np.int64)]
        too_short = int(np.sum(n_words[tested] < ngram))
        if too_short:
            notes.append(f"{too_short} tested example(s) have fewer than {ngram} words and cannot share a {ngram}-gram with "
                         f"the corpus; a smaller --ngram checks them.")
    corpus_at = dict(zip(corpus_hits["test"].astype(np.int64), zip(corpus_hits["match_id"], corpus_hits["similarity"])))
    leak_parts, table = [], []
    for split in splits:
        train, test = np.asarray(split.train, dtype=np.int64), np.asarray(split.test, dtype=np.int64)
        counts = dict.fromkeys(KINDS, 0)
        found = pd.DataFrame({"test": np.empty(0, np.int64), "kind": [], "train": np.empty(0, np.int64), "similarity": []})
        if len(train):
            found = find_copies([texts[i] for i in train], [texts[i] for i in test], near=near, threshold=threshold,
                                shingle=SHINGLE, n_perm=n_perm, seed=seed,
                                normalized=([normalized[i] for i in train], [normalized[i] for i in test]))
        else:
            notes.append(f"Split '{split.name}' has no train part (every example is tested), so none of its test examples "
                         "can copy a training one" + ("; only the corpus overlap applies." if corpus else
                                                        ": give --corpus FILE to check them against a corpus."))
        rows = {"id": ids[test[found["test"]]], "split": split.name, "kind": found["kind"].to_numpy(dtype=object),
                "match_id": ids[train[found["train"]]] if len(found) else np.empty(0, dtype=object),
                "similarity": found["similarity"].to_numpy(dtype=float),
                "text": [texts[i] for i in test[found["test"]]],
                "match_text": [texts[i] for i in train[found["train"]]] if len(found) else []}
        frame = pd.DataFrame(rows)
        flagged_here = set(test[found["test"]].tolist())
        extra = [(p, *corpus_at[p]) for p in test.tolist() if p in corpus_at and p not in flagged_here]
        if extra:
            frame = pd.concat([frame, pd.DataFrame({
                "id": [ids[p] for p, _, _ in extra], "split": split.name, "kind": "ngram",
                "match_id": [m for _, m, _ in extra], "similarity": [float(s) for _, _, s in extra],
                "text": [texts[p] for p, _, _ in extra], "match_text": ""})], ignore_index=True)
        for kind, n in frame["kind"].value_counts().items():
            counts[str(kind)] = int(n)
        flagged = int(len(frame))
        table.append({"split": split.name, "n_train": int(len(train)), "n_test": int(len(test)), **counts,
                      "flagged": flagged, "share": round(flagged / len(test), 6) if len(test) else 0.0})
        leak_parts.append(frame)
    if all(len(s.train) == 0 for s in splits) and not corpus:
        raise DataError(f"Every split here has no train part ({', '.join(repr(s.name) for s in splits)}), so no test example "
                        "can copy a training one. Give --corpus FILE to check the test examples against a corpus, or a "
                        "split method with a train part (random, length, ...).")
    leaks = pd.concat(leak_parts, ignore_index=True) if leak_parts else pd.DataFrame(columns=[*LEAK_COLUMNS, "text", "match_text"])
    settings = {"on": on, "normalization": NORMALIZATION, "near": near, "threshold": threshold, "shingle": SHINGLE,
                "min_words": MIN_WORDS,
                "n_perm": n_perm, "seed": seed, "ngram": ngram if corpus else None, "corpus": [str(c) for c in corpus]}
    for note in notes:
        warnings.warn(note, UserWarning, stacklevel=2)
    return LeakageAudit(leaks=leaks, table=pd.DataFrame(table), settings=settings, notes=tuple(notes))


#: Columns of :func:`leakage_scores`.
SCORE_COLUMNS = ("model", "split", "metric", "n_clean", "clean", "clean_low", "clean_high", "n_flagged", "flagged",
                 "flagged_low", "flagged_high", "difference", "difference_low", "difference_high", "p_value", "test")


def leakage_scores(rows: pd.DataFrame, leaks: pd.DataFrame, *, confidence: float = 0.95, seed: int = 0) -> pd.DataFrame:
    """Per model, split and metric: the score on the clean and on the flagged test examples, each with
    its interval, and their difference (clean minus flagged) with its interval and the p-value of the
    two-sample test (Fisher's exact for 0/1 scores, Welch's t otherwise; :func:`~gengap.analysis.intervals.two_sample_test`).

    ``rows`` are a run's per-example rows (``Store.rows``); perturbed rows are left out. A part with
    no example has no score (NaN).

    >>> rows = pd.DataFrame({"model": "m", "split": "random", "perturbation": "none", "metric": "exact_match",
    ...                      "example_id": [str(i) for i in range(6)], "score": [1.0, 1, 1, 0, 0, 1]})
    >>> leaks = pd.DataFrame({"id": ["0", "1"], "split": "random", "kind": "exact"})
    >>> r = leakage_scores(rows, leaks).iloc[0]
    >>> [float(r[k]) for k in ("n_clean", "clean", "n_flagged", "flagged", "difference")]
    [4.0, 0.5, 2.0, 1.0, -0.5]
    """
    from gengap.analysis.intervals import mean_ci, two_sample_test

    clean_rows = rows[rows["perturbation"] == "none"] if "perturbation" in rows.columns else rows
    out = []
    for (model, split, metric), part in clean_rows.groupby(["model", "split", "metric"], sort=False):
        flagged_ids = set(leaks.loc[leaks["split"] == split, "id"].astype(str))
        is_flagged = part["example_id"].astype(str).isin(flagged_ids).to_numpy()
        scores = part["score"].to_numpy(dtype=float)
        clean, flagged = scores[~is_flagged], scores[is_flagged]
        rec: dict[str, Any] = {"model": model, "split": split, "metric": metric, "n_clean": len(clean),
                               "n_flagged": len(flagged)}
        for name, values in (("clean", clean), ("flagged", flagged)):
            ci = mean_ci(values, confidence=confidence, seed=seed) if len(values) else None
            rec[name], rec[f"{name}_low"], rec[f"{name}_high"] = (ci.estimate, ci.low, ci.high) if ci else (np.nan,) * 3
        if len(clean) and len(flagged):
            t = two_sample_test(clean, flagged, confidence=confidence, seed=seed)
            rec.update(difference=t.effect.estimate, difference_low=t.effect.low, difference_high=t.effect.high,
                       p_value=t.p_value, test=t.test)
        else:
            rec.update(difference=np.nan, difference_low=np.nan, difference_high=np.nan, p_value=np.nan, test="")
        out.append(rec)
    frame = pd.DataFrame(out, columns=list(SCORE_COLUMNS))
    return frame.astype({"n_clean": np.int64, "n_flagged": np.int64})
