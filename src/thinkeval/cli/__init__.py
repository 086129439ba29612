"""The `thinkeval` command line."""

from __future__ import annotations

import argparse
import os
import re
import sys
import traceback
from collections.abc import Sequence
from typing import NoReturn

from rich.console import Console
from rich.markup import escape

from thinkeval.errors import ThinkevalError
from thinkeval.version import __version__

__all__ = ["MODULE_COMMANDS", "build_parser", "main"]


def _console() -> Console:
    return Console(stderr=True, highlight=False)


DEBUG_ENV = "THINKEVAL_DEBUG"
# A value that looks like a negative number list (`--budgets -1,100`): argparse would take it
# for an option and say only "expected one argument".
_NEGATIVE = re.compile(r"^-[0-9.]")


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage mistake on one line (naming the flag) instead of a usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {self.prog}: {message} (see {self.prog} --help)\n")


def _debug_requested(args: list[str]) -> tuple[list[str], bool]:
    """`args` without `--debug`, and whether tracebacks were asked for (flag or env var)."""
    debug = "--debug" in args or os.environ.get(DEBUG_ENV, "") not in ("", "0")
    return [arg for arg in args if arg != "--debug"], debug


def _print_traceback(exc: BaseException) -> None:
    """The traceback with every cause, even one a `raise ... from None` hid from users."""
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        link.__suppress_context__ = False
        link = link.__cause__ or link.__context__
    traceback.print_exception(exc)


def _join_negative_values(args: list[str]) -> list[str]:
    """`--budgets -1,100` -> `--budgets=-1,100`, so the flag's own check reports the value."""
    joined: list[str] = []
    for arg in args:
        previous = joined[-1] if joined else ""
        if _NEGATIVE.match(arg) and previous.startswith("--") and "=" not in previous:
            joined[-1] = f"{previous}={arg}"
        else:
            joined.append(arg)
    return joined


# Subcommands implemented in a module of their own: (module, one-line help). The module, which
# provides DESCRIPTION, EPILOG, add_arguments and run, is imported only when its command is
# chosen, so `thinkeval run` does not pay for numpy (reports) or the simulator.
MODULE_COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("cli.run", "evaluate a model: from flags (--base-url, --tasks) or a config file"),
    "demo": ("cli.demo", "run the full protocol on the real datasets against two simulated models"),
    "check": (
        "cli.check",
        "check a server before a run: model served, thinking on, reasoning field",
    ),
    "sim": ("sim.cli", "start a vLLM-faithful simulated server on 127.0.0.1 (tests, the demo)"),
    "report": ("cli.report", "write the report of one or more runs: Markdown, HTML or JSON"),
    "view": ("cli.view", "serve the report of one or more runs on 127.0.0.1, with every sample"),
    "status": ("cli.status", "show where a run stands: progress per model/task/phase, rate, ETA"),
    "stop": ("cli.stop", "stop a background run gracefully (nothing partial is recorded)"),
    "verify": ("cli.verify", "check that a run is complete: every sample exactly once per phase"),
    "import-aisbench": (
        "cli.import_aisbench",
        "import an AISBench output folder as a run's fixed phase",
    ),
    "rescore": (
        "cli.rescore",
        "score a run's replies again with the current scorers; show what changed",
    ),
    "schema": ("cli.schema", "print the JSON Schema of a journal line, summary.json or the config"),
    "judge": (
        "cli.judge",
        "ask a judge model for each finished reply's final answer; compare with strict",
    ),
    "tasks": ("cli.tasks", "list the tasks, or show exactly what one sample of a task sends"),
    "compare": ("cli.compare", "is the candidate as good as the baseline? decisions at a margin"),
    "plan": ("cli.plan", "how many questions or repeats a comparison needs at a margin"),
    "export": ("cli.export", "write a run's results in the Every Eval Ever formats"),
    "sweep": ("cli.sweep", "a settings study: one model as variants over a grid, side by side"),
}


def _add_module_command(sub: argparse._SubParsersAction[_Parser], name: str, full: bool) -> None:
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
    parser = _Parser(
        prog="thinkeval",
        description=(
            "Strict fixed-then-adaptive evaluation of thinking models behind OpenAI-compatible "
            "APIs (vLLM, SGLang, OpenAI)."
        ),
    )
    parser.add_argument("--version", action="version", version=f"thinkeval {__version__}")
    parser.add_argument(
        "--debug", action="store_true",
        help=f"on an error, print the traceback with its causes (also {DEBUG_ENV}=1); "
        "accepted anywhere on the command line",
    )  # fmt: skip
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    args = list(sys.argv[1:] if argv is None else argv)
    chosen = next((a for a in args if not a.startswith("-")), None)
    for name in MODULE_COMMANDS:
        _add_module_command(sub, name, full=name == chosen)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; a user's mistake is one line (a traceback only with --debug or
    THINKEVAL_DEBUG=1), its exit status the command's."""
    given, debug = _debug_requested(list(sys.argv[1:] if argv is None else argv))
    given = _join_negative_values(given)
    parser = build_parser(given)
    args = parser.parse_args(given)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except ThinkevalError as exc:
        if debug:
            _print_traceback(exc)
        _console().print(f"[red]error:[/] {escape(str(exc))}", soft_wrap=True)
        return exc.exit_code
    except KeyboardInterrupt:
        _console().print("interrupted")
        return 130
    except OSError as exc:
        # The environment (permissions, a full disk, a missing file): the user's to fix.
        if debug:
            _print_traceback(exc)
        where = f"{exc.filename}: " if exc.filename else ""
        said = escape(where + (exc.strerror or str(exc)))
        _console().print(f"[red]error:[/] {said}", soft_wrap=True)
        return 2
    except Exception as exc:  # a bug: one line, the traceback on request
        if debug:
            raise
        _console().print(
            f"[red]internal error:[/] {escape(f'{type(exc).__name__}: {exc}')}; run again "
            f"with --debug (or {DEBUG_ENV}=1) for the traceback, and please report it",
            soft_wrap=True,
        )
        return 3


if __name__ == "__main__":
    sys.exit(main())
