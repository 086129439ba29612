"""The outcomes section's rows and numbers: every model and task's counts (and each subject's),
the retry's rates, IFEval's numbers, why code tasks' wrong programs failed and the censoring
bounds."""

from __future__ import annotations

from thinkeval.report._frozen import Frozen
from thinkeval.report._section import SectionNumbers
from thinkeval.report.sections.outcomes.censoring import CensoringRow
from thinkeval.report.sections.outcomes.code_failures import CodeFailuresRow
from thinkeval.report.sections.outcomes.instructions import InstructionsRow
from thinkeval.results.summary import Counts


class RetryRates(Frozen, frozen=True):
    """What the single retry at B2 achieved for the retry candidates (None: no candidates)."""

    recovery: float | None  # legal final answer formed (retry correct + wrong) / candidates
    new_correct: float | None  # retry correct / candidates
    answered_accuracy: float | None  # retry correct / answered


class BreakdownRow(Frozen, frozen=True):
    """Outcome counts of one model on one task, or on one C-Eval subject (`subject` set)."""

    model: str
    task: str
    subject: str | None
    counts: Counts  # the same object `summary.json` holds for this model and task
    rates: RetryRates


class OutcomesNumbers(SectionNumbers, frozen=True):
    breakdown: list[BreakdownRow]  # per model and task, then per subject
    instructions: list[InstructionsRow]  # IFEval's four numbers (`instructions` tasks)
    code_failures: list[CodeFailuresRow]  # why the wrong programs of code tasks failed
    # Accuracy bounds with unfinished replies counted wrong, then right; empty when every
    # reply finished by the last budget.
    censoring: list[CensoringRow]
