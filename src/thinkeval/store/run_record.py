"""`config.json`: what a run was started with, read back as typed structs.

It holds the resolved config (API keys never; credentials in URLs redacted) and, per task, what
the recorded attempts mean: the task's version, its scoring, the budgets and repeats it ran with,
where its data came from, and a digest of the prompts asked. Resuming refuses a change of any
of these, so a run never mixes answers to two different questions.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from thinkeval.config import (
    BaselineConfig,
    DecideConfig,
    EndpointConfig,
    ModelConfig,
    ResolvedTask,
    RunConfig,
)
from thinkeval.config.tasks import Retry, parse_range
from thinkeval.errors import JournalError
from thinkeval.generation import GenerationSettings
from thinkeval.records import describe_decode_error
from thinkeval.store.rundir import CONFIG_FILE, SAMPLES_DIR, samples_digest, write_json
from thinkeval.version import __version__

if TYPE_CHECKING:
    from thinkeval.tasks.catalogue import Catalogue

RECORD_VERSION = 2
# Settings that change what a recorded attempt means: a resumed run must keep them.
# `retry` too: a task's retries are all re-asks or all continuations, never a mix.
_FROZEN_MODEL_KEYS = ("model", "generation", "stream", "retry", "prompt")


# Written from the `ResolvedTask` by `task_record`, read back as one by `RunRecord.task`.
class TaskRecord(msgspec.Struct, kw_only=True):
    """One task as the run asks it. Fields a version-1 `config.json` lacks are None."""

    name: str
    limit: int | None = None
    range: str | None = None
    budgets: tuple[int, int] | None = None
    repeats: int = 1
    recommended: dict[str, Any] = {}  # the task's own sampling, below the models' generation
    generation: dict[str, Any] = {}  # the config's task entry, above the models' generation
    version: str | None = None
    scoring: str | None = None  # the answer kind and its version
    digest: str | None = None  # of the prompts asked (ids, messages, golds)
    samples: int | None = None
    source: str | None = None  # "local DIR (files)" or "hub REPO@COMMIT (files)"
    # A task of your own: its task file, paths resolved (readers register it from here).
    definition: dict[str, Any] | None = None
    retry: Retry | None = None  # the task entry's `retry` (None: each model's)


# dict=True: room for the catalogue and the resolved tasks, each built once (never encoded).
class RunRecord(msgspec.Struct, kw_only=True, dict=True):
    """The typed `config.json`."""

    schema_version: int = RECORD_VERSION
    thinkeval_version: str | None = None
    run: str
    data_dir: str | None = None
    budgets: tuple[int, int] | None = None
    tasks: list[TaskRecord] = []
    models: list[ModelConfig] = []
    endpoints: list[EndpointConfig] = []  # in-flight caps of servers models share
    # The config's `baseline:`: the report's comparison section reads it from here.
    baseline: BaselineConfig | str | None = None
    decide: DecideConfig | None = None  # asked in lockstep until decided (config/decide.py)

    @functools.cached_property
    def catalogue(self) -> Catalogue:
        """The tasks this run can name: the built-in ones and its own, from the definitions it
        recorded (`tasks.catalogue`); reading a run registers nothing."""
        from thinkeval.errors import ConfigError
        from thinkeval.tasks.catalogue import recorded_catalogue

        own = {t.name: t.definition for t in self.tasks if t.definition is not None}
        try:
            return recorded_catalogue(own, CONFIG_FILE)
        except ConfigError as exc:
            raise JournalError(str(exc)) from None

    @functools.cached_property
    def entries(self) -> Mapping[str, TaskRecord]:
        """Each recorded task by name, as `config.json` holds it (digest, source, versions)."""
        return {task.name: task for task in self.tasks}

    @functools.cached_property
    def _resolved(self) -> dict[str, ResolvedTask]:
        return {}

    def task(self, name: str) -> ResolvedTask:
        """The recorded task `name` as the run asked it, over the spec the record's catalogue
        names (`config.resolved`); resolved on first need, once (a task no reader asks for
        needs no spec: a run that recorded a task thinkeval no longer has still resumes)."""
        task = self._resolved.get(name)
        if task is None:
            task = self._resolved[name] = self._resolve(self.entry(name))
        return task

    def entry(self, name: str) -> TaskRecord:
        """The recorded task `name` as `config.json` holds it (`entries`)."""
        entry = self.entries.get(name)
        if entry is None:
            raise JournalError(f"{CONFIG_FILE}: the run has no task {name!r}")
        return entry

    def _resolve(self, task: TaskRecord) -> ResolvedTask:
        """A recorded task over its spec: a version-1 record kept one budget pair for all."""
        budgets = task.budgets or self.budgets
        if budgets is None:
            raise JournalError(f"{CONFIG_FILE}: no budgets recorded for task {task.name!r}")
        bounds = None if task.range is None else parse_range(task.range)
        if task.range is not None and bounds is None:
            raise JournalError(
                f"{CONFIG_FILE}: task {task.name!r} has range {task.range!r}, not START:END"
            )
        return ResolvedTask(
            spec=self.catalogue.get(task.name),
            budgets=budgets,
            repeats=task.repeats,
            limit=task.limit,
            bounds=bounds,
            recommended=GenerationSettings.recorded(task.recommended),
            generation=GenerationSettings.recorded(task.generation),
            retry=task.retry,
            definition=task.definition,
        )

    @property
    def model_names(self) -> list[str]:
        return [model.name for model in self.models]

    @property
    def task_names(self) -> list[str]:
        return [task.name for task in self.tasks]


_DECODER = msgspec.json.Decoder(RunRecord)


def read_run_record(run_dir: Path) -> RunRecord:
    """The run's `config.json`; `JournalError` names the file and the field that is wrong."""
    path = run_dir / CONFIG_FILE
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise JournalError(f"{path}: not found; is this a thinkeval run directory?") from None
    except OSError as exc:
        raise JournalError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        record = _DECODER.decode(data)
    except msgspec.MsgspecError as exc:
        raise JournalError(f"{path}: {describe_decode_error(exc)}") from None
    record.catalogue  # noqa: B018 - a recorded task that no longer reads is an error now
    return record


