"""HTTP for :class:`~gengap.OpenAIModel`, on httpx: what a real network needs, and nothing of gengap's own logic.

httpx (``AsyncClient``) keeps the connections alive, reads ``HTTPS_PROXY``/``HTTP_PROXY``/``ALL_PROXY``/
``NO_PROXY`` and ``SSL_CERT_FILE``/``SSL_CERT_DIR`` from the environment (``trust_env``), verifies TLS
against the system's certificates, a CA bundle (``verify="ca.pem"``) or not at all (``verify=False``),
presents a client certificate (``client_cert``), and speaks HTTP/2 when asked (``http2=True``, with
the ``h2`` package: ``pip install 'gengap[http2]'``). gengap's own logic (how many requests are in
flight, retries with backoff, Retry-After, the error messages that say what to check) stays in
:mod:`gengap.models.http`.

What this module adds: a request never goes out twice by itself (httpx re-sends nothing once a
request was written; a request that failed after it was sent is retried, visibly and counted, by
``OpenAIModel``'s ``max_retries``), a body is read at most ``max_body`` bytes after decompression
(a gzip bomb or an endless answer is an error, not a full memory), and every failure is one
:class:`TransportError` whose text says what happened (no connection, the proxy refused, the
certificate was not trusted, the answer was cut short).

>>> client = Client({"User-Agent": "gengap"}, limit=4, timeout=5.0)
>>> client.max_body
67108864
"""

from __future__ import annotations

import asyncio
import ssl
import zlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple
from urllib.parse import urlsplit

if TYPE_CHECKING:  # imported when the first client is made: ``import gengap`` stays quick
    import httpx

__all__ = ["Client", "Response", "TransportError", "MAX_BODY", "tls_settings"]

#: The largest answer read, in bytes after decompression (an OpenAI-compatible answer is kilobytes).
MAX_BODY = 64 * 1024 * 1024


class Response(NamedTuple):
    """An answer: the status, the headers (names in lower case, repeated ones joined by ", ") and the whole body."""

    status: int
    headers: dict[str, str]
    body: bytes


class TransportError(Exception):
    """The request got no complete answer: no connection, a proxy or TLS refusal, a connection lost, a bad answer."""


_CONTEXTS: dict[tuple[Any, ...], ssl.SSLContext] = {}


