"""The end-of-run table: fixed vs adaptive accuracy per model and task, with the gain.

The cell wording (`cell`, `gain`, `incomplete`) lives in `results/wording.py`, shared with the
report, so the terminal and the report say the same thing about the same counts, including when
a result is incomplete.
"""

from __future__ import annotations

import sys

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from thinkeval.results.counts import ScorerBlock
from thinkeval.results.summary import Summary
from thinkeval.results.wording import (
    ERRORS_EXPLAINED,
    PENDING_EXPLAINED,
    REFUSED_EXPLAINED,
    adaptive_cell,
    budgets_cell,
    clamp_note,
    fixed_cell,
    gain_cell,
)
from thinkeval.scoring.scorers import active_scorers


def stdout_console() -> Console:
    """Tables on stdout; wide enough to stay readable when piped to a file or a log."""
    return Console() if sys.stdout.isatty() else Console(width=160)


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
    # One column per recording scorer beside strict, as the summary names them.
    # (summary.json's keys are sorted: the registry's order first).
    found = {name for row in summary.results for name in row.scorers if name != "strict"}
    order = list(active_scorers().names)
    others = sorted(found, key=lambda n: (order.index(n) if n in order else len(order), n))
    for name in others:
        table.add_column(f"{name} fixed", justify="right")
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
            *(_scorer_cell(row.scorers.get(name)) for name in others),
            f"{errors}" + (f" (+{pending} pending)" if pending else ""),
        )
    captions = [f"≤N: {escape(note)}." for note in clamped]
    if errors_seen or pending_seen:
        why = ERRORS_EXPLAINED if errors_seen else PENDING_EXPLAINED
        captions.append(f"incomplete: {why}.")
    if captions:
        table.caption = "\n".join(captions)
        table.caption_justify = "left"
    if any(row.fixed.refused or row.adaptive.refused for row in summary.results):
        refused = f"refused: {REFUSED_EXPLAINED}."
        table.caption = f"{table.caption}\n{refused}" if table.caption else refused
        table.caption_justify = "left"
    return table


def _scorer_cell(block: ScorerBlock | None) -> str:
    return "–" if block is None else f"{100 * block.fixed_accuracy:.2f}%"


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


def censoring_table(summary: Summary) -> Table | None:
    """The adaptive accuracy as bounds when some reply is still unfinished after the last
    budget (`results.censoring`): unfinished counted wrong, then right, and on finished
    replies; None when every reply finished."""
    rows = [row for row in summary.results if row.censoring is not None]
    if not any(row.censoring.adaptive.unfinished for row in rows if row.censoring):
        return None
    table = Table(
        title="unfinished after the last budget · censored, not wrong", title_justify="left"
    )
    for name in ("model", "task", "unfinished", "adaptive", "if unfinished right",
                 "on finished"):  # fmt: skip
        table.add_column(name, justify="left" if name in ("model", "task") else "right")
    for row in rows:
        assert row.censoring is not None
        found = row.censoring.adaptive
        on_finished = found.finished_accuracy
        table.add_row(
            escape(row.model),
            escape(row.task),
            str(found.unfinished),
            f"{100 * found.lower:.2f}%",
            f"{100 * found.upper:.2f}%",
            "–" if on_finished is None else f"{100 * on_finished:.2f}%",
        )
    return table


def show_summary(summary: Summary, title: str | None = None) -> None:
    """Print the end-of-run table and, when a task was sampled more than once, the repeats';
    when a model has several replicas, each one's numbers; when a reply is still unfinished
    after the last budget, the accuracy bounds."""
    from thinkeval.ui.replicas import replicas_table

    stdout_console().print(results_table(summary, title=title))
    for extra in (repeats_table(summary), replicas_table(summary), censoring_table(summary)):
        if extra is not None:
            stdout_console().print(extra)
