"""`thinkeval run CONFIG` or `thinkeval run --base-url URL ...`: argument parsing and the
end-of-run lines. The arguments become a `RunRequest`, resolved by the one front door that
`thinkeval.evaluate()` uses too (`ops/run_request.py`); the protocol runs in `run/runner.py`."""

from __future__ import annotations

import argparse
import asyncio
import gc
import textwrap
from dataclasses import replace
from typing import TYPE_CHECKING

from rich.console import Console

from thinkeval.errors import ConfigError
from thinkeval.version import __version__

if TYPE_CHECKING:
    from thinkeval.config import RunConfig
    from thinkeval.ops.run_request import RunRequest

EXIT_OK = 0
EXIT_ERRORS_LEFT = 1  # the run finished but some requests failed: run again to retry them
DESCRIPTION = textwrap.dedent(
    """\
    Run the strict two-phase protocol: every sample once at its task's first budget; samples
    whose reply was empty or cut off by the token limit once more at the second budget. Every
    finished attempt is journalled; running the same command again resumes.

    Describe the run with flags (one server, lm-eval style) or with a config file (several
    models, per-task settings: docs/configuration.md). Either way the resolved config is
    written to RUN_DIR/run.yaml, and `thinkeval run RUN_DIR/run.yaml` resumes that run. The
    models of a config run at the same time, each against its own servers; a model whose
    server fails (serves another model, or does not answer for unreachable_after_s) stops
    alone and the others go on."""
)
EPILOG = """\
examples:
  thinkeval run --base-url http://127.0.0.1:8000/v1 --tasks gsm8k --limit 20
  thinkeval run --base-url http://gpu-1:8000/v1 --model Qwen/Qwen3-8B --tasks gsm8k,boolq \\
      --budgets 2048,8192 --concurrency 64 --gen temperature=0.6 \\
      --gen chat_template_kwargs.enable_thinking=true
  thinkeval run --base-url http://127.0.0.1:8000/v1 --tasks aime25 --retry continue
  OPENAI_BASE_URL=https://api.example.com/v1 OPENAI_API_KEY=... thinkeval run --tasks ceval
  thinkeval run examples/compare.yaml              # runs/<run>/, resumes if it exists
  thinkeval run examples/compare.yaml --model qwen3-8b --tasks gsm8k,ceval
  thinkeval run runs/qwen3-compare/run.yaml        # resume (or reproduce) a run
  thinkeval run examples/compare.yaml --detach     # in the background; see `thinkeval status`
  thinkeval run examples/compare.yaml --shard auto # one task of a Slurm array / Indexed Job

A config with baseline: and decide: asks the baseline and its candidates in lockstep and stops
each task once the comparison at the margin is decided (docs/comparing.md, "decide:").

server and key: --base-url, else $OPENAI_BASE_URL; the key from --api-key-env VAR, else
$OPENAI_API_KEY when set (the key is never written anywhere, only the variable's name).

exit status: 0 all recorded; 1 finished but some requests failed (run again to retry
only those); 2 bad input (config, dataset, server) or a model whose server failed (the
others finished; run again to resume); 130 stopped (run again to resume)."""


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the run command's arguments to `parser`."""
    parser.add_argument(
        "config",
        nargs="?",
        help="YAML run config (docs/configuration.md) or a run directory's run.yaml; "
        "leave out to run from flags",
    )
    chosen = parser.add_argument_group("what to run (with a config: a selection of it)")
    chosen.add_argument(
        "--tasks",
        "--task",
        dest="tasks",
        action="append",
        metavar="A,B",
        help="tasks, comma-separated or repeated (default: ceval, boolq, gsm8k); with a "
        "config, run only these of its tasks",
    )
    chosen.add_argument(
        "--model",
        action="append",
        metavar="ID",
        help="the model id to ask (default: the only one the server lists); with a config, "
        "run only these of its models (comma-separated or repeated)",
    )
    flags = parser.add_argument_group("a run from flags (instead of a config file)")
    flags.add_argument(
        "--base-url",
        metavar="URL",
        help="the server, e.g. http://127.0.0.1:8000/v1 (default: $OPENAI_BASE_URL)",
    )
    flags.add_argument("--limit", type=_positive, metavar="N", help="first N samples per task")
    flags.add_argument(
        "--budgets", metavar="B1,B2", help="fixed and retry token budgets (default: 2048,8192)"
    )
    flags.add_argument(
        "--concurrency", type=_positive, metavar="N", help="requests in flight (default: 64)"
    )
    flags.add_argument(
        "--gen",
        action="append",
        metavar="KEY=VALUE",
        help="a generation setting sent with each request, the value read as YAML; dotted "
        "keys nest (--gen chat_template_kwargs.enable_thinking=true); repeatable",
    )
    flags.add_argument(
        "--retry",
        choices=("reask", "continue"),
        help="how cut-off replies are retried at the second budget: asked again (reask, the "
        "default) or continued from their token ids (continue: vLLM 0.10.2+, refused before "
        "the first request where the server returns no token ids; docs/protocol.md)",
    )
    flags.add_argument(
        "--api-key-env",
        metavar="VAR",
        help="environment variable holding the API key (default: OPENAI_API_KEY when set)",
    )
    flags.add_argument(
        "--name",
        metavar="RUN",
        help="run name (default: <model>-<tasks>-<hash of the settings>, so the same "
        "command resumes)",
    )
    common = parser.add_argument_group("either way")
    common.add_argument("--output", metavar="DIR", help="run directory (default: runs/<run>)")
    common.add_argument(
        "--data-dir",
        metavar="DIR",
        help="local datasets (default: $THINKEVAL_DATA_DIR, else the Hugging Face hub)",
    )
    common.add_argument(
        "--shard",
        metavar="I/N|auto",
        help="run only shard I of N (stable split by sample id); `auto` reads a Slurm job "
        "array or a Kubernetes Indexed Job; shards write their own journal",
    )
    common.add_argument(
        "--allow-model-mismatch",
        action="store_true",
        help="run even if /v1/models does not list the configured model id",
    )
    common.add_argument(
        "--allow-mixed-fleet",
        action="store_true",
        help="run a model whose replicas (base_url list) differ in model, version, window or "
        "reasoning parser, flagging it, instead of refusing (docs/operations.md)",
    )
    common.add_argument(
        "--keep-recorded-samples",
        action="store_true",
        help="resume with the prompts recorded when the run started, even if the data or "
        "thinkeval's prompts changed since",
    )
    common.add_argument(
        "--unsafe-local-exec",
        action="store_true",
        help="run code replies as plain child processes with resource limits only, where "
        "bubblewrap is missing: no other isolation (docs/code.md)",
    )
    common.add_argument(
        "--detach",
        action="store_true",
        help="run in the background, detached from this terminal; log in RUN_DIR/run.log",
    )


