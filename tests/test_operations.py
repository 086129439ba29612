"""Operations end to end: `run --detach`, `status`, `stop`, `verify`, and shards sharing a run.

Every command runs as its own `python -m thinkeval` process, as it would from another terminal,
against simulators served over real HTTP from this test process.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import running_sim, write_config
from thinkeval.cli import main
from thinkeval.cli.status import run as status_command
from thinkeval.errors import ThinkevalError
from thinkeval.ops.background import stop_run
from thinkeval.ops.processes import find_writers, is_thinkeval_process
from thinkeval.ops.status import read_status
from thinkeval.ops.verify import verify_run
from thinkeval.results.summary import write_summary
from thinkeval.run.protocol import Shard
from thinkeval.sim.config import SimConfig
from thinkeval.store.journal import iter_attempts

ENV = dict(os.environ, PYTHONUNBUFFERED="1")


def thinkeval(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run `thinkeval ARGS` in a separate process, as from another terminal."""
    return subprocess.run(
        [sys.executable, "-m", "thinkeval", *args],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=timeout,
    )


def model_entry(name: str, url: str, **extra: Any) -> dict[str, Any]:
    entry = {
        "name": name,
        "base_url": url,
        "concurrency": 16,
        "retry_backoff_s": 0.01,
        "retry_backoff_max_s": 0.05,
        "generation": {"temperature": 0.0},
    }
    entry.update(extra)
    return entry


def small_tasks(n: int) -> list[dict[str, Any]]:
    return [
        {"name": "ceval", "limit": n},
        {"name": "boolq", "limit": n},
        {"name": "gsm8k", "limit": n},
    ]


def numbers(run_dir: Path) -> dict[Any, Any]:
    """summary.json without timestamps: what must match between equivalent runs."""
    data = json.loads((run_dir / "summary.json").read_text())
    keep = ("total", "fixed", "retry", "adaptive", "lenient", "subjects")
    return {(r["model"], r["task"]): {k: r[k] for k in keep} for r in data["results"]}


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.1)


