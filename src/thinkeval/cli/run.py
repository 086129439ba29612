"""`thinkeval run CONFIG` or `thinkeval run --base-url URL ...`: argument parsing and the
end-of-run lines (logic in `run/runner.py`, flags turned into a config in `run/from_flags.py`)."""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import textwrap
from pathlib import Path

from rich.console import Console

from thinkeval.config import RunConfig
from thinkeval.errors import ConfigError, ThinkevalError
from thinkeval.store.shard import Shard
from thinkeval.version import __version__

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

server and key: --base-url, else $OPENAI_BASE_URL; the key from --api-key-env VAR, else
$OPENAI_API_KEY when set (the key is never written anywhere, only the variable's name).

exit status: 0 all recorded; 1 finished but some requests failed (run again to retry
only those); 2 bad input (config, dataset, server) or a model whose server failed (the
others finished; run again to resume); 130 stopped (run again to resume)."""

# Flags that describe a run on their own; with a config file, its keys say the same.
FLAGS_ONLY = {
    "base_url": "--base-url",
    "limit": "--limit",
    "budgets": "--budgets",
    "concurrency": "--concurrency",
    "gen": "--gen",
    "api_key_env": "--api-key-env",
    "name": "--name",
    "retry": "--retry",
}


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
    from thinkeval.run.cleanup import discard_unstarted, missing_dirs
    from thinkeval.run.runner import RunOptions
    from thinkeval.run.selection import split_list
    from thinkeval.ui.progress import RunProgress
    from thinkeval.ui.replicas import replicas_table
    from thinkeval.ui.tables import repeats_table, results_table, stdout_console

    # The modules just imported live as long as the process: freezing them keeps the cyclic
    # collector from walking them again during the run and at exit (about 0.15 s at exit).
    gc.freeze()
    if args.unsafe_local_exec:
        allow_unsafe_exec()
    shard, shard_origin = _shard(args.shard)
    config, run_dir = resolve_run(args)
    if args.detach:
        from thinkeval.cli.run_argv import run_argv
        from thinkeval.ops.background import detach

        return detach(run_argv(args, run_dir, config, shard), run_dir)
    from_config = args.config is not None
    options = RunOptions(
        only_models=split_list(args.model, "--model") if from_config else (),
        only_tasks=split_list(args.tasks, "--tasks") if from_config else (),
        shard=shard,
        allow_model_mismatch=args.allow_model_mismatch,
        allow_mixed_fleet=args.allow_mixed_fleet,
        keep_recorded_samples=args.keep_recorded_samples,
    )
    console = _console()
    console.print(f"thinkeval {__version__}: run [bold]{config.run}[/] → {run_dir}")
    if shard is not None:
        console.print(f"shard {shard.index}/{shard.count} ({shard_origin})")
    existed = missing_dirs(run_dir)
    try:
        summary = asyncio.run(evaluate(config, run_dir, options, RunProgress(console)))
    except ModelsFailed as exc:  # the others finished: show their numbers, then the failure
        if discard_unstarted(run_dir, existed):
            raise  # nothing was asked: no table of pending samples, no directory to resume
        if exc.summary is not None:
            stdout_console().print(results_table(exc.summary))
        raise
    except ThinkevalError:
        discard_unstarted(run_dir, existed)
        raise
    stdout_console().print(results_table(summary))
    for table in (repeats_table(summary), replicas_table(summary)):
        if table is not None:
            stdout_console().print(table)
    errors = sum(r.fixed.error + r.retry.error for r in summary.results)
    console.print(f"summary: {run_dir / 'summary.json'}")
    if any(r.fixed.refused or r.retry.refused for r in summary.results):
        from thinkeval.run.refused import refusal_lines

        # Refused for good (prompt over the window, a bad parameter): outcomes, not failures.
        for line in refusal_lines(run_dir):
            console.print(f"[yellow]refused, not asked again:[/] {line}")
    from thinkeval.results.reasoning import budget_lines

    for line in budget_lines(summary.results):  # reasoning controls: did the server keep to them?
        console.print(line, markup=False)
    if errors:
        console.print(
            f"[yellow]{errors} request(s) failed after retries and are counted as errors; "
            "run the same command again to retry only those.[/]"
        )
        return EXIT_ERRORS_LEFT
    return EXIT_OK


def resolve_run(args: argparse.Namespace) -> tuple[RunConfig, Path]:
    """The config and run directory the arguments describe: a config file, or flags."""
    import msgspec

    from thinkeval.config import load_config
    from thinkeval.store.rundir import run_dir_for

    if args.config is None:
        config = _config_from_flags(args)
        return config, run_dir_for(config, args.output)
    given = [flag for name, flag in FLAGS_ONLY.items() if getattr(args, name, None)]
    if given:
        raise ConfigError(
            f"{', '.join(given)} describe a run from flags; with a config file ({args.config}) "
            "set them in the config (docs/configuration.md), or leave the config out"
        )
    config = load_config(args.config)
    if args.data_dir:
        config = msgspec.structs.replace(config, data_dir=os.path.abspath(args.data_dir))
    if args.output is not None:
        return config, Path(args.output)
    return config, _beside_run(Path(args.config), config) or run_dir_for(config, None)


def _beside_run(config_path: Path, config: RunConfig) -> Path | None:
    """The run directory a config file sits in (RUN_DIR/run.yaml), so it resumes that run."""
    from thinkeval.store.run_record import existing_record

    folder = config_path.parent
    try:
        record = existing_record(folder)
    except ThinkevalError:
        return None
    return folder if record is not None and record.run == config.run else None


def _config_from_flags(args: argparse.Namespace) -> RunConfig:
    from thinkeval.run.from_flags import (
        RunFlags,
        config_from_flags,
        parse_generation,
    )
    from thinkeval.run.identity import served_ids
    from thinkeval.run.selection import split_list
    from thinkeval.settings import parse_budgets

    models = split_list(args.model, "--model")
    if len(models) > 1:
        raise ConfigError(
            "a run from flags asks one model; for several, write a config file "
            "(docs/configuration.md) or run once per model"
        )
    flags = RunFlags(
        base_url=args.base_url,
        model=models[0] if models else None,
        tasks=split_list(args.tasks, "--tasks"),
        limit=args.limit,
        budgets=parse_budgets(args.budgets) if args.budgets else None,
        concurrency=args.concurrency,
        generation=parse_generation(args.gen or ()),
        api_key_env=args.api_key_env,
        name=args.name,
        data_dir=args.data_dir,
        retry=args.retry,
    )
    return asyncio.run(config_from_flags(flags, served_ids))


def _shard(text: str | None) -> tuple[Shard | None, str]:
    from thinkeval.store.shard import shard_from_environment

    if not text:
        return None, ""
    try:
        if text == "auto":
            return shard_from_environment(os.environ)
        return Shard.parse(text), "--shard"
    except ValueError as exc:
        raise ThinkevalError(str(exc)) from None
