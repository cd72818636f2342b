"""Report sections: a small registry every part of the report goes through.

A section is a function of a :class:`ReportContext` (the run's rows, summary, splits, training
measures and events, and the open store) that returns a :class:`Section` — a title, an HTML
fragment, the same content in Markdown, and JSON data for ``results.json`` — or ``None`` when the
run has nothing for it. Sections appear in ``order``: the overview (10), the splits (20) and the
sample failures (30) come first, the run's configuration (100) last; other sections use 40-90.

Adding a section takes a few lines::

    from gengap.report import Section, register_section, table_html, table_markdown

    @register_section("worst_group", order=50)
    def worst_group(ctx):
        if "group" not in ctx.clean_rows.columns:
            return None
        table = ...  # a DataFrame computed from ctx.rows
        return Section("Worst group", table_html(table), table_markdown(table), data=table.to_dict("records"))

and the module that holds it goes into :data:`SECTION_MODULES` (one line), so it is imported
before a report is written. The data of a section appears in ``results.json`` under
``sections.<key>``; the built-in sections return ``data=None`` because their figures are the
top-level ``summary``, ``splits`` and ``failures`` of that file.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import pandas as pd
from markupsafe import Markup

from gengap._registry import Registry
from gengap.report._format import ScoreFormat, md_escape
from gengap.report._headline import Headline, headlines

__all__ = ["Section", "ReportContext", "register_section", "registered_sections", "SECTION_MODULES"]

#: Modules whose import registers report sections (add yours: one line).
SECTION_MODULES: list[str] = [
    "gengap.report._core",
    "gengap.report._monitor",
    "gengap.report.section_perturbations",
    "gengap.report.section_groups",
    "gengap.report.section_seeds",
    "gengap.report.section_imported",
    "gengap.report.section_published",
    "gengap.report.section_cost",
    "gengap.report.section_curves",
    "gengap.report.section_corpus_curves",
    "gengap.report.section_valley",
    "gengap.report.section_leakage",
    "gengap.report.section_calibration",
    "gengap.report.section_slices",
    "gengap.report.section_baselines",
    "gengap.report.section_samples",
]


@dataclass(frozen=True)
class Section:
    """One part of the report.

    Attributes
    ----------
    title : the heading a reader sees.
    html : the HTML fragment (a :class:`markupsafe.Markup`; build it with ``table_html``,
        ``figure_html`` and ``html_fragment`` so that every text from data is escaped).
    markdown : the same content in GitHub-flavoured Markdown (no charts; tables instead).
    data : JSON-able figures for ``results.json`` (``sections.<key>``), or None.
    """

    title: str
    html: Markup
    markdown: str
    data: Any = None

    def __post_init__(self) -> None:
        if not isinstance(self.html, Markup):
            raise TypeError(
                f"Section {self.title!r}: html must be markupsafe.Markup (built with html_fragment, table_html or "
                "figure_html), so that no text from data reaches the page unescaped."
            )


@dataclass
class ReportContext:
    """Everything a section may read about one run. Every figure comes from these rows.

    Attributes
    ----------
    store : the open results store (read-only), for sections that need their own query.
    run_id : the run being reported.
    run : the run's record: ``name``, ``created_at``, ``status``, ``config`` (dict), ``gengap_version``.
    rows : per-example rows (``Store.rows``): model, split, perturbation, example_id, input, target,
        output, metadata, metric, score.
    summary : :func:`gengap.analysis.gaps.summarize` of the rows: score and interval per model x split x
        metric, gap to the reference split.
    split_info : split name -> diagnostics and taxonomy card, in the run's order.
    reference : the split gaps are measured from (None when the run has none).
    measures : training-time measures (step, name, scope, value).
    events : what a monitor noticed (step, kind, message).
    curve_axes : axes asked for score curves (``--curve``); length splits add theirs.
    group_fields : metadata fields to score each group of (``gengap import ... --group``).
    cluster : the column whose rows are not independent (``--cluster``), or None; every section's
        intervals count its clusters.
    find_slices : search for slices that score below the rest (``--find-slices``), with up to
        ``slice_order`` conditions each, false discoveries controlled by ``slice_control`` (``"bh"`` or
        ``"split"``, :data:`gengap.analysis.slices.CONTROLS`).
    """

    store: Any
    run_id: str
    run: dict[str, Any]
    rows: pd.DataFrame
    summary: pd.DataFrame
    split_info: dict[str, dict[str, Any]]
    reference: str | None
    measures: pd.DataFrame
    events: pd.DataFrame
    confidence: float = 0.95
    n_resamples: int = 10_000
    curve_axes: tuple[str, ...] = ()
    group_fields: tuple[str, ...] = ()
    cluster: str | None = None
    find_slices: bool = False
    slice_order: int = 2
    slice_control: str = "bh"
    _formats: dict[str, ScoreFormat] = field(default_factory=dict, repr=False)

    @cached_property
    def clean_rows(self) -> pd.DataFrame:
        """Rows of unperturbed inputs (``perturbation == "none"``)."""
        if "perturbation" not in self.rows:
            return self.rows
        return self.rows[self.rows["perturbation"] == "none"]

    @cached_property
    def metrics(self) -> list[str]:
        """Metrics of the run, in the order the run's configuration lists them."""
        present = sorted(self.rows["metric"].unique()) if len(self.rows) else []
        configured = [m for m in self.run.get("config", {}).get("metrics", []) if m in present]
        return configured + [m for m in present if m not in configured]

    @cached_property
    def headline(self) -> Headline:
        """The biggest gap per metric, in words (the report's first sentence)."""
        return headlines(self.summary, self.metrics, {m: self.score_format(m) for m in self.metrics}, self.reference,
                         iid=self.reference_is_iid, imported=self.imported)

    @property
    def imported(self) -> bool:
        """The rows were imported (``gengap import``), not computed by a run of gengap's."""
        return bool(self.run.get("config", {}).get("import"))

    @property
    def reference_is_iid(self) -> bool:
        """Whether the reference split is an i.i.d. (random) one, or another split the user named."""
        return self.reference is not None and self.split_info.get(self.reference, {}).get("method") == "random"

    @property
    def reference_words(self) -> str:
        """How the report names the reference split: "the i.i.d. split 'random'", "the reference split 'mcd'"."""
        return f"the {'i.i.d.' if self.reference_is_iid else 'reference'} split '{self.reference}'"

    @property
    def primary_metric(self) -> str | None:
        """The metric the headline and charts use first (the first one configured)."""
        return self.metrics[0] if self.metrics else None

    def score_format(self, metric: str) -> ScoreFormat:
        """Percent for a metric whose scores all lie in [0, 1], plain numbers otherwise."""
        if metric not in self._formats:
            from gengap.metrics import is_corpus_metric, is_share

            if is_corpus_metric(metric):  # the rows hold right/wrong; the figure's own range decides
                self._formats[metric] = ScoreFormat(percent=is_share(metric))
                return self._formats[metric]
            values = self.rows.loc[self.rows["metric"] == metric, "score"]
            self._formats[metric] = ScoreFormat(percent=bool(len(values)) and bool(values.between(0, 1).all()))
        return self._formats[metric]


