"""Run a whole config: load samples, check each server, run the protocol model by model.

Models run one after another (a queue: one command replaces a chain of shell scripts); inside a
model all tasks share one work queue. Running the same command again resumes from the journal.
"""

from __future__ import annotations

import asyncio
import signal
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from .config import RunConfig
from .dispatch import Dispatcher
from .errors import ThinkevalError
from .journal import Journal, iter_attempts
from .progress import RunProgress
from .protocol import ModelRun, Shard, check_identity, resume_state
from .records import Sample
from .results import Summary, write_summary
from .rundir import check_resumable, write_config, write_model_card, write_samples
from .tasks import load_samples, resolve_data_dir


class Interrupted(ThinkevalError):
    """The run was stopped by a signal; everything finished so far is recorded."""

    exit_code = 130


@dataclass(frozen=True)
class RunOptions:
    only_model: str | None = None
    only_task: str | None = None
    shard: Shard | None = None
    allow_model_mismatch: bool = False


def load_selected_samples(config: RunConfig, only_task: str | None) -> dict[str, list[Sample]]:
    """The samples of each configured task, with limit/range applied, in dataset order."""
    data_dir = resolve_data_dir(config.data_dir)
    selected: dict[str, list[Sample]] = {}
    tasks = [t for t in config.tasks if only_task is None or t.name == only_task]
    if not tasks:
        names = ", ".join(t.name for t in config.tasks)
        raise ThinkevalError(f"--task {only_task}: not in the config's tasks ({names})")
    for selection in tasks:
        selected[selection.name] = selection.select(load_samples(selection.name, data_dir))
    return selected


async def run_evaluation(
    config: RunConfig,
    run_dir: Path,
    options: RunOptions = RunOptions(),
    console: Console | None = None,
) -> Summary:
    """Run (or resume) every selected model on every selected task; write `summary.json`."""
    console = console or Console(stderr=True)
    models = [config.model_named(options.only_model)] if options.only_model else config.models
    check_resumable(run_dir, config)
    samples = load_selected_samples(config, options.only_task)
    for task, items in samples.items():
        write_samples(run_dir, task, items)
    write_config(run_dir, config)
    gold = {(task, s.id): s.gold for task, items in samples.items() for s in items}
    shard = options.shard
    owned = {
        task: [s for s in items if shard is None or shard.owns(s.id)]
        for task, items in samples.items()
    }

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    progress = RunProgress(console)
    try:
        with Journal(run_dir, shard.writer if shard else "main") as journal, progress.shown():
            for model in models:
                if stop.is_set():
                    break
                async with Dispatcher(model) as dispatcher:
                    card = await check_identity(
                        dispatcher, model.served_model, options.allow_model_mismatch
                    )
                    write_model_card(run_dir, model.name, card)
                    max_len = card.get("max_model_len")
                    state = resume_state(iter_attempts(run_dir), model.name, gold)
                    model_run = ModelRun(
                        model,
                        owned,
                        config.budgets,
                        journal,
                        state,
                        max_model_len=max_len if isinstance(max_len, int) else None,
                        shard=shard,
                        observer=progress.record,
                        stop=stop,
                    )
                    todo = model_run.plan()
                    for task, items in owned.items():
                        queued = todo.get((task, "fixed"), 0) + todo.get((task, "retry"), 0)
                        recorded = sum(
                            (task, s.id) in state
                            and (state[task, s.id].fixed_done + state[task, s.id].retry_done)
                            for s in items
                        )
                        progress.add(model.name, task, queued, already_done=recorded)
                    await model_run.run(dispatcher)
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
    summary = write_summary(run_dir)
    if stop.is_set():
        raise Interrupted(
            f"stopped; everything finished so far is recorded in {run_dir}. "
            "Run the same command again to resume."
        )
    return summary
