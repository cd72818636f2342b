"""The viewer's queries: filters from a URL's parameters to SQL, pages of rows, one row, A/B flips.

Every query reads the in-memory table ``rows`` (see ``_load``); values from the URL are always passed
as parameters, never pasted into SQL, and column names are checked against the table.

Filters (all optional, combined with AND; see docs/viewer-api.md):

- ``run`` (0 for the first store, 1 for the second, ...), ``model``, ``split``, ``perturbation``,
  ``example_id``: equal to the value; repeat a parameter for any of several values.
- ``metric``: rows of that metric; absent, each run's primary metric; ``*`` every metric.
- ``outcome``: ``correct`` (score 1), ``wrong`` (score below 1, answer read), ``unextracted``.
- ``q``: the text appears in the input or the output (case-insensitive).
- ``meta.FIELD=VALUE``: a metadata field equals a value; ``min.FIELD`` / ``max.FIELD``: a number
  range (inclusive; also for ``score``, ``input_length``, ``target_length`` and ``output_length``);
  ``lt.FIELD``: strictly below a number (a slice's bin ``20 <= size < 40`` is ``min.size=20&lt.size=40``);
  ``missing.FIELD=true``: the field is absent or null (``false``: present).
- ``sort``: a column (``score``, ``example_id``, ``input_length``, a metadata field, ...), ``-`` in
  front for descending; absent, the stored order.

>>> f = parse_filters({"split": ["length"], "outcome": ["wrong"], "min.size": ["2"]}, {"size": "number"})
>>> where, params = f.where()
>>> where
'split IN (?) AND NOT correct AND unextracted IS NOT TRUE AND is_primary AND m_size >= ?'
>>> params
['length', 2.0]
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gengap._errors import ConfigError

if TYPE_CHECKING:  # numpy loads with the first A/B table, not when the viewer starts
    import numpy as np

__all__ = ["Filters", "parse_filters", "LENGTH_COLUMNS", "page", "one_row", "flip_tables", "flip_rows", "is_binary_metric", "EQUAL_FIELDS", "MAX_LIMIT"]

#: Parameters matched by equality (repeat one for several values).
EQUAL_FIELDS = ("run", "model", "split", "perturbation", "example_id", "metric")
#: The lengths in whitespace words (counted after the viewer starts serving: see ``_load.fill_lengths``).
LENGTH_COLUMNS = ("input_length", "target_length", "output_length")
#: Columns a range (``min.X`` / ``max.X``) or a sort may name, besides metadata fields.
NUMBER_COLUMNS = ("score", *LENGTH_COLUMNS, "rid")
SORTABLE = ("rid", "run", "model", "split", "perturbation", "example_id", "metric", "score", "input_length", "target_length",
            "output_length")
OUTCOMES = ("correct", "wrong", "unextracted")
#: The most rows one page returns.
MAX_LIMIT = 1000
#: Columns of a row in a page (the prompt and details come with one row).
LIST_COLUMNS = ("rid", "run", "model", "split", "perturbation", "example_id", "metric", "score", "correct", "unextracted",
                "input", "target", "output", "extracted", "metadata")


def meta_column(name: str, meta: Mapping[str, str]) -> str:
    """The table column of a metadata field (``m_`` + its name, as ``_load`` built it)."""
    if name not in meta:
        raise ConfigError(f"No metadata field {name!r}; the rows have {', '.join(sorted(meta)) or 'none'}.")
    return meta_columns(meta)[name]


def meta_columns(meta: Mapping[str, str]) -> dict[str, str]:
    """Metadata field -> its column in ``rows``: ``m_`` and the name with every other character than a
    letter, digit or underscore as ``_`` (numbered when two fields would share one).

    >>> meta_columns({"n digits": "number", "n_digits": "number"})
    {'n digits': 'm_n_digits', 'n_digits': 'm_n_digits_2'}
    """
    import re

    taken: set[str] = {"m_"}
    out = {}
    for name in meta:
        base = "m_" + re.sub(r"\W", "_", name)[:40]
        col, k = base, 2
        while col in taken:
            col, k = f"{base}_{k}", k + 1
        taken.add(col)
        out[name] = col
    return out


@dataclass
class Filters:
    """A selection of rows (see the module's docstring), with its sort."""

    equal: dict[str, list[str]] = field(default_factory=dict)
    outcome: str | None = None
    text: str | None = None
    meta_equal: dict[str, list[str]] = field(default_factory=dict)  # column -> values (text fields)
    meta_number: dict[str, list[float]] = field(default_factory=dict)  # column -> values (numeric fields)
    ranges: list[tuple[str, str, float]] = field(default_factory=list)  # (column, ">=", "<=" or "<", value)
    missing: dict[str, bool] = field(default_factory=dict)  # column -> absent or null (True) / present (False)
    sort: str | None = None
    descending: bool = False
    all_metrics: bool = False

    def where(self) -> tuple[str, list[Any]]:
        """The SQL condition and its parameters ('TRUE' for no filter)."""
        parts: list[str] = []
        params: list[Any] = []
        for col, values in self.equal.items():
            parts.append(f"{col} IN ({', '.join('?' * len(values))})")
            params += [int(v) for v in values] if col == "run" else list(values)
        if self.outcome == "correct":
            parts.append("correct")
        elif self.outcome == "wrong":
            parts.append("NOT correct AND unextracted IS NOT TRUE")
        elif self.outcome == "unextracted":
            parts.append("unextracted")
        if "metric" not in self.equal and not self.all_metrics:
            parts.append("is_primary")
        if self.text:
            parts.append("contains(search_text, ?)")  # lower(input) || chr(0) || lower(output), made once at load
            params.append(self.text.lower())
        for col, values in self.meta_equal.items():
            parts.append(f"CAST({col} AS VARCHAR) IN ({', '.join('?' * len(values))})")
            params += list(values)
        for col, numbers in self.meta_number.items():
            parts.append(f"{col} IN ({', '.join('?' * len(numbers))})")
            params += list(numbers)
        for col, op, value in self.ranges:
            parts.append(f"{col} {op} ?")
            params.append(value)
        for col, absent in self.missing.items():
            parts.append(f"{col} IS {'' if absent else 'NOT '}NULL")
        return (" AND ".join(parts) or "TRUE"), params

    def columns(self) -> set[str]:
        """The columns of ``rows`` these filters and this sort read (besides the fixed ones)."""
        used = {*self.meta_equal, *self.meta_number, *(c for c, _, _ in self.ranges), *self.missing}
        return used | ({self.sort} if self.sort else set())

    def order(self) -> str:
        if self.sort is None or self.sort == "rid":
            return "ORDER BY rid DESC" if self.descending else ""
        return f"ORDER BY {self.sort} {'DESC' if self.descending else 'ASC'} NULLS LAST, rid"


def _number(name: str, value: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise ConfigError(f"{name}={value!r} is not a number.") from None


def parse_filters(query: Mapping[str, Sequence[str]], meta: Mapping[str, str]) -> Filters:
    """Filters from URL parameters (each name to its list of values); unknown names raise."""
    cols = meta_columns(meta)
    f = Filters()
    for name, values in query.items():
        values = [v for v in values if v != ""]
        if not values or name in ("limit", "offset", "after", "format"):
            continue
        if name in EQUAL_FIELDS:
            if name == "metric" and values == ["*"]:
                f.all_metrics = True
                continue
            if name == "run" and not all(v.isdigit() for v in values):
                raise ConfigError(f"run={values[0]!r}: give the run's number (0 for the first store, 1 for the second).")
            f.equal[name] = values
        elif name == "outcome":
            if values[0] not in OUTCOMES:
                raise ConfigError(f"outcome={values[0]!r}: choose one of {', '.join(OUTCOMES)}.")
            f.outcome = values[0]
        elif name == "q":
            f.text = values[0]
        elif name == "sort":
            key = values[0]
            f.descending = key.startswith("-")
            key = key.lstrip("-")
            if key in SORTABLE:
                f.sort = key
            elif key.startswith("meta.") and key[5:] in cols:
                f.sort = cols[key[5:]]
            else:
                raise ConfigError(f"sort={values[0]!r}: sort by one of {', '.join(SORTABLE)} or meta.FIELD "
                                  f"(fields: {', '.join(cols) or 'none'}), '-' in front for descending.")
        elif name.startswith("meta."):
            if meta.get(name[5:]) == "number":
                f.meta_number[meta_column(name[5:], meta)] = [_number(name, v) for v in values]
            else:
                f.meta_equal[meta_column(name[5:], meta)] = values
        elif name.startswith("missing."):
            key = name[8:]
            col = key if key in LENGTH_COLUMNS else meta_column(key, meta)
            if values[0].lower() not in ("true", "false", "1", "0"):
                raise ConfigError(f"{name}={values[0]!r}: give true (the field is absent or null) or false.")
            f.missing[col] = values[0].lower() in ("true", "1")
        elif name.startswith(("min.", "max.", "lt.")):
            key = name.split(".", 1)[1]
            if key in NUMBER_COLUMNS:
                col = key
            elif meta.get(key) == "number":
                col = cols[key]
            else:
                raise ConfigError(f"{name}: ranges apply to {', '.join(NUMBER_COLUMNS)} and numeric metadata fields "
                                  f"({', '.join(k for k, v in meta.items() if v == 'number') or 'none'}).")
            op = {"min": ">=", "max": "<=", "lt": "<"}[name.split(".", 1)[0]]
            f.ranges.append((col, op, _number(name, values[0])))
        else:
            raise ConfigError(f"Unknown filter {name!r}. Filters: {', '.join(EQUAL_FIELDS)}, outcome, q, meta.FIELD, "
                              "min.FIELD, max.FIELD, lt.FIELD, missing.FIELD, sort, limit, offset.")
    return f


def _int(query: Mapping[str, Sequence[str]], name: str, default: int) -> int:
    values = query.get(name) or []
    if not values or values[0] == "":
        return default
    try:
        value = int(values[0])
    except ValueError:
        raise ConfigError(f"{name}={values[0]!r} is not a whole number.") from None
    if value < 0:
        raise ConfigError(f"{name}={value} is negative.")
    return value


def _records(cursor: Any) -> list[dict[str, Any]]:
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, r)) for r in cursor.fetchall()]


