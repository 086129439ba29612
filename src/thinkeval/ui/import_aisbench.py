"""How `thinkeval import-aisbench` shows what it imported."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from thinkeval.ops.aisbench import ImportResult
from thinkeval.records import RETRY_STATUSES


def render_import(result: ImportResult, console: Console) -> None:
    """The imported outcomes per task, the warnings, and the command that runs the rest."""
    table = Table(title=f"imported into {result.run_dir}", title_justify="left")
    table.add_column("task")
    columns = ("correct", "wrong", "no_answer", "empty", "unfinished", "error")
    for column in (*columns, "to retry", "missing"):
        table.add_column(column, justify="right")
    for task, counts in result.counts.items():
        retry = sum(counts[s] for s in RETRY_STATUSES)
        table.add_row(
            task,
            *(str(counts[c]) for c in columns),
            str(retry),
            str(result.missing[task]),
        )
    console.print(table)
    kind = "a thinking model" if result.thinking else "a non-thinking model"
    console.print(f"read as {kind} ({escape(result.thinking_source)})", soft_wrap=True)
    for warning in result.warnings:
        console.print(f"[yellow]warning:[/] {escape(warning)}", soft_wrap=True)
    console.print(
        "next (asks only the samples to retry, and failed or missing ones):\n  "
        + escape(result.next_command),
        soft_wrap=True,
    )
