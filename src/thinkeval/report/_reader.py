"""Fold one run's journal into the report's columns, with the judge scorer's verdicts.

Every attempt of the run's selection counts in its cell's timing and the run's span; the attempt
that counts per unit and phase (`counted.count_journal`) is read back once and its outcome, the
retry decision, tokens and timings go into the columns. When the run was judged
(`thinkeval judge`), each counted finished reply is matched with the judge's verdict on that very
reply (`results.judge.verdict_for`: same unit, phase and content) and marked as read the same way
as strict, differently, or not judged yet, as `results.judge.judge_agreement` counts them.
"""

from __future__ import annotations

from thinkeval.records import Attempt
from thinkeval.report._cells import ModelTask, RunData
from thinkeval.report._columns import JUDGE_AGREES, JUDGE_DIFFERS, JUDGE_MISSING, NONE, Replies
from thinkeval.results.judge import Key, content_sha, read_verdicts, verdict_for
from thinkeval.scoring.state import RETRY_STATES
from thinkeval.store.counted import IdIndex, Journals, count_journal
from thinkeval.store.judge import Outcome
from thinkeval.store.rundir import judge_path


class _Reader:
    """Folds one run's journal into its cells."""

    def __init__(self, run: RunData, cells: dict[tuple[str, str], ModelTask], finishes: list[str]):
        self.run = run
        self.cells = {key: cell for key, cell in cells.items() if cell.run is run}
        self.finishes = finishes
        self._finish_codes = {name: code for code, name in enumerate(finishes)}
        self.indexes = {
            task: IdIndex.from_ids(
                run.samples[task].ids, f"{run.path}/samples/{task}.jsonl", run.repeats[task]
            )
            for task in run.tasks
        }
        self.verdicts = read_verdicts(run.path) if judge_path(run.path).is_file() else None
        self._judges: dict[str, int] = {}

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
        if (
            cell is None
            or not 0 <= attempt.repeat < cell.k
            or attempt.sample_id not in cell.samples.position
        ):
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
            k = cell.k
            for position, slot in enumerate(slots[task]):
                assert slot is not None  # indexed from this very list
                for repeat in range(k):
                    counted_unit, unit = slot * k + repeat, position * k + repeat
                    if not entry.fixed[counted_unit]:
                        continue
                    ref = entry.fixed[counted_unit]
                    self._fill(cell, cell.fixed, unit, ref, position, journals)
                    retry = entry.retry_ref(counted_unit)
                    if cell.fixed.due[unit] and retry:
                        self._fill(cell, cell.retry, unit, retry, position, journals)
        self.run.judged = self.verdicts is not None
        self.run.judge_models = list(self._judges)

    def _fill(
        self, cell: ModelTask, replies: Replies, unit: int, ref: int, position: int,
        journals: Journals,
    ) -> None:  # fmt: skip
        attempt = journals.read(ref)
        spec = self.run.record.task(cell.task).spec
        # A long gold (a code task's tests) is read back only if the recorded verdicts are stale.
        outcome, state = cell.samples.golds.outcome(position, attempt, spec)
        due = attempt.phase == "fixed" and attempt.ok and state in RETRY_STATES
        replies.set(unit, attempt, outcome, due, self.finish_code(attempt.finish_reason), ref)
        if self.verdicts is not None and state == "finished":
            self._judged(cell, replies, unit, attempt, outcome)

    def _judged(
        self, cell: ModelTask, replies: Replies, unit: int, attempt: Attempt, strict: Outcome
    ) -> None:
        """Mark how the judge read this finished reply (the rule `judge_agreement` counts by)."""
        assert self.verdicts is not None
        key: Key = (attempt.model, attempt.task, attempt.sample_id, attempt.repeat, attempt.phase)
        verdict = verdict_for(self.verdicts, key, content_sha(attempt.content))
        if verdict is None:
            replies.judge[unit] = JUDGE_MISSING
            return
        replies.judge_by[unit] = self._judges.setdefault(verdict.judge_model, len(self._judges))
        if verdict.status == strict.status and verdict.answer == strict.answer:
            replies.judge[unit] = JUDGE_AGREES
        else:
            replies.judge[unit] = JUDGE_DIFFERS
            cell.judge_reads[(attempt.phase, unit)] = (str(verdict.status), verdict.answer)


def read_journal(
    run: RunData, cells: dict[tuple[str, str], ModelTask], finishes: list[str]
) -> None:
    """Fill the run's cells from its journal (open in `run.journals`)."""
    assert run.journals is not None
    _Reader(run, cells, finishes).read(run.journals)
