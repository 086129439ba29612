"""Results: count the journal's outcomes per model and task into `summary.json`.

Verdicts are recomputed from the recorded replies with the recording scorers in effect
(`scoring.scorers.recording_scorers`: strict, lenient and any registered), so re-scoring a run
is a pure function of its journal. Which attempt counts, whether a retry was due and what the
outcome is are the judge's decisions (`store/judge.py`); this module only counts them, per
(sample, repeat).
"""

from __future__ import annotations

import fcntl
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import msgspec

from thinkeval.diagnosis.counts import DiagnosisBlock, add_diagnosis
from thinkeval.records import Attempt, Sample, Verdict
from thinkeval.results.categories import CategoriesBlock, categories_block
from thinkeval.results.counts import (
    OUTCOMES,
    AdaptiveBlock,
    Counts,
    FixedBlock,
    JudgeBlock,
    LenientBlock,
    OutcomeCounts,
    RetryBlock,
    SampleResult,
    ScorerBlock,
    Tally,
    count,
)
from thinkeval.results.instructions import InstructionsBlock, InstructionTally
from thinkeval.results.repeats import (
    QuestionPhase,
    RepeatsBlock,
    group_votes,
    phase_repeats,
    question_phase,
)
from thinkeval.scoring.judge import NAME as JUDGE
from thinkeval.scoring.pooled import Job, many_verdicts, task_pools
from thinkeval.scoring.scorers import ReplyText
from thinkeval.store.counted import CountedAttempts, IdIndex, Journals, count_journal, index_samples
from thinkeval.store.judge import Outcome, attempt_state, outcome_of, recorded_is_current, retry_due
from thinkeval.store.run_record import RunRecord, read_run_record
from thinkeval.store.rundir import (
    SUMMARY_FILE,
    SamplesFile,
    judge_path,
    recorded_tasks,
    write_json,
)
from thinkeval.tasks.spec import TaskSpec
from thinkeval.version import __version__

# The counts live in `results.counts`; they are part of what a summary is, so they are
# importable from here too.
__all__ = [
    "OUTCOMES", "AdaptiveBlock", "Counts", "FixedBlock", "JudgeBlock", "LenientBlock", "Outcome",
    "OutcomeCounts", "RetryBlock", "SampleResult", "ScorerBlock", "Summary", "TaskResult",
    "count", "sample_result", "summarize", "tally", "write_summary",
]  # fmt: skip


class TaskResult(Counts, kw_only=True):
    model: str
    task: str
    budgets: tuple[int, int]
    repeats: int = 1
    samples: int = 0  # questions; `total` counts each repeat of them
    subjects: dict[str, Counts] | None = None
    judge: JudgeBlock | None = None  # after `thinkeval judge`
    # avg@k, pass@k, maj@k per phase, for a task asked more than once per question.
    repeated: RepeatsBlock | None = None
    # IFEval's prompt/instruction-level strict/loose accuracies (`instructions` answer kind).
    instructions: InstructionsBlock | None = None
    # Per category and the average over categories (C-Eval's headline), for tasks with them.
    categories: CategoriesBlock | None = None
    # Why replies did not finish, per phase, and the deployment findings (`diagnosis`).
    diagnosis: DiagnosisBlock | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.judge is not None and JUDGE not in self.scorers:
            # Written before the judge was keyed with the scorers: its accuracies are there.
            total, judge = self.total, self.judge
            fixed, adaptive = (
                round(a * total) for a in (judge.fixed_accuracy, judge.adaptive_accuracy)
            )
            self.scorers[JUDGE] = ScorerBlock.of(fixed, adaptive, total, None)


# 3: `diagnosis` per model and task. 4: `scorers`, the numbers per recording scorer by name
# (`lenient` stays, the same as `scorers["lenient"]`; older summaries are read into `scorers`).
# Attempts stay at `records.SCHEMA_VERSION`.
SUMMARY_SCHEMA_VERSION = 4


class Summary(msgspec.Struct, kw_only=True):
    schema_version: int = SUMMARY_SCHEMA_VERSION
    thinkeval_version: str = __version__
    run: str
    complete: bool
    written_at: float
    results: list[TaskResult]


@dataclass
class TaskCounts:
    """One model on one task: its counts, and per subset (None for a task of one part)."""

    counts: Counts
    subjects: dict[str, Counts] | None
    samples: int
    repeated: RepeatsBlock | None = None


# Verdicts scored again for this summary, by journal reference and scorer name (tasks some
# recording scorer pools: `scoring.pooled.task_pools`).
Rescored = dict[int, dict[str, Verdict]]
# Sees every question of every model: (model, task, sample, the outcomes of its repeats).
QuestionObserver = Callable[[str, str, Sample, list["SampleResult | None"]], None]


