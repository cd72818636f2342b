"""The report's first sentence: the biggest gap to the i.i.d. split, with its interval.

Careful wording is the point here. The sentence names the split, both scores, the gap with its
interval and the examples behind each side, and says so plainly when the interval includes zero
(the run cannot tell the two splits apart) or when there is no i.i.d. split to measure from.

With several metrics every metric counts (:func:`headlines`): the sentence leads with the first
metric that shows a gap and names, for each other metric, its largest gap with its interval, so
it never says "no gap" on one metric while another shows one.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from gengap.report._format import ScoreFormat, bound, count, is_missing

__all__ = ["Headline", "headline", "headlines", "metric_gaps", "IMPORTED_ADVICE"]

#: What to do without an i.i.d. split when the rows were imported (gengap cannot cut a split from them).
IMPORTED_ADVICE = ("The rows were imported, so gengap cannot add a split to them: import the rows of an i.i.d. test "
                   "set as a task of its own (a --task column) to measure gaps from it, or see what a split would test "
                   "with --subset (e.g. --subset length:by=input).")


@dataclass(frozen=True)
class Headline:
    """The headline as plain text parts; the templates add emphasis.

    ``lead`` is the short claim (bolded), ``detail`` the figures, ``caveat`` the honest limit.
    """

    lead: str
    detail: str = ""
    caveat: str = ""

    @property
    def text(self) -> str:
        return " ".join(p for p in (self.lead, self.detail, self.caveat) if p)


def _who(model: str, n_models: int) -> str:
    return "the model" if n_models == 1 else f"model '{model}'"


def headline(summary: pd.DataFrame, metric: str | None, fmt: ScoreFormat | None, reference: str | None,
             *, iid: bool = True, imported: bool = False) -> Headline:
    """The biggest gap of ``metric`` across models and splits, in words.

    ``iid`` says whether the reference is an i.i.d. (random) split; any other reference the user
    named is called "the reference split". ``imported``: the rows were imported (no split can be
    added to them), so the advice names what an import can do instead.

    >>> s = pd.DataFrame({"model": "m", "split": ["random", "length"], "metric": "acc", "n": [40, 44],
    ...     "score": [0.9, 0.2], "score_low": [0.8, 0.1], "score_high": [1.0, 0.3], "reference": "random",
    ...     "gap": [0.0, 0.7], "gap_low": [0.0, 0.55], "gap_high": [0.0, 0.85], "gap_paired": [True, False]})
    >>> headline(s, "acc", ScoreFormat(percent=True), "random").text
    "The biggest gap is on the split 'length': 70.0 points below the i.i.d. split 'random'. The model scores 20.0% acc there (95% CI 10.0 to 30.0, n = 44) against 90.0% on 'random' (n = 40); the gap's 95% CI is 55.0 to 85.0 points."
    """
    rows = summary[summary["metric"] == metric] if metric is not None else summary.iloc[0:0]
    if rows.empty or fmt is None:
        return Headline("This run has no scored examples, so there is no score or gap to report.")
    n_models = rows["model"].nunique()
    unit = "points" if fmt.percent else ""
    metric_words = str(metric).replace("_", " ")

    ref_words = f"the {'i.i.d.' if iid else 'reference'} split '{reference}'"

    def num(x: float) -> str:
        return fmt.gap(x).replace(" pts", "")

    def end(x: float) -> str:  # an interval bound: never rounds a bound near 0% or 100% onto it
        return bound(x, fmt.digits) if fmt.percent and not is_missing(x) else num(x)

    others = rows[(rows["split"] != rows["reference"]) & rows["gap"].map(lambda g: not is_missing(g))]
    if reference is None or others.empty:
        low = rows.loc[rows["score"].astype(float).idxmin()]
        ci = f"95% CI {end(low.score_low)} to {end(low.score_high)}, n = {count(low.n)}"
        if reference is None:
            return Headline(
                "This run has no i.i.d. (random) split, so no gap is measured.",
                f"The lowest score is {fmt.score(low.score)} {metric_words} on the split '{low.split}' ({ci}).",
                IMPORTED_ADVICE if imported else
                "Add a random split (--split random) or name a reference split to measure gaps from.",
            )
        return Headline(
            f"Only {ref_words} was scored: {_who(low.model, n_models)} reaches "
            f"{fmt.score(low.score)} {metric_words} ({ci}).",
            "", "Add splits that shift the distribution (length, held-out combinations, ...) to measure gaps.",
        )

    top = others.loc[others["gap"].astype(float).idxmax()]
    ref_row = rows[(rows["model"] == top.model) & (rows["split"] == reference)]
    ref_score = ref_row["score"].iloc[0] if len(ref_row) else None
    ref_n = ref_row["n"].iloc[0] if len(ref_row) else None
    gap_ci = f"{end(top.gap_low)} to {end(top.gap_high)}{(' ' + unit) if unit else ''}"
    detail = (
        f"{_who(top.model, n_models).capitalize()} scores {fmt.score(top.score)} {metric_words} there "
        f"(95% CI {end(top.score_low)} to {end(top.score_high)}, n = {count(top.n)}) against "
        f"{fmt.score(ref_score)} on '{reference}' (n = {count(ref_n)}); the gap's 95% CI is {gap_ci}."
    )
    if float(top.gap) <= 0:
        if float(top.gap) == 0:
            lead = f"No split scores below {ref_words}: the closest, '{top.split}', scores the same."
        else:
            lead = (f"No split scores below {ref_words}. The closest is '{top.split}', "
                    f"{num(abs(float(top.gap)))}{(' ' + unit) if unit else ''} above it.")
        return Headline(lead, detail)
    lead = (f"The biggest gap is on the split '{top.split}': {num(top.gap)}{(' ' + unit) if unit else ''} "
            f"below {ref_words}.")
    caveat = ""
    if not is_missing(top.gap_low) and float(top.gap_low) <= 0:
        caveat = ("The interval includes zero: with this many test examples the run cannot tell this split "
                  f"apart from {ref_words}.")
    return Headline(lead, detail, caveat)


def _top(summary: pd.DataFrame, metric: str) -> pd.Series | None:
    rows = summary[summary["metric"] == metric]
    others = rows[(rows["split"] != rows["reference"]) & rows["gap"].map(lambda g: not is_missing(g))]
    return None if others.empty else others.loc[others["gap"].astype(float).idxmax()]


def metric_gaps(summary: pd.DataFrame, metrics: list[str]) -> list[dict[str, object]]:
    """Per metric: the split with the largest gap to the reference, the gap and its interval
    (``results.json``'s ``headlines``); ``split`` is None when no gap was measured.

    >>> s = pd.DataFrame({"model": "m", "split": ["random", "length"], "metric": "acc", "n": [40, 44],
    ...     "reference": "random", "gap": [0.0, 0.7], "gap_low": [0.0, 0.55], "gap_high": [0.0, 0.85],
    ...     "gap_p_adjusted": [None, 0.001]})
    >>> metric_gaps(s, ["acc"])[0]["split"], metric_gaps(s, ["acc"])[0]["gap"]
    ('length', 0.7)
    """
    out: list[dict[str, object]] = []
    for metric in metrics:
        top = _top(summary, metric)
        if top is None:
            out.append({"metric": metric, "model": None, "split": None, "gap": None, "gap_low": None, "gap_high": None,
                        "n": None, "gap_p_adjusted": None})
            continue
        out.append({"metric": metric, "model": top.model, "split": top.split, "gap": float(top.gap),
                    "gap_low": float(top.gap_low), "gap_high": float(top.gap_high), "n": int(top.n),
                    "gap_p_adjusted": None if is_missing(top.get("gap_p_adjusted")) else float(top.get("gap_p_adjusted"))})
    return out


def headlines(summary: pd.DataFrame, metrics: list[str], formats: dict[str, ScoreFormat], reference: str | None,
              *, iid: bool = True, imported: bool = False) -> Headline:
    """The headline over every metric: led by the first metric with a gap, each other metric's
    largest gap named with its interval.

    >>> s = pd.DataFrame({"model": "m", "split": ["random", "length"] * 2, "metric": ["em", "em", "f1", "f1"],
    ...     "n": 40, "score": [0.0, 0.0, 0.5, 0.4], "score_low": [0.0, 0.0, 0.4, 0.3], "score_high": [0.09, 0.09, 0.6, 0.5],
    ...     "reference": "random", "gap": [0.0, 0.0, 0.0, 0.1], "gap_low": [0.0, -0.05, 0.0, 0.02],
    ...     "gap_high": [0.0, 0.05, 0.0, 0.18], "gap_paired": False})
    >>> h = headlines(s, ["em", "f1"], {"em": ScoreFormat(percent=True), "f1": ScoreFormat(percent=True)}, "random")
    >>> h.lead
    "On f1, the biggest gap is on the split 'length': 10.0 points below the i.i.d. split 'random'."
    >>> h.detail[h.detail.index("On em"):]
    "On em: no split scores below the i.i.d. split (largest gap 0.0 points on 'length', 95% CI -5.0 to 5.0)."
    """
    if len(metrics) <= 1:
        metric = metrics[0] if metrics else None
        return headline(summary, metric, formats.get(metric) if metric else None, reference, iid=iid, imported=imported)
    tops = {m: _top(summary, m) for m in metrics}
    with_gap = [m for m in metrics if (top := tops[m]) is not None and float(top.gap) > 0]
    lead_metric = metrics[0] if (metrics[0] in with_gap or not with_gap) else with_gap[0]
    main = headline(summary, lead_metric, formats.get(lead_metric), reference, iid=iid, imported=imported)
    if tops[lead_metric] is None:
        return main
    words = str(lead_metric).replace("_", " ")
    lead = f"On {words}, {main.lead[0].lower()}{main.lead[1:]}"
    notes = []
    for m in metrics:
        top = tops[m]
        if m == lead_metric or top is None:
            continue
        fmt = formats.get(m) or ScoreFormat(percent=True)
        unit = " points" if fmt.percent else ""

        def num(x: float) -> str:
            return fmt.gap(x).replace(" pts", "")  # noqa: B023

        def end(x: float) -> str:
            return bound(x, fmt.digits) if fmt.percent else num(x)  # noqa: B023

        ci = f"95% CI {end(top.gap_low)} to {end(top.gap_high)}"
        name = str(m).replace("_", " ")
        if float(top.gap) > 0:
            notes.append(f"On {name}: the biggest gap is {num(top.gap)}{unit} on '{top.split}' ({ci}).")
        else:
            notes.append(f"On {name}: no split scores below the {'i.i.d.' if iid else 'reference'} split "
                         f"(largest gap {num(top.gap)}{unit} "
                         f"on '{top.split}', {ci}).")
    return Headline(lead, " ".join(p for p in (main.detail, *notes) if p), main.caveat)
