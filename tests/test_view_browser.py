"""The viewer in a real browser (Debian's headless Chromium driven by Playwright): summary -> rows -> one
row -> A/B flips on two real runs, every count checked against the stores, no request leaving
loopback, and the report's script payloads (in inputs, outputs, metadata and split names) inert."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from _browser import browser_page, needs_chromium

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from _view_runs import IMG, SCRIPT, make_run, serving
from gengap.store import Store

pytestmark = [
    pytest.mark.slow,
    needs_chromium,
]


def _wait(page: Any, before: int) -> None:
    """Until the viewer has drawn a page after the ``before``-th one."""
    page.wait_for_function("n => window.__gengap && window.__gengap.renders > n", arg=before, timeout=30_000)


def _renders(page: Any) -> int:
    return int(page.evaluate("() => (window.__gengap && window.__gengap.renders) || 0"))


def _go(page: Any, url: str) -> None:
    """Go to another page of the viewer (a new hash) and wait until it is drawn."""
    before = _renders(page)
    page.goto(url)
    _wait(page, before)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("view-browser")
    metrics = ["exact_match", "token_f1"]
    return make_run(base / "a", reach=3, metrics=metrics), make_run(base / "b", reach=4, metrics=metrics)


def _store_rows(path: Path) -> pd.DataFrame:
    with Store(path / "gengap.duckdb", read_only=True) as store:
        return store.rows(store.latest_run())


def test_summary_rows_row_and_ab_flips_in_a_browser(runs, tmp_path):
    a_all, b_all = (_store_rows(p) for p in runs)
    a_rows, b_rows = (r[r["metric"] == "exact_match"] for r in (a_all, b_all))  # the primary metric
    problems: list[str] = []
    requests: list[str] = []
    dialogs: list[str] = []
    with serving(list(runs)) as base, browser_page(problems) as page:
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.on("request", lambda r: requests.append(r.url))
        page.goto(base + "/#/summary")
        _wait(page, 0)
        # summary: the length split's n of model m1 links to exactly its rows
        row = page.locator("table").first.locator("tr", has_text="length").first
        n = int(row.locator("span.n").get_attribute("data-n"))
        expected = a_rows[(a_rows["model"] == row.locator("td").nth(0).inner_text()) & (a_rows["split"] == "length")
                          & (a_rows["perturbation"] == "none")]
        assert n == len(expected) > 0
        before = _renders(page)
        row.locator("span.n").click()
        _wait(page, before)
        assert page.url.split("#")[1].startswith("/rows?")
        assert int(page.locator("#total").get_attribute("data-total")) == n
        assert page.locator("tbody tr").count() == min(n, 50)
        # every group of a held-out topic links too, the payload in its name shown as text
        _go(page, base + "/#/summary?run=0")
        page.wait_for_selector("text=Held-out groups")
        held = page.locator("h2:has-text('Held-out groups') + table tbody tr", has_text=f"c{IMG}").first
        assert held.count() == 1
        # a slice of the summary (the page shown): its n links to exactly its rows, counted in the store's rows
        slice_row = page.locator("#slices tbody tr").first
        assert "false discoveries controlled (Benjamini-Hochberg over every slice tested)" in page.locator(
            "h2:has-text('Where it fails') + p").inner_text()  # the control the search used, from its records
        n_slice = int(slice_row.locator("span.n").get_attribute("data-n"))
        model, split, described = (slice_row.locator("td").nth(k).inner_text() for k in range(3))
        column, _, value = described.partition(" = ")
        clean = a_rows[(a_rows["model"] == model) & (a_rows["split"] == split) & (a_rows["perturbation"] == "none")]
        words = clean["target" if column == "target_length" else "input"].str.split().str.len()
        assert column in ("input_length", "target_length") and n_slice == int((words == int(value)).sum()) > 0
        before = _renders(page)
        slice_row.locator("span.n").click()
        _wait(page, before)
        assert int(page.locator("#total").get_attribute("data-total")) == n_slice
        # one row: open the first wrong row of run A on the length split
        _go(page, base + "/#/rows?run=0&model=m1&split=length&outcome=wrong")
        first = page.locator("tbody tr").first
        example = first.locator("td").nth(5).inner_text()
        before = _renders(page)
        first.locator("a").first.click()
        _wait(page, before)
        assert f"example {example}" in page.locator("h1").inner_text()
        stored = a_rows[(a_rows["model"] == "m1") & (a_rows["split"] == "length") & (a_rows["example_id"] == example)
                        & (a_rows["perturbation"] == "none")].iloc[0]
        assert page.locator("#output").inner_text() == stored["output"]
        assert page.locator("#target").inner_text() == stored["target"]
        assert page.locator("span.diff mark.diff").count() >= 1  # the casing perturbation's changed words
        # A/B: the flip table per split, and the flipped examples behind a count
        before = _renders(page)
        page.click("#nav-ab")
        _wait(page, before)
        flip = page.locator("span.flip").first
        n_flips = int(flip.get_attribute("data-n"))
        split = flip.locator("xpath=ancestor::tr/td[1]").inner_text()
        x = a_rows[(a_rows["model"] == "m1") & (a_rows["split"] == split) & (a_rows["perturbation"] == "none")].set_index("example_id")["score"]
        y = b_rows[(b_rows["model"] == "m1") & (b_rows["split"] == split) & (b_rows["perturbation"] == "none")].set_index("example_id")["score"]
        y = y.reindex(x.index)
        assert n_flips in (int(((x >= 1) & (y < 1)).sum()), int(((x < 1) & (y >= 1)).sum())) and n_flips > 0
        before = _renders(page)
        flip.click()
        _wait(page, before)
        assert int(page.locator("#total").get_attribute("data-total")) == n_flips
        assert page.locator("tbody tr").count() == min(n_flips, 50)
        # A/B on a metric that is not 0/1: pick it in the form; B scored higher on the items behind the count
        page.click("#nav-ab")
        page.wait_for_selector("select[name=metric]")
        page.select_option("select[name=metric]", "token_f1")
        before = _renders(page)
        page.click("form.filters button[type=submit]")
        _wait(page, before)
        assert "scored higher" in page.locator("h1").inner_text() and page.locator("#values").count() == 1
        higher = page.locator("tr", has=page.locator("span.flip")).first
        split = higher.locator("td").nth(0).inner_text()
        x = a_all[(a_all["model"] == "m1") & (a_all["split"] == split) & (a_all["perturbation"] == "none")
                  & (a_all["metric"] == "token_f1")].set_index("example_id")["score"]
        y = b_all[(b_all["model"] == "m1") & (b_all["split"] == split) & (b_all["perturbation"] == "none")
                  & (b_all["metric"] == "token_f1")].set_index("example_id")["score"].reindex(x.index)
        cells = [higher.locator("td").nth(k).inner_text().replace(",", "") for k in (2, 3, 4)]
        assert [int(c) for c in cells] == [int((x > y).sum()), int((x == y).sum()), int((x < y).sum())]
        link_n = int(higher.locator("span.flip").last.get_attribute("data-n"))
        before = _renders(page)
        higher.locator("span.flip").last.click()
        _wait(page, before)
        assert int(page.locator("#total").get_attribute("data-total")) == link_n
        assert "scored higher" in page.locator("h1").inner_text()
        # payloads everywhere are text: search for them and read them back literally
        _go(page, base + "/#/rows?q=script")
        cells = page.locator("tbody").inner_text()
        _go(page, base + "/#/rows?outcome=wrong&run=0&model=m1")
        wrong = page.locator("tbody").inner_text()
        page.screenshot(path=str(tmp_path / "viewer.png"), full_page=True)
        pwned = page.evaluate("() => window.__pwned")
    assert SCRIPT in cells and IMG in wrong
    assert pwned is None, "a payload from the data ran in the viewer"
    assert dialogs == []
    assert problems == []
    assert requests and all(u.startswith(base) for u in requests), [u for u in requests if not u.startswith(base)]
