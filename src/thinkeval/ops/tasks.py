"""`thinkeval tasks`: the tasks thinkeval knows, and exactly what one sample of a task sends.

Built-in tasks are always listed; tasks of your own come from a run config (`--config`) or task
files (`--task-file`, or a task file's path given as the task name).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from thinkeval.config import load_config
from thinkeval.errors import DatasetError, ThinkevalError
from thinkeval.records import Sample
from thinkeval.tasks import all_tasks, iter_samples, resolve_data_dir
from thinkeval.tasks.catalogue import BUILTIN, Catalogue
from thinkeval.tasks.spec import TaskSpec
from thinkeval.tasks.user import load_task_file


@dataclass(frozen=True)
class TaskInfo:
    """One line of `thinkeval tasks`."""

    name: str
    suite: str
    samples: int | None  # None: not counted (the data is on the hub, or unreadable here)
    answer: str
    budgets: tuple[int, int]
    repeats: int
    description: str
    prompt_source: str


@dataclass(frozen=True)
class ShownSample:
    """One sample as a run would ask it: its messages, its gold and the task's settings."""

    spec: TaskSpec
    index: int
    sample: Sample
    generation: dict[str, Any]


def catalogue_of(config: Path | None, task_files: Sequence[Path]) -> Catalogue:
    """The built-in tasks and the tasks of your own that a config or task files define."""
    catalogue = BUILTIN if config is None else load_config(config).catalogue
    own = {spec.name: spec for spec in map(load_task_file, task_files)}
    return Catalogue({**catalogue.own, **own}, catalogue.definitions) if own else catalogue


def _local_count(spec: TaskSpec, data_dir: Path | None) -> int | None:
    if data_dir is None and not any(Path(f.local).is_absolute() for f in spec.files):
        return None  # counting would download the dataset
    if not all(f.local for f in spec.files):
        return None  # a file only on the hub (livecodebench): the same
    try:
        return sum(1 for _ in iter_samples(spec, data_dir))
    except DatasetError:
        return None


def list_tasks(
    data_dir: str | None = None, config: Path | None = None, task_files: Sequence[Path] = ()
) -> list[TaskInfo]:
    """Every known task, with its sample count where the data is local."""
    catalogue = catalogue_of(config, task_files)
    directory = resolve_data_dir(data_dir)
    return [
        TaskInfo(
            name=spec.name,
            suite=spec.suite,
            samples=_local_count(spec, directory),
            answer=spec.answer.name,
            budgets=spec.budgets,
            repeats=spec.repeats,
            description=spec.description,
            prompt_source=spec.prompt_source,
        )
        for spec in [*all_tasks(), *(catalogue.own[name] for name in sorted(catalogue.own))]
    ]


def show_sample(
    name: str,
    index: int = 0,
    data_dir: str | None = None,
    config: Path | None = None,
    task_files: Sequence[Path] = (),
) -> ShownSample:
    """Sample `index` (its position in the dataset, from 0) of task `name` (or of the task file
    at path `name`), exactly as a run sends it."""
    catalogue = catalogue_of(config, task_files)
    if name.endswith((".yaml", ".yml")) and Path(name).is_file():
        spec = load_task_file(Path(name))
    else:
        spec = catalogue.get(name)
    if index < 0:
        raise ThinkevalError(f"--sample {index}: give a position from 0")
    directory = resolve_data_dir(data_dir)
    # Read the whole file, as a run would: a bad line or a duplicate id anywhere is reported
    # here, before anything is asked, not only problems in the row shown.
    sample: Sample | None = None
    count = 0
    for count, found in enumerate(iter_samples(spec, directory), 1):
        if count - 1 == index:
            sample = found
    if sample is None:
        if count == 0:
            raise ThinkevalError(
                f"task {spec.name}: its data has no sample (is the file only a header, or empty?)"
            )
        raise ThinkevalError(
            f"task {spec.name} has {count} samples (positions 0:{count}): none at {index}"
        )
    return ShownSample(spec, index, sample, spec.generation.as_dict())
