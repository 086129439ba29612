"""No wait is silent: a server's huge Retry-After is capped and said, and a server that accepts
requests and never answers (hung) is named with what is waited on, by `run` and by `check`,
which both end within a bounded time.

The servers are real HTTP servers on 127.0.0.1 (tests/stub_servers.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import write_config
from stub_servers import ThreadedApp, hung_app, refusing_app
from thinkeval.cli import main
from thinkeval.ops import patience
from thinkeval.run.live import wait_note_s


def _config(tmp_path: Path, base_url: str, **model: Any) -> Path:
    (tmp_path / "q.jsonl").write_text(
        "".join(json.dumps({"q": f"What is {i}?", "a": i}) + "\n" for i in range(2))
    )
    (tmp_path / "q.yaml").write_text(
        "name: q\ndata: {file: q.jsonl}\nfields: {question: q, answer: a}\n"
        "answer: {kind: number}\nbudgets: [64, 128]\n"
    )
    entry = {"name": "m", "base_url": base_url, **model}
    data = {"run": "r", "models": [entry], "tasks": [{"file": str(tmp_path / "q.yaml")}]}
    return write_config(tmp_path / "run.yaml", data)


def _last_error(run_dir: Path) -> str:
    try:
        beat = json.loads((run_dir / "status" / "main.json").read_text())
    except (OSError, ValueError):
        return ""
    return str(beat.get("last_error") or "")


def test_a_huge_retry_after_is_capped_and_said_on_screen_and_in_the_heartbeat(
    tmp_path: Path,
) -> None:
    busy = {"error": {"message": "server busy", "type": "rate_limit_error", "code": 429}}
    app = refusing_app(429, busy, headers={"Retry-After": "999999"})
    with ThreadedApp(app) as server:
        config = _config(
            tmp_path, server.base_url, retry_after_max_s=3, max_retries=1, retry_backoff_s=0.01
        )
        out = tmp_path / "out"
        command = [sys.executable, "-m", "thinkeval", "run", str(config), "--output", str(out)]
        run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            said = ""
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and run.poll() is None and not said:
                said = _last_error(out) if "Retry-After" in _last_error(out) else ""
                time.sleep(0.05)
            _, err = run.communicate(timeout=60)  # a run that honoured 999999 s never ends
        finally:
            run.kill()
    shown = f"HTTP 429: server busy from {server.base_url}: Retry-After 999999 s, capped at 3 s"
    assert shown in said  # the heartbeat's last_error, while it waited
    assert shown in " ".join(err.split())  # on screen
    assert server.seen.requests == 4  # each sample asked twice: once, and after the wait


def test_a_run_against_a_hung_server_says_what_it_waits_on_and_ends(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ThreadedApp(hung_app()) as server:
        config = _config(tmp_path, server.base_url, timeout_s=6, max_retries=0)
        started = time.monotonic()
        code = main(["run", str(config), "--output", str(tmp_path / "out")])
        took = time.monotonic() - started
    err = " ".join(capsys.readouterr().err.split())
    assert f"m: waiting on 2 chat requests to {server.base_url}, the oldest sent" in err
    assert "(given up at 6 s)" in err
    assert code != 0 and took < 30  # both timed out, recorded as errors
    # By default (no timeout_s) the line comes every 30 s; a short timeout_s brings it sooner.
    assert (wait_note_s(None), wait_note_s(3600), wait_note_s(6)) == (30, 30, 2)


def test_check_against_a_hung_server_says_what_it_waits_on_and_fails(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The default limit of the first probe is a few tens of seconds, not the old 600 s ...
    assert 20 <= patience.probe_timeout_s(256, None) <= 60
    # ... shortened here so the test is quick: notes every 0.5 s, the first probe gives up at 2 s.
    monkeypatch.setattr(patience, "NOTE_S", 0.5)
    monkeypatch.setattr(patience, "PROBE_BASE_S", 2 - 256 / patience.PROBE_RATE)
    with ThreadedApp(hung_app()) as server:
        started = time.monotonic()
        code = main(["check", "--base-url", server.base_url])
        took = time.monotonic() - started
    err = " ".join(capsys.readouterr().err.split())
    waiting = f"waiting on the probe at max_tokens=256 (POST {server.base_url}/chat/completions)"
    assert waiting in err and "gives up after 2 s" in err
    assert "the probe at max_tokens=256 failed: no reply within 2 s" in err
    assert code == 1 and took < 20
