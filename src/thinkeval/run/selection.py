"""What a run selects: the models and tasks named on the command line (`split_list`), and a
task's `limit` / `range` applied to its samples, with no silent surprise: a selection past the
end of the data says how many samples it runs, and one that selects nothing is an error."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from thinkeval.config import ResolvedTask
from thinkeval.errors import ConfigError, DatasetError
from thinkeval.records import Sample


def split_list(values: Iterable[str] | None, flag: str = "the list") -> tuple[str, ...]:
    """`["gsm8k,boolq", "ceval"]` (repeated flags, comma lists) -> `("gsm8k", "boolq", "ceval")`.

    A name given twice is an error, so no flag is silently dropped; so is a list given but
    naming nothing (`--tasks ""`), which would otherwise mean "the default".

    >>> split_list(["gsm8k,boolq", " ceval "])
    ('gsm8k', 'boolq', 'ceval')
    """
    if values is None:
        return ()
    names = [part.strip() for value in list(values) for part in value.split(",")]
    names = [name for name in names if name]
    if not names:
        raise ConfigError(f"{flag} names nothing; name at least one, or leave it out")
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ConfigError(f"{flag}: {', '.join(twice)} given twice; list each once")
    return tuple(names)


class _Counting:
    """Counts the samples taken from the task's data (all of them, once it is exhausted)."""

    def __init__(self, samples: Iterator[Sample]) -> None:
        self.samples = samples
        self.count = 0

    def __iter__(self) -> Iterator[Sample]:
        for sample in self.samples:
            self.count += 1
            yield sample


def select_samples(task: ResolvedTask, samples: Iterator[Sample]) -> Iterator[Sample]:
    """`task`'s selected samples in dataset order; `DatasetError` when it selects none."""
    counting = _Counting(samples)
    taken = 0
    for sample in task.select(counting):
        taken += 1
        yield sample
    if taken == 0:
        # Nothing was selected, so the data ran out: `counting` saw all of it.
        what = f"range {task.range}" if task.range is not None else "the selection"
        raise DatasetError(
            f"task {task.name}: {what} selects no sample; "
            + (
                f"the task has {counting.count} (positions 0:{counting.count})"
                if counting.count
                else "the task's data has no sample (is the file only a header, or empty?)"
            )
        )


def selection_note(task: ResolvedTask, count: int, source: str) -> str:
    """`task: N samples (limit L) from SOURCE`, saying when the limit or range went past the
    data.

    >>> from thinkeval.tasks import get_task
    >>> ceval = get_task("ceval")
    >>> note = selection_note(ResolvedTask(ceval, (2048, 8192), limit=100000), 233, "local /d")
    >>> note
    'ceval: 233 samples (limit 100000 is past the data: all 233 samples) from local /d'
    >>> selection_note(ResolvedTask(ceval, (2048, 8192), bounds=(200, 300)), 33, "local /d")
    'ceval: 33 samples (range 200:300 goes past the data, which ends at 233: 200:233) from local /d'
    """
    detail = ""
    if task.limit is not None:
        detail = (
            f"limit {task.limit} is past the data: all {count} samples"
            if count < task.limit
            else f"limit {task.limit}"
        )
        if task.spec.categories:
            detail += ", spread over every category and subject"
    elif task.bounds is not None:
        start, end = task.bounds
        start = start or 0
        if end is not None and count < end - start:
            detail = (
                f"range {task.range} goes past the data, which ends at {start + count}: "
                f"{start}:{start + count}"
            )
        else:
            detail = f"range {task.range}"
    return f"{task.name}: {count} samples{f' ({detail})' if detail else ''} from {source}"
