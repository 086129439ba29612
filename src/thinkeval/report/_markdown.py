"""The report as Markdown (GitHub-flavoured pipe tables).

Names and texts come from run directories, which anyone can write: every piece of text is
escaped, so a model called `m<b>_x_|y` stays those characters and never becomes markup, emphasis,
a link or a new table cell. Only characters that mean something to Markdown are escaped (an
underscore inside a word, as in `no_answer`, means nothing and is left alone).
"""

from __future__ import annotations

import re

from thinkeval.report._format import Block, Table
from thinkeval.report._model import Report
from thinkeval.report._tables import header_lines, sections

_SPECIAL = re.compile(r"[\\`*~<>&|]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])|\](?=[(\[])|^#")


def escape(text: str) -> str:
    """`text` as literal Markdown on one line.

    >>> escape("m<b>&_x_|y")
    'm\\\\<b\\\\>\\\\&\\\\_x\\\\_\\\\|y'
    >>> escape("no_answer")
    'no_answer'
    """
    return _SPECIAL.sub(lambda match: "\\" + match.group(0), text.replace("\n", " "))


def _table(table: Table) -> list[str]:
    lines = ["| " + " | ".join(escape(c) for c in table.columns) + " |"]
    lines.append("|" + "|".join("---:" if n else "---" for n in table.numeric) + "|")
    lines.extend("| " + " | ".join(escape(c) for c in row) + " |" for row in table.rows)
    return lines


def _block(block: Block) -> list[str]:
    lines: list[str] = []
    if block.heading is not None:
        lines += [f"### {escape(block.heading)}", ""]
    if block.text is not None:
        lines += [escape(block.text), ""]
    if block.bullets:
        lines += [f"- {escape(b)}" for b in block.bullets] + [""]
    if block.table is not None:
        lines += [*_table(block.table), ""]
    return lines


def render_markdown(report: Report) -> str:
    """The report as Markdown text, ending in one newline.

    >>> text = render_markdown(build_report([Path("runs/demo")]))  # doctest: +SKIP
    """
    lines = ["# thinkeval report", ""]
    lines += [f"- {escape(line)}" for line in header_lines(report)] + [""]
    if report.notes:
        lines += ["## Notes", ""] + [f"- {escape(n)}" for n in report.notes] + [""]
    for section in sections(report):
        lines += [f"## {escape(section.title)}", "", escape(section.intro), ""]
        for block in section.blocks:
            lines += _block(block)
    return "\n".join(lines).rstrip("\n") + "\n"
