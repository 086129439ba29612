"""The simulator over real HTTP on 127.0.0.1: wire shapes per era, behaviour, faults, queueing."""

from __future__ import annotations

import asyncio
import functools
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from typing import Any

import aiohttp
import orjson
import pytest

from thinkeval.records import Sample
from thinkeval.sim import PROFILES, SimConfig, answer_key_from_samples, serve
from thinkeval.sim.behaviour import plan_for
from thinkeval.sim.config import parse_task_shape
from thinkeval.sim.text import tokenize

# Every prompt answered correctly after a short think: the baseline for shape tests.
ALWAYS_RIGHT = {"p_long": 0.0, "p_never": 0.0, "p_wrong": 0.0, "p_malformed": 0.0, "p_empty": 0.0}
NEVER_ENDS = {**ALWAYS_RIGHT, "p_never": 1.0}

VLLM_MESSAGE = "role content refusal annotations audio function_call"
MESSAGE_KEYS = {
    "vllm-0.10": f"{VLLM_MESSAGE} tool_calls reasoning_content",
    "vllm-0.13": f"{VLLM_MESSAGE} tool_calls reasoning reasoning_content",
    "vllm-latest": f"{VLLM_MESSAGE} reasoning",  # empty tool_calls omitted from 0.24
    "sglang": "role content reasoning_content tool_calls",
    "openai": "role content refusal annotations",
}


def gsm8k_sample(i: int) -> Sample:
    question = f"Question: Tom has {i} apples and buys {i + 3} more. How many now?"
    exemplar = (
        {"role": "user", "content": "Question: 1+1?\nLet's think step by step\nAnswer:"},
        {"role": "assistant", "content": "1+1=2.\nThe answer is 2"},
    )
    messages = (
        *exemplar,
        {"role": "user", "content": f"{question}\nLet's think step by step\nAnswer:"},
    )
    return Sample(f"gsm8k/{i}", "gsm8k", messages, str(2 * i + 3))


def boolq_sample(i: int) -> Sample:
    content = f"Passage {i} about rivers.\nQuestion: is river {i} long?\nA. Yes\nB. No\nAnswer:"
    return Sample(f"boolq/{i}", "boolq", ({"role": "user", "content": content},), "AB"[i % 2])


def ceval_sample(i: int) -> Sample:
    content = (
        "以下是中国关于法学考试的单项选择题，请选出其中的正确答案。回答的最后一行应采用以下格式："
        "”answer:$LETTER“（不带引号），其中LETTER 是ABCD之一。"
        f"\n\n第{i}题\nA. 甲\nB. 乙\nC. 丙\nD. 丁"
    )
    return Sample(f"ceval/law/{i}", "ceval", ({"role": "user", "content": content},), "ABCD"[i % 4])


def request_body(
    sample: Sample, max_tokens: int | None = 8192, *, profile: str = "", **extra: Any
) -> dict[str, Any]:
    """A chat request; the budget under the name `profile`'s server takes (OpenAI refuses
    `max_tokens`)."""
    body: dict[str, Any] = {"model": "sim-qwen3", "messages": list(sample.messages), **extra}
    if max_tokens is not None:
        body["max_completion_tokens" if profile == "openai" else "max_tokens"] = max_tokens
    return body


async def post(
    session: aiohttp.ClientSession, base_url: str, body: dict[str, Any], **kwargs: Any
) -> tuple[int, dict[str, Any]]:
    async with session.post(f"{base_url}/chat/completions", json=body, **kwargs) as response:
        return response.status, orjson.loads(await response.read())


async def get_json(session: aiohttp.ClientSession, url: str) -> dict[str, Any]:
    async with session.get(url) as response:
        assert response.status == 200
        return orjson.loads(await response.read())


def root_of(base_url: str) -> str:
    return base_url.removesuffix("/v1")


def reasoning_of(message: dict[str, Any]) -> str | None:
    return message.get("reasoning") or message.get("reasoning_content")


