"""Bad input from the user or the server: a short error naming the problem, a non-zero exit,
no traceback, and nothing already recorded lost."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web

from conftest import write_config
from thinkeval.cli import main
from thinkeval.client import bodies
from thinkeval.store.journal import iter_attempts

MODEL = "m"


def _card() -> dict:
    return {"object": "list", "data": [{"id": MODEL, "object": "model", "max_model_len": 40960}]}


# Each kind of broken reply a proxy or a confused server can send, with the words we must say.
BROKEN_REPLIES = {
    "html": (
        web.Response(
            status=502,
            text="<html><body><h1>502 Bad Gateway</h1></body></html>",
            content_type="text/html",
        ),
        "non-JSON body",
    ),
    "no-choices": (
        web.json_response({"id": "x", "object": "chat.completion"}),
        "reply has no 'choices'",
    ),
    "not-json": (
        web.Response(status=200, text="this is not json", content_type="text/plain"),
        "reply is not valid JSON",
    ),
    "huge": (
        web.json_response(
            {"choices": [{"message": {"content": "9" * 5000}, "finish_reason": "stop"}]}
        ),
        "reply larger than",
    ),
}


class BrokenServer:
    """A server whose /v1/models is fine and whose chat replies are all broken one way."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.url = ""
        self._ready = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(
            target=self._loop.run_until_complete, args=(self._serve(),), daemon=True
        )

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        await request.read()
        reply, _ = BROKEN_REPLIES[self.kind]
        return web.Response(status=reply.status, body=reply.body, content_type=reply.content_type)

    async def _models(self, request: web.Request) -> web.Response:
        return web.json_response(_card())

    async def _serve(self) -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_get("/v1/models", self._models)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        self.url = f"http://127.0.0.1:{runner.addresses[0][1]}/v1"
        self._stop = asyncio.Event()
        self._ready.set()
        await self._stop.wait()
        await runner.cleanup()

    def __enter__(self) -> BrokenServer:
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._stop is not None
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)


