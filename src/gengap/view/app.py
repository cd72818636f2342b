"""The viewer's web app (Starlette): the JSON API of docs/viewer-api.md and the pages' static files.

Every route reads the in-memory copy of the stores' rows (:mod:`gengap.view._load`); nothing writes to a
store. Pages are plain HTML and JavaScript served from ``static/`` (no build step) and put every text
from data or models on the page as text, never as markup; a Content-Security-Policy allows scripts,
styles and requests from the viewer itself only.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gengap._errors import GengapError
from gengap.view import queries as q
from gengap.view._load import Loaded
from gengap.view.figures import Figures

__all__ = ["make_app", "STATIC"]

STATIC = Path(__file__).with_name("static")
_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


def _query(request: Any) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for key, value in request.query_params.multi_items():
        out.setdefault(key, []).append(value)
    return out


def _default_sides(loaded: Loaded) -> tuple[q.Side, q.Side] | None:
    """A and B: the first model of the first two runs, else the first two models of the one run."""
    runs = loaded.runs
    if len(runs) >= 2 and runs[0].models and runs[1].models:
        b_model = runs[0].models[0] if runs[0].models[0] in runs[1].models else runs[1].models[0]
        return q.Side(0, runs[0].models[0]), q.Side(1, b_model)
    if runs and len(runs[0].models) >= 2:
        return q.Side(0, runs[0].models[0]), q.Side(0, runs[0].models[1])
    return None


def _extract_kind(config: dict[str, Any]) -> str | None:
    found = re.search(r"kind='(\w+)'", str(config.get("extract") or ""))
    return found.group(1) if found else None


def _marked(output: Any, extracted: Any) -> list[list[Any]] | None:
    """The output cut into ``[text, is_answer]`` pieces, the extracted answer's last appearance marked."""
    if not isinstance(output, str) or not isinstance(extracted, str) or not extracted:
        return None
    at = output.lower().rfind(extracted.lower())
    if at < 0:
        return None
    end = at + len(extracted)
    return [[output[:at], False], [output[at:end], True], [output[end:], False]]


def _word_diff(base: Any, other: Any) -> list[list[Any]]:
    """``other`` in ``[text, changed]`` pieces: the words that differ from ``base`` marked."""
    import difflib

    a, b = str(base or "").split(" "), str(other or "").split(" ")
    pieces: list[list[Any]] = []
    for tag, _, _, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if j1 == j2:
            continue
        text = " ".join(b[j1:j2])
        if pieces:
            text = " " + text
        pieces.append([text, tag != "equal"])
    return pieces


