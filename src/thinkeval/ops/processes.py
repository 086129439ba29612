"""Finding a run's processes from the files they keep in the run directory.

* `status/<writer>.json`, the heartbeat each running `thinkeval run` rewrites every two seconds
  (pid, host, state, requests in flight, last error), and
* `run.pid` (`run.<writer>.pid` for a shard), written when a run is detached: pid, host, command,
  log file, and the exit status once the process has ended.

Both are typed records (`store/heartbeat.py`). A process counts as alive when its pid exists on
this host and its heartbeat is at most `FRESH_S` seconds old; a heartbeat from another host
(shards sharing the run directory over a network file system) can only be judged by its age.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from thinkeval.errors import ThinkevalError
from thinkeval.store.heartbeat import Heartbeat, ModelBeat, PidRecord, process_start, read_record
from thinkeval.store.rundir import STATUS_DIR
from thinkeval.store.shard import Shard

# The runner rewrites its heartbeat every 2 s; 10 s leaves room for a busy event loop or a slow
# network file system before a live process is declared gone.
FRESH_S = 10.0
MAIN_WRITER = "main"
LIVE_STATES = frozenset({"starting", "running"})
FINAL_STATES = frozenset({"finished", "stopped", "failed"})
REUSE_SLACK_S = 2.0


def pid_file(run_dir: Path, writer: str = MAIN_WRITER) -> Path:
    """`run.pid` for the unsharded run, `run.<writer>.pid` for a shard.

    Shards get their own file because shards on several machines share one run directory and
    would otherwise overwrite each other's record.
    """
    return run_dir / ("run.pid" if writer == MAIN_WRITER else f"run.{writer}.pid")


def log_file(run_dir: Path, writer: str = MAIN_WRITER) -> Path:
    """`run.log` for the unsharded run, `run.<writer>.log` for a shard."""
    return run_dir / ("run.log" if writer == MAIN_WRITER else f"run.{writer}.log")


def this_host() -> str:
    """The host name heartbeats record (the runner uses the same call)."""
    return socket.gethostname()


def _inspect(
    pid: int, start: int | None = None, alive_at: float | None = None
) -> tuple[bool, bool]:
    """Whether `pid` runs on this host (a zombie does not), and whether it is a thinkeval command.

    `start` (the recorded `process_start`) and `alive_at` (when the record last saw the process
    alive) tell a reused pid: a process that started at another tick, or after its record was
    last written, is another process, counted as not existing. Without /proc (macOS) only
    existence can be checked, and the command is taken on trust.
    """
    if pid <= 0:
        return False, False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False, False
    except PermissionError:
        pass  # exists, owned by another user; /proc below still tells what it is
    proc = Path("/proc") / str(pid)
    try:
        stat = (proc / "stat").read_text()
        cmdline = (proc / "cmdline").read_bytes()
    except FileNotFoundError:
        return not Path("/proc/self").exists(), True
    except OSError:
        return True, True
    # A zombie still answers os.kill until its parent reaps it, but it runs nothing any more.
    if stat.rpartition(")")[2].split()[:1] == ["Z"]:
        return False, False
    if _reused(pid, start, alive_at):
        return False, False
    return True, _is_thinkeval_command(cmdline.split(b"\0"))


def _reused(pid: int, start: int | None, alive_at: float | None) -> bool:
    """Whether `pid` now names another process than the record's (see `_inspect`)."""
    ticks = process_start(pid)
    if ticks is None:
        return False
    if start is not None:
        return ticks != start
    if alive_at is None:
        return False
    boot = _boot_time()
    # btime has whole seconds: a little slack, far below a pid's reuse time.
    return boot is not None and boot + ticks / os.sysconf("SC_CLK_TCK") > alive_at + REUSE_SLACK_S


