"""One program run in a bubblewrap sandbox (docs/code.md says what is and is not isolated).

`run_program(source, stdin, limits)` runs `source` with the system's `/usr/bin/python3` inside
`bwrap`: new user, PID, network, IPC, UTS and cgroup namespaces (no network at all), the
system's `/usr` read-only, a private empty tmpfs as its working directory, no `/home`, `/root`
or project files, and resource limits on CPU time, address space, processes, file size and
open files, set on the sandbox before it starts. The program and its input never touch the
disk: they reach the sandbox through memory files (`memfd_create`). Its output is read up to a
cap; past it, or past the wall-clock limit, the whole sandbox is killed.

When this process is root, the sandbox runs under an unprivileged uid of its own (root is
exempt from the process limit, and a uid of its own keeps concurrent sandboxes from sharing
one process count).
"""

from __future__ import annotations

import contextlib
import os
import resource
import selectors
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Literal

from thinkeval.errors import ThinkevalError

SYSTEM_PYTHON = "/usr/bin/python3"
SANDBOX_UID_BASE = 200_000  # + the executor's pid: a uid no account and no other sandbox has
Exit = Literal["ok", "error", "cpu", "wall", "memory", "output", "signal"]


class SandboxUnavailable(ThinkevalError):
    """The sandbox cannot run here; the message says why and what to do."""


@dataclass(frozen=True)
class Limits:
    """What one execution may use. CPU time, not wall time, decides a time-out; the wall limit
    only ends programs that wait (sleep, a blocked read) and is generous on purpose."""

    cpu_s: float = 10.0
    wall_s: float = 30.0
    memory_mb: int = 1024  # address space (RLIMIT_AS)
    processes: int = 32  # RLIMIT_NPROC for the sandbox's own uid
    output_bytes: int = 1_000_000  # stdout and stderr together
    file_mb: int = 16  # the largest file it may write; each tmpfs is capped at 4x this


@dataclass(frozen=True)
class Execution:
    """How a run ended: `exit` says why, `returncode` is the program's (negative: a signal)."""

    exit: Exit
    returncode: int
    stdout: str
    stderr: str
    cpu_s: float
    wall_s: float


def _memfd(name: str, data: bytes) -> int:
    fd = os.memfd_create(name, 0)
    os.write(fd, data) if len(data) < 65536 else _write_all(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _bwrap_args(program_fd: int, limits: Limits) -> list[str]:
    size = str(4 * limits.file_mb * 1024 * 1024)
    # --as-pid-1: the program is the PID namespace's init, so when it ends the namespace ends,
    # and no orphaned bwrap init is left for a host init that may never reap it.
    args = ["bwrap", "--unshare-all", "--as-pid-1", "--die-with-parent", "--new-session"]
    args += ["--cap-drop", "ALL"]
    args += ["--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib"]
    if os.path.exists("/lib64"):
        args += ["--symlink", "usr/lib64", "/lib64"]
    args += ["--symlink", "usr/bin", "/bin", "--proc", "/proc", "--dev", "/dev"]
    for where in ("/work", "/io", "/tmp"):
        args += ["--size", size, "--tmpfs", where]
    args += ["--file", str(program_fd), "/io/main.py", "--chdir", "/work", "--clearenv"]
    args += ["--setenv", "PATH", "/usr/bin", "--setenv", "HOME", "/work"]
    args += ["--setenv", "PYTHONDONTWRITEBYTECODE", "1", "--setenv", "PYTHONHASHSEED", "0"]
    return [*args, "--", SYSTEM_PYTHON, "-I", "/io/main.py"]


def _limiter(limits: Limits, uid: int | None) -> Callable[[], None]:
    cpu = max(1, int(limits.cpu_s + 0.999))

    def apply() -> None:
        # Soft = hard: the kernel kills at the limit (a namespace's init ignores SIGXCPU).
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
        memory = limits.memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))
        file_size = limits.file_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if uid is not None:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)

    return apply


def sandbox_uid() -> int | None:
    """The uid a sandbox runs under: its own when this process is root, else ours (None)."""
    return SANDBOX_UID_BASE + os.getpid() if os.geteuid() == 0 else None