SectionFn = Callable[[ReportContext], "Section | None"]


@dataclass(frozen=True)
class _Entry:
    key: str
    order: int
    fn: SectionFn


_REGISTRY: Registry[_Entry] = Registry("report section")


def register_section(key: str, *, order: int, replace: bool = False) -> Callable[[SectionFn], SectionFn]:
    """Register ``fn(ctx) -> Section | None`` as the report section ``key``, placed by ``order``.

    ``key`` names the section in ``results.json`` (``sections.<key>``) and is the anchor of its
    heading in ``index.html``; a key already taken is an error unless ``replace=True``.

    >>> @register_section("doc_example", order=95)
    ... def doc_example(ctx):
    ...     return None
    >>> "doc_example" in registered_sections()
    True
    >>> unregister_section("doc_example")
    """
    if not key.replace("_", "").replace("-", "").isalnum() or not key[:1].isalpha():
        raise ValueError(f"Section key {key!r} must start with a letter and hold only letters, digits, '_' and '-'.")

    def decorate(fn: SectionFn) -> SectionFn:
        existing = _REGISTRY.get(key)
        if existing is not None and existing.fn is fn:
            return fn
        _REGISTRY.register(key, _Entry(key, order, fn), replace=replace)
        return fn

    return decorate


def unregister_section(key: str) -> None:
    """Remove a registered section (tests and notebooks that registered one of their own)."""
    _REGISTRY.unregister(key)


def load_section_modules() -> None:
    """Import every module of :data:`SECTION_MODULES`; one that is missing is skipped with a warning."""
    for name in SECTION_MODULES:
        try:
            importlib.import_module(name)
        except ImportError as e:
            warnings.warn(f"Report section module '{name}' could not be imported ({e}); its sections are left out.",
                          stacklevel=2)


def registered_sections() -> Mapping[str, int]:
    """Section key -> order, in the order sections appear."""
    load_section_modules()
    return {e.key: e.order for e in sorted(_REGISTRY.values(), key=lambda e: (e.order, e.key))}


def build_sections(ctx: ReportContext) -> list[tuple[str, Section]]:
    """Run every registered section on ``ctx``; returns ``(key, section)`` for those that apply.

    A section that raises is not allowed to take the whole report down: it is replaced by a short
    notice naming the error (and a warning), so a reader knows something is missing.
    """
    from gengap.report._blocks import html_fragment

    out = []
    for key in registered_sections():
        entry = _REGISTRY[key]
        try:
            section = entry.fn(ctx)
        except Exception as e:
            warnings.warn(f"Report section '{key}' failed: {type(e).__name__}: {e}", stacklevel=2)
            message = f"This section could not be drawn: {type(e).__name__}: {e}"
            section = Section(
                title=key.replace("_", " ").capitalize(),
                html=html_fragment('<p class="notice">{{ message }}</p>', message=message),
                markdown=f"> {md_escape(message)}",
                data={"error": f"{type(e).__name__}: {e}"},
            )
        if section is not None:
            out.append((key, section))
    return out