#: How many text searches a cache keeps (their row ids: paging through a search scans the texts once).
SEARCHES_KEPT = 16


def _search_rids(cur: Any, where: str, params: list[Any], order: str, cache: dict[Any, Any] | None) -> Any:
    """Every row id a text search selects, in page order (one scan of the texts; kept in ``cache``)."""
    key = (where, tuple(map(str, params)), order)
    if cache is not None and key in cache:
        return cache[key]
    rids = cur.execute(f"SELECT rid FROM rows WHERE {where} {order or 'ORDER BY rid'}", params).fetchnumpy()["rid"]
    if cache is not None:
        if len(cache) >= SEARCHES_KEPT:
            cache.pop(next(iter(cache)))
        cache[key] = rids
    return rids


def page(con: Any, query: Mapping[str, Sequence[str]], meta: Mapping[str, str], *,
         searches: dict[Any, Any] | None = None) -> dict[str, Any]:
    """``{"total": N, "offset": K, "limit": L, "rows": [...]}`` for the filters, sort and paging of ``query``.

    ``after=RID`` (stored order only) starts after that row instead of skipping ``offset`` rows.
    ``searches``: a dict that keeps the row ids of recent text searches (the viewer keeps one).
    """
    f = parse_filters(query, meta)
    limit = min(_int(query, "limit", 50), MAX_LIMIT)
    offset = _int(query, "offset", 0)
    where, params = f.where()
    cols = ", ".join(LIST_COLUMNS)
    after = query.get("after")
    cur = con.cursor()
    try:
        if f.text:  # a text search reads every row's texts: once, for the count and the page together
            rids = _search_rids(cur, where, params, f.order(), searches)
            if after and after[0] != "" and f.sort is None and not f.descending:
                import numpy as np

                start = int(np.searchsorted(rids, _int(query, "after", 0), side="right"))
            else:
                start = offset
            chosen = [int(r) for r in rids[start:start + limit]]
            total = len(rids)
            bounds = f"rid BETWEEN {min(chosen)} AND {max(chosen)} AND " if chosen else ""  # lets DuckDB skip row groups
            found = _records(cur.execute(f"SELECT {cols} FROM rows WHERE {bounds}rid IN ({', '.join(map(str, chosen)) or 'NULL'})"))
            by_rid = {r["rid"]: r for r in found}
            rows = [by_rid[r] for r in chosen]
        else:
            total = cur.execute(f"SELECT count(*) FROM rows WHERE {where}", params).fetchone()[0]
            if after and after[0] != "" and f.sort is None and not f.descending:
                sql = f"SELECT {cols} FROM rows WHERE {where} AND rid > ? LIMIT ?"
                rows = _records(cur.execute(sql, [*params, _int(query, "after", 0), limit]))
            else:
                sql = f"SELECT {cols} FROM rows WHERE {where} {f.order()} LIMIT ? OFFSET ?"
                rows = _records(cur.execute(sql, [*params, limit, offset]))
    finally:
        cur.close()
    for r in rows:
        r["metadata"] = _json(r["metadata"])
    return {"total": int(total), "offset": offset, "limit": limit, "rows": rows}


