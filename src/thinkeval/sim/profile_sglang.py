"""The SGLang 0.5 wire format (see `profiles.Profile` for the hooks it overrides)."""

from __future__ import annotations

from typing import Any

from thinkeval.sim.behaviour import Generation
from thinkeval.sim.profiles import ErrorReply, Profile
from thinkeval.sim.text import EOS_TOKEN_ID


class SGLang(Profile):
    """SGLang 0.5: `reasoning_content`, `content: ""` when empty, flat errors, `matched_stop`."""

    name = "sglang"
    version = "0.5.3"
    id_hex = 32
    legacy_split = False
    checks_model = False  # the request's model string is echoed back
    usage_by_default = False
    returns_token_ids = False  # no `return_token_ids`: nothing to continue from
    owned_by = "sglang"
    empty_content = ""
    none_suffix = ""

    def response_id(self, request_id: str) -> str:
        return request_id

    def completion(
        self, rid: str, created: int, model: str, gen: Generation, prompt_tokens: int
    ) -> dict[str, Any]:
        reasoning, content = self.split(gen)
        return {
            "id": rid,
            "object": "chat.completion",
            "created": created,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": content,
                        "reasoning_content": reasoning,
                        "tool_calls": None,
                    },
                    "logprobs": None,
                    "finish_reason": gen.finish_reason,
                    "matched_stop": _matched_stop(gen),
                }
            ],
            "usage": self.usage(gen, prompt_tokens),
            "metadata": None,
        }

    def usage(self, gen: Generation, prompt_tokens: int) -> dict[str, Any]:
        return {
            "prompt_tokens": prompt_tokens,
            "total_tokens": prompt_tokens + gen.completion_tokens,
            "completion_tokens": gen.completion_tokens,
            "prompt_tokens_details": None,
            "reasoning_tokens": self.reasoning_tokens(gen),
        }

    def stream_usage(self, gen: Generation, prompt_tokens: int) -> dict[str, Any]:
        return self.usage(gen, prompt_tokens)

    def delta(self, kind: str, text: str = "") -> dict[str, Any]:
        # Chunks are dumped with plain model_dump_json(): every field, nulls included.
        return {
            "role": "assistant" if kind == "role" else None,
            "content": text if kind in ("role", "content") else None,
            "reasoning_content": text if kind == "reasoning" else None,
            "tool_calls": None,
        }

    def choice(self, delta: dict[str, Any], kind: str, finish: str | None) -> dict[str, Any]:
        matched = None
        if finish == "stop":
            matched = EOS_TOKEN_ID
        return {
            "index": 0,
            "delta": delta,
            "logprobs": None,
            "finish_reason": finish,
            "matched_stop": matched,
        }

    def chunk_tail(self, kind: str, include_usage: bool) -> bytes:
        return b',"usage":null}'

    def error(self, status: int, type_: str, message: str, param: str | None = None) -> ErrorReply:
        return status, {
            "object": "error",
            "message": message,
            "type": type_,
            "param": None,
            "code": status,
        }

    def missing_messages(self) -> ErrorReply:
        return self.error(400, "BadRequestError", "Field required: messages")

    def stream_options_without_stream(self) -> ErrorReply | None:
        return None  # SGLang does not validate the combination

    def context_overflow(self, prompt: int, requested: int, max_model_len: int) -> ErrorReply:
        return self.error(
            400,
            "BadRequestError",
            f"Requested token count exceeds the model's maximum context length of "
            f"{max_model_len} tokens. You requested a total of {prompt + requested} tokens: "
            f"{prompt} tokens from the input messages and {requested} tokens for the "
            f"completion. Please reduce the number of tokens in the input messages or the "
            f"completion to fit within the limit.",
        )

    def prompt_too_long(self, prompt: int, max_model_len: int) -> ErrorReply:
        return self.error(
            400,
            "BadRequestError",
            f"The input ({prompt} tokens) is longer than the model's context length "
            f"({max_model_len} tokens).",
        )

    def model_list(self, model: str, root: str, max_model_len: int, created: int) -> dict[str, Any]:
        card = {
            "id": model,
            "object": "model",
            "created": created,
            "owned_by": self.owned_by,
            "root": root,
            "parent": None,
            "max_model_len": max_model_len,
        }
        return {"object": "list", "data": [card]}


def _matched_stop(gen: Generation) -> int | None:
    return EOS_TOKEN_ID if gen.finish_reason == "stop" else None