async def read_stream(
    session: aiohttp.ClientSession, base_url: str, body: dict[str, Any]
) -> list[dict[str, Any] | str]:
    """The parsed SSE events of a streamed reply ("[DONE]" kept as a string)."""
    async with session.post(f"{base_url}/chat/completions", json=body) as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/event-stream")
        text = (await response.read()).decode()
    events: list[dict[str, Any] | str] = []
    for block in text.split("\n\n"):
        if block.startswith("data: "):
            payload = block[len("data: ") :]
            events.append(payload if payload == "[DONE]" else orjson.loads(payload))
    return events


def reassemble(events: list[dict[str, Any] | str]) -> tuple[str, str, str | None]:
    reasoning, content, finish = [], [], None
    for event in events:
        if isinstance(event, str):
            continue
        for choice in event["choices"]:
            delta = choice["delta"]
            piece = delta.get("reasoning") or delta.get("reasoning_content")
            reasoning.append(piece or "")
            content.append(delta.get("content") or "")
            finish = choice["finish_reason"] or finish
    return "".join(reasoning), "".join(content), finish


# Reply shapes ------------------------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
async def test_finished_reply_has_the_era_fields(profile: str) -> None:
    sample = gsm8k_sample(1)
    key = answer_key_from_samples([sample])
    async with (
        serve(SimConfig(profile=profile, **ALWAYS_RIGHT), key) as url,
        aiohttp.ClientSession() as session,
    ):
        status, body = await post(session, url, request_body(sample, profile=profile))
    assert status == 200
    choice = body["choices"][0]
    message = choice["message"]
    assert set(message) == set(MESSAGE_KEYS[profile].split())
    assert choice["finish_reason"] == "stop"
    usage = body["usage"]
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert "The answer is 5" in message["content"] or "5" in message["content"]
    if profile == "openai":
        assert not message["content"].startswith("\n")
        assert usage["completion_tokens_details"]["reasoning_tokens"] > 100
        return
    # vLLM and SGLang keep the whitespace around the think block.
    assert message["content"].startswith("\n\n")
    assert reasoning_of(message).startswith("\n") and reasoning_of(message).endswith("\n")
    if profile.startswith("vllm"):
        assert choice["stop_reason"] is None and choice["token_ids"] is None
        assert body["kv_transfer_params"] is None and body["prompt_logprobs"] is None
    if profile in ("vllm-0.10", "vllm-0.13"):
        assert message["tool_calls"] == []
        assert set(usage) == {
            "prompt_tokens",
            "total_tokens",
            "completion_tokens",
            "prompt_tokens_details",
        }
    if profile == "vllm-0.13":
        assert message["reasoning"] == message["reasoning_content"]
    if profile == "vllm-latest":
        assert body["system_fingerprint"].startswith("vllm-")
        assert choice["weight_versions"] is None and body["metrics"] is None
        reasoning_tokens = usage["completion_tokens_details"]["reasoning_tokens"]
        # <think>, reasoning, </think>, the answer's tokens (with "\n\n"), EOS.
        answer_tokens = len(tokenize(message["content"]))
        assert usage["completion_tokens"] == reasoning_tokens + 2 + answer_tokens + 1
    if profile == "sglang":
        assert choice["matched_stop"] == 151645
        assert usage["reasoning_tokens"] > 100
        assert body["metadata"] is None