def _boot_time() -> float | None:
    try:
        for line in Path("/proc/stat").read_text().splitlines():
            if line.startswith("btime "):
                return float(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def _is_thinkeval_command(args: list[bytes]) -> bool:
    """`thinkeval ...` (the console script) or `python -m thinkeval[.cli.detached] ...`.

    Matched by argument rather than by substring: a notebook or test session whose paths merely
    contain "thinkeval" must not pass for a run.
    """
    for i, arg in enumerate(args[:3]):
        if os.path.basename(arg) == b"thinkeval":
            return True
        if arg == b"-m" and i + 1 < len(args):
            return args[i + 1] in (b"thinkeval", b"thinkeval.cli.detached")
    return False


def is_alive(pid: int) -> bool:
    """Whether `pid` exists on this host (a zombie does not)."""
    return _inspect(pid)[0]


def is_thinkeval_process(pid: int) -> bool:
    """Whether `pid` is a running thinkeval command on this host.

    The command line is checked because pids are reused: long after a run died, its recorded pid
    may belong to an unrelated process that must be neither reported nor signalled.
    """
    exists, thinkeval = _inspect(pid)
    return exists and thinkeval


@dataclass(frozen=True)
class WriterProcess:
    """What is known about the process behind one journal writer (`main` or `shard-i-of-n`).

    `state` is the heartbeat's (`starting`, `running`, `finished`, `stopped`, `failed`) or one
    judged here: `dead` (the heartbeat says running but the process is gone: killed),
    `unresponsive` (the pid exists but the heartbeat is stale), `lost` (another host's heartbeat
    is stale), `exited` (a detached process that ended without a final heartbeat, e.g. before
    its first one; `exit_status` says how).
    `running_here` is True when this writer's process runs on this host: its pid exists and its
    command line is thinkeval's, or it is in a live state with a fresh heartbeat.
    """

    writer: str
    host: str | None
    pid: int | None
    state: str
    alive: bool
    running_here: bool
    local: bool
    started_at: float | None = None
    updated_at: float | None = None
    heartbeat_age_s: float | None = None
    model: str | None = None
    in_flight: int = 0
    last_error: str | None = None
    exit_status: int | None = None
    log: str | None = None
    models: tuple[ModelBeat, ...] = ()  # each model's live state, while the process is alive

    @property
    def active(self) -> bool:
        """Still working: alive, or its process is here and has not reported an end (stuck)."""
        return self.alive or (self.running_here and self.state not in FINAL_STATES)

    def describe(self) -> str:
        """`shard-2-of-3 (pid 4711 on gpu-07)`."""
        where = f"pid {self.pid}" if self.pid is not None else "no pid"
        if self.host and not self.local:
            where += f" on {self.host}"
        return f"{self.writer} ({where})"


def _from_heartbeat(
    writer: str, beat: Heartbeat, record: PidRecord | None, now: float, host: str
) -> WriterProcess:
    pid = beat.pid if beat.pid > 0 else None
    local = beat.host == host
    age = max(0.0, now - beat.updated_at)
    fresh = age <= FRESH_S
    exists, thinkeval = (
        _inspect(pid, beat.proc_start, beat.updated_at)
        if local and pid is not None
        else (False, False)
    )
    same = record is not None and record.pid == pid
    exit_status = record.exit_status if same and record is not None else None
    state = beat.state or "unknown"
    # A fresh heartbeat of a live state rules out a reused pid, so a run started from the Python
    # API (command line `python` or `jupyter`) counts too. Once its run has ended, such a process
    # is the user's notebook or test session, never something to report or signal.
    running_here = exists and (thinkeval or (fresh and state in LIVE_STATES))
    alive = False
    if state in LIVE_STATES:
        if local:
            alive = running_here and fresh
            if not running_here:
                # Gone without a final heartbeat: killed, or (with an exit status) a crash.
                state = "dead" if exit_status is None else "exited"
            elif not fresh:
                state = "unresponsive"
        else:
            alive = fresh
            if not fresh:
                state = "lost"
    return WriterProcess(
        writer=writer,
        host=beat.host,
        pid=pid,
        state=state,
        alive=alive,
        running_here=running_here,
        local=local,
        started_at=beat.started_at,
        updated_at=beat.updated_at,
        heartbeat_age_s=age,
        model=beat.model,
        in_flight=beat.in_flight if alive else 0,
        last_error=beat.last_error,
        exit_status=exit_status,
        log=record.log if same and record is not None else None,
        models=tuple(beat.models) if alive else (),
    )


def _from_record(writer: str, record: PidRecord, host: str) -> WriterProcess:
    """A detached process known only from its pid file: it has not written a heartbeat yet."""
    pid = record.pid if record.pid > 0 else None
    local = record.host == host
    running_here = local and pid is not None and all(_inspect(pid, record.proc_start))
    if running_here:
        state = "starting"
    elif record.exit_status is not None:
        state = "exited"
    elif local:
        state = "dead"
    else:
        state = "unknown"  # another host's process, and no heartbeat to judge it by
    return WriterProcess(
        writer=writer,
        host=record.host,
        pid=pid,
        state=state,
        alive=running_here,
        running_here=running_here,
        local=local,
        started_at=record.started_at,
        exit_status=record.exit_status,
        log=record.log,
    )


def find_writers(run_dir: Path, now: float | None = None) -> list[WriterProcess]:
    """The latest process of each writer of a run, from heartbeats and pid files, by writer name.

    A file that is missing, being replaced or not a valid record is passed over.
    """
    now = time.time() if now is None else now
    host = this_host()
    beats: dict[str, Heartbeat] = {}
    status_dir = run_dir / STATUS_DIR
    if status_dir.is_dir():
        for path in sorted(status_dir.glob("*.json")):
            beat = read_record(path, Heartbeat)
            if beat is not None:
                beats[path.stem] = beat
    records: dict[str, PidRecord] = {}
    for path in sorted([*run_dir.glob("run.pid"), *run_dir.glob("run.*.pid")]):
        record = read_record(path, PidRecord)
        if record is not None:
            records[record.writer] = record
    found = []
    for writer in sorted(beats.keys() | records.keys()):
        latest, record = beats.get(writer), records.get(writer)
        # Two different processes: the one started last is the writer's current process.
        if (
            latest is not None
            and record is not None
            and record.pid != latest.pid
            and record.started_at > latest.started_at
        ):
            latest = None
        if latest is not None:
            found.append(_from_heartbeat(writer, latest, record, now, host))
        elif record is not None:
            found.append(_from_record(writer, record, host))
    return found


def writer_of(argv: Sequence[str]) -> str:
    """The journal writer a `run` command line will use: `main`, or `shard-i-of-n`."""
    for i, arg in enumerate(argv):
        value = None
        if arg == "--shard" and i + 1 < len(argv):
            value = argv[i + 1]
        elif arg.startswith("--shard="):
            value = arg.partition("=")[2]
        if value is not None:
            try:
                return Shard.parse(value).writer
            except ValueError as exc:
                raise ThinkevalError(str(exc)) from None
    return MAIN_WRITER
