"""Models side by side: overlap, shared server caps, kill and resume, a server that dies.

Every run goes over real HTTP to simulators started by the test; timing claims are read from
the journal's timestamps and the simulator's counters, never from wall-clock thresholds.
"""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from rich.console import Console

from conftest import ThreadedSim, write_config
from test_run import model_entry, numbers, small_tasks, stats
from thinkeval.cli import main
from thinkeval.ops.model_status import ModelStatus
from thinkeval.ops.status import RunStatus, read_status
from thinkeval.ops.verify import verify_run
from thinkeval.records import Attempt
from thinkeval.sim.config import SimConfig
from thinkeval.store.journal import iter_attempts
from thinkeval.ui.progress import RunProgress
from thinkeval.ui.status import render

ENV = dict(os.environ, PYTHONUNBUFFERED="1")


def spans(run_dir: Path) -> dict[str, tuple[float, float]]:
    """Per model: from its first request's start to its last reply's end."""
    out: dict[str, tuple[float, float]] = {}
    for x in iter_attempts(run_dir):
        end = x.started_at + (x.latency_s or 0.0)
        first, last = out.get(x.model, (x.started_at, end))
        out[x.model] = (min(first, x.started_at), max(last, end))
    return out


def test_models_on_separate_servers_run_at_the_same_time(tmp_path: Path, sim) -> None:
    one, two = sim(model="m", seed=1, latency_s=0.03), sim(model="m", seed=2, latency_s=0.03)
    config = write_config(
        tmp_path / "run.yaml",
        {
            "run": "overlap",
            "tasks": small_tasks(20),
            "models": [
                model_entry("a", one.base_url, model="m", concurrency=4),
                model_entry("b", two.base_url, model="m", concurrency=4),
            ],
        },
    )
    assert main(["run", str(config), "--output", str(tmp_path / "out")]) == 0

    found = spans(tmp_path / "out")
    (a_start, a_end), (b_start, b_end) = found["a"], found["b"]
    overlap = min(a_end, b_end) - max(a_start, b_start)
    # Model by model, the overlap would be nothing; side by side, nearly all of either span.
    assert overlap > 0.8 * min(a_end - a_start, b_end - b_start)
    assert stats(one.base_url)["max_in_flight"] == 4 == stats(two.base_url)["max_in_flight"]


@pytest.mark.parametrize("cap", [None, 6])
def test_models_sharing_a_server_never_exceed_its_cap(tmp_path: Path, sim, cap: int | None) -> None:
    # Two LoRA-style models on one server: a shared in-flight cap, by default the larger
    # concurrency of the two, else the config's `endpoints` entry.
    server = sim(model="base", seed=3, latency_s=0.02, per_token_s=0.00002)
    data: dict[str, Any] = {
        "run": "shared",
        "tasks": small_tasks(20),
        "models": [
            model_entry("lora-a", server.base_url, model="base", concurrency=8),
            model_entry("lora-b", server.base_url + "/", model="base", concurrency=5),
        ],
    }
    if cap is not None:
        data["endpoints"] = [{"base_url": server.base_url, "max_in_flight": cap}]
    config = write_config(tmp_path / "run.yaml", data)
    assert main(["run", str(config), "--output", str(tmp_path / "out")]) == 0

    served = stats(server.base_url)
    assert served["max_in_flight"] == (cap or 8)  # reached, never passed
    asked = Counter(x.model for x in iter_attempts(tmp_path / "out"))
    assert served["completed"] == asked["lora-a"] + asked["lora-b"]
    found = spans(tmp_path / "out")
    assert max(found["lora-a"][0], found["lora-b"][0]) < min(found["lora-a"][1], found["lora-b"][1])
    if cap is not None:  # the cap is part of the run: run.yaml resumes it with the cap
        resolved = yaml.safe_load((tmp_path / "out" / "run.yaml").read_text())
        assert resolved["endpoints"] == [{"base_url": server.base_url, "max_in_flight": cap}]
        assert main(["run", str(tmp_path / "out" / "run.yaml")]) == 0
        assert stats(server.base_url)["requests"] == served["requests"]  # nothing asked again


