"""The TGI flavour (`api: tgi`, `client/profiles/tgi.py`) against a server on 127.0.0.1 that
answers as text-generation-inference's router does (its source, as the profile module cites):
a card owned by the model id, `/info` with `max_total_tokens` and `version`, `/metrics` with
`tgi_queue_size` and `tgi_batch_current_size`, `max_tokens` taken and unknown fields dropped,
no reasoning parser (the think block inside `content`), and a 422 over the window. The flavour
is its profile module and this file: no other code tests for its name."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from conftest import write_config
from stub_servers import ThreadedApp
from thinkeval.cli import check as check_cli
from thinkeval.cli import main
from thinkeval.client.endpoint import Endpoint
from thinkeval.client.profiles import detect_api, get_profile
from thinkeval.client.replies import RequestFailed
from thinkeval.client.watchdog import identity_probe
from thinkeval.config import parse_config
from thinkeval.errors import ConfigError
from thinkeval.generation import GenerationSettings
from thinkeval.store.journal import iter_attempts

MODEL = "Qwen/Qwen3-8B"
WINDOW = 4096  # --max-total-tokens
REASONING = "Six times seven: 6*7 is 42."
ANSWER = "The answer is 42."
BODIES = web.AppKey("bodies", list)
# The router's DEFAULT_GENERATION_LENGTH: only this much of a budget is checked (#3016).
CHUNK = 1024


def _prompt_tokens(body: dict[str, Any]) -> int:
    return sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))


async def _models(request: web.Request) -> web.Response:
    card = {"id": MODEL, "object": "model", "created": 0, "owned_by": MODEL}
    return web.json_response({"object": "list", "data": [card]})


async def _info(request: web.Request) -> web.Response:
    info = {
        "model_id": MODEL,
        "max_input_tokens": WINDOW - 1,
        "max_total_tokens": WINDOW,
        "router": "text-generation-router",
        "version": "3.3.6",
    }
    return web.json_response(info)


async def _metrics(request: web.Request) -> web.Response:
    text = (
        "# TYPE tgi_queue_size gauge\ntgi_queue_size 1\n"
        "# TYPE tgi_batch_current_size gauge\ntgi_batch_current_size 2\n"
        "tgi_batch_current_max_tokens 900\n"
    )
    return web.Response(text=text)


def _refusal(message: str) -> web.Response:
    error = {"error": f"Input validation error: {message}", "error_type": "validation"}
    return web.json_response(error, status=422)


async def _chat(request: web.Request) -> web.Response:
    body = await request.json()
    request.app[BODIES].append(body)
    prompt, budget = _prompt_tokens(body), int(body.get("max_tokens") or CHUNK)
    checked = min(budget, CHUNK)
    if prompt + checked > WINDOW:
        return _refusal(
            f"`inputs` tokens + `max_new_tokens` must be <= {WINDOW}. "
            f"Given: {prompt} `inputs` tokens and {checked} `max_new_tokens`"
        )
    # A budget too small for the reasoning cuts it inside the think block.
    cut = budget < 100
    content = f"<think>{REASONING[: budget // 4]}" if cut else f"<think>{REASONING}</think>{ANSWER}"
    choice = {
        "index": 0,
        "message": {"role": "assistant", "content": content},
        "logprobs": None,
        "finish_reason": "length" if cut else "stop",
    }
    usage = {"prompt_tokens": prompt, "completion_tokens": 20, "total_tokens": prompt + 20}
    reply = {
        "object": "chat.completion",
        "id": "",
        "created": 1733000000,
        "model": MODEL,
        "system_fingerprint": "3.3.6-sha-db931fc",
        "choices": [choice],
        "usage": usage,
    }
    return web.json_response(reply)


@pytest.fixture
def tgi() -> Iterator[ThreadedApp]:
    app = web.Application()
    app[BODIES] = []
    app.router.add_get("/v1/models", _models)
    app.router.add_get("/info", _info)
    app.router.add_get("/metrics", _metrics)
    app.router.add_post("/v1/chat/completions", _chat)
    with ThreadedApp(app) as server:
        yield server


def _bodies(server: ThreadedApp) -> list[dict[str, Any]]:
    return list(server.app[BODIES])


def test_check_tells_tgi_by_its_card_and_reads_the_window_at_info(
    capsys: pytest.CaptureFixture[str], tgi: ThreadedApp
) -> None:
    parser = argparse.ArgumentParser()
    check_cli.add_arguments(parser)
    code = check_cli.run(parser.parse_args(["--base-url", tgi.base_url, "--json"]))
    report = json.loads(capsys.readouterr().out)
    assert code == 0, report
    assert report["api"] == "tgi"
    assert (
        report["api_evidence"] == f"owned_by: {MODEL}, but that is the model id, as TGI's cards say"
    )
    assert (report["max_model_len"], report["window_source"]) == (
        WINDOW,
        "/info: max_total_tokens 4096",
    )
    assert report["reasoning_field"] == "content <think>"  # TGI has no reasoning parser
    assert _bodies(tgi) and all("chat_template_kwargs" not in b for b in _bodies(tgi))
    assert all(isinstance(b["max_tokens"], int) for b in _bodies(tgi))


def test_a_card_with_max_model_len_stays_vllm_though_owned_by_its_id() -> None:
    assert detect_api({"id": "m", "owned_by": "m", "max_model_len": 8192})[0] == "vllm"
    assert detect_api({"id": "m", "owned_by": "someone"})[0] is None


async def test_the_watchdog_counts_the_queue_and_the_running_batch(tgi: ThreadedApp) -> None:
    root = tgi.base_url.removesuffix("/v1")
    profile = get_profile("tgi")
    assert profile.load_path == "/metrics"
    async with aiohttp.ClientSession() as session:
        probe = identity_probe(
            session, f"{tgi.base_url}/models", root + profile.load_path, {}, profile.read_load
        )
        seen = await probe()
    assert seen.up and seen.busy == 3  # 1 queued + 2 in the batch, not the token gauge
    assert seen.started is None  # TGI exports no process start time


async def test_a_prompt_over_the_window_is_a_refusal_and_a_budget_over_it_is_taken(
    tgi: ThreadedApp,
) -> None:
    profile = get_profile("tgi")
    long = [{"role": "user", "content": "word " * (WINDOW + 10)}]
    short = [{"role": "user", "content": "What is 6*7?"}]
    async with aiohttp.ClientSession() as session:
        endpoint = Endpoint(session, tgi.base_url, None, 30.0, profile=profile)
        with pytest.raises(RequestFailed) as refused:
            await endpoint.chat(profile.request(MODEL, long, 16, GenerationSettings(), False))
        taken = await endpoint.chat(
            profile.request(MODEL, short, WINDOW * 4, GenerationSettings(), False)
        )
    failure = refused.value
    assert (failure.http_status, failure.kind, failure.refused) == (
        422,
        "context_overflow",
        "prompt_over_window",
    )
    assert (failure.window, failure.prompt_tokens) == (WINDOW, WINDOW + 10)
    assert not failure.retryable
    assert taken.reply.finish_reason == "stop"
    assert not profile.budget_counts_in_window  # so `audit` sends the long prompt, not a budget


def test_a_run_asks_with_max_tokens_only_and_records_the_content(
    tmp_path: Path, tgi: ThreadedApp, data_dir: Path
) -> None:
    model = {"name": "qwen3", "base_url": tgi.base_url, "model": MODEL, "api": "tgi"}
    task = {"name": "gsm8k", "limit": 2, "budgets": [64, 256]}
    config = write_config(
        tmp_path / "run.yaml",
        {"run": "tgi", "data_dir": str(data_dir), "tasks": [task], "models": [model]},
    )
    assert main(["run", str(config), "--output", str(tmp_path / "out")]) == 0
    asked = _bodies(tgi)
    assert sorted(b["max_tokens"] for b in asked) == [64, 64, 256, 256]  # fixed, then retry
    dropped = {"chat_template_kwargs", "thinking_token_budget", "reasoning_effort", "top_k"}
    assert not any(dropped & set(b) for b in asked)
    finished = [a for a in iter_attempts(tmp_path / "out") if a.max_tokens == 256]
    assert len(finished) == 2 and all(a.finish_reason == "stop" for a in finished)
    assert all(a.content is not None and a.content.endswith(ANSWER) for a in finished)


@pytest.mark.parametrize(
    ("setting", "says"),
    [
        ({"reasoning": {"budget": 512}}, "the tgi API has no thinking-budget control"),
        ({"reasoning": {"effort": "low"}}, "the tgi API has no reasoning-effort control"),
        (
            {"generation": {"chat_template_kwargs": {"enable_thinking": False}}},
            "chat_template_kwargs is dropped unread by TGI's Messages API",
        ),
        ({"retry": "continue"}, "which the tgi API \\(api: tgi\\) does not return"),
    ],
)
def test_what_tgi_cannot_honour_is_refused_in_the_config(
    setting: dict[str, Any], says: str
) -> None:
    model = {"name": "m", "base_url": "http://127.0.0.1:8080/v1", "api": "tgi", **setting}
    with pytest.raises(ConfigError, match=says):
        parse_config({"run": "r", "models": [model]})


def test_audit_reads_the_version_at_info_skips_top_k_and_sends_a_prompt_over_the_window(
    capsys: pytest.CaptureFixture[str], tgi: ThreadedApp
) -> None:
    parser = argparse.ArgumentParser()
    check_cli.add_arguments(parser)
    argv = ["--base-url", tgi.base_url, "--audit", "--json", "--concurrency", "2"]
    check_cli.run(parser.parse_args(["--audit-max-tokens", "256", "--api", "tgi", *argv]))
    report = json.loads(capsys.readouterr().out)
    checks = {check["id"]: check for check in report["checks"]}
    assert report["engine_version"] == "3.3.6"
    assert checks["top_k"]["status"] == "skipped"
    assert checks["top_k"]["evidence"] == "the tgi API has no top_k"
    assert checks["context_window"]["status"] == "pass", checks["context_window"]
    over = [b for b in _bodies(tgi) if _prompt_tokens(b) > WINDOW]
    assert len(over) == 1 and over[0]["max_tokens"] == 16  # the prompt, not the budget, is over
