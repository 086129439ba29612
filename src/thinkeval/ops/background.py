"""Runs in the background: start one detached (`run --detach`), find a run's processes, stop them.

A run's processes are found from two kinds of files in the run directory:

* `status/<writer>.json`, the heartbeat each running `thinkeval run` rewrites every two seconds
  (pid, host, state, requests in flight, last error), and
* `run.pid` (`run.<writer>.pid` for a shard), written when a run is detached: pid, host, command,
  log file, and the exit status once the process has ended.

A process counts as alive when its pid exists on this host and its heartbeat is at most
`FRESH_S` seconds old; a heartbeat from another host (shards sharing the run directory over a
network file system) can only be judged by its age.

`python -m thinkeval.ops.background --pid-file PATH run ...` is what a detached run executes: the
`thinkeval` command itself, plus a last log line and pid-file record with its exit status, so a run
that ended while nobody watched still says how it ended.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from thinkeval.errors import ThinkevalError
from thinkeval.run.rundir import STATUS_DIR, read_json, write_json
from thinkeval.run.shard import Shard

# The runner rewrites its heartbeat every 2 s; 10 s leaves room for a busy event loop or a slow
# network file system before a live process is declared gone.
FRESH_S = 10.0
MAIN_WRITER = "main"
LIVE_STATES = frozenset({"starting", "running"})
FINAL_STATES = frozenset({"finished", "stopped", "failed"})


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


def _inspect(pid: int) -> tuple[bool, bool]:
    """Whether `pid` runs on this host (a zombie does not), and whether it is a thinkeval command.

    Without /proc (macOS) only existence can be checked, and the command is taken on trust.
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
    return True, _is_thinkeval_command(cmdline.split(b"\0"))


def _is_thinkeval_command(args: list[bytes]) -> bool:
    """`thinkeval ...` (the console script) or `python -m thinkeval[.background] ...`.

    Matched by argument rather than by substring: a notebook or test session whose paths merely
    contain "thinkeval" must not pass for a run.
    """
    for i, arg in enumerate(args[:3]):
        if os.path.basename(arg) == b"thinkeval":
            return True
        if arg == b"-m" and i + 1 < len(args):
            return args[i + 1] in (b"thinkeval", b"thinkeval.ops.background")
    return False


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


def _read_optional(path: Path) -> dict[str, Any] | None:
    """A JSON object, or None when the file is missing or unreadable (being replaced, foreign)."""
    try:
        data = read_json(path)
    except ThinkevalError:
        return None
    return data if isinstance(data, dict) else None


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def _pid(value: Any) -> int | None:
    return value if isinstance(value, int) and value > 0 else None


def _from_heartbeat(
    writer: str, beat: dict[str, Any], record: dict[str, Any] | None, now: float, host: str
) -> WriterProcess:
    pid = _pid(beat.get("pid"))
    beat_host = beat.get("host") if isinstance(beat.get("host"), str) else None
    local = beat_host == host
    updated = _number(beat.get("updated_at"))
    age = max(0.0, now - updated) if updated is not None else None
    fresh = age is not None and age <= FRESH_S
    exists, thinkeval = _inspect(pid) if local and pid is not None else (False, False)
    same = record is not None and _pid(record.get("pid")) == pid
    exit_status = record.get("exit_status") if same and record else None
    state = str(beat.get("state") or "unknown")
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
    in_flight = beat.get("in_flight")
    return WriterProcess(
        writer=writer,
        host=beat_host,
        pid=pid,
        state=state,
        alive=alive,
        running_here=running_here,
        local=local,
        started_at=_number(beat.get("started_at")),
        updated_at=updated,
        heartbeat_age_s=age,
        model=beat.get("model") if isinstance(beat.get("model"), str) else None,
        in_flight=in_flight if isinstance(in_flight, int) and alive else 0,
        last_error=beat.get("last_error") if isinstance(beat.get("last_error"), str) else None,
        exit_status=exit_status if isinstance(exit_status, int) else None,
        log=record.get("log") if same and record else None,
    )


def _from_record(writer: str, record: dict[str, Any], host: str) -> WriterProcess:
    """A detached process known only from its pid file: it has not written a heartbeat yet."""
    pid = _pid(record.get("pid"))
    record_host = record.get("host") if isinstance(record.get("host"), str) else None
    local = record_host == host
    exit_status = record.get("exit_status")
    running_here = local and pid is not None and is_thinkeval_process(pid)
    if running_here:
        state = "starting"
    elif exit_status is not None:
        state = "exited"
    elif local:
        state = "dead"
    else:
        state = "unknown"  # another host's process, and no heartbeat to judge it by
    return WriterProcess(
        writer=writer,
        host=record_host,
        pid=pid,
        state=state,
        alive=running_here,
        running_here=running_here,
        local=local,
        started_at=_number(record.get("started_at")),
        exit_status=exit_status if isinstance(exit_status, int) else None,
        log=record.get("log") if isinstance(record.get("log"), str) else None,
    )


