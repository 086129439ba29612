"""Which processes may write one run directory at the same time: those of one shard plan.

Shards split the samples by `crc32(id) % N`, so shards of one plan never ask a sample twice;
a full run beside shards, or shards of two plans (`--shard 1/2` and `--shard 1/3`), would. Each
writer holds a shared lock on `locks/plan-<plan>.lock` for as long as it runs; joining is done
under an exclusive `locks/gate.lock`, where a newcomer checks that no other plan's file is
held. (The journal's own lock already refuses two processes of the same shard.) The locks are
`flock`s, released by the kernel when a process dies, so a killed run never leaves one behind;
on NFS, Linux maps them to POSIX locks that all clients see.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from thinkeval.errors import JournalError
from thinkeval.store.shard import Shard

LOCKS_DIR = "locks"


def plan_name(shard: Shard | None) -> str:
    """`full`, or `N-shards`."""
    return "full" if shard is None else f"{shard.count}-shards"


def _describe(plan: str) -> str:
    if plan == "full":
        return "a full run (no --shard)"
    count = plan.removesuffix("-shards")
    return f"shards of {count} (--shard I/{count})"


class RunLock:
    """This process's place among the writers of a run directory.

    >>> with RunLock(run_dir, Shard(1, 3)):
    ...     pass  # refused with JournalError while a full run or 2-shard plan is running
    """

    def __init__(self, run_dir: Path, shard: Shard | None) -> None:
        self.run_dir = run_dir
        self.plan = plan_name(shard)
        self._fd: int | None = None

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def acquire(self) -> None:
        folder = self.run_dir / LOCKS_DIR
        gate = self._open(folder / "gate.lock")
        try:
            fcntl.flock(gate, fcntl.LOCK_EX)  # held for a moment by each process that joins
            for other in sorted(folder.glob("plan-*.lock")):
                plan = other.name.removeprefix("plan-").removesuffix(".lock")
                if plan != self.plan and _held(other):
                    raise JournalError(
                        f"{self.run_dir} is being run as {_describe(plan)}; "
                        f"{_describe(self.plan)} would ask the same samples again. Wait for "
                        "those processes or stop them (thinkeval stop RUN_DIR), or join them "
                        "with the same shard plan"
                    )
            fd = self._open(folder / f"plan-{self.plan}.lock")
            fcntl.flock(fd, fcntl.LOCK_SH)
            self._fd = fd
        finally:
            os.close(gate)

    def release(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)  # also releases the lock

    def _open(self, path: Path) -> int:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            return os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise JournalError(
                f"{path}: cannot open the run's lock file ({exc.strerror})"
            ) from None


def _held(path: Path) -> bool:
    """Whether some process holds `path`'s lock (checked by trying to take it alone)."""
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)
    return False
