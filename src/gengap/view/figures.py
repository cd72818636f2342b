"""The viewer's slow work, done after it starts serving: lengths, the report's figures, the slices.

The rows are served as soon as they are read (:func:`gengap.view._load.read_rows` is only the join).
One background thread then, once they are read, in order:

0. while the rows are still being read, per run, shows the report's figures of a current
   ``results.json`` beside the store (state ``linking``: not linked to their rows yet);
1. once the rows are read, counts every row's input, target and output length (:func:`gengap.view._load.fill_lengths`; a
   query that filters or sorts on a length waits for it);
2. per run, takes the report's figures from the ``results.json`` beside the store when it is current
   (the same run, finished, written after the store last changed), else computes them from the store
   (:func:`gengap.view.summary.report_document`), and links each figure to its rows;
3. per run, takes the slices of that ``results.json`` (a report made with ``--find-slices``), else
   searches the run's clean rows for them as the report does
   (:func:`gengap.analysis.slices.slices_from_rows`), and links each slice to its rows.

Until a step is done the summary says it is computing (``/api/summary`` answers with ``state``:
``computing``, ``linking``, ``ready`` or ``failed``).
Nothing here writes to a store or beside it.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from gengap.view._load import Loaded, Run, fill_lengths

__all__ = ["Figures", "stored_document"]


def stored_document(run: Run) -> dict[str, Any] | None:
    """The ``results.json`` beside the run's store when it is current: it is the same run, the run
    finished, and the file was written after the store (and its write-ahead log) last changed."""
    from gengap.report._results import RESULTS_SCHEMA_VERSION

    path = run.path.parent / "results.json"
    if run.snapshot or run.status != "done" or not path.is_file():
        return None
    try:
        written = path.stat().st_mtime_ns
        changed = [p.stat().st_mtime_ns for p in (run.path, run.path.with_name(run.path.name + ".wal")) if p.exists()]
        if any(t > written for t in changed):
            return None
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("run"), dict):
        return None
    same = doc["run"].get("id") == run.run_id and doc["run"].get("status") == "done"
    major = str(doc.get("schema_version", "")).split(".")[0] == RESULTS_SCHEMA_VERSION.split(".")[0]
    return doc if same and major else None


def _when(path: Path) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(path.stat().st_mtime))


def _stored_source(run: Run) -> str:
    return f"results.json beside the store (written {_when(run.path.parent / 'results.json')})"


class Figures:
    """The summary of each run, filled in by a background thread (:meth:`start`) or at once (:meth:`compute`)."""

    def __init__(self, loaded: Loaded) -> None:
        self.loaded = loaded
        self.lengths = threading.Event()  # set when every length is counted (or counting failed)
        self.served = threading.Event()  # set when the first page's rows or summary has been answered
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._cursor: Any = None
        self._thread: threading.Thread | None = None
        self._state: dict[int, dict[str, Any]] = {
            r.index: {"figures": "computing", "slices": "computing", "summary": None, "slices_list": [], "source": None,
                      "problems": []} for r in loaded.runs}

    # ------------------------------------------------------------------ reading
    def summary(self, run: int) -> dict[str, Any]:
        """What ``/api/summary`` answers: the linked figures so far, with ``state`` and ``slices_state``
        (``computing``, ``ready`` or ``failed``)."""
        with self._lock:
            st = self._state[run]
            body = dict(st["summary"] or {})
            body.update(state=st["figures"], slices_state=st["slices"], slices=list(st["slices_list"]),
                        source=st["source"], problems=list(st["problems"]))
        return body

    def ready(self) -> bool:
        with self._lock:
            return all(s["figures"] not in ("computing", "linking") and s["slices"] != "computing"
                       for s in self._state.values())

    # ------------------------------------------------------------------ computing
    def start(self, *, after_first_page: float = 0.0) -> None:
        """Compute everything in a background thread (daemon: a stopped viewer does not wait for it).

        ``after_first_page``: wait up to this many seconds for the first page to be answered (:attr:`served`)
        before starting, so that the first page does not share the process with the work."""
        def work() -> None:
            if after_first_page > 0:
                self.served.wait(after_first_page)
            if not self._stop.is_set():
                self.compute()

        self._thread = threading.Thread(target=work, name="gengap-view-figures", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> bool:
        """Ask the thread to stop and wait up to ``timeout`` seconds; True when it has ended."""
        self._stop.set()
        cursor = self._cursor
        if cursor is not None:
            try:
                cursor.interrupt()
            except Exception:  # already finished
                pass
        if self._thread is None:
            return True
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until every figure is computed (or failed); True when done."""
        if self._thread is not None:
            self._thread.join(timeout)
        return self.ready()

    def _set(self, run: int, **values: Any) -> None:
        with self._lock:
            self._state[run].update(values)

    def _problem(self, run: int, text: str) -> None:
        with self._lock:
            self._state[run]["problems"].append(text)

    def compute(self) -> None:
        """Lengths, then each run's figures, then each run's slices (see the module's docstring)."""
        from gengap.view.summary import linked_figures

        con, meta = self.loaded.con, self.loaded.meta_columns
        early: dict[int, tuple[dict[str, Any], str]] = {}
        if not self.loaded.ready.is_set():  # the rows are still being read: a current results.json's figures meanwhile
            for r in self.loaded.runs:
                try:
                    doc = stored_document(r)
                    if doc is not None and not self.loaded.ready.is_set():
                        early[r.index] = (doc, _stored_source(r))
                        self._set(r.index, summary=linked_figures(doc, r.index, None, meta), figures="linking",
                                  source=early[r.index][1])
                except Exception:  # computed again below, once the rows are read
                    early.pop(r.index, None)
        while not self.loaded.ready.wait(0.1):  # the rows are still being read
            if self._stop.is_set():
                return
        if self.loaded.error is not None:
            for r in self.loaded.runs:
                self._set(r.index, figures="failed", slices="failed")
                self._problem(r.index, self.loaded.error)
            self.lengths.set()
            return
        self._cursor = cur = con.cursor()
        try:
            fill_lengths(cur)
        except Exception as e:  # the rows stay readable; length filters then select nothing
            if not self._stop.is_set():
                for r in self.loaded.runs:
                    self._problem(r.index, f"The input and output lengths could not be counted: {e}")
        finally:
            self._cursor = None
            cur.close()
            self.lengths.set()
        documents: dict[int, dict[str, Any]] = {}
        for r in self.loaded.runs:
            if self._stop.is_set():
                return
            try:
                doc, source = early.get(r.index) or (stored_document(r), "")
                if doc is not None:
                    source = source or _stored_source(r)
                else:
                    from gengap.view.summary import report_document

                    doc = report_document(r.source or r.path, r.run_id)
                    source = "computed from the stored rows"
                documents[r.index] = doc
                self._set(r.index, summary=linked_figures(doc, r.index, con, meta), figures="ready", source=source)
            except Exception as e:  # the rows are still worth seeing when a figure cannot be computed
                self._set(r.index, figures="failed", slices="failed")
                self._problem(r.index, f"The report's figures could not be computed for run {r.run_id}: {e}")
        for r in self.loaded.runs:
            if self._stop.is_set():
                return
            if r.index not in documents:
                continue
            try:
                self._set(r.index, slices_list=self._slices(r, documents[r.index]), slices="ready")
            except Exception as e:
                self._set(r.index, slices="failed")
                self._problem(r.index, f"The slice search could not be run for run {r.run_id}: {e}")

    def _slices(self, run: Run, doc: dict[str, Any]) -> list[dict[str, Any]]:
        """The run's slices, linked to their rows: the report's when it searched, else searched here."""
        from gengap.view.summary import linked_slices

        con, meta = self.loaded.con, self.loaded.meta_columns
        if (doc.get("sections") or {}).get("slices"):
            records = list(doc.get("slices") or [])
        else:
            records = self._search(run)
        return linked_slices(records, run.index, con, meta)

    def _search(self, run: Run) -> list[dict[str, Any]]:
        """Search the run's clean rows of its primary metric for slices, as the report's "Where it fails" does."""
        from gengap.analysis.slices import slices_from_rows
        from gengap.io import to_jsonable
        from gengap.report.section_slices import slice_records
        from gengap.store import REPORT_SETTINGS

        if run.primary_metric is None:
            return []
        self._cursor = cur = self.loaded.con.cursor()
        try:
            rows = cur.execute(
                "SELECT model, split, perturbation, metric, example_id, input, target, metadata, score FROM rows "
                "WHERE run = ? AND metric = ? AND perturbation = 'none' ORDER BY rid", [run.index, run.primary_metric]).df()
        finally:
            self._cursor = None
            cur.close()
        if rows.empty:
            return []
        settings = run.config.get("settings") if isinstance(run.config, dict) else None
        scoring = settings.get("scoring") if isinstance(settings, dict) else None
        cluster = scoring.get("cluster") if isinstance(scoring, dict) else None
        report = run.config.get(REPORT_SETTINGS) if isinstance(run.config, dict) else None
        control = report.get("slice_control") if isinstance(report, dict) else None  # as the run asked
        searches = slices_from_rows(rows, metric=run.primary_metric, cluster=cluster,
                                    control=control if control in ("bh", "split") else "bh")
        return list(to_jsonable(slice_records(searches)))