def find_writers(run_dir: Path, now: float | None = None) -> list[WriterProcess]:
    """The latest process of each writer of a run, from heartbeats and pid files, by writer name."""
    now = time.time() if now is None else now
    host = this_host()
    beats: dict[str, dict[str, Any]] = {}
    status_dir = run_dir / STATUS_DIR
    if status_dir.is_dir():
        for path in sorted(status_dir.glob("*.json")):
            beat = _read_optional(path)
            if beat is not None:
                beats[path.stem] = beat
    records: dict[str, dict[str, Any]] = {}
    for path in sorted([*run_dir.glob("run.pid"), *run_dir.glob("run.*.pid")]):
        record = _read_optional(path)
        if record is not None:
            records[str(record.get("writer") or MAIN_WRITER)] = record
    found = []
    for writer in sorted(beats.keys() | records.keys()):
        beat, record = beats.get(writer), records.get(writer)
        if beat is not None and record is not None and _pid(record.get("pid")) != _pid(
            beat.get("pid")
        ):
            # Two different processes: the one started last is the writer's current process.
            record_start = _number(record.get("started_at")) or 0.0
            beat_start = _number(beat.get("started_at")) or 0.0
            if record_start > beat_start:
                beat = None
        if beat is not None:
            found.append(_from_heartbeat(writer, beat, record, now, host))
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


def run_argv(args: argparse.Namespace, run_dir: Path) -> list[str]:
    """The `run` command line a detached process executes, from the parsed `run` arguments.

    Paths are made absolute so the detached process does not depend on the directory it was
    started from; `--output` is always given, so it writes exactly the run directory checked here.
    """
    argv = ["run", str(Path(args.config).resolve()), "--output", str(Path(run_dir).resolve())]
    for flag, name in (("--model", "model"), ("--task", "task"), ("--shard", "shard")):
        value = getattr(args, name, None)
        if value:
            argv += [flag, str(value)]
    for flag, name in (
        ("--allow-model-mismatch", "allow_model_mismatch"),
        ("--keep-recorded-samples", "keep_recorded_samples"),
    ):
        if getattr(args, name, False):
            argv.append(flag)
    return argv


def _console() -> Console:
    # soft_wrap: paths and commands are meant to be copied, so they must not be broken up.
    return Console(stderr=True, highlight=False, soft_wrap=True)


def detach(argv_without_detach: list[str], run_dir: Path) -> int:
    """Start `thinkeval <argv>` in the background, detached from this terminal; return 0 at once.

    The process runs in a new session (closing the terminal, or the shell that started it, does
    not stop it), reads nothing from stdin, and appends stdout and stderr to `RUN_DIR/run.log`.
    `RUN_DIR/run.pid` records pid, host, start time and command line (paths only: API keys come
    from the environment and are never written). Refuses while a live process holds the same
    journal writer.

    >>> detach(["run", "/abs/run.yaml", "--output", "/abs/runs/x"], Path("/abs/runs/x"))
    0
    """
    writer = writer_of(argv_without_detach)
    for process in find_writers(run_dir):
        if process.writer == writer and process.active:
            raise ThinkevalError(
                f"{run_dir} is already being run by {process.describe()}, state "
                f"{process.state}; watch it with `thinkeval status {run_dir}` or stop it with "
                f"`thinkeval stop {run_dir}`"
            )
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ThinkevalError(
            f"{run_dir}: cannot create the run directory ({exc.strerror})"
        ) from None
    pid_path, log_path = pid_file(run_dir, writer), log_file(run_dir, writer)
    command = [
        sys.executable, "-m", "thinkeval.ops.background", "--pid-file", str(pid_path.resolve()),
        *argv_without_detach,
    ]
    shown = "thinkeval " + shlex.join(argv_without_detach)
    started_at = time.time()
    # Unbuffered, so the log shows progress lines as they happen rather than in 8 KiB bursts.
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    try:
        with log_path.open("ab") as log:
            log.write(f"\n[thinkeval] {_stamp(started_at)} detached: {shown}\n".encode())
            log.flush()
            child = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                close_fds=True,
                env=env,
            )
    except OSError as exc:
        raise ThinkevalError(f"cannot start the background run: {exc}") from None
    write_json(pid_path, _record(child.pid, writer, started_at, argv_without_detach, log_path))
    console = _console()
    console.print(
        f"running in the background as pid {child.pid} on {this_host()} (writer {writer})\n"
        f"  log:   {escape(str(log_path))}\n"
        f"  watch: thinkeval status {escape(str(run_dir))} --watch 10\n"
        f"  stop:  thinkeval stop {escape(str(run_dir))}"
    )
    return 0


def _record(
    pid: int, writer: str, started_at: float, argv: Sequence[str], log: Path
) -> dict[str, Any]:
    return {
        "pid": pid,
        "host": this_host(),
        "writer": writer,
        "started_at": started_at,
        "command": ["thinkeval", *argv],
        "cwd": os.getcwd(),
        "log": str(log.resolve()),
        "exit_status": None,
        "ended_at": None,
    }