@pytest.fixture
def small_reply_cap(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(bodies, "MAX_REPLY_BYTES", 2000)
    yield


@pytest.mark.parametrize("kind", sorted(BROKEN_REPLIES))
def test_broken_server_replies_are_recorded_as_named_errors(
    tmp_path: Path, kind: str, small_reply_cap: None, capsys: pytest.CaptureFixture[str]
) -> None:
    with BrokenServer(kind) as server:
        config = write_config(
            tmp_path / "run.yaml",
            {
                "run": "broken",
                "tasks": [{"name": "boolq", "limit": 3}],
                "models": [
                    {
                        "name": MODEL,
                        "base_url": server.url,
                        "max_retries": 1,
                        "retry_backoff_s": 0.01,
                    }
                ],
            },
        )
        assert main(["run", str(config), "--output", str(tmp_path / "out")]) == 1
    attempts = list(iter_attempts(tmp_path / "out"))
    assert len(attempts) == 3
    expected = BROKEN_REPLIES[kind][1]
    assert all(a.error is not None and expected in a.error for a in attempts), attempts[0].error
    assert all(a.verdict is None for a in attempts)  # never scored as the model's answer
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "failed after retries" in err


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "thinkeval", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def test_missing_config_file_is_one_line() -> None:
    proc = run_cli("run", "/nonexistent/run.yaml")
    assert proc.returncode == 2
    assert proc.stderr.strip() == "error: /nonexistent/run.yaml: config file not found"


def test_missing_api_key_variable_stops_before_any_request(tmp_path: Path, sim) -> None:
    server = sim(model=MODEL)
    config = write_config(
        tmp_path / "run.yaml",
        {
            "run": "nokey",
            "tasks": [{"name": "boolq", "limit": 3}],
            "models": [
                {"name": MODEL, "base_url": server.base_url, "api_key_env": "TE_SURELY_UNSET_VAR"}
            ],
        },
    )
    proc = run_cli("run", str(config), "--output", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert "TE_SURELY_UNSET_VAR" in proc.stderr and "is not set" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_torn_dataset_line_names_file_and_line(tmp_path: Path, data_dir: Path, sim) -> None:
    broken = tmp_path / "data"
    shutil.copytree(data_dir, broken)
    path = broken / "boolq" / "validation.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    lines[41] = lines[41][:30] + b"\n"
    path.write_bytes(b"".join(lines))
    server = sim(model=MODEL)
    config = write_config(
        tmp_path / "run.yaml",
        {
            "run": "torn",
            "data_dir": str(broken),
            "tasks": ["boolq"],
            "models": [{"name": MODEL, "base_url": server.base_url}],
        },
    )
    proc = run_cli("run", str(config), "--output", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert f"{path}" in proc.stderr and "42" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_torn_journal_line_in_the_middle_is_named_and_kept(tmp_path: Path, sim) -> None:
    server = sim(model=MODEL, seed=2)
    config = write_config(
        tmp_path / "run.yaml",
        {
            "run": "j",
            "tasks": [{"name": "boolq", "limit": 10}],
            "models": [{"name": MODEL, "base_url": server.base_url}],
        },
    )
    run_dir = tmp_path / "out"
    assert run_cli("run", str(config), "--output", str(run_dir)).returncode == 0
    journal = run_dir / "journal" / "main.jsonl"
    lines = journal.read_bytes().splitlines(keepends=True)
    lines[3] = b'{"broken": \n'
    journal.write_bytes(b"".join(lines))
    before = journal.read_bytes()
    proc = run_cli("run", str(config), "--output", str(run_dir))
    assert proc.returncode == 2
    assert f"{journal}:4: not a valid attempt record" in proc.stderr
    assert journal.read_bytes() == before  # nothing rewritten, nothing lost


def test_changed_budgets_refuse_to_resume(tmp_path: Path, sim) -> None:
    server = sim(model=MODEL, seed=2)
    data = {
        "run": "b",
        "tasks": [{"name": "boolq", "limit": 4}],
        "models": [{"name": MODEL, "base_url": server.base_url}],
    }
    config = write_config(tmp_path / "run.yaml", data)
    run_dir = tmp_path / "out"
    assert main(["run", str(config), "--output", str(run_dir)]) == 0
    write_config(tmp_path / "run.yaml", {**data, "budgets": [1024, 8192]})
    proc = run_cli("run", str(config), "--output", str(run_dir))
    assert proc.returncode == 2
    assert "was run with budgets [2048, 8192]" in proc.stderr


def test_unreachable_server_is_named(tmp_path: Path) -> None:
    config = write_config(
        tmp_path / "run.yaml",
        {
            "run": "down",
            "tasks": [{"name": "boolq", "limit": 2}],
            "models": [
                {"name": MODEL, "base_url": "http://u:secret@127.0.0.1:9/v1", "max_retries": 0}
            ],
        },
    )
    # A directory the command created is removed after a failed start (nothing was recorded);
    # one that was there before stays, and what it was given must hold no password.
    (tmp_path / "out").mkdir()
    proc = run_cli("run", str(config), "--output", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert "cannot reach http://***@127.0.0.1:9/v1" in proc.stderr
    assert "secret" not in proc.stderr
    assert (
        json.loads((tmp_path / "out" / "config.json").read_text())["models"][0]["base_url"]
        == "http://***@127.0.0.1:9/v1"
    )


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda url: url.removesuffix("/v1"), "answered HTTP 404; did you mean {url}?"),
        (lambda url: url.replace("http://", "https://"), "the server speaks plain HTTP; use {url}"),
    ],
)
def test_a_wrong_base_url_says_what_to_use(
    tmp_path: Path, sim, capsys: pytest.CaptureFixture[str], change, says: str
) -> None:
    server = sim(model=MODEL)
    config = write_config(
        tmp_path / "run.yaml",
        {
            "run": "url",
            "tasks": [{"name": "boolq", "limit": 2}],
            "models": [{"name": MODEL, "base_url": change(server.base_url), "max_retries": 0}],
        },
    )
    assert main(["run", str(config), "--output", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    (line,) = [line for line in err.splitlines() if line.startswith("error:")]
    assert says.format(url=server.base_url) in line and "Traceback" not in err


def _make_read_only(root: Path, on: bool) -> None:
    """Make `root` and everything in it unwritable, for root too (which ignores permissions)."""
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-R", "+i" if on else "-i", str(root)], check=True)
    else:
        for path in [root, *root.rglob("*")]:
            mode = (0o555 if path.is_dir() else 0o444) if on else 0o755
            path.chmod(mode)


def test_read_only_run_directory_is_a_clear_error(tmp_path: Path, sim) -> None:
    server = sim(model=MODEL, seed=2)
    config = write_config(
        tmp_path / "run.yaml",
        {
            "run": "ro",
            "tasks": [{"name": "boolq", "limit": 4}],
            "models": [{"name": MODEL, "base_url": server.base_url}],
        },
    )
    run_dir = tmp_path / "out"
    assert main(["run", str(config), "--output", str(run_dir)]) == 0
    journal = run_dir / "journal" / "main.jsonl"
    before = journal.read_bytes()
    _make_read_only(run_dir, True)
    try:
        proc = run_cli("run", str(config), "--output", str(run_dir))
    finally:
        _make_read_only(run_dir, False)
    assert proc.returncode == 2, proc.stderr
    assert str(run_dir) in proc.stderr
    assert "Operation not permitted" in proc.stderr or "Permission denied" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert journal.read_bytes() == before
