"""Watchdogs over the requests in flight at one server: restarts, and requests past a deadline.

A per-request timeout alone (an hour by default) cannot tell a long reply from a lost one. A
server given SIGTERM may stop listening yet keep its open connections without ever answering;
a redeployed pod or a proxy that drops a connection silently does the same. So, while an
endpoint has requests in flight, its watchdog:

- **probes the server's identity** every `probe_interval_s` on a connection of its own: a
  server that refused the probe and then answered again, or whose start time (where its server
  profile reads one, e.g. `/metrics` `process_start_time_seconds`) changed, was restarted, and
  every request sent before the restart is abandoned (its reply can never come) and asked again;
- **compares the server's load with the requests it should be holding**: a server whose own
  count of requests (read by its profile's `read_load` at its `load_path`) stays below
  this client's requests in flight there at every probe for `lost_after_s` (30 s) has lost the
  difference (a fresh server on the port knows nothing of them), and that many of the oldest
  are abandoned and asked again (sooner, a slow server's queue would pass for a loss). Other
  clients' requests only hide a loss, never invent one;
- **holds each request to a deadline** derived from its token budget and the fastest reply
  rate seen at this server: `max(deadline_min_s, deadline_factor * max_tokens / rate)`. A
  request past it is abandoned and asked again once; the second try has only the timeout.

Streaming replies have a third watchdog in the endpoint itself: `stream_idle_s` without a byte.
An abandoned request becomes a `RequestFailed` of kind `abandoned` with a typed reason; the
dispatcher journals it with the attempt (never as the model's answer) and asks again within
its `max_retries`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

import aiohttp

from thinkeval.client.profiles.base import ServerLoad

AbandonReason = Literal["server_restarted", "lost_at_server", "past_deadline", "stream_idle"]
Probe = Callable[[], Awaitable["Identity"]]


@dataclass(frozen=True)
class Identity:
    """What one probe saw: `down` (refused, reset), `up` with a start time when the server
    tells one, or neither (the probe timed out: a busy server is not a restarted one)."""

    down: bool = False
    up: bool = False
    started: float | None = None
    busy: int | None = None  # requests the server says it holds, where it says


@dataclass(frozen=True)
class WatchSettings:
    """A model's watchdog settings (docs/operations.md); None switches a watchdog off."""

    probe_interval_s: float | None = 15.0
    deadline_factor: float | None = 4.0
    deadline_min_s: float = 600.0
    # How long a server must hold too few requests, probe after probe, before the oldest count
    # as lost: a slow server (llama.cpp on a busy CPU takes seconds per step) holds a request
    # in its queue, not yet in a slot, for longer than two probes.
    lost_after_s: float = 30.0


@dataclass
class _Flight:
    epoch: int
    max_tokens: int
    started: float
    deadline_ok: bool  # False once abandoned for its deadline: the re-ask has only the timeout
    abandon: asyncio.Future[AbandonReason]


