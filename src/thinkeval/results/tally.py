"""The counting pass: every model on every task, from the journals, a few bytes per sample.

One pass over the journals finds the attempt that counts per (sample, repeat) and phase
(`store.counted`, decided by `store.protocol_rules`); a pass over each task's samples then reads
those attempts back, scores them with the recording scorers in effect and tallies them. Whatever
else is measured over the replies that count (the diagnosis, the reasoning check) is folded in this
same pass (`results.folds`). `results.summary` turns the tallies into `summary.json`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from thinkeval.records import Attempt, Sample, Verdict
from thinkeval.results.counts import Counts, SampleResult, Tally
from thinkeval.results.folds import CountedReply, ReplyFold
from thinkeval.results.repeats import (
    QuestionPhase,
    RepeatsBlock,
    group_votes,
    phase_repeats,
    question_phase,
)
from thinkeval.scoring.pooled import Job, many_verdicts, task_pools
from thinkeval.scoring.scorers import ReplyText
from thinkeval.scoring.state import RETRY_STATES
from thinkeval.store.counted import CountedAttempts, IdIndex, Journals, count_journal, index_samples
from thinkeval.store.journal import JournalLine
from thinkeval.store.protocol_rules import Outcome, attempt_state, outcome_of, recorded_is_current
from thinkeval.store.run_record import RunRecord
from thinkeval.store.rundir import SamplesFile
from thinkeval.tasks.spec import TaskSpec


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
# A task's samples in file order, read again each time it is called (None: read the file).
SampleSource = Callable[[str], Callable[[], Iterator[Sample]] | None]
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
    folds: ReplyFold | None = None,
    at: int = 0,
) -> SampleResult | None:
    """The outcomes that count for `unit` (a sample and repeat), read back from the journal;
    `rescored` holds verdicts scored again beforehand; `stale` is called for an attempt whose
    recorded verdicts are not current and not in `rescored` (a summary of a pooled task raises
    there, scores all such attempts in the workers, and counts again); `folds` see each
    attempt that counts (`results.folds`), as unit `at` (its place in samples-file order)."""
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
    fixed = outcome(ref, attempt)
    result = SampleResult(fixed=fixed, fixed_clamped=SampleResult.sent_if_clamped(attempt))
    state = attempt_state(attempt, spec, gold)
    result.due = state in RETRY_STATES
    if folds is not None:
        folds.add(CountedReply(attempt, gold, fixed, ref, at, state, result.due))
    ref = entry.retry_ref(unit)
    if result.candidate and ref:
        retry = journals.read(ref)
        result.retry = outcome(ref, retry)
        result.retry_clamped = result.sent_if_clamped(retry)
        if folds is not None:
            state = attempt_state(retry, spec, gold)
            folds.add(CountedReply(retry, gold, result.retry, ref, at, state, False))
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
    folds: ReplyFold | None = None,
    on_invalid: Callable[[JournalLine], None] | None = None,
    indexes: dict[str, IdIndex] | None = None,
    observe_selected: Callable[[Attempt], None] | None = None,
    samples: SampleSource | None = None,
) -> dict[tuple[str, str], TaskCounts]:
    """Count every model on every task from the journal, holding a few bytes per sample.

    One pass over the journals finds the attempt that counts per (sample, repeat) and phase;
    a pass over each task's samples then reads those attempts back and scores them. `observe`
    sees every attempt of the first pass (`thinkeval status` takes its timings there, the read
    model its throughput); `on_question` sees every question's outcomes
    (`results.questions.repeat_details`); `folds` every attempt that counts (the read model's
    columns among them); `observe_selected` every attempt of the tasks' samples and repeats.
    `indexes`: the tasks' sample indexes, and `samples`: their samples in file order (ids,
    golds, subsets; None where it has not got them), when the caller has them. A broken journal
    line raises `JournalError`, or is skipped and told to `on_invalid` when given.
    """
    repeats = {task: record.task(task).repeats for task in tasks}
    if indexes is None:
        indexes = index_samples(run_dir, repeats)
    out: dict[tuple[str, str], TaskCounts] = {}
    with Journals(run_dir, on_invalid) as journals:
        counted = count_journal(
            journals, indexes, observe=observe, observe_selected=observe_selected
        )
        for task in tasks:
            entries = {model: counted.get((model, task)) for model in models}
            spec = record.task(task).spec
            given = None if samples is None else samples(task)
            reading = _TaskReading(
                run_dir, spec, repeats[task], indexes[task], journals, folds, given
            )
            for model, counts in reading.count(
                entries, record.task(task).budgets, on_question
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
    folds: ReplyFold | None = None
    given: Callable[[], Iterator[Sample]] | None = None  # the samples, without the file

    def _samples(self) -> Iterator[Sample]:
        if self.given is not None:
            yield from self.given()
            return
        with SamplesFile(self.run_dir, self.spec.name, messages=False) as stream:
            for _, sample in stream:
                yield sample

    def _units(self) -> Iterator[tuple[Sample, int, int]]:
        """Each sample, the number of its first unit in the counted attempts and in
        samples-file order (its repeats follow)."""
        for position, sample in enumerate(self._samples()):
            slot = self.index.slot(sample.id)
            assert slot is not None  # indexed from this very file
            yield sample, slot * self.k, position * self.k

    def rescore(self, spec: TaskSpec, entries: dict[str, CountedAttempts | None]) -> Rescored:
        """Score again, in parallel in the scoring workers, the replies whose recorded verdicts
        are not current, of a task some recording scorer pools: a summary never runs symbolic
        maths (or code, or IFEval's checkers) inline."""
        refs: list[int] = []
        jobs: list[Job] = []
        for sample, first, _ in self._units():
            for entry in entries.values():
                if entry is None:
                    continue
                for unit in range(first, first + self.k):
                    for ref in (entry.fixed[unit], entry.retry_ref(unit)):
                        attempt = self.journals.read(ref) if ref else None
                        if attempt is None or recorded_is_current(attempt, spec, sample.gold):
                            continue
                        state = attempt_state(attempt, spec, sample.gold)
                        reply = ReplyText.of(attempt, state)
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
            if self.folds is not None:
                self.folds.discard(spec.name)
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
        for sample, first, at in self._units():
            samples += 1
            subject = None
            if sample.subset:
                subject = subjects.get(sample.subset)
                if subject is None:
                    subject = subjects[sample.subset] = {m: Tally(budgets) for m in entries}
            for model, entry in entries.items():
                results = [
                    sample_result(
                        entry, first + r, self.journals, spec, sample.gold, rescored, stale,
                        self.folds, at + r,
                    )
                    for r in range(self.k)
                ]  # fmt: skip
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