@pytest.mark.parametrize("profile", PROFILES)
async def test_cut_inside_think_is_split_as_the_era_does(profile: str) -> None:
    sample = gsm8k_sample(2)
    async with (
        serve(SimConfig(profile=profile, **ALWAYS_RIGHT)) as url,
        aiohttp.ClientSession() as session,
    ):
        status, body = await post(session, url, request_body(sample, 20, profile=profile))
    assert status == 200
    choice, usage = body["choices"][0], body["usage"]
    message = choice["message"]
    assert choice["finish_reason"] == "length"
    assert usage["completion_tokens"] == 20
    assert usage["total_tokens"] == usage["prompt_tokens"] + 20
    if profile in ("vllm-0.10", "vllm-0.13"):
        # 0.9-0.16 parser: no </think>, so the raw text, tag included, stays in content.
        assert message["content"].startswith("<think>\n")
        assert message["reasoning_content"] is None
    elif profile == "vllm-latest":
        assert message["content"] is None
        assert message["reasoning"].startswith("\n")
        assert usage["completion_tokens_details"]["reasoning_tokens"] == 19
    elif profile == "sglang":
        assert message["content"] == ""
        assert message["reasoning_content"].startswith("\n")
        assert usage["reasoning_tokens"] == 19
    else:
        assert message["content"] == ""
        assert usage["completion_tokens_details"]["reasoning_tokens"] == 20


async def test_max_completion_tokens_wins_over_max_tokens() -> None:
    body = request_body(gsm8k_sample(3), max_tokens=50, max_completion_tokens=30)
    async with serve(SimConfig(**ALWAYS_RIGHT)) as url, aiohttp.ClientSession() as session:
        _, reply = await post(session, url, body)
    assert reply["usage"]["completion_tokens"] == 30


async def test_thinking_off_answers_without_reasoning() -> None:
    sample = gsm8k_sample(4)
    key = answer_key_from_samples([sample])
    off = {"chat_template_kwargs": {"enable_thinking": False}}
    async with (
        serve(SimConfig(**ALWAYS_RIGHT), key) as url,
        aiohttp.ClientSession() as session,
    ):
        _, thinking = await post(session, url, request_body(sample))
        _, plain = await post(session, url, request_body(sample, **off))
    message, usage = plain["choices"][0]["message"], plain["usage"]
    assert message["reasoning"] is None
    assert "11" in message["content"] and not message["content"].startswith("\n")
    assert usage["prompt_tokens"] == thinking["usage"]["prompt_tokens"] + 4
    assert usage["completion_tokens"] == len(tokenize(message["content"])) + 1  # + EOS
    assert usage["completion_tokens_details"]["reasoning_tokens"] == 0


async def test_answers_follow_each_task_style() -> None:
    samples = [f(i) for i in range(12) for f in (gsm8k_sample, boolq_sample, ceval_sample)]
    async with (
        serve(SimConfig(**ALWAYS_RIGHT), answer_key_from_samples(samples)) as url,
        aiohttp.ClientSession() as session,
    ):
        replies = await asyncio.gather(*(post(session, url, request_body(s)) for s in samples))
    for sample, (_, body) in zip(samples, replies, strict=True):
        content = body["choices"][0]["message"]["content"].strip()
        if sample.task == "gsm8k":
            final = re.search(r"(?:The answer is|\\boxed\{|Final answer:|####) ?(\d+)", content)
            assert final is not None and final.group(1) == sample.gold, content
        elif sample.task == "ceval":
            assert re.search(rf"answer: ?{sample.gold}$", content), content
        else:
            assert re.fullmatch(rf"(Answer: )?{sample.gold}(\. (Yes|No))?", content), content


async def test_prompts_missing_from_the_key_get_a_task_shaped_answer() -> None:
    async with serve(SimConfig(**ALWAYS_RIGHT)) as url, aiohttp.ClientSession() as session:
        replies = [await post(session, url, request_body(boolq_sample(i))) for i in range(6)]
    for _, body in replies:
        assert re.fullmatch(
            r"(Answer: )?[AB](\. (Yes|No))?", body["choices"][0]["message"]["content"].strip()
        )


