"""`thinkeval judge RUN_DIR`: argument parsing (logic in `ops/judge.py`)."""

from __future__ import annotations

import argparse
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from thinkeval.ops.judge import JudgeRun

DESCRIPTION = textwrap.dedent(
    """\
    Ask a judge model behind an OpenAI-compatible endpoint for the final answer of every
    finished reply of a run (strict JSON, versioned prompt), store its verdicts in
    RUN_DIR/verdicts/judge.jsonl under the scorer name `judge`, and print how often strict
    scoring and the judge agree per model and task. The journal and the strict numbers are never
    changed. Running it again asks only what is missing (and what failed)."""
)
EPILOG = textwrap.dedent(
    """\
    example:
      thinkeval judge runs/qwen3-compare --base-url http://127.0.0.1:8010/v1 \\
          --model qwen3-32b --api-key-env JUDGE_API_KEY

    The summary (thinkeval report) then shows the judge's accuracy beside strict and lenient.
    details: docs/scoring.md#judge-verdicts"""
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add `thinkeval judge`'s options to `parser`."""
    parser.add_argument("run_dir", metavar="RUN_DIR", type=Path, help="the run to judge")
    parser.add_argument(
        "--base-url", required=True, metavar="URL", help="the judge's API, e.g. http://h:8010/v1"
    )
    parser.add_argument("--model", required=True, metavar="ID", help="the judge's model id")
    parser.add_argument(
        "--api-key-env",
        metavar="VAR",
        help="environment variable holding the judge's API key (never stored)",
    )
    parser.add_argument(
        "--concurrency", type=int, default=16, metavar="N", help="requests in flight (16)"
    )
    parser.add_argument(
        "--max-tokens",
        type=int,
        default=2048,
        metavar="N",
        help="the judge's max_tokens; raise it for a thinking judge (2048)",
    )
    parser.add_argument(
        "--timeout-s", type=float, default=600.0, metavar="S", help="per request (600)"
    )
    parser.add_argument(
        "--max-retries",
        type=int,
        default=10,
        metavar="N",
        help="retries of a failed request before it is recorded as failed (10)",
    )
    parser.add_argument(
        "--unreachable-after-s", type=float, default=60.0, metavar="S",
        help="stop when the judge server has not answered for this long; the verdicts "
        "received stay recorded (60)",
    )  # fmt: skip
    parser.add_argument(
        "--show", type=int, default=10, metavar="N", help="disagreeing samples listed per task"
    )


def _progress_printer(every_s: float = 5.0) -> Callable[[JudgeRun], None]:
    """A line on stderr at most every `every_s` while verdicts arrive, as `run` shows progress."""
    from rich.console import Console

    console = Console(stderr=True, highlight=False)
    last = [time.monotonic()]

    def show(found: JudgeRun) -> None:
        now = time.monotonic()
        if now - last[0] >= every_s:
            last[0] = now
            console.print(
                f"judge: {found.asked} asked ({found.recorded} recorded, {found.failed} "
                f"failed), {found.already} judged before",
                soft_wrap=True,
            )

    return show


def run(args: argparse.Namespace) -> int:
    """Judge, then print the agreement table; 0 when every finished reply has a verdict."""
    from thinkeval.ops.judge import judge_model_config, judge_run
    from thinkeval.ui.judge import render_judge
    from thinkeval.ui.tables import stdout_console

    config = judge_model_config(
        args.base_url,
        args.model,
        args.api_key_env,
        args.concurrency,
        args.timeout_s,
        args.max_retries,
        args.unreachable_after_s,
    )
    found = judge_run(args.run_dir, config, args.max_tokens, _progress_printer())
    if found.asked or found.already:
        from thinkeval.results.summary import write_summary

        write_summary(args.run_dir)
    render_judge(found, stdout_console(), args.show)
    return 1 if found.failed else 0
