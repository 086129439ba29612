"""One front door to a run: what a user asked, resolved once into what the executor runs.

`thinkeval run` (its flags), `thinkeval.evaluate()` (its keywords) and a detached run (the command
line `--detach` writes for its background process) all describe a run as a `RunRequest`: a config
(a file, a mapping, a `RunConfig`) or the flags that build one, the run directory, the shard and
the run's options. `resolve` turns it into the config, the run directory and the executor's
options; `detached_argv` writes it back as the `thinkeval run` command line that resolves to the
very same run. Nothing else decides where a run goes, which shard it is, or which settings
conflict, so the command line and the Python API cannot drift apart.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple
from urllib.parse import urlsplit

import msgspec
import yaml

from thinkeval.errors import ConfigError, ThinkevalError
from thinkeval.run.from_flags import RunFlags, config_from_flags
from thinkeval.run.identity import served_ids
from thinkeval.run.runner import RunOptions
from thinkeval.store.shard import Shard, shard_from_environment

if TYPE_CHECKING:
    from thinkeval.config import RunConfig

# The document end marker PyYAML writes after a lone scalar.
_END = "\n..."
# How `thinkeval run` spells each flag setting (RunFlags field -> flag); the Python API uses
# the field names themselves.
CLI_SPELLING: Mapping[str, str] = {
    "base_url": "--base-url",
    "model": "--model",
    "tasks": "--tasks",
    "limit": "--limit",
    "budgets": "--budgets",
    "concurrency": "--concurrency",
    "generation": "--gen",
    "api_key_env": "--api-key-env",
    "name": "--name",
    "retry": "--retry",
}


@dataclass(frozen=True)
class RunRequest:
    """A run as a user asks for it, before anything is read or resolved.

    `config` is a YAML file's path, a mapping in the YAML layout or a `RunConfig`; without it
    `flags` describe the run (a config and flags together are refused, `data_dir` aside).
    `shard` is `I/N`, `auto` (from Slurm's or Kubernetes' environment) or None. `only_models`
    and `only_tasks` narrow a config to some of its models and tasks. `spelling` names the flag
    settings as the user wrote them (`--base-url` on the command line), for error messages;
    `origin` says where flags came from in the resolved config's provenance."""

    config: RunConfig | Mapping[str, Any] | str | Path | None = None
    flags: RunFlags = field(default_factory=RunFlags)
    output: str | Path | None = None
    shard: str | None = None
    only_models: tuple[str, ...] = ()
    only_tasks: tuple[str, ...] = ()
    allow_model_mismatch: bool = False
    allow_mixed_fleet: bool = False
    keep_recorded_samples: bool = False
    unsafe_local_exec: bool = False
    spelling: Mapping[str, str] = field(default_factory=dict)
    origin: str = "command line"


class ResolvedRun(NamedTuple):
    """What a request resolves to: the config, where it runs, and the executor's options."""

    config: RunConfig
    run_dir: Path
    options: RunOptions
    shard_origin: str  # which scheduler or flag gave the shard ("" without one)


def shard_of(text: str | None, environ: Mapping[str, str]) -> tuple[Shard | None, str]:
    """The shard `I/N` or `auto` names, and where it came from."""
    if not text:
        return None, ""
    try:
        if text == "auto":
            return shard_from_environment(environ)
        return Shard.parse(text), "--shard"
    except ValueError as exc:
        raise ThinkevalError(str(exc)) from None


async def resolve(request: RunRequest, environ: Mapping[str, str] | None = None) -> ResolvedRun:
    """Resolve `request`: read its config (or build one from its flags, asking the server which
    model it serves), choose the run directory, and parse its shard."""
    environ = os.environ if environ is None else environ
    shard, shard_origin = shard_of(request.shard, environ)
    if request.config is None:
        config = await config_from_flags(request.flags, served_ids, source=request.origin)
        run_dir = _run_dir(config, request.output, None)
    else:
        config = _read_config(request)
        path = Path(request.config) if isinstance(request.config, str | Path) else None
        run_dir = _run_dir(config, request.output, path)
    options = RunOptions(
        only_models=request.only_models,
        only_tasks=request.only_tasks,
        shard=shard,
        allow_model_mismatch=request.allow_model_mismatch,
        allow_mixed_fleet=request.allow_mixed_fleet,
        keep_recorded_samples=request.keep_recorded_samples,
    )
    return ResolvedRun(config, run_dir, options, shard_origin)


