"""`thinkeval import-aisbench DIR`: argument parsing (logic in `ops/aisbench`)."""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path

from thinkeval.cli.arguments import budgets_type

DESCRIPTION = textwrap.dedent(
    """\
    Read AISBench's predictions (outputs/default/<timestamp>/predictions/<model>/*.json[l])
    into a thinkeval run directory as fixed-phase attempts at B1, judged from the text (AISBench
    keeps no finish_reason). A thinking model's prediction without </think> is its reasoning
    alone: the content was empty. Then `thinkeval run` on the written config asks only the
    samples whose reply was empty or unfinished once more at B2, plus any failed requests."""
)
EPILOG = textwrap.dedent(
    """\
    example:
      thinkeval import-aisbench outputs/default/20250628_151326 --output runs/qwen3-aisbench \\
          --budgets 2048,8192 --base-url http://127.0.0.1:8006/v1
      thinkeval run runs/qwen3-aisbench/aisbench-import.yaml --output runs/qwen3-aisbench

    details: docs/aisbench-import.md"""
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add `thinkeval import-aisbench`'s options to `parser`."""
    parser.add_argument(
        "source",
        metavar="DIR",
        type=Path,
        help="AISBench output folder, e.g. outputs/default/20250628_151326",
    )
    parser.add_argument(
        "--output", metavar="RUN_DIR", type=Path, help="run directory (default: runs/<run>)"
    )
    parser.add_argument("--run", metavar="NAME", help="run name (default: aisbench-<folder>)")
    parser.add_argument(
        "--budgets",
        type=budgets_type,
        default=(2048, 8192),
        metavar="B1,B2",
        help="B1 must be AISBench's max_out_len; B2 is the retry budget (default: 2048,8192)",
    )
    parser.add_argument("--data-dir", metavar="DIR", help="datasets folder (default: auto)")
    parser.add_argument(
        "--base-url",
        metavar="URL",
        help="the live server for the adaptive phase (default: from the AISBench config dump)",
    )
    parser.add_argument(
        "--model",
        metavar="ABBR",
        help="which predictions/<ABBR>/ to import when there are several; also the model name",
    )
    parser.add_argument(
        "--served-model",
        metavar="ID",
        help="the model id the server serves (default: the config dump's model, else ABBR)",
    )

    parser.add_argument(
        "--thinking",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="whether the model thinks: a prediction without </think> is then its reasoning "
        "alone (empty content), else its content (default: the config dump's "
        "chat_template_kwargs.enable_thinking, else thinking when any prediction holds "
        "</think>, else refuse to guess)",
    )


def run(args: argparse.Namespace) -> int:
    """Import, print what was imported and the next command; 0 on success."""
    from thinkeval.ops.aisbench import import_aisbench
    from thinkeval.ui.import_aisbench import render_import
    from thinkeval.ui.tables import stdout_console

    result = import_aisbench(
        args.source,
        output=args.output,
        run=args.run,
        budgets=args.budgets,
        data_dir=args.data_dir,
        base_url=args.base_url,
        model=args.model,
        served_model=args.served_model,
        thinking=args.thinking,
    )
    render_import(result, stdout_console())
    return 0
