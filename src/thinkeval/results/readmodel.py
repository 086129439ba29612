"""The read model: a run's journal folded once into typed columns, in the counting pass.

The summary's counting pass (`results.tally`) reads back the reply that counts per (sample,
repeat) and phase; `ReadModel` is the fold that keeps, per model and task, one row of numbers
per unit and phase (`results.columns.ReplyColumns`: outcome, verdicts by scorer, the retry
decision, journal reference, how the judge scorer read it, every registered measure), and, as
the pass's observer, every request's timing (`results.timing`). The report, `thinkeval
compare`, the viewer and export read these columns; nothing else folds the journal for them.
A few dozen bytes a unit: texts are read back by journal reference.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from thinkeval.records import PHASES, Attempt, Phase
from thinkeval.results.columns import (
    JUDGE_AGREES,
    JUDGE_DIFFERS,
    JUDGE_MISSING,
    NONE,
    ReplyColumns,
)
from thinkeval.results.folds import CountedReply, Folds, ReplyFold
from thinkeval.results.judge import (
    AgreementFold,
    JudgeRecord,
    read_verdicts,
    reads_alike,
    verdict_on,
)
from thinkeval.results.tally import QuestionObserver, SampleSource, TaskCounts, tally
from thinkeval.results.timing import Timing
from thinkeval.store.counted import IdIndex
from thinkeval.store.run_record import RunRecord
from thinkeval.store.rundir import judge_path

__all__ = ["ReadModel", "TaskColumns", "read_model"]


@dataclass(kw_only=True)
class TaskColumns:
    """Everything one model did on one task, as columns over the run's units of that task
    (unit `position * k + repeat`, positions in samples-file order)."""

    model: str
    task: str
    fixed: ReplyColumns
    retry: ReplyColumns
    timing: dict[Phase, Timing] = field(default_factory=lambda: {p: Timing() for p in PHASES})
    # The judge scorer's reading (status, answer) of the replies it reads differently from
    # strict, by phase and unit; where it agrees, its reading is strict's.
    judge_reads: dict[tuple[Phase, int], tuple[str, str | None]] = field(default_factory=dict)
    # What the pass counted (summary.json's counts, per subject too); None until it ran.
    counted: TaskCounts | None = None

    def replies(self, phase: Phase) -> ReplyColumns:
        return self.fixed if phase == "fixed" else self.retry


class ReadModel:
    """One run folded: its cells' columns, the span of its requests, the scorer versions its
    verdicts were recorded with and the judge models whose verdicts were read. A `ReplyFold`
    (`add`) and the counting pass's observer (`observe`)."""

    def __init__(
        self,
        run_dir: Path,
        cells: dict[tuple[str, str], TaskColumns],
        finishes: list[str],
    ) -> None:
        self.cells = cells
        self.finishes = finishes  # finish reasons, in order of first appearance: their codes
        self._finish_codes = {name: code for code, name in enumerate(finishes)}
        verdicts = read_verdicts(run_dir) if judge_path(run_dir).is_file() else None
        # Strict vs the judge scorer, for a judged run (`results.judge.AgreementFold`).
        self.agreement = None if verdicts is None else AgreementFold(verdicts)
        self.judge_models: dict[str, int] = {}
        self.first_start = math.inf  # earliest started_at in the journal
        self.last_end = -math.inf  # latest started_at + latency_s
        self.scorer_versions: set[str] = set()

    @property
    def judged(self) -> bool:
        """The run has judge verdicts (verdicts/judge.jsonl)."""
        return self.agreement is not None

    def finish_code(self, reason: str | None) -> int:
        if reason is None:
            return NONE
        code = self._finish_codes.get(reason)
        if code is None:
            code = self._finish_codes[reason] = len(self.finishes)
            self.finishes.append(reason)
        return code

    def observe(self, attempt: Attempt) -> None:
        """Every attempt of the run's selection (the pass's `observe_selected`) counts in its
        cell's timing and the run's span."""
        cell = self.cells.get((attempt.model, attempt.task))
        if cell is None:
            return  # a model this run no longer has
        cell.timing[attempt.phase].add(attempt)
        if attempt.started_at > 0:
            self.first_start = min(self.first_start, attempt.started_at)
            self.last_end = max(self.last_end, attempt.started_at + (attempt.latency_s or 0.0))
        for name, verdict in attempt.verdicts.items():
            self.scorer_versions.add(f"{name} {verdict.version}")
        if attempt.scorer_version is not None:  # a version-1 journal's single version
            self.scorer_versions.add(f"version-1 scorers {attempt.scorer_version}")

    def add(self, reply: CountedReply) -> None:
        attempt = reply.attempt
        cell = self.cells.get((attempt.model, attempt.task))
        if cell is None:
            return
        columns = cell.replies(attempt.phase)
        finish = self.finish_code(attempt.finish_reason)
        columns.set(reply.unit, attempt, reply.outcome, reply.due, finish, reply.ref)
        if self.agreement is not None:
            verdict = verdict_on(self.agreement.verdicts, reply)
            self.agreement.judged(reply, verdict)
            if reply.state == "finished":
                self._judged(cell, columns, reply, verdict)

    def discard(self, task: str) -> None:
        """A task counted again sets the same units again; its agreement starts over."""
        if self.agreement is not None:
            self.agreement.discard(task)

    def _judged(
        self,
        cell: TaskColumns,
        columns: ReplyColumns,
        reply: CountedReply,
        verdict: JudgeRecord | None,
    ) -> None:
        """Mark how the judge read this finished reply (as `AgreementFold` counts it)."""
        unit = reply.unit
        if verdict is None:
            columns.judge[unit] = JUDGE_MISSING
            return
        model = verdict.judge_model
        columns.judge_by[unit] = self.judge_models.setdefault(model, len(self.judge_models))
        if reads_alike(verdict, reply.outcome):
            columns.judge[unit] = JUDGE_AGREES
        else:
            columns.judge[unit] = JUDGE_DIFFERS
            phase = reply.attempt.phase
            cell.judge_reads[(phase, unit)] = (str(verdict.status), verdict.answer)


def read_model(
    run_dir: Path,
    record: RunRecord,
    cells: dict[tuple[str, str], TaskColumns],
    indexes: dict[str, IdIndex],
    finishes: list[str],
    folds: Iterable[ReplyFold] = (),
    on_question: QuestionObserver | None = None,
    samples: SampleSource | None = None,
) -> tuple[ReadModel, dict[tuple[str, str], TaskCounts]]:
    """Fold a run's journal into `cells` (one per model and task to read) in the one counting
    pass, with `folds` and `on_question` fed alongside (`samples`: the tasks' samples, when
    the caller has read them already); the model and the pass's counts."""
    model = ReadModel(run_dir, cells, finishes)
    models = list(dict.fromkeys(m for m, _ in cells))
    tasks = list(dict.fromkeys(t for _, t in cells))
    counts = tally(
        run_dir,
        record,
        models,
        tasks,
        observe_selected=model.observe,
        on_question=on_question,
        folds=Folds(model, *folds),
        indexes=indexes,
        samples=samples,
    )
    for key, cell in cells.items():
        cell.counted = counts[key]
    return model, counts
