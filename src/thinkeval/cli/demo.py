"""`thinkeval demo`: argument parsing (logic in `ops/demo.py`)."""

from __future__ import annotations

import argparse
import textwrap

DESCRIPTION = textwrap.dedent(
    """\
    Start two simulated models (clearly labelled: not real LLMs) in the background and
    evaluate them on C-Eval, BoolQ and GSM8K, and on AIME 2025 sampled four times per
    problem (avg@4, pass@4, maj@4), with the full protocol. The report compares the
    quantized model with its original (the demo's baseline)."""
)
EPILOG = "example:\n  thinkeval demo --output runs/demo"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the demo command's arguments to `parser`."""
    parser.add_argument("--output", metavar="DIR", default="runs/demo", help="run directory")
    parser.add_argument("--data-dir", metavar="DIR", help="datasets folder (default: auto)")
    parser.add_argument(
        "--limit", type=int, metavar="N", help="only the first N samples of each task"
    )


def run(args: argparse.Namespace) -> int:
    """Run the demo; 0 when it finished."""
    from pathlib import Path

    from thinkeval.ops.demo import run_demo
    from thinkeval.ui.progress import RunProgress
    from thinkeval.ui.tables import show_summary

    return run_demo(
        Path(args.output), args.data_dir, args.limit, progress=RunProgress, show=show_summary
    )
