"""`thinkeval check` over real HTTP against the simulator, one server era at a time."""

from __future__ import annotations

import argparse
import json
import socket
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import msgspec
import pytest
from aiohttp import web

from thinkeval.cli import check as check_cli
from thinkeval.cli import main
from thinkeval.ops import check

# Every prompt answered after a short think: the probe finishes at the first or second rung.
ANSWERS = {"p_long": 0.0, "p_never": 0.0, "p_wrong": 0.0, "p_malformed": 0.0, "p_empty": 0.0}


def stats(base_url: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{base_url.removesuffix('/v1')}/sim/stats") as resp:
        return json.load(resp)


def run_check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser()
    check_cli.add_arguments(parser)
    code = check_cli.run(parser.parse_args(list(argv)))
    out, err = capsys.readouterr()
    return code, out, err


def check_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any], str]:
    code, out, err = run_check(capsys, *argv, "--json")
    return code, json.loads(out), err


@pytest.mark.parametrize(
    ("profile", "field", "content", "reasoning_tokens"),
    [
        ("vllm-0.10", "reasoning_content", "text", False),
        ("vllm-0.13", "reasoning+reasoning_content", "text", False),
        ("vllm-latest", "reasoning", "text", True),
        ("sglang", "reasoning_content", "text", True),
        ("openai", "none", "text", True),
    ],
)
def test_each_era_is_reported(
    capsys, sim, profile: str, field: str, content: str, reasoning_tokens: bool
) -> None:
    server = sim(model="qwen3-8b", profile=profile, seed=3, **ANSWERS)
    code, report, err = check_json(capsys, "--base-url", server.base_url, "--model", "qwen3-8b")
    assert code == 0, err
    assert report["ok"] is True and report["reason"] is None
    assert report["model"] == "qwen3-8b" and report["served_models"] == ["qwen3-8b"]
    assert report["thinking"] is True
    assert report["reasoning_field"] == field
    assert report["content_field"] == content
    assert report["finish_reason"] == "stop"
    assert report["reasoning_tokens_reported"] is reasoning_tokens
    assert report["prompt_tokens"] > 0 and report["completion_tokens"] > 0
    assert report["latency_s"] >= 0
    assert report["smallest_budget"] in (256, 1024)
    assert report["probes"][-1]["verdict"] in ("correct", "wrong")
    # and, where the API returns token ids, one chat and one continuation for `retry: continue`
    continues = report["continue_ok"]
    assert continues is (profile != "sglang" and profile != "openai")
    assert stats(server.base_url)["requests"] == len(report["probes"]) + 2 * continues
    api = "vllm" if profile.startswith("vllm") else profile
    assert report["api"] == api
    assert report["api_evidence"] == f"owned_by: {'system' if api == 'openai' else api}"
    if profile == "openai":
        assert report["max_model_len"] is None  # OpenAI's cards carry no context length
        assert any("hidden" in w for w in report["warnings"])
    else:
        assert report["max_model_len"] == 40960 and report["root"] == "qwen3-8b"


def test_human_output_names_what_it_found(capsys, sim) -> None:
    server = sim(model="qwen3-8b", profile="vllm-0.10", **ANSWERS)
    code, out, _ = run_check(capsys, "--base-url", server.base_url)
    assert code == 0
    assert "qwen3-8b (the only one served)" in out
    assert "reasoning_content" in out and "smallest budget that finishes" in out
    assert "api: vllm  (owned_by: vllm)" in out
    assert out.strip().splitlines()[-1].endswith("in the config: api: vllm")


def test_cut_off_replies_show_the_legacy_think_in_content(capsys, sim) -> None:
    # vLLM 0.9-0.16 put a think block cut by the limit into content, tags included: the probe
    # table shows it per rung, the summary shows the finished reply's field.
    server = sim(profile="vllm-0.10", short_tokens=(600, 900), **ANSWERS)
    code, report, _ = check_json(capsys, "--base-url", server.base_url)
    assert code == 0
    first, last = report["probes"][0], report["probes"][-1]
    assert first["finish_reason"] == "length" and first["reasoning_field"] == "content <think>"
    assert last["finish_reason"] == "stop" and report["reasoning_field"] == "reasoning_content"
    assert report["smallest_budget"] == 1024


def test_wrong_model_fails_with_a_clear_reason(capsys, sim) -> None:
    server = sim(model="qwen3-8b")
    code, report, err = check_json(capsys, "--base-url", server.base_url, "--model", "qwen3-32b")
    assert code == 1 and report["ok"] is False
    assert "serves qwen3-8b, not 'qwen3-32b'" in report["reason"]
    assert "check failed:" in err and "qwen3-32b" in err
    assert stats(server.base_url)["requests"] == 0  # no probe for the wrong model


def test_unreachable_server(capsys) -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    code, _, err = run_check(capsys, "--base-url", f"http://127.0.0.1:{port}/v1")
    assert code == 1
    assert f"cannot reach http://127.0.0.1:{port}/v1" in err and "Is the server up?" in err
    assert len(err.strip().splitlines()) == 1


