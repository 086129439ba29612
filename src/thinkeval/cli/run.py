"""`thinkeval run CONFIG`: argument parsing and the end-of-run lines (logic in `run/runner.py`)."""

from __future__ import annotations

import argparse
import asyncio
import gc
import textwrap
from pathlib import Path

from rich.console import Console

from thinkeval import __version__
from thinkeval.errors import ThinkevalError

EXIT_OK = 0
EXIT_ERRORS_LEFT = 1  # the run finished but some requests failed: run again to retry them
HELP = "evaluate the models of a config (fixed budget, then one adaptive retry)"
DESCRIPTION = textwrap.dedent(
    """\
    Run the strict two-phase protocol: every sample once at its task's first budget; samples
    whose reply was empty or cut off by the token limit once more at the second budget. Every
    finished attempt is journalled; running the same command again resumes."""
)
EPILOG = """\
examples:
  thinkeval run examples/compare.yaml              # runs/<run>/, resumes if it exists
  thinkeval run examples/compare.yaml --model qwen3-8b --task gsm8k
  thinkeval run examples/compare.yaml --output /data/runs/try1
  thinkeval run examples/compare.yaml --detach     # in the background; see `thinkeval status`

exit status: 0 all recorded; 1 finished but some requests failed (run again to retry
only those); 2 bad input (config, dataset, server); 130 stopped (run again to resume)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the run command's arguments to `parser`."""
    parser.add_argument("config", help="YAML run config (see docs/configuration.md)")
    parser.add_argument("--output", metavar="DIR", help="run directory (default: runs/<run>)")
    parser.add_argument("--model", metavar="NAME", help="run only this model of the config")
    parser.add_argument("--task", metavar="NAME", help="run only this task of the config")
    parser.add_argument(
        "--shard",
        metavar="I/N",
        help="run only shard I of N (stable split by sample id); shards write their own journal",
    )
    parser.add_argument(
        "--allow-model-mismatch",
        action="store_true",
        help="run even if /v1/models does not list the configured model id",
    )
    parser.add_argument(
        "--keep-recorded-samples",
        action="store_true",
        help="resume with the prompts recorded when the run started, even if the data or "
        "thinkeval's prompts changed since",
    )
    parser.add_argument(
        "--detach",
        action="store_true",
        help="run in the background, detached from this terminal; log in RUN_DIR/run.log",
    )


def _console() -> Console:
    return Console(stderr=True, highlight=False)


def run(args: argparse.Namespace) -> int:
    """`thinkeval run CONFIG [...]`: exit status as in EPILOG."""
    from thinkeval.config import load_config
    from thinkeval.run.rundir import run_dir_for
    from thinkeval.run.runner import RunOptions, run_evaluation
    from thinkeval.run.shard import Shard
    from thinkeval.ui.tables import results_table, stdout_console

    # The modules just imported live as long as the process: freezing them keeps the cyclic
    # collector from walking them again during the run and at exit (about 0.15 s at exit).
    gc.freeze()
    config = load_config(args.config)
    try:
        shard = Shard.parse(args.shard) if args.shard else None
    except ValueError as exc:
        raise ThinkevalError(str(exc)) from None
    run_dir = run_dir_for(config, args.output)
    if args.detach:
        from thinkeval.ops.background import detach

        return detach(run_argv(args, run_dir), run_dir)
    options = RunOptions(
        only_model=args.model,
        only_task=args.task,
        shard=shard,
        allow_model_mismatch=args.allow_model_mismatch,
        keep_recorded_samples=args.keep_recorded_samples,
    )
    console = _console()
    console.print(f"thinkeval {__version__}: run [bold]{config.run}[/] → {run_dir}")
    summary = asyncio.run(run_evaluation(config, run_dir, options, console))
    stdout_console().print(results_table(summary))
    errors = sum(r.fixed.error + r.retry.error for r in summary.results)
    console.print(f"summary: {run_dir / 'summary.json'}")
    if errors:
        console.print(
            f"[yellow]{errors} request(s) failed after retries and are counted as errors; "
            "run the same command again to retry only those.[/]"
        )
        return EXIT_ERRORS_LEFT
    return EXIT_OK


def run_argv(args: argparse.Namespace, run_dir: Path) -> list[str]:
    """The `run` command line a detached process executes, from the parsed `run` arguments.

    Paths are made absolute so the detached process does not depend on the directory it was
    started from; `--output` is always given, so it writes exactly the run directory checked here.
    """
    argv = ["run", str(Path(args.config).resolve()), "--output", str(Path(run_dir).resolve())]
    for flag, name in (("--model", "model"), ("--task", "task"), ("--shard", "shard")):
        value = getattr(args, name, None)
        if value:
            argv += [flag, str(value)]
    for flag, name in (
        ("--allow-model-mismatch", "allow_model_mismatch"),
        ("--keep-recorded-samples", "keep_recorded_samples"),
    ):
        if getattr(args, name, False):
            argv.append(flag)
    return argv