def task_record(task: ResolvedTask, digest: str, samples: int, source: str) -> TaskRecord:
    """The record of one task the run is about to ask: what it was resolved to, what its spec's
    version and scoring are now, and what it asks (the prompts' digest, their number, where
    they came from)."""
    return TaskRecord(
        name=task.name,
        limit=task.limit,
        range=task.range,
        budgets=task.budgets,
        repeats=task.repeats,
        recommended=task.recommended.as_dict(),
        generation=task.generation.as_dict(),
        version=task.spec.version,
        scoring=task.spec.scoring_version,
        digest=digest,
        samples=samples,
        source=source,
        definition=task.definition,
        retry=task.retry,
    )


def new_record(config: RunConfig, tasks: list[TaskRecord]) -> RunRecord:
    """The record of `config` asking `tasks`: no secrets, URLs redacted."""
    public = config.public_dict()
    return RunRecord(
        thinkeval_version=__version__,
        run=config.run,
        data_dir=config.data_dir,
        budgets=config.budgets,
        tasks=tasks,
        models=msgspec.convert(public["models"], list[ModelConfig]),
        endpoints=msgspec.convert(public["endpoints"], list[EndpointConfig]),
        baseline=config.baseline,
        decide=config.decide,
    )


def merged(old: RunRecord | None, new: RunRecord) -> RunRecord:
    """`new`, keeping the models and tasks recorded earlier that it does not name (a run
    resumed with `--model` or `--task`, or a config that dropped a finished model)."""
    if old is None:
        return new
    names = set(new.model_names)
    task_names = set(new.task_names)
    urls = {endpoint.base_url for endpoint in new.endpoints}
    return msgspec.structs.replace(
        new,
        models=[m for m in old.models if m.name not in names] + new.models,
        tasks=[t for t in old.tasks if t.name not in task_names] + new.tasks,
        endpoints=[e for e in old.endpoints if e.base_url not in urls] + new.endpoints,
    )


def write_run_record(run_dir: Path, record: RunRecord) -> None:
    write_json(run_dir / CONFIG_FILE, msgspec.to_builtins(record))


