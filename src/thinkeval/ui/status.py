"""`thinkeval status` on the terminal: a header, the processes, the models while the run is
alive (state, unreachable since …, rate, ETA) and the progress per phase."""

from __future__ import annotations

import math
import time

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from thinkeval.ops.model_status import ModelStatus
from thinkeval.ops.status import RunStatus
from thinkeval.results.wording import missing


def format_duration(seconds: float | None) -> str:
    """`45s`, `3m10s`, `2h05m`; `-` when unknown."""
    if seconds is None or math.isinf(seconds):
        return "-"
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def _clip(text: str | None, width: int = 60) -> str:
    if not text:
        return "-"
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


_STATE_STYLE = {
    "running": "green",
    "starting": "green",
    "finished": "bold",
    "complete": "bold",
    "unreachable": "red",
    "checking": "green",
    "incomplete": "yellow",
    "stopped": "yellow",
    "failed": "red",
    "dead": "red",
    "lost": "red",
    "unresponsive": "red",
    "exited": "yellow",
}


def _styled(state: str) -> str:
    style = _STATE_STYLE.get(state)
    return f"[{style}]{state}[/]" if style else state


def _incomplete(status: RunStatus) -> str:
    """` · incomplete: 21 errors, 3 pending`, the same rule as `thinkeval verify`."""
    if not status.phases:
        return ""
    what = missing(sum(p.failed for p in status.phases), sum(p.pending for p in status.phases))
    return f" · [yellow]incomplete: {what}[/]" if what else " · [yellow]incomplete[/]"


def render(status: RunStatus, console: Console) -> None:
    """Print `status` as a header, a table of processes and a table of progress."""
    complete = " · complete" if status.complete else _incomplete(status)
    console.print(
        f"[bold]{escape(status.run or '?')}[/] · {escape(status.run_dir)} · "
        f"{_styled(status.state)}{complete}"
    )
    if status.writers:
        writers = Table(title="processes", title_justify="left")
        for column in (
            "writer",
            "host",
            "pid",
            "state",
            "heartbeat",
            "model",
            "in flight",
            "last error",
        ):
            writers.add_column(column, justify="right" if column == "in flight" else "left")
        for w in status.writers:
            age = "-" if w.heartbeat_age_s is None else f"{format_duration(w.heartbeat_age_s)} ago"
            state = w.state + (f" ({w.exit_status})" if w.exit_status is not None else "")
            writers.add_row(
                w.writer,
                escape(w.host or "-"),
                str(w.pid or "-"),
                _styled(state),
                age,
                escape(w.model or "-"),
                str(w.in_flight) if w.alive else "-",
                escape(_clip(w.last_error)),
            )
        console.print(writers)
    if status.models and status.alive:
        _render_models(status.models, console)
    if status.phases:
        table = Table(title="progress (from the journal)", title_justify="left")
        for column in ("model", "task", "phase"):
            table.add_column(column)
        table.add_column("budget", justify="right")
        for column in (
            "done/total",
            "ok",
            "trunc",
            "empty",
            "failed",
            "in flight",
            "rate/min",
            "ETA",
        ):
            table.add_column(column, justify="right")
        seen_models: set[str] = set()
        for p in status.phases:
            first = p.model not in seen_models
            seen_models.add(p.model)
            flight = status.in_flight.get(p.model)
            table.add_row(
                escape(p.model),
                escape(p.task),
                p.phase,
                str(p.budget),
                f"{p.done}/{p.total}",
                str(p.ok),
                str(p.truncated),
                str(p.empty),
                str(p.failed),
                str(flight) if first and flight is not None else "",
                "-" if p.rate_per_min is None else f"{p.rate_per_min:.1f}",
                "done" if p.eta_s == 0 and p.pending == 0 else format_duration(p.eta_s),
            )
        console.print(table)
    errors = [p for p in status.phases if p.last_error]
    for p in errors:
        console.print(
            f"last error {escape(p.model)} · {escape(p.task)} · {p.phase}: "
            f"{escape(_clip(p.last_error, 120))}"
        )
    for note in status.notes:
        console.print(f"[yellow]note:[/] {escape(note)}")


def _render_models(models: list[ModelStatus], console: Console) -> None:
    """One row per model: its state, done/total over all phases, in flight, rate and ETA."""
    table = Table(title="models", title_justify="left")
    table.add_column("model")
    table.add_column("state")
    for column in ("done/total", "in flight", "rate/min", "ETA"):
        table.add_column(column, justify="right")
    table.add_column("note")
    for m in models:
        note = m.error or "-"
        if m.unreachable_since is not None:
            since = time.strftime("%H:%M:%S", time.localtime(m.unreachable_since))
            note = f"unreachable since {since}: {m.last_error or '?'}"
        table.add_row(
            escape(m.model),
            _styled(m.state),
            f"{m.done}/{m.total}",
            str(m.in_flight),
            "-" if m.rate_per_min is None else f"{m.rate_per_min:.1f}",
            format_duration(m.eta_s),
            escape(_clip(note, 80)),
        )
    console.print(table)
