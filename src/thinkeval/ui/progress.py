"""Live progress in the terminal: one row per model and task.

A row counts both phases: its total grows as retries are discovered. `ok` is a reply with a
verdict other than empty/unfinished, `trunc` an empty or cut-off reply (it will be retried once
in the fixed phase), `fail` a transport error left after retries.
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


class RunProgress:
    """Counts attempts per (model, task) and shows them; plain log lines when not a terminal."""

    def __init__(self, console: Console | None = None, interval_s: float = 10.0) -> None:
        self.console = console or Console(stderr=True)
        self.rows: dict[tuple[str, str], RowCounts] = {}
        self._ids: dict[tuple[str, str], TaskID] = {}
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
            console=self.console,
            disable=not self._live,
        )

    @contextmanager
    def shown(self) -> Iterator[RunProgress]:
        with self._progress:
            yield self
        if not self._live:
            self._log(force=True)

    def add(self, model: str, task: str, count: int, already_done: int = 0) -> None:
        """Announce `count` more requests for a row (`already_done` from an earlier run)."""
        key = (model, task)
        row = self.rows.get(key)
        if row is None:
            row = self.rows[key] = RowCounts(started=time.monotonic())
            self._ids[key] = self._progress.add_task(
                f"{model} · {task}", total=0, ok=0, trunc=0, fail=0, rate=""
            )
        row.total += count + already_done
        row.done += already_done
        row.resumed += already_done
        self._refresh(key)

    def record(self, attempt: Attempt) -> None:
        key = (attempt.model, attempt.task)
        row = self.rows[key]
        row.done += 1
        if attempt.error is not None:
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

    def _refresh(self, key: tuple[str, str]) -> None:
        row = self.rows[key]
        elapsed = max(time.monotonic() - row.started, 1e-9)
        rate = f"{(row.done - row.resumed) / elapsed:.1f}/s" if row.done > row.resumed else ""
        self._progress.update(
            self._ids[key],
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
        for (model, task), row in self.rows.items():
            print(
                f"[progress] {model} {task}: {row.done}/{row.total} ok={row.ok} "
                f"trunc={row.truncated} fail={row.failed}",
                file=sys.stderr,
                flush=True,
            )
