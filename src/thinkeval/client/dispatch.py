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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from thinkeval.client.endpoint import Endpoint, RequestFailed, Timed
from thinkeval.client.fingerprint import Fingerprint, fingerprint
from thinkeval.client.health import Reachability
from thinkeval.client.limits import EndpointLimits
from thinkeval.client.profiles import get_profile
from thinkeval.client.replicas import choose_replica
from thinkeval.client.session import open_session, ssl_context
from thinkeval.client.watchdog import Watchdog, WatchSettings, identity_probe
from thinkeval.errors import ServerError
from thinkeval.urls import api_url

if TYPE_CHECKING:  # the config is above the client: types only
    import aiohttp

    from thinkeval.config import ModelConfig


# A wait before a retry at least this long is shown on screen and in the heartbeat.
NOTICE_S = 10.0


@dataclass(frozen=True)
class Pause:
    """A long wait before a retry: which endpoint, how long and why, and the server's
    Retry-After when it asked for longer than `retry_after_max_s` allows."""

    endpoint: str
    seconds: float
    why: str
    until: float  # wall clock
    retry_after_s: float | None = None
    capped: bool = False

    def line(self) -> str:
        """`HTTP 429: busy from http://h/v1: Retry-After 999999 s, capped at 300 s
        (retry_after_max_s); retrying at 12:03:04`."""
        at = time.strftime("%H:%M:%S", time.localtime(self.until))
        if self.retry_after_s is not None:
            wait = f"Retry-After {self.retry_after_s:g} s"
            if self.capped:
                wait += f", capped at {self.seconds:g} s (retry_after_max_s)"
        else:
            wait = f"backing off {self.seconds:.0f} s"
        return f"{self.why} from {self.endpoint}: {wait}; retrying at {at}"


