"""`thinkeval export RUN_DIR --out DIR`: argument parsing (logic in `ops/every_eval.py`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

DESCRIPTION = """\
Write a run's results in the Every Eval Ever formats (schema 0.2.1), per model: MODEL.json, the
aggregate (one result per task and phase: strict accuracy, every outcome class's count, a Wilson
95% interval, the generation settings) and MODEL.samples.jsonl, the instance-level records (one
line per sample, repeat and phase with a reply: prompt, gold, reply, reasoning, extracted answer,
tokens, latency). correct counts as is_correct; wrong, no_answer, empty and unfinished as not,
the class kept in metadata.outcome; errors carry their message; pending units have no line.
Reads only the run directory."""
EPILOG = """\
examples:
  thinkeval export runs/demo --out runs/demo/every-eval-ever
  thinkeval export runs/w8a8 --out shared/ --organization "My Lab" --relationship third_party

See docs/comparing.md ("Sharing results: Every Eval Ever")."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the export command's arguments to `parser`."""
    parser.add_argument("run_dir", metavar="RUN_DIR", type=Path)
    parser.add_argument("--out", required=True, metavar="DIR", type=Path, help="output folder")
    parser.add_argument(
        "--organization", default="unknown", help="source_organization_name (default: unknown)"
    )
    parser.add_argument(
        "--relationship",
        default="other",
        choices=("first_party", "third_party", "collaborative", "other"),
        help="evaluator_relationship to the model (default: other)",
    )


def run(args: argparse.Namespace) -> int:
    from thinkeval.ops.every_eval import export_every_eval

    for path in export_every_eval(args.run_dir, args.out, args.organization, args.relationship):
        sys.stdout.write(f"{path}\n")
    return 0
