"""Tail-aware order of a model's fixed work: what may run long or be cut off goes first.

A server is busy until its last reply; the longest requests of a run are the retries at the
second budget, and a retry is known only once its fixed reply came back cut off. Fixed work that
is likely to be cut off therefore goes first, so its retries start while the server still has
plenty of fixed work to fill its other slots, and the run ends on short, rarely cut off replies.

Per task the order keeps an estimate of its replies: a prior from the task's typical reply
length (`TaskSpec.reply_tokens`, or half the first budget), refined by every reply the model gave
so far (recorded before a resume, and live). The task whose fixed work would leave the longest
tail if it came last goes first:

    tail = E[fixed reply] + P(one of the last `slots` fixed replies is cut off) · E[retry reply]

Reply lengths are taken as exponential around the prior's mean `m` (so `P(cut) = exp(-B1/m)`)
until replies are seen; then the shares and means seen, with the prior weighing as
`PRIOR_WEIGHT` replies. With repeats, a (sample, repeat) whose sample was already cut off in
another repeat goes before all other fixed work: the same question tends to run long again.
Nothing is asked more or less often: only the order changes.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

from thinkeval.records import Attempt, Phase, Sample
from thinkeval.scoring.state import RETRY_STATES

# How many replies the prior counts for against what the run has seen.
PRIOR_WEIGHT = 8


@dataclass(slots=True)
class WorkItem:
    """One request to make. `sample` is None for work read back by offset (a retry found in the
    journal at start, a repeat moved up): its prompt is read from the samples file at `offset`
    when the request is sent."""

    task: str
    phase: Phase
    budget: int
    offset: int
    repeat: int = 0
    sample: Sample | None = None
    prompt_tokens: int | None = None
    fixed: Attempt | None = None  # a retry's fixed attempt (`retry: continue` carries it on)


@dataclass
class TaskEstimate:
    """What one model's replies to one task are expected to be, in tokens.

    >>> boolq = TaskEstimate.prior((2048, 8192), reply_tokens=700)
    >>> ceval = TaskEstimate.prior((2048, 8192), reply_tokens=1800)
    >>> round(boolq.cut_share, 3), round(ceval.cut_share, 3)
    (0.054, 0.321)
    >>> ceval.tail(slots=64) > boolq.tail(slots=64)
    True
    """

    budgets: tuple[int, int]
    reply_tokens: float
    fixed_seen: int = 0
    fixed_tokens: float = 0.0
    cut_seen: int = 0
    retries_seen: int = 0
    retry_tokens: float = 0.0

    @classmethod
    def prior(cls, budgets: tuple[int, int], reply_tokens: int | None) -> TaskEstimate:
        """The estimate before any reply: `reply_tokens` typical, else half the first budget."""
        return cls(budgets, reply_tokens or budgets[0] / 2)

    def observe(self, attempt: Attempt) -> None:
        """Take a recorded reply into account (transport errors say nothing about length)."""
        if attempt.error is not None:
            return
        tokens = attempt.usage.completion_tokens
        if attempt.phase == "fixed":
            cut = attempt.state in RETRY_STATES
            self.fixed_seen += 1
            self.cut_seen += cut
            self.fixed_tokens += self.budgets[0] if cut or tokens is None else tokens
        else:
            self.retries_seen += 1
            self.retry_tokens += self.budgets[1] if tokens is None else tokens

    @cached_property
    def _prior(self) -> tuple[float, float, float]:
        """(share cut off, mean fixed reply, mean retry reply) if lengths were exponential: fixed
        per estimate, and read for every fixed request."""
        first, second = self.budgets
        mean = max(self.reply_tokens, 1.0)
        cut = math.exp(-first / mean)
        fixed = mean * (1 - cut)
        retry = first + mean * (1 - math.exp(-(second - first) / mean))
        return cut, fixed, retry

    @property
    def cut_share(self) -> float:
        """The expected share of fixed replies that are cut off (empty or unfinished)."""
        prior = self._prior[0]
        return (prior * PRIOR_WEIGHT + self.cut_seen) / (PRIOR_WEIGHT + self.fixed_seen)

    def tail(self, slots: int) -> float:
        """The tokens this task's fixed work would leave after the rest if it came last."""
        _, fixed, retry = self._prior
        fixed = (fixed * PRIOR_WEIGHT + self.fixed_tokens) / (PRIOR_WEIGHT + self.fixed_seen)
        retry = (retry * PRIOR_WEIGHT + self.retry_tokens) / (PRIOR_WEIGHT + self.retries_seen)
        some_cut = 1.0 - (1.0 - self.cut_share) ** max(slots, 1)
        return fixed + some_cut * retry


class FixedWork:
    """A model's fixed work: one lazy stream per task, drawn in tail-aware order.

    `streams` yield the task's (sample, repeat) units not recorded yet, repeat by repeat in
    samples-file order; they must skip units `taken_early` reports. Work moved up (`move_up`)
    goes before every stream. Memory: one flag byte per unit of a task with repeats, once one
    is moved up.
    """

    def __init__(
        self,
        streams: dict[str, Iterator[WorkItem]],
        estimates: dict[str, TaskEstimate],
        slots: int,
        units: dict[str, int],
    ) -> None:
        self._streams = dict(streams)
        self._rank = {task: i for i, task in enumerate(streams)}  # ties keep the config's order
        self.estimates = estimates
        self.slots = slots
        self._units = units
        self._early: deque[WorkItem] = deque()
        self._taken: dict[str, bytearray] = {}
        self._passed: dict[str, tuple[int, int]] = {}  # (repeat, offset) a stream last gave

    def taken_early(self, task: str, unit: int) -> bool:
        """Whether the unit was moved up (its stream must skip it)."""
        taken = self._taken.get(task)
        return taken is not None and bool(taken[unit])

    def move_up(self, task: str, unit: int, item: WorkItem) -> None:
        """Ask `item` (unit number `unit` of `task`) before the streams, unless it was taken
        already: moved up before, or given by its stream."""
        if (item.repeat, item.offset) <= self._passed.get(task, (-1, -1)):
            return
        taken = self._taken.get(task)
        if taken is None:
            taken = self._taken[task] = bytearray(self._units[task])
        if not taken[unit]:
            taken[unit] = 1
            self._early.append(item)

    def next(self) -> WorkItem | None:
        """The next fixed request, or None when there is none left."""
        if self._early:
            return self._early.popleft()
        while self._streams:
            # One task left (or only one ever): no estimate to compare.
            streams = self._streams
            task = next(iter(streams)) if len(streams) == 1 else max(streams, key=self._key)
            item = next(self._streams[task], None)
            if item is not None:
                self._passed[task] = (item.repeat, item.offset)
                return item
            del self._streams[task]
        return None

    def _key(self, task: str) -> tuple[float, int]:
        return self.estimates[task].tail(self.slots), -self._rank[task]

    def close(self) -> None:
        """Close the streams still open (their samples files)."""
        for stream in self._streams.values():
            close = getattr(stream, "close", None)
            if close is not None:
                close()
        self._streams.clear()
