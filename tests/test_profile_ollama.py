"""The Ollama flavour (`api: ollama`, `client/profiles/ollama.py`) against a server
speaking Ollama's OpenAI-compatible `/v1` as its docs and code describe it: cards owned by
`library`, the reasoning in the message's (and the stream delta's) `reasoning` field,
`reasoning_effort` for thinking, fields it does not know dropped, a missing model a 404 "not
found, try pulling it first". Adding the flavour touched its profile and this file only."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from conftest import write_config
from thinkeval.cli import main
from thinkeval.client.profiles import detect_api, get_profile
from thinkeval.config import parse_config
from thinkeval.errors import ConfigError
from thinkeval.ops import check
from thinkeval.store.journal import iter_attempts

MODEL = "qwen3:8b"
REASONING = "Six times seven: 6*7 is 42. So the answer is 42."
ANSWER = "The answer is 42."


class OllamaV1:
    """Ollama's `/v1` on 127.0.0.1, in its own thread: it keeps every chat request body."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self._loop = asyncio.new_event_loop()
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._runner: web.AppRunner | None = None
        self.base_url = ""

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        app = web.Application()
        app.router.add_get("/v1/models", self._models)
        app.router.add_post("/v1/chat/completions", self._chat)
        self._runner = web.AppRunner(app, access_log=None)
        self._loop.run_until_complete(self._runner.setup())
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        self._loop.run_until_complete(site.start())
        self.base_url = f"http://127.0.0.1:{self._runner.addresses[0][1]}/v1"
        self._started.set()
        self._loop.run_forever()

    def __enter__(self) -> OllamaV1:
        self._thread.start()
        assert self._started.wait(10), "the server did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._runner is not None
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    async def _models(self, request: web.Request) -> web.Response:
        card = {"id": MODEL, "object": "model", "created": 1733000000, "owned_by": "library"}
        return web.json_response({"object": "list", "data": [card]})

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.bodies.append(body)
        if body.get("model") != MODEL:
            error = {
                "message": f'model "{body.get("model")}" not found, try pulling it first',
                "type": "api_error",
                "param": None,
                "code": None,
            }
            return web.json_response({"error": error}, status=404)
        # A budget too small for the reasoning cuts it: no answer, finish_reason "length".
        budget = int(body.get("max_tokens") or 4096)
        cut = budget < 100
        reasoning = REASONING[: budget // 4] if cut else REASONING
        content = "" if cut else ANSWER
        finish = "length" if cut else "stop"
        usage = {"prompt_tokens": 40, "completion_tokens": min(budget, 60), "total_tokens": 100}
        base = {"id": "chatcmpl-7", "created": int(time.time()), "model": MODEL}
        base["system_fingerprint"] = "fp_ollama"
        if not body.get("stream"):
            message = {"role": "assistant", "content": content, "reasoning": reasoning}
            choice = {"index": 0, "message": message, "finish_reason": finish}
            reply = {**base, "object": "chat.completion", "choices": [choice], "usage": usage}
            return web.json_response(reply)
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        deltas: list[dict[str, Any]] = [
            {"role": "assistant", "content": "", "reasoning": reasoning[:10]},
            {"role": "assistant", "content": "", "reasoning": reasoning[10:]},
            {"role": "assistant", "content": content},
        ]
        for number, delta in enumerate(deltas):
            last = number == len(deltas) - 1
            choice = {"index": 0, "delta": delta, "finish_reason": finish if last else None}
            chunk = {**base, "object": "chat.completion.chunk", "choices": [choice]}
            await response.write(f"data: {json.dumps(chunk)}\n\n".encode())
        tail = {**base, "object": "chat.completion.chunk", "choices": [], "usage": usage}
        await response.write(f"data: {json.dumps(tail)}\n\ndata: [DONE]\n\n".encode())
        await response.write_eof()
        return response


@pytest.fixture
def ollama() -> Iterator[OllamaV1]:
    with OllamaV1() as server:
        yield server


async def test_check_tells_ollama_by_its_card_and_speaks_its_fields(ollama: OllamaV1) -> None:
    report = await check.check_server(ollama.base_url, MODEL, (2048, 8192))
    assert report.ok, report.reason
    assert (report.api, report.api_evidence) == ("ollama", "owned_by: library")
    assert report.reasoning_field == "reasoning"
    assert report.window_source == "not stated by the server"
    assert ollama.bodies and all("chat_template_kwargs" not in b for b in ollama.bodies)
    assert {"max_tokens", "model", "messages"} <= set(ollama.bodies[-1])
    assert detect_api({"id": MODEL, "owned_by": "library", "max_model_len": 8192})[0] == "vllm"


def test_a_missing_model_is_the_model_missing_kind_not_a_retry() -> None:
    raw = json.dumps(
        {"error": {"message": 'model "qwen9" not found, try pulling it first', "type": "api_error"}}
    ).encode()
    failure = get_profile("ollama").failure(404, raw, None)
    assert failure.kind == "model_missing" and not failure.retryable
    assert "try pulling it first" in failure.message


def test_a_run_asks_with_reasoning_effort_and_records_the_reasoning(
    tmp_path: Path, ollama: OllamaV1, data_dir: Path
) -> None:
    model = {
        "name": "qwen3",
        "base_url": ollama.base_url,
        "model": MODEL,
        "api": "ollama",
        "stream": True,
        "reasoning": {"effort": "low"},
    }
    task = {"name": "gsm8k", "limit": 3, "budgets": [64, 256]}
    config = write_config(
        tmp_path / "run.yaml",
        {"run": "ollama", "data_dir": str(data_dir), "tasks": [task], "models": [model]},
    )
    assert main(["run", str(config), "--output", str(tmp_path / "out")]) == 0
    asked = [b for b in ollama.bodies if b.get("model") == MODEL]
    assert sorted(b["max_tokens"] for b in asked) == [64] * 3 + [256] * 3  # fixed, then retry
    assert all(b["reasoning_effort"] == "low" and b["stream"] for b in asked)
    assert not any({"chat_template_kwargs", "thinking_token_budget"} & set(b) for b in asked)
    attempts = list(iter_attempts(tmp_path / "out"))
    finished = [a for a in attempts if a.max_tokens == 256]
    assert len(finished) == 3 and all(a.reasoning == REASONING for a in finished)
    assert all(a.content == ANSWER and a.finish_reason == "stop" for a in finished)


@pytest.mark.parametrize(
    ("setting", "says"),
    [
        ({"reasoning": {"budget": 512}}, "the ollama API has no thinking-budget control"),
        (
            {"generation": {"chat_template_kwargs": {"enable_thinking": False}}},
            "chat_template_kwargs is dropped unread by Ollama's OpenAI API",
        ),
    ],
)
def test_what_ollama_cannot_honour_is_refused_in_the_config(
    setting: dict[str, Any], says: str
) -> None:
    model = {"name": "m", "base_url": "http://127.0.0.1:11434/v1", "api": "ollama", **setting}
    with pytest.raises(ConfigError, match=says):
        parse_config({"run": "r", "models": [model]})