def test_never_finishing_model(capsys, sim) -> None:
    server = sim(profile="vllm-latest", **{**ANSWERS, "p_never": 1.0})
    code, report, err = check_json(capsys, "--base-url", server.base_url)
    assert code == 1
    assert [p["max_tokens"] for p in report["probes"]] == [256, 1024, 4096, 8192]
    assert {p["finish_reason"] for p in report["probes"]} == {"length"}
    assert report["smallest_budget"] is None
    assert "did not finish with a legal answer within 8192" in err

    code, out, _ = run_check(capsys, "--base-url", server.base_url, "--budgets", "1024,2048")
    assert code == 1 and "none within 2048" in out


def test_finished_without_an_answer_says_what_came_back(capsys, sim) -> None:
    server = sim(profile="sglang", **{**ANSWERS, "p_empty": 1.0})
    code, report, err = check_json(capsys, "--base-url", server.base_url)
    assert code == 1
    assert report["content_field"] == "empty"  # SGLang sends "" where vLLM sends null
    assert "finished at max_tokens=256 but without a legal final answer" in err

    null = sim(profile="vllm-latest", **{**ANSWERS, "p_empty": 1.0})
    _, report, _ = check_json(capsys, "--base-url", null.base_url)
    assert report["content_field"] == "null"


def test_small_context_window_clamps_the_probe_and_warns(capsys, sim) -> None:
    # vLLM 0.10 rejects prompt + max_tokens > max_model_len: the 4096 rung must be clamped.
    server = sim(profile="vllm-0.10", max_model_len=1500, short_tokens=(1100, 1300), **ANSWERS)
    code, report, err = check_json(capsys, "--base-url", server.base_url)
    assert code == 0, err
    room = 1500 - report["prompt_tokens"]
    assert [p["max_tokens"] for p in report["probes"]] == [256, 1024, room]
    assert report["probes"][-1]["rung"] == 4096
    assert report["smallest_budget"] == room
    assert report["max_model_len"] == 1500
    assert any("max_model_len 1500" in w for w in report["warnings"])


def test_thinking_off_is_reported() -> None:
    # A reply with no reasoning anywhere and no reasoning_tokens: the template ignored
    # enable_thinking, or the model does not think.
    report = check.CheckReport(base_url="http://x/v1", budgets=(2048, 8192), model="m")
    report.probes = [
        check.Probe(
            max_tokens=256,
            rung=256,
            finish_reason="stop",
            content_field="text",
            reasoning_tokens=0,
            reasoning_tokens_reported=True,
            verdict="correct",
        )
    ]
    report.smallest_budget = 256
    check._conclude(report)
    assert report.ok and report.thinking is False and report.reasoning_field == "none"
    assert any("thinking looks off" in w for w in report.warnings)


def test_raw_fields() -> None:
    assert check.reasoning_field({"content": "x", "reasoning": "r"}) == "reasoning"
    assert check.reasoning_field({"content": "</think>\n\n4"}) == "content <think>"
    assert check.reasoning_field({"content": "4", "reasoning_content": ""}) == "none"
    assert check.content_field({"content": None}) == "null"
    assert check.content_field({"content": ""}) == "empty"
    assert check.content_field({"role": "assistant"}) == "absent"


def test_api_key_is_sent_and_never_printed(capsys, sim, monkeypatch) -> None:
    server = sim(**ANSWERS)
    monkeypatch.setenv("THINKEVAL_TEST_KEY", "sk-secret-123")
    code, out, err = run_check(
        capsys, "--base-url", server.base_url, "--api-key-env", "THINKEVAL_TEST_KEY"
    )
    assert code == 0
    assert "sk-secret-123" not in out + err


def test_missing_api_key_variable_is_bad_input(sim) -> None:
    from thinkeval.errors import ConfigError

    parser = argparse.ArgumentParser()
    check_cli.add_arguments(parser)
    args = parser.parse_args(["--base-url", "http://127.0.0.1:1/v1", "--api-key-env", "NOPE_X"])
    with pytest.raises(ConfigError, match="NOPE_X"):
        check_cli.run(args)


def test_url_credentials_are_redacted(capsys) -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    code, report, err = check_json(capsys, "--base-url", f"http://bob:hunter2@127.0.0.1:{port}/v1")
    assert code == 1
    assert "hunter2" not in json.dumps(report) + err
    assert report["base_url"] == f"http://***@127.0.0.1:{port}/v1"


def test_budget_ladder_and_bad_budgets() -> None:
    assert check.budget_ladder(8192) == [256, 1024, 4096, 8192]
    assert check.budget_ladder(4096) == [256, 1024, 4096]
    assert check.budget_ladder(100) == [100]
    parser = argparse.ArgumentParser()
    check_cli.add_arguments(parser)
    with pytest.raises(SystemExit):
        parser.parse_args(["--base-url", "http://x/v1", "--budgets", "8192,2048"])


