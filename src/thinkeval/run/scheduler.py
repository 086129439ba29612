"""Run the selected models side by side, each against its own servers.

Every model has its own dispatcher (concurrency, retries, replicas), identity check, progress
rows and clean stop, so servers are busy at the same time instead of one after another. Models
that share a server share its in-flight cap (`client/limits.py`). A model whose server fails (it
serves another model, was redeployed, or stopped answering: `client/health.py`) stops alone with
one line saying why; the others go on, and the run ends with an error naming it. A signal stops
every model; anything else that breaks (the journal, the samples files) stops the run. All
models append to this process's one journal file.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from thinkeval.client.dispatch import Dispatcher
from thinkeval.client.health import Outage
from thinkeval.client.limits import EndpointLimits
from thinkeval.client.profiles import card_window
from thinkeval.config import ModelConfig, ResolvedTask
from thinkeval.errors import ServerError, ThinkevalError
from thinkeval.records import Attempt
from thinkeval.run.continuation import probe_token_ids, retry_mode
from thinkeval.run.identity import check_identity
from thinkeval.run.ordering import TaskEstimate
from thinkeval.run.progress import Progress
from thinkeval.run.protocol import ModelRun, default_estimates
from thinkeval.store.counted import CountedAttempts, IdIndex, Journals, count_journal, index_samples
from thinkeval.store.heartbeat import (
    HEARTBEAT_S,
    Heartbeat,
    ModelBeat,
    ProgressRow,
    own_start,
    write_record,
)
from thinkeval.store.journal import Journal
from thinkeval.store.rundir import STATUS_DIR, write_model_card
from thinkeval.store.shard import Shard
from thinkeval.urls import redact_url


class ServerUnreachable(ServerError):
    """Every request to a model's server failed with a connection error for its window."""


@dataclass(frozen=True)
class RunOutcome:
    """How the models ended: stopped by a signal, and which failed and why."""

    stopped: bool
    failures: dict[str, ThinkevalError]


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

    async def beat(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT_S)
            self.report_outages()
            with contextlib.suppress(ThinkevalError):
                self.write()


@dataclass
class _Shared:
    """What the models of one process share: the journal, the samples' indexes, the caps, the
    counts of what is recorded (one pass over the journal for all models, on first need)."""

    run_dir: Path
    journal: Journal
    journals: Journals
    tasks: list[ResolvedTask]
    limits: EndpointLimits
    shard: Shard | None
    allow_mismatch: bool
    stop: asyncio.Event
    estimates: dict[str, dict[str, TaskEstimate]]
    _indexes: dict[str, IdIndex] | None = None
    _counted: dict[tuple[str, str], CountedAttempts] | None = None

    def counted(self) -> tuple[dict[str, IdIndex], dict[tuple[str, str], CountedAttempts]]:
        if self._indexes is None or self._counted is None:
            repeats = {task.name: task.repeats for task in self.tasks}
            self._indexes = index_samples(self.run_dir, repeats)
            self._counted = count_journal(self.journals, self._indexes, observe=self._observe)
        return self._indexes, self._counted

    def _observe(self, attempt: Attempt) -> None:
        task = self.estimates.get(attempt.model, {}).get(attempt.task)
        if task is not None:
            task.observe(attempt)


