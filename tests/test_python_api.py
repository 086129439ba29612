"""The Python API: docs/python-api.md's examples run as written against the simulator, and
the API agrees with the command line."""

from __future__ import annotations

import os
import re
import signal
import sys
import threading
import time
from pathlib import Path
from types import FrameType

import msgspec
import pytest

import thinkeval
from thinkeval.cli import main

DOC = Path(__file__).parent.parent / "docs" / "python-api.md"
DOC_URL = "http://127.0.0.1:8000/v1"


def code_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)


def test_the_python_api_page_runs_as_written(
    tmp_path: Path, sim, monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    server = sim(model="sim-qwen3", seed=5)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("THINKEVAL_DATA_DIR", str(data_dir))
    blocks = code_blocks(DOC.read_text("utf-8"))
    assert len(blocks) >= 6 and all(DOC_URL in b for b in blocks[1:3])
    namespace: dict[str, object] = {}
    for number, block in enumerate(blocks, 1):
        code = compile(
            block.replace(DOC_URL, server.base_url), f"{DOC.name} block {number}", "exec"
        )
        exec(code, namespace)
    run = thinkeval.load_run(tmp_path / "runs" / "notebook-try")
    assert {r.task for r in run.results} == {"gsm8k", "boolq"}


def test_the_api_and_the_command_line_give_the_same_numbers(
    tmp_path: Path, sim, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = sim(model="m", seed=8)
    monkeypatch.setenv("THINKEVAL_DATA_DIR", str(data_dir))
    api = thinkeval.evaluate(
        base_url=server.base_url, tasks=["ceval"], limit=15, output=tmp_path / "api"
    )
    assert (
        main(
            [
                "run",
                "--base-url",
                server.base_url,
                "--tasks",
                "ceval",
                "--limit",
                "15",
                "--output",
                str(tmp_path / "cli"),
            ]
        )
        == 0
    )
    cli = thinkeval.load_run(tmp_path / "cli")
    assert [msgspec.structs.asdict(r) for r in api.results] == [
        msgspec.structs.asdict(r) for r in cli.results
    ]
    outcomes = list(cli.samples())
    assert len(outcomes) == 15
    result = cli.result("m", "ceval")
    assert sum(o.fixed == "correct" for o in outcomes) == result.fixed.correct
    assert sum(o.retried for o in outcomes) == result.retry.candidates


def test_a_config_and_run_flags_do_not_mix(tmp_path: Path) -> None:
    with pytest.raises(thinkeval.ThinkevalError, match="limit describe a run from flags"):
        thinkeval.evaluate({"run": "r", "models": []}, limit=3)


def test_inside_a_running_event_loop_evaluate_points_to_evaluate_async() -> None:
    import asyncio

    async def in_a_notebook() -> None:
        with pytest.raises(RuntimeError, match=r"await thinkeval\.evaluate_async"):
            thinkeval.evaluate(base_url="http://127.0.0.1:9/v1")

    asyncio.run(in_a_notebook())


def test_dataframes_without_pandas_name_the_extra(
    tmp_path: Path, sim, monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    server = sim(model="m")
    monkeypatch.setenv("THINKEVAL_DATA_DIR", str(data_dir))
    run = thinkeval.evaluate(
        base_url=server.base_url, tasks="gsm8k", limit=2, output=tmp_path / "out"
    )
    monkeypatch.setitem(sys.modules, "pandas", None)  # makes `import pandas` fail
    with pytest.raises(ImportError, match=r"pip install 'thinkeval\[pandas\]'"):
        run.attempts_frame()


def test_loading_something_that_is_not_a_run_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(
        thinkeval.ThinkevalError,
        match=r"config\.json: not found; is this a "
        r"thinkeval run directory",
    ):
        thinkeval.load_run(tmp_path)


def test_evaluate_leaves_the_callers_signal_handlers_in_place(
    tmp_path: Path, sim, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A notebook's SIGINT/SIGTERM handlers stay its own during and after `thinkeval.evaluate()`:
    only the command line stops a run on a signal (tests/test_user_errors.py, the detached run's
    `thinkeval stop` in tests/test_operations.py)."""
    server = sim(model="m", seed=9, per_token_s=0.002)
    monkeypatch.setenv("THINKEVAL_DATA_DIR", str(data_dir))
    received: list[int] = []

    def mine(signum: int, frame: FrameType | None) -> None:
        received.append(signum)

    before = {sig: signal.signal(sig, mine) for sig in (signal.SIGINT, signal.SIGTERM)}
    journal = tmp_path / "api" / "journal" / "main.jsonl"
    sent = threading.Event()

    def term_mid_run() -> None:
        deadline = time.monotonic() + 60
        while not (journal.exists() and journal.read_bytes().count(b"\n") >= 2):
            if time.monotonic() > deadline:
                return
            time.sleep(0.02)
        os.kill(os.getpid(), signal.SIGTERM)
        sent.set()

    sender = threading.Thread(target=term_mid_run)
    try:
        sender.start()
        run = thinkeval.evaluate(
            base_url=server.base_url, tasks="gsm8k", limit=20, output=tmp_path / "api"
        )
        sender.join()
        handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
    assert sent.is_set(), "the run ended before a second attempt was recorded"
    assert received == [signal.SIGTERM]  # the caller's handler got it, not the run
    assert handlers == {signal.SIGINT: mine, signal.SIGTERM: mine}
    (result,) = run.results
    assert result.samples == 20 and result.complete  # the signal did not stop the run
