"""Where a run stands (`thinkeval status`), from any terminal, while it runs or after.

The command's parsing is in `cli/status.py` and its rendering in `ui/status.py`; this module
reads the run.

Counts come from the journal (every writer's file) and the recorded samples, folded exactly as
`summary.json` folds them (`results.tally`), so the numbers here and there
agree. Processes come from the heartbeats and pid files (`background.find_writers`).

Rate and ETA come from the journal's timestamps, not from the heartbeats: an attempt finished at
`started_at + latency_s`, and the rate of a row is the number of attempts that finished in the
last `RATE_WINDOW_S` seconds divided by that window (or by the time since the earliest of those
attempts started, when the process has not been running that long). Journal timestamps survive
restarts and add up across shards, where each heartbeat only knows its own process.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from thinkeval.errors import ThinkevalError
from thinkeval.ops.model_status import ModelStatus, eta, model_rows
from thinkeval.ops.processes import WriterProcess, find_writers
from thinkeval.records import Attempt, Phase
from thinkeval.results.summary import Counts, FixedBlock, RetryBlock, tally
from thinkeval.store.journal import JournalLine
from thinkeval.store.run_record import read_run_record
from thinkeval.store.rundir import CONFIG_FILE, SAMPLES_DIR

RATE_WINDOW_S = 300.0
# The shortest span a rate is measured over, so that the first finished requests of a fresh
# process do not show an absurd rate.
MIN_RATE_SPAN_S = 5.0


@dataclass(frozen=True)
class PhaseStatus:
    """One model, task and phase. `ok` = correct + wrong + no_answer; `failed` = error attempts.

    `total` is the number of samples in the fixed phase, and the retry candidates known so far
    (fixed verdict empty or unfinished) in the retry phase; `done` = total - pending.
    `rate_per_min` counts finished requests (errors included) over the last `RATE_WINDOW_S`,
    while a process is alive; `eta_s` is the time left at that rate (for the retry phase it
    includes the retries expected from the fixed work still pending, at the share seen so far).
    """

    model: str
    task: str
    phase: Phase
    budget: int
    total: int
    done: int
    ok: int
    correct: int
    wrong: int
    no_answer: int
    truncated: int
    empty: int
    failed: int
    pending: int
    rate_per_min: float | None = None
    eta_s: float | None = None
    last_error: str | None = None
    # Requests still expected (pending, and for the retry phase the retries expected from the
    # fixed work pending); None while unknown.
    expected_left: float | None = None


@dataclass(frozen=True)
class RunStatus:
    """The whole picture `thinkeval status` shows, also its `--json` output."""

    run: str | None
    run_dir: str
    checked_at: float
    state: str
    alive: bool
    complete: bool
    writers: list[WriterProcess]
    phases: list[PhaseStatus]
    in_flight: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    models: list[ModelStatus] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (the `--json` output)."""
        data: dict[str, Any] = msgspec.to_builtins(self)
        return data


@dataclass
class _Timing:
    """Finished-attempt timestamps of one row, for its rate."""

    ends: list[float] = field(default_factory=list)
    starts: list[float] = field(default_factory=list)
    last_error: tuple[float, str] | None = None

    def add(self, attempt: Attempt) -> None:
        end = attempt.started_at + (attempt.latency_s or 0.0)
        self.ends.append(end)
        self.starts.append(attempt.started_at)
        if attempt.error is not None and (self.last_error is None or end >= self.last_error[0]):
            self.last_error = (end, f"{attempt.sample_id}: {attempt.error}")

    def rate_per_s(self, now: float) -> float:
        recent = [
            start
            for start, end in zip(self.starts, self.ends, strict=True)
            if now - RATE_WINDOW_S <= end <= now
        ]
        if not recent:
            return 0.0
        span = min(RATE_WINDOW_S, max(MIN_RATE_SPAN_S, now - min(recent)))
        return len(recent) / span


def _phase_rows(
    model: str,
    task: str,
    counts: Counts,
    timings: dict[tuple[str, str, str], _Timing],
    now: float | None,
) -> list[PhaseStatus]:
    """The fixed and retry rows of one model and task; rates only when `now` is given (alive)."""
    fixed, retry = counts.fixed, counts.retry
    answered = counts.total - fixed.pending - fixed.error
    # Retries still to come from the fixed work pending, at the candidate share seen so far;
    # unknown before the first fixed answer.
    expected: float | None = 0.0
    if fixed.pending:
        expected = fixed.pending * retry.candidates / answered if answered else None
    rows = []
    phases: tuple[tuple[Phase, FixedBlock | RetryBlock, int, float | None], ...] = (
        ("fixed", fixed, counts.total, 0.0),
        ("retry", retry, retry.candidates, expected),
    )
    for phase, block, total, more in phases:
        timing = timings.get((model, task, phase)) or _Timing()
        rate = None if now is None else timing.rate_per_s(now)
        eta_s = None if rate is None or more is None else eta(block.pending + more, rate)
        unresolved = timing.last_error if block.error else None
        rows.append(
            PhaseStatus(
                model=model,
                task=task,
                phase=phase,
                budget=block.budget,
                total=total,
                done=total - block.pending,
                ok=block.correct + block.wrong + block.no_answer,
                correct=block.correct,
                wrong=block.wrong,
                no_answer=block.no_answer,
                truncated=block.unfinished,
                empty=block.empty,
                failed=block.error,
                pending=block.pending,
                rate_per_min=None if rate is None else rate * 60.0,
                eta_s=eta_s,
                last_error=unresolved[1] if unresolved else None,
                expected_left=None if more is None else block.pending + more,
            )
        )
    return rows


