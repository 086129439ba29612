"""The report's section on replies still unfinished when the budget ran out: each accuracy as
bounds (unfinished counted wrong, then right) and on the finished replies, from `_censoring`."""

from __future__ import annotations

from thinkeval.report._censoring import CensoringRow
from thinkeval.report._format import Block, Section, percent, table
from thinkeval.results.censoring import CensoredAccuracy

HEADERS = ("model", "phase", "unfinished", "accuracy (unfinished wrong)",
           "if unfinished right", "on finished")  # fmt: skip
INTRO = (
    "A reply still empty or unfinished when its phase's budget ran out is censored: the model "
    "had not given its final word, so its outcome is unknown, not wrong. Every accuracy above "
    "counts it wrong (the lower bound); counting every such reply right gives the upper bound, "
    "and the true accuracy at unlimited budget lies between them. 'On finished' is the "
    "accuracy on the replies that finished (correct, wrong or no answer), assuming the cut "
    "replies resemble them. The adaptive phase's bounds are after the last budget. See "
    "docs/reports.md."
)


def _cells(model: str, phase: str, found: CensoredAccuracy) -> tuple[str, ...]:
    share = found.unfinished / found.units if found.units else None
    return (
        model,
        phase,
        f"{found.unfinished} ({percent(share)})",
        percent(found.lower),
        percent(found.upper),
        percent(found.finished_accuracy),
    )


def censoring_section(rows: list[CensoringRow], tasks: list[str]) -> Section | None:
    """The section, or None when every reply finished by the last budget."""
    if not rows:
        return None
    blocks = []
    for task in tasks:
        mine = [row for row in rows if row.task == task]
        if not mine:
            continue
        cells = [
            _cells(r.model, phase, found)
            for r in mine
            for phase, found in (("fixed", r.block.fixed), ("adaptive", r.block.adaptive))
        ]
        blocks.append(Block(heading=task))
        blocks.append(Block(table=table(HEADERS, cells, text_columns=2)))
    return Section("censoring", "Unfinished replies: accuracy bounds", INTRO, blocks)
