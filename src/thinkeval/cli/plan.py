"""`thinkeval plan --task T --margin PP`: argument parsing (logic in `ops/compare.py`)."""

from __future__ import annotations

import argparse
import sys

DESCRIPTION = """\
How many questions (or repeats) a comparison of a candidate with a baseline needs to be decided
at a margin with 80% power, when the candidate is truly as good, and whether the task has that
many. The disagreement rate is the share of samples the two models answer differently (a
quantized copy of the same model: a few percent; `thinkeval compare` prints the observed one)."""
EPILOG = """\
examples:
  thinkeval plan --task gsm8k --margin 1
  thinkeval plan --task ceval --margin 2 --disagreement 0.08 --repeats 4"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the plan command's arguments to `parser`."""
    parser.add_argument("--task", required=True, help="the task to plan for")
    parser.add_argument("--margin", type=float, required=True, metavar="PP", help="points")
    parser.add_argument(
        "--disagreement", type=float, default=0.05, metavar="RATE",
        help="share of samples answered differently (default 0.05)",
    )  # fmt: skip
    parser.add_argument("--repeats", type=int, default=1, metavar="K", help="per question")
    parser.add_argument("--data-dir", metavar="DIR", help="where the task's data lies")


def run(args: argparse.Namespace) -> int:
    from thinkeval.ops.compare import plan
    from thinkeval.ui.compare import render_plan

    found = plan(args.task, args.margin, args.disagreement, args.repeats, args.data_dir)
    sys.stdout.write(render_plan(found))
    return 0
