"""`thinkeval stop` never signals a process a stale record names by a reused pid.

A real unrelated process (a `sleep` this test starts) gets its pid written into a run's
heartbeat or pid file, as happens when the run died long ago and the pid was reused. `stop`
must leave it running: its start time differs from the one recorded (or it started after the
heartbeat was last written), so it is not the run's process, even when its command line looks
like thinkeval's.
"""

from __future__ import annotations

import json
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from thinkeval.cli import main
from thinkeval.store.heartbeat import process_start


@pytest.fixture
def bystander() -> Iterator[subprocess.Popen[bytes]]:
    """A real `sleep` whose command line reads `thinkeval 600`, as a run's would."""
    proc = subprocess.Popen(["thinkeval", "600"], executable="/bin/sleep")
    yield proc
    proc.kill()
    proc.wait()


def _beat(pid: int, updated_at: float, **extra: object) -> dict[str, object]:
    return {
        "pid": pid,
        "host": socket.gethostname(),
        "state": "running",
        "started_at": updated_at - 60,
        "updated_at": updated_at,
        **extra,
    }


def _write_beat(run_dir: Path, beat: dict[str, object]) -> None:
    (run_dir / "status").mkdir()
    (run_dir / "status" / "main.json").write_text(json.dumps(beat))


def _start_of(proc: subprocess.Popen[bytes]) -> int:
    start = process_start(proc.pid)
    assert start is not None
    return start


def _survives(proc: subprocess.Popen[bytes]) -> bool:
    time.sleep(0.2)  # a SIGTERM, had one been sent, has been delivered by now
    return proc.poll() is None


def test_a_stale_heartbeat_naming_a_reused_pid_signals_nothing(
    tmp_path: Path, bystander: subprocess.Popen[bytes]
) -> None:
    # Written an hour ago, before the bystander started: an older record, no start recorded.
    _write_beat(tmp_path, _beat(bystander.pid, time.time() - 3600))
    assert main(["stop", str(tmp_path), "--timeout", "1"]) == 1  # nothing of the run runs
    assert _survives(bystander)


def test_a_fresh_heartbeat_with_another_start_signals_nothing(
    tmp_path: Path, bystander: subprocess.Popen[bytes]
) -> None:
    _write_beat(tmp_path, _beat(bystander.pid, time.time(), proc_start=_start_of(bystander) - 1))
    assert main(["stop", str(tmp_path), "--timeout", "1"]) == 1
    assert _survives(bystander)


def test_a_pid_file_with_another_start_signals_nothing(
    tmp_path: Path, bystander: subprocess.Popen[bytes]
) -> None:
    record = {
        "pid": bystander.pid,
        "host": socket.gethostname(),
        "writer": "main",
        "started_at": time.time(),
        "proc_start": _start_of(bystander) + 1,
    }
    (tmp_path / "run.pid").write_text(json.dumps(record))
    assert main(["stop", str(tmp_path), "--timeout", "1"]) == 1
    assert _survives(bystander)


def test_the_recorded_process_itself_is_still_stopped(
    tmp_path: Path, bystander: subprocess.Popen[bytes]
) -> None:
    """The check names the run's own process exactly: with its start recorded, it is stopped."""
    _write_beat(tmp_path, _beat(bystander.pid, time.time(), proc_start=_start_of(bystander)))
    assert main(["stop", str(tmp_path), "--timeout", "5"]) == 0
    assert bystander.wait(5) is not None
