"""OpenAIModel on a real network's terms: a real proxy server (proxy.py, started by each test) that
forwards or refuses, HTTPS with a CA of the test's own (trustme), client certificates, bounded
answers, and URLs that cannot be requested as written."""

from __future__ import annotations

import asyncio
import gzip
import os
import socket
import ssl
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from gengap._errors import ConfigError
from gengap.errors import EndpointError
from gengap.models._transport import Client, TransportError
from gengap.models.http import OpenAIModel
from test_models_http import FakeOpenAI, serve_fake

trustme = pytest.importorskip("trustme")
pytest.importorskip("proxy")

PROXY_ENV = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy", "no_proxy")


@pytest.fixture(autouse=True)
def no_proxy_from_outside(monkeypatch):
    """Each test sets the proxy variables it means; none leak in from the machine."""
    for name in PROXY_ENV:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server():
    fake = FakeOpenAI()
    httpd, url = serve_fake(fake)
    yield fake, url
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def ca(tmp_path_factory):
    """A CA of the test's own, a server certificate for 127.0.0.1 it signed, and a client certificate."""
    authority = trustme.CA()
    folder = tmp_path_factory.mktemp("tls")
    authority.cert_pem.write_to_path(str(folder / "ca.pem"))
    server_cert = authority.issue_cert("127.0.0.1")
    client_cert = authority.issue_cert("gengap-client@example.org")
    client_cert.private_key_and_cert_chain_pem.write_to_path(str(folder / "client.pem"))
    return authority, server_cert, folder


@pytest.fixture
def https_server(ca):
    authority, server_cert, folder = ca
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_cert.configure_cert(context)
    fake = FakeOpenAI()
    httpd, url = serve_fake(fake, context)
    yield fake, url, folder
    httpd.shutdown()
    httpd.server_close()


