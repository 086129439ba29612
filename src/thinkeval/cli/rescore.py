"""`thinkeval rescore RUN_DIR`: argument parsing (logic in `ops/rescore.py`)."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

from thinkeval.errors import ThinkevalError

DESCRIPTION = """\
Score every counted reply of RUN_DIR again with the current scorers and rewrite summary.json.
The journal is not changed and no model is asked. Shows, per model, task and scorer, how many
verdicts differ from those recorded with the replies (after a thinkeval upgrade, or a fix to a
task's answer kind) and lists the first of them."""
EPILOG = """\
examples:
  thinkeval rescore runs/qwen3-compare
  thinkeval rescore runs/qwen3-compare --json | jq '.scorers[] | select(.changed > 0)'

A samples file changed since the run wrote it (a gold edited by hand) is refused, naming the
file, unless --allow-edited-samples.

exit status: 0 re-scored; 2 not a run directory, a broken journal line or an edited samples file
(named)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the rescore command's arguments to `parser`."""
    parser.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="the run directory")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.add_argument(
        "--unsafe-local-exec",
        action="store_true",
        help="run code replies without the sandbox, resource limits only (docs/code.md)",
    )
    parser.add_argument(
        "--allow-edited-samples",
        action="store_true",
        help="score against samples files changed since the run wrote them (refused otherwise)",
    )


def run(args: argparse.Namespace) -> int:
    """`thinkeval rescore RUN_DIR [--json]`."""
    from thinkeval.ops.rescore import rescore_run
    from thinkeval.store.run_record import refuse_edited_samples

    if not args.run_dir.is_dir():
        raise ThinkevalError(f"{args.run_dir}: no such run directory")
    if args.unsafe_local_exec:
        from thinkeval.execution.grading import allow_unsafe_exec

        allow_unsafe_exec()
    for note in refuse_edited_samples(args.run_dir, args.allow_edited_samples):
        print(f"note: {note}", file=sys.stderr)
    found = rescore_run(args.run_dir)
    if args.json:
        rows = []
        for row in found.scorers:
            data = asdict(row)
            data["transitions"] = [
                {"recorded": before, "now": now, "count": count}
                for (before, now), count in sorted(row.transitions.items())
            ]
            data["changed"] = row.changed
            rows.append(data)
        print(json.dumps({"run_dir": str(found.run_dir), "scorers": rows}, indent=2))
        return 0
    from thinkeval.ui.rescore import render_rescore
    from thinkeval.ui.tables import stdout_console

    render_rescore(found, stdout_console())
    return 0