def _json(text: Any) -> Any:
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text


def export_sql(query: Mapping[str, Sequence[str]], meta: Mapping[str, str]) -> tuple[str, list[Any]]:
    """The SELECT of every row of the selection (all columns a page has, plus prompt and details)."""
    f = parse_filters(query, meta)
    where, params = f.where()
    cols = ", ".join([*LIST_COLUMNS, "prompt", "details"])
    return f"SELECT {cols} FROM rows WHERE {where} {f.order() or 'ORDER BY rid'}", params


def one_row(con: Any, rid: int) -> dict[str, Any] | None:
    """One row with everything stored about it: every metric's score, prompt, tokens and latency, and
    the same example under every perturbation (its input and output)."""
    cur = con.cursor()
    try:
        found = _records(cur.execute("SELECT * FROM rows WHERE rid = ?", [rid]))
        if not found:
            return None
        row = found[0]
        key = [row["run"], row["model"], row["split"], row["example_id"]]
        metrics = _records(cur.execute(
            "SELECT metric, score FROM rows WHERE run = ? AND model = ? AND split = ? AND example_id = ? AND perturbation = ? "
            "ORDER BY rid", [*key, row["perturbation"]]))
        variants = _records(cur.execute(
            "SELECT rid, perturbation, input, target, output, extracted, score, correct, unextracted FROM rows "
            "WHERE run = ? AND model = ? AND split = ? AND example_id = ? AND metric = ? ORDER BY rid",
            [*key, row["metric"]]))
        others = _records(cur.execute(
            "SELECT rid, run, model, perturbation, score, output, extracted FROM rows WHERE split = ? AND example_id = ? "
            "AND metric = ? AND perturbation = ? AND NOT (run = ? AND model = ?) ORDER BY rid",
            [row["split"], row["example_id"], row["metric"], row["perturbation"], row["run"], row["model"]]))
    finally:
        cur.close()
    details = _json(row.pop("details"))
    row["details"] = details if isinstance(details, dict) else None
    for k in ("prompt_tokens", "completion_tokens", "latency_s"):
        row[k] = details.get(k) if isinstance(details, dict) else None
    row["metadata"] = _json(row["metadata"])
    row["prompt"] = _json(row["prompt"]) if isinstance(row["prompt"], str) and row["prompt"][:1] in "[{" else row["prompt"]
    row["metrics"] = {m["metric"]: m["score"] for m in metrics}
    row["variants"] = variants
    row["other_models"] = others
    return {k: v for k, v in row.items() if not k.startswith("m_") and k != "search_text"}