def sample_result(
    entry: CountedAttempts | None,
    unit: int,
    journals: Journals,
    spec: TaskSpec,
    gold: str,
    rescored: Rescored | None = None,
    stale: Callable[[], None] | None = None,
) -> SampleResult | None:
    """The outcomes that count for `unit` (a sample and repeat), read back from the journal;
    `rescored` holds verdicts scored again beforehand; `stale` is called for an attempt whose
    recorded verdicts are not current and not in `rescored` (a summary of a pooled task raises
    there, scores all such attempts in the workers, and counts again)."""
    if entry is None or not entry.fixed[unit]:
        return None
    rescored = rescored or {}

    def outcome(ref: int, attempt: Attempt) -> Outcome:
        given = rescored.get(ref)
        if given is None and stale is not None and not recorded_is_current(attempt, spec, gold):
            stale()
        return outcome_of(attempt, spec, gold, given)

    ref = entry.fixed[unit]
    attempt = journals.read(ref)
    result = SampleResult(fixed=outcome(ref, attempt))
    result.fixed_clamped = result.sent_if_clamped(attempt)
    result.due = attempt.error is None and retry_due(attempt, spec, gold)
    ref = entry.retry_ref(unit)
    if result.candidate and ref:
        retry = journals.read(ref)
        result.retry, result.retry_clamped = outcome(ref, retry), result.sent_if_clamped(retry)
    return result


class _Stale(Exception):
    """A pooled task's attempt with verdicts that are not current: score them in the workers."""


def _stale() -> None:
    raise _Stale


def tally(
    run_dir: Path,
    record: RunRecord,
    models: list[str],
    tasks: list[str],
    observe: Callable[[Attempt], None] | None = None,
    on_question: QuestionObserver | None = None,
) -> dict[tuple[str, str], TaskCounts]:
    """Count every model on every task from the journal, holding a few bytes per sample.

    One pass over the journals finds the attempt that counts per (sample, repeat) and phase;
    a pass over each task's samples then reads those attempts back and scores them. `observe`
    sees every attempt of the first pass (`thinkeval status` takes its timings there);
    `on_question` sees every question's outcomes (`results.repeats.repeat_details`).
    """
    repeats = {task: record.task(task).repeats for task in tasks}
    indexes = index_samples(run_dir, repeats)
    out: dict[tuple[str, str], TaskCounts] = {}
    with Journals(run_dir) as journals:
        counted = count_journal(journals, indexes, observe=observe)
        for task in tasks:
            entries = {model: counted.get((model, task)) for model in models}
            spec = record.catalogue.get(task)
            reading = _TaskReading(run_dir, spec, repeats[task], indexes[task], journals)
            for model, counts in reading.count(
                entries, record.budgets_of(task), on_question
            ).items():
                out[model, task] = counts
    return out


