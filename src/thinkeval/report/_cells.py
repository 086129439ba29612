"""The report's data: per model and task, columns over the run's units, and the runs behind them.

A report of a 100,000-sample run cannot hold every reply's text. Per model, task and phase it
keeps the read model's row of numbers per unit (`results.readmodel`: a sample, or a (sample,
repeat) pair of a task asked `k` times: unit `position * k + repeat`): verdict, measures, the
judge scorer's reading and where the counted attempt lies in the journal; the texts are read
back by that reference when a sample is shown (`_collect` reads run directories into these).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from thinkeval.diagnosis.counts import DiagnosisBlock, Kept
from thinkeval.records import Attempt, Sample
from thinkeval.report._golds import Golds
from thinkeval.results.judge import Agreement
from thinkeval.results.questions import RepeatDetails
from thinkeval.results.readmodel import TaskColumns
from thinkeval.results.reasoning_check import ReasoningBlock
from thinkeval.store.counted import Journals
from thinkeval.store.run_record import RunRecord


@dataclass
class TaskSamples:
    """One task's samples as a run recorded them (no prompts: those are read back by offset;
    nor a long gold, a code task's tests: `Golds` keeps a reference and reads it back)."""

    golds: Golds
    ids: list[str] = field(default_factory=list)
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
    budgets: dict[str, tuple[int, int]]  # per task: (fixed, retry)
    repeats: dict[str, int]  # per task: replies per question
    models: tuple[str, ...]
    tasks: tuple[str, ...]
    samples: dict[str, TaskSamples]
    record: RunRecord  # config.json, typed
    first_start: float = math.inf  # earliest started_at in the journal
    last_end: float = -math.inf  # latest started_at + latency_s
    scorer_versions: set[str] = field(default_factory=set)
    judged: bool = False  # the run has judge verdicts (verdicts/judge.jsonl)
    judge_models: list[str] = field(default_factory=list)  # judges whose verdicts were read
    # Why replies did not finish, per (model, task): summary.json's, else folded in the pass.
    diagnosis: dict[tuple[str, str], DiagnosisBlock] = field(default_factory=dict)
    # The replies that pass diagnosed, by journal reference (the sample index reads them).
    diagnosed: Kept = field(default_factory=dict)
    # Every question of each task asked more than once, per (model, task), with its metrics.
    questions: dict[tuple[str, str], RepeatDetails] = field(default_factory=dict)
    # The reasoning check per (model, task) of the models with reasoning controls.
    reasoning: dict[tuple[str, str], ReasoningBlock] = field(default_factory=dict)
    # Strict vs the judge scorer per (model, task), for a judged run.
    agreement: dict[tuple[str, str], Agreement] = field(default_factory=dict)
    journals: Journals | None = None  # open while the collection is

    def sample_source(self, task: str) -> Callable[[], Iterator[Sample]] | None:
        """The task's samples as read already (id, gold, subset; no prompts), for the read
        model's pass; None for a task with a long gold (the pass reads the file for those)."""
        items = self.samples[task]
        if items.golds.long:
            return None

        def samples() -> Iterator[Sample]:
            golds = items.golds.kept
            for sample_id, gold, subset in zip(items.ids, golds, items.subsets, strict=True):
                yield Sample(sample_id, task, (), gold, subset)

        return samples

    def read(self, ref: int) -> Attempt:
        """The journalled attempt at `ref` (a reference from the columns)."""
        assert self.journals is not None, "read attempts inside `with collect(...)`"
        return self.journals.read(ref)


@dataclass(kw_only=True)
class ModelTask(TaskColumns):
    """Everything one model did on one task: the read model's columns over the run's units of
    that task (`results.readmodel.TaskColumns`), and the run they come from."""

    run: RunData

    @property
    def samples(self) -> TaskSamples:
        return self.run.samples[self.task]

    @property
    def k(self) -> int:
        """Replies per question (the task's repeats)."""
        return self.run.repeats[self.task]

    @property
    def budgets(self) -> tuple[int, int]:
        return self.run.budgets[self.task]

    @property
    def units(self) -> int:
        return len(self.samples) * self.k

    def units_of(self, positions: Iterable[int]) -> Iterator[int]:
        """Every unit (each repeat) of the samples at `positions`."""
        k = self.k
        for position in positions:
            yield from range(position * k, position * k + k)

    @property
    def candidate(self) -> np.ndarray:
        """Units whose fixed reply calls for the retry at B2 (the judge's `retry_due`)."""
        return self.fixed.due

    def adaptive_status(self) -> np.ndarray:
        """Per unit the adaptive outcome: the retry's for candidates, else the fixed one's."""
        return np.where(self.candidate, self.retry.status, self.fixed.status)

    def adaptive_correct(self, scorer: str) -> np.ndarray:
        """Per unit, whether the recording scorer `scorer` counts the adaptive outcome correct."""
        retry, fixed = self.retry.correct_by(scorer), self.fixed.correct_by(scorer)
        return np.where(self.candidate, retry, fixed)

    def status(self, phase: str) -> np.ndarray:
        """The fixed or the adaptive outcome codes."""
        return self.fixed.status if phase == "fixed" else self.adaptive_status()


@dataclass
class Collection:
    """The combined runs: one ModelTask per model and task, in a stable order.

    Use it as a context manager: the journals stay open so that texts can be read back.
    """

    runs: list[RunData]
    budgets: dict[str, tuple[int, int]]  # per task, equal in every run
    repeats: dict[str, int]  # per task, equal in every run
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

    @property
    def judged(self) -> bool:
        """Some run has judge verdicts (`thinkeval judge`)."""
        return any(run.judged for run in self.runs)