def _console() -> Console:
    return Console(stderr=True, highlight=False)


def run(args: argparse.Namespace) -> int:
    """`thinkeval run [CONFIG] [...]`: exit status as in EPILOG."""
    from thinkeval.execution.grading import allow_unsafe_exec
    from thinkeval.ops.evaluate import ModelsFailed, evaluate
    from thinkeval.ops.run_request import detached_argv, resolve
    from thinkeval.ui.progress import RunProgress
    from thinkeval.ui.tables import results_table, show_summary, stdout_console

    # The modules just imported live as long as the process: freezing them keeps the cyclic
    # collector from walking them again during the run and at exit (about 0.15 s at exit).
    gc.freeze()
    request = run_request(args)
    if request.unsafe_local_exec:
        allow_unsafe_exec()
    resolved = asyncio.run(resolve(request))
    config, run_dir, options, shard_origin = resolved
    options = replace(options, stop_on_signals=True)  # the command line's own: Ctrl-C, stop
    if args.detach:
        from thinkeval.ops.background import detach

        return detach(detached_argv(request, resolved), run_dir)
    shard = options.shard
    console = _console()
    console.print(f"thinkeval {__version__}: run [bold]{config.run}[/] → {run_dir}")
    if shard is not None:
        console.print(f"shard {shard.index}/{shard.count} ({shard_origin})")
    _warn_typos(config, console)
    try:
        summary = asyncio.run(evaluate(config, run_dir, options, RunProgress(console)))
    except ModelsFailed as exc:  # the others finished: show their numbers, then the failure
        if exc.summary is not None:  # None: nothing was asked, and no directory is left
            stdout_console().print(results_table(exc.summary))
        raise
    show_summary(summary)
    errors = sum(r.fixed.error + r.retry.error for r in summary.results)
    console.print(f"summary: {run_dir / 'summary.json'}")
    if config.decide is not None:
        # Pending questions of a decided task were never dealt: running again asks nothing.
        console.print(
            f"decide: questions not dealt stay pending; the verdicts: thinkeval compare {run_dir}"
        )
    if any(r.fixed.refused or r.retry.refused for r in summary.results):
        from thinkeval.run.refused import refusal_lines

        # Refused for good (prompt over the window, a bad parameter): outcomes, not failures.
        for line in refusal_lines(run_dir):
            console.print(f"[yellow]refused, not asked again:[/] {line}")
    from thinkeval.results.reasoning_check import budget_lines

    for line in budget_lines(summary.results):  # reasoning controls: did the server keep to them?
        console.print(line, markup=False)
    if errors:
        console.print(
            f"[yellow]{errors} request(s) failed after retries and are counted as errors; "
            "run the same command again to retry only those.[/]"
        )
        return EXIT_ERRORS_LEFT
    return EXIT_OK


