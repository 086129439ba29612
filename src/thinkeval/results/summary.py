"""Results: count the journal's outcomes per model and task into `summary.json`.

Verdicts are recomputed from the recorded replies with the current scorers (strict and
lenient), so re-scoring a run is a pure function of its journal. Per sample and phase the first
successful attempt counts; an `error` attempt counts only while nothing better is recorded
(`counted.py` finds that attempt; this module scores and counts it).
"""

from __future__ import annotations

import fcntl
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from thinkeval import __version__
from thinkeval.records import RETRY_STATUSES, SCHEMA_VERSION, STATUSES, Attempt, Status, Verdict
from thinkeval.run.counted import CountedAttempts, Journals, count_journal, index_samples
from thinkeval.run.rundir import (
    CONFIG_FILE,
    SUMMARY_FILE,
    SamplesFile,
    read_json,
    recorded_tasks,
    write_json,
)
from thinkeval.scoring import SCORER_VERSION, score

OUTCOMES = (*STATUSES, "error")


@dataclass(slots=True)
class Outcome:
    """One phase of one sample, reduced to what the numbers need."""

    status: str  # a verdict status, or "error"
    lenient_correct: bool
    completion_tokens: int | None


@dataclass(slots=True)
class SampleResult:
    fixed: Outcome | None = None
    retry: Outcome | None = None

    @property
    def candidate(self) -> bool:
        return self.fixed is not None and self.fixed.status in RETRY_STATUSES

    @property
    def adaptive(self) -> Outcome | None:
        """The retry outcome if the sample was retried, else the fixed one (None: pending)."""
        return self.retry if self.candidate else self.fixed


@dataclass(frozen=True, slots=True)
class Judgement:
    """An attempt's outcome as the numbers count it, with both scorers' verdicts behind it."""

    outcome: Outcome
    strict: Verdict | None  # None for a transport error
    lenient: Verdict | None


def imported_status(attempt: Attempt, verdict: Verdict) -> Status:
    """The verdict status of an attempt, with the rule for replies imported without finish_reason.

    A finished reply without a legal final answer is `no_answer`; but an imported reply's
    finish_reason is unknown, and a reply cut by the token limit looks exactly like that. So an
    attempt with `imported_from` set and `finish_reason` None whose strict status is `no_answer`
    counts as `unfinished` (and gets the adaptive retry). Everything else is unchanged.

    >>> a = Attempt(model="m", task="gsm8k", sample_id="gsm8k/0", phase="fixed", budget=2048,
    ...             max_tokens=2048, content="Let me think", imported_from="aisbench")
    >>> imported_status(a, score("gsm8k", a.content, None, "18"))
    'unfinished'
    """
    if (
        attempt.imported_from is not None
        and attempt.finish_reason is None
        and verdict.status == "no_answer"
    ):
        return "unfinished"
    return verdict.status


def judge(attempt: Attempt, gold: str) -> Judgement:
    """Score one attempt strictly and leniently, applying the run-level rules once."""
    if attempt.error is not None:
        return Judgement(Outcome("error", False, None), None, None)
    strict = score(attempt.task, attempt.content, attempt.finish_reason, gold)
    lenient = score(
        attempt.task,
        attempt.content,
        attempt.finish_reason,
        gold,
        reasoning=attempt.reasoning,
        scorer="lenient",
    )
    status = imported_status(attempt, strict)
    if status != strict.status:
        # Imported replies carry no finish_reason: no legal answer there means cut off.
        rule = f"{strict.rule or 'no rule matched'}; imported, scorer said {strict.status}"
        strict = Verdict(status, strict.answer, rule)  # type: ignore[arg-type]
    outcome = Outcome(status, lenient.is_correct, attempt.usage.completion_tokens)
    return Judgement(outcome, strict, lenient)


