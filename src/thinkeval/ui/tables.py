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

    Taken from the counts and then rounded, never from the two rounded cells beside it (which
    can be off by 0.01): 22 → 26 of 30 is 73.33% → 86.67%, a gain of +13.33 pp.

    >>> gain(22, 26, 30), gain(730, 1105, 1319), gain(5, 5, 0)
    ('+13.33 pp', '+28.43 pp', '+0.00 pp')
    """
    points = _percent(adaptive - fixed, total)
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


def fixed_cell(counts: Counts) -> str:
    """The fixed-budget accuracy cell, marked when samples have no fixed reply."""
    fixed = counts.fixed
    return cell(fixed.correct, counts.total) + incomplete(fixed.error, fixed.pending)


def adaptive_cell(counts: Counts) -> str:
    """The adaptive accuracy cell, marked when samples have no final reply (fixed or retry)."""
    adaptive = counts.adaptive
    return cell(adaptive.correct, counts.total) + incomplete(adaptive.error, adaptive.pending)


def budgets_cell(counts: Counts, b1: int, b2: int) -> str:
    """`2048→8192`, with the budget in effect where max_model_len cut one: `2048→8192 (≤4000)`."""
    shown = []
    for block, budget in ((counts.fixed, b1), (counts.retry, b2)):
        cut = block.clamped_to
        shown.append(f"{budget} (≤{cut})" if block.clamped and cut is not None else f"{budget}")
    return "→".join(shown)


def clamp_note(model: str, task: str, counts: Counts, b1: int, b2: int) -> str:
    """One sentence per phase whose budget the server's max_model_len cut ("" when none)."""
    notes = []
    for phase, block, budget in (("fixed", counts.fixed, b1), ("retry", counts.retry, b2)):
        if block.clamped and block.clamped_to is not None:
            replies = "reply was" if block.clamped == 1 else "replies were"
            notes.append(
                f"{model} on {task}: the {phase} budget {budget} did not fit the server's "
                f"max_model_len, so {block.clamped} {replies} asked with max_tokens cut to at "
                f"most {block.clamped_to} (the journal's clamped_from)"
            )
    return "; ".join(notes)


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
    clamped: list[str] = []
    for row in summary.results:
        errors = row.fixed.error + row.retry.error
        pending = row.fixed.pending + row.retry.pending
        errors_seen |= errors > 0
        pending_seen |= pending > 0
        b1, b2 = row.budgets
        cells = [fixed_cell(row), adaptive_cell(row), gain_cell(row)]
        note = clamp_note(row.model, row.task, row, b1, b2)
        if note:
            clamped.append(note)
        table.add_row(
            escape(row.model),
            escape(row.task),
            budgets_cell(row, b1, b2),
            *(text if row.complete else f"[yellow]{text}[/]" for text in cells),
            f"{row.retry.candidates}",
            f"{100 * row.lenient.fixed_accuracy:.2f}%",
            f"{errors}" + (f" (+{pending} pending)" if pending else ""),
        )
    captions = [f"≤N: {escape(note)}." for note in clamped]
    if errors_seen or pending_seen:
        why = ERRORS_EXPLAINED if errors_seen else PENDING_EXPLAINED
        captions.append(f"incomplete: {why}.")
    if captions:
        table.caption = "\n".join(captions)
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