@dataclass
class _TaskReading:
    """One task's samples file read against the counted attempts of every model."""

    run_dir: Path
    spec: TaskSpec
    k: int
    index: IdIndex
    journals: Journals

    def _units(self) -> Iterator[tuple[Sample, int]]:
        """Each sample and the number of its first unit (its repeats follow)."""
        with SamplesFile(self.run_dir, self.spec.name, messages=False) as stream:
            for _, sample in stream:
                slot = self.index.slot(sample.id)
                assert slot is not None  # indexed from this very file
                yield sample, slot * self.k

    def rescore(self, spec: TaskSpec, entries: dict[str, CountedAttempts | None]) -> Rescored:
        """Score again, in parallel in the scoring workers, the replies whose recorded verdicts
        are not current, of a task some recording scorer pools: a summary never runs symbolic
        maths (or code, or IFEval's checkers) inline."""
        refs: list[int] = []
        jobs: list[Job] = []
        for sample, first in self._units():
            for entry in entries.values():
                if entry is None:
                    continue
                for unit in range(first, first + self.k):
                    for ref in (entry.fixed[unit], entry.retry_ref(unit)):
                        attempt = self.journals.read(ref) if ref else None
                        if attempt is None or recorded_is_current(attempt, spec, sample.gold):
                            continue
                        state = attempt_state(attempt, spec, sample.gold)
                        reply = ReplyText(
                            attempt.content, attempt.reasoning, attempt.finish_reason, state
                        )
                        refs.append(ref)
                        jobs.append((spec, reply, sample.gold))
        return dict(zip(refs, many_verdicts(jobs), strict=True))

    def count(
        self,
        entries: dict[str, CountedAttempts | None],
        budgets: tuple[int, int],
        on_question: QuestionObserver | None,
    ) -> dict[str, TaskCounts]:
        """The counts per model. A task some scorer pools is counted in one pass when its
        recorded verdicts are all current (a run scores as it records); otherwise the stale ones
        are scored again in the workers, together, and the task counted again."""
        spec = self.spec
        if not task_pools(spec):
            return self._count(spec, entries, budgets, on_question, {}, None)
        # Questions are shown to `on_question` once the pass that counts is known.
        seen: list[tuple[str, str, Sample, list[SampleResult | None]]] = []
        emit = None if on_question is None else lambda *question: seen.append(question)
        try:
            counts = self._count(spec, entries, budgets, emit, {}, _stale)
        except _Stale:
            seen.clear()
            counts = self._count(spec, entries, budgets, emit, self.rescore(spec, entries), None)
        if on_question is not None:
            for question in seen:
                on_question(*question)
        return counts

    def _count(
        self,
        spec: TaskSpec,
        entries: dict[str, CountedAttempts | None],
        budgets: tuple[int, int],
        on_question: QuestionObserver | None,
        rescored: Rescored,
        stale: Callable[[], None] | None,
    ) -> dict[str, TaskCounts]:
        overall = {model: Tally(budgets) for model in entries}
        subjects: dict[str, dict[str, Tally]] = {}
        phases: dict[str, tuple[list[QuestionPhase], list[QuestionPhase]]] = {
            model: ([], []) for model in entries
        }
        samples = 0
        for sample, first in self._units():
            samples += 1
            subject = None
            if sample.subset:
                subject = subjects.get(sample.subset)
                if subject is None:
                    subject = subjects[sample.subset] = {m: Tally(budgets) for m in entries}
            for model, entry in entries.items():
                results = [
                    sample_result(entry, unit, self.journals, spec, sample.gold, rescored, stale)
                    for unit in range(first, first + self.k)
                ]
                for result in results:
                    overall[model].add(result)
                    if subject is not None:
                        subject[model].add(result)
                if self.k > 1:
                    phases[model][0].append(question_phase([_voted(r, False) for r in results]))
                    phases[model][1].append(question_phase([_voted(r, True) for r in results]))
                if on_question is not None:
                    on_question(model, self.spec.name, sample, results)
        out = {}
        for model in entries:
            by_subject = (
                {name: tallies[model].counts() for name, tallies in subjects.items()}
                if subjects
                else None
            )
            repeated = None
            if self.k > 1 and samples:
                fixed, adaptive = phases[model]
                group_votes(spec.answer, [*fixed, *adaptive])
                repeated = RepeatsBlock(
                    k=self.k,
                    questions=samples,
                    fixed=phase_repeats(self.k, fixed),
                    adaptive=phase_repeats(self.k, adaptive),
                )
            out[model] = TaskCounts(overall[model].counts(), by_subject, samples, repeated)
        return out


def _voted(result: SampleResult | None, adaptive: bool) -> tuple[str, str | None] | None:
    outcome = None if result is None else (result.adaptive if adaptive else result.fixed)
    return None if outcome is None else (outcome.status, outcome.answer)


def summarize(run_dir: Path) -> Summary:
    """Compute the summary of a run directory from its config, samples and journal."""
    record = read_run_record(run_dir)
    models = record.model_names
    # A task in the config but never started (e.g. `run --task` chose another) has no samples yet.
    started = recorded_tasks(run_dir)
    tasks = [task for task in record.task_names if task in started]
    instructed = InstructionTally(
        {task for task in tasks if (record.task(task).scoring or "").startswith("instructions-")}
    )
    counts = tally(run_dir, record, models, tasks, on_question=instructed)
    results = []
    for model in models:
        for task in tasks:
            task_counts = counts[model, task]
            results.append(
                TaskResult(
                    model=model,
                    task=task,
                    budgets=record.budgets_of(task),
                    repeats=record.task(task).repeats,
                    samples=task_counts.samples,
                    subjects=task_counts.subjects,
                    repeated=task_counts.repeated,
                    instructions=instructed.block(model, task),
                    categories=categories_block(
                        record.catalogue.get(task).categories, task_counts.subjects
                    ),
                    **msgspec.structs.asdict(task_counts.counts),
                )
            )
    _add_judge(run_dir, results)
    add_diagnosis(run_dir, results, {task: record.catalogue.get(task).answer for task in tasks})
    complete = all(result.complete for result in results) and len(tasks) == len(record.tasks)
    return Summary(run=record.run, complete=complete, written_at=time.time(), results=results)


def _add_judge(run_dir: Path, results: list[TaskResult]) -> None:
    """The judge scorer's numbers, when the run has judge verdicts (`results.judge.add_judge`)."""
    if judge_path(run_dir).is_file():
        from thinkeval.results.judge import add_judge  # only runs a judge has scored

        add_judge(run_dir, results)


def write_summary(run_dir: Path) -> Summary:
    """Recompute and write `summary.json`.

    Shards finishing together each write it; the lock makes the last writer the one that read
    every journal last, so the file never ends up older than the journals.
    """
    with (run_dir / ".summary.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        summary = summarize(run_dir)
        write_json(run_dir / SUMMARY_FILE, msgspec.to_builtins(summary))
    return summary
