"""The simulated replica's engine on the event loop: requests join one stepped batch.

`sim/steps.py` holds the batch and its virtual clock; this drives it in real time with one timer
(`loop.call_at`) set to the next moment something can finish. A request joining advances the
engine to now, queues, and resets the timer; each timer advances the engine and wakes the
requests that finished. So the cost is a few callbacks per request and per prefill step, not one
sleep per decode step, and the simulated times do not drift when the machine is busy: a late
timer applies every step that ended meanwhile.
"""

from __future__ import annotations

import asyncio

from thinkeval.sim.stats import Stats
from thinkeval.sim.steps import Sequence, StepModel


class Engine:
    """One replica's batch: `run` a request's prefill and decode in it."""

    def __init__(
        self, model: StepModel, stats: Stats, loop: asyncio.AbstractEventLoop | None = None
    ) -> None:
        self.model = model
        self.stats = stats
        self._loop = loop
        self._waiters: dict[Sequence, asyncio.Future[None]] = {}
        self._timer: asyncio.TimerHandle | None = None

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        return self._loop

    def join(self, prefill: int, tokens: int) -> Sequence:
        """Queue a request that computes `prefill` prompt tokens and generates `tokens`."""
        now = self.loop.time()
        self._sync(now)
        seq = Sequence(prefill, tokens, now)
        self._waiters[seq] = self.loop.create_future()
        self.model.add(seq)
        self._sync(now)
        return seq

    async def wait(self, seq: Sequence, timeout: float | None = None) -> None:
        """Wait until `seq` has generated its last token (at most `timeout` seconds); a
        cancelled wait aborts it."""
        waiter = self._waiters.get(seq)
        if waiter is None:
            return
        try:
            await asyncio.wait({waiter}, timeout=timeout)
        except asyncio.CancelledError:
            self.abort(seq)
            raise

    def abort(self, seq: Sequence) -> None:
        """Take `seq` out of the batch (its client went away), as vLLM aborts a request."""
        if self._waiters.pop(seq, None) is not None:
            self.model.abort(seq)
            self._sync(self.loop.time())

    async def run(self, prefill: int, tokens: int) -> Sequence:
        """Join and wait to the end."""
        seq = self.join(prefill, tokens)
        await self.wait(seq)
        return seq

    def progress(self, seq: Sequence) -> int:
        """Tokens `seq` has generated so far."""
        self._sync(self.loop.time())
        return self.model.tokens_out(seq)

    def _sync(self, now: float) -> None:
        model = self.model
        model.advance(now)
        for seq in model.done:
            waiter = self._waiters.pop(seq, None)
            if waiter is not None and not waiter.done():
                waiter.set_result(None)
        model.done.clear()
        stats = self.stats
        stats.running = model.admitted
        stats.waiting = len(model.waiting)
        stats.max_running = max(stats.max_running, stats.running)
        stats.max_waiting = max(stats.max_waiting, stats.waiting)
        stats.busy_s = model.busy_s
        stats.queued_s = model.queued_s
        self._arm(model.next_event())

    def _arm(self, when: float | None) -> None:
        if self._timer is not None:
            if when is not None and self._timer.when() == when:
                return
            self._timer.cancel()
            self._timer = None
        if when is not None:
            self._timer = self.loop.call_at(when, self._fire, when)

    def _fire(self, when: float) -> None:
        self._timer = None
        # call_at may fire up to the clock's resolution early: the steps due by `when` have ended.
        self._sync(max(self.loop.time(), when))


def timed(seq: Sequence, fixed: float) -> tuple[float, float]:
    """(time to first token, seconds in the batch) of a finished sequence, `fixed` seconds of
    latency outside the engine added to the first."""
    assert seq.first_token_at is not None and seq.admitted_at is not None
    assert seq.done_at is not None
    return fixed + seq.first_token_at - seq.arrived, seq.done_at - seq.admitted_at
