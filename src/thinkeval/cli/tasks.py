"""`thinkeval tasks [show NAME --sample N]`: argument parsing (logic in `ops/tasks`)."""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path

DESCRIPTION = textwrap.dedent(
    """\
    List the tasks thinkeval knows (name, suite, samples where the data is local, answer kind,
    default budgets and repeats), or show one sample of a task exactly as a run sends it: every
    chat message and the gold answer. Tasks of your own come from --config or --task-file
    (see docs/tasks.md)."""
)
EPILOG = textwrap.dedent(
    """\
    examples:
      thinkeval tasks
      thinkeval tasks show aime25 --sample 3
      thinkeval tasks show my-quiz.yaml --sample 0
      thinkeval tasks --config examples/compare.yaml"""
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add `thinkeval tasks`'s options to `parser`."""
    parser.add_argument(
        "action", nargs="?", choices=("list", "show"), default="list",
        help="list the tasks (default), or show one sample of a task",
    )  # fmt: skip
    parser.add_argument("name", nargs="?", help="show: a task name, or a task file's path")
    parser.add_argument(
        "--sample", type=int, default=0, metavar="N",
        help="show: the sample's position in the dataset, from 0 (default 0)",
    )  # fmt: skip
    parser.add_argument("--config", type=Path, metavar="FILE", help="a run config to read")
    parser.add_argument(
        "--task-file", type=Path, action="append", default=[], metavar="FILE",
        help="a task file to read (repeatable)",
    )  # fmt: skip
    parser.add_argument("--data-dir", metavar="DIR", help="datasets folder (default: auto)")
    parser.add_argument("--json", action="store_true", help="show: print the sample as JSON")


def run(args: argparse.Namespace) -> int:
    """List the tasks, or show one sample; 0 on success."""
    from thinkeval.errors import ThinkevalError
    from thinkeval.ops.tasks import list_tasks, show_sample
    from thinkeval.ui.tables import stdout_console
    from thinkeval.ui.tasks import render_sample, render_tasks, sample_json

    if args.action == "list":
        if args.name is not None:
            raise ThinkevalError(f"unexpected {args.name!r}; to show a sample: tasks show NAME")
        render_tasks(list_tasks(args.data_dir, args.config, args.task_file), stdout_console())
        return 0
    if args.name is None:
        raise ThinkevalError("tasks show: name the task (or a task file), e.g. tasks show aime25")
    shown = show_sample(args.name, args.sample, args.data_dir, args.config, args.task_file)
    if args.json:
        print(sample_json(shown))
    else:
        render_sample(shown, stdout_console())
    return 0