def _read_config(request: RunRequest) -> RunConfig:
    from thinkeval.config import RunConfig, load_config, parse_config

    flags = request.flags
    given = [
        request.spelling.get(item.name, item.name)
        for item in fields(flags)
        if item.name != "data_dir" and getattr(flags, item.name) not in (None, (), {})
    ]
    if given:
        where = (
            f"a config file ({request.config})"
            if isinstance(request.config, str | Path)
            else "a config"
        )
        raise ConfigError(
            f"{', '.join(given)} describe a run from flags; with {where} set them in the "
            "config (docs/configuration.md), or leave the config out"
        )
    source = request.config
    if isinstance(source, RunConfig):
        config = source
    elif isinstance(source, Mapping):
        config = parse_config(dict(source), "config")
    else:
        assert source is not None
        config = load_config(source)
    if flags.data_dir:
        config = msgspec.structs.replace(config, data_dir=os.path.abspath(flags.data_dir))
    return config


def _run_dir(config: RunConfig, output: str | Path | None, config_path: Path | None) -> Path:
    from thinkeval.store.rundir import run_dir_for

    if output is not None:
        return Path(output)
    if config_path is not None:
        beside = _beside_run(config_path, config)
        if beside is not None:
            return beside
    return run_dir_for(config, None)


def _beside_run(config_path: Path, config: RunConfig) -> Path | None:
    """The run directory a config file sits in (RUN_DIR/run.yaml), so it resumes that run."""
    from thinkeval.store.run_record import existing_record

    folder = config_path.parent
    try:
        record = existing_record(folder)
    except ThinkevalError:
        return None
    return folder if record is not None and record.run == config.run else None


def detached_argv(request: RunRequest, resolved: ResolvedRun) -> list[str]:
    """The `thinkeval run` command line a detached process executes for `request`.

    Paths are absolute, so the process does not depend on the directory it starts in;
    `--output` is always given, so it writes exactly the run directory resolved here. A run from
    flags passes the model id and run name it resolved, so the process runs the very same config;
    `--shard auto` is passed as the shard it found. A config given as a mapping or a `RunConfig`
    has no file to name: it is refused (write it to a file first)."""
    config, run_dir, options, _ = resolved
    argv = ["run"]
    if request.config is not None:
        if not isinstance(request.config, str | Path):
            raise ConfigError("a detached run needs its config in a file: write it to YAML first")
        argv.append(str(Path(request.config).resolve()))
    argv += ["--output", str(Path(run_dir).resolve())]
    if request.config is None:
        argv += _flags_argv(request.flags, config)
    for flag, values in (("--model", request.only_models), ("--tasks", request.only_tasks)):
        if values:
            argv += [flag, ",".join(values)]
    if request.flags.data_dir:
        argv += ["--data-dir", os.path.abspath(request.flags.data_dir)]
    if options.shard is not None:
        argv += ["--shard", f"{options.shard.index}/{options.shard.count}"]
    for flag, on in (
        ("--allow-model-mismatch", request.allow_model_mismatch),
        ("--allow-mixed-fleet", request.allow_mixed_fleet),
        ("--keep-recorded-samples", request.keep_recorded_samples),
        ("--unsafe-local-exec", request.unsafe_local_exec),
    ):
        if on:
            argv.append(flag)
    return argv


def _flags_argv(flags: RunFlags, config: RunConfig) -> list[str]:
    if flags.base_url and urlsplit(flags.base_url).password:
        raise ConfigError(
            "--detach would write the password in --base-url to run.pid and run.log; keep the "
            "URL without credentials and put the key in an environment variable (--api-key-env)"
        )
    model = config.models[0]
    argv = ["--model", model.served_model, "--name", config.run]
    budgets = f"{flags.budgets[0]},{flags.budgets[1]}" if flags.budgets else None
    for flag, value in (
        ("--base-url", flags.base_url),
        ("--limit", flags.limit),
        ("--budgets", budgets),
        ("--concurrency", flags.concurrency),
        ("--api-key-env", flags.api_key_env),
        ("--retry", flags.retry),
    ):
        if value is not None:
            argv += [flag, str(value)]
    if flags.tasks:
        argv += ["--tasks", ",".join(flags.tasks)]
    for setting in generation_items(flags.generation):
        argv += ["--gen", setting]
    return argv


def generation_items(settings: Mapping[str, Any], prefix: str = "") -> list[str]:
    """`--gen KEY=VALUE` items that `parse_generation` reads back into `settings` (values as
    YAML flow scalars, written by the YAML library that reads them: `1e-05` as `1.0e-05`).

    >>> generation_items({"temperature": 0.6, "chat_template_kwargs": {"enable_thinking": True}})
    ['temperature=0.6', 'chat_template_kwargs.enable_thinking=true']
    """
    items: list[str] = []
    for key, value in settings.items():
        if isinstance(value, Mapping) and value:
            items += generation_items(value, f"{prefix}{key}.")
        else:
            text = yaml.safe_dump(value, default_flow_style=True, width=1 << 30)
            items.append(f"{prefix}{key}={text.removesuffix(chr(10)).removesuffix(_END).strip()}")
    return items