# Validation and errors ---------------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
async def test_errors_have_the_era_shape(profile: str) -> None:
    config = SimConfig(profile=profile, max_model_len=400, **ALWAYS_RIGHT)
    sample = gsm8k_sample(5)
    async with serve(config) as url, aiohttp.ClientSession() as session:
        ask = functools.partial(request_body, sample, profile=profile)
        unknown = await post(session, url, {**ask(10), "model": "nope"})
        missing = await post(session, url, {"model": "sim-qwen3"})
        stream_options = await post(session, url, ask(10, stream_options={}))
        overflow = await post(session, url, ask(390))
        too_big = await post(session, url, ask(500))
    if profile == "sglang":
        assert unknown[0] == 200 and unknown[1]["model"] == "nope"  # echoed, not rejected
        assert stream_options[0] == 200
        assert missing[0] == 400 and missing[1]["object"] == "error" and missing[1]["code"] == 400
        assert overflow[0] == 400 and "maximum context length" in overflow[1]["message"]
        return
    assert unknown[0] == 404 and missing[0] == 400 and stream_options[0] == 400
    error = unknown[1]["error"]
    assert set(error) == {"message", "type", "param", "code"}
    if profile == "openai":
        assert error["code"] == "model_not_found"
        assert overflow[0] == 400 and overflow[1]["error"]["code"] == "context_length_exceeded"
        return
    param = "model" if profile == "vllm-latest" else None
    message = "The model `nope` does not exist."
    assert error == {"message": message, "type": "NotFoundError", "param": param, "code": 404}
    if profile == "vllm-latest":
        # 0.32+: an oversized max_tokens is clamped to the room left, unless above max_model_len.
        status, body = overflow
        prompt = body["usage"]["prompt_tokens"]
        assert status == 200 and body["usage"]["completion_tokens"] == 400 - prompt
        assert too_big[0] == 400 and too_big[1]["error"]["param"] == "max_tokens"
    else:
        assert overflow[0] == 400
        assert overflow[1]["error"]["message"].endswith(" None")  # the 0.9-0.14 quirk
        assert overflow[1]["error"]["code"] == 400


async def test_openai_refuses_max_tokens_and_chat_template_kwargs_as_the_real_api() -> None:
    sample = gsm8k_sample(5)
    thinking = {"chat_template_kwargs": {"enable_thinking": True}}
    async with serve(SimConfig(profile="openai")) as url, aiohttp.ClientSession() as session:
        old_name = await post(session, url, request_body(sample, 64))
        unknown = await post(session, url, request_body(sample, 64, profile="openai", **thinking))
        right = await post(session, url, request_body(sample, 64, profile="openai"))
    assert old_name == (
        400,
        {
            "error": {
                "message": "Unsupported parameter: 'max_tokens' is not supported with this model. "
                "Use 'max_completion_tokens' instead.",
                "type": "invalid_request_error",
                "param": "max_tokens",
                "code": "unsupported_parameter",
            }
        },
    )
    assert unknown[0] == 400
    assert unknown[1]["error"]["message"] == (
        "Unrecognized request argument supplied: chat_template_kwargs"
    )
    assert right[0] == 200 and right[1]["usage"]["completion_tokens"] <= 64


async def test_no_max_tokens_means_the_rest_of_the_context() -> None:
    config = SimConfig(max_model_len=600, **NEVER_ENDS)
    async with serve(config) as url, aiohttp.ClientSession() as session:
        _, body = await post(session, url, request_body(gsm8k_sample(6), max_tokens=None))
    usage = body["usage"]
    assert body["choices"][0]["finish_reason"] == "length"
    assert usage["prompt_tokens"] + usage["completion_tokens"] == 600


# Behaviour ---------------------------------------------------------------------------------


async def test_same_seed_same_replies_other_seed_other_replies() -> None:
    samples = [gsm8k_sample(i) for i in range(20)]
    key = answer_key_from_samples(samples)

    async def replies(seed: int) -> list[tuple[Any, ...]]:
        async with serve(SimConfig(seed=seed), key) as url, aiohttp.ClientSession() as session:
            out = []
            for sample in samples:
                _, body = await post(session, url, request_body(sample, 4096))
                message = body["choices"][0]["message"]
                out.append((message["content"], message["reasoning"], body["usage"]))
            return out

    first, again, other = await replies(1), await replies(1), await replies(2)
    assert first == again
    assert sum(a != b for a, b in zip(first, other, strict=True)) >= 15


