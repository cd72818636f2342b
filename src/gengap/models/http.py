"""An OpenAI-compatible HTTP endpoint as a model: what users run in front of vLLM, llama.cpp or Ollama.

Each input becomes one request to ``{base_url}/chat/completions`` (``api="chat"``) or
``{base_url}/completions`` (``api="completions"``). Requests run on one asyncio event loop (kept-alive
connections on a background thread, shared by every caller of the model), ``concurrency`` in
flight at once, and the outputs come back in input order. The HTTP itself is httpx's
(:mod:`gengap.models._transport`): proxies from ``HTTPS_PROXY``/``HTTP_PROXY``/``NO_PROXY``, the
system's CA certificates or a CA bundle (``verify=``), client certificates, optional HTTP/2, and
answers read at most 64 MiB after decompression. Each output is a :class:`Completion`: the text,
plus what it cost (prompt and completion tokens, seconds) for the results store.
:meth:`OpenAIModel.submit` starts the requests and returns a future at once, so the runner stores
one shard while the server answers the next; calls made together share the ``concurrency``.

An input ``{"prompt": text, "choices": [continuation, ...]}`` (``api="completions"``) asks for
multiple choice by log-likelihood instead of generation: each continuation is scored by the
summed log-probability of its tokens after the prompt (``echo`` and ``logprobs``, as
lm-evaluation-harness does), and the output is the best continuation: by the sum, or by the mean
per token when the input says ``"by": "mean"``. One request per option: llama-cpp-python's server
refuses a list of prompts, and it sorts the whole vocabulary in Python for every token it echoes,
whatever ``logprobs`` asks for (0, 1 and 5 give the same sums in the same time), so a request
costs seconds per prompt token for Gemma 3's 262,144 tokens on a busy core; keep such prompts short.

Failures are retried with exponential backoff and jitter: connection errors, timeouts, HTTP 429
and 5xx. A ``Retry-After`` header sets the wait. After the last attempt an
:class:`~gengap.errors.EndpointError` names the URL, the status, the row and what to check. Other 4xx
answers (a wrong model name, a missing key, a prompt longer than the context window) are not
retried: retrying cannot fix them.

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

import asyncio
import concurrent.futures
import hashlib
import json
import math
import os
import random
import threading
import time
import warnings
import weakref
from collections.abc import Mapping, Sequence
from email.utils import parsedate_to_datetime
from typing import Any, Literal
from urllib.parse import urlsplit

from gengap._errors import ConfigError, EndpointError
from gengap._settings import Generation
from gengap.models._base import Model
from gengap.models._scored import Completion
from gengap.models._transport import Client, TransportError, tls_settings

__all__ = ["OpenAIModel", "Completion", "parse_stop"]

#: The generation settings' defaults: written once, on the fields of :class:`gengap.config.Generation`.
_DEFAULTS = Generation()

API = Literal["chat", "completions"]
_PATHS = {"chat": "/chat/completions", "completions": "/completions"}
#: The longest wait a Retry-After header may impose, in seconds.
MAX_RETRY_AFTER = 300.0
#: Request fields gengap sets itself; ``extra`` may not override them.
_OWN_FIELDS = ("model", "prompt", "messages")


def parse_stop(values: Sequence[str] | None) -> list[str] | None:
    r"""Stop sequences as typed on a command line: ``\n`` and ``\t`` become a newline and a tab.

    >>> parse_stop(["\\n\\n", "Question:"])
    ['\n\n', 'Question:']
    """
    if values is None:
        return None
    return [v.replace("\\n", "\n").replace("\\t", "\t") for v in values]


class OpenAIModel(Model):
    """A model served behind an OpenAI-compatible API (chat or completions).

    Parameters
    ----------
    base_url : the API root, e.g. ``http://localhost:8000/v1`` (vLLM), ``http://localhost:11434/v1``
        (Ollama), ``http://localhost:8080/v1`` (llama.cpp server).
    model_name : the served model's name, sent as ``model``; None asks ``{base_url}/models`` once
        and uses the first model listed. A name the server does not list is an error that lists the
        names it offers.
    api : ``"chat"`` (an input is the user message, or a list of ``{"role", "content"}`` messages)
        or ``"completions"`` (an input is the prompt).
    api_key_env : name of the environment variable that holds the API key (sent as a bearer token).
    concurrency : requests in flight at once.
    timeout : seconds to wait for each request (connect, write and read).
    max_retries : retries after the first attempt, for connection errors, timeouts, 429 and 5xx.
    max_tokens, temperature, top_p, seed : generation settings sent with every request (None: the
        server's default).
    stop : stop sequences; None lets a prompt built by gengap choose them (the next example's
        prefix and a blank line for completions), ``[]`` sends none.
    extra : further request fields sent as they are (``{"repeat_penalty": 1.1}``); they may not
        replace ``model``, ``prompt`` or ``messages``.
    system_prompt : a system message sent before each input (``api="chat"`` only).
    name : how the model appears in reports (default: ``model_name``).
    backoff, max_backoff : the first retry waits about ``backoff`` seconds, each next one twice as
        long, at most ``max_backoff`` (with random jitter), unless the server sends ``Retry-After``.
    verify : TLS verification: True (the system's CA certificates, or ``SSL_CERT_FILE``/``SSL_CERT_DIR``),
        the path of a CA bundle (a PEM file or a folder of certificates, e.g. a company's own CA), or
        False (no verification: only on a network you trust).
    client_cert : a client certificate for servers that ask for one: a PEM file holding the
        certificate and its key, or a ``(certificate, key)`` pair of files.
    proxy : a proxy URL for every request (``http://proxy.example:3128``); None uses
        ``HTTPS_PROXY``/``HTTP_PROXY``/``ALL_PROXY`` and ``NO_PROXY`` from the environment, when
        ``trust_env`` (the default) lets it read them.
    http2 : speak HTTP/2 where the server offers it (needs ``pip install 'gengap[http2]'``).
    """

    cacheable = True
    #: The runner sizes shards by this model's measured speed (a shard every ~10 s of model time).
    adaptive_shards = True

    def __init__(
        self,
        base_url: str,
        *,
        model_name: str | None = None,
        api: API = _DEFAULTS.api,
        api_key_env: str | None = None,
        concurrency: int = _DEFAULTS.concurrency,
        timeout: float = _DEFAULTS.timeout,
        max_retries: int = _DEFAULTS.max_retries,
        max_tokens: int | None = _DEFAULTS.max_tokens,
        temperature: float | None = _DEFAULTS.temperature,
        top_p: float | None = _DEFAULTS.top_p,
        seed: int | None = _DEFAULTS.seed,
        stop: Sequence[str] | None = None,
        extra: Mapping[str, Any] | None = None,
        system_prompt: str | None = None,
        name: str | None = None,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        verify: bool | str = True,
        client_cert: str | tuple[str, str] | None = None,
        proxy: str | None = None,
        trust_env: bool = True,
        http2: bool = False,
    ) -> None:
        _check_base_url(base_url)
        parts = urlsplit(base_url)
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
        if temperature is not None and temperature < 0:
            raise ConfigError(f"temperature={temperature!r} must be 0 or more (0: greedy).")
        if top_p is not None and not 0 < top_p <= 1:
            raise ConfigError(f"top_p={top_p!r} must be in (0, 1].")
        if stop is not None and (isinstance(stop, str) or not all(isinstance(s, str) and s for s in stop)):
            raise ConfigError(f"stop={stop!r} must be a list of non-empty strings (e.g. ['\\n\\n', 'Question:']).")
        clash = sorted(set(extra or {}) & set(_OWN_FIELDS))
        if clash:
            raise ConfigError(f"extra request fields {clash} are set by gengap; use model_name and the prompt instead.")
        try:
            tls_settings(verify, client_cert, trust_env=trust_env)  # loaded once per process: before the first request
            import httpx  # noqa: F401  (likewise: with the model, not inside the first request's time)
        except ValueError as e:
            raise ConfigError(f"{str(e)[0].upper()}{str(e)[1:]}.") from None
        if proxy is not None:
            _check_base_url(proxy, what="proxy", example="http://proxy.example:3128")
        if http2:
            from gengap._optional import require

            require("h2", extra="http2", purpose="HTTP/2 (http2=True)")
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
        self.temperature = None if temperature is None else float(temperature)
        self.top_p = top_p
        self.seed = seed
        self.stop = None if stop is None else list(stop)
        self.extra = dict(extra or {})
        self.system_prompt = system_prompt
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self.verify = verify if isinstance(verify, bool) else str(verify)
        self.client_cert = client_cert
        self.proxy = proxy
        self.trust_env = bool(trust_env)
        self.http2 = bool(http2)
        self.name = name or model_name or f"openai@{parts.netloc}"
        self._checked = False  # the served model was asked about (names, chat template)
        self._warned = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._client: Client | None = None
        self._slots: asyncio.Semaphore | None = None  # ``concurrency`` request slots shared by every call
        self._checking: asyncio.Lock | None = None
        self._held: dict[str, Any] = {}  # what the finalizer closes (not self: it must not keep the model alive)
        self._finalizer: weakref.finalize | None = None
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ identity
    def __repr__(self) -> str:
        return f"OpenAIModel(base_url={self.base_url!r}, model_name={self.model_name!r}, api={self.api!r})"

    def settings(self) -> dict[str, Any]:
        """The generation settings sent with every request (what the outputs depend on)."""
        return {"max_tokens": self.max_tokens, "temperature": self.temperature, "top_p": self.top_p,
                "seed": self.seed, "stop": self.stop, "extra": self.extra, "system_prompt": self.system_prompt}

    def fingerprint(self) -> str:
        """Base URL, model name, api and generation settings (never the key, nor speed settings)."""
        settings = {"base_url": self.base_url, "model": self._model_for_fingerprint(), "api": self.api,
                    "max_tokens": self.max_tokens, "temperature": self.temperature, "system_prompt": self.system_prompt}
        changed = {k: v for k, v in self.settings().items() if k not in settings and v not in (None, {}, [])}
        if self.stop == []:
            changed["stop"] = []
        settings.update(changed)  # settings left at their defaults keep the fingerprints of earlier versions
        return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:16]

    def _model_for_fingerprint(self) -> str | None:
        if self.model_name is None:
            self._run(self._served_model())
        return self.model_name

    def with_settings(self, **changes: Any) -> OpenAIModel:
        """A copy with some settings changed (``stop=[...]``, ``max_tokens=...``).

        >>> OpenAIModel("http://h:1/v1", model_name="m").with_settings(stop=["\\n"]).stop
        ['\\n']
        """
        kwargs = {"model_name": self.model_name, "api": self.api, "api_key_env": self.api_key_env,
                  "concurrency": self.concurrency, "timeout": self.timeout, "max_retries": self.max_retries,
                  "name": self.name, "backoff": self.backoff, "max_backoff": self.max_backoff, "verify": self.verify,
                  "client_cert": self.client_cert, "proxy": self.proxy, "trust_env": self.trust_env, "http2": self.http2,
                  **self.settings()}
        kwargs.update(changes)
        return OpenAIModel(self.base_url, **kwargs)

    def __getstate__(self) -> dict[str, Any]:
        # Workers (process pool, Ray) open their own connections; loops, locks and sockets do not travel.
        state = self.__dict__.copy()
        state.update(_client=None, _slots=None, _checking=None, _loop=None, _thread=None, _lock=None, _held={}, _finalizer=None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def close(self) -> None:
        """Close the connections and stop the event loop thread (both reopen on the next call)."""
        with self._lock:
            finalizer, self._finalizer = self._finalizer, None
            self._loop, self._thread, self._client, self._slots, self._checking = None, None, None, None, None
        if finalizer is not None:
            finalizer()

    # ------------------------------------------------------------------ the event loop
    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="gengap-http", daemon=True)
                thread.start()
                self._loop, self._thread, self._held = loop, thread, {}
                # closes the session and stops the loop when the model is closed, collected, or at exit
                self._finalizer = weakref.finalize(self, _shut_down, loop, thread, self._held)
            return self._loop

    def _run(self, coro: Any) -> Any:
        """Run a coroutine on the model's loop from any thread; cancel it if the caller is interrupted."""
        future = asyncio.run_coroutine_threadsafe(coro, self._ensure_loop())
        try:
            return future.result()
        except BaseException:
            future.cancel()
            raise

    def _open(self) -> Client:
        """The shared connection pool (called on the loop thread)."""
        if self._client is None:
            headers = {"User-Agent": f"gengap/{_version()}", "Accept": "application/json", "Content-Type": "application/json"}
            if self.api_key_env:
                key = os.environ.get(self.api_key_env)
                if not key:
                    raise ConfigError(f"The environment variable '{self.api_key_env}' (api_key_env) is not set "
                                      "in this process; export the API key there.")
                headers["Authorization"] = f"Bearer {key}"
            try:
                self._client = Client(headers, limit=self.concurrency, timeout=self.timeout, verify=self.verify,
                                      client_cert=self.client_cert, proxy=self.proxy, trust_env=self.trust_env,
                                      http2=self.http2)
            except ValueError:
                raise ConfigError(f"The API key in the environment variable '{self.api_key_env}' (api_key_env) contains a "
                                  "line break; export it without one.") from None
            self._held["client"] = self._client
        return self._client

    # ------------------------------------------------------------------ predicting
    def predict(self, inputs: Sequence[Any]) -> list[Completion]:
        """One request per input, ``concurrency`` at a time; outputs in input order.

        An :class:`~gengap.EndpointError` raised for one input carries its position as ``row``.
        """
        inputs = list(inputs)
        if not inputs:
            return []
        return self._run(self._predict_all(inputs))

    def submit(self, inputs: Sequence[Any]) -> concurrent.futures.Future[list[Completion]]:
        """Start one request per input now and return at once: a future of what :meth:`predict`
        returns (outputs in input order; an :class:`~gengap.EndpointError` with the input's
        position as ``row``).

        The requests run on the model's event loop while the caller does other work (the runner
        scores and stores one shard while the next one's requests are answered). Every call
        shares the model's ``concurrency`` request slots, and an earlier call's inputs are sent
        first: a later call's requests start as the earlier one's run out. Cancelling the future
        stops the requests not yet answered.
        """
        inputs = list(inputs)
        if not inputs:
            done: concurrent.futures.Future[list[Completion]] = concurrent.futures.Future()
            done.set_result([])
            return done
        return asyncio.run_coroutine_threadsafe(self._predict_all(inputs), self._ensure_loop())

    def loglikelihoods(self, prompt: str, continuations: Sequence[str]) -> list[tuple[float, int]]:
        """``(summed log-probability, token count)`` of each continuation after ``prompt``."""
        async def scored() -> list[tuple[float, int]]:
            return await self._logliks(self._open(), prompt, continuations, asyncio.Event())

        return self._run(scored())

    async def _predict_all(self, inputs: list[Any]) -> list[Completion]:
        client = self._open()
        await self._served_model()
        failed = asyncio.Event()  # set on the first failure so other requests stop retrying
        outputs: list[Any] = [None] * len(inputs)
        rows = iter(range(len(inputs)))  # shared by the workers: each row is taken once, in order

        if self._slots is None:
            self._slots = asyncio.Semaphore(self.concurrency)
        slots = self._slots
        fields = self._fields()  # once per call, not per request

        async def worker() -> None:
            # ``concurrency`` workers, each one request in flight: no task or semaphore per row. A worker
            # holds one of the model's slots while it takes rows, so calls made at once (the runner's next
            # shard) share ``concurrency`` and start in turn, each as an earlier call's workers run out of rows.
            async with slots:
                for row in rows:
                    if failed.is_set():
                        return
                    x = inputs[row]
                    try:
                        if isinstance(x, dict) and "choices" in x:
                            outputs[row] = await self._choose(client, x, failed)
                        else:
                            outputs[row] = await self._answer(client, x, failed, fields)
                    except EndpointError as e:
                        failed.set()
                        e.row = row  # type: ignore[attr-defined]
                        raise

        workers = [asyncio.ensure_future(worker()) for _ in range(min(self.concurrency, len(inputs)))]
        try:
            await asyncio.gather(*workers)
            self._warn_settings(inputs)  # once answers came back: a server that is down gets its own message alone
            return outputs
        except BaseException:
            for task in workers:
                task.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            raise

    def _warn_settings(self, inputs: list[Any]) -> None:
        if self._warned or self.max_tokens is not None or self.stop:
            return
        if all(isinstance(x, dict) and "choices" in x for x in inputs):
            return
        self._warned = True
        warnings.warn(f"Model '{self.name}': no max_tokens and no stop sequence, so each answer runs until the server's "
                      "own limit; a base model keeps writing (more examples, more questions). Set --max-tokens, or "
                      "--stop (e.g. --stop '\\n\\n'), or give a prompt (--prompt) that sets stops.", stacklevel=2)

    def _fields(self) -> dict[str, Any]:
        """The request fields every input shares (model and generation settings)."""
        body: dict[str, Any] = {}
        if self.model_name:
            body["model"] = self.model_name
        for key in ("max_tokens", "temperature", "top_p", "seed"):
            if getattr(self, key) is not None:
                body[key] = getattr(self, key)
        if self.stop:
            body["stop"] = self.stop
        body.update(self.extra)
        return body

    def _payload(self, x: Any, fields: Mapping[str, Any] | None = None) -> dict[str, Any]:
        body = dict(self._fields() if fields is None else fields)
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
                                    "Map a text column to the input role (--input COLUMN), or use api='chat' for messages.")
            body["prompt"] = x
        return body

    async def _answer(self, client: Client, x: Any, failed: asyncio.Event, fields: Mapping[str, Any] | None = None) -> Completion:
        url = self.base_url + _PATHS[self.api]
        start = time.perf_counter()
        data = await self._request(client, "POST", url, failed, self._payload(x, fields))
        latency = time.perf_counter() - start
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
        usage = data.get("usage") or {}
        details = {"prompt_tokens": usage.get("prompt_tokens"), "completion_tokens": usage.get("completion_tokens"),
                   "latency_s": round(latency, 4), "finish_reason": choice.get("finish_reason")}
        answer_logprob = _answer_logprob(choice.get("logprobs"))
        if answer_logprob is not None:  # asked for with extra={"logprobs": True} (chat) or {"logprobs": 1}
            details["answer_logprob"] = round(answer_logprob, 6)
        return Completion("" if text is None else str(text), details)

    # ------------------------------------------------------------------ multiple choice by log-likelihood
    async def _choose(self, client: Client, x: dict[str, Any], failed: asyncio.Event) -> Completion:
        prompt, options = x.get("prompt"), x.get("choices")
        if self.api != "completions":
            raise EndpointError("Multiple choice by log-likelihood needs the completions API (api='completions', "
                                "--api completions): chat endpoints do not return prompt log-probabilities.")
        if not isinstance(prompt, str) or not isinstance(options, list) or not options:
            raise EndpointError(f"A log-likelihood input needs a text 'prompt' and a non-empty list of 'choices', got "
                                f"{self._excerpt(json.dumps(x, default=str), 120)}.")
        start = time.perf_counter()
        scored = await self._logliks(client, prompt, [str(o) for o in options], failed)
        latency = time.perf_counter() - start
        logliks = [s for s, _ in scored]
        counts = [n for _, n in scored]
        norms = [v / max(n, 1) for v, n in scored]
        by = x.get("by", "sum")
        if by not in ("sum", "mean"):
            raise EndpointError(f"A log-likelihood input's 'by' must be 'sum' or 'mean', got {by!r}.")
        ranked = logliks if by == "sum" else norms
        best = max(range(len(options)), key=lambda i: ranked[i])
        return Completion(str(options[best]), {
            "loglik": [round(v, 6) for v in logliks], "n_tokens": counts,
            "loglik_norm": [round(v, 6) for v in norms],
            "prompt_tokens": None, "completion_tokens": 0, "latency_s": round(latency, 4)})

    async def _logliks(self, client: Client, prompt: str, continuations: Sequence[str],
                       failed: asyncio.Event) -> list[tuple[float, int]]:
        return list(await asyncio.gather(*(self._loglik(client, prompt, c, failed) for c in continuations)))

    async def _loglik(self, client: Client, prompt: str, continuation: str, failed: asyncio.Event) -> tuple[float, int]:
        url = self.base_url + _PATHS["completions"]
        body: dict[str, Any] = {"prompt": prompt + continuation, "max_tokens": 1, "temperature": 0.0,
                                "echo": True, "logprobs": 1}
        if self.model_name:
            body["model"] = self.model_name
        data = await self._request(client, "POST", url, failed, body)
        try:
            logprobs = data["choices"][0]["logprobs"]
            offsets, values = logprobs["text_offset"], logprobs["token_logprobs"]
        except (KeyError, IndexError, TypeError):
            offsets, values = None, None
        end = len(prompt) + len(continuation)
        picked = [v for o, v in zip(offsets or [], values or []) if len(prompt) <= o < end]
        if not offsets or not picked or any(v is None for v in picked):
            raise EndpointError(
                f"{url} returned no log-probabilities for the prompt's tokens (echo=true, logprobs=1), so it cannot "
                "score choices by log-likelihood. llama.cpp (llama-cpp-python): start the server with --logits_all "
                "true; vLLM: use a version that returns prompt logprobs with echo; otherwise score by generation "
                "(choices_by='generate') with --extract choice."
            )
        return float(sum(picked)), len(picked)

    # ------------------------------------------------------------------ what the server serves
    async def _served_model(self) -> str | None:
        """Ask ``{base_url}/models`` once: the first model when none is named, or an error listing the
        names when the named one is not served. Warn when chat goes to a model with no chat template."""
        if self._checked:
            return self.model_name
        if self._checking is None:
            self._checking = asyncio.Lock()
        async with self._checking:  # calls made at once (submit) ask once
            if not self._checked:
                await self._ask_served_model()
        return self.model_name

    async def _ask_served_model(self) -> None:
        client = self._open()
        url = self.base_url + "/models"
        listed: list[str] | None = None
        if self.model_name is None:  # needed: ask with retries
            listed = _model_ids(await self._request(client, "GET", url, asyncio.Event()))
        else:  # a check only: one try, and a server without the listing is fine
            listed = _model_ids(await _get_json(client, url))
        if self.model_name is None:
            if not listed:
                raise EndpointError(f"{url} lists no models; pass model_name (--model-name) with the name the "
                                    "server serves.")
            self.model_name = listed[0]
        elif listed and self.model_name not in listed:
            raise EndpointError(f"The server at {self.base_url} does not serve a model named '{self.model_name}'; it "
                                f"serves: {', '.join(listed[:20])}. Pass one of them as model_name (--model-name).")
        if self.api == "chat":
            await self._check_chat_template(client)
        self._checked = True

    async def _check_chat_template(self, client: Client) -> None:
        """llama.cpp's server reports its chat template at ``/props``; warn when it has none."""
        root = self.base_url[: -len("/v1")] if self.base_url.endswith("/v1") else self.base_url
        props = await _get_json(client, root + "/props")
        if isinstance(props, dict) and "chat_template" in props and not props.get("chat_template"):
            warnings.warn(f"Model '{self.name}': the server at {root} reports no chat template for this model, so "
                          "chat requests are formatted with a fallback template it was not trained on. For a base "
                          "model use api='completions' (--api completions) with a few-shot prompt.", stacklevel=2)

    # ------------------------------------------------------------------ requests
    async def _request(self, client: Client, method: str, url: str, failed: asyncio.Event, body: Any = None) -> Any:
        """Send ``body`` as JSON with retries; return the parsed JSON answer or raise EndpointError."""
        data = None if body is None else json.dumps(body).encode()  # once, for every attempt
        attempts = self.max_retries + 1
        problem = ""
        for attempt in range(attempts):
            wait: float | None = None
            try:
                status, headers, raw = await client.request(method, url, data)
                if status < 300:  # the common case: the JSON read from the bytes, nothing else looked at
                    try:
                        return json.loads(raw)
                    except ValueError:  # not JSON, or not UTF-8
                        text = raw.decode("utf-8", errors="replace")
                        raise EndpointError(f"{url} answered HTTP {status} with a body that is not JSON "
                                            f"({self._excerpt(text)}). Check the base URL.") from None
            except asyncio.TimeoutError:
                problem = (f"no answer within {self.timeout:g} s (timeout). Check that the server is not overloaded, "
                           "raise the timeout or lower the concurrency")
            except EndpointError:
                raise
            except TransportError as e:
                problem = (f"{e}. Check that the server is running and that the base URL {self.base_url} (host, port, "
                           "/v1) is right")
            else:
                text = raw.decode("utf-8", errors="replace")  # JSON is UTF-8 (RFC 8259)
                detail = self._excerpt(text)
                if 300 <= status < 400:
                    raise EndpointError(f"{url} answered HTTP {status}, a redirect to {headers.get('location', '(no Location)')}. "
                                        "Use the address it redirects to as the base URL (gengap does not follow redirects).")
                if status != 429 and status < 500:
                    raise EndpointError(f"{url} answered HTTP {status} ({detail}). {self._hint(status, detail)}")
                problem = (f"HTTP {status} ({detail}). "
                           + ("The server is rate-limiting: lower the concurrency" if status == 429 else
                              "The server failed: check its logs"))
                if status >= 500 and (_is_context_overflow(detail) or _no_prompt_logprobs(detail)):
                    raise EndpointError(f"{url} answered HTTP {status} ({detail}). {self._hint(400, detail)}")
                wait = _retry_after(headers.get("retry-after"))
            if attempt + 1 == attempts or failed.is_set():
                break
            if wait is None:
                wait = min(self.max_backoff, self.backoff * 2 ** attempt) * random.uniform(0.5, 1.0)
            try:
                await asyncio.wait_for(failed.wait(), wait)
                break  # another request failed for good: stop retrying
            except asyncio.TimeoutError:
                pass
        raise EndpointError(f"{url} failed after {attempt + 1} attempt(s): {problem}.")

    def _hint(self, status: int, detail: str = "") -> str:
        if _no_prompt_logprobs(detail):
            return ("The server returns no log-probabilities for the prompt's tokens, so it cannot score choices by "
                    "log-likelihood. llama.cpp (llama-cpp-python): start the server with --logits_all true; otherwise "
                    "score by generation (choices_by='generate') with --extract choice.")
        if _is_context_overflow(detail):
            return ("The prompt is longer than the model's context window: use fewer few-shot examples (k), a "
                    "shorter instruction or template, or start the server with a larger context (llama.cpp: --n_ctx).")
        if status == 407:
            return ("A proxy between gengap and the server asks for credentials: put them in the proxy's URL "
                    "(HTTPS_PROXY=http://user:password@host:port, or proxy=), or list the server's host in NO_PROXY.")
        if status in (401, 403):
            where = f"the environment variable '{self.api_key_env}'" if self.api_key_env else "no key (api_key_env is unset)"
            return f"The server refused the credentials: check the API key in {where}."
        if status == 404:
            other = "completions" if self.api == "chat" else "chat"
            return (f"Check the base URL (it usually ends in /v1), that the server serves model "
                    f"{self.model_name!r}, and that it offers the {self.api} API (else use api='{other}', --api {other}).")
        return "Check the model name and the generation settings the server accepts."

    def _excerpt(self, text: str, limit: int = 300) -> str:
        """A short, key-free excerpt of a server's answer for error messages."""
        text = " ".join(text.split())
        key = os.environ.get(self.api_key_env) if self.api_key_env else None
        if key:
            text = text.replace(key, "***")
        return text if len(text) <= limit else text[:limit] + "..."


def _check_base_url(url: str, *, what: str = "base_url", example: str = "http://localhost:8000/v1") -> None:
    """Refuse a URL that cannot be requested as written: spaces or control characters, no http(s) scheme or
    host, credentials, a query or a fragment (gengap appends the API's paths to the base URL).

    >>> _check_base_url("http://127.0.0.1:9/v1 x")
    Traceback (most recent call last):
    ...
    gengap._errors.ConfigError: base_url='http://127.0.0.1:9/v1 x' holds a space or a control character; a URL holds none (write a space in a path as %20).
    """
    if not isinstance(url, str) or any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in url):
        raise ConfigError(f"{what}={url!r} holds a space or a control character; a URL holds none (write a space in a "
                          "path as %20).")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as e:
        raise ConfigError(f"{what}={url!r} is not a URL ({e}); give one such as {example}.") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{what}={url!r} must be an http:// or https:// URL such as {example}.")
    if what == "base_url" and (parts.username or parts.password):
        raise ConfigError("base_url must not hold credentials; put the API key in an environment variable "
                          "and name it with api_key_env.")
    if what == "base_url" and (parts.query or parts.fragment or url.endswith(("?", "#"))):
        raise ConfigError(f"base_url={url!r} holds a query or fragment ('?...' or '#...'); gengap appends the API's "
                          "paths (/chat/completions) to the base URL, so give it without them.")
    if port == 0:
        raise ConfigError(f"{what}={url!r} names port 0; give the port the server listens on.")


def _shut_down(loop: asyncio.AbstractEventLoop, thread: threading.Thread, held: dict[str, Any]) -> None:
    """Cancel a model's requests still running, close its session and stop its event loop thread."""
    client = held.pop("client", None)
    if loop.is_running():
        try:
            asyncio.run_coroutine_threadsafe(_cancel_and_close(client), loop).result(timeout=10)
        except Exception:
            pass
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
    if not loop.is_running():
        loop.close()


async def _cancel_and_close(client: Client | None) -> None:
    """Cancel the requests still running on the loop (their callers get CancelledError, rather than
    waiting on a stopped loop for ever), then close the connections."""
    tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    if client is not None:
        await client.close()


async def _get_json(client: Client, url: str) -> Any:
    """The JSON at ``url`` after one try, or None (no answer, not 200, not JSON): for checks a server may skip."""
    try:
        status, _, body = await client.request("GET", url)
        return json.loads(body) if status == 200 else None
    except (TransportError, asyncio.TimeoutError, ValueError):
        return None


def _version() -> str:
    from gengap._version import __version__

    return __version__


def _model_ids(data: Any) -> list[str] | None:
    try:
        return [str(m["id"]) for m in data["data"]]
    except (KeyError, TypeError):
        return None


def _answer_logprob(logprobs: Any) -> float | None:
    """The summed log-probability of the answer's tokens, from a chat (``content: [{logprob}]``) or
    completions (``token_logprobs``) answer; None when the server sent none. Its ``exp`` is the
    model's confidence in the whole answer, stored per row.

    >>> _answer_logprob({"content": [{"token": "1", "logprob": -0.1}, {"token": "2", "logprob": -0.2}]})
    -0.30000000000000004
    >>> _answer_logprob({"token_logprobs": [-0.5, None]}), _answer_logprob(None)
    (-0.5, None)
    """
    if not isinstance(logprobs, dict):
        return None
    values = logprobs.get("content")
    tokens = logprobs.get("token_logprobs")
    found: list[Any] = ([v.get("logprob") for v in values if isinstance(v, dict)] if isinstance(values, list)
                        else tokens if isinstance(tokens, list) else [])
    numbers = [float(v) for v in found if isinstance(v, (int, float))]
    return float(sum(numbers)) if numbers else None


def _no_prompt_logprobs(detail: str) -> bool:
    text = detail.lower()
    return "logits_all" in text or ("logprobs" in text and "not supported" in text)


def _is_context_overflow(detail: str) -> bool:
    text = detail.lower()
    return "context" in text and any(w in text for w in ("exceed", "too long", "longer than", "maximum context",
                                                          "context length", "context window"))


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
    if math.isnan(seconds):
        return None
    return min(MAX_RETRY_AFTER, max(0.0, seconds))
