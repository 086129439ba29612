"""The end-of-run table: fixed vs adaptive accuracy per model and task, with the gain.

The cell wording (`cell`, `gain`, `incomplete`) is shared with the report, so the terminal and the
report say the same thing about the same counts, including when a result is incomplete.
"""

from __future__ import annotations

import sys
from decimal import ROUND_HALF_EVEN, Decimal

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from thinkeval.results.summary import Counts, Summary

# A refusal (client/refusals.py): asked once, never again, counted as not correct.
REFUSED_EXPLAINED = (
    "samples the server refused for good (prompt over its context window, a parameter it "
    "rejects) count as not correct; the run ends with a line per model saying which"
)
# What an `error` is, for the line under a table that has some: not a wrong answer.
ERRORS_EXPLAINED = (
    "errors are requests that failed (HTTP or transport) after the client's retries: not the "
    "model's answer, yet counted as not correct; run the same command again to re-ask only those"
)

PENDING_EXPLAINED = (
    "pending samples have no reply yet and count as not correct; run the same command again to "
    "finish them"
)


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


def missing(errors: int, pending: int) -> str:
    """`21 errors, 3 pending`: the samples without a reply, by cause ("" when there are none).

    >>> missing(21, 0), missing(1, 3), missing(0, 0)
    ('21 errors', '1 error, 3 pending', '')
    """
    parts = []
    if errors:
        parts.append(f"{errors} error{'s' if errors != 1 else ''}")
    if pending:
        parts.append(f"{pending} pending")
    return ", ".join(parts)


def incomplete(errors: int, pending: int) -> str:
    """The mark an accuracy carries while some of its samples have no reply ("" when none).

    >>> cell(15, 40) + incomplete(21, 0)
    '15/40 = 37.50% (incomplete: 21 errors)'
    """
    what = missing(errors, pending)
    return f" (incomplete: {what})" if what else ""


def refused_note(refused: int) -> str:
    """` (1 refused)`: samples the server refused for good count as not correct; say so."""
    return f" ({refused} refused)" if refused else ""


def fixed_cell(counts: Counts) -> str:
    """The fixed-budget accuracy cell, marked when samples have no fixed reply."""
    fixed = counts.fixed
    return (
        cell(fixed.correct, counts.total)
        + incomplete(fixed.error, fixed.pending)
        + refused_note(fixed.refused)
    )


def adaptive_cell(counts: Counts) -> str:
    """The adaptive accuracy cell, marked when samples have no final reply (fixed or retry)."""
    adaptive = counts.adaptive
    return (
        cell(adaptive.correct, counts.total)
        + incomplete(adaptive.error, adaptive.pending)
        + refused_note(adaptive.refused)
    )


def gain_cell(counts: Counts) -> str:
    """The gain, marked when either accuracy it is taken from is incomplete."""
    text = gain(counts.fixed.correct, counts.adaptive.correct, counts.total)
    return text if counts.complete else f"{text} (incomplete)"


def results_table(summary: Summary, title: str | None = None) -> Table:
    """The end-of-run table; incomplete cells are marked in yellow and explained below."""
    state = "" if summary.complete else " · INCOMPLETE"
    table = Table(title=(title or f"thinkeval · {summary.run}") + state, title_justify="left")
    table.add_column("model")
    table.add_column("task")
    table.add_column("budgets", justify="right")
    table.add_column("fixed", justify="right")
    table.add_column("adaptive", justify="right")
    table.add_column("gain", justify="right")
    table.add_column("retried", justify="right")
    table.add_column("lenient fixed", justify="right")
    table.add_column("errors", justify="right")
    errors_seen = pending_seen = False
    for row in summary.results:
        errors = row.fixed.error + row.retry.error
        pending = row.fixed.pending + row.retry.pending
        errors_seen |= errors > 0
        pending_seen |= pending > 0
        b1, b2 = row.budgets
        cells = [fixed_cell(row), adaptive_cell(row), gain_cell(row)]
        table.add_row(
            escape(row.model),
            escape(row.task),
            f"{b1}→{b2}",
            *(text if row.complete else f"[yellow]{text}[/]" for text in cells),
            f"{row.retry.candidates}",
            f"{100 * row.lenient.fixed_accuracy:.2f}%",
            f"{errors}" + (f" (+{pending} pending)" if pending else ""),
        )
    if errors_seen or pending_seen:
        why = ERRORS_EXPLAINED if errors_seen else PENDING_EXPLAINED
        table.caption = f"incomplete: {why}."
        table.caption_justify = "left"
    if any(row.fixed.refused or row.adaptive.refused for row in summary.results):
        refused = f"refused: {REFUSED_EXPLAINED}."
        table.caption = f"{table.caption}\n{refused}" if table.caption else refused
        table.caption_justify = "left"
    return table


def _interval(value: float, low: float, high: float) -> str:
    """`61.67% [55.00, 68.33]`."""
    return f"{100 * value:.2f}% [{100 * low:.2f}, {100 * high:.2f}]"


def repeats_table(summary: Summary) -> Table | None:
    """avg@k, pass@k and maj@k with 95% intervals (bootstrap over questions) for each model and
    task asked more than once per question; None when no task was."""
    rows = [row for row in summary.results if row.repeated is not None]
    if not rows:
        return None
    table = Table(
        title="repeated sampling · 95% intervals resample questions", title_justify="left"
    )
    for name in ("model", "task", "k", "phase", "avg@k", "pass@k", "maj@k", "solved 0 / all"):
        table.add_column(name, justify="left" if name in ("model", "task", "phase") else "right")
    for row in rows:
        block = row.repeated
        assert block is not None
        for phase, metrics in (("fixed", block.fixed), ("adaptive", block.adaptive)):
            top = metrics.pass_at[str(block.k)]
            table.add_row(
                row.model,
                row.task,
                str(block.k),
                phase,
                _interval(metrics.avg.value, metrics.avg.low, metrics.avg.high),
                _interval(top.value, top.low, top.high),
                _interval(metrics.maj.value, metrics.maj.low, metrics.maj.high),
                f"{metrics.solved[0]} / {metrics.solved[-1]} of {block.questions}",
            )
    return table
