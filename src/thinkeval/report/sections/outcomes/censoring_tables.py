"""The outcomes section's table of replies still unfinished when the budget ran out: each
accuracy as bounds (unfinished counted wrong, then right) and on the finished replies, from
`_censoring`. Shown only when some reply is unfinished after the last budget."""

from __future__ import annotations

from thinkeval.report._format import Block, percent, table
from thinkeval.report.sections.outcomes.censoring import CensoringRow
from thinkeval.results.censoring import CensoredAccuracy

HEADING = "Unfinished replies: accuracy bounds"
HEADERS = ("task", "model", "phase", "unfinished", "accuracy (unfinished wrong)",
           "if unfinished right", "on finished")  # fmt: skip
INTRO = (
    "A reply still empty or unfinished when its phase's budget ran out is censored: the model "
    "had not given its final word, so its outcome is unknown, not wrong. Every accuracy "
    "counts it wrong (the lower bound); counting every such reply right gives the upper bound, "
    "and the accuracy at an unlimited budget lies between them. 'On finished' is the accuracy "
    "on the replies that finished (correct, wrong or no answer), assuming the cut replies "
    "resemble them. The adaptive phase's bounds are after the last budget. See docs/reports.md."
)


def _cells(task: str, model: str, phase: str, found: CensoredAccuracy) -> tuple[str, ...]:
    share = found.unfinished / found.units if found.units else None
    return (
        task,
        model,
        phase,
        f"{found.unfinished} ({percent(share)})",
        percent(found.lower),
        percent(found.upper),
        percent(found.finished_accuracy),
    )


def censoring_blocks(rows: list[CensoringRow], tasks: list[str]) -> list[Block]:
    """The blocks the outcomes section ends with; none when every reply finished by the last
    budget."""
    if not rows:
        return []
    cells = [
        _cells(task, r.model, phase, found)
        for task in tasks
        for r in rows
        if r.task == task
        for phase, found in (("fixed", r.block.fixed), ("adaptive", r.block.adaptive))
    ]
    return [
        Block(heading=HEADING),
        Block(text=INTRO),
        Block(table=table(HEADERS, cells, text_columns=3)),
    ]
