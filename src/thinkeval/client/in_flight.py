"""The requests in flight at one endpoint, and how long each may take.

A request's limit fits its budget unless the model's `timeout_s` sets one:
`max(MIN_REQUEST_S, max_tokens / SLOWEST_TOKENS_PER_S)`, 600 s for a budget up to 6000 tokens,
3277 s for 32768: a server decoding at least 10 tokens per second for the request answers in
time, and a hung one is given up within minutes rather than an hour. The endpoint keeps when
each request was sent and its limit, so a run that records nothing can say what it waits on
(`run/live.py`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

MIN_REQUEST_S = 600.0
SLOWEST_TOKENS_PER_S = 10.0
LISTING_S = 60.0  # GET /models and other small requests, when no timeout_s is set


def request_timeout_s(max_tokens: int | None, configured: float | None) -> float:
    """The limit of one request of `max_tokens`: `timeout_s` when set, else one that fits.

    >>> request_timeout_s(2048, None), request_timeout_s(32768, None), request_timeout_s(10, 5.0)
    (600.0, 3276.8, 5.0)
    """
    if configured is not None:
        return configured
    return max(MIN_REQUEST_S, (max_tokens or 0) / SLOWEST_TOKENS_PER_S)


@dataclass
class InFlight:
    """When each request in flight was sent (monotonic) and its limit."""

    _sent: dict[int, tuple[float, float]] = field(default_factory=dict)
    _count: int = 0

    def send(self, limit_s: float) -> int:
        """A request sent now; the key to end it with."""
        self._count += 1
        self._sent[self._count] = (time.monotonic(), limit_s)
        return self._count

    def end(self, key: int) -> None:
        self._sent.pop(key, None)

    def __len__(self) -> int:
        return len(self._sent)

    def oldest(self, now: float) -> tuple[float, float] | None:
        """(how long the oldest request has waited at `now`, its limit), or None."""
        if not self._sent:
            return None
        started, limit = min(self._sent.values())
        return now - started, limit