@dataclass
class Outcome:
    """The result of one logical request after all its tries."""

    timed: Timed | None
    failure: RequestFailed | None
    tries: int
    endpoint: str
    started_at: float
    # (reason, unix time) of each try a watchdog abandoned (client/watchdog.py).
    abandoned: list[tuple[str, float]] = field(default_factory=list)


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
    """Sends chat requests for one model with retries, a rate cap and replica choice.

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
        self._probes: aiohttp.ClientSession | None = None
        self._closing: set[asyncio.Future[None]] = set()  # sessions left after restarts
        self._retired: list[aiohttp.ClientSession] = []  # replaced, still carrying requests
        self.endpoints: list[Endpoint] = []
        self._rested_until: dict[Endpoint, float] = {}
        # Requests routed to each endpoint and not ended: counted from the choice on, so
        # requests chosen at the same moment see each other (client/replicas.py).
        self._routed: dict[Endpoint, int] = {}
        self._failures: dict[Endpoint, int] = {}
        self._limits = limits or EndpointLimits()
        self._slots: dict[str, asyncio.Semaphore] = {}
        self.health = Reachability(config.unreachable_after_s)
        self.pause: Pause | None = None  # the latest long wait before a retry

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
                stream_idle_s=self.config.stream_idle_s,
            )
            for url in urls
        ]
        self._watch(https)
        for endpoint in self.endpoints:
            slot = self._limits.semaphore(endpoint.base_url)
            if slot is not None:
                self._slots[endpoint.base_url] = slot
        return self

    def _watch(self, https: bool) -> None:
        """Give each endpoint a watchdog, probing over a session that never reuses a
        connection (one kept alive to a server that stopped listening would hang too)."""
        import aiohttp

        settings = WatchSettings(
            self.config.probe_interval_s, self.config.deadline_factor, self.config.deadline_min_s
        )
        if settings.probe_interval_s is None and settings.deadline_factor is None:
            return
        connector = aiohttp.TCPConnector(force_close=True, ssl=ssl_context() if https else True)
        self._probes = aiohttp.ClientSession(connector=connector, trust_env=False)
        for endpoint in self.endpoints:
            load_path = self.profile.load_path
            load = api_url(endpoint.root, load_path, origin=True) if load_path is not None else None
            models = api_url(endpoint.root, "models")
            probe = identity_probe(
                self._probes, models, load, endpoint.headers, self.profile.read_load
            )
            endpoint.watchdog = Watchdog(
                settings, probe, on_down=self._retire_session, on_restart=self._restarted
            )

    def _retire_session(self) -> None:
        """New requests go over a new session, since the old one's pooled connections may lead
        to a process that stopped listening (a request on one would hang); the requests in
        flight keep theirs until `_restarted` closes them."""
        old = self._session
        https = any(urlsplit(url).scheme == "https" for url in self.config.base_urls)
        self._session = open_session(self.config.concurrency, https)
        for endpoint in self.endpoints:
            endpoint.session = self._session
        if old is not None:
            self._retired.append(old)

    def _restarted(self, seen_down: bool) -> None:
        """A server restarted: close the sessions that lead to the old process, which ends the
        requests held there (abandoned already). Seen down first, the session in use was opened
        since and leads to the fresh server: its requests go on."""
        if not seen_down:
            self._retire_session()
        for old in self._retired:
            self._closing.add(asyncio.ensure_future(old.close()))
        self._retired.clear()

    async def __aexit__(self, *exc: object) -> None:
        for endpoint in self.endpoints:
            if endpoint.watchdog is not None:
                await endpoint.watchdog.close()
        if self._probes is not None:
            await self._probes.close()
        for old in self._retired:
            self._closing.add(asyncio.ensure_future(old.close()))
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)
        if self._session is not None:
            await self._session.close()

    def _choose(self, affinity: str | None) -> Endpoint:
        now = time.monotonic()
        pool = [e for e in self.endpoints if self._rested_until.get(e, 0.0) <= now]
        pool = pool or self.endpoints
        # A replica at its shared cap (limits.py) would hold the request in the client while
        # another has room: choose among those with room while there are any.
        pool = [e for e in pool if not self._capped(e)] or pool
        urls = [e.base_url for e in pool]
        load = self._routed.get
        chosen = choose_replica(pool, urls, lambda e: load(e, 0), affinity, self.config.route)
        self._routed[chosen] = self._routed.get(chosen, 0) + 1
        return chosen

    def _capped(self, endpoint: Endpoint) -> bool:
        slot = self._slots.get(endpoint.base_url)
        return slot is not None and slot.locked()

    def _backoff(self, attempt: int, failure: RequestFailed, endpoint: str) -> float:
        """The wait before retry `attempt + 1`: exponential backoff with full jitter, at least
        the server's Retry-After up to `retry_after_max_s`. A long one is kept in `pause`."""
        cap = min(self.config.retry_backoff_max_s, self.config.retry_backoff_s * 2**attempt)
        delay = self._rng.uniform(0, cap)
        asked = failure.retry_after_s
        capped = asked is not None and asked > self.config.retry_after_max_s
        if asked is not None:
            delay = max(delay, min(asked, self.config.retry_after_max_s))
        if delay >= NOTICE_S or capped:
            self.pause = Pause(endpoint, delay, failure.message, time.time() + delay, asked, capped)
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

    async def chat(
        self, body: dict[str, Any], *, completion: bool = False, affinity: str | None = None
    ) -> Outcome:
        """Send `body`, retrying what can be retried; never raises for transport problems.

        `completion`: to `/v1/completions` (a continuation), not `/v1/chat/completions`.
        `affinity`: the prompt's key; every request with the same key goes to the same replica
        while it has room (`replicas.py`), so its prefix cache serves the repeats.
        Raises `ServerError` when the server speaks another API than the model's `api`.
        """
        started_at = time.time()
        failure: RequestFailed | None = None
        abandoned: list[tuple[str, float]] = []
        deadline_ok = True  # a request abandoned past its deadline is asked once more, no more
        last_url = ""  # the replica the previous try went to, named by a long wait
        for attempt in range(self.config.max_retries + 1):
            if attempt:
                assert failure is not None
                await asyncio.sleep(self._backoff(attempt - 1, failure, last_url))
            if self._rate is not None:
                await self._rate.wait()
            endpoint = self._choose(affinity)  # counted in _routed until _send ends
            last_url = endpoint.base_url
            token = self.health.started()
            try:
                timed = await self._send(endpoint, body, completion, deadline_ok)
            except RequestFailed as exc:
                if exc.kind == "wrong_api":
                    # Every request of this model would fail the same way: stop, say why.
                    raise ServerError(f"{endpoint.base_url}: {exc.message}") from None
                failure = exc
                if exc.abandoned is not None:
                    abandoned.append((exc.abandoned, time.time()))
                    deadline_ok = deadline_ok and exc.abandoned != "past_deadline"
                self.health.ended(token, endpoint.base_url, exc)
                self._mark(endpoint, exc)
                if not exc.retryable:
                    break
                continue
            self.health.ended(token, endpoint.base_url, None)
            self._mark(endpoint, None)
            return Outcome(timed, None, attempt + 1, endpoint.base_url, started_at, abandoned)
        assert failure is not None
        tries = attempt + 1
        return Outcome(None, failure, tries, endpoint.base_url, started_at, abandoned)

    async def _send(
        self, endpoint: Endpoint, body: dict[str, Any], completion: bool, deadline_ok: bool
    ) -> Timed:
        async def send() -> Timed:
            if completion:
                return await endpoint.completions(body)
            return await endpoint.chat(body, deadline_ok)

        slot = self._slots.get(endpoint.base_url)
        try:
            if slot is None:
                return await send()
            async with slot:  # a server shared with other models: wait for one of its slots
                return await send()
        finally:
            self._routed[endpoint] -= 1

    async def fingerprints(self) -> list[Fingerprint]:
        """Every replica's fingerprint (`fingerprint.py`), read side by side."""
        assert self._session is not None
        model = self.config.served_model
        found = [fingerprint(self._session, e, model) for e in self.endpoints]
        return list(await asyncio.gather(*found))

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