async def test_behaviour_shares_match_the_config_over_two_phases() -> None:
    samples = [gsm8k_sample(i) for i in range(2000)]
    config = SimConfig(seed=11)
    gold = {s.id: s.gold for s in samples}
    answer = re.compile(r"(?:The answer is|\\boxed\{|Final answer:|####) ?(\d+)")
    connector = aiohttp.TCPConnector(limit=64)
    async with (
        serve(config, answer_key_from_samples(samples)) as url,
        aiohttp.ClientSession(connector=connector) as session,
    ):
        fixed = await asyncio.gather(*(post(session, url, request_body(s, 2048)) for s in samples))
        cut = [
            s
            for s, (_, b) in zip(samples, fixed, strict=True)
            if b["choices"][0]["finish_reason"] == "length"
        ]
        retried = await asyncio.gather(*(post(session, url, request_body(s, 8192)) for s in cut))
        stats = await get_json(session, root_of(url) + "/sim/stats")
    outcomes: Counter[str] = Counter()
    final = dict(zip([s.id for s in samples], fixed, strict=True))
    final.update(zip([s.id for s in cut], retried, strict=True))
    was_cut = {s.id for s in cut}
    for sample_id, (status, body) in final.items():
        assert status == 200
        choice = body["choices"][0]
        content = choice["message"]["content"]
        if choice["finish_reason"] == "length":
            outcomes["never"] += 1
            continue
        if sample_id in was_cut:
            outcomes["long"] += 1
        if content is None:
            outcomes["empty"] += 1
            continue
        match = answer.search(content)
        if match is None:
            outcomes["malformed"] += 1
        else:
            outcomes["correct" if match.group(1) == gold[sample_id] else "wrong"] += 1
    n = len(samples)
    expected = {
        "long": config.p_long,
        "never": config.p_never,
        "wrong": config.p_wrong,
        "malformed": config.p_malformed,
        "empty": config.p_empty,
    }
    for name, share in expected.items():
        tolerance = 4 * (share * (1 - share) / n) ** 0.5 + 0.005
        assert abs(outcomes[name] / n - share) < tolerance, (name, outcomes)
    # Two phases: every prompt asked once, only the cut ones asked a second time.
    assert stats["distinct_prompts"] == n and stats["max_asks_per_prompt"] == 2
    assert stats["requests"] == n + len(cut)


# Streaming ---------------------------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
async def test_stream_reassembles_to_the_non_streaming_reply(profile: str) -> None:
    sample = gsm8k_sample(7)
    async with (
        serve(SimConfig(profile=profile, **ALWAYS_RIGHT)) as url,
        aiohttp.ClientSession() as session,
    ):
        _, body = await post(session, url, request_body(sample, profile=profile))
        events = await read_stream(
            session, url, request_body(sample, profile=profile, stream=True, stream_options={})
        )
    message = body["choices"][0]["message"]
    reasoning, content, finish = reassemble(events)
    assert finish == "stop"
    assert content == (message["content"] or "")
    assert reasoning == (reasoning_of(message) or "")
    assert events[-1] == "[DONE]"
    first = events[0]
    assert isinstance(first, dict) and first["choices"][0]["delta"]["role"] == "assistant"
    usage_events = [e for e in events if isinstance(e, dict) and not e["choices"]]
    if profile.startswith("vllm"):  # `stream_options: {}` already means include_usage
        assert usage_events[0]["usage"]["completion_tokens"] == body["usage"]["completion_tokens"]
    else:
        assert usage_events == []