async def run_models(
    run_dir: Path,
    journal: Journal,
    tasks: list[ResolvedTask],
    models: list[ModelConfig],
    progress: Progress,
    *,
    limits: EndpointLimits,
    shard: Shard | None = None,
    allow_model_mismatch: bool = False,
) -> RunOutcome:
    """Run every model's protocol at the same time until all end or a signal stops them."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    lives = {model.name: ModelLive(model) for model in models}
    heartbeat = HeartbeatWriter(run_dir / STATUS_DIR / f"{journal.path.stem}.json", progress, lives)
    beating: asyncio.Task[None] | None = None
    try:
        with progress.shown(), Journals(run_dir) as journals:
            shared = _Shared(
                run_dir,
                journal,
                journals,
                tasks,
                limits,
                shard,
                allow_model_mismatch,
                stop,
                {model.name: default_estimates(tasks) for model in models},
            )
            heartbeat.state = "running"
            heartbeat.write()
            beating = asyncio.create_task(heartbeat.beat())
            guarded = [
                asyncio.create_task(_guarded(live, shared, heartbeat)) for live in lives.values()
            ]
            try:
                await asyncio.gather(*guarded)
            finally:
                for running in guarded:
                    running.cancel()
                await asyncio.gather(*guarded, return_exceptions=True)
        failures = {name: live.failure for name, live in lives.items() if live.failure}
        heartbeat.state = "stopped" if stop.is_set() else "failed" if failures else "finished"
        heartbeat.error = "; ".join(f"{n}: {e}" for n, e in failures.items()) or None
    except Exception as exc:  # the journal or the samples broke: every model stopped
        heartbeat.state, heartbeat.error = "failed", str(exc)
        raise
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
        if beating is not None:
            beating.cancel()
            with contextlib.suppress(asyncio.CancelledError, ThinkevalError):
                await beating
            with contextlib.suppress(ThinkevalError):
                heartbeat.write()
    return RunOutcome(stop.is_set(), failures)


async def _guarded(live: ModelLive, shared: _Shared, heartbeat: HeartbeatWriter) -> None:
    """Run one model; a failure of its server ends it alone, said in one line."""
    name = live.model.name
    try:
        await _run_model(live, shared, heartbeat)
    except ServerError as exc:
        live.state, live.failure = "failed", exc
        heartbeat.progress.note(name, "failed")
        heartbeat.progress.say(f"{name} stopped: {exc}", "error")
        return
    live.state = "stopped" if shared.stop.is_set() else "finished"
    heartbeat.progress.note(name, live.state)


async def _run_model(live: ModelLive, shared: _Shared, heartbeat: HeartbeatWriter) -> None:
    """Check the server's identity, then run both phases of every task for one model."""
    model = live.model
    async with Dispatcher(model, limits=shared.limits) as dispatcher:
        live.dispatcher, live.state = dispatcher, "checking"
        card = await check_identity(dispatcher, model.served_model, shared.allow_mismatch)
        write_model_card(shared.run_dir, model.name, card)
        if any(retry_mode(model, task) == "continue" for task in shared.tasks):
            why = await probe_token_ids(dispatcher)
            if why is not None:  # refused before any sample is asked
                raise ServerError(f"retry: continue cannot run against this server: {why}")
        max_len = card_window(card)  # max_model_len, or llama.cpp's meta.n_ctx
        indexes, counted = shared.counted()
        model_run = ModelRun(
            model,
            shared.run_dir,
            shared.tasks,
            shared.journal,
            shared.journals,
            indexes,
            counted,
            max_model_len=max_len,
            shard=shared.shard,
            observer=heartbeat.progress.record,
            stop=shared.stop,
            unlisted=card.get("served"),
            estimates=shared.estimates[model.name],
        )
        plan = model_run.plan()
        for task in shared.tasks:
            heartbeat.progress.add(
                model.name, task.name, plan.queued[task.name], already_done=plan.recorded[task.name]
            )
        live.run, live.state = model_run, "running"
        watch = asyncio.create_task(_stop_when_gone(live, model_run, dispatcher))
        try:
            await model_run.run(dispatcher)
        finally:
            watch.cancel()


async def _stop_when_gone(live: ModelLive, model_run: ModelRun, dispatcher: Dispatcher) -> None:
    """Stop the model once its server has not answered for its window (`client/health.py`)."""
    await dispatcher.health.gone.wait()
    outage = dispatcher.health.outage
    assert outage is not None
    urls = ", ".join(redact_url(url) for url in live.model.base_urls)
    model_run.fail(
        ServerUnreachable(
            f"every request to {urls} failed since {clock(outage.since)} "
            f"({outage.failures} tries, the last: {outage.last_error}); stopped this model after "
            f"{live.model.unreachable_after_s:g} s without an answer. Start its server and run the "
            "same command again to resume: only what is missing is asked"
        )
    )
