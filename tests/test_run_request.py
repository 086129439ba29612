"""One front door (`ops/run_request.py`): `thinkeval run`, `--detach`'s command line and
`thinkeval.evaluate()` resolve a run the same way."""

from __future__ import annotations

import asyncio
from pathlib import Path

import msgspec
import pytest

import thinkeval
from conftest import write_config
from thinkeval.cli import build_parser
from thinkeval.cli.run import run_request
from thinkeval.errors import ConfigError
from thinkeval.ops.run_request import RunRequest, detached_argv, resolve
from thinkeval.run.from_flags import parse_generation


def _resolved_from_argv(argv: list[str]):  # type: ignore[no-untyped-def]
    args = build_parser(argv).parse_args(argv)
    request = run_request(args)
    return request, asyncio.run(resolve(request))


def test_the_detached_command_line_resolves_to_the_very_same_run(
    tmp_path: Path, sim, data_dir: Path
) -> None:
    server = sim(model="m")
    argv = [
        "run", "--base-url", server.base_url, "--tasks", "gsm8k,boolq", "--limit", "7",
        "--budgets", "512,1024", "--concurrency", "3", "--retry", "continue",
        "--gen", "temperature=0.6", "--gen", "chat_template_kwargs.enable_thinking=true",
        "--gen", "chat_template_kwargs.tags=['a b', 'c']", "--data-dir", str(data_dir),
        "--output", str(tmp_path / "out"), "--shard", "2/3",
    ]  # fmt: skip
    request, resolved = _resolved_from_argv(argv)
    again_request, again = _resolved_from_argv(detached_argv(request, resolved))
    assert msgspec.to_builtins(again.config) == msgspec.to_builtins(resolved.config)
    assert again.run_dir == resolved.run_dir.resolve()
    assert again.options == resolved.options
    assert again_request.flags.generation == {
        "temperature": 0.6,
        "chat_template_kwargs": {"enable_thinking": True, "tags": ["a b", "c"]},
    }


def test_generation_items_read_back_as_they_were_given() -> None:
    from thinkeval.ops.run_request import generation_items

    settings = {"a": {"b": {"c": None}}, "s": "01", "n": 1e-05, "l": [1, "two"], "e": {}}
    assert parse_generation(generation_items(settings)) == settings


def test_the_python_api_resumes_a_run_from_its_run_yaml_as_the_command_does(
    tmp_path: Path, sim
) -> None:
    server = sim(model="m")
    config = write_config(
        tmp_path / "run.yaml",
        {"run": "r", "tasks": [{"name": "boolq", "limit": 4}],
         "models": [{"name": "m", "base_url": server.base_url}]},
    )  # fmt: skip
    first = thinkeval.evaluate(config, output=tmp_path / "first")
    resumed = thinkeval.evaluate(tmp_path / "first" / "run.yaml")
    assert resumed.run_dir == first.run_dir


def test_the_python_api_takes_its_shard_from_the_scheduler(
    tmp_path: Path, sim, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = sim(model="m")
    monkeypatch.setenv("JOB_COMPLETION_INDEX", "1")
    monkeypatch.setenv("THINKEVAL_SHARD_COUNT", "2")
    thinkeval.evaluate(
        base_url=server.base_url, tasks="boolq", limit=6, output=tmp_path / "out", shard="auto"
    )
    assert [p.name for p in (tmp_path / "out" / "journal").iterdir()] == ["shard-2-of-2.jsonl"]


def test_settings_beside_a_config_are_named_as_the_caller_spelled_them(tmp_path: Path) -> None:
    config = tmp_path / "run.yaml"
    with pytest.raises(ConfigError, match=r"^limit, generation describe a run from flags"):
        asyncio.run(resolve(RunRequest(config=config, flags=_flags(limit=3, temperature=0.2))))
    argv = ["run", str(config), "--limit", "3", "--gen", "temperature=0.2"]
    args = build_parser(argv).parse_args(argv)
    with pytest.raises(ConfigError, match=r"^--limit, --gen describe a run from flags"):
        asyncio.run(resolve(run_request(args)))


def test_a_detached_run_needs_its_config_in_a_file(tmp_path: Path, sim) -> None:
    server = sim(model="m")
    mapping = {"run": "r", "models": [{"name": "m", "base_url": server.base_url}]}
    request = RunRequest(config=mapping, output=tmp_path / "out")
    with pytest.raises(ConfigError, match="needs its config in a file"):
        detached_argv(request, asyncio.run(resolve(request)))


def _flags(limit: int, temperature: float):  # type: ignore[no-untyped-def]
    from thinkeval.run.from_flags import RunFlags

    return RunFlags(limit=limit, generation={"temperature": temperature})
