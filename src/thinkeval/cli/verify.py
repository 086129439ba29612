"""`thinkeval verify RUN_DIR`: argument parsing (logic in `ops/verify.py`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.console import Console

from thinkeval.errors import ThinkevalError

DESCRIPTION = """\
Combine every journal file of RUN_DIR (main run and shards) and check: each sample of each model
and task once in the fixed phase; exactly the candidates (fixed verdict empty or unfinished) once
in the retry phase and nothing else retried; attempts at the run's budgets. Lists missing ids,
duplicated ids (recorded successfully more than once, e.g. overlapping shards), unexpected
retries, error-only samples (run again to re-ask them) and attempts for unknown samples."""
EPILOG = """\
examples:
  thinkeval verify runs/qwen3-compare
  thinkeval verify runs/qwen3-compare --json | jq '.tasks[] | select(.complete | not)'

exit status: 0 complete and clean; 1 something is missing or wrong; 2 not a run directory."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the verify command's arguments to `parser`."""
    parser.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="the run directory")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")


def run(args: argparse.Namespace) -> int:
    """`thinkeval verify RUN_DIR [--json]`: 0 only when complete and clean."""
    run_dir: Path = args.run_dir
    if not run_dir.is_dir():
        raise ThinkevalError(f"{run_dir}: no such run directory")
    from thinkeval.ops.verify import verify_run
    from thinkeval.ui.verify import render

    found = verify_run(run_dir)
    if args.json:
        print(json.dumps(found.to_json(), indent=2, sort_keys=True))
    else:
        console = Console(highlight=False)
        if not console.is_terminal:
            console = Console(highlight=False, width=160)
        render(found, console)
    return 0 if found.ok else 1
