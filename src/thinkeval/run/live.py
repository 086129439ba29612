"""What the models of a running process are doing, said on screen and written to the heartbeat.

Every `HEARTBEAT_S` the writer rewrites `status/<writer>.json` and says, once each: a server that
stopped answering (and answers again), a long wait before a retry (which endpoint, how long,
why: a server's Retry-After is capped at `retry_after_max_s`), and, while a model records
nothing with requests in flight, what it waits on (how many requests, to which URL, for how
long) every `wait_note_s`, so no wait is silent.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from thinkeval.client.dispatch import Dispatcher, Pause
from thinkeval.client.health import Outage
from thinkeval.config import ModelConfig
from thinkeval.errors import ThinkevalError
from thinkeval.run.progress import Progress
from thinkeval.run.protocol import ModelRun
from thinkeval.store.heartbeat import (
    HEARTBEAT_S,
    Heartbeat,
    ModelBeat,
    ProgressRow,
    own_start,
    write_record,
)
from thinkeval.urls import redact_url

WAIT_NOTE_S = 30.0


def wait_note_s(timeout_s: float | None) -> float:
    """How often a model that records nothing says what it waits on: every 30 s, or sooner
    when the model's `timeout_s` is short (a quarter of it, at least every heartbeat)."""
    if timeout_s is None:
        return WAIT_NOTE_S
    return min(WAIT_NOTE_S, max(HEARTBEAT_S, timeout_s / 4))


def clock(wall: float) -> str:
    """`14:03:07`, the local time of a wall-clock timestamp."""
    return datetime.fromtimestamp(wall).strftime("%H:%M:%S")


@dataclass
class ModelLive:
    """One model in this process: its state, dispatcher and protocol run once it has them."""

    model: ModelConfig
    state: str = "waiting"  # checking, running, finished, stopped, failed
    dispatcher: Dispatcher | None = None
    run: ModelRun | None = None
    failure: ThinkevalError | None = None
    reported: float | None = None  # the start of the outage last reported
    said: Pause | None = None  # the wait before a retry last shown
    done_seen: int = 0  # attempts recorded at the last heartbeat
    quiet_since: float = field(default_factory=time.monotonic)  # no attempt recorded since
    waits_said: int = 0  # lines said in this quiet spell
    waiting: str | None = None  # what the model waits on, while nothing is recorded

    @property
    def pause(self) -> Pause | None:
        """The model's wait before a retry, while it lasts."""
        if self.dispatcher is None or self.state != "running":
            return None
        pause = self.dispatcher.pause
        return pause if pause is not None and pause.until > time.time() else None

    @property
    def outage(self) -> Outage | None:
        if self.dispatcher is None or self.state != "running":
            return None
        return self.dispatcher.health.outage

    @property
    def in_flight(self) -> int:
        """Requests at the model's servers (not those waiting for a shared server's slot)."""
        if self.dispatcher is None or self.state != "running":
            return 0
        return sum(endpoint.outstanding for endpoint in self.dispatcher.endpoints)

    def beat(self) -> ModelBeat:
        outage = self.outage
        last = self.run.last_error if self.run is not None else None
        if self.waiting is not None:
            last = self.waiting
        if (pause := self.pause) is not None:
            last = pause.line()
        if outage is not None:
            last = f"{redact_url(outage.endpoint)}: {outage.last_error}"
        return ModelBeat(
            name=self.model.name,
            state=self.state,
            in_flight=self.in_flight,
            last_error=last,
            unreachable_since=outage.since if outage is not None else None,
            error=str(self.failure) if self.failure is not None else None,
        )


@dataclass
class HeartbeatWriter:
    """This process's live state, written to `status/<writer>.json` for `thinkeval status`."""

    path: Path
    progress: Progress
    models: dict[str, ModelLive] = field(default_factory=dict)
    started_at: float = field(default_factory=time.time)
    state: str = "starting"
    error: str | None = None
    proc_start: int | None = field(default_factory=own_start)

    def write(self) -> None:
        now = time.monotonic()
        rows = [
            ProgressRow(
                model=model,
                task=task,
                done=row.done,
                total=row.total,
                rate_per_s=row.rate_per_s(now),
            )
            for (model, task), row in self.progress.rows.items()
        ]
        beats = [live.beat() for live in self.models.values()]
        running = [beat.name for beat in beats if beat.state == "running"]
        beat = Heartbeat(
            pid=os.getpid(),
            host=socket.gethostname(),
            state=self.state,
            started_at=self.started_at,
            updated_at=time.time(),
            model=", ".join(running) or None,
            in_flight=sum(beat.in_flight for beat in beats),
            last_error=next((b.last_error for b in beats if b.last_error), None) or self.error,
            rows=rows,
            models=beats,
            proc_start=self.proc_start,
        )
        # No fsync: the heartbeat is rewritten every few seconds, and a disk flush here would
        # stall the event loop that keeps requests in flight.
        write_record(self.path, beat, durable=False)

    def report_outages(self) -> None:
        """Say once when a model's server stops answering, and when it answers again."""
        for name, live in self.models.items():
            outage = live.outage
            since = outage.since if outage is not None else None
            if since == live.reported:
                continue
            live.reported = since
            if outage is not None:
                window = live.model.unreachable_after_s
                ends = f"stops this model at {clock(outage.since + window)}" if window else ""
                text = f"unreachable since {clock(outage.since)}"
                self.progress.note(name, text)
                self.progress.say(
                    f"{name}: no answer from {redact_url(outage.endpoint)} "
                    f"since {clock(outage.since)} ({outage.last_error}); retrying"
                    + (f", {ends} unless it answers" if ends else ""),
                    "warning",
                )
            elif live.state == "running":
                self.progress.note(name, "")
                self.progress.say(f"{name}: the server answers again")

    def report_pauses(self) -> None:
        """Say each long wait before a retry once: which endpoint, how long, why."""
        for name, live in self.models.items():
            pause = live.pause
            if pause is not None and pause is not live.said:
                live.said = pause
                self.progress.say(f"{name}: {pause.line()}", "warning")

    def report_waits(self) -> None:
        """While a model records nothing and has requests in flight, say every
        `wait_note_s(timeout)` what it waits on: how many requests, to which URL, how long."""
        now = time.monotonic()
        for name, live in self.models.items():
            done = self.progress.model_row(name).done
            if done != live.done_seen or live.in_flight == 0 or live.dispatcher is None:
                live.done_seen, live.quiet_since, live.waits_said = done, now, 0
                live.waiting = None
                continue
            quiet = now - live.quiet_since
            if quiet < wait_note_s(live.model.timeout_s) * (live.waits_said + 1):
                continue
            live.waits_said += 1
            for endpoint in live.dispatcher.endpoints:
                oldest = endpoint.in_flight.oldest(now)
                if oldest is None:
                    continue
                count, (waited, limit) = endpoint.outstanding, oldest
                noun = "request" if count == 1 else "requests"
                live.waiting = (
                    f"waiting on {count} chat {noun} to {endpoint.base_url}, the oldest sent "
                    f"{waited:.0f} s ago (given up at {limit:g} s); nothing recorded for "
                    f"{quiet:.0f} s"
                )
                self.progress.say(f"{name}: {live.waiting}", "warning")

    async def beat(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT_S)
            self.report_outages()
            self.report_pauses()
            self.report_waits()
            with contextlib.suppress(ThinkevalError):
                self.write()
