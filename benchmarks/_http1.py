"""HTTP/1.1 over kept-alive connections on asyncio: the transport of :class:`~gengap.OpenAIModel`.

A request costs about 50 µs of the event loop here: the request's bytes are formatted in one go
and written in one call, and the answer is parsed by llhttp (through ``httptools``, the parser
uvicorn uses). aiohttp spends 150-200 µs of Python on the same request; on a loop that answers
128 requests arriving together one after another, that difference is the gap between about 85%
and more than 90% of what a 50 ms server allows (``benchmarks/bench_http.py``).

What it does: ``http`` and ``https`` (asyncio's TLS), a pool of at most ``limit`` connections kept
alive between requests, answers delimited by Content-Length, chunks or the end of the connection,
gzip and deflate bodies, one total timeout per request (connecting included), and one quiet retry
on a new connection when a kept-alive connection turns out to have been closed by the server
before it answered a byte (servers close idle connections at their own pace). What it does not:
proxies, redirects (a 3xx answer is returned, with its Location header), HTTP/2, streaming.

>>> split_url("http://127.0.0.1:8000/v1/models")
('http', '127.0.0.1', 8000, '/v1/models')
>>> split_url("https://api.example.com/v1/chat/completions?x=1")
('https', 'api.example.com', 443, '/v1/chat/completions?x=1')
"""

from __future__ import annotations

import asyncio
import os
import ssl
import zlib
from collections.abc import Mapping
from typing import NamedTuple
from urllib.parse import urlsplit

import httptools

__all__ = ["Client", "Response", "TransportError", "split_url"]


class Response(NamedTuple):
    """An answer: the status, the headers (names in lower case) and the whole body."""

    status: int
    headers: dict[str, str]
    body: bytes


class TransportError(Exception):
    """The request got no complete answer: no connection, a connection lost, a malformed answer."""


def split_url(url: str) -> tuple[str, str, int, str]:
    """``(scheme, host, port, target)`` of an ``http`` or ``https`` URL; ValueError for anything else."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"not an http or https URL: {url!r}")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return parts.scheme, parts.hostname, port, target


class _Connection(asyncio.Protocol):
    """One connection: at most one request at a time; the answer's parts gathered by llhttp's callbacks."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.parser = httptools.HttpResponseParser(self)
        self.waiter: asyncio.Future[Response] | None = None
        self.closed = False
        self.closed_here = False  # closed by this side (Client.close, a timeout, a bad answer) before the server did
        self.answered = False  # a byte of the current answer arrived
        self._reset()

    def _reset(self) -> None:
        self.status = 0
        self.headers: dict[str, str] = {}
        self.body: list[bytes] = []
        self.answered = False

    # asyncio's side
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.answered = True
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as e:
            self.fail(TransportError(f"the server's answer is not valid HTTP/1.1 ({e})"))

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed_here, self.closed = self.closed, True
        if self.waiter is None or self.waiter.done():
            return
        if self.closed_here:  # Client.close() with the answer still coming: what arrived may be cut short
            self.fail(TransportError("the connection was closed (the client was closed) before the answer was complete"))
            return
        if (exc is None and self.status and "content-length" not in self.headers
                and "chunked" not in self.headers.get("transfer-encoding", "").lower()):
            self.on_message_complete()  # a body that ends with the connection (HTTP/1.0 style); not with a reset
            return
        why = f": {exc}" if exc else ""
        self.fail(TransportError(f"the server closed the connection before it finished answering{why}"))

    # llhttp's side
    def on_header(self, name: bytes, value: bytes) -> None:
        key, text = name.decode("latin-1").lower(), value.decode("latin-1")
        self.headers[key] = f"{self.headers[key]}, {text}" if key in self.headers else text  # repeated: one list (RFC 9110)

    def on_headers_complete(self) -> None:
        self.status = self.parser.get_status_code()

    def on_body(self, body: bytes) -> None:
        self.body.append(body)

    def on_message_complete(self) -> None:
        if 100 <= self.status < 200:  # an interim answer (100 Continue): the real one follows
            self._reset()
            return
        body = b"".join(self.body)
        encoding = self.headers.get("content-encoding", "").strip().lower()
        if encoding in ("gzip", "x-gzip", "deflate"):
            try:
                body = zlib.decompress(body, 47 if encoding != "deflate" else 15)
            except zlib.error:
                try:
                    body = zlib.decompress(body, -15)  # raw deflate, which some servers send
                except zlib.error as e:
                    self.fail(TransportError(f"the server's {encoding} body does not decompress ({e})"))
                    return
        response = Response(self.status, self.headers, body)
        if not self.parser.should_keep_alive():
            self.close()
        self._reset()
        waiter, self.waiter = self.waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(response)

    # the client's side
    def exchange(self, request: bytes) -> asyncio.Future[Response]:
        assert self.transport is not None and self.waiter is None
        self.waiter = asyncio.get_running_loop().create_future()
        self.transport.write(request)
        return self.waiter

    def fail(self, error: Exception) -> None:
        self.close()
        waiter, self.waiter = self.waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_exception(error)

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.abort()


