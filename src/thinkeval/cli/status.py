"""`thinkeval status RUN_DIR`: argument parsing, and the glue from `ops.status` to the terminal."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from rich.console import Console

from thinkeval.errors import ThinkevalError
from thinkeval.ops.processes import FRESH_S
from thinkeval.ops.status import RunStatus, read_status
from thinkeval.ui.status import render

DESCRIPTION = f"""\
Show a run's progress from any terminal, while it runs or after. Counts come from the journal
(all shard files) and match summary.json: per model, task and phase done/total, ok (correct +
wrong + no_answer), trunc (unfinished: cut off by the token limit), empty, failed (transport
errors, asked again by the next run), requests in flight, rate and ETA. A process is alive when
its pid exists on this host and its heartbeat is at most {FRESH_S:g} s old; a heartbeat from
another host is judged by its age only."""
EPILOG = """\
examples:
  thinkeval status runs/qwen3-compare
  thinkeval status runs/qwen3-compare --watch 10      # refresh until the run ends
  thinkeval status runs/qwen3-compare --json | jq '.phases[] | select(.pending > 0)'

See docs/operations.md for every field."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the status command's arguments to `parser`."""
    parser.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="the run directory")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print JSON instead of tables (with --watch: one JSON document per line)",
    )
    parser.add_argument(
        "--watch",
        type=float,
        metavar="SECONDS",
        help="refresh every SECONDS until no process of the run is alive",
    )


def _show(status: RunStatus, as_json: bool, console: Console, watching: bool) -> None:
    if as_json:
        indent = None if watching else 2
        print(json.dumps(status.to_json(), indent=indent, sort_keys=True), flush=True)
        return
    if watching and console.is_terminal:
        console.clear()
    render(status, console)


def run(args: argparse.Namespace) -> int:
    """`thinkeval status RUN_DIR [--json] [--watch SECONDS]`; 0 unless RUN_DIR is no run."""
    run_dir: Path = args.run_dir
    if not run_dir.is_dir():
        raise ThinkevalError(f"{run_dir}: no such run directory")
    watch: float | None = args.watch
    if watch is not None and watch <= 0:
        raise ThinkevalError(f"--watch must be a positive number of seconds, got {watch}")
    console = Console(highlight=False)
    if not console.is_terminal:
        console = Console(highlight=False, width=160)  # logs and pipes: do not wrap at 80
    try:
        while True:
            status = read_status(run_dir)
            _show(status, args.json, console, watching=watch is not None)
            # A process that still exists keeps the watch going even while its heartbeat lags
            # (a resume reading a large journal holds the event loop for a while).
            if watch is None or not any(w.active for w in status.writers):
                return 0
            time.sleep(watch)
    except KeyboardInterrupt:
        return 0  # leaving --watch with Ctrl-C is the normal way out
