"""Real servers' failures against the simulator's vLLM, SGLang and OpenAI profiles.

The scenarios of tests/test_llama_server.py, fast: a prompt over the context window is refused
for good (recorded once, the run completes with exit 0, the same command asks nothing again);
when only the budget overflows it is clamped; a server that hangs with connections held and is
replaced on the same port has its lost requests abandoned and asked again, and `verify` is
clean.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import ThreadedSim, write_config
from thinkeval.cli import main
from thinkeval.client.profiles import get_profile
from thinkeval.client.refusals import context_refusal, invalid_parameter
from thinkeval.sim.config import SimConfig
from thinkeval.sim.faults import Restartable
from thinkeval.store.journal import iter_attempts

PROFILES = {"vllm": "vllm-latest", "sglang": "sglang", "openai": "openai"}
WINDOW = 400


def _task(tmp_path: Path, rows: int, long_row: bool) -> Path:
    lines = [{"q": f"What is {i} plus {i}?", "a": 2 * i} for i in range(rows)]
    if long_row:
        # About 1500 simulated tokens: over the window by itself.
        lines.append({"q": "Sum these. " + "one two three four " * 300, "a": 1})
    (tmp_path / "sums.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    task = tmp_path / "sums.yaml"
    task.write_text(
        "name: sums\ndata: {file: sums.jsonl}\nfields: {question: q, answer: a}\n"
        "answer: {kind: number}\nbudgets: [1024, 4096]\n"
    )
    return task


def _config(tmp_path: Path, task: Path, base_url: str, api: str, **model: Any) -> Path:
    entry = {
        "name": "m",
        "model": "sim-qwen3",
        "base_url": base_url,
        "api": api,
        "concurrency": 4,
        "retry_backoff_s": 0.01,
        "retry_backoff_max_s": 0.2,
        **model,
    }
    data = {"run": "r", "models": [entry], "tasks": [{"file": str(task)}]}
    return write_config(tmp_path / "run.yaml", data)


def _requests(base_url: str) -> int:
    with urllib.request.urlopen(f"{base_url.removesuffix('/v1')}/sim/stats") as reply:
        return int(json.load(reply)["requests"])


@pytest.mark.parametrize("api", list(PROFILES))
def test_a_prompt_over_the_window_is_refused_once_and_the_run_completes(
    tmp_path: Path, api: str, capsys: pytest.CaptureFixture[str]
) -> None:
    task = _task(tmp_path, rows=5, long_row=True)
    config = SimConfig(port=0, profile=PROFILES[api], max_model_len=WINDOW, seed=4)
    server = ThreadedSim(config, {}).start()
    try:
        path = _config(tmp_path, task, server.base_url, api)
        out = tmp_path / "out"
        assert main(["run", str(path), "--output", str(out)]) == 0
        captured = capsys.readouterr()
        err = " ".join(captured.err.split())  # the console wraps long lines
        assert f"m: 1 sample does not fit the {WINDOW}-token window: prompt" in err
        assert "(1 refused)" in captured.out  # the accuracies it affects are flagged
        attempts = list(iter_attempts(out))
        refused = [a for a in attempts if a.refused is not None]
        assert [(a.sample_id, a.refused, a.window) for a in refused] == [
            ("sums/5", "prompt_over_window", WINDOW)
        ]
        assert refused[0].usage.prompt_tokens is not None
        assert refused[0].usage.prompt_tokens >= WINDOW
        # Every other sample: the budget clamped to the window, and recorded as such.
        answered = [a for a in attempts if a.refused is None]
        assert answered and all(a.error is None for a in answered)
        assert all(a.clamped_from == a.budget and a.max_tokens < a.budget for a in answered)
        row = json.loads((out / "summary.json").read_text())["results"][0]
        assert (row["fixed"]["refused"], row["fixed"]["error"]) == (1, 0)
        asked = _requests(server.base_url)
        assert main(["run", str(path), "--output", str(out)]) == 0
        assert _requests(server.base_url) == asked  # nothing asked again
        assert main(["verify", str(out)]) == 0
    finally:
        server.stop()


def test_a_parameter_the_server_names_is_refused_for_good() -> None:
    raw = json.dumps(
        {
            "error": {
                "message": "Unsupported value: 'temperature' does not support 0.6",
                "type": "invalid_request_error",
                "param": "temperature",
                "code": "unsupported_value",
            }
        }
    ).encode()
    failure = get_profile("openai").failure(400, raw, None)
    assert (failure.refused, failure.retryable) == ("invalid_parameter", False)
    assert (
        invalid_parameter("max_tokens=9 is too large (parameter=max_tokens, value=9)", None) is None
    )


@pytest.mark.parametrize(
    ("message", "prompt", "window"),
    [
        (
            "request (2554 tokens) exceeds the available context size (2048 tokens), try "
            "increasing it",
            2554,
            2048,
        ),
        (
            "The input (900 tokens) is longer than the model's context length (400 tokens).",
            900,
            400,
        ),
        (
            "This model's maximum context length is 400 tokens. However, your prompt contains "
            "900 input tokens, which exceeds this limit even without any output tokens.",
            900,
            400,
        ),
        (
            "This model's maximum context length is 400 tokens. However, you requested 900 "
            "tokens (900 in the messages, 0 in the completion).",
            900,
            400,
        ),
    ],
)
def test_each_flavours_window_refusal_is_read(message: str, prompt: int, window: int) -> None:
    refusal = context_refusal(message)
    assert refusal is not None
    assert (refusal.prompt_tokens, refusal.window, refusal.prompt_alone) == (prompt, window, True)


class ThreadedRestartable:
    """A `Restartable` simulator in a thread of its own, driven from the test's thread."""

    def __init__(self, config: SimConfig) -> None:
        self.server = Restartable(config)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def call(self, method: str) -> None:
        future = asyncio.run_coroutine_threadsafe(getattr(self.server, method)(), self.loop)
        future.result(30)

    def __enter__(self) -> ThreadedRestartable:
        self.thread.start()
        self.call("start")
        return self

    def __exit__(self, *exc: object) -> None:
        self.call("close")
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture
def hanging() -> Iterator[type[ThreadedRestartable]]:
    yield ThreadedRestartable


