"""Sections: strict beside each other scorer (lenient, any registered one, the judge's).

Its numbers: per recording scorer beside strict (registry order), then the judge, one row per
model and task with that scorer's counts (`SectionInputs.counts`, summary.json's), and the
judge's agreement with strict (`SectionInputs.judged`, shared because the judge's scorer block
in the counts comes from it).
"""

from __future__ import annotations

import numpy as np

from thinkeval.report._cells import ModelTask
from thinkeval.report._format import Section
from thinkeval.report._model import JudgeRow, Report, ScorerRow
from thinkeval.report._section import ReportSection, SectionInputs, SectionNumbers
from thinkeval.report._tables_scorers import scorer_sections
from thinkeval.results.columns import RETRY_CODES
from thinkeval.results.counts import ScorerBlock
from thinkeval.results.summary import Counts
from thinkeval.scoring.judge import NAME as JUDGE
from thinkeval.scoring.scorers import STRICT, recording_scorers


class ScorersNumbers(SectionNumbers, frozen=True):
    scorers: list[ScorerRow]  # per scorer beside strict, model and task
    judge: list[JudgeRow]  # runs judged by `thinkeval judge`


def scorers_numbers(inputs: SectionInputs) -> ScorersNumbers:
    counts = inputs.counts
    rows = [
        _scorer_row(name, mt, counts[(mt.model, mt.task)])
        for name in (*(s.name for s in recording_scorers() if s is not STRICT), JUDGE)
        for mt in inputs.data.ordered()
        if name in counts[(mt.model, mt.task)].scorers
    ]
    return ScorersNumbers(rows, inputs.judged)


def _scorer_row(scorer: str, mt: ModelTask, counts: Counts) -> ScorerRow:
    """Strict beside `scorer`; 'on cut': `scorer` correct although strictly empty or
    unfinished (units: with repeats, each (sample, repeat)). The judge reads finished replies
    only: it has none on cut."""
    block = counts.scorers.get(scorer, ScorerBlock())
    if scorer not in mt.fixed.names:  # the judge: not a column of the replies
        on_cut_fixed = on_cut_adaptive = 0
    else:
        cut_fixed = np.isin(mt.fixed.status, RETRY_CODES)  # strictly empty or unfinished
        cut_adaptive = np.isin(mt.adaptive_status(), RETRY_CODES)
        on_cut_fixed = int((cut_fixed & mt.fixed.correct_by(scorer)).sum())
        on_cut_adaptive = int((cut_adaptive & mt.adaptive_correct(scorer)).sum())
    return ScorerRow(
        scorer=scorer,
        model=mt.model,
        task=mt.task,
        total=counts.total,
        strict_fixed=counts.fixed.accuracy,
        fixed=block.fixed_accuracy,
        strict_adaptive=counts.adaptive.accuracy,
        adaptive=block.adaptive_accuracy,
        on_cut_fixed=on_cut_fixed,
        on_cut_adaptive=on_cut_adaptive,
    )


def shown(report: Report) -> list[Section]:
    numbers = SECTION.numbers(report)
    return scorer_sections(report, numbers.scorers, numbers.judge)


SECTION = ReportSection(key="scorers", place=60, shown=shown, data=scorers_numbers)