def test_an_endpoint_cap_for_no_model_is_refused(tmp_path: Path, capsys) -> None:
    config = write_config(
        tmp_path / "run.yaml",
        {
            "run": "typo",
            "tasks": small_tasks(2),
            "models": [model_entry("a", "http://127.0.0.1:9/v1")],
            "endpoints": [{"base_url": "http://127.0.0.1:8/v1", "max_in_flight": 4}],
        },
    )
    assert main(["run", str(config), "--output", str(tmp_path / "out")]) == 2
    assert "endpoints[0].base_url: 'http://127.0.0.1:8/v1' is not the base_url of any model" in (
        capsys.readouterr().err
    )


def _run_command(config: Path, run_dir: Path) -> list[str]:
    return [sys.executable, "-m", "thinkeval", "run", str(config), "--output", str(run_dir)]


def test_sigkill_with_three_models_in_flight_then_resume(tmp_path: Path, sim) -> None:
    knobs = {"model": "m", "latency_s": 0.05, "per_token_s": 0.00001, "p_long": 0.3}
    seeds = (21, 22, 23)
    clean = [sim(seed=s, **knobs) for s in seeds]
    killed = [sim(seed=s, **knobs) for s in seeds]

    def config(name: str, servers: list[ThreadedSim]) -> Path:
        return write_config(
            tmp_path / f"{name}.yaml",
            {
                "run": name,
                "tasks": small_tasks(30),
                "models": [
                    model_entry(f"m{i}", s.base_url, model="m", concurrency=8)
                    for i, s in enumerate(servers)
                ],
            },
        )

    assert main(["run", str(config("clean", clean)), "--output", str(tmp_path / "clean")]) == 0
    run_dir = tmp_path / "killed"
    command = _run_command(config("killed", killed), run_dir)
    journal = run_dir / "journal" / "main.jsonl"
    for threshold in (60, 150):
        proc = subprocess.Popen(
            command, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            if journal.exists() and journal.read_bytes().count(b"\n") >= threshold:
                break
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        models = Counter(x.model for x in iter_attempts(run_dir))
        assert set(models) == {"m0", "m1", "m2"}  # all three were under way when killed
    assert subprocess.run(command, env=ENV, capture_output=True).returncode == 0

    assert numbers(run_dir) == numbers(tmp_path / "clean")
    assert verify_run(run_dir).ok


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_a_dead_server_stops_its_model_alone_and_status_says_so(
    tmp_path: Path, sim, answer_key
) -> None:
    # Before: with the server down, status said "running" with no error, the log was silent,
    # and the run retried for about 40 minutes before it gave up. Now: status says since when
    # the server is unreachable and why, the log says so, the model stops after its window
    # while the other model goes on, and the next run asks only what is missing.
    healthy = sim(model="m", seed=31, latency_s=0.4)
    port = _free_port()
    dying = ThreadedSim(SimConfig(model="m", seed=32, latency_s=0.02), answer_key, port)
    dying.start()
    config = write_config(
        tmp_path / "run.yaml",
        {
            "run": "dead",
            "tasks": [{"name": "gsm8k", "limit": 100}],
            "models": [
                model_entry("a", healthy.base_url, model="m", concurrency=4),
                # the default backoff: a request alone would retry for minutes
                {
                    "name": "b",
                    "base_url": dying.base_url,
                    "model": "m",
                    "concurrency": 4,
                    "unreachable_after_s": 6,
                },
            ],
        },
    )
    run_dir = tmp_path / "out"
    log = (tmp_path / "run.log").open("w")
    proc = subprocess.Popen(_run_command(config, run_dir), env=ENV, stdout=log, stderr=log)
    try:
        journal = run_dir / "journal" / "main.jsonl"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (
            journal.exists() and Counter(x.model for x in iter_attempts(run_dir))["b"] >= 10
        ):
            time.sleep(0.05)
        dying.stop()  # the server dies: every connection is refused
        seen: dict[str, Any] | None = None
        while proc.poll() is None and time.monotonic() < deadline and seen is None:
            b = {m.model: m for m in read_status(run_dir).models}["b"]
            if b.state == "unreachable":
                seen = {"since": b.unreachable_since, "error": b.last_error}
            time.sleep(0.1)
        assert seen is not None, "status never said the server was unreachable"
        assert seen["since"] is not None and f"127.0.0.1:{port}" in seen["error"]
        assert proc.wait(timeout=120) == 2
    finally:
        if proc.poll() is None:
            proc.kill()
        log.close()
    output = (tmp_path / "run.log").read_text()
    assert f"b: no answer from http://127.0.0.1:{port}/v1 since" in output
    stopped = [line for line in output.splitlines() if line.startswith("b stopped:")]
    assert (
        len(stopped) == 1
        and "failed since" in stopped[0]
        and "run the same command" in (stopped[0])
    )
    summary = json.loads((run_dir / "summary.json").read_text())
    rows = {r["model"]: r for r in summary["results"]}
    assert rows["a"]["fixed"]["pending"] == rows["a"]["retry"]["pending"] == 0
    # a went on after b stopped (b's outage began at `since` and lasted its 6 s window)
    assert max(x.started_at for x in iter_attempts(run_dir) if x.model == "a") > seen["since"] + 6
    assert rows["b"]["fixed"]["pending"] > 0
    recorded_b = sum(1 for x in iter_attempts(run_dir) if x.model == "b" and x.error is None)

    revived = ThreadedSim(SimConfig(model="m", seed=32), answer_key, port).start()
    try:
        assert (
            subprocess.run(_run_command(config, run_dir), env=ENV, capture_output=True).returncode
            == 0
        )
        asked = stats(revived.base_url)["completed"]
    finally:
        revived.stop()
    assert verify_run(run_dir).ok
    final_b = sum(1 for x in iter_attempts(run_dir) if x.model == "b" and x.error is None)
    assert asked == final_b - recorded_b  # only what was missing was asked


def test_the_log_shows_every_model_with_its_rate_eta_and_state(capsys) -> None:
    progress = RunProgress(Console(file=io.StringIO()), interval_s=1e9)  # printed at the end
    with progress.shown():
        progress.add("a", "gsm8k", 10)
        progress.add("a", "boolq", 10, already_done=5)
        progress.add("b", "gsm8k", 20)
        for task in ("gsm8k", "boolq"):
            progress.record(
                Attempt(
                    model="a",
                    task=task,
                    sample_id="x",
                    phase="fixed",
                    budget=2048,
                    max_tokens=2048,
                    state="finished",
                )
            )
        progress.note("b", "unreachable since 14:03:07")
    lines = [line for line in capsys.readouterr().err.splitlines() if "[progress]" in line]
    assert lines[0].startswith("[progress] a: 7/25 ok=2 trunc=0 fail=0 rate=")
    assert "eta=" in lines[0] and "eta=-" not in lines[0]
    assert lines[1] == "[progress] a gsm8k: 1/10 ok=1 trunc=0 fail=0"
    assert lines[3].startswith("[progress] b: 0/20") and "eta=-" in lines[3]
    assert lines[3].endswith("(unreachable since 14:03:07)")


def test_status_shows_each_live_model_and_since_when_its_server_is_unreachable() -> None:
    since = time.mktime((2026, 1, 2, 14, 3, 7, 0, 0, -1))
    models = [
        ModelStatus("a", "running", 872, 1430, in_flight=64, rate_per_min=386.7, eta_s=178),
        ModelStatus(
            "b",
            "unreachable",
            410,
            1430,
            rate_per_min=12.0,
            unreachable_since=since,
            last_error="http://gpu-2:8000/v1: cannot connect to gpu-2:8000",
        ),
    ]
    status = RunStatus(
        run="r",
        run_dir="runs/r",
        checked_at=since,
        state="running",
        alive=True,
        complete=False,
        writers=[],
        phases=[],
        models=models,
    )
    console = Console(record=True, width=200)
    render(status, console)
    text = console.export_text()
    assert "models" in text and "2m58s" in text
    assert "unreachable since 14:03:07: http://gpu-2:8000/v1: cannot connect" in text
    assert status.to_json()["models"][1]["state"] == "unreachable"
