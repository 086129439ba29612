"""A chat request as the simulated server reads it: validated as the profile's server would."""

from __future__ import annotations

from dataclasses import dataclass

import orjson

from thinkeval.sim.behaviour import last_user_text, prompt_key, prompt_tokens
from thinkeval.sim.config import SimConfig
from thinkeval.sim.profiles import ErrorReply, Profile
from thinkeval.sim.reasoning_budget import requested_budget

TOOL_PARSER_OFF = (
    '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'
)


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """A validated chat request: what the reply depends on."""

    model: str  # echoed in the reply
    text: str  # the last user message
    key: str  # its sha1
    prompt_tokens: int
    limit: int  # tokens the engine may generate
    thinking: bool
    stream: bool
    include_usage: bool
    seed: int | None  # the sampling seed: repeats of a prompt sample different replies
    greedy: bool = False  # temperature 0: loops more (`sim.causes`)
    token_ids: bool = False  # `return_token_ids`: the reply carries prompt and completion ids
    reasoning_budget: int | None = None  # the thinking budget asked (sim/reasoning_budget.py)
    tools: bool = False  # `tools` offered: the reply's calls are parsed (sim/tool_calls.py)
    top_k: int | None = None
    effort: str | None = None  # reasoning_effort (sim/sampling.py)


def parse_chat(
    profile: Profile, served: str, raw: bytes, config: SimConfig
) -> ChatRequest | ErrorReply:
    """Check a chat body as the profile's server does (serving model `served`); the request
    or the error to send."""
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        return profile.invalid_json(str(exc))
    if not isinstance(body, dict):
        return profile.invalid_json("the body must be a JSON object")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return profile.missing_messages()
    model = body.get("model")
    if model is not None and model != served and profile.checks_model:
        return profile.not_found(str(model))
    stream = bool(body.get("stream"))
    stream_options = body.get("stream_options")
    if stream_options is not None and not stream:
        problem = profile.stream_options_without_stream()
        if problem is not None:
            return problem
    refused = profile.unsupported_fields(body)
    if refused is not None:
        return refused
    if body.get("tools") and config.tool_parser_off:  # vLLM's words (serving_chat.py)
        return profile.error(400, "BadRequestError", TOOL_PARSER_OFF)
    requested = body.get("max_completion_tokens")
    if requested is None:
        requested = body.get("max_tokens")
    if requested is not None and (
        not isinstance(requested, int) or isinstance(requested, bool) or requested < 1
    ):
        return profile.invalid_max_tokens(requested)
    kwargs = body.get("chat_template_kwargs")
    # Qwen3's template tests `enable_thinking is false`: only a literal false turns it off.
    thinking = not (isinstance(kwargs, dict) and kwargs.get("enable_thinking") is False)
    # Thinking off: the template appends "<think>\n\n</think>\n\n" to the prompt (4 tokens).
    prompt = prompt_tokens(messages) + (0 if thinking else 4)
    limit = profile.limit(prompt, requested, config.max_model_len)
    if isinstance(limit, tuple):
        return limit
    text = last_user_text(messages)
    seed = body.get("seed")
    include_usage = isinstance(stream_options, dict) and bool(
        stream_options.get("include_usage", profile.usage_by_default)
    )
    return ChatRequest(
        model=served if model is None else str(model),
        text=text,
        key=prompt_key(text),
        prompt_tokens=prompt,
        limit=limit,
        thinking=thinking,
        stream=stream,
        include_usage=include_usage,
        seed=_whole(seed),
        greedy=body.get("temperature") == 0,
        token_ids=body.get("return_token_ids") is True and profile.returns_token_ids,
        reasoning_budget=requested_budget(profile.name, body),
        tools=bool(body.get("tools")),
        top_k=_whole(body.get("top_k")),
        effort=effort if isinstance(effort := body.get("reasoning_effort"), str) else None,
    )


def _whole(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
