"""The OpenAI-compatible HTTP adapter against a real server on 127.0.0.1 started by each test.

The server speaks the chat and completions protocol (and ``/models``); it answers with the input
in upper case, so every answer is checkable. Its behaviour can be switched to rate-limit, fail,
hang or echo the credentials back, and it records every request it saw.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import ssl
import subprocess
import sys
import threading
import time
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

import gengap
from gengap.errors import EndpointError
from gengap.models.http import OpenAIModel, _retry_after
from gengap.store import Store


class FakeOpenAI:
    """Behaviour and records of the loopback server."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.in_flight = 0
        self.max_in_flight = 0
        self.requests: list[dict] = []  # path, headers, body, time
        self.delay: float | object = 0.0  # seconds, or a function of the request body
        self.fail_first = 0  # answer this many POSTs with fail_status first
        self.fail_status = 500
        self.retry_after: str | None = None
        self.echo_auth_in_errors = False
        self.models = ["tiny-echo", "m"]
        self.context_chars = 10**9  # prompts longer than this get llama.cpp's context-window error
        self.prompt_logprobs = True  # answer echo + logprobs with per-token log-probabilities

    def posts(self) -> list[dict]:
        """The model requests (POSTs), leaving out what the client asked about the server (GETs)."""
        with self.lock:
            return [r for r in self.requests if r["body"] is not None]

    def answer(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        with self.lock:
            self.requests.append({"path": handler.path, "headers": dict(handler.headers), "body": body,
                                  "time": time.monotonic()})
            n_posts = sum(r["body"] is not None for r in self.requests)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            delay = self.delay(body) if callable(self.delay) else self.delay
            if delay:
                time.sleep(delay)
            if handler.command == "GET" and handler.path == "/v1/models":
                return self._send(handler, 200, {"object": "list", "data": [{"id": m, "object": "model"} for m in self.models]})
            if handler.path not in ("/v1/chat/completions", "/v1/completions"):
                return self._send(handler, 404, {"error": {"message": f"no route {handler.path}"}})
            if body is not None and n_posts <= self.fail_first:
                detail = handler.headers.get("Authorization", "") if self.echo_auth_in_errors else "try again later"
                return self._send(handler, self.fail_status, {"error": {"message": detail}}, retry_after=self.retry_after)
            if handler.path == "/v1/chat/completions":
                text = body["messages"][-1]["content"].upper()
                logprobs = {"content": [{"token": c, "logprob": -0.1} for c in text]} if body.get("logprobs") else None
                return self._send(handler, 200, {"object": "chat.completion", "model": body.get("model"),
                                                 "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                                              "finish_reason": "stop", "logprobs": logprobs}]})
            if len(body["prompt"]) > self.context_chars:
                return self._send(handler, 400, {"error": {"message": f"Requested tokens ({len(body['prompt'])}) exceed "
                                                           f"context window of {self.context_chars}"}})
            choice = {"index": 0, "text": body["prompt"].upper(), "finish_reason": "stop"}
            if body.get("echo") and body.get("logprobs"):
                choice = {"index": 0, "text": body["prompt"] + "!", "logprobs": self._logprobs(body["prompt"] + "!")}
            usage = {"prompt_tokens": len(body["prompt"].split()), "completion_tokens": len(choice["text"].split())}
            return self._send(handler, 200, {"object": "text_completion", "model": body.get("model"),
                                             "choices": [choice], "usage": usage})
        finally:
            with self.lock:
                self.in_flight -= 1

    def _logprobs(self, text: str) -> dict:
        """One token per character; a character's log-probability is -1, or -0.1 for a vowel
        (so the option with more vowels per character wins on the mean, the shorter one on the sum)."""
        values = [None] + [(-0.1 if c in "aeiou" else -1.0) if self.prompt_logprobs else None for c in text[1:]]
        return {"tokens": list(text), "text_offset": list(range(len(text))), "token_logprobs": values,
                "top_logprobs": None}

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, status: int, payload: dict, retry_after: str | None = None) -> None:
        data = json.dumps(payload).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        if retry_after is not None:
            handler.send_header("Retry-After", retry_after)
        handler.end_headers()
        try:
            handler.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout tests)
            pass


def serve_fake(fake: FakeOpenAI, tls: ssl.SSLContext | None = None) -> tuple[ThreadingHTTPServer, str]:
    """``fake`` on a free loopback port (https with ``tls``); returns the server and its base URL."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            fake.answer(self)

        def do_GET(self) -> None:
            fake.answer(self)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    if tls is not None:
        httpd.socket = tls.wrap_socket(httpd.socket, server_side=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    scheme = "https" if tls is not None else "http"
    return httpd, f"{scheme}://127.0.0.1:{httpd.server_address[1]}/v1"


@pytest.fixture
def server():
    """A FakeOpenAI on a free loopback port; yields (behaviour, base_url)."""
    fake = FakeOpenAI()
    httpd, url = serve_fake(fake)
    yield fake, url
    httpd.shutdown()
    httpd.server_close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------------------- answers
def test_chat_answers_in_input_order_with_settings_sent(server):
    fake, url = server
    model = OpenAIModel(url, model_name="tiny-echo", max_tokens=16, temperature=0.5, system_prompt="Be brief.")
    inputs = [f"question {i}" for i in range(40)]
    assert model.predict(inputs) == [x.upper() for x in inputs]
    body = fake.posts()[0]["body"]
    assert body["model"] == "tiny-echo" and body["max_tokens"] == 16 and body["temperature"] == 0.5
    assert body["messages"][0] == {"role": "system", "content": "Be brief."}
    assert {r["path"] for r in fake.posts()} == {"/v1/chat/completions"}
    assert "Authorization" not in fake.requests[0]["headers"]


def test_completions_api_and_model_name_discovered_from_models_list(server):
    fake, url = server
    model = OpenAIModel(url + "/", api="completions")
    assert model.predict(["abc", "de f"]) == ["ABC", "DE F"]
    assert model.model_name == "tiny-echo" and model.name.startswith("openai@127.0.0.1")
    assert fake.requests[0]["path"] == "/v1/models"
    assert sorted(r["body"]["prompt"] for r in fake.requests[1:]) == ["abc", "de f"]  # sent concurrently
    assert all(r["body"]["model"] == "tiny-echo" for r in fake.requests[1:])


def test_chat_accepts_a_list_of_messages_as_one_input(server):
    _, url = server
    conversation = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "HI"}, {"role": "user", "content": "again"}]
    assert OpenAIModel(url, model_name="m").predict([conversation]) == ["AGAIN"]


def test_concurrent_requests_are_in_flight_and_order_is_kept(server):
    fake, url = server
    # later inputs answer sooner, so answers arrive out of order
    fake.delay = lambda body: 0.02 * (5 - int(body["messages"][-1]["content"][1:]) % 6) if body else 0
    model = OpenAIModel(url, model_name="m", concurrency=8)
    inputs = [f"x{i}" for i in range(36)]
    start = time.monotonic()
    assert model.predict(inputs) == [x.upper() for x in inputs]
    elapsed = time.monotonic() - start
    assert 1 < fake.max_in_flight <= 8
    assert elapsed < sum(0.02 * (5 - i % 6) for i in range(36))  # faster than one request at a time


def test_evaluate_with_an_endpoint_scores_every_row(server, tmp_path):
    fake, url = server
    ds = gengap.load([{"input": f"item {i} " + "z" * (i % 7), "target": (f"item {i} " + "z" * (i % 7)).upper()} for i in range(60)])
    ev = gengap.evaluate(OpenAIModel(url, model_name="tiny-echo", concurrency=4), ds, ["random", "length:by=input"],
                         out=tmp_path, progress=False, backend="thread", workers=2, shard_size=5, batch_size=5)
    summary = ev.summary()
    assert summary["score"].tolist() == [1.0, 1.0]
    assert ev.rows()["output"].tolist() == ev.rows()["target"].tolist()
    seen = len(fake.posts())
    again = gengap.evaluate(OpenAIModel(url, model_name="tiny-echo", concurrency=16), ds, ["random", "length:by=input"],
                            out=tmp_path, progress=False)
    assert again.model_calls == 0 and len(fake.posts()) == seen  # cached by fingerprint: the server is not asked again


# ---------------------------------------------------------------------------- retries
def test_429_with_retry_after_is_honoured_then_succeeds(server):
    fake, url = server
    fake.fail_first, fake.fail_status, fake.retry_after = 1, 429, "1"
    model = OpenAIModel(url, model_name="m", concurrency=1, backoff=0.01, max_retries=3)
    assert model.predict(["slow down"]) == ["SLOW DOWN"]
    first, second = fake.posts()[0]["time"], fake.posts()[1]["time"]
    assert len(fake.posts()) == 2 and second - first >= 0.9  # waited the server's Retry-After, not the 10 ms backoff


def test_retry_after_header_forms():
    assert _retry_after("2") == 2.0 and _retry_after(None) is None and _retry_after("soon") is None
    assert _retry_after("100000") == 300.0
    assert 0 <= _retry_after("Wed, 21 Oct 2015 07:28:00 GMT") <= 0.0 + 1e-9  # a date in the past: no wait


def test_500s_then_success(server):
    fake, url = server
    fake.fail_first = 2
    model = OpenAIModel(url, model_name="m", concurrency=1, backoff=0.01, max_retries=3)
    assert model.predict(["ok"]) == ["OK"]
    assert len(fake.posts()) == 3


def test_always_500_raises_endpoint_error_naming_url_and_status_in_bounded_time(server):
    fake, url = server
    fake.fail_first = 10**9
    model = OpenAIModel(url, model_name="m", concurrency=4, backoff=0.05, max_retries=2)
    start = time.monotonic()
    with pytest.raises(EndpointError) as err:
        model.predict(["a", "b", "c", "d", "e", "f"])
    assert time.monotonic() - start < 5
    msg = str(err.value)
    assert f"{url}/chat/completions" in msg and "HTTP 500" in msg and "3 attempt(s)" in msg and "logs" in msg
    assert len(fake.posts()) <= 6 * 3


def test_connection_refused_raises_endpoint_error_after_retries():
    url = f"http://127.0.0.1:{_free_port()}/v1"
    model = OpenAIModel(url, model_name="m", backoff=0.05, max_retries=2)
    start = time.monotonic()
    with pytest.raises(EndpointError, match="could not connect") as err:
        model.predict(["hello"])
    assert time.monotonic() - start < 5
    assert url in str(err.value) and "server is running" in str(err.value) and "3 attempt(s)" in str(err.value)


def test_timeout_raises_endpoint_error(server):
    fake, url = server
    fake.delay = lambda body: 1.5 if body else 0  # model requests hang; the model listing answers
    model = OpenAIModel(url, model_name="m", timeout=0.2, backoff=0.01, max_retries=1)
    start = time.monotonic()
    with pytest.raises(EndpointError, match=r"no answer within 0\.2 s \(timeout\)"):
        model.predict(["too slow"])
    assert time.monotonic() - start < 1.5
    assert len(fake.posts()) == 2


def test_client_errors_are_not_retried_and_hint_at_the_fix(server):
    fake, url = server
    base_without_v1 = url[: -len("/v1")]
    model = OpenAIModel(base_without_v1, model_name="m", max_retries=4, backoff=0.01)
    with pytest.raises(EndpointError, match="HTTP 404") as err:
        model.predict(["x"])
    assert "/v1" in str(err.value) and len(fake.posts()) == 1


def test_bad_parameters_are_config_errors(monkeypatch):
    monkeypatch.delenv("GENGAP_NO_SUCH_KEY", raising=False)
    with pytest.raises(gengap.ConfigError, match="http:// or https://"):
        OpenAIModel("localhost:8000/v1")
    with pytest.raises(gengap.ConfigError, match="concurrency=0"):
        OpenAIModel("http://localhost:8000/v1", concurrency=0)
    with pytest.raises(gengap.ConfigError, match="'GENGAP_NO_SUCH_KEY'.*not set"):
        OpenAIModel("http://localhost:8000/v1", api_key_env="GENGAP_NO_SUCH_KEY")
    with pytest.raises(gengap.ConfigError, match="credentials"):
        OpenAIModel("http://user:secret@localhost:8000/v1")


def test_fingerprint_covers_generation_settings_not_speed():
    base = OpenAIModel("http://h:1/v1", model_name="a")
    assert base.fingerprint() == OpenAIModel("http://h:1/v1/", model_name="a", concurrency=64, timeout=5).fingerprint()
    for other in (OpenAIModel("http://h:2/v1", model_name="a"), OpenAIModel("http://h:1/v1", model_name="b"),
                  OpenAIModel("http://h:1/v1", model_name="a", api="completions"),
                  OpenAIModel("http://h:1/v1", model_name="a", max_tokens=5),
                  OpenAIModel("http://h:1/v1", model_name="a", temperature=0.7),
                  OpenAIModel("http://h:1/v1", model_name="a", system_prompt="x")):
        assert other.fingerprint() != base.fingerprint()


# ---------------------------------------------------------------------------- the key never leaks
KEY_ENV = "GENGAP_TEST_API_KEY"


def _files_containing(folder: Path, needle: bytes) -> list[str]:
    return [str(p) for p in folder.rglob("*") if p.is_file() and needle in p.read_bytes()]


def test_api_key_is_sent_but_never_in_repr_fingerprint_errors_or_logs(server, monkeypatch, caplog):
    import logging
    import pickle

    fake, url = server
    key = "sk-test-" + secrets.token_hex(16)
    monkeypatch.setenv(KEY_ENV, key)
    caplog.set_level(logging.DEBUG)
    model = OpenAIModel(url, model_name="tiny-echo", api_key_env=KEY_ENV, backoff=0.01, max_retries=1)
    assert model.predict(["a"]) == ["A"]
    assert fake.posts()[0]["headers"]["Authorization"] == f"Bearer {key}"
    assert key not in repr(model) and key not in model.fingerprint() and key not in repr(vars(model))
    payload = pickle.dumps(model)  # what the process and Ray backends send to workers
    assert key.encode() not in payload
    assert pickle.loads(payload).predict(["c"]) == ["C"]  # a worker opens its own connection, key from its env
    assert fake.requests[-1]["headers"]["Authorization"] == f"Bearer {key}"
    fake.fail_first, fake.echo_auth_in_errors = 10**9, True  # the server echoes the credentials back
    with pytest.raises(EndpointError) as err:
        model.predict(["b"])
    assert "***" in str(err.value) and key not in str(err.value)
    assert key not in caplog.text


@pytest.mark.slow
def test_api_key_never_reaches_the_store_report_or_cli_output(server, tmp_path):
    fake, url = server
    key = "sk-test-" + secrets.token_hex(16)
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps({"q": f"w{i} " * (1 + i % 5), "a": (f"w{i} " * (1 + i % 5)).upper()}) + "\n"
                            for i in range(40)), encoding="utf-8")
    run_file = tmp_path / "gengap.toml"
    run_file.write_text(f"""
[data]
path = "data.jsonl"
input = "q"
target = "a"

[model]
spec = "{url}"
model_name = "tiny-echo"
api_key_env = "{KEY_ENV}"

[[split]]
method = "random"

[eval]
out = "report"
""", encoding="utf-8")
    env = {**os.environ, KEY_ENV: key, "GENGAP_NO_PROGRESS": "1"}
    done = subprocess.run([sys.executable, "-m", "gengap.cli", "run", str(run_file)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert all(r["headers"].get("Authorization") == f"Bearer {key}" for r in fake.requests)
    assert key not in done.stdout + done.stderr
    out = tmp_path / "report"
    assert (out / "gengap.duckdb").exists() and _files_containing(out, key.encode()) == []
    with gengap.store.Store(out / "gengap.duckdb", read_only=True) as store:
        config = store.sql("SELECT config FROM runs")["config"].iloc[0]
        assert KEY_ENV in config and key not in config
        everything = store.sql("SELECT * FROM runs").to_string() + store.rows(store.latest_run()).to_string()
        assert key not in everything

    # an endpoint that is down: exit 1, one paragraph naming the URL, no traceback, no key
    down = f"http://127.0.0.1:{_free_port()}/v1"
    failed = subprocess.run([sys.executable, "-m", "gengap.cli", "eval", "--data", str(data), "--input", "q", "--target", "a",
                             "--model", down, "--model-name", "m", "--api-key-env", KEY_ENV, "--max-retries", "1",
                             "--out", str(tmp_path / "down")], cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=120)
    assert failed.returncode == 1
    assert "could not connect" in failed.stderr and down in failed.stderr and "Traceback" not in failed.stderr
    assert key not in failed.stdout + failed.stderr
    assert _files_containing(tmp_path / "down", key.encode()) == []


# ---------------------------------------------------------------------------- generation settings, cost, what is served
def test_generation_settings_and_extra_fields_are_sent(server):
    fake, url = server
    model = OpenAIModel(url, model_name="m", api="completions", max_tokens=8, temperature=0.7, top_p=0.9, seed=3,
                        stop=["\n\n", "Question:"], extra={"repeat_penalty": 1.1})
    model.predict(["a"])
    body = fake.posts()[0]["body"]
    assert body == {"model": "m", "max_tokens": 8, "temperature": 0.7, "top_p": 0.9, "seed": 3,
                    "stop": ["\n\n", "Question:"], "repeat_penalty": 1.1, "prompt": "a"}
    assert OpenAIModel(url, model_name="m", stop=["x"]).fingerprint() != OpenAIModel(url, model_name="m").fingerprint()
    assert OpenAIModel(url, model_name="m", seed=1).fingerprint() != OpenAIModel(url, model_name="m").fingerprint()
    with pytest.raises(gengap.ConfigError, match="set by gengap"):
        OpenAIModel(url, extra={"prompt": "x"})
    with pytest.raises(gengap.ConfigError, match="top_p"):
        OpenAIModel(url, top_p=0)


def test_parse_stop_reads_backslash_n_as_newline():
    from gengap.models.http import parse_stop

    assert parse_stop(["\\n\\n", "A:"]) == ["\n\n", "A:"] and parse_stop(None) is None


def test_no_max_tokens_and_no_stop_warns_once(server):
    _, url = server
    model = OpenAIModel(url, model_name="m", api="completions")
    with pytest.warns(UserWarning, match="no max_tokens and no stop"):
        model.predict(["a"])
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.predict(["b"])  # once per model
        OpenAIModel(url, model_name="m", api="completions", stop=["\n"]).predict(["c"])


def test_each_output_carries_tokens_and_latency(server):
    fake, url = server
    fake.delay = 0.05
    out = OpenAIModel(url, model_name="m", api="completions", max_tokens=4).predict(["two words", "three more words"])
    assert out == ["TWO WORDS", "THREE MORE WORDS"]
    assert [o.details["prompt_tokens"] for o in out] == [2, 3] and [o.details["completion_tokens"] for o in out] == [2, 3]
    assert all(0.05 <= o.details["latency_s"] < 5 for o in out)
    import pickle

    again = pickle.loads(pickle.dumps(out[0]))  # outputs travel back from process and Ray workers
    assert again == "TWO WORDS" and again.details == out[0].details


def test_a_model_name_the_server_does_not_serve_lists_the_names(server):
    _, url = server
    with pytest.raises(EndpointError, match=r"does not serve a model named 'gemma'; it serves: tiny-echo, m"):
        OpenAIModel(url, model_name="gemma").predict(["x"])


def test_a_prompt_longer_than_the_context_window_names_the_row_and_the_fix(server, tmp_path):
    fake, url = server
    fake.context_chars = 30
    model = OpenAIModel(url, model_name="m", api="completions", max_tokens=4)
    with pytest.raises(EndpointError, match="context window") as err:
        model.predict(["short", "x" * 40])
    assert err.value.row == 1 and "fewer few-shot examples" in str(err.value) and len(fake.posts()) <= 2
    # through evaluate: the right row of the right shard, and the earlier shards stay stored
    ds = gengap.load([{"input": "q" * (10 if i != 13 else 50), "target": "Q" * 10} for i in range(20)])
    with pytest.raises(EndpointError, match=r"example id '13'") as err:
        gengap.evaluate(model, ds, ["all"], out=tmp_path, progress=False, shard_size=5)
    assert "rows 13..13" in str(err.value)  # the row of the test part, not of the shard
    with Store(tmp_path / "gengap.duckdb", read_only=True) as store:
        assert store.sql("SELECT count(*) AS n FROM predictions")["n"].iloc[0] >= 10


def test_multiple_choice_by_log_likelihood(server):
    fake, url = server
    model = OpenAIModel(url, model_name="m", api="completions")
    out = model.predict([{"prompt": "Pick:", "choices": [" xyz", " aeiou", " b"]}])[0]
    assert out == " aeiou"  # the highest summed log-probability
    assert out.details["n_tokens"] == [4, 6, 2]
    assert out.details["loglik"] == pytest.approx([-4.0, -1.5, -2.0])
    assert out.details["loglik_norm"] == pytest.approx([-1.0, -0.25, -1.0])
    bodies = [r["body"] for r in fake.posts()]
    assert all(b["echo"] is True and b["logprobs"] == 1 and b["max_tokens"] == 1 for b in bodies)
    assert sorted(b["prompt"] for b in bodies) == ["Pick: aeiou", "Pick: b", "Pick: xyz"]


def test_log_likelihood_without_prompt_logprobs_is_a_clear_error(server):
    fake, url = server
    fake.prompt_logprobs = False
    with pytest.raises(EndpointError, match="no log-probabilities for the prompt's tokens.*--logits_all"):
        OpenAIModel(url, model_name="m", api="completions").predict([{"prompt": "P", "choices": ["a", "b"]}])
    with pytest.raises(EndpointError, match="needs the completions API"):
        OpenAIModel(url, model_name="m").predict([{"prompt": "P", "choices": ["a", "b"]}])
    # llama-cpp-python without --logits_all answers HTTP 500: translated at once, not retried
    original = fake.answer

    def refuses(handler):
        if handler.command == "POST":
            fake.posts_refused = getattr(fake, "posts_refused", 0) + 1
            return fake._send(handler, 500, {"error": {"message": "logprobs is not supported for models created with "
                                                                  "logits_all=False"}})
        return original(handler)

    fake.answer = refuses
    with pytest.raises(EndpointError, match="--logits_all true"):
        OpenAIModel(url, model_name="m", api="completions", backoff=1).predict([{"prompt": "P", "choices": ["a"]}])
    assert fake.posts_refused == 1


def test_chat_on_a_completions_only_server_says_to_switch(server):
    fake, url = server
    original = fake.answer

    def no_chat(handler):
        if handler.path == "/v1/chat/completions":
            return fake._send(handler, 404, {"error": {"message": "Not Found"}})
        return original(handler)

    fake.answer = no_chat
    with pytest.raises(EndpointError, match="api='completions'"):
        OpenAIModel(url, model_name="m", max_tokens=2).predict(["x"])



def test_chat_on_a_model_without_a_chat_template_warns(server):
    # llama.cpp's own server reports the model's chat template at /props; an empty one means a fallback format
    fake, url = server
    original = fake.answer
    template = {"chat_template": ""}
    asked: list[str] = []

    def props(handler):
        if handler.path == "/props":
            asked.append(handler.path)
            return fake._send(handler, 200, template)
        return original(handler)

    fake.answer = props
    with pytest.warns(UserWarning, match=r"reports no chat template.*api='completions' \(--api completions\)"):
        assert OpenAIModel(url, model_name="m", max_tokens=2).predict(["x"]) == ["X"]
    template["chat_template"] = "{% for m in messages %}{{ m.content }}{% endfor %}"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert OpenAIModel(url, model_name="m", max_tokens=2).predict(["x"]) == ["X"]
    assert len(asked) == 2 and OpenAIModel(url, model_name="m", api="completions", max_tokens=2).predict(["x"]) == ["X"]
    assert len(asked) == 2  # completions: the chat template is not asked about

# ---------------------------------------------------------------------------- prompts, shards and cost through the runner
def _arith(n: int) -> list[dict]:
    return [{"q": f"{i} + {i % 7}", "a": str(i + i % 7), "digits": len(str(i))} for i in range(n)]


def test_cli_prompt_and_generation_settings_reach_the_server_and_the_store(server, cli, tmp_path):
    fake, url = server
    (tmp_path / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in _arith(30)), encoding="utf-8")
    code, out, err = cli("eval", "--data", "data.jsonl", "--input", "q", "--target", "a", "--model", url,
                         "--model-name", "m", "--api", "completions", "--prompt", "Question: {input}\\nAnswer:",
                         "--shots", "2", "--max-tokens", "6", "--temperature", "0.5", "--top-p", "0.9", "--seed", "4",
                         "--request-field", "repeat_penalty=1.1", "--split", "random", "--out", "rep", "--no-progress")
    assert code == 0, err
    body = fake.posts()[0]["body"]
    assert body["stop"] == ["\n\n", "Question:"]  # the prompt's stops: a blank line and the next example's prefix
    assert (body["max_tokens"], body["temperature"], body["top_p"], body["seed"], body["repeat_penalty"]) == (6, 0.5, 0.9, 4, 1.1)
    assert body["prompt"].count("Question: ") == 3 and body["prompt"].endswith("\nAnswer:")
    with Store(tmp_path / "rep" / "gengap.duckdb", read_only=True) as store:
        preds = store.predictions(store.latest_run())
    assert sorted(preds["prompt"]) == sorted(r["body"]["prompt"] for r in fake.posts())
    assert preds["prompt_tokens"].notna().all() and (preds["latency_s"] > 0).all()
    report = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    assert "Language model: prompts and cost" in report and "k = 2 shots drawn" in report and "random 24 rows" in report
    results = json.loads((tmp_path / "rep" / "results.json").read_text(encoding="utf-8"))
    totals = results["sections"]["language_model"]["totals"][0]
    assert totals["Requests"] == 6 and totals["Prompt tokens"] == int(preds["prompt_tokens"].sum())
    assert len(results["sections"]["language_model"]["slowest"]) == 5

    code, _, err = cli("eval", "--data", "data.jsonl", "--input", "q", "--target", "a", "--model", url, "--model-name", "m",
                       "--api", "completions", "--prompt", "{input}", "--stop", "\\n", "--stop", "END", "--max-tokens", "3",
                       "--split", "random", "--out", "rep2", "--no-progress")
    assert code == 0, err and fake.posts()[-1]["body"]["stop"] == ["\n", "END"]
    assert fake.posts()[-1]["body"]["stop"] == ["\n", "END"] and "seed" not in fake.posts()[-1]["body"]
    code, _, err = cli("eval", "--data", "data.jsonl", "--input", "q", "--target", "a", "--model", url, "--model-name", "m",
                       "--api", "completions", "--prompt", "Q: {question}", "--out", "rep3", "--no-progress")
    assert code == 1 and "names the column '{question}'" in err and "Columns: input, target, digits" in err
    code, _, err = cli("eval", "--data", "data.jsonl", "--input", "q", "--target", "a", "--model", url, "--model-name", "m",
                       "--prompt", "{input}", "--shots", "40", "--out", "rep4", "--no-progress")
    assert code == 1 and "k=40 few-shot examples, but the train part of split 'random' has only 24 rows" in err


def test_shards_follow_the_model_speed_and_a_dead_server_loses_at_most_one(server, tmp_path, monkeypatch):
    import gengap.runner

    fake, url = server
    monkeypatch.setattr(gengap.runner, "SHARD_SECONDS", 0.5)  # seconds of model time per shard (10 in real runs)
    fake.delay = 0.1  # four requests in flight: about 40 rows a second, so about 20 rows a shard
    posts_before_death = 70
    original = fake.answer

    def dies(handler):  # after posts_before_death answers, every request fails: the server is gone
        if handler.command == "POST" and len(fake.posts()) >= posts_before_death:
            handler.close_connection = True
            return fake._send(handler, 503, {"error": {"message": "server stopped"}})
        return original(handler)

    fake.answer = dies
    ds = gengap.load([{"input": f"x{i}", "target": f"X{i}"} for i in range(200)])
    model = OpenAIModel(url, model_name="m", api="completions", concurrency=4, max_tokens=2, max_retries=0)
    with pytest.raises(EndpointError, match="HTTP 503") as err:
        gengap.evaluate(model, ds, ["all"], out=tmp_path, progress=False)
    assert "example id" in str(err.value)
    with Store(tmp_path / "gengap.duckdb", read_only=True) as store:
        sizes = store.sql("SELECT n_rows FROM shards ORDER BY finished_at")["n_rows"].tolist()
        stored = int(store.sql("SELECT count(*) AS n FROM predictions")["n"].iloc[0])
    # 2 x concurrency rows first; then about 0.5 s of measured model time each: never more than the 20 rows the
    # server could answer at best in 0.5 s (4 in flight, 0.1 s each), never fewer than the concurrency
    assert sizes[0] == 8 and all(4 <= s <= 20 for s in sizes[1:]), sizes
    answered = posts_before_death
    # lost: the answered rows of the shard that failed, and of the next shard's requests that took the slots its
    # last requests left free (fewer than the concurrency: under one round trip of work)
    assert stored == sum(sizes) and answered - stored <= max(sizes) + model.concurrency - 1, (answered, stored, sizes)
    # resuming asks only for what is missing
    fake.answer = original
    seen = len(fake.posts())
    again = gengap.evaluate(model, ds, ["all"], out=tmp_path, progress=False)
    assert again.model_calls == 200 - stored and len(fake.posts()) - seen == 200 - stored
    assert len(again.rows()) == 200 and again.rows()["score"].mean() == 1.0


def test_multiple_choice_by_log_likelihood_through_evaluate(server, tmp_path):
    _, url = server
    items = [{"input": f"item {i}", "choices": ["xyz", "aeiou", "bb"], "target": "aeiou" if i % 2 else "A"} for i in range(8)]
    ds = gengap.load(items)
    model = OpenAIModel(url, model_name="m", api="completions")
    ev = gengap.evaluate(model, ds, ["all"], out=tmp_path, progress=False, prompt="{input}\nAnswer:", choices_by="loglik")
    rows = ev.rows().sort_values("example_id", key=lambda s: s.astype(int))
    # summed: " aeiou" (-1.5) beats " bb" (-3) and " xyz" (-4); written as the target is (text or letter)
    assert rows["output"].tolist() == ["B", "aeiou"] * 4 and rows["score"].tolist() == [0.0, 1.0] * 4
    with Store(ev.store_path, read_only=True) as store:
        details = [json.loads(d) for d in store.predictions(ev.run_id)["details"]]
    assert all(d["loglik"] == pytest.approx([-4.0, -1.5, -3.0]) and d["n_tokens"] == [4, 6, 3] for d in details)
    # the confidence is the softmax of the options' log-likelihoods, named as the target writes them
    p = np.exp([-4.0, -1.5, -3.0]) / np.exp([-4.0, -1.5, -3.0]).sum()
    assert rows["confidence"].tolist() == pytest.approx([p[1]] * 8)
    assert json.loads(rows["probabilities"].iloc[0]) == pytest.approx({"A": p[0], "B": p[1], "C": p[2]})
    assert json.loads(rows["probabilities"].iloc[1]) == pytest.approx({"xyz": p[0], "aeiou": p[1], "bb": p[2]})
    norm = gengap.evaluate(model, ds, ["all"], out=tmp_path / "norm", progress=False, prompt="{input}\nAnswer:",
                           choices_by="loglik_norm")
    assert set(norm.rows()["output"]) == {"aeiou", "B"}
    # the sum and the mean disagree: " a" (-1.1 over 2 tokens) vs " aeiouaeiou" (-2.0 over 11)
    pair = gengap.load([{"input": "q", "choices": ["a", "aeiouaeiou"], "target": "aeiouaeiou"}])
    summed = gengap.evaluate(model, pair, ["all"], out=tmp_path / "pair", progress=False, prompt="{input}\nAnswer:",
                             choices_by="loglik")
    per_token = gengap.evaluate(model, pair, ["all"], out=tmp_path / "pair", progress=False, prompt="{input}\nAnswer:",
                                choices_by="loglik_norm")
    assert summed.rows()["output"].tolist() == ["a"] and per_token.rows()["output"].tolist() == ["aeiouaeiou"]
    assert per_token.rows()["score"].tolist() == [1.0]
    with pytest.raises(gengap.ConfigError, match="'choices' column"):
        gengap.evaluate(model, gengap.load([{"input": "a", "target": "b"}]), ["all"], choices_by="loglik", progress=False)
    with pytest.raises(gengap.ConfigError, match="api='completions'"):
        gengap.evaluate(OpenAIModel(url, model_name="m"), ds, ["all"], choices_by="loglik", progress=False)


def test_outputs_that_continue_the_few_shot_text_warn(server, tmp_path):
    fake, url = server
    original = fake.answer

    def rambles(handler):  # a base model on a chat endpoint: the answer, then the next example
        if handler.path == "/v1/chat/completions":
            return fake._send(handler, 200, {"choices": [{"message": {"role": "assistant",
                                                                      "content": " 4\n\nQuestion: 2 + 9\nAnswer: 11"}}]})
        return original(handler)

    fake.answer = rambles
    ds = gengap.load(_arith(20), input="q", target="a")
    with pytest.warns(UserWarning, match=r"100% of the outputs look like continued few-shot text.*--api completions"):
        gengap.evaluate(OpenAIModel(url, model_name="m", max_tokens=8), ds, ["random"], out=tmp_path, progress=False,
                        prompt={"template": "Question: {input}\nAnswer:", "k": 2})


def test_loglikelihoods_of_continuations(server):
    _, url = server
    model = OpenAIModel(url, model_name="m", api="completions")
    assert model.loglikelihoods("Pick:", [" b", " ae"]) == [(pytest.approx(-2.0), 2), (pytest.approx(-1.2), 3)]


def test_answer_log_probabilities_become_the_confidence_of_each_row(server, tmp_path):
    """Asked for with extra={"logprobs": True}: exp of the summed token log-probabilities is stored."""
    _, url = server
    ds = gengap.load([{"input": "ab" * (1 + i % 3), "target": "AB" * (1 + i % 3) if i % 4 else "no"} for i in range(40)])
    model = OpenAIModel(url, model_name="m", extra={"logprobs": True})
    ev = gengap.evaluate(model, ds, ["all"], metrics=["exact_match", "ece"], out=tmp_path, progress=False)
    rows = ev.rows("ece")
    expected = np.exp(-0.1 * rows["output"].str.len())
    assert rows["confidence"].to_numpy() == pytest.approx(expected.to_numpy(), abs=1e-5)
    assert ev.summary(n_resamples=1000).query("metric == 'ece'")["score"].notna().all()
    plain = gengap.evaluate(OpenAIModel(url, model_name="m"), ds, ["all"], out=tmp_path / "plain", progress=False)
    assert plain.rows()["confidence"].isna().all()  # no logprobs asked: no confidence, nothing invented
