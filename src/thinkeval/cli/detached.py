"""The process a detached run executes: `thinkeval <argv>`, then its exit status recorded.

`python -m thinkeval.cli.detached --pid-file PATH run CONFIG ...`, started by
`ops.background.detach`, writes a last log line and the pid file's exit status, so a run that
ended while nobody watched still says how it ended.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from pathlib import Path

import msgspec

from thinkeval.cli import main
from thinkeval.errors import ThinkevalError
from thinkeval.ops.background import pid_record, stamp
from thinkeval.ops.processes import log_file, writer_of
from thinkeval.store.heartbeat import PidRecord, read_record, write_record


def _interrupt(signum: int, frame: object) -> None:
    # Until the runner installs its own handler (while datasets load), SIGTERM ends the process
    # the way Ctrl-C does: through the CLI's KeyboardInterrupt path, exit 130, nothing recorded.
    raise KeyboardInterrupt


def detached_main(argv: list[str]) -> int:
    """The detached process: `thinkeval <argv>`, then its exit status in the log and pid file."""
    if len(argv) < 2 or argv[0] != "--pid-file":
        print(
            "usage: python -m thinkeval.cli.detached --pid-file PATH run CONFIG ...",
            file=sys.stderr,
        )
        return 2
    pid_path, command = Path(argv[1]), argv[2:]
    signal.signal(signal.SIGTERM, _interrupt)
    started_at = time.time()
    status = 1  # an unexpected exception propagates with Python's own status 1
    try:
        status = main(command)
    finally:
        ended_at = time.time()
        print(f"[thinkeval] {stamp(ended_at)} exit status {status}", flush=True)
        record = read_record(pid_path, PidRecord)
        if record is None or record.pid != os.getpid():
            writer = writer_of(command)
            log = log_file(pid_path.parent, writer)
            record = pid_record(os.getpid(), writer, started_at, command, log)
        record = msgspec.structs.replace(record, exit_status=status, ended_at=ended_at)
        with contextlib.suppress(ThinkevalError):
            write_record(pid_path, record)
    return status


if __name__ == "__main__":
    sys.exit(detached_main(sys.argv[1:]))
