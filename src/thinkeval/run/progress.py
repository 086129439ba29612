"""What a run reports while it runs: counts per (model, task), notes per model, and lines for
the user, told to an observer.

The scheduler counts attempts here and the heartbeat persists these counts; what is shown is the
observer's concern (`ui/progress.py` draws them in the terminal). `Progress` itself shows
nothing, so a run from Python without a terminal view still counts and beats.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Literal

from thinkeval.records import RETRY_STATUSES, Attempt

Level = Literal["info", "warning", "error"]


@dataclass
class RowCounts:
    total: int = 0
    done: int = 0
    ok: int = 0
    truncated: int = 0
    failed: int = 0
    correct: int = 0
    started: float = 0.0
    resumed: int = 0  # done before this process started: not part of its rate
    retries_found: int = 0  # retries this process queued as cut-off replies came in

    def add(self, other: RowCounts) -> None:
        """Count `other`'s numbers in too (a model's row sums its tasks' rows)."""
        for name in ("total", "done", "ok", "truncated", "failed", "correct", "resumed",
                     "retries_found"):  # fmt: skip
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def why(self) -> str:
        """What the counts leave unsaid: the total grows by one per cut-off reply (its retry),
        and replies recorded by an earlier process are in `done`, not in ok/trunc/fail."""
        parts = []
        if self.retries_found:
            parts.append(f"+{self.retries_found} retries found so far")
        if self.resumed:
            parts.append(f"{self.resumed} recorded earlier")
        return f" ({', '.join(parts)})" if parts else ""

    def rate_per_s(self, now: float) -> float:
        """Attempts finished per second since this process started the row."""
        return (self.done - self.resumed) / max(now - self.started, 1e-9)

    def eta_s(self, now: float) -> float | None:
        """Seconds left at the row's rate; None before the first attempt."""
        rate = self.rate_per_s(now)
        return (self.total - self.done) / rate if rate > 0 else None


class Progress:
    """Counts attempts per (model, task); an observer subclasses it and overrides the hooks
    (`shown`, `changed`, `noted`, `say`) to show them."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], RowCounts] = {}
        self.notes: dict[str, str] = {}

    @contextmanager
    def shown(self) -> Iterator[Progress]:
        """Show the counts while the run lasts (nothing here)."""
        yield self

    def changed(self, model: str, task: str, *, new: bool = False) -> None:
        """A row's counts changed (`new`: the row was just added)."""

    def noted(self, model: str, text: str) -> None:
        """A model's note changed."""

    def say(self, text: str, level: Level = "info") -> None:
        """One line for the user (a server stopped answering, a model failed, a note)."""

    def model_row(self, model: str) -> RowCounts:
        """The sum of a model's task rows."""
        starts = [row.started for (name, _), row in self.rows.items() if name == model]
        total = RowCounts(started=min(starts, default=0.0))
        for (name, _), row in self.rows.items():
            if name == model:
                total.add(row)
        return total

    def add(self, model: str, task: str, count: int, already_done: int = 0) -> None:
        """Announce `count` more requests for a row (`already_done` from an earlier run)."""
        key = (model, task)
        row = self.rows.get(key)
        new = row is None
        if row is None:
            row = self.rows[key] = RowCounts(started=time.monotonic())
        row.total += count + already_done
        row.done += already_done
        row.resumed += already_done
        self.changed(model, task, new=new)

    def note(self, model: str, text: str) -> None:
        """Note `text` on the model (its server stopped answering, it failed, ...)."""
        self.notes[model] = text
        self.noted(model, text)

    def record(self, attempt: Attempt) -> None:
        row = self.rows[(attempt.model, attempt.task)]
        row.done += 1
        if attempt.refused is not None:
            pass  # refused for good: done, neither an answer nor a failure
        elif attempt.error is not None:
            row.failed += 1
        elif attempt.state in RETRY_STATUSES:
            row.truncated += 1
        else:
            row.ok += 1
            row.correct += attempt.recorded_status() == "correct"
        if attempt.phase == "fixed" and attempt.state in RETRY_STATUSES:
            row.total += 1  # its single retry is now known work
            row.retries_found += 1
        self.changed(attempt.model, attempt.task)