# --------------------------------------------------------------------------------------------- A/B
@dataclass(frozen=True)
class Side:
    """One side of a comparison: a run and one of its models."""

    run: int
    model: str

    def to_dict(self) -> dict[str, Any]:
        return {"run": self.run, "model": self.model}


def parse_side(text: str) -> Side:
    """``"1:gpt"`` -> Side(1, "gpt") (the run's number, a colon, the model's name).

    >>> parse_side("0:m1")
    Side(run=0, model='m1')
    """
    run, colon, model = text.partition(":")
    if not colon or not run.isdigit() or not model:
        raise ConfigError(f"A/B side {text!r}: give RUN:MODEL, e.g. 0:{model or 'my-model'} (the run's number, then the model).")
    return Side(int(run), model)


def _pairs_sql(metric_a: str, metric_b: str) -> str:
    return (
        "WITH a AS (SELECT split, example_id, correct, score, rid FROM rows WHERE run = ? AND model = ? AND perturbation = 'none' "
        "AND metric = ?), b AS (SELECT split, example_id, correct, score, rid FROM rows WHERE run = ? AND model = ? "
        "AND perturbation = 'none' AND metric = ?) "
    )


def is_binary_metric(con: Any, a: Side, b: Side, metric: str) -> bool:
    """Whether every clean score of ``metric`` on both sides is 0 or 1 (then A/B counts right and wrong)."""
    cur = con.cursor()
    try:
        found = cur.execute(
            "SELECT bool_and(score IS NULL OR score = 0 OR score = 1) FROM rows WHERE perturbation = 'none' AND metric = ? "
            "AND ((run = ? AND model = ?) OR (run = ? AND model = ?))", [metric, a.run, a.model, b.run, b.model]).fetchone()[0]
    finally:
        cur.close()
    return found is not False


