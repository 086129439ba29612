"""Run a whole config: load samples, then run every model's protocol (`run/scheduler.py`).

Models run side by side, each against its own servers; inside a model all tasks share one work
queue. Running the same command again resumes from the journal.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from thinkeval.client.limits import EndpointLimits, endpoint_caps
from thinkeval.config import RunConfig
from thinkeval.errors import ThinkevalError
from thinkeval.run.cleanup import nothing_recorded
from thinkeval.run.lockstep import Admitted, Gate, in_lockstep
from thinkeval.run.progress import Progress
from thinkeval.run.scheduler import RunOutcome, run_models
from thinkeval.run.selection import select_samples, selection_note
from thinkeval.store.journal import Journal
from thinkeval.store.reproduce import write_run_yaml
from thinkeval.store.run_record import (
    RunRecord,
    TaskRecord,
    check_resumable,
    existing_record,
    merged,
    new_record,
    task_record,
    write_run_record,
)
from thinkeval.store.rundir import PromptsChanged, SamplesFile, write_samples
from thinkeval.store.runlock import RunLock
from thinkeval.store.shard import Shard
from thinkeval.tasks import DataSource, iter_samples, resolve_data_dir
from thinkeval.tasks.source import describe_sources
from thinkeval.tasks.spec import TaskSpec


@dataclass(frozen=True)
class RunOptions:
    # Run only these of the config's models and tasks (empty: all of them).
    only_models: tuple[str, ...] = ()
    only_tasks: tuple[str, ...] = ()
    shard: Shard | None = None
    allow_model_mismatch: bool = False
    allow_mixed_fleet: bool = False  # replicas that differ run (flagged) instead of refused
    # Resume with the prompts recorded at the run's start, even where the data or thinkeval's
    # prompts changed since.
    keep_recorded_samples: bool = False
    # `decide:`: ask in batches until the gate says the comparison is decided (run/lockstep.py).
    gate: Gate | None = None
    # SIGINT/SIGTERM stop the run cleanly: only the command line asks for it, so a library
    # caller's (a notebook's) own handlers stay in place.
    stop_on_signals: bool = False


def write_selected_samples(
    config: RunConfig,
    run_dir: Path,
    only_tasks: tuple[str, ...] = (),
    old: RunRecord | None = None,
    keep_recorded: bool = False,
    notes: list[str] | None = None,
) -> list[TaskRecord]:
    """Stream each selected task's samples (limit/range applied) into the run directory.

    Returns the records of the tasks, and appends to `notes` one line per task: how many
    samples, where from, and whether a limit or range went past the data. A selection of no
    sample is a `DatasetError`. The datasets are read one row at a time and never held whole.
    A resumed run must ask the prompts it started with: when they changed, the recorded
    samples are kept and `PromptsChanged` says what changed and what to do.
    """
    unknown = [name for name in only_tasks if name not in config.resolved]
    if unknown:
        raise ThinkevalError(
            f"--tasks {','.join(unknown)}: not in the config's tasks ({', '.join(config.resolved)})"
        )
    tasks = [t for t in config.resolved.values() if not only_tasks or t.name in only_tasks]
    data_dir = None
    records = []
    for task in tasks:
        before = old.entries.get(task.name) if old is not None else None
        if keep_recorded and before is not None and before.digest is not None:
            records.append(_kept(run_dir, before))
            continue
        if data_dir is None:
            data_dir = resolve_data_dir(config.data_dir)
        _ready(task.spec)
        sources: list[DataSource] = []
        samples = select_samples(task, iter_samples(task.spec, data_dir, sources))
        expect = before.digest if before is not None else None
        try:
            count, digest = write_samples(run_dir, task.name, samples, expect)
        except PromptsChanged as exc:
            raise PromptsChanged(_changed_message(exc, before, task.spec.version)) from None
        records.append(task_record(task, digest, count, describe_sources(sources)))
        if notes is not None:
            notes.append(selection_note(task, count, describe_sources(sources, 1)))
    return records


def _ready(spec: TaskSpec) -> None:
    """Refuse, before any request, a task whose answer kind cannot judge here (code without a
    working sandbox): the kind's `ready` raises a one-line error."""
    spec.answer.ready()


def _kept(run_dir: Path, before: TaskRecord) -> TaskRecord:
    with SamplesFile(run_dir, before.name, messages=False):
        pass  # the recorded samples must still be there
    return before


def _changed_message(exc: PromptsChanged, before: TaskRecord | None, version: str) -> str:
    assert before is not None
    if before.version == version:
        # Same task code: what changed is the data (or a task file), not thinkeval.
        why = f"the task version is still {version}, so its data or task file changed"
    else:
        was = f"task version {before.version}" if before.version else "an older thinkeval"
        why = f"the run was started with {was}, now task version {version}"
    return (
        f"{exc}; {why}. Its recorded answers belong "
        "to the old prompts: to resume with the prompts recorded at the start, add "
        "--keep-recorded-samples; to ask the new ones, start a new run (a new run name or "
        "--output DIR)"
    )


async def run_evaluation(
    config: RunConfig,
    run_dir: Path,
    options: RunOptions = RunOptions(),
    progress: Progress | None = None,
) -> RunOutcome:
    """Run (or resume) every selected model on every selected task, reporting to `progress`.

    How the models ended is returned, not raised: the caller writes the summary
    (`ops/evaluate.py`), whether the run finished, stopped or lost a model."""
    progress = progress or Progress()
    models = [config.model_named(name) for name in options.only_models] or config.models
    for model in models:
        model.api_key()  # a missing key variable stops the run before anything starts
    old = existing_record(run_dir)
    if old is not None and nothing_recorded(run_dir):
        old = None  # nothing was ever asked: the settings recorded then bind nothing
    check_resumable(run_dir, old, config)
    writer = options.shard.writer if options.shard else "main"
    # Lock first: a process that may not join this run (another shard plan, or the same
    # writer) stops here, before it rewrites the samples and the config others read.
    run_lock = RunLock(run_dir, options.shard)
    journal = Journal(run_dir, writer)
    with run_lock:
        journal.open()
        try:
            notes: list[str] = []
            records = write_selected_samples(
                config, run_dir, options.only_tasks, old, options.keep_recorded_samples, notes
            )
            record = merged(old, new_record(config, records))
            write_run_record(run_dir, record)
            write_run_yaml(run_dir, record)
            for note in notes:
                progress.say(note)

            async def run_batch(admitted: Admitted | None = None) -> RunOutcome:
                return await run_models(
                    run_dir,
                    journal,
                    [config.task(record.name) for record in records],
                    models,
                    progress,
                    limits=EndpointLimits(endpoint_caps(models, config.endpoint_caps())),
                    shard=options.shard,
                    allow_model_mismatch=options.allow_model_mismatch,
                    allow_mixed_fleet=options.allow_mixed_fleet,
                    admitted=admitted,
                    stop_on_signals=options.stop_on_signals,
                )

            gate = options.gate
            outcome = await (in_lockstep(gate, run_batch) if gate else run_batch())
        finally:
            journal.close()
    return outcome