def test_help_has_an_example() -> None:
    assert "example:" in check_cli.EPILOG and "thinkeval check --base-url" in check_cli.EPILOG
    parser = argparse.ArgumentParser(description=check_cli.DESCRIPTION, epilog=check_cli.EPILOG)
    check_cli.add_arguments(parser)
    assert "--budgets" in parser.format_help()


async def test_rejected_key_names_the_fix_and_hides_the_key() -> None:
    from aiohttp import web

    async def models(request: web.Request) -> web.Response:
        key = request.headers.get("Authorization", "").removeprefix("Bearer ")
        return web.json_response({"error": {"message": f"invalid key {key}"}}, status=401)

    app = web.Application()
    app.router.add_get("/v1/models", models)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        report = await check.check_server(
            f"http://127.0.0.1:{port}/v1", None, (2048, 8192), api_key="sk-leaky-1"
        )
    finally:
        await runner.cleanup()
    assert not report.ok and report.reason is not None
    assert "HTTP 401" in report.reason and "--api-key-env" in report.reason
    assert b"sk-leaky-1" not in msgspec.json.encode(report)


@asynccontextmanager
async def gateway(owned_by: str) -> AsyncIterator[str]:
    """A server in front of an OpenAI reasoning model whose card does not say so: it refuses
    max_tokens as OpenAI does, and answers max_completion_tokens."""

    async def models(request: web.Request) -> web.Response:
        return web.json_response({"data": [{"id": "o4-mini", "owned_by": owned_by}]})

    async def chat(request: web.Request) -> web.Response:
        body = await request.json()
        if "max_tokens" in body or "chat_template_kwargs" in body:
            error = {
                "message": "Unsupported parameter: 'max_tokens' is not supported with this "
                "model. Use 'max_completion_tokens' instead.",
                "type": "invalid_request_error",
                "param": "max_tokens",
                "code": "unsupported_parameter",
            }
            return web.json_response({"error": error}, status=400)
        message = {"role": "assistant", "content": "The answer is 12"}
        usage = {
            "prompt_tokens": 30,
            "completion_tokens": 90,
            "completion_tokens_details": {"reasoning_tokens": 80},
        }
        return web.json_response(
            {
                "model": "o4-mini",
                "usage": usage,
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            }
        )

    app = web.Application()
    app.router.add_get("/v1/models", models)
    app.router.add_post("/v1/chat/completions", chat)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    try:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}/v1"
    finally:
        await runner.cleanup()


async def test_a_refusal_of_max_tokens_switches_to_the_openai_profile() -> None:
    async with gateway("acme") as url:
        report = await check.check_server(url, None, (2048, 8192))
        forced = await check.check_server(url, None, (2048, 8192), api="vllm")
    assert report.ok, report.reason
    assert (report.api, report.api_evidence) == (
        "openai",
        "HTTP 400 unsupported_parameter for max_tokens",
    )
    assert [p.max_tokens for p in report.probes] == [256]  # the refused probe is not kept
    assert not forced.ok and forced.api == "vllm" and forced.api_evidence == "--api"
    assert forced.reason is not None and "set `api: openai`" in forced.reason


async def test_forcing_another_api_than_the_card_shows_warns() -> None:
    async with gateway("system") as url:
        report = await check.check_server(url, None, (2048, 8192), api="openai")
        detected = await check.check_server(url, None, (2048, 8192))
    assert report.ok and report.warnings == [
        "the reasoning is hidden (only usage.reasoning_tokens tells it exists); it cannot be "
        "audited"
    ]
    assert detected.api == "openai" and detected.api_evidence == "owned_by: system"
    async with gateway("vllm") as url:
        report = await check.check_server(url, None, (2048, 8192), api="openai")
    assert report.ok
    assert "owned_by: vllm, which looks like api: vllm, but --api openai" in report.warnings[0]


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("", "--base-url '' is empty"),
        ("localhost:8000/v1", "has no scheme: did you mean 'http://localhost:8000/v1'?"),
        ("ftp://127.0.0.1/v1", "uses ftp://, but only http:// and https://"),
        ("http:///v1", "has no host"),
    ],
)
def test_a_url_that_cannot_be_asked_is_one_line_of_bad_input(
    capsys: pytest.CaptureFixture[str], url: str, says: str
) -> None:
    assert main(["check", "--base-url", url]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and says in err


def test_https_to_a_plain_http_server_and_a_missing_v1_are_named(
    capsys: pytest.CaptureFixture[str], sim
) -> None:
    server = sim(**ANSWERS)
    plain = server.base_url
    assert main(["check", "--base-url", plain.replace("http://", "https://")]) == 1
    _, err = capsys.readouterr()
    assert err.count("\n") == 1 and f"the server speaks plain HTTP; use {plain}" in err
    assert main(["check", "--base-url", plain.removesuffix("/v1")]) == 1
    _, err = capsys.readouterr()
    assert err.count("\n") == 1 and f"did you mean {plain}?" in err
