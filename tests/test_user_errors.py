"""No traceback anywhere a user can reach it: each path ends with one line and its exit status.

Every test runs `thinkeval` as a user would, in a process of its own, against simulators served
over real HTTP on 127.0.0.1.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import write_config

ENV = dict(os.environ, PYTHONUNBUFFERED="1")


def thinkeval(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "thinkeval", *args],
        capture_output=True,
        text=True,
        env=env or ENV,
        timeout=120,
    )


def assert_one_line(result: subprocess.CompletedProcess[str], status: int, *words: str) -> str:
    """The command failed with `status` and said so in one line holding `words`."""
    assert result.returncode == status, result.stderr
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.stderr
    for word in words:
        assert word in errors[0], errors[0]
    return errors[0]


@pytest.mark.parametrize(
    ("url", "words"),
    [
        (
            "127.0.0.1:{port}/v1",
            ("--base-url", "has no scheme", "did you mean 'http://127.0.0.1:{port}/v1'?"),
        ),
        ("ftp://127.0.0.1:{port}/v1", ("--base-url", "uses ftp://", "only http:// and https://")),
        ("", ("--base-url", "is empty")),
        ("https://127.0.0.1:{port}/v1", ("speaks plain HTTP", "use http://127.0.0.1:{port}/v1")),
        ("http://127.0.0.1:{port}", ("HTTP 404", "did you mean http://127.0.0.1:{port}/v1?")),
    ],
    ids=["no-scheme", "ftp", "empty", "https-to-http", "no-v1"],
)
def test_a_bad_base_url_is_one_line(tmp_path: Path, sim, url: str, words: tuple[str, ...]) -> None:
    server = sim(model="m")
    port = server.base_url.rsplit(":", 1)[1].split("/")[0]
    given = url.format(port=port)
    result = thinkeval(
        "run",
        "--base-url",
        given,
        "--tasks",
        "gsm8k",
        "--limit",
        "2",
        "--output",
        str(tmp_path / "out"),
    )
    assert_one_line(result, 2, *(w.format(port=port) for w in words))


def test_a_bad_base_url_in_a_config_is_one_line(tmp_path: Path, sim) -> None:
    server = sim(model="m")
    config = write_config(
        tmp_path / "run.yaml",
        {
            "run": "r",
            "tasks": [{"name": "gsm8k", "limit": 2}],
            "models": [{"name": "m", "base_url": server.base_url.removesuffix("/v1")}],
        },
    )
    result = thinkeval("run", str(config), "--output", str(tmp_path / "out"))
    assert_one_line(result, 2, "HTTP 404", f"did you mean {server.base_url}?")


def test_allow_model_mismatch_refused_by_the_server_is_one_true_line(tmp_path: Path, sim) -> None:
    server = sim(model="served")
    result = thinkeval(
        "run",
        "--base-url",
        server.base_url,
        "--model",
        "other",
        "--tasks",
        "gsm8k",
        "--limit",
        "4",
        "--output",
        str(tmp_path / "out"),
        "--allow-model-mismatch",
    )
    line = assert_one_line(result, 2, "refuses requests for 'other'", "it serves served")
    assert "redeployed" not in line
    assert "never retrieved" not in result.stderr


def test_ctrl_c_stops_with_one_line(tmp_path: Path, sim) -> None:
    server = sim(model="m", latency_s=0.3)
    run_dir = tmp_path / "out"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "thinkeval",
            "run",
            "--base-url",
            server.base_url,
            "--tasks",
            "gsm8k",
            "--limit",
            "100",
            "--concurrency",
            "4",
            "--output",
            str(run_dir),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    journal = run_dir / "journal" / "main.jsonl"
    deadline = time.monotonic() + 60
    while not (journal.exists() and journal.read_bytes().count(b"\n") >= 4):
        assert time.monotonic() < deadline and process.poll() is None, "no attempt recorded"
        time.sleep(0.1)
    process.send_signal(signal.SIGINT)  # what Ctrl-C sends
    out, err = process.communicate(timeout=60)
    result = subprocess.CompletedProcess(process.args, process.returncode, out, err)
    assert_one_line(result, 130, "stopped", "Run the same command again to resume")
    assert "never retrieved" not in err and "CancelledError" not in err