async def test_stream_cut_in_think_sends_reasoning_deltas_even_in_the_legacy_era() -> None:
    sample = gsm8k_sample(8)
    config = SimConfig(profile="vllm-0.10", per_token_s=0.0005, **ALWAYS_RIGHT)
    async with serve(config) as url, aiohttp.ClientSession() as session:
        _, body = await post(session, url, request_body(sample, max_tokens=30))
        events = await read_stream(session, url, request_body(sample, 30, stream=True))
    reasoning, content, finish = reassemble(events)
    assert finish == "length" and content == ""
    # The non-streaming body of 0.9-0.16 keeps the raw text in content instead (§2.2).
    assert body["choices"][0]["message"]["content"] == "<think>" + reasoning
    # With a per-token delay there is one chunk per token: 29 reasoning tokens after <think>.
    deltas = [e for e in events if isinstance(e, dict) and e["choices"]][1:]
    assert len(deltas) == 29
    assert deltas[-1]["choices"][0]["finish_reason"] == "length"


# Faults ------------------------------------------------------------------------------------


async def ask_until_ok(
    session: aiohttp.ClientSession, url: str, sample: Sample, tries: int = 30
) -> list[str]:
    """Ask one prompt until a well-formed 200 comes back; the outcome of every try."""
    seen = []
    for _ in range(tries):
        try:
            async with session.post(
                f"{url}/chat/completions",
                json=request_body(sample, 64),
                timeout=aiohttp.ClientTimeout(total=0.3),
            ) as response:
                raw = await response.read()
                if response.status == 429:
                    assert response.headers["Retry-After"] == "0.05"
                if response.status != 200:
                    seen.append(str(response.status))
                    continue
                try:
                    orjson.loads(raw)
                except orjson.JSONDecodeError:
                    seen.append("malformed")
                    continue
                seen.append("ok")
                return seen
        except TimeoutError:
            seen.append("timeout")
        except aiohttp.ClientError:
            seen.append("reset")
    return seen


@pytest.mark.parametrize(
    ("fault", "count"), [("500", 6), ("429", 6), ("reset", 6), ("malformed", 6), ("timeout", 3)]
)
async def test_each_fault_is_observable_and_a_retry_succeeds(fault: str, count: int) -> None:
    config = SimConfig(seed=5, retry_after_s=0.05, **{f"fault_{fault}": 0.5})
    samples = [gsm8k_sample(100 + i) for i in range(count)]

    async def run() -> list[list[str]]:
        async with serve(config) as url, aiohttp.ClientSession() as session:
            return [await ask_until_ok(session, url, sample) for sample in samples]

    outcomes = await run()
    assert all(tries[-1] == "ok" for tries in outcomes)
    assert {outcome for tries in outcomes for outcome in tries} == {"ok", fault}
    if fault != "timeout":
        assert await run() == outcomes  # faults are deterministic for the seed


async def test_server_error_bodies_use_the_era_shape() -> None:
    async with (
        serve(SimConfig(fault_500=0.999, profile="sglang")) as url,
        aiohttp.ClientSession() as session,
    ):
        status, body = await post(session, url, request_body(gsm8k_sample(9)))
    assert status == 500 and body["object"] == "error" and body["code"] == 500


async def test_a_stalled_request_does_not_hold_shutdown() -> None:
    async with aiohttp.ClientSession() as session:
        started = time.monotonic()
        async with serve(SimConfig(fault_timeout=0.999)) as url:
            pending = asyncio.ensure_future(post(session, url, request_body(gsm8k_sample(10))))
            await asyncio.sleep(0.2)
            assert not pending.done()
        with pytest.raises(aiohttp.ClientError):
            await pending
        assert time.monotonic() - started < 3


