"""The HTTP transport of OpenAIModel (``gengap.models._transport``, on httpx) against a loopback server that
writes exact bytes.

Each test starts a TCP server on 127.0.0.1 (a thread per connection) whose handler reads the client's
requests and answers with the bytes the test chose: split anywhere with pauses, cut short, reset,
malformed, compressed or held back. The client runs on its own event loop (``asyncio.run``) in the
test's thread; no socket and no part of asyncio is mocked.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import gzip
import json
import random
import socket
import struct
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gengap
from gengap.errors import ConfigError, EndpointError
from gengap.models._transport import Client, Response, TransportError
from gengap.models.http import OpenAIModel


# ---------------------------------------------------------------------------- the loopback server
@dataclass
class Request:
    """A request as the server read it: request line, headers (names in lower case), body, connection number."""

    line: str
    headers: dict[str, str]
    body: bytes
    connection: int  # 1 for the first connection the server accepted

    @property
    def target(self) -> str:
        return self.line.split(" ")[1]


class Peer:
    """One accepted connection, seen from the server."""

    def __init__(self, sock: socket.socket, number: int, server: Server) -> None:
        self.sock, self.number, self.server = sock, number, server
        self.buffer = b""

    def request(self) -> Request | None:
        """The next whole request, or None once the client has closed the connection."""
        while b"\r\n\r\n" not in self.buffer:
            if not self._fill():
                return None
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        line, *fields = head.decode("latin-1").split("\r\n")
        headers = {}
        for field in fields:
            name, _, value = field.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0"))
        while len(self.buffer) < length:
            if not self._fill():
                return None
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        request = Request(line, headers, body, self.number)
        with self.server.lock:
            self.server.requests.append(request)
        return request

    def _fill(self) -> bool:
        """Read what the client sent; False (and the connection noted as closed by the client) at its end."""
        try:
            data = self.sock.recv(65536)
        except OSError:
            data = b""
        if not data:
            with self.server.lock:
                if self.number not in self.server.closed_by_client:
                    self.server.closed_by_client.append(self.number)
            return False
        self.buffer += data
        return True

    def send(self, *pieces: bytes, pause: float = 0.0) -> None:
        """Write the pieces one by one, ``pause`` seconds apart."""
        for i, piece in enumerate(pieces):
            if i and pause:
                time.sleep(pause)
            self.sock.sendall(piece)

    def until_closed(self) -> None:
        """Wait for the client to close the connection, dropping whatever it sends."""
        while self._fill():
            pass

    def reset(self) -> None:
        """End the connection with a TCP reset rather than an orderly close."""
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.sock.close()


Handler = Callable[[Peer], None]
#: The client's timeout where the test expects answers: a transport that loses one fails the test in seconds.
PATIENCE = 5.0


class Server:
    """A TCP server on a free loopback port that runs ``handle(peer)`` on a thread per accepted connection;
    it counts the connections, records the requests and the connections the client closed."""

    def __init__(self, handle: Handler) -> None:
        self.handle = handle
        self.lock = threading.Lock()
        self.accepted = 0
        self.requests: list[Request] = []
        self.closed_by_client: list[int] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._socks: list[socket.socket] = []
        self._stop = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.02)
        self.port: int = self._listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def posts(self) -> list[Request]:
        with self.lock:
            return [r for r in self.requests if r.line.startswith("POST ")]

    @contextlib.contextmanager
    def holding(self) -> Iterator[None]:
        """Count a request as in flight while the handler holds its answer."""
        with self.lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            yield
        finally:
            with self.lock:
                self.in_flight -= 1

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                sock, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            sock.settimeout(None)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # each write leaves as it is
            with self.lock:
                self.accepted += 1
                self._socks.append(sock)
                peer = Peer(sock, self.accepted, self)
            threading.Thread(target=self._serve, args=(peer,), daemon=True).start()

    def _serve(self, peer: Peer) -> None:
        try:
            self.handle(peer)
        except OSError:
            pass
        finally:
            peer.sock.close()  # an orderly end (FIN) once the handler returns

    def close(self) -> None:
        self._stop.set()
        self._listener.close()
        with self.lock:
            socks = list(self._socks)
        for sock in socks:  # wakes handlers blocked in recv
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


@contextlib.contextmanager
def serving(handle: Handler) -> Iterator[Server]:
    server = Server(handle)
    try:
        yield server
    finally:
        server.close()


def replying(reply: Callable[[Request], bytes]) -> Handler:
    """A handler that answers every request of a connection with ``reply(request)`` until the client closes it."""

    def handle(peer: Peer) -> None:
        while (request := peer.request()) is not None:
            peer.send(reply(request))

    return handle


def eventually(condition: Callable[[], bool], within: float = 2.0) -> bool:
    """Wait (blocking) until ``condition()`` holds; whether it did within ``within`` seconds."""
    end = time.monotonic() + within
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(0.005)
    return True


async def until(condition: Callable[[], bool], within: float = 2.0) -> bool:
    """``eventually`` on the event loop: the client's callbacks keep running while it waits."""
    end = time.monotonic() + within
    while not condition():
        if time.monotonic() > end:
            return False
        await asyncio.sleep(0.005)
    return True


