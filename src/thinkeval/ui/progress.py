"""Live progress in the terminal: one row per model (all its tasks, with its rate and ETA) and
one per model and task.

Models run at the same time, so every model in flight has its rows. A row counts both phases:
its total grows as retries are discovered. `ok` is a reply with a verdict other than
empty/unfinished, `trunc` an empty or cut-off reply (it will be retried once), `fail` a
transport error left after retries. A model's note says when its server stopped answering, or
how the model ended. Without a terminal (a detached run's log) the same numbers are printed as
plain lines every `interval_s` seconds.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from thinkeval.records import RETRY_STATUSES, Attempt


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

    def add(self, other: RowCounts) -> None:
        """Count `other`'s numbers in too (a model's row sums its tasks' rows)."""
        for name in ("total", "done", "ok", "truncated", "failed", "correct", "resumed"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def rate_per_s(self, now: float) -> float:
        """Attempts finished per second since this process started the row."""
        return (self.done - self.resumed) / max(now - self.started, 1e-9)

    def eta_s(self, now: float) -> float | None:
        """Seconds left at the row's rate; None before the first attempt."""
        rate = self.rate_per_s(now)
        return (self.total - self.done) / rate if rate > 0 else None


class RunProgress:
    """Counts attempts per (model, task) and shows them; plain log lines when not a terminal."""

    def __init__(self, console: Console | None = None, interval_s: float = 10.0) -> None:
        self.console = console or Console(stderr=True)
        self.rows: dict[tuple[str, str], RowCounts] = {}
        self.notes: dict[str, str] = {}
        self._ids: dict[tuple[str, str], TaskID] = {}
        self._model_ids: dict[str, TaskID] = {}
        self._live = self.console.is_terminal
        self._interval = interval_s
        self._last_log = 0.0
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(bar_width=24),
            MofNCompleteColumn(),
            TextColumn(
                "ok {task.fields[ok]}  trunc {task.fields[trunc]}  fail {task.fields[fail]}"
            ),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            TextColumn("{task.fields[note]}"),
            console=self.console,
            disable=not self._live,
        )

    @contextmanager
    def shown(self) -> Iterator[RunProgress]:
        with self._progress:
            yield self
        if not self._live:
            self._log(force=True)

    def model_row(self, model: str) -> RowCounts:
        """The sum of a model's task rows."""
        total = RowCounts(started=min(
            (row.started for (m, _), row in self.rows.items() if m == model), default=0.0
        ))
        for (name, _), row in self.rows.items():
            if name == model:
                total.add(row)
        return total

    def add(self, model: str, task: str, count: int, already_done: int = 0) -> None:
        """Announce `count` more requests for a row (`already_done` from an earlier run)."""
        key = (model, task)
        row = self.rows.get(key)
        if row is None:
            if model not in self._model_ids:
                self._model_ids[model] = self._new_row(f"[bold]{model}[/]")
            row = self.rows[key] = RowCounts(started=time.monotonic())
            self._ids[key] = self._new_row(f"  {task}")
        row.total += count + already_done
        row.done += already_done
        row.resumed += already_done
        self._refresh(key)

    def note(self, model: str, text: str) -> None:
        """Show `text` on the model's row (its server stopped answering, it failed, ...)."""
        self.notes[model] = text
        if model in self._model_ids:
            self._progress.update(self._model_ids[model], note=text)

    def record(self, attempt: Attempt) -> None:
        key = (attempt.model, attempt.task)
        row = self.rows[key]
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
        self._refresh(key)
        if not self._live:
            self._log()

    def _new_row(self, description: str) -> TaskID:
        return self._progress.add_task(
            description, total=0, ok=0, trunc=0, fail=0, rate="", note=""
        )

    def _refresh(self, key: tuple[str, str]) -> None:
        if not self._live:
            return
        now = time.monotonic()
        self._show(self._ids[key], self.rows[key], now)
        self._show(self._model_ids[key[0]], self.model_row(key[0]), now)

    def _show(self, task_id: TaskID, row: RowCounts, now: float) -> None:
        rate = f"{row.rate_per_s(now):.1f}/s" if row.done > row.resumed else ""
        self._progress.update(
            task_id,
            total=row.total,
            completed=row.done,
            ok=row.ok,
            trunc=row.truncated,
            fail=row.failed,
            rate=rate,
        )

    def _log(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last_log < self._interval:
            return
        self._last_log = now
        for model in self._model_ids:
            row = self.model_row(model)
            eta = row.eta_s(now)
            note = self.notes.get(model)
            print(
                f"[progress] {model}: {row.done}/{row.total} ok={row.ok} "
                f"trunc={row.truncated} fail={row.failed} rate={row.rate_per_s(now):.1f}/s "
                f"eta={'-' if eta is None else f'{eta:.0f}s'}" + (f" ({note})" if note else ""),
                file=sys.stderr,
                flush=True,
            )
            for (name, task), task_row in self.rows.items():
                if name == model:
                    print(
                        f"[progress] {model} {task}: {task_row.done}/{task_row.total} "
                        f"ok={task_row.ok} trunc={task_row.truncated} fail={task_row.failed}",
                        file=sys.stderr,
                        flush=True,
                    )
