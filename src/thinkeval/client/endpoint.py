"""One OpenAI-compatible server: its requests go over aiohttp, its replies come back normalised.

The endpoint speaks HTTP: headers and credentials, the proxy, timeouts that fit each request's
budget and its requests in flight (`in_flight.py`), capped bodies and server-sent events read
line by line (`bodies.py`). What the bodies mean belongs to the model's server profile
(`profiles/`): every reply becomes one `Reply`, and every failure one `RequestFailed` that
says whether trying again can help. Retries, limits and the journal live above, in
`dispatch.py`.

>>> async with open_session(concurrency=64, https=False) as session:
...     endpoint = Endpoint(session, "http://127.0.0.1:8000/v1", api_key=None, timeout_s=600)
...     timed = await endpoint.chat(get_profile("vllm").request("m", messages, 2048, {}, False))
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import orjson

from thinkeval.client.bodies import MAX_ERROR_BYTES, MAX_REPLY_BYTES, lines, read_capped, read_head
from thinkeval.client.continuation import parse_text_completion
from thinkeval.client.in_flight import LISTING_S, InFlight, request_timeout_s
from thinkeval.client.profiles import DEFAULT_API, ServerProfile, get_profile
from thinkeval.client.replies import RequestFailed
from thinkeval.client.session import (
    CONNECT_TIMEOUT_S,
    basic_auth,
    netrc_credentials,
    proxy_for,
    split_credentials,
)
from thinkeval.client.transport import transport_failure
from thinkeval.client.watchdog import Watchdog
from thinkeval.records import Reply
from thinkeval.urls import api_url, redact_url, url_path
from thinkeval.version import __version__

__all__ = ["MAX_REPLY_BYTES", "Endpoint", "RequestFailed", "Timed"]


@dataclass
class Timed:
    """A reply with the client-side timings of the try that produced it.

    `message` is the raw `choices[0].message` of a non-streamed reply (None for a stream), for
    `thinkeval check` to say which field carried the reasoning.
    """

    reply: Reply
    latency_s: float
    ttft_s: float | None
    message: dict[str, Any] | None = None


class Endpoint:
    """One base URL of an OpenAI-compatible server, sharing the caller's session (connections).

    The proxy and credentials are settled here, once: user:password in the URL becomes Basic
    auth, an API key a Bearer token, else `.netrc` may give Basic auth; `HTTP(S)_PROXY` and
    `NO_PROXY` say whether a proxy carries the requests. `base_url` is the URL as shown:
    credentials redacted.
    """

    def __init__(
        self,
        session: aiohttp.ClientSession,
        base_url: str,
        api_key: str | None,
        timeout_s: float | None,
        stream: bool = False,
        *,
        profile: ServerProfile | None = None,
        stream_idle_s: float | None = None,
    ) -> None:
        given = base_url.rstrip("/")
        self.session = session
        self.base_url = redact_url(given)
        self.root, basic = split_credentials(given)
        self._chat_url = api_url(self.root, "chat/completions")
        self.profile = profile or get_profile(DEFAULT_API)
        self.timeout_s = timeout_s
        self.stream = stream
        self.in_flight = InFlight()  # least-loaded endpoint choice; what a run waits on
        self.proxy = proxy_for(self.root)
        listing = timeout_s or LISTING_S
        self._timeout = aiohttp.ClientTimeout(
            total=listing, sock_connect=min(listing, CONNECT_TIMEOUT_S)
        )
        # A stream that sends nothing this long is a hung reply (client/watchdog.py).
        self.stream_idle_s = stream_idle_s if stream else None
        self._timeouts: dict[tuple[float, float | None], aiohttp.ClientTimeout] = {}
        self.watchdog: Watchdog | None = None  # set by the dispatcher
        self._headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": f"thinkeval/{__version__}",
        }
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        elif basic:
            self._headers["Authorization"] = basic
        elif (host := urlsplit(self.root).hostname) and (found := netrc_credentials(host)):
            self._headers["Authorization"] = basic_auth(*found)
        for name, value in self._headers.items():
            if "\r" in value or "\n" in value:
                # It would smuggle a header, or a second request, onto the connection.
                raise ValueError(f"request header {name!r} contains a line break")

    async def models(self) -> list[dict[str, Any]]:
        """The `/v1/models` cards (id, root, max_model_len, owned_by, ...).

        A base URL without `/v1` that gets a 404 is tried once more with it, to say so.
        """
        try:
            return await self._models(self.root)
        except RequestFailed as exc:
            if exc.http_status != 404 or url_path(self.root).endswith("/v1"):
                raise
            try:
                await self._models(api_url(self.root, "v1"))
            except RequestFailed:
                raise exc from None
            raise RequestFailed(
                kind="wrong_base_url",
                message=f"{api_url(self.base_url, 'models')} answered HTTP 404; did you mean "
                f"{api_url(self.base_url, 'v1')}? (/v1/models answers there)",
                retryable=False,
                http_status=404,
            ) from None

    async def _models(self, root: str) -> list[dict[str, Any]]:
        try:
            async with self.session.get(
                api_url(root, "models"),
                headers=self._headers,
                proxy=self.proxy,
                timeout=self._timeout,
            ) as resp:
                if resp.status != 200:
                    raw = await read_head(resp, MAX_ERROR_BYTES)
                    raise self.profile.failure(resp.status, raw, resp.headers.get("Retry-After"))
                raw = await read_capped(resp)
        except TimeoutError:
            raise RequestFailed(
                kind="timeout", message="GET /models timed out", retryable=True
            ) from None
        except aiohttp.ClientError as exc:
            raise transport_failure(exc, self.base_url) from None
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError:
            raise RequestFailed(
                kind="malformed", message="/models reply is not JSON", retryable=True
            ) from None
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list):
            raise RequestFailed(
                kind="malformed", message="/models reply has no 'data' list", retryable=False
            )
        return [card for card in data if isinstance(card, dict)]

    @property
    def outstanding(self) -> int:
        """Requests in flight at this endpoint."""
        return len(self.in_flight)

    def _limits(self, body: dict[str, Any]) -> tuple[float, aiohttp.ClientTimeout]:
        """The limit of one request (`in_flight.request_timeout_s`) and its aiohttp timeout."""
        budget = body.get(self.profile.budget_field, body.get("max_tokens"))
        limit = request_timeout_s(budget if isinstance(budget, int) else None, self.timeout_s)
        key = (limit, self.stream_idle_s)
        timeout = self._timeouts.get(key)
        if timeout is None:  # one per limit: a run has a few (ClientTimeout is immutable)
            timeout = self._timeouts[key] = aiohttp.ClientTimeout(
                total=limit,
                sock_connect=min(limit, CONNECT_TIMEOUT_S),
                sock_read=self.stream_idle_s,
            )
        return limit, timeout

    @property
    def headers(self) -> dict[str, str]:
        """The request headers (with the Authorization this endpoint sends)."""
        return dict(self._headers)

    async def chat(self, body: dict[str, Any], deadline_ok: bool = True) -> Timed:
        """Send one chat completion; return the normalised reply or raise `RequestFailed`.

        Under a watchdog the request is abandoned (`RequestFailed` of kind `abandoned`) when the
        server restarted or the request ran past its deadline (`deadline_ok`)."""
        watchdog = self.watchdog
        if watchdog is None:
            return await self._chat(body)
        budget = body.get(self.profile.budget_field)
        key, abandon = watchdog.begin(budget if isinstance(budget, int) else 0, deadline_ok)
        inner = asyncio.ensure_future(self._chat(body))
        # When this call is cancelled (its model stopped) as the request fails, nobody reads the
        # failure: mark it read so asyncio does not print it as a traceback at exit.
        inner.add_done_callback(_mark_retrieved)
        tokens = latency = None
        try:
            waiting: set[asyncio.Future[Any]] = {inner, abandon}
            await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
            if inner.done():
                timed = inner.result()
                tokens, latency = timed.reply.usage.completion_tokens, timed.latency_s
                return timed
            reason = abandon.result()
            raise RequestFailed(
                kind="abandoned",
                message=f"abandoned in flight: {reason.replace('_', ' ')}",
                retryable=True,
                abandoned=reason,
            )
        finally:
            watchdog.end(key, tokens, latency)
            if not inner.done():
                inner.cancel()

    async def _chat(self, body: dict[str, Any]) -> Timed:
        payload = orjson.dumps(body)
        started = time.perf_counter()
        message: dict[str, Any] | None = None
        ttft: float | None = None
        limit, timeout = self._limits(body)
        sent = self.in_flight.send(limit)
        try:
            async with self.session.post(
                self._chat_url,
                data=payload,
                headers=self._headers,
                proxy=self.proxy,
                timeout=timeout,
            ) as resp:
                if resp.status != 200:
                    raw = await read_head(resp, MAX_ERROR_BYTES)
                    raise self.profile.failure(resp.status, raw, resp.headers.get("Retry-After"))
                if self.stream:
                    reply, ttft = await self._read_stream(resp, started)
                else:
                    raw = await read_capped(resp)
                    try:
                        parsed = orjson.loads(raw)
                    except orjson.JSONDecodeError:
                        snippet = raw[:120].decode("utf-8", "replace")
                        raise RequestFailed(
                            kind="malformed",
                            message=f"reply is not valid JSON: {snippet!r}",
                            retryable=True,
                            http_status=200,
                        ) from None
                    reply, message = self.profile.parse(parsed)
        except TimeoutError as exc:
            if isinstance(exc, aiohttp.SocketTimeoutError) and self.stream_idle_s is not None:
                raise RequestFailed(
                    kind="abandoned",
                    message=f"abandoned in flight: stream idle for {self.stream_idle_s:g} s",
                    retryable=True,
                    abandoned="stream_idle",
                ) from None
            raise _timed_out(limit) from None
        except aiohttp.ClientError as exc:
            raise transport_failure(exc, self.base_url) from None
        finally:
            self.in_flight.end(sent)
        return Timed(reply, time.perf_counter() - started, ttft, message)

    async def completions(self, body: dict[str, Any]) -> Timed:
        """Send one `/v1/completions` request (a continuation, `continuation.py`); return its
        raw text as the reply's content, or raise `RequestFailed`."""
        started = time.perf_counter()
        limit, timeout = self._limits(body)
        sent = self.in_flight.send(limit)
        try:
            async with self.session.post(
                api_url(self.root, "completions"),
                data=orjson.dumps(body),
                headers=self._headers,
                proxy=self.proxy,
                timeout=timeout,
            ) as resp:
                if resp.status != 200:
                    raw = await read_head(resp, MAX_ERROR_BYTES)
                    raise self.profile.failure(resp.status, raw, resp.headers.get("Retry-After"))
                raw = await read_capped(resp)
        except TimeoutError:
            raise _timed_out(limit) from None
        except aiohttp.ClientError as exc:
            raise transport_failure(exc, self.base_url) from None
        finally:
            self.in_flight.end(sent)
        try:
            parsed = orjson.loads(raw)
        except orjson.JSONDecodeError:
            raise RequestFailed(
                kind="malformed",
                message="completion reply is not valid JSON",
                retryable=True,
                http_status=200,
            ) from None
        return Timed(parse_text_completion(parsed), time.perf_counter() - started, None)

    async def _read_stream(
        self, resp: aiohttp.ClientResponse, started: float
    ) -> tuple[Reply, float | None]:
        """Read server-sent events (§3) to the end of the body, so the connection is reused."""
        assembly = self.profile.stream(started)
        done = False
        async for line in lines(resp.content):
            if done or not line.startswith(b"data:"):
                continue  # blank separators, ": keep-alive" comments, what follows [DONE]
            data = line[5:].strip()
            if data == b"[DONE]":
                done = True
                continue
            try:
                event = orjson.loads(data)
            except orjson.JSONDecodeError:
                raise RequestFailed(
                    kind="malformed",
                    message="stream event is not valid JSON",
                    retryable=True,
                    http_status=200,
                ) from None
            assembly.add(event)
        if not done and not assembly.finished:
            raise RequestFailed(
                kind="connection",
                message="stream ended before [DONE]",
                retryable=True,
                http_status=200,
            )
        return assembly.reply(), assembly.ttft


def _timed_out(limit_s: float) -> RequestFailed:
    return RequestFailed(
        kind="timeout", message=f"no complete reply within {limit_s:g} s", retryable=True
    )


def _mark_retrieved(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()
