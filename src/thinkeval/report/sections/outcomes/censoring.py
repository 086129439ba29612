"""The report's censoring rows: per model and task, the accuracy with the replies still
unfinished at each phase's budget counted wrong, then right, and on the finished replies alone
(`results.censoring`, the same as summary.json's `censoring` blocks)."""

from __future__ import annotations

from thinkeval.report._frozen import Frozen
from thinkeval.results.censoring import CensoringBlock, censoring_block
from thinkeval.results.counts import Counts


class CensoringRow(Frozen, frozen=True):
    """One model on one task."""

    model: str
    task: str
    block: CensoringBlock


def censoring_rows(counts: dict[tuple[str, str], Counts]) -> list[CensoringRow]:
    """Every model and task, in the order given, when some reply is still unfinished after the
    last budget (else none: every accuracy is then exact)."""
    rows = [
        CensoringRow(model=model, task=task, block=censoring_block(found))
        for (model, task), found in counts.items()
    ]
    if not any(row.block.adaptive.unfinished for row in rows):
        return []
    return rows
