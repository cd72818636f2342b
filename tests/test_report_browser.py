"""The HTML report in a real browser (Debian's headless Chromium driven by Playwright): every chart
renders, nothing errors, nothing is fetched from the network, and script payloads in inputs,
targets, model outputs, split names and monitor events never execute."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import gengap
from _browser import browser_page, needs_chromium
from gengap.perturb import make_perturbation
from gengap.report import write_report
from gengap.store import Store

SCRIPT = "<script>window.__pwned=1</script>"
IMG = '<img src=x onerror="window.__pwned=1">'
#: A single word (no spaces) that is also an HTML injection: used as a split's held-out primitive.
WORD = "<img/src=x/onerror=window.__pwned=1>"


pytestmark = [
    pytest.mark.slow,
    needs_chromium,
]


def _dataset() -> gengap.Dataset:
    prims = ["walk", "run", "look", WORD]
    recs = []
    for i in range(160):
        p, k = prims[i % 4], 1 + (i * 7) % 5
        recs.append({"id": f"ex{i:03d}", "input": " ".join([p] * k) + (" twice" if i % 3 else f" thrice {SCRIPT}"),
                     "target": f"{IMG} " + " ".join([p.upper()] * k) if i % 5 == 0 else " ".join([p.upper()] * k)})
    recs.append({"id": "solo", "input": WORD, "target": WORD.upper()})
    return gengap.load(recs)


def _model(inputs):
    """Wrong (and echoing payloads) on a third of the inputs, right elsewhere."""
    out = []
    for x in inputs:
        words = x.replace(SCRIPT, "").split()
        target = " ".join(w.upper() for w in words if w not in ("twice", "thrice"))
        out.append(f"{SCRIPT}{IMG} {target}" if sum(map(ord, x)) % 3 == 0 else target)
    return out


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("browser")
    ds = _dataset()
    ev = gengap.evaluate(_model, ds, ["random", "length", gengap.HeldOutPrimitive(primitive=WORD)], out=out,
                         progress=False)
    with Store(ev.store_path) as store:
        store.add_measures(ev.run_id, [(s, name, "", f(s)) for s in range(0, 2001, 50)
                                       for name, f in (("train_loss", lambda s: math.exp(-s / 300)),
                                                       ("heldout_loss", lambda s: 1 - 0.5 * (s > 1200)))])
        store.add_event(ev.run_id, 300, f"memorized{IMG}", f"train loss flat {SCRIPT}")
    write_report(ev.store_path, ev.run_id, out)
    return out / "index.html"


def test_report_renders_every_chart_without_errors_or_network_and_runs_no_payload(report, tmp_path):
    problems: list[str] = []
    requests: list[str] = []
    dialogs: list[str] = []
    with browser_page(problems) as page:
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.on("request", lambda r: requests.append(r.url))
        page.goto(report.as_uri(), wait_until="load")
        n_charts = page.locator("div.plotly-graph-div").count()
        assert n_charts == 4  # scores per split, gaps, the length split's score curve, and the training losses (train_ and heldout_ share a chart)
        page.wait_for_function(
            "n => document.querySelectorAll('div.plotly-graph-div svg.main-svg').length >= n", arg=n_charts,
            timeout=30_000)
        for div in page.locator("div.plotly-graph-div").all():
            assert div.locator("svg.main-svg").count() >= 1, div.get_attribute("id")
            assert div.locator("g.trace").count() >= 1, div.get_attribute("id")  # data was drawn, not just axes
        page.mouse.wheel(0, 4000)
        page.wait_for_timeout(300)
        pwned = page.evaluate("() => window.__pwned")
        headline = page.locator("p.headline").inner_text()
        failures_text = page.locator("#failures").inner_text()
        tick_texts = page.locator("#chart-scores-exact-match g.ytick text").evaluate_all(
            "els => els.map(e => e.textContent)")
        page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
    assert pwned is None, "a payload from the data ran in the report"
    assert dialogs == []
    assert problems == []
    assert all(url.startswith(("file://", "data:", "about:")) for url in requests), requests
    assert headline.startswith("The biggest gap is on the split")
    # payloads are shown to the reader as the literal text they are
    assert SCRIPT in failures_text and IMG in failures_text
    assert any(t.startswith("primitive:<img/src=x/") for t in tick_texts), tick_texts  # literal, cut to fit


# ------------------------------------------------------------------------- what a reader sees
def _lowered(inputs):
    """Right on inputs of up to three words (case-insensitive, so 'casing' changes nothing), wrong after."""
    out = []
    for x in inputs:
        words = x.lower().split()
        out.append(" ".join(w.upper() for w in words if w not in ("twice", "thrice"))[: 6 * 3 + 2]
                   if len(words) <= 3 else "WRONG " + " ".join(w.upper() for w in words))
    return out


@pytest.fixture(scope="module")
def reader_report(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("reader")
    recs = [{"id": f"r{i}", "input": " ".join(["walk"] * (1 + i % 6)), "target": " ".join(["WALK"] * (1 + i % 6))}
            for i in range(240)]
    ev = gengap.evaluate(_lowered, gengap.load(recs), ["random", "length"], out=out, progress=False,
                         perturbations=[make_perturbation("casing:mode=upper")])
    write_report(ev.store_path, ev.run_id, out)
    return out / "index.html"


def test_charts_titles_colour_bar_and_failures_read_cleanly(reader_report, tmp_path):
    problems: list[str] = []
    with browser_page(problems) as page:
        page.goto(reader_report.as_uri(), wait_until="load")
        page.wait_for_function("() => document.querySelector('#chart-perturbations g.colorbar') !== null",
                               timeout=30_000)
        captions = page.locator("figure.chart > figcaption").all_inner_texts()
        plot_titles = page.locator("div.plotly-graph-div g.infolayer g.g-gtitle text").count()
        colorbar = page.locator("#chart-perturbations g.colorbar text").evaluate_all("els => els.map(e => e.textContent)")
        marks = page.locator("#failures mark.diff").all_inner_texts()
        length_chart = page.locator("#chart-curve-0 g.trace").count()
        overflow = page.locator("dl.kv dd").first.evaluate("e => getComputedStyle(e).overflowWrap")
        # hovering a chart shows plotly's toolbar; it must not cover the title, which sits above the plot
        page.hover("#chart-scores-exact-match")
        page.wait_for_timeout(200)
        bar_box = page.locator("#chart-scores-exact-match .modebar").bounding_box()
        title_box = page.locator("figure.chart:has(#chart-scores-exact-match) > figcaption").bounding_box()
        page.screenshot(path=str(tmp_path / "reader.png"), full_page=True)
    assert problems == []
    assert "Exact match per split, with 95% confidence intervals" in captions
    assert "Gap to the i.i.d. split 'random' (points)" in captions
    assert plot_titles == 0  # titles are HTML captions, not drawn inside the plots
    assert bar_box is None or title_box["y"] + title_box["height"] <= bar_box["y"] + 1
    # the colour bar of an all-zero effect reads in points ('-1.0 … +1.0'), never in nano-units
    ticks = [t for t in colorbar if t.strip() and not t.startswith("perturbed")]
    assert ticks and all(t.replace("−", "-").replace("+", "").replace(".", "").lstrip("-").isdigit() for t in ticks), ticks
    assert any("points" in t for t in colorbar)
    assert marks and all(m.startswith("WRONG") for m in marks)  # the highlight starts at the first differing word
    assert length_chart >= 2  # the score along the length with its monotone fit (and the halving point when it halves)
    assert overflow == "break-word"


# ------------------------------------------------------------------------- a phone-wide window
#: In every chart: each text (a value label, a tick label, a legend entry) as its box on the page.
CHART_TEXTS = """charts => charts.map(div => {
    const svg = div.querySelector('svg.main-svg').getBoundingClientRect();
    const texts = [...div.querySelectorAll('g.annotation-text-g text, g.xtick text, g.ytick text, g.legendtext, g.g-xtitle text, g.g-ytitle text, g.colorbar text')]
        .filter(t => t.textContent.trim())
        .map(t => { const r = t.getBoundingClientRect();
                    return {text: t.textContent, label: t.closest('g.annotation-text-g') !== null,
                            left: r.left, right: r.right, top: r.top, bottom: r.bottom}; });
    return {id: div.id, svg: {left: svg.left, right: svg.right, top: svg.top, bottom: svg.bottom}, texts};
})"""


def _overlapping(texts: list[dict]) -> list[tuple[str, str]]:
    """Pairs of texts whose boxes overlap by more than a pixel each way."""
    pairs = []
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            if min(a["right"], b["right"]) - max(a["left"], b["left"]) > 1 and \
                    min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > 1:
                pairs.append((a["text"], b["text"]))
    return pairs


@pytest.fixture(scope="module")
def many_splits_report(tmp_path_factory) -> Path:
    """Seven splits (five group folds) and a stress test: on a phone the scores chart has seven bars with
    their labels, and the heatmap seven columns and its colour bar."""
    out = tmp_path_factory.mktemp("narrow")
    recs = [{"id": f"n{i}", "input": " ".join(["walk"] * (1 + i % 6)), "target": " ".join(["WALK"] * (1 + i % 6)),
             "depth": i % 5} for i in range(400)]
    ev = gengap.evaluate(_lowered, gengap.load(recs), ["random", "length", "group:group=depth"], out=out, progress=False,
                         perturbations=["casing:mode=upper", "typos:rate=0.1"])
    write_report(ev.store_path, ev.run_id, out)
    return out / "index.html"


@pytest.mark.parametrize("width", [420, 1280])
def test_chart_labels_neither_overlap_nor_leave_the_chart_on_a_phone_or_a_desktop(many_splits_report, tmp_path, width):
    problems: list[str] = []
    with browser_page(problems) as page:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(many_splits_report.as_uri(), wait_until="load")
        page.wait_for_function("() => document.querySelectorAll('div.plotly-graph-div svg.main-svg').length >= 2",
                               timeout=30_000)
        page.wait_for_timeout(300)
        charts = page.locator("div.plotly-graph-div").evaluate_all(CHART_TEXTS)
        page_width = page.evaluate("() => document.documentElement.scrollWidth")
        page.screenshot(path=str(tmp_path / f"narrow-{width}.png"), full_page=True)
    assert problems == []
    scores = next(c for c in charts if c["id"] == "chart-scores-exact-match")
    assert sum(t["label"] and "%" in t["text"] for t in scores["texts"]) == 7  # a value label on each of the seven bars
    assert "chart-perturbations" in {c["id"] for c in charts}
    for chart in charts:
        assert _overlapping(chart["texts"]) == [], chart["id"]
        box = chart["svg"]
        outside = [t["text"] for t in chart["texts"] if t["left"] < box["left"] - 1 or t["right"] > box["right"] + 1
                   or t["top"] < box["top"] - 1 or t["bottom"] > box["bottom"] + 1]
        assert outside == [], chart["id"]
    assert page_width <= width  # the charts fit the window: no sideways scrolling for them
