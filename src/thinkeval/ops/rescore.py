"""`thinkeval rescore RUN_DIR`: score every counted reply again with the current scorers.

The journal is never changed: verdicts recorded with an attempt are a cache that the summary
reuses only while the scorer version and the gold are current. After a thinkeval upgrade (or a
fix to a task's answer kind) this command shows what re-scoring changes, reply by reply and in
the accuracies, and rewrites `summary.json`. Nothing is asked of any model.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from thinkeval.records import Attempt, Verdict
from thinkeval.results.summary import Summary, write_summary
from thinkeval.scoring.pooled import Job, many_verdicts, task_pools
from thinkeval.scoring.scorers import ReplyText, recording_scorers
from thinkeval.store.counted import Journals, count_journal, index_samples
from thinkeval.store.protocol_rules import attempt_state, score_attempt
from thinkeval.store.run_record import read_run_record
from thinkeval.store.rundir import SamplesFile, recorded_tasks
from thinkeval.tasks.spec import TaskSpec

# Changed replies listed per model, task and scorer; the counts cover all of them.
SHOWN_CHANGES = 20


@dataclass(frozen=True)
class Change:
    """One counted reply whose verdict is not the one recorded with it."""

    sample_id: str
    repeat: int
    phase: str
    recorded: str | None  # None: recorded without this scorer's verdict (older runs)
    now: str
    answer: str | None


@dataclass
class ScorerChanges:
    """What re-scoring changed for one model, task and scorer."""

    model: str
    task: str
    scorer: str
    replies: int = 0  # counted replies scored (errors excluded)
    stale: int = 0  # recorded under another scorer version or gold, or not at all
    transitions: Counter[tuple[str, str]] = field(default_factory=Counter)
    changes: list[Change] = field(default_factory=list)

    @property
    def changed(self) -> int:
        return sum(self.transitions.values())


@dataclass
class Rescore:
    """Everything `rescore` found, and the summary it wrote."""

    run_dir: Path
    scorers: list[ScorerChanges]
    summary: Summary


def rescore_run(run_dir: Path) -> Rescore:
    """Score every counted attempt of `run_dir` again and rewrite `summary.json`."""
    record = read_run_record(run_dir)
    started = set(recorded_tasks(run_dir))
    tasks = [task for task in record.task_names if task in started]
    indexes = index_samples(run_dir, {task: record.task(task).repeats for task in tasks})
    found: list[ScorerChanges] = []
    with Journals(run_dir) as journals:
        counted = count_journal(journals, indexes)
        for (model, task), entry in sorted(counted.items()):
            spec = record.task(task).spec
            spec.answer.ready()  # code without a working sandbox: one line, before anything runs
            rows = {s.name: ScorerChanges(model, task, s.name) for s in recording_scorers()}
            with SamplesFile(run_dir, task, messages=False) as samples:
                golds = {sample.id: sample.gold for _, sample in samples}
            refs = [ref for ref in entry.fixed if ref]
            if entry.retry is not None:
                refs += [ref for ref in entry.retry if ref]
            # A task some scorer pools (maths, code, IFEval) is scored in the scoring workers,
            # all replies in parallel.
            pooled = _pooled(refs, journals, spec, golds) if task_pools(spec) else {}
            for ref in refs:
                attempt = journals.read(ref)
                _compare(attempt, spec, golds[attempt.sample_id], rows, pooled.get(ref))
            found.extend(rows.values())
    return Rescore(run_dir, found, write_summary(run_dir))


def _pooled(
    refs: list[int], journals: Journals, spec: TaskSpec, golds: dict[str, str]
) -> dict[int, dict[str, Verdict]]:
    """The verdicts of the successful attempts at `refs`, by scorer, scored in the workers
    where a scorer needs one."""
    jobs: list[Job] = []
    scored = []
    for ref in refs:
        attempt = journals.read(ref)
        if attempt.error is None:
            gold = golds[attempt.sample_id]
            state = attempt_state(attempt, spec, gold)
            reply = ReplyText.of(attempt, state)
            jobs.append((spec, reply, gold))
            scored.append(ref)
    return dict(zip(scored, many_verdicts(jobs), strict=True))


def _compare(
    attempt: Attempt,
    spec: TaskSpec,
    gold: str,
    rows: dict[str, ScorerChanges],
    given: dict[str, Verdict] | None = None,
) -> None:
    if attempt.error is not None:
        return
    scored = score_attempt(attempt, spec, gold, given)
    now = scored.verdicts
    for scorer in recording_scorers():
        row = rows[scorer.name]
        verdict = now[scorer.name]
        assert verdict is not None  # only error attempts have no verdicts
        row.replies += 1
        stored = attempt.verdicts.get(scorer.name)
        legacy = {"strict": attempt.verdict, "lenient": attempt.lenient_verdict}.get(scorer.name)
        before = stored.status if stored is not None else legacy
        version = scorer.version_for(spec)
        current = stored is not None and stored.version == version and attempt.judged_against(gold)
        row.stale += not current
        if before != verdict.status:
            row.transitions[(before or "none", verdict.status)] += 1
            if len(row.changes) < SHOWN_CHANGES:
                row.changes.append(
                    Change(
                        attempt.sample_id,
                        attempt.repeat,
                        attempt.phase,
                        before,
                        verdict.status,
                        verdict.answer,
                    )
                )
