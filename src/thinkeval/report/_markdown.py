"""The report as Markdown (GitHub-flavoured pipe tables)."""

from __future__ import annotations

from thinkeval.report._model import Report
from thinkeval.report._tables import Block, Table, header_lines, sections


def _cell(text: str) -> str:
    # A pipe would end the cell and a newline the row.
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _table(table: Table) -> list[str]:
    lines = ["| " + " | ".join(_cell(c) for c in table.columns) + " |"]
    lines.append("|" + "|".join("---:" if n else "---" for n in table.numeric) + "|")
    lines.extend("| " + " | ".join(_cell(c) for c in row) + " |" for row in table.rows)
    return lines


def _block(block: Block) -> list[str]:
    lines: list[str] = []
    if block.heading is not None:
        lines += [f"### {block.heading}", ""]
    if block.text is not None:
        lines += [block.text, ""]
    if block.bullets:
        lines += [f"- {b}" for b in block.bullets] + [""]
    if block.table is not None:
        lines += [*_table(block.table), ""]
    return lines


def render_markdown(report: Report) -> str:
    """The report as Markdown text, ending in one newline.

    >>> text = render_markdown(build_report([Path("runs/demo")]))  # doctest: +SKIP
    """
    lines = ["# thinkeval report", ""]
    lines += [f"- {line}" for line in header_lines(report)] + [""]
    if report.notes:
        lines += ["## Notes", ""] + [f"- {_cell(n)}" for n in report.notes] + [""]
    for section in sections(report):
        lines += [f"## {section.title}", "", section.intro, ""]
        for block in section.blocks:
            lines += _block(block)
    return "\n".join(lines).rstrip("\n") + "\n"