def _paired_values(a: np.ndarray, b: np.ndarray, confidence: float) -> dict[str, Any]:
    """Paired differences of scores that are not 0/1: the mean difference A - B with its paired
    t-interval, wins / ties / losses, and the Wilcoxon signed-rank test (scipy; ties left out).

    >>> import numpy as np
    >>> r = _paired_values(np.array([0.5, 0.9, 0.7, 0.8]), np.array([0.4, 0.9, 0.2, 0.6]), 0.95)
    >>> r["wins"], r["ties"], r["losses"], round(r["difference"], 3), r["test"]
    (3, 1, 0, 0.2, 'wilcoxon')
    """
    import numpy as np
    import scipy.stats

    d = a - b
    n = int(d.size)
    out: dict[str, Any] = {"wins": int(np.sum(d > 0)), "ties": int(np.sum(d == 0)), "losses": int(np.sum(d < 0)),
                           "mean_a": float(a.mean()), "mean_b": float(b.mean()), "difference": float(d.mean()),
                           "low": None, "high": None, "p_value": None, "test": "wilcoxon"}
    if n >= 2 and np.any(d != d[0]):
        ci = scipy.stats.ttest_rel(a, b).confidence_interval(confidence)
        out.update(low=float(ci.low), high=float(ci.high))
    elif n >= 1:
        out.update(low=float(d[0]), high=float(d[0]))  # every difference the same: no spread to speak of
    if out["wins"] + out["losses"] == 0:
        out["p_value"] = 1.0
    else:
        out["p_value"] = float(scipy.stats.wilcoxon(a, b, zero_method="wilcox").pvalue)
    return out


