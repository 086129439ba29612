"""The `thinkeval` command line."""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from thinkeval import __version__
from thinkeval.errors import ThinkevalError

EXIT_OK = 0
EXIT_ERRORS_LEFT = 1  # the run finished but some requests failed: run again to retry them

_RUN_EXAMPLE = """\
examples:
  thinkeval run examples/compare.yaml              # runs/<run>/, resumes if it exists
  thinkeval run examples/compare.yaml --model qwen3-8b --task gsm8k
  thinkeval run examples/compare.yaml --output /data/runs/try1
  thinkeval run examples/compare.yaml --detach     # in the background; see `thinkeval status`

exit status: 0 all recorded; 1 finished but some requests failed (run again to retry
only those); 2 bad input (config, dataset, server); 130 stopped (run again to resume)."""


def _console() -> Console:
    return Console(stderr=True, highlight=False)

def cmd_run(args: argparse.Namespace) -> int:
    from thinkeval.config import load_config
    from thinkeval.run.protocol import Shard
    from thinkeval.run.rundir import run_dir_for
    from thinkeval.run.runner import RunOptions, run_evaluation
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


def cmd_demo(args: argparse.Namespace) -> int:
    from thinkeval.ops.demo import run_demo

    return run_demo(args)


def _add_run(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "run",
        help="evaluate the models of a config (fixed budget, then one adaptive retry)",
        description=textwrap.dedent(
            """\
            Run the strict two-phase protocol: every sample once at budgets[0]; samples whose
            reply was empty or cut off by the token limit once more at budgets[1]. Every
            finished attempt is journalled; running the same command again resumes."""
        ),
        epilog=_RUN_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
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
    parser.set_defaults(func=cmd_run)


def _add_demo(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "demo",
        help="run the full protocol on all three real datasets against two simulated models",
        description=textwrap.dedent(
            """\
            Start two simulated models (clearly labelled: not real LLMs) in the background and
            evaluate them on C-Eval, BoolQ and GSM8K with the full protocol."""
        ),
        epilog="example:\n  thinkeval demo --output runs/demo",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--output", metavar="DIR", default="runs/demo", help="run directory")
    parser.add_argument("--data-dir", metavar="DIR", help="datasets folder (default: auto)")
    parser.add_argument(
        "--limit", type=int, metavar="N", help="only the first N samples of each task"
    )
    parser.set_defaults(func=cmd_demo)


# Subcommands implemented in a module of their own: (module, one-line help). The module, which
# provides DESCRIPTION, EPILOG, add_arguments and run, is imported only when its command is
# chosen, so `thinkeval run` does not pay for numpy (reports) or the simulator.
MODULE_COMMANDS: dict[str, tuple[str, str]] = {
    "check": (
        "ops.check",
        "check a server before a run: model served, thinking on, reasoning field",
    ),
    "sim": ("sim.cli", "start a vLLM-faithful simulated server on 127.0.0.1 (tests, the demo)"),
    "report": ("report.cli", "write the report of one or more runs: Markdown, HTML or JSON"),
    "status": ("ops.status", "show where a run stands: progress per model/task/phase, rate, ETA"),
    "stop": ("cli.stop", "stop a background run gracefully (nothing partial is recorded)"),
    "verify": ("ops.verify", "check that a run is complete: every sample exactly once per phase"),
    "import-aisbench": (
        "cli.import_aisbench",
        "import an AISBench output folder as a run's fixed phase",
    ),
    "rescore": (
        "cli.rescore",
        "score a run's replies again with the current scorers; show what changed",
    ),
    "schema": ("ops.schema", "print the JSON Schema of a journal line, summary.json or the config"),
}


def _add_module_command(sub: argparse._SubParsersAction, name: str, full: bool) -> None:
    module_name, help_text = MODULE_COMMANDS[name]
    if not full:
        sub.add_parser(name, help=help_text)
        return
    import importlib

    module = importlib.import_module(f"thinkeval.{module_name}")
    parser = sub.add_parser(
        name,
        help=help_text,
        description=module.DESCRIPTION,
        epilog=module.EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    module.add_arguments(parser)
    parser.set_defaults(func=module.run)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command-line parser; only the chosen subcommand's module is imported."""
    parser = argparse.ArgumentParser(
        prog="thinkeval",
        description=(
            "Strict fixed-then-adaptive evaluation of thinking models behind OpenAI-compatible "
            "APIs (vLLM, SGLang, OpenAI)."
        ),
    )
    parser.add_argument("--version", action="version", version=f"thinkeval {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    args = list(sys.argv[1:] if argv is None else argv)
    chosen = next((a for a in args if not a.startswith("-")), None)
    _add_run(sub)
    _add_demo(sub)
    for name in MODULE_COMMANDS:
        _add_module_command(sub, name, full=name == chosen)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except ThinkevalError as exc:
        _console().print(f"[red]error:[/] {escape(str(exc))}", soft_wrap=True)
        return exc.exit_code
    except KeyboardInterrupt:
        _console().print("interrupted")
        return 130


if __name__ == "__main__":
    sys.exit(main())

