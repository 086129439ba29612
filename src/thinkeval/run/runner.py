"""Run a whole config: load samples, check each server, run the protocol model by model.

Models run one after another (a queue: one command replaces a chain of shell scripts); inside a
model all tasks share one work queue. Running the same command again resumes from the journal.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from thinkeval.client.dispatch import Dispatcher
from thinkeval.config import ModelConfig, RunConfig
from thinkeval.errors import ThinkevalError
from thinkeval.results.summary import Summary, write_summary
from thinkeval.run.counted import Journals, count_journal, index_samples
from thinkeval.run.journal import Journal
from thinkeval.run.protocol import ModelRun, Shard, check_identity
from thinkeval.run.rundir import (
    STATUS_DIR,
    check_resumable,
    write_config,
    write_json,
    write_model_card,
    write_samples,
)
from thinkeval.tasks import iter_samples, resolve_data_dir
from thinkeval.ui.progress import RunProgress


class Interrupted(ThinkevalError):
    """The run was stopped by a signal; everything finished so far is recorded."""

    exit_code = 130


HEARTBEAT_S = 2.0


@dataclass
class Heartbeat:
    """This process's live state, written to `status/<writer>.json` for `thinkeval status`."""

    path: Path
    progress: RunProgress
    started_at: float = field(default_factory=time.time)
    state: str = "starting"
    model_run: ModelRun | None = None
    error: str | None = None

    def write(self) -> None:
        rows = [
            {
                "model": model,
                "task": task,
                "done": row.done,
                "total": row.total,
                "rate_per_s": (row.done - row.resumed)
                / max(time.monotonic() - row.started, 1e-9),
            }
            for (model, task), row in self.progress.rows.items()
        ]
        run = self.model_run
        data: dict[str, Any] = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "state": self.state,
            "started_at": self.started_at,
            "updated_at": time.time(),
            "model": run.model.name if run else None,
            "in_flight": run.in_flight if run else 0,
            "last_error": (run.last_error if run else None) or self.error,
            "rows": rows,
        }
        # No fsync: the heartbeat is rewritten every few seconds, and a disk flush here would
        # stall the event loop that keeps requests in flight.
        write_json(self.path, data, durable=False)

    async def beat(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT_S)
            with contextlib.suppress(ThinkevalError):
                self.write()


@dataclass(frozen=True)
class RunOptions:
    only_model: str | None = None
    only_task: str | None = None
    shard: Shard | None = None
    allow_model_mismatch: bool = False


def write_selected_samples(config: RunConfig, run_dir: Path, only_task: str | None) -> list[str]:
    """Stream each selected task's samples (limit/range applied) into the run directory.

    Returns the task names. The datasets are read one row at a time and never held whole.
    """
    data_dir = resolve_data_dir(config.data_dir)
    tasks = [t for t in config.tasks if only_task is None or t.name == only_task]
    if not tasks:
        names = ", ".join(t.name for t in config.tasks)
        raise ThinkevalError(f"--task {only_task}: not in the config's tasks ({names})")
    for selection in tasks:
        samples = iter_samples(selection.name, data_dir)
        write_samples(run_dir, selection.name, selection.select(samples))
    return [t.name for t in tasks]


async def run_evaluation(
    config: RunConfig,
    run_dir: Path,
    options: RunOptions = RunOptions(),
    console: Console | None = None,
) -> Summary:
    """Run (or resume) every selected model on every selected task; write `summary.json`."""
    console = console or Console(stderr=True)
    models = [config.model_named(options.only_model)] if options.only_model else config.models
    for model in models:
        model.api_key()  # a missing key variable stops the run before anything starts
    check_resumable(run_dir, config)
    writer = options.shard.writer if options.shard else "main"
    # Lock the journal first: a second process on this run stops here, before it rewrites the
    # samples and the config that the first one reads prompts from.
    journal = Journal(run_dir, writer)
    journal.open()
    try:
        tasks = write_selected_samples(config, run_dir, options.only_task)
        write_config(run_dir, config)
        stopped = await _run_models(config, run_dir, options, console, journal, tasks, models)
    finally:
        journal.close()
    summary = write_summary(run_dir)
    if stopped:
        raise Interrupted(
            f"stopped; everything finished so far is recorded in {run_dir}. "
            "Run the same command again to resume."
        )
    return summary


async def _run_models(
    config: RunConfig,
    run_dir: Path,
    options: RunOptions,
    console: Console,
    journal: Journal,
    tasks: list[str],
    models: list[ModelConfig],
) -> bool:
    """Run the models one after another; True when a signal stopped the run."""
    shard = options.shard
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    progress = RunProgress(console)
    heartbeat = Heartbeat(run_dir / STATUS_DIR / f"{journal.path.stem}.json", progress)
    beating: asyncio.Task[None] | None = None
    try:
        with progress.shown():
            heartbeat.state = "running"
            heartbeat.write()
            beating = asyncio.create_task(heartbeat.beat())
            for model in models:
                if stop.is_set():
                    break
                async with Dispatcher(model) as dispatcher:
                    card = await check_identity(
                        dispatcher, model.served_model, options.allow_model_mismatch
                    )
                    write_model_card(run_dir, model.name, card)
                    max_len = card.get("max_model_len")
                    with Journals(run_dir) as journals:
                        indexes = index_samples(run_dir, tasks)
                        model_run = ModelRun(
                            model,
                            run_dir,
                            tasks,
                            config.budgets,
                            journal,
                            journals,
                            indexes,
                            count_journal(journals, indexes, model=model.name),
                            max_model_len=max_len if isinstance(max_len, int) else None,
                            shard=shard,
                            observer=progress.record,
                            stop=stop,
                        )
                        plan = model_run.plan()
                        for task in tasks:
                            progress.add(
                                model.name,
                                task,
                                plan.queued[task],
                                already_done=plan.recorded[task],
                            )
                        heartbeat.model_run = model_run
                        await model_run.run(dispatcher)
        heartbeat.state = "stopped" if stop.is_set() else "finished"
    except ThinkevalError as exc:
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
    return stop.is_set()