def _start_proxy(tmp_path: Path, *options: str) -> tuple[subprocess.Popen, str]:
    port_file = tmp_path / f"proxy-{len(list(tmp_path.iterdir()))}.port"
    process = subprocess.Popen([sys.executable, "-m", "proxy", "--hostname", "127.0.0.1", "--port", "0", "--port-file",
                                str(port_file), "--num-workers", "1", "--num-acceptors", "1", "--threaded",
                                "--log-level", "ERROR", *options], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not (port_file.exists() and port_file.read_text().strip()):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail("proxy.py did not start")
        time.sleep(0.1)
    port = int(port_file.read_text().strip())
    while True:  # listening once the port file is written, but give it a moment on a busy machine
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if time.monotonic() > deadline:
                process.kill()
                pytest.fail("proxy.py does not accept connections")
            time.sleep(0.1)
    return process, f"http://127.0.0.1:{port}"


@pytest.fixture
def proxy(tmp_path):
    """A forwarding proxy (proxy.py) on loopback."""
    process, url = _start_proxy(tmp_path)
    yield url
    process.terminate()
    process.wait(timeout=30)


@pytest.fixture
def strict_proxy(tmp_path):
    """A proxy that refuses every request without its credentials (user:secret)."""
    process, url = _start_proxy(tmp_path, "--basic-auth", "user:secret")
    yield url
    process.terminate()
    process.wait(timeout=30)


def _via_proxy(fake: FakeOpenAI) -> int:
    """How many requests the server saw with proxy.py's Via header (it marks the first request of each
    connection it opens; later requests on that connection pass through as they are)."""
    with fake.lock:
        return sum("proxy.py" in r["headers"].get("Via", "") for r in fake.requests)


# ---------------------------------------------------------------------------- proxies
def test_requests_go_through_the_proxy_named_in_the_environment(server, proxy, monkeypatch):
    fake, url = server
    monkeypatch.setenv("HTTP_PROXY", proxy)
    model = OpenAIModel(url, model_name="m", concurrency=4)
    assert model.predict(["a", "b", "c"]) == ["A", "B", "C"]
    assert _via_proxy(fake) >= 1
    model.close()


def test_no_proxy_sends_a_host_directly(server, strict_proxy, monkeypatch):
    fake, url = server
    monkeypatch.setenv("HTTP_PROXY", strict_proxy)  # would refuse: NO_PROXY keeps the request away from it
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    model = OpenAIModel(url, model_name="m")
    assert model.predict(["a"]) == ["A"] and _via_proxy(fake) == 0
    model.close()


def test_a_proxy_that_refuses_says_so_and_credentials_in_its_url_are_sent(server, strict_proxy, monkeypatch):
    fake, url = server
    monkeypatch.setenv("HTTP_PROXY", strict_proxy)
    model = OpenAIModel(url, model_name="m", max_retries=0)
    with pytest.raises(EndpointError, match="HTTP 407") as err:
        model.predict(["a"])
    assert "proxy" in str(err.value) and "user:password@host:port" in str(err.value)
    assert fake.posts() == []  # the server never saw it
    model.close()
    monkeypatch.setenv("HTTP_PROXY", strict_proxy.replace("http://", "http://user:secret@"))
    model = OpenAIModel(url, model_name="m")
    assert model.predict(["a"]) == ["A"] and _via_proxy(fake) >= 1
    model.close()


def test_a_proxy_given_to_the_model_wins_over_the_environment(server, proxy, strict_proxy, monkeypatch):
    fake, url = server
    monkeypatch.setenv("HTTP_PROXY", strict_proxy)
    model = OpenAIModel(url, model_name="m", proxy=proxy)
    assert model.predict(["a"]) == ["A"] and _via_proxy(fake) >= 1
    model.close()
    before = _via_proxy(fake)
    direct = OpenAIModel(url, model_name="m", trust_env=False)  # the environment ignored: straight to the server
    assert direct.predict(["b"]) == ["B"] and _via_proxy(fake) == before
    direct.close()


def test_https_through_a_proxy_tunnel_and_a_refused_tunnel(https_server, proxy, strict_proxy, monkeypatch):
    fake, url, folder = https_server
    monkeypatch.setenv("HTTPS_PROXY", proxy)
    model = OpenAIModel(url, model_name="m", verify=str(folder / "ca.pem"))
    assert model.predict(["a"]) == ["A"]  # CONNECT through the proxy, TLS end to end (no Via header inside)
    model.close()
    monkeypatch.setenv("HTTPS_PROXY", strict_proxy)
    model = OpenAIModel(url, model_name="m", verify=str(folder / "ca.pem"), max_retries=0)
    with pytest.raises(EndpointError) as err:
        model.predict(["a"])
    text = str(err.value)
    assert "proxy" in text and strict_proxy in text and "HTTPS_PROXY" in text
    model.close()


def test_a_proxy_that_is_down_is_named(server, monkeypatch):
    _, url = server
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}"
    monkeypatch.setenv("HTTP_PROXY", dead)
    model = OpenAIModel(url, model_name="m", max_retries=0)
    with pytest.raises(EndpointError, match=f"through the proxy {dead}"):
        model.predict(["a"])
    model.close()


# ---------------------------------------------------------------------------- TLS
def test_a_certificate_from_an_unknown_ca_is_refused_with_the_fix(https_server):
    _, url, _ = https_server
    model = OpenAIModel(url, model_name="m", max_retries=0)
    with pytest.raises(EndpointError) as err:
        model.predict(["a"])
    assert "certificate" in str(err.value) and "verify='ca.pem'" in str(err.value)
    model.close()


def test_a_ca_bundle_by_argument_or_by_ssl_cert_file_is_trusted(https_server, monkeypatch):
    fake, url, folder = https_server
    model = OpenAIModel(url, model_name="m", verify=str(folder / "ca.pem"))
    assert model.predict(["a", "b"]) == ["A", "B"]
    model.close()
    monkeypatch.setenv("SSL_CERT_FILE", str(folder / "ca.pem"))
    model = OpenAIModel(url, model_name="m")
    assert model.predict(["c"]) == ["C"]
    model.close()
    unverified = OpenAIModel(url, model_name="m", verify=False)
    monkeypatch.delenv("SSL_CERT_FILE")
    assert unverified.predict(["d"]) == ["D"]
    unverified.close()