# Models, health, metrics, statistics -------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
async def test_models_lists_one_card(profile: str) -> None:
    config = SimConfig(profile=profile, max_model_len=32768, root="Qwen/Qwen3-8B")
    async with serve(config) as url, aiohttp.ClientSession() as session:
        models = await get_json(session, f"{url}/models")
    assert models["object"] == "list" and len(models["data"]) == 1
    card = models["data"][0]
    assert card["id"] == "sim-qwen3" and card["object"] == "model"
    assert card["thinkeval_simulated"] is True  # no real server sends it: reports mark the model
    if profile == "openai":
        assert set(card) == {"id", "object", "created", "owned_by", "thinkeval_simulated"}
        return
    assert card["max_model_len"] == 32768 and card["root"] == "Qwen/Qwen3-8B"
    assert ("permission" in card) == profile.startswith("vllm")


async def test_model_switch_after_n_requests() -> None:
    config = SimConfig(switch_model_after=2, **ALWAYS_RIGHT)
    body = request_body(gsm8k_sample(11), 16)
    async with serve(config) as url, aiohttp.ClientSession() as session:
        assert (await post(session, url, body))[0] == 200
        assert (await post(session, url, body))[0] == 200
        models = await get_json(session, f"{url}/models")
        status, error = await post(session, url, body)
        switched = await post(session, url, {**body, "model": "sim-qwen3-switched"})
    assert models["data"][0]["id"] == "sim-qwen3-switched"
    assert status == 404 and "sim-qwen3" in error["error"]["message"]
    assert switched[0] == 200 and switched[1]["model"] == "sim-qwen3-switched"


async def test_health_version_and_metrics() -> None:
    async with serve(SimConfig(**ALWAYS_RIGHT)) as url, aiohttp.ClientSession() as session:
        _, body = await post(session, url, request_body(gsm8k_sample(12), 64))
        async with session.get(root_of(url) + "/health") as response:
            assert response.status == 200 and await response.read() == b""
        version = await get_json(session, root_of(url) + "/version")
        async with session.get(root_of(url) + "/metrics") as response:
            assert response.headers["Content-Type"].startswith("text/plain")
            metrics = await response.text()
    assert version == {"version": "0.33.0"}
    values = {}
    for line in metrics.splitlines():
        if not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            values[name] = float(value)
    labels = 'engine="0",model_name="sim-qwen3"'
    usage = body["usage"]
    assert values[f"vllm:generation_tokens_total{{{labels}}}"] == usage["completion_tokens"]
    assert values[f"vllm:prompt_tokens_total{{{labels}}}"] == usage["prompt_tokens"]
    assert values[f"vllm:num_requests_running{{{labels}}}"] == 0
    assert values[f"vllm:num_requests_waiting{{{labels}}}"] == 0
    finished = 'engine="0",finished_reason="length",model_name="sim-qwen3"'
    assert values[f"vllm:request_success_total{{{finished}}}"] == 1


async def test_stats_report_concurrency_and_asks_per_prompt() -> None:
    samples = [gsm8k_sample(i) for i in range(10)]
    async with (
        serve(SimConfig(latency_s=0.2, **ALWAYS_RIGHT)) as url,
        aiohttp.ClientSession() as session,
    ):
        await asyncio.gather(*(post(session, url, request_body(s, 32)) for s in samples))
        await post(session, url, request_body(samples[0], 32))
        stats = await get_json(session, root_of(url) + "/sim/stats?detail=1")
    assert stats["max_in_flight"] == 10 and stats["in_flight"] == 0
    assert stats["requests"] == stats["completed"] == 11
    assert stats["by_status"] == {"200": 11}
    assert sorted(stats["prompts_asked"].values()) == [1] * 9 + [2]


