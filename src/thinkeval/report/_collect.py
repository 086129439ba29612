"""Read run directories into compact columns per model and task, and check they can be combined.

A report of a 100,000-sample run cannot hold every reply's text. Per model, task and phase it
keeps one row of numbers per sample (verdict, tokens, timings, and where the counted attempt lies
in the journal) and reads the texts back by that reference when a sample is shown. Which attempt
counts, whether a retry was due and the outcome are the judge's (`run/judge.py`, applied line by
line by `counted.count_journal`), so the counts built from these columns equal `summary.json`'s.
Runs with repeats are refused for now (one reply per sample and phase).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from thinkeval.errors import JournalError, ThinkevalError
from thinkeval.records import PHASES, Attempt, Phase
from thinkeval.report._columns import NONE, Replies, Timing
from thinkeval.results.summary import SampleResult
from thinkeval.run.counted import IdIndex, Journals, count_journal
from thinkeval.run.judge import Outcome, outcome_of, retry_due
from thinkeval.run.run_record import RunRecord, read_run_record
from thinkeval.run.rundir import CONFIG_FILE, SamplesFile
from thinkeval.tasks import get_task


@dataclass
class TaskSamples:
    """One task's samples as a run recorded them (no prompts: those are read back by offset)."""

    ids: list[str] = field(default_factory=list)
    golds: list[str] = field(default_factory=list)
    subsets: list[str | None] = field(default_factory=list)
    offsets: array[int] = field(default_factory=lambda: array("Q"))

    def __len__(self) -> int:
        return len(self.ids)

    @cached_property
    def position(self) -> dict[str, int]:
        """Sample id -> its position in this list."""
        return {sample_id: i for i, sample_id in enumerate(self.ids)}


@dataclass(eq=False)  # compared and hashed by identity: one object per run directory
class RunData:
    """One run directory: its record, samples and what its journal says about time and scorers."""

    path: Path
    name: str
    budgets: tuple[int, int]
    models: tuple[str, ...]
    tasks: tuple[str, ...]
    samples: dict[str, TaskSamples]
    record: RunRecord  # config.json, typed
    first_start: float = math.inf  # earliest started_at in the journal
    last_end: float = -math.inf  # latest started_at + latency_s
    scorer_versions: set[str] = field(default_factory=set)
    journals: Journals | None = None  # open while the collection is

    def read(self, ref: int) -> Attempt:
        """The journalled attempt at `ref` (a reference from the columns)."""
        assert self.journals is not None, "read attempts inside `with collect(...)`"
        return self.journals.read(ref)


@dataclass
class ModelTask:
    """Everything one model did on one task, as columns over the run's samples of that task."""

    model: str
    task: str
    run: RunData
    fixed: Replies
    retry: Replies
    timing: dict[Phase, Timing] = field(default_factory=lambda: {p: Timing() for p in PHASES})

    @property
    def samples(self) -> TaskSamples:
        return self.run.samples[self.task]

    def replies(self, phase: Phase) -> Replies:
        return self.fixed if phase == "fixed" else self.retry

    @property
    def candidate(self) -> np.ndarray:
        """Positions whose fixed reply calls for the retry at B2 (the judge's `retry_due`)."""
        return self.fixed.due

    def adaptive_status(self) -> np.ndarray:
        """Per position the adaptive outcome: the retry's for candidates, else the fixed one's."""
        return np.where(self.candidate, self.retry.status, self.fixed.status)

    def adaptive_lenient(self) -> np.ndarray:
        return np.where(self.candidate, self.retry.lenient, self.fixed.lenient)

    def status(self, phase: str) -> np.ndarray:
        """The fixed or the adaptive outcome codes."""
        return self.fixed.status if phase == "fixed" else self.adaptive_status()

    def results(self, positions: Iterable[int] | None = None) -> Iterator[SampleResult | None]:
        """Per position (all unless given), the `SampleResult` the summary counts; None: pending."""
        chosen = range(len(self.samples)) if positions is None else positions
        for position in chosen:
            fixed = self.fixed.outcome(position)
            if fixed is None:
                yield None
                continue
            result = SampleResult(fixed=fixed, due=bool(self.fixed.due[position]))
            if result.candidate:
                result.retry = self.retry.outcome(position)
            yield result


