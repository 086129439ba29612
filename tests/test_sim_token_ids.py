"""The simulator's token ids and `/v1/completions` over real HTTP: what a continuation needs."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest

from thinkeval.sim.token_ids import THINK_CLOSE_ID

NEVER_SHORT = {"p_long": 1.0, "p_never": 0.0, "p_wrong": 0.0, "p_malformed": 0.0, "p_empty": 0.0}
QUESTION = "Question: Tom has 3 apples and buys 4. How many?\nAnswer:"
MESSAGES = [{"role": "user", "content": QUESTION}]


def post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request) as resp:
            return resp.status, json.load(resp)
    except urllib.error.HTTPError as exc:
        return exc.code, json.load(exc)


def chat(base: str, max_tokens: int, **extra: Any) -> dict[str, Any]:
    status, body = post(
        f"{base}/chat/completions",
        {"model": "m", "messages": MESSAGES, "max_tokens": max_tokens, "seed": 3, **extra},
    )
    assert status == 200
    return body


def test_a_continuation_generates_what_a_fresh_larger_request_would(sim) -> None:
    server = sim(model="m", seed=2, prefill_token_s=0.0, **NEVER_SHORT)
    base = server.base_url
    cut = chat(base, 1000, return_token_ids=True)
    assert cut["choices"][0]["finish_reason"] == "length"
    prompt, ids = cut["prompt_token_ids"], cut["choices"][0]["token_ids"]
    assert len(prompt) == cut["usage"]["prompt_tokens"] and len(ids) == 1000
    whole = chat(base, 8192, return_token_ids=True)
    status, more = post(
        f"{base}/completions",
        {
            "model": "m",
            "prompt": prompt + ids,
            "max_tokens": 8192 - 1000,
            "seed": 3,
            "return_token_ids": True,
        },
    )
    assert status == 200 and more["object"] == "text_completion"
    choice = more["choices"][0]
    assert ids + choice["token_ids"] == whole["choices"][0]["token_ids"]
    assert THINK_CLOSE_ID in choice["token_ids"] and "</think>" in choice["text"]
    assert choice["finish_reason"] == whole["choices"][0]["finish_reason"] == "stop"
    assert more["usage"]["prompt_tokens"] == len(prompt) + 1000
    assert more["usage"]["completion_tokens"] == len(choice["token_ids"])
    with urllib.request.urlopen(f"{base.removesuffix('/v1')}/sim/stats") as resp:
        stats = json.load(resp)
    assert stats["continuations"] == 1 and stats["continued_tokens"] == 1000
    assert stats["continuations_diverged"] == 0


@pytest.mark.parametrize("profile", ["sglang", "openai"])
def test_servers_without_token_ids_return_none(sim, profile: str) -> None:
    server = sim(model="m", profile=profile)
    budget = {"max_completion_tokens" if profile == "openai" else "max_tokens": 50}
    status, body = post(
        f"{server.base_url}/chat/completions",
        {"model": "m", "messages": MESSAGES, "return_token_ids": True, **budget},
    )
    assert status == 200
    assert body.get("prompt_token_ids") is None
    assert body["choices"][0].get("token_ids") is None


def test_a_text_prompt_or_foreign_ids_are_refused(sim) -> None:
    server = sim(model="m")
    for prompt in ("Tom has 3 apples", [5, 6, 7]):
        status, body = post(
            f"{server.base_url}/completions", {"model": "m", "prompt": prompt, "max_tokens": 5}
        )
        assert status == 400 and "token-id prompts" in json.dumps(body)
