"""The files a running process keeps for others to read: its heartbeat and, when detached, its
pid file. Both are typed records; readers treat a missing or unreadable file as absent.

* `status/<writer>.json`, rewritten every `HEARTBEAT_S` seconds by each running `thinkeval run`
  (pid, host, state, requests in flight, last error, progress rows, and per model its state,
  requests in flight and whether its server stopped answering);
* `run.pid` (`run.<writer>.pid` for a shard), written when a run is detached: pid, host,
  command, log file, and the exit status once the process has ended.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TypeVar

import msgspec

from thinkeval.store.rundir import write_json

HEARTBEAT_S = 2.0
T = TypeVar("T")


class ProgressRow(msgspec.Struct, kw_only=True):
    """One model and task of a live process: attempts done of those it planned."""

    model: str
    task: str
    done: int
    total: int
    rate_per_s: float = 0.0


class ModelBeat(msgspec.Struct, kw_only=True):
    """One model of a live process. `unreachable_since` (wall clock) is set while every request
    to the model's server fails with a connection error; `last_error` says how."""

    name: str
    state: str  # waiting, checking, running, finished, stopped, failed
    in_flight: int = 0
    last_error: str | None = None
    unreachable_since: float | None = None
    error: str | None = None  # why it failed


class Heartbeat(msgspec.Struct, kw_only=True):
    """`status/<writer>.json`. `model` and `in_flight` sum up `models` (the models running,
    comma-separated; their requests in flight), as written before models ran side by side."""

    pid: int
    host: str
    state: str  # starting, running, finished, stopped, failed
    started_at: float
    updated_at: float
    model: str | None = None
    in_flight: int = 0
    last_error: str | None = None
    rows: list[ProgressRow] = []
    models: list[ModelBeat] = []
    # The writer's start in clock ticks after boot (/proc/PID/stat): a pid reused by another
    # process has another start, so `stop` never signals it (ops/processes.py).
    proc_start: int | None = None


class PidRecord(msgspec.Struct, kw_only=True):
    """`run.pid` / `run.<writer>.pid` of a detached run."""

    pid: int
    host: str
    writer: str = "main"
    started_at: float
    command: list[str] = []
    cwd: str | None = None
    log: str | None = None
    exit_status: int | None = None
    ended_at: float | None = None
    proc_start: int | None = None  # as in Heartbeat


def process_start(pid: int) -> int | None:
    """When `pid` started, in clock ticks after boot (field 22 of /proc/PID/stat); None where
    there is no /proc (macOS) or no such process. Together with the pid it names one process:
    a pid is reused, a (pid, start) pair is not."""
    try:
        stat = (Path("/proc") / str(pid) / "stat").read_text()
    except OSError:
        return None
    # The command name in parentheses may hold spaces: the fields after it are fixed.
    fields = stat.rpartition(")")[2].split()
    try:
        return int(fields[19])
    except (IndexError, ValueError):
        return None


def own_start() -> int | None:
    """This process's `process_start`."""
    return process_start(os.getpid())


def read_record(path: Path, kind: type[T]) -> T | None:
    """The record in `path`, or None when it is missing, being replaced, or not of `kind`."""
    try:
        return msgspec.json.decode(path.read_bytes(), type=kind)
    except (OSError, msgspec.MsgspecError):
        return None


def write_record(path: Path, record: msgspec.Struct, durable: bool = True) -> None:
    write_json(path, msgspec.to_builtins(record), durable)