def flip_tables(con: Any, a: Side, b: Side, metric: str, *, confidence: float = 0.95,
                cluster: str | None = None) -> dict[str, Any]:
    """Per split common to both sides, on the examples both hold (paired by example id), and per split
    how many examples only one side holds.

    0/1 metrics: the 2x2 table of right / wrong, the exact McNemar test and the paired difference of
    accuracy (A - B) with its interval. Other metrics (``binary`` False): the metric's values compared
    pair by pair: A higher (``wins``), ``ties``, B higher (``losses``), the mean difference A - B with
    its paired t-interval and the Wilcoxon signed-rank test.

    ``cluster`` (a column of ``rows``, e.g. ``m_passage``) names rows that are not independent: the
    test is then the sign-flip test of the cluster totals and the interval the clustered one
    (:func:`gengap.analysis.clustered.clustered_paired_test`), for either kind of metric.
    """
    import numpy as np

    from gengap.analysis.intervals import paired_test

    binary = is_binary_metric(con, a, b, metric)
    cur = con.cursor()
    try:
        params = [a.run, a.model, metric, b.run, b.model, metric]
        counts = cur.execute(
            _pairs_sql(metric, metric) +
            "SELECT split, count(*) FILTER (a.correct AND b.correct), count(*) FILTER (a.correct AND NOT b.correct), "
            "count(*) FILTER (NOT a.correct AND b.correct), count(*) FILTER (NOT a.correct AND NOT b.correct), "
            "count(*) FILTER (a.rid IS NULL), count(*) FILTER (b.rid IS NULL), min(COALESCE(a.rid, b.rid)) AS first "
            "FROM a FULL JOIN b USING (split, example_id) GROUP BY split ORDER BY first", params).fetchall()
        values: dict[str, tuple[Any, Any, Any]] = {}
        if cluster is not None or not binary:
            label = f"CAST(ra.{cluster} AS VARCHAR)" if cluster is not None else "NULL::VARCHAR"
            found = cur.execute(
                _pairs_sql(metric, metric) +
                f"SELECT a.split, list(a.score ORDER BY a.rid), list(b.score ORDER BY a.rid), "
                f"list({label} ORDER BY a.rid) FROM a JOIN b USING (split, example_id) "
                "JOIN rows ra ON ra.rid = a.rid WHERE a.score IS NOT NULL AND b.score IS NOT NULL GROUP BY a.split",
                params).fetchall()
            values = {r[0]: (r[1], r[2], r[3]) for r in found}
    finally:
        cur.close()
    tables = []
    for split, both, only_a, only_b, neither, missing_a, missing_b, _ in counts:
        n = both + only_a + only_b + neither
        record: dict[str, Any] = {"split": split, "n": n, "both": both, "only_a": only_a, "only_b": only_b,
                                  "neither": neither, "only_in_a": missing_b, "only_in_b": missing_a,
                                  "accuracy_a": None, "accuracy_b": None, "difference": None, "low": None, "high": None,
                                  "p_value": None, "test": None, "n_clusters": None, "warning": ""}
        if not binary:
            record.update(wins=0, ties=0, losses=0, mean_a=None, mean_b=None)
        if n:
            x = np.asarray(values[split][0] if split in values else [], dtype=float)
            y = np.asarray(values[split][1] if split in values else [], dtype=float)
            ids = ["" if v is None else v for v in values[split][2]] if split in values and cluster is not None else []
            if not binary and x.size:
                record.update(_paired_values(x, y, confidence))
                record["n"] = int(x.size)
            if len(set(ids)) > 1:
                from gengap.analysis.clustered import clustered_paired_test

                if binary:
                    x, y = (x >= 1).astype(float), (y >= 1).astype(float)
                t = clustered_paired_test(x, y, np.asarray(ids, dtype=object), confidence=confidence)
                record.update(difference=t.effect.estimate, low=t.effect.low, high=t.effect.high, p_value=t.p_value,
                              test=t.test, n_clusters=t.effect.n_clusters)
            elif binary:
                if cluster is not None:
                    record["warning"] = "every pair is in one cluster: the test takes the pairs as independent"
                xb = np.repeat([1.0, 1.0, 0.0, 0.0], [both, only_a, only_b, neither])
                yb = np.repeat([1.0, 0.0, 1.0, 0.0], [both, only_a, only_b, neither])
                t = paired_test(xb, yb, confidence=confidence)
                record.update(difference=t.effect.estimate, low=t.effect.low, high=t.effect.high, p_value=t.p_value,
                              test=t.test)
            elif cluster is not None:
                record["warning"] = "every pair is in one cluster: the test takes the pairs as independent"
            if binary:
                record.update(accuracy_a=(both + only_a) / n, accuracy_b=(both + only_b) / n)
        tables.append(record)
    n_common = sum(t["n"] for t in tables)
    n_only_a = sum(t["only_in_a"] for t in tables)
    n_only_b = sum(t["only_in_b"] for t in tables)
    return {"a": a.to_dict(), "b": b.to_dict(), "metric": metric, "binary": binary,
            "correct_means": "score 1 (full marks)" if binary else None,
            "cluster": cluster, "splits": tables, "n_common": n_common, "n_only_a": n_only_a, "n_only_b": n_only_b}


