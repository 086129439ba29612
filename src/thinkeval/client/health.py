"""Is a model's server still there? Tracks the tries of one model and says when it is gone.

A server that died refuses every connection; retrying with backoff would spend most of an hour
before each request gives up. A model counts as *unreachable* from the first try that failed
with a connection error (refused, reset, closed without a reply) or a gateway's 502/503/504
after the last sign of life (any other reply, a success above all). It is *gone* once that has
lasted `window_s` seconds and every try started meanwhile has failed the same way: a try still
open is a server that may be working on it (a thinking model's reply can take minutes), so it
holds the verdict back until it ends.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from thinkeval.client.endpoint import RequestFailed

# HTTP statuses that say the server behind a proxy or load balancer is not there.
_GATEWAY_STATUSES = frozenset({502, 503, 504})
# Consecutive failures before the model is reported unreachable: one dropped connection among
# long replies is not an outage.
REPORT_AFTER_FAILURES = 3


def is_unreachable(failure: RequestFailed) -> bool:
    """Whether `failure` says nothing answered (as opposed to a server that answered badly)."""
    if failure.kind == "connection":
        return failure.http_status is None  # not a reply cut off after its 200
    return failure.http_status in _GATEWAY_STATUSES


@dataclass(frozen=True)
class Outage:
    """Every try of a model has failed since `since` (wall clock), the last with `last_error`."""

    since: float
    failures: int
    last_error: str
    endpoint: str


class Reachability:
    """The reachability of one model's endpoints, fed by its dispatcher's tries.

    `started()` before a try (before it waits for a shared endpoint slot: waiting is not
    failing) returns a token that goes back with `ended()`. `gone` is set once the model has
    been unreachable for `window_s` (None: never).
    """

    def __init__(self, window_s: float | None) -> None:
        self.window_s = window_s
        self.gone = asyncio.Event()
        self._since: float | None = None  # monotonic start of the current outage
        self._since_wall = 0.0
        self._failures = 0
        self._last_error = ""
        self._endpoint = ""
        self._episode = 0  # numbers outages, so a try knows whether it started in this one
        self._open = 0  # tries started during the current outage and not ended
        self._timer: asyncio.TimerHandle | None = None

    def started(self) -> int:
        """Call before a try; pass the result to `ended`."""
        if self._since is None:
            return 0
        self._open += 1
        return self._episode

    def ended(self, token: int, endpoint: str, failure: RequestFailed | None) -> None:
        """Call after a try with its failure (None: it got a reply)."""
        if token and token == self._episode:
            self._open -= 1
        if failure is None or not is_unreachable(failure):
            if failure is None or failure.http_status is not None:
                self._recover()  # a reply, even an error reply, is a sign of life
            return
        if self._since is None:
            self._begin()
        self._failures += 1
        self._last_error = failure.message
        self._endpoint = endpoint
        self._check()

    @property
    def outage(self) -> Outage | None:
        """The current outage once it is more than a stray failure, else None."""
        if self._since is None or self._failures < REPORT_AFTER_FAILURES:
            return None
        return Outage(self._since_wall, self._failures, self._last_error, self._endpoint)

    def _begin(self) -> None:
        self._since = time.monotonic()
        self._since_wall = time.time()
        self._failures = 0
        self._episode += 1
        self._open = 0
        if self.window_s is not None:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(self.window_s, self._check)

    def _recover(self) -> None:
        self._since = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _check(self) -> None:
        since, window = self._since, self.window_s
        if since is None or window is None or self.gone.is_set():
            return
        # Two failures at least: a lone failure followed by a long backoff is too little to go on.
        if time.monotonic() - since >= window and self._open == 0 and self._failures >= 2:
            self.gone.set()