@pytest.mark.parametrize(
    ("api", "gap_s"),
    [*((api, 1.0) for api in PROFILES), ("vllm", 0.0), ("sglang", 0.0)],
)
def test_a_hung_server_replaced_on_its_port_loses_nothing(
    tmp_path: Path, api: str, gap_s: float, hanging: type[ThreadedRestartable]
) -> None:
    """SIGTERM-like: the server stops listening and holds its connections; a fresh one takes
    the port `gap_s` later (at once: no probe sees it down; its start time and its load tell).
    The requests held are abandoned and asked again; the run finishes."""
    task = _task(tmp_path, rows=16, long_row=False)
    config = SimConfig(
        port=0,
        profile=PROFILES[api],
        per_token_s=0.0005,
        short_tokens=(100, 300),
        p_long=0.0,
        seed=5,
    )
    with hanging(config) as server:
        path = _config(tmp_path, task, server.server.base_url, api, probe_interval_s=0.3)
        out = tmp_path / "out"
        journal = out / "journal" / "main.jsonl"

        def redeploy() -> None:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                if journal.exists() and journal.read_bytes().count(b"\n") >= 3:
                    break
                time.sleep(0.02)
            server.call("hang")
            time.sleep(gap_s)
            server.call("start")
            restarted.append(time.monotonic())

        restarted: list[float] = []
        thread = threading.Thread(target=redeploy)
        thread.start()
        status = main(["run", str(path), "--output", str(out)])
        finished = time.monotonic()
        thread.join()
        assert status == 0
        assert restarted and finished - restarted[0] < 30
        attempts = list(iter_attempts(out))
        abandoned = [a for a in attempts if a.abandoned]
        assert abandoned, "no request was abandoned: the hang was never seen"
        reasons = {x.reason for a in abandoned for x in a.abandoned}
        assert reasons <= {"server_restarted", "lost_at_server"}
        assert all(a.error is None for a in attempts)
        assert main(["verify", str(out)]) == 0


@pytest.mark.parametrize("api", list(PROFILES))
def test_check_prints_the_window_and_warns_when_the_longest_prompt_and_b2_do_not_fit(
    api: str, capsys: pytest.CaptureFixture[str]
) -> None:
    config = SimConfig(port=0, profile=PROFILES[api], max_model_len=1400, seed=1)
    server = ThreadedSim(config, {}).start()
    try:
        fixtures = str(Path(__file__).parent / "fixtures" / "datasets")
        argv = ["check", "--base-url", server.base_url, "--api", api, "--budgets", "64,256",
                "--tasks", "gsm8k", "--data-dir", fixtures, "--json"]  # fmt: skip
        main(argv)
    finally:
        server.stop()
    report = json.loads(capsys.readouterr().out)
    if api == "openai":  # OpenAI's cards state no window: nothing to measure against
        assert (report["max_model_len"], report["window_source"]) == (
            None,
            "not stated by the server",
        )
        return
    assert (report["max_model_len"], report["window_source"]) == (1400, "model card max_model_len")
    (warning,) = [w for w in report["warnings"] if w.startswith("gsm8k:")]
    assert (
        "the longest prompt is" in warning
        and "> the 1400-token window: such retries are clamped to" in warning
    )