def outcome_of(attempt: Attempt, gold: str) -> Outcome:
    """The attempt's outcome; the recorded verdicts are reused when this scorer version gave
    them against this gold (re-scoring would give the same), else the reply is scored again."""
    if (
        attempt.scorer_version == SCORER_VERSION
        and attempt.gold == gold
        and attempt.error is None
        and attempt.imported_from is None
        and attempt.verdict is not None
        and attempt.lenient_verdict is not None
    ):
        lenient_correct = attempt.lenient_verdict == "correct"
        return Outcome(attempt.verdict, lenient_correct, attempt.usage.completion_tokens)
    return judge(attempt, gold).outcome


class OutcomeCounts(msgspec.Struct, kw_only=True):
    """How many samples ended in each outcome; `pending` ones have no reply recorded yet."""

    correct: int = 0
    wrong: int = 0
    no_answer: int = 0
    empty: int = 0
    unfinished: int = 0
    error: int = 0
    pending: int = 0


class FixedBlock(OutcomeCounts, kw_only=True):
    budget: int
    accuracy: float = 0.0


class RetryBlock(OutcomeCounts, kw_only=True):
    budget: int
    candidates: int = 0
    answered: int = 0  # retries that formed a legal final answer: correct + wrong


class AdaptiveBlock(OutcomeCounts, kw_only=True):
    accuracy: float = 0.0


class LenientBlock(msgspec.Struct, kw_only=True):
    fixed_accuracy: float = 0.0
    adaptive_accuracy: float = 0.0


class Counts(msgspec.Struct, kw_only=True):
    """The outcome counts of one model on one task (or one C-Eval subject)."""

    total: int
    fixed: FixedBlock
    retry: RetryBlock
    adaptive: AdaptiveBlock
    lenient: LenientBlock


class TaskResult(Counts, kw_only=True):
    model: str
    task: str
    subjects: dict[str, Counts] | None = None


class Summary(msgspec.Struct, kw_only=True):
    schema_version: int = SCHEMA_VERSION
    thinkeval_version: str = __version__
    run: str
    budgets: tuple[int, int]
    complete: bool
    written_at: float
    results: list[TaskResult]


class Tally:
    """Counts outcomes one sample at a time; `None` stands for a sample with nothing recorded."""

    def __init__(self, budgets: tuple[int, int]) -> None:
        self.total = 0
        self.fixed = FixedBlock(budget=budgets[0])
        self.retry = RetryBlock(budget=budgets[1])
        self.adaptive = AdaptiveBlock()
        self.lenient_fixed = self.lenient_adaptive = 0

    def add(self, result: SampleResult | None) -> None:
        self.total += 1
        fixed, retry, adaptive = self.fixed, self.retry, self.adaptive
        if result is None or result.fixed is None:
            fixed.pending += 1
            adaptive.pending += 1
            return
        setattr(fixed, result.fixed.status, getattr(fixed, result.fixed.status) + 1)
        self.lenient_fixed += result.fixed.lenient_correct
        if result.candidate:
            retry.candidates += 1
            if result.retry is None:
                retry.pending += 1
            else:
                setattr(retry, result.retry.status, getattr(retry, result.retry.status) + 1)
        final = result.adaptive
        if final is None:
            adaptive.pending += 1
        else:
            setattr(adaptive, final.status, getattr(adaptive, final.status) + 1)
            self.lenient_adaptive += final.lenient_correct

    def counts(self) -> Counts:
        total = self.total
        fixed, retry, adaptive = (
            msgspec.structs.replace(self.fixed),
            msgspec.structs.replace(self.retry),
            msgspec.structs.replace(self.adaptive),
        )
        retry.answered = retry.correct + retry.wrong
        fixed.accuracy = fixed.correct / total if total else 0.0
        adaptive.accuracy = adaptive.correct / total if total else 0.0
        lenient = LenientBlock(
            fixed_accuracy=self.lenient_fixed / total if total else 0.0,
            adaptive_accuracy=self.lenient_adaptive / total if total else 0.0,
        )
        return Counts(total=total, fixed=fixed, retry=retry, adaptive=adaptive, lenient=lenient)


