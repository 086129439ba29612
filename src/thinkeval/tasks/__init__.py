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
from thinkeval.tasks.registry import (
    all_tasks,
    default_tasks,
    find_task,
    get_task,
    register,
    task_names,
)
from thinkeval.tasks.rows import unique_samples
from thinkeval.tasks.source import DataSource
from thinkeval.tasks.spec import DataFile, HubSplit, Row, TaskSpec

__all__ = [
    "DATA_DIR_ENV",
    "DataFile",
    "DataSource",
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
    when it exists (a development convenience for a checkout beside the shared datasets). An
    empty string counts as not given. The result is absolute.

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
    task: str | TaskSpec, data_dir: Path | None = None, sources: list[DataSource] | None = None
) -> Iterator[Sample]:
    """The samples of `task` one at a time, as `load_samples` lists them.

    A run streams its datasets through this, so a long dataset never sits in memory whole.
    Errors are raised when the bad row is reached. Each file read is appended to `sources`
    (`tasks.source.describe_sources` words them) when its rows are first asked for.

    >>> next(iter_samples("boolq", resolve_data_dir())).gold
    'B'
    """
    spec = get_task(task) if isinstance(task, str) else task
    built = _built(spec, data_dir, sources)
    yield from spec.assemble(built) if spec.assemble is not None else built


def _built(
    spec: TaskSpec, data_dir: Path | None, sources: list[DataSource] | None
) -> Iterator[Sample]:
    for file in spec.files:
        samples = ((row.where, spec.sample(row)) for row in _rows(file, data_dir, sources))
        if spec.ids_from_data:
            yield from unique_samples(samples)
        else:
            yield from (sample for _, sample in samples)


def _rows(file: DataFile, data_dir: Path | None, sources: list[DataSource] | None) -> Iterator[Row]:
    if file.rows is not None:  # an installed package's data (BFCL's)
        yield from file.rows(sources)
        return
    own = Path(file.local)
    if own.is_absolute():  # a task file's own data, read wherever the data dir is
        if sources is not None:
            sources.append(DataSource("local", str(own.parent), own.name))
        yield from local_rows(file, own.parent)
        return
    if data_dir is not None and file.local:
        if sources is not None:
            sources.append(DataSource("local", str(data_dir), file.local))
        yield from local_rows(file, data_dir)
        return
    from thinkeval.tasks.hub import hub_rows, resolve_split  # only where data comes from the hub

    resolved = resolve_split(file.hub) if file.hub is not None else None
    if sources is not None and resolved is not None:
        origin = f"{resolved.repo}@{resolved.commit}"
        sources.extend(DataSource("hub", origin, path) for path in resolved.paths)
    yield from hub_rows(file, resolved)


def _existing_dir(path: Path, source: str) -> Path:
    if not path.expanduser().is_dir():
        raise DatasetError(f"{source} {path} does not exist or is not a directory")
    return path.expanduser().resolve()
