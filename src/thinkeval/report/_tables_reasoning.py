"""The report's reasoning-controls section, from the rows of `_reasoning`."""

from __future__ import annotations

from thinkeval.client.reasoning import SLACK_TOKENS as SLACK
from thinkeval.report._format import DASH, Block, Section, table, tokens
from thinkeval.report._model import Report
from thinkeval.report._reasoning import ReasoningRow
from thinkeval.results.reasoning import ESTIMATE_SLACK

HEADERS = ("model", "budget", "effort", "replies", "over", "p50", "p90", "max", "lengths",
           "check")  # fmt: skip


def _lengths(row: ReasoningRow) -> str:
    if not row.replies:
        return DASH
    if row.counted == row.replies:
        return "tokens"
    return "estimate" if row.counted == 0 else f"{row.counted} tokens, rest estimate"


def _cells(row: ReasoningRow) -> tuple[str, ...]:
    budget = DASH if row.budget is None else f"{row.budget} ({row.budget_field})"
    checked = row.budget is not None and row.replies
    return (
        row.model,
        budget,
        row.effort or DASH,
        str(row.replies),
        str(row.over) if checked else DASH,
        tokens(row.p50),
        tokens(row.p90),
        tokens(row.max),
        _lengths(row),
        "effort only: not checked" if row.check == "effort_only" else row.check,
    )


def reasoning_section(report: Report) -> Section | None:
    """The section, or None when no model was asked with reasoning controls."""
    rows: list[ReasoningRow] = report.reasoning
    if not rows:
        return None
    blocks = []
    for task in report.tasks:
        mine = [row for row in rows if row.task == task]
        if not mine:
            continue
        warn = frozenset(i for i, row in enumerate(mine) if row.check == "ignored")
        blocks.append(Block(heading=task))
        blocks.append(Block(table=table(HEADERS, [_cells(r) for r in mine], 3, warn)))
        blocks.append(Block(bullets=tuple(f"{r.model}: {r.verdict}" for r in mine)))
    return Section(
        "reasoning",
        "Reasoning controls",
        "The thinking budget and reasoning effort each model was asked with (config key "
        "reasoning, sent as the server flavour's own field), and whether the replies kept to "
        "the budget: servers are known to accept the field and silently ignore it. Lengths are "
        "the reasoning of every counted reply (both phases): the server's "
        "usage.reasoning_tokens where it reported them (tokens), else an estimate from the "
        "reasoning text (pieces that approximate the tokenizer). A reply is over the budget "
        f"when it reasons past budget + {SLACK} tokens (counted), or budget × "
        f"{1 + ESTIMATE_SLACK:g} + {SLACK} (estimated); respected means no reply over. An "
        "effort is recorded and shown, never checked: it names no length.",
        blocks,
    )
