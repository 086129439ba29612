"""`thinkeval run --base-url URL ... --retry reask|continue`: the retry of a run from flags, with
the refusals of the config key, its own run name, and the detached command line."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml

import thinkeval
from conftest import write_config
from thinkeval.cli import main
from thinkeval.config import parse_config
from thinkeval.ops.run_request import ResolvedRun, RunRequest, detached_argv
from thinkeval.run.from_flags import RunFlags
from thinkeval.run.runner import RunOptions
from thinkeval.store.journal import iter_attempts


def _stats(base_url: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{base_url.removesuffix('/v1')}/sim/stats") as resp:
        data: dict[str, Any] = json.load(resp)
        return data


def _argv(url: str, out: Path, *extra: str) -> list[str]:
    return ["run", "--base-url", url, "--tasks", "gsm8k", "--limit", "20", "--budgets",
            "1024,4096", "--gen", "temperature=0", "--output", str(out), *extra]  # fmt: skip


def test_retry_continue_from_flags_continues_the_cut_off_replies(tmp_path: Path, sim) -> None:
    server = sim(model="m", seed=5, p_long=0.4)
    out = tmp_path / "cont"
    assert main(_argv(server.base_url, out, "--retry", "continue")) == 0
    recorded = yaml.safe_load((out / "run.yaml").read_text())
    assert recorded["models"][0]["retry"] == "continue"
    retries = [a for a in iter_attempts(out) if a.phase == "retry"]
    continued = [a for a in retries if a.continuation is not None and a.continuation.requested]
    assert retries and len(continued) == len([a for a in retries if a.continuation])
    assert continued, "some cut-off reply was continued"
    assert _stats(server.base_url)["continuations"] >= len(continued)
    # The same command resumes: nothing is asked again (but the one-token probe of token ids).
    recorded_before = len(list(iter_attempts(out)))
    before = _stats(server.base_url)
    assert main(_argv(server.base_url, out, "--retry", "continue")) == 0
    after = _stats(server.base_url)
    assert len(list(iter_attempts(out))) == recorded_before
    assert after["continuations"] - before["continuations"] == 1


def test_retry_reask_from_flags_asks_again_and_names_another_run(
    tmp_path: Path, sim, capsys: pytest.CaptureFixture[str]
) -> None:
    server = sim(model="m", seed=5, p_long=0.4)
    base = ["run", "--base-url", server.base_url, "--tasks", "gsm8k", "--limit", "5"]
    names = []
    for extra in ([], ["--retry", "reask"], ["--retry", "continue"]):
        assert main([*base, "--output", str(tmp_path / f"r{len(names)}"), *extra]) == 0
        names.append(json.loads((tmp_path / f"r{len(names)}" / "summary.json").read_text())["run"])
    assert len(set(names)) == 3  # another protocol, another run (no flag keeps its old name)
    retries = [a for a in iter_attempts(tmp_path / "r1") if a.phase == "retry"]
    assert retries and all(a.continuation is None for a in retries)
    capsys.readouterr()


def test_retry_continue_is_refused_before_the_first_request_without_token_ids(
    tmp_path: Path, sim, capsys: pytest.CaptureFixture[str]
) -> None:
    server = sim(model="m", profile="sglang")
    out = tmp_path / "out"
    assert main(_argv(server.base_url, out, "--retry", "continue")) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "retry: continue cannot run against this server" in err[-1]
    assert "no token ids" in err[-1] and "Traceback" not in "".join(err)
    assert _stats(server.base_url)["requests"] == 1  # the probe alone
    assert not out.exists() or not list(iter_attempts(out))


def test_retry_with_a_config_file_is_refused_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(
        tmp_path / "run.yaml",
        {"run": "r", "tasks": ["gsm8k"], "models": [{"name": "m", "base_url": "http://127.0.0.1:9/v1"}]},
    )  # fmt: skip
    assert main(["run", str(config), "--retry", "continue"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--retry describe a run from flags" in err and "\n" not in err


def test_an_unknown_retry_is_an_argument_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["run", "--base-url", "http://127.0.0.1:9/v1", "--retry", "resume"])
    assert exited.value.code == 2
    assert "argument --retry: invalid choice: 'resume'" in capsys.readouterr().err


def test_the_detached_command_line_keeps_the_retry(tmp_path: Path) -> None:
    config = parse_config(
        {"run": "r", "models": [{"name": "m", "base_url": "http://127.0.0.1:9/v1",
                                 "retry": "continue"}]},
        "flags",
    )  # fmt: skip
    flags = RunFlags(base_url="http://127.0.0.1:9/v1", retry="continue")
    resolved = ResolvedRun(config, tmp_path / "out", RunOptions(), "")
    argv = detached_argv(RunRequest(flags=flags), resolved)
    assert argv[argv.index("--retry") + 1] == "continue"
    plain = RunRequest(flags=RunFlags(base_url="http://127.0.0.1:9/v1"))
    assert "--retry" not in detached_argv(plain, resolved)


def test_the_python_api_takes_retry(tmp_path: Path, sim) -> None:
    server = sim(model="m", seed=5, p_long=0.4)
    results = thinkeval.evaluate(
        base_url=server.base_url, tasks="gsm8k", limit=5, retry="continue",
        output=tmp_path / "api",
    )  # fmt: skip
    assert results.config.models[0].retry == "continue"
