"""Section: the reasoning controls asked and whether replies kept to the thinking budget.

Per model with reasoning controls and task: the thinking budget and the reasoning effort asked,
the reasoning lengths observed and whether they kept to the budget (the check is
`results.reasoning_check`'s fold, in the read model's pass as in summary.json's). Its rows are its
own numbers (report.json's `reasoning`).
"""

from __future__ import annotations

from thinkeval.client.reasoning_controls import SLACK_TOKENS as SLACK
from thinkeval.report._format import DASH, Block, Section, table, tokens
from thinkeval.report._frozen import Frozen
from thinkeval.report._model import Report
from thinkeval.report._section import ReportSection, SectionInputs
from thinkeval.results.reasoning_check import ESTIMATE_SLACK, ReasoningBlock, verdict


class ReasoningRow(Frozen, frozen=True):
    """One model on one task: the controls asked, the lengths observed and the verdict."""

    model: str
    task: str
    budget: int | None
    budget_field: str | None
    effort: str | None
    check: str  # respected, ignored, unchecked, effort_only
    replies: int
    over: int
    counted: int  # lengths the server counted; the rest estimated from the text
    p50: float | None
    p90: float | None
    max: int | None
    verdict: str  # the one-line verdict `thinkeval run` prints


def reasoning_rows(inputs: SectionInputs) -> list[ReasoningRow]:
    """A row per model with reasoning controls and task, in the report's order."""
    data = inputs.data
    rows = []
    for cell in data.ordered():
        model = next((m for m in cell.run.record.models if m.name == cell.model), None)
        if model is None or model.reasoning is None:
            continue
        block = cell.run.reasoning.get((cell.model, cell.task)) or ReasoningBlock(
            budget=model.reasoning.budget,
            effort=model.reasoning.effort,
            check="unchecked" if model.reasoning.budget is not None else "effort_only",
        )
        rows.append(
            ReasoningRow(
                model=cell.model,
                task=cell.task,
                budget=block.budget,
                budget_field=block.budget_field,
                effort=block.effort,
                check=block.check,
                replies=block.replies,
                over=block.over,
                counted=block.counted,
                p50=block.p50,
                p90=block.p90,
                max=block.max,
                verdict=verdict(block),
            )
        )
    return rows


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
    rows: list[ReasoningRow] = report.plugins.get("reasoning", [])
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


SECTION = ReportSection(key="reasoning", place=110, shown=reasoning_section, data=reasoning_rows)
