"""`thinkeval check`: its options, and the glue from them to `ops.check` and `ui.check`."""

from __future__ import annotations

import argparse
import asyncio
import sys
import textwrap
from typing import TYPE_CHECKING

from thinkeval.cli.arguments import budgets_type
from thinkeval.client.profiles import api_names

if TYPE_CHECKING:
    from thinkeval.records import Sample

DESCRIPTION = textwrap.dedent(
    """\
    Read /v1/models and send one short thinking request (a GSM8K-style question with
    chat_template_kwargs.enable_thinking=true where the server takes it) at growing budgets:
    256, 1024, 4096, ... up to the largest of --budgets. Reports which API the server speaks
    (the `api:` line for the config, from the model card's owned_by or a field one flavour
    sends, or an OpenAI-style refusal of max_tokens), the served model, whether thinking is on
    and in which field the reasoning arrives (reasoning, reasoning_content, raw <think> in
    content, or none), the content field (null, "" or text), finish_reason, usage, latency and
    the smallest budget at which the probe finishes with a legal answer. HTTP_PROXY,
    HTTPS_PROXY, NO_PROXY and SSL_CERT_FILE are honoured as for a run.

    --audit instead checks, pass or fail, what a run trusts the server to do: the
    reasoning/content split of finished and cut replies, the reasoning field's name against the
    engine version, finish_reason length exactly at max_tokens and repetition passed through,
    temperature 0 greedy (and at --concurrency requests at once), top_k applied, the thinking
    budget and reasoning effort honoured (measured), and the context window the card states
    (about 14 requests plus --concurrency, at most --audit-max-tokens each; see
    docs/operations.md)."""
)
EPILOG = textwrap.dedent(
    """\
    example:
      thinkeval check --base-url http://127.0.0.1:8006/v1 --model qwen3-8b-w8a8
      thinkeval check --base-url https://api.openai.com/v1 --model o4-mini \\
          --api-key-env OPENAI_API_KEY --json

      thinkeval check --audit --base-url http://127.0.0.1:8000/v1 --concurrency 64 --json

    exit status: 0 all well (server reachable, expected model served, probe finished within
    the largest budget with a legal answer; with --audit: no check failed); 1 a problem, named
    on the last line; 2 bad input (a URL that is not http(s), an unset --api-key-env
    variable)."""
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add `thinkeval check`'s options to `parser`."""
    parser.add_argument(
        "--base-url",
        required=True,
        metavar="URL",
        help="server root, e.g. http://127.0.0.1:8000/v1",
    )
    parser.add_argument(
        "--model", metavar="ID", help="the model id expected in /v1/models (default: the only one)"
    )
    parser.add_argument(
        "--api",
        choices=api_names(),
        help="speak this server API instead of detecting it (the config's `api:` key)",
    )
    parser.add_argument(
        "--budgets",
        type=budgets_type,
        default=(2048, 8192),
        metavar="B1,B2",
        help="the run's budgets; probes go up to B2 (default: 2048,8192)",
    )
    parser.add_argument(
        "--api-key-env", metavar="VAR", help="environment variable holding the API key"
    )
    parser.add_argument(
        "--timeout-s",
        type=float,
        default=None,
        metavar="S",
        help="limit per request in seconds (default: one that fits each probe's budget, 20 s + "
        "max_tokens / 25: 30 s for the first probe of 256 tokens); while a request waits, a "
        "line every 10 s says on what",
    )
    parser.add_argument(
        "--tasks",
        metavar="NAMES",
        help="also measure these tasks' longest prompts and warn when prompt + B2 cannot fit "
        "the server's context window (one request of one token each)",
    )
    parser.add_argument(
        "--data-dir", metavar="DIR", help="where the --tasks datasets are (default: the hub)"
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON on stdout")
    parser.add_argument(
        "--audit",
        action="store_true",
        help="pass/fail audit of the server's thinking-model behaviour (one line per check)",
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        default=8,
        metavar="N",
        help="--audit: greedy requests sent at once for the determinism check; give the run's "
        "concurrency (default: 8, at most 64)",
    )
    parser.add_argument(
        "--audit-max-tokens",
        type=int,
        default=2048,
        metavar="M",
        help="--audit: max_tokens of the probes that must finish (default: 2048)",
    )
    parser.add_argument(
        "--skip",
        metavar="CHECKS",
        default="",
        help="--audit: checks to leave out, comma-separated (e.g. budget,effort when runs set "
        "neither)",
    )


def run(args: argparse.Namespace) -> int:
    """Run the check; 0 when all is well, 1 with the reason on the last line otherwise."""
    import msgspec
    from rich.console import Console
    from rich.markup import escape

    from thinkeval.config import read_api_key
    from thinkeval.ops.check import check_server
    from thinkeval.ui.check import print_verdict, render
    from thinkeval.ui.tables import stdout_console

    err = Console(stderr=True, highlight=False)
    api_key = None
    if args.api_key_env:
        api_key = read_api_key(args.api_key_env, f"--api-key-env {args.api_key_env}: the variable")
    if args.audit:
        return _audit(args, api_key)
    tasks = _longest_prompts(args.tasks, args.data_dir) if args.tasks else None
    report = asyncio.run(
        check_server(
            args.base_url,
            args.model,
            args.budgets,
            api_key,
            args.timeout_s,
            args.api,
            tasks,
            say=lambda line: err.print(escape(line), soft_wrap=True),
        )
    )
    if args.json:
        text = msgspec.json.format(msgspec.json.encode(report), indent=2).decode()
        sys.stdout.write(text + "\n")
        if not report.ok:
            print_verdict(report, err, err)
    else:
        render(report, stdout_console())
        print_verdict(report, Console(highlight=False), err)
    return 0 if report.ok else 1


def _audit(args: argparse.Namespace, api_key: str | None) -> int:
    """`--audit`: the checks on stdout (or JSON), progress on stderr; 0 when none failed."""
    import msgspec
    from rich.console import Console

    from thinkeval.errors import ConfigError
    from thinkeval.ops.audit import CHECKS, audit_server
    from thinkeval.ui.audit import render_audit
    from thinkeval.ui.tables import stdout_console

    skip = {name.strip() for name in args.skip.split(",") if name.strip()}
    unknown = sorted(skip - set(CHECKS))
    if unknown:
        raise ConfigError(
            f"--skip {','.join(unknown)}: no such check; the checks: {', '.join(CHECKS)}"
        )
    if args.audit_max_tokens < 1 or args.concurrency < 1:
        raise ConfigError("--audit-max-tokens and --concurrency must be at least 1")
    err = Console(stderr=True, highlight=False)
    report = asyncio.run(
        audit_server(
            args.base_url,
            args.model,
            api_key=api_key,
            api=args.api,
            concurrency=args.concurrency,
            max_tokens=args.audit_max_tokens,
            timeout_s=args.timeout_s,
            skip=skip,
            say=lambda line: err.print(f"[dim]audit: {line}[/]", soft_wrap=True),
        )
    )
    if args.json:
        text = msgspec.json.format(msgspec.json.encode(report), indent=2).decode()
        sys.stdout.write(text + "\n")
        if report.reason is not None:
            err.print(f"check failed: {report.reason}", soft_wrap=True, markup=False)
    else:
        render_audit(report, stdout_console(), err)
    return 0 if report.ok else 1


def _longest_prompts(names: str, data_dir: str | None) -> dict[str, Sample]:
    """Each task's longest prompt (`--tasks`)."""
    from pathlib import Path

    from thinkeval.ops.server_window import longest
    from thinkeval.run.selection import split_list
    from thinkeval.tasks import iter_samples, resolve_data_dir

    folder = resolve_data_dir(Path(data_dir) if data_dir else None)
    found = {}
    for name in split_list([names]):
        sample = longest(iter_samples(name, folder))
        if sample is not None:
            found[name] = sample
    return found
