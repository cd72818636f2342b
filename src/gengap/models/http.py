"""An OpenAI-compatible HTTP endpoint as a model: what users run in front of vLLM, llama.cpp or Ollama.

Each input becomes one request to ``{base_url}/chat/completions`` (``api="chat"``) or
``{base_url}/completions`` (``api="completions"``); ``concurrency`` requests are kept in flight
over one shared connection pool, and the outputs come back in input order.

Failures are retried with exponential backoff and jitter: connection errors, timeouts, HTTP 429
and 5xx. A ``Retry-After`` header sets the wait. After the last attempt an
:class:`~gengap.errors.EndpointError` names the URL, the status and what to check. Other 4xx answers
(a wrong model name, a missing key) are not retried: retrying cannot fix them.

The API key is read from the environment variable named by ``api_key_env`` when a connection
is opened; it is never stored on the object, so it cannot reach ``repr``, the fingerprint, the
run configuration in the store, pickles sent to workers, or error messages.

>>> m = OpenAIModel("http://127.0.0.1:8000/v1", model_name="qwen2.5-0.5b", max_tokens=32)
>>> m
OpenAIModel(base_url='http://127.0.0.1:8000/v1', model_name='qwen2.5-0.5b', api='chat')
>>> len(m.fingerprint())
16
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import threading
import time
from collections.abc import Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from email.utils import parsedate_to_datetime
from typing import Any, Literal
from urllib.parse import urlsplit

from gengap._errors import ConfigError, EndpointError
from gengap.models._base import Model

__all__ = ["OpenAIModel"]

API = Literal["chat", "completions"]
_PATHS = {"chat": "/chat/completions", "completions": "/completions"}
#: The longest wait a Retry-After header may impose, in seconds.
MAX_RETRY_AFTER = 300.0


class OpenAIModel(Model):
    """A model served behind an OpenAI-compatible API (chat or completions).

    Parameters
    ----------
    base_url : the API root, e.g. ``http://localhost:8000/v1`` (vLLM), ``http://localhost:11434/v1``
        (Ollama), ``http://localhost:8080/v1`` (llama.cpp server).
    model_name : the served model's name, sent as ``model``; None asks ``{base_url}/models`` once
        and uses the first model listed.
    api : ``"chat"`` (an input is the user message, or a list of ``{"role", "content"}`` messages)
        or ``"completions"`` (an input is the prompt).
    api_key_env : name of the environment variable that holds the API key (sent as a bearer token).
    concurrency : requests in flight at once.
    timeout : seconds to wait for each request (connect, write and read).
    max_retries : retries after the first attempt, for connection errors, timeouts, 429 and 5xx.
    max_tokens, temperature, system_prompt : generation settings sent with every request
        (``system_prompt`` only with ``api="chat"``).
    name : how the model appears in reports (default: ``model_name``).
    backoff, max_backoff : the first retry waits about ``backoff`` seconds, each next one twice as
        long, at most ``max_backoff`` (with random jitter), unless the server sends ``Retry-After``.
    """

    cacheable = True

    def __init__(
        self,
        base_url: str,
        *,
        model_name: str | None = None,
        api: API = "chat",
        api_key_env: str | None = None,
        concurrency: int = 8,
        timeout: float = 60.0,
        max_retries: int = 5,
        max_tokens: int | None = None,
        temperature: float = 0.0,
        system_prompt: str | None = None,
        name: str | None = None,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ConfigError(f"base_url={base_url!r} must be an http:// or https:// URL such as http://localhost:8000/v1.")
        if parts.username or parts.password:
            raise ConfigError("base_url must not hold credentials; put the API key in an environment variable "
                              "and name it with api_key_env.")
        if api not in _PATHS:
            raise ConfigError(f"api={api!r} must be 'chat' or 'completions'.")
        if system_prompt is not None and api != "chat":
            raise ConfigError("system_prompt works only with api='chat'; put the instructions in the prompt instead.")
        for label, value, low in (("concurrency", concurrency, 1), ("max_retries", max_retries, 0)):
            if not isinstance(value, int) or value < low:
                raise ConfigError(f"{label}={value!r} must be an integer of at least {low}.")
        if not timeout > 0 or backoff < 0 or max_backoff < 0:
            raise ConfigError(f"timeout={timeout!r} must be positive and backoff={backoff!r}, max_backoff={max_backoff!r} not negative.")
        if max_tokens is not None and max_tokens < 1:
            raise ConfigError(f"max_tokens={max_tokens!r} must be at least 1 (or None for the server's default).")
        if api_key_env is not None and not os.environ.get(api_key_env):
            raise ConfigError(
                f"The environment variable '{api_key_env}' (api_key_env) is not set or empty. Export the API key "
                f"in it (export {api_key_env}=...) or leave out api_key_env for a server without a key."
            )
        self.base_url = base_url.rstrip("/")
        for suffix in _PATHS.values():  # a user who pasted the full endpoint URL
            if self.base_url.endswith(suffix):
                self.base_url = self.base_url[: -len(suffix)]
        self.model_name = model_name
        self.api: API = api
        self.api_key_env = api_key_env
        self.concurrency = concurrency
        self.timeout = float(timeout)
        self.max_retries = max_retries
        self.max_tokens = max_tokens
        self.temperature = float(temperature)
        self.system_prompt = system_prompt
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self.name = name or model_name or f"openai@{parts.netloc}"
        self._client: Any = None
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ identity
    def __repr__(self) -> str:
        return f"OpenAIModel(base_url={self.base_url!r}, model_name={self.model_name!r}, api={self.api!r})"

    def fingerprint(self) -> str:
        """Base URL, model name, api and generation settings (never the key, nor speed settings)."""
        settings = {"base_url": self.base_url, "model": self._served_model(), "api": self.api,
                    "max_tokens": self.max_tokens, "temperature": self.temperature, "system_prompt": self.system_prompt}
        return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:16]

    def __getstate__(self) -> dict[str, Any]:
        # Workers (process pool, Ray) open their own connections; locks and sockets do not travel.
        state = self.__dict__.copy()
        state.update(_client=None, _pool=None, _lock=None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def close(self) -> None:
        """Close the connection pool and worker threads (they are reopened on the next call)."""
        with self._lock:
            if self._pool is not None:
                self._pool.shutdown(wait=True)
            if self._client is not None:
                self._client.close()
            self._client, self._pool = None, None

    # ------------------------------------------------------------------ predicting
    def predict(self, inputs: Sequence[Any]) -> list[str]:
        """One request per input, ``concurrency`` at a time; outputs in input order."""
        inputs = list(inputs)
        if not inputs:
            return []
        model = self._served_model()
        client, pool = self._open()
        stop = threading.Event()  # set on the first failure so other requests stop retrying
        futures: list[Future[str]] = [pool.submit(self._answer, client, model, x, stop) for x in inputs]
        try:
            done, _ = wait(futures, return_when=FIRST_EXCEPTION)
            failed = next((f for f in futures if f in done and f.exception() is not None), None)
            if failed is not None:
                raise failed.exception()  # type: ignore[misc]
        except BaseException:
            stop.set()
            for future in futures:
                future.cancel()
            raise
        return [future.result() for future in futures]

    def _open(self) -> tuple[Any, ThreadPoolExecutor]:
        import httpx

        with self._lock:
            if self._client is None:
                headers = {"Content-Type": "application/json"}
                if self.api_key_env:
                    key = os.environ.get(self.api_key_env)
                    if not key:
                        raise ConfigError(f"The environment variable '{self.api_key_env}' (api_key_env) is not set "
                                          "in this process; export the API key there.")
                    headers["Authorization"] = f"Bearer {key}"
                limits = httpx.Limits(max_connections=self.concurrency, max_keepalive_connections=self.concurrency)
                self._client = httpx.Client(headers=headers, timeout=httpx.Timeout(self.timeout), limits=limits)
                self._pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix="gengap-http")
            assert self._pool is not None
            return self._client, self._pool

    def _payload(self, model: str | None, x: Any) -> dict[str, Any]:
        body: dict[str, Any] = {"temperature": self.temperature}
        if model:
            body["model"] = model
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        if self.api == "chat":
            if isinstance(x, str):
                messages = [{"role": "user", "content": x}]
            elif isinstance(x, list) and all(isinstance(m, dict) and "role" in m for m in x):
                messages = list(x)
            else:
                raise EndpointError(
                    f"OpenAIModel (api='chat') needs text inputs or lists of {{'role', 'content'}} messages, got a "
                    f"{type(x).__name__}. Map a text column to the input role (--input COLUMN)."
                )
            if self.system_prompt is not None:
                messages = [{"role": "system", "content": self.system_prompt}, *messages]
            body["messages"] = messages
        else:
            if not isinstance(x, str):
                raise EndpointError(f"OpenAIModel (api='completions') needs text prompts, got a {type(x).__name__}. "
                                    "Map a text column to the input role (--input COLUMN).")
            body["prompt"] = x
        return body

    def _answer(self, client: Any, model: str | None, x: Any, stop: threading.Event) -> str:
        url = self.base_url + _PATHS[self.api]
        data = self._request(client, "POST", url, stop, json=self._payload(model, x))
        try:
            choice = data["choices"][0]
            text = choice["message"]["content"] if self.api == "chat" else choice["text"]
        except (KeyError, IndexError, TypeError):
            raise EndpointError(
                f"{url} answered without {'choices[0].message.content' if self.api == 'chat' else 'choices[0].text'} "
                f"({self._excerpt(json.dumps(data))}). Check that the server speaks the OpenAI "
                f"{'chat' if self.api == 'chat' else 'completions'} API, or switch api to "
                f"'{'completions' if self.api == 'chat' else 'chat'}'."
            ) from None
        return "" if text is None else str(text)

    def _served_model(self) -> str | None:
        """``model_name``, or the first model ``{base_url}/models`` lists (asked once)."""
        if self.model_name is not None:
            return self.model_name
        client, _ = self._open()
        url = self.base_url + "/models"
        data = self._request(client, "GET", url, threading.Event())
        try:
            self.model_name = str(data["data"][0]["id"])
        except (KeyError, IndexError, TypeError):
            raise EndpointError(f"{url} lists no models ({self._excerpt(json.dumps(data))}); pass model_name "
                                "(--model-name) with the name the server serves.") from None
        return self.model_name

    def _request(self, client: Any, method: str, url: str, stop: threading.Event, **kwargs: Any) -> Any:
        """Send with retries; return the parsed JSON body or raise EndpointError."""
        import httpx

        attempts = self.max_retries + 1
        problem = ""
        for attempt in range(attempts):
            wait: float | None = None
            try:
                response = client.request(method, url, **kwargs)
            except httpx.TimeoutException:
                problem = (f"no answer within {self.timeout:g} s (timeout). Check that the server is not overloaded, "
                           "raise the timeout or lower the concurrency")
            except httpx.TransportError as e:
                problem = (f"could not connect ({type(e).__name__}). Check that the server is running and that "
                           f"the base URL {self.base_url} (host, port, /v1) is right")
            else:
                status = response.status_code
                if status < 400:
                    try:
                        return response.json()
                    except ValueError:
                        raise EndpointError(f"{url} answered HTTP {status} with a body that is not JSON "
                                            f"({self._excerpt(response.text)}). Check the base URL.") from None
                detail = self._excerpt(response.text)
                if status != 429 and status < 500:
                    raise EndpointError(f"{url} answered HTTP {status} ({detail}). {self._hint(status)}")
                problem = (f"HTTP {status} ({detail}). "
                           + ("The server is rate-limiting: lower the concurrency" if status == 429 else
                              "The server failed: check its logs"))
                wait = _retry_after(response.headers.get("retry-after"))
            if attempt + 1 == attempts or stop.is_set():
                break
            if wait is None:
                wait = min(self.max_backoff, self.backoff * 2 ** attempt) * random.uniform(0.5, 1.0)
            if stop.wait(wait):
                break
        raise EndpointError(f"{url} failed after {attempt + 1} attempt(s): {problem}.")

    def _hint(self, status: int) -> str:
        if status in (401, 403):
            where = f"the environment variable '{self.api_key_env}'" if self.api_key_env else "no key (api_key_env is unset)"
            return f"The server refused the credentials: check the API key in {where}."
        if status == 404:
            return (f"Check the base URL (it usually ends in /v1) and that the server serves model "
                    f"{self.model_name!r} and the {self.api} API.")
        return "Check the model name and the generation settings the server accepts."

    def _excerpt(self, text: str, limit: int = 300) -> str:
        """A short, key-free excerpt of a server's answer for error messages."""
        text = " ".join(text.split())
        key = os.environ.get(self.api_key_env) if self.api_key_env else None
        if key:
            text = text.replace(key, "***")
        return text if len(text) <= limit else text[:limit] + "..."


def _retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (seconds or an HTTP date), capped; None if absent or unreadable."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError):
            return None
    return min(MAX_RETRY_AFTER, max(0.0, seconds))
