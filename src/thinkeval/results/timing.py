"""Every request of one model, task and phase, summed for throughput: the read model's part
that sees all attempts (superseded errors included), not only the ones that count."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from thinkeval.records import Attempt

__all__ = ["Timing", "server_tokens"]


@dataclass
class Timing:
    """Every recorded request of one model, task and phase (superseded errors included)."""

    requests: int = 0
    errors: int = 0
    timed: int = 0  # requests with a start time and a latency
    start: float = math.inf
    end: float = -math.inf
    timed_tokens: int = 0  # tokens the server generated for the timed successful requests
    last_error: str | None = None
    # What the server prefilled and generated for the successful requests (`server_tokens`).
    prompt_tokens: int = 0
    generated_tokens: int = 0
    continued: int = 0  # retries made by `retry: continue` (a continuation record)

    def add(self, attempt: Attempt) -> None:
        self.requests += 1
        if attempt.error is None:
            prompt, generated = server_tokens(attempt)
            self.prompt_tokens += prompt
            self.generated_tokens += generated
        self.continued += attempt.continuation is not None
        if attempt.error is not None:
            self.errors += 1
            self.last_error = attempt.error
        if attempt.started_at > 0 and attempt.latency_s is not None:
            self.timed += 1
            self.start = min(self.start, attempt.started_at)
            self.end = max(self.end, attempt.started_at + attempt.latency_s)
            if attempt.error is None:
                self.timed_tokens += server_tokens(attempt)[1]

    @classmethod
    def combined(cls, parts: Iterable[Timing]) -> Timing:
        total = cls()
        for part in parts:
            total.requests += part.requests
            total.errors += part.errors
            total.timed += part.timed
            total.start = min(total.start, part.start)
            total.end = max(total.end, part.end)
            total.timed_tokens += part.timed_tokens
            total.prompt_tokens += part.prompt_tokens
            total.generated_tokens += part.generated_tokens
            total.continued += part.continued
        return total

    @property
    def wall_s(self) -> float | None:
        """From the first request sent to the last reply; None when nothing was timed.

        An attempt's end is `started_at + latency_s`; `started_at` marks the first try, so an
        attempt retried by the client ends a little later than this says.
        """
        return self.end - self.start if self.timed and self.end > self.start else None


def server_tokens(attempt: Attempt) -> tuple[int, int]:
    """(prompt, generated) tokens the server processed for one successful request: the usage
    it reported; for a continuation its own request's (the carried tokens prefilled again, only
    the new ones generated), and nothing for a retry recorded without a request."""
    continued = attempt.continuation
    if continued is None:
        usage = attempt.usage
        return usage.prompt_tokens or 0, usage.completion_tokens or 0
    if not continued.requested:
        return 0, 0
    return continued.prompt_tokens or 0, continued.completion_tokens or 0