def _recorded_tasks(run_dir: Path, tasks: list[str], notes: list[str]) -> list[str]:
    recorded = []
    for task in tasks:
        if (run_dir / SAMPLES_DIR / f"{task}.jsonl").exists():
            recorded.append(task)
        else:
            notes.append(f"task {task}: not started yet (no {SAMPLES_DIR}/{task}.jsonl)")
    return recorded


def _overall_state(writers: list[WriterProcess], complete: bool) -> str:
    if any(w.alive for w in writers):
        return "starting" if all(w.state == "starting" for w in writers if w.alive) else "running"
    if not writers:
        return "complete" if complete else "not running"
    for state in ("failed", "dead", "lost", "unresponsive", "exited", "stopped"):
        if any(w.state == state for w in writers):
            return state
    return "finished"


def read_status(run_dir: Path, now: float | None = None) -> RunStatus:
    """Read where the run in `run_dir` stands: processes, counts per model, task and phase."""
    now = time.time() if now is None else now
    writers = find_writers(run_dir, now)
    alive = any(w.alive for w in writers)
    notes: list[str] = []
    config_path = run_dir / CONFIG_FILE
    if not config_path.exists():
        if not writers:
            raise ThinkevalError(
                f"{run_dir}: no {CONFIG_FILE} and no process; is this a thinkeval run directory?"
            )
        notes.append(f"no {CONFIG_FILE} yet: the run has not loaded its config and samples")
        return RunStatus(
            run=None,
            run_dir=str(run_dir),
            checked_at=now,
            state=_overall_state(writers, False),
            alive=alive,
            complete=False,
            writers=writers,
            phases=[],
            notes=notes,
        )
    record = read_run_record(run_dir)
    models = record.model_names
    tasks = _recorded_tasks(run_dir, record.task_names, notes)
    timings: dict[tuple[str, str, str], _Timing] = defaultdict(_Timing)

    def observe(attempt: Attempt) -> None:
        timings[attempt.model, attempt.task, attempt.phase].add(attempt)

    def invalid(line: JournalLine) -> None:
        # Status shows the run whatever a line holds; `verify` lists them all, `report` refuses.
        if line.torn:
            if not alive:  # while a writer runs, its last line may be one being written
                notes.append(
                    f"{line.path}:{line.number}: torn last line (a write cut short); it never "
                    "counted, and the writer cuts it when it next opens the journal"
                )
            return
        notes.append(
            f"{line.path}:{line.number}: not a valid attempt record ({line.problem}); skipped "
            "(its sample counts as not yet asked; thinkeval verify lists every such line)"
        )

    counted = tally(run_dir, record, models, tasks, observe=observe, on_invalid=invalid)
    phases: list[PhaseStatus] = []
    complete = len(tasks) == len(record.tasks)
    for model in models:
        for task in tasks:
            counts = counted[model, task].counts
            complete &= counts.complete
            rate_now = now if alive else None
            phases += _phase_rows(model, task, counts, timings, rate_now)
    in_flight: dict[str, int] = {}
    for writer in writers:
        if writer.alive and writer.models:
            for beat in writer.models:
                in_flight[beat.name] = in_flight.get(beat.name, 0) + beat.in_flight
        elif writer.alive and writer.model:  # a heartbeat from before models ran side by side
            in_flight[writer.model] = in_flight.get(writer.model, 0) + writer.in_flight
    failed = sum(p.failed for p in phases)
    if failed and not alive:
        notes.append(
            f"{failed} request(s) failed after retries; run the same command again to retry "
            "only those"
        )
    for writer in writers:
        if not writer.alive and writer.state in ("dead", "exited", "failed") and writer.log:
            notes.append(f"{writer.writer}: {writer.state}; see {writer.log}")
    return RunStatus(
        run=record.run,
        run_dir=str(run_dir),
        checked_at=now,
        state=_overall_state(writers, complete),
        alive=alive,
        complete=complete,
        writers=writers,
        phases=phases,
        in_flight=in_flight,
        notes=notes,
        models=model_rows(models, phases, writers),
    )
