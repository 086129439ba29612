"""The `run` command line a detached process executes (`thinkeval run ... --detach`)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from thinkeval.config import RunConfig
from thinkeval.errors import ConfigError
from thinkeval.store.shard import Shard


def run_argv(
    args: argparse.Namespace, run_dir: Path, config: RunConfig, shard: Shard | None
) -> list[str]:
    """The `run` command line a detached process executes, from the parsed `run` arguments.

    Paths are made absolute so the detached process does not depend on the directory it was
    started from; `--output` is always given, so it writes exactly the run directory checked
    here. A run from flags passes the model id and run name it resolved, so the detached process
    runs the very same config; `--shard auto` is passed as the shard it found.
    """
    argv = ["run"]
    if args.config is not None:
        argv.append(str(Path(args.config).resolve()))
    argv += ["--output", str(Path(run_dir).resolve())]
    if args.config is None:
        argv += _flags_argv(args, config)
    else:
        for flag, values in (("--model", args.model), ("--tasks", args.tasks)):
            if values:
                argv += [flag, ",".join(values)]
    if args.data_dir:
        argv += ["--data-dir", os.path.abspath(args.data_dir)]
    if shard is not None:
        argv += ["--shard", f"{shard.index}/{shard.count}"]
    for flag, name in (
        ("--allow-model-mismatch", "allow_model_mismatch"),
        ("--allow-mixed-fleet", "allow_mixed_fleet"),
        ("--keep-recorded-samples", "keep_recorded_samples"),
        ("--unsafe-local-exec", "unsafe_local_exec"),
    ):
        if getattr(args, name, False):
            argv.append(flag)
    return argv


def _flags_argv(args: argparse.Namespace, config: RunConfig) -> list[str]:
    from urllib.parse import urlsplit

    model = config.models[0]
    if args.base_url and urlsplit(args.base_url).password:
        raise ConfigError(
            "--detach would write the password in --base-url to run.pid and run.log; keep the "
            "URL without credentials and put the key in an environment variable (--api-key-env)"
        )
    argv = ["--model", model.served_model, "--name", config.run]
    for flag, value in (
        ("--base-url", args.base_url),
        ("--limit", args.limit),
        ("--budgets", args.budgets),
        ("--concurrency", args.concurrency),
        ("--api-key-env", args.api_key_env),
        ("--retry", args.retry),
    ):
        if value is not None:
            argv += [flag, str(value)]
    if args.tasks:
        argv += ["--tasks", ",".join(args.tasks)]
    for setting in args.gen or ():
        argv += ["--gen", setting]
    return argv
