"""Live progress in the terminal: one row per model (all its tasks, with its rate and ETA) and
one per model and task.

Models run at the same time, so every model in flight has its rows. A row counts both phases:
its total grows as retries are discovered. `ok` is a reply with a verdict other than
empty/unfinished, `trunc` an empty or cut-off reply (it will be retried once), `fail` a
transport error left after retries. A model's note says when its server stopped answering, or
how the model ended. Without a terminal (a detached run's log) the same numbers are printed as
plain lines every `interval_s` seconds. The counting is the run's (`run/progress.py`); this is
its view.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.progress import Progress as Bars

from thinkeval.run.progress import Level, Progress, RowCounts

COLOURS: dict[Level, str] = {"info": "", "warning": "yellow", "error": "red"}


class RunProgress(Progress):
    """Shows the run's counts; plain log lines when not a terminal."""

    def __init__(self, console: Console | None = None, interval_s: float = 10.0) -> None:
        super().__init__()
        self.console = console or Console(stderr=True)
        self._ids: dict[tuple[str, str], TaskID] = {}
        self._model_ids: dict[str, TaskID] = {}
        self._live = self.console.is_terminal
        self._interval = interval_s
        self._last_log = 0.0
        self._progress = Bars(
            TextColumn("{task.description}"),
            BarColumn(bar_width=24),
            MofNCompleteColumn(),
            TextColumn(
                "ok {task.fields[ok]}  trunc {task.fields[trunc]}  fail {task.fields[fail]}"
                "{task.fields[why]}"
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

    def changed(self, model: str, task: str, *, new: bool = False) -> None:
        key = (model, task)
        if new:
            if model not in self._model_ids:
                self._model_ids[model] = self._new_row(f"[bold]{escape(model)}[/]")
            self._ids[key] = self._new_row(f"  {escape(task)}")
        if self._live:
            now = time.monotonic()
            self._show(self._ids[key], self.rows[key], now)
            self._show(self._model_ids[model], self.model_row(model), now)
        elif not new:
            self._log()

    def noted(self, model: str, text: str) -> None:
        if model in self._model_ids:
            self._progress.update(self._model_ids[model], note=text)

    def say(self, text: str, level: Level = "info") -> None:
        colour = COLOURS[level]
        line = f"[{colour}]{escape(text)}[/]" if colour else escape(text)
        self.console.print(line, soft_wrap=True, highlight=False)

    def _new_row(self, description: str) -> TaskID:
        return self._progress.add_task(
            description, total=0, ok=0, trunc=0, fail=0, rate="", note="", why=""
        )

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
            why=row.why(),
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
                f"eta={'-' if eta is None else f'{eta:.0f}s'}{row.why()}"
                + (f" ({note})" if note else ""),
                file=sys.stderr,
                flush=True,
            )
            for (name, task), task_row in self.rows.items():
                if name == model:
                    print(
                        f"[progress] {model} {task}: {task_row.done}/{task_row.total} "
                        f"ok={task_row.ok} trunc={task_row.truncated} fail={task_row.failed}"
                        f"{task_row.why()}",
                        file=sys.stderr,
                        flush=True,
                    )