def _warn_typos(config: RunConfig, console: Console) -> None:
    """Say which generation keys look like a misspelt field: sent as written, they would leave
    the setting meant at the server's default."""
    from thinkeval.generation import typos

    layers = [(f"models[{i}]", m.generation_settings) for i, m in enumerate(config.models)]
    layers += [(f"tasks[{i}]", t.generation_settings) for i, t in enumerate(config.tasks)]
    for where, settings in layers:
        for key, field in typos(settings):
            console.print(
                f"[yellow]warning:[/] {where}.generation.{key} is sent as written, as a setting "
                f"of the server's own; did you mean {field}?"
            )


def run_request(args: argparse.Namespace) -> RunRequest:
    """The run the arguments ask for: a config file (`--model`/`--tasks` then narrow it), or
    flags that describe one."""
    from thinkeval.ops.run_request import CLI_SPELLING, RunRequest
    from thinkeval.run.from_flags import RunFlags, parse_generation
    from thinkeval.run.selection import split_list
    from thinkeval.settings import parse_budgets

    models = split_list(args.model, "--model")
    tasks = split_list(args.tasks, "--tasks")
    from_config = args.config is not None
    if not from_config and len(models) > 1:
        raise ConfigError(
            "a run from flags asks one model; for several, write a config file "
            "(docs/configuration.md) or run once per model"
        )
    flags = RunFlags(
        base_url=args.base_url,
        model=None if from_config or not models else models[0],
        tasks=() if from_config else tasks,
        limit=args.limit,
        budgets=parse_budgets(args.budgets) if args.budgets else None,
        concurrency=args.concurrency,
        generation=parse_generation(args.gen or ()),
        api_key_env=args.api_key_env,
        name=args.name,
        data_dir=args.data_dir,
        retry=args.retry,
    )
    return RunRequest(
        config=args.config,
        flags=flags,
        output=args.output,
        shard=args.shard,
        only_models=models if from_config else (),
        only_tasks=tasks if from_config else (),
        allow_model_mismatch=args.allow_model_mismatch,
        allow_mixed_fleet=args.allow_mixed_fleet,
        keep_recorded_samples=args.keep_recorded_samples,
        unsafe_local_exec=args.unsafe_local_exec,
        spelling=CLI_SPELLING,
    )
