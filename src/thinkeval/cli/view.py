"""`thinkeval view RUN_DIR [RUN_DIR ...]`: argument parsing, and the glue that starts the viewer
in `thinkeval.report.viewer`."""

from __future__ import annotations

import argparse
import asyncio
import sys
import textwrap
import time
from pathlib import Path

from thinkeval.errors import ThinkevalError

DEFAULT_PORT = 8765

DESCRIPTION = textwrap.dedent(
    """\
    Serve the report of one or more runs from a local web server on 127.0.0.1, with every
    sample: the page loads samples a page at a time from the journal, searches the full texts,
    filters, sorts, opens two models side by side, and exports the filtered samples as JSONL or
    CSV. It reads the run directories only (nothing is written) and answers only requests for
    its own address. Memory stays flat whatever the run's size."""
)
EPILOG = """\
examples:
  thinkeval view runs/qwen3-compare                 # then open http://127.0.0.1:8765/
  thinkeval view runs/w8a8 runs/bf16 --port 0       # two runs combined, any free port

The server runs until Ctrl-C. Runs combine as in `thinkeval report`. To look at it from another
machine, forward the port (ssh -L 8765:127.0.0.1:8765 host). See docs/reports.md."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the view command's arguments to `parser`."""
    parser.add_argument(
        "run_dirs",
        nargs="+",
        type=Path,
        metavar="RUN_DIR",
        help="run directory written by `thinkeval run`; several are combined",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"port on 127.0.0.1 (default {DEFAULT_PORT}; 0 picks a free one)",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the paired bootstrap (default 0)"
    )
    parser.add_argument(
        "--resamples", type=int, default=10_000, help="paired bootstrap resamples (default 10000)"
    )


def run(args: argparse.Namespace) -> int:
    """Read the runs, serve them until Ctrl-C or SIGTERM; 0 when stopped that way."""
    from thinkeval.report.viewer import Viewer, listen, serve

    if args.resamples < 1:
        raise ThinkevalError(f"--resamples must be at least 1, got {args.resamples}")
    if not 0 <= args.port <= 65535:
        raise ThinkevalError(f"--port must be between 0 and 65535, got {args.port}")
    sock = listen(args.port)  # first, so a port in use is said before the runs are read
    started = time.monotonic()

    def ready(url: str) -> None:
        took = time.monotonic() - started
        print(f"thinkeval view: {url} (read in {took:.1f} s; Ctrl-C to stop)", flush=True)

    try:
        print(f"reading {', '.join(str(d) for d in args.run_dirs)} …", file=sys.stderr, flush=True)
        viewer = Viewer(list(args.run_dirs), seed=args.seed, resamples=args.resamples)
        try:
            asyncio.run(serve(viewer, sock, ready))
        finally:
            viewer.close()
    finally:
        sock.close()
    return 0
