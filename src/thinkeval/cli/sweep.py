"""`thinkeval sweep CONFIG --grid KEY=V1,V2 ...`: argument parsing (logic in `ops/sweep.py`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

DESCRIPTION = """\
A settings study: expand the config's model into one variant per point of the grid (every
combination of the --grid values, any generation key, dotted keys for nested ones,
prompt=A,B naming entries of the config's prompts: mapping, and the reasoning controls
reasoning.budget=512,1024 and reasoning.effort=low,high, refused where the model's api has
no such control), run them concurrently on the same server under one in-flight cap, with
each task cut to --limit samples, and print per variant the completion rate, the loop rate
(docs/diagnosis.md), strict accuracy after the retry, the median reasoning length and, for
reasoning controls, whether the server kept the budget (respected or ignored), then each
variant against the first on the same samples (accuracy difference, flips, McNemar's exact
p, samples looping more).
The config's sweep: block (grid, model, limit) is used when given; --grid KEY replaces its
values of KEY or adds KEY, --model and --limit replace its own (docs/configuration.md).
The run goes to runs/<run>-sweep/ (or --output); the same command resumes it."""
EPILOG = """\
examples:
  thinkeval sweep examples/compare.yaml --grid temperature=0,0.6 --grid top_p=0.95,1.0 --limit 50
  thinkeval sweep run.yaml --model qwen3-8b --grid chat_template_kwargs.enable_thinking=true,false
  thinkeval sweep run.yaml --grid prompt=plain,boxed --limit 50   # prompts: in run.yaml
  thinkeval sweep run.yaml --grid reasoning.budget=512,1024 --grid reasoning.effort=low,high
  thinkeval sweep run.yaml                                        # its sweep: block

exit status: 0 every request recorded; 1 some failed (run again to retry them); 2 bad input."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the sweep command's arguments to `parser`."""
    parser.add_argument("config", type=Path, metavar="CONFIG", help="a run config (YAML)")
    parser.add_argument(
        "--grid", action="append", default=[], metavar="KEY=V1,V2",
        help="a generation setting (or prompt, reasoning.budget, reasoning.effort) and its "
        "values; repeat for more keys",
    )  # fmt: skip
    parser.add_argument("--model", default=None, help="the config's model to vary")
    parser.add_argument(
        "--limit", type=int, default=None, metavar="N", help="samples per task (all by default)"
    )
    parser.add_argument("--output", type=Path, default=None, metavar="DIR", help="run directory")
    parser.add_argument("--data-dir", default=None, metavar="DIR", help="dataset directory")


def run(args: argparse.Namespace) -> int:
    """Run the variants, then print the study."""
    from thinkeval.api import evaluate
    from thinkeval.config import load_config
    from thinkeval.errors import ConfigError
    from thinkeval.ops.sweep import expand, parse_grid, study
    from thinkeval.ui.sweep import render

    if args.limit is not None and args.limit < 1:
        raise ConfigError(f"--limit {args.limit}: must be at least 1")
    config = expand(load_config(args.config), parse_grid(args.grid), args.model, args.limit)
    console = Console(highlight=False, width=160)
    options = {"output": args.output} if args.output else {}
    if args.data_dir:
        options["data_dir"] = args.data_dir
    results = evaluate(config, console=console, **options)  # a failed start leaves no dir
    variants, pairs = study(results.run_dir, [m.name for m in config.models])
    render(variants, pairs, console)
    return 0 if results.summary.complete else 1
