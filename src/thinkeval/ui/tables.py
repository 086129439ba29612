"""The end-of-run table: fixed vs adaptive accuracy per model and task, with the gain."""

from __future__ import annotations

import sys
from decimal import ROUND_HALF_EVEN, Decimal

from rich.console import Console
from rich.table import Table

from thinkeval.results.summary import Summary


def stdout_console() -> Console:
    """Tables on stdout; wide enough to stay readable when piped to a file or a log."""
    return Console() if sys.stdout.isatty() else Console(width=160)


def cell(correct: int, total: int) -> str:
    """`185/233 = 79.40%`."""
    return f"{correct}/{total} = {_percent(correct, total)}%"


def _percent(count: int, total: int) -> Decimal:
    if not total:
        return Decimal("0.00")
    return (Decimal(100 * count) / Decimal(total)).quantize(Decimal("0.01"), ROUND_HALF_EVEN)


def gain(fixed: int, adaptive: int, total: int) -> str:
    """`+16.46 pp`: the adaptive minus the fixed accuracy, in percentage points.

    Taken from the two rounded cells beside it, so a row always adds up as printed:
    1048 → 1265 of 1319 is 79.45% → 95.91%, a gain of +16.46 pp.
    """
    points = _percent(adaptive, total) - _percent(fixed, total)
    return f"{points:+.2f} pp"


def results_table(summary: Summary, title: str | None = None) -> Table:
    table = Table(title=title or f"thinkeval · {summary.run}", title_justify="left")
    table.add_column("model")
    table.add_column("task")
    table.add_column("budgets", justify="right")
    table.add_column("fixed", justify="right")
    table.add_column("adaptive", justify="right")
    table.add_column("gain", justify="right")
    table.add_column("retried", justify="right")
    table.add_column("lenient fixed", justify="right")
    table.add_column("errors", justify="right")
    for row in summary.results:
        errors = row.fixed.error + row.retry.error
        pending = row.fixed.pending + row.retry.pending
        b1, b2 = row.budgets
        table.add_row(
            row.model,
            row.task,
            f"{b1}→{b2}",
            cell(row.fixed.correct, row.total),
            cell(row.adaptive.correct, row.total),
            gain(row.fixed.correct, row.adaptive.correct, row.total),
            f"{row.retry.candidates}",
            f"{100 * row.lenient.fixed_accuracy:.2f}%",
            f"{errors}" + (f" (+{pending} pending)" if pending else ""),
        )
    return table
