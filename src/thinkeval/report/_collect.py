"""Read one or more run directories into per-sample records, and check they can be combined.

The report needs each counted reply's tokens, timings and texts, not only its outcome, so it
keeps the counted attempts in memory. Which attempt counts, whether a retry was due and the
outcome are the judge's (`run/judge.py`), so the counts built from these records equal
`summary.json`'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from thinkeval.errors import JournalError, ThinkevalError
from thinkeval.records import Attempt, Sample, Verdict
from thinkeval.results.summary import SampleResult
from thinkeval.run.journal import iter_attempts
from thinkeval.run.judge import Outcome, retry_due, score_attempt, takes_over
from thinkeval.run.run_record import read_run_record
from thinkeval.run.rundir import CONFIG_FILE, read_samples
from thinkeval.tasks import get_task


@dataclass(frozen=True, slots=True)
class Judged:
    """A counted attempt with both scorers' verdicts (None for a transport error)."""

    attempt: Attempt
    strict: Verdict | None
    lenient: Verdict | None
    outcome: Outcome


@dataclass(slots=True)
class SampleRecord:
    """The attempts that count for one sample of one model, per phase."""

    fixed: Judged | None = None
    retry: Judged | None = None
    due: bool = False  # the judge's word on the counted fixed attempt

    def result(self) -> SampleResult:
        """The `results.SampleResult` that `count` and the summary work with."""
        # A retry that was not due (the fixed reply was answered) is a protocol violation for
        # `verify` to report; it never counts.
        return SampleResult(
            fixed=self.fixed.outcome if self.fixed else None,
            retry=self.retry.outcome if self.retry and self.due else None,
            due=self.due,
        )


@dataclass(frozen=True)
class RunData:
    """One run directory's config and samples."""

    path: Path
    name: str
    budgets: tuple[int, int]
    models: tuple[str, ...]
    tasks: tuple[str, ...]
    samples: dict[str, list[Sample]]


@dataclass
class ModelTask:
    """Everything one model did on one task."""

    model: str
    task: str
    run: RunData
    records: dict[str, SampleRecord] = field(default_factory=dict)
    attempts: list[Attempt] = field(default_factory=list)  # all, errors and duplicates too

    @property
    def samples(self) -> list[Sample]:
        return self.run.samples[self.task]

    def results(self, samples: list[Sample] | None = None) -> list[SampleResult | None]:
        """Per sample (the run's own list unless given), its result; None: nothing recorded."""
        chosen = self.samples if samples is None else samples
        return [
            record.result() if (record := self.records.get(s.id)) is not None else None
            for s in chosen
        ]


@dataclass(frozen=True)
class Collection:
    """The combined runs: one ModelTask per model and task, in a stable order."""

    runs: list[RunData]
    budgets: tuple[int, int]
    models: list[str]
    tasks: list[str]
    cells: dict[tuple[str, str], ModelTask]


def judge(attempt: Attempt, gold: str) -> Judged:
    """The attempt's outcome, exactly as the summary counts it, and both scorers' verdicts."""
    scored = score_attempt(attempt, get_task(attempt.task), gold)
    return Judged(attempt, scored.strict, scored.lenient, scored.outcome)


def read_run(run_dir: Path) -> RunData:
    """A run directory's config and samples; `JournalError` if it is not a run directory."""
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
    samples = {task: read_samples(run_dir, task) for task in tasks}
    pair = budgets.pop() if budgets else record.budgets or (0, 0)
    return RunData(run_dir, record.run, pair, tuple(record.model_names), tasks, samples)


def _check_combinable(runs: list[RunData]) -> None:
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
    for task in first.tasks:
        gold: dict[str, tuple[str, Path]] = {}
        for run in runs:
            for sample in run.samples[task]:
                seen = gold.setdefault(sample.id, (sample.gold, run.path))
                if seen[0] != sample.gold:
                    raise ThinkevalError(
                        f"sample {sample.id} has gold {seen[0]!r} in {seen[1]} but "
                        f"{sample.gold!r} in {run.path}: the runs asked different questions "
                        "under the same id and cannot be compared"
                    )


def _read_attempts(run: RunData, cells: dict[tuple[str, str], ModelTask]) -> None:
    """Fold a run's journal into `cells`, keeping the attempt that counts per sample and phase."""
    gold = {(task, s.id): s.gold for task, items in run.samples.items() for s in items}
    for attempt in iter_attempts(run.path):
        cell = cells.get((attempt.model, attempt.task))
        outside = (attempt.task, attempt.sample_id) not in gold or attempt.repeat != 0
        if cell is None or cell.run is not run or outside:
            continue  # a model, sample or repeat outside this run's current selection
        cell.attempts.append(attempt)
        record = cell.records.setdefault(attempt.sample_id, SampleRecord())
        current = record.fixed if attempt.phase == "fixed" else record.retry
        if not takes_over(None if current is None else current.attempt.ok, attempt.ok):
            continue
        sample_gold = gold[(attempt.task, attempt.sample_id)]
        judged = judge(attempt, sample_gold)
        if attempt.phase == "fixed":
            record.fixed = judged
            record.due = attempt.ok and retry_due(attempt, get_task(attempt.task), sample_gold)
        else:
            record.retry = judged


def collect(run_dirs: list[Path]) -> Collection:
    """Read and combine run directories; raise `ThinkevalError` if they cannot be combined."""
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
                cells[(model, task)] = ModelTask(model, task, run)
    for run in runs:
        _read_attempts(run, cells)
    return Collection(runs, runs[0].budgets, models, tasks, cells)
