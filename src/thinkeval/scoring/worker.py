"""A scoring worker process: `python -m thinkeval.scoring.worker FD` (started by `scoring.pool`).

It reads `(function, args)` calls from the connection on file descriptor FD and answers each
with `(True, result)` or `(False, "what was raised")`, one at a time, in its main thread (where
Math-Verify's timer signals work). A fresh interpreter rather than a multiprocessing child, so a
worker never imports the parent's `__main__` again, whatever script started the parent.
"""

from __future__ import annotations

import contextlib
import importlib
import signal
import sys
from multiprocessing.connection import Connection
from typing import Any

READY = "ready"


def serve(conn: Connection, warm: str | None) -> None:
    """Warm up (`module:function`), say READY, then answer calls until the parent goes away."""
    # Ctrl-C reaches the whole process group: the parent decides, and ends its workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if warm:
        module, _, function = warm.partition(":")
        # A failing warm-up shows again, attributed, in the first real call.
        with contextlib.suppress(Exception):
            getattr(importlib.import_module(module), function)()
    conn.send(READY)
    while True:
        try:
            fn, args = conn.recv()
        except (EOFError, OSError):
            return  # the parent is gone
        try:
            result: tuple[bool, Any] = (True, fn(*args))
        except Exception as exc:
            result = (False, f"{type(exc).__name__}: {exc}")
        try:
            conn.send(result)
        except OSError:
            return


if __name__ == "__main__":
    serve(Connection(int(sys.argv[1])), sys.argv[2] if len(sys.argv) > 2 else None)
