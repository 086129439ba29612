"""Runs in the background: start one detached (`run --detach`), and stop a run's processes.

`python -m thinkeval.cli.detached --pid-file PATH run ...` is what a detached run executes: the
`thinkeval` command itself, plus a last log line and pid-file record with its exit status, so a
run that ended while nobody watched still says how it ended.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from thinkeval.errors import ThinkevalError
from thinkeval.ops.processes import (
    FINAL_STATES,
    find_writers,
    is_alive,
    log_file,
    pid_file,
    this_host,
    writer_of,
)
from thinkeval.store.heartbeat import PidRecord, process_start, write_record

EXIT_NOTHING_RUNNING = 1
EXIT_STILL_RUNNING = 3


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
        sys.executable,
        "-m",
        "thinkeval.cli.detached",
        "--pid-file",
        str(pid_path.resolve()),
        *argv_without_detach,
    ]
    shown = "thinkeval " + shlex.join(argv_without_detach)
    started_at = time.time()
    # Unbuffered, so the log shows progress lines as they happen rather than in 8 KiB bursts.
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    try:
        with log_path.open("ab") as log:
            log.write(f"\n[thinkeval] {stamp(started_at)} detached: {shown}\n".encode())
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
    write_record(pid_path, pid_record(child.pid, writer, started_at, argv_without_detach, log_path))
    console = _console()
    console.print(
        f"running in the background as pid {child.pid} on {this_host()} (writer {writer})\n"
        f"  log:   {escape(str(log_path))}\n"
        f"  watch: thinkeval status {escape(str(run_dir))} --watch 10\n"
        f"  stop:  thinkeval stop {escape(str(run_dir))}"
    )
    return 0


def pid_record(
    pid: int, writer: str, started_at: float, argv: Sequence[str], log: Path
) -> PidRecord:
    """What `run.pid` says about a detached process (paths only: never an API key)."""
    return PidRecord(
        pid=pid,
        host=this_host(),
        writer=writer,
        started_at=started_at,
        command=["thinkeval", *argv],
        cwd=os.getcwd(),
        log=str(log.resolve()),
        proc_start=process_start(pid),
    )


def stamp(at: float) -> str:
    """A local timestamp for log lines."""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(at))


def stop_run(run_dir: Path, timeout_s: float = 30.0, console: Console | None = None) -> int:
    """Stop the processes of `run_dir` on this host; return the exit status described in EPILOG."""
    console = console or _console()
    if not run_dir.is_dir():
        raise ThinkevalError(f"{run_dir}: no such run directory")
    processes = find_writers(run_dir)
    targets = [
        p for p in processes if p.running_here and p.state not in FINAL_STATES and p.pid is not None
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
        waiting = [t for t in waiting if t.pid is not None and is_alive(t.pid)]
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
