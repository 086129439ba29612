"""`thinkeval compare` and `thinkeval plan` in the terminal: the report's comparison blocks
(`report._tables_compare`) as plain text tables, so the two show the same digits."""

from __future__ import annotations

from thinkeval.ops.compare import Plan
from thinkeval.report._format import Block, Table


def _table(table: Table) -> list[str]:
    rows = [table.columns, *table.rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(table.columns))]

    def line(row: tuple[str, ...]) -> str:
        cells = [
            cell.rjust(width) if numeric else cell.ljust(width)
            for cell, width, numeric in zip(row, widths, table.numeric, strict=True)
        ]
        return "  ".join(cells).rstrip()

    return [line(table.columns), "  ".join("-" * w for w in widths), *map(line, table.rows)]


def render_blocks(blocks: list[Block]) -> str:
    """Headings, paragraphs, bullets and tables as plain text, ending in one newline."""
    lines: list[str] = []
    for block in blocks:
        if block.heading is not None:
            lines += [block.heading, "=" * len(block.heading)]
        if block.text is not None:
            lines.append(block.text)
        lines += [f"- {bullet}" for bullet in block.bullets]
        if block.table is not None:
            lines += _table(block.table)
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def render_plan(plan: Plan) -> str:
    """The plan in a few lines."""
    repeats = f" with {plan.repeats} independent repeats per question" if plan.repeats > 1 else ""
    lines = [
        f"{plan.task} at a margin of ±{plan.margin:g} points, disagreement {plan.disagreement:.1%}"
        f"{repeats}, alpha 0.05 one-sided, 80% power, true difference 0:",
        f"- non-inferior: {plan.noninferior} questions",
        f"- equivalent:   {plan.equivalent} questions",
    ]
    if plan.available is None:
        lines.append("- the task's size is not known here (no data directory: pass --data-dir)")
    else:
        enough = plan.available >= plan.noninferior
        lines.append(
            f"- the task has {plan.available} questions: "
            + ("enough." if enough else f"not enough; about {plan.repeats_needed} repeats per "
               "question would do (if repeats were independent), or a wider margin.")
        )  # fmt: skip
    return "\n".join(lines) + "\n"
