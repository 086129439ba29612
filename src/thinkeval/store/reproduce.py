"""`RUN_DIR/run.yaml`: the run's resolved config as a config file, so that
`thinkeval run RUN_DIR/run.yaml` resumes the run in that folder, or reproduces it elsewhere
(with `--output DIR`).

It is written from `config.json` (every model and task the run has asked, whichever command
added them), with each task's budgets, repeats and generation spelled out: a later thinkeval
with other defaults asks the same. Like `config.json` it holds no API key (only the name of the
variable that holds it) and URL credentials are redacted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import yaml

from thinkeval.config import ModelConfig
from thinkeval.store.run_record import RunRecord
from thinkeval.store.rundir import write_atomic
from thinkeval.version import __version__

RUN_YAML = "run.yaml"
_HEADER = """\
# The resolved config of this run, written by thinkeval {version} when it last started.
# `thinkeval run RUN_DIR/run.yaml` resumes the run in this folder; with --output DIR it
# runs it again there. No API key is stored: api_key_env names the variable holding it.
"""


def run_config_data(record: RunRecord) -> dict[str, Any]:
    """The config (as YAML data) that asks what `record` says the run asks."""
    data: dict[str, Any] = {"run": record.run}
    if record.data_dir:
        data["data_dir"] = record.data_dir
    budgets = record.budgets
    every_task = {task.budgets for task in record.tasks}
    if budgets is None and len(every_task) == 1:
        budgets = every_task.pop()  # one pair for all tasks: say it once
    if budgets is not None:
        data["budgets"] = list(budgets)
    tasks = []
    for task in record.tasks:
        entry: dict[str, Any] = {"name": task.name}
        for key in ("limit", "range"):
            if getattr(task, key) is not None:
                entry[key] = getattr(task, key)
        if task.budgets is not None and tuple(task.budgets) != tuple(budgets or ()):
            entry["budgets"] = list(task.budgets)
        if task.repeats != 1:
            entry["repeats"] = task.repeats
        if task.generation:
            entry["generation"] = task.generation
        tasks.append(entry)
    data["tasks"] = tasks
    data["models"] = [_model_entry(model) for model in record.models]
    if record.endpoints:
        data["endpoints"] = [msgspec.to_builtins(endpoint) for endpoint in record.endpoints]
    return data


def _model_entry(model: ModelConfig) -> dict[str, Any]:
    """The model's settings, leaving out those at their default (a null that is not the
    default, such as `unreachable_after_s: null`, is kept: it means something)."""
    defaults = {}
    for field in msgspec.structs.fields(ModelConfig):
        if field.default is not msgspec.NODEFAULT:
            defaults[field.encode_name] = field.default
        elif field.default_factory is not msgspec.NODEFAULT:
            defaults[field.encode_name] = field.default_factory()
    entry = {}
    for key, value in msgspec.to_builtins(model).items():
        if key in defaults and value == msgspec.to_builtins(defaults[key]):
            continue
        entry[key] = value
    return entry


def write_run_yaml(run_dir: Path, record: RunRecord) -> None:
    """Write `RUN_DIR/run.yaml` atomically."""
    path = run_dir / RUN_YAML
    text = _HEADER.format(version=__version__) + yaml.safe_dump(
        run_config_data(record), sort_keys=False, allow_unicode=True
    )
    write_atomic(path, text.encode("utf-8"))