def run_program(
    source: str, stdin: str = "", limits: Limits = Limits(), *, unsafe_local: bool = False
) -> Execution:
    """Run `source` (Python) with `stdin` as its input, in the sandbox (or, with
    `unsafe_local`, as a plain child process with the same resource limits and nothing else)."""
    program = _memfd("program", source.encode("utf-8", "surrogatepass"))
    given = _memfd("stdin", stdin.encode("utf-8", "surrogatepass"))
    try:
        if unsafe_local:
            args = [SYSTEM_PYTHON, "-I", f"/proc/self/fd/{program}"]
            passed: tuple[int, ...] = (program,)
        else:
            args, passed = _bwrap_args(program, limits), (program,)
        return _run(args, given, passed, limits)
    finally:
        os.close(program)
        os.close(given)


def _run(args: list[str], stdin_fd: int, passed: tuple[int, ...], limits: Limits) -> Execution:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    process = subprocess.Popen(
        args,
        stdin=stdin_fd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        pass_fds=passed,
        # The scoring worker that runs this is single-threaded, where preexec_fn is safe.
        preexec_fn=_limiter(limits, sandbox_uid()),
        start_new_session=True,
        cwd="/",
    )
    out, err, why = _collect(process, started + limits.wall_s, limits.output_bytes)
    if why is not None:
        _kill(process)
    returncode = process.wait()
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    stdout, stderr = out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
    exit = why or _exit_of(returncode, stderr, cpu >= 0.95 * limits.cpu_s)
    return Execution(exit, returncode, stdout, stderr, cpu, wall)


def _collect(
    process: subprocess.Popen[bytes], deadline: float, cap: int
) -> tuple[bytes, bytes, Exit | None]:
    """Both pipes read until they close, the deadline passes (`wall`) or `cap` bytes came
    (`output`)."""
    assert process.stdout is not None and process.stderr is not None
    chunks: dict[int, list[bytes]] = {1: [], 2: []}
    total = 0
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ, 1)
        selector.register(process.stderr, selectors.EVENT_READ, 2)
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                return b"".join(chunks[1]), b"".join(chunks[2]), "wall"
            for key, _ in selector.select(left):
                data = os.read(key.fd, 65536)
                if not data:
                    selector.unregister(key.fileobj)
                    continue
                chunks[key.data].append(data)
                total += len(data)
                if total > cap:
                    return b"".join(chunks[1])[:cap], b"".join(chunks[2])[:cap], "output"
    return b"".join(chunks[1]), b"".join(chunks[2]), None


def _kill(process: subprocess.Popen[bytes]) -> None:
    """End the program (its namespace's init: the whole namespace goes with it) and let bwrap
    reap it before bwrap itself is killed; killing bwrap first would orphan the program, and a
    host init that never reaps would keep it as a zombie."""
    for pid in _children(process.pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            continue
    try:
        process.wait(timeout=2)
    except subprocess.TimeoutExpired:
        process.kill()
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)  # --unsafe-local-exec: what it started


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            return [int(child) for child in handle.read().split()]
    except (OSError, ValueError):
        return []


def _exit_of(returncode: int, stderr: str, spent_cpu: bool) -> Exit:
    """How a program that ran to its end ended (bwrap passes on its exit status; a signal's
    number reads 128 + N)."""
    if returncode == 0:
        return "ok"
    # Only the kernel's CPU-time kill reaches the program as SIGKILL: as its namespace's init
    # it is immune to signals sent from inside, and a wall-clock kill is decided above.
    killed = (-signal.SIGXCPU, 128 + signal.SIGXCPU, -signal.SIGKILL, 128 + signal.SIGKILL)
    if returncode in killed or spent_cpu:
        return "cpu"
    if "MemoryError" in stderr[-2000:]:
        return "memory"
    return "signal" if returncode < 0 or returncode > 128 else "error"


@cache
def check_sandbox() -> str | None:
    """Why the sandbox cannot run here (one line), or None when it works."""
    if shutil.which("bwrap") is None:
        return (
            "code execution needs bubblewrap (Debian/Ubuntu: apt-get install bubblewrap); "
            "or pass --unsafe-local-exec to run replies without a sandbox (docs/code.md)"
        )
    if not os.path.exists(SYSTEM_PYTHON):
        return f"code execution runs {SYSTEM_PYTHON}, which is missing"
    probe = run_program("print(6 * 7)", limits=Limits(cpu_s=5, wall_s=20))
    if probe.exit != "ok" or probe.stdout.strip() != "42":
        detail = (probe.stderr.strip().splitlines() or [probe.exit])[-1][:200]
        return (
            f"bubblewrap does not work here ({detail}); or pass --unsafe-local-exec to run "
            "replies without a sandbox (docs/code.md)"
        )
    return None
