"""Benchmark tasks: specs (one per benchmark), their data, and the `Sample`s they ask.

>>> from thinkeval.tasks import load_samples, resolve_data_dir
>>> samples = load_samples("gsm8k", resolve_data_dir())
>>> samples[0].id, samples[0].gold
('gsm8k/0', '18')
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from thinkeval.errors import DatasetError
from thinkeval.records import Sample
from thinkeval.tasks.files import local_rows
from thinkeval.tasks.hub import LoadDataset, hub_rows
from thinkeval.tasks.registry import (
    all_tasks,
    default_tasks,
    find_task,
    get_task,
    register,
    task_names,
)
from thinkeval.tasks.rows import unique_samples
from thinkeval.tasks.spec import DataFile, HubSplit, Row, TaskSpec

__all__ = [
    "DATA_DIR_ENV",
    "DataFile",
    "HubSplit",
    "Row",
    "TaskSpec",
    "all_tasks",
    "default_tasks",
    "find_task",
    "get_task",
    "iter_samples",
    "load_samples",
    "register",
    "resolve_data_dir",
    "task_names",
]

DATA_DIR_ENV = "THINKEVAL_DATA_DIR"


def resolve_data_dir(configured: str | Path | None = None) -> Path | None:
    """The local data dir to read the tasks from, or None to load them from the hub.

    In order: `configured` if given, then the `THINKEVAL_DATA_DIR` environment variable (either
    must be an existing directory), then `../shared/datasets` relative to the current directory
    when it exists. An empty string counts as not given. The result is absolute.

    >>> resolve_data_dir("/nonexistent")
    Traceback (most recent call last):
    thinkeval.errors.DatasetError: data_dir /nonexistent does not exist or is not a directory
    """
    if configured is not None and str(configured) != "":
        return _existing_dir(Path(configured), "data_dir")
    from_env = os.environ.get(DATA_DIR_ENV, "")
    if from_env:
        return _existing_dir(Path(from_env), DATA_DIR_ENV)
    beside_checkout = Path.cwd().parent / "shared" / "datasets"
    if beside_checkout.is_dir():
        return beside_checkout.resolve()
    return None


def load_samples(task: str | TaskSpec, data_dir: Path | None = None) -> list[Sample]:
    """All samples of `task` in a stable order, read from `data_dir` or, when None, the hub.

    Raises `DatasetError` for an unknown task or a missing or malformed dataset, naming the
    file and line.

    >>> [s.id for s in load_samples("ceval", resolve_data_dir())[:2]]
    ['ceval/college_economics/0', 'ceval/college_economics/1']
    """
    return list(iter_samples(task, data_dir))


def iter_samples(
    task: str | TaskSpec, data_dir: Path | None = None, load_dataset: LoadDataset | None = None
) -> Iterator[Sample]:
    """The samples of `task` one at a time, as `load_samples` lists them.

    A run streams its datasets through this, so a long dataset never sits in memory whole.
    Errors are raised when the bad row is reached. `load_dataset` replaces the hub loader
    (tests).

    >>> next(iter_samples("boolq", resolve_data_dir())).gold
    'B'
    """
    spec = get_task(task) if isinstance(task, str) else task
    for file in spec.files:
        rows = hub_rows(file, load_dataset) if data_dir is None else local_rows(file, data_dir)
        samples = ((row.where, spec.sample(row)) for row in rows)
        if spec.ids_from_data:
            yield from unique_samples(samples)
        else:
            yield from (sample for _, sample in samples)


def _existing_dir(path: Path, source: str) -> Path:
    if not path.expanduser().is_dir():
        raise DatasetError(f"{source} {path} does not exist or is not a directory")
    return path.expanduser().resolve()
