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
import signal
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from thinkeval.client.dispatch import Dispatcher
from thinkeval.client.limits import EndpointLimits
from thinkeval.client.profiles import card_window
from thinkeval.config import ModelConfig, ResolvedTask
from thinkeval.errors import ServerError, ThinkevalError
from thinkeval.records import Attempt
from thinkeval.run.continuation import probe_token_ids, retry_mode
from thinkeval.run.fleet import check_fleet
from thinkeval.run.identity import check_identity
from thinkeval.run.live import HeartbeatWriter, ModelLive, clock
from thinkeval.run.ordering import TaskEstimate
from thinkeval.run.progress import Progress
from thinkeval.run.protocol import ModelRun, default_estimates
from thinkeval.store.counted import CountedAttempts, IdIndex, Journals, count_journal, index_samples
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
    admitted: Mapping[str, bytes] | None = None  # `decide:`'s batch (run/lockstep.py)
    allow_mixed_fleet: bool = False
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
    admitted: Mapping[str, bytes] | None = None,
    stop_on_signals: bool = False,
    allow_mixed_fleet: bool = False,
) -> RunOutcome:
    """Run every model's protocol at the same time until all end or, with `stop_on_signals`
    (the command line), SIGINT or SIGTERM stops them; `admitted` limits each task to those
    samples (`run/lockstep.py`)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    signals = (signal.SIGINT, signal.SIGTERM) if stop_on_signals else ()
    for sig in signals:
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
                admitted,
                allow_mixed_fleet,
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
        for sig in signals:
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
        card.update(await check_fleet(dispatcher, heartbeat.progress.say, shared.allow_mixed_fleet))
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
            admitted=shared.admitted,
        )
        plan = model_run.plan()
        for task in shared.tasks:
            # A later batch of `decide:` finds its earlier batches' replies already counted.
            row = heartbeat.progress.rows.get((model.name, task.name))
            before = row.done if row is not None else 0
            heartbeat.progress.add(
                model.name,
                task.name,
                plan.queued[task.name],
                already_done=max(0, plan.recorded[task.name] - before),
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
