"""The report a person reads: ``index.html`` (self-contained, opens offline), ``report.md`` and ``results.json``.

Every figure is computed from the per-example rows of the results store. The report is a list of
sections; each is a small registered function, and other parts of gengap add theirs the same way
(see :func:`register_section`). Helpers keep a section to a few lines: :func:`figure_html` (a
plotly figure as a ``<div>``), :func:`table_html` / :func:`table_markdown` (a DataFrame as a
table), :func:`html_fragment` (a small escaped template), :func:`md_escape`.

Every text from data or a model is escaped in HTML and in Markdown; the page runs no script but
plotly.js and the charts' own calls.

>>> import gengap, tempfile
>>> ds = gengap.load([{"input": "a " * k, "target": "a " * k} for k in range(1, 30)])
>>> ev = gengap.evaluate(lambda xs: xs, ds, ["random", "length"], out=tempfile.mkdtemp(), progress=False)
>>> (write_report(ev.store_path, ev.run_id, ev.out) / "index.html").exists()
True
"""

from gengap.report._blocks import html_fragment
from gengap.report._figures import figure_html, label
from gengap.report._format import ScoreFormat, md_escape, truncate
from gengap.report._results import RESULTS_SCHEMA_VERSION, SCHEMA_PATH, results_schema
from gengap.report._sections import (
    SECTION_MODULES,
    ReportContext,
    Section,
    register_section,
    registered_sections,
    unregister_section,
)
from gengap.report._tables import table_html, table_markdown
from gengap.report._usage import cache_lines, judge_lines
from gengap.report._write import FILE_NAMES, load_context, write_report

__all__ = [
    "FILE_NAMES",
    "RESULTS_SCHEMA_VERSION",
    "ReportContext",
    "SCHEMA_PATH",
    "SECTION_MODULES",
    "ScoreFormat",
    "Section",
    "cache_lines",
    "figure_html",
    "html_fragment",
    "judge_lines",
    "label",
    "load_context",
    "md_escape",
    "register_section",
    "registered_sections",
    "results_schema",
    "table_html",
    "table_markdown",
    "truncate",
    "unregister_section",
    "write_report",
]
