"""Per-question, per-repeat results of a run, for reports of repeated sampling.

`repeat_details(run_dir)` gives, for each model and task, every question with the outcome of
each of its repeats in both phases, and the task's repeated-sampling metrics (the summary's
`repeated` block). `compare_models` compares two models on the same questions, resampling
questions (never single replies) for the interval.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from thinkeval.records import Sample
from thinkeval.results.repeats import Interval, RepeatsBlock, compare_per_question
from thinkeval.results.summary import SampleResult, tally
from thinkeval.results.tally import TaskCounts
from thinkeval.store.run_record import RunRecord, read_run_record
from thinkeval.store.rundir import recorded_tasks


@dataclass(frozen=True)
class RepeatOutcome:
    """One repeat of one question: the strict status and answer per phase (None: pending).

    `adaptive` is the retry's outcome when the fixed reply was retried, else the fixed one."""

    fixed: str | None
    fixed_answer: str | None
    adaptive: str | None
    adaptive_answer: str | None
    retried: bool
    tokens: int | None  # completion tokens of the reply that counts after the adaptive phase


@dataclass(frozen=True)
class QuestionRow:
    """One question and its k repeats."""

    id: str
    subset: str | None
    gold: str
    repeats: tuple[RepeatOutcome, ...]

    @property
    def solved_fixed(self) -> int:
        return sum(r.fixed == "correct" for r in self.repeats)

    @property
    def solved_adaptive(self) -> int:
        return sum(r.adaptive == "correct" for r in self.repeats)


@dataclass
class RepeatDetails:
    """One model on one task asked `k` times per question."""

    model: str
    task: str
    k: int
    questions: list[QuestionRow] = field(default_factory=list)
    metrics: RepeatsBlock | None = None


def _outcome(result: SampleResult | None) -> RepeatOutcome:
    if result is None or result.fixed is None:
        return RepeatOutcome(None, None, None, None, False, None)
    final = result.adaptive
    return RepeatOutcome(
        fixed=result.fixed.status,
        fixed_answer=result.fixed.answer,
        adaptive=final.status if final else None,
        adaptive_answer=final.answer if final else None,
        retried=result.candidate,
        tokens=final.completion_tokens if final else None,
    )


class QuestionsFold:
    """Collects every question of the tasks asked more than once, as the counting pass shows
    them (`results.tally`'s `on_question`), then their metrics from its counts (`finish`)."""

    def __init__(self, record: RunRecord, tasks: Iterable[str]) -> None:
        self.details = {
            (model, task): RepeatDetails(model, task, record.task(task).repeats)
            for model in record.model_names
            for task in tasks
            if record.task(task).repeats > 1
        }

    def __call__(
        self, model: str, task: str, sample: Sample, results: list[SampleResult | None]
    ) -> None:
        found = self.details.get((model, task))
        if found is not None:
            row = QuestionRow(sample.id, sample.subset, sample.gold, tuple(map(_outcome, results)))
            found.questions.append(row)

    def finish(self, counts: Mapping[tuple[str, str], TaskCounts]) -> None:
        for key, detail in self.details.items():
            detail.metrics = counts[key].repeated


def repeat_details(run_dir: Path) -> dict[tuple[str, str], RepeatDetails]:
    """Every (model, task) of the run with more than one repeat: its questions, each repeat's
    outcome, and the metrics. Reads only the run directory."""
    record = read_run_record(run_dir)
    started = recorded_tasks(run_dir)
    tasks = [t.name for t in record.tasks if t.repeats > 1 and t.name in started]
    questions = QuestionsFold(record, tasks)
    questions.finish(tally(run_dir, record, record.model_names, tasks, on_question=questions))
    return questions.details


def compare_models(a: RepeatDetails, b: RepeatDetails, adaptive: bool = True) -> Interval:
    """avg@k of model A minus model B on the questions both were asked, with a 95% interval
    from a paired bootstrap over questions."""
    b_rows = {row.id: row for row in b.questions}
    shared = [(row, b_rows[row.id]) for row in a.questions if row.id in b_rows]
    if not shared:
        raise ValueError(f"{a.model} and {b.model} share no questions of {a.task}")

    def rate(row: QuestionRow, k: int) -> float:
        return (row.solved_adaptive if adaptive else row.solved_fixed) / k

    return compare_per_question(
        [rate(x, a.k) for x, _ in shared], [rate(y, b.k) for _, y in shared]
    )
