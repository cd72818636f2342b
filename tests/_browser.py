"""Debian's headless Chromium driven by Playwright, for the browser tests of the report and the viewer.

The flags keep Chromium off the network (this machine has none but loopback) and out of the GPU.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: skips a browser test, saying how to get Chromium, where it is not installed
needs_chromium = pytest.mark.skipif(not CHROMIUM.exists(),
                                    reason="Debian's chromium is not installed at /usr/bin/chromium (apt-get install chromium)")


@contextmanager
def browser_page(problems: list[str]) -> Iterator[Any]:
    """A page of headless Chromium whose console errors, warnings and page errors go to ``problems``."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            new = browser.new_page(viewport={"width": 1280, "height": 900})
            new.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning") else None)
            new.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            yield new
        finally:
            browser.close()