@dataclass
class Collection:
    """The combined runs: one ModelTask per model and task, in a stable order.

    Use it as a context manager: the journals stay open so that texts can be read back.
    """

    runs: list[RunData]
    budgets: tuple[int, int]
    models: list[str]
    tasks: list[str]
    cells: dict[tuple[str, str], ModelTask]
    finishes: list[str]  # finish reasons seen, in order of first appearance: the column's codes
    resources: ExitStack = field(default_factory=ExitStack, repr=False)

    def __enter__(self) -> Collection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.resources.close()
        for run in self.runs:
            run.journals = None

    def ordered(self) -> list[ModelTask]:
        """Cells task by task, models in the order given: the order of every per-task table."""
        return [self.cells[(m, t)] for t in self.tasks for m in self.models]


def _read_samples(run_dir: Path, task: str) -> TaskSamples:
    found = TaskSamples()
    with SamplesFile(run_dir, task, messages=False) as samples:
        for offset, sample in samples:
            found.ids.append(sample.id)
            found.golds.append(sample.gold)
            found.subsets.append(sample.subset)
            found.offsets.append(offset)
    return found


def read_run(run_dir: Path) -> RunData:
    """A run directory's record and samples; `JournalError` if it is not a run directory."""
    if not (run_dir / CONFIG_FILE).is_file():
        raise JournalError(
            f"{run_dir}: not a thinkeval run directory (no {CONFIG_FILE}); pass the folder "
            "that `thinkeval run` wrote, e.g. runs/<run>"
        )
    record = read_run_record(run_dir)
    tasks = tuple(record.task_names)
    budgets = {record.budgets_of(task) for task in tasks}
    if any(task.repeats > 1 for task in record.tasks):
        raise ThinkevalError(f"{run_dir}: reports of runs with repeats are not supported yet")
    if len(budgets) > 1:
        raise ThinkevalError(
            f"{run_dir}: its tasks run at different budgets; reports of such runs are not "
            "supported yet: report each task's run separately"
        )
    samples = {task: _read_samples(run_dir, task) for task in tasks}
    pair = budgets.pop() if budgets else record.budgets or (0, 0)
    return RunData(run_dir, record.run, pair, tuple(record.model_names), tasks, samples, record)


def _check_combinable(runs: Sequence[RunData]) -> None:
    """Refuse runs whose numbers would mean different things side by side."""
    first = runs[0]
    given: dict[Path, Path] = {}
    for run in runs:
        key = run.path.resolve()
        if key in given:
            raise ThinkevalError(
                f"run directory {run.path} is given twice (also as {given[key]}); give each once"
            )
        given[key] = run.path
    for run in runs[1:]:
        if run.budgets != first.budgets:
            raise ThinkevalError(
                f"cannot combine {first.path} (budgets {list(first.budgets)}) with {run.path} "
                f"(budgets {list(run.budgets)}): fixed and adaptive accuracy are only comparable "
                "at the same budgets; report them separately"
            )
        if set(run.tasks) != set(first.tasks):
            raise ThinkevalError(
                f"cannot combine {first.path} (tasks {', '.join(first.tasks)}) with {run.path} "
                f"(tasks {', '.join(run.tasks)}): combined runs must cover the same tasks; "
                "report them separately"
            )
    owner: dict[str, Path] = {}
    for run in runs:
        for model in run.models:
            if model in owner:
                raise ThinkevalError(
                    f"model {model!r} appears in both {owner[model]} and {run.path}; a combined "
                    "report needs each model from one run only (drop one of the run directories)"
                )
            owner[model] = run.path
    if len(runs) == 1:
        return
    for task in first.tasks:
        gold: dict[str, tuple[str, Path]] = {}
        for run in runs:
            items = run.samples[task]
            for sample_id, sample_gold in zip(items.ids, items.golds, strict=True):
                seen = gold.setdefault(sample_id, (sample_gold, run.path))
                if seen[0] != sample_gold:
                    raise ThinkevalError(
                        f"sample {sample_id} has gold {seen[0]!r} in {seen[1]} but "
                        f"{sample_gold!r} in {run.path}: the runs asked different questions "
                        "under the same id and cannot be compared"
                    )