def existing_record(run_dir: Path) -> RunRecord | None:
    """The recorded `config.json`, or None for a new run."""
    return read_run_record(run_dir) if (run_dir / CONFIG_FILE).exists() else None


def check_resumable(run_dir: Path, old: RunRecord | None, config: RunConfig) -> None:
    """Refuse to resume a run whose recorded settings differ from the config's.

    Adding models or tasks is fine; changing a task's budgets, repeats or generation, or what a
    model is asked, is not, because the recorded attempts would then mean something else.
    (Changed prompts are caught when the samples are written: `rundir.write_samples`.)
    """
    if old is None:
        return
    path = run_dir / CONFIG_FILE
    for now in config.resolved.values():
        if now.name not in old.entries:
            continue
        before = old.task(now.name)
        for key, was, is_now in (
            ("budgets", before.budgets, now.budgets),
            ("repeats", before.repeats, now.repeats),
            ("generation", before.generation.as_dict(), now.generation.as_dict()),
            ("recommended sampling", before.recommended.as_dict(), now.recommended.as_dict()),
            ("retry", before.retry or "the model's", now.retry or "the model's"),
        ):
            if _plain(was) != _plain(is_now):
                raise JournalError(
                    f"{path}: task {now.name!r} was run with {key} {_plain(was)}, the "
                    f"config now says {_plain(is_now)}; use a new run name or --output DIR"
                )
    if _plain(old.decide) != _plain(config.decide):
        # The order, the looks and the error rates of a sequential run are fixed at its start.
        raise JournalError(
            f"{path}: the run was started with decide: {_shown(old.decide)}, the config now "
            f"says {_shown(config.decide)}; use a new run name or --output DIR"
        )
    old_models = {m.name: m for m in old.models}
    for model in config.models:
        before_model = old_models.get(model.name)
        if before_model is None:
            continue
        for key in _FROZEN_MODEL_KEYS:
            was, is_now = getattr(before_model, key), getattr(model, key)
            if _plain(was) != _plain(is_now):
                raise JournalError(
                    f"{path}: model {model.name!r} was run with {key} {_shown(was)}, "
                    f"the config now says {_shown(is_now)}; use a new run name or --output DIR"
                )


def _shown(value: Any) -> str:
    """A recorded setting in a message: `'Qwen/Qwen3-8B'`, or `unset` (never Python's None)."""
    return "unset" if value is None else repr(_plain(value))


def _plain(value: Any) -> Any:
    """JSON-equal form (tuples and lists compare equal), for comparing recorded settings."""
    return msgspec.json.decode(msgspec.json.encode(value))


class SamplesEdited(JournalError):
    """A samples file no longer holds what the run wrote (a gold or a prompt edited by hand)."""


def edited_samples(run_dir: Path, record: RunRecord) -> tuple[list[str], list[str]]:
    """The samples files changed since the run wrote them, one line each naming the file; and
    notes for those whose run recorded no digest (older runs: read as they are, unchecked)."""
    edited, unchecked = [], []
    for task in record.tasks:
        path = run_dir / SAMPLES_DIR / f"{task.name}.jsonl"
        if not path.is_file():
            continue
        if task.digest is None:
            unchecked.append(f"{path}: no digest recorded (an older run): read as it is")
        elif (now := samples_digest(run_dir, task.name)) != task.digest:
            edited.append(
                f"{path} was changed after the run wrote it (digest {now}, {CONFIG_FILE} "
                f"records {task.digest}): its golds or prompts are not those the replies answer"
            )
    return edited, unchecked


def refuse_edited_samples(run_dir: Path, allow: bool) -> list[str]:
    """Raise `SamplesEdited` naming the first changed samples file, unless `allow`
    (`--allow-edited-samples`); return the changed files' lines, to show when allowed. Files of
    older runs, without a digest, are read as they are (`verify` notes them)."""
    edited, _ = edited_samples(run_dir, read_run_record(run_dir))
    if edited and not allow:
        raise SamplesEdited(
            f"{edited[0]}; restore the file, or pass --allow-edited-samples to score against it"
        )
    return edited
