"""Server profiles: the request each flavour gets, what it refuses, and runs that use them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from conftest import write_config
from thinkeval.cli import main
from thinkeval.client import profiles
from thinkeval.client.profiles import DEFAULT_API, PROFILES, api_names, detect_api, get_profile
from thinkeval.client.profiles.base import ServerLoad
from thinkeval.client.watchdog import identity_probe
from thinkeval.config import parse_config
from thinkeval.errors import ConfigError
from thinkeval.generation import GenerationSettings
from thinkeval.store.journal import iter_attempts

MESSAGES = ({"role": "user", "content": "2+2?"},)
THINKING = {"temperature": 0.6, "chat_template_kwargs": {"enable_thinking": True}}
THINKING_SETTINGS = GenerationSettings.read(THINKING)


def sim_stats(base_url: str) -> dict[str, Any]:
    import urllib.request

    with urllib.request.urlopen(f"{base_url.removesuffix('/v1')}/sim/stats") as resp:
        return json.load(resp)


@pytest.mark.parametrize("api", ["vllm", "sglang"])
def test_vllm_and_sglang_take_max_tokens_and_template_kwargs(api: str) -> None:
    profile = get_profile(api)
    body = profile.request("m", MESSAGES, 2048, THINKING_SETTINGS, stream=False)
    # The generation settings first, then what thinkeval owns: journals keep this order.
    assert list(body) == ["temperature", "chat_template_kwargs", "model", "messages", "max_tokens"]
    assert body["max_tokens"] == 2048 and body["messages"] == list(MESSAGES)
    profile.set_budget(body, 1000)
    assert body["max_tokens"] == 1000 and "max_completion_tokens" not in body
    assert list(profile.generation_problems(THINKING_SETTINGS)) == []


def test_openai_takes_max_completion_tokens() -> None:
    profile = get_profile("openai")
    effort = GenerationSettings.read({"reasoning_effort": "high"})
    body = profile.request("o4-mini", MESSAGES, 2048, effort, stream=True)
    assert body == {
        "reasoning_effort": "high",
        "model": "o4-mini",
        "messages": list(MESSAGES),
        "max_completion_tokens": 2048,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    profile.set_budget(body, 1000)
    assert body["max_completion_tokens"] == 1000 and "max_tokens" not in body
    (problem,) = profile.generation_problems(THINKING_SETTINGS)
    assert "chat_template_kwargs is not accepted by the openai API" in problem


def test_a_config_says_which_flavour_and_is_checked_against_it() -> None:
    model = {"name": "m", "base_url": "http://h/v1"}
    config = parse_config({"run": "r", "models": [model]})
    assert config.models[0].api == "vllm"
    config = parse_config({"run": "r", "models": [{**model, "api": "openai"}]})
    assert config.models[0].api == "openai"
    with pytest.raises(ConfigError, match=r"run\.yaml: models\[0\]\.api"):
        parse_config({"run": "r", "models": [{**model, "api": "vllm2"}]}, "run.yaml")
    with pytest.raises(ConfigError, match=r"models\[0\]\.generation: chat_template_kwargs is not"):
        parse_config({"run": "r", "models": [{**model, "api": "openai", "generation": THINKING}]})


def test_openai_refusing_max_tokens_says_to_set_api_openai() -> None:
    refusal = json.dumps(
        {
            "error": {
                "message": "Unsupported parameter: 'max_tokens' is not supported with this model. "
                "Use 'max_completion_tokens' instead.",
                "type": "invalid_request_error",
                "param": "max_tokens",
                "code": "unsupported_parameter",
            }
        }
    ).encode()
    for api in ("vllm", "sglang"):
        failure = get_profile(api).failure(400, refusal, None)
        assert failure.kind == "wrong_api" and not failure.retryable
        assert "set `api: openai` for this model" in failure.message
    other = refusal.replace(b'"param": "max_tokens"', b'"param": "temperature"')
    refused = get_profile("vllm").failure(400, other, None)
    assert refused.kind == "refused"
    # The parameter the server names makes it a refusal for good (client/refusals.py).
    assert refused.refused == "invalid_parameter" and not refused.retryable


@pytest.mark.parametrize(
    ("card", "api"),
    [
        ({"id": "q", "owned_by": "vllm", "root": "Qwen/Qwen3-8B", "max_model_len": 40960}, "vllm"),
        ({"id": "q", "owned_by": "sglang", "max_model_len": 40960}, "sglang"),
        ({"id": "o4-mini", "owned_by": "system"}, "openai"),
        ({"id": "gpt-5", "owned_by": "openai"}, "openai"),
        ({"id": "q", "owned_by": "acme", "max_model_len": 8192}, "vllm"),
        ({"id": "q", "owned_by": "acme"}, None),
    ],
)
def test_model_cards_reveal_the_flavour(card: dict[str, Any], api: str | None) -> None:
    found, evidence = detect_api(card)
    assert found == api
    assert "owned_by" in evidence


def test_every_flavour_module_is_found_and_named_by_its_api_value() -> None:
    package = Path(profiles.__file__).parent
    modules = {path.stem for path in package.glob("*.py")} - {"__init__", "base"}
    assert set(PROFILES) == modules  # one module per flavour, each found by the registry
    assert all(profile.name == name for name, profile in PROFILES.items())
    assert api_names()[0] == DEFAULT_API == "vllm"


def test_an_unknown_api_is_refused_with_every_accepted_one() -> None:
    model = {"name": "m", "base_url": "http://h/v1", "api": "vllm2", "retry": "continue"}
    with pytest.raises(ConfigError) as refused:
        parse_config({"run": "r", "models": [model], "tasks": [{"name": "gsm8k"}]})
    (line,) = str(refused.value).splitlines()  # the api alone: no problem read off no profile
    assert line.endswith(f"models[0].api: unknown api 'vllm2': one of {', '.join(PROFILES)}")
    assert {"vllm", "sglang", "openai", "llamacpp", "ollama"} <= set(api_names())


def run_config(tmp_path: Path, base_url: str, **model: Any) -> Path:
    return write_config(
        tmp_path / "run.yaml",
        {
            "run": "flavour",
            "tasks": [{"name": "gsm8k", "limit": 20}],
            "models": [
                {
                    "name": "m",
                    "base_url": base_url,
                    "concurrency": 4,
                    "retry_backoff_s": 0.01,
                    **model,
                }
            ],
        },
    )


def test_api_vllm_against_the_openai_api_stops_and_says_api_openai(
    tmp_path: Path, sim, capsys: pytest.CaptureFixture[str]
) -> None:
    server = sim(model="m", profile="openai")
    config = run_config(tmp_path, server.base_url)
    assert main(["run", str(config), "--output", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "Traceback" not in err
    assert "'max_tokens' is not supported" in err and "set `api: openai`" in err
    assert list(iter_attempts(tmp_path / "out")) == []  # nothing recorded as the model's answer
    assert sim_stats(server.base_url)["requests"] <= 4  # stopped at the first wave


def test_sglang_clamps_the_retry_budget_to_its_context(tmp_path: Path, sim) -> None:
    # SGLang words its context-overflow error its own way; the clamp still applies.
    server = sim(model="m", seed=13, max_model_len=6000, p_long=0.5, profile="sglang")
    config = run_config(tmp_path, server.base_url, api="sglang")
    assert main(["run", str(config), "--output", str(tmp_path / "out")]) == 0
    retries = [x for x in iter_attempts(tmp_path / "out") if x.phase == "retry"]
    assert retries and all(x.error is None for x in retries)
    for x in retries:
        assert x.clamped_from == 8192 and x.max_tokens + x.usage.prompt_tokens <= 6000
        assert x.request["max_tokens"] == x.max_tokens


def test_openai_requests_are_journalled_with_their_field(tmp_path: Path, sim) -> None:
    server = sim(model="m", seed=5, profile="openai")
    config = run_config(tmp_path, server.base_url, api="openai")
    assert main(["run", str(config), "--output", str(tmp_path / "out")]) == 0
    attempts = list(iter_attempts(tmp_path / "out"))
    assert attempts and all(a.error is None for a in attempts)
    assert all(a.request["max_completion_tokens"] == a.max_tokens for a in attempts)
    assert all("max_tokens" not in a.request for a in attempts)


VLLM_METRICS = b"""# TYPE process_start_time_seconds gauge
process_start_time_seconds 1.7e+09
vllm:num_requests_running{engine="0",model_name="m"} 2.0
vllm:num_requests_waiting{engine="0",model_name="m"} 3.0
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.5
"""
SGLANG_METRICS = b"""sglang:num_running_reqs{model_name="m"} 1.0
sglang:num_queue_reqs{model_name="m"} 4.0
sglang:num_used_tokens{model_name="m"} 900.0
"""
SLOTS = b'[{"id": 0, "is_processing": true}, {"id": 1, "is_processing": false}]'


@pytest.mark.parametrize(
    ("api", "raw", "load"),
    [
        ("vllm", VLLM_METRICS, ServerLoad(started=1.7e9, busy=5)),  # running + waiting
        ("sglang", SGLANG_METRICS, ServerLoad(busy=5)),  # running + queued, not the tokens
        ("vllm", SGLANG_METRICS, ServerLoad()),  # another flavour's gauges are no count
        ("llamacpp", SLOTS, ServerLoad(busy=1)),  # the busy slots
        ("llamacpp", b"<html>", ServerLoad()),
        ("vllm", b"", ServerLoad()),  # the load endpoint did not answer 200
    ],
)
def test_each_flavour_reads_the_load_its_server_tells(
    api: str, raw: bytes, load: ServerLoad
) -> None:
    assert get_profile(api).read_load(raw) == load


async def test_the_watchdog_probe_reads_the_simulated_vllm_metrics_over_http(sim) -> None:
    server = sim(model="m")
    profile = get_profile("vllm")
    assert profile.load_path is not None
    async with aiohttp.ClientSession() as session:
        models, load = f"{server.base_url}/models", server.base_url.removesuffix("/v1") + "/metrics"
        seen = await identity_probe(session, models, load, {}, profile.read_load)()
    assert seen.up and seen.busy == 0 and seen.started is not None


def test_flavours_that_tell_no_load_are_not_probed_for_one() -> None:
    assert [p.name for p in PROFILES.values() if p.load_path is None] == ["ollama", "openai"]
