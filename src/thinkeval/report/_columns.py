"""The numbers the report keeps per unit (a sample, or a sample's repeat): one row per phase.

A unit's outcome is a small integer (`STATUS_CODES`); `Replies` holds, per unit (a sample, or
a (sample, repeat) pair), the counted reply's outcome, whether the judge calls for the retry
(fixed phase), tokens, timings, journal reference and how the judge scorer read it; `Timing`
sums every request of a model, task and phase (superseded errors included) for throughput.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from thinkeval.records import STATUSES, Attempt
from thinkeval.scoring.scorers import recording_scorers
from thinkeval.store.judge import Outcome

# A sample's outcome in one phase as a small integer: a verdict status, a transport error, or
# nothing recorded yet.
STATUS_CODES: tuple[str, ...] = (*STATUSES, "error", "pending")
CODE = {status: code for code, status in enumerate(STATUS_CODES)}
CORRECT, ERROR, PENDING = CODE["correct"], CODE["error"], CODE["pending"]
RETRY_CODES = (CODE["empty"], CODE["unfinished"])
NONE = -1  # an integer column's "not reported"
# The judge scorer (`thinkeval judge`) on a counted reply: it reads only finished replies (NONE
# for the others, and for runs not judged), and its verdict may not be there yet.
JUDGE_MISSING, JUDGE_AGREES, JUDGE_DIFFERS = 0, 1, 2


class Replies:
    """One phase of one model on one task: per unit, the counted reply's numbers."""

    def __init__(self, size: int) -> None:
        self.status = np.full(size, PENDING, dtype=np.int8)
        # Per recording scorer (registry order, `recording_scorers`), per unit: counted correct.
        self.names = tuple(scorer.name for scorer in recording_scorers())
        self.correct = np.zeros((len(self.names), size), dtype=np.bool_)
        self.due = np.zeros(size, dtype=np.bool_)  # fixed phase: the judge calls for the retry
        self.completion = np.full(size, NONE, dtype=np.int32)
        self.reasoning = np.full(size, NONE, dtype=np.int32)
        self.budget = np.zeros(size, dtype=np.int32)
        self.clamped = np.zeros(size, dtype=np.int32)  # max_tokens sent when cut, else 0
        self.latency = np.full(size, np.nan)
        self.ttft = np.full(size, np.nan)
        self.finish = np.full(size, NONE, dtype=np.int16)
        self.ref = np.zeros(size, dtype=np.uint64)
        self.judge = np.full(size, NONE, dtype=np.int8)  # JUDGE_* codes
        self.judge_by = np.zeros(size, dtype=np.int8)  # which of the run's judge models

    def set(
        self, unit: int, attempt: Attempt, outcome: Outcome, due: bool, finish: int, ref: int
    ) -> None:
        usage = attempt.usage
        self.status[unit] = CODE[outcome.status]
        if outcome.correct:
            self.correct[:, unit] = outcome.correct
        self.due[unit] = due
        self.completion[unit] = NONE if usage.completion_tokens is None else usage.completion_tokens
        self.reasoning[unit] = NONE if usage.reasoning_tokens is None else usage.reasoning_tokens
        self.budget[unit] = attempt.budget
        self.clamped[unit] = attempt.max_tokens if attempt.clamped_from is not None else 0
        self.latency[unit] = np.nan if attempt.latency_s is None else attempt.latency_s
        self.ttft[unit] = np.nan if attempt.ttft_s is None else attempt.ttft_s
        self.finish[unit] = finish
        self.ref[unit] = ref

    def outcome(self, unit: int) -> Outcome | None:
        code = int(self.status[unit])
        if code == PENDING:
            return None
        tokens = int(self.completion[unit])
        correct = tuple(bool(each) for each in self.correct[:, unit])
        return Outcome(STATUS_CODES[code], correct, None if tokens < 0 else tokens)

    def correct_by(self, scorer: str) -> np.ndarray:
        """Per unit, whether the recording scorer named `scorer` counts the reply correct."""
        row: np.ndarray = self.correct[self.names.index(scorer)]
        return row

    @property
    def ok(self) -> np.ndarray:
        """Units whose counted reply arrived (a verdict, not an error or nothing)."""
        return self.status < ERROR


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
