"""See every row: a local web viewer of a run's per-example results, with A/B between runs.

``gengap view OUT [OUT2 ...]`` reads each results store once (read-only; a store a running evaluation is
writing is read as a copy of what it has committed), serves the pages and the JSON API of
``docs/viewer-api.md`` on loopback, and opens the browser. Nothing here writes to a store, and nothing
else in gengap imports this package except the command line.

- :func:`serve`: load and serve (what the command does).
- :func:`gengap.view.app.make_app`: the Starlette application over loaded rows (for tests and embedding).
- :mod:`gengap.view.queries`: the filters, pages, rows and flip tables the API answers with.
"""

from gengap.view._serve import check_port, serve

__all__ = ["serve", "check_port"]