class Client:
    """Requests to one or more origins, at most ``limit`` at a time, each within ``timeout`` seconds.

    ``headers`` go with every request (and Content-Length with a body). Use it on one event loop;
    :meth:`close` drops every connection.
    """

    def __init__(self, headers: Mapping[str, str] | None = None, limit: int = 100, timeout: float = 60.0) -> None:
        for name, value in (headers or {}).items():
            if any(c in f"{name}{value}" for c in "\r\n\0"):
                raise ValueError(f"the HTTP header {name!r} contains a line break or a NUL character")
        self._headers = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
        self._limit = asyncio.Semaphore(limit)
        self._timeout = timeout
        self._idle: dict[tuple[str, str, int], list[_Connection]] = {}
        self._open: set[_Connection] = set()
        self._heads: dict[tuple[str, str], tuple[tuple[str, str, int], bytes]] = {}  # (method, url) -> origin, head
        self._tls: ssl.SSLContext | None = None
        # Deadlines: one timer checks the requests in flight a few times per timeout, rather than a
        # timer per request (which costs more of the loop than the rest of the request's bookkeeping).
        self._deadlines: dict[_Connection, float] = {}
        self._check_every = min(1.0, max(0.005, timeout / 20))
        self._checker: asyncio.TimerHandle | None = None
        self._closed = False

    async def request(self, method: str, url: str, body: bytes | None = None) -> Response:
        """Send one request and return the whole answer; TransportError or TimeoutError when none came."""
        try:
            origin, head = self._heads[method, url]
        except KeyError:
            origin, head = self._heads.setdefault((method, url), self._head(method, url))
        if body is None:
            request = head + b"\r\n"
        else:
            request = b"%sContent-Length: %d\r\n\r\n%s" % (head, len(body), body)
        async with self._limit:
            if self._closed:
                raise TransportError("the client was closed")
            return await self._send(origin, request, asyncio.get_running_loop().time() + self._timeout)

    async def _send(self, origin: tuple[str, str, int], request: bytes, deadline: float) -> Response:
        idle = self._idle.get(origin)
        while idle:
            connection = idle.pop()
            if connection.closed:  # closed by the server while it sat idle
                self._open.discard(connection)
                continue
            try:
                return await self._exchange(origin, connection, request, deadline)
            except TransportError:
                if connection.answered or connection.closed_here:
                    raise
                break  # closed by the server as the request went out: once more, on a new connection
        wait = deadline - asyncio.get_running_loop().time()
        return await self._exchange(origin, await asyncio.wait_for(self._connect(origin), max(0.0, wait)), request, deadline)

    async def _exchange(self, origin: tuple[str, str, int], connection: _Connection, request: bytes, deadline: float) -> Response:
        self._deadlines[connection] = deadline
        if self._checker is None:
            self._checker = asyncio.get_running_loop().call_later(self._check_every, self._check_deadlines)
        try:
            response = await connection.exchange(request)
        except BaseException:  # no answer (lost, timed out, cancelled): the connection's state is unknown
            self._drop(connection)
            raise
        finally:
            del self._deadlines[connection]
        if connection.closed:
            self._drop(connection)
        else:
            self._idle.setdefault(origin, []).append(connection)
        return response

    def _check_deadlines(self) -> None:
        self._checker = None
        now = asyncio.get_running_loop().time()
        for connection, deadline in list(self._deadlines.items()):
            if deadline <= now:
                connection.fail(asyncio.TimeoutError())
        if self._deadlines:
            self._checker = asyncio.get_running_loop().call_later(self._check_every, self._check_deadlines)

    async def _connect(self, origin: tuple[str, str, int]) -> _Connection:
        scheme, host, port = origin
        tls = None
        if scheme == "https":
            if self._tls is None:
                self._tls = ssl.create_default_context()
            tls = self._tls
        try:
            _, connection = await asyncio.get_running_loop().create_connection(
                _Connection, host, port, ssl=tls, server_hostname=host if tls else None)
        except OSError as e:  # refused, unreachable, unknown host, TLS failure
            raise TransportError(f"could not connect to {host}:{port} ({_reason(e)})") from e
        if self._closed:  # closed while this connection was being made
            connection.close()
            raise TransportError("the client was closed")
        self._open.add(connection)
        return connection

    def _drop(self, connection: _Connection) -> None:
        connection.close()
        self._open.discard(connection)

    def _head(self, method: str, url: str) -> tuple[tuple[str, str, int], bytes]:
        scheme, host, port, target = split_url(url)
        default = 443 if scheme == "https" else 80
        authority = (f"[{host}]" if ":" in host else host) + ("" if port == default else f":{port}")
        lines = f"{method} {target} HTTP/1.1\r\nHost: {authority}\r\n{self._headers}"
        return (scheme, host, port), lines.encode("latin-1")

    async def close(self) -> None:
        """Close every connection (requests still waiting fail with TransportError)."""
        self._closed = True
        if self._checker is not None:
            self._checker.cancel()
            self._checker = None
        for connection in list(self._open):
            connection.close()
        self._open.clear()
        self._idle.clear()


def _reason(error: OSError) -> str:
    """What went wrong connecting, in words: "Connection refused", "Name or service not known", a TLS failure."""
    if isinstance(error, ssl.SSLError) or not error.errno or error.errno < 0:
        return error.strerror or str(error)
    return os.strerror(error.errno)