async def fetch(url: str, method: str = "GET", body: bytes | None = None, timeout: float = PATIENCE) -> Response:
    """One request on a fresh Client, closed afterwards."""
    client = Client(timeout=timeout)
    try:
        return await client.request(method, url, body)
    finally:
        await client.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------------------- answers as bytes
def answer(body: bytes = b"", status: str = "200 OK", *headers: str) -> bytes:
    """An HTTP/1.1 answer delimited by Content-Length."""
    lines = "".join(f"{h}\r\n" for h in (f"Content-Length: {len(body)}", *headers))
    return f"HTTP/1.1 {status}\r\n{lines}\r\n".encode() + body


def chunked(pieces: Sequence[bytes], *headers: str) -> bytes:
    """An answer in chunks, one per non-empty piece, each with a chunk extension."""
    lines = "".join(f"{h}\r\n" for h in ("Transfer-Encoding: chunked", *headers))
    out = f"HTTP/1.1 200 OK\r\n{lines}\r\n".encode()
    for i, piece in enumerate(p for p in pieces if p):
        out += b"%x;n=%d\r\n%s\r\n" % (len(piece), i, piece)
    return out + b"0\r\n\r\n"


FRAMINGS = ("content-length", "chunked", "end of connection, HTTP/1.0", "end of connection, HTTP/1.1")


