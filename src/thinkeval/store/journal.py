"""The append-only journal of attempts: the one durable record of a run.

Each finished attempt is one JSON line, written with a single `write(2)` on an `O_APPEND` file
descriptor before it counts as done: once `append` returns, the line survives a SIGKILL of this
process. Each writer process (the main run, or one shard) has its own file under `journal/`, so
shards on several machines never interleave. A line torn by a crash or a full disk is cut off
when the file is next opened; everything before it is kept.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import msgspec

from thinkeval.errors import JournalError
from thinkeval.records import Attempt, decode_attempt, describe_decode_error

_ENCODE = msgspec.json.Encoder()

JOURNAL_DIR = "journal"
# fsync at most this often: flushing to the OS already survives a killed process; fsync guards
# against a lost machine without paying a disk flush per request.
FSYNC_INTERVAL_S = 2.0


def journal_files(run_dir: Path) -> list[Path]:
    """All journal files of a run, in a stable order."""
    folder = run_dir / JOURNAL_DIR
    return sorted(folder.glob("*.jsonl")) if folder.is_dir() else []


@dataclass(frozen=True)
class JournalLine:
    """One line of a journal file: its attempt, or what is wrong with it."""

    path: Path
    number: int
    attempt: Attempt | None
    problem: str | None = None  # e.g. "sample_id: Field required"
    torn: bool = False  # a last line without its newline: a write cut short by a crash
    offset: int = 0  # where the line starts in the file


def scan(run_dir: Path, files: list[Path] | None = None) -> Iterator[JournalLine]:
    """Every line of every journal file (or of `files`), file by file, in write order; never
    raises for content.

    A torn last line ends its file's scan. Callers decide whether a bad line is fatal
    (`iter_attempts`) or something to report (`thinkeval verify`).
    """
    for path in journal_files(run_dir) if files is None else files:
        try:
            handle = path.open("rb")
        except OSError as exc:
            raise JournalError(f"{path}: cannot read the journal: {exc.strerror}") from None
        with handle:
            offset = 0
            for number, line in enumerate(handle, 1):
                start, offset = offset, offset + len(line)
                if not line.endswith(b"\n"):
                    yield JournalLine(path, number, None, torn=True, offset=start)
                    break
                if not line.strip():
                    continue
                attempt, problem = _parse(line)
                yield JournalLine(path, number, attempt, problem, offset=start)


def _parse(line: bytes) -> tuple[Attempt | None, str | None]:
    try:
        return decode_attempt(line), None
    except msgspec.MsgspecError as exc:
        return None, describe_decode_error(exc)


def iter_located(
    run_dir: Path,
    files: list[Path] | None = None,
    on_invalid: Callable[[JournalLine], None] | None = None,
) -> Iterator[tuple[Attempt, Path, int]]:
    """`(attempt, journal file, offset of its line)` for every recorded attempt, in write order.

    A last line without its newline is a write torn by a crash and is skipped; a broken line
    anywhere else is corruption and raises `JournalError` naming the file and line, unless
    `on_invalid` is given (a reader that only shows the run: `thinkeval status`), which is told
    of it, and of a torn last line, instead; both are skipped.
    """
    for line in scan(run_dir, files):
        if line.attempt is not None:
            yield line.attempt, line.path, line.offset
        elif on_invalid is not None:
            on_invalid(line)
        elif not line.torn:
            raise JournalError(
                f"{line.path}:{line.number}: not a valid attempt record ({line.problem}); "
                "move the file aside or fix that line"
            )


def iter_attempts(run_dir: Path) -> Iterator[Attempt]:
    """Every recorded attempt of a run, file by file, in write order (see `iter_located`)."""
    for attempt, _, _ in iter_located(run_dir):
        yield attempt


def read_attempt_line(handle: IO[bytes], offset: int, path: Path) -> Attempt:
    """The attempt on the line starting at `offset` of an open journal file."""
    handle.seek(offset)
    line = handle.readline()
    attempt, problem = _parse(line) if line.endswith(b"\n") else (None, "torn line")
    if attempt is None:
        raise JournalError(
            f"{path}: no valid attempt record at byte {offset} ({problem}); the journal "
            "changed while it was read"
        )
    return attempt


class Journal:
    """One writer's journal file, locked against a second writer.

    >>> with Journal(run_dir, "main") as journal:
    ...     journal.append(attempt)
    """

    def __init__(self, run_dir: Path, writer: str = "main") -> None:
        self.path = run_dir / JOURNAL_DIR / f"{writer}.jsonl"
        self._fd: int | None = None
        self._last_sync = 0.0

    def __enter__(self) -> Journal:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as exc:
            raise JournalError(
                f"{self.path}: cannot open the journal for writing: {exc.strerror}"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise JournalError(
                f"{self.path}: another thinkeval process is writing this run; stop it first "
                "(thinkeval stop RUN_DIR) or use --shard for parallel writers"
            ) from None
        self._fd = fd
        self._repair_tail()

    def _repair_tail(self) -> None:
        """Cut a torn last line so the next record starts on a line of its own."""
        assert self._fd is not None
        size = os.fstat(self._fd).st_size
        if size == 0:
            return
        keep = size
        chunk = 4096
        while keep > 0:
            start = max(0, keep - chunk)
            data = os.pread(self._fd, keep - start, start)
            if keep == size and data.endswith(b"\n"):
                return
            cut = data.rfind(b"\n")
            if cut >= 0:
                keep = start + cut + 1
                break
            keep = start
        os.ftruncate(self._fd, keep)

    def append(self, attempt: Attempt) -> None:
        """Write one attempt; when this returns, it is recorded."""
        if self._fd is None:
            raise JournalError(f"{self.path}: journal is not open")
        line = _ENCODE.encode(attempt) + b"\n"
        # Structs are not checked when built: check the line as resume will read it (~5 us), so
        # the journal never holds a line that stops the next run.
        try:
            decode_attempt(line)
        except msgspec.ValidationError as exc:
            raise JournalError(
                f"{self.path}: refusing to record an attempt that would not read back: "
                f"{describe_decode_error(exc)}"
            ) from None
        before = os.lseek(self._fd, 0, os.SEEK_END)
        try:
            written = os.write(self._fd, line)
            while written < len(line):  # rare short write: finish the line
                written += os.write(self._fd, line[written:])
        except OSError as exc:
            # Leave no half line behind (a full disk often allows a partial write).
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, before)
            reason = "the disk is full" if exc.errno == errno.ENOSPC else exc.strerror
            raise JournalError(
                f"{self.path}: cannot write the journal ({reason}); everything recorded before "
                "is intact; free space and run the same command again to resume"
            ) from None
        now = time.monotonic()
        if now - self._last_sync > FSYNC_INTERVAL_S:
            self._last_sync = now
            os.fsync(self._fd)

    def close(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        with contextlib.suppress(OSError):
            os.fsync(fd)
        os.close(fd)  # also releases the lock
