"""Run a command in its own session and measure its whole process tree from outside.

Linux only: processes are found and sampled through /proc, and the benchmark makes itself a
child subreaper so that what a harness orphans is re-parented to it and its CPU time counted.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

PAGE = os.sysconf("SC_PAGE_SIZE")
_PR_SET_CHILD_SUBREAPER = 36

# Every process the benchmark started and has not stopped yet (harnesses and simulators): all
# are stopped when the script exits or is interrupted.
_STARTED: list[subprocess.Popen[bytes]] = []


def track(proc: subprocess.Popen[bytes]) -> None:
    """Stop `proc` (and its session) if the benchmark exits before it is stopped."""
    _STARTED.append(proc)


def untrack(proc: subprocess.Popen[bytes]) -> None:
    """`proc` has been stopped and reaped: nothing left to stop at exit."""
    with contextlib.suppress(ValueError):
        _STARTED.remove(proc)


def set_subreaper() -> None:
    """Orphaned grandchildren of a harness get re-parented to this process, so that their CPU
    time reaches RUSAGE_CHILDREN when we reap them."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _stat(pid: int) -> tuple[int, int, int, int, int] | None:
    """(ppid, session, state as int, cpu ticks, rss pages) of a process, or None if gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            raw = handle.read()
    except OSError:
        return None
    rest = raw[raw.rfind(b")") + 2 :].split()
    # Fields after the name: state ppid pgrp session ... utime(11) stime(12) ... rss(21)
    try:
        return int(rest[1]), int(rest[3]), rest[0][0], int(rest[11]) + int(rest[12]), int(rest[21])
    except (IndexError, ValueError):
        return None


def session_pids(sid: int) -> list[int]:
    """Live processes of session `sid` (a harness and every descendant that kept its session)."""
    out: list[int] = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            info = _stat(int(name))
            if info is not None and info[1] == sid:
                out.append(int(name))
    return out


def stop_process(proc: subprocess.Popen[bytes], grace_s: float = 5.0) -> None:
    """SIGTERM the process group, SIGKILL what is left after `grace_s`, and reap the leader."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=grace_s)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=grace_s)


def stop_all() -> None:
    """Stop every process the benchmark started and has not stopped yet."""
    while _STARTED:
        stop_process(_STARTED.pop())


def _on_signal(signum: int, frame: object) -> None:
    stop_all()
    raise SystemExit(128 + signum)


def stop_all_on_signals() -> None:
    """SIGINT, SIGTERM and SIGHUP stop every started process, then exit with 128 + signal."""
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _on_signal)


@dataclass
class Usage:
    """What one harness process tree used."""

    wall_s: float
    cpu_s: float  # user + sys of the tree (reaped descendants included)
    peak_rss_mb: float  # max over samples of the summed RSS of the tree
    exit_code: int | None  # None: killed by the timeout
    timed_out: bool
    started: float  # time.monotonic() at launch
    ended: float  # time.monotonic() at exit


class TreeSampler(threading.Thread):
    """Samples the summed RSS of a session every `interval_s`, rediscovering its processes."""

    def __init__(self, sid: int, interval_s: float = 0.1, scan_every: int = 5) -> None:
        super().__init__(daemon=True)
        self.sid = sid
        self.interval_s = interval_s
        self.scan_every = scan_every
        self.peak_pages = 0
        self.pids: set[int] = {sid}
        self.halt = threading.Event()

    def run(self) -> None:
        tick = 0
        while not self.halt.is_set():
            if tick % self.scan_every == 0 or tick < 20:
                self.pids |= set(session_pids(self.sid))
            total = 0
            for pid in list(self.pids):
                info = _stat(pid)
                if info is None or info[1] != self.sid:
                    self.pids.discard(pid)
                    continue
                total += info[4]
            self.peak_pages = max(self.peak_pages, total)
            tick += 1
            self.halt.wait(self.interval_s)


def run_measured(
    argv: Sequence[str],
    *,
    env: dict[str, str],
    cwd: Path,
    log_path: Path,
    timeout_s: float,
    on_start: Callable[[], None] | None = None,
) -> Usage:
    """Run a command to completion (or the timeout) in its own session and measure its process
    tree: wall time, CPU of every process it started (leftovers are killed and reaped first) and
    peak summed RSS. Its output goes to `log_path`, after a line with the command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(log_path, "wb") as log:
        log.write(f"$ {shlex.join(argv)}\n".encode())
        log.flush()
        started = time.monotonic()
        proc = subprocess.Popen(
            list(argv),
            env=env,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    track(proc)
    if on_start is not None:
        on_start()
    sampler = TreeSampler(proc.pid)
    sampler.start()
    timed_out = threading.Event()

    def expire() -> None:
        timed_out.set()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)

    timer = threading.Timer(timeout_s, expire)
    timer.start()
    try:
        _, status, own = os.wait4(proc.pid, 0)
    finally:
        timer.cancel()
    wall = time.monotonic() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    sampler.halt.set()
    sampler.join()
    # Whatever the harness left running (workers, orphans) is stopped and reaped, so that the
    # CPU it used is counted too.
    leftovers = session_pids(proc.pid)
    for pid in leftovers:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    for pid in leftovers:
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(pid, 0)
    untrack(proc)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    peak_mb = max(sampler.peak_pages * PAGE, own.ru_maxrss * 1024) / 2**20
    return Usage(
        started=started,
        ended=started + wall,
        wall_s=wall,
        cpu_s=cpu,
        peak_rss_mb=peak_mb,
        exit_code=None if timed_out.is_set() else proc.returncode,
        timed_out=timed_out.is_set(),
    )