class _Reader:
    """Folds one run's journal into its cells."""

    def __init__(self, run: RunData, cells: dict[tuple[str, str], ModelTask], finishes: list[str]):
        self.run = run
        self.cells = {key: cell for key, cell in cells.items() if cell.run is run}
        self.finishes = finishes
        self._finish_codes = {name: code for code, name in enumerate(finishes)}
        self.indexes = {
            task: IdIndex.from_ids(run.samples[task].ids, f"{run.path}/samples/{task}.jsonl")
            for task in run.tasks
        }

    def finish_code(self, reason: str | None) -> int:
        if reason is None:
            return NONE
        code = self._finish_codes.get(reason)
        if code is None:
            code = self._finish_codes[reason] = len(self.finishes)
            self.finishes.append(reason)
        return code

    def observe(self, attempt: Attempt) -> None:
        """Every attempt of the run's selection counts in its cell's timing and the run's span."""
        cell = self.cells.get((attempt.model, attempt.task))
        if cell is None or attempt.repeat != 0 or attempt.sample_id not in cell.samples.position:
            return  # a model, sample or repeat outside this run's current selection
        cell.timing[attempt.phase].add(attempt)
        run = self.run
        if attempt.started_at > 0:
            run.first_start = min(run.first_start, attempt.started_at)
            run.last_end = max(run.last_end, attempt.started_at + (attempt.latency_s or 0.0))
        for name, verdict in attempt.verdicts.items():
            run.scorer_versions.add(f"{name} {verdict.version}")
        if attempt.scorer_version is not None:  # a version-1 journal's single version
            run.scorer_versions.add(f"version-1 scorers {attempt.scorer_version}")

    def read(self, journals: Journals) -> None:
        counted = count_journal(journals, self.indexes, observe=self.observe)
        slots = {
            task: [self.indexes[task].slot(sample_id) for sample_id in self.run.samples[task].ids]
            for task in self.run.tasks
        }
        for (model, task), cell in self.cells.items():
            entry = counted.get((model, task))
            if entry is None:
                continue
            golds = cell.samples.golds
            for position, slot in enumerate(slots[task]):
                assert slot is not None  # indexed from this very list
                if not entry.fixed[slot]:
                    continue
                gold = golds[position]
                self._fill(cell.fixed, position, entry.fixed[slot], gold, journals)
                if cell.fixed.due[position] and entry.retry_ref(slot):
                    self._fill(cell.retry, position, entry.retry_ref(slot), gold, journals)

    def _fill(
        self, replies: Replies, position: int, ref: int, gold: str, journals: Journals
    ) -> Outcome:
        attempt = journals.read(ref)
        spec = get_task(attempt.task)
        outcome = outcome_of(attempt, spec, gold)
        due = attempt.phase == "fixed" and attempt.ok and retry_due(attempt, spec, gold)
        replies.set(position, attempt, outcome, due, self.finish_code(attempt.finish_reason), ref)
        return outcome


def collect(run_dirs: Sequence[Path]) -> Collection:
    """Read and combine run directories; raise `ThinkevalError` if they cannot be combined.

    The returned collection keeps the journals open (to read texts back): close it, or use it
    in a `with` block.
    """
    if not run_dirs:
        raise ThinkevalError("no run directory given")
    runs = [read_run(Path(d)) for d in run_dirs]
    _check_combinable(runs)
    models = [model for run in runs for model in run.models]
    tasks = list(runs[0].tasks)
    cells: dict[tuple[str, str], ModelTask] = {}
    for run in runs:
        for model in run.models:
            for task in tasks:
                size = len(run.samples[task])
                cells[(model, task)] = ModelTask(model, task, run, Replies(size), Replies(size))
    finishes: list[str] = []
    data = Collection(runs, runs[0].budgets, models, tasks, cells, finishes)
    try:
        for run in runs:
            run.journals = data.resources.enter_context(Journals(run.path))
            _Reader(run, cells, finishes).read(run.journals)
    except BaseException:
        data.close()
        raise
    return data
