"""`thinkeval report RUN_DIR [RUN_DIR ...]`: argument parsing, and writing the report built by
`thinkeval.report`."""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

from thinkeval.errors import ThinkevalError
from thinkeval.store.rundir import write_atomic

FORMATS = ("md", "html", "json")
HTML_DEFAULT_NAME = "report.html"

DESCRIPTION = textwrap.dedent(
    """\
    Read run directories (config, samples, journal; never the model) and report fixed vs
    adaptive accuracy, outcome breakdowns, strict vs lenient scoring, pairwise comparisons
    with paired bootstrap intervals and McNemar tests, accuracy by token budget, tokens and
    time, and the run context, each task at its own budgets. A task asked k times per
    question gets avg@k, pass@k and maj@k with intervals over questions, and its models are
    compared over questions; a run judged by `thinkeval judge` gets strict vs judge agreement
    and its disagreeing replies. A run with errors or pending samples is marked incomplete
    wherever its numbers appear. The HTML page embeds a bounded choice of samples (at most
    about 7 MB: discordant samples first, then those not correct); `thinkeval view` serves
    them all. The same runs and --seed always give the same bytes."""
)
EPILOG = """\
examples:
  thinkeval report runs/qwen3-compare                      # Markdown on stdout
  thinkeval report runs/qwen3-compare --format html        # runs/qwen3-compare/report.html
  thinkeval report runs/w8a8 runs/bf16 --format json --out both.json   # combine two runs

Runs can be combined when they cover the same tasks, each at the same budgets and repeats in
every run, and each model appears in one run only. See docs/reports.md for what each section
means."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the report command's arguments to `parser`."""
    parser.add_argument(
        "run_dirs",
        nargs="+",
        type=Path,
        metavar="RUN_DIR",
        help="run directory written by `thinkeval run`; several are combined into one report",
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="md",
        help="md (default), html (one self-contained page) or json (every number)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="FILE",
        help=f"where to write (default: stdout for md and json, "
        f"the first RUN_DIR/{HTML_DEFAULT_NAME} for html)",
    )
    parser.add_argument(
        "--allow-edited-samples",
        action="store_true",
        help="report against samples files changed since the run wrote them (refused otherwise)",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the paired bootstrap (default 0)"
    )
    parser.add_argument(
        "--resamples",
        type=int,
        default=10_000,
        help="paired bootstrap resamples (default 10000)",
    )


def run(args: argparse.Namespace) -> int:
    """Build the report and write it; returns the exit status (0).

    Raises `ThinkevalError` for a directory that is not a run, or runs that cannot be combined.
    """
    from thinkeval.report import build_report, render_html, render_json, render_markdown
    from thinkeval.store.run_record import refuse_edited_samples

    if args.resamples < 1:
        raise ThinkevalError(f"--resamples must be at least 1, got {args.resamples}")
    report = build_report(list(args.run_dirs), seed=args.seed, resamples=args.resamples)
    for run_dir in args.run_dirs:
        for note in refuse_edited_samples(run_dir, args.allow_edited_samples):
            print(f"note: {note}", file=sys.stderr)
    renderers = {"md": render_markdown, "html": render_html, "json": render_json}
    text = renderers[args.format](report)
    out: Path | None = args.out
    if out is None and args.format == "html":
        out = Path(args.run_dirs[0]) / HTML_DEFAULT_NAME
    if out is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return 0
    write_atomic(out, text.encode("utf-8"))
    print(f"report: {out} ({len(text.encode('utf-8')):,} bytes)", file=sys.stderr)
    return 0