def tls_settings(verify: bool | str | Path = True, client_cert: str | Path | tuple[str | Path, str | Path] | None = None,
                 *, trust_env: bool = True) -> ssl.SSLContext:
    """The SSL context httpx's ``verify=`` gets: the CA certificates to trust (``True``: those of
    ``SSL_CERT_FILE``/``SSL_CERT_DIR`` when set and ``trust_env``, else certifi's, as httpx does; a
    path: a CA bundle file or a folder of certificates; ``False``: no verification) and a client
    certificate (a PEM file holding both, or a ``(certificate, key)`` pair).

    Loading certificates costs a few hundred milliseconds, so each context is made once per process.

    >>> tls_settings(True) is tls_settings(True), tls_settings(False).verify_mode == ssl.CERT_NONE
    (True, True)
    >>> tls_settings("/no/such/ca.pem")
    Traceback (most recent call last):
    ...
    ValueError: the CA bundle '/no/such/ca.pem' (verify=) does not exist; give the path of a PEM file or a folder of certificates
    """
    import os

    env = (os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR")) if trust_env and verify is True else (None, None)
    key_of = (verify if isinstance(verify, bool) else str(verify), str(client_cert), env)
    context = _CONTEXTS.get(key_of)
    if context is None:
        context = _CONTEXTS[key_of] = _context(verify, client_cert, env)
    return context


def _context(verify: bool | str | Path, client_cert: Any, env: tuple[str | None, str | None]) -> ssl.SSLContext:
    if verify is True:
        cafile, capath = env
        if not (cafile and Path(cafile).is_file()) and not (capath and Path(capath).is_dir()):
            import certifi

            cafile, capath = certifi.where(), None
        context = ssl.create_default_context(cafile=cafile if cafile and Path(cafile).is_file() else None,
                                             capath=capath if capath and Path(capath).is_dir() else None)
    elif verify is False:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    else:
        path = Path(verify)
        if not path.exists():
            raise ValueError(f"the CA bundle '{verify}' (verify=) does not exist; give the path of a PEM file or a "
                             "folder of certificates")
        try:
            context = ssl.create_default_context(cafile=str(path)) if path.is_file() else ssl.create_default_context(capath=str(path))
        except ssl.SSLError as e:
            raise ValueError(f"the CA bundle '{verify}' (verify=) holds no readable PEM certificate ({e.reason or e})") from None
    if client_cert is not None:
        cert, key = (client_cert, None) if isinstance(client_cert, (str, Path)) else client_cert
        for what in (cert, key):
            if what is not None and not Path(what).is_file():
                raise ValueError(f"the client certificate file '{what}' (client_cert=) does not exist")
        try:
            context.load_cert_chain(str(cert), None if key is None else str(key))
        except ssl.SSLError as e:
            raise ValueError(f"the client certificate '{cert}' (client_cert=) could not be loaded ({e.reason or e}); give "
                             "a PEM file with the certificate and its key, or a (certificate, key) pair") from None
    return context


class Client:
    """Requests to one or more origins over at most ``limit`` connections, each phase within ``timeout`` seconds.

    ``headers`` go with every request. ``verify``/``client_cert``: see :func:`tls_settings`;
    ``http2``: offer HTTP/2 over TLS (needs the ``h2`` package);
    ``proxy``: a proxy URL for every request (None: the environment's, when ``trust_env``).
    Use it on one event loop; :meth:`close` drops every connection.
    """

    def __init__(self, headers: Mapping[str, str] | None = None, *, limit: int = 100, timeout: float = 60.0,
                 verify: bool | str | Path = True, client_cert: Any = None, proxy: str | None = None,
                 trust_env: bool = True, http2: bool = False, max_body: int = MAX_BODY) -> None:
        for name, value in (headers or {}).items():
            if any(c in f"{name}{value}" for c in "\r\n\0"):
                raise ValueError(f"the HTTP header {name!r} contains a line break or a NUL character")
        self.max_body = max_body
        self._proxy = proxy
        self._trust_env = trust_env
        self._closed = False
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closing: set[asyncio.Task[Any]] = set()
        headers = {"Accept-Encoding": "gzip, deflate", **dict(headers or {})}  # the encodings _Body reads
        import httpx

        tls = tls_settings(verify, client_cert, trust_env=trust_env)
        # One httpx client per request slot, each with one connection: httpcore's pool looks at every
        # connection each time it places a request, which at 32 in flight cost about 6 ms of CPU a
        # request here, against about 1 ms with a pool of one (benchmarks/bench_http.py).
        self._new = lambda: httpx.AsyncClient(
            headers=headers, timeout=httpx.Timeout(timeout), limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),
            verify=tls, proxy=proxy, trust_env=trust_env, http2=http2, follow_redirects=False)
        self._slots = asyncio.Semaphore(limit)
        self._free: list[httpx.AsyncClient] = []  # idle clients, the most recently used last (its connection is warm)
        self._made: list[httpx.AsyncClient] = []

    async def request(self, method: str, url: str, body: bytes | None = None) -> Response:
        """Send one request and return the whole answer; TransportError or TimeoutError when none came."""
        if self._closed:
            raise TransportError("the client was closed")
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            return await self._request(method, url, body)
        except asyncio.CancelledError:
            if task is not None and task in self._closing:  # close() ended it: an error, never part of an answer
                raise TransportError("the client was closed before the answer was complete") from None
            raise
        finally:
            if task is not None:
                self._tasks.discard(task)
                self._closing.discard(task)

    async def _request(self, method: str, url: str, body: bytes | None) -> Response:
        async with self._slots:
            client = self._free.pop() if self._free else self._client_made()
            try:
                return await self._exchange(client, method, url, body)
            finally:
                if not self._closed:
                    self._free.append(client)

    def _client_made(self) -> httpx.AsyncClient:
        client = self._new()
        self._made.append(client)
        return client

    async def _exchange(self, client: httpx.AsyncClient, method: str, url: str, body: bytes | None) -> Response:
        import httpx

        encoding = ""
        try:
            async with client.stream(method, url, content=body) as answer:
                encoding = answer.headers.get("content-encoding", "").strip().lower()
                declared = answer.headers.get("content-length", "")
                if declared.isdigit() and encoding in ("", "identity") and int(declared) > self.max_body:
                    raise TransportError(self._too_large(url))
                reader = _Body(encoding, self.max_body, lambda: self._too_large(url))
                async for chunk in answer.aiter_raw():  # decompressed here, at most max_body bytes out
                    reader.feed(chunk)
                headers = {k.lower(): v for k, v in answer.headers.items()}  # repeated names: one value joined by ", "
                return Response(answer.status_code, headers, reader.finish())
        except httpx.TimeoutException:
            raise asyncio.TimeoutError() from None
        except httpx.ProxyError as e:
            raise TransportError(f"the proxy {self._proxy_for(url)} refused the connection ({_reason(e)}); check "
                                 "HTTPS_PROXY/HTTP_PROXY (and NO_PROXY for hosts to reach directly)") from e
        except httpx.ConnectError as e:
            raise TransportError(_connect_failure(e, url, self._proxy_for(url))) from e
        except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as e:
            reason = _reason(e)
            if isinstance(e, httpx.RemoteProtocolError) and not any(
                    cue in reason.lower() for cue in ("peer closed", "disconnected", "incomplete")):
                raise TransportError(f"the server's answer is not valid HTTP/1.1 ({reason})") from e
            raise TransportError(f"the server closed the connection before it finished answering ({reason})") from e
        except (httpx.InvalidURL, httpx.UnsupportedProtocol) as e:
            raise TransportError(f"the URL {url!r} cannot be requested ({_reason(e)})") from e
        except httpx.HTTPError as e:
            raise TransportError(f"{type(e).__name__}: {_reason(e)}") from e
        except ssl.SSLError as e:  # e.g. a TLS 1.3 server asking for a client certificate, after the handshake
            raise TransportError(f"the TLS connection failed ({_reason(e)}); if the server asks for a client "
                                 "certificate, give it with client_cert=") from e
        except OSError as e:
            raise TransportError(f"the connection failed ({_reason(e)})") from e

    def _too_large(self, url: str) -> str:
        return (f"the answer from {url} is larger than {self.max_body / 2**20:g} MiB (after decompression), far more "
                "than an OpenAI-compatible answer; check the base URL")

    def _proxy_for(self, url: str) -> str | None:
        """The proxy a request to ``url`` goes through (the one given, else the environment's), for messages."""
        if self._proxy is not None:
            return _without_credentials(self._proxy)
        if not self._trust_env:
            return None
        import urllib.request

        target = urlsplit(url)
        proxies = urllib.request.getproxies_environment()
        proxy = proxies.get(target.scheme) or proxies.get("all")
        bypass = getattr(urllib.request, "proxy_bypass_environment")  # noqa: B009 (not in typeshed)
        if proxy is None or bypass(target.hostname or "", proxies):
            return None
        return _without_credentials(proxy)

    async def close(self) -> None:
        """Close every connection; requests still waiting fail with TransportError, later ones too."""
        self._closed = True
        for task in list(self._tasks):
            if task is not asyncio.current_task():
                self._closing.add(task)
                task.cancel()
        made, self._made, self._free = self._made, [], []
        for client in made:
            await client.aclose()