def framed(body: bytes, framing: str, n_chunks: int = 3) -> bytes:
    """``body`` delimited as ``framing`` says, with an ``X-Check`` header to find intact."""
    if framing == "content-length":
        return answer(body, "200 OK", "X-Check: intact-value")
    if framing == "chunked":
        step = max(1, -(-len(body) // n_chunks))
        return chunked([body[i:i + step] for i in range(0, len(body), step)], "X-Check: intact-value")
    if framing == "end of connection, HTTP/1.0":
        return b"HTTP/1.0 200 OK\r\nX-Check: intact-value\r\n\r\n" + body
    return b"HTTP/1.1 200 OK\r\nConnection: close\r\nX-Check: intact-value\r\n\r\n" + body


def sent_once(raw: bytes | Sequence[bytes], pause: float = 0.0) -> Handler:
    """A handler that reads one request, writes ``raw`` (in pieces, ``pause`` apart) and ends the connection."""
    pieces = [raw] if isinstance(raw, bytes) else list(raw)

    def handle(peer: Peer) -> None:
        if peer.request() is not None:
            peer.send(*pieces, pause=pause)

    return handle


# ---------------------------------------------------------------------------- bodies
@pytest.mark.parametrize("framing", FRAMINGS)
def test_body_arrives_exactly_as_sent_whatever_delimits_it(framing):
    body = bytes(range(256)) * 300 + b"\r\n0\r\n\r\nHTTP/1.1 200 OK\r\n\r\n"  # bytes that look like framing
    with serving(sent_once(framed(body, framing, n_chunks=7))) as server:
        response = asyncio.run(fetch(server.url("/x")))
    assert response.status == 200 and response.body == body and response.headers["x-check"] == "intact-value"


def test_chunk_extensions_and_trailers_stay_out_of_the_body_and_the_connection_is_reused():
    raw = (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
           b"5;lang=en\r\nhello\r\n"
           b"1;a=1;b=\"two words\"\r\n \r\n"
           b"A\r\n0123456789\r\n"
           b"0;last\r\nX-Trailer: done\r\n\r\n")

    async def twice() -> list[bytes]:
        client = Client(timeout=PATIENCE)
        try:
            return [(await client.request("GET", server.url(f"/{i}"))).body for i in range(2)]
        finally:
            await client.close()

    with serving(replying(lambda _: raw)) as server:
        bodies = asyncio.run(twice())
    assert bodies == [b"hello 0123456789"] * 2
    assert server.accepted == 1 and len(server.requests) == 2


def test_an_empty_body_ended_by_the_connection_is_empty():
    with serving(sent_once(b"HTTP/1.0 204 No Content\r\n\r\n")) as server:
        assert asyncio.run(fetch(server.url())) == Response(204, {}, b"")
    with serving(sent_once(b"HTTP/1.0 200 OK\r\n\r\n")) as server:
        assert asyncio.run(fetch(server.url())).body == b""


@settings(max_examples=25, deadline=None, database=None)
@given(framing=st.sampled_from(FRAMINGS), size=st.integers(0, 200_000), seed=st.integers(0, 2**32 - 1),
       n_chunks=st.integers(1, 6), pause=st.sampled_from([0.0, 0.001, 0.003]), data=st.data())
def test_answers_split_at_any_byte_with_pauses_arrive_whole(framing, size, seed, n_chunks, pause, data):
    body = random.Random(seed).randbytes(size)
    raw = framed(body, framing, n_chunks)
    in_head = data.draw(st.lists(st.integers(0, min(len(raw), 120)), max_size=4), label="cuts in the head")
    anywhere = data.draw(st.lists(st.integers(0, len(raw)), max_size=5), label="cuts anywhere")
    bounds = sorted({0, len(raw), *in_head, *anywhere})
    pieces = [raw[a:b] for a, b in zip(bounds, bounds[1:])]
    with serving(sent_once(pieces, pause)) as server:
        response = asyncio.run(fetch(server.url()))
    assert response.status == 200 and response.headers["x-check"] == "intact-value"
    assert len(response.body) == size and response.body == body


# ---------------------------------------------------------------------------- kept-alive connections
def test_sequential_requests_share_one_kept_alive_connection():
    async def five() -> list[bytes]:
        client = Client(timeout=PATIENCE)
        try:
            return [(await client.request("GET", server.url(f"/n{i}"))).body for i in range(5)]
        finally:
            await client.close()

    with serving(replying(lambda r: answer(r.line.encode()))) as server:
        bodies = asyncio.run(five())
    assert bodies == [f"GET /n{i} HTTP/1.1".encode() for i in range(5)]
    assert server.accepted == 1 and [r.connection for r in server.requests] == [1] * 5


@pytest.mark.parametrize("ending", [b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok",
                                    b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok"], ids=["Connection: close", "HTTP/1.0"])
def test_an_answer_that_ends_the_connection_is_followed_by_a_new_one(ending):
    def handle(peer: Peer) -> None:  # the server leaves its end open: the client must close it
        if peer.request() is not None:
            peer.send(ending)
            peer.until_closed()

    async def three() -> list[bytes]:
        client = Client(timeout=PATIENCE)
        try:
            bodies = [(await client.request("GET", server.url())).body for _ in range(3)]
            assert await until(lambda: sorted(server.closed_by_client) == [1, 2, 3])
            return bodies
        finally:
            await client.close()

    with serving(handle) as server:
        assert asyncio.run(three()) == [b"ok"] * 3
    assert server.accepted == 3 and [r.connection for r in server.requests] == [1, 2, 3]


def test_an_idle_connection_the_server_closed_is_replaced_without_an_error():
    def handle(peer: Peer) -> None:  # answers, then closes the connection 50 ms later
        if peer.request() is not None:
            peer.send(answer(b"%d" % peer.number))
            time.sleep(0.05)

    async def with_a_pause() -> list[bytes]:
        client = Client(timeout=PATIENCE)
        try:
            first = await client.request("GET", server.url("/a"))
            await asyncio.sleep(0.2)
            second = await client.request("GET", server.url("/b"))
            return [first.body, second.body]
        finally:
            await client.close()

    with serving(handle) as server:
        assert asyncio.run(with_a_pause()) == [b"1", b"2"]
    assert server.accepted == 2 and [(r.target, r.connection) for r in server.requests] == [("/a", 1), ("/b", 2)]


def _closes_on_a_second_request(also_on_new_connections: bool) -> Handler:
    """Answers a connection's first request, then closes it without a byte when the next one arrives (a
    server closing an idle connection just as a request goes out); with ``also_on_new_connections``,
    connections after the first are closed at their first request too."""

    def handle(peer: Peer) -> None:
        if peer.request() is None or (also_on_new_connections and peer.number > 1):
            return
        peer.send(answer(b"%d" % peer.number))
        if peer.request() is None:
            return

    return handle


async def _two_requests(server: Server) -> list[bytes]:
    client = Client(timeout=PATIENCE)
    try:
        return [(await client.request("GET", server.url(path))).body for path in ("/a", "/b")]
    finally:
        await client.close()


def test_a_kept_alive_connection_closed_as_the_request_arrives_is_never_resent_by_the_transport():
    # the server may have read the request (and done the work): sending it again is for the model's
    # counted retries to decide, never for the transport to do quietly
    with serving(_closes_on_a_second_request(False)) as server:
        with pytest.raises(TransportError, match="closed the connection before it finished answering"):
            asyncio.run(_two_requests(server))
    assert [(r.target, r.connection) for r in server.requests] == [("/a", 1), ("/b", 1)]


def test_a_kept_alive_connection_cut_after_part_of_an_answer_is_an_error_not_a_retry():
    def handle(peer: Peer) -> None:
        if peer.request() is not None:
            peer.send(answer(b"whole"))
        if peer.request() is not None:
            peer.send(answer(b"0123456789")[:-4])  # the head and part of the body, then the end

    async def scenario() -> None:
        client = Client(timeout=PATIENCE)
        try:
            assert (await client.request("GET", server.url("/a"))).body == b"whole"
            with pytest.raises(TransportError, match="closed the connection before it finished answering"):
                await client.request("POST", server.url("/b"), b"{}")
        finally:
            await client.close()

    with serving(handle) as server:
        asyncio.run(scenario())
    assert server.accepted == 1 and len(server.requests) == 2  # the server may have done the work: not sent again


def _reset_after(raw: bytes) -> Handler:
    def handle(peer: Peer) -> None:
        if peer.request() is not None:
            peer.send(raw)
            time.sleep(0.05)
            peer.reset()

    return handle


@pytest.mark.parametrize("handle", [
    sent_once(answer(b"0123456789")[:-4]),
    sent_once(b"HTTP/1.1 200 OK\r\nContent-Le"),
    sent_once(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n"),
    sent_once(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n5\r\nhello\r\n3\r\nwor"),
    _reset_after(b"HTTP/1.0 200 OK\r\n\r\npartial"),
], ids=["content-length", "head", "chunked", "Chunked, capitalised", "reset during a body ended by the connection"])
def test_an_answer_cut_short_is_an_error_never_a_short_body(handle):
    with serving(handle) as server:
        with pytest.raises(TransportError, match="the server closed the connection before it finished answering"):
            asyncio.run(fetch(server.url()))


# ---------------------------------------------------------------------------- failures
def test_a_server_that_never_answers_times_out_and_its_connection_is_dropped():
    def handle(peer: Peer) -> None:  # the first connection never answers; later ones do
        if peer.number == 1:
            peer.request()
            peer.until_closed()
        else:
            replying(lambda _: answer(b"%d" % peer.number))(peer)

    async def scenario() -> float:
        client = Client(timeout=0.2)
        try:
            start = time.monotonic()
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(client.request("GET", server.url("/slow")), PATIENCE)
            elapsed = time.monotonic() - start
            assert await until(lambda: server.closed_by_client == [1])  # the client gave the connection up
            assert (await client.request("GET", server.url("/next"))).body == b"2"
            return elapsed
        finally:
            await client.close()

    with serving(handle) as server:
        elapsed = asyncio.run(scenario())
    assert 0.19 <= elapsed < 1.2, elapsed
    assert server.accepted == 2 and [(r.target, r.connection) for r in server.requests] == [("/slow", 1), ("/next", 2)]


def test_a_refused_connection_names_host_and_port():
    port = _free_port()
    with pytest.raises(TransportError, match=rf"^could not connect to 127\.0\.0\.1:{port} \(.+\)$"):
        asyncio.run(fetch(f"http://127.0.0.1:{port}/v1/models", timeout=2))


@pytest.mark.parametrize("garbage", [
    b"\x15\x03\x01\x00\x02\x02\x46",  # a TLS alert: an https server spoken to in http
    b"HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nContent-Length: twelve\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
], ids=["tls alert", "status", "content-length", "chunk size"])
def test_a_malformed_answer_is_a_transport_error_about_http(garbage):
    def handle(peer: Peer) -> None:  # sends the garbage and keeps the connection open
        if peer.request() is not None:
            peer.send(garbage)
            peer.until_closed()

    with serving(handle) as server:
        with pytest.raises(TransportError, match=r"^the server's answer is not valid HTTP/1\.1 \(.+\)$"):
            asyncio.run(fetch(server.url()))


TEXT = b'{"choices": [{"text": "' + b"compressible text " * 400 + b'"}]}'


def _raw_deflate(data: bytes) -> bytes:
    compressor = zlib.compressobj(wbits=-15)
    return compressor.compress(data) + compressor.flush()


@pytest.mark.parametrize("encoding, raw", [
    ("gzip", answer(gzip.compress(TEXT), "200 OK", "Content-Encoding: gzip")),
    ("x-gzip", answer(gzip.compress(TEXT), "200 OK", "Content-Encoding: x-gzip")),
    ("GZIP, chunked", chunked([gzip.compress(TEXT)[:100], gzip.compress(TEXT)[100:]], "Content-Encoding: GZIP")),
    ("deflate", answer(zlib.compress(TEXT), "200 OK", "Content-Encoding: deflate")),
    ("raw deflate", answer(_raw_deflate(TEXT), "200 OK", "Content-Encoding: deflate")),
    ("identity", answer(TEXT, "200 OK", "Content-Encoding: identity")),
], ids=["gzip", "x-gzip", "GZIP, chunked", "deflate", "raw deflate", "identity"])
def test_gzip_and_deflate_bodies_are_decompressed(encoding, raw):
    assert len(raw) < len(TEXT) or encoding == "identity"
    with serving(sent_once(raw)) as server:
        assert asyncio.run(fetch(server.url())).body == TEXT


@pytest.mark.parametrize("body", [gzip.compress(TEXT)[:-8] + b"\x00" * 8, gzip.compress(TEXT)[:-30], b"not gzip at all"],
                         ids=["bad checksum", "truncated", "not gzip"])
def test_a_corrupt_gzip_body_is_a_transport_error_and_the_next_request_is_answered(body):
    async def scenario() -> bytes:
        client = Client(timeout=PATIENCE)
        try:
            with pytest.raises(TransportError, match=r"^the server's gzip body does not decompress \(.+\)$"):
                await client.request("GET", server.url("/bad"))
            return (await client.request("GET", server.url("/good"))).body
        finally:
            await client.close()

    def reply(request: Request) -> bytes:
        return answer(body, "200 OK", "Content-Encoding: gzip") if request.target == "/bad" else answer(b"fine")

    with serving(replying(reply)) as server:
        assert asyncio.run(scenario()) == b"fine"
    assert [r.target for r in server.requests] == ["/bad", "/good"]  # the HTTP message was whole: its connection may stay


@pytest.mark.parametrize("pause", [0.0, 0.02])
def test_interim_answers_are_skipped_for_the_real_one(pause):
    interim = b"HTTP/1.1 100 Continue\r\n\r\n", b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
    final = answer(b"created", "201 Created", "X-Final: yes")
    with serving(sent_once([*interim, final], pause)) as server:
        response = asyncio.run(fetch(server.url(), "POST", b"{}"))
    assert response == Response(201, {"content-length": "7", "x-final": "yes"}, b"created")


def test_the_limit_bounds_the_requests_in_flight():
    def handle(peer: Peer) -> None:
        while (request := peer.request()) is not None:
            with peer.server.holding():
                time.sleep(0.05)
            peer.send(answer(request.target.encode()))

    async def six() -> list[bytes]:
        client = Client(limit=2, timeout=PATIENCE)
        try:
            return [r.body for r in await asyncio.gather(*(client.request("GET", server.url(f"/{i}")) for i in range(6)))]
        finally:
            await client.close()

    with serving(handle) as server:
        assert asyncio.run(six()) == [f"/{i}".encode() for i in range(6)]
    assert server.max_in_flight == 2 and server.accepted == 2 and len(server.requests) == 6


# ---------------------------------------------------------------------------- what is sent
@pytest.mark.parametrize("headers", [{"Authorization": "Bearer a\r\nX: y"}, {"X-A\nB": "v"}, {"X-C": "a\rb"}, {"X-D": "a\0b"}],
                         ids=["crlf in a value", "lf in a name", "cr", "nul"])
def test_a_header_with_a_line_break_or_nul_is_refused(headers):
    with pytest.raises(ValueError, match="contains a line break or a NUL character"):
        Client(headers)


def openai(request: Request) -> bytes:
    """A tiny OpenAI-compatible answer: the model list, or the prompt in upper case."""
    if request.line.startswith("GET /v1/models "):
        return answer(json.dumps({"data": [{"id": "m"}]}).encode(), "200 OK", "Content-Type: application/json")
    if request.line.startswith("POST /v1/completions "):
        text = json.loads(request.body)["prompt"].upper()
        return answer(json.dumps({"choices": [{"text": text}]}).encode(), "200 OK", "Content-Type: application/json")
    return answer(b'{"error": "not found"}', "404 Not Found")


def test_an_api_key_with_a_line_break_is_a_config_error_and_nothing_is_sent(monkeypatch):
    monkeypatch.setenv("GENGAP_TEST_HTTP1_KEY", "sk-abc\r\nX-Injected: 1")
    with serving(replying(openai)) as server:
        model = OpenAIModel(server.url("/v1"), model_name="m", timeout=PATIENCE, api="completions", api_key_env="GENGAP_TEST_HTTP1_KEY")
        with pytest.raises(ConfigError, match="'GENGAP_TEST_HTTP1_KEY' \\(api_key_env\\) contains a line break") as err:
            model.predict(["x"])
        model.close()
    assert "sk-abc" not in str(err.value) and server.accepted == 0


def test_requests_carry_host_with_port_length_type_and_user_agent():
    with serving(replying(openai)) as server:
        model = OpenAIModel(server.url("/v1"), model_name="m", timeout=PATIENCE, api="completions", max_tokens=3)
        assert model.predict(["abc"]) == ["ABC"]
        model.close()
    listing, post = server.requests
    assert listing.line == "GET /v1/models HTTP/1.1" and "content-length" not in listing.headers
    assert post.line == "POST /v1/completions HTTP/1.1"
    assert post.headers["host"] == listing.headers["host"] == f"127.0.0.1:{server.port}"
    assert post.headers["content-length"] == str(len(post.body))
    assert json.loads(post.body) == {"model": "m", "max_tokens": 3, "temperature": 0.0, "prompt": "abc"}
    assert post.headers["content-type"] == "application/json" and post.headers["accept"] == "application/json"
    assert post.headers["user-agent"] == f"gengap/{gengap.__version__}" and "authorization" not in post.headers


def test_the_target_keeps_its_query_and_answer_header_names_are_lower_cased():
    reply = answer(b"{}", "429 Too Many Requests", "Retry-After: 0", "X-Mixed-Case: Keeps Its Value")

    async def scenario() -> list[Response]:
        client = Client({"X-Custom": "v"}, timeout=PATIENCE)
        try:
            return [await client.request("GET", server.url("/v1/models?limit=5&after=a%20b")),
                    await client.request("POST", server.url("/v1/empty"), b"")]
        finally:
            await client.close()

    with serving(replying(lambda _: reply)) as server:
        got, _ = asyncio.run(scenario())
    get, post = server.requests
    assert get.line == "GET /v1/models?limit=5&after=a%20b HTTP/1.1" and get.headers["x-custom"] == "v"
    assert "content-length" not in get.headers and post.headers["content-length"] == "0"
    assert got.status == 429 and got.headers == {"content-length": "2", "retry-after": "0", "x-mixed-case": "Keeps Its Value"}


# ---------------------------------------------------------------------------- through OpenAIModel
def test_a_redirect_is_an_endpoint_error_naming_the_location():
    location = "https://api.example.com/v1/chat/completions"

    def reply(request: Request) -> bytes:
        if request.line.startswith("POST "):
            return answer(b"", "307 Temporary Redirect", f"Location: {location}")
        return answer(b"", "404 Not Found")

    with serving(replying(reply)) as server:
        model = OpenAIModel(server.url("/v1"), model_name="m", timeout=PATIENCE, max_retries=3, backoff=0.01)
        with pytest.raises(EndpointError) as err:
            model.predict(["x"])
        model.close()
    message = str(err.value)
    assert f"{server.url('/v1/chat/completions')} answered HTTP 307, a redirect to {location}." in message
    assert "gengap does not follow redirects" in message and len(server.posts()) == 1


def test_an_answer_cut_short_on_every_attempt_fails_after_all_attempts():
    def reply_or_cut(peer: Peer) -> None:
        while (request := peer.request()) is not None:
            if request.line.startswith("POST "):
                peer.send(answer(b'{"choices": [{"text": "never whole"}]}')[:-10])
                return
            peer.send(openai(request))

    with serving(reply_or_cut) as server:
        model = OpenAIModel(server.url("/v1"), model_name="m", timeout=PATIENCE, api="completions", max_retries=2, backoff=0.01)
        with pytest.raises(EndpointError) as err:
            model.predict(["x"])
        model.close()
    message = str(err.value)
    assert message.startswith(f"{server.url('/v1/completions')} failed after 3 attempt(s): the server closed the "
                              "connection before it finished answering ("), message
    assert "Check that the server is running" in message
    assert [r.connection for r in server.posts()] == [1, 2, 3]  # one try per attempt, none quietly repeated


def test_closing_the_model_with_requests_in_flight_cancels_them_and_the_model_reopens():
    def hold_some(peer: Peer) -> None:  # the prompt "hold" is never answered
        while (request := peer.request()) is not None:
            if request.body and json.loads(request.body)["prompt"] == "hold":
                peer.until_closed()
                return
            peer.send(openai(request))

    with serving(hold_some) as server:
        model = OpenAIModel(server.url("/v1"), model_name="m", timeout=PATIENCE, api="completions", concurrency=2, max_tokens=2)
        future = model.submit(["hold", "hold", "hold"])
        assert eventually(lambda: len(server.posts()) == 2)
        held = {r.connection for r in server.posts()}
        start = time.monotonic()
        model.close()
        with pytest.raises(concurrent.futures.CancelledError):
            future.result(timeout=5)
        assert time.monotonic() - start < 2
        assert eventually(lambda: held <= set(server.closed_by_client))
        assert model.predict(["again"]) == ["AGAIN"]
        model.close()
    assert len(server.posts()) == 3 and server.posts()[-1].connection not in held


# ---------------------------------------------------------------------------- Client.close
def test_client_close_ends_every_connection_and_fails_the_request_in_flight():
    def handle(peer: Peer) -> None:
        while (request := peer.request()) is not None:
            if request.target == "/hold":
                peer.until_closed()
                return
            with peer.server.holding():
                time.sleep(0.05)
            peer.send(answer(b"ok"))

    async def scenario() -> None:
        client = Client(limit=4, timeout=30)
        await asyncio.gather(*(client.request("GET", server.url(f"/{i}")) for i in range(3)))
        assert server.accepted == 3
        held = asyncio.ensure_future(client.request("GET", server.url("/hold")))
        assert await until(lambda: len(server.requests) == 4)
        await client.close()
        with pytest.raises(TransportError, match="before the answer was complete"):
            await asyncio.wait_for(held, PATIENCE)
        assert await until(lambda: sorted(server.closed_by_client) == [1, 2, 3])

    with serving(handle) as server:
        asyncio.run(scenario())
    assert server.accepted == 3  # the held request went out on a kept-alive connection


def test_client_close_during_an_answer_fails_the_request_rather_than_returning_part_of_it():
    def handle(peer: Peer) -> None:  # the body ends with the connection, and the server pauses after "partial"
        if peer.request() is not None:
            peer.send(b"HTTP/1.0 200 OK\r\n\r\npartial")
            peer.until_closed()

    async def scenario() -> None:
        client = Client(timeout=PATIENCE)
        pending = asyncio.ensure_future(client.request("GET", server.url()))
        assert await until(lambda: len(server.requests) == 1)
        await asyncio.sleep(0.1)  # "partial" has arrived
        await client.close()
        with pytest.raises(TransportError, match="before the answer was complete"):
            await asyncio.wait_for(pending, PATIENCE)

    with serving(handle) as server:
        asyncio.run(scenario())


def test_repeated_answer_headers_are_joined_into_one_list():
    def handle(peer: Peer) -> None:
        if peer.request() is not None:
            peer.send(answer(b"ok", "200 OK", "Vary: Accept", "Vary: Origin", "X-One: 1"))

    async def scenario() -> Response:
        client = Client(timeout=PATIENCE)
        try:
            return await client.request("GET", server.url())
        finally:
            await client.close()

    with serving(handle) as server:
        response = asyncio.run(scenario())
    assert response.headers["vary"] == "Accept, Origin" and response.headers["x-one"] == "1"
    assert response.body == b"ok"


def test_a_closed_client_sends_nothing_more_even_from_a_request_that_was_connecting():
    def handle(peer: Peer) -> None:
        while peer.request() is not None:
            peer.send(answer(b"ok"))

    async def scenario() -> None:
        client = Client(timeout=PATIENCE)
        connecting = asyncio.ensure_future(client.request("GET", server.url("/late")))
        await asyncio.sleep(0)  # the request is past its checks and connecting
        await client.close()
        with pytest.raises(TransportError, match="client was closed"):
            await asyncio.wait_for(connecting, PATIENCE)
        with pytest.raises(TransportError, match="client was closed"):
            await client.request("GET", server.url("/after"))

    with serving(handle) as server:
        asyncio.run(scenario())
        time.sleep(0.1)
        assert server.requests == []
