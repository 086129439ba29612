"""Results: count the journal's outcomes per model and task into `summary.json`.

Verdicts are recomputed from the recorded replies with the recording scorers in effect
(`scoring.scorers.recording_scorers`: strict, lenient and any registered), so re-scoring a run
is a pure function of its journal. Which attempt counts, whether a retry was due and what the
outcome is are the judge's decisions (`store/protocol_rules.py`); this module only counts them, per
(sample, repeat).
"""

from __future__ import annotations

import fcntl
import time
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from thinkeval.diagnosis.counts import DiagnosisBlock, DiagnosisFold
from thinkeval.results.categories import CategoriesBlock, categories_block
from thinkeval.results.censoring import CensoringBlock, censoring_block
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
    count,
)
from thinkeval.results.folds import Folds
from thinkeval.results.instructions import InstructionsBlock, InstructionTally
from thinkeval.results.reasoning_check import ReasoningBlock, ReasoningFold
from thinkeval.results.repeats import RepeatsBlock
from thinkeval.results.replicas import ReplicaFold, ReplicaRow
from thinkeval.results.tally import sample_result, tally
from thinkeval.scoring.judge import NAME as JUDGE
from thinkeval.scoring.judge import PROMPT_VERSION as JUDGE_PROMPT
from thinkeval.store.protocol_rules import Outcome

if TYPE_CHECKING:
    from thinkeval.results.judge import Agreement, AgreementFold
from thinkeval.store.run_record import read_run_record
from thinkeval.store.rundir import SUMMARY_FILE, judge_path, recorded_tasks, write_json
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
    # The reasoning controls asked and whether the replies kept to the budget (`reasoning`).
    reasoning: ReasoningBlock | None = None
    # Accuracy with the replies still unfinished at each phase's budget counted wrong, then
    # right, and on the finished replies alone (`results.censoring`).
    censoring: CensoringBlock | None = None

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
# 5: `reasoning`, the reasoning controls asked and the budget check, per model and task.
# 6: `censoring`, the accuracy bounds with unfinished replies counted wrong, then right; IFEval's
# `instructions` numbers under the paper's names (`prompt_level_strict`, ...).
# Attempts stay at `records.SCHEMA_VERSION`.
SUMMARY_SCHEMA_VERSION = 6


class Summary(msgspec.Struct, kw_only=True):
    schema_version: int = SUMMARY_SCHEMA_VERSION
    thinkeval_version: str = __version__
    run: str
    complete: bool
    written_at: float
    results: list[TaskResult]
    # Per replica of a model with several base URLs (`results.replicas`); left out of
    # summary.json when no model has several, so those summaries read as before.
    replicas: list[ReplicaRow] = []


def summarize(run_dir: Path) -> Summary:
    """Compute the summary of a run directory from its config, samples and journal."""
    record = read_run_record(run_dir)
    models = record.model_names
    # A task in the config but never started (e.g. `run --task` chose another) has no samples yet.
    started = recorded_tasks(run_dir)
    tasks = [task for task in record.task_names if task in started]
    instructed = InstructionTally(
        {task for task in tasks if (record.entry(task).scoring or "").startswith("instructions-")}
    )
    diagnosis = DiagnosisFold({task: record.task(task).spec.answer for task in tasks})
    reasoning = ReasoningFold(record.models)
    replicas = ReplicaFold(m.name for m in record.models if len(m.base_urls) > 1)
    judged = _judge_fold(run_dir)
    folds = Folds(diagnosis, reasoning, replicas, *([] if judged is None else [judged]))
    counts = tally(run_dir, record, models, tasks, on_question=instructed, folds=folds)
    diagnosed, checked = diagnosis.blocks(), reasoning.blocks()
    results = []
    for model in models:
        for task in tasks:
            task_counts = counts[model, task]
            results.append(
                TaskResult(
                    model=model,
                    task=task,
                    budgets=record.task(task).budgets,
                    repeats=record.task(task).repeats,
                    samples=task_counts.samples,
                    subjects=task_counts.subjects,
                    repeated=task_counts.repeated,
                    instructions=instructed.block(model, task),
                    categories=categories_block(
                        record.task(task).spec.categories, task_counts.subjects
                    ),
                    **msgspec.structs.asdict(task_counts.counts),
                )
            )
    if judged is not None:
        _add_judge(judged.found, results)
    for result in results:
        result.diagnosis = diagnosed.get((result.model, result.task))
        result.reasoning = checked.get((result.model, result.task))
        result.censoring = censoring_block(result)
    complete = all(result.complete for result in results) and len(tasks) == len(record.tasks)
    return Summary(
        run=record.run,
        complete=complete,
        written_at=time.time(),
        results=results,
        replicas=replicas.rows(),
    )


def _add_judge(agreements: dict[tuple[str, str], Agreement], results: list[TaskResult]) -> None:
    """The judge scorer's numbers for each model and task of a judged run (its `AgreementFold`'s
    `found`): `scorers["judge"]` as for any scorer, and its own `judge` block (judged, not
    judged, agreement)."""
    for result in results:
        found = agreements.get((result.model, result.task))
        if found is None or not result.total:
            continue
        result.judge = JudgeBlock(
            fixed_accuracy=found.judge_fixed_correct / result.total,
            adaptive_accuracy=found.judge_correct / result.total,
            judged=found.judged,
            not_judged=found.not_judged,
            agreement=found.agreed / found.judged if found.judged else 0.0,
        )
        result.scorers[JUDGE] = ScorerBlock.of(
            found.judge_fixed_correct, found.judge_correct, result.total, JUDGE_PROMPT
        )


def _judge_fold(run_dir: Path) -> AgreementFold | None:
    """Strict vs the judge, folded in the counting pass, when the run has judge verdicts."""
    if not judge_path(run_dir).is_file():
        return None
    from thinkeval.results.judge import AgreementFold, read_verdicts  # only judged runs

    return AgreementFold(read_verdicts(run_dir))


def write_summary(run_dir: Path) -> Summary:
    """Recompute and write `summary.json`.

    Shards finishing together each write it; the lock makes the last writer the one that read
    every journal last, so the file never ends up older than the journals.
    """
    with (run_dir / ".summary.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        summary = summarize(run_dir)
        written = msgspec.to_builtins(summary)
        if not written["replicas"]:
            del written["replicas"]
        write_json(run_dir / SUMMARY_FILE, written)
    return summary