class _Body:
    """An answer's body as it arrives: decompressed here (gzip, x-gzip, deflate with or without its zlib
    header), at most ``limit`` bytes out, and a compressed stream that ends early is an error, never a
    short body."""

    def __init__(self, encoding: str, limit: int, too_large: Callable[[], str]) -> None:
        self.encoding, self.limit, self.too_large = encoding, limit, too_large
        if encoding not in ("", "identity", "gzip", "x-gzip", "deflate"):
            raise TransportError(f"the server sent a body encoded as {encoding!r}, which gengap did not ask for "
                                 "(it asks for gzip or deflate)")
        self.inflater: Any = None
        self.parts: list[bytes] = []
        self.size = 0
        self.started = False

    def feed(self, data: bytes) -> None:
        if not data:
            return
        if self.encoding in ("", "identity"):
            self._keep(data)
            return
        if self.inflater is None:  # deflate: a zlib stream, or raw deflate (which some servers send)
            zlib_header = len(data) >= 2 and data[0] & 0x0F == 8 and (data[0] << 8 | data[1]) % 31 == 0
            self.inflater = zlib.decompressobj(47 if self.encoding != "deflate" else (15 if zlib_header else -15))
        while data:
            try:
                out = self.inflater.decompress(data, self.limit - self.size + 1)
            except zlib.error as e:
                raise TransportError(f"the server's {self.encoding} body does not decompress ({e})") from None
            self._keep(out)
            data = self.inflater.unconsumed_tail
            if self.inflater.eof:
                return

    def _keep(self, data: bytes) -> None:
        self.size += len(data)
        if self.size > self.limit:
            raise TransportError(self.too_large())
        self.parts.append(data)

    def finish(self) -> bytes:
        if self.inflater is not None and not self.inflater.eof:
            raise TransportError(f"the server's {self.encoding} body does not decompress (the compressed stream is cut short)")
        return b"".join(self.parts)


def _without_credentials(url: str) -> str:
    """The URL without ``user:password@`` (a proxy's credentials never reach a message)."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]).geturl()


def _reason(error: BaseException) -> str:
    """The innermost cause's words ("Connection refused", "certificate verify failed: ...")."""
    inner: BaseException = error
    while inner.__cause__ is not None or inner.__context__ is not None:
        inner = inner.__cause__ or inner.__context__  # type: ignore[assignment]
    text = getattr(inner, "reason", None) if isinstance(inner, ssl.SSLError) else None
    if isinstance(inner, ssl.SSLCertVerificationError):
        text = inner.verify_message or str(inner)
    if not text and isinstance(inner, OSError) and inner.strerror:
        text = inner.strerror
    return str(text or inner or error) or type(inner).__name__


def _connect_failure(error: BaseException, url: str, proxy: str | None) -> str:
    target = urlsplit(url)
    where = f"{target.hostname}:{target.port or (443 if target.scheme == 'https' else 80)}"
    reason = _reason(error)
    via = f" through the proxy {proxy}" if proxy else ""
    text = f"could not connect to {where}{via} ({reason})"
    if proxy:
        text += "; check the proxy (HTTPS_PROXY/HTTP_PROXY, or proxy=) and NO_PROXY for hosts to reach directly"
    elif "certificate" in reason.lower() or "ssl" in reason.lower() or "tls" in reason.lower():
        text += (": the server's TLS certificate is not trusted here. Give the CA bundle that signed it (verify='ca.pem', "
                 "or SSL_CERT_FILE=ca.pem in the environment), or verify=False on a network you trust")
    return text