def status_json(run_dir: Path) -> dict[str, Any]:
    done = thinkeval("status", str(run_dir), "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def journal_lines(run_dir: Path) -> int:
    return sum(p.read_bytes().count(b"\n") for p in (run_dir / "journal").glob("*.jsonl"))


def phases_by_key(status: dict[str, Any]) -> dict[tuple[str, str, str], dict[str, Any]]:
    return {(p["model"], p["task"], p["phase"]): p for p in status["phases"]}


def assert_status_matches_summary(status: dict[str, Any], run_dir: Path) -> None:
    """Every count `status` shows equals the one summary.json holds."""
    phases = phases_by_key(status)
    summary = json.loads((run_dir / "summary.json").read_text())
    assert len(phases) == 2 * len(summary["results"])
    for row in summary["results"]:
        for name in ("fixed", "retry"):
            block, shown = row[name], phases[row["model"], row["task"], name]
            total = row["total"] if name == "fixed" else block["candidates"]
            assert shown["total"] == total
            assert shown["done"] == total - block["pending"]
            assert shown["ok"] == block["correct"] + block["wrong"] + block["no_answer"]
            assert shown["truncated"] == block["unfinished"]
            assert shown["empty"] == block["empty"]
            assert shown["failed"] == block["error"]


@pytest.fixture
def detached() -> Iterator[list[Path]]:
    """Run directories of detached runs; any process still alive at the end is killed."""
    run_dirs: list[Path] = []
    yield run_dirs
    for run_dir in run_dirs:
        for process in find_writers(run_dir):
            if process.running_here and process.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(process.pid, signal.SIGKILL)


def detach_from_a_shell(config: Path, run_dir: Path) -> subprocess.CompletedProcess[str]:
    """`thinkeval run --detach` from a shell that exits at once, in its own session.

    The shell's process group then gets SIGHUP, as when a terminal is closed: a run that had not
    left it would die.
    """
    command = f"{sys.executable} -m thinkeval run {config} --output {run_dir} --detach; exit 0"
    shell = subprocess.Popen(
        ["bash", "-c", command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
        start_new_session=True,
    )
    out, err = shell.communicate(timeout=60)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(shell.pid, signal.SIGHUP)
    return subprocess.CompletedProcess(shell.args, shell.returncode, out, err)


def test_detached_run_survives_its_shell_and_status_follows_it(
    tmp_path: Path, sim, detached: list[Path]
) -> None:
    server = sim(model="m", seed=21, per_token_s=0.0004)
    config = write_config(
        tmp_path / "run.yaml",
        {
            "run": "bg",
            "tasks": [{"name": "gsm8k", "limit": 60}],
            "models": [model_entry("m", server.base_url, concurrency=4)],
        },
    )
    run_dir = tmp_path / "out"
    detached.append(run_dir)
    started = time.monotonic()
    shell = detach_from_a_shell(config, run_dir)
    assert shell.returncode == 0, shell.stderr
    assert time.monotonic() - started < 15  # returned at once, not after the run
    assert "run.log" in shell.stderr and f"thinkeval status {run_dir}" in shell.stderr
    record = json.loads((run_dir / "run.pid").read_text())
    assert record["command"][:2] == ["thinkeval", "run"] and record["exit_status"] is None
    pid = record["pid"]
    assert is_thinkeval_process(pid)

    # From another terminal: alive, running, progressing, with a rate.
    wait_for(lambda: journal_lines(run_dir) >= 10, 60, "the detached run to record attempts")
    status = status_json(run_dir)
    assert status["alive"] and status["state"] == "running", status
    (writer,) = status["writers"]
    assert writer["writer"] == "main" and writer["pid"] == pid and writer["local"]
    assert writer["host"] == socket.gethostname() and writer["heartbeat_age_s"] < 10
    fixed = phases_by_key(status)["m", "gsm8k", "fixed"]
    assert fixed["total"] == 60 and 0 < fixed["done"] <= 60
    assert fixed["rate_per_min"] > 0
    text = thinkeval("status", str(run_dir))
    assert text.returncode == 0 and "running" in text.stdout and "gsm8k" in text.stdout

    again = thinkeval("run", str(config), "--output", str(run_dir), "--detach")
    assert again.returncode == 2 and "already being run" in again.stderr

    wait_for(lambda: not is_thinkeval_process(pid), 90, "the detached run to finish")
    status = status_json(run_dir)
    assert status["state"] == "finished" and status["complete"] and not status["alive"]
    assert status["writers"][0]["exit_status"] == 0
    assert all(p["rate_per_min"] is None and p["pending"] == 0 for p in status["phases"])
    assert_status_matches_summary(status, run_dir)
    log = (run_dir / "run.log").read_text()
    assert "exit status 0" in log and "summary:" in log
    assert thinkeval("verify", str(run_dir)).returncode == 0


def test_stop_ends_a_detached_run_gracefully(tmp_path: Path, sim, detached: list[Path]) -> None:
    server = sim(model="m", seed=22, per_token_s=0.002)
    config = write_config(
        tmp_path / "run.yaml",
        {
            "run": "stop",
            "tasks": [{"name": "gsm8k", "limit": 60}],
            "models": [model_entry("m", server.base_url, concurrency=2)],
        },
    )
    run_dir = tmp_path / "out"
    detached.append(run_dir)
    assert detach_from_a_shell(config, run_dir).returncode == 0
    wait_for(lambda: journal_lines(run_dir) >= 3, 60, "the detached run to record attempts")

    stopped = thinkeval("stop", str(run_dir), "--timeout", "30")
    assert stopped.returncode == 0, stopped.stderr
    assert "sent SIGTERM" in stopped.stderr and "state stopped, exit status 130" in stopped.stderr

    journal = (run_dir / "journal" / "main.jsonl").read_bytes()
    assert journal.endswith(b"\n")  # no torn line: nothing partial was recorded
    recorded = list(iter_attempts(run_dir))
    assert len(recorded) == journal.count(b"\n") < 60
    heartbeat = json.loads((run_dir / "status" / "main.json").read_text())
    assert heartbeat["state"] == "stopped"
    log = (run_dir / "run.log").read_text()
    assert "exit status 130" in log
    # One line says it stopped; asyncio's "exception was never retrieved" traceback is gone.
    assert "Traceback" not in log and "never retrieved" not in log

    status = status_json(run_dir)
    assert status["state"] == "stopped" and not status["alive"] and not status["complete"]
    assert_status_matches_summary(status, run_dir)
    again = thinkeval("stop", str(run_dir))
    assert again.returncode == 1 and "nothing" in again.stderr
    incomplete = thinkeval("verify", str(run_dir))
    assert incomplete.returncode == 1 and "missing fixed" in incomplete.stdout


@pytest.fixture(scope="module")
def finished_run(
    tmp_path_factory: pytest.TempPathFactory, answer_key: dict[str, tuple[str, str]]
) -> Path:
    """A complete two-model run, shared by the tests that only read (or copy) it."""
    root = tmp_path_factory.mktemp("finished")
    knobs = {"seed": 24, "p_long": 0.3}
    with (
        running_sim(SimConfig(port=0, model="a", **knobs), answer_key) as a,
        running_sim(SimConfig(port=0, model="b", **knobs), answer_key) as b,
    ):
        config = write_config(
            root / "run.yaml",
            {
                "run": "done",
                "tasks": [{"name": "ceval", "limit": 30}, {"name": "gsm8k", "limit": 30}],
                "models": [model_entry("a", a), model_entry("b", b)],
            },
        )
        assert main(["run", str(config), "--output", str(root / "out")]) == 0
    return root / "out"


def test_status_of_a_finished_run_matches_the_summary(finished_run: Path) -> None:
    status = status_json(finished_run)
    assert status["state"] == "finished" and status["complete"] and not status["alive"]
    assert {p["budget"] for p in status["phases"]} == {2048, 8192} and status["run"] == "done"
    assert {(p["model"], p["task"]) for p in status["phases"]} == {
        (m, t) for m in ("a", "b") for t in ("ceval", "gsm8k")
    }
    assert_status_matches_summary(status, finished_run)
    assert any(p["phase"] == "retry" and p["total"] > 0 for p in status["phases"])
    assert read_status(finished_run).to_json()["phases"] == status["phases"]

    text = thinkeval("status", str(finished_run))
    assert text.returncode == 0
    for word in ("finished", "complete", "done/total", "trunc", "ETA", "retry"):
        assert word in text.stdout, word
    watched = thinkeval("status", str(finished_run), "--watch", "1", "--json", timeout=30)
    assert watched.returncode == 0 and len(watched.stdout.splitlines()) == 1
    assert json.loads(watched.stdout)["state"] == "finished"
    with pytest.raises(ThinkevalError, match="no such run directory"):
        status_command(argparse.Namespace(run_dir=finished_run / "nope", json=True, watch=None))


def _mutated(finished_run: Path, tmp_path: Path) -> tuple[Path, list[dict[str, Any]]]:
    run_dir = tmp_path / "copy"
    shutil.copytree(finished_run, run_dir)
    lines = [json.loads(x) for x in (run_dir / "journal" / "main.jsonl").read_text().splitlines()]
    return run_dir, lines


def _write(run_dir: Path, lines: list[dict[str, Any]], extra: str = "") -> None:
    text = "".join(json.dumps(x) + "\n" for x in lines) + extra
    (run_dir / "journal" / "main.jsonl").write_text(text)


def verify_json(run_dir: Path) -> tuple[int, dict[str, Any]]:
    """What `thinkeval verify RUN_DIR --json` says, computed in this process (faster)."""
    found = verify_run(run_dir)
    return (0 if found.ok else 1), json.loads(json.dumps(found.to_json()))


def check_of(found: dict[str, Any], model: str, task: str) -> dict[str, Any]:
    (check,) = [t for t in found["tasks"] if (t["model"], t["task"]) == (model, task)]
    return check


def test_verify_a_clean_run(finished_run: Path, tmp_path: Path) -> None:
    done = thinkeval("verify", str(finished_run))
    assert done.returncode == 0, done.stdout
    assert "complete and clean" in done.stdout
    assert "a · gsm8k (2048 → 8192): fixed 30/30" in done.stdout
    as_json = thinkeval("verify", str(finished_run), "--json")
    found = json.loads(as_json.stdout)
    assert as_json.returncode == 0 and found["ok"] and found["complete"] and found["clean"]
    assert found == verify_json(finished_run)[1]
    summary = json.loads((finished_run / "summary.json").read_text())
    for row in summary["results"]:
        check = check_of(found, row["model"], row["task"])
        assert check["candidates"] == check["retry_recorded"] == row["retry"]["candidates"]

    # A torn last line (a crash mid-write) never counted: reported, still complete and clean.
    run_dir, lines = _mutated(finished_run, tmp_path)
    _write(run_dir, lines, extra='{"schema_version": 1, "model": "a", "ta')
    code, found = verify_json(run_dir)
    assert code == 0 and found["torn_tails"] == [f"main.jsonl:{len(lines) + 1}"]


def test_verify_reports_a_duplicated_line(finished_run: Path, tmp_path: Path) -> None:
    run_dir, lines = _mutated(finished_run, tmp_path)
    line = next(
        x for x in lines if x["model"] == "b" and x["task"] == "gsm8k" and x["phase"] == "fixed"
    )
    # Another writer recorded the same sample again, as overlapping shards would.
    (run_dir / "journal" / "shard-1-of-2.jsonl").write_text(json.dumps(line) + "\n")
    code, found = verify_json(run_dir)
    assert code == 1 and found["complete"] and not found["clean"]
    check = check_of(found, "b", "gsm8k")
    (duplicate,) = check["duplicated"]
    assert duplicate["sample_id"] == line["sample_id"] and duplicate["phase"] == "fixed"
    assert len(duplicate["lines"]) == 2 and "shard-1-of-2.jsonl:1" in duplicate["lines"]
    text = thinkeval("verify", str(run_dir))
    assert text.returncode == 1 and "duplicated: 1" in text.stdout
    assert line["sample_id"] in text.stdout and "not clean" in text.stdout


def test_verify_reports_missing_error_only_unexpected_and_unknown(
    finished_run: Path, tmp_path: Path
) -> None:
    run_dir, lines = _mutated(finished_run, tmp_path)
    fixed = [
        x for x in lines if x["model"] == "a" and x["task"] == "gsm8k" and x["phase"] == "fixed"
    ]
    retried = {x["sample_id"] for x in lines if x["model"] == "a" and x["phase"] == "retry"}
    plain = [x for x in fixed if x["sample_id"] not in retried]
    candidate = next(x for x in fixed if x["sample_id"] in retried)
    missing, failing, over_asked = plain[0], plain[1], plain[2]
    errored = dict(
        failing,
        content=None,
        reasoning=None,
        finish_reason=None,
        verdict=None,
        answer=None,
        error="HTTP 500: boom",
        error_kind="server_error",
        http_status=500,
    )
    unexpected = dict(over_asked, phase="retry", budget=8192, max_tokens=8192)
    unknown = dict(missing, sample_id="gsm8k/999999")
    kept = [
        x
        for x in lines
        if x is not missing
        and x is not failing
        and not (
            x["phase"] == "retry" and x["sample_id"] == candidate["sample_id"] and x["model"] == "a"
        )
    ]
    _write(run_dir, [*kept, errored, unexpected, unknown])

    code, found = verify_json(run_dir)
    assert code == 1 and not found["complete"] and not found["clean"]
    check = check_of(found, "a", "gsm8k")
    assert check["missing_fixed"] == [missing["sample_id"]]
    assert check["error_only_fixed"] == [failing["sample_id"]]
    assert check["missing_retry"] == [candidate["sample_id"]]
    assert check["unexpected_retries"] == [over_asked["sample_id"]]
    assert [u["sample_id"] for u in found["unknown"]] == ["gsm8k/999999"]
    assert all(
        check_of(found, m, t)["complete"]
        for m, t in (("a", "ceval"), ("b", "ceval"), ("b", "gsm8k"))
    )
    text = thinkeval("verify", str(run_dir)).stdout
    for phrase in (
        "missing fixed: 1",
        "missing retry: 1",
        "error-only fixed",
        "unexpected retry",
        "unknown samples: 1",
        "incomplete and not clean",
    ):
        assert phrase in text, phrase


def test_heartbeats_from_another_host_are_judged_by_age(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    (run_dir / "status").mkdir(parents=True)
    now = time.time()
    beat = {
        "host": "gpu-elsewhere",
        "pid": 4242,
        "state": "running",
        "started_at": now - 60,
        "model": "m",
        "in_flight": 7,
        "last_error": None,
        "rows": [],
    }
    (run_dir / "status" / "shard-2-of-2.json").write_text(json.dumps(beat | {"updated_at": now}))
    (run_dir / "status" / "shard-1-of-2.json").write_text(
        json.dumps(beat | {"host": "gpu-gone", "updated_at": now - 60})
    )
    # This host, state running, but the process is gone: it was killed.
    gone = subprocess.Popen(["true"])
    gone.wait()
    (run_dir / "status" / "main.json").write_text(
        json.dumps(beat | {"host": socket.gethostname(), "pid": gone.pid, "updated_at": now})
    )
    found = {w.writer: w for w in find_writers(run_dir)}
    assert found["shard-2-of-2"].alive and not found["shard-2-of-2"].local
    assert found["shard-2-of-2"].in_flight == 7
    assert found["shard-1-of-2"].state == "lost" and not found["shard-1-of-2"].alive
    assert found["main"].state == "dead" and not found["main"].alive
    stopped = thinkeval("stop", str(run_dir))
    assert stopped.returncode == 1
    assert "gpu-elsewhere" in stopped.stderr and "stop it there" in stopped.stderr

    # A run from the Python API: its process (this test session) is no `thinkeval` command.
    (run_dir / "status" / "main.json").write_text(
        json.dumps(
            beat | {"host": socket.gethostname(), "pid": os.getpid(), "updated_at": time.time()}
        )
    )
    main_writer = {w.writer: w for w in find_writers(run_dir)}["main"]
    assert main_writer.alive and main_writer.running_here and main_writer.active
    (run_dir / "status" / "main.json").write_text(
        json.dumps(
            beat
            | {
                "host": socket.gethostname(),
                "pid": os.getpid(),
                "updated_at": time.time(),
                "state": "finished",
            }
        )
    )
    main_writer = {w.writer: w for w in find_writers(run_dir)}["main"]
    assert main_writer.state == "finished" and not main_writer.running_here
    assert not main_writer.active
    assert stop_run(run_dir, 1.0) == 1  # and above all: no SIGTERM to this session
    assert not is_thinkeval_process(os.getpid())


def test_three_shards_sharing_a_run_equal_one_process(tmp_path: Path, sim) -> None:
    server = sim(model="m", seed=31, p_long=0.25)
    tasks = small_tasks(50)
    config = write_config(
        tmp_path / "run.yaml",
        {"run": "shards", "tasks": tasks, "models": [model_entry("m", server.base_url)]},
    )
    single, shared = tmp_path / "single", tmp_path / "shared"
    assert main(["run", str(config), "--output", str(single)]) == 0

    # Three writers start together on one run directory, as on three machines sharing it.
    shards = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "thinkeval",
                "run",
                str(config),
                "--output",
                str(shared),
                "--shard",
                f"{i}/3",
            ],
            env=ENV,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in (1, 2, 3)
    ]
    for shard in shards:
        _, err = shard.communicate(timeout=240)
        assert shard.returncode == 0, err

    assert sorted(p.name for p in (shared / "journal").iterdir()) == [
        f"shard-{i}-of-3.jsonl" for i in (1, 2, 3)
    ]
    for attempt in iter_attempts(shared):
        assert attempt.shard is not None
        assert Shard.parse(attempt.shard.removeprefix("shard-").replace("-of-", "/")).owns(
            attempt.sample_id
        )
    for task in ("ceval", "boolq", "gsm8k"):
        name = f"samples/{task}.jsonl"
        assert (shared / name).read_bytes() == (single / name).read_bytes()
    assert json.loads((shared / "config.json").read_text()) == json.loads(
        (single / "config.json").read_text()
    )

    done = thinkeval("verify", str(shared))
    assert done.returncode == 0, done.stdout
    write_summary(shared)  # each shard wrote a snapshot when it ended; refresh after the last
    assert numbers(shared) == numbers(single)
    status = status_json(shared)
    assert [w["writer"] for w in status["writers"]] == [f"shard-{i}-of-3" for i in (1, 2, 3)]
    assert all(w["state"] == "finished" for w in status["writers"])
    assert status["state"] == "finished" and status["complete"]
    assert_status_matches_summary(status, shared)
    assert verify_run(shared).ok


def test_api_key_stays_out_of_a_detached_runs_files_and_log(
    tmp_path: Path, sim, detached: list[Path]
) -> None:
    secret = "sk-detached-secret-4242"
    server = sim(model="m", seed=23)
    config = write_config(
        tmp_path / "run.yaml",
        {
            "run": "key",
            "tasks": [{"name": "boolq", "limit": 20}],
            "models": [model_entry("m", server.base_url, api_key_env="TE_DETACHED_KEY")],
        },
    )
    run_dir = tmp_path / "out"
    detached.append(run_dir)
    env = dict(ENV, TE_DETACHED_KEY=secret)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "thinkeval",
            "run",
            str(config),
            "--output",
            str(run_dir),
            "--detach",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    pid = json.loads((run_dir / "run.pid").read_text())["pid"]
    wait_for(lambda: not is_thinkeval_process(pid), 90, "the detached run to finish")
    assert "exit status 0" in (run_dir / "run.log").read_text()
    files = [p for p in run_dir.rglob("*") if p.is_file()]
    assert run_dir / "run.log" in files and run_dir / "journal" / "main.jsonl" in files
    for path in files:
        assert secret.encode() not in path.read_bytes(), path
    assert secret not in proc.stdout + proc.stderr