def flip_rows(con: Any, a: Side, b: Side, metric: str, split: str, direction: str, *, limit: int = 50,
              offset: int = 0) -> dict[str, Any]:
    """The examples of ``split`` that flipped: ``a_only`` (A right, B wrong) or ``b_only`` (B right, A wrong),
    with both outputs. For a metric that is not 0/1, ``a_only`` are the examples A scored higher and
    ``b_only`` those B scored higher, the largest differences first."""
    if direction not in ("a_only", "b_only"):
        raise ConfigError(f"direction={direction!r}: choose a_only (A right, B wrong; A higher for other metrics) "
                          "or b_only (B right, A wrong; B higher).")
    binary = is_binary_metric(con, a, b, metric)
    if binary:
        cond = "a.correct AND NOT b.correct" if direction == "a_only" else "NOT a.correct AND b.correct"
        order = "rid_a"
    else:  # the metric's values: A higher (or B higher), the largest differences first
        cond = "a.score > b.score" if direction == "a_only" else "a.score < b.score"
        order = "abs(difference) DESC, rid_a"
    cur = con.cursor()
    try:
        base = (_pairs_sql(metric, metric) + "SELECT a.rid AS rid_a, b.rid AS rid_b, example_id, a.score - b.score AS difference "
                f"FROM a JOIN b USING (split, example_id) WHERE split = ? AND {cond}")
        params = [a.run, a.model, metric, b.run, b.model, metric, split]
        total = cur.execute(f"SELECT count(*) FROM ({base})", params).fetchone()[0]
        rows = _records(cur.execute(
            f"SELECT f.example_id, f.rid_a, f.rid_b, ra.input, ra.target, ra.output AS output_a, ra.extracted AS extracted_a, "
            f"ra.score AS score_a, rb.output AS output_b, rb.extracted AS extracted_b, rb.score AS score_b, f.difference "
            f"FROM ({base} ORDER BY {order} LIMIT ? OFFSET ?) f JOIN rows ra ON ra.rid = f.rid_a JOIN rows rb ON rb.rid = f.rid_b "
            f"ORDER BY {order.replace('rid_a', 'f.rid_a').replace('abs(difference)', 'abs(f.difference)')}",
            [*params, min(limit, MAX_LIMIT), offset]))
    finally:
        cur.close()
    return {"total": int(total), "binary": binary, "rows": rows}