@dataclass
class Watchdog:
    """The watchdog of one endpoint (see the module docstring)."""

    settings: WatchSettings
    probe: Probe
    epoch: int = 0  # bumped at each restart seen
    restarts: int = 0
    _flights: dict[int, _Flight] = field(default_factory=dict)
    _next_id: int = 0
    _rate: float | None = None  # completion tokens per second of the fastest reply seen
    _was_down: bool = False
    _down_at: float | None = None  # when a probe first found the server down (monotonic)
    _started: float | None = None
    _task: asyncio.Task[None] | None = None
    _short: tuple[float, int] | None = None  # (when, how many) the server last held too few
    # Called when a probe first finds the server down: new requests go over new connections
    # (pooled ones may lead to the old process), those in flight keep theirs.
    on_down: Callable[[], None] | None = None
    # Called at a restart, after the lost requests are abandoned, with whether the server was
    # seen down first: the dispatcher closes the connections that lead to the old process.
    on_restart: Callable[[bool], None] | None = None

    def begin(
        self, max_tokens: int, deadline_ok: bool = True
    ) -> tuple[int, asyncio.Future[AbandonReason]]:
        """Register a request; its future resolves with a reason if it must be abandoned."""
        abandon: asyncio.Future[AbandonReason] = asyncio.get_running_loop().create_future()
        key = self._next_id
        self._next_id += 1
        now = time.monotonic()
        self._flights[key] = _Flight(self.epoch, max_tokens, now, deadline_ok, abandon)
        interval = self.settings.probe_interval_s
        if interval is not None and (self._task is None or self._task.done()):
            self._task = asyncio.create_task(self._watch(interval))
        return key, abandon

    def end(self, key: int, tokens: int | None, latency_s: float | None) -> None:
        """A request ended; a reply with its completion tokens teaches the token rate."""
        self._flights.pop(key, None)
        if tokens and latency_s and latency_s > 0:
            rate = tokens / latency_s
            self._rate = rate if self._rate is None else max(self._rate, rate)

    def deadline_s(self, max_tokens: int) -> float | None:
        """The deadline of a request of `max_tokens` now, or None (no rate seen, or off)."""
        factor = self.settings.deadline_factor
        if factor is None or self._rate is None:
            return None
        return max(self.settings.deadline_min_s, factor * max_tokens / self._rate)

    def observe(self, seen: Identity) -> None:
        """Take one probe's result; abandon what a restart lost."""
        if seen.down:
            if not self._was_down:
                self._down_at = time.monotonic()
                if self.on_down is not None:
                    self.on_down()
            self._was_down = True
            return
        if not seen.up:
            return
        restarted = self._was_down
        down_at = self._down_at if self._was_down else None
        if seen.started is not None:
            changed = self._started is not None and seen.started != self._started
            restarted = restarted or changed
            self._started = seen.started
        self._was_down = False
        self._compare_load(seen.busy)
        if restarted:
            self.restarts += 1
            lost = self.epoch
            self.epoch += 1
            for flight in self._flights.values():
                # Sent after the server was seen down, a request found the port closed (and
                # failed) or the fresh server: it is not lost. Abandoning it would ask it again
                # from scratch, and a slow server would never see the end of it.
                sent_to_fresh = down_at is not None and flight.started >= down_at
                if flight.epoch <= lost and not sent_to_fresh:
                    _resolve(flight.abandon, "server_restarted")
            if self.on_restart is not None:
                self.on_restart(down_at is not None)
        self._down_at = None

    def _compare_load(self, busy: int | None) -> None:
        """Abandon the oldest requests a server has held too few of at every probe for
        `lost_after_s` (and at least two probes in a row): as many as it was short all along."""
        if busy is None:
            return  # the load went untold (a probe timed out on a busy server): no news
        now = time.monotonic()
        waiting = [f for f in self._flights.values() if not f.abandon.done()]
        short = len(waiting) - busy
        if short <= 0:
            self._short = None
            return
        if self._short is None:
            self._short = (now, short)
            return
        since, before = self._short
        if now - since < self.settings.lost_after_s:
            self._short = (since, min(before, short))
            return
        older = sorted((f for f in waiting if f.started < since), key=lambda f: f.started)
        for flight in older[: min(short, before)]:
            _resolve(flight.abandon, "lost_at_server")
        self._short = (now, short)

    def check_deadlines(self) -> None:
        """Abandon requests past their deadline."""
        now = time.monotonic()
        for flight in self._flights.values():
            limit = self.deadline_s(flight.max_tokens) if flight.deadline_ok else None
            if limit is not None and now - flight.started > limit:
                _resolve(flight.abandon, "past_deadline")

    async def _watch(self, interval: float) -> None:
        while self._flights:
            await asyncio.sleep(interval)
            if not self._flights:
                break
            self.check_deadlines()
            self.observe(await self.probe())

    async def close(self) -> None:
        """Stop probing (the run is over)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


def _resolve(future: asyncio.Future[AbandonReason], reason: AbandonReason) -> None:
    if not future.done():
        future.set_result(reason)


def identity_probe(
    session: aiohttp.ClientSession,
    models_url: str,
    load_url: str | None,
    headers: dict[str, str],
    read_load: Callable[[bytes], ServerLoad],
    timeout_s: float = 10.0,
) -> Probe:
    """A probe of one server over `session` (one that never reuses a connection: a kept-alive
    connection to a server that stopped listening would hang like the requests it watches).

    `load_url` is where the server tells its start time and load, and `read_load` reads what
    it says there (the server profile's `load_path` and `read_load`); None where it tells
    neither."""
    timeout = aiohttp.ClientTimeout(total=timeout_s)

    async def probe() -> Identity:
        try:
            async with session.get(models_url, headers=headers, timeout=timeout) as resp:
                await resp.read()
        except (aiohttp.ClientConnectorError, aiohttp.ServerDisconnectedError, ConnectionError):
            return Identity(down=True)
        except (TimeoutError, aiohttp.ClientError):
            return Identity()
        if load_url is None:
            return Identity(up=True)
        try:
            async with session.get(load_url, headers=headers, timeout=timeout) as resp:
                raw = await resp.read() if resp.status == 200 else b""
        except (TimeoutError, aiohttp.ClientError):
            raw = b""
        load = read_load(raw)
        return Identity(up=True, started=load.started, busy=load.busy)

    return probe
