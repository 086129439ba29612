"""Opening the files a user points the tool at: regular files only, configs of a bounded size.

A config that is really `/dev/zero` would be read until memory ran out, a FIFO would block the
open forever, and a symlink loop is an `OSError` like any other: each must be one clear error
naming the file. Opening with `O_NONBLOCK` returns at once even for a FIFO with no writer, and
`fstat` on the open descriptor then says what the path is (no race between a check and the open).
"""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO

# A run config, task file or sweep is a few kB; 8 MiB leaves room for inline few-shot rows.
MAX_CONFIG_BYTES = 8 * 1024 * 1024

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class NotRegularFile(OSError):
    """The path is a directory, FIFO, device or socket: nothing the tool reads as a file."""


class TooLarge(OSError):
    """The file is larger than the tool reads for what it is."""


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """`path` opened for reading in binary; raises `NotRegularFile` unless it is a regular file
    (after following symlinks), and `OSError` (ELOOP for a symlink loop) as `os.open` does."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = next((name for test, name in _KINDS if test(mode)), "something")
            raise NotRegularFile(errno.EINVAL, f"{kind}, not a regular file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bounded(path: str | os.PathLike[str], limit: int = MAX_CONFIG_BYTES) -> bytes:
    """The whole regular file at `path`, refused (`TooLarge`) past `limit` bytes; a file that
    lies about its size (`/proc`) is still read no further than the limit."""
    with open_regular(path) as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(errno.EFBIG, f"larger than {limit // (1024 * 1024)} MiB, too large to read")
    return data


def reason(exc: OSError) -> str:
    """What went wrong opening a file, in words (`exc.strerror`, else the exception)."""
    return exc.strerror or str(exc)