def make_app(loaded: Loaded, *, host: str = "127.0.0.1", port: int = 8765, figures: Figures | None = None,
             start_figures: bool = True) -> Any:
    """The Starlette application over ``loaded`` (the in-memory rows of one or more runs).

    ``figures``: the summary's figures; by default they are computed in a background thread started
    here (``start_figures`` False: the caller starts ``app.state.figures``; stop it before closing
    ``loaded``)."""
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    con, meta = loaded.con, loaded.meta_columns
    searches: dict[Any, Any] = {}  # row ids of recent text searches (a dict is safe across threads for this use)
    configs: dict[int, dict[str, Any]] = {r.index: r.config for r in loaded.runs}
    if figures is None:
        figures = Figures(loaded)
        if start_figures:
            figures.start()
    work = figures

    def lengths_for(query: dict[str, list[str]]) -> None:
        """Wait for the lengths to be counted when the filters or the sort read one."""
        if not work.lengths.is_set() and q.parse_filters(query, meta).columns() & set(q.LENGTH_COLUMNS):
            work.lengths.wait()

    def error(e: Exception, status: int = 400) -> JSONResponse:
        return JSONResponse({"error": str(e)}, status_code=status)

    def rows_state() -> str:
        return "failed" if loaded.error else "ready" if loaded.ready.is_set() else "reading"

    def runs(request: Request) -> JSONResponse:
        sides = _default_sides(loaded)
        return JSONResponse({
            "runs": [{**r.to_dict(), "n_rows": loaded.stored.get(r.index)} for r in loaded.runs],
            "meta": meta, "perturbations": loaded.perturbations, "rows_state": rows_state(),
            "ab": None if sides is None else {"a": sides[0].to_dict(), "b": sides[1].to_dict()},
        })

    def from_head(query: dict[str, list[str]]) -> dict[str, Any] | None:
        """While the rows are read: a page in stored order of the primary metric, with no other filter, from
        the rows read first (``total``: the rows of the primary metric the stores hold); else None."""
        if set(query) - {"limit", "offset"} or any(v[1:] for v in query.values()):
            return None
        limit, offset = min(q._int(query, "limit", 50), q.MAX_LIMIT), q._int(query, "offset", 0)
        loaded.head_ready.wait()
        if loaded.ready.is_set():
            return None
        first = [r for r in loaded.head if r["is_primary"]]
        total = sum(loaded.stored_primary.values())
        if min(offset + limit, total) > len(first):  # beyond the rows read first: wait for the rest
            return None
        rows = [{c: r[c] for c in q.LIST_COLUMNS} for r in first[offset:offset + limit]]
        for r in rows:
            r["metadata"] = q._json(r["metadata"])
        return {"total": total, "offset": offset, "limit": limit, "rows": rows, "rows_state": "reading"}

    def summary(request: Request) -> JSONResponse:
        try:
            run = int(request.query_params.get("run", "0"))
            if not 0 <= run < len(loaded.runs):
                raise IndexError(run)
        except (ValueError, IndexError):
            return error(ValueError(f"run={request.query_params.get('run')!r}: give 0 to {len(loaded.runs) - 1}."), 404)
        answer = JSONResponse(json.loads(json.dumps({**work.summary(run), "rows_state": rows_state(),
                                                     "rows_read": loaded.stored.get(run)}, default=str)))
        work.served.set()
        return answer

    def rows(request: Request) -> JSONResponse:
        try:
            query = _query(request)
            early = None if loaded.ready.is_set() else from_head(query)
            if early is not None:
                work.served.set()
                return JSONResponse(json.loads(json.dumps(early, default=str)))
            loaded.wait()
            lengths_for(query)
            answer = JSONResponse(q.page(con, query, meta, searches=searches))
            work.served.set()
            return answer
        except GengapError as e:
            return error(e)

    def row(request: Request) -> JSONResponse:
        try:
            rid = int(request.path_params["rid"])
        except ValueError:
            return error(ValueError("A row id is a whole number."), 404)
        try:
            loaded.wait()
        except GengapError as e:
            return error(e, 500)
        found = q.one_row(con, rid)
        if found is None:
            return error(ValueError(f"No row {rid}."), 404)
        found["output_marked"] = _marked(found["output"], found["extracted"])
        found["rule"] = None
        kind = _extract_kind(configs.get(found["run"], {}))
        if kind and isinstance(found["output"], str) and found["extracted"] is not None:
            from gengap.extract import extract

            try:
                reading = extract(found["output"], kind, question=found["input"])
                if reading.value == found["extracted"]:
                    found["rule"] = reading.rule
            except Exception:  # the stored answer stands; only the rule's name is missing
                pass
        found["extract_kind"] = kind
        config = configs.get(found["run"], {})
        if (config.get("import") or {}).get("kind") == "inspect" and found["extracted"] is not None:
            scorer = (config.get("metrics") or ["?"])[0]
            found["rule"], found["extract_kind"] = f"inspect_ai's scorer '{scorer}'", "the answer it recorded"
        clean = next((v for v in found["variants"] if v["perturbation"] == "none"), None)
        for v in found["variants"]:
            v["input_diff"] = _word_diff(clean["input"], v["input"]) if clean else None
            v["output_diff"] = _word_diff(clean["output"], v["output"]) if clean else None
        return JSONResponse(json.loads(json.dumps(found, default=str)))

    def sides(request: Request) -> tuple[q.Side, q.Side, str]:
        loaded.wait()
        default = _default_sides(loaded)
        a_text, b_text = request.query_params.get("a"), request.query_params.get("b")
        if (a_text is None or b_text is None) and default is None:
            raise q.ConfigError("Nothing to compare: give two runs (gengap view A B) or a run with two models.")
        a = q.parse_side(a_text) if a_text else default[0]  # type: ignore[index]
        b = q.parse_side(b_text) if b_text else default[1]  # type: ignore[index]
        for side in (a, b):
            if side.run >= len(loaded.runs) or side.model not in loaded.runs[side.run].models:
                raise q.ConfigError(f"No model {side.model!r} in run {side.run}.")
        metric = request.query_params.get("metric") or loaded.runs[a.run].primary_metric or ""
        return a, b, metric

    def ab(request: Request) -> JSONResponse:
        try:
            a, b, metric = sides(request)
            field = request.query_params.get("cluster") or None
            column = q.meta_column(field, meta) if field else None
            table = q.flip_tables(con, a, b, metric, cluster=column)
            table["cluster"] = field
            return JSONResponse(json.loads(json.dumps(table, default=str)))
        except GengapError as e:
            return error(e)

    def flips(request: Request) -> JSONResponse:
        try:
            a, b, metric = sides(request)
            query = _query(request)
            return JSONResponse(json.loads(json.dumps(q.flip_rows(
                con, a, b, metric, request.query_params.get("split", ""), request.query_params.get("direction", ""),
                limit=q._int(query, "limit", 50), offset=q._int(query, "offset", 0)), default=str)))
        except GengapError as e:
            return error(e)

    def export(request: Request) -> Response:
        kind = request.path_params["kind"]
        if kind not in ("jsonl", "csv"):
            return error(ValueError("Export as rows.jsonl or rows.csv."), 404)
        try:
            loaded.wait()
            lengths_for(_query(request))
            sql, params = q.export_sql(_query(request), meta)
        except GengapError as e:
            return error(e)

        def chunks() -> Iterator[str]:
            cur = con.cursor()
            try:
                reader = cur.sql(sql, params=params).to_arrow_reader(10_000)
                first = True
                for batch in reader:
                    records = batch.to_pylist()
                    if kind == "jsonl":
                        yield "".join(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in records)
                    else:
                        buf = io.StringIO()
                        writer = csv.DictWriter(buf, fieldnames=batch.schema.names)
                        if first:
                            writer.writeheader()
                        writer.writerows(records)
                        yield buf.getvalue()
                    first = False
                if first and kind == "csv":
                    yield ",".join([*q.LIST_COLUMNS, "prompt", "details"]) + "\n"
            finally:
                cur.close()

        media = "application/x-ndjson" if kind == "jsonl" else "text/csv"
        return StreamingResponse(chunks(), media_type=media,
                                 headers={"Content-Disposition": f'attachment; filename="gengap-rows.{kind}"'})

    def index(request: Request) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    async def headers(request: Request, call_next: Any) -> Response:
        response = await call_next(request)
        response.headers["Content-Security-Policy"] = _CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["Cache-Control"] = "no-store"
        return response

    from starlette.middleware.base import BaseHTTPMiddleware

    allowed = ["127.0.0.1", "localhost", "[::1]", "::1"]
    if host not in ("127.0.0.1", "localhost", "::1"):
        allowed = ["*"]  # bound elsewhere on purpose: any name the user reaches it by
    app = Starlette(
        routes=[
            Route("/", index), Route("/favicon.ico", lambda request: Response(status_code=204)), Route("/api/runs", runs), Route("/api/summary", summary), Route("/api/rows", rows),
            Route("/api/row/{rid}", row), Route("/api/ab", ab), Route("/api/ab/flips", flips),
            Route("/api/export/rows.{kind}", export),
            Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
        ],
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=allowed), Middleware(BaseHTTPMiddleware, dispatch=headers)],
    )
    app.state.figures = figures
    return app
