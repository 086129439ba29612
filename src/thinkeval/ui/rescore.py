"""How `thinkeval rescore` shows what re-scoring changed."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from thinkeval.ops.rescore import Rescore
from thinkeval.ui.tables import results_table


def render_rescore(found: Rescore, console: Console) -> None:
    """Per model, task and scorer: replies scored, verdicts that changed and how; then the new
    results table."""
    table = Table(title=f"re-scored {found.run_dir}", title_justify="left")
    for column in ("model", "task", "scorer"):
        table.add_column(column)
    for column in ("replies", "stale", "changed"):
        table.add_column(column, justify="right")
    table.add_column("recorded → now")
    for row in found.scorers:
        moves = ", ".join(
            f"{before}→{now} {count}" for (before, now), count in sorted(row.transitions.items())
        )
        table.add_row(
            escape(row.model),
            escape(row.task),
            row.scorer,
            str(row.replies),
            str(row.stale),
            str(row.changed),
            escape(moves or "-"),
        )
    console.print(table)
    for row in found.scorers:
        for change in row.changes:
            unit = change.sample_id + (f"#{change.repeat}" if change.repeat else "")
            console.print(
                f"  {escape(row.model)} · {row.scorer} · {escape(unit)} {change.phase}: "
                f"{change.recorded or 'none'} → {change.now}"
                + (f" ({escape(change.answer)})" if change.answer else "")
            )
        if row.changed > len(row.changes):
            console.print(f"  … and {row.changed - len(row.changes)} more")
    console.print(results_table(found.summary))
    console.print(f"summary.json rewritten in {escape(str(found.run_dir))}")
