"""Results: fold the journal into per-sample outcomes and count them into `summary.json`.

Verdicts are recomputed from the recorded replies with the current scorers (strict and
lenient), so re-scoring a run is a pure function of its journal. Per sample and phase the first
successful attempt counts; an `error` attempt counts only while nothing better is recorded.
"""

from __future__ import annotations

import fcntl
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from . import __version__
from .aisbench import imported_status
from .journal import iter_attempts
from .records import RETRY_STATUSES, SCHEMA_VERSION, STATUSES, Attempt, Sample, Verdict
from .rundir import (
    CONFIG_FILE,
    SUMMARY_FILE,
    read_json,
    read_samples,
    recorded_tasks,
    write_json,
)
from .scoring import score

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
    return judge(attempt, gold).outcome


def fold(
    attempts: Iterable[Attempt], gold: dict[tuple[str, str], str]
) -> dict[tuple[str, str], dict[str, SampleResult]]:
    """Per (model, task), per sample id: the outcome that counts in each phase."""
    folded: dict[tuple[str, str], dict[str, SampleResult]] = {}
    for attempt in attempts:
        key = (attempt.task, attempt.sample_id)
        if key not in gold:
            continue  # a sample outside the current selection
        result = folded.setdefault((attempt.model, attempt.task), {}).setdefault(
            attempt.sample_id, SampleResult()
        )
        current = result.fixed if attempt.phase == "fixed" else result.retry
        if current is not None and current.status != "error":
            continue  # first success wins; duplicates are reported by `verify`
        outcome = outcome_of(attempt, gold[key])
        if attempt.phase == "fixed":
            result.fixed = outcome
        else:
            result.retry = outcome
    return folded


class OutcomeCounts(BaseModel):
    """How many samples ended in each outcome; `pending` ones have no reply recorded yet."""

    correct: int = 0
    wrong: int = 0
    no_answer: int = 0
    empty: int = 0
    unfinished: int = 0
    error: int = 0
    pending: int = 0


class FixedBlock(OutcomeCounts):
    budget: int
    accuracy: float = 0.0


class RetryBlock(OutcomeCounts):
    budget: int
    candidates: int = 0
    answered: int = 0  # retries that formed a legal final answer: correct + wrong


class AdaptiveBlock(OutcomeCounts):
    accuracy: float = 0.0


class LenientBlock(BaseModel):
    fixed_accuracy: float = 0.0
    adaptive_accuracy: float = 0.0


class Counts(BaseModel):
    """The outcome counts of one model on one task (or one C-Eval subject)."""

    total: int
    fixed: FixedBlock
    retry: RetryBlock
    adaptive: AdaptiveBlock
    lenient: LenientBlock


class TaskResult(Counts):
    model: str
    task: str
    subjects: dict[str, Counts] | None = None


class Summary(BaseModel):
    schema_version: int = SCHEMA_VERSION
    thinkeval_version: str = __version__
    run: str
    budgets: tuple[int, int]
    complete: bool
    written_at: float
    results: list[TaskResult]


def count(results: list[SampleResult | None], budgets: tuple[int, int]) -> Counts:
    """Count outcomes; `None` stands for a sample with nothing recorded yet."""
    total = len(results)
    fixed = FixedBlock(budget=budgets[0])
    retry = RetryBlock(budget=budgets[1])
    adaptive = AdaptiveBlock()
    lenient_fixed = lenient_adaptive = 0
    for result in results:
        if result is None or result.fixed is None:
            fixed.pending += 1
            adaptive.pending += 1
            continue
        setattr(fixed, result.fixed.status, getattr(fixed, result.fixed.status) + 1)
        lenient_fixed += result.fixed.lenient_correct
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
            lenient_adaptive += final.lenient_correct
    retry.answered = retry.correct + retry.wrong
    fixed.accuracy = fixed.correct / total if total else 0.0
    adaptive.accuracy = adaptive.correct / total if total else 0.0
    lenient = LenientBlock(
        fixed_accuracy=lenient_fixed / total if total else 0.0,
        adaptive_accuracy=lenient_adaptive / total if total else 0.0,
    )
    return Counts(total=total, fixed=fixed, retry=retry, adaptive=adaptive, lenient=lenient)


def summarize(run_dir: Path) -> Summary:
    """Compute the summary of a run directory from its config, samples and journal."""
    config: dict[str, Any] = read_json(run_dir / CONFIG_FILE)
    budgets = (int(config["budgets"][0]), int(config["budgets"][1]))
    models = [m["name"] for m in config["models"]]
    # A task in the config but never started (e.g. `run --task` chose another) has no samples yet.
    tasks = [t["name"] for t in config["tasks"] if t["name"] in recorded_tasks(run_dir)]
    samples: dict[str, list[Sample]] = {
        task: read_samples(run_dir, task, messages=False) for task in tasks
    }
    gold = {(task, s.id): s.gold for task, items in samples.items() for s in items}
    folded = fold(iter_attempts(run_dir), gold)
    results = []
    complete = True
    for model in models:
        for task in tasks:
            per_sample = folded.get((model, task), {})
            rows = [per_sample.get(s.id) for s in samples[task]]
            counts = count(rows, budgets)
            subjects = None
            if any(s.subset for s in samples[task]):
                subjects = {}
                for subset in dict.fromkeys(s.subset for s in samples[task] if s.subset):
                    subset_rows = [
                        per_sample.get(s.id) for s in samples[task] if s.subset == subset
                    ]
                    subjects[subset] = count(subset_rows, budgets)
            complete &= counts.fixed.pending == 0 and counts.retry.pending == 0
            results.append(
                TaskResult(model=model, task=task, subjects=subjects, **counts.model_dump())
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
        write_json(run_dir / SUMMARY_FILE, summary.model_dump(mode="json"))
    return summary
