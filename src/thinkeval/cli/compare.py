"""`thinkeval compare RUN... --baseline MODEL`: argument parsing (logic in `ops/compare.py`)."""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

from thinkeval.errors import ThinkevalError
from thinkeval.results.sequential_run import is_decide_run

DESCRIPTION = textwrap.dedent(
    """\
    Is the candidate as good as the baseline? Per task and phase (fixed, adaptive) and over
    all tasks: both accuracies, the difference with its 90% score interval, recovery, and a decision
    at a margin declared up front: equivalent, non-inferior, inferior or inconclusive (and
    what would settle it). The paired test of "no difference" is reported beside, with the
    smallest difference the run could detect at 80% power. Then flips between outcome classes,
    cost deltas (reasoning and completion tokens, budget hits, retries, latency), truncation
    parity (both sides' unfinished rates, accuracy bounds, and a refusal past a declared gap),
    the noise floor (an A/A copy of the baseline, or its repeats) against the candidate's
    flips, and paired behaviour deltas (reasoning length, loops, hesitation, found-then-lost)
    by the baseline's difficulty. Models asked differently (samples, budgets, repeats,
    generation, scorers, server flavour) are refused unless --allow-mismatch."""
)
EPILOG = """\
examples:
  thinkeval compare runs/demo --baseline sim-qwen3-8b-bf16
  thinkeval compare runs/bf16 runs/w8a8 --baseline qwen-bf16 --margin 2 --margin aime25=5
  thinkeval compare runs/demo --baseline sim-qwen3-8b-bf16 --recovery 0.99 --json
  thinkeval compare runs/aa --baseline bf16 --noise-floor bf16-again --max-unfinished-gap 2

A run of a config with decide: (asked in lockstep until decided) is compared on its own, by
its sequential rule; a fixed-n test on its stopped sample is refused.
See docs/comparing.md for how to read and set each number."""


def _margin(text: str) -> tuple[str | None, float]:
    task, _, value = text.rpartition("=")
    try:
        points = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not points or TASK=points: {text!r}") from None
    if not 0 < points <= 100:
        raise argparse.ArgumentTypeError(f"a margin lies in (0, 100] points, got {text!r}")
    return (task or None), points


def _points(text: str) -> float:
    task, points = _margin(text)
    if task is not None:
        raise argparse.ArgumentTypeError(f"points, not TASK=points: {text!r}")
    return points


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the compare command's arguments to `parser`."""
    parser.add_argument("run_dirs", nargs="+", type=Path, metavar="RUN_DIR")
    parser.add_argument("--baseline", metavar="MODEL", help="default: the config's baseline:")
    parser.add_argument(
        "--candidate", action="append", default=[], metavar="MODEL",
        help="a model to compare (repeatable; default: every other model)",
    )  # fmt: skip
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--margin", action="append", type=_margin, default=[], metavar="PP|TASK=PP",
        help="margin in percentage points (default 1); TASK=PP sets one task's (repeatable)",
    )  # fmt: skip
    group.add_argument(
        "--recovery", type=float, metavar="RATIO",
        help="decide on recovery (candidate / baseline) at this threshold, e.g. 0.99",
    )  # fmt: skip
    parser.add_argument(
        "--allow-mismatch", action="store_true",
        help="compare models asked differently; the verdict is marked 'not like for like'",
    )  # fmt: skip
    parser.add_argument(
        "--max-unfinished-gap", type=_points, metavar="PP",
        help="refuse a verdict where the two models' unfinished rates differ by more than PP "
        "points (default: the config's; without one, a gap is only flagged)",
    )  # fmt: skip
    parser.add_argument(
        "--noise-floor", metavar="MODEL",
        help="the baseline served again under this model name (an A/A copy): its flips "
        "against the baseline are the deployment's noise floor (default: the config's; "
        "else the baseline's repeats)",
    )  # fmt: skip
    parser.add_argument("--json", action="store_true", help="the comparison as JSON")


def run(args: argparse.Namespace) -> int:
    import msgspec

    from thinkeval.ops.compare import compare_runs
    from thinkeval.report._tables_compare import compare_section
    from thinkeval.ui.compare import render_blocks

    if args.recovery is not None and not 0 < args.recovery < 1:
        raise ThinkevalError(f"--recovery lies strictly between 0 and 1, got {args.recovery:g}")
    if len(args.run_dirs) == 1 and is_decide_run(args.run_dirs[0]):
        return _decided(args)
    overall = [points for task, points in args.margin if task is None]
    if len(overall) > 1:
        raise ThinkevalError("--margin PP is given twice; give one, and TASK=PP per task")
    result = compare_runs(
        args.run_dirs,
        args.baseline,
        args.candidate,
        margin=overall[0] if overall else None,
        recovery=args.recovery,
        task_margins={task: points for task, points in args.margin if task is not None},
        allow_mismatch=args.allow_mismatch,
        max_unfinished_gap=args.max_unfinished_gap,
        noise_floor=args.noise_floor,
    )
    if args.json:
        sys.stdout.write(msgspec.json.format(msgspec.json.encode(result), indent=2).decode())
        sys.stdout.write("\n")
        return 0
    section = compare_section(result)
    sys.stdout.write(render_blocks(section.blocks))
    return 0


def _decided(args: argparse.Namespace) -> int:
    """A `decide:` run: its sequential verdict, by the run's own rule (never a fixed-n test)."""
    import msgspec

    from thinkeval.report._decide import decide_lines
    from thinkeval.results.sequential_run import decided

    given = [("--baseline", args.baseline), ("--candidate", args.candidate),
             ("--margin", args.margin), ("--recovery", args.recovery)]  # fmt: skip
    record = decided(args.run_dirs[0], [flag for flag, value in given if value])
    if args.json:
        sys.stdout.write(msgspec.json.format(msgspec.json.encode(record), indent=2).decode())
    else:
        sys.stdout.write("\n".join(decide_lines(record)))
    sys.stdout.write("\n")
    return 0
