"""The report's section per scorer beside strict ("Strict vs lenient", one for any recording
scorer in effect, `scoring.scorers.active_scorers`, and "Strict vs judge" for a judged run):
its accuracies beside strict's, and how many replies it counts correct although strict reads
them as empty or cut off; the judge's section adds its agreement with strict."""

from __future__ import annotations

from thinkeval.report._format import Block, Section, percent, points, table
from thinkeval.report._model import JudgeRow, Report, ScorerRow
from thinkeval.report._tables_repeats import JUDGE_ABOUT, judge_blocks
from thinkeval.scoring.judge import NAME as JUDGE
from thinkeval.scoring.scorers import active_scorers


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