def _stamp(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(at))


def _interrupt(signum: int, frame: object) -> None:
    # Until the runner installs its own handler (while datasets load), SIGTERM ends the process
    # the way Ctrl-C does: through the CLI's KeyboardInterrupt path, exit 130, nothing recorded.
    raise KeyboardInterrupt


def _detached_main(argv: list[str]) -> int:
    """The detached process: `thinkeval <argv>`, then its exit status in the log and pid file."""
    if len(argv) < 2 or argv[0] != "--pid-file":
        print("usage: python -m thinkeval.ops.background --pid-file PATH run CONFIG ...",
              file=sys.stderr)
        return 2
    pid_path, command = Path(argv[1]), argv[2:]
    from thinkeval.cli import main

    signal.signal(signal.SIGTERM, _interrupt)
    started_at = time.time()
    status = 1  # an unexpected exception propagates with Python's own status 1
    try:
        status = main(command)
    finally:
        ended_at = time.time()
        print(f"[thinkeval] {_stamp(ended_at)} exit status {status}", flush=True)
        record = _read_optional(pid_path) or {}
        if record.get("pid") != os.getpid():
            record = _record(os.getpid(), writer_of(command), started_at, command,
                             log_file(pid_path.parent, writer_of(command)))
        record.update(exit_status=status, ended_at=ended_at)
        with contextlib.suppress(ThinkevalError):
            write_json(pid_path, record)
    return status


# ----------------------------------------------------------------------------- `thinkeval stop`

DESCRIPTION = """\
Send SIGTERM to the thinkeval processes of RUN_DIR that run on this host (found from run.pid and
the status/*.json heartbeats) and wait until they exit. Requests in flight are abandoned, nothing
partial is recorded, and running the same `thinkeval run` command again resumes. Shards running
on other hosts are listed: stop them there."""
EPILOG = """\
examples:
  thinkeval stop runs/qwen3-compare
  thinkeval stop runs/qwen3-compare --timeout 120

exit status: 0 stopped; 1 nothing was running on this host; 3 still running after --timeout."""

EXIT_NOTHING_RUNNING = 1
EXIT_STILL_RUNNING = 3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the stop command's arguments to `parser`."""
    parser.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="the run directory")
    parser.add_argument(
        "--timeout", type=float, default=30.0, metavar="S",
        help="seconds to wait for the processes to exit (default 30)",
    )


def stop_run(run_dir: Path, timeout_s: float = 30.0, console: Console | None = None) -> int:
    """Stop the processes of `run_dir` on this host; return the exit status described in EPILOG."""
    console = console or _console()
    if not run_dir.is_dir():
        raise ThinkevalError(f"{run_dir}: no such run directory")
    processes = find_writers(run_dir)
    targets = [
        p for p in processes
        if p.running_here and p.state not in FINAL_STATES and p.pid is not None
    ]
    for remote in (p for p in processes if not p.local and p.alive):
        console.print(
            f"{escape(remote.describe())} runs on another host: stop it there "
            f"(`thinkeval stop {escape(str(run_dir))}` on {escape(remote.host or '?')})"
        )
    if not targets:
        console.print(f"nothing of {escape(str(run_dir))} is running on this host")
        return EXIT_NOTHING_RUNNING
    for target in targets:
        assert target.pid is not None
        with contextlib.suppress(ProcessLookupError):
            os.kill(target.pid, signal.SIGTERM)
        console.print(f"sent SIGTERM to {escape(target.describe())}")
    deadline = time.monotonic() + timeout_s
    waiting = list(targets)
    while waiting and time.monotonic() < deadline:
        time.sleep(0.1)
        # Existence is enough here: the pid was just identified, it cannot be reused this soon.
        waiting = [t for t in waiting if t.pid is not None and _inspect(t.pid)[0]]
    after = {p.writer: p for p in find_writers(run_dir)}
    for target in targets:
        if target in waiting:
            continue
        now = after.get(target.writer, replace(target, state="exited"))
        how = f"state {now.state}"
        if now.exit_status is not None:
            how += f", exit status {now.exit_status}"
        console.print(f"{escape(target.describe())} stopped ({how})")
    if waiting:
        names = ", ".join(t.describe() for t in waiting)
        console.print(
            f"[yellow]still running after {timeout_s:g} s: {escape(names)}.[/] Wait longer "
            "(--timeout) or kill -9 the pid: resuming after a kill is safe, only requests in "
            "flight are lost."
        )
        return EXIT_STILL_RUNNING
    console.print(f"run the same `thinkeval run` command again to resume {escape(str(run_dir))}")
    return 0


def run(args: argparse.Namespace) -> int:
    """`thinkeval stop RUN_DIR [--timeout S]`."""
    if args.timeout < 0:
        raise ThinkevalError(f"--timeout must not be negative, got {args.timeout}")
    return stop_run(args.run_dir, args.timeout)


if __name__ == "__main__":
    sys.exit(_detached_main(sys.argv[1:]))
