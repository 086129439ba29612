"""The policy above the endpoints: retries with backoff, the request rate, endpoint choice.

Every request of a model goes through one `Dispatcher`, so retry rules and limits live in one
place whatever server sits behind. Concurrency is bounded by the caller's workers; the session
(`session.py`) holds a keep-alive connection per request in flight, up to the model's
`concurrency`, shared by its endpoints.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from thinkeval.client.endpoint import Endpoint, RequestFailed, Timed
from thinkeval.client.health import Reachability
from thinkeval.client.limits import EndpointLimits
from thinkeval.client.profiles import get_profile
from thinkeval.client.session import open_session
from thinkeval.errors import ServerError

if TYPE_CHECKING:  # the config is above the client: types only
    import aiohttp

    from thinkeval.config import ModelConfig


@dataclass
class Outcome:
    """The result of one logical request after all its tries."""

    timed: Timed | None
    failure: RequestFailed | None
    tries: int
    endpoint: str
    started_at: float


class RateLimiter:
    """Spaces request starts at least `1 / rate` seconds apart (no bursts: servers see an even
    stream, which is what a rate cap is for)."""

    def __init__(self, rate: float) -> None:
        self._interval = 1.0 / rate
        self._next = 0.0
        self._lock = asyncio.Lock()

    async def wait(self) -> None:
        async with self._lock:
            now = time.monotonic()
            delay = self._next - now
            self._next = max(now, self._next) + self._interval
        if delay > 0:
            await asyncio.sleep(delay)


class Dispatcher:
    """Sends chat requests for one model with retries, a rate cap and least-loaded endpoints.

    Retries happen on connection errors, timeouts, malformed replies, 408, 429 and 5xx only,
    with exponential backoff and full jitter that honours Retry-After. A failing endpoint is
    rested (skipped while others are healthy) with its own backoff. `limits` caps the requests
    at servers shared with other models; `health` follows whether any endpoint still answers.
    """

    def __init__(
        self, config: ModelConfig, *, seed: int | None = None, limits: EndpointLimits | None = None
    ) -> None:
        self.config = config
        self._api_key = config.api_key()
        self._rng = random.Random(seed)
        self._rate = RateLimiter(config.request_rate) if config.request_rate else None
        self.profile = get_profile(config.api)
        self._session: aiohttp.ClientSession | None = None
        self.endpoints: list[Endpoint] = []
        self._rested_until: dict[Endpoint, float] = {}
        self._failures: dict[Endpoint, int] = {}
        self._limits = limits or EndpointLimits()
        self._slots: dict[str, asyncio.Semaphore] = {}
        self.health = Reachability(config.unreachable_after_s)

    async def __aenter__(self) -> Dispatcher:
        urls = self.config.base_urls
        https = any(urlsplit(url).scheme == "https" for url in urls)
        self._session = open_session(self.config.concurrency, https)
        self.endpoints = [
            Endpoint(
                self._session,
                url,
                self._api_key,
                self.config.timeout_s,
                self.config.stream,
                profile=self.profile,
            )
            for url in urls
        ]
        for endpoint in self.endpoints:
            slot = self._limits.semaphore(endpoint.base_url)
            if slot is not None:
                self._slots[endpoint.base_url] = slot
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._session is not None:
            await self._session.close()

    def _choose(self) -> Endpoint:
        now = time.monotonic()
        healthy = [e for e in self.endpoints if self._rested_until.get(e, 0.0) <= now]
        pool = healthy or self.endpoints
        return min(pool, key=lambda e: e.outstanding)

    def _backoff(self, attempt: int, failure: RequestFailed) -> float:
        cap = min(self.config.retry_backoff_max_s, self.config.retry_backoff_s * 2**attempt)
        delay = self._rng.uniform(0, cap)
        if failure.retry_after_s is not None:
            delay = max(delay, failure.retry_after_s)
        return delay

    def _mark(self, endpoint: Endpoint, failure: RequestFailed | None) -> None:
        # The server answered 408 or 429: the endpoint is up, only busy, so it does not rest.
        answered = failure is not None and 400 <= (failure.http_status or 0) < 500
        if failure is None or not failure.retryable or answered:
            self._failures.pop(endpoint, None)
            self._rested_until.pop(endpoint, None)
            return
        count = self._failures.get(endpoint, 0) + 1
        self._failures[endpoint] = count
        if len(self.endpoints) > 1:
            rest = min(self.config.retry_backoff_max_s, self.config.retry_backoff_s * 2**count)
            self._rested_until[endpoint] = time.monotonic() + rest

    async def chat(self, body: dict[str, Any], *, completion: bool = False) -> Outcome:
        """Send `body`, retrying what can be retried; never raises for transport problems.

        `completion`: to `/v1/completions` (a continuation), not `/v1/chat/completions`.
        Raises `ServerError` when the server speaks another API than the model's `api`.
        """
        started_at = time.time()
        failure: RequestFailed | None = None
        for attempt in range(self.config.max_retries + 1):
            if attempt:
                await asyncio.sleep(self._backoff(attempt - 1, failure))  # type: ignore[arg-type]
            endpoint = self._choose()
            if self._rate is not None:
                await self._rate.wait()
            token = self.health.started()
            try:
                timed = await self._send(endpoint, body, completion)
            except RequestFailed as exc:
                if exc.kind == "wrong_api":
                    # Every request of this model would fail the same way: stop, say why.
                    raise ServerError(f"{endpoint.base_url}: {exc.message}") from None
                failure = exc
                self.health.ended(token, endpoint.base_url, exc)
                self._mark(endpoint, exc)
                if not exc.retryable:
                    break
                continue
            self.health.ended(token, endpoint.base_url, None)
            self._mark(endpoint, None)
            return Outcome(timed, None, attempt + 1, endpoint.base_url, started_at)
        assert failure is not None
        tries = attempt + 1
        return Outcome(None, failure, tries, endpoint.base_url, started_at)

    async def _send(self, endpoint: Endpoint, body: dict[str, Any], completion: bool) -> Timed:
        send = endpoint.completions if completion else endpoint.chat
        slot = self._slots.get(endpoint.base_url)
        if slot is None:
            return await send(body)
        async with slot:  # a server shared with other models: wait for one of its slots
            return await send(body)

    async def models(self) -> tuple[Endpoint, list[dict[str, Any]]]:
        """The `/v1/models` cards of the first endpoint that answers."""
        last: RequestFailed | None = None
        for endpoint in self.endpoints:
            try:
                return endpoint, await endpoint.models()
            except RequestFailed as exc:
                last = exc
        assert last is not None
        raise last
