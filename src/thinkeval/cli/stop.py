"""`thinkeval stop RUN_DIR`: argument parsing (logic in `ops/background.py`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from thinkeval.errors import ThinkevalError
from thinkeval.ops.background import stop_run

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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the stop command's arguments to `parser`."""
    parser.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="the run directory")
    parser.add_argument(
        "--timeout",
        type=float,
        default=30.0,
        metavar="S",
        help="seconds to wait for the processes to exit (default 30)",
    )


def run(args: argparse.Namespace) -> int:
    """`thinkeval stop RUN_DIR [--timeout S]`."""
    if args.timeout < 0:
        raise ThinkevalError(f"--timeout must not be negative, got {args.timeout}")
    return stop_run(args.run_dir, args.timeout)