def test_a_client_certificate_is_presented_when_the_server_asks(ca):
    authority, server_cert, folder = ca
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_cert.configure_cert(context)
    authority.configure_trust(context)
    context.verify_mode = ssl.CERT_REQUIRED
    fake = FakeOpenAI()
    httpd, url = serve_fake(fake, context)
    try:
        model = OpenAIModel(url, model_name="m", verify=str(folder / "ca.pem"), client_cert=str(folder / "client.pem"))
        assert model.predict(["a"]) == ["A"]
        model.close()
        bare = OpenAIModel(url, model_name="m", verify=str(folder / "ca.pem"), max_retries=0)
        with pytest.raises(EndpointError):
            bare.predict(["a"])
        bare.close()
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_bad_tls_settings_are_refused_before_any_request(tmp_path):
    with pytest.raises(ConfigError, match="CA bundle .* does not exist"):
        OpenAIModel("https://127.0.0.1:9/v1", model_name="m", verify=str(tmp_path / "missing.pem"))
    (tmp_path / "junk.pem").write_text("not a certificate")
    with pytest.raises(ConfigError, match="no readable PEM certificate"):
        OpenAIModel("https://127.0.0.1:9/v1", model_name="m", verify=str(tmp_path / "junk.pem"))
    with pytest.raises(ConfigError, match="client certificate file .* does not exist"):
        OpenAIModel("https://127.0.0.1:9/v1", model_name="m", client_cert=str(tmp_path / "missing.pem"))


# ---------------------------------------------------------------------------- what is sent, what is read
@pytest.mark.parametrize("url", ["http://127.0.0.1:9/v1 x", "http://127.0.0.1:9/v1\tx", "http://127.0.0.1:9/v1\nx"])
def test_a_url_with_a_space_or_control_character_is_refused(url):
    with pytest.raises(ConfigError, match="holds a space or a control character"):
        OpenAIModel(url, model_name="m")


def test_a_base_url_with_a_query_is_refused():
    with pytest.raises(ConfigError, match="query or fragment"):
        OpenAIModel("http://127.0.0.1:9/v1?key=1", model_name="m")


def _bomb_server(body: bytes, headers: dict[str, str]):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            self.send_response(200)
            for k, v in {**headers, "Content-Length": str(len(body))}.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/"


def test_decompression_and_body_size_are_bounded():
    bomb = gzip.compress(b"\0" * (8 * 2**20))  # 8 MiB of zeros in about 8 KiB
    httpd, url = _bomb_server(bomb, {"Content-Encoding": "gzip"})

    async def fetch(limit: int) -> int:
        client = Client(limit=1, timeout=10, max_body=limit)
        try:
            return len((await client.request("GET", url)).body)
        finally:
            await client.close()

    try:
        assert len(bomb) < 2**16
        with pytest.raises(TransportError, match="larger than 1 MiB"):
            asyncio.run(fetch(2**20))
        assert asyncio.run(fetch(16 * 2**20)) == 8 * 2**20
    finally:
        httpd.shutdown()
        httpd.server_close()
    httpd, url = _bomb_server(b"x" * (2 * 2**20), {})
    try:
        with pytest.raises(TransportError, match="larger than 1 MiB"):
            asyncio.run(fetch(2**20))
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_post_is_sent_once_per_attempt_when_the_server_closes_without_answering(tmp_path):
    # a server that reads the request and closes without a byte: the answer is unknown, so the
    # transport never re-sends by itself; each attempt the model counts is one request
    seen = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            seen.append(self.rfile.read(int(self.headers["Content-Length"])))
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)

        def do_GET(self) -> None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        model = OpenAIModel(f"http://127.0.0.1:{httpd.server_address[1]}/v1", model_name="m", max_retries=2, backoff=0.01)
        with pytest.raises(EndpointError, match="failed after 3 attempt"):
            model.predict(["once"])
        assert len(seen) == 3  # three attempts, three requests: nothing re-sent behind the count
        model.close()
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_the_proxy_variables_of_this_process_are_left_as_they_were():
    assert not any(os.environ.get(name) for name in PROXY_ENV)


def test_http2_over_tls_with_the_extra_installed(https_server):
    pytest.importorskip("h2")
    fake, url, folder = https_server  # an HTTP/1.1 server: httpx offers h2 in TLS and falls back to HTTP/1.1
    model = OpenAIModel(url, model_name="m", verify=str(folder / "ca.pem"), http2=True)
    assert model.predict(["a", "b"]) == ["A", "B"]
    assert model.with_settings(max_tokens=3).http2 is True  # connection settings travel with the copy
    model.close()
