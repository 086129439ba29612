"""`POST /v1/completions` with token ids as the prompt: continuing a simulated generation.

This is the request a `retry: continue` sends (docs/protocol.md): the prompt and completion ids a
chat reply returned (`return_token_ids`), and `max_tokens` for the rest of the larger budget.
The reply is vLLM's `text_completion` body: the raw decoded text (no reasoning parser on this
route, so `</think>` shows in it), finish_reason and usage. A continuation holds a slot for the
prefill of its whole prompt (the carried tokens included) and the decode of its new tokens.
Text prompts are refused: the simulator can continue only ids it handed out.
"""

from __future__ import annotations

import time
from typing import Any

import orjson
from aiohttp import web

from thinkeval.sim.server import Simulator
from thinkeval.sim.token_ids import (
    FLAVOUR_HINTS,
    ContinuedPrompt,
    continue_plan,
    read_prompt,
    token_id,
)

_DEFAULT_MAX_TOKENS = 16  # vLLM's CompletionRequest default


def _ids(value: Any) -> list[int] | None:
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], list):
        value = value[0]  # a batch of one prompt
    if isinstance(value, list) and all(
        isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in value
    ):
        return value
    return None


async def completions(sim: Simulator, request: web.Request) -> web.Response:
    """Continue the generation whose ids make up the prompt."""
    profile = sim.profile
    sim.stats.requests += 1
    try:
        body = orjson.loads(await request.read())
    except orjson.JSONDecodeError as exc:
        return sim.reply(*profile.invalid_json(str(exc)))
    if not isinstance(body, dict):
        return sim.reply(*profile.invalid_json("the body must be a JSON object"))
    served = sim.served_model()
    model = body.get("model")
    if model is not None and model != served and profile.checks_model:
        return sim.reply(*profile.not_found(str(model)))
    ids = _ids(body.get("prompt"))
    parsed = read_prompt(ids) if ids else None
    if ids is None or parsed is None:
        message = "the simulator continues only token-id prompts it handed out (return_token_ids)"
        return sim.reply(*profile.error(400, "BadRequestError", message, "prompt"))
    requested = body.get("max_tokens", _DEFAULT_MAX_TOKENS)
    if not isinstance(requested, int) or isinstance(requested, bool) or requested < 1:
        return sim.reply(*profile.invalid_max_tokens(requested))
    limit = profile.limit(len(ids), requested, sim.config.max_model_len)
    if isinstance(limit, tuple):
        return sim.reply(*limit)
    seed = body.get("seed")
    seed = seed if isinstance(seed, int) and not isinstance(seed, bool) else None
    wants_ids = body.get("return_token_ids") is True
    return await _continue(
        sim, request, parsed, len(ids), limit, seed, wants_ids, served if model is None else model
    )


async def _continue(
    sim: Simulator,
    request: web.Request,
    prompt: ContinuedPrompt,
    prompt_tokens: int,
    limit: int,
    seed: int | None,
    wants_ids: bool,
    model: Any,
) -> web.Response:
    stats = sim.stats
    plan = sim.plan(prompt.key, FLAVOUR_HINTS[prompt.flavour], seed)
    continued = continue_plan(plan, prompt, limit)
    stats.continuations += 1
    stats.continued_tokens += len(prompt.generated)
    stats.continuations_diverged += not continued.matches
    generated = len(continued.tokens)
    ttft, held = await sim.compute(prompt_tokens, generated)
    choice: dict[str, Any] = {
        "index": 0,
        "text": "".join(continued.tokens),
        "logprobs": None,
        "finish_reason": continued.finish_reason,
        "stop_reason": None,
        "token_ids": [token_id(t) for t in continued.tokens] if wants_ids else None,
        "prompt_logprobs": None,
        "prompt_token_ids": None,
    }
    body = {
        "id": f"cmpl-{sim.next_id(request)}",
        "object": "text_completion",
        "created": int(time.time()),
        "model": str(model),
        "choices": [choice],
        "service_tier": None,
        "system_fingerprint": sim.profile.fingerprint(str(model)),
        "usage": {
            "prompt_tokens": prompt_tokens,
            "total_tokens": prompt_tokens + generated,
            "completion_tokens": generated,
            "prompt_tokens_details": None,
        },
        "kv_transfer_params": None,
    }
    reply = sim.reply(200, body)
    sim.record_generated(continued.finish_reason, prompt_tokens, generated, ttft, held)
    return reply