async def test_requests_beyond_max_num_seqs_queue() -> None:
    config = SimConfig(max_num_seqs=2, per_token_s=0.004, **ALWAYS_RIGHT)
    samples = [gsm8k_sample(i) for i in range(6)]
    async with serve(config) as url, aiohttp.ClientSession() as session:
        started = time.monotonic()
        replies = asyncio.gather(*(post(session, url, request_body(s, 50)) for s in samples))
        for _ in range(100):  # until all six are admitted or queued; the first wave takes 0.2 s
            during = await get_json(session, root_of(url) + "/sim/stats")
            if during["running"] + during["waiting"] == 6:
                break
            await asyncio.sleep(0.005)
        await replies
        elapsed = time.monotonic() - started
        after = await get_json(session, root_of(url) + "/sim/stats")
    assert during["running"] == 2 and during["waiting"] == 4
    assert after["max_running"] == 2 and after["max_waiting"] == 4
    assert after["max_in_flight"] == 6
    assert elapsed >= 3 * 50 * 0.004  # three waves of two requests of 50 tokens each


async def test_service_time_counts_the_slot_time_of_every_reply() -> None:
    config = SimConfig(max_num_seqs=2, per_token_s=0.0001, latency_s=0.01, **ALWAYS_RIGHT)
    async with serve(config) as url, aiohttp.ClientSession() as session:
        await asyncio.gather(
            *(post(session, url, request_body(gsm8k_sample(i), 60)) for i in range(5))
        )
        stats = await get_json(session, root_of(url) + "/sim/stats")
    expected = 5 * 0.01 + 0.0001 * stats["generation_tokens"]
    assert stats["service_s"] == pytest.approx(expected)


def test_task_shapes_give_each_task_its_own_reply_lengths() -> None:
    shapes = (parse_task_shape("boolq:0:20-40"), parse_task_shape("gsm8k:0.9:300-400"))
    config = SimConfig(task_shapes=shapes, p_never=0.0, p_malformed=0.0, p_empty=0.0)
    key = answer_key_from_samples([*map(boolq_sample, range(200)), *map(gsm8k_sample, range(200))])
    plans = [plan_for(config, k, "", key) for k in key]
    boolq = [p for p in plans if p.task == "boolq"]
    gsm8k = [p for p in plans if p.task == "gsm8k"]
    assert not any(p.long for p in boolq) and all(20 <= (p.reasoning_len or 0) <= 40 for p in boolq)
    assert 0.8 < sum(p.long for p in gsm8k) / len(gsm8k) < 1.0
    assert all(300 <= (p.reasoning_len or 0) <= 400 for p in gsm8k if not p.long)
    with pytest.raises(ValueError, match="exceeds 1 \\(task gsm8k\\)"):
        SimConfig(task_shapes=(parse_task_shape("gsm8k:0.99:300-400"),))


# CLI ---------------------------------------------------------------------------------------


def test_cli_serves_until_sigint(tmp_path: Any) -> None:
    script = (
        "import argparse, sys\n"
        "from thinkeval.sim import add_arguments, run\n"
        "parser = argparse.ArgumentParser()\n"
        "add_arguments(parser)\n"
        "sys.exit(run(parser.parse_args()))\n"
    )
    options = ["--port", "0", "--profile", "sglang", "--short-tokens", "200-400"]
    command = [sys.executable, "-c", script, *options, "--data-dir", str(tmp_path)]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        assert process.stdout is not None
        line = process.stdout.readline().decode()
        assert re.fullmatch(
            r"thinkeval simulator \(simulated model, not a real LLM\) listening on "
            r"http://127\.0\.0\.1:\d+/v1\n",
            line,
        ), line
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=10) == 0


def test_cli_tasks_builds_the_answer_key_from_the_named_tasks_only(
    data_dir: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from thinkeval.sim.cli import _load_answer_key

    every = _load_answer_key(str(data_dir))
    named = _load_answer_key(str(data_dir), {"gsm8k", "boolq", "no_such_task"})
    assert {entry[2] for entry in named.values()} == {"gsm8k", "boolq"}
    assert len({entry[2] for entry in every.values()}) > 2
    # The same entries as the whole key's for those tasks' prompts.
    assert all(every[key] == entry for key, entry in named.items())
    assert "no task called no_such_task" in capsys.readouterr().err
