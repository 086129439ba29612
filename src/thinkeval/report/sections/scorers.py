"""Sections: strict beside each other scorer ("Strict vs lenient", one for any recording scorer
in effect, `scoring.scorers.active_scorers`, and "Strict vs judge" for a judged run): its
accuracies beside strict's, and how many replies it counts correct although strict reads them
as empty or cut off; the judge's section adds its agreement with strict.

Its numbers: per recording scorer beside strict (registry order), then the judge, one row per
model and task with that scorer's counts (`SectionInputs.counts`, summary.json's), and the
judge's agreement with strict (`SectionInputs.judged`, shared because the judge's scorer block
in the counts comes from it).
"""

from __future__ import annotations

import numpy as np

from thinkeval.report._cells import ModelTask
from thinkeval.report._format import Block, Section, percent, points, samples_link, shown_ids, table
from thinkeval.report._frozen import Frozen
from thinkeval.report._model import JudgeRow, Report
from thinkeval.report._section import ReportSection, SectionInputs, SectionNumbers
from thinkeval.results.columns import RETRY_CODES
from thinkeval.results.counts import ScorerBlock
from thinkeval.results.summary import Counts
from thinkeval.results.wording import cell
from thinkeval.scoring.judge import NAME as JUDGE
from thinkeval.scoring.scorers import STRICT, active_scorers, recording_scorers


class ScorerRow(Frozen, frozen=True):
    """The strict verdicts beside another scorer's (lenient: what AISBench reports by default;
    any registered recording scorer; the judge, once a run is judged), one row per model, task
    and scorer."""

    scorer: str
    model: str
    task: str
    total: int
    strict_fixed: float
    fixed: float
    strict_adaptive: float
    adaptive: float
    # Samples the scorer counts correct although the strict verdict is `empty` or
    # `unfinished`: answers read out of a cut-off reply or out of the reasoning.
    on_cut_fixed: int
    on_cut_adaptive: int


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


def _repeated(report: Report) -> bool:
    """Some task is asked more than once per question."""
    return any(k > 1 for k in report.repeats.values())


# What the report says of a recording scorer beside strict (others: their class's docstring).
_LENIENT_ABOUT = (
    "The lenient scorer is what AISBench/OpenCompass report by default: it reads the "
    "reasoning as well as the content and ignores the finish reason, so it can find a "
    "'correct' number or letter in a reply the model never finished."
)


def scorer_sections(
    report: Report, scorers: list[ScorerRow], judged: list[JudgeRow]
) -> list[Section]:
    """One section per recording scorer beside strict, in registry order."""
    names = list(dict.fromkeys(row.scorer for row in scorers))
    return [_scorer_section(report, scorers, judged, name) for name in names]


def _scorer_section(
    report: Report, scorers: list[ScorerRow], judged: list[JudgeRow], name: str
) -> Section:
    rows = [
        (
            r.model,
            r.task,
            percent(r.strict_fixed),
            percent(r.fixed),
            points(r.fixed - r.strict_fixed),
            str(r.on_cut_fixed),
            percent(r.strict_adaptive),
            percent(r.adaptive),
            points(r.adaptive - r.strict_adaptive),
            str(r.on_cut_adaptive),
        )
        for r in scorers
        if r.scorer == name
    ]
    scorer = active_scorers().get(name)
    about = {"lenient": _LENIENT_ABOUT, JUDGE: JUDGE_ABOUT}.get(name)
    if about is None:
        about = " ".join((type(scorer).__doc__ or "").split())
    return Section(
        name,
        f"Strict vs {name}",
        f"{about} '{name.capitalize()} on cut' counts samples the {name} scorer marks correct "
        "although the strict verdict is empty or unfinished"
        + (" (with repeats, (question, repeat) replies)." if _repeated(report) else "."),
        [
            Block(
                table=table(
                    (
                        "model",
                        "task",
                        "strict fixed",
                        f"{name} fixed",
                        f"{name} − strict",
                        f"{name} on cut (fixed)",
                        "strict adaptive",
                        f"{name} adaptive",
                        f"{name} − strict",
                        f"{name} on cut (adaptive)",
                    ),
                    rows,
                    text_columns=2,
                )
            ),
            *(judge_blocks(judged) if name == JUDGE else ()),
        ],
    )


# The judge table's column that opens the disagreeing samples.
DISAGREE_COLUMN = 4


# What the report says of the judge, in its "Strict vs judge" section.
JUDGE_ABOUT = (
    "thinkeval judge asked a judge model to extract the final answer of every finished "
    "reply that counts (empty and cut-off replies have none, so nothing is judge-correct on "
    "cut); its answer is compared with the gold exactly as strict compares. The judge never "
    "changes the strict numbers: this shows where strict's reading of a reply may be wrong, "
    "for review. Accuracies are over every (sample, repeat), as summary.json's "
    "scorers.judge; a reply not judged yet counts as not correct for the judge. Below, a "
    "reply is judged the same way when strict and the judge give the same verdict and the "
    "same answer; 'disagree' opens the samples in the sample browser (filter: strict and "
    "judge disagree), each card with both readings."
)


def judge_blocks(judged: list[JudgeRow]) -> list[Block]:
    """The judge's own extras per model and task: how many replies it judged, how often it
    reads them as strict does, and the disagreeing samples (empty for runs never judged)."""
    if not judged:
        return []
    rows, links, listed = [], {}, []
    for i, row in enumerate(judged):
        rows.append(
            (
                row.model,
                row.task,
                str(row.judged),
                str(row.agreed),
                str(row.disagreed),
                percent(row.agreement),
                str(row.not_judged),
                cell(row.strict_correct, row.units),
                cell(row.judge_correct, row.units),
            )
        )
        if row.disagreeing_ids:
            listed.append(
                f"{row.model} on {row.task}, disagreeing samples "
                f"({len(row.disagreeing_ids)}): {shown_ids(row.disagreeing_ids)}."
            )
        if row.disagreed:
            links[(i, DISAGREE_COLUMN)] = samples_link(
                model=row.model, task=row.task, judge="disagree"
            )
    columns = (
        "model",
        "task",
        "judged",
        "agree",
        "disagree",
        "agreement",
        "not judged yet",
        "strict adaptive",
        "judge adaptive",
    )
    return [
        Block(heading="Agreement with strict"),
        Block(table=table(columns, rows, text_columns=2, links=links)),
        Block(bullets=tuple(listed)),
    ]


def shown(report: Report) -> list[Section]:
    numbers = SECTION.numbers(report)
    return scorer_sections(report, numbers.scorers, numbers.judge)


SECTION = ReportSection(key="scorers", place=60, shown=shown, data=scorers_numbers)
