"""gengap's earlier hand-written HTTP/1.1 transport (``benchmarks/_http1.py``: asyncio + httptools), kept
here only so the HTTP benchmarks can show it side by side with the httpx transport the model uses now.

It has no proxies, no CA bundle or client certificates, unbounded decompression, and re-sends a
request quietly when a kept-alive connection closes as it goes out: it is not for use.
"""

from __future__ import annotations

from typing import Any

from gengap.models.http import OpenAIModel


class HandWrittenModel(OpenAIModel):
    """OpenAIModel on the earlier transport: the same requests, retries and bookkeeping."""

    def _open(self) -> Any:
        if self._client is None:
            from _http1 import Client

            headers = {"User-Agent": "gengap-bench", "Accept": "application/json", "Content-Type": "application/json"}
            self._client = Client(headers, limit=self.concurrency, timeout=self.timeout)  # type: ignore[assignment]
            self._held["client"] = self._client
        return self._client