def count(results: Iterable[SampleResult | None], budgets: tuple[int, int]) -> Counts:
    """Count outcomes; `None` stands for a sample with nothing recorded yet."""
    tally = Tally(budgets)
    for result in results:
        tally.add(result)
    return tally.counts()


@dataclass
class TaskCounts:
    """One model on one task: its counts, and per C-Eval subject (None for other tasks)."""

    counts: Counts
    subjects: dict[str, Counts] | None


def sample_result(
    entry: CountedAttempts | None, slot: int, journals: Journals, gold: str
) -> SampleResult | None:
    """The outcomes that count for the sample in `slot`, read back from the journal."""
    if entry is None or not entry.fixed[slot]:
        return None
    result = SampleResult(fixed=outcome_of(journals.read(entry.fixed[slot]), gold))
    if result.candidate and entry.retry_ref(slot):
        result.retry = outcome_of(journals.read(entry.retry_ref(slot)), gold)
    return result


def tally(
    run_dir: Path,
    models: list[str],
    tasks: list[str],
    budgets: tuple[int, int],
    observe: Callable[[Attempt], None] | None = None,
) -> dict[tuple[str, str], TaskCounts]:
    """Count every model on every task from the journal, holding a few bytes per sample.

    One pass over the journals finds the attempt that counts per sample and phase; a pass over
    each task's samples then reads those attempts back and scores them. `observe` sees every
    attempt of the first pass (`thinkeval status` takes its timings there).
    """
    indexes = index_samples(run_dir, tasks)
    out: dict[tuple[str, str], TaskCounts] = {}
    with Journals(run_dir) as journals:
        counted = count_journal(journals, indexes, observe=observe)
        for task in tasks:
            overall = {model: Tally(budgets) for model in models}
            subjects: dict[str, dict[str, Tally]] = {}
            with SamplesFile(run_dir, task, messages=False) as samples:
                for _, sample in samples:
                    slot = indexes[task].slot(sample.id)
                    assert slot is not None  # indexed from this very file
                    subject = None
                    if sample.subset:
                        subject = subjects.get(sample.subset)
                        if subject is None:
                            subject = subjects[sample.subset] = {m: Tally(budgets) for m in models}
                    for model in models:
                        entry = counted.get((model, task))
                        result = sample_result(entry, slot, journals, sample.gold)
                        overall[model].add(result)
                        if subject is not None:
                            subject[model].add(result)
            for model in models:
                by_subject = (
                    {name: tallies[model].counts() for name, tallies in subjects.items()}
                    if subjects
                    else None
                )
                out[model, task] = TaskCounts(overall[model].counts(), by_subject)
    return out


def summarize(run_dir: Path) -> Summary:
    """Compute the summary of a run directory from its config, samples and journal."""
    config: dict[str, Any] = read_json(run_dir / CONFIG_FILE)
    budgets = (int(config["budgets"][0]), int(config["budgets"][1]))
    models = [m["name"] for m in config["models"]]
    # A task in the config but never started (e.g. `run --task` chose another) has no samples yet.
    tasks = [t["name"] for t in config["tasks"] if t["name"] in recorded_tasks(run_dir)]
    counts = tally(run_dir, models, tasks, budgets)
    results = []
    complete = True
    for model in models:
        for task in tasks:
            task_counts = counts[model, task]
            complete &= (
                task_counts.counts.fixed.pending == 0 and task_counts.counts.retry.pending == 0
            )
            results.append(
                TaskResult(
                    model=model,
                    task=task,
                    subjects=task_counts.subjects,
                    **msgspec.structs.asdict(task_counts.counts),
                )
            )
    return Summary(
        run=config["run"], budgets=budgets, complete=complete, written_at=time.time(),
        results=results,
    )


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
